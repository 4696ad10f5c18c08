/* fsbench: argv -> command table -> exit code; nothing else. */
#include "cli/commands.h"
#include "core/registry.h"
#include "engines/engine.h"
#include "util/error.h"
#include "util/signals.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "run", fsb_cmd_run, "throughput and metadata suites in a scratch dir under DIR" },
	{ "lifecycle", fsb_cmd_lifecycle,
	  "mkfs, mount, umount, cold copy and read on a block device" },
	{ "matrix", fsb_cmd_matrix,
	  "build each setup of CONFIG.ini on loop devices, measure, compare" },
	{ "compare", fsb_cmd_compare, "result files side by side, speed relative to the first" },
	{ "report", fsb_cmd_report, "result files as one self-contained HTML page with charts" },
	{ "guest", fsb_cmd_guest,
	  "run a command inside a QEMU guest (filesystems the host lacks)" },
	{ "clean", fsb_cmd_clean,
	  "remove what killed fsbench runs left (scratch dirs, mounts, loops)" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: fsbench [run] [OPTIONS] [DIR]\n"
		     "       fsbench COMMAND [OPTIONS] ...\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'fsbench COMMAND --help' describes a command; see also fsbench(1).\n");
}

int main(int argc, char **argv)
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
		printf("fsbench %s\n", FSB_VERSION);
		return FSB_EXIT_OK;
	}
	if (argc > 1 && argv[1][0] != '-') {
		struct stat st;

		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[1], commands[i].name))
				return commands[i].fn(argc - 1, argv + 1);
		/* A bare word that is no path is a mistyped command, not a DIR. */
		if (!strchr(argv[1], '/') && stat(argv[1], &st) < 0) {
			fsb_err("unknown command '%s' (see 'fsbench --help')", argv[1]);
			return FSB_EXIT_USAGE;
		}
	}
	/* No command word: `fsbench [OPTIONS] [DIR]` is `fsbench run ...`. */
	return fsb_cmd_run(argc, argv);
}
