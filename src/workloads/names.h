/*
 * File names, sizes, contents and orders for the metadata suite, all
 * regenerated from (seed, index) so that nothing per file is ever stored:
 * memory stays flat however many files a test makes. Pure: no I/O.
 *
 * A name is a 7-digit decimal index and 0-12 random alphanumeric
 * characters: the number first for the sequential tests ("0000042Xq3"),
 * last for the random ones ("Xq30000042"), as bonnie++ names them. The
 * number sits at a fixed place with a fixed width, so names are unique as
 * long as index < FSB_NAMES_MAX_FILES, and sequential names sort in index
 * order.
 */
#ifndef FSB_WORKLOADS_NAMES_H
#define FSB_WORKLOADS_NAMES_H
#include <stddef.h>
#include <stdint.h>

/* Indexes are 7 decimal digits: at most this many files in a set. */
#define FSB_NAMES_MAX_FILES 10000000ull
#define FSB_NAMES_DIGITS 7
/* Random characters per name: 0 to this many. */
#define FSB_NAMES_RAND_MAX 12
/* Longest name plus its NUL. */
#define FSB_NAMES_LEN (FSB_NAMES_DIGITS + FSB_NAMES_RAND_MAX + 1)
/* Subdirectory names are 5 digits ("00042"), as bonnie++'s. */
#define FSB_NAMES_MAX_DIRS 99999u
#define FSB_NAMES_DIR_LEN 6

enum fsb_names_kind {
	FSB_NAMES_SEQ,	/* number first, then random characters */
	FSB_NAMES_RAND, /* random characters first, then the number */
};

/*
 * Write the name of file `index` (< FSB_NAMES_MAX_FILES) of the set made
 * from `seed` into buf (at least FSB_NAMES_LEN bytes), NUL-terminated.
 * The random characters depend on (seed, index) only, and are the same for
 * both kinds. Returns the length of the name.
 */
size_t fsb_names_make(enum fsb_names_kind kind, uint64_t seed, uint64_t index, char *buf);

/*
 * Read back the index of a name of that kind (the 7 digits at its start or
 * its end). Does not check the random characters: compare with
 * fsb_names_make for that. Returns 0 and sets *index, or -EINVAL for a name
 * that is not of that shape.
 */
int fsb_names_parse(enum fsb_names_kind kind, const char *name, uint64_t *index);

/*
 * The subdirectory (0 .. dirs-1) of file `index` in a set of `count` files
 * spread over `dirs` subdirectories: consecutive indexes share a directory,
 * and every directory holds count/dirs files, give or take one. Returns 0
 * when dirs is 0 (every file in one directory).
 */
unsigned fsb_names_dir(uint64_t index, uint64_t count, unsigned dirs);

/* Write the name of subdirectory `dir` ("00042") into buf
 * (FSB_NAMES_DIR_LEN bytes). Returns its length. */
size_t fsb_names_dir_make(unsigned dir, char *buf);

/*
 * Size in bytes of file `index`: uniform in [min_bytes, max_bytes] from
 * (seed, index); 0 when max_bytes is 0. Needs min_bytes <= max_bytes.
 */
uint64_t fsb_names_bytes(uint64_t seed, uint64_t index, uint64_t min_bytes, uint64_t max_bytes);

/*
 * A random order over [0, n) that is never stored: a keyed bijection
 * (4-round unbalanced Feistel network over the smallest power of two >= n,
 * with cycle walking back into [0, n)). fsb_names_perm_at(p, k) for
 * k = 0 .. n-1 visits every index exactly once, in an order fixed by the
 * seed. O(1) memory, a few hashes per call (under 2 walks on average).
 */
struct fsb_names_perm {
	uint64_t n;
	unsigned bits;	 /* log2 of the Feistel domain */
	uint64_t key[4]; /* round keys from the seed */
};

/* Prepare the order of [0, n) for this seed (n >= 1). */
void fsb_names_perm_init(struct fsb_names_perm *p, uint64_t n, uint64_t seed);

/* The k-th index of the order (k < n). */
uint64_t fsb_names_perm_at(const struct fsb_names_perm *p, uint64_t k);

#endif
