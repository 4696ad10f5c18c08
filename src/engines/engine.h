/*
 * I/O engines: how a workload's reads, writes and fsyncs reach the kernel,
 * behind one interface beside the workloads (fio's ioengine_ops).
 *
 * An engine is a `struct fsb_engine_ops` filled with designated
 * initialisers and listed in the registry (engine.c). Its hooks:
 *   init       set up for one open file, a queue depth and the caller's
 *              buffers (io_uring: the ring, the registered file and the
 *              registered buffers); untimed
 *   queue      accept one I/O: FSB_ENGINE_QUEUED (submitted at the next
 *              commit) or FSB_ENGINE_COMPLETED (done at once: psync)
 *   commit     hand everything queued to the kernel in one go
 *   getevents  wait for at least min completions, reap at most max
 *   event      the i-th I/O reaped by the last getevents
 *   cleanup    release what init set up (always, idempotent)
 * Engines stamp each I/O: submit_ns when it is handed to the kernel,
 * complete_ns when its completion is reaped (CLOCK_MONOTONIC,
 * fsb_clock_ns), so a latency is submission to completion whatever the
 * engine.
 *
 * Workloads do not call the hooks: they describe their I/Os to
 * fsb_engine_drive(), which keeps up to `depth` of them in flight, so no
 * test branches on the engine.
 */
#ifndef FSB_ENGINES_ENGINE_H
#define FSB_ENGINES_ENGINE_H
#include <stddef.h>
#include <stdint.h>

enum fsb_io_op { FSB_IO_READ, FSB_IO_WRITE, FSB_IO_FSYNC };

struct fsb_io {
	/* The I/O as asked: op, off and len are filled by the workload's
	 * next(); buf and buf_index are set by the driver (the slot's own
	 * registered buffer, buf_bytes long; a write's data goes in it). */
	enum fsb_io_op op;
	void *buf;
	uint32_t len;
	uint64_t off;
	unsigned buf_index;
	void *user; /* the workload's, untouched by the driver */
	/* This submission, set by the driver: the whole I/O, or the rest of
	 * a short transfer. Engines transfer exactly this. */
	void *xfer_buf;
	uint32_t xfer_len;
	uint64_t xfer_off;
	/* Stamped by the engine. */
	uint64_t submit_ns;   /* handed to the kernel */
	uint64_t complete_ns; /* completion reaped */
	/* Engine: bytes of this submission or -errno. At done(): the bytes
	 * of the whole I/O (less than len only at end of file) or -errno. */
	int64_t res;
};

/* queue() results (or a negative errno). */
enum { FSB_ENGINE_QUEUED = 0, FSB_ENGINE_COMPLETED = 1 };

/* next() results of fsb_engine_drive (or a negative errno). */
enum {
	FSB_ENGINE_END = 0,  /* no I/O left */
	FSB_ENGINE_NEXT = 1, /* io holds the following I/O */
	/* No I/O for this slot now, but more may come once an I/O in flight
	 * completes: a write that must follow its own read into the same
	 * buffer (rewrite, seeks). Asked again after the next completion. */
	FSB_ENGINE_IDLE = 2,
};

/* Engine properties. */
enum {
	/* queue() does the I/O and returns FSB_ENGINE_COMPLETED: at most one
	 * I/O is ever in flight, whatever the depth (fio's psync). */
	FSB_ENGINE_SYNC = 1u << 0,
	/* No data moves: a read leaves its buffer as it was, so there is
	 * nothing to verify (the null engine). */
	FSB_ENGINE_NODATA = 1u << 1,
};

struct fsb_engine;

struct fsb_engine_ops {
	const char *name;  /* --engine name, e.g. "io_uring" */
	const char *title; /* one line for --help and the man page */
	unsigned flags;	   /* FSB_ENGINE_* */
	size_t priv_size;  /* zeroed private state, e->priv */
	/* 0 or -errno, described. e->fd, depth and buffers are set. */
	int (*init)(struct fsb_engine *e);
	/* FSB_ENGINE_QUEUED, FSB_ENGINE_COMPLETED, or -errno (described). */
	int (*queue)(struct fsb_engine *e, struct fsb_io *io);
	/* 0 or -errno (described). NULL for FSB_ENGINE_SYNC engines. */
	int (*commit)(struct fsb_engine *e);
	/* Completions reaped (>= min unless an error), or -errno: -EINTR
	 * when a signal broke the wait (not described: the caller retries or
	 * stops), other errors described. NULL for FSB_ENGINE_SYNC. */
	int (*getevents)(struct fsb_engine *e, unsigned min, unsigned max);
	struct fsb_io *(*event)(struct fsb_engine *e, unsigned i);
	void (*cleanup)(struct fsb_engine *e);
};

