#include "workloads/blockfile.h"
#include "device/btrfs_space.h"
#include "device/cache.h"
#include "util/error.h"
#include "util/io.h"
#include "util/scratch.h"
#include "util/size.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void *fsb_block_bufs_alloc(size_t chunk_bytes, size_t count)
{
	void *buf;
	int err;

	if (!count || chunk_bytes > SIZE_MAX / count) {
		errno = ENOMEM;
		return NULL;
	}
	err = posix_memalign(&buf, 4096, chunk_bytes * count);
	if (err) {
		errno = err;
		return NULL;
	}
	/* Written before use: zeroed only so no stale heap reaches a file. */
	memset(buf, 0, chunk_bytes * count);
	return buf;
}

int fsb_block_io_open(struct fsb_block_io *b, const struct fsb_ctx *ctx, const char *test,
		      const char *name, size_t chunk_bytes, int flags)
{
	const struct fsb_config *cfg = ctx->cfg;
	const struct fsb_engine_ops *ops = cfg->engine ? cfg->engine : fsb_engine_default();
	unsigned depth = cfg->iodepth ? cfg->iodepth : 1;
	int err;

	b->fd = -1;
	if ((err = fsb_block_pattern_init(&b->pat, ctx, test, chunk_bytes)))
		return err;
	b->bufs = fsb_block_bufs_alloc(chunk_bytes, depth);
	if (!b->bufs) {
		err = -errno;
		fsb_err_errno(err, "%s: cannot allocate %u buffers of %zu bytes", test, depth,
			      chunk_bytes);
		return err;
	}
	b->fd = fsb_chunkfile_open(ctx, test, name, flags);
	if (b->fd < 0) {
		err = b->fd;
		b->fd = -1;
		return err;
	}
	err = fsb_engine_init(&b->eng, ops, b->fd, depth, b->bufs, chunk_bytes, depth);
	if (err)
		return err;
	b->verify = !(ops->flags & FSB_ENGINE_NODATA);
	return 0;
}

void fsb_block_io_release(struct fsb_block_io *b)
{
	fsb_engine_release(&b->eng);
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	free(b->bufs);
	b->bufs = NULL;
	fsb_pattern_release(&b->pat);
}

int fsb_block_verify(const struct fsb_pattern *pat, const char *test, const char *path,
		     const void *chunk, uint64_t offset)
{
	const char *why = fsb_pattern_check(pat, chunk, offset);

	if (!why)
		return 0;
	fsb_err("%s: data mismatch in '%s' at offset %llu: %s", test, path,
		(unsigned long long)offset, why);
	return -EIO;
}

int fsb_block_pattern_init(struct fsb_pattern *pat, const struct fsb_ctx *ctx, const char *test,
			   size_t chunk_bytes)
{
	int err = fsb_pattern_init(pat, &ctx->cfg->data, fsb_ctx_data_seed(ctx), chunk_bytes);

	if (err == -EINVAL)
		fsb_err("%s: chunks of %zu bytes cannot hold the data pattern", test, chunk_bytes);
	else if (err)
		fsb_err_errno(err, "%s: cannot make the data pattern", test);
	return err;
}

/* Pattern bytes appended per write while preparing: whole chunks of
 * about 1 MiB, so a file of small blocks is not made with a system call
 * per block. */
#define PREPARE_BYTES (1u << 20)

int fsb_chunkfile_prepare(const struct fsb_ctx *ctx, const char *test, const char *name,
			  size_t chunk_bytes, enum fsb_cache_io io, uint64_t bytes)
{
	const struct fsb_config *cfg = ctx->cfg;
	size_t batch = chunk_bytes < PREPARE_BYTES ? PREPARE_BYTES / chunk_bytes * chunk_bytes
						   : chunk_bytes;
	/* A shared file holds every job's range: job 0 makes them all. */
	uint64_t range = bytes;
	struct fsb_pattern pat = { 0 };
	char path[4096];
	void *buf = NULL;
	struct stat st;
	int fd, err = 0;

	if (ctx->shared)
		bytes = range * fsb_ctx_njobs(ctx);
	err = fsb_scratch_path(ctx->dir, name, path, sizeof(path));
	if (err)
		return err;
	/* Never through a symlink planted as the file (nor in chunkfile_open). */
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		fsb_err_errno(err, "%s: cannot open '%s'", test, path);
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		fsb_err_errno(err, "%s: cannot stat '%s'", test, path);
		goto out;
	}
	/* Blocks are the engine's: one that moves no data (null) reads none,
	 * so the file is only sized (sparse), taking no space. */
	if (io == FSB_CACHE_IO_BLOCK && cfg->engine && (cfg->engine->flags & FSB_ENGINE_NODATA)) {
		struct stat after;

		if ((uint64_t)st.st_size < bytes && ftruncate(fd, (off_t)bytes) < 0) {
			err = -errno;
			fsb_err_errno(err, "%s: cannot size '%s'", test, path);
		} else if ((uint64_t)st.st_size < bytes && !fstat(fd, &after) &&
			   after.st_blocks > st.st_blocks &&
			   (uint64_t)(after.st_blocks - st.st_blocks) * 512 >
				   (bytes - (uint64_t)st.st_size) / 2) {
			/* Sizing allocated the growth (no sparse files:
			 * vfat): a null-engine run would fill the disk with
			 * nothing it reads. Compared before and after, so a
			 * file a real run already wrote is no such case. */
			err = -ENOTSUP;
			/* Not removable: at least its space goes back. */
			if (unlinkat(AT_FDCWD, path, 0) < 0 && ftruncate(fd, st.st_size) < 0)
				fsb_warn("%s: cannot shrink '%s': %s", test, path, strerror(errno));
			fsb_err("null engine: FS allocates sized files (no sparse files): "
				"'%s' took its size on disk",
				path);
		}
		goto out;
	}
	if ((uint64_t)st.st_size < bytes) {
		if ((err = fsb_block_pattern_init(&pat, ctx, test, chunk_bytes)))
			goto out;
		buf = fsb_block_bufs_alloc(batch, 1);
		if (!buf) {
			err = -errno;
			goto out;
		}
		/* From its last whole chunk: a chunk cut short is made again. */
		for (uint64_t off = (uint64_t)st.st_size / chunk_bytes * chunk_bytes;
		     off < bytes && !err;) {
			size_t n = bytes - off < batch ? (size_t)(bytes - off) : batch;

			fsb_pattern_bytes(&pat, buf, 0, off, n);
			err = fsb_pwrite_full(fd, buf, n, (off_t)off);
			off += n;
			if (!err && fsb_stop_requested())
				err = -EINTR;
		}
		if (err && err != -EINTR) {
			char need[32];
			fsb_err("%s: cannot prepare '%s' (%s): %s", test, path,
				fsb_size_format_human(bytes, need, sizeof(need)),
				fsb_err_reason(err));
		}
	}
	/* Untimed: written pages flushed and evicted, so the test reads cold. */
	if (!err && (err = fsb_cache_prepare_read(fd, cfg->cache, io)))
		fsb_err_errno(err, "%s: cannot drop the page cache", test);
