/*
 * The data every writer writes (--data): one generator for the block and
 * random tests' chunks, the per-char bytes, the metadata suite's file
 * contents and the lifecycle copy. Pure (memory in, memory out), so it is
 * unit-tested against real compressors (tests/unit/test_pattern.c).
 *
 * Data is a sequence of chunks (--chunk, --block-size, or 4 KiB for the
 * per-char file, each file of the metadata suite and the lifecycle copy).
 * A chunk is
 *
 *   header {magic, id, generation, check} | payload | tail
 *
 * where id is the chunk's own offset, or for a chunk that repeats an
 * earlier one (dedupe) that chunk's offset; check and the 8-byte tail
 * derive from (id, generation), and the first 8 bytes of every further
 * 4 KiB of the chunk are stamped from them too. Verifying a chunk is a
 * few compares per 4 KiB, so it sits in the read loop without becoming
 * the bottleneck, yet it catches zeroed, torn, misplaced and foreign data.
 *
 * The payload comes from a pool of random bytes (1 MiB, or one chunk when
 * that is larger) made once from the seed, each chunk taking the pool's
 * next piece: no two chunks within 1 MiB share bytes, so a compressor
 * working on extents or records (btrfs 128 KiB, ZFS records, zstd's and
 * zlib's windows within them) finds nothing to shrink, and the stamps make
 * every 4 KiB block unique for a deduplicating layer. Patterns:
 *
 *   random          the pool is random bytes
 *   compressible:P  in every 4 KiB of the pool (every chunk, for smaller
 *                   chunks) the first (100 - P)% is random, the rest zeros:
 *                   zstd -3 and zlib -6 shrink it by P% (+-5 points,
 *                   checked by the unit test)
 *   dedupe:P        random, and P% of the chunks repeat an earlier chunk
 *                   (the nearest one that does not repeat): in every group
 *                   of 128 chunks the first never repeats and exactly
 *                   round(1.28 P) of the others do (at most 127), which
 *                   ones chosen by the seed; so the share is P% within
 *                   0.4 points (99.2% for 100) over whole groups
 *   zero            every byte zero: no header, nothing to tell a
 *                   misplaced chunk from a right one; a reader checks zeros
 */
#ifndef FSB_WORKLOADS_PATTERN_H
#define FSB_WORKLOADS_PATTERN_H
#include <stddef.h>
#include <stdint.h>

#include "util/modes.h"

/* The chunk of the per-char file, the metadata files and the lifecycle copy. */
#define FSB_PATTERN_STREAM_CHUNK 4096
/* A chunk's smallest size: header, tail and a word between. */
#define FSB_PATTERN_MIN_CHUNK 48
/* The pool's size when a chunk is smaller. */
#define FSB_PATTERN_POOL_BYTES (1u << 20)

struct fsb_pattern {
	struct fsb_data data;
	uint64_t seed;
	size_t chunk;	     /* bytes of a chunk (>= FSB_PATTERN_MIN_CHUNK, a multiple of 8) */
	unsigned char *pool; /* span bytes of payload; NULL for zero */
	size_t span;	     /* a multiple of chunk */
};

/*
 * Make the pattern of data (NULL: random) and seed for chunks of
 * chunk_bytes (>= FSB_PATTERN_MIN_CHUNK, a multiple of 8): the pool is
 * allocated and filled here, so call it outside a clock. Returns 0,
 * -EINVAL for a chunk size out of range or a percentage above 100, or
 * -ENOMEM. Release with
 * fsb_pattern_release (also after a failed init).
 */
int fsb_pattern_init(struct fsb_pattern *pat, const struct fsb_data *data, uint64_t seed,
		     size_t chunk_bytes);

/* Free the pool; idempotent. */
void fsb_pattern_release(struct fsb_pattern *pat);

/*
 * The chunk at offset (a multiple of pat->chunk) with generation gen, all
 * pat->chunk bytes of it, into chunk: what a writer writes there. Costs a
 * copy of the chunk from the pool.
 */
void fsb_pattern_fill(const struct fsb_pattern *pat, void *chunk, uint64_t offset, uint64_t gen);

/*
 * Re-stamp a chunk holding the data of offset with generation gen (its
 * header, stamps and tail; the payload is left as it is): what rewrite
 * and the seekers do to dirty a chunk they read. A no-op for zero.
 */
void fsb_pattern_stamp(const struct fsb_pattern *pat, void *chunk, uint64_t offset, uint64_t gen);

/*
 * Check the chunk read from offset, of any generation: NULL when it is
 * whole, else what is wrong ("torn chunk (checksum)"), a static string.
 * For zero, every byte is compared with zero.
 */
const char *fsb_pattern_check(const struct fsb_pattern *pat, const void *chunk, uint64_t offset);

/* The generation stamped in a chunk (0 for zero). */
uint64_t fsb_pattern_gen(const struct fsb_pattern *pat, const void *chunk);

/*
 * The offset of the chunk whose bytes the chunk at offset repeats: offset
 * itself unless the pattern is dedupe and the seed makes it a repeat.
 */
uint64_t fsb_pattern_source(const struct fsb_pattern *pat, uint64_t offset);

/*
 * Bytes [off, off + len) of a file of such chunks, all of generation 0,
 * into buf: the per-char file, a metadata file's contents, the lifecycle
 * copy. base is added to every chunk's offset (a file's own place in one
 * space of offsets, so two files differ; a multiple of 128 chunks keeps a
 * file's chunks repeating only its own).
 */
void fsb_pattern_bytes(const struct fsb_pattern *pat, void *buf, uint64_t base, uint64_t off,
		       size_t len);

#endif
