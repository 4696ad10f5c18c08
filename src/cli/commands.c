/* The command table (cli/commands.h): one entry per command word. */
#include "cli/commands.h"

#include <string.h>

const struct fsb_command fsb_commands[] = {
	{ &fsb_run_spec, fsb_cmd_run, "throughput and metadata suites in a scratch dir under DIR" },
	{ &fsb_lc_spec, fsb_cmd_lifecycle,
	  "mkfs, mount, umount, cold copy and read on a block device" },
	{ &fsb_matrix_spec, fsb_cmd_matrix,
	  "build each setup of CONFIG.ini on loop devices, measure, compare" },
	{ &fsb_compare_spec, fsb_cmd_compare,
	  "result files side by side, speed relative to the first" },
	{ &fsb_report_spec, fsb_cmd_report,
	  "result files as one self-contained HTML page with charts" },
	{ &fsb_show_spec, fsb_cmd_show, "render a saved result again, in any view that fits it" },
	{ &fsb_guest_spec, fsb_cmd_guest,
	  "run a command inside a QEMU guest (filesystems the host lacks)" },
	{ &fsb_clean_spec, fsb_cmd_clean,
	  "remove what killed fsbench runs left (scratch dirs, mounts, loops)" },
	/* Hidden: the build runs it to make the installed completion file. */
	{ &fsb_completion_spec, fsb_cmd_completion, NULL },
	{ NULL, NULL, NULL },
};

const struct fsb_command *fsb_command_find(const char *name)
{
	for (const struct fsb_command *c = fsb_commands; c->spec; c++)
		if (!strcmp(c->spec->name, name))
			return c;
	return NULL;
}
