/*
 * Block tests: sequential write, rewrite and read of the block file with
 * write(2)/read(2) of --chunk bytes (bonnie's "Block" columns).
 *
 * Measurement policy: the timed region holds the I/O loop and, for the
 * writing tests, the fsync and close (data on the device before the clock
 * stops; "close the file before stopping the clock", as bonnie++ says).
 * Creating/truncating the file, preparing data and dropping the cache are
 * done in setup, untimed.
 */
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

struct block_priv {
	int fd;
	void *buf;
	bool done; /* the run completed: the file is whole */
	char path[4096];
};

static int open_priv(struct fsb_ctx *ctx, struct block_priv *p, const char *test, int flags)
{
	int err = fsb_scratch_path(ctx->dir, FSB_BLOCKFILE_NAME, p->path, sizeof(p->path));

	p->fd = -1;
	if (err)
		return err;
	p->buf = fsb_block_buf_alloc(ctx->cfg);
	if (!p->buf)
		return -errno;
	p->fd = fsb_blockfile_open(ctx, test, flags);
	return p->fd < 0 ? p->fd : 0;
}

static void block_teardown(struct fsb_ctx *ctx, void *priv)
{
	struct block_priv *p = priv;

	(void)ctx;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	free(p->buf);
	p->buf = NULL;
}

/* Close inside the timed region; a failing close is a failing write. */
static int finish_write(const char *test, struct block_priv *p)
{
	int err = 0;

	if (fsync(p->fd) < 0)
		err = -errno;
	if (close(p->fd) < 0 && !err)
		err = -errno;
	p->fd = -1;
	if (err)
		fsb_err_errno(err, "%s: cannot flush '%s'", test, p->path);
	return err;
}

/* ---- write ---- */

static uint64_t size_work(const struct fsb_ctx *ctx)
{
	return ctx->cfg->size_bytes;
}

/*
 * The O_TRUNC of the next attempt frees the file's blocks for it, except on
 * a copy-on-write filesystem, where they come back only when the
 * transaction commits, during or after that attempt.
 */
static uint64_t write_max(const struct fsb_ctx *ctx)
{
	uint64_t have = fsb_scratch_file_size(ctx->dir, FSB_BLOCKFILE_NAME);

	return fsb_scratch_space(ctx->dir, ctx->cow ? 0 : have);
}

static int write_setup(struct fsb_ctx *ctx, void *priv)
{
	struct block_priv *p = priv;

	/* O_TRUNC here, untimed: freeing the old blocks is not the test. */
	return open_priv(ctx, p, "write", O_WRONLY | O_CREAT | O_TRUNC);
}

static int write_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	struct block_priv *p = priv;
	size_t chunk = ctx->cfg->chunk_bytes;
	uint64_t off;
	int err = 0;

	for (off = 0; off < ctx->work; off += chunk) {
		uint64_t t0;

		/* Stamping 40 bytes is the cost of a verifiable file. */
		fsb_block_stamp(p->buf, chunk, off, 0);
		t0 = fsb_clock_ns();
		err = fsb_write_full(p->fd, p->buf, chunk);
		if (err)
			return fsb_workload_io_error("write", "write", p->path, off, err,
						     ctx->work);
		if (fsb_sink_op(out, chunk, fsb_clock_ns() - t0))
			return -EINTR;
	}
	return finish_write("write", p);
}

const struct fsb_workload_ops fsb_wl_write = {
	.name = "write",
	.family = "throughput",
	.title = "block write: write(2) of --chunk bytes, fsync before the clock stops",
	.flags = FSB_WL_WRITES | FSB_WL_WARMUP,
	.work_unit = FSB_WORK_BYTES,
	.initial_work = size_work,
	.max_work = write_max,
	.priv_size = sizeof(struct block_priv),
	.setup = write_setup,
	.run = write_run,
	.teardown = block_teardown,
};

/* ---- read and rewrite work on the file as it is (grown if needed) ---- */

static uint64_t existing_work(const struct fsb_ctx *ctx)
{
	uint64_t have = fsb_scratch_file_size(ctx->dir, FSB_BLOCKFILE_NAME);

	have = have / ctx->cfg->chunk_bytes * ctx->cfg->chunk_bytes;
	return have ? have : ctx->cfg->size_bytes;
}

static uint64_t existing_max(const struct fsb_ctx *ctx)
{
	return fsb_scratch_space(ctx->dir, 0) + fsb_scratch_file_size(ctx->dir, FSB_BLOCKFILE_NAME);
}

