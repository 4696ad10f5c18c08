/*
 * A growable string and a growable NULL-terminated vector of strings, for
 * code that builds words byte by byte (util/spawn.c's word splitter,
 * device/mkfs.c's placeholder expansion). Both start zeroed ({ 0 }).
 */
#ifndef FSB_UTIL_STRBUF_H
#define FSB_UTIL_STRBUF_H
#include <stddef.h>

struct fsb_strbuf {
	char *s; /* NUL-terminated once anything was added; NULL before */
	size_t len, cap;
};

struct fsb_strvec {
	char **v; /* NULL-terminated once anything was pushed; NULL before */
	size_t n, cap;
};

/* Append the n bytes at s (n may be 0: the string then exists, empty).
 * Returns 0 or -ENOMEM (b unchanged). */
int fsb_strbuf_add(struct fsb_strbuf *b, const char *s, size_t n);

/* Append the malloc'ed string s; the vector owns it on success. Returns 0
 * or -ENOMEM (s not taken: the caller still frees it). */
int fsb_strvec_push(struct fsb_strvec *v, char *s);

/* Move the string being built in b into v (an empty string if b holds
 * none) and reset b to empty. Returns 0 or -ENOMEM (b unchanged). */
int fsb_strvec_take(struct fsb_strvec *v, struct fsb_strbuf *b);

#endif
