#include "workloads/blockfile.h"
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

#define MAGIC 0x6673626e63686b31ull /* "fsbnchk1" */
#define CHECK_MUL 0x9e3779b97f4a7c15ull

struct header {
	uint64_t magic, offset, gen, check;
};

/* xorshift64*: fast, seedable, good enough to defeat compression/dedup. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

void *fsb_block_bufs_alloc(const struct fsb_config *cfg, size_t chunk_bytes, size_t count)
{
	uint64_t s = cfg->seed * CHECK_MUL + 1, *w;
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
	w = buf;
	for (size_t i = 0; i < chunk_bytes / 8; i++)
		w[i] = next_rand(&s);
	for (size_t i = 1; i < count; i++)
		memcpy((char *)buf + i * chunk_bytes, buf, chunk_bytes);
	return buf;
}

void *fsb_block_buf_alloc(const struct fsb_config *cfg)
{
	return fsb_block_bufs_alloc(cfg, cfg->chunk_bytes, 1);
}

/*
 * The header's check and the chunk's last 8 bytes both derive from
 * (offset, generation): a chunk whose start and end come from different
 * writes (torn) or another place fails one of them.
 */
static uint64_t check_of(uint64_t offset, uint64_t gen)
{
	return MAGIC ^ offset * CHECK_MUL ^ gen * (CHECK_MUL >> 1);
}

static uint64_t tail_of(uint64_t offset, uint64_t gen)
{
	return ~check_of(offset, gen) * CHECK_MUL;
}

void fsb_block_stamp(void *chunk, size_t chunk_bytes, uint64_t offset, uint64_t gen)
{
	struct header h = { MAGIC, offset, gen, check_of(offset, gen) };
	uint64_t tail = tail_of(offset, gen);

	memcpy(chunk, &h, sizeof(h));
	memcpy((char *)chunk + chunk_bytes - 8, &tail, 8);
}

uint64_t fsb_block_gen(const void *chunk)
{
	struct header h;

	memcpy(&h, chunk, sizeof(h));
	return h.gen;
}

const char *fsb_block_check(const void *chunk, size_t chunk_bytes, uint64_t offset)
{
	struct header h;
	uint64_t tail;

	memcpy(&h, chunk, sizeof(h));
	memcpy(&tail, (const char *)chunk + chunk_bytes - 8, 8);
	if (h.magic == MAGIC && h.offset == offset && h.check == check_of(offset, h.gen) &&
	    tail == tail_of(offset, h.gen))
		return NULL;
	if (h.magic != MAGIC)
		return "not fsbench data (zeroed or foreign)";
	if (h.offset != offset)
		return "chunk from another offset";
	return "torn chunk (checksum)";
}

int fsb_block_verify(const char *test, const char *path, const void *chunk, size_t chunk_bytes,
		     uint64_t offset)
{
	const char *why = fsb_block_check(chunk, chunk_bytes, offset);

	if (!why)
		return 0;
	fsb_err("%s: data mismatch in '%s' at offset %llu: %s", test, path,
		(unsigned long long)offset, why);
	return -EIO;
}

/* Pattern chunks appended per write while preparing: about 1 MiB, so a
 * file of small blocks is not made with a system call per block. */
#define PREPARE_BYTES (1u << 20)

int fsb_chunkfile_prepare(const struct fsb_ctx *ctx, const char *test, const char *name,
			  size_t chunk_bytes, uint64_t bytes)
{
	const struct fsb_config *cfg = ctx->cfg;
	size_t batch = chunk_bytes < PREPARE_BYTES ? PREPARE_BYTES / chunk_bytes : 1;
	/* A shared file holds every job's range: job 0 makes them all. */
	uint64_t range = bytes;
	char path[4096];
	void *buf = NULL;
	uint64_t have;
	struct stat st;
	int fd, err = 0;

	if (ctx->shared)
		bytes = range * fsb_ctx_njobs(ctx);
	err = fsb_scratch_path(ctx->dir, name, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		fsb_err_errno(err, "%s: cannot open '%s'", test, path);
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	have = (uint64_t)st.st_size / chunk_bytes * chunk_bytes;
	if (have < bytes) {
		buf = fsb_block_bufs_alloc(cfg, chunk_bytes, batch);
		if (!buf) {
			err = -errno;
			goto out;
		}
		for (uint64_t off = have; off < bytes && !err;) {
			size_t n = 0;

			for (; n < batch && off + n * chunk_bytes < bytes; n++)
				fsb_block_stamp((char *)buf + n * chunk_bytes, chunk_bytes,
						off + n * chunk_bytes, 0);
			err = fsb_pwrite_full(fd, buf, n * chunk_bytes, (off_t)off);
			off += n * chunk_bytes;
			if (!err && fsb_stop_requested())
				err = -EINTR;
		}
		if (err && err != -EINTR) {
			char need[32];
			fsb_err("%s: cannot prepare '%s' (%s): %s", test, path,
				fsb_size_format_human(bytes, need, sizeof(need)), strerror(-err));
		}
	}
	/* Untimed: written pages flushed and evicted, so the test reads cold. */
	if (!err && (err = fsb_cache_prepare_read(fd, cfg->cache, FSB_CACHE_IO_BLOCK)))
		fsb_err_errno(err, "%s: cannot drop the page cache", test);
out:
	free(buf);
	close(fd);
	return err;
}

uint64_t fsb_chunkfile_have(const struct fsb_ctx *ctx, const char *name)
{
	uint64_t have = fsb_scratch_file_size(ctx->dir, name);

	return ctx->shared ? have / fsb_ctx_njobs(ctx) : have;
}

int fsb_blockfile_prepare(const struct fsb_ctx *ctx, const char *test, uint64_t bytes)
{
	return fsb_chunkfile_prepare(ctx, test, FSB_BLOCKFILE_NAME, ctx->cfg->chunk_bytes, bytes);
}

int fsb_chunkfile_open(const struct fsb_ctx *ctx, const char *test, const char *name, int flags)
{
	char path[4096];
	int fd, err;

	err = fsb_scratch_path(ctx->dir, name, path, sizeof(path));
	if (err)
		return err;
	flags |= fsb_cache_open_flags(ctx->cfg->cache, FSB_CACHE_IO_BLOCK);
	fd = open(path, flags | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		fsb_err_errno(err, "%s: cannot open '%s'%s", test, path,
			      (flags & O_DIRECT) ? " with O_DIRECT" : "");
		return err;
	}
	return fd;
}

int fsb_blockfile_open(const struct fsb_ctx *ctx, const char *test, int flags)
{
	return fsb_chunkfile_open(ctx, test, FSB_BLOCKFILE_NAME, flags);
}
