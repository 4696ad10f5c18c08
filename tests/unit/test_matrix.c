/*
 * Unit tests of the matrix: INI loading (src/core/matrix.c) of good files
 * (inheritance from [global], types implied by labels, default templates,
 * indented keys, empty sections) and bad ones, each with its exact
 * "FILE:LINE: what" message; templates naming a block device and files
 * another user could change, refused; mkfs template expansion for
 * multi-device setups; and the matrix views (src/report/matrix.c) on fabricated results:
 * the JSON shape compare/report read, the text layout, the CSV lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli/matrix_ini.h"
#include "core/matrix.h"
#include "device/mkfs.h"
#include "report/json.h"
#include "report/matrix.h"
#include "report/result.h"
#include "util/error.h"
#include "util/spawn.h"

static char tmpdir[PATH_MAX];
static char ini[PATH_MAX + 16];

static int tmp_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/fsbench-test-matrix.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(ini, sizeof(ini), "%s/m.ini", tmpdir);
	return 0;
}

static int tmp_teardown(void **state)
{
	(void)state;
	unlink(ini);
	rmdir(tmpdir);
	return 0;
}

static void write_ini(const char *text)
{
	FILE *f = fopen(ini, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Load text; it must fail with exactly "<ini>:<want>". */
static void expect_bad(const char *text, const char *want)
{
	struct fsb_matrix_config cfg;
	char why[1024], full[PATH_MAX + 1024];

	write_ini(text);
	assert_int_equal(fsb_matrix_config_load(ini, &cfg, why, sizeof(why)), -EINVAL);
	snprintf(full, sizeof(full), "%s:%s", ini, want);
	assert_string_equal(why, full);
	fsb_matrix_config_release(&cfg);
}

static void load_good(const char *text, struct fsb_matrix_config *cfg)
{
	char why[1024] = "";
	int rc;

	write_ini(text);
	rc = fsb_matrix_config_load(ini, cfg, why, sizeof(why));
	if (rc)
		print_error("unexpected: %s\n", why);
	assert_int_equal(rc, 0);
}

static void good_file(void **state)
{
	struct fsb_matrix_config cfg;
	const struct fsb_matrix_setup *s;

	(void)state;
	load_good("# the DESIGN.md example, and more\n"
		  "[global]\n"
		  "image_size = 1G\n"
		  "run = --size 512m --files 16k\n"
		  "lifecycle = --repeat 2\n"
		  "repeat = 5\n"
		  "workdir = /srv/scratch\n"
		  "\n"
		  "[ext2]\n"
		  "mkfs = mkfs.ext2 -q -F {dev}\n"
		  "; a comment\n"
		  "[ext3-writeback]\n"
		  "type = ext3\n"
		  "mkfs = mkfs.ext3 -q -F {dev}\n"
		  "options = data=writeback\n"
		  "fill = 0xff\n"
		  "[btrfs-raid1]\n"
		  "devices = 2\n"
		  "mkfs = mkfs.btrfs -q -f -m raid1 -d raid1 {devs}\n"
		  "image_size = 2g\n"
		  "lifecycle =\n"
		  "[XFS/crc]\n"
		  "run =\n",
		  &cfg);
	assert_string_equal(cfg.path, ini);
	assert_string_equal(cfg.workdir, "/srv/scratch");
	assert_int_equal(cfg.repeat, 5);
	assert_int_equal(cfg.nsetups, 4);

	s = &cfg.setups[0];
	assert_string_equal(s->label, "ext2");
	assert_string_equal(s->type, "ext2"); /* from the label */
	assert_string_equal(s->mkfs, "mkfs.ext2 -q -F {dev}");
	assert_string_equal(s->options, "");
	assert_int_equal(s->devices, 1);
	assert_int_equal(s->image_bytes, 1ull << 30); /* from [global] */
	assert_int_equal(s->fill, FSB_FILL_ZERO);     /* the default */
	assert_string_equal(s->run, "--size 512m --files 16k");
	assert_string_equal(s->lifecycle, "--repeat 2");
	assert_int_equal(s->line, 9);
	assert_int_equal(s->run_line, 4);
	assert_int_equal(s->lifecycle_line, 5);

	s = &cfg.setups[1];
	assert_string_equal(s->label, "ext3-writeback");
	assert_string_equal(s->type, "ext3");
	assert_string_equal(s->options, "data=writeback");
	assert_int_equal(s->fill, FSB_FILL_FF);

	s = &cfg.setups[2];
	assert_string_equal(s->type, "btrfs"); /* leading letters and digits */
	assert_int_equal(s->devices, 2);
	assert_int_equal(s->image_bytes, 2ull << 30);
	assert_null(s->lifecycle); /* "lifecycle =" switches it off */
	assert_non_null(s->run);

	s = fsb_matrix_config_find(&cfg, "XFS/crc");
	assert_non_null(s);
	assert_ptr_equal(s, &cfg.setups[3]);
	assert_string_equal(s->type, "xfs");		      /* lowercased */
	assert_string_equal(s->mkfs, "mkfs.xfs -q -f {dev}"); /* the type's default */
	assert_null(s->run);
	assert_string_equal(s->lifecycle, "--repeat 2");
	assert_null(fsb_matrix_config_find(&cfg, "xfs"));
	fsb_matrix_config_release(&cfg);
}

static void defaults_and_layout(void **state)
{
	struct fsb_matrix_config cfg;

	(void)state;
	/* Indented keys stay keys (inih would glue them to the key above as a
	 * continuation), an empty section is a setup, ':' separates too. */
	load_good("[global]\n"
		  "    run = --size 8m\n"
		  "    fill = none\n"
		  "[ext4]\n"
		  "\ttype = ext4\n"
		  "\toptions: noatime\n"
		  "[xfs]\n"
		  "[btrfs]\n",
		  &cfg);
	assert_int_equal(cfg.nsetups, 3);
	assert_null(cfg.workdir);
	assert_int_equal(cfg.repeat, 0);
	assert_string_equal(cfg.setups[0].options, "noatime");
	assert_string_equal(cfg.setups[0].run, "--size 8m");
	assert_int_equal(cfg.setups[0].fill, FSB_FILL_NONE);
	assert_string_equal(cfg.setups[1].label, "xfs");
	assert_int_equal(cfg.setups[1].image_bytes, FSB_MATRIX_DEFAULT_IMAGE_BYTES);
	assert_string_equal(cfg.setups[2].mkfs, "mkfs.btrfs -q -f {dev}");
	fsb_matrix_config_release(&cfg);

	/* No [global] at all; a setup with everything itself. */
	load_good("[jffs2]\nmkfs = none\nlifecycle = --repeat 1\nimage_size = 64m\n", &cfg);
	assert_int_equal(cfg.nsetups, 1);
	assert_string_equal(cfg.setups[0].mkfs, "none");
	assert_int_equal(cfg.setups[0].image_bytes, 64ull << 20);
	fsb_matrix_config_release(&cfg);
}

