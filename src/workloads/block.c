/*
 * Block tests: sequential write, rewrite and read of the block file in I/Os
 * of --chunk bytes (bonnie's "Block" columns), through the configured I/O
 * engine at the configured queue depth (fsb_engine_drive: no test branches
 * on the engine). The default engine, psync, at depth 1 is bonnie's own
 * loop with pwrite(2)/pread(2) in place of write(2)/read(2): the same I/O,
 * one system call each.
 *
 * With jobs sharing the file (--shared-file), each job works on its own
 * range of it, [job * work, (job + 1) * work), IOR's segments.
 *
 * Measurement policy: the timed region holds the I/O loop and, for the
 * writing tests, the fsync (through the engine) and close (data on the
 * device before the clock stops; "close the file before stopping the
 * clock", as bonnie++ says). Creating/truncating the file, preparing data,
 * dropping the cache, allocating the buffers and setting up the engine are
 * done in setup, untimed.
 */
#include "device/fsinfo.h"
#include "engines/engine.h"
#include "util/error.h"
#include "util/io.h"
#include "util/scratch.h"
#include "util/size.h"
#include "workloads/blockfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rewrite: what a buffer holds between the read of a chunk and its write. */
struct pending {
	uint64_t off;	   /* the chunk read into the buffer */
	uint64_t start_ns; /* its read's first submission: the unit's start */
	bool write;	   /* read and dirtied: write it back next */
};

struct block_priv {
	const char *test;
	struct fsb_block_io file; /* the file, its pattern, the engine and its buffers */
	size_t chunk;
	uint64_t base;	      /* this job's range in the file */
	uint64_t work;	      /* bytes this run */
	uint64_t span;	      /* the range's bytes the run goes over, pass after pass */
	uint64_t next;	      /* the next chunk to issue, from base */
	bool stopping;	      /* the sink said stop: start no new chunk */
	bool done;	      /* the run completed: the file is whole */
	struct pending *pend; /* rewrite: one per buffer */
	unsigned busy;	      /* rewrite: chunks read and not yet written back */
	struct fsb_sink *out;
	char path[4096];
};

/* A run of ctx->work over `span` bytes of this job's range (ctx->work
 * but for passes: span_of). */
static int open_priv(struct fsb_ctx *ctx, struct block_priv *p, const char *test, int flags,
		     uint64_t span)
{
	int err = fsb_scratch_path(ctx->dir, FSB_BLOCKFILE_NAME, p->path, sizeof(p->path));

	p->test = test;
	p->file.fd = -1;
	p->chunk = ctx->cfg->chunk_bytes;
	p->work = ctx->work;
	p->span = span;
	p->base = fsb_ctx_base(ctx, span);
	if (err)
		return err;
	return fsb_block_io_open(&p->file, ctx, test, FSB_BLOCKFILE_NAME, p->chunk, flags);
}

static void block_teardown(struct fsb_ctx *ctx, void *priv)
{
	struct block_priv *p = priv;

	(void)ctx;
	fsb_block_io_release(&p->file);
	free(p->pend);
	p->pend = NULL;
}

/* An I/O that came back short or failed: described, as the test's error. */
static int io_failed(struct block_priv *p, const struct fsb_io *io)
{
	return fsb_workload_io_error(p->test, io->op == FSB_IO_WRITE ? "write" : "read", p->path,
				     io->off, io->res < 0 ? (int)io->res : 0, p->work);
}

/* Report a finished unit; a stop verdict ends the issuing. */
static int count(struct block_priv *p, uint64_t lat_ns)
{
	int r = fsb_sink_op(p->out, p->chunk, lat_ns);

	if (r < 0)
		return r;
	if (r == FSB_SINK_STOP)
		p->stopping = true;
	return 0;
}

/* The next chunk of the range, or false at its end (or after a stop). */
static bool next_chunk(struct block_priv *p, struct fsb_io *io, enum fsb_io_op op)
{
	if (p->stopping || p->next >= p->work)
		return false;
	io->op = op;
	io->off = p->base + p->next % p->span;
	io->len = (uint32_t)p->chunk;
	p->next += p->chunk;
	return true;
}

/* Flush and close inside the timed region; a failing close is a failing
 * write. */
