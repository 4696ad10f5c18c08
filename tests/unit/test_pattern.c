/*
 * workloads/pattern: the --data patterns. What a compressor and a
 * deduplicating layer make of them is measured here with the real thing:
 * zstd at level 3 and zlib at level 6 (the test links libzstd and zlib;
 * fsbench does not), each piece of 128 KiB compressed on its own as btrfs
 * does with an extent; the share of repeats by counting distinct chunks
 * and distinct 4 KiB blocks. And every pattern's verification catches a
 * corrupted chunk.
 */
#include "util/modes.h"
#include "workloads/pattern.h"
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <cmocka.h>

#define FILE_BYTES (8u << 20)
#define EXTENT (128u << 10)

/* A file of FILE_BYTES of the pattern, as the block write makes it. */
static unsigned char *make_file(const struct fsb_data *d, uint64_t seed, size_t chunk)
{
	struct fsb_pattern pat;
	unsigned char *f = malloc(FILE_BYTES);

	assert_non_null(f);
	assert_int_equal(fsb_pattern_init(&pat, d, seed, chunk), 0);
	for (size_t off = 0; off < FILE_BYTES; off += chunk)
		fsb_pattern_fill(&pat, f + off, off, 0);
	fsb_pattern_release(&pat);
	return f;
}

/* The share (percent) the file shrinks by, each extent compressed alone. */
static double zstd_shrink(const unsigned char *f)
{
	size_t cap = ZSTD_compressBound(EXTENT), total = 0;
	void *out = malloc(cap);

	assert_non_null(out);
	for (size_t off = 0; off < FILE_BYTES; off += EXTENT) {
		size_t n = ZSTD_compress(out, cap, f + off, EXTENT, 3);

		assert_false(ZSTD_isError(n));
		total += n;
	}
	free(out);
	return 100.0 * (1.0 - (double)total / FILE_BYTES);
}

static double zlib_shrink(const unsigned char *f)
{
	uLongf cap = compressBound(EXTENT);
	size_t total = 0;
	Bytef *out = malloc(cap);

	assert_non_null(out);
	for (size_t off = 0; off < FILE_BYTES; off += EXTENT) {
		uLongf n = cap;

		assert_int_equal(compress2(out, &n, f + off, EXTENT, 6), Z_OK);
		total += n;
	}
	free(out);
	return 100.0 * (1.0 - (double)total / FILE_BYTES);
}

static const unsigned char *sort_base;
static size_t sort_len;

static int cmp_piece(const void *a, const void *b)
{
	return memcmp(sort_base + *(const size_t *)a * sort_len,
		      sort_base + *(const size_t *)b * sort_len, sort_len);
}

/* The share (percent) of the file's pieces of len bytes that repeat another. */
static double repeat_share(const unsigned char *f, size_t len)
{
	size_t n = FILE_BYTES / len, distinct = 1;
	size_t *idx = malloc(n * sizeof(*idx));

	assert_non_null(idx);
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	sort_base = f;
	sort_len = len;
	qsort(idx, n, sizeof(*idx), cmp_piece);
	for (size_t i = 1; i < n; i++)
		distinct += cmp_piece(&idx[i - 1], &idx[i]) != 0;
	free(idx);
	return 100.0 * (double)(n - distinct) / (double)n;
}

static void parse_and_format(void **state)
{
	static const char *const good[] = { "random",	       "zero",	    "compressible:0",
					    "compressible:50", "dedupe:25", "dedupe:100" };
	static const char *const bad[] = { "",
					   "Random",
					   "compressible",
					   "compressible:",
					   "compressible:101",
					   "compressible:-1",
					   "dedupe:5x",
					   "zero:5",
					   "random:",
					   "dedupe: 5",
					   "compressible:+5",
					   NULL };
	struct fsb_data d;
	char buf[32];
	(void)state;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(fsb_data_parse(good[i], &d), 0);
		assert_string_equal(fsb_data_format(&d, buf, sizeof(buf)), good[i]);
	}
	for (size_t i = 0; bad[i]; i++)
		assert_int_equal(fsb_data_parse(bad[i], &d), -EINVAL);
	assert_int_equal(fsb_data_parse(NULL, &d), -EINVAL);
	assert_int_equal(fsb_data_parse("compressible:075", &d), 0);
	assert_int_equal(d.kind, FSB_DATA_COMPRESSIBLE);
	assert_int_equal(d.pct, 75);
	/* Zero-initialised is random. */
	memset(&d, 0, sizeof(d));
	assert_string_equal(fsb_data_format(&d, buf, sizeof(buf)), "random");
}

/* compressible:PCT shrinks by PCT +-5 points under zstd -3 and zlib -6, at
 * the block tests' chunk sizes; random does not shrink. */
