/*
 * Child processes that die with fsbench. Every process fsbench starts
 * (seekers, mkfs and the flash tools, QEMU, ldd) asks the kernel for
 * SIGKILL when its parent dies (PR_SET_PDEATHSIG), so that a SIGKILL of
 * fsbench, which no handler sees, cannot leave them running.
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

enum {
	FSB_SPAWN_SEARCH_PATH = 1,   /* path is a bare name looked up in $PATH */
	FSB_SPAWN_NEW_PGROUP = 2,    /* the child leads a process group of its own */
};

/*
 * Start the program at path with argv and the current environment:
 * fork, fsb_child_die_with_parent, every signal fsbench catches or ignores
 * back to its default and an empty signal mask, stdin/stdout/stderr from
 * fds[0..2] (-1: /dev/null), then exec. Descriptors fsbench opened with
 * O_CLOEXEC are not inherited. Returns the child's PID (the caller reaps
 * it), or -errno when it could not be started, exec's errno included
 * (ENOENT, EACCES...). Not described: the caller names the program.
 */
pid_t fsb_spawn(const char *path, char *const argv[], const int fds[3], unsigned flags);

#endif
