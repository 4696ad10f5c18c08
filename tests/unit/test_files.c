/*
 * Unit tests of the metadata suite: name generation (format, ordering of
 * sequential vs random names, determinism from the seed), sizes and
 * contents, the random order (a bijection for every N), the --files spec
 * parser, and the six workloads driven hook by hook in a temp directory
 * (set reuse through the marker, data verification, links, subdirectories,
 * teardown after a failure).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/registry.h"
#include "util/filespec.h"
#include "util/marker.h"
#include "util/scratch.h"
#include "workloads/names.h"

/* ---- names ---- */

static int is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void names_format(void **state)
{
	char buf[FSB_NAMES_LEN];
	unsigned lens[FSB_NAMES_RAND_MAX + 1] = { 0 };
	(void)state;

	for (uint64_t i = 0; i < 5000; i++) {
		for (int kind = 0; kind < 2; kind++) {
			size_t len = fsb_names_make(kind, 42, i, buf);
			char digits[8];
			const char *num;
			uint64_t back;

			assert_int_equal(len, strlen(buf));
			assert_true(len >= 7 && len <= 19);
			for (size_t j = 0; j < len; j++)
				assert_true(is_alnum(buf[j]));
			num = kind == FSB_NAMES_SEQ ? buf : buf + len - 7;
			snprintf(digits, sizeof(digits), "%07u", (unsigned)i);
			assert_memory_equal(num, digits, 7);
			assert_int_equal(fsb_names_parse(kind, buf, &back), 0);
			assert_int_equal(back, i);
			if (kind == FSB_NAMES_SEQ)
				lens[len - 7]++;
		}
	}
	/* every length 0..12 of random characters occurs */
	for (int l = 0; l <= FSB_NAMES_RAND_MAX; l++)
		assert_true(lens[l] > 0);
	/* the largest index still has 7 digits */
	fsb_names_make(FSB_NAMES_SEQ, 1, FSB_NAMES_MAX_FILES - 1, buf);
	assert_memory_equal(buf, "9999999", 7);
}

