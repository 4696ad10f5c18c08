/*
 * Per-character tests: bonnie's "Per Chr" columns. One unit of work is one
 * byte through stdio putc_unlocked/getc_unlocked (bonnie, bonnie++ 1.0x) or,
 * with --char-io=syscall, one write(2)/read(2) of 1 byte (bonnie++ 1.9x+).
 *
 * Latency: timing each byte would cost more than the operation itself
 * (two clock reads, ~40 ns, against a few ns for putc_unlocked), so one
 * latency sample covers --chunk consecutive bytes. The man page says so.
 *
 * The byte at position i is the --data pattern's (workloads/pattern.h, in
 * chunks of 4 KiB), taken from a copy of the current chunk made once per
 * 4 KiB; getc compares every byte it reads, which is one compare per getc
 * and keeps the figure honest.
 * What a --cache mode means for byte-sized I/O is decided in device/cache.h
 * (direct: dropped as with drop, since 1-byte O_DIRECT I/O is invalid).
 */
#include "util/error.h"
#include "util/io.h"
#include "util/scratch.h"
#include "workloads/blockfile.h"
#include "workloads/pattern.h"
#include "workloads/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FSB_CHARFILE_NAME "char.dat"

/* Auto --char-size starts here and grows until a run lasts --min-time. */
#define STDIO_START_BYTES (16ull << 20)
#define SYSCALL_START_BYTES (256ull << 10)

#define CHAR_CHUNK FSB_PATTERN_STREAM_CHUNK

struct char_priv {
	int fd;
	FILE *f;
	uint64_t base; /* this job's range in a shared file */
	uint64_t span; /* getc: the bytes of it a pass reads (getc_span) */
	bool done;     /* putc wrote its whole range */
	struct fsb_pattern pat;
	uint64_t cur_at;	       /* the chunk in cur (UINT64_MAX: none) */
	unsigned char cur[CHAR_CHUNK]; /* the pattern's bytes of that chunk */
	char path[4096];
};

/* The byte at position i of the file: a branch and a load, the chunk's
 * bytes made when i enters it. */
static inline unsigned char pattern(struct char_priv *p, uint64_t i)
{
	uint64_t at = i & ~(uint64_t)(CHAR_CHUNK - 1);

	if (at != p->cur_at) {
		fsb_pattern_bytes(&p->pat, p->cur, 0, at, CHAR_CHUNK);
		p->cur_at = at;
	}
	return p->cur[i - at];
}

/* This job's bytes of the file: all of it, or its range of a shared one. */
static uint64_t fsb_char_have(const struct fsb_ctx *ctx)
{
	return fsb_chunkfile_have(ctx, FSB_CHARFILE_NAME);
}

static uint64_t char_start(const struct fsb_ctx *ctx)
{
	const struct fsb_config *cfg = ctx->cfg;

	if (cfg->char_size_bytes)
		return cfg->char_size_bytes;
	return cfg->char_io == FSB_CHAR_SYSCALL ? SYSCALL_START_BYTES : STDIO_START_BYTES;
}

/* An explicit --char-size is exact (no growth). */
static uint64_t char_max(const struct fsb_ctx *ctx)
{
	return ctx->cfg->char_size_bytes;
}

/*
 * Auto grows up to the free space, the old file counting as free
 * (O_TRUNC) except on a copy-on-write filesystem, which hands its blocks
 * back only at the next commit.
 */
static uint64_t putc_fit(const struct fsb_ctx *ctx, const struct fsb_space *share)
{
	return share->bytes + (ctx->cow ? 0 : fsb_char_have(ctx));
}

/* getc reads what putc wrote: the file's size, else the putc start. */
static uint64_t getc_start(const struct fsb_ctx *ctx)
{
	uint64_t have = fsb_char_have(ctx);

	return have ? have : char_start(ctx);
}

static uint64_t getc_fit(const struct fsb_ctx *ctx, const struct fsb_space *share)
{
	return share->bytes + fsb_char_have(ctx);
}

/* The file getc goes over again, pass after pass, where the page cache is
 * the storage (as the block tests), else 0. */
static uint64_t getc_pass_bytes(const struct fsb_ctx *ctx)
{
	return fsb_chunkfile_pass_bytes(ctx, FSB_CHARFILE_NAME, CHAR_CHUNK);
}

/* The bytes of its range a run of ctx->work reads (fsb_pass_span). */
static uint64_t getc_span(const struct fsb_ctx *ctx)
{
	return fsb_pass_span(getc_pass_bytes(ctx), ctx->work);
}

