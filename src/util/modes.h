/*
 * The vocabularies a plan carries and a view prints: the --cache mode and
 * the --fill pattern, each an enum with its one name/parse pair. Pure, so
 * the commands (building plans) and the views (printing results) use them
 * without reaching the device layer that acts on them (device/cache.h,
 * device/fill.h).
 */
#ifndef FSB_UTIL_MODES_H
#define FSB_UTIL_MODES_H
#include <stddef.h>

/* --cache: what the reads of a test are allowed to come from. drop-all
 * is last so that the others keep their numbers. */
enum fsb_cache_mode { FSB_CACHE_DROP, FSB_CACHE_DIRECT, FSB_CACHE_KEEP, FSB_CACHE_DROP_ALL };

/* "drop", "direct", "keep" or "drop-all": the mode's name in options,
 * results and views. */
const char *fsb_cache_mode_name(enum fsb_cache_mode m);

/* The mode called name (one of the above). 0, or -EINVAL for any other. */
int fsb_cache_mode_parse(const char *name, enum fsb_cache_mode *m);

/* "drop|direct|keep|drop-all": every mode's name (util/vocab.h). Static. */
const char *fsb_cache_mode_names(void);

/* --fill: what an image or device holds before mkfs (0xff = erased flash). */
enum fsb_fill { FSB_FILL_FF, FSB_FILL_ZERO, FSB_FILL_RANDOM, FSB_FILL_NONE };

/*
 * Parse a --fill name: "0xff" (also "ff"), "zero" (also "0x00", "0"),
 * "random", "none", case-insensitive. Returns 0 and sets *out, or -EINVAL.
 */
int fsb_fill_parse(const char *name, enum fsb_fill *out);

/* The canonical name of a fill ("0xff", "zero", "random", "none"). */
const char *fsb_fill_name(enum fsb_fill fill);

/* "0xff|zero|random|none": every fill's canonical name (util/vocab.h). Static. */
const char *fsb_fill_names(void);

/*
 * --data: what the written bytes are (workloads/pattern.h makes them).
 * random: incompressible, no chunk repeats another; zero: all zeros;
 * compressible:PCT: a general-purpose compressor shrinks the data by PCT%
 * (fio's buffer_compress_percentage); dedupe:PCT: PCT% of the chunks are
 * byte-exact copies of an earlier chunk (fio's dedupe_percentage).
 * Zero-initialised: random.
 */
enum fsb_data_kind { FSB_DATA_RANDOM, FSB_DATA_ZERO, FSB_DATA_COMPRESSIBLE, FSB_DATA_DEDUPE };

struct fsb_data {
	enum fsb_data_kind kind;
	unsigned pct; /* compressible, dedupe: 0 to 100 */
};

/*
 * Parse a --data value: "random", "zero", "compressible:PCT" or
 * "dedupe:PCT" with PCT a whole number 0 to 100. Returns 0 and sets *out,
 * or -EINVAL.
 */
int fsb_data_parse(const char *s, struct fsb_data *out);

/* The canonical text of d ("random", "compressible:50") into buf (len
 * >= 1, NUL-terminated, cut if too short); returns buf. */
char *fsb_data_format(const struct fsb_data *d, char *buf, size_t len);

#endif
