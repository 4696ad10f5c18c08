/*
 * Views and the JSON format of a result: exact CSV, bonnie and bonnie++
 * layouts against golden files, JSON round trip, and a reader that refuses
 * bad files without crashing.
 *
 * Run from the repository root (golden files are found relative to it).
 * FSB_UPDATE_GOLDEN=1 rewrites the golden files from the current writers
 * instead of comparing; read the diff before committing it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/registry.h"
#include "report/json.h"
#include "report/result.h"
#include "report/views.h"
#include "report/writer.h"
#include "stats/summary.h"
#include "util/io.h"

#define GOLDEN_DIR "tests/golden/"

/* ---- a known result --------------------------------------------------- */

struct known {
	const char *id, *unit;
	double median, spread, cpu;
	double lat_max_us;
};

/* Numbers chosen to match the bonnie 1.2 and bonnie++ reports (docs/references.md). */
static const struct known known_tests[] = {
	{ "putc", "B/s", 6718464, 20000, 98.5, 2993 },	 /* 6561 K/sec */
	{ "write", "B/s", 24730624, 300000, 13.4, 298 }, /* 24151 K/sec */
	{ "rewrite", "B/s", 9019392, 50000, 7.6, 55 },	 /* 8808 K/sec */
	{ "getc", "B/s", 5522432, 900000, 84.8, 2804 },	 /* 5393, noisy */
	{ "read", "B/s", 22622208, 100000, 9.8, 134 },	 /* 22092 K/sec */
	{ "seeks", "ops/s", 130.9, 1.5, 1.3, 467123 },	 /* 467ms */
	{ "seq-create", "ops/s", 7513, 10, 99.2, 19351 },
	{ "seq-stat", "ops/s", 45000, 100, 100.4, 56 },
	{ "seq-delete", "ops/s", 5140, 10, 98, 77.9 },
	{ "rand-create", "ops/s", 3964, 10, 67, 15 },
	{ "rand-stat", "ops/s", 52000, 100, 99, 41 },
	{ "rand-delete", "ops/s", 5652, 10, 99, 150e6 }, /* 150s */
};

#define NKNOWN (sizeof(known_tests) / sizeof(known_tests[0]))

static void build_known(struct fsb_result *r)
{
	assert_int_equal(fsb_result_init(r, "run"), 0);
	/* Pinned so golden files do not change with every release. */
	assert_int_equal(fsb_strset(&r->version, "0.1.0"), 0);
	assert_int_equal(fsb_strset(&r->host.kernel, "6.1.0-13-amd64"), 0);
	assert_int_equal(fsb_strset(&r->host.cpu, "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz"), 0);
	assert_int_equal(fsb_strset(&r->host.hostname, "bench1"), 0);
	r->host.cpus = 4;
	r->host.ram_bytes = 8ULL << 30;
	assert_int_equal(fsb_strset(&r->setup.label, "ext4-loop"), 0);
	assert_int_equal(fsb_strset(&r->setup.dir, "/mnt/fsb"), 0);
	assert_int_equal(fsb_strset(&r->setup.fs_type, "ext4"), 0);
	assert_int_equal(fsb_strset(&r->setup.mount_options, "rw,relatime"), 0);
	assert_int_equal(fsb_strset(&r->setup.device, "/dev/loop0"), 0);

	assert_int_equal(fsb_result_param_u64(r, "size_bytes", 512ULL << 20), 0);
	assert_int_equal(fsb_result_param_u64(r, "chunk_bytes", 8192), 0);
	assert_int_equal(fsb_result_param_u64(r, "repeat", 3), 0);
	assert_int_equal(fsb_result_param_str(r, "cache", "drop"), 0);
	assert_int_equal(fsb_result_param_double(r, "min_time_s", 0.5), 0);
	assert_int_equal(fsb_result_param_u64(r, "seed", 1795997322), 0);
	assert_int_equal(fsb_result_param_u64(r, "seeks", 8192), 0);
	assert_int_equal(fsb_result_param_u64(r, "seekers", 3), 0);
	assert_int_equal(fsb_result_param_u64(r, "files", 16384), 0);
	assert_int_equal(fsb_result_param_u64(r, "file_max_bytes", 0), 0);
	assert_int_equal(fsb_result_param_u64(r, "file_min_bytes", 0), 0);
	assert_int_equal(fsb_result_param_u64(r, "file_dirs", 0), 0);
	assert_int_equal(fsb_result_param_str(r, "links", "none"), 0);
	assert_int_equal(fsb_result_param_bool(r, "verify", true), 0);

	for (size_t i = 0; i < NKNOWN; i++) {
		const struct known *k = &known_tests[i];
		struct fsb_test_result *t = fsb_result_add_test(r, k->id, k->unit);
		double runs[3] = { k->median - k->spread, k->median, k->median + k->spread };

		assert_non_null(t);
		assert_int_equal(fsb_test_set_runs(t, runs, 3), 0);
		t->cpu_pct = k->cpu;
		t->work = strcmp(k->unit, "B/s") ? 16384 : 512ULL << 20;
		t->elapsed_s = 1.25 + (double)i / 8;
		t->has_latency = true;
		t->latency.max_us = k->lat_max_us;
		t->latency.p50_us = 0.75;
		t->latency.p99_us = 12.5 * (double)(i + 1);
		t->latency.p999_us = 1500.25;
	}
	/* Device truth on the block write only. */
	r->tests[1].has_device = true;
	r->tests[1].dev_read_bytes = 4096;
	r->tests[1].dev_write_bytes = 540016640;
	r->tests[1].has_wa = true;
	r->tests[1].write_amplification = 1.0058;
}

static const char known_csv[] =
	"1.98,0.1.0,ext4-loop,1,1795997322,512M,,8192,3,"
	"6561,99,24151,13,8808,8,5393,85,22092,10,130.9,1,"
	"16,,,,,"
	"7513,99,45000,100,5140,98,3964,67,52000,99,5652,99,"
	"2993us,298us,55us,2804us,134us,467ms,19351us,56us,77us,15us,41us,150s\n";

