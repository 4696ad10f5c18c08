#include "workloads/pattern.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC 0x6673626e63686b31ull /* "fsbnchk1" */
#define CHECK_MUL 0x9e3779b97f4a7c15ull
#define SALT_POOL 0x706f6f6cull	  /* "pool" */
#define SALT_DEDUPE 0x64647570ull /* "ddup" */
/* A stamp starts every 4 KiB of a chunk: the block of a deduplicating layer. */
#define STAMP_EVERY 4096
/* dedupe decides per group of this many chunks: the first never repeats
 * (a source is at most GROUP - 1 back), and of the others exactly
 * round(GROUP * P / 100) do, chosen by the seed. */
#define GROUP 128
#define HEADER_BYTES 32
#define TAIL_BYTES 8

struct header {
	uint64_t magic, id, gen, check;
};

/* splitmix64's finaliser (Steele, Lea, Flood 2014): every input bit moves
 * every output bit, so neighbouring ids and indexes give unrelated words. */
static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * The header's check and the chunk's last 8 bytes both derive from
 * (id, generation): a chunk whose start and end come from different
 * writes (torn) or another place fails one of them.
 */
static uint64_t check_of(uint64_t id, uint64_t gen)
{
	return MAGIC ^ id * CHECK_MUL ^ gen * (CHECK_MUL >> 1);
}

static uint64_t tail_of(uint64_t id, uint64_t gen)
{
	return ~check_of(id, gen) * CHECK_MUL;
}

static uint64_t stamp_of(uint64_t check, size_t k)
{
	return mix(check + k * CHECK_MUL);
}

/* The last 4 KiB boundary (from 1) that has room for a stamp before the tail. */
static size_t last_stamp(size_t chunk)
{
	return chunk >= STAMP_EVERY + 8 + TAIL_BYTES ? (chunk - 8 - TAIL_BYTES) / STAMP_EVERY : 0;
}

int fsb_pattern_init(struct fsb_pattern *pat, const struct fsb_data *data, uint64_t seed,
		     size_t chunk_bytes)
{
	uint64_t s;
	size_t unit, rand_bytes;

	memset(pat, 0, sizeof(*pat));
	if (data)
		pat->data = *data;
	pat->seed = seed;
	pat->chunk = chunk_bytes;
	if (chunk_bytes < FSB_PATTERN_MIN_CHUNK || chunk_bytes % 8 || pat->data.pct > 100)
		return -EINVAL;
	if (pat->data.kind == FSB_DATA_ZERO)
		return 0;
	pat->span = chunk_bytes < FSB_PATTERN_POOL_BYTES
			    ? FSB_PATTERN_POOL_BYTES / chunk_bytes * chunk_bytes
			    : chunk_bytes;
	pat->pool = malloc(pat->span);
	if (!pat->pool)
		return -ENOMEM;
	s = (seed ^ SALT_POOL) * CHECK_MUL;
	for (size_t i = 0; i < pat->span; i += 8) {
		uint64_t w = mix(s += CHECK_MUL);

		memcpy(pat->pool + i, &w, 8);
	}
	if (pat->data.kind != FSB_DATA_COMPRESSIBLE)
		return 0;
	/*
	 * In each unit (4 KiB, or the chunk when smaller) the first
	 * (100 - P)% stays random and the rest is zeros: a compressor keeps
	 * the random part as it is and reduces the zeros to a few bytes, so
	 * the data shrinks by P%. Within each unit so that any piece of the
	 * data a filesystem compresses on its own (an extent, a record, a
	 * 4 KiB block) shrinks by about as much.
	 */
	unit = chunk_bytes < STAMP_EVERY ? chunk_bytes : STAMP_EVERY;
	rand_bytes = (unit * (100 - pat->data.pct) + 50) / 100;
	for (size_t at = 0; at + unit <= pat->span; at += unit)
		memset(pat->pool + at + rand_bytes, 0, unit - rand_bytes);
	return 0;
}

void fsb_pattern_release(struct fsb_pattern *pat)
{
	free(pat->pool);
	pat->pool = NULL;
}

/*
 * Whether chunk index i repeats an earlier chunk (dedupe). The group's
 * positions 1..127 are ranked by an affine map mod 127, a prime, with a
 * multiplier and offset from the seed and the group: a permutation, so
 * exactly k of them rank below k and the share is exact over whole groups,
 * at a multiply and a modulo per chunk (a source is found in a few steps).
 */
static bool repeats(const struct fsb_pattern *pat, uint64_t i)
{
	unsigned k = (GROUP * pat->data.pct + 50) / 100;
	uint64_t h;

	if (i % GROUP == 0)
		return false;
	if (k > GROUP - 1)
		k = GROUP - 1;
	h = mix((pat->seed ^ SALT_DEDUPE) * CHECK_MUL + i / GROUP);
	return ((i % GROUP - 1) * (1 + h % (GROUP - 2)) + (h >> 32) % (GROUP - 1)) % (GROUP - 1) <
	       k;
}

uint64_t fsb_pattern_source(const struct fsb_pattern *pat, uint64_t offset)
{
	uint64_t i = offset / pat->chunk;

	if (pat->data.kind != FSB_DATA_DEDUPE || !pat->data.pct)
		return offset;
	while (repeats(pat, i))
		i--;
	return i * pat->chunk + offset % pat->chunk;
}

