/*
 * Unit tests: `fsbench clean`'s decisions (src/core/clean.c) on plain
 * directories and image files, with a fake /proc tree deciding who is
 * alive and what is mounted. Mounts and loop devices are exercised end to end, as root, in
 * tests/cli/t1250-clean.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clean.h"
#include "util/marker.h"

#define BOOT "11111111-2222-3333-4444-555555555555"
#define LIVE_PID 200

struct env {
	char top[32];  /* everything below is removed at the end */
	char proc[64]; /* fake /proc: boot id, process LIVE_PID */
	char dir[64];  /* the DIR cleaned */
};

struct seen {
	char lines[64][PATH_MAX + 128];
	size_t n;
};

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* The fake mount table: "/" and then lines. */
static void mountinfo(const struct env *e, const char *lines)
{
	char p[PATH_MAX], text[8192];

	snprintf(p, sizeof(p), "%s/self/mountinfo", e->proc);
	snprintf(text, sizeof(text), "1 0 0:30 / / rw - tmpfs none rw\n%s", lines);
	put(p, text, 0644);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	char p[PATH_MAX + 64];

	if (!e)
		return -1;
	snprintf(e->top, sizeof(e->top), "/tmp/fsb-unit.XXXXXX");
	if (!mkdtemp(e->top))
		return -1;
	snprintf(e->proc, sizeof(e->proc), "%s/proc", e->top);
	snprintf(e->dir, sizeof(e->dir), "%s/dir", e->top);
	mkdir(e->proc, 0700);
	mkdir(e->dir, 0700);
	snprintf(p, sizeof(p), "%s/sys", e->proc);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sys/kernel", e->proc);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sys/kernel/random", e->proc);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sys/kernel/random/boot_id", e->proc);
	put(p, BOOT "\n", 0644);
	snprintf(p, sizeof(p), "%s/self", e->proc);
	mkdir(p, 0700);
	mountinfo(e, "");
	snprintf(p, sizeof(p), "%s/%d", e->proc, LIVE_PID);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/%d/stat", e->proc, LIVE_PID);
	put(p, "200 (fsbench) S 1 200 200 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7 0 0\n", 0644);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->top);
	if (system(cmd))
		return -1;
	free(e);
	return 0;
}

/* A scratch dir under e->dir with a marker of (pid, start, boot) + lines. */
static void scratch(const struct env *e, const char *name, long pid, int start, const char *boot,
		    const char *lines, char *out)
{
	char p[PATH_MAX + 64], text[8192];

	snprintf(out, PATH_MAX, "%s/%s", e->dir, name);
	assert_int_equal(mkdir(out, 0700), 0);
	snprintf(text, sizeof(text), "fsbench-owner 1\npid=%ld\nstart=%d\nboot=%s\n%s", pid, start,
		 boot, lines);
	snprintf(p, sizeof(p), "%s/%s", out, FSB_MARKER_NAME);
	put(p, text, 0600);
	snprintf(p, sizeof(p), "%s/block.dat", out);
	put(p, "data", 0600);
}

/* "image=PATH DEV:INO created=C\n" for a file that exists. */
static void image_line(const char *path, int created, char *out, size_t len)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	snprintf(out, len, "image=%s %ju:%ju created=%d\n", path, (uintmax_t)st.st_dev,
		 (uintmax_t)st.st_ino, created);
}

static void record(const struct fsb_clean_event *ev, void *arg)
{
	static const char *const out[] = { "done",   "would", "refused", "failed",
					   "in-use", "kept",  "note" };
	static const char *const what[] = { "dir", "mount", "loop", "image" };
	struct seen *s = arg;

	if (s->n < 64)
		snprintf(s->lines[s->n++], sizeof(s->lines[0]), "%s %s %s", out[ev->outcome],
			 what[ev->what], ev->path);
}

