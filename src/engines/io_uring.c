/*
 * The io_uring engine (liburing): one ring per engine, the file and the
 * buffers registered once at set-up (IOSQE_FIXED_FILE, read_fixed /
 * write_fixed: no per-I/O file lookup nor page pinning), every I/O queued
 * since the last commit submitted by one io_uring_enter, completions
 * reaped in batches (io_uring_peek_batch_cqe, io_uring_wait_cqe_nr only
 * when fewer than asked are there).
 *
 * The ring is made for the thread that sets the engine up and is used by
 * it alone (IORING_SETUP_SINGLE_ISSUER, DEFER_TASKRUN where the kernel
 * has them): set the engine up in the process that drives it, never
 * before a fork.
 */
#include "engines/engine.h"
#include "stats/clock.h"
#include "util/error.h"

#include <errno.h>
#include <liburing.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

struct uring_priv {
	struct io_uring ring;
	bool ring_ok;
	bool fixed_bufs;	 /* the buffers are registered */
	bool files_registered;	 /* the file is registered (index 0) */
	struct fsb_io **pending; /* queued since the last commit */
	unsigned npending;
	struct fsb_io **events; /* the last getevents */
	struct io_uring_cqe **cqes;
};

/*
 * The set-up flags to try, best first; a kernel that does not know one
 * answers EINVAL and the next is tried. DEFER_TASKRUN runs completion work
 * only when we wait for it (no interrupting task work between
 * submissions); SUBMIT_ALL keeps submitting past an SQE that fails at
 * once (its error comes back as its completion, as any other).
 */
static const unsigned setup_flags[] = {
	IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN,
	0,
};

static void uring_cleanup(struct fsb_engine *e)
{
	struct uring_priv *p = e->priv;

	if (!p)
		return;
	/*
	 * Exiting the ring would also unregister the file, but the kernel
	 * tears a ring down later, in a worker: until then the file's space
	 * stays taken (on tmpfs, the next test, or the next run, found it
	 * still in use after the file was removed). Unregistering it here
	 * drops the ring's reference before this returns.
	 */
	if (p->ring_ok) {
		if (p->files_registered)
			io_uring_unregister_files(&p->ring);
		io_uring_queue_exit(&p->ring);
	}
	p->files_registered = false;
	p->ring_ok = false;
	free(p->pending);
	free(p->events);
	free(p->cqes);
	p->pending = NULL;
	p->events = NULL;
	p->cqes = NULL;
}

static int uring_init(struct fsb_engine *e)
{
	struct uring_priv *p = e->priv;
	struct iovec *iov;
	int err = -EINVAL;

	p->pending = calloc(e->depth, sizeof(*p->pending));
	p->events = calloc(e->depth, sizeof(*p->events));
	p->cqes = calloc(e->depth, sizeof(*p->cqes));
	if (!p->pending || !p->events || !p->cqes) {
		fsb_err("engine io_uring: out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < sizeof(setup_flags) / sizeof(setup_flags[0]); i++) {
		err = io_uring_queue_init(e->depth, &p->ring, setup_flags[i]);
		if (err != -EINVAL)
			break;
	}
	if (err) {
		/* ENOSYS: a kernel without io_uring; EPERM: disabled by
		 * kernel.io_uring_disabled or a seccomp policy (containers). */
		fsb_err("engine io_uring: cannot set up a ring of %u entries: %s%s", e->depth,
			strerror(-err),
			err == -ENOSYS || err == -EPERM || err == -EACCES
				? " (io_uring is not allowed here: use the psync engine)"
			: err == -ENOMEM
				? " (the locked-memory limit, ulimit -l, may be too small for it: "
				  "raise it, use a smaller --iodepth, or the psync engine)"
				: "");
		return err;
	}
	p->ring_ok = true;
	err = io_uring_register_files(&p->ring, &e->fd, 1);
	if (err) {
		fsb_err("engine io_uring: cannot register the file: %s", strerror(-err));
		return err;
	}
	p->files_registered = true;
	iov = calloc(e->nbufs, sizeof(*iov));
	if (!iov) {
		fsb_err("engine io_uring: out of memory");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < e->nbufs; i++) {
		iov[i].iov_base = (char *)e->bufs + (size_t)i * e->buf_bytes;
		iov[i].iov_len = e->buf_bytes;
	}
	/*
	 * Fixed buffers save pinning the pages of every I/O. A user without
	 * CAP_IPC_LOCK may be refused them (RLIMIT_MEMLOCK): the I/O is the
	 * same with plain buffers, so use those rather than refuse the test.
	 */
	p->fixed_bufs = io_uring_register_buffers(&p->ring, iov, e->nbufs) == 0;
	free(iov);
	return 0;
}

static int uring_queue(struct fsb_engine *e, struct fsb_io *io)
{
	struct uring_priv *p = e->priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);

	if (!sqe) {
		/* The ring has depth entries and the driver keeps at most
		 * depth I/Os: this is a bug, not a busy device. */
		fsb_err("engine io_uring: submission queue full at %u I/Os", p->npending);
		return -EBUSY;
	}
	/* File index 0 of the registered files, not a descriptor. */
	switch (io->op) {
	case FSB_IO_READ:
		if (p->fixed_bufs)
			io_uring_prep_read_fixed(sqe, 0, io->xfer_buf, io->xfer_len, io->xfer_off,
						 (int)io->buf_index);
		else
			io_uring_prep_read(sqe, 0, io->xfer_buf, io->xfer_len, io->xfer_off);
		break;
	case FSB_IO_WRITE:
		if (p->fixed_bufs)
			io_uring_prep_write_fixed(sqe, 0, io->xfer_buf, io->xfer_len, io->xfer_off,
						  (int)io->buf_index);
		else
			io_uring_prep_write(sqe, 0, io->xfer_buf, io->xfer_len, io->xfer_off);
		break;
	default:
		io_uring_prep_fsync(sqe, 0, 0);
		break;
	}
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, io);
	p->pending[p->npending++] = io;
	return FSB_ENGINE_QUEUED;
}

