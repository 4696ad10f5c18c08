/*
 * Unit tests: the owner marker (write, parse, alive check against this
 * process and against a fake /proc tree), and the scratch directory that
 * carries it (the marker goes last).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/marker.h"
#include "util/scratch.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int parse(const char *text, struct fsb_marker *m, const char **why)
{
	return fsb_marker_parse(text, strlen(text), m, why);
}

/* This process's own start time, as the kernel has it. */
static unsigned long long own_start(void)
{
	char buf[1024], *p;
	unsigned long long v = 0;
	FILE *f = fopen("/proc/self/stat", "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	assert_non_null(p);
	/* fields 3..21 then 22 */
	for (int i = 0; i < 20; i++)
		p = strchr(p + 1, ' ');
	assert_int_equal(sscanf(p + 1, "%llu", &v), 1);
	return v;
}

static int read_marker(const char *dir, struct fsb_marker *m, const char **why)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), err;

	assert_true(fd >= 0);
	err = fsb_marker_read_at(fd, m, why);
	close(fd);
	return err;
}

static void scratch_carries_marker(void **state)
{
	char parent[] = "/tmp/fsb-unit.XXXXXX", dir[PATH_MAX], path[PATH_MAX + 32];
	struct fsb_marker m;
	const char *why;
	struct stat st;
	(void)state;

	assert_non_null(mkdtemp(parent));
	assert_int_equal(fsb_scratch_create(parent, dir, sizeof(dir)), 0);
	assert_true(fsb_scratch_name_ok(strrchr(dir, '/') + 1));
	snprintf(path, sizeof(path), "%s/%s", dir, FSB_MARKER_NAME);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(read_marker(dir, &m, &why), 0);
	assert_int_equal(m.owner.pid, getpid());
	assert_true(m.owner.start == own_start());
	assert_int_equal(strlen(m.owner.boot_id), 36);
	assert_int_equal(m.nclaims, 0);
	assert_false(m.kept);
	/* We are alive, by our own marker. */
	assert_int_equal(fsb_owner_state(&m.owner, "/proc"), FSB_OWNER_ALIVE);
	/* The same PID started at another time is someone else: dead. */
	m.owner.start++;
	assert_int_equal(fsb_owner_state(&m.owner, "/proc"), FSB_OWNER_DEAD);
	fsb_marker_release(&m);
	assert_int_equal(fsb_scratch_remove(dir), 0);
	assert_int_equal(rmdir(parent), 0);
}

