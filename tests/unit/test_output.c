/*
 * Unit tests: where -o writes (util/output.h). What each kind of name
 * becomes, what is refused at startup, and that a report whose final write
 * fails is kept in a fallback file. The root-only cases (owner kept, block
 * device node, read-only and full tmpfs mounts) skip without root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/io.h"
#include "util/output.h"

static const char report[] = "{ \"kind\": \"run\" }\n";

/* ---- helpers ------------------------------------------------------------ */

struct dir {
	char path[64];
};

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

static void dir_make(struct dir *d)
{
	snprintf(d->path, sizeof(d->path), "/tmp/fsb-output-XXXXXX");
	assert_non_null(mkdtemp(d->path));
}

static void dir_remove(struct dir *d)
{
	nftw(d->path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static char *join(const struct dir *d, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", d->path, name);
	return buf;
}

static void put_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(fsb_write_full(fd, text, strlen(text)), 0);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static void assert_file(const char *path, const char *want)
{
	char *got = NULL;
	size_t len;

	assert_int_equal(fsb_read_file(path, 1 << 20, &got, &len), 0);
	assert_string_equal(got, want);
	free(got);
}

/* Open path (expected to succeed), write the report, release. */
static void write_ok(const char *path)
{
	struct fsb_output o;

	assert_int_equal(fsb_output_open(&o, path, NULL, 0), 0);
	assert_int_equal(fsb_output_commit(&o, report, strlen(report)), 0);
	fsb_output_release(&o);
}

/* Entries in dir other than the ones named (temporary files left over). */
static int count_entries(const char *dir)
{
	char cmd[128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

/* ---- regular files ------------------------------------------------------ */

static void new_file_gets_umask_mode(void **state)
{
	struct dir d;
	char p[128];
	struct stat st;
	mode_t old = umask(027);

	(void)state;
	dir_make(&d);
	write_ok(join(&d, "new.json", p, sizeof(p)));
	umask(old);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_file(p, report);
	assert_int_equal(count_entries(d.path), 1); /* no temporary file left */
	dir_remove(&d);
}

static void existing_file_keeps_mode_and_owner(void **state)
{
	struct dir d;
	char p[128];
	struct stat before, after;
	bool root = geteuid() == 0;

	(void)state;
	dir_make(&d);
	join(&d, "r.json", p, sizeof(p));
	put_file(p, "old\n", 0640);
	if (root)
		assert_int_equal(chown(p, 65534, 65534), 0);
	assert_int_equal(stat(p, &before), 0);
	write_ok(p);
	assert_int_equal(stat(p, &after), 0);
	assert_file(p, report);
	/* Replaced by rename (a new inode), with the old one's attributes. */
	assert_true(before.st_ino != after.st_ino);
	assert_int_equal(after.st_mode & 07777, 0640);
	assert_int_equal(after.st_uid, before.st_uid);
	assert_int_equal(after.st_gid, before.st_gid);
	if (root)
		assert_int_equal(after.st_uid, 65534);
	assert_int_equal(count_entries(d.path), 1);
	dir_remove(&d);
}

/* ---- devices and FIFOs: written in place -------------------------------- */

static void char_device_written_in_place(void **state)
{
	struct fsb_output o;
	struct stat st;

	(void)state;
	assert_int_equal(fsb_output_open(&o, "/dev/null", NULL, 0), 0);
	assert_int_equal(o.target, FSB_OUTPUT_DIRECT);
	assert_int_equal(fsb_output_commit(&o, report, strlen(report)), 0);
	fsb_output_release(&o);
	assert_int_equal(lstat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(st.st_rdev, makedev(1, 3));
}

static void fifo_written_in_place(void **state)
{
	struct dir d;
	char fifo[128], got[128];
	struct fsb_output o;
	struct stat st;
	pid_t pid;
	int status;

	(void)state;
	dir_make(&d);
	join(&d, "fifo", fifo, sizeof(fifo));
	join(&d, "got", got, sizeof(got));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* Classifying must not open the FIFO (it would block with no reader). */
	assert_int_equal(fsb_output_open(&o, fifo, NULL, 0), 0);
	assert_int_equal(o.target, FSB_OUTPUT_DIRECT);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[256];
		int in = open(fifo, O_RDONLY), out = open(got, O_WRONLY | O_CREAT, 0600);
		ssize_t n;

		while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				_exit(2);
		_exit(in >= 0 && out >= 0 ? 0 : 1);
	}
	assert_int_equal(fsb_output_commit(&o, report, strlen(report)), 0);
	fsb_output_release(&o);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_file(got, report);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	dir_remove(&d);
}

/* ---- descriptors -------------------------------------------------------- */

static void fd_names_write_the_descriptor(void **state)
{
	static const char *const forms[] = { "/dev/fd/%d", "/proc/self/fd/%d" };
	struct dir d;
	char p[128], name[64], buf[256];
	struct fsb_output o;
	int fds[2], fd;

	(void)state;
	dir_make(&d);
	for (size_t i = 0; i < 2; i++) {
		/* A pipe: the bytes come out at the other end. */
		assert_int_equal(pipe(fds), 0);
		snprintf(name, sizeof(name), forms[i], fds[1]);
		assert_int_equal(fsb_output_open(&o, name, NULL, 0), 0);
		assert_int_equal(o.target, FSB_OUTPUT_FD);
		assert_int_equal(fsb_output_commit(&o, report, strlen(report)), 0);
		fsb_output_release(&o);
		close(fds[1]);
		assert_int_equal(fsb_read_full(fds[0], buf, sizeof(buf)), strlen(report));
		close(fds[0]);

		/* A regular file: written through the descriptor, not replaced. */
		join(&d, "f.txt", p, sizeof(p));
		put_file(p, "", 0600);
		fd = open(p, O_WRONLY | O_APPEND);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "head\n", 5), 5);
		snprintf(name, sizeof(name), forms[i], fd);
		assert_int_equal(fsb_output_open(&o, name, NULL, 0), 0);
		assert_int_equal(fsb_output_commit(&o, report, strlen(report)), 0);
		fsb_output_release(&o);
		close(fd);
		snprintf(buf, sizeof(buf), "head\n%s", report);
		assert_file(p, buf);

		/* Open for reading only, or not open at all: refused at startup. */
		fd = open(p, O_RDONLY);
		assert_true(fd >= 0);
		snprintf(name, sizeof(name), forms[i], fd);
		assert_int_equal(fsb_output_open(&o, name, NULL, 0), -EBADF);
		assert_false(o.opened);
		close(fd);
		assert_int_equal(fsb_output_open(&o, name, NULL, 0), -EBADF);
	}
	dir_remove(&d);
}

/* ---- refused at startup ------------------------------------------------- */

static void refuses_dir_socket_blockdev(void **state)
{
	struct dir d;
	char p[128];
	struct fsb_output o;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int s;

	(void)state;
	dir_make(&d);
	join(&d, "sub", p, sizeof(p));
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(fsb_output_open(&o, p, NULL, 0), -EISDIR);
	assert_false(o.opened);
	assert_int_equal(fsb_output_open(&o, d.path, NULL, 0), -EISDIR);
	strcat(p, "/");
	assert_int_equal(fsb_output_open(&o, p, NULL, 0), -EISDIR);

	join(&d, "sock", p, sizeof(p));
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", p);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_true(fsb_output_open(&o, p, NULL, 0) < 0);
	close(s);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));

	/* A block device node of our own (loop0's numbers): never opened. */
	join(&d, "blk", p, sizeof(p));
	if (mknod(p, S_IFBLK | 0600, makedev(7, 0)) == 0) {
		assert_true(fsb_output_open(&o, p, NULL, 0) < 0);
		assert_false(o.opened);
		assert_int_equal(lstat(p, &st), 0);
		assert_true(S_ISBLK(st.st_mode));
	} else {
		print_message("# block device node skipped: mknod: %s\n", strerror(errno));
	}
	dir_remove(&d);
}

