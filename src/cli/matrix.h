/* fsbench matrix's parser (src/cli/matrix.c). */
#ifndef FSB_CLI_MATRIX_H
#define FSB_CLI_MATRIX_H
#include "cli/options.h"
#include "core/matrix.h"
#include "report/matrix.h"
#include "report/views.h"

/* `fsbench matrix` as parsed; the file named is read afterwards. */
struct fsb_matrix_cli {
	struct fsb_matrix_plan plan;	       /* fail_fast, keep_images, progress; no setups yet */
	struct fsb_common co;		       /* format (default text), output, --help/--version */
	const char *config;		       /* CONFIG.ini */
	const char *only;		       /* --only LABELS, NULL: every setup */
	const char *sets[FSB_MATRIX_MAX_SETS]; /* --set items, in order */
	size_t nsets;
	const struct fsb_view *view; /* the --format's view */
};

/*
 * Parse `matrix [OPTIONS] CONFIG.ini` (argv[0] the command word) into out
 * (zeroed here). Pure. Returns 0 (also for --help/--version: out->co says
 * which), or FSB_EXIT_USAGE after one line.
 */
int fsb_matrix_parse(int argc, char **argv, struct fsb_matrix_cli *out);

#endif
