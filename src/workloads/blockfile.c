#include "workloads/blockfile.h"
#include "util/error.h"
#include "device/cache.h"
#include "util/io.h"
#include "util/size.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MAGIC 0x6673626e63686b31ull /* "fsbnchk1" */
#define CHECK_MUL 0x9e3779b97f4a7c15ull

struct header {
	uint64_t magic, offset, gen, check;
};

int fsb_scratch_path(const struct fsb_ctx *ctx, const char *name, char *out, size_t len)
{
	if ((size_t)snprintf(out, len, "%s/%s", ctx->dir, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* xorshift64*: fast, seedable, good enough to defeat compression/dedup. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

void *fsb_block_buf_alloc(const struct fsb_config *cfg)
{
	uint64_t s = cfg->seed * CHECK_MUL + 1, *w;
	void *buf;
	int err = posix_memalign(&buf, 4096, cfg->chunk_bytes);

	if (err) {
		errno = err;
		return NULL;
	}
	w = buf;
	for (size_t i = 0; i < cfg->chunk_bytes / 8; i++)
		w[i] = next_rand(&s);
	return buf;
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

int fsb_block_verify(const char *test, const char *path, const void *chunk,
		     size_t chunk_bytes, uint64_t offset)
{
	struct header h;
	uint64_t tail;

	memcpy(&h, chunk, sizeof(h));
	memcpy(&tail, (const char *)chunk + chunk_bytes - 8, 8);
	if (h.magic == MAGIC && h.offset == offset && h.check == check_of(offset, h.gen) &&
	    tail == tail_of(offset, h.gen))
		return 0;
	fsb_err("%s: data mismatch in '%s' at offset %llu: %s", test, path,
		(unsigned long long)offset,
		h.magic != MAGIC ? "not fsbench data (zeroed or foreign)" :
		h.offset != offset ? "chunk from another offset" : "torn chunk (checksum)");
	return -EIO;
}

uint64_t fsb_scratch_file_size(const struct fsb_ctx *ctx, const char *name)
{
	char path[4096];
	struct stat st;

	if (fsb_scratch_path(ctx, name, path, sizeof(path)) || stat(path, &st) < 0)
		return 0;
	return (uint64_t)st.st_size;
}

uint64_t fsb_scratch_space(const struct fsb_ctx *ctx, uint64_t reuse)
{
	struct statvfs vfs;
	uint64_t free_bytes, margin;

	if (statvfs(ctx->dir, &vfs) < 0)
		return 0;
	free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize + reuse;
	/* Leave room for metadata and the other test file. */
	margin = free_bytes / 20 + (4u << 20);
	return free_bytes > margin ? free_bytes - margin : 0;
}

int fsb_cache_prepare_fd(const struct fsb_ctx *ctx, const char *test, int fd)
{
	int err;

	if (ctx->cfg->cache == FSB_CACHE_KEEP)
		return 0;
	/* Direct I/O bypasses the cache, but pages left by the untimed
	 * preparation would still be written back during the test: flush
	 * and evict them in both modes. */
	err = fsb_cache_drop_fd(fd);
	if (!err && ctx->cfg->cache == FSB_CACHE_DROP)
		err = fsb_cache_drop_global();
	if (err)
		fsb_err_errno(err, "%s: cannot drop the page cache", test);
	return err;
}

int fsb_blockfile_prepare(const struct fsb_ctx *ctx, const char *test, uint64_t bytes)
{
	const struct fsb_config *cfg = ctx->cfg;
	char path[4096];
	void *buf = NULL;
	uint64_t have;
	struct stat st;
	int fd, err = 0;

	err = fsb_scratch_path(ctx, FSB_BLOCKFILE_NAME, path, sizeof(path));
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
	have = (uint64_t)st.st_size / cfg->chunk_bytes * cfg->chunk_bytes;
	if (have < bytes) {
		buf = fsb_block_buf_alloc(cfg);
		if (!buf) {
			err = -errno;
			goto out;
		}
		for (uint64_t off = have; off < bytes && !err; off += cfg->chunk_bytes) {
			fsb_block_stamp(buf, cfg->chunk_bytes, off, 0);
			err = fsb_pwrite_full(fd, buf, cfg->chunk_bytes, (off_t)off);
			if (!err && fsb_stop_requested())
				err = -EINTR;
		}
		if (err && err != -EINTR) {
			char need[32];
			fsb_err("%s: cannot prepare '%s' (%s): %s", test, path,
				fsb_size_format_human(bytes, need, sizeof(need)), strerror(-err));
		}
	}
	if (!err)
		err = fsb_cache_prepare_fd(ctx, test, fd);
out:
	free(buf);
	close(fd);
	return err;
}

int fsb_blockfile_open(const struct fsb_ctx *ctx, const char *test, int flags)
{
	char path[4096];
	int fd, err;

	err = fsb_scratch_path(ctx, FSB_BLOCKFILE_NAME, path, sizeof(path));
	if (err)
		return err;
	if (ctx->cfg->cache == FSB_CACHE_DIRECT)
		flags |= O_DIRECT;
	fd = open(path, flags | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		fsb_err_errno(err, "%s: cannot open '%s'%s", test, path,
			      (flags & O_DIRECT) ? " with O_DIRECT" : "");
		return err;
	}
	return fd;
}

int fsb_io_error(const char *test, const char *what, const char *path, uint64_t off, int err,
		 uint64_t need)
{
	char buf[32];

	if (err == -EINTR && fsb_stop_requested())
		return err;
	if (err == -ENOSPC)
		fsb_err("%s: cannot %s '%s' at offset %llu: %s (the test needs %s)", test, what,
			path, (unsigned long long)off, strerror(-err),
			fsb_size_format_human(need, buf, sizeof(buf)));
	else
		fsb_err("%s: cannot %s '%s' at offset %llu: %s", test, what, path,
			(unsigned long long)off, err ? strerror(-err) : "unexpected end of file");
	return err ? err : -EIO;
}