static int finish_write(struct block_priv *p)
{
	int err = fsb_engine_fsync(&p->file.eng);

	fsb_engine_release(&p->file.eng);
	if (close(p->file.fd) < 0 && !err)
		err = -errno;
	p->file.fd = -1;
	if (err == -EINTR && fsb_stop_requested())
		return err;
	if (err)
		fsb_err_errno(err, "%s: cannot flush '%s'", p->test, p->path);
	return err;
}

/* ---- write ---- */

static uint64_t size_work(const struct fsb_ctx *ctx)
{
	return ctx->cfg->size_bytes;
}

/* A --size the user gave is run exactly (max_work == initial_work: no
 * growth, no share of the free space); 0: grown from the default. */
static uint64_t size_max(const struct fsb_ctx *ctx)
{
	return ctx->cfg->size_given ? ctx->cfg->size_bytes : 0;
}

/*
 * The O_TRUNC of the next attempt frees the file's blocks for it, except on
 * a copy-on-write filesystem, where they come back only when the
 * transaction commits, during or after that attempt.
 */
static uint64_t write_fit(const struct fsb_ctx *ctx, const struct fsb_space *share)
{
	return share->bytes + (ctx->cow ? 0 : fsb_chunkfile_have(ctx, FSB_BLOCKFILE_NAME));
}

static int write_setup(struct fsb_ctx *ctx, void *priv)
{
	/* O_TRUNC here, untimed: freeing the old blocks is not the test. (A
	 * shared file is truncated by job 0's setup, before the others'.) */
	return open_priv(ctx, priv, "write", O_WRONLY | O_CREAT | O_TRUNC, ctx->work);
}

static int write_next(void *arg, struct fsb_io *io)
{
	struct block_priv *p = arg;

	if (!next_chunk(p, io, FSB_IO_WRITE))
		return FSB_ENGINE_END;
	/* The chunk's data, copied from the pattern's pool: fresh bytes for
	 * every chunk are the cost of data no compressor can shrink. */
	fsb_pattern_fill(&p->file.pat, io->buf, io->off, 0);
	return FSB_ENGINE_NEXT;
}

static int write_done(void *arg, struct fsb_io *io, uint64_t lat_ns)
{
	struct block_priv *p = arg;

	if (io->res != io->len)
		return io_failed(p, io);
	return count(p, lat_ns);
}

static int write_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	struct block_priv *p = priv;
	int err;

	(void)ctx;
	p->out = out;
	err = fsb_engine_drive(&p->file.eng, write_next, write_done, p);
	if (!err)
		err = finish_write(p);
	/* Whole only when every chunk of the range was written. */
	p->done = !err && !p->stopping;
	return err;
}

/*
 * A write stopped early (--stonewall, --deadline) or failed leaves its
 * range short. In a file of its own that is a shorter file, which the next
 * test's setup extends; in a file the jobs share it is a hole in the
 * middle, which the next test would read as zeros: remove the file, and
 * the next setup makes it whole.
 */
static void write_teardown(struct fsb_ctx *ctx, void *priv)
{
	struct block_priv *p = priv;

	block_teardown(ctx, priv);
	if (ctx->shared && !p->done && p->path[0])
		fsb_cleanup_unlinkat(AT_FDCWD, p->path, 0);
}

const struct fsb_workload_ops fsb_wl_write = {
	.name = "write",
	.family = "throughput",
	.title = "block write: --chunk I/Os through --engine, fsync before the clock stops",
	.flags = FSB_WL_WRITES | FSB_WL_WARMUP | FSB_WL_ENGINE,
	.work_unit = FSB_WORK_BYTES,
	.initial_work = size_work,
	.max_work = size_max,
	.space_fit = write_fit,
	.scratch_file = FSB_BLOCKFILE_NAME,
	.priv_size = sizeof(struct block_priv),
	.setup = write_setup,
	.run = write_run,
	.teardown = write_teardown,
};

/* ---- read and rewrite work on the file as it is (grown if needed) ---- */

static uint64_t existing_work(const struct fsb_ctx *ctx)
{
	uint64_t have = fsb_blockfile_have(ctx);

	return have ? have : ctx->cfg->size_bytes;
}

