#include "workloads/names.h"

#include <errno.h>
#include <string.h>

/* Salts keep the hash streams for names, sizes and data independent. */
#define SALT_NAME 0x6e616d65ull /* "name" */
#define SALT_SIZE 0x73697a65ull /* "size" */
#define SALT_PERM 0x7065726dull /* "perm" */

static const char alnum[] = "0123456789"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "abcdefghijklmnopqrstuvwxyz";

/* splitmix64's finaliser: a cheap bijective 64-bit mix with good avalanche. */
static inline uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* One independent 64-bit value per (seed, salt, index). */
static inline uint64_t hash3(uint64_t seed, uint64_t salt, uint64_t index)
{
	return mix64(seed ^ mix64(index ^ mix64(salt)));
}

/* Seven digits, written without snprintf: this runs once per operation. */
static void put_digits(char *p, uint64_t v)
{
	for (int i = FSB_NAMES_DIGITS - 1; i >= 0; i--) {
		p[i] = (char)('0' + v % 10);
		v /= 10;
	}
}

size_t fsb_names_make(enum fsb_names_kind kind, uint64_t seed, uint64_t index, char *buf)
{
	uint64_t h = hash3(seed, SALT_NAME, index);
	/* 62^10 < 2^64: ten characters from one word, the rest from a second. */
	uint64_t w0 = mix64(h), w1 = mix64(h ^ SALT_NAME);
	size_t len = (size_t)(h % (FSB_NAMES_RAND_MAX + 1));
	char rnd[FSB_NAMES_RAND_MAX];

	for (size_t i = 0; i < len; i++) {
		uint64_t *w = i < 10 ? &w0 : &w1;

		rnd[i] = alnum[*w % 62];
		*w /= 62;
	}
	if (kind == FSB_NAMES_SEQ) {
		put_digits(buf, index);
		memcpy(buf + FSB_NAMES_DIGITS, rnd, len);
	} else {
		memcpy(buf, rnd, len);
		put_digits(buf + len, index);
	}
	buf[FSB_NAMES_DIGITS + len] = '\0';
	return FSB_NAMES_DIGITS + len;
}

int fsb_names_parse(enum fsb_names_kind kind, const char *name, uint64_t *index)
{
	size_t len = strlen(name);
	const char *p;
	uint64_t v = 0;

	if (len < FSB_NAMES_DIGITS || len > FSB_NAMES_DIGITS + FSB_NAMES_RAND_MAX)
		return -EINVAL;
	p = kind == FSB_NAMES_SEQ ? name : name + len - FSB_NAMES_DIGITS;
	for (int i = 0; i < FSB_NAMES_DIGITS; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	*index = v;
	return 0;
}

unsigned fsb_names_dir(uint64_t index, uint64_t count, unsigned dirs)
{
	if (dirs <= 1 || !count)
		return 0;
	/* floor(index * dirs / count): 128-bit so no count can overflow it. */
	return (unsigned)((unsigned __int128)index * dirs / count);
}

size_t fsb_names_dir_make(unsigned dir, char *buf)
{
	char tmp[16];
	size_t n = 0, len;

	do {
		tmp[n++] = (char)('0' + dir % 10);
		dir /= 10;
	} while (dir && n < sizeof(tmp));
	while (n < FSB_NAMES_DIR_LEN - 1)
		tmp[n++] = '0';
	len = n;
	for (size_t i = 0; i < len; i++)
		buf[i] = tmp[len - 1 - i];
	buf[len] = '\0';
	return len;
}

uint64_t fsb_names_bytes(uint64_t seed, uint64_t index, uint64_t min_bytes, uint64_t max_bytes)
{
	uint64_t span;

	if (!max_bytes)
		return 0;
	span = max_bytes - min_bytes + 1;
	/* span 0 is the whole 64-bit range (min 0, max UINT64_MAX). */
	if (!span)
		return hash3(seed, SALT_SIZE, index);
	/* Modulo bias is below span / 2^64: irrelevant for file sizes. */
	return min_bytes + hash3(seed, SALT_SIZE, index) % span;
}

void fsb_names_perm_init(struct fsb_names_perm *p, uint64_t n, uint64_t seed)
{
	memset(p, 0, sizeof(*p));
	p->n = n;
	while (p->bits < 64 && (1ull << p->bits) < n)
		p->bits++;
	for (unsigned r = 0; r < 4; r++)
		p->key[r] = hash3(seed, SALT_PERM, r);
}

static inline uint64_t mask(unsigned w)
{
	return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/*
 * One pass of the Feistel network over [0, 2^bits). Each round maps
 * (L: wl bits, R: wr bits) to (R, L ^ F(R)), a bijection whatever wl and wr,
 * and swaps the widths; after an even number of rounds they are back, so
 * the whole is a bijection of the bits-wide domain.
 */
static uint64_t feistel(const struct fsb_names_perm *p, uint64_t x)
{
	unsigned wl = p->bits / 2, wr = p->bits - p->bits / 2;

	for (unsigned r = 0; r < 4; r++) {
		uint64_t l = wr >= 64 ? 0 : x >> wr, rr = x & mask(wr);
		uint64_t f = mix64(p->key[r] ^ rr) & mask(wl);
		unsigned t;

		x = (wl >= 64 ? 0 : rr << wl) | (l ^ f);
		t = wl;
		wl = wr;
		wr = t;
	}
	return x;
}

uint64_t fsb_names_perm_at(const struct fsb_names_perm *p, uint64_t k)
{
	uint64_t x = k;

	if (p->n <= 1)
		return 0;
	/*
	 * Cycle walking: apply the permutation of the power-of-two domain until
	 * the value falls back into [0, n). The domain is < 2n, so this takes
	 * under two passes on average, and it ends because k's cycle returns
	 * to k, which is < n.
	 */
	do
		x = feistel(p, x);
	while (x >= p->n);
	return x;
}
