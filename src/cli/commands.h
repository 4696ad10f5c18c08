/*
 * Command entry points. Each parses its own options (getopt_long), runs,
 * and returns the process exit status: 0 success, 1 runtime failure,
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