static void claims_round_trip(void **state)
{
	char parent[] = "/tmp/fsb-unit.XXXXXX", dir[PATH_MAX], img[PATH_MAX + 32];
	char odd[PATH_MAX + 64], line[PATH_MAX * 4];
	struct fsb_marker m;
	const char *why;
	struct stat st;
	int fd;
	(void)state;

	assert_non_null(mkdtemp(parent));
	assert_int_equal(fsb_scratch_create(parent, dir, sizeof(dir)), 0);
	/* An image whose name has a blank, a backslash and a newline. */
	snprintf(img, sizeof(img), "%s/my img\\x\n.img", parent);
	fd = open(img, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(fsb_marker_add_image(dir, img, fd, true), 0);
	close(fd);
	assert_int_equal(fsb_marker_add_loop(dir, "/dev/loop7"), 0);
	snprintf(odd, sizeof(odd), "%s/mnt\tpoint", dir);
	assert_int_equal(fsb_marker_add_mount(dir, odd), 0);
	assert_int_equal(fsb_marker_add_kept(dir), 0);
	/* Refused before anything is written. */
	assert_int_equal(fsb_marker_add_loop(dir, "/dev/sda"), -EINVAL);
	assert_int_equal(fsb_marker_add_mount(dir, "relative/mnt"), -EINVAL);

	assert_int_equal(read_marker(dir, &m, &why), 0);
	assert_int_equal(m.nclaims, 3);
	assert_int_equal(m.claims[0].kind, FSB_CLAIM_IMAGE);
	assert_string_equal(m.claims[0].path, img);
	assert_true(m.claims[0].dev == st.st_dev);
	assert_true(m.claims[0].ino == st.st_ino);
	assert_true(m.claims[0].created);
	assert_int_equal(m.claims[1].kind, FSB_CLAIM_LOOP);
	assert_string_equal(m.claims[1].path, "/dev/loop7");
	assert_int_equal(m.claims[2].kind, FSB_CLAIM_MOUNT);
	assert_string_equal(m.claims[2].path, odd);
	assert_true(m.kept);
	fsb_marker_release(&m);
	/* On disk, one line per claim: the odd bytes are escaped. */
	assert_int_equal(fsb_marker_escape("a b\\c\nd", line, sizeof(line)), 0);
	assert_string_equal(line, "a\\040b\\134c\\012d");
	assert_int_equal(fsb_marker_escape("abcdef", line, 4), -ENAMETOOLONG);

	assert_int_equal(unlink(img), 0);
	assert_int_equal(fsb_scratch_remove(dir), 0);
	assert_int_equal(rmdir(parent), 0);
}

#define HEAD "fsbench-owner 1\npid=42\nstart=1000\nboot=0d6c2b1e-3c55-4f2a-9a1e-7c4bd0a1f2e3\n"

static void parse_good(void **state)
{
	struct fsb_marker m;
	const char *why;
	(void)state;

	assert_int_equal(parse(HEAD "image=/var/tmp/a\\040b.img 2049:77 created=0\n"
				    "mount=/tmp/fsbench.42.abcdef/mnt\n",
			       &m, &why),
			 0);
	assert_int_equal(m.owner.pid, 42);
	assert_true(m.owner.start == 1000);
	assert_string_equal(m.owner.boot_id, "0d6c2b1e-3c55-4f2a-9a1e-7c4bd0a1f2e3");
	assert_int_equal(m.nclaims, 2);
	assert_string_equal(m.claims[0].path, "/var/tmp/a b.img");
	assert_true(m.claims[0].dev == 2049 && m.claims[0].ino == 77);
	assert_false(m.claims[0].created);
	assert_string_equal(m.claims[1].path, "/tmp/fsbench.42.abcdef/mnt");
	fsb_marker_release(&m);
	/* Lines in any order after the first. */
	assert_int_equal(
		parse("fsbench-owner 1\nboot=ab-12\nloop=/dev/loop0\nstart=0\npid=1\n", &m, &why),
		0);
	assert_int_equal(m.nclaims, 1);
	fsb_marker_release(&m);
}

static void parse_bad(void **state)
{
	static const char *const bad[] = {
		"",
		"fsbench-owner 2\npid=1\nstart=1\nboot=ab\n", /* unknown version */
		"pid=1\nstart=1\nboot=ab\n",		      /* no first line */
		"fsbench-owner 1\nstart=1\nboot=ab\n",	      /* no pid */
		"fsbench-owner 1\npid=1\nboot=ab\n",	      /* no start */
		"fsbench-owner 1\npid=1\nstart=1\n",	      /* no boot */
		HEAD "pid=43\n",			      /* pid twice */
		"fsbench-owner 1\npid=0\nstart=1\nboot=ab\n", /* pid 0 */
		"fsbench-owner 1\npid=-1\nstart=1\nboot=ab\n",
		"fsbench-owner 1\npid=1x\nstart=1\nboot=ab\n",
		"fsbench-owner 1\npid=99999999999\nstart=1\nboot=ab\n",
		"fsbench-owner 1\npid=1\nstart=1\nboot=AB CD\n",
		HEAD "mount=/tmp/x", /* cut short */
		HEAD "mount=relative/x\n",
		HEAD "mount=/tmp/../etc\n",
		HEAD "mount=/tmp//x\n",
		HEAD "mount=/tmp/a b\n",    /* unescaped blank */
		HEAD "mount=/tmp/a\\04\n",  /* short escape */
		HEAD "mount=/tmp/a\\000\n", /* NUL */
		HEAD "mount=/tmp/a\\9xy\n",
		HEAD "loop=/dev/sda\n",
		HEAD "loop=/dev/loop\n",
		HEAD "loop=/dev/loop1a\n",
		HEAD "image=/x.img 1:2\n",
		HEAD "image=/x.img 1:2 created=2\n",
		HEAD "image=/x.img 1-2 created=1\n",
		HEAD "image=x.img 1:2 created=1\n",
		HEAD "image=/x.img :2 created=1\n",
		HEAD "kept=yes\n",
		HEAD "owner=root\n", /* unknown key */
		HEAD "just words\n",
	};
	struct fsb_marker m;
	const char *why;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = parse(bad[i], &m, &why);

		if (err != -EINVAL)
			print_error("case %zu parsed: '%s'\n", i, bad[i]);
		assert_int_equal(err, -EINVAL);
		assert_true(why && *why);
		assert_null(m.claims);
	}
	/* A NUL byte inside. */
	assert_int_equal(fsb_marker_parse(HEAD "\0x\n", sizeof(HEAD) + 2, &m, &why), -EINVAL);
}

/* A /proc tree with a boot id and one process. */
static void fake_proc(const char *root, const char *boot, long pid, const char *stat)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/sys", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sys/kernel", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sys/kernel/random", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sys/kernel/random/boot_id", root);
	put(p, boot);
	if (pid) {
		snprintf(p, sizeof(p), "%s/%ld", root, pid);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/%ld/stat", root, pid);
		put(p, stat);
	}
}

