/*
 * Unit tests: other tools' results read into the result model
 * (report/import.h) and put beside fsbench's (report/compare.h, the HTML
 * report). bonnie++ CSV in its three layouts, with the reference lines of
 * docs/references.md read from that file; fio JSON; what a file is, by
 * content; and the refusals, each naming the line or key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
#include "report/html.h"
#include "report/import.h"
#include "report/json.h"
#include "report/result.h"
#include "report/views.h"
#include "util/error.h"
#include "util/io.h"

/* ---- helpers ------------------------------------------------------------ */

static void assert_near(double got, double want)
{
	if (fabs(got - want) > 1e-9 * fmax(1, fabs(want))) {
		fprintf(stderr, "got %.17g, want %.17g\n", got, want);
		fail();
	}
}

/* The lines of docs/references.md that start with prefix, joined. */
static char *reference_lines(const char *prefix)
{
	char *doc = NULL, *out, *o;
	size_t len = 0, n = strlen(prefix);

	assert_int_equal(fsb_read_file("docs/references.md", 1 << 20, &doc, &len), 0);
	out = calloc(1, len + 1);
	assert_non_null(out);
	o = out;
	for (char *line = doc; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t l = nl ? (size_t)(nl - line) : strlen(line);

		if (l >= n && !strncmp(line, prefix, n)) {
			memcpy(o, line, l);
			o += l;
			*o++ = '\n';
		}
		line = nl ? nl + 1 : NULL;
	}
	free(doc);
	return out;
}

static int import_text(const char *text, struct fsb_import_list *l, char *why, size_t len)
{
	return fsb_import_bonnie(text, strlen(text), "refs.csv", l, why, len);
}

static const struct fsb_test_result *test_of(const struct fsb_result *r, const char *id)
{
	return fsb_result_find(r, id);
}

/* A figure read from a file: one run, the value. */
static void assert_figure(const struct fsb_result *r, const char *id, const char *unit, double v,
			  double cpu)
{
	const struct fsb_test_result *t = test_of(r, id);

	if (!t)
		fprintf(stderr, "no test %s\n", id);
	assert_non_null(t);
	assert_string_equal(t->unit, unit);
	assert_false(t->not_measured);
	assert_int_equal(t->nruns, 1);
	assert_near(t->median, v);
	assert_near(t->min, v);
	assert_near(t->max, v);
	assert_near(t->cpu_pct, cpu);
}

static void assert_unmeasured(const struct fsb_result *r, const char *id)
{
	const struct fsb_test_result *t = test_of(r, id);

	assert_non_null(t);
	assert_true(t->not_measured);
	assert_int_equal(t->nruns, 0);
	assert_true(t->median == 0);
}

/* ---- bonnie++ ------------------------------------------------------------- */

/* §2 of docs/references.md: the 1.03 lines as published. */
static void bonnie_103_reference(void **state)
{
	char *text = reference_lines("sys26,"), why[256];
	struct fsb_import_list l;
	const struct fsb_result *btrfs, *xfs;
	(void)state;

	assert_int_equal(import_text(text, &l, why, sizeof(why)), 0);
	assert_int_equal(l.n, 2);
	btrfs = &l.docs[0];
	xfs = &l.docs[1];
	assert_string_equal(btrfs->kind, "run");
	assert_string_equal(btrfs->tool, "bonnie++ 1.03");
	assert_string_equal(btrfs->source, "bonnie++ 1.03 CSV, line 1 of refs.csv");
	/* Both lines are "sys26": each a column of its own. */
	assert_string_equal(btrfs->setup.label, "sys26 (line 1)");
	assert_string_equal(xfs->setup.label, "sys26 (line 2)");
	assert_int_equal(fsb_result_get_u64(btrfs, "size_bytes", 0), 2ull << 30);
	assert_int_equal(fsb_result_get_u64(btrfs, "chunk_bytes", 0), 8192);
	assert_int_equal(fsb_result_get_u64(btrfs, "files", 0), 16 * 1024);
	/* Per-char tests were not run: absent, not zero. */
	assert_null(test_of(btrfs, "putc"));
	assert_null(test_of(btrfs, "getc"));
	assert_figure(btrfs, "write", "B/s", 28299 * 1024.0, 17);
	assert_figure(btrfs, "rewrite", "B/s", 18633 * 1024.0, 12);
	assert_figure(btrfs, "read", "B/s", 85702 * 1024.0, 29);
	assert_figure(btrfs, "seeks", "ops/s", 3093.9, 18);
	assert_figure(btrfs, "seq-create", "ops/s", 7513, 99);
	assert_figure(btrfs, "rand-delete", "ops/s", 5652, 99);
	/* "+++++": present, not measured, never 0. */
	assert_unmeasured(btrfs, "seq-stat");
	assert_unmeasured(btrfs, "rand-stat");
	assert_false(test_of(btrfs, "write")->has_latency);
	assert_figure(xfs, "write", "B/s", 62075 * 1024.0, 19);
	assert_figure(xfs, "seeks", "ops/s", 1431.8, 12);
	assert_figure(xfs, "rand-delete", "ops/s", 417, 5);
	assert_int_equal(btrfs->ntests, 10);
	fsb_import_list_release(&l);
	fsb_import_list_release(&l); /* idempotent */
	free(text);
}