static void names_same_chars_both_kinds(void **state)
{
	char s[FSB_NAMES_LEN], r[FSB_NAMES_LEN];
	(void)state;

	/* same random characters, on the other side of the number */
	for (uint64_t i = 0; i < 100; i++) {
		size_t ls = fsb_names_make(FSB_NAMES_SEQ, 9, i, s);
		size_t lr = fsb_names_make(FSB_NAMES_RAND, 9, i, r);

		assert_int_equal(ls, lr);
		assert_memory_equal(s + 7, r, ls - 7);
		assert_memory_equal(s, r + lr - 7, 7);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_ordering(void **state)
{
	enum { N = 2000 };
	static char seq[N][FSB_NAMES_LEN], rnd[N][FSB_NAMES_LEN];
	char *sorted[N];
	unsigned in_place = 0, ascending = 0;
	(void)state;

	for (unsigned i = 0; i < N; i++) {
		fsb_names_make(FSB_NAMES_SEQ, 7, i, seq[i]);
		fsb_names_make(FSB_NAMES_RAND, 7, i, rnd[i]);
	}
	/* sequential names sort in index order: numeric order = name order */
	for (unsigned i = 1; i < N; i++)
		assert_true(strcmp(seq[i - 1], seq[i]) < 0);
	/* random names are unique and their sorted order is not index order */
	for (unsigned i = 0; i < N; i++)
		sorted[i] = rnd[i];
	qsort(sorted, N, sizeof(sorted[0]), cmp_str);
	for (unsigned i = 0; i < N; i++) {
		if (i)
			assert_true(strcmp(sorted[i - 1], sorted[i]) < 0);
		if (sorted[i] == rnd[i])
			in_place++;
	}
	for (unsigned i = 1; i < N; i++)
		if (strcmp(rnd[i - 1], rnd[i]) < 0)
			ascending++;
	assert_true(in_place < N / 20);
	/* about half of neighbours ascend, as for a random sequence */
	assert_true(ascending > N * 4 / 10 && ascending < N * 6 / 10);
}

static void names_deterministic(void **state)
{
	char a[FSB_NAMES_LEN], b[FSB_NAMES_LEN];
	unsigned differ = 0;
	(void)state;

	for (uint64_t i = 0; i < 1000; i++) {
		fsb_names_make(FSB_NAMES_RAND, 1, i, a);
		fsb_names_make(FSB_NAMES_RAND, 1, i, b);
		assert_string_equal(a, b);
		fsb_names_make(FSB_NAMES_RAND, 2, i, b);
		if (strcmp(a, b))
			differ++;
	}
	/* another seed, other names (a few may agree: same length 0) */
	assert_true(differ > 900);
}

static void names_parse_bad(void **state)
{
	uint64_t i;
	(void)state;

	assert_int_equal(fsb_names_parse(FSB_NAMES_SEQ, "", &i), -EINVAL);
	assert_int_equal(fsb_names_parse(FSB_NAMES_SEQ, "123456", &i), -EINVAL);
	assert_int_equal(fsb_names_parse(FSB_NAMES_SEQ, "abc1234567", &i), -EINVAL);
	assert_int_equal(fsb_names_parse(FSB_NAMES_RAND, "1234567abc", &i), -EINVAL);
	assert_int_equal(fsb_names_parse(FSB_NAMES_SEQ, "1234567abcdefghijklm", &i), -EINVAL);
	assert_int_equal(fsb_names_parse(FSB_NAMES_SEQ, "files.set", &i), -EINVAL);
	assert_int_equal(fsb_names_parse(FSB_NAMES_RAND, "abc0000012", &i), 0);
	assert_int_equal(i, 12);
}

static void names_dirs_even(void **state)
{
	unsigned counts[7] = { 0 };
	char buf[FSB_NAMES_DIR_LEN];
	unsigned last = 0;
	(void)state;

	assert_int_equal(fsb_names_dir(5, 10, 0), 0);
	assert_int_equal(fsb_names_dir(5, 10, 1), 0);
	for (uint64_t i = 0; i < 1000; i++) {
		unsigned d = fsb_names_dir(i, 1000, 7);

		assert_true(d < 7);
		assert_true(d >= last); /* consecutive indexes share a directory */
		last = d;
		counts[d]++;
	}
	for (int d = 0; d < 7; d++)
		assert_true(counts[d] == 142 || counts[d] == 143);
	assert_int_equal(fsb_names_dir_make(42, buf), 5);
	assert_string_equal(buf, "00042");
	fsb_names_dir_make(99999, buf);
	assert_string_equal(buf, "99999");
	fsb_names_dir_make(0, buf);
	assert_string_equal(buf, "00000");
}

static void names_sizes(void **state)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	(void)state;

	assert_int_equal(fsb_names_bytes(1, 5, 0, 0), 0);
	assert_int_equal(fsb_names_bytes(1, 5, 100, 100), 100);
	for (uint64_t i = 0; i < 10000; i++) {
		uint64_t s = fsb_names_bytes(3, i, 1024, 4096);

		assert_true(s >= 1024 && s <= 4096);
		assert_int_equal(s, fsb_names_bytes(3, i, 1024, 4096));
		lo = s < lo ? s : lo;
		hi = s > hi ? s : hi;
	}
	assert_true(lo < 1100 && hi > 4000); /* spread over the whole range */
}

/* ---- the permutation ---- */

static void perm_check(uint64_t n, uint64_t seed)
{
	struct fsb_names_perm p;
	unsigned char *seen = calloc(n, 1);

	assert_non_null(seen);
	fsb_names_perm_init(&p, n, seed);
	for (uint64_t k = 0; k < n; k++) {
		uint64_t v = fsb_names_perm_at(&p, k);

		assert_true(v < n);
		assert_int_equal(seen[v], 0);
		seen[v] = 1;
		assert_int_equal(v, fsb_names_perm_at(&p, k)); /* deterministic */
	}
	free(seen); /* n values, each seen once, none out of range: a bijection */
}

static void perm_bijection(void **state)
{
	static const uint64_t ns[] = { 1,   2,	  3,	5,    7,    8,	  63,	 64,	 65,
				       100, 1000, 1023, 1024, 1025, 4097, 65537, 1000003 };
	(void)state;

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		perm_check(ns[i], 1);
		perm_check(ns[i], 0xdeadbeef);
	}
}

static void perm_seeds_differ(void **state)
{
	struct fsb_names_perm a, b;
	unsigned same = 0, fixed = 0, ascending = 0;
	uint64_t prev = 0;
	(void)state;

	fsb_names_perm_init(&a, 1000, 1);
	fsb_names_perm_init(&b, 1000, 2);
	for (uint64_t k = 0; k < 1000; k++) {
		uint64_t va = fsb_names_perm_at(&a, k);

		if (va == fsb_names_perm_at(&b, k))
			same++;
		if (va == k)
			fixed++;
		if (k && va > prev)
			ascending++;
		prev = va;
	}
	assert_true(same < 20);	 /* ~1 expected for independent orders */
	assert_true(fixed < 20); /* not the identity */
	assert_true(ascending > 400 && ascending < 600);
}

/* ---- the --files spec ---- */

static void spec_good(void **state)
{
	uint64_t n, max, min;
	unsigned dirs;
	(void)state;

	assert_int_equal(fsb_files_spec_parse("16", &n, &max, &min, &dirs), 0);
	assert_int_equal(n, 16);
	assert_int_equal(max, 0);
	assert_int_equal(min, 0);
	assert_int_equal(dirs, 0);
	assert_int_equal(fsb_files_spec_parse("16k", &n, &max, &min, &dirs), 0);
	assert_int_equal(n, 16384); /* files, not bonnie++'s units of 1024 */
	assert_int_equal(fsb_files_spec_parse("16K:4k", &n, &max, &min, &dirs), 0);
	assert_int_equal(n, 16384);
	assert_int_equal(max, 4096);
	assert_int_equal(min, 0);
	assert_int_equal(fsb_files_spec_parse("64k:4k:1k:16", &n, &max, &min, &dirs), 0);
	assert_int_equal(n, 65536);
	assert_int_equal(max, 4096);
	assert_int_equal(min, 1024);
	assert_int_equal(dirs, 16);
	assert_int_equal(fsb_files_spec_parse("2k:1m:1m", &n, &max, &min, &dirs), 0);
	assert_int_equal(max, 1 << 20);
	assert_int_equal(min, 1 << 20);
	assert_int_equal(fsb_files_spec_parse("1m", &n, &max, &min, &dirs), 0);
	assert_int_equal(n, 1 << 20);
	assert_int_equal(fsb_files_spec_parse("0", &n, &max, &min, &dirs), 0);
	assert_int_equal(n, 0);
	assert_int_equal(fsb_files_spec_parse("9999999:100:0:99999", &n, &max, &min, &dirs), 0);
	assert_int_equal(n, 9999999);
	assert_int_equal(dirs, 99999);
}

