#include "util/spawn.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/strbuf.h"
#include "util/text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Enough of a failing tool's stderr to explain it; the rest is dropped. */
#define STDERR_MAX (64u << 10)

extern char **environ;

int fsb_child_close_fds_proc(int keep)
{
	/*
	 * Between fork and exec (or _exit) a child of a process with threads
	 * may call only async-signal-safe functions: another thread may have
	 * held the malloc lock at the fork, so opendir/readdir (which
	 * allocate) could hang. open(2) and getdents64(2) into a buffer on
	 * the stack are plain system calls. The directory is opened here, in
	 * the child: /proc/self opened before the fork would be the parent's.
	 */
	char buf[4096] __attribute__((aligned(8)));
	int fds[sizeof(buf) / 24 + 1]; /* a record takes at least 24 bytes */
	int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;
	long n;

	if (dfd < 0)
		return -errno;
	/*
	 * Each batch of records is collected, then its descriptors closed:
	 * the directory's position is a descriptor number, so closing those
	 * already read does not move the ones still to come.
	 */
	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
		size_t nfds = 0;

		for (long off = 0; off < n;) {
			const struct dirent64 *d = (const struct dirent64 *)(buf + off);
			long fd = 0;
			const char *c = d->d_name;

			if (!d->d_reclen)
				break;
			off += d->d_reclen;
			for (; *c >= '0' && *c <= '9' && fd <= 0x7fffffff; c++)
				fd = fd * 10 + (*c - '0');
			/* "." and "..", and anything not a number, are no descriptor. */
			if (*c || c == d->d_name || fd > 0x7fffffff)
				continue;
			if (fd >= 3 && fd != keep && fd != dfd &&
			    nfds < sizeof(fds) / sizeof(fds[0]))
				fds[nfds++] = (int)fd;
		}
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
	}
	if (n < 0)
		err = -errno;
	close(dfd);
	return err;
}

void fsb_child_close_fds(int keep)
{
	long max;

	/* close_range(2): one system call, whatever the descriptor limit. */
	if ((keep <= 3 || !syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u)) &&
	    !syscall(SYS_close_range, keep >= 3 ? (unsigned)keep + 1 : 3u, ~0u, 0u))
		return;
	/* ENOSYS before Linux 5.9, EPERM under an older seccomp profile: the
	 * descriptors /proc lists, a call for each one open, not one for each
	 * one the limit allows (a million calls under a high limit). */
	if (!fsb_child_close_fds_proc(keep))
		return;
	/* No /proc (a chroot, an early initramfs): one by one up to the limit
	 * (a descriptor left open can keep a pipe from ever ending). */
	max = sysconf(_SC_OPEN_MAX);
	for (long fd = 3; fd < (max > 0 ? max : 1024); fd++)
		if (fd != keep)
			close((int)fd);
}

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
	/* Nothing else of fsbench's: a descriptor opened without O_CLOEXEC
	 * (by a library, or inherited by fsbench itself) would otherwise stay
	 * open in the tool, a pipe's write end among them. */
	fsb_child_close_fds(report);
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

/* ---- words: a command line split as a shell would, nothing more ---- */

void fsb_words_free(char **argv)
{
	if (!argv)
		return;
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

int fsb_words_split(const char *tmpl, char ***out, const char **why)
{
	struct fsb_strvec v = { 0 };
	struct fsb_strbuf b = { 0 };
	bool in_word = false;
	const char *p = tmpl;
	int err = 0;

	*why = NULL;
	while (*p) {
		char c = *p;

		if (is_blank(c)) {
			if (in_word && (err = fsb_strvec_take(&v, &b)))
				goto out;
			in_word = false;
			p++;
			continue;
		}
		in_word = true;
		if (c == '\\') {
			if (!p[1]) {
				*why = "trailing backslash";
				err = -EINVAL;
				goto out;
			}
			if ((err = fsb_strbuf_add(&b, p + 1, 1)))
				goto out;
			p += 2;
		} else if (c == '\'') {
			const char *end = strchr(p + 1, '\'');

			if (!end) {
				*why = "unterminated single quote";
				err = -EINVAL;
				goto out;
			}
			/* An empty '' still makes the word exist. */
			if ((err = fsb_strbuf_add(&b, p + 1, (size_t)(end - p - 1))))
				goto out;
			p = end + 1;
		} else if (c == '"') {
			if ((err = fsb_strbuf_add(&b, "", 0)))
				goto out;
			for (p++; *p != '"'; p++) {
				if (!*p) {
					*why = "unterminated double quote";
					err = -EINVAL;
					goto out;
				}
				if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1]))
					p++;
				if ((err = fsb_strbuf_add(&b, p, 1)))
					goto out;
			}
			p++;
		} else {
			if ((err = fsb_strbuf_add(&b, p, 1)))
				goto out;
			p++;
		}
	}
	if (in_word && (err = fsb_strvec_take(&v, &b)))
		goto out;
	if (!v.n) {
		*why = "no program named";
		err = -EINVAL;
	}