static void compressible_shrinks_by_pct(void **state)
{
	static const size_t chunks[] = { 4096, 8192, 65536, 1u << 20 };
	static const unsigned pcts[] = { 0, 25, 50, 75 };
	(void)state;

	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		for (size_t p = 0; p < sizeof(pcts) / sizeof(pcts[0]); p++) {
			struct fsb_data d = { pcts[p] ? FSB_DATA_COMPRESSIBLE : FSB_DATA_RANDOM,
					      pcts[p] };
			unsigned char *f = make_file(&d, 42, chunks[c]);
			double zs = zstd_shrink(f), zl = zlib_shrink(f);

			print_message("# chunk %zu compressible:%u: zstd -3 %.1f%%, zlib -6 "
				      "%.1f%%\n",
				      chunks[c], pcts[p], zs, zl);
			assert_true(zs >= pcts[p] - 5.0 && zs <= pcts[p] + 5.0);
			assert_true(zl >= pcts[p] - 5.0 && zl <= pcts[p] + 5.0);
			free(f);
		}
	}
}

/* zero shrinks to nearly nothing. */
static void zero_is_zeros(void **state)
{
	struct fsb_data d = { FSB_DATA_ZERO, 0 };
	unsigned char *f = make_file(&d, 42, 8192);
	(void)state;

	for (size_t i = 0; i < FILE_BYTES; i++)
		if (f[i])
			fail_msg("byte %zu is 0x%02x", i, f[i]);
	assert_true(zstd_shrink(f) > 99.0);
	free(f);
}

/* dedupe:PCT: PCT% (+-1: exact per 128 chunks) of the chunks repeat an earlier one exactly (so
 * do as many 4 KiB blocks); random repeats no chunk and no 4 KiB block. */
static void dedupe_repeats_pct_of_chunks(void **state)
{
	static const size_t chunks[] = { 4096, 8192, 65536 };
	static const unsigned pcts[] = { 0, 25, 50 };
	(void)state;

	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		for (size_t p = 0; p < sizeof(pcts) / sizeof(pcts[0]); p++) {
			struct fsb_data d = { pcts[p] ? FSB_DATA_DEDUPE : FSB_DATA_RANDOM,
					      pcts[p] };
			unsigned char *f = make_file(&d, 7, chunks[c]);
			double rc = repeat_share(f, chunks[c]), rb = repeat_share(f, 4096);

			print_message("# chunk %zu dedupe:%u: %.1f%% of chunks, %.1f%% of 4 KiB "
				      "blocks repeat\n",
				      chunks[c], pcts[p], rc, rb);
			assert_true(rc >= pcts[p] - 1.0 && rc <= pcts[p] + 1.0);
			assert_true(rb >= pcts[p] - 1.0 && rb <= pcts[p] + 1.0);
			if (!pcts[p])
				assert_true(rc == 0.0 && rb == 0.0);
			/* Random data stays incompressible whatever the chunk. */
			if (!pcts[p])
				assert_true(zstd_shrink(f) < 2.0 && zlib_shrink(f) < 2.0);
			free(f);
		}
	}
}

/* A repeated chunk is a byte-exact copy of its source, header included,
 * and verifies at its own offset; the source is the nearest earlier
 * chunk that does not repeat. */
static void dedupe_copies_verify(void **state)
{
	struct fsb_data d = { FSB_DATA_DEDUPE, 50 };
	struct fsb_pattern pat;
	unsigned char a[8192], b[8192];
	unsigned repeats = 0;
	(void)state;

	assert_int_equal(fsb_pattern_init(&pat, &d, 3, sizeof(a)), 0);
	for (uint64_t i = 0; i < 2000; i++) {
		uint64_t off = i * sizeof(a), src = fsb_pattern_source(&pat, off);

		assert_true(src <= off && src % sizeof(a) == 0);
		assert_int_equal(fsb_pattern_source(&pat, src), src);
		fsb_pattern_fill(&pat, a, off, 5);
		assert_null(fsb_pattern_check(&pat, a, off));
		assert_int_equal(fsb_pattern_gen(&pat, a), 5);
		if (src != off) {
			repeats++;
			fsb_pattern_fill(&pat, b, src, 5);
			assert_memory_equal(a, b, sizeof(a));
		}
	}
	assert_true(repeats > 800 && repeats < 1200);
	fsb_pattern_release(&pat);
}

/* Every pattern: a whole chunk passes; zeroed, misplaced, torn and
 * foreign ones fail; re-stamping moves the generation and still passes. */