static void owner_state_fake_proc(void **state)
{
	char root[] = "/tmp/fsb-unit.XXXXXX", cmd[PATH_MAX + 64];
	/* The command name holds blanks and ')': field 22 is 777. */
	const char *stat = "4242 (a) b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 "
			   "777 12345 67 18446744073709551615\n";
	struct fsb_owner o = { .pid = 4242, .start = 777 }, r;
	(void)state;

	assert_non_null(mkdtemp(root));
	snprintf(o.boot_id, sizeof(o.boot_id), "11111111-2222-3333-4444-555555555555");
	/* Unreadable boot id: nothing can be proven. */
	assert_true(fsb_owner_state(&o, root) < 0);
	fake_proc(root, "11111111-2222-3333-4444-555555555555\n", 4242, stat);
	assert_int_equal(fsb_owner_read(root, 4242, &r), 0);
	assert_true(r.start == 777);
	assert_string_equal(r.boot_id, o.boot_id);
	assert_int_equal(fsb_owner_state(&o, root), FSB_OWNER_ALIVE);
	o.start = 778; /* PID reused by another process */
	assert_int_equal(fsb_owner_state(&o, root), FSB_OWNER_DEAD);
	o.start = 777;
	o.pid = 4243; /* no such process */
	assert_int_equal(fsb_owner_state(&o, root), FSB_OWNER_DEAD);
	assert_int_equal(fsb_owner_read(root, 4243, &r), -ESRCH);
	o.pid = 4242;
	snprintf(o.boot_id, sizeof(o.boot_id), "99999999-2222-3333-4444-555555555555");
	assert_int_equal(fsb_owner_state(&o, root), FSB_OWNER_OTHER_BOOT);
	/* A stat line cut short is unparsable, not "dead". */
	fake_proc(root, "99999999-2222-3333-4444-555555555555\n", 4242, "4242 (x) S 1 2 3\n");
	assert_int_equal(fsb_owner_state(&o, root), -EINVAL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void read_refuses_unsafe(void **state)
{
	char dir[] = "/tmp/fsb-unit.XXXXXX", p[PATH_MAX], q[PATH_MAX];
	struct fsb_marker m;
	const char *why;
	(void)state;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(read_marker(dir, &m, &why), -ENOENT);
	snprintf(p, sizeof(p), "%s/%s", dir, FSB_MARKER_NAME);
	put(p, HEAD);
	assert_int_equal(chmod(p, 0600), 0);
	assert_int_equal(read_marker(dir, &m, &why), 0);
	fsb_marker_release(&m);
	/* Writable by others: anyone could have written it. */
	assert_int_equal(chmod(p, 0666), 0);
	assert_int_equal(read_marker(dir, &m, &why), -EPERM);
	assert_non_null(strstr(why, "writable"));
	/* A symlink to a good marker elsewhere is not a marker. */
	snprintf(q, sizeof(q), "%s/real", dir);
	assert_int_equal(rename(p, q), 0);
	assert_int_equal(chmod(q, 0600), 0);
	assert_int_equal(symlink(q, p), 0);
	assert_int_equal(read_marker(dir, &m, &why), -EPERM);
	assert_int_equal(unlink(p), 0);
	/* A directory by that name. */
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(read_marker(dir, &m, &why), -EPERM);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(unlink(q), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void scratch_names(void **state)
{
	(void)state;
	assert_true(fsb_scratch_name_ok("fsbench.123.abcdef"));
	assert_true(fsb_scratch_name_ok("fsbench.1.Ab12Z9"));
	assert_false(fsb_scratch_name_ok("fsbench.123.abcde"));
	assert_false(fsb_scratch_name_ok("fsbench.123.abcdefg"));
	assert_false(fsb_scratch_name_ok("fsbench..abcdef"));
	assert_false(fsb_scratch_name_ok("fsbench.12x.abcdef"));
	assert_false(fsb_scratch_name_ok("fsbench.123.abc-ef"));
	assert_false(fsb_scratch_name_ok("fsbench-test.abcdef"));
	assert_false(fsb_scratch_name_ok("fsbench.json"));
}

/* Something that cannot be removed (a mount inside) keeps the marker, so
 * the directory still says whose it is. Root only. */
static void scratch_remove_keeps_marker(void **state)
{
	char parent[] = "/tmp/fsb-unit.XXXXXX", dir[PATH_MAX], sub[PATH_MAX + 8], mk[PATH_MAX + 32];
	struct stat st;
	int rm, kept;
	(void)state;

	if (geteuid() != 0) {
		skip();
		return;
	}
	assert_non_null(mkdtemp(parent));
	assert_int_equal(fsb_scratch_create(parent, dir, sizeof(dir)), 0);
	snprintf(sub, sizeof(sub), "%s/mnt", dir);
	snprintf(mk, sizeof(mk), "%s/%s", dir, FSB_MARKER_NAME);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(mount("fsb-unit", sub, "tmpfs", 0, "size=1m"), 0);
	/* Unmounted before any assertion can jump out of the test. */
	rm = fsb_scratch_remove(dir);
	kept = lstat(mk, &st);
	assert_int_equal(umount(sub), 0);
	assert_true(rm < 0);
	assert_int_equal(kept, 0);
	assert_int_equal(fsb_scratch_remove(dir), 0);
	assert_int_equal(lstat(dir, &st), -1);
	assert_int_equal(rmdir(parent), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scratch_carries_marker),
		cmocka_unit_test(claims_round_trip),
		cmocka_unit_test(parse_good),
		cmocka_unit_test(parse_bad),
		cmocka_unit_test(owner_state_fake_proc),
		cmocka_unit_test(read_refuses_unsafe),
		cmocka_unit_test(scratch_names),
		cmocka_unit_test(scratch_remove_keeps_marker),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