/*
 * Rewriting in place needs no new space, except on a copy-on-write
 * filesystem: there every chunk rewritten takes a new chunk until the
 * transaction commits. With `avail` free and a file of `have` bytes,
 * rewriting w <= have bytes needs w free; growing the file to w > have
 * first appends w - have, then rewrites all w: 2w - have <= avail.
 */
static uint64_t rewrite_max(const struct fsb_ctx *ctx)
{
	uint64_t avail = fsb_scratch_space(ctx->dir, 0);
	uint64_t have = fsb_scratch_file_size(ctx->dir, FSB_BLOCKFILE_NAME);

	if (!ctx->cow)
		return avail + have;
	return avail >= have ? (avail + have) / 2 : avail;
}

/*
 * Untimed, for tests that read the file: it holds ctx->work bytes of valid
 * chunks and is cold (cache mode), then it is opened.
 */
static int prepare_and_open(struct fsb_ctx *ctx, void *priv, const char *test, int flags)
{
	int err;

	((struct block_priv *)priv)->fd = -1;
	err = fsb_blockfile_prepare(ctx, test, ctx->work);
	return err ? err : open_priv(ctx, priv, test, flags);
}

/* Read the next chunk (at off) into p->buf; 0 or -errno (described). */
static int read_chunk(struct fsb_ctx *ctx, struct block_priv *p, const char *test, uint64_t off)
{
	size_t chunk = ctx->cfg->chunk_bytes;
	ssize_t got = fsb_read_full(p->fd, p->buf, chunk);

	if (got != (ssize_t)chunk)
		return fsb_workload_io_error(test, "read", p->path, off, got < 0 ? (int)got : 0,
					     ctx->work);
	return 0;
}

static int rewrite_setup(struct fsb_ctx *ctx, void *priv)
{
	return prepare_and_open(ctx, priv, "rewrite", O_RDWR);
}

static int rewrite_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	struct block_priv *p = priv;
	size_t chunk = ctx->cfg->chunk_bytes;
	uint64_t off;
	int err;

	for (off = 0; off < ctx->work; off += chunk) {
		uint64_t t0 = fsb_clock_ns();

		/* One unit: read a chunk, dirty it, lseek back, write it. */
		err = read_chunk(ctx, p, "rewrite", off);
		if (!err)
			err = fsb_block_verify("rewrite", p->path, p->buf, chunk, off);
		if (err)
			return err;
		fsb_block_stamp(p->buf, chunk, off, fsb_block_gen(p->buf) + 1);
		if (lseek(p->fd, -(off_t)chunk, SEEK_CUR) < 0)
			return fsb_workload_io_error("rewrite", "seek in", p->path, off, -errno,
						     ctx->work);
		err = fsb_write_full(p->fd, p->buf, chunk);
		if (err)
			return fsb_workload_io_error("rewrite", "write", p->path, off, err,
						     ctx->work);
		if (fsb_sink_op(out, chunk, fsb_clock_ns() - t0))
			return -EINTR;
	}
	err = finish_write("rewrite", p);
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
	.title =
		"rewrite: read a chunk, dirty it, lseek back, write it; fsync before the clock stops",
	.flags = FSB_WL_WRITES,
	.work_unit = FSB_WORK_BYTES,
	.initial_work = existing_work,
	.max_work = rewrite_max,
	.priv_size = sizeof(struct block_priv),
	.setup = rewrite_setup,
	.run = rewrite_run,
	.teardown = rewrite_teardown,
};

static int read_setup(struct fsb_ctx *ctx, void *priv)
{
	return prepare_and_open(ctx, priv, "read", O_RDONLY);
}

static int read_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	struct block_priv *p = priv;
	size_t chunk = ctx->cfg->chunk_bytes;
	uint64_t off;
	int err;

	for (off = 0; off < ctx->work; off += chunk) {
		uint64_t t0 = fsb_clock_ns();

		err = read_chunk(ctx, p, "read", off);
		if (err)
			return err;
		if (fsb_sink_op(out, chunk, fsb_clock_ns() - t0))
			return -EINTR;
		/* Verified outside the latency sample but inside the clock. */
		err = fsb_block_verify("read", p->path, p->buf, chunk, off);
		if (err)
			return err;
	}
	return 0;
}

const struct fsb_workload_ops fsb_wl_read = {
	.name = "read",
	.family = "throughput",
	.title = "block read: read(2) of --chunk bytes from a cold cache, data verified",
	.work_unit = FSB_WORK_BYTES,
	.initial_work = existing_work,
	.max_work = existing_max,
	.priv_size = sizeof(struct block_priv),
	.setup = read_setup,
	.run = read_run,
	.teardown = block_teardown,
};
