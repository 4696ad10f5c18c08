#include "util/modes.h"
#include "util/vocab.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

static const char *const cache_names[] = {
	[FSB_CACHE_DROP] = "drop",
	[FSB_CACHE_DIRECT] = "direct",
	[FSB_CACHE_KEEP] = "keep",
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