static void refuses_symlink(void **state)
{
	struct dir d;
	char p[128], target[128];
	struct fsb_output o;
	struct stat st;

	(void)state;
	dir_make(&d);
	join(&d, "target", target, sizeof(target));
	put_file(target, "precious\n", 0644);
	join(&d, "link", p, sizeof(p));
	assert_int_equal(symlink(target, p), 0);
	assert_int_equal(fsb_output_open(&o, p, NULL, 0), -ELOOP);
	assert_false(o.opened);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_file(target, "precious\n");
	/* A dangling one too: it is not created through. */
	assert_int_equal(unlink(target), 0);
	assert_int_equal(fsb_output_open(&o, p, NULL, 0), -ELOOP);
	assert_int_equal(access(target, F_OK), -1);
	/* The path it points to is fine, given on purpose. */
	write_ok(target);
	dir_remove(&d);
}

static void refuses_inputs(void **state)
{
	struct dir d;
	char a[128], b[128], hard[128], img[128], other[128];
	const char *inputs[3];
	struct fsb_output o;
	int fd;

	(void)state;
	dir_make(&d);
	join(&d, "a.json", a, sizeof(a));
	join(&d, "b.json", b, sizeof(b));
	join(&d, "hard.json", hard, sizeof(hard));
	put_file(a, "input a\n", 0644);
	put_file(b, "input b\n", 0644);
	assert_int_equal(link(a, hard), 0);
	inputs[0] = b;
	inputs[1] = NULL; /* skipped */
	inputs[2] = a;
	assert_int_equal(fsb_output_open(&o, a, inputs, 3), -EINVAL);
	assert_false(o.opened);
	/* The same file by another name is the same input. */
	assert_int_equal(fsb_output_open(&o, hard, inputs, 3), -EINVAL);
	/* Through a descriptor too. */
	fd = open(a, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	{
		char name[32];

		snprintf(name, sizeof(name), "/dev/fd/%d", fd);
		assert_int_equal(fsb_output_open(&o, name, inputs, 3), -EINVAL);
	}
	close(fd);
	assert_file(a, "input a\n");
	/* An input to be created (an image) and -o naming the same new file. */
	join(&d, "new.img", img, sizeof(img));
	inputs[0] = img;
	assert_int_equal(fsb_output_open(&o, img, inputs, 1), -EINVAL);
	assert_int_equal(access(img, F_OK), -1);
	/* Something else is fine. */
	join(&d, "c.json", other, sizeof(other));
	assert_int_equal(fsb_output_open(&o, other, inputs, 3), 0);
	fsb_output_release(&o);
	dir_remove(&d);
}

static void refuses_missing_and_readonly_dir(void **state)
{
	struct dir d;
	char p[128], mnt[128];
	struct fsb_output o;

	(void)state;
	dir_make(&d);
	join(&d, "missing/r.json", p, sizeof(p));
	assert_int_equal(fsb_output_open(&o, p, NULL, 0), -ENOENT);
	assert_false(o.opened);
	join(&d, "file", mnt, sizeof(mnt));
	put_file(mnt, "x", 0644);
	join(&d, "file/r.json", p, sizeof(p));
	assert_int_equal(fsb_output_open(&o, p, NULL, 0), -ENOTDIR);

	/* Root ignores mode bits: a read-only tmpfs is what stops it. */
	join(&d, "ro", mnt, sizeof(mnt));
	assert_int_equal(mkdir(mnt, 0755), 0);
	if (geteuid() == 0) {
		if (mount("fsbench-test", mnt, "tmpfs", MS_RDONLY, "size=1m") < 0) {
			print_message("# read-only tmpfs skipped: %s\n", strerror(errno));
		} else {
			join(&d, "ro/r.json", p, sizeof(p));
			assert_int_equal(fsb_output_open(&o, p, NULL, 0), -EROFS);
			assert_int_equal(umount(mnt), 0);
		}
	} else {
		assert_int_equal(chmod(mnt, 0555), 0);
		join(&d, "ro/r.json", p, sizeof(p));
		assert_int_equal(fsb_output_open(&o, p, NULL, 0), -EACCES);
		chmod(mnt, 0755);
	}
	dir_remove(&d);
}

/* ---- the fallback ------------------------------------------------------- */

/* The fallback file this process writes in dir, checked and removed. */
static void assert_fallback(const char *dir, const char *ext, const char *want)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/fsbench-result.%d.%s", dir, (int)getpid(), ext);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_file(p, want);
	assert_int_equal(unlink(p), 0);
}