static uint64_t getc_pass_file(const struct fsb_ctx *ctx)
{
	return fsb_pass_file(getc_pass_bytes(ctx), ctx->work);
}

/* In passes any work is ready: no growing of the file (at most its
 * making 512 MiB first, fsb_chunkfile_pass_ready). */
static uint64_t getc_ready(const struct fsb_ctx *ctx, uint64_t low, uint64_t high)
{
	(void)low;
	return fsb_chunkfile_pass_ready(ctx, FSB_CHARFILE_NAME, CHAR_CHUNK) ? high : 0;
}

static void char_teardown(struct fsb_ctx *ctx, void *priv)
{
	struct char_priv *p = priv;

	(void)ctx;
	if (p->f)
		fclose(p->f);
	else if (p->fd >= 0)
		close(p->fd);
	p->f = NULL;
	p->fd = -1;
	fsb_pattern_release(&p->pat);
}

/* Open the file at this job's range, of `range` bytes in a shared one. */
static int char_open(struct fsb_ctx *ctx, struct char_priv *p, const char *test, int flags,
		     uint64_t range)
{
	int err = fsb_scratch_path(ctx->dir, FSB_CHARFILE_NAME, p->path, sizeof(p->path));

	p->fd = -1;
	p->cur_at = UINT64_MAX;
	if (err)
		return err;
	err = fsb_pattern_init(&p->pat, &ctx->cfg->data, fsb_ctx_data_seed(ctx), CHAR_CHUNK);
	if (err) {
		fsb_err_errno(err, "%s: cannot make the data pattern", test);
		return err;
	}
	p->fd = open(p->path, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (p->fd < 0) {
		err = -errno;
		fsb_err_errno(err, "%s: cannot open '%s'", test, p->path);
		return err;
	}
	/* A shared file: this job's bytes start at its range. */
	p->base = fsb_ctx_base(ctx, range);
	if (p->base && lseek(p->fd, (off_t)p->base, SEEK_SET) < 0) {
		err = -errno;
		fsb_err_errno(err, "%s: cannot seek in '%s'", test, p->path);
		return err;
	}
	if (ctx->cfg->char_io == FSB_CHAR_STDIO) {
		p->f = fdopen(p->fd, (flags & O_ACCMODE) == O_RDONLY ? "r" : "w");
		if (!p->f) {
			err = -errno;
			fsb_err_errno(err, "%s: cannot open '%s'", test, p->path);
			return err;
		}
	}
	return 0;
}

/* ---- putc ---- */

static int putc_setup(struct fsb_ctx *ctx, void *priv)
{
	return char_open(ctx, priv, "putc", O_WRONLY | O_CREAT | O_TRUNC, ctx->work);
}

static int putc_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	struct char_priv *p = priv;
	uint64_t block = ctx->cfg->chunk_bytes, i = 0;
	int err = 0;

	while (i < ctx->work) {
		uint64_t end = i + block < ctx->work ? i + block : ctx->work, n = end - i;
		uint64_t t0 = fsb_clock_ns();

		if (p->f) {
			for (; i < end; i++)
				if (putc_unlocked(pattern(p, p->base + i), p->f) == EOF)
					break;
			if (i < end)
				return fsb_workload_io_error("putc", "write", p->path, p->base + i,
							     -errno, ctx->work);
		} else {
			for (; i < end; i++) {
				unsigned char c = pattern(p, p->base + i);
				ssize_t r = write(p->fd, &c, 1);
				if (r != 1) {
					if (r < 0 && errno == EINTR && !fsb_stop_requested()) {
						i--;
						continue;
					}
					return fsb_workload_io_error(
						"putc", "write", p->path, p->base + i,
						r < 0 ? -errno : -EIO, ctx->work);
				}
			}
		}
		if ((err = fsb_sink_op(out, n, fsb_clock_ns() - t0)) < 0)
			return err;
		if (err == FSB_SINK_STOP)
			break; /* what was written is flushed and counts */
	}
	p->done = i >= ctx->work;
	err = 0;
	/* stdio flush, fsync and close belong to the write, as in bonnie. */
	if (p->f && fflush(p->f) == EOF)
		err = -errno;
	if (!err && fsync(p->fd) < 0)
		err = -errno;
	if (p->f) {
		if (fclose(p->f) == EOF && !err)
			err = -errno;
	} else if (close(p->fd) < 0 && !err) {
		err = -errno;
	}
	p->f = NULL;
	p->fd = -1;
	if (err) {
		p->done = false;
		return fsb_workload_io_error("putc", "flush", p->path, p->base + i, err, ctx->work);
	}
	return 0;
}

/* As the block write: a range left short in a shared file is a hole the
 * next test would read as zeros; the file goes, the next setup remakes it. */