/* Where the payload of the chunk with this id starts in the pool: the
 * pool's pieces in turn, so neighbouring chunks never share bytes. */
static const unsigned char *payload_of(const struct fsb_pattern *pat, uint64_t id)
{
	return pat->pool + (size_t)(id / pat->chunk % (pat->span / pat->chunk)) * pat->chunk;
}

/* Copy the part of src (n bytes at chunk position at) that falls inside
 * the piece [pos, pos + len) of the chunk to dst (holding that piece). */
static void overlay(unsigned char *dst, size_t pos, size_t len, size_t at, const void *src,
		    size_t n)
{
	size_t lo = at > pos ? at : pos, hi = at + n < pos + len ? at + n : pos + len;

	if (lo < hi)
		memcpy(dst + (lo - pos), (const unsigned char *)src + (lo - at), hi - lo);
}

/* Bytes [pos, pos + len) of the chunk with this id and generation. */
static void piece(const struct fsb_pattern *pat, unsigned char *dst, uint64_t id, uint64_t gen,
		  size_t pos, size_t len)
{
	uint64_t check = check_of(id, gen), tail = tail_of(id, gen);
	struct header h = { MAGIC, id, gen, check };
	size_t k = pos / STAMP_EVERY, last = last_stamp(pat->chunk);

	if (!pat->pool) {
		memset(dst, 0, len);
		return;
	}
	memcpy(dst, payload_of(pat, id) + pos, len);
	overlay(dst, pos, len, 0, &h, sizeof(h));
	for (k = k ? k : 1; k <= last && k * STAMP_EVERY < pos + len; k++) {
		uint64_t w = stamp_of(check, k);

		overlay(dst, pos, len, k * STAMP_EVERY, &w, 8);
	}
	overlay(dst, pos, len, pat->chunk - TAIL_BYTES, &tail, TAIL_BYTES);
}

void fsb_pattern_fill(const struct fsb_pattern *pat, void *chunk, uint64_t offset, uint64_t gen)
{
	piece(pat, chunk, fsb_pattern_source(pat, offset), gen, 0, pat->chunk);
}

void fsb_pattern_stamp(const struct fsb_pattern *pat, void *chunk, uint64_t offset, uint64_t gen)
{
	uint64_t id = fsb_pattern_source(pat, offset), check = check_of(id, gen);
	uint64_t tail = tail_of(id, gen);
	struct header h = { MAGIC, id, gen, check };
	unsigned char *c = chunk;
	size_t last = last_stamp(pat->chunk);

	if (!pat->pool)
		return;
	memcpy(c, &h, sizeof(h));
	for (size_t k = 1; k <= last; k++) {
		uint64_t w = stamp_of(check, k);

		memcpy(c + k * STAMP_EVERY, &w, 8);
	}
	memcpy(c + pat->chunk - TAIL_BYTES, &tail, TAIL_BYTES);
}

static bool all_zero(const unsigned char *p, size_t n)
{
	uint64_t acc = 0, w;

	/* OR of words: no branch per byte, so it runs at memory speed. */
	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8);
		acc |= w;
	}
	while (n--)
		acc |= *p++;
	return !acc;
}

const char *fsb_pattern_check(const struct fsb_pattern *pat, const void *chunk, uint64_t offset)
{
	const unsigned char *c = chunk;
	uint64_t id, tail, w;
	size_t last = last_stamp(pat->chunk);
	struct header h;

	if (!pat->pool)
		return all_zero(c, pat->chunk) ? NULL : "not zero data (foreign)";
	id = fsb_pattern_source(pat, offset);
	memcpy(&h, c, sizeof(h));
	memcpy(&tail, c + pat->chunk - TAIL_BYTES, TAIL_BYTES);
	if (h.magic != MAGIC)
		return "not fsbench data (zeroed or foreign)";
	if (h.id != id)
		return "chunk from another offset";
	if (h.check != check_of(id, h.gen) || tail != tail_of(id, h.gen))
		return "torn chunk (checksum)";
	for (size_t k = 1; k <= last; k++) {
		memcpy(&w, c + k * STAMP_EVERY, 8);
		if (w != stamp_of(h.check, k))
			return "torn chunk (a 4 KiB block from elsewhere)";
	}
	return NULL;
}

uint64_t fsb_pattern_gen(const struct fsb_pattern *pat, const void *chunk)
{
	struct header h;

	if (!pat->pool)
		return 0;
	memcpy(&h, chunk, sizeof(h));
	return h.gen;
}

void fsb_pattern_bytes(const struct fsb_pattern *pat, void *buf, uint64_t base, uint64_t off,
		       size_t len)
{
	unsigned char *dst = buf;

	while (len) {
		size_t pos = (size_t)(off % pat->chunk);
		size_t n = pat->chunk - pos < len ? pat->chunk - pos : len;
		uint64_t at = base + (off - pos);

		piece(pat, dst, fsb_pattern_source(pat, at), 0, pos, n);
		dst += n;
		off += n;
		len -= n;
	}
}