static void fallback_when_write_fails(void **state)
{
	struct dir d, keep;
	char p[128], name[32], *big;
	struct fsb_output o;
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	int fd;

	(void)state;
	dir_make(&d);
	dir_make(&keep);
	assert_int_equal(setenv("TMPDIR", keep.path, 1), 0);

	/* /dev/full through a descriptor: ENOSPC at the end, kept as .json. */
	fd = open("/dev/full", O_WRONLY);
	assert_true(fd >= 0);
	snprintf(name, sizeof(name), "/dev/fd/%d", fd);
	assert_int_equal(fsb_output_open(&o, name, NULL, 0), 0);
	o.ext = "json";
	assert_int_equal(fsb_output_commit(&o, report, strlen(report)), -ENOSPC);
	fsb_output_release(&o);
	close(fd);
	assert_fallback(keep.path, "json", report);

	/* /dev/full by name: a device written in place, same outcome. */
	assert_int_equal(fsb_output_open(&o, "/dev/full", NULL, 0), 0);
	assert_int_equal(fsb_output_commit(&o, report, strlen(report)), -ENOSPC);
	fsb_output_release(&o);
	assert_fallback(keep.path, "txt", report);

	/* The directory removed while the benchmark ran: the extension comes
	 * from the name given. */
	join(&d, "gone", p, sizeof(p));
	assert_int_equal(mkdir(p, 0700), 0);
	join(&d, "gone/r.csv", p, sizeof(p));
	assert_int_equal(fsb_output_open(&o, p, NULL, 0), 0);
	join(&d, "gone", p, sizeof(p));
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(fsb_output_commit(&o, report, strlen(report)), -ENOENT);
	fsb_output_release(&o);
	assert_fallback(keep.path, "csv", report);

	/* A full filesystem (root: a small tmpfs): the old file is kept, no
	 * temporary file is left, the report is in the fallback. */
	join(&d, "small", p, sizeof(p));
	assert_int_equal(mkdir(p, 0755), 0);
	if (geteuid() == 0 && mount("fsbench-test", p, "tmpfs", 0, "size=64k") == 0) {
		char r[160];
		size_t n = 256 << 10;

		big = malloc(n);
		assert_non_null(big);
		memset(big, 'x', n - 1);
		big[n - 1] = '\0';
		join(&d, "small/r.json", r, sizeof(r));
		put_file(r, "old\n", 0644);
		assert_int_equal(fsb_output_open(&o, r, NULL, 0), 0);
		assert_int_equal(fsb_output_commit(&o, big, n - 1), -ENOSPC);
		fsb_output_release(&o);
		assert_file(r, "old\n");
		assert_int_equal(count_entries(p), 1);
		assert_fallback(keep.path, "json", big);
		free(big);
		assert_int_equal(umount(p), 0);
	} else {
		print_message("# full tmpfs skipped (needs root)\n");
	}

	if (saved) {
		setenv("TMPDIR", saved, 1);
		free(saved);
	} else {
		unsetenv("TMPDIR");
	}
	dir_remove(&keep);
	dir_remove(&d);
}

