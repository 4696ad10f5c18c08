/*
 * Automatic caveats: what a reader must know to read a result right,
 * derived from the facts recorded in the document (the environment probes,
 * the parameters, each test's runs and device counters) by a pure function,
 * so that a result file from another machine shows its own caveats. Every
 * human-readable view ends with them; JSON has a "caveats" array.
 */
#ifndef FSB_REPORT_CAVEATS_H
#define FSB_REPORT_CAVEATS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/result.h"

#define FSB_CAVEATS_MAX 48

/* Thresholds (DESIGN: a figure whose CV exceeds 10% is noisy). */
#define FSB_CAVEAT_DRIFT 0.10		 /* first to last run, monotonic */
#define FSB_CAVEAT_DRIFT_RUNS 5		 /* at least this many runs */
#define FSB_CAVEAT_OTHER_SLACK 1048576.0 /* bytes the test may be off by */
/* A figure this far above the raw device's own came (in part) from a
 * cache, not the device: readahead and merging do not make up 25%. */
#define FSB_CAVEAT_ABOVE_DEVICE 1.25
/* A file more than this share of which stayed in the page cache after
 * fsbench evicted it: the eviction did not work (a page still mapped, a
 * filesystem that ignores fadvise), and reads may come from memory. */
#define FSB_CAVEAT_RESIDENT 0.05
/* The raw device's own figure spread over its rounds by more than this
 * ((max - min) / median): it is no baseline, and a share of it may be
 * off by as much. */
#define FSB_CAVEAT_DEVICE_SPREAD 0.20
/* A raw device figure is a baseline firm enough to say "a cache served
 * it" only from at least this many rounds adding up to this much time
 * (the default is 3 rounds of 0.25 s): one short reading of a device can
 * be another's several times over, so a figure above it proves nothing. */
#define FSB_CAVEAT_BASELINE_ROUNDS 3
#define FSB_CAVEAT_BASELINE_SECONDS 0.5

struct fsb_caveat {
	/* "ram-backed", "cache-fits", "vm", "balloon", "noisy", "drift",
	 * "short-space", "passes", "emulation", "device-counters-off",
	 * "compress-random", "compress-zero", "other-io", "above-device",
	 * "above-device-unsure", "engine-null", "cache-resident", "metadata-warm", "loop-buffered",
	 * "loop-direct" */
	char id[32];
	char test[32]; /* the test it is about, or "" */
	char text[256];
	char evidence[256];
};

/*
 * The caveats that apply to r, in a fixed order, at most max of them into
 * out. Returns how many. Pure: reads only the document. A document without
 * has_caveats gets none (older documents render as they did).
 */
size_t fsb_caveats_find(const struct fsb_result *r, struct fsb_caveat *out, size_t max);

/*
 * Print r's caveats as the end of a text view: a blank line, "Caveats:"
 * and one line each ("  - text (evidence)"), made terminal-safe. Nothing
 * when there are none. prefix goes before each line ("" or "  ").
 * Returns 0 or -EIO.
 */
int fsb_caveats_print(FILE *out, const struct fsb_result *r, const char *prefix);

/* Whether two caveats say the same: kind, test and text (their evidence
 * may differ: each input's own runs). */
bool fsb_caveat_same(const struct fsb_caveat *a, const struct fsb_caveat *b);

/* "text (evidence)" and a newline, terminal-safe: the one way a caveat
 * is printed in the text views. */
void fsb_caveat_put(FILE *out, const struct fsb_caveat *c);

#endif