out:
	free(b.s);
	if (err) {
		fsb_words_free(v.v);
		if (err == -ENOMEM)
			*why = "out of memory";
		return err;
	}
	*out = v.v;
	return (int)v.n;
}

/* ---- finding and running programs ---- */

static int try_dir(const char *dir, size_t dlen, const char *prog, char *out, size_t len)
{
	struct stat st;
	int n;

	/* An empty or relative PATH entry means the current directory (or
	 * one below it): root would run whatever was planted there. Only
	 * absolute directories are searched. */
	if (!dlen || dir[0] != '/')
		return -ENOENT;
	n = snprintf(out, len, "%.*s/%s", (int)dlen, dir, prog);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	/* As root, access(X_OK) is true of a directory: a regular file only. */
	return access(out, X_OK) == 0 && !stat(out, &st) && S_ISREG(st.st_mode) ? 0 : -ENOENT;
}

int fsb_which(const char *prog, char *out, size_t len)
{
	const char *path = getenv("PATH");
	const char *extra = "/sbin:/usr/sbin";

	if (!*prog)
		return -ENOENT;
	if (strchr(prog, '/')) {
		if ((size_t)snprintf(out, len, "%s", prog) >= len)
			return -ENAMETOOLONG;
		return access(out, X_OK) == 0 ? 0 : -ENOENT;
	}
	for (int pass = 0; pass < 2; pass++) {
		const char *p = pass ? extra : path;

		while (p && *p) {
			size_t dlen = strcspn(p, ":");

			if (!try_dir(p, dlen, prog, out, len))
				return 0;
			p += dlen;
			if (*p == ':')
				p++;
		}
	}
	return -ENOENT;
}

/* Read the child's stderr to EOF (keeping the first STDERR_MAX bytes). On
 * a stop request, ask the child to go and keep draining until it has. */
static void drain(int fd, pid_t pid, struct fsb_strbuf *err_text)
{
	char chunk[4096];
	bool killed = false;

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (fsb_stop_requested() && !killed) {
			kill(pid, SIGTERM);
			killed = true;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (err_text->len < STDERR_MAX) {
			size_t keep = STDERR_MAX - err_text->len;
			(void)fsb_strbuf_add(err_text, chunk, (size_t)n < keep ? (size_t)n : keep);
		}
	}
}

/* The first line a tool wrote that is not blank (its reason, before any
 * usage text: mkfs.xfs's "Filesystem must be larger than 300MB."), for
 * the one-line error; "" when it wrote none. */
static void first_line(const char *text, char *out, size_t len)
{
	size_t n;

	*out = '\0';
	while (text && *text) {
		text += strspn(text, " \t\r\n");
		n = strcspn(text, "\n");
		while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\r'))
			n--;
		if (n) {
			snprintf(out, len, "%.*s", (int)n, text);
			return;
		}
	}
}

int fsb_tool_run(const char *what, const char *path, char *const *argv)
{
	struct fsb_strbuf err_text = { 0 };
	char said[160];
	int pipefd[2] = { -1, -1 }, status = 0, err;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot run '%s': pipe", argv[0]);
		return err;
	}
	/* stdin and stdout on /dev/null, stderr into the pipe; the tool gets
	 * default dispositions (fsbench ignores SIGPIPE, and an ignored signal
	 * survives exec) and dies with fsbench if fsbench is killed. */
	pid = fsb_spawn(path, argv, (const int[3]){ -1, -1, pipefd[1] }, 0);
	err = pid < 0 ? (int)pid : 0;
	close(pipefd[1]);
	if (err) {
		fsb_err_errno(err, "cannot run '%s'", argv[0]);
		goto out;
	}
	drain(pipefd[0], pid, &err_text);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err = -errno;
			fsb_err_errno(err, "cannot wait for '%s'", argv[0]);
			goto out;
		}
		if (fsb_stop_requested())
			kill(pid, SIGTERM);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		goto out;
	/* Killed with us by the terminal's SIGINT, or by our SIGTERM. */
	if (fsb_stop_requested()) {
		err = -EINTR;
		goto out;
	}
	err = -EIO;
	first_line(err_text.s, said, sizeof(said));
	if (WIFEXITED(status))
		fsb_err("%s failed: '%s' exited with status %d%s%s", what, argv[0],
			WEXITSTATUS(status), *said ? ": " : "", said);
	else
		fsb_err("%s failed: '%s' was killed by signal %d%s%s", what, argv[0],
			WTERMSIG(status), *said ? ": " : "", said);
	if (err_text.len) {
		fflush(stdout);
		/* What the tool said, line by line, without its control bytes. */
		fsb_text_put_lines(stderr, err_text.s);
		if (err_text.s[err_text.len - 1] != '\n')
			fputc('\n', stderr);
	}
out:
	close(pipefd[0]);
	free(err_text.s);
	return err;
}
