/*
 * The data file the block tests (write, rewrite, read, seeks) share, and
 * the verifiable pattern in it.
 *
 * The file is a sequence of chunks of cfg->chunk_bytes. Each chunk starts
 * with a 32-byte header {magic, offset, generation, check} followed by
 * pseudo-random bytes from the seed; check ties the header to the chunk's
 * last 8 bytes. Verifying a chunk costs four compares, so it can sit in the
 * read loop without becoming the bottleneck, yet it catches zeroed, torn,
 * misplaced and foreign data. Rewrite and seeks bump the generation (that
 * is how they dirty a chunk).
 */
#ifndef FSB_WORKLOADS_BLOCKFILE_H
#define FSB_WORKLOADS_BLOCKFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "workloads/workload.h"

#define FSB_BLOCKFILE_NAME "block.dat"
/* randread and randwrite's own file, so the block tests' file is untouched. */
#define FSB_RANDFILE_NAME "random.dat"

/* A chunk-aligned buffer (posix_memalign 4096, O_DIRECT-safe) filled with
 * the seed's bytes. NULL with errno set. Free with free(). */
void *fsb_block_buf_alloc(const struct fsb_config *cfg);

/* The same for `count` chunks of chunk_bytes (a multiple of 8) in one
 * allocation, each filled with the seed's bytes: chunk i at
 * buf + i * chunk_bytes, 4096-aligned when chunk_bytes is a multiple of
 * 4096. NULL with errno set. Free with free(). */
void *fsb_block_bufs_alloc(const struct fsb_config *cfg, size_t chunk_bytes, size_t count);

/* Stamp the header of the chunk at offset with generation gen. */
void fsb_block_stamp(void *chunk, size_t chunk_bytes, uint64_t offset, uint64_t gen);

/*
 * Check the chunk read from offset. Returns 0, or -EIO after describing the
 * mismatch with the test name, the path and the offset.
 */
int fsb_block_verify(const char *test, const char *path, const void *chunk, size_t chunk_bytes,
		     uint64_t offset);

/*
 * The same check, silent: NULL when the chunk is whole, else what is
 * wrong ("torn chunk (checksum)"), a static string. For a process that
 * cannot describe the mismatch itself (a seeker: its parent does).
 */
const char *fsb_block_check(const void *chunk, size_t chunk_bytes, uint64_t offset);

/* The generation stamped in a chunk. */
uint64_t fsb_block_gen(const void *chunk);

/*
 * Untimed preparation for tests that read the block file: make sure it
 * holds at least `bytes` of valid chunks for this job (appending pattern
 * chunks), then make it cold as the cache mode says
 * (fsb_cache_prepare_read). A file the jobs share (ctx->shared) must hold
 * every job's range of `bytes`: job 0's setup, which runs before the
 * others', makes them all. Returns 0 or -errno after describing the
 * failure.
 */
int fsb_blockfile_prepare(const struct fsb_ctx *ctx, const char *test, uint64_t bytes);

/* The same for any file of chunks in the scratch dir: `name`, chunks of
 * chunk_bytes (>= 40, a multiple of 8) stamped with generation 0. */
int fsb_chunkfile_prepare(const struct fsb_ctx *ctx, const char *test, const char *name,
			  size_t chunk_bytes, uint64_t bytes);

/*
 * The bytes of the file `name` in ctx->dir that are this job's: its size,
 * or for a file the jobs share, its size divided among them (each owns a
 * range as long). 0 when it is absent.
 */
uint64_t fsb_chunkfile_have(const struct fsb_ctx *ctx, const char *name);

/*
 * Open the block file for a test: O_RDWR or O_RDONLY, plus what the cache
 * mode adds for block I/O (O_DIRECT for --cache=direct). Returns the fd
 * or -errno after describing the failure.
 */
int fsb_blockfile_open(const struct fsb_ctx *ctx, const char *test, int flags);

/* The same for the file `name` in the scratch dir. */
int fsb_chunkfile_open(const struct fsb_ctx *ctx, const char *test, const char *name, int flags);

#endif
