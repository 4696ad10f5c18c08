/*
 * Unit tests of src/device/image.c and the template device check of
 * src/device/mkfs.c: the image rules on fabricated facts (every refusal,
 * what --destroy-data lifts and what it never does), the /proc/locks
 * parser, claiming real files (a symlink to a victim, a directory, a file
 * with data, a larger file with a smaller --image-size, a missing one made
 * 0600 and removed again), two claims of one image (the second is told the
 * holder's PID), and templates naming block devices (a device node made
 * with mknod, a symlink to it, "--opt=DEV", "-dDEV", "x=DEV,y"), as root.
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
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device/image.h"
#include "device/mkfs.h"
#include "util/error.h"
#include "util/scratch.h"

struct tmp {
	char dir[PATH_MAX];
};

/* The first error a call describes: captured (and printed, as usual). */
static struct fsb_error caught;
static struct fsb_err_scope scope;

static void catch_begin(void)
{
	fsb_error_clear(&caught);
	fsb_err_capture_begin(&scope, &caught, false);
}

static const char *catch_end(void)
{
	fsb_err_capture_end(&scope, 0);
	return caught.msg;
}

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

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* ---- the rules, on fabricated facts ---- */

static void facts_of_a_good_image(struct fsb_image_facts *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "/var/tmp/i.img");
	f->exists = true;
	f->mode = S_IFREG | 0600;
	f->uid = f->euid = 1000;
}

static void rules_each_refusal(void **state)
{
	struct fsb_image_facts f;
	char why[PATH_MAX + 512];

	(void)state;
	facts_of_a_good_image(&f);
	f.want_bytes = 64 << 20;
	assert_int_equal(fsb_image_decide(&f, false, why, sizeof(why)), FSB_IMAGE_OK);
	assert_string_equal(why, "");

	f.exists = false;
	f.want_bytes = 0;
	assert_int_equal(fsb_image_decide(&f, false, why, sizeof(why)), FSB_IMAGE_MISSING);
	assert_non_null(strstr(why, "does not exist: give --image-size"));
	f.want_bytes = 1 << 20;
	assert_int_equal(fsb_image_decide(&f, false, why, sizeof(why)), FSB_IMAGE_OK);

	facts_of_a_good_image(&f);
	f.is_symlink = true;
	f.mode = S_IFLNK | 0777;
	assert_int_equal(fsb_image_decide(&f, true, why, sizeof(why)), FSB_IMAGE_SYMLINK);
	assert_non_null(strstr(why, "refusing image '/var/tmp/i.img': it is a symbolic link"));

	facts_of_a_good_image(&f);
	f.mode = S_IFBLK | 0660;
	assert_int_equal(fsb_image_decide(&f, true, why, sizeof(why)), FSB_IMAGE_NOT_REGULAR);
	assert_non_null(strstr(why, "a block device, not a regular file"));
	assert_non_null(strstr(why, "--device"));

	facts_of_a_good_image(&f);
	f.uid = 65534;
	assert_int_equal(fsb_image_decide(&f, true, why, sizeof(why)), FSB_IMAGE_OWNER);
	assert_non_null(strstr(why, "owned by uid 65534, not by uid 1000"));

	facts_of_a_good_image(&f);
	f.size_bytes = 1 << 20;
	snprintf(f.loop_dev, sizeof(f.loop_dev), "/dev/loop7");
	assert_int_equal(fsb_image_decide(&f, true, why, sizeof(why)), FSB_IMAGE_LOOP);
	assert_non_null(strstr(why, "backs loop device '/dev/loop7'"));

	facts_of_a_good_image(&f);
	f.size_bytes = 64 << 20;
	f.signature = true;
	snprintf(f.sig_type, sizeof(f.sig_type), "ext4");
	snprintf(f.sig_usage, sizeof(f.sig_usage), "filesystem");
	assert_int_equal(fsb_image_decide(&f, false, why, sizeof(why)), FSB_IMAGE_SIGNATURE);
	assert_non_null(strstr(why, "filesystem signature (ext4) (rule: signature)"));
	assert_non_null(strstr(why, "pass --destroy-data to overwrite it"));

	facts_of_a_good_image(&f);
	f.size_bytes = 1 << 20;
	f.ptable = true;
	snprintf(f.pt_type, sizeof(f.pt_type), "gpt");
	assert_int_equal(fsb_image_decide(&f, false, why, sizeof(why)), FSB_IMAGE_PTABLE);
	assert_non_null(strstr(why, "partition table (gpt)"));

	/* Data without a signature is still data; a resize is said too. */
	facts_of_a_good_image(&f);
	f.size_bytes = 128 << 20;
	f.want_bytes = 64 << 20;
	assert_int_equal(fsb_image_decide(&f, false, why, sizeof(why)), FSB_IMAGE_DATA);
	assert_non_null(strstr(why, "it is not empty (128.0 MiB"));
	assert_non_null(strstr(why, "resize it from 128.0 MiB to 64.0 MiB"));
	assert_non_null(strstr(why, "--destroy-data"));

	facts_of_a_good_image(&f);
	assert_int_equal(fsb_image_decide(&f, false, why, sizeof(why)), FSB_IMAGE_EMPTY);
	assert_non_null(strstr(why, "is empty: give --image-size"));
}

