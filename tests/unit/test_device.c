/*
 * Unit tests of src/device/ and the lifecycle view: --mkfs template
 * splitting and placeholder expansion (quotes, backslashes, shell
 * metacharacters kept as plain characters), running a tool without a
 * shell, the --device refusal rules on fabricated facts, diskstat delta
 * arithmetic, fill names and patterns, /proc/filesystems
 * parsing, the `time`-style "real" lines and the lifecycle layout, and (as
 * root) a loop device attached and detached through the ioctls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "device/btrfs_space.h"
#include "device/cache.h"
#include "device/diskstat.h"
#include "device/fill.h"
#include "device/fsinfo.h"
#include "device/image.h"
#include "device/inflight.h"
#include "device/loop.h"
#include "device/mkfs.h"
#include "device/mount.h"
#include "device/probe.h"
#include "report/lifecycle.h"
#include "report/result.h"
#include "util/scratch.h"
#include "util/spawn.h"

static size_t count(char **v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* Split tmpl and compare with the expected words (NULL-terminated). */
static void expect_split(const char *tmpl, const char *const *want)
{
	const char *why = NULL;
	char **argv = NULL;
	size_t n = 0;
	int rc;

	while (want[n])
		n++;
	rc = fsb_words_split(tmpl, &argv, &why);
	assert_int_equal(rc, (int)n);
	assert_null(why);
	assert_int_equal(count(argv), n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(argv[i], want[i]);
	fsb_words_free(argv);
}

static void expect_split_error(const char *tmpl, const char *why_has)
{
	const char *why = NULL;
	char **argv = NULL;

	assert_int_equal(fsb_words_split(tmpl, &argv, &why), -EINVAL);
	assert_null(argv);
	assert_non_null(why);
	assert_non_null(strstr(why, why_has));
}

/* ---- splitting ---- */

static void split_words(void **state)
{
	(void)state;
	expect_split("mkfs.ext4 -q -F {dev}",
		     (const char *[]){ "mkfs.ext4", "-q", "-F", "{dev}", NULL });
	expect_split("  mkfs.xfs\t-f \n {dev}  ",
		     (const char *[]){ "mkfs.xfs", "-f", "{dev}", NULL });
	expect_split("x", (const char *[]){ "x", NULL });
}

static void split_quotes(void **state)
{
	(void)state;
	/* Single quotes: everything literal, backslash included. */
	expect_split("mkfs.ext4 -L 'my label' 'a\\b'",
		     (const char *[]){ "mkfs.ext4", "-L", "my label", "a\\b", NULL });
	/* Double quotes: backslash escapes only \" \\ \$ \` */
	expect_split("t \"a \\\"b\\\" \\\\ \\$ \\` \\n\"",
		     (const char *[]){ "t", "a \"b\" \\ $ ` \\n", NULL });
	/* Adjacent pieces make one word; empty quotes make an empty word. */
	expect_split("t a'b c'\"d\"e '' \"\"", (const char *[]){ "t", "ab cde", "", "", NULL });
	/* A backslash outside quotes makes the next character literal. */
	expect_split("t a\\ b \\'c \\\"d \\\\",
		     (const char *[]){ "t", "a b", "'c", "\"d", "\\", NULL });
	/* Quotes inside the other kind are plain characters. */
	expect_split("t \"it's\" '\"q\"'", (const char *[]){ "t", "it's", "\"q\"", NULL });
}

static void split_metacharacters_are_plain(void **state)
{
	(void)state;
	/* No shell: separators, pipes, redirections, variables, command
	 * substitution and globs are ordinary characters of the words. */
	expect_split("mkfs.ext4 -L a;b x;rm -rf / | tee out && $HOME `id` $(id) > f < g 2>&1 * ~",
		     (const char *[]){ "mkfs.ext4", "-L",  "a;b", "x;rm",  "-rf",  "/",	    "|",
				       "tee",	    "out", "&&",  "$HOME", "`id`", "$(id)", ">",
				       "f",	    "<",   "g",	  "2>&1",  "*",	   "~",	    NULL });
	expect_split("t ';' \"|\" &", (const char *[]){ "t", ";", "|", "&", NULL });
	expect_split("t a#b # c", (const char *[]){ "t", "a#b", "#", "c", NULL });
}

static void split_errors(void **state)
{
	(void)state;
	expect_split_error("mkfs 'abc", "unterminated single quote");
	expect_split_error("mkfs \"abc", "unterminated double quote");
	expect_split_error("mkfs \"a\\\"", "unterminated double quote");
	expect_split_error("mkfs abc\\", "trailing backslash");
	expect_split_error("", "no program");
	expect_split_error(" \t\n", "no program");
}

/* ---- placeholders ---- */

static void expect_expand(const char *tmpl, const char *const *devs, size_t ndevs,
			  const char *const *want)
{
	char **words = NULL, **argv = NULL;
	const char *why = NULL;
	size_t n = 0;

	while (want[n])
		n++;
	assert_true(fsb_words_split(tmpl, &words, &why) > 0);
	assert_int_equal(fsb_mkfs_expand(words, devs, ndevs, &argv, &why), (int)n);
	assert_null(why);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(argv[i], want[i]);
	assert_null(argv[n]);
	fsb_words_free(words);
	fsb_words_free(argv);
}

static void expect_expand_error(const char *tmpl, const char *const *devs, size_t ndevs)
{
	char **words = NULL, **argv = NULL;
	const char *why = NULL;

	assert_true(fsb_words_split(tmpl, &words, &why) > 0);
	assert_int_equal(fsb_mkfs_expand(words, devs, ndevs, &argv, &why), -EINVAL);
	assert_null(argv);
	assert_non_null(why);
	fsb_words_free(words);
}

static void expand_placeholders(void **state)
{
	const char *one[] = { "/dev/loop3" };
	const char *two[] = { "/dev/loop3", "/dev/loop4" };
	const char *odd[] = { "/dev/my disk;rm -rf /" };

	(void)state;
	expect_expand("mkfs.ext4 -q -F {dev}", one, 1,
		      (const char *[]){ "mkfs.ext4", "-q", "-F", "/dev/loop3", NULL });
	/* {devs} as a whole word: one word per device. */
	expect_expand("mkfs.btrfs -m raid1 -d raid1 {devs}", two, 2,
		      (const char *[]){ "mkfs.btrfs", "-m", "raid1", "-d", "raid1", "/dev/loop3",
					"/dev/loop4", NULL });
	/* {dev} is the first; {devN} the N-th; inside longer words too. */
	expect_expand("t {dev} {dev1} {dev2} --log={dev2} x{dev1}y", two, 2,
		      (const char *[]){ "t", "/dev/loop3", "/dev/loop3", "/dev/loop4",
					"--log=/dev/loop4", "x/dev/loop3y", NULL });
	/* {devs} inside a longer word: joined with spaces, still one word. */
	expect_expand("t 'all={devs}'", two, 2,
		      (const char *[]){ "t", "all=/dev/loop3 /dev/loop4", NULL });
	/* Other braces are kept as they are. */
	expect_expand("t {foo} {dev {devx} {dev0} {} {{dev}}", one, 1,
		      (const char *[]){ "t", "{foo}", "{dev", "{devx}", "{dev0}", "{}",
					"{/dev/loop3}", NULL });
	/* A device path is one word whatever it contains: never re-split. */
	expect_expand("mkfs {dev}", odd, 1,
		      (const char *[]){ "mkfs", "/dev/my disk;rm -rf /", NULL });
	/* No placeholder, no device: fine. */
	expect_expand("mkfs -x", NULL, 0, (const char *[]){ "mkfs", "-x", NULL });
}

static void expand_errors(void **state)
{
	const char *two[] = { "/dev/loop3", "/dev/loop4" };

	(void)state;
	expect_expand_error("t {dev3}", two, 2);
	expect_expand_error("t {dev}", NULL, 0);
	expect_expand_error("t {devs}", NULL, 0);
	expect_expand_error("t x{dev1}", NULL, 0);
}

static void default_templates(void **state)
{
	char buf[128];

	(void)state;
	assert_int_equal(fsb_mkfs_default_template("ext2", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "mkfs.ext2 -q -F {dev}");
	assert_int_equal(fsb_mkfs_default_template("ext3", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "mkfs.ext3 -q -F {dev}");
	assert_int_equal(fsb_mkfs_default_template("ext4", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "mkfs.ext4 -q -F {dev}");
	assert_int_equal(fsb_mkfs_default_template("xfs", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "mkfs.xfs -q -f {dev}");
	assert_int_equal(fsb_mkfs_default_template("btrfs", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "mkfs.btrfs -q -f {dev}");
	assert_int_equal(fsb_mkfs_default_template("vfat", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "mkfs.vfat {dev}");
	assert_int_equal(fsb_mkfs_default_template("ext4", buf, 8), -ENAMETOOLONG);
	assert_true(fsb_mkfs_is_none("none"));
	assert_false(fsb_mkfs_is_none("none {dev}"));
	assert_false(fsb_mkfs_is_none(NULL));
}

/* ---- finding and running the tool ---- */

struct tmp {
	char dir[PATH_MAX];
};

static int tmp_setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	if (!t || fsb_scratch_create(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", t->dir,
				     sizeof(t->dir)))
		return -1;
	*state = t;
	return 0;
}

static int tmp_teardown(void **state)
{
	struct tmp *t = *state;

	fsb_scratch_remove(t->dir);
	free(t);
	return 0;
}

static void write_script(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

static void which_tool(void **state)
{
	struct tmp *t = *state;
	char path[PATH_MAX], tool[PATH_MAX + 16], *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;

	snprintf(tool, sizeof(tool), "%s/mkfs.fake", t->dir);
	write_script(tool, "#!/bin/sh\nexit 0\n");
	setenv("PATH", t->dir, 1);
	assert_int_equal(fsb_which("mkfs.fake", path, sizeof(path)), 0);
	assert_string_equal(path, tool);
	assert_int_equal(fsb_which("mkfs.missing-here", path, sizeof(path)), -ENOENT);
	assert_int_equal(fsb_which(tool, path, sizeof(path)), 0);
	assert_int_equal(fsb_which("/nonexistent/mkfs.x", path, sizeof(path)), -ENOENT);
	assert_int_equal(fsb_which("", path, sizeof(path)), -ENOENT);
	/* /sbin and /usr/sbin are searched even when PATH lacks them. */
	if (!access("/sbin/mkfs.ext4", X_OK) || !access("/usr/sbin/mkfs.ext4", X_OK))
		assert_int_equal(fsb_which("mkfs.ext4", path, sizeof(path)), 0);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
}

/* Run path/argv with our stderr sent to a file; return rc, fill text. */
static int run_capturing(const char *dir, const char *path, char *const *argv, char *text,
			 size_t len)
{
	char file[PATH_MAX];
	int saved = dup(2), fd, rc;
	ssize_t n;

	snprintf(file, sizeof(file), "%s/stderr", dir);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	rc = fsb_mkfs_run(path, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, text, len - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	close(fd);
	return rc;
}

static void run_tool(void **state)
{
	struct tmp *t = *state;
	char script[PATH_MAX + 16], text[4096];
	char *ok[] = { "true", NULL };
	char *bad[] = { "mkfs.bad", "a;b", "$HOME", "`id`", "x > y", "*", NULL };

	snprintf(script, sizeof(script), "%s/mkfs.bad", t->dir);
	/* Prints its arguments, as received, on stderr and fails. */
	write_script(script, "#!/bin/sh\nprintf '[%s]' \"$@\" >&2\necho 'not a filesystem' >&2\n"
			     "echo 'on stdout' \nexit 3\n");
	assert_int_equal(run_capturing(t->dir, "/bin/true", ok, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	assert_int_equal(run_capturing(t->dir, script, bad, text, sizeof(text)), -EIO);
	/* One fsbench line first, with the tool's first line as its reason,
	 * then the tool's own stderr, stdout dropped. */
	assert_non_null(strstr(text, "fsbench: mkfs failed: 'mkfs.bad' exited with status 3: "
				     "[a;b][$HOME][`id`][x > y][*]not a filesystem\n"));
	/* Every argument arrived as one word, nothing expanded or run. */
	assert_non_null(strstr(text, "[a;b][$HOME][`id`][x > y][*]not a filesystem\n"));
	assert_null(strstr(text, "on stdout"));
	assert_true(strstr(text, "fsbench:") < strstr(text, "[a;b]"));
	/* A program that cannot be run is an error described once. */
	bad[0] = "nothing";
	assert_true(run_capturing(t->dir, "/nonexistent/mkfs", bad, text, sizeof(text)) < 0);
	assert_non_null(strstr(text, "cannot run 'nothing'"));
}

/* ---- the --device rules ---- */

static void cache_modes(void **state)
{
	static const char *const names[] = { "drop", "direct", "keep", "drop-all" };
	enum fsb_cache_mode m;

	(void)state;
	/* One name per mode, both ways. */
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(fsb_cache_mode_parse(names[i], &m), 0);
		assert_int_equal(m, i);
		assert_string_equal(fsb_cache_mode_name(m), names[i]);
	}
	assert_int_equal(fsb_cache_mode_parse("Direct", &m), -EINVAL);
	assert_int_equal(fsb_cache_mode_parse("", &m), -EINVAL);
	assert_int_equal(fsb_cache_mode_parse(NULL, &m), -EINVAL);
	/* Only block I/O in direct mode goes around the cache: per-char and
	 * stat tests are dropped as in drop. */
	assert_true(fsb_cache_bypass(FSB_CACHE_DIRECT, FSB_CACHE_IO_BLOCK));
	assert_false(fsb_cache_bypass(FSB_CACHE_DIRECT, FSB_CACHE_IO_BYTES));
	assert_false(fsb_cache_bypass(FSB_CACHE_DIRECT, FSB_CACHE_IO_META));
	assert_false(fsb_cache_bypass(FSB_CACHE_DROP, FSB_CACHE_IO_BLOCK));
	assert_false(fsb_cache_bypass(FSB_CACHE_KEEP, FSB_CACHE_IO_BLOCK));
	assert_false(fsb_cache_bypass(FSB_CACHE_DROP_ALL, FSB_CACHE_IO_BLOCK));
	assert_int_equal(fsb_cache_open_flags(FSB_CACHE_DIRECT, FSB_CACHE_IO_BLOCK), O_DIRECT);
	assert_int_equal(fsb_cache_open_flags(FSB_CACHE_DIRECT, FSB_CACHE_IO_BYTES), 0);
	assert_int_equal(fsb_cache_open_flags(FSB_CACHE_DROP, FSB_CACHE_IO_BLOCK), 0);
	/* keep touches nothing, not even a descriptor that is no file. */
	assert_int_equal(fsb_cache_prepare_read(-1, FSB_CACHE_KEEP, FSB_CACHE_IO_META), 0);
	assert_int_equal(fsb_cache_prepare_read(1000000, FSB_CACHE_KEEP, FSB_CACHE_IO_BLOCK), 0);
	assert_int_equal(fsb_cache_prepare_read(1000000, FSB_CACHE_DROP, FSB_CACHE_IO_BLOCK),
			 -EBADF);
	/* The cache of tmpfs and ramfs is the filesystem: nothing to drop. */
	assert_true(fsb_cache_ram_fs(TMPFS_MAGIC));
	assert_true(fsb_cache_ram_fs(RAMFS_MAGIC));
	assert_false(fsb_cache_ram_fs(EXT4_SUPER_MAGIC));
	assert_false(fsb_cache_ram_fs(XFS_SUPER_MAGIC));
	assert_false(fsb_cache_ram_fs(BTRFS_SUPER_MAGIC));
}

/* mincore's answer for a file fsbench wrote: its pages are resident after
 * writing on every filesystem; after fsync and fadvise they are gone,
 * except on tmpfs, where the page cache is the storage. */
static void cache_resident_share(void **state)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	static char buf[1 << 20];
	char path[PATH_MAX];
	double share = -1;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/fsb-resident-XXXXXX", tmp);
	assert_true((fd = mkstemp(path)) >= 0);
	unlink(path);
	assert_int_equal(fsb_cache_resident(fd, &share), 0);
	assert_true(share == 0); /* empty */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	assert_int_equal(fsb_cache_resident(fd, &share), 0);
	assert_true(share > 0.99);
	assert_int_equal(fsb_cache_drop_fd(fd), 0);
	assert_int_equal(fsb_cache_resident(fd, &share), 0);
	if (fsb_cache_ram_path(tmp))
		assert_true(share > 0.99);
	else
		assert_true(share < 0.5);
	close(fd);
	assert_int_equal(fsb_cache_resident(-1, &share), -EBADF);
}

/* What a drop-mode preparation does is noted for the runner: the file's
 * resident share after its eviction, and a stat test left warm (no
 * global drop in drop or direct mode, and no remount without a
 * filesystem fsbench made). */
static void cache_prepare_notes(void **state)
{
	static char buf[1 << 20];
	char path[PATH_MAX] = "/var/tmp/fsb-note-XXXXXX";
	struct fsb_cache_note n;
	int fd, dir;

	(void)state;
	if (fsb_cache_ram_path("/var/tmp"))
		skip();
	assert_true((fd = mkstemp(path)) >= 0);
	unlink(path);
	assert_true((dir = open("/var/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
	memset(buf, 'y', sizeof(buf));
	assert_int_equal(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	fsb_cache_note_reset();
	fsb_cache_note_take(&n);
	assert_false(n.resident_known);
	assert_int_equal(n.meta, FSB_CACHE_META_NONE);
	assert_int_equal(fsb_cache_prepare_read(fd, FSB_CACHE_DROP, FSB_CACHE_IO_BLOCK), 0);
	assert_int_equal(fsb_cache_prepare_read(dir, FSB_CACHE_DIRECT, FSB_CACHE_IO_META), 0);
	fsb_cache_note_take(&n);
	assert_true(n.resident_known);
	assert_true(n.resident >= 0 && n.resident < 0.5);
	assert_int_equal(n.meta, FSB_CACHE_META_WARM);
	assert_false(fsb_cache_remount_fits(FSB_CACHE_DROP, dir, true));
	fsb_cache_note_reset();
	close(dir);
	close(fd);
}

static void cache_moot(void **state)
{
	int shm = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	struct statfs sf;

	(void)state;
	assert_true(shm >= 0);
	assert_true(proc >= 0);
	/* /dev/shm is a tmpfs on Debian; a container may mount it otherwise */
	if (fstatfs(shm, &sf) || !fsb_cache_ram_fs((unsigned long)sf.f_type)) {
		close(proc);
		close(shm);
		skip();
	}
	/* keep: moot whatever the descriptor, even none or no file */
	assert_true(fsb_cache_moot(FSB_CACHE_KEEP, -1));
	assert_true(fsb_cache_moot(FSB_CACHE_KEEP, 1000000));
	assert_true(fsb_cache_moot(FSB_CACHE_KEEP, proc));
	/* a filesystem in memory: moot in every mode */
	assert_true(fsb_cache_moot(FSB_CACHE_DROP, shm));
	assert_true(fsb_cache_moot(FSB_CACHE_DIRECT, shm));
	/* anything else, or nothing known, is dropped */
	assert_false(fsb_cache_moot(FSB_CACHE_DROP, proc));
	assert_false(fsb_cache_moot(FSB_CACHE_DIRECT, proc));
	assert_false(fsb_cache_moot(FSB_CACHE_DROP, -1));
	assert_false(fsb_cache_moot(FSB_CACHE_DROP, 1000000));
	/* and prepare_read does nothing where it is moot */
	assert_int_equal(fsb_cache_prepare_read(shm, FSB_CACHE_DROP, FSB_CACHE_IO_META), 0);
	close(proc);
	close(shm);
}

static void free_device(struct fsb_probe_facts *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->dev, sizeof(f->dev), "/dev/sdx");
	f->is_blockdev = true;
	f->size_bytes = 1ull << 30;
}

static void rules_free_device_ok(void **state)
{
	struct fsb_probe_facts f;
	char why[1024] = "x";

	(void)state;
	free_device(&f);
	assert_int_equal(fsb_probe_decide(&f, false, why, sizeof(why)), FSB_PROBE_OK);
	assert_string_equal(why, "");
	assert_int_equal(fsb_probe_decide(&f, true, NULL, 0), FSB_PROBE_OK);
}

static void rules_each_refusal(void **state)
{
	struct fsb_probe_facts f;
	char why[1024];

	(void)state;
	free_device(&f);
	f.mounted = true;
	snprintf(f.mounted_dev, sizeof(f.mounted_dev), "/dev/sdx2");
	snprintf(f.mounted_on, sizeof(f.mounted_on), "/srv");
	assert_int_equal(fsb_probe_decide(&f, false, why, sizeof(why)), FSB_PROBE_MOUNTED);
	assert_non_null(strstr(why, "refusing '/dev/sdx': '/dev/sdx2' is mounted on '/srv'"));
	assert_non_null(strstr(why, "(rule: mounted); unmount it first"));
	/* The kernel refuses a mounted device anyway: no false promise. */
	assert_null(strstr(why, "--destroy-data"));

	free_device(&f);
	f.swap = true;
	snprintf(f.swap_dev, sizeof(f.swap_dev), "/dev/sdx3");
	assert_int_equal(fsb_probe_decide(&f, false, why, sizeof(why)), FSB_PROBE_SWAP);
	assert_non_null(
		strstr(why, "'/dev/sdx3' is in use as swap (rule: swap); swapoff it first"));
	assert_null(strstr(why, "--destroy-data"));

	free_device(&f);
	f.held = true;
	snprintf(f.held_dev, sizeof(f.held_dev), "/dev/sdx1");
	snprintf(f.holder, sizeof(f.holder), "md0");
	assert_int_equal(fsb_probe_decide(&f, false, why, sizeof(why)), FSB_PROBE_HOLDERS);
	assert_non_null(strstr(why, "'/dev/sdx1' is held by 'md0'"));
	assert_non_null(strstr(why, "(rule: holders); stop that first"));
	assert_null(strstr(why, "--destroy-data"));

	free_device(&f);
	f.signature = true;
	snprintf(f.sig_type, sizeof(f.sig_type), "ext4");
	snprintf(f.sig_usage, sizeof(f.sig_usage), "filesystem");
	assert_int_equal(fsb_probe_decide(&f, false, why, sizeof(why)), FSB_PROBE_SIGNATURE);
	assert_non_null(strstr(why, "filesystem signature (ext4) (rule: signature)"));
	assert_non_null(strstr(why, "pass --destroy-data"));

	free_device(&f);
	f.signature = true;
	snprintf(f.sig_type, sizeof(f.sig_type), "linux_raid_member");
	snprintf(f.sig_usage, sizeof(f.sig_usage), "raid");
	assert_int_equal(fsb_probe_decide(&f, false, why, sizeof(why)), FSB_PROBE_SIGNATURE);
	assert_non_null(strstr(why, "raid signature (linux_raid_member)"));

	free_device(&f);
	f.ptable = true;
	snprintf(f.pt_type, sizeof(f.pt_type), "gpt");
	assert_int_equal(fsb_probe_decide(&f, false, why, sizeof(why)), FSB_PROBE_PTABLE);
	assert_non_null(strstr(why, "partition table (gpt) (rule: partition table)"));
}

static void rules_destroy_data_overrides(void **state)
{
	struct fsb_probe_facts f;
	char why[1024];

	(void)state;
	free_device(&f);
	f.mounted = f.swap = f.held = f.signature = f.ptable = true;
	/* The first rule that applies is the one named; a device in use is
	 * refused with --destroy-data too (the kernel would refuse it). */
	assert_int_equal(fsb_probe_decide(&f, false, why, sizeof(why)), FSB_PROBE_MOUNTED);
	assert_int_equal(fsb_probe_decide(&f, true, why, sizeof(why)), FSB_PROBE_MOUNTED);
	f.mounted = false;
	assert_int_equal(fsb_probe_decide(&f, true, why, sizeof(why)), FSB_PROBE_SWAP);
	f.swap = false;
	assert_int_equal(fsb_probe_decide(&f, true, why, sizeof(why)), FSB_PROBE_HOLDERS);
	f.held = false;
	/* What is on it is what --destroy-data gives up. */
	assert_int_equal(fsb_probe_decide(&f, false, why, sizeof(why)), FSB_PROBE_SIGNATURE);
	assert_int_equal(fsb_probe_decide(&f, true, why, sizeof(why)), FSB_PROBE_OK);
	assert_string_equal(why, "");
}

static void rules_root_and_files_never(void **state)
{
	struct fsb_probe_facts f;
	char why[1024];

	(void)state;
	free_device(&f);
	f.holds_root = true;
	f.mounted = true;
	snprintf(f.root_dev, sizeof(f.root_dev), "/dev/sdx1 on /");
	assert_int_equal(fsb_probe_decide(&f, false, why, sizeof(why)), FSB_PROBE_ROOT);
	assert_int_equal(fsb_probe_decide(&f, true, why, sizeof(why)), FSB_PROBE_ROOT);
	assert_non_null(strstr(why, "holds the root filesystem (/dev/sdx1 on /)"));
	assert_non_null(strstr(why, "never overridden"));

	free_device(&f);
	f.is_blockdev = false;
	assert_int_equal(fsb_probe_decide(&f, true, why, sizeof(why)), FSB_PROBE_NOT_BLOCKDEV);
	assert_non_null(strstr(why, "not a block device"));
	assert_non_null(strstr(why, "--image"));
	assert_string_equal(fsb_probe_rule_name(FSB_PROBE_SIGNATURE), "signature");
}

static void min_sizes(void **state)
{
	(void)state;
	assert_int_equal(fsb_probe_min_size("xfs"), 300ull << 20);
	assert_int_equal(fsb_probe_min_size("btrfs"), 114294784);
	assert_int_equal(fsb_probe_min_size("ext2"), 1ull << 20);
	assert_int_equal(fsb_probe_min_size("ext4"), 1ull << 20);
	assert_int_equal(fsb_probe_min_size("jffs2"), 0);
}

/* ---- diskstat ---- */

static void diskstat_deltas(void **state)
{
	struct fsb_diskstat a, b;

	(void)state;
	/* reads merges sectors ticks writes merges sectors ticks ... */
	assert_int_equal(fsb_diskstat_parse("     120        3     9000      40      77        1"
					    "    20480      90        0      100      130\n",
					    &a),
			 0);
	assert_int_equal(a.read_sectors, 9000);
	assert_int_equal(a.write_sectors, 20480);
	assert_int_equal(fsb_diskstat_parse("121 3 9008 41 99 1 53248 95 0 110 140 0 0 0 0\n", &b),
			 0);
	/* Counters are 512-byte sectors whatever the block size. */
	assert_int_equal(fsb_diskstat_read_bytes(&a, &b), 8 * 512);
	assert_int_equal(fsb_diskstat_write_bytes(&a, &b), (53248 - 20480) * 512ull);
	/* No change: zero. A counter that went back (device re-created): 0. */
	assert_int_equal(fsb_diskstat_write_bytes(&a, &a), 0);
	assert_int_equal(fsb_diskstat_read_bytes(&b, &a), 0);
	assert_int_equal(fsb_diskstat_write_bytes(&b, &a), 0);
	/* Large counters do not overflow on the way to bytes. */
	a.write_sectors = 1ull << 40;
	b.write_sectors = (1ull << 40) + (1ull << 30);
	assert_int_equal(fsb_diskstat_write_bytes(&a, &b), (1ull << 30) * 512);
	assert_int_equal(fsb_diskstat_parse("1 2 3\n", &a), -EINVAL);
	assert_int_equal(fsb_diskstat_parse("", &a), -EINVAL);
	assert_int_equal(fsb_diskstat_parse("garbage", &a), -EINVAL);
}

/* ---- fill ---- */

static void fill_names(void **state)
{
	enum fsb_fill f;

	(void)state;
	assert_int_equal(fsb_fill_parse("0xff", &f), 0);
	assert_int_equal(f, FSB_FILL_FF);
	assert_int_equal(fsb_fill_parse("0xFF", &f), 0);
	assert_int_equal(f, FSB_FILL_FF);
	assert_int_equal(fsb_fill_parse("ff", &f), 0);
	assert_int_equal(f, FSB_FILL_FF);
	assert_int_equal(fsb_fill_parse("zero", &f), 0);
	assert_int_equal(f, FSB_FILL_ZERO);
	assert_int_equal(fsb_fill_parse("0x00", &f), 0);
	assert_int_equal(f, FSB_FILL_ZERO);
	assert_int_equal(fsb_fill_parse("random", &f), 0);
	assert_int_equal(f, FSB_FILL_RANDOM);
	assert_int_equal(fsb_fill_parse("none", &f), 0);
	assert_int_equal(f, FSB_FILL_NONE);
	assert_int_equal(fsb_fill_parse("", &f), -EINVAL);
	assert_int_equal(fsb_fill_parse("0xfe", &f), -EINVAL);
	assert_int_equal(fsb_fill_parse("ones", &f), -EINVAL);
	assert_int_equal(fsb_fill_parse(NULL, &f), -EINVAL);
	for (int i = FSB_FILL_FF; i <= FSB_FILL_NONE; i++) {
		assert_int_equal(fsb_fill_parse(fsb_fill_name((enum fsb_fill)i), &f), 0);
		assert_int_equal(f, i);
	}
}

static void fill_random_is_seeded(void **state)
{
	unsigned char a[37], b[37], c[37];
	uint64_t s1 = 42, s2 = 42, s3 = 43;

	(void)state;
	fsb_fill_random(a, sizeof(a), &s1);
	fsb_fill_random(b, sizeof(b), &s2);
	fsb_fill_random(c, sizeof(c), &s3);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	assert_int_equal(s1, s2);
}

static void fill_patterns(void **state)
{
	struct tmp *t = *state;
	const uint64_t size = (5u << 20) + 123; /* crosses the 4 MiB chunk */
	unsigned char *buf = malloc(size), *want = malloc(size);
	char path[PATH_MAX + 16];
	uint64_t seed = 7;
	int fd;

	assert_non_null(buf);
	assert_non_null(want);
	snprintf(path, sizeof(path), "%s/img", t->dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);

	assert_int_equal(fsb_fill_fd(fd, path, size, FSB_FILL_FF, 1), 0);
	assert_int_equal(pread(fd, buf, size, 0), (ssize_t)size);
	memset(want, 0xff, size);
	assert_memory_equal(buf, want, size);

	assert_int_equal(fsb_fill_fd(fd, path, size, FSB_FILL_RANDOM, 7), 0);
	assert_int_equal(pread(fd, buf, size, 0), (ssize_t)size);
	/* The pattern is the generator's stream in 4 MiB pieces. */
	fsb_fill_random(want, 4u << 20, &seed);
	fsb_fill_random(want + (4u << 20), size - (4u << 20), &seed);
	assert_memory_equal(buf, want, size);

	/* none leaves the content alone. */
	assert_int_equal(fsb_fill_fd(fd, path, size, FSB_FILL_NONE, 1), 0);
	assert_int_equal(pread(fd, buf, size, 0), (ssize_t)size);
	assert_memory_equal(buf, want, size);

	assert_int_equal(fsb_fill_fd(fd, path, size, FSB_FILL_ZERO, 1), 0);
	assert_int_equal(pread(fd, buf, size, 0), (ssize_t)size);
	memset(want, 0, size);
	assert_memory_equal(buf, want, size);
	close(fd);
	unlink(path);
	free(buf);
	free(want);
}

/* ---- /proc/filesystems ---- */

static void fs_listed(void **state)
{
	const char *text = "nodev\tsysfs\nnodev\ttmpfs\n\text3\n\text2\n\text4\n"
			   "nodev\tbtrfs_test\n\txfs\n";

	(void)state;
	assert_true(fsb_mount_fs_listed(text, "ext4"));
	assert_true(fsb_mount_fs_listed(text, "xfs"));
	assert_true(fsb_mount_fs_listed(text, "tmpfs"));
	assert_false(fsb_mount_fs_listed(text, "btrfs"));
	assert_false(fsb_mount_fs_listed(text, "ext"));
	assert_false(fsb_mount_fs_listed(text, "nodev"));
	assert_false(fsb_mount_fs_listed("", "ext4"));
	assert_true(fsb_mount_fs_listed("\txfs", "xfs")); /* no final newline */
}

/* ---- the lifecycle view ---- */

static void real_lines(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(fsb_lifecycle_fmt_real(0.179, buf, sizeof(buf)), "0m0.179s");
	assert_string_equal(fsb_lifecycle_fmt_real(4.841, buf, sizeof(buf)), "0m4.841s");
	assert_string_equal(fsb_lifecycle_fmt_real(151.043, buf, sizeof(buf)), "2m31.043s");
	assert_string_equal(fsb_lifecycle_fmt_real(59.9996, buf, sizeof(buf)), "1m0.000s");
	/* Short phases keep microseconds: 1 ms is never 0. */
	assert_string_equal(fsb_lifecycle_fmt_real(0.001, buf, sizeof(buf)), "0m0.001000s");
	assert_string_equal(fsb_lifecycle_fmt_real(0.000412, buf, sizeof(buf)), "0m0.000412s");
	assert_string_equal(fsb_lifecycle_fmt_real(0.0099999, buf, sizeof(buf)), "0m0.010000s");
	assert_string_equal(fsb_lifecycle_fmt_real(0.01, buf, sizeof(buf)), "0m0.010s");
	assert_string_equal(fsb_lifecycle_fmt_real(-1, buf, sizeof(buf)), "0m0.000000s");
	assert_string_equal(fsb_lifecycle_fmt_real(NAN, buf, sizeof(buf)), "0m0.000000s");
}

static void add_phase(struct fsb_result *r, const char *id, double a, double b, double c,
		      uint64_t rd, uint64_t wr, double wa)
{
	double runs[3] = { a, b, c };
	struct fsb_test_result *t = fsb_result_add_test(r, id, "s");

	assert_non_null(t);
	assert_int_equal(fsb_test_set_runs(t, runs, 3), 0);
	t->has_device = true;
	t->dev_read_bytes = rd;
	t->dev_write_bytes = wr;
	if (wa > 0) {
		t->has_wa = true;
		t->write_amplification = wa;
	}
}

static void make_result(struct fsb_result *r, const char *label)
{
	assert_int_equal(fsb_result_init(r, "lifecycle"), 0);
	assert_int_equal(fsb_strset(&r->setup.label, label), 0);
	assert_int_equal(fsb_result_param_u64(r, "copy_size_bytes", 16u << 20), 0);
	add_phase(r, "mkfs-mount", 0.171, 0.179, 0.169, 6144, 1024, 0);
	add_phase(r, "mount-umount", 0.203, 0.308, 0.184, 0, 0, 0);
	add_phase(r, "write", 25.046, 35.871, 21.614, 0, 17u << 20, 17.0 / 16);
}

static char *render_many(const struct fsb_result *const *rs, size_t n, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*rc = fsb_write_lifecycle_many(f, rs, n);
	fclose(f);
	return buf;
}

static void lifecycle_layout(void **state)
{
	struct fsb_result a, b;
	const struct fsb_result *one[] = { &a }, *both[] = { &a, &b };
	char *text;
	int rc;

	(void)state;
	make_result(&a, "LogFS");
	make_result(&b, "JFFS2");
	text = render_many(one, 1, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(text,
			    "Mount LogFS\n"
			    "real\t0m0.179s\tmount, highest of 3\n"
			    "real\t0m0.171s\tmount, median\n"
			    "real\t0m0.169s\tmount, lowest\n"
			    "device\tread 6.0 KiB, written 1.0 KiB (mean of 3 runs)\n"
			    "\n"
			    "Mount/umount LogFS\n"
			    "real\t0m0.308s\tmount+umount, highest of 3\n"
			    "real\t0m0.203s\tmount+umount, median\n"
			    "real\t0m0.184s\tmount+umount, lowest\n"
			    "device\tread 0 B, written 0 B (mean of 3 runs)\n"
			    "\n"
			    "Copy 16MiB file to LogFS\n"
			    "real\t0m35.871s\tmount+copy+umount, highest of 3\n"
			    "real\t0m25.046s\tmount+copy+umount, median\n"
			    "real\t0m21.614s\tmount+copy+umount, lowest\n"
			    "device\tread 0 B, written 17.0 MiB (mean of 3 runs)\n"
			    "write amplification\t1.06 (device bytes written / bytes copied)\n");
	free(text);
	/* Several results: phase by phase, one block per setup, as the
	 * reference puts LogFS and JFFS2 side by side. */
	text = render_many(both, 2, &rc);
	assert_int_equal(rc, 0);
	{
		const char *m1 = strstr(text, "Mount LogFS\n"), *m2 = strstr(text, "Mount JFFS2\n");
		const char *u1 = strstr(text, "Mount/umount LogFS\n");
		const char *u2 = strstr(text, "Mount/umount JFFS2\n");
		const char *c2 = strstr(text, "Copy 16MiB file to JFFS2\n");

		assert_true(m1 && m2 && u1 && u2 && c2);
		assert_true(m1 < m2 && m2 < u1 && u1 < u2 && u2 < c2);
		/* No blank line inside a phase group, one between groups. */
		assert_non_null(strstr(text, "(mean of 3 runs)\nMount JFFS2\n"));
		assert_non_null(strstr(text, "(mean of 3 runs)\n\nMount/umount LogFS\n"));
	}
	free(text);
	fsb_result_release(&a);
	fsb_result_release(&b);
}

static void lifecycle_refuses_run_results(void **state)
{
	struct fsb_result r;
	const struct fsb_result *one[] = { &r };
	char *text;
	int rc;

	(void)state;
	assert_int_equal(fsb_result_init(&r, "run"), 0);
	add_phase(&r, "write", 1, 2, 3, 0, 0, 0);
	/* A throughput "write" is not a lifecycle phase. */
	text = render_many(one, 1, &rc);
	assert_int_equal(rc, -EINVAL);
	free(text);
	fsb_result_release(&r);
}

/* ---- loop devices (root) ---- */

static void loop_attach_detach(void **state)
{
	struct tmp *t = *state;
	struct fsb_loopdev lo;
	struct fsb_image img;
	char path[PATH_MAX + 16], dev[64], sys[128], backing[PATH_MAX];
	FILE *f;
	int fd;

	if (geteuid() != 0) {
		skip();
		return;
	}
	snprintf(path, sizeof(path), "%s/loop.img", t->dir);
	assert_int_equal(fsb_image_create(&img, path, 8u << 20), 0);
	fd = img.fd;
	fsb_loopdev_init(&lo);
	assert_int_equal(lo.fd, -1);
	if (fsb_loopdev_attach(&lo, fd, path, true)) {
		fsb_image_close(&img, true);
		skip(); /* no loop support in this environment */
		return;
	}
	assert_true(lo.fd >= 0);
	assert_true(lo.nr >= 0);
	assert_int_equal(fsb_loopdev_find_backing(path, dev, sizeof(dev)), 1);
	assert_string_equal(dev, lo.path);
	assert_int_equal(fsb_loopdev_find_backing_fd(fd, dev, sizeof(dev)), 1);
	assert_string_equal(dev, lo.path);
	snprintf(sys, sizeof(sys), "/sys/block/loop%d/loop/backing_file", lo.nr);
	f = fopen(sys, "r");
	assert_non_null(f);
	assert_non_null(fgets(backing, sizeof(backing), f));
	fclose(f);
	assert_non_null(strstr(backing, "loop.img"));
	assert_int_equal(fsb_loopdev_detach(&lo), 0);
	assert_int_equal(lo.fd, -1);
	/* Detached: gone from sysfs; a second detach is a no-op. */
	assert_int_equal(fsb_loopdev_find_backing(path, dev, sizeof(dev)), 0);
	assert_int_equal(fsb_loopdev_detach(&lo), 0);
	fsb_loopdev_release(&lo);
	fsb_image_close(&img, true);
}

/* The queue depth a device reaches: the inflight file's two counts added,
 * found beside the stat file, sampled by a thread. */
static void inflight_parse_and_sample(void **state)
{
	struct fsb_inflight_summary sum;
	struct fsb_inflight *smp;
	char path[PATH_MAX], tmp[] = "/tmp/fsb-inflight.XXXXXX";
	uint64_t n;
	int fd, in;
	(void)state;

	assert_int_equal(fsb_inflight_parse("       3        5\n", &n), 0);
	assert_int_equal(n, 8);
	assert_int_equal(fsb_inflight_parse("", &n), -EINVAL);
	assert_int_equal(fsb_inflight_parse("7", &n), -EINVAL);
	assert_int_equal(fsb_inflight_path("/sys/dev/block/7:3/stat", path, sizeof(path)), 0);
	assert_string_equal(path, "/sys/dev/block/7:3/inflight");
	assert_int_equal(fsb_inflight_path("/sys/dev/block/7:3", path, sizeof(path)), -EINVAL);
	assert_int_equal(fsb_inflight_path("/sys/dev/block/7:3/stat", path, 10), -ENAMETOOLONG);
	/* A file that says 2 and 4 in flight, sampled until the sampler has
	 * read it twice (inotify's IN_ACCESS, 10 s at most): a loaded
	 * machine may start the sampler's thread late, and a fixed 50 ms
	 * could end before its second sample. Each read(2) of the inotify
	 * descriptor is at least one access (unread events coalesce). */
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "2 4\n", 4), 4);
	close(fd);
	in = inotify_init1(IN_CLOEXEC);
	assert_true(in >= 0);
	assert_true(inotify_add_watch(in, tmp, IN_ACCESS) >= 0);
	smp = fsb_inflight_start(tmp);
	assert_non_null(smp);
	for (int reads = 0; reads < 2; reads++) {
		struct pollfd pfd = { .fd = in, .events = POLLIN };
		char ev[sizeof(struct inotify_event) + NAME_MAX + 1];

		assert_int_equal(poll(&pfd, 1, 10000), 1);
		assert_true(read(in, ev, sizeof(ev)) >= (ssize_t)sizeof(struct inotify_event));
	}
	close(in);
	fsb_inflight_stop(smp, &sum);
	assert_true(sum.samples >= 2);
	assert_int_equal(sum.max, 6);
	assert_true(sum.mean > 5.99 && sum.mean < 6.01);
	unlink(tmp);
	/* Nothing to sample: the test runs without it. */
	assert_null(fsb_inflight_start("/nonexistent/inflight"));
	fsb_inflight_stop(NULL, &sum);
	assert_int_equal(sum.samples, 0);
}

/* What a rewrite in place holds twice: nothing, btrfs's extent, or all. */
/* A 256 MiB single btrfs: chunks of 32 MiB (10% rounded up to 16 MiB);
 * data keeps a metadata chunk and the reserve unallocated, in whole
 * data chunks; DUP metadata keeps twice that. */
static void btrfs_data_room(void **state)
{
	struct fsb_btrfs_meta m = { 0 };

	(void)state;
	assert_int_equal(fsb_btrfs_chunk_size(256ull << 20, 256ull << 20), 32ull << 20);
	assert_int_equal(fsb_btrfs_chunk_size(10ull << 30, 100ull << 30), 1ull << 30);
	m.ndevs = 1;
	m.copies = m.data_copies = 1;
	m.meta_chunk = m.data_chunk = 32ull << 20;
	m.reserve = 5632ull << 10;
	m.data_total = 8ull << 20;
	m.unallocated[0] = 242ull << 20;
	/* 242 - 37.5 = 204.5: 6 whole chunks, plus the 8 MiB chunk free. */
	assert_int_equal(fsb_btrfs_data_room(&m), 200ull << 20);
	m.data_used = 8ull << 20;
	assert_int_equal(fsb_btrfs_data_room(&m), 192ull << 20);
	m.dup = true; /* 242 - 75 = 167: 5 chunks */
	assert_int_equal(fsb_btrfs_data_room(&m), 160ull << 20);
	/* Less unallocated than the headroom: only the chunks' free. */
	m.unallocated[0] = 30ull << 20;
	m.data_used = 0;
	assert_int_equal(fsb_btrfs_data_room(&m), 8ull << 20);
}

static void cow_window(void **state)
{
	(void)state;
	assert_int_equal(fsb_fsinfo_cow_window("ext4"), 0);
	assert_int_equal(fsb_fsinfo_cow_window("xfs"), 0);
	assert_int_equal(fsb_fsinfo_cow_window(NULL), 0);
	assert_int_equal(fsb_fsinfo_cow_window("btrfs"), 128ull << 20);
	assert_true(fsb_fsinfo_cow_window("zfs") == UINT64_MAX);
	assert_true(fsb_fsinfo_cow_window("bcachefs") == UINT64_MAX);
}

/* The data of a sparse file (SEEK_DATA/SEEK_HOLE): each extent written,
 * as offsets from the start asked for, cut to whole aligned blocks; at
 * most max; none in a file of holes; a loop device's the same way, and
 * any other file not a loop device. */
static void data_ranges_of_sparse_file(void **state)
{
	struct tmp *t = *state;
	char path[PATH_MAX + 16], buf[8192], file[64];
	struct fsb_range *v;
	size_t n;
	int fd;

	memset(buf, 0xab, sizeof(buf));
	snprintf(path, sizeof(path), "%s/sparse", t->dir);
	assert_true((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) >= 0);
	assert_int_equal(ftruncate(fd, 8 << 20), 0);
	assert_int_equal(fsb_file_data_ranges(fd, 0, 8 << 20, 4096, 16, &v, &n), 0);
	assert_int_equal(n, 0);
	free(v);
	assert_int_equal(pwrite(fd, buf, 8192, 1 << 20), 8192);
	for (int i = 0; i < 128; i++)
		assert_int_equal(pwrite(fd, buf, 8192, (5 << 20) + i * 8192), 8192);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(fsb_file_data_ranges(fd, 0, 8 << 20, 4096, 16, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].off, 1 << 20);
	assert_int_equal(v[0].len, 8192);
	assert_int_equal(v[1].off, 5 << 20);
	assert_int_equal(v[1].len, 1 << 20);
	free(v);
	/* From an offset (a loop device's lo_offset): device offsets, a block
	 * half in the data left out, nothing past start + len. */
	assert_int_equal(fsb_file_data_ranges(fd, (1 << 20) + 2048, 4 << 20, 4096, 16, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].off, 0);
	assert_int_equal(v[0].len, 4096);
	free(v);
	assert_int_equal(fsb_file_data_ranges(fd, 0, (5 << 20) + 4096, 4096, 16, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[1].len, 4096);
	free(v);
	assert_int_equal(fsb_file_data_ranges(fd, 0, 8 << 20, 4096, 1, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].off, 1 << 20);
	free(v);
	/* A character device's lseek answers 0 to anything: no data, and
	 * no endless walk. */
	{
		int nfd = open("/dev/null", O_RDONLY);

		assert_true(nfd >= 0);
		assert_int_equal(fsb_file_data_ranges(nfd, 0, 8 << 20, 4096, 16, &v, &n), 0);
		assert_int_equal(n, 0);
		free(v);
		close(nfd);
	}
	/* A regular file is no loop device: every byte of it is data. */
	assert_int_equal(fsb_loopdev_data_ranges(fd, 8 << 20, 4096, 16, &v, &n, file, sizeof(file)),
			 0);
	assert_null(v);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(split_words),
		cmocka_unit_test(split_quotes),
		cmocka_unit_test(split_metacharacters_are_plain),
		cmocka_unit_test(split_errors),
		cmocka_unit_test(expand_placeholders),
		cmocka_unit_test(expand_errors),
		cmocka_unit_test(default_templates),
		cmocka_unit_test_setup_teardown(which_tool, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(run_tool, tmp_setup, tmp_teardown),
		cmocka_unit_test(cache_modes),
		cmocka_unit_test(cache_prepare_notes),
		cmocka_unit_test(cache_moot),
		cmocka_unit_test(inflight_parse_and_sample),
		cmocka_unit_test(rules_free_device_ok),
		cmocka_unit_test(rules_each_refusal),
		cmocka_unit_test(rules_destroy_data_overrides),
		cmocka_unit_test(rules_root_and_files_never),
		cmocka_unit_test(min_sizes),
		cmocka_unit_test(diskstat_deltas),
		cmocka_unit_test(fill_names),
		cmocka_unit_test(fill_random_is_seeded),
		cmocka_unit_test_setup_teardown(fill_patterns, tmp_setup, tmp_teardown),
		cmocka_unit_test(fs_listed),
		cmocka_unit_test(real_lines),
		cmocka_unit_test(cache_resident_share),
		cmocka_unit_test(cow_window),
		cmocka_unit_test(btrfs_data_room),
		cmocka_unit_test(lifecycle_layout),
		cmocka_unit_test(lifecycle_refuses_run_results),
		cmocka_unit_test_setup_teardown(loop_attach_detach, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(data_ranges_of_sparse_file, tmp_setup,
						tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