static uint64_t existing_fit(const struct fsb_ctx *ctx, const struct fsb_space *share)
{
	return share->bytes + fsb_chunkfile_have(ctx, FSB_BLOCKFILE_NAME);
}

/*
 * Rewriting in place needs no new space, except on a copy-on-write
 * filesystem: there a chunk rewritten takes a new one, and the old is
 * freed only with its whole extent, at a commit (fsb_fsinfo_cow_window:
 * window W, 128 MiB on btrfs). Rewriting w bytes of a file of `have`
 * needs w - have appended first (when w > have), then min(w, W) held
 * twice: the largest w whose need fits in `avail`.
 */
static uint64_t rewrite_fit(const struct fsb_ctx *ctx, const struct fsb_space *share)
{
	uint64_t avail = share->bytes, window = 0;
	uint64_t have = fsb_chunkfile_have(ctx, FSB_BLOCKFILE_NAME);
	struct fsb_fsinfo fsi;

	if (!ctx->cow)
		return avail + have;
	window = fsb_fsinfo_for_path(ctx->dir, &fsi) ? UINT64_MAX
						     : fsb_fsinfo_cow_window(fsi.fs_type);
	if (avail < have && avail < window)
		return avail;
	/* w >= W: w - have + W <= avail; else 2w - have <= avail. */
	if (window != UINT64_MAX && avail + have >= 2 * window)
		return avail + have - window;
	return (avail + have) / 2;
}

/* The bytes of its range a run of ctx->work goes over (fsb_pass_span). */
static uint64_t span_of(const struct fsb_ctx *ctx)
{
	return fsb_pass_span(fsb_blockfile_pass_bytes(ctx), ctx->work);
}

/* The file, when a run goes over it more than once. */
static uint64_t pass_file(const struct fsb_ctx *ctx)
{
	return fsb_pass_file(fsb_blockfile_pass_bytes(ctx), ctx->work);
}

/* Passes over the file need no space past the file's: any work is ready
 * where they are allowed (a file a little under FSB_BLOCKFILE_PASS_MIN
 * made that long first, in setup). */
static uint64_t pass_ready(const struct fsb_ctx *ctx, uint64_t low, uint64_t high)
{
	(void)low;
	return fsb_chunkfile_pass_ready(ctx, FSB_BLOCKFILE_NAME, ctx->cfg->chunk_bytes) ? high : 0;
}

/*
 * Untimed, for tests that read the file: it holds this job's span_of
 * bytes of valid chunks and is cold (cache mode), then it is opened.
 */
static int prepare_and_open(struct fsb_ctx *ctx, void *priv, const char *test, int flags)
{
	uint64_t span = span_of(ctx);
	int err;

	((struct block_priv *)priv)->file.fd = -1;
	err = fsb_blockfile_prepare(ctx, test, span);
	return err ? err : open_priv(ctx, priv, test, flags, span);
}

static int rewrite_setup(struct fsb_ctx *ctx, void *priv)
{
	struct block_priv *p = priv;
	int err = prepare_and_open(ctx, priv, "rewrite", O_RDWR);

	if (err)
		return err;
	p->pend = calloc(p->file.eng.depth, sizeof(*p->pend));
	return p->pend ? 0 : -ENOMEM;
}

/*
 * One unit of rewrite is bonnie's: read a chunk, dirty it, write it back
 * in place. A buffer holds its chunk from the read to the write (the
 * driver gives each slot its own buffer), so at any depth each chunk is
 * read, then dirtied, then written, in that order.
 */
static int rewrite_next(void *arg, struct fsb_io *io)
{
	struct block_priv *p = arg;
	struct pending *pd = &p->pend[io->buf_index];

	if (pd->write) {
		pd->write = false;
		io->op = FSB_IO_WRITE;
		io->off = pd->off;
		io->len = (uint32_t)p->chunk;
		return FSB_ENGINE_NEXT;
	}
	/* A pass starts once the last is written back: its reads see every
	 * chunk's new generation. */
	if (p->busy && p->next % p->span == 0 && p->next < p->work)
		return FSB_ENGINE_IDLE;
	/* Not the end while other buffers may still have a write to do. */
	if (!next_chunk(p, io, FSB_IO_READ))
		return FSB_ENGINE_IDLE;
	p->busy++;
	pd->off = io->off;
	return FSB_ENGINE_NEXT;
}