static void rules_destroy_data_lifts_content_only(void **state)
{
	struct fsb_image_facts f;
	char why[PATH_MAX + 512];

	(void)state;
	facts_of_a_good_image(&f);
	f.size_bytes = 128 << 20;
	f.want_bytes = 64 << 20;
	f.signature = f.ptable = true;
	assert_int_equal(fsb_image_decide(&f, false, why, sizeof(why)), FSB_IMAGE_SIGNATURE);
	assert_int_equal(fsb_image_decide(&f, true, why, sizeof(why)), FSB_IMAGE_OK);
	assert_string_equal(why, "");
	/* What the path is, who owns it and who uses it: never lifted. */
	f.uid = 0;
	assert_int_equal(fsb_image_decide(&f, true, NULL, 0), FSB_IMAGE_OWNER);
	f.uid = f.euid;
	snprintf(f.loop_dev, sizeof(f.loop_dev), "/dev/loop1");
	assert_int_equal(fsb_image_decide(&f, true, NULL, 0), FSB_IMAGE_LOOP);
}

static void lock_holder_parsed(void **state)
{
	const char *text = "1: POSIX  ADVISORY  WRITE 111 fe:00:42 0 EOF\n"
			   "2: FLOCK  ADVISORY  WRITE 222 fe:01:42 0 EOF\n"
			   "3: FLOCK  ADVISORY  WRITE 333 fe:00:42 0 EOF\n"
			   "3: -> FLOCK  ADVISORY  WRITE 444 fe:00:42 0 EOF\n";

	(void)state;
	/* The FLOCK on that very file: not the POSIX lock, not another
	 * device's inode 42, not the waiter. */
	assert_int_equal(fsb_image_lock_holder(text, makedev(0xfe, 0), 42), 333);
	assert_int_equal(fsb_image_lock_holder(text, makedev(0xfe, 1), 42), 222);
	assert_int_equal(fsb_image_lock_holder(text, makedev(0xfe, 0), 43), 0);
	assert_int_equal(fsb_image_lock_holder("3: -> FLOCK  ADVISORY  WRITE 444 fe:00:42 0 EOF\n",
					       makedev(0xfe, 0), 42),
			 0);
	assert_int_equal(fsb_image_lock_holder("", makedev(0xfe, 0), 42), 0);
	/* Majors and minors are hex. */
	assert_int_equal(fsb_image_lock_holder("7: FLOCK  ADVISORY  WRITE 9 103:1a:77 0 EOF",
					       makedev(0x103, 0x1a), 77),
			 9);
}

/* ---- real files ---- */