static void verification_catches_corruption(void **state)
{
	static const struct fsb_data kinds[] = {
		{ FSB_DATA_RANDOM, 0 },		{ FSB_DATA_COMPRESSIBLE, 50 },
		{ FSB_DATA_COMPRESSIBLE, 100 }, { FSB_DATA_DEDUPE, 50 },
		{ FSB_DATA_ZERO, 0 },
	};
	static const size_t chunks[] = { 64, 4096, 16384 };
	(void)state;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			size_t n = chunks[c];
			struct fsb_pattern pat;
			unsigned char *x = malloc(n), *y = malloc(n);
			bool zero = kinds[k].kind == FSB_DATA_ZERO;
			uint64_t off = 37 * n, other = 40 * n;

			assert_non_null(x);
			assert_non_null(y);
			assert_int_equal(fsb_pattern_init(&pat, &kinds[k], 9, n), 0);
			fsb_pattern_fill(&pat, x, off, 0);
			assert_null(fsb_pattern_check(&pat, x, off));
			/* One byte changed: in the header (every pattern) and,
			 * for zero, anywhere. */
			x[8] ^= 1;
			assert_non_null(fsb_pattern_check(&pat, x, off));
			x[8] ^= 1;
			if (zero) {
				x[n / 2 + 3] = 0x40;
				assert_non_null(fsb_pattern_check(&pat, x, off));
				free(x);
				free(y);
				fsb_pattern_release(&pat);
				continue;
			}
			/* The last byte (the tail). */
			x[n - 1] ^= 0x80;
			assert_non_null(fsb_pattern_check(&pat, x, off));
			x[n - 1] ^= 0x80;
			/* Zeroed. */
			memset(y, 0, n);
			assert_non_null(fsb_pattern_check(&pat, y, off));
			/* Another offset's chunk (one with another source). */
			while (fsb_pattern_source(&pat, other) == fsb_pattern_source(&pat, off))
				other += n;
			fsb_pattern_fill(&pat, y, other, 0);
			assert_non_null(fsb_pattern_check(&pat, y, off));
			/* Torn: the first half new, the rest old. */
			fsb_pattern_fill(&pat, y, off, 1);
			memcpy(y + n / 2, x + n / 2, n - n / 2);
			assert_non_null(fsb_pattern_check(&pat, y, off));
			/* A 4 KiB block from another chunk inside a big chunk. */
			if (n > 8192) {
				fsb_pattern_fill(&pat, y, other, 0);
				memcpy(y, x, 4096);
				memcpy(y + 8192, x + 8192, n - 8192);
				assert_non_null(fsb_pattern_check(&pat, y, off));
			}
			/* Re-stamped to the next generation: whole again. */
			fsb_pattern_stamp(&pat, x, off, 1);
			assert_null(fsb_pattern_check(&pat, x, off));
			assert_int_equal(fsb_pattern_gen(&pat, x), 1);
			fsb_pattern_fill(&pat, y, off, 1);
			assert_memory_equal(x, y, n);
			free(x);
			free(y);
			fsb_pattern_release(&pat);
		}
	}
}

/* Bytes of a stream taken in any pieces are the chunks' bytes; files at
 * other bases differ; the same seed gives the same bytes, another not. */
static void stream_bytes_are_chunks(void **state)
{
	static const struct fsb_data d = { FSB_DATA_COMPRESSIBLE, 30 };
	struct fsb_pattern pat, other;
	size_t n = 3 * FSB_PATTERN_STREAM_CHUNK + 100;
	unsigned char *whole = malloc(4 * FSB_PATTERN_STREAM_CHUNK), *pieces = malloc(n);
	(void)state;

	assert_non_null(whole);
	assert_non_null(pieces);
	assert_int_equal(fsb_pattern_init(&pat, &d, 5, FSB_PATTERN_STREAM_CHUNK), 0);
	for (size_t i = 0; i < 4; i++)
		fsb_pattern_fill(&pat, whole + i * FSB_PATTERN_STREAM_CHUNK,
				 i * FSB_PATTERN_STREAM_CHUNK, 0);
	for (size_t at = 0, step = 1; at < n; at += step, step = step * 3 + 1) {
		size_t len = at + step <= n ? step : n - at;

		fsb_pattern_bytes(&pat, pieces + at, 0, at, len);
	}
	assert_memory_equal(whole, pieces, n);
	fsb_pattern_bytes(&pat, pieces, 1ull << 40, 0, n);
	assert_memory_not_equal(whole, pieces, 64);
	assert_int_equal(fsb_pattern_init(&other, &d, 6, FSB_PATTERN_STREAM_CHUNK), 0);
	fsb_pattern_bytes(&other, pieces, 0, 0, n);
	assert_memory_not_equal(whole + 32, pieces + 32, 64);
	fsb_pattern_release(&other);
	assert_int_equal(fsb_pattern_init(&other, &d, 5, FSB_PATTERN_STREAM_CHUNK), 0);
	fsb_pattern_bytes(&other, pieces, 0, 0, n);
	assert_memory_equal(whole, pieces, n);
	fsb_pattern_release(&other);
	/* Chunks too small for a header, or not whole words, are refused. */
	assert_int_equal(fsb_pattern_init(&other, &d, 5, 40), -EINVAL);
	fsb_pattern_release(&other);
	assert_int_equal(fsb_pattern_init(&other, &d, 5, 4100), -EINVAL);
	fsb_pattern_release(&other);
	assert_int_equal(fsb_pattern_init(&other, &(struct fsb_data){ FSB_DATA_DEDUPE, 101 }, 5,
					  FSB_PATTERN_STREAM_CHUNK),
			 -EINVAL);
	fsb_pattern_release(&other);
	fsb_pattern_release(&pat);
	free(whole);
	free(pieces);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_and_format),
		cmocka_unit_test(compressible_shrinks_by_pct),
		cmocka_unit_test(zero_is_zeros),
		cmocka_unit_test(dedupe_repeats_pct_of_chunks),
		cmocka_unit_test(dedupe_copies_verify),
		cmocka_unit_test(verification_catches_corruption),
		cmocka_unit_test(stream_bytes_are_chunks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