static int rewrite_done(void *arg, struct fsb_io *io, uint64_t lat_ns)
{
	struct block_priv *p = arg;
	struct pending *pd = &p->pend[io->buf_index];
	int err;

	if (io->res != io->len)
		return io_failed(p, io);
	if (io->op == FSB_IO_READ) {
		if (p->file.verify &&
		    (err = fsb_block_verify(&p->file.pat, "rewrite", p->path, io->buf, io->off)))
			return err;
		fsb_pattern_stamp(&p->file.pat, io->buf, io->off,
				  fsb_pattern_gen(&p->file.pat, io->buf) + 1);
		pd->start_ns = io->complete_ns - lat_ns;
		pd->write = true;
		return 0;
	}
	p->busy--;
	return count(p, io->complete_ns - pd->start_ns);
}

static int rewrite_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	struct block_priv *p = priv;
	int err;

	(void)ctx;
	p->out = out;
	err = fsb_engine_drive(&p->file.eng, rewrite_next, rewrite_done, p);
	if (!err)
		err = finish_write(p);
	/* Cut short by a stop verdict, every chunk is one generation or the
	 * next, each whole: the file stays. */
	p->done = !err;
	return err;
}

/*
 * A rewrite that failed (out of space on a copy-on-write filesystem, say)
 * may have left a chunk half old, half new, which the next attempt would
 * rightly call torn: remove the file, and the next setup makes it whole.
 */
static void rewrite_teardown(struct fsb_ctx *ctx, void *priv)
{
	struct block_priv *p = priv;

	block_teardown(ctx, priv);
	if (!p->done && p->path[0])
		fsb_cleanup_unlinkat(AT_FDCWD, p->path, 0);
}

const struct fsb_workload_ops fsb_wl_rewrite = {
	.name = "rewrite",
	.family = "throughput",
	.title = "rewrite: read a chunk, dirty it, write it back; fsync before the clock stops",
	.flags = FSB_WL_WRITES | FSB_WL_ENGINE | FSB_WL_GIVEN_FILE,
	.work_unit = FSB_WORK_BYTES,
	.initial_work = existing_work,
	.space_fit = rewrite_fit,
	.ready_work = pass_ready,
	.pass_file = pass_file,
	.scratch_file = FSB_BLOCKFILE_NAME,
	.priv_size = sizeof(struct block_priv),
	.setup = rewrite_setup,
	.run = rewrite_run,
	.teardown = rewrite_teardown,
};

static int read_setup(struct fsb_ctx *ctx, void *priv)
{
	return prepare_and_open(ctx, priv, "read", O_RDONLY);
}

static int read_next(void *arg, struct fsb_io *io)
{
	return next_chunk(arg, io, FSB_IO_READ) ? FSB_ENGINE_NEXT : FSB_ENGINE_END;
}

static int read_done(void *arg, struct fsb_io *io, uint64_t lat_ns)
{
	struct block_priv *p = arg;
	int err;

	if (io->res != io->len)
		return io_failed(p, io);
	err = count(p, lat_ns);
	/* Verified outside the latency sample but inside the clock. */
	if (!err && p->file.verify)
		err = fsb_block_verify(&p->file.pat, "read", p->path, io->buf, io->off);
	return err;
}

static int read_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	struct block_priv *p = priv;

	(void)ctx;
	p->out = out;
	return fsb_engine_drive(&p->file.eng, read_next, read_done, p);
}

const struct fsb_workload_ops fsb_wl_read = {
	.name = "read",
	.family = "throughput",
	.title = "block read: --chunk I/Os through --engine from a cold cache, data verified",
	.flags = FSB_WL_OPEN | FSB_WL_ENGINE | FSB_WL_GIVEN_FILE,
	.work_unit = FSB_WORK_BYTES,
	.initial_work = existing_work,
	.space_fit = existing_fit,
	.ready_work = pass_ready,
	.pass_file = pass_file,
	.scratch_file = FSB_BLOCKFILE_NAME,
	.priv_size = sizeof(struct block_priv),
	.setup = read_setup,
	.run = read_run,
	.teardown = block_teardown,
};