static bool saw(const struct seen *s, const char *outcome, const char *what, const char *path)
{
	char want[PATH_MAX + 128];

	snprintf(want, sizeof(want), "%s %s %s", outcome, what, path);
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->lines[i], want))
			return true;
	return false;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void clean_decides(void **state)
{
	struct env *e = *state;
	char dead[PATH_MAX], nomark[PATH_MAX], live[PATH_MAX], outside[PATH_MAX], swapped[PATH_MAX],
		oldboot[PATH_MAX], kept[PATH_MAX], reused[PATH_MAX];
	char img_out[PATH_MAX + 16], img_user[PATH_MAX + 16], img_swap[PATH_MAX + 16],
		img_in[PATH_MAX + 32], p[PATH_MAX + 32], l1[PATH_MAX * 2], l2[PATH_MAX * 2],
		l3[PATH_MAX * 2], lines[PATH_MAX * 8];
	const char *dirs[] = { e->dir, e->dir };
	struct fsb_clean_opts o = { .dry_run = true, .proc_root = e->proc, .report = record };
	struct fsb_clean_counts c;
	struct seen s = { .n = 0 };

	o.arg = &s;
	/* Dead owner (no such PID): its image outside, created, goes; the
	 * user's image it only used stays; its own image inside goes. */
	snprintf(img_out, sizeof(img_out), "%s/made.img", e->top);
	snprintf(img_user, sizeof(img_user), "%s/user.img", e->top);
	put(img_out, "img", 0600);
	put(img_user, "img", 0600);
	image_line(img_out, 1, l1, sizeof(l1));
	image_line(img_user, 0, l2, sizeof(l2));
	snprintf(lines, sizeof(lines), "%s%sloop=/dev/loop99999\n", l1, l2);
	scratch(e, "fsbench.100.aaaaaa", 100, 5, BOOT, lines, dead);
	snprintf(img_in, sizeof(img_in), "%s/setup1-dev1.img", dead);
	put(img_in, "img", 0600);
	image_line(img_in, 1, l3, sizeof(l3));
	snprintf(p, sizeof(p), "%s/%s", dead, FSB_MARKER_NAME);
	{
		FILE *f = fopen(p, "a");

		assert_non_null(f);
		fputs(l3, f);
		snprintf(lines, sizeof(lines), "mount=%s/mnt\n", dead);
		fputs(lines, f);
		fclose(f);
	}
	/* The same PID, but started at another time: dead too. */
	scratch(e, "fsbench.200.reused", LIVE_PID, 6, BOOT, "", reused);
	/* No marker. */
	snprintf(nomark, sizeof(nomark), "%s/fsbench.123.abcdef", e->dir);
	assert_int_equal(mkdir(nomark, 0700), 0);
	/* The owner runs. */
	scratch(e, "fsbench.200.bbbbbb", LIVE_PID, 7, BOOT, "", live);
	/* A mount claim outside the directory. */
	scratch(e, "fsbench.101.cccccc", 101, 5, BOOT, "mount=/proc\n", outside);
	/* An image claim whose file was replaced since. */
	snprintf(img_swap, sizeof(img_swap), "%s/swapped.img", e->top);
	put(img_swap, "old", 0600);
	image_line(img_swap, 1, l1, sizeof(l1));
	assert_int_equal(unlink(img_swap), 0);
	put(img_swap, "someone else's", 0600);
	/* (a fresh inode, unless the filesystem reused the number at once) */
	image_line(img_swap, 1, l2, sizeof(l2));
	if (!strcmp(l1, l2))
		snprintf(l1, sizeof(l1), "image=%s 1:1 created=1\n", img_swap);
	scratch(e, "fsbench.102.dddddd", 102, 5, BOOT, l1, swapped);
	/* An earlier boot: its loop and mount are gone, the dir can go. */
	snprintf(lines, sizeof(lines), "loop=/dev/loop0\nmount=%s/fsbench.103.eeeeee/mnt\n",
		 e->dir);
	scratch(e, "fsbench.103.eeeeee", 103, 5, "99999999-2222-3333-4444-555555555555", lines,
		oldboot);
	/* Kept on purpose. */
	scratch(e, "fsbench.104.ffffff", 104, 5, BOOT, "kept=1\n", kept);
	/* Names that are no scratch dir of ours: not even looked at. */
	snprintf(p, sizeof(p), "%s/fsbench.105.gggggg", e->dir);
	put(p, "a file", 0600);
	snprintf(p, sizeof(p), "%s/fsbench.106.hhhhhh", e->dir);
	assert_int_equal(symlink(live, p), 0);
	snprintf(p, sizeof(p), "%s/fsbench.d", e->dir);
	assert_int_equal(mkdir(p, 0700), 0);

	/* Dry run: everything listed, nothing touched. DIR named twice. */
	assert_int_equal(fsb_clean(dirs, 2, &o, &c), 0);
	assert_int_equal(c.found, 8);
	assert_int_equal(c.refused, 5);
	assert_int_equal(c.failed, 0);
	assert_true(saw(&s, "would", "dir", dead));
	assert_true(saw(&s, "would", "image", img_out));
	assert_true(saw(&s, "would", "image", img_in));
	assert_false(saw(&s, "would", "image", img_user));
	assert_true(saw(&s, "would", "dir", reused));
	assert_true(saw(&s, "would", "dir", oldboot));
	assert_true(saw(&s, "note", "loop", "/dev/loop0"));
	assert_true(saw(&s, "refused", "dir", nomark));
	assert_true(saw(&s, "in-use", "dir", live));
	assert_true(saw(&s, "refused", "mount", "/proc"));
	assert_true(saw(&s, "refused", "dir", outside));
	assert_true(saw(&s, "refused", "image", img_swap));
	assert_true(saw(&s, "refused", "dir", swapped));
	assert_true(saw(&s, "kept", "dir", kept));
	assert_true(exists(dead) && exists(img_out) && exists(img_in) && exists(oldboot));

	/* For real. */
	o.dry_run = false;
	s.n = 0;
	assert_int_equal(fsb_clean(dirs, 1, &o, &c), 0);
	assert_true(saw(&s, "done", "dir", dead));
	assert_false(exists(dead));
	assert_false(exists(img_out));
	assert_true(exists(img_user));
	assert_false(exists(reused));
	assert_false(exists(oldboot));
	assert_true(exists(nomark) && exists(live) && exists(outside) && exists(swapped) &&
		    exists(kept) && exists(img_swap));
	snprintf(p, sizeof(p), "%s/%s", outside, FSB_MARKER_NAME);
	assert_true(exists(p)); /* left exactly as it was */
	assert_int_equal(c.refused, 5);
	assert_int_equal(c.failed, 0);

	/* Once more: only the refusals and the live and kept dirs remain. */
	s.n = 0;
	assert_int_equal(fsb_clean(dirs, 1, &o, &c), 0);
	assert_int_equal(c.found, 5);
	assert_int_equal(c.done, 0);
}

