/* fsbench lifecycle's parser (src/cli/lifecycle.c). */
#ifndef FSB_CLI_LIFECYCLE_H
#define FSB_CLI_LIFECYCLE_H
#include "cli/options.h"
#include "core/lifecycle.h"

/* `fsbench lifecycle` as parsed. */
struct fsb_lc_cli {
	struct fsb_lc_plan plan;
	struct fsb_common co; /* format (default text), output, --help/--version */
};

/*
 * Parse `lifecycle [OPTIONS]` (argv[0] the command word) into out. With
 * nest (a matrix line) the options the matrix sets are refused and the
 * plan is left for the caller to complete (its filesystem, template,
 * target) and check with fsb_lc_plan_check; without, it is checked here.
 * Pure. Returns 0 (also for --help/--version: out->co says which), or
 * FSB_EXIT_USAGE after one line.
 */
int fsb_lc_parse(int argc, char **argv, const struct fsb_cli_nest *nest, struct fsb_lc_cli *out);

#endif