/* Render with a writer into a malloc'ed string. */
static char *render(int (*fn)(FILE *, const struct fsb_result *), const struct fsb_result *r,
		    int *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*err = fn(f, r);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static int count_fields(const char *line)
{
	int n = 1;

	for (; *line && *line != '\n'; line++)
		n += *line == ',';
	return n;
}

/* ---- CSV --------------------------------------------------------------- */

static void test_csv_known(void **state)
{
	struct fsb_result r;
	char *s;
	int err;

	(void)state;
	build_known(&r);
	s = render(fsb_csv_line, &r, &err);
	assert_int_equal(err, 0);
	assert_string_equal(s, known_csv);
	assert_int_equal(count_fields(s), 50);
	assert_null(strstr(s, "+++"));
	free(s);
	fsb_result_release(&r);
}

static void test_csv_shapes(void **state)
{
	struct fsb_result r;
	char *s;
	int err;

	(void)state;
	/* Metadata only, bonnie++ -n 1:4k:1k:2 style plus a non-default chunk. */
	build_known(&r);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(fsb_strset(&r.tests[i].unit, "s"), 0); /* not B/s: ignored */
	assert_int_equal(fsb_result_param_u64(&r, "files", 1024), 0);
	assert_int_equal(fsb_result_param_u64(&r, "file_max_bytes", 4096), 0);
	assert_int_equal(fsb_result_param_u64(&r, "file_min_bytes", 1024), 0);
	assert_int_equal(fsb_result_param_u64(&r, "file_dirs", 2), 0);
	/* No quoting in this format: commas become ';', controls are escaped. */
	assert_int_equal(fsb_strset(&r.setup.label, "a,b\nc\x1b[2J"), 0);
	s = render(fsb_csv_line, &r, &err);
	assert_int_equal(err, 0);
	assert_string_equal(
		s, "1.98,0.1.0,a;b\\nc\\x1b[2J,1,1795997322,,,,,,,,,,,,,,,,,1,4096,1024,,2,"
		   "7513,99,45000,100,5140,98,3964,67,52000,99,5652,99,"
		   ",,,,,,19351us,56us,77us,15us,41us,150s\n");
	assert_int_equal(count_fields(s), 50);
	free(s);
	fsb_result_release(&r);

	/* Throughput only, 4 KiB chunks, soft links (ignored: no file tests). */
	build_known(&r);
	for (size_t i = 6; i < NKNOWN; i++)
		assert_int_equal(fsb_strset(&r.tests[i].id, "other"), 0);
	assert_int_equal(fsb_result_param_u64(&r, "chunk_bytes", 4096), 0);
	r.tests[5].median = 1431.8;
	r.tests[0].has_latency = false;
	s = render(fsb_csv_line, &r, &err);
	assert_int_equal(err, 0);
	assert_string_equal(s, "1.98,0.1.0,ext4-loop,1,1795997322,512M,4k,8192,3,"
			       "6561,99,24151,13,8808,8,5393,85,22092,10,1432,1,"
			       ",,,,,,,,,,,,,,,,,"
			       ",298us,55us,2804us,134us,467ms,,,,,,\n");
	assert_int_equal(count_fields(s), 50);
	free(s);

	/* Links: bonnie++ spells them link / symlink in the max-size field. */
	for (size_t i = 6; i < NKNOWN; i++)
		assert_int_equal(fsb_strset(&r.tests[i].id, known_tests[i].id), 0);
	assert_int_equal(fsb_result_param_str(&r, "links", "hard"), 0);
	s = render(fsb_csv_line, &r, &err);
	assert_non_null(strstr(s, ",16,link,,,,7513,"));
	free(s);
	assert_int_equal(fsb_result_param_str(&r, "links", "soft"), 0);
	s = render(fsb_csv_line, &r, &err);
	assert_non_null(strstr(s, ",16,symlink,,,,7513,"));
	free(s);

	/* A lifecycle result has no bonnie++ columns: refused, said once. */
	assert_int_equal(fsb_strset(&r.kind, "lifecycle"), 0);
	s = render(fsb_csv_line, &r, &err);
	assert_int_equal(err, -EINVAL);
	assert_string_equal(s, "");
	free(s);
	fsb_result_release(&r);
}

/*
 * A free-text field a spreadsheet would take for a formula starts with a ';
 * a tab or a carriage return in front is escaped first ("\t", util/text.h),
 * so it leads to no formula and gets no '.
 */
static void test_csv_formula_guard(void **state)
{
	struct fsb_result r;
	char *s;
	int err;

	(void)state;
	build_known(&r);
	assert_int_equal(fsb_strset(&r.setup.label, "=HYPERLINK(1)"), 0);
	s = render(fsb_csv_line, &r, &err);
	assert_int_equal(err, 0);
	assert_non_null(strstr(s, ",0.1.0,'=HYPERLINK(1),1,"));
	free(s);
	assert_int_equal(fsb_strset(&r.setup.label, "\t=1+1"), 0);
	s = render(fsb_csv_line, &r, &err);
	assert_non_null(strstr(s, ",0.1.0,\\t=1+1,1,"));
	free(s);
	assert_int_equal(fsb_strset(&r.setup.label, "\r@x"), 0);
	s = render(fsb_csv_line, &r, &err);
	assert_non_null(strstr(s, ",0.1.0,\\r@x,1,"));
	free(s);
	fsb_result_release(&r);
}

/* --repeat auto: the note under the bonnie++ view gives the runner's least
 * and most runs (report/result.h), not numbers of its own. */
static void test_method_note_auto(void **state)
{
	struct fsb_result r;
	char want[64], *s;
	int err;

	(void)state;
	build_known(&r);
	assert_int_equal(fsb_result_param_str(&r, "repeat", "auto"), 0);
	s = render(fsb_write_bonnie_pp, &r, &err);
	assert_int_equal(err, 0);
	snprintf(want, sizeof(want), "median of %d to %d runs (--repeat auto)",
		 FSB_RESULT_AUTO_MIN_RUNS, FSB_RESULT_AUTO_MAX_RUNS);
	assert_non_null(strstr(s, want));
	assert_non_null(strstr(s, "median of 3 to 10 runs (--repeat auto)"));
	free(s);
	fsb_result_release(&r);
}

/* bon_csv2txt, when installed, must take our line without a word. */
static void test_csv_bon_csv2txt(void **state)
{
	char cmd[256], path[] = "/tmp/fsb-csv-XXXXXX", out[4096];
	size_t got;
	FILE *p;
	int fd;

	(void)state;
	if (access("/usr/bin/bon_csv2txt", X_OK)) {
		skip();
		return;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, known_csv, strlen(known_csv)), (ssize_t)strlen(known_csv));
	close(fd);
	snprintf(cmd, sizeof(cmd), "/usr/bin/bon_csv2txt < %s 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	got = fread(out, 1, sizeof(out) - 1, p);
	out[got] = '\0';
	assert_int_equal(pclose(p), 0);
	unlink(path);
	assert_null(strstr(out, "Expected"));
	assert_non_null(strstr(out, "ext4-l 512M::8192:3 6561k  99 23.6m  13"));
}

static void test_latency_format(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(fsb_writer_bonnie_latency(0, buf, sizeof(buf)), "0us");
	assert_string_equal(fsb_writer_bonnie_latency(2993.9, buf, sizeof(buf)), "2993us");
	assert_string_equal(fsb_writer_bonnie_latency(19351, buf, sizeof(buf)), "19351us");
	assert_string_equal(fsb_writer_bonnie_latency(99999, buf, sizeof(buf)), "99999us");
	assert_string_equal(fsb_writer_bonnie_latency(100000, buf, sizeof(buf)), "100ms");
	assert_string_equal(fsb_writer_bonnie_latency(467123, buf, sizeof(buf)), "467ms");
	assert_string_equal(fsb_writer_bonnie_latency(99999999, buf, sizeof(buf)), "99999ms");
	assert_string_equal(fsb_writer_bonnie_latency(150e6, buf, sizeof(buf)), "150s");
	assert_string_equal(fsb_writer_bonnie_latency(NAN, buf, sizeof(buf)), "0us");
	assert_string_equal(fsb_writer_bonnie_latency(-5, buf, sizeof(buf)), "0us");
}

/* ---- golden files ------------------------------------------------------ */

static void check_golden(int (*fn)(FILE *, const struct fsb_result *), const char *name)
{
	struct fsb_result r;
	char path[256], *want = NULL, *got;
	size_t len;
	int err;

	build_known(&r);
	got = render(fn, &r, &err);
	assert_int_equal(err, 0);
	snprintf(path, sizeof(path), GOLDEN_DIR "%s", name);
	if (getenv("FSB_UPDATE_GOLDEN")) {
		assert_int_equal(fsb_write_file_atomic(path, got, strlen(got)), 0);
	} else {
		err = fsb_read_file(path, 1 << 20, &want, &len);
		if (err)
			fail_msg("cannot read %s (run from the repository root): %s", path,
				 strerror(-err));
		assert_string_equal(got, want);
	}
	free(want);
	free(got);
	fsb_result_release(&r);
}

static void test_golden_bonnie(void **state)
{
	(void)state;
	check_golden(fsb_write_bonnie, "run.bonnie.txt");
}

static void test_golden_bonnie_pp(void **state)
{
	(void)state;
	check_golden(fsb_write_bonnie_pp, "run.bonnie_pp.txt");
}

static void test_golden_text(void **state)
{
	(void)state;
	check_golden(fsb_write_text, "run.text.txt");
}

static void test_bonnie_blank_cells(void **state)
{
	struct fsb_result r;
	char *s, *row;
	int err;

	(void)state;
	build_known(&r);
	/* Per-char tests not run: their cells are blank, the rest stays put. */
	assert_int_equal(fsb_strset(&r.tests[0].id, "x-putc"), 0);
	assert_int_equal(fsb_strset(&r.tests[3].id, "x-getc"), 0);
	s = render(fsb_bonnie_row, &r, &err);
	assert_int_equal(err, 0);
	row = strtok(s, "\n");
	assert_string_equal(row, "ext4-loop  |            24151 13.4  8808  7.6              "
				 "22092  9.8    130.9  1.3");
	free(s);

	/* The seek header follows chunk size and seeker count. */
	assert_int_equal(fsb_result_param_u64(&r, "chunk_bytes", 4096), 0);
	assert_int_equal(fsb_result_param_u64(&r, "seekers", 5), 0);
	s = render(fsb_bonnie_header, &r, &err);
	assert_non_null(strstr(s, "-Per Char- --Block---   --04k (05)-\n"));
	free(s);

	/* Modern speeds keep the column width and name their unit. */
	r.tests[1].median = 2.0 * 1024 * 1024 * 1024;
	r.tests[2].median = 150.0 * 1024 * 1024;
	s = render(fsb_bonnie_row, &r, &err);
	assert_non_null(strstr(s, "|            2048M 13.4  150M  7.6 "));
	free(s);
	fsb_result_release(&r);
}

static void test_bonnie_pp_blocks(void **state)
{
	struct fsb_result r;
	char *s;
	int err;

	(void)state;
	/* No file test: no create block at all; CSV line still there. */
	build_known(&r);
	for (size_t i = 6; i < NKNOWN; i++)
		assert_int_equal(fsb_strset(&r.tests[i].id, "other"), 0);
	s = render(fsb_write_bonnie_pp, &r, &err);
	assert_int_equal(err, 0);
	assert_null(strstr(s, "Create"));
	assert_non_null(strstr(s, "Sequential Output"));
	assert_non_null(strstr(s, "\n1.98,0.1.0,ext4-loop,"));
	assert_null(strstr(s, "+++"));
	free(s);
	fsb_result_release(&r);

	/* Some file tests missing: blank cells of the same width. */
	build_known(&r);
	assert_int_equal(fsb_strset(&r.tests[7].id, "x"), 0);
	assert_int_equal(fsb_result_param_u64(&r, "file_max_bytes", 4096), 0);
	assert_int_equal(fsb_result_param_u64(&r, "file_dirs", 4), 0);
	s = render(fsb_bonnie_pp_file_row, &r, &err);
	assert_int_equal(err, 0);
	assert_string_equal(s, "ext4-loop 16:4096/4  7513  99            5140  98  3964  67 "
			       "52000  99  5652  99\n"
			       "Latency             19351us                77us      15us      "
			       "41us      150s\n");
	free(s);
	fsb_result_release(&r);
}

/* ---- JSON -------------------------------------------------------------- */

static void assert_str_same(const char *a, const char *b)
{
	if (!a || !b)
		assert_true(a == b);
	else
		assert_string_equal(a, b);
}

static void assert_same_result(const struct fsb_result *a, const struct fsb_result *b)
{
	assert_int_equal(a->format_version, b->format_version);
	assert_str_same(a->tool, b->tool);
	assert_str_same(a->version, b->version);
	assert_str_same(a->kind, b->kind);
	assert_str_same(a->host.kernel, b->host.kernel);
	assert_str_same(a->host.cpu, b->host.cpu);
	assert_str_same(a->host.hostname, b->host.hostname);
	assert_int_equal(a->host.cpus, b->host.cpus);
	assert_int_equal(a->host.ram_bytes, b->host.ram_bytes);
	assert_str_same(a->setup.label, b->setup.label);
	assert_str_same(a->setup.dir, b->setup.dir);
	assert_str_same(a->setup.fs_type, b->setup.fs_type);
	assert_str_same(a->setup.mount_options, b->setup.mount_options);
	assert_str_same(a->setup.device, b->setup.device);
	assert_str_same(a->setup.fill, b->setup.fill);

	assert_int_equal(a->nparams, b->nparams);
	for (size_t i = 0; i < a->nparams; i++) {
		const struct fsb_param *p = &a->params[i], *q = &b->params[i];

		assert_string_equal(p->key, q->key);
		assert_int_equal(p->type, q->type);
		switch (p->type) {
		case FSB_PARAM_U64:
			assert_int_equal(p->u, q->u);
			break;
		case FSB_PARAM_DOUBLE:
			assert_true(p->d == q->d);
			break;
		case FSB_PARAM_STR:
			assert_string_equal(p->s, q->s);
			break;
		case FSB_PARAM_BOOL:
			assert_int_equal(p->b, q->b);
			break;
		}
	}

	assert_int_equal(a->ntests, b->ntests);
	for (size_t i = 0; i < a->ntests; i++) {
		const struct fsb_test_result *t = &a->tests[i], *u = &b->tests[i];

		assert_string_equal(t->id, u->id);
		assert_string_equal(t->unit, u->unit);
		assert_int_equal(t->nruns, u->nruns);
		for (size_t j = 0; j < t->nruns; j++)
			assert_true(t->runs[j] == u->runs[j]);
		/* Doubles must survive exactly: json-c writes 17 digits. */
		assert_true(t->median == u->median);
		assert_true(t->min == u->min);
		assert_true(t->max == u->max);
		assert_true(t->cv == u->cv);
		assert_true(t->cpu_pct == u->cpu_pct);
		assert_int_equal(t->work, u->work);
		assert_int_equal(t->file_bytes, u->file_bytes);
		assert_true(t->elapsed_s == u->elapsed_s);
		assert_int_equal(t->has_latency, u->has_latency);
		assert_true(t->latency.max_us == u->latency.max_us);
		assert_true(t->latency.p50_us == u->latency.p50_us);
		assert_true(t->latency.p99_us == u->latency.p99_us);
		assert_true(t->latency.p999_us == u->latency.p999_us);
		assert_int_equal(t->has_device, u->has_device);
		assert_int_equal(t->dev_read_bytes, u->dev_read_bytes);
		assert_int_equal(t->dev_write_bytes, u->dev_write_bytes);
		assert_int_equal(t->has_wa, u->has_wa);
		assert_true(t->write_amplification == u->write_amplification);
		assert_str_same(t->short_reason, u->short_reason);
		assert_str_same(t->stopped_by, u->stopped_by);
		assert_int_equal(t->has_ci, u->has_ci);
		assert_true(t->ci95_low == u->ci95_low && t->ci95_high == u->ci95_high);
		assert_str_same(t->repeat_stop, u->repeat_stop);
		assert_int_equal(t->has_resident, u->has_resident);
		assert_true(t->cache_resident == u->cache_resident);
		assert_str_same(t->metadata_cold, u->metadata_cold);
		assert_int_equal(t->has_inflight, u->has_inflight);
		assert_true(t->inflight_max == u->inflight_max);
		assert_true(t->inflight_mean == u->inflight_mean);
		assert_true(!t->start_ns == !u->start_ns && !t->end_ns == !u->end_ns);
		for (size_t j = 0; t->start_ns && j < t->nruns; j++) {
			assert_int_equal(t->start_ns[j], u->start_ns[j]);
			assert_int_equal(t->end_ns[j], u->end_ns[j]);
		}
		assert_int_equal(t->njobs, u->njobs);
		for (size_t j = 0; j < t->njobs * t->nruns; j++)
			assert_true(t->job_runs[j] == u->job_runs[j]);
		for (size_t j = 0; j < t->njobs; j++)
			assert_true(t->job_cpu_pct[j] == u->job_cpu_pct[j]);
		assert_true(t->job_min == u->job_min && t->job_median == u->job_median &&
			    t->job_max == u->job_max);
		assert_int_equal(t->nhist, u->nhist);
		assert_int_equal(t->hist_count, u->hist_count);
		for (size_t j = 0; j < t->nhist; j++) {
			assert_int_equal(t->hist[j].idx, u->hist[j].idx);
			assert_int_equal(t->hist[j].count, u->hist[j].count);
		}
	}
}

static void mutate_walk(struct json_object *root, struct json_object *node, int *checked);

static void test_json_round_trip(void **state)
{
	struct fsb_result r, back;
	struct json_object *doc;
	char why[128], *s;
	int err;

	(void)state;
	build_known(&r);
	/* Edge values: the largest count, an awkward double, a missing string. */
	r.tests[2].work = UINT64_MAX;
	r.tests[2].file_bytes = UINT64_MAX - 1;
	r.tests[3].cpu_pct = 0.1 + 0.2;
	r.tests[4].has_latency = false;
	r.tests[4].latency = (struct fsb_latency){ 0 };
	assert_int_equal(fsb_strset(&r.setup.fill, NULL), 0);
	assert_int_equal(fsb_result_param_double(&r, "ratio", 1.0 / 3), 0);
	assert_int_equal(fsb_result_param_str(&r, "path", "a/b \"c\" é"), 0);
	assert_int_equal(fsb_strset(&r.tests[1].short_reason, "space"), 0);
	/* Jobs: per-job figures, each run's start and end, a stop, the
	 * device's queue depth. */
	{
		const double jr[4 * 3] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12.5 };
		const double cpu[4] = { 10, 20, 30, 40.25 };
		const uint64_t st[3] = { 100, 200, 300 }, en[3] = { 150, 260, UINT64_MAX };

		assert_int_equal(fsb_result_param_u64(&r, "jobs", 4), 0);
		assert_int_equal(fsb_test_set_jobs(&r.tests[1], jr, 4, cpu), 0);
		assert_true(r.tests[1].job_min == 2 && r.tests[1].job_max == 11);
		assert_true(r.tests[1].job_median == 6.5);
		assert_int_equal(fsb_test_set_times(&r.tests[1], st, en), 0);
		assert_int_equal(fsb_strset(&r.tests[1].stopped_by, "stonewall"), 0);
		r.tests[1].has_inflight = true;
		r.tests[1].inflight_max = 31;
		r.tests[1].inflight_mean = 17.25;
		/* --repeat auto: the interval and why the runs stopped. */
		{
			/* The runs' own interval: the reader recomputes it. */
			struct fsb_summary sum;

			assert_int_equal(
				fsb_summary_compute(r.tests[1].runs, r.tests[1].nruns, &sum), 0);
			r.tests[1].has_ci = !fsb_summary_ci95(&sum, &r.tests[1].ci95_low,
							      &r.tests[1].ci95_high);
			assert_true(r.tests[1].has_ci);
		}
		assert_int_equal(fsb_strset(&r.tests[1].repeat_stop, "converged"), 0);
		/* The cold cache's proof and how metadata was made cold. */
		r.tests[1].has_resident = true;
		r.tests[1].cache_resident = 0.125;
		assert_int_equal(fsb_strset(&r.tests[1].metadata_cold, "remount"), 0);
	}
	/* A latency histogram: its non-empty buckets only, the first and the
	 * last bucket and a count near the top of the range. */
	{
		struct fsb_hist *h = malloc(sizeof(*h));

		assert_non_null(h);
		fsb_hist_init(h);
		fsb_hist_add(h, 0);
		fsb_hist_add(h, 1500);
		fsb_hist_add(h, 1500);
		fsb_hist_add(h, UINT64_MAX);
		h->bucket[fsb_hist_bucket_of(70000)] = UINT64_MAX / 2;
		assert_int_equal(fsb_test_set_hist(&r.tests[1], h), 0);
		assert_int_equal(r.tests[1].nhist, 4);
		assert_int_equal(r.tests[1].hist[0].idx, 0);
		assert_int_equal(r.tests[1].hist[1].count, 2);
		assert_int_equal(r.tests[1].hist[3].idx, FSB_HIST_BUCKETS - 1);
		assert_int_equal(r.tests[1].hist_count, UINT64_MAX / 2 + 4);
		free(h);
	}

	s = render(fsb_json_write, &r, &err);
	assert_int_equal(err, 0);
	assert_non_null(strstr(s, "\"scheme\":\"" FSB_HIST_SCHEME "\""));
	assert_null(strstr(strstr(s, "\"latency_hist\"") + 1, "\"latency_hist\""));
	/* Only the test whose runs were cut short has the key. */
	assert_non_null(strstr(s, "\"short_reason\":\"space\""));
	assert_null(strstr(strstr(s, "\"short_reason\"") + 1, "\"short_reason\""));
	/* Only the test whose runs went over their file again has its size. */
	assert_non_null(strstr(s, "\"file_bytes\":18446744073709551614"));
	assert_null(strstr(strstr(s, "\"file_bytes\"") + 1, "\"file_bytes\""));
	assert_non_null(strstr(s, "\"path\":\"a/b \\\"c\\\" é\"")); /* no \/ escapes */
	assert_null(strstr(s, "\"fill\""));			    /* NULL left out */
	assert_non_null(strstr(s, "\"noisy\":true"));
	doc = json_tokener_parse(s);
	assert_non_null(doc);
	err = fsb_json_to_result(doc, &back, why, sizeof(why));
	if (err)
		fail_msg("reader refused its own output: %s", why);
	assert_same_result(&r, &back);
	assert_int_equal(fsb_result_jobs(&back), 4);
	/* Whatever is put in the new keys, the reader answers, never crashes. */
	{
		int checked = 0;

		mutate_walk(doc, json_object_array_get_idx(json_object_object_get(doc, "tests"), 1),
			    &checked);
		assert_true(checked > 100);
	}
	json_object_put(doc);
	fsb_result_release(&back);
	free(s);
	fsb_result_release(&r);
}