static void bad_keys_and_sections(void **state)
{
	(void)state;
	expect_bad("[global]\nrun = --size 8m\n[ext2]\nmkfs_opts = -q\n",
		   "4: unknown key 'mkfs_opts' in [ext2] (keys: type, mkfs, options, devices, "
		   "image_size, fill, run, lifecycle, guest, mtd)");
	expect_bad("[global]\nrun = x\nfrob = 1\n[ext2]\n",
		   "3: unknown key 'frob' in [global] (keys: image_size, fill, workdir, run, "
		   "lifecycle, repeat)");
	expect_bad("[global]\nrun = x\ntype = ext4\n[ext2]\n",
		   "3: key 'type' belongs in a setup section, not [global] (keys of [global]: "
		   "image_size, fill, workdir, run, lifecycle, repeat)");
	expect_bad("[ext2]\nrun = x\nworkdir = /tmp\n",
		   "3: key 'workdir' belongs in [global], not [ext2]");
	expect_bad(
		"[Globals]\nrun = x\n[ext2]\n",
		"1: unknown section [Globals]: shared settings go in [global], setups in [LABEL]");
	expect_bad(
		"[defaults]\n[ext2]\nrun = x\n",
		"1: unknown section [defaults]: shared settings go in [global], setups in [LABEL]");
	expect_bad("run = --size 8m\n[ext2]\n",
		   "1: key 'run' outside a section: start with [global] or [LABEL]");
	expect_bad("[global]\nrun = a\n\n[ext2]\nrun = b\nrun = c\n",
		   "6: key 'run' set twice in [ext2] (first on line 5)");
	expect_bad("[ext2]\nrun = a\n[xfs]\n[ext2]\n",
		   "4: section [ext2] appears twice (first on line 1)");
	expect_bad("[global]\nrun = a\n[global]\n[ext2]\n",
		   "3: section [global] appears twice (first on line 1)");
	expect_bad("[ext2,ext3]\nrun = a\n",
		   "1: section name [ext2,ext3] contains ',' (it separates labels in --only and "
		   "CSV fields)");
	expect_bad("[global]\nrun = a\n[ext2\n",
		   "3: syntax error: expected [section], key = value, or a comment starting with "
		   "'#' or ';'");
	expect_bad("[global]\nrun = a\n[ext2]\njust words\n",
		   "4: syntax error: expected [section], key = value, or a comment starting with "
		   "'#' or ';'");
	expect_bad("# nothing but\n[global]\nrun = a\n",
		   "3: no setups: add a [LABEL] section per filesystem setup");
	expect_bad("[-x]\nrun = a\n",
		   "1: [-x]: no type: set 'type = ...' (a label such as [ext4-wb] implies the "
		   "type by its leading letters and digits)");
	expect_bad("[global]\nimage_size = 1g\n[ext2]\n",
		   "3: [ext2]: nothing to do: set run or lifecycle (here or in [global])");
}

static void bad_values(void **state)
{
	char text[600];

	(void)state;
	expect_bad(
		"[global]\nimage_size = 64q\n[ext2]\nrun = a\n",
		"2: invalid image_size '64q': expected a size of at least 1m, such as 512m or 2g");
	expect_bad("[ext2]\nrun = a\nimage_size = 0\n",
		   "3: invalid image_size '0': expected a size of at least 1m, such as 512m or 2g");
	expect_bad(
		"[ext2]\nrun = a\nimage_size = -1g\n",
		"3: invalid image_size '-1g': expected a size of at least 1m, such as 512m or 2g");
	expect_bad("[global]\nfill = blue\n[ext2]\nrun = a\n",
		   "2: invalid fill 'blue': expected 0xff, zero, random or none");
	expect_bad("[ext2]\nrun = a\ndevices = 0\n",
		   "3: invalid devices '0': expected a whole number from 1 to 8");
	expect_bad("[ext2]\nrun = a\ndevices = 2x\n",
		   "3: invalid devices '2x': expected a whole number from 1 to 8");
	expect_bad("[global]\nrepeat = 0\n[ext2]\nrun = a\n",
		   "2: invalid repeat '0': expected a whole number from 1 to 1000, or auto");
	expect_bad(
		"[x]\ntype = ext 4\nrun = a\n",
		"2: invalid type 'ext 4': expected a filesystem type such as ext4, xfs or btrfs");
	expect_bad("[ext2]\nrun = a\nmkfs = mkfs.ext2 -L 'x {dev}\n",
		   "3: invalid mkfs 'mkfs.ext2 -L 'x {dev}': unterminated single quote");
	expect_bad("[global]\nrun = --size '8m\n[ext2]\n",
		   "2: invalid run '--size '8m': unterminated single quote");
	expect_bad("[global]\nworkdir =\n[ext2]\nrun = a\n",
		   "2: workdir is empty: give a directory for the images");
	/* inih's line buffer is 200 bytes: a longer line is refused, not cut. */
	memset(text, 0, sizeof(text));
	strcpy(text, "[ext2]\nrun = --size 8m --tests ");
	memset(text + strlen(text), 'w', 250);
	strcat(text, "\n");
	expect_bad(text, "2: line too long (at most 197 characters)");
}

/* Load len bytes (NULs allowed) from memory, as the fuzzer does. */
static int load_bytes(const char *bytes, size_t len, struct fsb_matrix_config *cfg, char *why,
		      size_t why_len)
{
	FILE *f = fmemopen((void *)bytes, len, "r");
	int rc;

	assert_non_null(f);
	rc = fsb_matrix_config_load_stream(f, "mem.ini", NULL, 0, cfg, why, why_len);
	fclose(f);
	return rc;
}

/*
 * The line reader: bare CR, CRLF and LF all end a line, a line longer
 * than inih's buffer is refused whatever ends it (a bare CR before a long
 * line once wrote past that buffer), and binary content is refused with
 * its line number.
 */
