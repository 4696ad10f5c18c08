/*
 * Other programs: command lines split into words, programs found, started
 * and waited for.
 *
 * Child processes die with fsbench. Every process fsbench starts
 * (seekers, mkfs and the flash tools, QEMU, ldd) asks the kernel for
 * SIGKILL when its parent dies (PR_SET_PDEATHSIG), so that a SIGKILL of
 * fsbench, which no handler sees, cannot leave them running.
 *
 * Words: a command line (an mkfs template, a matrix `run =` line) is split
 * like a shell would split it, but nothing else a shell does happens: no
 * variables, globs, pipes, redirections or command separators. ; | & $ `
 * > < are ordinary characters of a word.
 */
#ifndef FSB_UTIL_SPAWN_H
#define FSB_UTIL_SPAWN_H
#include <sys/types.h>

/*
 * In a child right after fork(): have the kernel SIGKILL this process when
 * the parent whose PID was `parent` (getpid() before the fork) dies. If it
 * died before the request was made (the request would never fire), exit
 * now with status 127. Async-signal-safe.
 */
void fsb_child_die_with_parent(pid_t parent);

/*
 * In a child right after fork() that does not exec: close every descriptor
 * from 3 up but `keep` (-1: none). A process with several threads forks
 * with all of them open, the other threads' pipes included, and a pipe
 * whose reader waits for its end-of-file (a seeker's gate) must not stay
 * open in another job's children. Async-signal-safe.
 */
void fsb_child_close_fds(int keep);

/*
 * What fsb_child_close_fds falls back to where close_range(2) is refused
 * (ENOSYS, EPERM under seccomp): close the descriptors from 3 up but keep
 * that /proc/self/fd lists. Returns 0, or -errno when /proc/self/fd
 * cannot be read (then nothing, or not all, was closed). Async-signal-
 * safe. Exposed for tests.
 */
int fsb_child_close_fds_proc(int keep);

enum {
	FSB_SPAWN_SEARCH_PATH = 1, /* path is a bare name looked up in $PATH */
	FSB_SPAWN_NEW_PGROUP = 2,  /* the child leads a process group of its own */
};

/*
 * Start the program at path with argv and the current environment:
 * fork, fsb_child_die_with_parent, every signal fsbench catches or ignores
 * back to its default and an empty signal mask, stdin/stdout/stderr from
 * fds[0..2] (-1: /dev/null), every other descriptor closed
 * (fsb_child_close_fds), then exec: the program inherits none of fsbench's
 * descriptors but those three. Returns the child's PID (the caller reaps
 * it), or -errno when it could not be started, exec's errno included
 * (ENOENT, EACCES...). Not described: the caller names the program.
 */
pid_t fsb_spawn(const char *path, char *const argv[], const int fds[3], unsigned flags);

/*
 * Split a command line into words. Outside quotes, blanks (space, tab,
 * newline) separate words and a backslash makes the next character
 * literal. '...' is literal. Inside "...", a backslash escapes only " \ $ `
 * and newline, as in POSIX sh. "" and '' give an empty word.
 * Pure. Returns the word count (>= 1) and a NULL-terminated malloc'ed
 * vector in *out (free with fsb_words_free), or -EINVAL with *why set to a
 * static description (unterminated quote, trailing backslash, empty),
 * -ENOMEM.
 */
int fsb_words_split(const char *line, char ***out, const char **why);

/* Free a NULL-terminated vector of malloc'ed words (NULL is fine). */
void fsb_words_free(char **words);

/*
 * Find an executable: prog itself when it contains '/', else the first
 * match in $PATH, then /sbin and /usr/sbin (where mkfs tools live but
 * root's PATH under sudo or cron may not reach). Writes the path to out.
 * Returns 0 or -ENOENT (not described: the caller knows the context).
 */
int fsb_which(const char *prog, char *out, size_t len);

/*
 * Run the program at `path` with argv (argv[0] as the user wrote it),
 * stdin and stdout on /dev/null, stderr into a pipe, and wait for it.
 * On failure prints "fsbench: WHAT failed: '<argv[0]>' exited with status
 * N" followed by what the tool wrote on stderr (terminal-safe). When a
 * stop signal arrives (util/signals.h) the tool is sent SIGTERM, reaped,
 * and -EINTR returned without a message.
 * Returns 0, -EINTR, -EIO (the tool failed) or -errno (could not start it).
 */
int fsb_tool_run(const char *what, const char *path, char *const *argv);

#endif
