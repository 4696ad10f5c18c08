/* fsbench run's parser (src/cli/run.c). */
#ifndef FSB_CLI_RUN_H
#define FSB_CLI_RUN_H
#include "cli/options.h"
#include "core/run.h"

/* `fsbench run` as parsed: the plan, DIR, and how to show the result. */
struct fsb_run_cli {
	struct fsb_run_plan plan;
	const char *dir;      /* default "." */
	struct fsb_common co; /* format (default text), output, --help/--version */
};

/*
 * Parse `run [OPTIONS] [DIR]` (argv[0] the command word) into out, the
 * plan checked (fsb_run_plan_check). nest: a matrix line (options the
 * matrix sets, and DIR, refused), or NULL. Pure. Returns 0 (also for
 * --help/--version: out->co says which), or FSB_EXIT_USAGE after one line.
 */
int fsb_run_parse(int argc, char **argv, const struct fsb_cli_nest *nest, struct fsb_run_cli *out);

#endif