static void spec_bad(void **state)
{
	static const char *const inval[] = {
		"",	    "k",	   "-1",	   "+5",
		"16x",	    "16k:1k:4k",   "1:0:1",	   "16:-4k",
		"16:4k:-1", "16:4k:1k:-2", "16:4k:1k:2:9", "16:",
		"16::",	    ":4k",	   "16:4q",	   "abc",
		"16 ",	    " 16",	   "16:4k:1k:2k",  "1.5k",
		"16kk",
	};
	uint64_t n = 7, max = 7, min = 7;
	unsigned dirs = 7;
	(void)state;

	for (size_t i = 0; i < sizeof(inval) / sizeof(inval[0]); i++) {
		int err = fsb_files_spec_parse(inval[i], &n, &max, &min, &dirs);

		if (err != -EINVAL)
			fail_msg("'%s' gave %d, want -EINVAL", inval[i], err);
	}
	assert_int_equal(fsb_files_spec_parse(NULL, &n, &max, &min, &dirs), -EINVAL);
	/* too many files for 7-digit names, too many directories */
	assert_int_equal(fsb_files_spec_parse("10000000", &n, &max, &min, &dirs), -ERANGE);
	assert_int_equal(fsb_files_spec_parse("10m", &n, &max, &min, &dirs), -ERANGE);
	assert_int_equal(fsb_files_spec_parse("99999999999999999999999", &n, &max, &min, &dirs),
			 -ERANGE);
	assert_int_equal(fsb_files_spec_parse("16:0:0:100000", &n, &max, &min, &dirs), -ERANGE);
	assert_int_equal(fsb_files_spec_parse("16:99999999999t", &n, &max, &min, &dirs), -ERANGE);
	/* outputs untouched on failure */
	assert_int_equal(n, 7);
	assert_int_equal(max, 7);
	assert_int_equal(min, 7);
	assert_int_equal(dirs, 7);
}

/* ---- the workloads, hook by hook ---- */

struct wl_env {
	char parent[256];
	char dir[512];
	struct fsb_config cfg;
	struct fsb_hist hist;
};

static int env_setup(void **state)
{
	struct wl_env *e = calloc(1, sizeof(*e));

	if (!e)
		return -1;
	snprintf(e->parent, sizeof(e->parent), "%s/fsb-test-files.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(e->parent) || fsb_scratch_create(e->parent, e->dir, sizeof(e->dir))) {
		free(e);
		return -1;
	}
	e->cfg.repeat = 1;
	e->cfg.seed = 77;
	e->cfg.cache = FSB_CACHE_KEEP;
	*state = e;
	return 0;
}

static int env_teardown(void **state)
{
	struct wl_env *e = *state;

	fsb_scratch_remove(e->parent);
	free(e);
	return 0;
}

/* One run of a test: setup, run, teardown, as the runner does. */
static int wl_run(struct wl_env *e, const char *name, uint64_t work, uint64_t *ops)
{
	const struct fsb_workload_ops *w = fsb_registry_find(name);
	struct fsb_ctx ctx = { .cfg = &e->cfg, .dir = e->dir, .work = work };
	struct fsb_sink sink = { .hist = &e->hist };
	void *priv;
	int err;

	assert_non_null(w);
	assert_string_equal(w->family, "files");
	fsb_hist_init(&e->hist);
	priv = calloc(1, w->priv_size);
	assert_non_null(priv);
	err = w->setup(&ctx, priv);
	if (!err)
		err = w->run(&ctx, priv, &sink);
	w->teardown(&ctx, priv);
	w->teardown(&ctx, priv); /* idempotent */
	free(priv);
	if (ops)
		*ops = sink.ops;
	return err;
}

/* Entries in dir/sub (0 when it does not exist), recursively; the scratch
 * dir's owner marker is the scratch dir's, not the workload's. */
static unsigned count_entries(const char *dir, const char *sub)
{
	char path[1024];
	struct dirent *d;
	unsigned n = 0;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	dp = opendir(path);
	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		char child[600];

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    (!*sub && !strcmp(d->d_name, FSB_MARKER_NAME)))
			continue;
		n++;
		if (d->d_type == DT_DIR) {
			snprintf(child, sizeof(child), "%s/%s", sub, d->d_name);
			n += count_entries(dir, child);
		}
	}
	closedir(dp);
	return n;
}

