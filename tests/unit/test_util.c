/*
 * Unit tests: size parsing and formatting, scratch directories, stop
 * signals, growable strings, child processes that die with their parent,
 * terminal-safe text, vocabularies, the version line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/io.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/size.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/version.h"
#include "util/vocab.h"

/* stderr into a temporary file while fn runs; what was written, in buf. */
static void stderr_of(void (*fn)(void *), void *arg, char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	fn(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
}

struct scoped {
	struct fsb_error outer, inner;
	int rc;
};

static void nested_scopes(void *arg)
{
	struct scoped *s = arg;
	struct fsb_err_scope a, b;

	fsb_err_capture_begin(&a, &s->outer, false);
	fsb_err("first, \x1b[2J seen by the outer scope");
	fsb_err_capture_begin(&b, &s->inner, true);
	fsb_err_errno(-ENOENT, "inner %d", 1);
	fsb_err("inner 2");
	fsb_warn("a warning is never captured");
	s->rc = fsb_err_capture_end(&b, -ENOENT);
	/* Held, then dropped: neither printed nor captured. */
	fsb_err_hold();
	fsb_err("held and dropped");
	fsb_err_release(0);
	fsb_err_capture_end(&a, -EIO);
	fsb_err("after the scopes");
}

static void held_and_printed(void *arg)
{
	struct scoped *s = arg;
	struct fsb_err_scope a;

	fsb_err_capture_begin(&a, &s->outer, false);
	fsb_err_hold();
	fsb_err("held one");
	fsb_err("held two");
	fsb_err_release(1);
	s->rc = fsb_err_capture_end(&a, 0);
}

/* A quiet scope with a line: the whole first line, longer than a
 * struct fsb_error holds, and nothing printed. */
static void whole_line(void *arg)
{
	char *line = arg, path[900];
	struct fsb_err_scope a;

	memset(path, 'p', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	fsb_err_capture_begin(&a, NULL, true);
	fsb_err_capture_line(&a, line, FSB_ERR_LINE_MAX);
	fsb_err_errno(-ENOSPC, "write: cannot flush '%s'", path);
	fsb_err("a second error, not kept");
	fsb_err_capture_end(&a, 0);
}

static void error_capture_line(void **state)
{
	char err[64], *line = malloc(FSB_ERR_LINE_MAX);

	(void)state;
	assert_non_null(line);
	stderr_of(whole_line, line, err, sizeof(err));
	assert_string_equal(err, "");
	assert_true(strlen(line) > sizeof(((struct fsb_error *)0)->msg));
	assert_true(!strncmp(line, "write: cannot flush 'ppp", 24));
	assert_string_equal(line + strlen(line) - 29, "ppp': No space left on device");
	free(line);
}

static void error_capture_scopes(void **state)
{
	struct scoped s;
	char err[2048];

	(void)state;
	memset(&s, 0, sizeof(s));
	stderr_of(nested_scopes, &s, err, sizeof(err));
	/* The outer scope has the first error of everything inside it, made
	 * terminal-safe; the quiet inner scope kept its own first one. */
	assert_string_equal(s.outer.msg, "first, \\x1b[2J seen by the outer scope");
	assert_int_equal(s.outer.code, -EIO);
	assert_string_equal(s.inner.msg, "inner 1: No such file or directory");
	assert_int_equal(s.inner.code, -ENOENT);
	assert_int_equal(s.rc, -ENOENT);
	/* Printed: what no quiet scope covered, the warning, not what was dropped. */
	assert_string_equal(err, "fsbench: first, \\x1b[2J seen by the outer scope\n"
				 "fsbench: warning: a warning is never captured\n"
				 "fsbench: after the scopes\n");

	/* Released with print: printed and captured, in order. */
	memset(&s, 0, sizeof(s));
	stderr_of(held_and_printed, &s, err, sizeof(err));
	assert_string_equal(err, "fsbench: held one\nfsbench: held two\n");
	assert_string_equal(s.outer.msg, "held one");
	assert_int_equal(s.outer.code, 0);

	/* A failure that described nothing still says what it was. */
	{
		struct fsb_err_scope a;

		fsb_error_clear(&s.outer);
		fsb_err_capture_begin(&a, &s.outer, true);
		fsb_error_step(&s.outer, "mount %s", "x");
		assert_int_equal(fsb_err_capture_end(&a, -EBUSY), -EBUSY);
		assert_string_equal(s.outer.step, "mount x");
		assert_string_equal(s.outer.msg, strerror(EBUSY));
	}

	/* An own scope's errors are its own: the outer scope sees only the
	 * errors after it, and nothing of it is printed (quiet). */
	{
		struct fsb_err_scope a, b;

		fsb_error_clear(&s.outer);
		fsb_error_clear(&s.inner);
		fsb_err_capture_begin(&a, &s.outer, true);
		fsb_err_capture_begin(&b, &s.inner, true);
		fsb_err_capture_own(&b);
		fsb_err("forgiven");
		fsb_err_capture_end(&b, -EIO);
		fsb_err("the real one");
		fsb_err_capture_end(&a, -ENOSPC);
		assert_string_equal(s.inner.msg, "forgiven");
		assert_string_equal(s.outer.msg, "the real one");
	}
}

static void size_parse_good(void **state)
{
	uint64_t v;
	(void)state;
	assert_int_equal(fsb_size_parse("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(fsb_size_parse("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(fsb_size_parse("8k", &v), 0);
	assert_int_equal(v, 8192);
	assert_int_equal(fsb_size_parse("8K", &v), 0);
	assert_int_equal(v, 8192);
	assert_int_equal(fsb_size_parse("512m", &v), 0);
	assert_int_equal(v, 512ull << 20);
	assert_int_equal(fsb_size_parse("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(fsb_size_parse("1t", &v), 0);
	assert_int_equal(v, 1ull << 40);
	assert_int_equal(fsb_size_parse("4KiB", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(fsb_size_parse("4kb", &v), 0);
	assert_int_equal(v, 4096);
}

static void size_parse_bad(void **state)
{
	uint64_t v = 77;
	(void)state;
	assert_int_equal(fsb_size_parse("12q", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("-1", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("+1", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("", &v), -EINVAL);
	assert_int_equal(fsb_size_parse(" 1", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("1 k", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("k", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("1.5g", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("1kk", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("99999999999999999999", &v), -ERANGE);
	assert_int_equal(fsb_size_parse("17179869184g", &v), -ERANGE);
	assert_int_equal(fsb_size_parse(NULL, &v), -EINVAL);
	assert_int_equal(v, 77); /* untouched on failure */
}

static void size_format(void **state)
{
	char b[32];
	(void)state;
	assert_string_equal(fsb_size_format_exact(512ull << 20, b, sizeof(b)), "512M");
	assert_string_equal(fsb_size_format_exact(2ull << 30, b, sizeof(b)), "2G");
	assert_string_equal(fsb_size_format_exact(1536ull << 10, b, sizeof(b)), "1536K");
	assert_string_equal(fsb_size_format_exact(100, b, sizeof(b)), "100");
	assert_string_equal(fsb_size_format_exact(0, b, sizeof(b)), "0");
	assert_string_equal(fsb_size_format_human(17, b, sizeof(b)), "17 B");
	assert_string_equal(fsb_size_format_human(1536ull << 20, b, sizeof(b)), "1.5 GiB");
	/* Up to the largest size there is ("16777216.0 TiB" before). */
	assert_string_equal(fsb_size_format_human(3ull << 49, b, sizeof(b)), "1.5 PiB");
	assert_string_equal(fsb_size_format_human(UINT64_MAX, b, sizeof(b)), "16.0 EiB");
	assert_true(fsb_is_pow2(8192));
	assert_false(fsb_is_pow2(3));
	assert_false(fsb_is_pow2(0));
}

/* "needs A, only B free": the two never read the same unless equal. */
static void size_format_pair(void **state)
{
	char a[64], b[64];
	(void)state;
	fsb_size_format_pair(21 << 20, 8 << 20, a, b, sizeof(a));
	assert_string_equal(a, "21.0 MiB");
	assert_string_equal(b, "8.0 MiB");
	/* 20.0 MiB and 20.0 MiB: exact bytes say which is more */
	fsb_size_format_pair(20979712, 20971520, a, b, sizeof(a));
	assert_string_equal(a, "20.0 MiB (20979712 bytes)");
	assert_string_equal(b, "20.0 MiB (20971520 bytes)");
	fsb_size_format_pair(20 << 20, 20 << 20, a, b, sizeof(a));
	assert_string_equal(a, "20.0 MiB");
	assert_string_equal(b, "20.0 MiB");
	/* bytes are exact already */
	fsb_size_format_pair(17, 16, a, b, sizeof(a));
	assert_string_equal(a, "17 B");
	assert_string_equal(b, "16 B");
	/* short buffers still end in NUL */
	fsb_size_format_pair(20979712, 20971520, a, b, 8);
	assert_int_equal(strlen(a), 7);
	assert_int_equal(strlen(b), 7);
}

static void scratch_lifecycle(void **state)
{
	char parent[] = "/tmp/fsb-unit.XXXXXX", a[4096], b[4096], f[4200];
	struct stat st;
	FILE *fp;
	(void)state;

	assert_non_null(mkdtemp(parent));
	assert_int_equal(fsb_scratch_create(parent, a, sizeof(a)), 0);
	assert_int_equal(fsb_scratch_create(parent, b, sizeof(b)), 0);
	assert_string_not_equal(a, b); /* two runs never collide */
	snprintf(f, sizeof(f), "%s/sub", a);
	assert_int_equal(mkdir(f, 0700), 0);
	snprintf(f, sizeof(f), "%s/sub/file", a);
	fp = fopen(f, "w");
	assert_non_null(fp);
	fputs("x", fp);
	fclose(fp);
	assert_int_equal(fsb_scratch_remove(a), 0);
	assert_int_equal(stat(a, &st), -1);
	assert_int_equal(fsb_scratch_remove(b), 0);
	assert_int_equal(rmdir(parent), 0);
	assert_int_equal(fsb_scratch_create("/nonexistent/dir", a, sizeof(a)), -ENOENT);
}

/* A directory below a scratch directory, opened without following any
 * symlink from the scratch directory down (the release of a test's file:
 * a job's directory swapped for a link to elsewhere is refused). */
static void scratch_open_dir_no_symlink(void **state)
{
	char parent[] = "/tmp/fsb-unit.XXXXXX", s[4096], p[4300], q[4300];
	struct stat st, got;
	int fd;
	(void)state;

	assert_non_null(mkdtemp(parent));
	assert_int_equal(fsb_scratch_create(parent, s, sizeof(s)), 0);
	snprintf(p, sizeof(p), "%s/rank-1", s);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/rank-1/job-0", s);
	assert_int_equal(mkdir(p, 0700), 0);
	/* The scratch directory itself, and a directory two levels down. */
	fd = fsb_scratch_open_dir(s, s);
	assert_true(fd >= 0);
	close(fd);
	fd = fsb_scratch_open_dir(s, p);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &got), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_true(got.st_ino == st.st_ino && got.st_dev == st.st_dev);
	close(fd);
	/* job-1 a symlink to a directory outside: refused, at the link. */
	snprintf(q, sizeof(q), "%s/rank-1/job-1", s);
	assert_int_equal(symlink(parent, q), 0);
	fd = fsb_scratch_open_dir(s, q);
	assert_true(fd == -ELOOP || fd == -ENOTDIR);
	/* So is a link higher up: rank-2 -> rank-1, then rank-2/job-0. */
	snprintf(q, sizeof(q), "%s/rank-2", s);
	assert_int_equal(symlink("rank-1", q), 0);
	snprintf(q, sizeof(q), "%s/rank-2/job-0", s);
	fd = fsb_scratch_open_dir(s, q);
	assert_true(fd == -ELOOP || fd == -ENOTDIR);
	/* Not below the scratch directory, or only a name that begins alike. */
	assert_int_equal(fsb_scratch_open_dir(s, parent), -EINVAL);
	snprintf(q, sizeof(q), "%sx", s);
	assert_int_equal(fsb_scratch_open_dir(s, q), -EINVAL);
	/* Nor back out of it by "..", which is no symlink (nor by "."). */
	snprintf(q, sizeof(q), "%s/rank-1/../..", s);
	assert_int_equal(fsb_scratch_open_dir(s, q), -EINVAL);
	snprintf(q, sizeof(q), "%s/./rank-1", s);
	assert_int_equal(fsb_scratch_open_dir(s, q), -EINVAL);
	assert_int_equal(fsb_scratch_remove(s), 0);
	assert_int_equal(rmdir(parent), 0);
}

/* A scratch file's size: its own, 0 when absent; a symlink planted as
 * it is not followed (its target is not the run's), nor is anything but a
 * regular file measured. */
static void scratch_file_size_no_symlink(void **state)
{
	char dir[] = "/tmp/fsb-unit.XXXXXX", p[4200], q[4200];
	int fd;
	(void)state;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(fsb_scratch_file_size(dir, "block.dat"), 0);
	snprintf(p, sizeof(p), "%s/target", dir);
	fd = open(p, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 12345), 0);
	close(fd);
	assert_int_equal(fsb_scratch_file_size(dir, "target"), 12345);
	snprintf(q, sizeof(q), "%s/block.dat", dir);
	assert_int_equal(symlink(p, q), 0);
	assert_int_equal(fsb_scratch_file_size(dir, "block.dat"), 0);
	assert_int_equal(unlink(q), 0);
	assert_int_equal(mkdir(q, 0700), 0);
	assert_int_equal(fsb_scratch_file_size(dir, "block.dat"), 0);
	assert_int_equal(rmdir(q), 0);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void atomic_write_and_read(void **state)
{
	char dir[] = "/tmp/fsb-unit.XXXXXX", path[4096], *text = NULL;
	size_t len = 0;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	assert_int_equal(fsb_write_file_atomic(path, "hello\n", 6), 0);
	assert_int_equal(fsb_read_file(path, 100, &text, &len), 0);
	assert_int_equal(len, 6);
	assert_string_equal(text, "hello\n");
	free(text);
	assert_int_equal(fsb_read_file(path, 3, &text, &len), -EFBIG);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0); /* no temp file left beside it */
}

/* Every catchable fatal signal stops the run like SIGINT: flag, not death. */
static void stop_signals(void **state)
{
	static const int stops[] = { SIGINT,  SIGTERM, SIGHUP,	SIGQUIT,   SIGUSR1,
				     SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF };
	(void)state;

	assert_int_equal(fsb_signals_install(), 0);
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		fsb_stop_signal = 0;
		assert_true(fsb_signal_stops(stops[i]));
		assert_int_equal(raise(stops[i]), 0);
		assert_int_equal(fsb_stop_signo(), stops[i]);
	}
	/* Those after which nothing can be trusted are not ours. */
	assert_false(fsb_signal_stops(SIGSEGV));
	assert_false(fsb_signal_stops(SIGBUS));
	assert_false(fsb_signal_stops(SIGABRT));
	/* A write over `ulimit -f` fails with EFBIG and is reported. */
	assert_false(fsb_signal_stops(SIGXFSZ));
	/* While the progress timer runs, SIGALRM is its tick; after, a stop. */
	fsb_stop_signal = 0;
	assert_int_equal(fsb_progress_timer_start(60000), 0);
	assert_int_equal(raise(SIGALRM), 0);
	assert_int_equal(fsb_stop_signo(), 0);
	assert_int_equal(fsb_progress_due, 1);
	fsb_progress_timer_stop();
	assert_int_equal(raise(SIGALRM), 0);
	assert_int_equal(fsb_stop_signo(), SIGALRM);
	fsb_stop_signal = 0;
}

/* The status of a child that dies of a signal its parent would only note. */
static void signals_default_in_child(void **state)
{
	int status;
	pid_t pid;
	(void)state;

	assert_int_equal(fsb_signals_install(), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fsb_signals_default();
		raise(SIGUSR1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGUSR1);
}

static pid_t spawn_sh(const char *script, const int fds[3])
{
	char *const argv[] = { "sh", "-c", (char *)script, NULL };

	return fsb_spawn("/bin/sh", argv, fds, 0);
}

static int wait_exit(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void spawn_runs_and_reports(void **state)
{
	char *const nope[] = { "nope", NULL };
	char buf[4096] = "";
	int p[2], none[3] = { -1, -1, -1 };
	sigset_t usr2, old;
	size_t len = 0;
	ssize_t n;
	pid_t pid;
	(void)state;

	pid = spawn_sh("exit 3", none);
	assert_true(pid > 0);
	assert_int_equal(wait_exit(pid), 3);
	/* exec's own errno comes back, not a child exiting 127. */
	assert_int_equal(fsb_spawn("/nonexistent/prog", nope, none, 0), -ENOENT);
	assert_int_equal(fsb_spawn("fsb-no-such-program", nope, none, FSB_SPAWN_SEARCH_PATH),
			 -ENOENT);
	/* stdout into a pipe; no signal ignored (fsbench ignores SIGPIPE) or
	 * blocked in the child. */
	assert_int_equal(fsb_signals_install(), 0);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr2, &old);
	assert_int_equal(pipe(p), 0);
	pid = spawn_sh("grep -E '^Sig(Ign|Blk):' /proc/self/status",
		       (const int[3]){ -1, p[1], -1 });
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	assert_true(pid > 0);
	while ((n = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(p[0]);
	assert_int_equal(wait_exit(pid), 0);
	/* None of the signals fsbench catches or ignores stays ignored. (What
	 * fsbench itself inherited ignored, such as the C library's reserved
	 * 32 and 33 under make, is not its doing, nor can it be undone.) */
	{
		const char *ign = strstr(buf, "SigIgn:\t");
		unsigned long long mask;

		assert_non_null(ign);
		mask = strtoull(ign + 8, NULL, 16);
		assert_false(mask & (1ull << (SIGPIPE - 1)));
		for (int sig = 1; sig < 32; sig++)
			if (fsb_signal_stops(sig))
				assert_false(mask & (1ull << (sig - 1)));
	}
	assert_non_null(strstr(buf, "SigBlk:\t0000000000000000\n"));
	/* FSB_SPAWN_NEW_PGROUP: the child leads its own group (QEMU). */
	{
		char *const argv[] = { "sh", "-c", "cut -d' ' -f5 /proc/$$/stat", NULL };
		long pgrp = 0;

		assert_int_equal(pipe(p), 0);
		pid = fsb_spawn("/bin/sh", argv, (const int[3]){ -1, p[1], -1 },
				FSB_SPAWN_NEW_PGROUP);
		close(p[1]);
		assert_true(pid > 0);
		n = read(p[0], buf, sizeof(buf) - 1);
		close(p[0]);
		assert_true(n > 0);
		buf[n] = '\0';
		pgrp = strtol(buf, NULL, 10);
		assert_int_equal(wait_exit(pid), 0);
		assert_int_equal(pgrp, pid);
	}
}

/*
 * A child started with fsb_spawn dies when its parent is SIGKILLed, which no
 * handler sees. The test process is a subreaper, so the orphan is
 * reparented here and its end can be waited for.
 */
static void spawn_dies_with_parent(void **state)
{
	int p[2], status = 0;
	pid_t mid, kid = 0;
	(void)state;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(p), 0);
	mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		char *const argv[] = { "sleep", "30", NULL };
		pid_t k = fsb_spawn("/bin/sleep", argv, (const int[3]){ -1, -1, -1 }, 0);

		(void)!write(p[1], &k, sizeof(k));
		raise(SIGKILL);
		_exit(1);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &kid, sizeof(kid)), sizeof(kid));
	close(p[0]);
	assert_true(kid > 0);
	assert_int_equal(waitpid(mid, &status, 0), mid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* Gone within 2 s (at once, really); else kill it and fail. */
	for (int i = 0; i < 200; i++) {
		if (waitpid(kid, &status, WNOHANG) == kid)
			break;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		status = -1;
	}
	if (status == -1) {
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	assert_true(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* fsb_text_put into a string. */
static char *put_str(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fsb_text_put(f, s), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* in escapes to want, which shows width characters. */
static void expect_put(const char *in, const char *want, size_t width)
{
	char *got = put_str(in), buf[256], *dup = fsb_text_dup(in);

	assert_string_equal(got, want);
	assert_int_equal(fsb_text_width(in), width);
	assert_string_equal(fsb_text_safe(in, 0, buf, sizeof(buf)), want);
	assert_non_null(dup);
	assert_string_equal(dup, want);
	/* Escaping what is already safe changes nothing. */
	free(dup);
	dup = put_str(got);
	assert_string_equal(dup, want);
	free(dup);
	free(got);
}

static void text_escapes_terminal_controls(void **state)
{
	(void)state;
	/* OSC: retitle the window, ended by BEL. */
	expect_put("a\x1b]0;pwned\x07z", "a\\x1b]0;pwned\\x07z", 18);
	/* CSI: clear the screen. */
	expect_put("\x1b[2Jlabel", "\\x1b[2Jlabel", 12);
	/* A raw 0x9b byte (8-bit CSI), not valid UTF-8 on its own. */
	expect_put("x\x9b"
		   "2Jy",
		   "x\\x9b2Jy", 8);
	/* U+009B as UTF-8 (C2 9B), and U+0085 (NEL). */
	expect_put("x\xc2\x9b"
		   "2J\xc2\x85",
		   "x\\u009b2J\\u0085", 15);
	/* Bidirectional controls (U+202E, U+2066, U+061C), which reorder
	 * what follows; U+2010 (a hyphen) beside them is kept. */
	expect_put("a\xe2\x80\xae"
		   "b\xe2\x81\xa6"
		   "c\xd8\x9c"
		   "d\xe2\x80\x90",
		   "a\\u202eb\\u2066c\\u061cd\xe2\x80\x90", 23);
	/* Valid UTF-8 text is kept: U+00A0 and above are not controls. */
	expect_put("m\xc3\xbcller 5 \xc2\xb5s", "m\xc3\xbcller 5 \xc2\xb5s", 11);
	/* Invalid bytes: lone continuation, overlong '<', surrogate, cut short. */
	expect_put("\x80\xc0\xbc\xed\xa0\x80\xe2\x82", "\\x80\\xc0\\xbc\\xed\\xa0\\x80\\xe2\\x82",
		   32);
	/* Newline, tab, CR, DEL. */
	expect_put("a\nb\tc\rd\x7f", "a\\nb\\tc\\rd\\x7f", 14);
	expect_put("", "", 0);
	assert_int_equal(fsb_text_width(NULL), 0);
}

static void text_lines_keep_newlines(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	(void)state;

	assert_non_null(f);
	assert_int_equal(fsb_text_put_lines(f, "one\x1b[31m\ntwo\r\n"), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "one\\x1b[31m\ntwo\\r\n");
	free(buf);
}

static void text_cut_and_pad(void **state)
{
	char buf[64], small[8], *out = NULL;
	size_t len = 0;
	FILE *f;
	(void)state;

	/* At most max characters, then "..."; an escape is never split. */
	assert_string_equal(fsb_text_safe("abcdef", 4, buf, sizeof(buf)), "abcd...");
	assert_string_equal(fsb_text_safe("abcd", 4, buf, sizeof(buf)), "abcd");
	assert_string_equal(fsb_text_safe("ab\x1bz", 4, buf, sizeof(buf)), "ab...");
	assert_string_equal(fsb_text_cut("ab\x1bz", 4, buf, sizeof(buf)), "ab");
	assert_string_equal(fsb_text_cut("\xc3\xbc\xc3\xbc\xc3\xbc", 2, buf, sizeof(buf)),
			    "\xc3\xbc\xc3\xbc");
	/* A buffer too small: cut to fit, ellipsis included, NUL-terminated. */
	assert_string_equal(fsb_text_safe("abcdefghij", 0, small, sizeof(small)), "abcd...");
	assert_string_equal(fsb_text_safe("\x1b\x1b", 0, small, sizeof(small)), "\\x1b...");
	assert_string_equal(fsb_text_safe(NULL, 0, small, sizeof(small)), "");

	f = open_memstream(&out, &len);
	assert_non_null(f);
	fsb_text_pad(f, "\xc2\xb5s", 4);
	fputc('|', f);
	fsb_text_pad(f, "\x1b", -6);
	fputc('|', f);
	fsb_text_pad(f, "long", 2);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(out, "  \xc2\xb5s|\\x1b  |long");
	free(out);
}

/* fsb_utf8_clean: each byte not part of valid UTF-8 is one U+FFFD. */
static void utf8_clean_replaces_invalid_bytes(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "", "" },
		{ "plain", "plain" },
		{ "\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80" },
		/* Controls are valid UTF-8: the JSON writer escapes them. */
		{ "a\x1b\n", "a\x1b\n" },
		{ "\xff\xfe", FSB_UTF8_REPLACEMENT FSB_UTF8_REPLACEMENT },
		{ "\xc3(", FSB_UTF8_REPLACEMENT "(" },
		/* Overlong, surrogate, above U+10FFFF, cut short at the end. */
		{ "\xc0\xaf", FSB_UTF8_REPLACEMENT FSB_UTF8_REPLACEMENT },
		{ "\xed\xa0\x80x",
		  FSB_UTF8_REPLACEMENT FSB_UTF8_REPLACEMENT FSB_UTF8_REPLACEMENT "x" },
		{ "\xf4\x90\x80\x80", FSB_UTF8_REPLACEMENT FSB_UTF8_REPLACEMENT FSB_UTF8_REPLACEMENT
					      FSB_UTF8_REPLACEMENT },
		{ "ab\xe2\x82", "ab" FSB_UTF8_REPLACEMENT FSB_UTF8_REPLACEMENT },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = fsb_utf8_clean(cases[i].in);

		assert_non_null(got);
		assert_string_equal(got, cases[i].want);
		assert_true(fsb_utf8_valid(got));
		assert_int_equal(fsb_utf8_valid(cases[i].in), !strcmp(cases[i].in, cases[i].want));
		free(got);
	}
	assert_true(fsb_utf8_valid(NULL));
}

/* Base64 both ways, and only the one encoding of some bytes decodes. */
static void base64_round_trip_and_strict(void **state)
{
	static const char *const bad[] = { "A",	  "AB",	  "ABC",  "A===", "AB=C",  "AB==AB==",
					   "/w=", "//5=", "/x==", "ab c", "ab\ncd" };
	char *enc, *dec;
	size_t n;
	unsigned char all[256];
	(void)state;

	enc = fsb_base64_encode("\xff\xfe", 2);
	assert_string_equal(enc, "//4=");
	assert_int_equal(fsb_base64_decode(enc, &dec, &n), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(dec, "\xff\xfe", 2);
	free(enc);
	free(dec);
	enc = fsb_base64_encode("", 0);
	assert_string_equal(enc, "");
	assert_int_equal(fsb_base64_decode(enc, &dec, &n), 0);
	assert_int_equal(n, 0);
	free(enc);
	free(dec);
	for (size_t i = 0; i < sizeof(all); i++)
		all[i] = (unsigned char)(255 - i);
	for (size_t len = 0; len <= sizeof(all); len += 1 + len / 7) {
		enc = fsb_base64_encode(all, len);
		assert_int_equal(strlen(enc), (len + 2) / 3 * 4);
		assert_int_equal(fsb_base64_decode(enc, &dec, &n), 0);
		assert_int_equal(n, len);
		assert_memory_equal(dec, all, len);
		free(enc);
		free(dec);
	}
	assert_int_equal(fsb_base64_decode("Zm9vYmFy", &dec, &n), 0);
	assert_string_equal(dec, "foobar");
	free(dec);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(fsb_base64_decode(bad[i], &dec, &n), -EINVAL);
		assert_null(dec);
	}
}

/* ---- vocabularies ------------------------------------------------------- */

static void vocab_join_find_describe(void **state)
{
	static const char *const names[] = { "drop", "direct", "drop", "", "keep" };
	char buf[64], small[10], want[64];

	(void)state;
	/* Joined once each, the empty name left out. */
	assert_string_equal(fsb_vocab_join(names, 5, buf, sizeof(buf)), "drop|direct|keep");
	/* A name that does not fit whole is left out, never cut. */
	assert_string_equal(fsb_vocab_join(names, 5, small, sizeof(small)), "drop|keep");
	assert_int_equal(fsb_vocab_find(buf, "drop"), 0);
	assert_int_equal(fsb_vocab_find(buf, "keep"), 2);
	assert_int_equal(fsb_vocab_find(buf, "dro"), -1);
	assert_int_equal(fsb_vocab_find(buf, "drop|direct"), -1);
	assert_int_equal(fsb_vocab_find(buf, ""), -1);
	assert_int_equal(fsb_vocab_find(buf, NULL), -1);
	assert_int_equal(fsb_vocab_find("bonnie|bonnie++", "bonnie++"), 1);
	assert_string_equal(fsb_vocab_describe(buf, want, sizeof(want)), "drop, direct or keep");
	assert_string_equal(fsb_vocab_describe("hard|soft", want, sizeof(want)), "hard or soft");
	assert_string_equal(fsb_vocab_describe("bash", want, sizeof(want)), "bash");
	assert_string_equal(fsb_vocab_describe("", want, sizeof(want)), "");
	/* Cut short, still a string. */
	assert_int_equal(strlen(fsb_vocab_describe(buf, small, sizeof(small))), sizeof(small) - 1);
}

/* The growable string grows past its first size and keeps a NUL; the
 * vector takes an empty word as "" and stays NULL-terminated. */
static void strbuf_grows_and_vec_takes(void **state)
{
	struct fsb_strbuf b = { 0 };
	struct fsb_strvec v = { 0 };
	char big[100];

	(void)state;
	memset(big, 'x', sizeof(big));
	assert_int_equal(fsb_strvec_take(&v, &b), 0);
	assert_int_equal(fsb_strbuf_add(&b, "ab", 2), 0);
	assert_int_equal(fsb_strbuf_add(&b, big, sizeof(big)), 0);
	assert_int_equal(b.len, 102);
	assert_int_equal(b.s[102], '\0');
	assert_memory_equal(b.s, "abxxx", 5);
	assert_int_equal(fsb_strvec_take(&v, &b), 0);
	assert_null(b.s);
	assert_int_equal(b.len, 0);
	for (int i = 0; i < 20; i++) {
		assert_int_equal(fsb_strbuf_add(&b, "w", 1), 0);
		assert_int_equal(fsb_strvec_take(&v, &b), 0);
	}
	assert_int_equal(v.n, 22);
	assert_string_equal(v.v[0], "");
	assert_int_equal(strlen(v.v[1]), 102);
	assert_string_equal(v.v[21], "w");
	assert_null(v.v[22]);
	for (size_t i = 0; i < v.n; i++)
		free(v.v[i]);
	free(v.v);
}

static void version_line(void **state)
{
	const char *line = fsb_version_line(), *commit = fsb_version_commit();
	char want[128];

	(void)state;
	if (!commit[0]) {
		assert_string_equal(line, "fsbench " FSB_VERSION);
		return;
	}
	/* "fsbench 0.2.0 (git 1a2b3c4d)", or "(git 1a2b3c4d, dirty)" for
	 * "1a2b3c4d-dirty": the commit, never "-dirty" in it. */
	if (strlen(commit) > 6 && !strcmp(commit + strlen(commit) - 6, "-dirty"))
		snprintf(want, sizeof(want), "fsbench %s (git %.*s, dirty)", FSB_VERSION,
			 (int)strlen(commit) - 6, commit);
	else
		snprintf(want, sizeof(want), "fsbench %s (git %s)", FSB_VERSION, commit);
	assert_string_equal(line, want);
}

/* A descriptor the process opened without O_CLOEXEC, high up. */
static int open_at(int fd)
{
	int nul = open("/dev/null", O_RDONLY);

	assert_true(nul >= 0);
	assert_int_equal(dup2(nul, fd), fd);
	close(nul);
	return fd;
}

/* A program fsbench starts keeps none of its descriptors but 0, 1, 2,
 * close-on-exec or not. */
static void spawn_inherits_no_descriptor(void **state)
{
	char *argv[] = { "sh", "-c", "test ! -e /proc/self/fd/900", NULL };
	int status;
	pid_t pid;
	(void)state;

	open_at(900);
	pid = fsb_spawn("/bin/sh", argv, (const int[3]){ -1, -1, -1 }, 0);
	close(900);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/*
 * In a child: descriptors 900 and 901 open, then closer(901); exits 0
 * when 900 is closed and 901, 0, 1 and 2 are open.
 */
static void close_fds_keeps_only(void (*closer)(int keep))
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		open_at(900);
		open_at(901);
		closer(901);
		_exit(is_open(900) ? 1 : !is_open(901) ? 2 : !is_open(0) || !is_open(2) ? 3 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void close_by_proc(int keep)
{
	if (fsb_child_close_fds_proc(keep))
		_exit(4);
}

/* As under an older seccomp profile: close_range(2) fails with ENOSYS,
 * and fsb_child_close_fds must fall back. */
static void close_without_close_range(int keep)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close_range, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(5);
	if (syscall(SYS_close_range, 3u, 3u, 0u) != -1 || errno != ENOSYS)
		_exit(6);
	fsb_child_close_fds(keep);
}

/* The usual path: close_range(2). */
static void child_close_fds_keeps_one(void **state)
{
	(void)state;
	close_fds_keeps_only(fsb_child_close_fds);
}

/* The fallback where close_range is refused: /proc/self/fd walked. */
static void child_close_fds_proc_keeps_one(void **state)
{
	(void)state;
	close_fds_keeps_only(close_by_proc);
	close_fds_keeps_only(close_without_close_range);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(error_capture_scopes),
		cmocka_unit_test(error_capture_line),
		cmocka_unit_test(spawn_inherits_no_descriptor),
		cmocka_unit_test(child_close_fds_keeps_one),
		cmocka_unit_test(child_close_fds_proc_keeps_one),
		cmocka_unit_test(size_parse_good),
		cmocka_unit_test(size_parse_bad),
		cmocka_unit_test(size_format),
		cmocka_unit_test(size_format_pair),
		cmocka_unit_test(scratch_lifecycle),
		cmocka_unit_test(scratch_open_dir_no_symlink),
		cmocka_unit_test(scratch_file_size_no_symlink),
		cmocka_unit_test(atomic_write_and_read),
		cmocka_unit_test(stop_signals),
		cmocka_unit_test(signals_default_in_child),
		cmocka_unit_test(spawn_runs_and_reports),
		cmocka_unit_test(spawn_dies_with_parent),
		cmocka_unit_test(text_escapes_terminal_controls),
		cmocka_unit_test(text_lines_keep_newlines),
		cmocka_unit_test(text_cut_and_pad),
		cmocka_unit_test(utf8_clean_replaces_invalid_bytes),
		cmocka_unit_test(base64_round_trip_and_strict),
		cmocka_unit_test(vocab_join_find_describe),
		cmocka_unit_test(strbuf_grows_and_vec_takes),
		cmocka_unit_test(version_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