static void clean_unreadable_dir(void **state)
{
	struct env *e = *state;
	char missing[PATH_MAX + 16];
	const char *dirs[] = { missing, e->dir };
	struct fsb_clean_opts o = { .proc_root = e->proc };
	struct fsb_clean_counts c;

	snprintf(missing, sizeof(missing), "%s/missing", e->top);
	assert_int_equal(fsb_clean(dirs, 2, &o, &c), -ENOENT);
	assert_int_equal(c.failed, 1);
	assert_int_equal(c.found, 0);
}

/* A marker another user could have written proves nothing. */
static void clean_refuses_foreign_marker(void **state)
{
	struct env *e = *state;
	char d[PATH_MAX], p[PATH_MAX + 32];
	const char *dirs[] = { e->dir };
	struct fsb_clean_opts o = { .proc_root = e->proc };
	struct fsb_clean_counts c;

	scratch(e, "fsbench.107.iiiiii", 107, 5, BOOT, "", d);
	snprintf(p, sizeof(p), "%s/%s", d, FSB_MARKER_NAME);
	assert_int_equal(chmod(p, 0622), 0);
	assert_int_equal(fsb_clean(dirs, 1, &o, &c), 0);
	assert_int_equal(c.refused, 1);
	assert_true(exists(d));
	assert_int_equal(chmod(p, 0600), 0);
	assert_int_equal(chmod(d, 0777), 0);
	assert_int_equal(fsb_clean(dirs, 1, &o, &c), 0);
	assert_int_equal(c.refused, 1);
	assert_true(exists(d));
	assert_int_equal(chmod(d, 0700), 0);
	assert_int_equal(fsb_clean(dirs, 1, &o, &c), 0);
	assert_int_equal(c.refused, 0);
	assert_false(exists(d));
}

/* The lines of a run, a dry run's "would" as the real run's "done". */
static void as_done(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strncmp(s->lines[i], "would ", 6)) {
			memcpy(s->lines[i] + 1, "done", 4);
			memmove(s->lines[i], s->lines[i] + 1, strlen(s->lines[i]));
		}
}

static bool same_lines(const struct seen *a, const struct seen *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->lines[i], b->lines[i]))
			return false;
	return true;
}

/* A mount inside that the marker does not list: the dry run refuses the
 * directory as the real run does, and the real run leaves it as it is
 * (it used to say "would remove", then empty all but the mount). */
static void clean_foreign_mount_inside(void **state)
{
	struct env *e = *state;
	char d[PATH_MAX], plain[PATH_MAX], p[PATH_MAX + 32], line[PATH_MAX + 64];
	const char *dirs[] = { e->dir };
	struct fsb_clean_opts o = { .dry_run = true, .proc_root = e->proc, .report = record };
	struct fsb_clean_counts c;
	struct seen dry = { .n = 0 }, real = { .n = 0 };

	scratch(e, "fsbench.108.jjjjjj", 108, 5, BOOT, "", d);
	scratch(e, "fsbench.109.kkkkkk", 109, 5, BOOT, "", plain);
	snprintf(p, sizeof(p), "%s/sub", d);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(line, sizeof(line), "2 1 0:31 / %s rw - tmpfs none rw\n", p);
	mountinfo(e, line);

	o.arg = &dry;
	assert_int_equal(fsb_clean(dirs, 1, &o, &c), 0);
	assert_true(saw(&dry, "refused", "dir", d));
	assert_false(saw(&dry, "would", "dir", d));
	assert_true(saw(&dry, "would", "dir", plain));
	assert_int_equal(c.refused, 1);

	o.dry_run = false;
	o.arg = &real;
	assert_int_equal(fsb_clean(dirs, 1, &o, &c), 0);
	assert_true(saw(&real, "refused", "dir", d));
	assert_int_equal(c.refused, 1);
	assert_int_equal(c.failed, 0);
	snprintf(p, sizeof(p), "%s/block.dat", d);
	assert_true(exists(p)); /* left as it is */
	assert_false(exists(plain));
	as_done(&dry);
	assert_true(same_lines(&dry, &real));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(clean_decides, setup, teardown),
		cmocka_unit_test_setup_teardown(clean_unreadable_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(clean_refuses_foreign_marker, setup, teardown),
		cmocka_unit_test_setup_teardown(clean_foreign_mount_inside, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