static void suite_cycle(struct wl_env *e, uint64_t n)
{
	uint64_t ops;

	assert_int_equal(wl_run(e, "seq-create", n, &ops), 0);
	assert_int_equal(ops, n);
	assert_int_equal(e->hist.count, n);
	assert_int_equal(wl_run(e, "seq-stat", n, &ops), 0);
	assert_int_equal(ops, n);
	assert_int_equal(wl_run(e, "seq-delete", n, &ops), 0);
	assert_int_equal(ops, n);
	assert_int_equal(count_entries(e->dir, ""), 0);
	assert_int_equal(wl_run(e, "rand-create", n, &ops), 0);
	assert_int_equal(ops, n);
	assert_int_equal(wl_run(e, "rand-stat", n, &ops), 0);
	assert_int_equal(ops, n);
	assert_int_equal(wl_run(e, "rand-delete", n, &ops), 0);
	assert_int_equal(ops, n);
	/* nothing left behind: no files, no directories, no marker */
	assert_int_equal(count_entries(e->dir, ""), 0);
}

static void wl_empty_files(void **state)
{
	struct wl_env *e = *state;

	suite_cycle(e, 1000);
}

static void wl_data_and_dirs(void **state)
{
	struct wl_env *e = *state;

	e->cfg.file_max_bytes = 70000; /* more than one I/O chunk */
	e->cfg.file_min_bytes = 1;
	e->cfg.file_dirs = 5;
	suite_cycle(e, 300);
}

static void wl_links(void **state)
{
	struct wl_env *e = *state;

	e->cfg.links = FSB_LINKS_HARD;
	suite_cycle(e, 500);
	e->cfg.links = FSB_LINKS_SOFT;
	e->cfg.file_dirs = 3;
	suite_cycle(e, 500);
}

static void wl_sync(void **state)
{
	struct wl_env *e = *state;

	e->cfg.sync = true;
	e->cfg.file_max_bytes = 100;
	e->cfg.file_dirs = 2;
	suite_cycle(e, 100);
}

static void wl_stat_alone_and_reuse(void **state)
{
	struct wl_env *e = *state;
	uint64_t ops;

	/* alone: its setup builds the set (untimed), the run only stats */
	assert_int_equal(wl_run(e, "rand-stat", 200, &ops), 0);
	assert_int_equal(ops, 200);
	/* a set of another kind or count is replaced, not misread */
	assert_int_equal(wl_run(e, "seq-stat", 300, &ops), 0);
	assert_int_equal(ops, 300);
	assert_int_equal(count_entries(e->dir, "files"), 300);
	/* delete alone works too, and leaves nothing */
	assert_int_equal(wl_run(e, "seq-delete", 100, &ops), 0);
	assert_int_equal(ops, 100);
	assert_int_equal(count_entries(e->dir, ""), 0);
}

/* The inode of the first file readdir gives in dir/sub (0 when there is
 * none), and its path in name. */
static ino_t first_in(const char *dir, const char *sub, char *name, size_t len)
{
	char path[600];
	struct dirent *d;
	struct stat st;
	ino_t ino = 0;
	DIR *dp;

	assert_true(len > sizeof(path) + 256);
	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	dp = opendir(path);
	if (!dp)
		return 0;
	while ((d = readdir(dp)))
		if (d->d_name[0] != '.') {
			snprintf(name, len, "%.600s/%.255s", path, d->d_name);
			if (!stat(name, &st))
				ino = st.st_ino;
			break;
		}
	closedir(dp);
	return ino;
}

/* A stat test that needs more files than the set it finds grows that set
 * (the files it has stay, the new ones are checked like the others), and
 * rebuilds it only where the names depend on the count (subdirectories). */
static void wl_stat_grows_the_set(void **state)
{
	struct wl_env *e = *state;
	char name[1024];
	struct stat st;
	uint64_t ops;
	ino_t ino;

	e->cfg.file_max_bytes = 3000;
	e->cfg.file_min_bytes = 1;
	assert_int_equal(wl_run(e, "rand-create", 300, &ops), 0);
	ino = first_in(e->dir, "files", name, sizeof(name));
	assert_true(ino != 0);
	assert_int_equal(wl_run(e, "rand-stat", 700, &ops), 0);
	assert_int_equal(ops, 700);
	assert_int_equal(count_entries(e->dir, "files"), 700);
	assert_int_equal(stat(name, &st), 0);
	assert_int_equal(st.st_ino, ino);
	/* the grown set is whole: a delete of that count takes it all */
	assert_int_equal(wl_run(e, "rand-delete", 700, &ops), 0);
	assert_int_equal(ops, 700);
	assert_int_equal(count_entries(e->dir, ""), 0);

	e->cfg.file_dirs = 3;
	assert_int_equal(wl_run(e, "seq-create", 300, &ops), 0);
	assert_int_equal(wl_run(e, "seq-stat", 500, &ops), 0);
	assert_int_equal(ops, 500);
	assert_int_equal(count_entries(e->dir, "files"), 503);
	assert_int_equal(wl_run(e, "seq-delete", 500, &ops), 0);
	assert_int_equal(count_entries(e->dir, ""), 0);
}

