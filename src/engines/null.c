/*
 * The null engine: every I/O completes at the next reap without touching
 * the file (fio's null engine). It runs the whole pipeline (driver, queue
 * depth, latency stamps, the sink) without I/O, so it can be tested, and
 * measures the harness's own cost per I/O. Reads leave their buffers as
 * they were (FSB_ENGINE_NODATA): there is nothing to verify.
 */
#include "engines/engine.h"
#include "stats/clock.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct null_priv {
	struct fsb_io **queued; /* since the last commit */
	struct fsb_io **ready;	/* committed, in order */
	struct fsb_io **events; /* the last getevents */
	unsigned nqueued, nready;
};

static void null_cleanup(struct fsb_engine *e)
{
	struct null_priv *p = e->priv;

	if (!p)
		return;
	free(p->queued);
	free(p->ready);
	free(p->events);
	memset(p, 0, sizeof(*p));
}

static int null_init(struct fsb_engine *e)
{
	struct null_priv *p = e->priv;

	p->queued = calloc(e->depth, sizeof(*p->queued));
	p->ready = calloc(e->depth, sizeof(*p->ready));
	p->events = calloc(e->depth, sizeof(*p->events));
	if (p->queued && p->ready && p->events)
		return 0;
	fsb_err("engine null: out of memory");
	return -ENOMEM;
}

static int null_queue(struct fsb_engine *e, struct fsb_io *io)
{
	struct null_priv *p = e->priv;

	if (p->nqueued + p->nready >= e->depth) {
		/* The driver never asks for more than depth. */
		fsb_err("engine null: more than %u I/Os in flight", e->depth);
		return -EBUSY;
	}
	p->queued[p->nqueued++] = io;
	return FSB_ENGINE_QUEUED;
}

static int null_commit(struct fsb_engine *e)
{
	struct null_priv *p = e->priv;
	uint64_t now = fsb_clock_ns();

	for (unsigned i = 0; i < p->nqueued; i++) {
		p->queued[i]->submit_ns = now;
		p->ready[p->nready++] = p->queued[i];
	}
	p->nqueued = 0;
	return 0;
}

static int null_getevents(struct fsb_engine *e, unsigned min, unsigned max)
{
	struct null_priv *p = e->priv;
	unsigned n = p->nready < max ? p->nready : max;
	uint64_t now = fsb_clock_ns();

	if (n < min) {
		fsb_err("engine null: waiting for %u I/Os, %u committed", min, p->nready);
		return -EDEADLK;
	}
	for (unsigned i = 0; i < n; i++) {
		struct fsb_io *io = p->ready[i];

		io->res = io->op == FSB_IO_FSYNC ? 0 : io->xfer_len;
		io->complete_ns = now;
		p->events[i] = io;
	}
	p->nready -= n;
	memmove(p->ready, p->ready + n, p->nready * sizeof(*p->ready));
	return (int)n;
}

static struct fsb_io *null_event(struct fsb_engine *e, unsigned i)
{
	return ((struct null_priv *)e->priv)->events[i];
}

const struct fsb_engine_ops fsb_eng_null = {
	.name = "null",
	.title = "no I/O: every I/O completes at once (the harness's own cost)",
	.flags = FSB_ENGINE_NODATA,
	.priv_size = sizeof(struct null_priv),
	.init = null_init,
	.queue = null_queue,
	.commit = null_commit,
	.getevents = null_getevents,
	.event = null_event,
	.cleanup = null_cleanup,
};