static void test_json_non_finite(void **state)
{
	struct fsb_result r, back;
	struct json_object *doc;
	char why[128], *s;
	int err;

	(void)state;
	build_known(&r);
	r.tests[0].median = NAN;
	r.tests[0].runs[1] = INFINITY;
	r.tests[0].cv = -INFINITY;
	/* The zeros they become stay between min and max, as the reader checks. */
	r.tests[0].min = 0;
	s = render(fsb_json_write, &r, &err);
	assert_int_equal(err, 0);
	assert_null(strstr(s, "NaN"));
	assert_null(strstr(s, "nfinity"));
	doc = json_tokener_parse(s);
	/* Written as 0, the median is no longer its runs': the reader says so
	 * rather than show a figure the runs do not give. */
	assert_int_equal(fsb_json_to_result(doc, &back, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "median 0 is not the median of its runs"));
	json_object_put(doc);
	free(s);
	fsb_result_release(&r);
}

/* Write text to a temporary file and load it; returns fsb_json_load's result. */
static int load_text(const char *text, size_t len, struct fsb_result *out)
{
	char path[] = "/tmp/fsb-json-XXXXXX";
	int fd = mkstemp(path), err;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	err = fsb_json_load(path, out);
	unlink(path);
	return err;
}

static char *known_json(void)
{
	struct fsb_result r;
	char *s;
	int err;

	build_known(&r);
	s = render(fsb_json_write, &r, &err);
	assert_int_equal(err, 0);
	fsb_result_release(&r);
	return s;
}