/* §1 of docs/references.md: bonnie 1.2's figures in the 1.98 layout. */
static void bonnie_198_reference(void **state)
{
	char *text = reference_lines("1.98,bonnie-1.2,"), why[256];
	struct fsb_import_list l;
	const struct fsb_result *ext2;
	(void)state;

	assert_int_equal(import_text(text, &l, why, sizeof(why)), 0);
	assert_int_equal(l.n, 5);
	ext2 = &l.docs[0];
	assert_string_equal(ext2->setup.label, "Ext2");
	assert_string_equal(l.docs[4].setup.label, "Reiserfs/nt");
	/* The version field is not a number: it names the tool itself. */
	assert_string_equal(ext2->tool, "bonnie-1.2");
	assert_string_equal(ext2->source, "bonnie-1.2 CSV (format 1.98), line 1 of refs.csv");
	assert_int_equal(fsb_result_get_u64(ext2, "size_bytes", 0), 512ull << 20);
	assert_int_equal(fsb_result_get_u64(ext2, "chunk_bytes", 0), 4096);
	assert_int_equal(fsb_result_get_u64(ext2, "seekers", 0), 3);
	assert_null(fsb_result_param(ext2, "seeks"));
	assert_null(fsb_result_param(ext2, "files"));
	assert_figure(ext2, "putc", "B/s", 6561 * 1024.0, 98.5);
	assert_figure(ext2, "getc", "B/s", 5393 * 1024.0, 84.8);
	assert_figure(ext2, "seeks", "ops/s", 130.9, 1.3);
	assert_int_equal(ext2->ntests, 6);
	fsb_import_list_release(&l);
	free(text);
}

/* bonnie++ 2.00a's own line (docs/references.md, §2): latencies, "+++++". */
static void bonnie_200a_line(void **state)
{
	char *text = reference_lines("1.98,2.00a,"), why[256];
	struct fsb_import_list l;
	const struct fsb_result *r;
	const struct fsb_test_result *t;
	(void)state;

	assert_int_equal(import_text(text, &l, why, sizeof(why)), 0);
	assert_int_equal(l.n, 1);
	r = &l.docs[0];
	assert_string_equal(r->tool, "bonnie++ 2.00a");
	assert_string_equal(r->version, "2.00a");
	assert_string_equal(r->setup.label, "tmpfs");
	assert_int_equal(fsb_result_get_u64(r, "size_bytes", 0), 256ull << 20);
	assert_int_equal(fsb_result_get_u64(r, "chunk_bytes", 0), 8192);
	assert_int_equal(fsb_result_get_u64(r, "seeks", 0), 8192);
	assert_int_equal(fsb_result_get_u64(r, "seekers", 0), 5);
	assert_int_equal(fsb_result_get_u64(r, "concurrency", 0), 1);
	assert_int_equal(fsb_result_get_u64(r, "seed", 0), 1795997322);
	assert_int_equal(fsb_result_get_u64(r, "files", 0), 1024);
	assert_figure(r, "putc", "B/s", 3817 * 1024.0, 99);
	t = test_of(r, "putc");
	assert_true(t->has_latency && t->latency_max_only);
	assert_near(t->latency.max_us, 2993);
	/* Not measured, yet its slowest operation is known. */
	assert_unmeasured(r, "write");
	t = test_of(r, "write");
	assert_true(t->has_latency);
	assert_near(t->latency.max_us, 298);
	assert_unmeasured(r, "rand-delete");
	assert_near(test_of(r, "rand-delete")->latency.max_us, 15);
	assert_int_equal(r->ntests, 12);
	fsb_import_list_release(&l);
	free(text);
}

/* The csv view of fsbench's golden run reads back as its figures. */
static void bonnie_fsbench_csv_view(void **state)
{
	char *csv = NULL, why[256];
	size_t len = 0;
	struct fsb_import_list l;
	struct fsb_result run;
	(void)state;

	assert_int_equal(fsb_read_file("tests/golden/run.json.csv.txt", 1 << 20, &csv, &len), 0);
	assert_int_equal(fsb_import_bonnie(csv, len, "run.csv", &l, why, sizeof(why)), 0);
	assert_int_equal(fsb_json_load("tests/golden/run.json", &run), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.docs[0].ntests, 12);
	for (size_t i = 0; i < l.docs[0].ntests; i++) {
		const struct fsb_test_result *a = &l.docs[0].tests[i];
		const struct fsb_test_result *b = fsb_result_find(&run, a->id);
		/* The view rounds to K/sec (B/s) or to 1 (ops/s; 0.1 below 1000). */
		double step = !strcmp(a->unit, "B/s") ? 1024 : 1;

		assert_non_null(b);
		assert_true(fabs(a->median - b->median) <= step);
		assert_true(a->has_latency && a->latency_max_only);
		assert_true(fabs(a->latency.max_us - b->latency.max_us) <= 1);
	}
	/* "0.25" thousand-and-twenty-fours: 256 files. */
	assert_int_equal(fsb_result_get_u64(&l.docs[0], "files", 0), 256);
	fsb_result_release(&run);
	fsb_import_list_release(&l);
	free(csv);
}

/* 1.96/1.97: 48 fields, no seeks and seekers; comments, headers, CRLF, BOM. */
static void bonnie_layouts_and_noise(void **state)
{
	const char *text = "\xef\xbb\xbf# bonnie++ 1.97 on a disk\r\n"
			   "format_version,bonnie_version,name,concurrency,seed,file_size\r\n"
			   "\r\n"
			   "1.97,1.97,disk,1,1400000000,4G,,500,90,80000,20,40000,10,900,95,"
			   "120000,15,250.5,4,16,,,,,1000,50,+++++,+++,2000,40,1100,55,+++++,+++,"
			   "1900,45,20ms,467ms,2s,19351us,300ms,100ms,500us,10us,900us,600us,20us,"
			   "1000us\r\n";
	struct fsb_import_list l;
	const struct fsb_result *r;
	char why[256];
	(void)state;

	assert_int_equal(import_text(text, &l, why, sizeof(why)), 0);
	assert_int_equal(l.n, 1);
	r = &l.docs[0];
	assert_string_equal(r->source, "bonnie++ 1.97 CSV (format 1.97), line 4 of refs.csv");
	assert_string_equal(r->setup.label, "disk");
	assert_int_equal(fsb_result_get_u64(r, "size_bytes", 0), 4ull << 30);
	assert_null(fsb_result_param(r, "seeks"));
	assert_figure(r, "putc", "B/s", 500 * 1024.0, 90);
	assert_figure(r, "seeks", "ops/s", 250.5, 4);
	assert_figure(r, "seq-create", "ops/s", 1000, 50);
	assert_unmeasured(r, "seq-stat");
	assert_figure(r, "rand-delete", "ops/s", 1900, 45);
	/* "20ms", "467ms", "2s", "19351us" in microseconds. */
	assert_near(test_of(r, "putc")->latency.max_us, 20000);
	assert_near(test_of(r, "write")->latency.max_us, 467000);
	assert_near(test_of(r, "rewrite")->latency.max_us, 2e6);
	assert_near(test_of(r, "getc")->latency.max_us, 19351);
	assert_near(test_of(r, "rand-delete")->latency.max_us, 1000);
	fsb_import_list_release(&l);
}

