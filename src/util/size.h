/* Sizes on the command line and in reports. */
#ifndef FSB_UTIL_SIZE_H
#define FSB_UTIL_SIZE_H
#include <stddef.h>
#include <stdint.h>

/*
 * Parse a size: decimal digits with an optional binary suffix k, m, g or t
 * (either case, optionally followed by "b" or "ib": 4k, 4K, 4KiB).
 * Refuses empty strings, signs, garbage and overflow.
 * Returns 0 and sets *out, or -EINVAL / -ERANGE.
 */
int fsb_size_parse(const char *s, uint64_t *out);

/*
 * Format bytes the way bonnie++ prints its file size: the largest binary
 * unit that divides it exactly ("512M", "2G", "1536K", "100"). Always
 * NUL-terminates; returns buf.
 */
char *fsb_size_format_exact(uint64_t bytes, char *buf, size_t len);

/* Human-readable with one decimal ("1.5 GiB", "512.0 KiB", "17 B"). */
char *fsb_size_format_human(uint64_t bytes, char *buf, size_t len);

/*
 * Format two sizes a reader compares ("needs A, only B free") human-
 * readable, each followed by its exact byte count ("20.0 MiB (20979712
 * bytes)") when the two would otherwise read the same though they differ.
 * Always NUL-terminates both buffers (len bytes each).
 */
void fsb_size_format_pair(uint64_t a, uint64_t b, char *abuf, char *bbuf, size_t len);

/* Non-zero when v is a power of two. */
static inline int fsb_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

#endif
