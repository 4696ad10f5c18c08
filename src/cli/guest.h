/* fsbench guest's parser (src/cli/guest.c). */
#ifndef FSB_CLI_GUEST_H
#define FSB_CLI_GUEST_H
#include "cli/lifecycle.h"
#include "cli/options.h"
#include "cli/run.h"
#include "core/guest.h"

/* Words of the inner command the host parses (the guest takes any). */
#define FSB_GUEST_MAX_WORDS 256

/* `fsbench guest` as parsed: the plan, and its inner command parsed too. */
struct fsb_guest_cli {
	struct fsb_guest_plan plan;
	struct fsb_common co; /* format (default text), output, --help/--version */
	char *inner_words[FSB_GUEST_MAX_WORDS + 1]; /* a copy getopt may permute */
	struct fsb_run_cli inner_run;		    /* the inner command, when run */
	struct fsb_lc_cli inner_lc;		    /* when lifecycle */
};

/*
 * Parse `guest [OPTIONS] -- COMMAND ARGS...` (argv[0] the command word):
 * the guest's options, then the inner command with the parser of `fsbench
 * COMMAND` (a bad inner command is a usage error here, before anything
 * boots; -f/-o in it are refused: the host renders the result). The plan
 * borrows argv. Pure. Returns 0 (also for --help/--version: out->co says
 * which), or FSB_EXIT_USAGE after one line.
 */
int fsb_guest_parse(int argc, char **argv, struct fsb_guest_cli *out);

#endif