/* A 1.03 line with its file field in full: "16:4096:1024/8", size:chunk. */
static void bonnie_103_fields(void **state)
{
	const char *text = "box,300M:4k,48,99,6224,75,1782,37,124,99,2874,26,100.4,5,"
			   "16:4096:1024/8,233,99,6543,100,3690,89,235,99,6907,100,825,98\n"
			   "box,1G,,,,,,,,,,,,,link,233,99,,,,,,,,,,\n";
	struct fsb_import_list l;
	char why[256];
	(void)state;

	assert_int_equal(import_text(text, &l, why, sizeof(why)), -EINVAL);
	/* "link" where the count belongs. */
	assert_string_equal(why, "line 2: field 14 (number of files) is not a number: 'link'");
	text = "box,300M:4k,48,99,6224,75,1782,37,124,99,2874,26,100.4,5,"
	       "16:4096:1024/8,233,99,6543,100,3690,89,235,99,6907,100,825,98\n"
	       "box2,1G,,,,,,,,,,,,,16:link,233,99,,,,,,,,,,\n";
	assert_int_equal(import_text(text, &l, why, sizeof(why)), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(fsb_result_get_u64(&l.docs[0], "chunk_bytes", 0), 4096);
	assert_int_equal(fsb_result_get_u64(&l.docs[0], "size_bytes", 0), 300ull << 20);
	assert_int_equal(fsb_result_get_u64(&l.docs[0], "file_max_bytes", 0), 4096);
	assert_int_equal(fsb_result_get_u64(&l.docs[0], "file_min_bytes", 0), 1024);
	assert_int_equal(fsb_result_get_u64(&l.docs[0], "file_dirs", 0), 8);
	assert_string_equal(fsb_result_get_str(&l.docs[1], "links", ""), "hard");
	assert_int_equal(l.docs[1].ntests, 1);
	fsb_import_list_release(&l);
}

static void expect_refused(const char *text, const char *want)
{
	struct fsb_import_list l;
	char why[256];

	assert_int_equal(import_text(text, &l, why, sizeof(why)), -EINVAL);
	if (strcmp(why, want))
		fprintf(stderr, "got  '%s'\nwant '%s'\n", why, want);
	assert_string_equal(why, want);
	assert_int_equal(l.n, 0);
	assert_null(l.docs);
}

static void bonnie_refusals(void **state)
{
	const char *ok = "sys26,2G,,,28299,17,18633,12,,,85702,29,3093.9,18,16,7513,99,+++++,+++,"
			 "5140,98,3964,67,+++++,+++,5652,99\n";
	char buf[FSB_IMPORT_MAX_LINE * 2];
	(void)state;

	expect_refused("1.98,2.00a,t,1,,64M\n", "line 1: 6 fields: a bonnie++ 1.98 line has 50");
	expect_refused("# x\nsys26,2G,,,28x99,17,18633,12,,,85702,29,3093.9,18,16,7513,99,+++++,"
		       "+++,5140,98,3964,67,+++++,+++,5652,99\n",
		       "line 2: field 4 (block write K/sec) is not a number: '28x99'");
	expect_refused("sys26,2G,,,-5,17,18633,12,,,85702,29,3093.9,18,16,7513,99,+++++,+++,5140,"
		       "98,3964,67,+++++,+++,5652,99\n",
		       "line 1: field 4 (block write K/sec) is not a number: '-5'");
	expect_refused("sys26,2G,,,1e9,17,18633,12,,,85702,29,3093.9,18,16,7513,99,+++++,+++,"
		       "5140,98,3964,67,+++++,+++,5652,99\n",
		       "line 1: field 4 (block write K/sec) is not a number: '1e9'");
	expect_refused("sys26,2G,,,99999999999999999,17,18633,12,,,85702,29,3093.9,18,16,7513,99,"
		       "+++++,+++,5140,98,3964,67,+++++,+++,5652,99\n",
		       "line 1: field 4 (block write K/sec) is out of range: '99999999999999999'");
	expect_refused("sys26,2G,,,nan,17,18633,12,,,85702,29,3093.9,18,16,7513,99,+++++,+++,"
		       "5140,98,3964,67,+++++,+++,5652,99\n",
		       "line 1: field 4 (block write K/sec) is not a number: 'nan'");
	/* A %CPU without its figure: no bonnie++ writes that. */
	expect_refused(
		"sys26,2G,,5,28299,17,18633,12,,,85702,29,3093.9,18,16,7513,99,+++++,+++,"
		"5140,98,3964,67,+++++,+++,5652,99\n",
		"line 1: field 3 (per-char write %CPU) is given for a test without a figure: "
		"'5'");
	expect_refused("sys26,2048,,,28299,17,18633,12,,,85702,29,3093.9,18,16,7513,99,+++++,+++,"
		       "5140,98,3964,67,+++++,+++,5652,99\n",
		       "line 1: field 1 (file size) is not a size like 512M or 2G: '2048'");
	expect_refused(
		"1.98,2.00a,t,1,,64M,,8192,5,1,1,,,,,,,,,,,,,,,,,,,,,,,,,,,,10 us,,,,,,,,,,,\n",
		"line 1: field 38 (per-char write latency) is not a latency (like 850us, "
		"467ms or 2s): '10 us'");
	expect_refused("1.98,2.00a,t,1,,64M,,8192,5,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n",
		       "line 1: no test figures (every figure field is empty)");
	expect_refused("# nothing\n\n",
		       "no bonnie++ result line (only comments, blanks or a header)");
	expect_refused("format_version,bonnie_version,name\nx,y\n",
		       "line 2: 2 fields: a bonnie++ line has 27 (1.03), 48 (1.96, 1.97) or 50 "
		       "(1.98)");
	/* A name field holding markup is data like any other; an empty one is "line N". */
	{
		struct fsb_import_list l;
		char why[256];

		assert_int_equal(
			import_text(",2G,,,1,1,,,,,,,,,,,,,,,,,,,,,\n", &l, why, sizeof(why)), 0);
		assert_string_equal(l.docs[0].setup.label, "line 1");
		fsb_import_list_release(&l);
	}
	/* A NUL byte, a line too long, too many lines. */
	{
		struct fsb_import_list l;
		char why[256];
		char *many;
		size_t n = strlen(ok), len;

		memcpy(buf, ok, n);
		buf[5] = '\0';
		assert_int_equal(fsb_import_bonnie(buf, n, "x", &l, why, sizeof(why)), -EINVAL);
		assert_string_equal(why, "line 1: holds a NUL byte: not a bonnie++ line");
		memset(buf, '1', sizeof(buf) - 2);
		buf[0] = 'x';
		for (size_t i = 1; i < 27; i++)
			buf[i * 2] = ',';
		buf[sizeof(buf) - 2] = '\n';
		assert_int_equal(fsb_import_bonnie(buf, sizeof(buf) - 1, "x", &l, why, sizeof(why)),
				 -EINVAL);
		assert_string_equal(why, "line 1: longer than 4096 bytes: not a bonnie++ line");
		len = n * (FSB_IMPORT_MAX_LINES + 1);
		many = malloc(len + 1);
		assert_non_null(many);
		for (size_t i = 0; i <= FSB_IMPORT_MAX_LINES; i++)
			memcpy(many + i * n, ok, n);
		many[len] = '\0';
		assert_int_equal(fsb_import_bonnie(many, len, "x", &l, why, sizeof(why)), -EINVAL);
		assert_string_equal(why, "more than 1024 result lines");
		/* 1024 of them are fine, each its own column. */
		assert_int_equal(fsb_import_bonnie(many, len - n, "x", &l, why, sizeof(why)), 0);
		assert_int_equal(l.n, FSB_IMPORT_MAX_LINES);
		assert_string_equal(l.docs[1023].setup.label, "sys26 (line 1024)");
		fsb_import_list_release(&l);
		free(many);
	}
}

/* ---- sniffing ------------------------------------------------------------------ */

static enum fsb_import_kind sniff(const char *text, size_t *at)
{
	return fsb_import_sniff(text, strlen(text), at);
}

static void sniff_by_content(void **state)
{
	size_t at = 99;
	char why[256];
	(void)state;

	assert_int_equal(sniff("{\"tool\": \"fsbench\"}", &at), FSB_IMPORT_JSON);
	assert_int_equal(at, 0);
	assert_int_equal(sniff("  [1]", &at), FSB_IMPORT_JSON);
	assert_int_equal(sniff("42", &at), FSB_IMPORT_JSON);
	assert_int_equal(sniff("null", &at), FSB_IMPORT_JSON);
	/* A 1.98 line starts with a digit, yet is no JSON number. */
	assert_int_equal(sniff("1.98,2.00a,t,1,,64M\n", &at), FSB_IMPORT_BONNIE);
	assert_int_equal(sniff("sys26,2G,,,28299,17,18633,12,,,85702,29,3093.9,18,16,7513,99,+++++,"
			       "+++,5140,98,3964,67,+++++,+++,5652,99",
			       &at),
			 FSB_IMPORT_BONNIE);
	assert_int_equal(sniff("# c\nformat_version,bonnie_version\n", &at), FSB_IMPORT_BONNIE);
	/* fio's notes, then its JSON. */
	assert_int_equal(sniff("note: both iodepth >= 1 and synchronous I/O engine are selected\n"
			       "{\n  \"fio version\" : \"fio-3.33\"\n}\n",
			       &at),
			 FSB_IMPORT_FIO);
	assert_int_equal(at, strlen("note: both iodepth >= 1 and synchronous I/O engine are "
				    "selected\n"));
	assert_int_equal(sniff("hello, world\n", &at), FSB_IMPORT_UNKNOWN);
	assert_int_equal(sniff("nothing\n", &at), FSB_IMPORT_UNKNOWN);
	assert_int_equal(sniff("", &at), FSB_IMPORT_UNKNOWN);
	fsb_import_unknown_why("hello, world\n", 13, why, sizeof(why));
	assert_string_equal(why, "not a result fsbench reads: not JSON, and line 1 has 2 "
				 "comma-separated fields where bonnie++ CSV has 27, 48 or 50");
}

/* ---- fio ---------------------------------------------------------------------- */

/* Trimmed from fio 3.33's own output; every member the reader uses. */
#define SIDE(io, bw, iops, ios, p50, max)                                                     \
	"{\"io_bytes\":" #io ",\"io_kbytes\":0,\"bw_bytes\":" #bw ",\"bw\":0,\"iops\":" #iops \
	",\"runtime\":2,\"total_ios\":" #ios ",\"clat_ns\":{\"min\":1,\"max\":" #max          \
	",\"mean\":1,\"stddev\":0,\"N\":1,\"percentile\":{\"1.000000\":1,\"50.000000\":" #p50 \
	",\"99.000000\":6432,\"99.900000\":10048}}}"
#define IDLE "{\"io_bytes\":0,\"bw_bytes\":0,\"bw\":0,\"iops\":0.0,\"runtime\":0,\"total_ios\":0}"
#define JOB(name, opts, rd, wr, err)                                                       \
	"{\"jobname\":\"" name "\",\"groupid\":0,\"error\":" #err ",\"job options\":" opts \
	",\"read\":" rd ",\"write\":" wr ",\"trim\":" IDLE ",\"usr_cpu\":1.5,\"sys_cpu\":2.5}"

static const char fio_doc[] =
	"{\"fio version\":\"fio-3.33\",\"time\":\"Mon Nov 30 20:44:53 2026\","
	"\"global options\":{\"directory\":\"/dev/shm\",\"size\":\"4m\",\"ioengine\":\"psync\"},"
	"\"jobs\":[" JOB(
		"w", "{\"name\":\"w\",\"rw\":\"write\",\"bs\":\"1m\"}", IDLE,
		SIDE(4194304, 2097152000, 2000.0, 4, 900, 15813),
		0) "," JOB("r", "{\"name\":\"r\",\"rw\":\"read\",\"bs\":\"1m\"}",
			   SIDE(4194304, 1048576000, 1000.0, 4, 800, 2000), IDLE,
			   0) "," JOB("rr",
				      "{\"name\":\"rr\",\"rw\":\"randread:8\",\"bs\":\"4k\",\"iodepth\":\"4\"}",
				      SIDE(4194304, 2097152000, 512000.0, 1024, 932, 15813), IDLE,
				      0) "," JOB("mix", "{\"rw\":\"randrw\",\"bs\":\"4k\"}",
						 SIDE(1048576, 104857600, 25600.0, 256, 1, 9),
						 SIDE(1048576, 104857600, 25600.0, 256, 1, 9),
						 0) "," JOB("w2",
							    "{\"rw\":\"write\",\"bs\":\"4k\"}",
							    IDLE,
							    SIDE(4096, 4096000, 1000.0, 1, 1, 9),
							    0) "," JOB("bad", "{\"rw\":\"write\"}",
								       IDLE,
								       SIDE(4096, 4096000, 1000.0,
									    1, 1, 9),
								       5) "," JOB("fast",
										  "{\"rw\":\"trim\"}",
										  IDLE, IDLE,
										  0) "]}";

static struct json_object *parse(const char *text)
{
	char why[256];
	struct json_object *o = fsb_json_parse(text, strlen(text), why, sizeof(why));

	if (!o)
		fprintf(stderr, "%s\n", why);
	assert_non_null(o);
	return o;
}

static void fio_jobs(void **state)
{
	struct json_object *doc = parse(fio_doc);
	struct fsb_result r;
	const struct fsb_test_result *t;
	char why[256];
	(void)state;

	fsb_warn_set_quiet(1);
	assert_true(fsb_import_is_fio(doc));
	assert_int_equal(fsb_import_fio(doc, "fio.json", &r, why, sizeof(why)), 0);
	fsb_warn_set_quiet(0);
	assert_string_equal(r.tool, "fio 3.33");
	assert_string_equal(r.version, "3.33");
	assert_string_equal(r.kind, "run");
	assert_string_equal(r.source, "fio 3.33 JSON, fio.json");
	assert_null(r.setup.label);
	/* Sequential jobs: bandwidth; random: IOPS, with fsbench's ids. */
	assert_figure(&r, "write", "B/s", 2097152000, 4);
	assert_figure(&r, "read", "B/s", 1048576000, 4);
	assert_figure(&r, "randread", "ops/s", 512000, 4);
	t = test_of(&r, "randread");
	assert_true(t->has_latency && !t->latency_max_only);
	assert_near(t->latency.p50_us, 0.932);
	assert_near(t->latency.p99_us, 6.432);
	assert_near(t->latency.p999_us, 10.048);
	assert_near(t->latency.max_us, 15.813);
	assert_int_equal(t->work, 1024);
	assert_int_equal(test_of(&r, "write")->work, 4194304);
	/* randrw: rows of its own, IOPS (a random job). */
	assert_figure(&r, "fio:mix:read", "ops/s", 25600, 4);
	assert_figure(&r, "fio:mix:write", "ops/s", 25600, 4);
	/* A second write job: its own row, not a second "write". */
	assert_figure(&r, "fio:w2:write", "B/s", 4096000, 4);
	/* The failed job and the one that moved nothing are left out. */
	assert_null(test_of(&r, "fio:bad:write"));
	assert_null(test_of(&r, "fio:fast:trim"));
	assert_int_equal(r.ntests, 6);
	/* Options: agreed once, else per job; the global size in bytes. */
	assert_string_equal(fsb_result_get_str(&r, "bs", ""), "w=1m, r=1m, rr=4k, mix=4k, w2=4k");
	assert_string_equal(fsb_result_get_str(&r, "ioengine", ""), "psync");
	assert_string_equal(fsb_result_get_str(&r, "iodepth", ""),
			    "w=default, r=default, rr=4, mix=default, w2=default");
	assert_int_equal(fsb_result_get_u64(&r, "size_bytes", 0), 4u << 20);
	assert_string_equal(fsb_result_get_str(&r, "jobs", ""),
			    "w (write), r (read), rr (randread), mix (randrw), w2 (write)");
	assert_string_equal(fsb_result_get_str(&r, "date", ""), "Mon Nov 30 20:44:53 2026");
	fsb_result_release(&r);
	json_object_put(doc);
}

/*
 * A warm-up job and its repeats (same rw, bs, iodepth, direct, numjobs,
 * ioengine, size): one row whose runs are the jobs, in order; a job that
 * differs (another bs) stays a row of its own, and copies of one job
 * running at once (numjobs > 1, one entry each) are never runs: their
 * figures are summed into one.
 */
static const char fio_repeats[] =
	"{\"fio version\":\"fio-3.33\",\"global options\":{\"size\":\"4m\"},\"jobs\":[" JOB(
		"warm", "{\"rw\":\"write\",\"bs\":\"1m\"}", IDLE,
		SIDE(4194304, 1000000, 1.0, 4, 1, 9),
		0) "," JOB("rep1", "{\"rw\":\"write\",\"bs\":\"1m\"}", IDLE,
			   SIDE(4194304, 3000000, 3.0, 4, 1, 9),
			   0) "," JOB("rep2", "{\"rw\":\"write\",\"bs\":\"1m\"}", IDLE,
				      SIDE(4194304, 2000000, 2.0, 4, 1, 9),
				      0) "," JOB("small", "{\"rw\":\"write\",\"bs\":\"4k\"}", IDLE,
						 SIDE(4194304, 500000, 5.0, 4, 1, 9),
						 0) "," JOB("cp",
							    "{\"rw\":\"read\",\"numjobs\":\"2\"}",
							    SIDE(4194304, 7000000, 7.0, 4, 1, 9),
							    IDLE,
							    0) "," JOB("cp",
								       "{\"rw\":\"read\",\"numjobs\":\"2\"}",
								       SIDE(4194304, 8000000, 8.0,
									    4, 1, 9),
								       IDLE, 0) "]}";

static void fio_repeats_merge(void **state)
{
	struct json_object *doc = parse(fio_repeats);
	const struct fsb_test_result *t;
	struct fsb_result r;
	char why[256];
	(void)state;

	fsb_warn_set_quiet(1);
	assert_int_equal(fsb_import_fio(doc, "f", &r, why, sizeof(why)), 0);
	fsb_warn_set_quiet(0);
	t = test_of(&r, "write");
	assert_non_null(t);
	assert_int_equal(t->nruns, 3);
	assert_near(t->runs[0], 1000000);
	assert_near(t->runs[1], 3000000);
	assert_near(t->runs[2], 2000000);
	assert_near(t->median, 2000000);
	assert_near(t->min, 1000000);
	assert_near(t->max, 3000000);
	assert_null(test_of(&r, "fio:rep1:write"));
	assert_null(test_of(&r, "fio:rep2:write"));
	/* Another block size is other work: a row of its own, one run. */
	assert_figure(&r, "fio:small:write", "B/s", 500000, 4);
	assert_int_equal(test_of(&r, "fio:small:write")->nruns, 1);
	/* Two copies of one job at once: one figure, their sum (fio's
	 * group_reporting), as fsbench's --jobs figure is the aggregate. */
	assert_int_equal(test_of(&r, "read")->nruns, 1);
	assert_near(test_of(&r, "read")->median, 15000000);
	assert_null(test_of(&r, "fio:cp:read"));
	assert_int_equal(r.ntests, 3);
	fsb_result_release(&r);
	json_object_put(doc);
}

/*
 * Copies of one job (numjobs 2, no group_reporting) combine as fio's
 * group_reporting does (stat.c sum_thread_stats): %CPU over their summed
 * run time (2% over 2 ms and 6% over 6 ms: 5%), the largest max, and of
 * each percentile the worst copy's, which the result says.
 */
#define COPY(rt, max, p50, p99, p999, usr, sys)                                                 \
	"{\"jobname\":\"cp\",\"groupid\":0,\"error\":0,\"job options\":{\"rw\":\"read\","       \
	"\"numjobs\":\"2\"},\"read\":{\"io_bytes\":4194304,\"bw_bytes\":1000000,\"bw\":0,"      \
	"\"iops\":1.0,\"runtime\":" #rt ",\"total_ios\":4,\"clat_ns\":{\"min\":1,\"max\":" #max \
	",\"mean\":1,\"stddev\":0,\"N\":4,\"percentile\":{\"50.000000\":" #p50                  \
	",\"99.000000\":" #p99 ",\"99.900000\":" #p999 "}}},\"write\":" IDLE ",\"trim\":" IDLE  \
	",\"usr_cpu\":" #usr ",\"sys_cpu\":" #sys "}"

static const char fio_copies[] = "{\"fio version\":\"fio-3.33\",\"jobs\":[" COPY(
	2, 100000, 10000, 50000, 80000, 1.0, 1.0) "," COPY(6, 300000, 5000, 90000, 70000, 4.0,
							   2.0) "]}";

static void fio_copies_combine(void **state)
{
	struct json_object *doc = parse(fio_copies);
	const struct fsb_test_result *t;
	const struct fsb_param *note;
	struct fsb_result r;
	char why[256];
	(void)state;

	fsb_warn_set_quiet(1);
	assert_int_equal(fsb_import_fio(doc, "f", &r, why, sizeof(why)), 0);
	fsb_warn_set_quiet(0);
	t = test_of(&r, "read");
	assert_non_null(t);
	assert_int_equal(t->nruns, 1);
	assert_near(t->median, 2000000);
	assert_near(t->cpu_pct, 5.0);
	assert_true(t->has_latency);
	assert_false(t->latency_max_only);
	assert_near(t->latency.max_us, 300);
	assert_near(t->latency.p50_us, 10);
	assert_near(t->latency.p99_us, 90);
	assert_near(t->latency.p999_us, 80);
	note = fsb_result_param(&r, "fio_copies_latency");
	assert_non_null(note);
	assert_non_null(strstr(note->s, "worst copy's"));
	fsb_result_release(&r);
	json_object_put(doc);
}

static void fio_expect(const char *text, const char *want)
{
	struct json_object *doc = parse(text);
	struct fsb_result r;
	char why[256];

	assert_int_equal(fsb_import_fio(doc, "f", &r, why, sizeof(why)), -EINVAL);
	if (strcmp(why, want))
		fprintf(stderr, "got  '%s'\nwant '%s'\n", why, want);
	assert_string_equal(why, want);
	assert_int_equal(r.ntests, 0);
	assert_null(r.tool);
	json_object_put(doc);
}

static void fio_refusals(void **state)
{
	(void)state;

	fio_expect("{\"fio version\":3}", "fio version is not a string");
	fio_expect("{\"fio version\":\"fio-3.33\"}", "jobs is missing");
	fio_expect("{\"fio version\":\"fio-3.33\",\"jobs\":{}}", "jobs is not an array");
	fio_expect("{\"fio version\":\"fio-3.33\",\"jobs\":[]}", "jobs is empty");
	fio_expect("{\"fio version\":\"fio-3.33\",\"jobs\":[7]}", "jobs[0] is not an object");
	fio_expect("{\"fio version\":\"fio-3.33\",\"jobs\":[{}]}", "jobs[0].jobname is missing");
	fio_expect("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"a\",\"write\":{"
		   "\"io_bytes\":1,\"bw_bytes\":1e300}}]}",
		   "jobs[0].write.bw_bytes is out of range");
	fio_expect("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"a\",\"read\":{"
		   "\"iops\":\"fast\"}}]}",
		   "jobs[0].read.iops is not a number");
	fio_expect("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"a\",\"read\":{"
		   "\"iops\":-1}}]}",
		   "jobs[0].read.iops is negative");
	fio_expect("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"a\",\"read\":{"
		   "\"clat_ns\":{\"max\":1,\"percentile\":[1]}}}]}",
		   "jobs[0].read.clat_ns.percentile is not an object");
	fio_expect("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"a\",\"job options\":{"
		   "\"rw\":5}}]}",
		   "jobs[0].job options.rw is not a string");
	fio_expect("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"a\",\"error\":\"x\"}]}",
		   "jobs[0].error is not an integer");
	fio_expect("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"a\"}]}",
		   "no job with figures (each failed or moved no data)");
	fio_expect("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"a\\u0000b\"}]}",
		   "jobs[0].jobname contains a NUL character");
}

/* A job faster than fio's clock: 0 B/s is no figure, and not a zero either. */
static void fio_zero_is_not_measured(void **state)
{
	struct json_object *doc = parse(
		"{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"<b>w</b>\",\"job options\":"
		"{\"rw\":\"write\"},\"write\":{\"io_bytes\":4096,\"bw_bytes\":0,\"iops\":0}}]}");
	struct fsb_result r;
	char why[256];
	(void)state;

	assert_int_equal(fsb_import_fio(doc, "f", &r, why, sizeof(why)), 0);
	assert_unmeasured(&r, "write");
	assert_false(test_of(&r, "write")->has_latency);
	assert_string_equal(fsb_result_get_str(&r, "jobs", ""), "<b>w</b> (write)");
	fsb_result_release(&r);
	json_object_put(doc);
}

/* ---- beside fsbench's results -------------------------------------------------- */

static void compare_single_and_unmeasured(void **state)
{
	double three[] = { 100, 110, 105 }, one[] = { 200 };
	struct fsb_test_result a, b, nm;
	char buf[64];
	(void)state;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&nm, 0, sizeof(nm));
	a.unit = b.unit = nm.unit = "B/s";
	assert_int_equal(fsb_test_set_runs(&a, three, 3), 0);
	assert_int_equal(fsb_test_set_runs(&b, one, 1), 0);
	nm.not_measured = true;
	/* Twice as fast, but measured once: the ratio without a verdict. */
	assert_int_equal(fsb_compare_verdict(&a, &b), FSB_CMP_SINGLE);
	assert_string_equal(fsb_compare_ratio_text(&a, &b, buf, sizeof(buf)),
			    "~1.90x (single run)");
	/* The other way round: the ratio itself, never inverted into a
	 * "~1.90x" that would read as faster. */
	assert_string_equal(fsb_compare_ratio_text(&b, &a, buf, sizeof(buf)),
			    "~0.53x (single run)");
	assert_false(fsb_compare_significant(&a, &b));
	/* Not measured: no ratio at all, either way round. */
	assert_true(isnan(fsb_compare_ratio(&a, &nm)));
	assert_true(isnan(fsb_compare_ratio(&nm, &a)));
	assert_int_equal(fsb_compare_verdict(&a, &nm), FSB_CMP_NONE);
	assert_string_equal(fsb_compare_ratio_text(&nm, &a, buf, sizeof(buf)), "-");
	free(a.runs);
	free(b.runs);
}

