/*
 * The data file the block tests (write, rewrite, read, seeks) share, and
 * the verifiable pattern in it.
 *
 * The file is a sequence of chunks of cfg->chunk_bytes in the format of
 * workloads/pattern.h (a header, the --data pattern's payload, stamps and
 * a tail that tie it to its offset and generation), so verifying a chunk
 * is a few compares. Rewrite and seeks bump the generation (that is how
 * they dirty a chunk).
 */
#ifndef FSB_WORKLOADS_BLOCKFILE_H
#define FSB_WORKLOADS_BLOCKFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "device/cache.h"
#include "engines/engine.h"
#include "workloads/pattern.h"
#include "workloads/workload.h"

#define FSB_BLOCKFILE_NAME "block.dat"
/* randread and randwrite's own file, so the block tests' file is untouched. */
#define FSB_RANDFILE_NAME "random.dat"

/* `count` buffers of chunk_bytes in one allocation (posix_memalign 4096,
 * O_DIRECT-safe when chunk_bytes is a multiple of 4096), zeroed: buffer i
 * at buf + i * chunk_bytes. NULL with errno set. Free with free(). */
void *fsb_block_bufs_alloc(size_t chunk_bytes, size_t count);

/*
 * The data pattern of the test's chunks (--data, and the job's seed:
 * fsb_ctx_data_seed; see workloads/pattern.h), made outside the clock. Returns 0 or -errno after
 * describing the failure. Release with fsb_pattern_release.
 */
int fsb_block_pattern_init(struct fsb_pattern *pat, const struct fsb_ctx *ctx, const char *test,
			   size_t chunk_bytes);

/*
 * A file of chunks driven through the I/O engine (the block tests,
 * randread, randwrite): the file, its chunks' data pattern, the engine's
 * buffers and the engine (--engine at --iodepth).
 */
struct fsb_block_io {
	struct fsb_engine eng;
	struct fsb_pattern pat; /* the chunks' data (--data) */
	void *bufs;		/* --iodepth chunks */
	int fd;			/* -1: not open */
	bool verify;		/* the engine moves data: what it reads can be checked */
};

/*
 * Untimed: make the pattern of chunks of chunk_bytes, the buffers, open
 * the file `name` of the scratch dir with flags (fsb_chunkfile_open) and
 * set the engine up on it. Returns 0 or -errno after describing the
 * failure; fsb_block_io_release releases what was made, either way.
 */
int fsb_block_io_open(struct fsb_block_io *b, const struct fsb_ctx *ctx, const char *test,
		      const char *name, size_t chunk_bytes, int flags);

/* Release the engine, close the file and free the buffers and the
 * pattern; idempotent. b->fd must be -1 or a descriptor b owns. */
void fsb_block_io_release(struct fsb_block_io *b);

/*
 * Check the chunk read from offset (fsb_pattern_check). Returns 0, or -EIO
 * after describing the mismatch with the test name, the path and the
 * offset.
 */
int fsb_block_verify(const struct fsb_pattern *pat, const char *test, const char *path,
		     const void *chunk, uint64_t offset);

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

/*
 * The same for any file of the pattern in the scratch dir: `name`, chunks
 * of chunk_bytes (>= FSB_PATTERN_MIN_CHUNK, a multiple of 8) of generation
 * 0, its last chunk partial when bytes is not a multiple of chunk_bytes
 * (the per-char file); io says how the test reads it, which is what
 * making it cold means (device/cache.h). A file shorter than bytes is
 * made whole from its last whole chunk on; a longer one is left as it is.
 */
int fsb_chunkfile_prepare(const struct fsb_ctx *ctx, const char *test, const char *name,
			  size_t chunk_bytes, enum fsb_cache_io io, uint64_t bytes);

/*
 * A pass over this much streams from memory, not from a CPU cache: a
 * core's last-level cache is at most about 100 MiB today (96 MiB on an
 * EPYC with 3D V-Cache).
 */
#define FSB_BLOCKFILE_PASS_MIN (512ull << 20)

/*
 * Whether a run may go over `bytes` of this job's block file more than
 * once. Only on a filesystem in memory (tmpfs, ramfs), where the page
 * cache is the storage: a second pass reads what a larger file's first
 * would, from the same memory (fio's time_based runs loop over the file
 * on any device), and only from FSB_BLOCKFILE_PASS_MIN on. Elsewhere a
 * chunk read again would come from the page cache, not the device: the
 * file must hold the work.
 */
bool fsb_blockfile_passes(const struct fsb_ctx *ctx, uint64_t bytes);

/* This job's whole chunks of the block file as it is (bytes; 0 when it
 * is absent). */
uint64_t fsb_blockfile_have(const struct fsb_ctx *ctx);

/* The same if a run may go over them more than once
 * (fsb_blockfile_passes), else 0. */
uint64_t fsb_blockfile_pass_bytes(const struct fsb_ctx *ctx);

/* This job's whole granules of the file `name` if a run may go over them
 * more than once (fsb_blockfile_passes: getc's char.dat too), else 0. On
 * a filesystem in memory, a file of at least half FSB_BLOCKFILE_PASS_MIN
 * counts as that long: a run's setup makes it so (fsb_chunkfile_prepare
 * of fsb_pass_span). */
uint64_t fsb_chunkfile_pass_bytes(const struct fsb_ctx *ctx, const char *name, uint64_t granule);

/* The same when the file is that long, or the space holds what the setup
 * adds twice over; else 0 (ready_work: passes need no more space). */
uint64_t fsb_chunkfile_pass_ready(const struct fsb_ctx *ctx, const char *name, uint64_t granule);

/* The bytes of its range a run of `work` goes over, given the file's
 * pass bytes (0: no passes): the file, when the work is more, else the
 * work (the file made to hold it first). */
static inline uint64_t fsb_pass_span(uint64_t pass, uint64_t work)
{
	return pass && pass < work ? pass : work;
}

/* The file a run of `work` goes over more than once, else 0 (the
 * result's file_bytes). */
static inline uint64_t fsb_pass_file(uint64_t pass, uint64_t work)
{
	return pass && pass < work ? pass : 0;
}

/*
 * The bytes of the file `name` in ctx->dir that are this job's: its size,
 * or for a file the jobs share, its size divided among them (each owns a
 * range as long). 0 when it is absent.
 */
uint64_t fsb_chunkfile_have(const struct fsb_ctx *ctx, const char *name);

/*
 * Open the file `name` of the scratch dir for a test: O_RDWR or O_RDONLY,
 * plus what the cache mode adds for block I/O (O_DIRECT for
 * --cache=direct). Returns the fd or -errno after describing the failure.
 */
int fsb_chunkfile_open(const struct fsb_ctx *ctx, const char *test, const char *name, int flags);

#endif