static void wl_detects_corruption(void **state)
{
	struct wl_env *e = *state;
	char path[1024], name[FSB_NAMES_LEN];
	uint64_t ops;
	int fd;

	e->cfg.file_max_bytes = 64;
	e->cfg.file_min_bytes = 64;
	assert_int_equal(wl_run(e, "seq-create", 50, &ops), 0);
	fsb_names_make(FSB_NAMES_SEQ, e->cfg.seed, 17, name);
	snprintf(path, sizeof(path), "%s/files/%s", e->dir, name);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "X", 1, 30), 1);
	close(fd);
	/* a failed test removes the set it found */
	assert_int_equal(wl_run(e, "seq-stat", 50, &ops), -EIO);
	assert_int_equal(count_entries(e->dir, ""), 0);
}

static void wl_missing_file_cleans_up(void **state)
{
	struct wl_env *e = *state;
	char path[1024], name[FSB_NAMES_LEN];
	uint64_t ops;

	/* a file of the set vanished: rand-stat fails and removes the rest */
	assert_int_equal(wl_run(e, "rand-create", 60, &ops), 0);
	fsb_names_make(FSB_NAMES_RAND, e->cfg.seed, 40, name);
	snprintf(path, sizeof(path), "%s/files/%s", e->dir, name);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(wl_run(e, "rand-stat", 60, &ops), -ENOENT);
	assert_int_equal(count_entries(e->dir, ""), 0);
	/* same for rand-delete */
	assert_int_equal(wl_run(e, "rand-create", 60, &ops), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(wl_run(e, "rand-delete", 60, &ops), -ENOENT);
	assert_int_equal(count_entries(e->dir, ""), 0);
}

static void wl_create_failure_cleans_up(void **state)
{
	struct wl_env *e = *state;
	struct rlimit old, lim;
	uint64_t ops;
	int err;

	/* Files of 1..4096 bytes under a 2000-byte file size limit: some
	 * write fails with EFBIG part way through the create. */
	e->cfg.file_max_bytes = 4096;
	e->cfg.file_min_bytes = 1;
	e->cfg.file_dirs = 3;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 2000;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	err = wl_run(e, "seq-create", 500, &ops);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(err, -EFBIG);
	assert_true(ops < 500);
	/* every file, directory and the marker are gone */
	assert_int_equal(count_entries(e->dir, ""), 0);
}

/*
 * A create run keeps the whole set of the run before it (same kind and
 * count) as a spare instead of removing it; the delete test of that kind
 * starts at the spares' count and consumes them, the last kept first,
 * before it makes sets of its own. Nothing is left after the deletes.
 */
static void wl_create_keeps_sets_for_delete(void **state)
{
	const struct fsb_workload_ops *del = fsb_registry_find("seq-delete");
	const struct fsb_workload_ops *stat = fsb_registry_find("seq-stat");
	struct wl_env *e = *state;
	struct fsb_ctx ctx = { .cfg = &e->cfg, .dir = e->dir };
	char name[1024];
	uint64_t ops;
	ino_t second, extra;

	const struct fsb_workload_ops *suite[] = {
		fsb_registry_find("seq-create"),  fsb_registry_find("seq-stat"),    del,
		fsb_registry_find("rand-create"), fsb_registry_find("rand-delete"),
	};

	e->cfg.repeat = 3;
	e->cfg.files = 50;
	/* Files with data: nothing is kept (their pages' state would differ
	 * between a kept set and one just made). */
	e->cfg.suite = suite;
	e->cfg.nsuite = 5;
	e->cfg.file_max_bytes = 100;
	e->cfg.file_min_bytes = 1;
	assert_int_equal(wl_run(e, "seq-create", 400, &ops), 0);
	assert_int_equal(wl_run(e, "seq-create", 400, &ops), 0);
	assert_int_equal(first_in(e->dir, "files.spare.0", name, sizeof(name)), 0);
	assert_int_equal(wl_run(e, "seq-delete", 400, &ops), 0);
	e->cfg.file_max_bytes = 0;
	e->cfg.file_min_bytes = 0;
	/* Without a delete test of its kind after it, a create keeps nothing. */
	e->cfg.suite = suite;
	e->cfg.nsuite = 2;
	assert_int_equal(wl_run(e, "seq-create", 400, &ops), 0);
	assert_int_equal(wl_run(e, "seq-create", 400, &ops), 0);
	assert_int_equal(first_in(e->dir, "files.spare.0", name, sizeof(name)), 0);
	e->cfg.suite = suite + 2; /* the delete before the create */
	e->cfg.nsuite = 3;
	assert_int_equal(wl_run(e, "seq-create", 400, &ops), 0);
	assert_int_equal(first_in(e->dir, "files.spare.0", name, sizeof(name)), 0);
	e->cfg.suite = suite;
	e->cfg.nsuite = 5;
	/* a calibration attempt of another count is removed, not kept */
	assert_int_equal(wl_run(e, "seq-create", 50, &ops), 0);
	assert_int_equal(wl_run(e, "seq-create", 400, &ops), 0);
	assert_int_equal(count_entries(e->dir, "files.spare.0"), 0);
	assert_int_equal(wl_run(e, "seq-create", 400, &ops), 0);
	assert_int_equal(count_entries(e->dir, "files.spare.0"), 400);
	assert_int_equal(wl_run(e, "seq-create", 400, &ops), 0);
	assert_int_equal(count_entries(e->dir, "files.spare.1"), 400);
	assert_int_equal(count_entries(e->dir, "files"), 400);
	second = first_in(e->dir, "files.spare.1", name, sizeof(name));
	assert_true(second != 0);
	/* the delete of that kind starts at their count, the other kind not */
	assert_int_equal(del->initial_work(&ctx), 400);
	assert_int_equal(fsb_registry_find("rand-delete")->initial_work(&ctx), 50);
	/* the stat test walks the kept sets after files/ instead of growing
	 * files/: here all of spare.0 and part of spare.1 */
	assert_int_equal(wl_run(e, "seq-stat", 900, &ops), 0);
	assert_int_equal(ops, 900);
	assert_int_equal(count_entries(e->dir, "files"), 400);
	assert_int_equal(first_in(e->dir, "files.extra", name, sizeof(name)), 0);
	/* they are ready: growth stops at them (1200) where they are enough */
	assert_int_equal(stat->ready_work(&ctx, 1100, 1500), 1200);
	assert_int_equal(stat->ready_work(&ctx, 1300, 1500), 0);
	assert_int_equal(stat->ready_work(&ctx, 600, 1000), 1000);
	assert_int_equal(del->ready_work(&ctx, 300, 500), 0);
	/* what they lack is an extra set, which the next run reuses */
	assert_int_equal(wl_run(e, "seq-stat", 1300, &ops), 0);
	assert_int_equal(ops, 1300);
	assert_int_equal(count_entries(e->dir, "files"), 400);
	assert_int_equal(count_entries(e->dir, "files.extra"), 100);
	extra = first_in(e->dir, "files.extra", name, sizeof(name));
	assert_true(extra != 0);
	assert_int_equal(wl_run(e, "seq-stat", 1300, &ops), 0);
	assert_int_equal(ops, 1300);
	assert_true(first_in(e->dir, "files.extra", name, sizeof(name)) == extra);
	/* the first delete run takes files/ as the create left it; the extra
	 * set goes */
	assert_int_equal(wl_run(e, "seq-delete", 400, &ops), 0);
	assert_int_equal(ops, 400);
	assert_int_equal(first_in(e->dir, "files.extra", name, sizeof(name)), 0);
	/* the two spares of 400, the spares' marker line */
	assert_int_equal(count_entries(e->dir, ""), 2 + 800 + 1);
	/* the next takes the last spare */
	assert_int_equal(wl_run(e, "seq-delete", 400, &ops), 0);
	assert_int_equal(ops, 400);
	assert_true(first_in(e->dir, "files.spare.1", name, sizeof(name)) == 0);
	assert_int_equal(count_entries(e->dir, ""), 402);
	assert_int_equal(wl_run(e, "seq-delete", 400, &ops), 0);
	assert_int_equal(ops, 400);
	assert_int_equal(count_entries(e->dir, ""), 0);
	/* none left: a set of its own, as before */
	assert_int_equal(del->initial_work(&ctx), 50);
	assert_int_equal(wl_run(e, "seq-delete", 400, &ops), 0);
	assert_int_equal(ops, 400);
	assert_int_equal(count_entries(e->dir, ""), 0);

	/* spares of another count give way to the new count's */
	assert_int_equal(wl_run(e, "rand-create", 300, &ops), 0);
	assert_int_equal(wl_run(e, "rand-create", 300, &ops), 0);
	assert_int_equal(count_entries(e->dir, "files.spare.0"), 300);
	assert_int_equal(wl_run(e, "rand-create", 500, &ops), 0);
	assert_int_equal(wl_run(e, "rand-create", 500, &ops), 0);
	assert_int_equal(count_entries(e->dir, "files.spare.0"), 500);
	assert_int_equal(first_in(e->dir, "files.spare.1", name, sizeof(name)), 0);
	/* the second keeps one only for each of the delete test's runs */
	e->cfg.repeat = 1;
	assert_int_equal(wl_run(e, "rand-create", 500, &ops), 0);
	assert_int_equal(first_in(e->dir, "files.spare.1", name, sizeof(name)), 0);
	assert_int_equal(wl_run(e, "rand-delete", 500, &ops), 0);
	assert_int_equal(wl_run(e, "rand-delete", 500, &ops), 0);
	assert_int_equal(count_entries(e->dir, ""), 0);

	/* However many runs, at most three spares are kept. */
	e->cfg.repeat = 50;
	for (int i = 0; i < 8; i++)
		assert_int_equal(wl_run(e, "rand-create", 200, &ops), 0);
	assert_int_equal(count_entries(e->dir, "files.spare.2"), 200);
	assert_int_equal(first_in(e->dir, "files.spare.3", name, sizeof(name)), 0);
	/* A create run of another count removes them before anything else,
	 * even one that keeps nothing itself (here: no delete follows). */
	e->cfg.nsuite = 4;
	assert_int_equal(wl_run(e, "rand-create", 100, &ops), 0);
	assert_int_equal(first_in(e->dir, "files.spare.0", name, sizeof(name)), 0);
	assert_int_equal(count_entries(e->dir, ""), 100 + 1 + 1); /* files/, its marker */
	e->cfg.nsuite = 5;
	for (int i = 0; i < 8; i++)
		assert_int_equal(wl_run(e, "rand-create", 200, &ops), 0);
	/* A delete grown past their count takes them all the same, and
	 * makes the files they lack: files/ first, then the spares. */
	assert_int_equal(wl_run(e, "rand-delete", 300, &ops), 0);
	assert_int_equal(ops, 300);
	assert_int_equal(count_entries(e->dir, "files.spare.2"), 200);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(wl_run(e, "rand-delete", 300, &ops), 0);
		assert_int_equal(ops, 300);
	}
	assert_int_equal(count_entries(e->dir, ""), 0);
	/* with subdirectories, whose places depend on the count, a smaller
	 * kept set is of no use: they go */
	e->cfg.file_dirs = 3;
	for (int i = 0; i < 3; i++)
		assert_int_equal(wl_run(e, "rand-create", 200, &ops), 0);
	assert_int_equal(count_entries(e->dir, "files.spare.1"), 3 + 200);
	assert_int_equal(wl_run(e, "rand-delete", 300, &ops), 0);
	assert_int_equal(ops, 300);
	assert_int_equal(count_entries(e->dir, ""), 0);
}