/* ---- standard output ---------------------------------------------------- */

static void stdout_forms(void **state)
{
	struct fsb_output o;

	(void)state;
	assert_int_equal(fsb_output_open(&o, NULL, NULL, 0), 0);
	assert_int_equal(o.target, FSB_OUTPUT_FD);
	assert_int_equal(o.fd, STDOUT_FILENO);
	fsb_output_release(&o);
	assert_int_equal(fsb_output_open(&o, "-", NULL, 0), 0);
	assert_int_equal(o.fd, STDOUT_FILENO);
	fsb_output_release(&o);
	assert_int_equal(fsb_output_open(&o, "/dev/stdout", NULL, 0), 0);
	assert_int_equal(o.fd, STDOUT_FILENO);
	fsb_output_release(&o);
	assert_int_equal(fsb_output_open(&o, "/dev/stderr", NULL, 0), 0);
	assert_int_equal(o.fd, STDERR_FILENO);
	fsb_output_release(&o);
	assert_int_equal(fsb_output_open(&o, "", NULL, 0), -EINVAL);
	/* Release is safe on a zeroed and on a released output. */
	memset(&o, 0, sizeof(o));
	fsb_output_release(&o);
	fsb_output_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(new_file_gets_umask_mode),
		cmocka_unit_test(existing_file_keeps_mode_and_owner),
		cmocka_unit_test(char_device_written_in_place),
		cmocka_unit_test(fifo_written_in_place),
		cmocka_unit_test(fd_names_write_the_descriptor),
		cmocka_unit_test(refuses_dir_socket_blockdev),
		cmocka_unit_test(refuses_symlink),
		cmocka_unit_test(refuses_inputs),
		cmocka_unit_test(refuses_missing_and_readonly_dir),
		cmocka_unit_test(fallback_when_write_fails),
		cmocka_unit_test(stdout_forms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