static int uring_commit(struct fsb_engine *e)
{
	struct uring_priv *p = e->priv;
	/* One stamp for the batch, taken before the system call: the
	 * latency includes the submission, as an application sees it. */
	uint64_t now = fsb_clock_ns();
	int r;

	for (unsigned i = 0; i < p->npending; i++)
		p->pending[i]->submit_ns = now;
	p->npending = 0;
	while (io_uring_sq_ready(&p->ring)) {
		r = io_uring_submit(&p->ring);
		if (r >= 0)
			continue;
		/* Transient: no memory for a request now, or interrupted. */
		if (r == -EAGAIN || r == -EINTR || r == -EBUSY) {
			sched_yield();
			continue;
		}
		fsb_err("engine io_uring: cannot submit: %s", strerror(-r));
		return r;
	}
	return 0;
}

static int uring_getevents(struct fsb_engine *e, unsigned min, unsigned max)
{
	struct uring_priv *p = e->priv;
	unsigned n;
	uint64_t now;

	if (max > e->depth)
		max = e->depth;
	n = io_uring_peek_batch_cqe(&p->ring, p->cqes, max);
	if (n < min) {
		struct io_uring_cqe *cqe;
		int r = io_uring_wait_cqe_nr(&p->ring, &cqe, min);

		if (r == -EINTR)
			return r;
		if (r < 0) {
			fsb_err("engine io_uring: cannot wait for completions: %s", strerror(-r));
			return r;
		}
		n = io_uring_peek_batch_cqe(&p->ring, p->cqes, max);
	}
	/* One stamp for the batch: they were all there at this moment. */
	now = fsb_clock_ns();
	for (unsigned i = 0; i < n; i++) {
		struct fsb_io *io = io_uring_cqe_get_data(p->cqes[i]);

		io->res = p->cqes[i]->res;
		io->complete_ns = now;
		p->events[i] = io;
	}
	io_uring_cq_advance(&p->ring, n);
	return (int)n;
}

static struct fsb_io *uring_event(struct fsb_engine *e, unsigned i)
{
	return ((struct uring_priv *)e->priv)->events[i];
}

const struct fsb_engine_ops fsb_eng_io_uring = {
	.name = "io_uring",
	.title = "io_uring (liburing): up to --iodepth I/Os in flight, registered file and buffers",
	.priv_size = sizeof(struct uring_priv),
	.init = uring_init,
	.queue = uring_queue,
	.commit = uring_commit,
	.getevents = uring_getevents,
	.event = uring_event,
	.cleanup = uring_cleanup,
};