/*
 * A stat run over the kept sets: the random order spans files/ and the
 * sets after it, with subdirectories (whose places depend on each set's
 * count), and a file missing from a kept set is found and named there.
 */
static void wl_stat_walks_kept_sets(void **state)
{
	struct wl_env *e = *state;
	struct fsb_ctx ctx = { .cfg = &e->cfg, .dir = e->dir };
	char path[1024], name[FSB_NAMES_LEN];
	uint64_t ops;

	const struct fsb_workload_ops *suite[] = {
		fsb_registry_find("rand-create"), fsb_registry_find("rand-stat"),
		fsb_registry_find("rand-delete"), fsb_registry_find("seq-create"),
		fsb_registry_find("seq-stat"),	  fsb_registry_find("seq-delete"),
	};

	e->cfg.repeat = 3;
	e->cfg.file_dirs = 4;
	e->cfg.suite = suite;
	e->cfg.nsuite = 6;
	for (int i = 0; i < 3; i++)
		assert_int_equal(wl_run(e, "rand-create", 300, &ops), 0);
	assert_int_equal(count_entries(e->dir, "files.spare.1"), 4 + 300);
	/* every file of files/ and spare.0, 200 of spare.1: each once */
	fsb_hist_init(&e->hist);
	assert_int_equal(wl_run(e, "rand-stat", 800, &ops), 0);
	assert_int_equal(ops, 800);
	/* 100 more than the three sets: an extra set with the same layout */
	assert_int_equal(wl_run(e, "rand-stat", 1000, &ops), 0);
	assert_int_equal(ops, 1000);
	assert_int_equal(count_entries(e->dir, "files.extra"), 4 + 100);
	assert_int_equal(count_entries(e->dir, "files"), 4 + 300);
	/* a file gone from a kept set: found, and named where it was */
	fsb_names_make(FSB_NAMES_RAND, e->cfg.seed, 7, name);
	snprintf(path, sizeof(path), "%s/files.spare.0/%s/%s", e->dir,
		 "00000" /* file 7 of 300 in 4 directories */, name);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(wl_run(e, "rand-stat", 1000, &ops), -ENOENT);
	assert_true(ops < 1000);

	/* in readdir order a file gone from a kept set is found too, though
	 * the next set has files enough to make up the count */
	for (int i = 0; i < 3; i++)
		assert_int_equal(wl_run(e, "seq-create", 300, &ops), 0);
	assert_int_equal(wl_run(e, "seq-stat", 800, &ops), 0);
	assert_int_equal(ops, 800);
	fsb_names_make(FSB_NAMES_SEQ, e->cfg.seed, 7, name);
	snprintf(path, sizeof(path), "%s/files.spare.0/00000/%s", e->dir, name);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(wl_run(e, "seq-stat", 800, &ops), -EIO);

	/* a kept sets' marker line that says 0 files, or more than names
	 * allow, describes no set: the delete test does not start from it */
	snprintf(path, sizeof(path), "%s/files.spare.set", e->dir);
	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fprintf(f, "fsbench-files 1 kind=seq count=%s seed=77 max=0 min=0 dirs=4 links=0\n",
			i ? "99999999" : "0");
		assert_int_equal(fclose(f), 0);
		assert_int_equal(fsb_registry_find("seq-delete")->initial_work(&ctx), 16384);
	}
}

