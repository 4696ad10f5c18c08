#include "util/size.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int fsb_size_parse(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;
	unsigned shift = 0;

	if (!s || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	switch (tolower((unsigned char)*p)) {
	case '\0':
		break;
	case 'k':
		shift = 10;
		p++;
		break;
	case 'm':
		shift = 20;
		p++;
		break;
	case 'g':
		shift = 30;
		p++;
		break;
	case 't':
		shift = 40;
		p++;
		break;
	default:
		return -EINVAL;
	}
	/* Accept the common spellings "4kb", "4KiB" after a unit letter. */
	if (shift && (!strcasecmp(p, "b") || !strcasecmp(p, "ib")))
		p += strlen(p);
	if (*p)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

char *fsb_size_format_exact(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (bytes && !(bytes & 1023) && u < 3) {
		bytes >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)bytes, units[u]);
	return buf;
}

char *fsb_size_format_human(uint64_t bytes, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 6) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

void fsb_size_format_pair(uint64_t a, uint64_t b, char *abuf, char *bbuf, size_t len)
{
	char ha[32], hb[32];

	fsb_size_format_human(a, ha, sizeof(ha));
	fsb_size_format_human(b, hb, sizeof(hb));
	/* Bytes print exactly already ("17 B"): only rounded units collide. */
	if (a != b && !strcmp(ha, hb)) {
		snprintf(abuf, len, "%s (%llu bytes)", ha, (unsigned long long)a);
		snprintf(bbuf, len, "%s (%llu bytes)", hb, (unsigned long long)b);
	} else {
		snprintf(abuf, len, "%s", ha);
		snprintf(bbuf, len, "%s", hb);
	}
}