static void test_json_load(void **state)
{
	struct fsb_result r;
	char *s = known_json();

	(void)state;
	assert_int_equal(load_text(s, strlen(s), &r), 0);
	assert_int_equal(r.ntests, NKNOWN);
	assert_string_equal(r.tests[5].id, "seeks");
	fsb_result_release(&r);
	assert_int_equal(fsb_json_load("/nonexistent/fsb.json", &r), -ENOENT);
	assert_int_equal(fsb_json_load("/", &r), -EISDIR);
	free(s);
}

static void test_json_load_refusals(void **state)
{
	struct fsb_result r;
	char *s = known_json();
	size_t len = strlen(s);
	int saved, devnull, err = 0;

	(void)state;
	assert_int_equal(load_text("hello, world\n", 13, &r), -EINVAL);
	assert_int_equal(load_text("", 0, &r), -EINVAL);
	assert_int_equal(load_text("[1, 2]", 6, &r), -EINVAL);
	assert_int_equal(load_text("{\"a\": 1} trailing", 17, &r), -EINVAL);
	assert_int_equal(load_text("{\"a\": 1}\0{}", 11, &r), -EINVAL);
	/* Cut anywhere, a document is refused, never half-read. */
	fflush(stderr);
	saved = dup(2);
	devnull = open("/dev/null", O_WRONLY);
	assert_true(saved >= 0 && devnull >= 0);
	dup2(devnull, 2); /* one message per cut is expected, not interesting */
	for (size_t cut = 0; cut < len - 2; cut += 7) {
		err = load_text(s, cut, &r);
		if (err != -EINVAL || r.tests)
			break;
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(devnull);
	assert_int_equal(err, -EINVAL);
	assert_null(r.tests);
	free(s);
}

/* Parse text and run the reader; returns its result, why holds the reason. */
static int read_doc(const char *text, char *why, size_t why_len)
{
	struct json_object *doc = json_tokener_parse(text);
	struct fsb_result r;
	int err;

	assert_non_null(doc);
	err = fsb_json_to_result(doc, &r, why, why_len);
	json_object_put(doc);
	if (err) {
		assert_null(r.tests);
		assert_null(r.tool);
	}
	fsb_result_release(&r);
	return err;
}

#define MINI_TEST                                                                        \
	"{\"id\": \"write\", \"unit\": \"B/s\", \"median\": 2, \"min\": 1, \"max\": 3, " \
	"\"cv\": 0.5, \"runs\": [1, 2, 3]}"

/* The usual head of a document, for the refusal table below. */
#define HEAD "{\"format_version\": 1, \"tool\": \"fsbench\", \"kind\": \"run\", "
#define TEST_START "{\"id\": \"read\", \"unit\": \"B/s\", "

static const struct {
	const char *doc;
	const char *why;
} refusals[] = {
	{ "{\"format_version\": 1, \"tool\": \"bonnie++\", \"kind\": \"run\", \"tests\": []}",
	  "tool is not 'fsbench'" },
	{ "{\"format_version\": 99, \"tool\": \"fsbench\", \"kind\": \"run\", \"tests\": []}",
	  "format_version 99 is newer than this fsbench reads (1)" },
	{ "{\"format_version\": \"1\", \"tool\": \"fsbench\", \"kind\": \"run\", \"tests\": []}",
	  "format_version is not an integer" },
	{ "{\"tool\": \"fsbench\", \"kind\": \"run\", \"tests\": []}",
	  "format_version is missing" },
	{ "{\"format_version\": 1, \"tool\": \"fsbench\", \"tests\": []}", "kind is missing" },
	{ "{\"format_version\": 1, \"tool\": \"fsbench\", \"kind\": \"matrix\", \"setups\": []}",
	  "kind 'matrix' holds several results, not one" },
	{ HEAD "\"tests\": {}}", "tests is not an array" },
	{ HEAD "\"x\": 1}", "tests is missing" },
	{ HEAD "\"tests\": [" MINI_TEST ", 7]}", "tests[1] is not an object" },
	{ HEAD "\"tests\": [" MINI_TEST ", " TEST_START
	       "\"median\": 2, \"min\": 1, \"max\": 3, \"runs\": [1, \"2\"]}]}",
	  "tests[1].runs[1] is not a number" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 2, \"min\": 1, \"max\": 3, "
	       "\"runs\": \"1 2\"}]}",
	  "tests[0].runs is not an array" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 2, \"min\": 1, \"max\": 3, \"runs\": []}]}",
	  "tests[0].runs is empty" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": -2, \"min\": 1, \"max\": 3, \"runs\": [1]}]}",
	  "tests[0].median is negative" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": NaN, \"min\": 1, \"max\": 3, "
	       "\"runs\": [1]}]}",
	  "tests[0].median is not a finite number" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1e308, \"min\": 1, \"max\": 3, "
	       "\"runs\": [1]}]}",
	  "tests[0].median is out of range" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"max\": 3, \"runs\": [1]}]}",
	  "tests[0].min is missing" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_us\": {\"max\": 1, \"p50\": 1, \"p99\": \"1\", \"p999\": 1}}]}",
	  "tests[0].latency_us.p99 is not a number" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"work\": 1.5}]}",
	  "tests[0].work is not an integer" },
	{ HEAD "\"host\": {\"ram_bytes\": -1}, \"tests\": []}", "host.ram_bytes is negative" },
	{ HEAD "\"setup\": [], \"tests\": []}", "setup is not an object" },
	{ HEAD "\"setup\": {\"label\": 5}, \"tests\": []}", "setup.label is not a string" },
	{ HEAD "\"params\": {\"x\": Infinity}, \"tests\": []}", "params.x is not a finite number" },
	{ "[]", "not an fsbench result: the document is an array" },
	/* Latency histograms: hostile indexes, counts and shapes. */
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_hist\": {\"scheme\": \"" FSB_HIST_SCHEME "\", \"count\": 1, "
	       "\"buckets\": [[1920, 1]]}}]}",
	  "tests[0].latency_hist.buckets[0]: index 1920 is out of range or not increasing" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_hist\": {\"scheme\": \"" FSB_HIST_SCHEME "\", \"count\": 1, "
	       "\"buckets\": [[18446744073709551615, 1]]}}]}",
	  "tests[0].latency_hist.buckets[0]: index 18446744073709551615 is out of range or not "
	  "increasing" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_hist\": {\"scheme\": \"" FSB_HIST_SCHEME "\", \"count\": 2, "
	       "\"buckets\": [[5, 1], [5, 1]]}}]}",
	  "tests[0].latency_hist.buckets[1]: index 5 is out of range or not increasing" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_hist\": {\"scheme\": \"" FSB_HIST_SCHEME "\", \"count\": 1, "
	       "\"buckets\": [[-5, 1]]}}]}",
	  "tests[0].latency_hist.buckets[0][0] is negative" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_hist\": {\"scheme\": \"" FSB_HIST_SCHEME "\", \"count\": 0, "
	       "\"buckets\": [[5, 9223372036854775807], [6, 9223372036854775807], "
	       "[7, 9223372036854775807]]}}]}",
	  "tests[0].latency_hist.buckets[2]: count is 0 or the counts overflow" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_hist\": {\"scheme\": \"" FSB_HIST_SCHEME "\", \"count\": 0, "
	       "\"buckets\": [[5, 0]]}}]}",
	  "tests[0].latency_hist.buckets[0]: count is 0 or the counts overflow" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_hist\": {\"scheme\": \"" FSB_HIST_SCHEME "\", \"count\": 7, "
	       "\"buckets\": [[5, 1]]}}]}",
	  "tests[0].latency_hist.count is 7, the buckets hold 1" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_hist\": {\"scheme\": \"" FSB_HIST_SCHEME "\", \"count\": 1, "
	       "\"buckets\": [[5, 1, 2]]}}]}",
	  "tests[0].latency_hist.buckets[0] has 3 values, not 2" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_hist\": {\"count\": 1, \"buckets\": [[5, 1]]}}]}",
	  "tests[0].latency_hist.scheme is missing or not a string" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_hist\": {\"scheme\": \"" FSB_HIST_SCHEME "\", \"count\": 1, "
	       "\"buckets\": {}}}]}",
	  "tests[0].latency_hist.buckets is missing or not an array" },
	/* Figures that disagree with each other (issue 25 item 9). */
	{ HEAD "\"tests\": [" TEST_START "\"median\": 2, \"min\": 3, \"max\": 1, \"runs\": [2]}]}",
	  "tests[0].min is greater than tests[0].max" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 5, \"min\": 1, \"max\": 3, \"runs\": [1]}]}",
	  "tests[0].median is not between tests[0].min and tests[0].max" },
	{ HEAD "\"tests\": [" TEST_START
	       "\"median\": 0.5, \"min\": 1, \"max\": 3, \"runs\": [1]}]}",
	  "tests[0].median is not between tests[0].min and tests[0].max" },
	{ HEAD "\"tests\": [" MINI_TEST ", " TEST_START
	       "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1, 4]}]}",
	  "tests[1].runs[1] is not between tests[1].min and tests[1].max" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_us\": {\"max\": 9, \"p50\": 5, \"p99\": 4, \"p999\": 6}}]}",
	  "tests[0].latency_us.p50 is greater than tests[0].latency_us.p99" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1], "
	       "\"latency_us\": {\"max\": 9, \"p50\": 1, \"p99\": 4, \"p999\": 3}}]}",
	  "tests[0].latency_us.p99 is greater than tests[0].latency_us.p999" },
	{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"max\": 3, \"runs\": [1, 2], "
	       "\"start_ns\": [5, 9], \"end_ns\": [8, 7]}]}",
	  "tests[0].start_ns[1] is after tests[0].end_ns[1]" },
	{ HEAD "\"tests\": [" MINI_TEST ", " TEST_START
	       "\"median\": 1, \"min\": 1, \"max\": 1, \"runs\": [1]}, " MINI_TEST "]}",
	  "tests[2].id \"write\" is also tests[0].id" },
	{ HEAD "\"params\": {\"seed\": -1}, \"tests\": []}", "params.seed is negative" },
	{ HEAD "\"params\": {\"size_bytes\": -0.5}, \"tests\": []}",
	  "params.size_bytes is negative" },
};

