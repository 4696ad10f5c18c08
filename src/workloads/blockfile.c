#include "workloads/blockfile.h"
#include "device/cache.h"
#include "util/error.h"
#include "util/io.h"
#include "util/scratch.h"
#include "util/size.h"

#include <errno.h>
#include <fcntl.h>
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

int fsb_blockfile_prepare(const struct fsb_ctx *ctx, const char *test, uint64_t bytes)
{
	const struct fsb_config *cfg = ctx->cfg;
	char path[4096];
	void *buf = NULL;
	uint64_t have;
	struct stat st;
	int fd, err = 0;

	err = fsb_scratch_path(ctx->dir, FSB_BLOCKFILE_NAME, path, sizeof(path));
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
	/* Untimed: written pages flushed and evicted, so the test reads cold. */
	if (!err && (err = fsb_cache_prepare_read(fd, cfg->cache, FSB_CACHE_IO_BLOCK)))
		fsb_err_errno(err, "%s: cannot drop the page cache", test);
out:
	free(buf);
	close(fd);
	return err;
}

int fsb_blockfile_open(const struct fsb_ctx *ctx, const char *test, int flags)
{
	char path[4096];
	int fd, err;

	err = fsb_scratch_path(ctx->dir, FSB_BLOCKFILE_NAME, path, sizeof(path));
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

