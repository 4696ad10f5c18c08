#include "util/vocab.h"

#include <stdio.h>
#include <string.h>

char *fsb_vocab_join(const char *const *names, size_t n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t need = strlen(names[i]) + (used ? 1 : 0);

		if (!names[i][0] || fsb_vocab_find(buf, names[i]) >= 0 || used + need >= len)
			continue;
		snprintf(buf + used, len - used, "%s%s", used ? "|" : "", names[i]);
		used += need;
	}
	return buf;
}

int fsb_vocab_find(const char *vocab, const char *word)
{
	size_t wlen = word ? strlen(word) : 0;
	int i = 0;

	if (!vocab || !word || !wlen)
		return -1;
	for (const char *p = vocab; *p; i++) {
		size_t n = strcspn(p, "|");

		if (n == wlen && !memcmp(p, word, n))
			return i;
		p += n;
		if (*p)
			p++;
	}
	return -1;
}

char *fsb_vocab_describe(const char *vocab, char *buf, size_t len)
{
	size_t used = 0, count = 0, k = 0;
	const char *p;

	buf[0] = '\0';
	for (p = vocab; p && *p; count++) {
		p += strcspn(p, "|");
		if (*p)
			p++;
	}
	for (p = vocab; p && *p && used < len; k++) {
		size_t n = strcspn(p, "|");
		/* "a, b or c": a comma before every word but the first and the last. */
		const char *sep = !k ? "" : k + 1 == count ? " or " : ", ";
		int w = snprintf(buf + used, len - used, "%s%.*s", sep, (int)n, p);

		if (w < 0)
			break;
		used += (size_t)w;
		p += n;
		if (*p)
			p++;
	}
	return buf;
}