static void test_json_reader_refusals(void **state)
{
	char why[128];

	(void)state;
	/* Unknown keys anywhere are a newer writer's additions: accepted. */
	assert_int_equal(read_doc(HEAD "\"tests\": [" MINI_TEST "], \"future\": {\"x\": [1]}, "
				       "\"params\": {\"list\": [1, 2], \"neg\": -3}}",
				  why, sizeof(why)),
			 0);

	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		assert_int_equal(read_doc(refusals[i].doc, why, sizeof(why)), -EINVAL);
		assert_string_equal(why, refusals[i].why);
	}

	/* Another scheme is a newer writer's: read, without a histogram. */
	assert_int_equal(read_doc(HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, "
				       "\"max\": 1, \"runs\": [1], \"latency_hist\": {\"scheme\": "
				       "\"log-linear-ns-7\", \"buckets\": [[99999, 1]]}}]}",
				  why, sizeof(why)),
			 0);

	/* A tiny why buffer is still NUL-terminated, and NULL is allowed. */
	assert_int_equal(read_doc("{}", why, 4), -EINVAL);
	assert_string_equal(why, "for");
	assert_int_equal(read_doc("{}", NULL, 0), -EINVAL);
}

/*
 * A negative ci95_low, as builds before the clamp at 0 wrote it, is read as
 * 0; the interval's other checks stay (ci95_high, types, finiteness, the
 * order of the ends, a figure far out of range).
 */