/*
 * A symlink in place of files/ or of one of its subdirectories (planted
 * by whoever may write in the scratch directory) is never followed: the
 * tests fail, and what it points at is left as it was.
 */
static void wl_never_through_symlinks(void **state)
{
	struct wl_env *e = *state;
	char sub[1200], victim[1200];
	uint64_t ops;

	snprintf(victim, sizeof(victim), "%s/victim", e->parent);
	/* a subdirectory of the set */
	e->cfg.file_dirs = 3;
	assert_int_equal(wl_run(e, "seq-create", 300, &ops), 0);
	snprintf(sub, sizeof(sub), "%s/files/00000", e->dir);
	assert_int_equal(rename(sub, victim), 0);
	assert_int_equal(symlink(victim, sub), 0);
	assert_int_equal(count_entries(e->parent, "victim"), 100);
	assert_int_equal(wl_run(e, "seq-delete", 300, &ops), -ENOTDIR);
	assert_int_equal(count_entries(e->parent, "victim"), 100);
	assert_int_equal(count_entries(e->dir, ""), 0);
	/* files/ itself, before a stat and before a delete */
	e->cfg.file_dirs = 0;
	assert_int_equal(wl_run(e, "rand-create", 200, &ops), 0);
	snprintf(sub, sizeof(sub), "%s/files", e->dir);
	assert_int_equal(rename(victim, sub), -1); /* victim is not empty */
	snprintf(victim, sizeof(victim), "%s/victim2", e->parent);
	assert_int_equal(rename(sub, victim), 0);
	assert_int_equal(symlink(victim, sub), 0);
	assert_int_equal(wl_run(e, "rand-stat", 400, &ops), -ENOTDIR);
	assert_int_equal(count_entries(e->parent, "victim2"), 200);
	/* the failed test removed the link, and only the link */
	assert_int_equal(access(sub, F_OK), -1);
	assert_int_equal(wl_run(e, "rand-create", 200, &ops), 0);
	snprintf(victim, sizeof(victim), "%s/victim3", e->parent);
	assert_int_equal(rename(sub, victim), 0);
	assert_int_equal(symlink(victim, sub), 0);
	assert_int_equal(wl_run(e, "rand-delete", 200, &ops), -ENOTDIR);
	assert_int_equal(count_entries(e->parent, "victim3"), 200);
	assert_int_equal(count_entries(e->parent, "victim2"), 200);
}