static void putc_teardown(struct fsb_ctx *ctx, void *priv)
{
	struct char_priv *p = priv;

	char_teardown(ctx, priv);
	if (ctx->shared && !p->done && p->path[0])
		fsb_cleanup_unlinkat(AT_FDCWD, p->path, 0);
}

const struct fsb_workload_ops fsb_wl_putc = {
	.name = "putc",
	.family = "throughput",
	.title = "per-char write: putc_unlocked (or write(2) of 1 byte with --char-io=syscall)",
	.flags = FSB_WL_WRITES | FSB_WL_WARMUP,
	.work_unit = FSB_WORK_BYTES,
	.initial_work = char_start,
	.max_work = char_max,
	.space_fit = putc_fit,
	.work_granule = 4096,
	.scratch_file = FSB_CHARFILE_NAME,
	.priv_size = sizeof(struct char_priv),
	.setup = putc_setup,
	.run = putc_run,
	.teardown = putc_teardown,
};

/* ---- getc ---- */

static int getc_setup(struct fsb_ctx *ctx, void *priv)
{
	int err;
	struct char_priv *p = priv;

	p->fd = -1;
	p->span = getc_span(ctx);
	/* Untimed: the file holds this job's bytes of the pattern, cold. */
	err = fsb_chunkfile_prepare(ctx, "getc", FSB_CHARFILE_NAME, CHAR_CHUNK, FSB_CACHE_IO_BYTES,
				    p->span);

	return err ? err : char_open(ctx, priv, "getc", O_RDONLY, p->span);
}

/* Back to the range's first byte for the next pass (inside the clock, as
 * a larger file's next bytes would be). */
static int getc_rewind(struct char_priv *p)
{
	if (p->f ? fseeko(p->f, (off_t)p->base, SEEK_SET) < 0
		 : lseek(p->fd, (off_t)p->base, SEEK_SET) < 0) {
		int err = -errno;

		fsb_err_errno(err, "getc: cannot seek in '%s'", p->path);
		return err;
	}
	return 0;
}

static int getc_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	struct char_priv *p = priv;
	uint64_t block = ctx->cfg->chunk_bytes, i = 0, span = p->span;
	int err;

	while (i < ctx->work) {
		/* Within one pass: position j of the range is byte i. */
		uint64_t j = i % span, left = span - j;
		uint64_t end = i + block < ctx->work ? i + block : ctx->work, n;
		uint64_t t0 = fsb_clock_ns();
		int c = 0;

		if (!j && i && (err = getc_rewind(p)))
			return err;
		if (end - i > left)
			end = i + left;
		n = end - i;
		if (p->f) {
			for (; i < end; i++, j++) {
				c = getc_unlocked(p->f);
				if (c != pattern(p, p->base + j))
					break;
			}
		} else {
			for (; i < end; i++, j++) {
				unsigned char b;
				ssize_t r = read(p->fd, &b, 1);
				if (r != 1) {
					if (r < 0 && errno == EINTR && !fsb_stop_requested()) {
						i--;
						j--;
						continue;
					}
					c = r < 0 ? -2 : EOF;
					break;
				}
				c = b;
				if (c != pattern(p, p->base + j))
					break;
			}
		}
		if (i < end) {
			if (c == EOF || c == -2)
				return fsb_workload_io_error(
					"getc", "read", p->path, p->base + j,
					c == -2 || (p->f && ferror(p->f)) ? -errno : 0, ctx->work);
			fsb_err("getc: data mismatch in '%s' at offset %llu: read 0x%02x, wrote 0x%02x",
				p->path, (unsigned long long)(p->base + j), c,
				pattern(p, p->base + j));
			return -EIO;
		}
		if ((err = fsb_sink_op(out, n, fsb_clock_ns() - t0)) < 0)
			return err;
		if (err == FSB_SINK_STOP)
			break;
	}
	return 0;
}

const struct fsb_workload_ops fsb_wl_getc = {
	.name = "getc",
	.family = "throughput",
	.title = "per-char read: getc_unlocked (or read(2) of 1 byte), every byte checked",
	.flags = FSB_WL_OPEN,
	.work_unit = FSB_WORK_BYTES,
	.initial_work = getc_start,
	.max_work = char_max,
	.space_fit = getc_fit,
	.ready_work = getc_ready,
	.pass_file = getc_pass_file,
	.work_granule = 4096,
	.scratch_file = FSB_CHARFILE_NAME,
	.priv_size = sizeof(struct char_priv),
	.setup = getc_setup,
	.run = getc_run,
	.teardown = char_teardown,
};