static void test_json_reader_ci95_low(void **state)
{
#define CI_DOC(lo, hi)                                                                      \
	HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 0.1, \"max\": 2, "          \
	     "\"runs\": [0.1, 1, 2], \"repeat_stop\": \"max-runs\", \"ci95_low\": " lo ", " \
	     "\"ci95_high\": " hi "}]}"
	static const struct {
		const char *doc, *why;
	} bad[] = {
		{ CI_DOC("-0.5", "-1"), "tests[0].ci95_high is negative" },
		{ CI_DOC("\"-0.5\"", "2.3"), "tests[0].ci95_low is not a number" },
		{ CI_DOC("-Infinity", "2.3"), "tests[0].ci95_low is not a finite number" },
		{ CI_DOC("NaN", "2.3"), "tests[0].ci95_low is not a finite number" },
		{ CI_DOC("-1e308", "2.3"), "tests[0].ci95_low is out of range" },
		{ CI_DOC("3", "2.3"), "tests[0].ci95_low is above ci95_high" },
	};
	/* The high end is the runs' own (t95(2) = 4.303): the reader checks it. */
	const char *docs[] = { CI_DOC("-0.63", "3.39454400184877"),
			       CI_DOC("-7", "3.39454400184877"), CI_DOC("0", "3.39454400184877") };
	struct json_object *doc;
	struct fsb_result r;
	char why[128];

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		assert_non_null(doc = json_tokener_parse(docs[i]));
		assert_int_equal(fsb_json_to_result(doc, &r, why, sizeof(why)), 0);
		json_object_put(doc);
		assert_true(r.tests[0].has_ci);
		assert_true(r.tests[0].ci95_low == 0);
		assert_true(fabs(r.tests[0].ci95_high - 3.39454400184877) < 1e-9);
		assert_string_equal(r.tests[0].repeat_stop, "max-runs");
		fsb_result_release(&r);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(read_doc(bad[i].doc, why, sizeof(why)), -EINVAL);
		assert_string_equal(why, bad[i].why);
	}
#undef CI_DOC
}

/*
 * Valid JSON that is no result says what it is, not "truncated JSON" or
 * "not valid JSON (success at byte 5)" (issue 9, item 13).
 */
static void test_json_document_kinds(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ "null", "not an fsbench result: the document is null" },
		{ "null\n", "not an fsbench result: the document is null" },
		{ "42", "not an fsbench result: the document is a number" },
		{ "-1.5e3\n", "not an fsbench result: the document is a number" },
		{ "true", "not an fsbench result: the document is a boolean" },
		{ "\"x\"", "not an fsbench result: the document is a string" },
		{ "[{}]", "not an fsbench result: the document is an array" },
	};
	char why[160];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *t = cases[i].text;
		struct json_object *doc = fsb_json_parse(t, strlen(t), why, sizeof(why));
		struct fsb_result r;

		if (doc) {
			assert_int_equal(fsb_json_to_result(doc, &r, why, sizeof(why)), -EINVAL);
			json_object_put(doc);
		}
		assert_string_equal(why, cases[i].why);
	}
	/* A cut-short document is still called that. */
	assert_null(fsb_json_parse("{\"a\": ", 6, why, sizeof(why)));
	assert_string_equal(why, "truncated JSON");
}

/*
 * json-c clamps an integer beyond 64 bits to the range's end without a
 * word: the parser refuses one, naming its key, and keeps the largest
 * value a --seed can hold (issue 25 item 9).
 */
static void test_json_parse_integer_range(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ HEAD "\"host\": {\"ram_bytes\": 18446744073709551616}, \"tests\": []}",
		  "host.ram_bytes is out of range (an integer above 2^64-1)" },
		{ HEAD "\"tests\": [" MINI_TEST ", " TEST_START "\"median\": 1, \"min\": 1, "
		       "\"max\": 3, \"runs\": [1, 99999999999999999999999]}]}",
		  "tests[1].runs[1] is out of range (an integer above 2^64-1)" },
		{ HEAD "\"params\": {\"x\": -9223372036854775809}, \"tests\": []}",
		  "params.x is out of range (an integer below -2^63)" },
		{ HEAD "\"params\": {\"a\\\"b\\u0001\": 100000000000000000000}, \"tests\": []}",
		  "params.a\\\"b\\u0001 is out of range (an integer above 2^64-1)" },
		{ "18446744073709551616",
		  "the document is out of range (an integer above 2^64-1)" },
		{ "[[1], {\"k\": [0, -99999999999999999999]}]",
		  "[1].k[1] is out of range (an integer below -2^63)" },
	};
	/* At the ends of the range, in strings, as reals: no integer refused. */
	static const char *const fine = HEAD
		"\"setup\": {\"label\": \"18446744073709551616, [\\\"x\\\"]\"}, "
		"\"params\": {\"seed\": 18446744073709551615, \"n\": -9223372036854775808, "
		"\"r\": 18446744073709551616.0, \"e\": 1e30, \"z\": -0}, \"tests\": []}";
	struct json_object *doc;
	struct fsb_result r;
	char why[160];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_null(fsb_json_parse(cases[i].text, strlen(cases[i].text), why, sizeof(why)));
		assert_string_equal(why, cases[i].why);
	}
	doc = fsb_json_parse(fine, strlen(fine), why, sizeof(why));
	if (!doc)
		fail_msg("refused: %s", why);
	assert_int_equal(fsb_json_to_result(doc, &r, why, sizeof(why)), 0);
	json_object_put(doc);
	assert_true(fsb_result_get_u64(&r, "seed", 0) == UINT64_MAX);
	assert_string_equal(r.setup.label, "18446744073709551616, [\"x\"]");
	fsb_result_release(&r);
}

/*
 * json-c keeps the last of two values under one key and drops the other:
 * in a document of fsbench's, which never has one twice, that is refused
 * naming the key (decoded, as json-c compares keys). fio writes some
 * twice ("filename" in "job options"), so its documents are read as
 * before.
 */
static void test_json_parse_duplicate_keys(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ HEAD "\"tests\": [" TEST_START "\"median\": 1, \"min\": 1, \"min\": 2, "
		       "\"max\": 3, \"runs\": [1]}]}",
		  "tests[0].min appears twice" },
		{ HEAD "\"setup\": {\"label\": \"a\", \"fs_type\": \"x\", \"l\\u0061bel\": \"b\"}, "
		       "\"tests\": []}",
		  "setup.label appears twice" },
		{ HEAD "\"tests\": [], \"tests\": []}", "tests appears twice" },
	};
	static const char *const fine[] = {
		/* One key in two objects; keys that differ only once decoded. */
		HEAD "\"host\": {\"cpu\": \"a\"}, \"setup\": {\"cpu\": \"b\", \"a\\\\\": 1, "
		     "\"a\\\\\\\\\": 2}, \"tests\": []}",
		"{\"fio version\": \"fio-3.34\", \"jobs\": [{\"job options\": "
		"{\"filename\": \"a\", \"filename\": \"b\"}}]}",
	};
	struct json_object *doc;
	char why[160];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_null(fsb_json_parse(cases[i].text, strlen(cases[i].text), why, sizeof(why)));
		assert_string_equal(why, cases[i].why);
	}
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		doc = fsb_json_parse(fine[i], strlen(fine[i]), why, sizeof(why));
		if (!doc)
			fail_msg("refused %s: %s", fine[i], why);
		json_object_put(doc);
	}
}