static void wl_work_hooks(void **state)
{
	const struct fsb_workload_ops *w = fsb_registry_find("seq-stat");
	struct wl_env *e = *state;
	struct fsb_ctx ctx = { .cfg = &e->cfg, .dir = e->dir };

	e->cfg.files = 1000;
	assert_non_null(w);
	assert_int_equal(w->work_unit, FSB_WORK_OPS);
	assert_int_equal(w->initial_work(&ctx), 1000);
	assert_true(w->max_work(&ctx) >= 1000);
	assert_true(w->max_work(&ctx) <= FSB_NAMES_MAX_FILES);
	/* after a create grew to 3000, the stat test starts from its set */
	assert_int_equal(wl_run(e, "seq-create", 3000, NULL), 0);
	assert_int_equal(w->initial_work(&ctx), 3000);
	/* but not from a set of the other kind */
	assert_int_equal(fsb_registry_find("rand-stat")->initial_work(&ctx), 1000);
	assert_int_equal(wl_run(e, "seq-delete", 3000, NULL), 0);
	assert_int_equal(w->initial_work(&ctx), 1000);
	/* 1000 free inodes hold 900 files (90%): the default count is cut
	 * to that; a count the user gave is not (its ENOSPC is worth seeing) */
	e->cfg.files = 16384;
	assert_int_equal(w->space_fit(&ctx, &(struct fsb_space){ UINT64_MAX, 1000, UINT64_MAX }),
			 900);
	e->cfg.files_given = true;
	assert_int_equal(w->space_fit(&ctx, &(struct fsb_space){ UINT64_MAX, 1000, UINT64_MAX }),
			 16384);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_format),
		cmocka_unit_test(names_same_chars_both_kinds),
		cmocka_unit_test(names_ordering),
		cmocka_unit_test(names_deterministic),
		cmocka_unit_test(names_parse_bad),
		cmocka_unit_test(names_dirs_even),
		cmocka_unit_test(names_sizes),
		cmocka_unit_test(perm_bijection),
		cmocka_unit_test(perm_seeds_differ),
		cmocka_unit_test(spec_good),
		cmocka_unit_test(spec_bad),
		cmocka_unit_test_setup_teardown(wl_empty_files, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(wl_data_and_dirs, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(wl_links, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(wl_sync, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(wl_stat_alone_and_reuse, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(wl_stat_grows_the_set, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(wl_detects_corruption, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(wl_missing_file_cleans_up, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(wl_create_failure_cleans_up, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(wl_work_hooks, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(wl_create_keeps_sets_for_delete, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(wl_stat_walks_kept_sets, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(wl_never_through_symlinks, env_setup, env_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