static void claim_refuses_what_is_not_ours(void **state)
{
	struct tmp *t = *state;
	char img[PATH_MAX + 16], victim[PATH_MAX + 16], text[64];
	struct fsb_image im;
	struct stat st;

	snprintf(img, sizeof(img), "%s/link.img", t->dir);
	snprintf(victim, sizeof(victim), "%s/victim", t->dir);
	write_file(victim, "precious\n");
	assert_int_equal(symlink(victim, img), 0);
	fsb_image_init(&im);
	/* A symlink is never followed, not even with --destroy-data. */
	catch_begin();
	assert_int_equal(fsb_image_claim(&im, img, 1 << 20, true), -EPERM);
	assert_non_null(strstr(catch_end(), "it is a symbolic link (rule: symlink"));
	assert_int_equal(im.fd, -1);
	fsb_image_close(&im, true);
	read_file(victim, text, sizeof(text));
	assert_string_equal(text, "precious\n");
	assert_int_equal(lstat(img, &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	/* A directory is not an image. */
	fsb_image_init(&im);
	catch_begin();
	assert_int_equal(fsb_image_claim(&im, t->dir, 1 << 20, true), -EINVAL);
	assert_non_null(strstr(catch_end(), "a directory, not a regular file"));

	/* A text file is data. */
	fsb_image_init(&im);
	catch_begin();
	assert_int_equal(fsb_image_claim(&im, victim, 1 << 20, false), -EPERM);
	assert_non_null(strstr(catch_end(), "not empty"));
	fsb_image_close(&im, true);
	read_file(victim, text, sizeof(text));
	assert_string_equal(text, "precious\n");
	/* Another user's file (as root: chown it to nobody). */
	if (geteuid() == 0) {
		assert_int_equal(chown(victim, 65534, 65534), 0);
		fsb_image_init(&im);
		catch_begin();
		assert_int_equal(fsb_image_claim(&im, victim, 0, true), -EPERM);
		assert_non_null(strstr(catch_end(), "owned by uid 65534"));
	}
}

static void claim_resize_needs_destroy_data(void **state)
{
	struct tmp *t = *state;
	char img[PATH_MAX + 16];
	struct fsb_image im;
	struct stat st;
	int fd;

	snprintf(img, sizeof(img), "%s/big.img", t->dir);
	fd = open(img, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "data", 4, 4096), 4);
	assert_int_equal(ftruncate(fd, 8 << 20), 0);
	close(fd);
	fsb_image_init(&im);
	catch_begin();
	assert_int_equal(fsb_image_claim(&im, img, 4 << 20, false), -EPERM);
	assert_non_null(strstr(catch_end(), "resize it from 8.0 MiB to 4.0 MiB"));
	fsb_image_close(&im, true);
	assert_int_equal(stat(img, &st), 0);
	assert_int_equal(st.st_size, 8 << 20);
	/* Given up: sized as asked, kept (not made here) when closed. */
	fsb_image_init(&im);
	assert_int_equal(fsb_image_claim(&im, img, 4 << 20, true), 0);
	assert_int_equal(fsb_image_make(&im), 0);
	assert_false(im.created);
	assert_int_equal(im.size_bytes, 4 << 20);
	fsb_image_close(&im, true);
	assert_int_equal(stat(img, &st), 0);
	assert_int_equal(st.st_size, 4 << 20);
	/* An empty file holds nothing: it may grow without --destroy-data. */
	assert_int_equal(truncate(img, 0), 0);
	fsb_image_init(&im);
	assert_int_equal(fsb_image_claim(&im, img, 2 << 20, false), 0);
	assert_int_equal(fsb_image_make(&im), 0);
	fsb_image_close(&im, false);
	assert_int_equal(stat(img, &st), 0);
	assert_int_equal(st.st_size, 2 << 20);
}

static void new_image_0600_removed_on_failure(void **state)
{
	struct tmp *t = *state;
	char img[PATH_MAX + 16], moved[PATH_MAX + 16];
	struct fsb_image im;
	struct stat st;
	mode_t old = umask(0);

	snprintf(img, sizeof(img), "%s/new.img", t->dir);
	fsb_image_init(&im);
	assert_int_equal(fsb_image_claim(&im, img, 0, false), -ENOENT);
	fsb_image_init(&im);
	/* Claimed while missing: nothing exists until made. */
	assert_int_equal(fsb_image_claim(&im, img, 3 << 20, false), 0);
	assert_true(im.missing);
	assert_int_equal(lstat(img, &st), -1);
	assert_int_equal(fsb_image_make(&im), 0);
	umask(old);
	assert_true(im.created);
	assert_int_equal(fstat(im.fd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, 3 << 20);
	fsb_image_close(&im, true);
	assert_int_equal(lstat(img, &st), -1);

	/* create never reuses a path. */
	write_file(img, "");
	fsb_image_init(&im);
	assert_int_equal(fsb_image_create(&im, img, 1 << 20), -EEXIST);
	assert_int_equal(stat(img, &st), 0);
	assert_int_equal(st.st_size, 0);
	/* A created image replaced under its name is not removed. */
	unlink(img);
	assert_int_equal(fsb_image_create(&im, img, 1 << 20), 0);
	snprintf(moved, sizeof(moved), "%s/moved.img", t->dir);
	assert_int_equal(rename(img, moved), 0);
	write_file(img, "someone else's\n");
	fsb_image_close(&im, true);
	assert_int_equal(stat(img, &st), 0);
	assert_int_equal(st.st_size, 15);
}

static void second_claim_names_the_holder(void **state)
{
	struct tmp *t = *state;
	char img[PATH_MAX + 16], want[64];
	struct fsb_image a, b;

	snprintf(img, sizeof(img), "%s/busy.img", t->dir);
	assert_int_equal(fsb_image_create(&a, img, 1 << 20), 0);
	/* A second open of the file is a second lock owner, even here. */
	fsb_image_init(&b);
	catch_begin();
	assert_int_equal(fsb_image_claim(&b, img, 0, true), -EBUSY);
	snprintf(want, sizeof(want), "is in use by PID %ld (", (long)getpid());
	assert_non_null(strstr(catch_end(), want));
	assert_int_equal(b.fd, -1);
	fsb_image_close(&a, false);
	/* Released with the descriptor. */
	fsb_image_init(&b);
	assert_int_equal(fsb_image_claim(&b, img, 0, true), 0);
	fsb_image_close(&b, false);
}

/* ---- templates naming devices ---- */

static void template_names_devices(void **state)
{
	struct tmp *t = *state;
	char node[PATH_MAX + 16], link[PATH_MAX + 16], tmpl[3 * PATH_MAX], why[PATH_MAX + 256];
	char *argv[4];
	const char *mine[1];

	/* Templates that name no device pass, whatever they look like. */
	assert_int_equal(fsb_mkfs_check_template("mkfs.ext4 -q -F {dev}", why, sizeof(why)), 0);
	assert_int_equal(fsb_mkfs_check_template("mkfs.btrfs -d raid1 {devs}", why, sizeof(why)),
			 0);
	assert_int_equal(fsb_mkfs_check_template("none", why, sizeof(why)), 0);
	assert_int_equal(fsb_mkfs_check_template("mkfs.xfs -l logdev={dev2},size=1m {dev1}", why,
						 sizeof(why)),
			 0);
	if (geteuid() != 0) {
		skip(); /* mknod needs root */
		return;
	}
	/* A block device node of our own: stat is all the check does. */
	snprintf(node, sizeof(node), "%s/blk", t->dir);
	snprintf(link, sizeof(link), "%s/by-id-link", t->dir);
	assert_int_equal(mknod(node, S_IFBLK | 0600, makedev(7, 250)), 0);
	assert_int_equal(symlink(node, link), 0);

	snprintf(tmpl, sizeof(tmpl), "wipefs -a %s {dev}", node);
	assert_int_equal(fsb_mkfs_check_template(tmpl, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is block device 7:250, which fsbench did not make"));
	snprintf(tmpl, sizeof(tmpl), "wipefs -a %s {dev}", link);
	assert_int_equal(fsb_mkfs_check_template(tmpl, why, sizeof(why)), -EPERM);
	snprintf(tmpl, sizeof(tmpl), "mkfs.ext4 --opt=%s {dev}", node);
	assert_int_equal(fsb_mkfs_check_template(tmpl, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "names block device"));
	snprintf(tmpl, sizeof(tmpl), "mkfs.ext4 -qd%s {dev}", link);
	assert_int_equal(fsb_mkfs_check_template(tmpl, why, sizeof(why)), -EPERM);
	snprintf(tmpl, sizeof(tmpl), "mkfs.xfs -l logdev=%s,size=1m {dev}", node);
	assert_int_equal(fsb_mkfs_check_template(tmpl, why, sizeof(why)), -EPERM);
	/* A relative path is resolved from the current directory. */
	assert_int_equal(chdir(t->dir), 0);
	assert_int_equal(fsb_mkfs_check_template("mkfs.ext4 -F ./blk", why, sizeof(why)), -EPERM);
	assert_int_equal(chdir("/"), 0);

	/* Expanded: the device made for it passes, by device number. */
	argv[0] = "mkfs.ext4";
	argv[1] = link;
	argv[2] = NULL;
	mine[0] = node;
	assert_int_equal(fsb_mkfs_check_devices(argv, mine, 1, why, sizeof(why)), 0);
	assert_int_equal(fsb_mkfs_check_devices(argv, NULL, 0, why, sizeof(why)), -EPERM);
	mine[0] = "/dev/null";
	assert_int_equal(fsb_mkfs_check_devices(argv, mine, 1, why, sizeof(why)), -EPERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rules_each_refusal),
		cmocka_unit_test(rules_destroy_data_lifts_content_only),
		cmocka_unit_test(lock_holder_parsed),
		cmocka_unit_test_setup_teardown(claim_refuses_what_is_not_ours, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(claim_resize_needs_destroy_data, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(new_image_0600_removed_on_failure, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(second_claim_names_the_holder, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(template_names_devices, tmp_setup, tmp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