static void test_json_reader_huge_array(void **state)
{
	size_t n = 100001, len = n * 2 + 256;
	char *text = malloc(len), *p, why[128];

	(void)state;
	assert_non_null(text);
	p = text + sprintf(text, HEAD "\"tests\": [{\"id\": \"r\", \"unit\": \"s\", "
				      "\"median\": 1, \"min\": 1, \"max\": 1, \"runs\": [");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s1", i ? "," : "");
	strcpy(p, "]}]}");
	assert_int_equal(read_doc(text, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "tests[0].runs has more than 100000 values");
	free(text);
}

/*
 * Replace every value in a valid document, one at a time, by values of the
 * wrong kind: the reader must say yes or no, never crash or leak.
 */
static void mutate_walk(struct json_object *root, struct json_object *node, int *checked)
{
	static const char *const bad[] = { "\"x\"", "-1",  "1e999",
					   "[]",    "{}",  "null",
					   "true",  "1.5", "18446744073709551615" };

	if (json_object_is_type(node, json_type_object)) {
		json_object_object_foreach(node, key, val)
		{
			struct json_object *keep = json_object_get(val);

			for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
				struct fsb_result r;
				char why[128];

				json_object_object_add(node, key, json_tokener_parse(bad[i]));
				if (fsb_json_to_result(root, &r, why, sizeof(why)) == 0)
					fsb_result_release(&r);
				else
					assert_true(why[0] != '\0');
				(*checked)++;
			}
			json_object_object_add(node, key, keep);
			mutate_walk(root, keep, checked);
		}
	} else if (json_object_is_type(node, json_type_array)) {
		for (size_t j = 0; j < json_object_array_length(node); j++) {
			struct json_object *keep = json_object_array_get_idx(node, j);

			json_object_get(keep);
			for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
				struct fsb_result r;
				char why[128];

				json_object_array_put_idx(node, j, json_tokener_parse(bad[i]));
				if (fsb_json_to_result(root, &r, why, sizeof(why)) == 0)
					fsb_result_release(&r);
				(*checked)++;
			}
			json_object_array_put_idx(node, j, keep);
			mutate_walk(root, keep, checked);
		}
	}
}

static void test_json_reader_mutations(void **state)
{
	char *s = known_json();
	struct json_object *doc = json_tokener_parse(s);
	int checked = 0;

	(void)state;
	assert_non_null(doc);
	mutate_walk(doc, doc, &checked);
	assert_true(checked > 500);
	json_object_put(doc);
	free(s);
}

/* ---- registry and output ---------------------------------------------- */

static void test_writer_registry(void **state)
{
	static const char *const names[] = { "text", "bonnie", "bonnie++", "csv", "json" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct fsb_view *w = fsb_view_find(FSB_KIND_RUN, names[i]);

		assert_non_null(w);
		assert_string_equal(w->name, names[i]);
		assert_non_null(w->write);
		assert_non_null(strstr(fsb_view_names(FSB_KINDS_RESULT), names[i]));
	}
	assert_string_equal(fsb_view_find(FSB_KIND_RUN, "csv")->ext, "csv");
	assert_string_equal(fsb_view_find(FSB_KIND_RUN, "json")->ext, "json");
	assert_null(fsb_view_find(FSB_KIND_RUN, "xml"));
	assert_null(fsb_view_find(FSB_KIND_RUN, "CSV"));
	assert_null(fsb_view_find(FSB_KIND_RUN, ""));
	assert_null(fsb_view_find(FSB_KIND_RUN, NULL));
	/* Every name in the usage list is a writer, and the list starts as documented. */
	assert_int_equal(strncmp(fsb_view_names(FSB_KINDS_RESULT), "text|bonnie|bonnie++|", 21), 0);
	{
		char list[256], *save = NULL;
		int n = 0;

		snprintf(list, sizeof(list), "%s", fsb_view_names(FSB_KINDS_RESULT));
		for (char *name = strtok_r(list, "|", &save); name;
		     name = strtok_r(NULL, "|", &save), n++)
			assert_non_null(fsb_view_find(FSB_KIND_RUN, name) ||
					fsb_view_find(FSB_KIND_LIFECYCLE, name));
		assert_true(n >= 5);
	}
}

static void test_writer_output_file(void **state)
{
	char dir[] = "/tmp/fsb-out-XXXXXX", path[64], *got = NULL;
	struct fsb_output o;
	struct fsb_result r;
	size_t len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.csv", dir);
	build_known(&r);
	assert_int_equal(fsb_output_open(&o, path, NULL, 0), 0);
	assert_int_equal(fsb_view_output_result(fsb_view_find(FSB_KIND_RUN, "csv"), &r, &o), 0);
	fsb_output_release(&o);
	assert_int_equal(fsb_read_file(path, 4096, &got, &len), 0);
	assert_string_equal(got, known_csv);
	free(got);

	/* A refused result leaves no file behind. */
	unlink(path);
	assert_int_equal(fsb_strset(&r.kind, "lifecycle"), 0);
	assert_int_equal(fsb_output_open(&o, path, NULL, 0), 0);
	assert_int_equal(fsb_view_output_result(fsb_view_find(FSB_KIND_RUN, "bonnie"), &r, &o),
			 -EINVAL);
	fsb_output_release(&o);
	assert_int_equal(access(path, F_OK), -1);

	/* A directory that does not exist: refused before any rendering. */
	snprintf(path, sizeof(path), "%s/missing/r.csv", dir);
	assert_int_equal(fsb_output_open(&o, path, NULL, 0), -ENOENT);
	assert_false(o.opened);
	rmdir(dir);
	fsb_result_release(&r);
}

/* Each command checks --format against the kind of result it makes. */
static void test_writer_kinds(void **state)
{
	(void)state;
	assert_string_equal(fsb_view_names(FSB_KIND_RUN), "text|bonnie|bonnie++|csv|json|markdown");
	assert_string_equal(fsb_view_names(FSB_KIND_LIFECYCLE), "text|lifecycle|json|markdown");
	assert_string_equal(fsb_view_names(FSB_KINDS_RESULT),
			    "text|bonnie|bonnie++|lifecycle|csv|json|markdown");
	for (const char *const *n = (const char *const[]){ "text", "json", NULL }; *n; n++) {
		assert_non_null(fsb_view_select(*n, "run"));
		assert_non_null(fsb_view_select(*n, "lifecycle"));
	}
	for (const char *const *n = (const char *const[]){ "bonnie", "bonnie++", "csv", NULL }; *n;
	     n++) {
		assert_ptr_equal(fsb_view_select(*n, "run"), fsb_view_find(FSB_KIND_RUN, *n));
		assert_null(fsb_view_select(*n, "lifecycle"));
	}
	assert_null(fsb_view_select("lifecycle", "run"));
	assert_non_null(fsb_view_select("lifecycle", "lifecycle"));
	assert_null(fsb_view_select("xml", "run"));
	assert_null(fsb_view_select(NULL, "run"));
	assert_int_equal(fsb_view_kind("run"), FSB_KIND_RUN);
	assert_int_equal(fsb_view_kind("lifecycle"), FSB_KIND_LIFECYCLE);
	assert_int_equal(fsb_view_kind("matrix"), FSB_KIND_MATRIX);
	assert_int_equal(fsb_view_kind("comparison"), FSB_KIND_COMPARISON);
	assert_int_equal(fsb_view_kind("xml"), 0);
	assert_int_equal(fsb_view_kind(NULL), 0);
	/* A writer's kinds agree with what it really renders. */
	{
		struct fsb_result r;

		build_known(&r);
		assert_int_equal(fsb_strset(&r.kind, "lifecycle"), 0);
		for (const char *const *n =
			     (const char *const[]){ "bonnie", "bonnie++", "csv", NULL };
		     *n; n++) {
			FILE *f = fopen("/dev/null", "w");

			assert_non_null(f);
			assert_false(fsb_view_find(FSB_KIND_RUN, *n)->kinds & FSB_KIND_LIFECYCLE);
			assert_int_equal(
				fsb_view_write(fsb_view_find(FSB_KIND_RUN, *n), f,
					       &(struct fsb_doc){ .kind = FSB_KIND_LIFECYCLE,
								  .result = &r }),
				-EINVAL);
			fclose(f);
		}
		fsb_result_release(&r);
	}
}

