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

int fsb_cmd_run(int argc, char **argv);
int fsb_cmd_lifecycle(int argc, char **argv);
int fsb_cmd_matrix(int argc, char **argv);
int fsb_cmd_compare(int argc, char **argv);
int fsb_cmd_report(int argc, char **argv);
int fsb_cmd_guest(int argc, char **argv);
int fsb_cmd_clean(int argc, char **argv);

#endif
