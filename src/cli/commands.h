/*
 * The commands: each turns argv into a plan with a pure parse function
 * (declared in cli/COMMAND.h, for the unit tests and for the commands that
 * parse another's command line: matrix lines, guest's inner command),
 * calls the plan's executor in src/core/, and prints the result. Each
 * fsb_cmd_* returns the process exit status: 0 success, 1 runtime failure,
 * 2 usage error, 128+signo when a stop signal (util/signals.h) stopped it.
 */
#ifndef FSB_CLI_COMMANDS_H
#define FSB_CLI_COMMANDS_H
#include "cli/options.h"

int fsb_cmd_run(int argc, char **argv);
int fsb_cmd_lifecycle(int argc, char **argv);
int fsb_cmd_matrix(int argc, char **argv);
int fsb_cmd_compare(int argc, char **argv);
int fsb_cmd_report(int argc, char **argv);
int fsb_cmd_show(int argc, char **argv);
int fsb_cmd_guest(int argc, char **argv);
int fsb_cmd_clean(int argc, char **argv);
int fsb_cmd_completion(int argc, char **argv);

/* Each command's options, as its parser reads them (in its own file). */
extern const struct fsb_cmd_spec fsb_run_spec, fsb_lc_spec, fsb_matrix_spec, fsb_compare_spec,
	fsb_report_spec, fsb_show_spec, fsb_guest_spec, fsb_clean_spec, fsb_completion_spec;

/* A command of the command table. */
struct fsb_command {
	const struct fsb_cmd_spec *spec; /* its name and options */
	int (*fn)(int argc, char **argv);
	const char *summary; /* for 'fsbench --help'; NULL: a hidden command */
};

/*
 * The command table, in 'fsbench --help' order, ended by an entry whose
 * spec is NULL: main.c dispatches through it, the shell completion
 * (cli/completion.h) is made from it.
 */
extern const struct fsb_command fsb_commands[];

/* The command called name (hidden ones too), or NULL. */
const struct fsb_command *fsb_command_find(const char *name);

#endif
