#include "util/spawn.h"
#include "util/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void fsb_child_die_with_parent(pid_t parent)
{
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* The parent may have died between fork and prctl: then we were
	 * reparented already and the death signal will never come. */
	if (getppid() != parent)
		_exit(127);
}

/* Put fd on target (0, 1, 2) without close-on-exec. */
static int place(int fd, int target)
{
	if (fd == target)
		return fcntl(fd, F_SETFD, 0);
	return dup2(fd, target) < 0 ? -1 : 0;
}

/* The child: never returns. Its exec errno goes back through report. */
static void child(const char *path, char *const argv[], const int fds[3], unsigned flags,
		  pid_t parent, int report)
{
	int devnull = -1, err;

	fsb_child_die_with_parent(parent);
	fsb_signals_default();
	if ((flags & FSB_SPAWN_NEW_PGROUP) && setpgid(0, 0) < 0)
		goto fail;
	for (int i = 0; i < 3; i++) {
		int fd = fds[i];

		if (fd < 0) {
			if (devnull < 0)
				devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
			if (devnull < 0)
				goto fail;
			fd = devnull;
		}
		if (place(fd, i) < 0)
			goto fail;
	}
	if (flags & FSB_SPAWN_SEARCH_PATH)
		execvp(path, argv);
	else
		execve(path, argv, environ);
fail:
	err = errno;
	(void)!write(report, &err, sizeof(err));
	_exit(127);
}

pid_t fsb_spawn(const char *path, char *const argv[], const int fds[3], unsigned flags)
{
	pid_t parent = getpid(), pid;
	int report[2], err = 0;
	ssize_t n;

	/* Close-on-exec: a successful exec closes it, so the parent reads EOF;
	 * a failed one writes its errno first. */
	if (pipe2(report, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(report[0]);
		close(report[1]);
		return err;
	}
	if (pid == 0) {
		close(report[0]);
		child(path, argv, fds, flags, parent, report[1]);
	}
	close(report[1]);
	do
		n = read(report[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == (ssize_t)sizeof(err)) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return -(err ? err : ENOEXEC);
	}
	return pid;
}
