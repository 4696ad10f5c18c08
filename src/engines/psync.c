/*
 * The psync engine: pread/pwrite/fsync at submission, one I/O at a time
 * whatever the depth (fio's psync). It is the default and the reference
 * the other engines are tested against.
 */
#include "engines/engine.h"
#include "stats/clock.h"
#include "util/signals.h"

#include <errno.h>
#include <unistd.h>

static int psync_init(struct fsb_engine *e)
{
	(void)e;
	return 0;
}

static int psync_queue(struct fsb_engine *e, struct fsb_io *io)
{
	ssize_t r;

	/* Stamped around the call alone: the latency is the system call's. */
	io->submit_ns = fsb_clock_ns();
	do {
		switch (io->op) {
		case FSB_IO_READ:
			r = pread(e->fd, io->xfer_buf, io->xfer_len, (off_t)io->xfer_off);
			break;
		case FSB_IO_WRITE:
			r = pwrite(e->fd, io->xfer_buf, io->xfer_len, (off_t)io->xfer_off);
			break;
		default:
			r = fsync(e->fd);
			break;
		}
		/* As util/io.c: EINTR is retried unless a stop was asked for. */
	} while (r < 0 && errno == EINTR && !fsb_stop_requested());
	io->complete_ns = fsb_clock_ns();
	io->res = r < 0 ? -errno : r;
	return FSB_ENGINE_COMPLETED;
}

const struct fsb_engine_ops fsb_eng_psync = {
	.name = "psync",
	.title = "pread(2)/pwrite(2), one I/O at a time (the queue depth is 1)",
	.flags = FSB_ENGINE_SYNC,
	.init = psync_init,
	.queue = psync_queue,
};
