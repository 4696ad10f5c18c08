/*
 * The engine registry, set-up and release, and the driver that keeps a
 * workload's I/Os in flight through any engine.
 */
#include "engines/engine.h"
#include "util/error.h"
#include "util/signals.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper queues buy nothing on any device (NVMe's own queues are 64k, but
 * one submitter saturates them far below this) and cost pinned memory. */
#define MAX_DEPTH 4096

extern const struct fsb_engine_ops fsb_eng_psync, fsb_eng_io_uring, fsb_eng_null;

/* psync first: it is the default, and the reference the others are tested
 * against. */
static const struct fsb_engine_ops *const engines[] = {
	&fsb_eng_psync,
	&fsb_eng_io_uring,
	&fsb_eng_null,
	NULL,
};

const struct fsb_engine_ops *fsb_engine_find(const char *name)
{
	for (size_t i = 0; name && engines[i]; i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}

const struct fsb_engine_ops *fsb_engine_default(void)
{
	return engines[0];
}

const char *fsb_engine_names(void)
{
	/* Built from the table, so a new engine can never be missing. */
	static char names[128];
	size_t used = 0;

	if (names[0])
		return names;
	for (size_t i = 0; engines[i]; i++) {
		int n = snprintf(names + used, sizeof(names) - used, "%s%s", used ? "|" : "",
				 engines[i]->name);

		if (n < 0 || (size_t)n >= sizeof(names) - used)
			break;
		used += (size_t)n;
	}
	return names;
}

int fsb_engine_check(void)
{
	for (size_t i = 0; engines[i]; i++) {
		const struct fsb_engine_ops *o = engines[i];
		bool sync = o->flags & FSB_ENGINE_SYNC;

		if (!o->name || !o->title || !o->init || !o->queue) {
			fsb_err("engine %zu: incomplete definition", i);
			return -EINVAL;
		}
		if (!sync && (!o->commit || !o->getevents || !o->event)) {
			fsb_err("engine '%s': an asynchronous engine needs commit, getevents and event",
				o->name);
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(engines[j]->name, o->name)) {
				fsb_err("engine '%s': registered twice", o->name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

int fsb_engine_init(struct fsb_engine *e, const struct fsb_engine_ops *ops, int fd, unsigned depth,
		    void *bufs, size_t buf_bytes, unsigned nbufs)
{
	int err;

	memset(e, 0, sizeof(*e));
	e->ops = ops;
	e->fd = fd;
	e->depth = depth ? depth : 1;
	e->bufs = bufs;
	e->buf_bytes = buf_bytes;
	e->nbufs = nbufs;
	if (e->depth > MAX_DEPTH) {
		fsb_err("engine %s: queue depth %u is more than %u", ops->name, e->depth,
			MAX_DEPTH);
		return -EINVAL;
	}
	if (nbufs < e->depth || !bufs || !buf_bytes) {
		fsb_err("engine %s: %u buffers for a queue depth of %u", ops->name, nbufs,
			e->depth);
		return -EINVAL;
	}
	if (ops->priv_size && !(e->priv = calloc(1, ops->priv_size))) {
		fsb_err("engine %s: out of memory", ops->name);
		return -ENOMEM;
	}
	err = ops->init(e);
	if (err) {
		/* cleanup is idempotent: it undoes whatever init got to. */
		if (ops->cleanup)
			ops->cleanup(e);
		free(e->priv);
		e->priv = NULL;
		return err;
	}
	e->ready = 1;
	return 0;
}

void fsb_engine_release(struct fsb_engine *e)
{
	if (!e->ops)
		return;
	if (e->ready && e->ops->cleanup)
		e->ops->cleanup(e);
	e->ready = 0;
	free(e->priv);
	e->priv = NULL;
}

/* ---- the driver ---- */

/* One I/O the driver tracks: the fsb_io first, so an engine's pointer to
 * the io is a pointer to its slot. */
struct slot {
	struct fsb_io io;
	uint64_t first_ns; /* submit_ns of the first submission */
	uint32_t moved;	   /* bytes transferred by earlier submissions */
	bool stamped;	   /* first_ns is set */
};

struct drive {
	struct fsb_engine *e;
	int (*done)(void *arg, struct fsb_io *io, uint64_t lat_ns);
	void *arg;
	struct slot *slots;
	struct slot **free; /* stack of idle slots */
	unsigned nfree;
	unsigned queued;   /* queued, not yet committed */
	unsigned inflight; /* committed, not yet reaped */
	int err;	   /* first error: stop submitting */
};

enum { SETTLED = 0, RESUBMIT = 1 };

/*
 * Account for a submission that came back: resubmit the rest of a short
 * transfer (or the same after EINTR/EAGAIN), or finish the I/O and hand it
 * to done(). Returns RESUBMIT, SETTLED (the slot is idle again), or the
 * error done() returned (slot idle).
 */
static int settle(struct drive *d, struct slot *s)
{
	struct fsb_io *io = &s->io;
	int64_t res = io->res;
	bool stopping;
	int r;

	/* From a stop on, nothing is resubmitted nor reported: a transfer cut
	 * short by it is no end of file. */
	if (!d->err && fsb_stop_requested())
		d->err = -EINTR;
	stopping = d->err != 0;

	if (!s->stamped) {
		s->first_ns = io->submit_ns;
		s->stamped = true;
	}
	if ((res == -EINTR || res == -EAGAIN) && !stopping)
		return RESUBMIT;
	if (res > 0 && io->op != FSB_IO_FSYNC) {
		s->moved += (uint32_t)(res < io->xfer_len ? res : io->xfer_len);
		if (s->moved < io->len && !stopping) {
			/* A short transfer is not an error: ask for the rest. */
			io->xfer_buf = (char *)io->buf + s->moved;
			io->xfer_len = io->len - s->moved;
			io->xfer_off = io->off + s->moved;
			return RESUBMIT;
		}
	}
	if (res == 0 && io->op == FSB_IO_WRITE && s->moved < io->len)
		res = -EIO; /* a write that moves nothing would loop forever */
	if (res >= 0)
		res = io->op == FSB_IO_FSYNC ? 0 : s->moved;
	io->res = res;
	d->free[d->nfree++] = s;
	/* After a stop or an error, late completions are only reaped. */
	if (stopping)
		return SETTLED;
	r = d->done(d->arg, io, io->complete_ns - s->first_ns);
	return r ? (r < 0 ? r : -EINTR) : SETTLED;
}

/*
 * Hand a slot's current transfer to the engine; a synchronous engine
 * completes it here, maybe in several goes. Returns 0 or -errno (the slot
 * is idle again after an error).
 */
static int submit(struct drive *d, struct slot *s)
{
	for (;;) {
		int r = d->e->ops->queue(d->e, &s->io);

		if (r == FSB_ENGINE_QUEUED) {
			d->queued++;
			return 0;
		}
		if (r < 0) {
			d->free[d->nfree++] = s;
			return r;
		}
		r = settle(d, s);
		if (r != RESUBMIT)
			return r;
	}
}

/* Take the following I/O from next() into an idle slot and submit it.
 * 1 when one was submitted, 0 at the end, FSB_ENGINE_IDLE when next() had
 * nothing for that slot now, -errno. */
static int start_one(struct drive *d, int (*next)(void *, struct fsb_io *))
{
	struct slot *s = d->free[--d->nfree];
	struct fsb_io *io = &s->io;
	int r;

	io->op = FSB_IO_READ;
	io->len = 0;
	io->off = 0;
	io->user = NULL;
	r = next(d->arg, io);
	if (r == FSB_ENGINE_IDLE) {
		/* Set aside at the bottom of the stack: the other idle slots
		 * are asked first, this one again after a completion. */
		memmove(d->free + 1, d->free, d->nfree * sizeof(*d->free));
		d->free[0] = s;
		d->nfree++;
		return r;
	}
	if (r <= 0) {
		d->nfree++;
		return r;
	}
	if (io->op != FSB_IO_FSYNC && (!io->len || io->len > d->e->buf_bytes)) {
		/* The kernel would write past the buffer: a workload bug. */
		d->nfree++;
		fsb_err("engine %s: I/O of %u bytes for buffers of %zu", d->e->ops->name, io->len,
			d->e->buf_bytes);
		return -EINVAL;
	}
	s->moved = 0;
	s->stamped = false;
	io->xfer_buf = io->buf;
	io->xfer_len = io->len;
	io->xfer_off = io->off;
	io->res = 0;
	r = submit(d, s);
	return r < 0 ? r : 1;
}

/* Reap what the engine has (at least one), settle each. 0 or -errno of
 * the engine (then nothing more can be reaped). */
static int reap(struct drive *d)
{
	struct fsb_engine *e = d->e;
	int n = e->ops->getevents(e, 1, d->inflight);

	if (n == -EINTR)
		return 0; /* the loop notices a stop, and reaps on */
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct slot *s = (struct slot *)e->ops->event(e, (unsigned)i);
		int r;

		d->inflight--;
		r = settle(d, s);
		/* Queued again: in flight once more at the next commit. */
		if (r == RESUBMIT)
			r = submit(d, s);
		if (r < 0 && !d->err)
			d->err = r;
	}
	return 0;
}

int fsb_engine_drive(struct fsb_engine *e, int (*next)(void *arg, struct fsb_io *io),
		     int (*done)(void *arg, struct fsb_io *io, uint64_t lat_ns), void *arg)
{
	struct drive d = { .e = e, .done = done, .arg = arg };
	bool end = false;
	int r;

	if (!e->ready) {
		fsb_err("engine %s: not set up", e->ops ? e->ops->name : "(none)");
		return -EINVAL;
	}
	d.slots = calloc(e->depth, sizeof(*d.slots));
	d.free = calloc(e->depth, sizeof(*d.free));
	if (!d.slots || !d.free) {
		free(d.slots);
		free(d.free);
		fsb_err("engine %s: out of memory", e->ops->name);
		return -ENOMEM;
	}
	/* Slot i owns buffer i for good: a registered buffer is named by its
	 * index (io_uring's read_fixed). Popped from the end, so a
	 * synchronous engine keeps using slot 0. */
	for (unsigned i = 0; i < e->depth; i++) {
		struct slot *s = &d.slots[e->depth - 1 - i];

		s->io.buf_index = e->depth - 1 - i;
		s->io.buf = (char *)e->bufs + (size_t)s->io.buf_index * e->buf_bytes;
		d.free[d.nfree++] = s;
	}
	for (;;) {
		unsigned idle = 0; /* slots at the bottom that had nothing now */

		if (!d.err && fsb_stop_requested())
			d.err = -EINTR;
		/* Fill every idle slot, then submit them together. */
		while (!d.err && !end && d.nfree > idle) {
			r = start_one(&d, next);
			if (r == FSB_ENGINE_IDLE)
				idle++;
			else if (r == 0)
				end = true;
			else if (r < 0)
				d.err = r;
		}
		if (d.queued) {
			r = e->ops->commit(e);
			if (r < 0) {
				/* The engine could not hand them over (described):
				 * they are not in flight, and nothing more goes. */
				if (!d.err)
					d.err = r;
				d.queued = 0;
			}
			d.inflight += d.queued;
			d.queued = 0;
		}
		if (!d.inflight)
			break;
		/* Reap, also after an error or a stop: the kernel may still
		 * write into these buffers. */
		r = reap(&d);
		if (r < 0) {
			if (!d.err)
				d.err = r;
			break;
		}
		/* Resubmissions made while reaping go out with the next
		 * commit (a synchronous engine has already done them). */
	}
	free(d.slots);
	free(d.free);
	return d.err;
}

int fsb_engine_fsync(struct fsb_engine *e)
{
	struct fsb_io io = { .op = FSB_IO_FSYNC };
	int r;

	if (!e->ready) {
		fsb_err("engine %s: not set up", e->ops ? e->ops->name : "(none)");
		return -EINVAL;
	}
	for (;;) {
		r = e->ops->queue(e, &io);
		if (r == FSB_ENGINE_QUEUED) {
			r = e->ops->commit(e);
			if (r < 0)
				return r;
			/* It must come back before we return, stop or not. */
			while ((r = e->ops->getevents(e, 1, 1)) == -EINTR)
				;
			if (r < 0)
				return r;
		}
		if (r < 0)
			return r;
		if (io.res != -EINTR && io.res != -EAGAIN)
			return io.res < 0 ? (int)io.res : 0;
		if (fsb_stop_requested())
			return -EINTR;
	}
}
