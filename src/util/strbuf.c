#include "util/strbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int fsb_strbuf_add(struct fsb_strbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 32;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p)
			return -ENOMEM;
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

int fsb_strvec_push(struct fsb_strvec *v, char *s)
{
	if (v->n + 2 > v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		char **p = realloc(v->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		v->v = p;
		v->cap = cap;
	}
	v->v[v->n++] = s;
	v->v[v->n] = NULL;
	return 0;
}

int fsb_strvec_take(struct fsb_strvec *v, struct fsb_strbuf *b)
{
	char *s = b->s ? b->s : strdup("");

	if (!s || fsb_strvec_push(v, s)) {
		if (s != b->s)
			free(s);
		return -ENOMEM;
	}
	memset(b, 0, sizeof(*b));
	return 0;
}