/* Render a compare view of the set into a string (caller frees). */
static char *render_view(const char *name, const struct fsb_compare_set *set,
			 const struct fsb_compare_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(
		fsb_view_write(
			fsb_view_find(FSB_KIND_COMPARISON, name), f,
			&(struct fsb_doc){ .kind = FSB_KIND_COMPARISON, .set = set, .table = t }),
		0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void set_of_imports(void **state)
{
	char *refs = reference_lines("sys26,"), why[256], *out;
	static const char note[] = "note: both iodepth >= 1 and synchronous I/O engine are "
				   "selected, queue depth will be capped at 1\n";
	char *fio = malloc(sizeof(note) + sizeof(fio_doc));
	struct fsb_compare_set set = { 0 };
	struct fsb_compare_table t;
	struct json_object *j;
	(void)state;

	assert_non_null(fio);
	snprintf(fio, sizeof(note) + sizeof(fio_doc), "%s%s", note, fio_doc);
	fsb_warn_set_quiet(1);
	assert_int_equal(fsb_compare_set_add_buffer(&set, refs, strlen(refs), "dir/refs.csv", why,
						    sizeof(why)),
			 0);
	assert_int_equal(fsb_compare_set_add_buffer(&set, fio, strlen(fio), "dir/fio.json", why,
						    sizeof(why)),
			 0);
	fsb_warn_set_quiet(0);
	assert_int_equal(set.n, 3);
	assert_string_equal(set.labels[0], "sys26 (line 1)");
	assert_string_equal(set.labels[2], "fio.json");
	assert_string_equal(set.sources[2], "dir/fio.json");
	/* The same file again: its labels are taken, the file's name joins them. */
	assert_int_equal(
		fsb_compare_set_add_buffer(&set, refs, strlen(refs), "again.csv", why, sizeof(why)),
		0);
	assert_string_equal(set.labels[3], "sys26 (line 1) (again.csv)");
	/* Text before a JSON document that is not fio's: refused, the set unchanged. */
	assert_int_equal(fsb_compare_set_add_buffer(&set, "hi\n{\"tool\":\"fsbench\"}", 21, "x",
						    why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(set.n, 5);
	assert_int_equal(fsb_compare_set_add_buffer(&set, " \n\t", 3, "x", why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "empty file");
	/* A byte order mark an editor put first is no part of the document:
	 * fio's JSON after one is read like without it; one alone is empty. */
	{
		size_t n = strlen(fio_doc);
		char *bom = malloc(n + 4);

		assert_non_null(bom);
		memcpy(bom, "\xef\xbb\xbf", 3);
		memcpy(bom + 3, fio_doc, n + 1);
		assert_int_equal(
			fsb_compare_set_add_buffer(&set, bom, n + 3, "bom.json", why, sizeof(why)),
			0);
		assert_int_equal(set.n, 6);
		assert_string_equal(set.sources[5], "bom.json");
		assert_int_equal(fsb_compare_set_add_buffer(&set, bom, 3, "x", why, sizeof(why)),
				 -EINVAL);
		assert_string_equal(why, "empty file");
		free(bom);
	}

	assert_int_equal(fsb_compare_table_build(&t, fsb_compare_set_docs(&set),
						 fsb_compare_set_labels(&set), set.n),
			 0);
	out = render_view("text", &set, &t);
	assert_non_null(strstr(out, "imported: bonnie++ 1.03 CSV, line 1 of dir/refs.csv"));
	assert_non_null(strstr(out, "imported: fio 3.33 JSON, dir/fio.json"));
	assert_non_null(strstr(out, "not measured"));
	assert_non_null(strstr(out, "(single run)"));
	assert_non_null(strstr(out, "'not measured': bonnie++ printed +++++"));
	free(out);
	out = render_view("csv", &set, &t);
	/* seq-stat of the first line: empty figures, never 0. */
	assert_non_null(
		strstr(out, "\nseq-stat,run,ops/s,sys26 (line 1),,,,,0,0,,0,not-measured,\n"));
	assert_non_null(strstr(out, ",single-run,\n"));
	free(out);
	out = render_view("json", &set, &t);
	j = parse(out);
	free(out);
	{
		struct json_object *rows, *row, *cells, *cell, *v, *inputs, *src;

		assert_true(json_object_object_get_ex(j, "rows", &rows));
		for (size_t r = 0; r < json_object_array_length(rows); r++) {
			row = json_object_array_get_idx(rows, r);
			json_object_object_get_ex(row, "cells", &cells);
			for (size_t c = 0; c < json_object_array_length(cells); c++) {
				cell = json_object_array_get_idx(cells, c);
				if (!cell || !json_object_object_get_ex(cell, "not_measured", &v))
					continue;
				/* No number where there is no figure, and no ratio. */
				assert_true(json_object_object_get_ex(cell, "median", &v));
				assert_null(v);
				assert_false(json_object_object_get_ex(cell, "ratio", &v));
				json_object_object_get_ex(cell, "verdict", &v);
				assert_string_equal(json_object_get_string(v), "not-measured");
			}
		}
		json_object_object_get_ex(j, "inputs", &inputs);
		json_object_object_get_ex(json_object_array_get_idx(inputs, 2), "sources", &src);
		src = json_object_array_get_idx(src, 0);
		assert_true(json_object_object_get_ex(src, "imported", &v));
		assert_true(json_object_get_boolean(v));
		json_object_object_get_ex(src, "tool", &v);
		assert_string_equal(json_object_get_string(v), "fio 3.33");
	}
	json_object_put(j);
	fsb_compare_table_release(&t);
	fsb_compare_set_release(&set);
	free(refs);
	free(fio);
}

static void html_marks_imports(void **state)
{
	char *refs = reference_lines("sys26,"), why[256], *page = NULL;
	struct fsb_compare_set set = { 0 };
	size_t len = 0;
	FILE *f;
	(void)state;

	assert_int_equal(
		fsb_compare_set_add_buffer(&set, refs, strlen(refs), "refs.csv", why, sizeof(why)),
		0);
	f = open_memstream(&page, &len);
	assert_non_null(f);
	assert_int_equal(
		fsb_html_write(f, fsb_compare_set_docs(&set), fsb_compare_set_labels(&set), set.n),
		0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(page, "<span class=\"badge imp\">imported</span>"));
	assert_non_null(strstr(page, "bonnie++ 1.03 CSV, line 2 of refs.csv"));
	/* seq-stat: words in the table and in the chart, no bar, no number. */
	assert_non_null(strstr(page, "<td class=\"num nm\">+++++ (under 0.5 s)</td>"));
	assert_non_null(strstr(page, "<svg class=\"chart\" data-test=\"seq-stat\""));
	{
		const char *chart = strstr(page, "data-test=\"seq-stat\"");
		const char *end = strstr(chart, "</svg>");

		assert_non_null(strstr(chart, "class=\"nm\""));
		for (const char *p = strstr(chart, "<rect"); p && p < end;
		     p = strstr(p + 1, "<rect"))
			fail_msg("a bar in a chart of figures that were not measured");
	}
	assert_non_null(strstr(page, "(single run)"));
	fsb_compare_set_release(&set);
	free(page);
	free(refs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bonnie_103_reference),
		cmocka_unit_test(bonnie_198_reference),
		cmocka_unit_test(bonnie_200a_line),
		cmocka_unit_test(bonnie_fsbench_csv_view),
		cmocka_unit_test(bonnie_layouts_and_noise),
		cmocka_unit_test(bonnie_103_fields),
		cmocka_unit_test(bonnie_refusals),
		cmocka_unit_test(sniff_by_content),
		cmocka_unit_test(fio_jobs),
		cmocka_unit_test(fio_repeats_merge),
		cmocka_unit_test(fio_copies_combine),
		cmocka_unit_test(fio_refusals),
		cmocka_unit_test(fio_zero_is_not_measured),
		cmocka_unit_test(compare_single_and_unmeasured),
		cmocka_unit_test(set_of_imports),
		cmocka_unit_test(html_marks_imports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
