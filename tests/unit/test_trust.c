/*
 * Unit tests of src/util/trust.c: which files and directories may hold
 * what fsbench runs as root (fabricated stat results: owners, group and
 * other write bits, the sticky bit), the invoking user under sudo
 * (SUDO_UID), and fsb_trusted_file_open on real files: accepted in a
 * private directory, refused when writable by others, owned by another
 * user, in a world-writable directory without the sticky bit (also when
 * reached through a symlink), a FIFO (without hanging).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/scratch.h"
#include "util/trust.h"

static char dir[PATH_MAX];

static int tmp_setup(void **state)
{
	(void)state;
	return fsb_scratch_create(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", dir, sizeof(dir));
}

static int tmp_teardown(void **state)
{
	(void)state;
	fsb_scratch_remove(dir);
	return 0;
}

static struct stat file_st(uid_t uid, unsigned mode)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_uid = uid;
	st.st_mode = S_IFREG | mode;
	return st;
}

static void files(void **state)
{
	struct stat st;
	char why[1024];

	(void)state;
	st = file_st(1000, 0644);
	assert_int_equal(fsb_trust_check_file("m.ini", &st, 1000, why, sizeof(why)), 0);
	st = file_st(0, 0600);
	assert_int_equal(fsb_trust_check_file("m.ini", &st, 1000, why, sizeof(why)), 0);

	st = file_st(1000, 0664);
	assert_int_equal(fsb_trust_check_file("m.ini", &st, 1000, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "refusing 'm.ini': it is writable by group or others (mode 0664), "
				 "and what it says is run as root: chmod go-w 'm.ini'");
	st = file_st(1000, 0646);
	assert_int_equal(fsb_trust_check_file("m.ini", &st, 1000, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "chmod go-w"));

	st = file_st(65534, 0644);
	assert_int_equal(fsb_trust_check_file("m.ini", &st, 1000, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "owned by uid 65534, not by root or uid 1000"));

	st = file_st(1000, 0644);
	st.st_mode = S_IFIFO | 0644;
	assert_int_equal(fsb_trust_check_file("m.ini", &st, 1000, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not a regular file"));
}

static void dirs(void **state)
{
	struct stat st;
	char why[1024];

	(void)state;
	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFDIR | 0755;
	assert_int_equal(fsb_trust_check_dir("m.ini", "/srv", &st, why, sizeof(why)), 0);
	st.st_mode = S_IFDIR | 01777; /* /tmp */
	assert_int_equal(fsb_trust_check_dir("m.ini", "/tmp", &st, why, sizeof(why)), 0);
	st.st_mode = S_IFDIR | 0777;
	assert_int_equal(fsb_trust_check_dir("m.ini", "/srv/x", &st, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "its directory '/srv/x' is writable by group or others "
				    "without the sticky bit (mode 0777)"));
	assert_non_null(strstr(why, "chmod go-w '/srv/x'"));
	st.st_mode = S_IFDIR | 0775;
	assert_int_equal(fsb_trust_check_dir("m.ini", "/srv/x", &st, why, sizeof(why)), -EPERM);
}

static void invoking_user(void **state)
{
	char *saved = getenv("SUDO_UID") ? strdup(getenv("SUDO_UID")) : NULL;

	(void)state;
	unsetenv("SUDO_UID");
	assert_int_equal(fsb_trust_invoking_uid(), getuid());
	setenv("SUDO_UID", "4242", 1);
	/* Only root's environment speaks for someone else. */
	assert_int_equal(fsb_trust_invoking_uid(), geteuid() == 0 ? 4242 : getuid());
	setenv("SUDO_UID", "42x", 1);
	assert_int_equal(fsb_trust_invoking_uid(), getuid());
	setenv("SUDO_UID", "", 1);
	assert_int_equal(fsb_trust_invoking_uid(), getuid());
	if (saved)
		setenv("SUDO_UID", saved, 1);
	else
		unsetenv("SUDO_UID");
	free(saved);
}

static void write_file(const char *path, unsigned mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("[global]\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void open_real_files(void **state)
{
	char path[PATH_MAX + 32], sub[PATH_MAX + 16], link[PATH_MAX + 32], why[2 * PATH_MAX];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/m.ini", dir);
	write_file(path, 0644);
	fd = fsb_trusted_file_open(path, getuid(), why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);

	chmod(path, 0666);
	assert_int_equal(fsb_trusted_file_open(path, getuid(), why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "chmod go-w"));
	chmod(path, 0644);

	snprintf(path, sizeof(path), "%s/missing.ini", dir);
	assert_int_equal(fsb_trusted_file_open(path, getuid(), why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "cannot read '"));

	/* A world-writable directory without the sticky bit. */
	snprintf(sub, sizeof(sub), "%s/open", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(chmod(sub, 0777), 0);
	snprintf(path, sizeof(path), "%s/m.ini", sub);
	write_file(path, 0644);
	assert_int_equal(fsb_trusted_file_open(path, getuid(), why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "its directory '"));
	/* Reached through a symlink from a safe place: still where it is. */
	snprintf(link, sizeof(link), "%s/link.ini", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(fsb_trusted_file_open(link, getuid(), why, sizeof(why)), -EPERM);
	/* With the sticky bit, others cannot replace what is not theirs. */
	assert_int_equal(chmod(sub, 01777), 0);
	fd = fsb_trusted_file_open(link, getuid(), why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);

	/* A FIFO is refused, and opening it does not wait for a writer. */
	snprintf(path, sizeof(path), "%s/fifo.ini", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(fsb_trusted_file_open(path, getuid(), why, sizeof(why)), -EINVAL);

	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/m.ini", dir);
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(fsb_trusted_file_open(path, 0, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "owned by uid 65534"));
		/* ...unless it is the invoking user's (sudo). */
		fd = fsb_trusted_file_open(path, 65534, why, sizeof(why));
		assert_true(fd >= 0);
		close(fd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(files),
		cmocka_unit_test(dirs),
		cmocka_unit_test(invoking_user),
		cmocka_unit_test_setup_teardown(open_real_files, tmp_setup, tmp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