static void line_reader(void **state)
{
	struct fsb_matrix_config cfg;
	char text[8192], why[1024];
	size_t n;

	(void)state;
	/* Old Mac line ends: a bare CR, then a 5000-character line. */
	n = (size_t)snprintf(text, sizeof(text), "[global]\nrun = --size 1m\r");
	memset(text + n, 'a', 5000);
	strcpy(text + n + 5000, "\n[ext4]\n");
	expect_bad(text, "3: line too long (at most 197 characters)");
	/* The same line, shorter than the old 4096-byte buffer. */
	memset(text + n, 'a', 1000);
	strcpy(text + n + 1000, "\n[ext4]\n");
	expect_bad(text, "3: line too long (at most 197 characters)");
	/* A long first line after a bare CR on the header line. */
	n = (size_t)snprintf(text, sizeof(text), "[global]\r");
	memset(text + n, 'b', 5000);
	strcpy(text + n + 5000, "\n");
	expect_bad(text, "2: line too long (at most 197 characters)");
	/* 197 characters fit (after the leading blanks), 198 do not. */
	n = (size_t)snprintf(text, sizeof(text), "[ext4]\n   run = ");
	memset(text + n, 'c', 197 - 6);
	strcpy(text + n + 197 - 6, "\n");
	load_good(text, &cfg);
	assert_int_equal(strlen(cfg.setups[0].run), 197 - 6);
	fsb_matrix_config_release(&cfg);
	memset(text + n, 'c', 198 - 6);
	strcpy(text + n + 198 - 6, "\n");
	expect_bad(text, "2: line too long (at most 197 characters)");

	/* Binary content: NUL, ESC, DEL, each at its line. */
	assert_int_equal(load_bytes("[global]\nrun = a\n[ext\0]\n", 23, &cfg, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "mem.ini:3: contains a NUL byte: not a text file");
	fsb_matrix_config_release(&cfg);
	assert_int_equal(load_bytes("\0\0\0\0", 4, &cfg, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "mem.ini:1: contains a NUL byte: not a text file");
	fsb_matrix_config_release(&cfg);
	expect_bad("[ext4]\nrun = a\x1b]0;x\x07\n",
		   "2: contains the control character 0x1b: not a text file");
	expect_bad("[ext4]\r\nrun = a\r\n\x7f\r\n",
		   "3: contains the control character 0x7f: not a text file");
	/* A tab is text. */
	load_good("[ext4]\n\trun =\t--size 8m\n", &cfg);
	assert_string_equal(cfg.setups[0].run, "--size 8m");
	fsb_matrix_config_release(&cfg);

	/* The same file with CR, CRLF and LF line ends, and a byte order mark. */
	static const char *const ends[] = { "\r", "\r\n", "\n" };
	for (size_t e = 0; e < 3; e++) {
		snprintf(text, sizeof(text),
			 "\xef\xbb\xbf# ends %zu%s[global]%srun = --size 8m%s%s[ext2]%s[ext4-wb]%s"
			 "type = ext4%soptions = data=writeback%s",
			 e, ends[e], ends[e], ends[e], ends[e], ends[e], ends[e], ends[e], ends[e]);
		load_good(text, &cfg);
		assert_int_equal(cfg.nsetups, 2);
		assert_string_equal(cfg.setups[0].label, "ext2");
		assert_int_equal(cfg.setups[0].line, 5);
		assert_int_equal(cfg.setups[1].line, 6);
		assert_string_equal(cfg.setups[1].options, "data=writeback");
		assert_string_equal(cfg.setups[1].run, "--size 8m");
		assert_int_equal(cfg.setups[1].run_line, 3);
		fsb_matrix_config_release(&cfg);
	}
	/* Half a byte order mark is not one: those bytes are the line's. */
	expect_bad("\xef\xbb[ext2]\nrun = a\n",
		   "1: syntax error: expected [section], key = value, or a comment starting "
		   "with '#' or ';'");
}

/* guest = yes and mtd = SIZE: values, where they may go, and what they
 * cannot be combined with, each error at the line that set it. */
static void guest_keys(void **state)
{
	struct fsb_matrix_config cfg;

	(void)state;
	load_good("[global]\nlifecycle = --repeat 1\nimage_size = 64m\n"
		  "[jffs2]\nguest = yes\nmtd = 128k\nmkfs = none\n"
		  "[ubifs]\nguest = yes\nmtd = 128k\n"
		  "[reiserfs]\nguest = yes\nmkfs = mkreiserfs -q -f -f {dev}\n"
		  "[ext4]\nguest = no\n",
		  &cfg);
	assert_int_equal(cfg.nsetups, 4);
	assert_true(cfg.setups[0].guest);
	assert_int_equal(cfg.setups[0].mtd_erase_bytes, 128 * 1024);
	assert_true(cfg.setups[1].guest);
	assert_true(cfg.setups[2].guest);
	assert_int_equal(cfg.setups[2].mtd_erase_bytes, 0);
	assert_false(cfg.setups[3].guest);
	fsb_matrix_config_release(&cfg);

	expect_bad("[jffs2]\nlifecycle = a\nguest = maybe\n",
		   "3: invalid guest 'maybe': expected yes or no");
	expect_bad("[global]\nguest = yes\n[jffs2]\nlifecycle = a\n",
		   "2: key 'guest' belongs in a setup section, not [global] (keys of [global]: "
		   "image_size, fill, workdir, run, lifecycle, repeat)");
	expect_bad("[jffs2]\nlifecycle = a\nguest = yes\nmtd = 100k\n",
		   "4: invalid mtd '100k': expected an erase block size, a power of two from 4k "
		   "to 16m (128k)");
	expect_bad("[jffs2]\nlifecycle = a\nguest = yes\nmtd = 32m\n",
		   "4: invalid mtd '32m': expected an erase block size, a power of two from 4k "
		   "to 16m (128k)");
	expect_bad("[jffs2]\nlifecycle = a\nmtd = 128k\n",
		   "3: [jffs2]: mtd needs guest = yes (emulated flash is made in a guest: the "
		   "host kernel has no MTD)");
	expect_bad("[global]\nrun = --size 1m\n[jffs2]\nguest = yes\nmtd = 128k\n",
		   "2: [jffs2]: run does not work on mtd (flash) setups: set 'run =' for this "
		   "setup (the lifecycle measures the flash)");
	load_good("[global]\nrun = --size 1m\n[reiserfs]\nguest = yes\noptions = notail\n", &cfg);
	assert_true(cfg.setups[0].guest);
	assert_string_equal(cfg.setups[0].run, "--size 1m");
	fsb_matrix_config_release(&cfg);
	expect_bad("[btrfs]\nlifecycle = a\nguest = yes\ndevices = 2\nmkfs = mkfs.btrfs {devs}\n",
		   "4: [btrfs]: guest = yes works on one device, not 2");
	expect_bad("[ext4]\nlifecycle = a\nguest = yes\nfill = random\n",
		   "4: [ext4]: a guest's disk is filled with 0xff, zero or none, not random");
	expect_bad("[jffs2]\nlifecycle = a\nguest = yes\nmtd = 128k\nmkfs = mkfs.jffs2 {dev}\n",
		   "5: [jffs2]: mkfs does not go with mtd: on flash, jffs2 formats on mount and "
		   "ubifs is made by the UBI tools");
}

/* Load text and turn its lines into plans; that must fail with exactly one
 * line on stderr, "fsbench: <ini>:<want>". */
static void expect_bad_plan(const char *text, const char *want)
{
	struct fsb_matrix_config cfg;
	char full[PATH_MAX + 1024], said[PATH_MAX + 1024];
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO), rc;
	size_t n;

	assert_non_null(tmp);
	load_good(text, &cfg);
	for (size_t i = 0; i < cfg.nsetups; i++)
		cfg.setups[i].selected = true;
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	rc = fsb_matrix_lines_to_plans(&cfg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	fsb_matrix_config_release(&cfg);
	rewind(tmp);
	n = fread(said, 1, sizeof(said) - 1, tmp);
	said[n] = '\0';
	fclose(tmp);
	assert_int_equal(rc, FSB_EXIT_USAGE);
	snprintf(full, sizeof(full), "fsbench: %s:%s\n", ini, want);
	assert_string_equal(said, full);
}

/* The options the matrix sets, refused in a line by the command's own parser. */
static void reserved_options(void **state)
{
	(void)state;
	expect_bad_plan("[global]\nrun = --size 8m --format csv\n[ext2]\n",
			"2: run: option '--format' is set by fsbench matrix, not in the file");
	expect_bad_plan("[global]\nrun = --size 8m --output=x.json\n[ext2]\n",
			"2: run: option '--output' is set by fsbench matrix, not in the file");
	/* getopt_long takes unambiguous prefixes: "--lab" is --label. */
	expect_bad_plan("[global]\nrun = --lab x\n[ext2]\n",
			"2: run: option '--label' is set by fsbench matrix, not in the file");
	/* A cluster of short options: -q then -o. */
	expect_bad_plan("[global]\nrun = -qo x\n[ext2]\n",
			"2: run: option '-o' is set by fsbench matrix, not in the file");
	expect_bad_plan(
		"[ext2]\nlifecycle = --repeat 2 --device /dev/sda\n",
		"2: lifecycle: option '--device' is set by fsbench matrix, not in the file");
	expect_bad_plan("[ext2]\nlifecycle = --fill zero\n",
			"2: lifecycle: option '--fill' is set by fsbench matrix, not in the file");
	expect_bad_plan("[ext2]\nlifecycle = -r2 -h\n",
			"2: lifecycle: option '-h' is set by fsbench matrix, not in the file");
	/* A value that merely starts like one (-sfol: 's' takes the rest). */
	expect_bad_plan("[ext2]\nrun = -sfol\n",
			"2: run: invalid --size 'fol': expected a positive size such as 512m, 8k "
			"or 2g");

	struct fsb_matrix_config cfg;

	load_good("[ext2]\nrun = -s8m -n 0 --files 0 --repeat 1\n", &cfg);
	cfg.setups[0].selected = true;
	assert_int_equal(fsb_matrix_lines_to_plans(&cfg), 0);
	assert_int_equal(cfg.setups[0].run_plan->cfg.size_bytes, 8 << 20);
	fsb_matrix_config_release(&cfg);
	/* --repeat auto through the run parser, as on the command line. */
	load_good("[ext2]\nrun = -s8m --files 0 --repeat auto\n", &cfg);
	cfg.setups[0].selected = true;
	assert_int_equal(fsb_matrix_lines_to_plans(&cfg), 0);
	assert_true(cfg.setups[0].run_plan->cfg.repeat_auto);
	assert_int_equal(cfg.setups[0].run_plan->cfg.repeat, 3);
	fsb_matrix_config_release(&cfg);
	/* [global] repeat = auto: the run lines without their own --repeat;
	 * a lifecycle line keeps its phases' default (no auto mode there). */
	load_good("[global]\nrepeat = auto\n[ext2]\nrun = -s8m --files 0\n"
		  "lifecycle = --copy-size 2m\n[ext4]\nrun = -s8m --files 0 --repeat 4\n",
		  &cfg);
	assert_true(cfg.repeat_auto);
	assert_int_equal(cfg.repeat, 0);
	cfg.setups[0].selected = cfg.setups[1].selected = true;
	assert_int_equal(fsb_matrix_lines_to_plans(&cfg), 0);
	assert_true(cfg.setups[0].run_plan->cfg.repeat_auto);
	assert_int_equal(cfg.setups[0].run_plan->cfg.repeat, 3);
	assert_false(cfg.setups[0].lc_plan->repeat_set);
	assert_false(cfg.setups[1].run_plan->cfg.repeat_auto);
	assert_int_equal(cfg.setups[1].run_plan->cfg.repeat, 4);
	fsb_matrix_config_release(&cfg);
}

/* Each line parsed by its command's parser; the setup's fields set over it. */
static void lines_become_plans(void **state)
{
	struct fsb_matrix_config cfg;
	const struct fsb_matrix_setup *s;

	(void)state;
	load_good("[global]\nrepeat = 2\nrun = --size 4m -t write,read\n"
		  "[ext4-wb]\ntype = ext4\noptions = data=writeback\n"
		  "lifecycle = --copy-size 2m --repeat 5\n"
		  "[xfs]\nfill = 0xff\nlifecycle = --phases mount-umount\n"
		  "[jffs2]\nguest = yes\nmtd = 128k\nmkfs = none\nrun =\nlifecycle = --seed 9\n"
		  "[skipped]\ntype = ext2\nrun = --size 0\n",
		  &cfg);
	for (size_t i = 0; i < 3; i++)
		cfg.setups[i].selected = true;
	/* Only selected setups are parsed: [skipped]'s bad line is not read. */
	assert_int_equal(fsb_matrix_lines_to_plans(&cfg), 0);

	s = fsb_matrix_config_find(&cfg, "ext4-wb");
	assert_non_null(s->run_plan);
	assert_string_equal(s->run_plan->cfg.label, "ext4-wb");
	assert_int_equal(s->run_plan->cfg.size_bytes, 4 << 20);
	assert_int_equal(s->run_plan->nops, 2);
	assert_int_equal(s->run_plan->cfg.repeat, 2); /* [global] repeat */
	assert_true(s->run_plan->repeat_set);
	assert_string_equal(s->run_words[0], "run");
	assert_string_equal(s->run_words[1], "--size");
	assert_non_null(s->lc_plan);
	assert_string_equal(s->lc_plan->fs_type, "ext4");
	assert_string_equal(s->lc_plan->cfg.label, "ext4-wb");
	assert_string_equal(s->lc_plan->options, "data=writeback");
	assert_string_equal(fsb_lc_plan_mkfs(s->lc_plan), "mkfs.ext4 -q -F {dev}");
	assert_true(s->lc_plan->device_later); /* the setup's loop device */
	assert_null(s->lc_plan->device);
	assert_true(s->lc_plan->destroy_data);
	assert_int_equal(s->lc_plan->fill, FSB_FILL_ZERO);
	assert_int_equal(s->lc_plan->copy_size, 2 << 20);
	assert_int_equal(s->lc_plan->cfg.repeat, 5); /* the line's own */
	assert_int_equal(s->lc_plan->nops, 6);

	s = fsb_matrix_config_find(&cfg, "xfs");
	assert_int_equal(s->lc_plan->fill, FSB_FILL_FF);
	assert_null(s->lc_plan->options);
	assert_int_equal(s->lc_plan->nops, 1);
	assert_int_equal(s->lc_plan->cfg.repeat, 2);

	/* A guest's flash: the lifecycle's --mtd over /dev/vda, made by mount. */
	s = fsb_matrix_config_find(&cfg, "jffs2");
	assert_null(s->run_plan);
	assert_string_equal(s->mtd_spec, "/dev/vda,131072");
	assert_string_equal(s->lc_plan->mtd, s->mtd_spec);
	assert_string_equal(s->lc_plan->mtd_dev, "/dev/vda");
	assert_int_equal(s->lc_plan->mtd_erase_bytes, 128 << 10);
	assert_string_equal(fsb_lc_plan_mkfs(s->lc_plan), "none");
	assert_int_equal(s->lc_plan->nops, 5);
	assert_int_equal(s->lc_plan->cfg.seed, 9);
	assert_true(s->lc_plan->seed_set);
	assert_string_equal(s->lc_words[1], "--seed");

	s = fsb_matrix_config_find(&cfg, "skipped");
	assert_null(s->run_plan);
	fsb_matrix_config_release(&cfg);

	/* Each line's refusal names its file and line, in the parser's words. */
	expect_bad_plan("[global]\nrun = /etc\n[ext2]\n", "2: run: unexpected argument '/etc'");
	expect_bad_plan("[ext2]\nrun = --size 4m\nlifecycle = --mtd /dev/vda,128k\n",
			"3: lifecycle: option '--mtd' is set by fsbench matrix, not in the file");
	expect_bad_plan("[ext2]\nrun = --size 4k --chunk 8k\n",
			"2: run: --size (4096 bytes) is smaller than --chunk (8192 bytes)");
	expect_bad_plan("[ext2]\nlifecycle = --phases fly\n",
			"2: lifecycle: invalid --phases 'fly': unknown phase 'fly' (phases: mkfs, "
			"mkfs-mount, mkfs-umount, mount-umount, write, read)");
	expect_bad_plan("[ubifs]\nguest = yes\nmtd = 128k\nlifecycle = --pre-erase\n",
			"4: lifecycle: --pre-erase is for jffs2 (ubiformat erases)");
}

static void multi_device_templates(void **state)
{
	(void)state;
	expect_bad("[btrfs]\nrun = a\ndevices = 2\n",
		   "1: [btrfs]: devices = 2 needs a mkfs template naming them ({devs}, or {dev1} "
		   "to {dev2})");
	expect_bad("[btrfs]\nrun = a\ndevices = 2\nmkfs = mkfs.btrfs -f {dev}\n",
		   "4: [btrfs]: mkfs names 1 of its 2 devices: use {devs}, or {dev1} to {dev2}");
	expect_bad(
		"[btrfs]\nrun = a\ndevices = 2\nmkfs = mkfs.btrfs {dev1} {dev3}\n",
		"4: [btrfs]: invalid mkfs 'mkfs.btrfs {dev1} {dev3}': a {devN} placeholder names "
		"more devices than there are (devices = 2)");
	expect_bad("[jffs2]\nrun = a\ndevices = 2\nmkfs = none\n",
		   "4: [jffs2]: mkfs = none works on one device, not 2");
	/* The count ignores order and repeats. */
	assert_int_equal(fsb_mkfs_template_devices("mkfs.btrfs {devs}", 3, &(const char *){ 0 }),
			 3);
	assert_int_equal(
		fsb_mkfs_template_devices("m -d {dev2} {dev1} {dev2}", 2, &(const char *){ 0 }), 2);
	assert_int_equal(fsb_mkfs_template_devices("m {dev}", 2, &(const char *){ 0 }), 1);
	assert_int_equal(fsb_mkfs_template_devices("m --devs={devs}", 4, &(const char *){ 0 }), 4);
}

static void expansion(void **state)
{
	static const char *const devs[] = { "/dev/loop5", "/dev/loop6", "/dev/loop7" };
	struct fsb_matrix_setup s = { .devices = 2 };
	char **argv = NULL;
	const char *why = NULL;
	int n;

	(void)state;
	s.mkfs = (char *)"mkfs.btrfs -q -f -m raid1 -d raid1 {devs}";
	n = fsb_matrix_mkfs_argv(&s, devs, 2, &argv, &why);
	assert_int_equal(n, 9);
	assert_string_equal(argv[0], "mkfs.btrfs");
	assert_string_equal(argv[6], "raid1");
	assert_string_equal(argv[7], "/dev/loop5");
	assert_string_equal(argv[8], "/dev/loop6");
	assert_null(argv[9]);
	fsb_words_free(argv);

	/* {devN} in any order, inside a word; {dev} is the first. */
	s.mkfs = (char *)"mdtool --first={dev} -x '{dev2} {dev1}' {dev3}";
	n = fsb_matrix_mkfs_argv(&s, devs, 3, &argv, &why);
	assert_int_equal(n, 5);
	assert_string_equal(argv[1], "--first=/dev/loop5");
	assert_string_equal(argv[3], "/dev/loop6 /dev/loop5");
	assert_string_equal(argv[4], "/dev/loop7");
	fsb_words_free(argv);
	argv = NULL;
	assert_int_equal(fsb_matrix_mkfs_argv(&s, devs, 2, &argv, &why), -EINVAL);
	assert_string_equal(why, "a {devN} placeholder names more devices than there are");
	assert_null(argv);

	/* {devs} inside a longer word joins with spaces. */
	s.mkfs = (char *)"tool \"--devices={devs}\"";
	n = fsb_matrix_mkfs_argv(&s, devs, 3, &argv, &why);
	assert_int_equal(n, 2);
	assert_string_equal(argv[1], "--devices=/dev/loop5 /dev/loop6 /dev/loop7");
	fsb_words_free(argv);

	s.mkfs = (char *)"none";
	assert_int_equal(fsb_matrix_mkfs_argv(&s, devs, 1, &argv, &why), -ENOENT);
	assert_null(argv);
}

static void missing_file(void **state)
{
	struct fsb_matrix_config cfg;
	char why[512];

	(void)state;
	assert_int_equal(fsb_matrix_config_load("/nonexistent/m.ini", &cfg, why, sizeof(why)),
			 -ENOENT);
	assert_string_equal(why, "cannot read '/nonexistent/m.ini': No such file or directory");
	fsb_matrix_config_release(&cfg);
}

/* Load text; it must fail with a message starting "<ini>:<want>". */
static void expect_bad_prefix(const char *text, const char *want)
{
	struct fsb_matrix_config cfg;
	char why[4096];

	write_ini(text);
	assert_int_equal(fsb_matrix_config_load(ini, &cfg, why, sizeof(why)), -EINVAL);
	assert_memory_equal(why, ini, strlen(ini));
	assert_int_equal(why[strlen(ini)], ':');
	assert_memory_equal(why + strlen(ini) + 1, want, strlen(want));
	fsb_matrix_config_release(&cfg);
}

/* A template may name no block device but through its placeholders. */
static void template_naming_a_device(void **state)
{
	static char node[PATH_MAX + 16], text[4 * PATH_MAX], want[4 * PATH_MAX];

	(void)state;
	if (geteuid() != 0) {
		skip(); /* mknod needs root */
		return;
	}
	snprintf(node, sizeof(node), "%.*s/blk", PATH_MAX - 8, tmpdir);
	assert_int_equal(mknod(node, S_IFBLK | 0600, makedev(7, 251)), 0);
	snprintf(text, sizeof(text),
		 "[global]\nrun = --size 4m\n[ext4]\nmkfs = wipefs -a %s {dev}\n", node);
	snprintf(want, sizeof(want),
		 "4: invalid mkfs 'wipefs -a %s {dev}': '%s' is block device "
		 "7:251, which fsbench did not make for it: name devices with {dev}, {devN} or "
		 "{devs}",
		 node, node);
	expect_bad_prefix(text, want);
	snprintf(text, sizeof(text),
		 "[global]\nrun = --size 4m\n[ext4]\nmkfs = mkfs.ext4 "
		 "--device=%s {dev}\n",
		 node);
	snprintf(want, sizeof(want),
		 "4: invalid mkfs 'mkfs.ext4 --device=%s {dev}': "
		 "'--device=%s' names block device '%s' (7:251)",
		 node, node, node);
	expect_bad_prefix(text, want);
	unlink(node);
}

/* The file is code run as root: one another user could change is refused. */
static void untrusted_file(void **state)
{
	struct fsb_matrix_config cfg;
	char why[2 * PATH_MAX];

	(void)state;
	write_ini("[global]\nrun = --size 4m\n[ext4]\n");
	assert_int_equal(chmod(ini, 0666), 0);
	assert_int_equal(fsb_matrix_config_load(ini, &cfg, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is writable by group or others (mode 0666)"));
	assert_non_null(strstr(why, "chmod go-w"));
	assert_int_equal(cfg.nsetups, 0);
	fsb_matrix_config_release(&cfg);
	assert_int_equal(chmod(ini, 0644), 0);
	assert_int_equal(fsb_matrix_config_load(ini, &cfg, why, sizeof(why)), 0);
	fsb_matrix_config_release(&cfg);
}

/* ---- the views ---- */

static struct fsb_result *fake_run(const char *label, double write_bps)
{
	struct fsb_result *r = calloc(1, sizeof(*r));
	struct fsb_test_result *t;
	double runs[3] = { write_bps * 0.99, write_bps, write_bps * 1.01 };

	assert_non_null(r);
	assert_int_equal(fsb_result_init(r, "run"), 0);
	fsb_strset(&r->setup.label, label);
	fsb_result_param_u64(r, "size_bytes", 8u << 20);
	fsb_result_param_u64(r, "chunk_bytes", 8192);
	fsb_result_param_u64(r, "seekers", 3);
	fsb_result_param_u64(r, "seeks", 8192);
	fsb_result_param_u64(r, "seed", 1);
	fsb_result_param_u64(r, "files", 1024);
	fsb_result_param_u64(r, "repeat", 3);
	fsb_result_param_str(r, "cache", "drop");
	t = fsb_result_add_test(r, "write", "B/s");
	assert_non_null(t);
	fsb_test_set_runs(t, runs, 3);
	t->cpu_pct = 12.5;
	t = fsb_result_add_test(r, "seq-create", "ops/s");
	assert_non_null(t);
	runs[0] = runs[1] = runs[2] = 20000;
	fsb_test_set_runs(t, runs, 3);
	return r;
}

static struct fsb_result *fake_lifecycle(const char *label)
{
	static const char *const ids[] = { "mkfs",	   "mkfs-mount", "mkfs-umount",
					   "mount-umount", "write",	 "read" };
	struct fsb_result *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	assert_int_equal(fsb_result_init(r, "lifecycle"), 0);
	fsb_strset(&r->setup.label, label);
	fsb_result_param_u64(r, "repeat", 2);
	fsb_result_param_u64(r, "mkfs_repeat", 2);
	fsb_result_param_u64(r, "copy_size_bytes", 2u << 20);
	for (size_t i = 0; i < 6; i++) {
		double runs[2] = { 0.010 * (double)(i + 1), 0.012 * (double)(i + 1) };
		struct fsb_test_result *t = fsb_result_add_test(r, ids[i], "s");

		assert_non_null(t);
		fsb_test_set_runs(t, runs, 2);
	}
	return r;
}

static void fake_doc(struct fsb_matrix_doc *d)
{
	struct fsb_matrix_entry *e;

	assert_int_equal(fsb_matrix_doc_init(d, "m.ini"), 0);
	e = fsb_matrix_doc_add(d, "ext2");
	fsb_strset(&e->type, "ext2");
	fsb_strset(&e->mkfs, "mkfs.ext2 -q -F {dev}");
	fsb_strset(&e->options, "");
	fsb_strset(&e->fill, "zero");
	fsb_strset(&e->run, "--size 8m");
	e->devices = 1;
	e->image_bytes = 300u << 20;
	e->run_res = fake_run("ext2", 100e6);
	e = fsb_matrix_doc_add(d, "ext4-wb");
	fsb_strset(&e->type, "ext4");
	fsb_strset(&e->mkfs, "mkfs.ext4 -q -F {dev}");
	fsb_strset(&e->options, "data=writeback");
	fsb_strset(&e->fill, "zero");
	fsb_strset(&e->run, "--size 8m");
	fsb_strset(&e->lifecycle, "--repeat 2");
	e->devices = 1;
	e->image_bytes = 300u << 20;
	e->run_res = fake_run("ext4-wb", 200e6);
	e->lc_res = fake_lifecycle("ext4-wb");
	e = fsb_matrix_doc_add(d, "reiserfs");
	fsb_strset(&e->type, "reiserfs");
	fsb_strset(&e->mkfs, "mkreiserfs -q {dev}");
	fsb_strset(&e->options, "");
	fsb_strset(&e->fill, "zero");
	fsb_strset(&e->run, "--size 8m");
	e->devices = 1;
	e->image_bytes = 300u << 20;
	fsb_matrix_entry_status(e, FSB_MATRIX_SKIPPED, "filesystem type '%s' is not supported",
				"reiserfs");
}

static char *render(int (*view)(FILE *, const struct fsb_matrix_doc *),
		    const struct fsb_matrix_doc *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(view(f, d), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void view_json(void **state)
{
	struct fsb_matrix_doc d;
	struct json_object *doc, *setups, *s, *v, *cfg;

	(void)state;
	fake_doc(&d);
	doc = fsb_matrix_to_json(&d);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "kind", &v));
	assert_string_equal(json_object_get_string(v), "matrix");
	assert_true(json_object_object_get_ex(doc, "format_version", &v));
	assert_int_equal(json_object_get_int(v), 1);
	assert_true(json_object_object_get_ex(doc, "tool", &v));
	assert_string_equal(json_object_get_string(v), "fsbench");
	assert_true(json_object_object_get_ex(doc, "host", &v));
	assert_false(json_object_object_get_ex(doc, "tests", &v));
	assert_true(json_object_object_get_ex(doc, "setups", &setups));
	assert_int_equal(json_object_array_length(setups), 3);

	s = json_object_array_get_idx(setups, 1);
	assert_true(json_object_object_get_ex(s, "label", &v));
	assert_string_equal(json_object_get_string(v), "ext4-wb");
	assert_true(json_object_object_get_ex(s, "status", &v));
	assert_string_equal(json_object_get_string(v), "ok");
	assert_false(json_object_object_get_ex(s, "error", &v));
	assert_true(json_object_object_get_ex(s, "config", &cfg));
	assert_true(json_object_object_get_ex(cfg, "options", &v));
	assert_string_equal(json_object_get_string(v), "data=writeback");
	assert_true(json_object_object_get_ex(cfg, "image_size", &v));
	assert_int_equal(json_object_get_int64(v), 300 << 20);
	assert_true(json_object_object_get_ex(cfg, "devices", &v));
	assert_int_equal(json_object_get_int(v), 1);
	assert_true(json_object_object_get_ex(s, "results", &v));
	assert_int_equal(json_object_array_length(v), 2);
	{
		/* Each result reads back as a result document. */
		struct fsb_result r;
		char why[256];

		assert_int_equal(
			fsb_json_to_result(json_object_array_get_idx(v, 1), &r, why, sizeof(why)),
			0);
		assert_string_equal(r.kind, "lifecycle");
		fsb_result_release(&r);
	}

	s = json_object_array_get_idx(setups, 2);
	assert_true(json_object_object_get_ex(s, "status", &v));
	assert_string_equal(json_object_get_string(v), "skipped");
	assert_true(json_object_object_get_ex(s, "error", &v));
	assert_string_equal(json_object_get_string(v),
			    "filesystem type 'reiserfs' is not supported");
	assert_true(json_object_object_get_ex(s, "results", &v));
	assert_int_equal(json_object_array_length(v), 0);
	json_object_put(doc);
	fsb_matrix_doc_release(&d);
}

static void view_text_and_csv(void **state)
{
	struct fsb_matrix_doc d;
	char *text, *csv;

	(void)state;
	fake_doc(&d);
	text = render(fsb_matrix_write_text, &d);
	/* The configuration as the reference lists it, commands shared. */
	assert_non_null(
		strstr(text, "               ext2:     mkfs.ext2 -q -F {dev}  mount -t ext2\n"));
	assert_non_null(strstr(text,
			       "               ext4-wb:  mkfs.ext4 -q -F {dev}  mount -t ext4 "
			       "-o data=writeback  lifecycle: --repeat 2\n"));
	assert_non_null(strstr(text, "Command: fsbench run --size 8m\n"));
	/* One bonnie header, one row per measured setup. */
	assert_int_equal(count_of(text, "Filesystem | K/sec %CPU"), 1);
	assert_non_null(strstr(text, "\next2       |"));
	assert_non_null(strstr(text, "\next4-wb    |"));
	assert_null(strstr(text, "\nreiserfs   |"));
	/* The Create block: one header, both rows. */
	assert_int_equal(count_of(text, "------Sequential Create------"), 1);
	assert_non_null(strstr(text, "\next2              1 20000"));
	/* The lifecycle table: the setup that ran it, medians with range. */
	assert_non_null(strstr(text, "\nLifecycle, ms: median [min-max] of 2 runs; the copy is "
				     "2.0 MiB\n"));
	assert_non_null(strstr(text,
			       "\nFilesystem | mkfs             mkfs-mount       mkfs-umount  "
			       "    mount-umount     write            read\n"));
	assert_non_null(strstr(text,
			       "\next4-wb    | 11.0 [10.0-12.0] 22.0 [20.0-24.0] 33.0 "
			       "[30.0-36.0] 44.0 [40.0-48.0] 55.0 [50.0-60.0] 66.0 [60.0-72.0]\n"));
	assert_non_null(strstr(text, "  reiserfs: skipped: filesystem type 'reiserfs' is not "
				     "supported\n"));
	assert_non_null(strstr(text, "# ext4-wb: cache drop, median of 3 runs"));
	free(text);

	csv = render(fsb_matrix_write_csv, &d);
	assert_int_equal(count_of(csv, "\n"), 2);
	/* The tool's version: the one built (the documents are made here). */
	assert_int_equal(
		strncmp(csv, "1.98," FSB_VERSION ",ext2,", strlen("1.98," FSB_VERSION ",ext2,")),
		0);
	assert_non_null(strstr(csv, "\n1.98," FSB_VERSION ",ext4-wb,"));
	free(csv);
	fsb_matrix_doc_release(&d);
}

/* Guest rows: their "(guest, tcg)" labels widen the bonnie table's label
 * column for every row, and the configuration does not claim loop devices. */
static void view_text_guest_rows(void **state)
{
	struct fsb_matrix_doc d;
	struct fsb_matrix_entry *e;
	char *text;

	(void)state;
	assert_int_equal(fsb_matrix_doc_init(&d, "m.ini"), 0);
	e = fsb_matrix_doc_add(&d, "Reiserfs/nt (guest, tcg)");
	fsb_strset(&e->type, "reiserfs");
	fsb_strset(&e->mkfs, "mkreiserfs -q -f -f {dev}");
	fsb_strset(&e->options, "notail");
	fsb_strset(&e->fill, "zero");
	fsb_strset(&e->run, "--size 8m");
	e->devices = 1;
	e->image_bytes = 1u << 30;
	e->guest = true;
	e->run_res = fake_run("Reiserfs/nt (guest, tcg)", 50e6);
	text = render(fsb_matrix_write_text, &d);
	assert_non_null(strstr(text, "Configuration: fresh 1.0 GiB images filled with zero, as "
				     "the disk of a QEMU guest, per setup\n"));
	assert_null(strstr(text, "loop devices"));
	assert_non_null(strstr(text, "\nGuest rows (each boots a QEMU guest): Reiserfs/nt (guest, "
				     "tcg); --only LABELS runs only the setups named\n"));
	free(text);

	e = fsb_matrix_doc_add(&d, "ext2");
	fsb_strset(&e->type, "ext2");
	fsb_strset(&e->mkfs, "mkfs.ext2 -q -F {dev}");
	fsb_strset(&e->options, "");
	fsb_strset(&e->fill, "zero");
	fsb_strset(&e->run, "--size 8m");
	e->devices = 1;
	e->image_bytes = 1u << 30;
	e->run_res = fake_run("ext2", 100e6);
	text = render(fsb_matrix_write_text, &d);
	assert_non_null(strstr(text, ", on loop devices (direct I/O), or as the disk of a QEMU "
				     "guest (guest rows), per setup\n"));
	/* Every line of the table has its '|' in the same column: 24. */
	assert_non_null(strstr(text, "\n                        | ---Sequential Output"));
	assert_non_null(strstr(text, "\nFilesystem              | K/sec %CPU"));
	assert_non_null(strstr(text, "\n------------------------|------"));
	assert_non_null(strstr(text, "\nReiserfs/nt (guest, tcg)|"));
	assert_non_null(strstr(text, "\next2                    |"));
	/* The --only that leaves the guest rows out: the host rows. */
	assert_non_null(strstr(text, "\nGuest rows (each boots a QEMU guest): Reiserfs/nt (guest, "
				     "tcg); leave them out with --only ext2\n"));
	assert_null(strstr(text, "Overrides:"));
	free(text);
	/* The keys --set overrode, quoted as a shell takes them back. */
	{
		const char *sets[] = { "image_size=512m", "run+=--size 64m", "ext2.mkfs=a'b" };

		assert_int_equal(fsb_matrix_doc_overrides(&d, sets, 3), 0);
	}
	text = render(fsb_matrix_write_text, &d);
	assert_non_null(strstr(
		text,
		"\nOverrides: --set image_size=512m --set 'run+=--size 64m' "
		"--set 'ext2.mkfs=a'\\''b' (over the file's values: a [global] key's in every setup that sets it)\n"));
	free(text);
	text = render(fsb_matrix_write_json, &d);
	assert_non_null(strstr(text, "\"overrides\""));
	assert_non_null(strstr(text, "\"run+=--size 64m\""));
	free(text);
	fsb_matrix_doc_release(&d);
}

/* load_good with --set items. */
static void load_set(const char *text, const char *const *sets, size_t n,
		     struct fsb_matrix_config *cfg)
{
	char why[1024] = "";
	int rc;

	write_ini(text);
	rc = fsb_matrix_config_load_set(ini, sets, n, cfg, why, sizeof(why));
	if (rc)
		print_error("unexpected: %s\n", why);
	assert_int_equal(rc, 0);
}

static void expect_bad_set(const char *text, const char *item, const char *want)
{
	struct fsb_matrix_config cfg;
	char why[1024], full[PATH_MAX + 1024];
	const char *sets[] = { item };

	write_ini(text);
	assert_int_equal(fsb_matrix_config_load_set(ini, sets, 1, &cfg, why, sizeof(why)), -EINVAL);
	snprintf(full, sizeof(full), "%s: --set '%s': %s", ini, item, want);
	assert_string_equal(why, full);
	fsb_matrix_config_release(&cfg);
}

/*
 * --set: a [global] key there and in every setup that sets it (a suite a
 * setup switched off stays off), SETUP.KEY in that setup only, += appends
 * to the line in effect, in the order given; the items are kept; a bad
 * item is refused naming it and the key.
 */
static void set_overrides(void **state)
{
	static const char file[] = "[global]\nimage_size = 4g\nrun = --size 2g\n"
				   "[a]\ntype = ext4\n"
				   "[b]\ntype = ext4\nimage_size = 8g\nrun = --size 1g --sync\n"
				   "[c]\ntype = ext4\nrun =\nlifecycle = --repeat 3\n";
	const char *sets[] = { "image_size=512m", "run+=--size 64m", "c.lifecycle+=--copy-size 4m",
			       "a.image_size=256m", "repeat=2" };
	struct fsb_matrix_config cfg;

	(void)state;
	load_set(file, sets, 5, &cfg);
	assert_int_equal(cfg.setups[0].image_bytes, 256u << 20);
	assert_int_equal(cfg.setups[1].image_bytes, 512u << 20);
	assert_int_equal(cfg.setups[2].image_bytes, 512u << 20);
	assert_string_equal(cfg.setups[0].run, "--size 2g --size 64m");
	assert_string_equal(cfg.setups[1].run, "--size 1g --sync --size 64m");
	assert_null(cfg.setups[2].run);
	assert_string_equal(cfg.setups[2].lifecycle, "--repeat 3 --copy-size 4m");
	assert_int_equal(cfg.repeat, 2);
	assert_int_equal(cfg.noverrides, 5);
	assert_string_equal(cfg.overrides[1], "run+=--size 64m");
	assert_null(cfg.overrides[5]);
	fsb_matrix_config_release(&cfg);
	/* In order: a later [global] run= replaces what a setup's += made. */
	{
		const char *two[] = { "b.run+=--sync", "run=--size 8m" };

		load_set(file, two, 2, &cfg);
		assert_string_equal(cfg.setups[0].run, "--size 8m");
		assert_string_equal(cfg.setups[1].run, "--size 8m");
		fsb_matrix_config_release(&cfg);
	}
	expect_bad_set(
		file, "image_size=huge",
		"invalid image_size 'huge': expected a size of at least 1m, such as 512m or 2g");
	expect_bad_set(file, "frobs=1",
		       "unknown key 'frobs' (keys: image_size, fill, workdir, run, lifecycle, "
		       "repeat)");
	expect_bad_set(file, "z.run=--size 1m", "'z' is no setup of this file");
	expect_bad_set(file, "mkfs=none",
		       "key 'mkfs' is a setup's: give it as SETUP.mkfs=VALUE (keys of [global]: "
		       "image_size, fill, workdir, run, lifecycle, repeat)");
	expect_bad_set(file, "a.repeat=2",
		       "key 'repeat' belongs in [global], not [a]: give it as repeat=VALUE");
	expect_bad_set(file, "fill+=zero", "'+=' appends words to run or lifecycle, not to fill");
	expect_bad_set(file, "image_size",
		       "expected KEY=VALUE, SETUP.KEY=VALUE or KEY+=WORDS "
		       "(keys of [global]: image_size, fill, workdir, run, "
		       "lifecycle, repeat)");
	/* A value from --set that a run parser refuses is named by its item. */
	{
		const char *bad[] = { "run+=--size" };
		char said[PATH_MAX + 1024], want[PATH_MAX + 1024];
		FILE *tmp = tmpfile();
		int saved = dup(STDERR_FILENO);
		size_t n;

		assert_non_null(tmp);
		load_set(file, bad, 1, &cfg);
		for (size_t i = 0; i < cfg.nsetups; i++)
			cfg.setups[i].selected = true;
		fflush(stderr);
		dup2(fileno(tmp), STDERR_FILENO);
		assert_int_equal(fsb_matrix_lines_to_plans(&cfg), FSB_EXIT_USAGE);
		fflush(stderr);
		dup2(saved, STDERR_FILENO);
		close(saved);
		rewind(tmp);
		n = fread(said, 1, sizeof(said) - 1, tmp);
		said[n] = '\0';
		fclose(tmp);
		snprintf(want, sizeof(want), "fsbench: %s: --set 'run+=--size': run: ", ini);
		assert_memory_equal(said, want, strlen(want));
		fsb_matrix_config_release(&cfg);
	}
}

static void phase_cells(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(fsb_matrix_fmt_phase(0.179, 0.170, 0.201, buf, sizeof(buf)),
			    "179 [170-201]");
	assert_string_equal(fsb_matrix_fmt_phase(0.0123, 0.0120, 0.0131, buf, sizeof(buf)),
			    "12.3 [12.0-13.1]");
	assert_string_equal(fsb_matrix_fmt_phase(0.00123, 0.0012, 0.0013, buf, sizeof(buf)),
			    "1.23 [1.20-1.30]");
	assert_string_equal(fsb_matrix_fmt_phase(2.5, 2.0, 3.0, buf, sizeof(buf)),
			    "2500 [2000-3000]");
	assert_string_equal(fsb_matrix_fmt_phase(-1, 0.0 / 0.0, 1, buf, sizeof(buf)),
			    "0.00 [0.00-1000.00]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(good_file, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(defaults_and_layout, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(bad_keys_and_sections, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(bad_values, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(reserved_options, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(lines_become_plans, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(line_reader, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(guest_keys, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(multi_device_templates, tmp_setup, tmp_teardown),
		cmocka_unit_test(expansion),
		cmocka_unit_test(missing_file),
		cmocka_unit_test_setup_teardown(template_naming_a_device, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(untrusted_file, tmp_setup, tmp_teardown),
		cmocka_unit_test(view_json),
		cmocka_unit_test(view_text_and_csv),
		cmocka_unit_test(view_text_guest_rows),
		cmocka_unit_test_setup_teardown(set_overrides, tmp_setup, tmp_teardown),
		cmocka_unit_test(phase_cells),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