static void test_text_lifecycle(void **state)
{
	struct fsb_result r;
	struct fsb_test_result *t;
	double runs[] = { 0.181, 0.179, 0.2 };
	char *s;
	int err;

	(void)state;
	assert_int_equal(fsb_result_init(&r, "lifecycle"), 0);
	t = fsb_result_add_test(&r, "mount-umount", "s");
	assert_non_null(t);
	assert_int_equal(fsb_test_set_runs(t, runs, 3), 0);
	s = render(fsb_write_text, &r, &err);
	assert_int_equal(err, 0);
	assert_non_null(strstr(s, "mount-umount     0.181 s  [0.179 – 0.200]"));
	assert_non_null(strstr(s, "median of 3 runs"));
	free(s);
	fsb_result_release(&r);
}

/* A caller's summary of the runs is taken as it is, not computed again;
 * fsb_test_set_runs computes the same one itself. */
static void test_set_runs_summarised(void **state)
{
	struct fsb_result r;
	struct fsb_test_result *t, *u;
	double runs[] = { 3, 1, 2 };
	struct fsb_summary s;

	(void)state;
	assert_int_equal(fsb_result_init(&r, "files"), 0);
	t = fsb_result_add_test(&r, "seq-create", "files/s");
	assert_non_null(t);
	assert_int_equal(fsb_summary_compute(runs, 3, &s), 0);
	s.median = 7; /* not the runs' median: shows where the figure came from */
	assert_int_equal(fsb_test_set_runs_summarised(t, runs, 3, &s), 0);
	assert_int_equal(t->nruns, 3);
	assert_true(t->runs != runs && t->runs[0] == 3 && t->runs[2] == 2);
	assert_true(t->median == 7 && t->min == 1 && t->max == 3 && t->cv == s.cv);
	assert_int_equal(fsb_test_set_runs_summarised(t, runs, 0, &s), -EINVAL);
	u = fsb_result_add_test(&r, "seq-stat", "files/s");
	assert_non_null(u);
	assert_int_equal(fsb_test_set_runs(u, runs, 3), 0);
	assert_true(u->median == 2 && u->min == 1 && u->max == 3 && u->cv == s.cv);
	assert_int_equal(fsb_test_set_runs(u, runs, 0), -EINVAL);
	fsb_result_release(&r);
}

/* --repeat auto: under its figure, the mean, its 95% interval, the runs
 * and why they stopped; a figure without an interval prints as before. */
static void test_text_auto_interval(void **state)
{
	struct fsb_result r;
	char *s, *plain;
	int err;

	(void)state;
	build_known(&r);
	plain = render(fsb_write_text, &r, &err);
	assert_int_equal(err, 0);
	assert_null(strstr(plain, "95% CI"));
	r.tests[1].has_ci = true;
	r.tests[1].ci95_low = r.tests[1].median * 0.979;
	r.tests[1].ci95_high = r.tests[1].median * 1.021;
	assert_int_equal(fsb_strset(&r.tests[1].repeat_stop, "converged"), 0);
	s = render(fsb_write_text, &r, &err);
	assert_int_equal(err, 0);
	assert_non_null(strstr(s, " ±2.1% (95% CI, 3 runs, converged)\n"));
	assert_non_null(strstr(s, "mean "));
	/* one line more than without, nothing else changed */
	{
		size_t a = 0, b = 0;

		for (const char *p = plain; *p; p++)
			a += *p == '\n';
		for (const char *p = s; *p; p++)
			b += *p == '\n';
		assert_int_equal(b, a + 1);
	}
	free(s);
	free(plain);
	fsb_result_release(&r);
}

/*
 * A footnote of the text view: absent from the known result (no `needle`),
 * then, once mark() has set what it tells, `want`, after the cache line
 * and at the end.
 */
static void footnote(void (*mark)(struct fsb_result *), const char *needle, const char *want)
{
	struct fsb_result r;
	char *s, *foot;
	int err;

	build_known(&r);
	s = render(fsb_write_text, &r, &err);
	assert_int_equal(err, 0);
	assert_null(strstr(s, needle));
	free(s);
	mark(&r);
	s = render(fsb_write_text, &r, &err);
	assert_int_equal(err, 0);
	foot = strstr(s, want);
	assert_non_null(foot);
	assert_non_null(strstr(s, "Cache mode drop"));
	assert_true(foot > strstr(s, "Cache mode drop"));
	assert_string_equal(foot + strlen(foot) - 2, ".\n");
	free(s);
	fsb_result_release(&r);
}

static void mark_short(struct fsb_result *r)
{
	assert_int_equal(fsb_strset(&r->tests[1].short_reason, "space"), 0);
	assert_int_equal(fsb_strset(&r->tests[2].short_reason, "space"), 0);
}

/* Runs cut short by free space: a footnote names them, others unchanged. */
static void test_text_short_space(void **state)
{
	(void)state;
	footnote(mark_short, "cut short",
		 "\nRuns cut short by free space (under --min-time): write, rewrite.\n");
}

static void mark_passes(struct fsb_result *r)
{
	r->tests[2].file_bytes = 1536ull << 20;
	r->tests[3].file_bytes = 512ull << 20;
}

/* Runs that went over their file again: a footnote names each with the
 * file's size. */
static void test_text_passes(void **state)
{
	(void)state;
	footnote(mark_passes, "pass after pass",
		 "\nRuns went over their file again, pass after pass (the page cache is the\n"
		 "storage: a pass again reads what a larger file would):\n"
		 "  rewrite over 1.5 GiB,\n  getc over 512.0 MiB.\n");
}

/* The reader's unit of each test (fsb_test_unit) is the one the runner
 * writes: every registered workload's work unit, lifecycle phases in a
 * lifecycle document, the rest in a run. */
static void test_unit_of_every_test(void **state)
{
	const struct fsb_workload_ops *const *w = fsb_registry_all();
	(void)state;

	for (size_t i = 0; w[i]; i++) {
		bool lc = !strcmp(w[i]->family, "lifecycle");
		const char *want = w[i]->work_unit == FSB_WORK_BYTES ? "B/s"
				   : w[i]->work_unit == FSB_WORK_OPS ? "ops/s"
								     : "s";
		const char *got = fsb_test_unit(lc ? "lifecycle" : "run", w[i]->name);

		assert_non_null(got);
		assert_string_equal(got, want);
	}
	assert_null(fsb_test_unit("run", "fio:job:write"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_runs_summarised),
		cmocka_unit_test(test_text_auto_interval),
		cmocka_unit_test(test_unit_of_every_test),
		cmocka_unit_test(test_text_short_space),
		cmocka_unit_test(test_text_passes),
		cmocka_unit_test(test_csv_known),
		cmocka_unit_test(test_csv_shapes),
		cmocka_unit_test(test_csv_formula_guard),
		cmocka_unit_test(test_method_note_auto),
		cmocka_unit_test(test_csv_bon_csv2txt),
		cmocka_unit_test(test_latency_format),
		cmocka_unit_test(test_golden_bonnie),
		cmocka_unit_test(test_golden_bonnie_pp),
		cmocka_unit_test(test_golden_text),
		cmocka_unit_test(test_bonnie_blank_cells),
		cmocka_unit_test(test_bonnie_pp_blocks),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_non_finite),
		cmocka_unit_test(test_json_load),
		cmocka_unit_test(test_json_load_refusals),
		cmocka_unit_test(test_json_reader_refusals),
		cmocka_unit_test(test_json_reader_ci95_low),
		cmocka_unit_test(test_json_document_kinds),
		cmocka_unit_test(test_json_parse_integer_range),
		cmocka_unit_test(test_json_parse_duplicate_keys),
		cmocka_unit_test(test_json_reader_huge_array),
		cmocka_unit_test(test_json_reader_mutations),
		cmocka_unit_test(test_writer_registry),
		cmocka_unit_test(test_writer_output_file),
		cmocka_unit_test(test_writer_kinds),
		cmocka_unit_test(test_text_lifecycle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
