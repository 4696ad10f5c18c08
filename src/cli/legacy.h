/* Until lifecycle, guest and matrix parse through fsb_cli_getopt. */
#ifndef FSB_CLI_LEGACY_H
#define FSB_CLI_LEGACY_H
#include "cli/options.h"

enum { FSB_LEGACY_SEED = 0x200, FSB_LEGACY_PROGRESS };

#define FSB_REPORT_LONG_OPTS                                          \
	{ "label", required_argument, NULL, 'l' },                    \
	{ "seed", required_argument, NULL, FSB_LEGACY_SEED },         \
	{ "format", required_argument, NULL, 'f' },                   \
	{ "output", required_argument, NULL, 'o' },                   \
	{ "progress", required_argument, NULL, FSB_LEGACY_PROGRESS }, \
	{ "quiet", no_argument, NULL, 'q' }

struct fsb_report_opts {
	const char **label;
	uint64_t *seed;
	const char **format;
	const char **output;
	enum fsb_progress *progress;
	bool *quiet;
};

int fsb_opt_report(int c, const char *arg, const struct fsb_report_opts *o);
int fsb_opt_unknown(int argc, char **argv, int c);
int fsb_opt_progress(const char *arg, enum fsb_progress *out);

#endif