out:
	fsb_pattern_release(&pat);
	free(buf);
	close(fd);
	return err;
}

uint64_t fsb_chunkfile_have(const struct fsb_ctx *ctx, const char *name)
{
	uint64_t have = fsb_scratch_file_size(ctx->dir, name);

	return ctx->shared ? have / fsb_ctx_njobs(ctx) : have;
}

bool fsb_blockfile_passes(const struct fsb_ctx *ctx, uint64_t bytes)
{
	return bytes >= FSB_BLOCKFILE_PASS_MIN && fsb_cache_ram_path(ctx->dir);
}

uint64_t fsb_blockfile_have(const struct fsb_ctx *ctx)
{
	uint64_t have = fsb_chunkfile_have(ctx, FSB_BLOCKFILE_NAME);

	return have / ctx->cfg->chunk_bytes * ctx->cfg->chunk_bytes;
}

/* The pass bytes of a file of `have` whole granules (fsb_chunkfile_pass_bytes). */
static uint64_t pass_of(const struct fsb_ctx *ctx, uint64_t have, uint64_t granule)
{
	uint64_t least = (FSB_BLOCKFILE_PASS_MIN + granule - 1) / granule * granule;

	if (fsb_blockfile_passes(ctx, have))
		return have;
	/*
	 * A file of half FSB_BLOCKFILE_PASS_MIN or more (putc's char.dat on
	 * a filesystem in memory) is made that long first: what growth
	 * past it would make, untimed, in the setup's prepare. A smaller one
	 * grows as the work needs: a run may need far less than the rest.
	 */
	return have >= least / 2 && fsb_cache_ram_path(ctx->dir) ? least : 0;
}

uint64_t fsb_chunkfile_pass_bytes(const struct fsb_ctx *ctx, const char *name, uint64_t granule)
{
	return pass_of(ctx, fsb_chunkfile_have(ctx, name) / granule * granule, granule);
}

uint64_t fsb_chunkfile_pass_ready(const struct fsb_ctx *ctx, const char *name, uint64_t granule)
{
	uint64_t have = fsb_chunkfile_have(ctx, name) / granule * granule;
	uint64_t pass = pass_of(ctx, have, granule);

	/* What the setup adds must fit twice over (a second run in the
	 * directory). Asked only here, never again in the setup: another run
	 * that takes the space in between makes the extension run out of
	 * space (a grown attempt's error, forgiven), not the setup prepare a
	 * file as large as the open attempt's bound (1024 x the file). */
	if (pass <= have)
		return pass;
	return pass - have <= fsb_btrfs_scratch_space(ctx->dir, 0) / 2 / fsb_ctx_njobs(ctx) ? pass
											    : 0;
}

uint64_t fsb_blockfile_pass_bytes(const struct fsb_ctx *ctx)
{
	return fsb_chunkfile_pass_bytes(ctx, FSB_BLOCKFILE_NAME, ctx->cfg->chunk_bytes);
}

int fsb_blockfile_prepare(const struct fsb_ctx *ctx, const char *test, uint64_t bytes)
{
	return fsb_chunkfile_prepare(ctx, test, FSB_BLOCKFILE_NAME, ctx->cfg->chunk_bytes,
				     FSB_CACHE_IO_BLOCK, bytes);
}

int fsb_chunkfile_open(const struct fsb_ctx *ctx, const char *test, const char *name, int flags)
{
	char path[4096];
	int fd, err;

	err = fsb_scratch_path(ctx->dir, name, path, sizeof(path));
	if (err)
		return err;
	flags |= fsb_cache_open_flags(ctx->cfg->cache, FSB_CACHE_IO_BLOCK);
	fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		fsb_err_errno(err, "%s: cannot open '%s'%s", test, path,
			      (flags & O_DIRECT) ? " with O_DIRECT" : "");
		return err;
	}
	return fd;
}
