/*
 * The vocabularies a plan carries and a view prints: the --cache mode and
 * the --fill pattern, each an enum with its one name/parse pair. Pure, so
 * the commands (building plans) and the views (printing results) use them
 * without reaching the device layer that acts on them (device/cache.h,
 * device/fill.h).
 */
#ifndef FSB_UTIL_MODES_H
#define FSB_UTIL_MODES_H

/* --cache: what the reads of a test are allowed to come from. */
enum fsb_cache_mode { FSB_CACHE_DROP, FSB_CACHE_DIRECT, FSB_CACHE_KEEP };

/* "drop", "direct" or "keep": the mode's name in options, results and views. */
const char *fsb_cache_mode_name(enum fsb_cache_mode m);

/* The mode called name (one of the above). 0, or -EINVAL for any other. */
int fsb_cache_mode_parse(const char *name, enum fsb_cache_mode *m);

/* "drop|direct|keep": every mode's name (util/vocab.h). Static. */
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

#endif