/* One engine set up on one file. Owned by the caller (a workload's priv). */
struct fsb_engine {
	const struct fsb_engine_ops *ops;
	int fd;		/* the caller's; not closed by the engine */
	unsigned depth; /* I/Os in flight at most (>= 1) */
	void *bufs;	/* nbufs buffers of buf_bytes, the caller's */
	size_t buf_bytes;
	unsigned nbufs;
	void *priv; /* ops->priv_size bytes, the engine's */
	int ready;  /* init succeeded: cleanup is due */
};

/* The engine called name, or NULL. */
const struct fsb_engine_ops *fsb_engine_find(const char *name);

/* The engine used when none is configured (psync). */
const struct fsb_engine_ops *fsb_engine_default(void);

/* "psync|io_uring|null": for usage messages. A static string. */
const char *fsb_engine_names(void);

/*
 * Check every registered engine once at start-up: a name and title,
 * queue and init, and commit/getevents/event unless FSB_ENGINE_SYNC;
 * unique names. Returns 0 or -EINVAL after describing the first defect.
 */
int fsb_engine_check(void);

/*
 * Set e up for the open file fd with `depth` I/Os in flight at most, over
 * the caller's buffers: bufs holds nbufs (>= depth) buffers of buf_bytes
 * each, buffer i at bufs + i * buf_bytes, aligned for O_DIRECT when fd
 * uses it. The caller keeps owning fd and bufs and must keep them until
 * fsb_engine_release(). Untimed (io_uring makes its ring and registers the
 * file and the buffers here). Returns 0 or -errno after describing the
 * failure in one line (e.g. io_uring refused by the kernel or a seccomp
 * policy); e can then still be released.
 */
int fsb_engine_init(struct fsb_engine *e, const struct fsb_engine_ops *ops, int fd, unsigned depth,
		    void *bufs, size_t buf_bytes, unsigned nbufs);

/* Undo fsb_engine_init (also after it failed, and twice). No I/O of the
 * engine may be in flight: fsb_engine_drive() always reaps them all. */
void fsb_engine_release(struct fsb_engine *e);

/*
 * The driver every workload uses: keep up to e->depth I/Os in flight until
 * next() has none left.
 *   next(arg, io) fills op, off and len of the following I/O (and a
 *     write's data in io->buf); returns FSB_ENGINE_NEXT when there is one,
 *     FSB_ENGINE_END at the end, FSB_ENGINE_IDLE when this slot (its
 *     buffer, io->buf_index) has nothing now but may after a completion,
 *     or -errno (described) to stop. A slot keeps its buffer for good, so
 *     a workload can read into a buffer and write the same buffer back
 *     from the same slot (rewrite): the data never moves. When every slot
 *     is idle and nothing is in flight, the drive ends.
 *   done(arg, io, lat_ns) gets each finished I/O once, io->res its bytes
 *     or -errno, lat_ns from its first submission to its completion; it
 *     verifies and reports the I/O (or describes its error) and returns
 *     0, or non-zero to stop (-EINTR after a stop request).
 * Short transfers are resubmitted for the rest (a read that reaches end of
 * file is finished short, as fsb_pread_full; a write that transfers
 * nothing is -EIO, as fsb_pwrite_full); EINTR and EAGAIN are resubmitted.
 * On a stop request (fsb_stop_requested), an error of next or done, or an
 * engine failure, no further I/O is submitted and every I/O in flight is
 * reaped before returning (the kernel never writes into a buffer the
 * caller may free); those late completions are not passed to done.
 * Returns 0, -EINTR after a stop request, or the first error.
 */
int fsb_engine_drive(struct fsb_engine *e, int (*next)(void *arg, struct fsb_io *io),
		     int (*done)(void *arg, struct fsb_io *io, uint64_t lat_ns), void *arg);

/*
 * fsync the engine's file through the engine (after fsb_engine_drive has
 * returned: nothing in flight), so that a write test's flush goes the way
 * its writes went. Returns 0 or -errno; the fsync's own error is not
 * described (the caller names the file), -EINTR after a stop request.
 */
int fsb_engine_fsync(struct fsb_engine *e);

#endif
