/*
 * fsbench: argv -> command table -> exit code; nothing else. fsbench-mpi's
 * main (src/main_mpi.c) includes this file with FSB_MAIN_NO_ENTRY and
 * calls fsb_main between MPI's start and end.
 */
#include "cli/commands.h"
#include "core/registry.h"
#include "engines/engine.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/version.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: fsbench [run] [OPTIONS] [DIR]\n"
		     "       fsbench COMMAND [OPTIONS] ...\n\ncommands:\n");
	for (const struct fsb_command *c = fsb_commands; c->spec; c++)
		if (c->summary)
			fprintf(out, "  %-10s %s\n", c->spec->name, c->summary);
	fprintf(out, "\n'fsbench COMMAND --help' describes a command; see also fsbench(1).\n");
}

static int fsb_main(int argc, char **argv)
{
	if (fsb_registry_check() || fsb_engine_check())
		return FSB_EXIT_FAIL;
	if (fsb_signals_install()) {
		fsb_err("cannot install signal handlers");
		return FSB_EXIT_FAIL;
	}
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return FSB_EXIT_OK;
	}
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("%s\n", fsb_version_line());
		return FSB_EXIT_OK;
	}
	if (argc > 1 && argv[1][0] != '-') {
		const struct fsb_command *c = fsb_command_find(argv[1]);
		struct stat st;

		if (c)
			return c->fn(argc - 1, argv + 1);
		/* A bare word that is no path is a mistyped command, not a DIR. */
		if (!strchr(argv[1], '/') && stat(argv[1], &st) < 0) {
			fsb_err("unknown command '%s' (see 'fsbench --help')", argv[1]);
			return FSB_EXIT_USAGE;
		}
	}
	/* No command word: `fsbench [OPTIONS] [DIR]` is `fsbench run ...`. */
	return fsb_cmd_run(argc, argv);
}

#ifndef FSB_MAIN_NO_ENTRY
int main(int argc, char **argv)
{
	return fsb_main(argc, argv);
}
#endif
