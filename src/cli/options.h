/*
 * Option parsing shared by the commands: each parser checks one value and,
 * on failure, prints the one-line usage error itself and returns
 * FSB_EXIT_USAGE (2); on success it returns 0.
 */
#ifndef FSB_CLI_OPTIONS_H
#define FSB_CLI_OPTIONS_H
#include <stdbool.h>
#include <stdint.h>

#include "workloads/workload.h"

enum fsb_progress { FSB_PROGRESS_AUTO, FSB_PROGRESS_ALWAYS, FSB_PROGRESS_NEVER };

/* A size with k/m/g/t suffix, > 0. */
int fsb_opt_size(const char *opt, const char *arg, uint64_t *out);
/* A decimal integer in [min, max]. */
int fsb_opt_count(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out);
/* Seconds: "0.5", "2", "500ms", "1.5s"; > 0 and at most a day. */
int fsb_opt_seconds(const char *opt, const char *arg, uint64_t *out_ns);
/* drop | direct | keep */
int fsb_opt_cache(const char *arg, enum fsb_cache_mode *out);
/* auto | always | never */
int fsb_opt_progress(const char *arg, enum fsb_progress *out);
/* Whether to show progress lines on stderr for this setting. */
bool fsb_progress_enabled(enum fsb_progress p);

/*
 * The options every reporting command (run, lifecycle) shares: --label,
 * --seed, --format, --output, --progress, --quiet. A command lists them in
 * its long options with FSB_REPORT_LONG_OPTS ("l:f:o:q" in its short
 * ones), points the fields below at its own plan, and passes every option
 * its switch does not know to fsb_opt_report().
 */
enum { FSB_OPT_SEED = 0x200, FSB_OPT_PROGRESS };

#define FSB_REPORT_LONG_OPTS                                          \
	{ "label", required_argument, NULL, 'l' },                    \
	{ "seed", required_argument, NULL, FSB_OPT_SEED },            \
	{ "format", required_argument, NULL, 'f' },                   \
	{ "output", required_argument, NULL, 'o' },                   \
	{ "progress", required_argument, NULL, FSB_OPT_PROGRESS },    \
	{ "quiet", no_argument, NULL, 'q' }

struct fsb_report_opts {
	const char **label;
	uint64_t *seed;
	const char **format;
	const char **output;
	enum fsb_progress *progress;
	bool *quiet;
};

/* Handle option c: 0 when it was one of the above, FSB_EXIT_USAGE for a
 * bad value (described), -1 when c is not a report option. */
int fsb_opt_report(int c, const char *arg, const struct fsb_report_opts *o);

/* "fsbench: invalid OPT 'ARG': expected WANT"; returns FSB_EXIT_USAGE. */
int fsb_opt_bad(const char *opt, const char *arg, const char *want);
/* getopt's '?' or ':' for argv: describes it; returns FSB_EXIT_USAGE. */
int fsb_opt_unknown(int argc, char **argv, int c);

/* A seed for runs without --seed (time and pid; recorded in the result). */
uint64_t fsb_default_seed(void);

#endif
