/*
 * One QEMU boot. Policy: no default devices, no monitor, no display, no
 * reboot (a guest that panics or reboots makes QEMU exit), the console on
 * a pipe, results on a second serial port into a file.
 */
#include "device/qemu.h"
#include "stats/clock.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGS 64

static int push(char **v, size_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int push(char **v, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (*n + 1 >= MAX_ARGS)
		return -E2BIG;
	va_start(ap, fmt);
	r = vasprintf(&v[*n], fmt, ap);
	va_end(ap);
	if (r < 0) {
		v[*n] = NULL;
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

int fsb_qemu_argv(const struct fsb_qemu_cfg *cfg, char ***out)
{
	char **v = calloc(MAX_ARGS, sizeof(*v));
	size_t n = 0;
	int err = 0;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	err |= push(v, &n, "%s", cfg->qemu);
	err |= push(v, &n, "-nodefaults");
	err |= push(v, &n, "-no-user-config");
	err |= push(v, &n, "-display");
	err |= push(v, &n, "none");
	err |= push(v, &n, "-monitor");
	err |= push(v, &n, "none");
	err |= push(v, &n, "-no-reboot");
	err |= push(v, &n, "-accel");
	err |= push(v, &n, "%s", cfg->accel);
	/* Under KVM the guest sees the host's CPU; TCG keeps QEMU's default
	 * model, which a distribution kernel boots on. */
	if (!strcmp(cfg->accel, "kvm")) {
		err |= push(v, &n, "-cpu");
		err |= push(v, &n, "host");
	}
	err |= push(v, &n, "-m");
	err |= push(v, &n, "%u", cfg->memory_mb);
	err |= push(v, &n, "-smp");
	err |= push(v, &n, "%u", cfg->cpus);
	err |= push(v, &n, "-kernel");
	err |= push(v, &n, "%s", cfg->kernel);
	err |= push(v, &n, "-initrd");
	err |= push(v, &n, "%s", cfg->initrd);
	err |= push(v, &n, "-append");
	err |= push(v, &n, "%s", cfg->append);
	err |= push(v, &n, "-serial");
	err |= push(v, &n, "stdio");
	err |= push(v, &n, "-serial");
	err |= push(v, &n, "file:%s", cfg->result_path);
	for (size_t i = 0; i < cfg->ndisks && i < FSB_QEMU_MAX_DISKS; i++) {
		err |= push(v, &n, "-drive");
		/* A ',' in a path would be read as the next drive option. */
		if (strchr(cfg->disks[i], ','))
			err |= -EINVAL;
		err |= push(v, &n, "file=%s,format=raw,if=virtio%s", cfg->disks[i],
			    cfg->snapshot[i] ? ",snapshot=on" : "");
	}
	if (err) {
		fsb_qemu_argv_free(v);
		return err == -EINVAL ? -EINVAL : -ENOMEM;
	}
	*out = v;
	return (int)n;
}

void fsb_qemu_argv_free(char **argv)
{
	if (!argv)
		return;
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

void fsb_qemu_scan_init(struct fsb_qemu_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->exit_status = -1;
}

static void end_line(struct fsb_qemu_scan *s)
{
	const char *m;
	size_t slot;

	s->line[s->len] = '\0';
	/* The serial console ends lines with \r\n. */
	while (s->len && (s->line[s->len - 1] == '\r'))
		s->line[--s->len] = '\0';
	if (strstr(s->line, FSB_QEMU_READY))
		s->ready = true;
	else if ((m = strstr(s->line, FSB_QEMU_EXIT)))
		s->exit_status = (int)(strtoul(m + strlen(FSB_QEMU_EXIT), NULL, 10) & 0xff);
	if (strstr(s->line, "Kernel panic"))
		s->panic = true;
	if (s->len) {
		if (s->ntail < FSB_QEMU_TAIL_LINES) {
			slot = (s->first + s->ntail++) % FSB_QEMU_TAIL_LINES;
		} else {
			slot = s->first;
			s->first = (s->first + 1) % FSB_QEMU_TAIL_LINES;
		}
		memcpy(s->tail[slot], s->line, s->len + 1);
	}
	s->len = 0;
}

void fsb_qemu_scan_feed(struct fsb_qemu_scan *s, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			end_line(s);
			continue;
		}
		/* A longer line is cut: the markers are at its start. */
		if (s->len + 1 < sizeof(s->line))
			s->line[s->len++] = buf[i];
	}
}

static pid_t spawn(char **argv, int *rfd)
{
	int pipefd[2];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	/* QEMU leads its own process group, so the terminal's SIGINT does not
	 * reach it: we kill it ourselves, after which the cleanup is ours too.
	 * It dies with fsbench (PR_SET_PDEATHSIG) if fsbench is killed. */
	pid = fsb_spawn(argv[0], argv, (const int[3]){ -1, pipefd[1], pipefd[1] },
			FSB_SPAWN_NEW_PGROUP);
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		return pid;
	}
	*rfd = pipefd[0];
	return pid;
}

int fsb_qemu_run(const struct fsb_qemu_cfg *cfg, uint64_t timeout_ns, uint64_t ready_ns, bool echo,
		 struct fsb_qemu_outcome *out)
{
	struct fsb_qemu_scan *s = malloc(sizeof(*s));
	char **argv = NULL, buf[4096];
	uint64_t t0 = fsb_clock_ns(), now;
	int fd = -1, status = 0, err;
	bool killed = false, eof = false;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	out->guest_status = -1;
	if (!s)
		return -ENOMEM;
	fsb_qemu_scan_init(s);
	if ((err = fsb_qemu_argv(cfg, &argv)) < 0) {
		fsb_err_errno(err, "guest: cannot build the QEMU command line");
		goto out;
	}
	pid = spawn(argv, &fd);
	if (pid < 0) {
		err = (int)pid;
		fsb_err_errno(err, "guest: cannot run '%s'", cfg->qemu);
		goto out;
	}
	err = 0;
	out->end = FSB_QEMU_NO_MARKER;
	while (!eof) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		now = fsb_clock_ns() - t0;
		if (!killed) {
			enum fsb_qemu_end why = FSB_QEMU_NO_MARKER;

			if (fsb_stop_requested())
				why = FSB_QEMU_STOPPED;
			else if (s->panic)
				why = FSB_QEMU_PANIC;
			else if (now >= timeout_ns)
				why = FSB_QEMU_TIMEOUT;
			else if (ready_ns && !s->ready && now >= ready_ns)
				why = FSB_QEMU_NOT_READY;
			if (why != FSB_QEMU_NO_MARKER) {
				out->end = why;
				kill(pid, SIGKILL);
				killed = true;
			}
		}
		/* Short ticks: a signal or a deadline is noticed within 100 ms. */
		if (poll(&p, 1, 100) <= 0)
			continue;
		r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			eof = true;
			break;
		}
		if (echo)
			(void)!write(2, buf, (size_t)r);
		fsb_qemu_scan_feed(s, buf, (size_t)r);
		if (s->ready && !out->ready_ns)
			out->ready_ns = fsb_clock_ns() - t0;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			break;
		kill(pid, SIGKILL);
	}
	out->wall_ns = fsb_clock_ns() - t0;
	out->qemu_status = status;
	if (s->len)
		fsb_qemu_scan_feed(s, "\n", 1);
	if (!killed && s->panic)
		out->end = FSB_QEMU_PANIC;
	else if (!killed && s->exit_status >= 0) {
		out->end = FSB_QEMU_EXITED;
		out->guest_status = s->exit_status;
	}
	for (size_t i = 0; i < s->ntail; i++)
		memcpy(out->tail[i], s->tail[(s->first + i) % FSB_QEMU_TAIL_LINES],
		       sizeof(out->tail[i]));
	out->ntail = s->ntail;
out:
	if (fd >= 0)
		close(fd);
	fsb_qemu_argv_free(argv);
	free(s);
	return err;
}
