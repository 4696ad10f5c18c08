#include "util/modes.h"
#include "util/vocab.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const cache_names[] = {
	[FSB_CACHE_DROP] = "drop",
	[FSB_CACHE_DIRECT] = "direct",
	[FSB_CACHE_KEEP] = "keep",
	[FSB_CACHE_DROP_ALL] = "drop-all",
};

const char *fsb_cache_mode_name(enum fsb_cache_mode m)
{
	return (unsigned)m < sizeof(cache_names) / sizeof(cache_names[0]) ? cache_names[m] : "?";
}

int fsb_cache_mode_parse(const char *name, enum fsb_cache_mode *m)
{
	for (unsigned i = 0; name && i < sizeof(cache_names) / sizeof(cache_names[0]); i++) {
		if (!strcmp(name, cache_names[i])) {
			*m = (enum fsb_cache_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *fsb_cache_mode_names(void)
{
	static char names[64];

	if (!names[0])
		fsb_vocab_join(cache_names, sizeof(cache_names) / sizeof(cache_names[0]), names,
			       sizeof(names));
	return names;
}

int fsb_fill_parse(const char *name, enum fsb_fill *out)
{
	static const struct {
		const char *name;
		enum fsb_fill fill;
	} names[] = {
		{ "0xff", FSB_FILL_FF },   { "ff", FSB_FILL_FF },  { "zero", FSB_FILL_ZERO },
		{ "0x00", FSB_FILL_ZERO }, { "0", FSB_FILL_ZERO }, { "random", FSB_FILL_RANDOM },
		{ "none", FSB_FILL_NONE },
	};

	if (!name)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcasecmp(name, names[i].name)) {
			*out = names[i].fill;
			return 0;
		}
	}
	return -EINVAL;
}

const char *fsb_fill_name(enum fsb_fill fill)
{
	switch (fill) {
	case FSB_FILL_FF:
		return "0xff";
	case FSB_FILL_ZERO:
		return "zero";
	case FSB_FILL_RANDOM:
		return "random";
	case FSB_FILL_NONE:
		break;
	}
	return "none";
}

const char *fsb_fill_names(void)
{
	static char names[64];
	const char *each[FSB_FILL_NONE + 1];

	if (names[0])
		return names;
	for (int f = 0; f <= FSB_FILL_NONE; f++)
		each[f] = fsb_fill_name((enum fsb_fill)f);
	return fsb_vocab_join(each, FSB_FILL_NONE + 1, names, sizeof(names));
}

int fsb_data_parse(const char *s, struct fsb_data *out)
{
	static const struct {
		const char *word;
		enum fsb_data_kind kind;
	} kinds[] = {
		{ "random", FSB_DATA_RANDOM },
		{ "zero", FSB_DATA_ZERO },
		{ "compressible", FSB_DATA_COMPRESSIBLE },
		{ "dedupe", FSB_DATA_DEDUPE },
	};
	const char *colon;
	size_t n;

	if (!s)
		return -EINVAL;
	colon = strchr(s, ':');
	n = colon ? (size_t)(colon - s) : strlen(s);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		bool takes_pct = kinds[i].kind >= FSB_DATA_COMPRESSIBLE;
		unsigned long v = 0;
		char *end = NULL;

		if (strlen(kinds[i].word) != n || strncmp(s, kinds[i].word, n))
			continue;
		/* A percentage is exactly what the two with one need. */
		if (takes_pct != !!colon)
			return -EINVAL;
		if (colon) {
			if (colon[1] < '0' || colon[1] > '9')
				return -EINVAL;
			errno = 0;
			v = strtoul(colon + 1, &end, 10);
			if (errno || *end || v > 100)
				return -EINVAL;
		}
		out->kind = kinds[i].kind;
		out->pct = (unsigned)v;
		return 0;
	}
	return -EINVAL;
}

char *fsb_data_format(const struct fsb_data *d, char *buf, size_t len)
{
	switch (d->kind) {
	case FSB_DATA_ZERO:
		snprintf(buf, len, "zero");
		break;
	case FSB_DATA_COMPRESSIBLE:
		snprintf(buf, len, "compressible:%u", d->pct);
		break;
	case FSB_DATA_DEDUPE:
		snprintf(buf, len, "dedupe:%u", d->pct);
		break;
	default:
		snprintf(buf, len, "random");
	}
	return buf;
}
