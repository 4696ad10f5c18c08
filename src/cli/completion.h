/*
 * Shell completion for fsbench, made from the command table
 * (cli/commands.h) and each command's option table (cli/options.h): the
 * same tables the parsers read, so a new option is completed as soon as
 * it parses, with the values its kind says (files, directories, one of a
 * vocabulary, the sections of the matrix file on the command line).
 * `fsbench completion bash` prints the script; the build installs its
 * output as /usr/share/bash-completion/completions/fsbench.
 */
#ifndef FSB_CLI_COMPLETION_H
#define FSB_CLI_COMPLETION_H
#include <stdio.h>

/* "bash": the shells fsb_completion_write knows (util/vocab.h). */
const char *fsb_completion_shells(void);

/*
 * Write the completion script for shell (one of fsb_completion_shells())
 * to out. Returns 0, -EINVAL for another shell (not described), or -EIO
 * when the stream reports an error.
 */
int fsb_completion_write(FILE *out, const char *shell);

#endif
