/*
 * Unit tests: compare's significance rule and ratios, the comparison table,
 * reading inputs (matrix expansion, labels, refusals), and the HTML report
 * (escaping of everything from the documents, one chart per test).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "report/compare.h"
#include "report/html.h"
#include "report/html_out.h"
#include "report/result.h"
#include "util/units.h"

/* ---- fabricated results ---------------------------------------------------- */

static struct fsb_test_result fig(const char *unit, double *runs, size_t n)
{
	struct fsb_test_result t;

	memset(&t, 0, sizeof(t));
	t.unit = (char *)unit;
	assert_int_equal(fsb_test_set_runs(&t, runs, n), 0);
	return t;
}

static void fig_free(struct fsb_test_result *t)
{
	free(t->runs);
}

static void add(struct fsb_result *r, const char *id, const char *unit, double a, double b,
		double c)
{
	const double runs[] = { a, b, c };
	struct fsb_test_result *t = fsb_result_add_test(r, id, unit);

	assert_non_null(t);
	assert_int_equal(fsb_test_set_runs(t, runs, 3), 0);
	t->has_latency = true;
	t->latency =
		(struct fsb_latency){ .p50_us = 12, .p99_us = 140, .p999_us = 900, .max_us = 4200 };
}

static void make_run(struct fsb_result *r, const char *label, double scale)
{
	assert_int_equal(fsb_result_init(r, "run"), 0);
	assert_int_equal(fsb_strset(&r->setup.label, label), 0);
	assert_int_equal(fsb_strset(&r->setup.fs_type, "ext4"), 0);
	assert_int_equal(fsb_strset(&r->host.kernel, "6.1.0"), 0);
	assert_int_equal(fsb_result_param_u64(r, "size_bytes", 4u << 20), 0);
	assert_int_equal(fsb_result_param_u64(r, "repeat", 3), 0);
	assert_int_equal(fsb_result_param_str(r, "cache", "drop"), 0);
	add(r, "write", "B/s", 100e6 * scale, 110e6 * scale, 105e6 * scale);
	add(r, "read", "B/s", 300e6 * scale, 290e6 * scale, 310e6 * scale);
	add(r, "seq-create", "ops/s", 5000 * scale, 5100 * scale, 4900 * scale);
}

static void make_lifecycle(struct fsb_result *r, const char *label)
{
	assert_int_equal(fsb_result_init(r, "lifecycle"), 0);
	assert_int_equal(fsb_strset(&r->setup.label, label), 0);
	assert_int_equal(fsb_strset(&r->setup.fill, "0xff"), 0);
	add(r, "read", "s", 0.8, 0.9, 0.85);
	add(r, "mkfs", "s", 0.17, 0.18, 0.179);
	add(r, "write", "s", 1.5, 1.6, 1.55);
}

/* ---- the rule ---------------------------------------------------------------- */

static void significance_rule(void **state)
{
	double a_runs[] = { 100, 110, 105 }, b_runs[] = { 108, 120, 115 },
	       c_runs[] = { 120, 130, 125 }, one[] = { 200 }, one_b[] = { 100 };
	struct fsb_test_result a = fig("B/s", a_runs, 3), b = fig("B/s", b_runs, 3),
			       c = fig("B/s", c_runs, 3), d = fig("B/s", one, 1),
			       e = fig("B/s", one_b, 1);
	(void)state;

	/* [100,110] and [108,120] overlap: not significant, either way round. */
	assert_false(fsb_compare_significant(&a, &b));
	assert_false(fsb_compare_significant(&b, &a));
	/* [100,110] and [120,130] do not: significant. */
	assert_true(fsb_compare_significant(&a, &c));
	assert_true(fsb_compare_significant(&c, &a));
	/* Touching ranges overlap. */
	c.min = 110;
	assert_false(fsb_compare_significant(&a, &c));
	c.min = 120;
	/* A single run has no spread: never significant, however far apart. */
	assert_false(fsb_compare_significant(&d, &e));
	assert_false(fsb_compare_significant(&a, &d));
	assert_false(fsb_compare_significant(NULL, &a));
	/* A hostile min > max cannot manufacture a win. */
	b.min = 200;
	b.max = 50;
	assert_false(fsb_compare_significant(&a, &b));
	fig_free(&a);
	fig_free(&b);
	fig_free(&c);
	fig_free(&d);
	fig_free(&e);
}

/* --repeat auto: whether the 95% intervals of the means overlap. */
static void interval_overlap_rule(void **state)
{
	struct fsb_test_result a = { .has_ci = true, .ci95_low = 100, .ci95_high = 110 };
	struct fsb_test_result b = { .has_ci = true, .ci95_low = 108, .ci95_high = 120 };
	struct fsb_test_result c = { .has_ci = true, .ci95_low = 111, .ci95_high = 120 };
	struct fsb_test_result none = { .median = 105 };
	(void)state;

	assert_int_equal(fsb_compare_ci_overlap(&a, &b), 1);
	assert_int_equal(fsb_compare_ci_overlap(&b, &a), 1);
	assert_int_equal(fsb_compare_ci_overlap(&a, &c), 0);
	assert_int_equal(fsb_compare_ci_overlap(&c, &a), 0);
	c.ci95_low = 110; /* touching intervals overlap */
	assert_int_equal(fsb_compare_ci_overlap(&a, &c), 1);
	/* a figure without an interval (a fixed --repeat, an import): no answer */
	assert_int_equal(fsb_compare_ci_overlap(&a, &none), -1);
	assert_int_equal(fsb_compare_ci_overlap(NULL, &a), -1);
}

static void ratio_and_direction(void **state)
{
	double r1[] = { 100, 100, 100 }, r2[] = { 200, 210, 190 }, t1[] = { 2.0, 2.1, 1.9 },
	       t2[] = { 1.0, 1.05, 0.95 }, z[] = { 0, 0 };
	struct fsb_test_result slow = fig("B/s", r1, 3), fast = fig("B/s", r2, 3),
			       long_t = fig("s", t1, 3), short_t = fig("s", t2, 3),
			       zero = fig("B/s", z, 2);
	char buf[32];
	(void)state;

	/* Rates: higher is faster. */
	assert_true(fabs(fsb_compare_ratio(&slow, &fast) - 2.0) < 1e-9);
	assert_int_equal(fsb_compare_verdict(&slow, &fast), FSB_CMP_BETTER);
	assert_string_equal(fsb_compare_ratio_text(&slow, &fast, buf, sizeof(buf)), "2.00x faster");
	assert_string_equal(fsb_compare_ratio_text(&fast, &slow, buf, sizeof(buf)), "2.00x slower");
	/* Times: less is faster, and the ratio still reads "above 1 is faster". */
	assert_true(fsb_compare_lower_is_better("s"));
	assert_false(fsb_compare_lower_is_better("B/s"));
	assert_true(fabs(fsb_compare_ratio(&long_t, &short_t) - 2.0) < 1e-9);
	assert_int_equal(fsb_compare_verdict(&long_t, &short_t), FSB_CMP_BETTER);
	assert_string_equal(fsb_compare_ratio_text(&long_t, &short_t, buf, sizeof(buf)),
			    "2.00x faster");
	assert_string_equal(fsb_compare_ratio_text(&short_t, &long_t, buf, sizeof(buf)),
			    "2.00x slower");
	/* Within the spread: "~" and no direction. */
	assert_int_equal(fsb_compare_verdict(&slow, &slow), FSB_CMP_SAME);
	assert_string_equal(fsb_compare_ratio_text(&slow, &slow, buf, sizeof(buf)), "~1.00x");
	/* Nothing to divide by, or apples and oranges: no ratio. */
	assert_true(isnan(fsb_compare_ratio(&zero, &fast)));
	assert_true(isnan(fsb_compare_ratio(&slow, &long_t)));
	assert_int_equal(fsb_compare_verdict(&slow, &long_t), FSB_CMP_NONE);
	assert_string_equal(fsb_compare_ratio_text(&slow, NULL, buf, sizeof(buf)), "-");
	fig_free(&slow);
	fig_free(&fast);
	fig_free(&long_t);
	fig_free(&short_t);
	fig_free(&zero);
}

static void values_scale_like_the_text_view(void **state)
{
	char buf[32];
	double div;
	(void)state;

	assert_string_equal(fsb_unit_format("B/s", 512.0 * 1048576, buf, sizeof(buf)), "512 MiB/s");
	assert_string_equal(fsb_unit_format("B/s", 1.5 * 1073741824, buf, sizeof(buf)),
			    "1.50 GiB/s");
	assert_string_equal(fsb_unit_format("ops/s", 12345, buf, sizeof(buf)), "12.3 k/s");
	assert_string_equal(fsb_unit_format("s", 0.179, buf, sizeof(buf)), "0.179 s");
	assert_string_equal(fsb_unit_format("s", NAN, buf, sizeof(buf)), "0.00 µs");
	assert_string_equal(fsb_unit_format_us(1200, buf, sizeof(buf)), "1.20 ms");
	assert_string_equal(fsb_unit_axis("B/s", 300e6, &div), "MiB/s");
	assert_true(div == 1048576);
	assert_string_equal(fsb_unit_axis("s", 0.5, &div), "ms");
	assert_string_equal(fsb_unit_axis("ops/s", 5000, &div), "k ops/s");
}

/* ---- the table ---------------------------------------------------------------- */

static void table_rows_and_columns(void **state)
{
	struct fsb_result a, b, life;
	const struct fsb_result *docs[3] = { &a, &life, &b };
	/* a and its lifecycle share the label "xfs": one column. */
	const char *labels[3] = { "xfs", "xfs", "ext4" };
	struct fsb_compare_table t;
	(void)state;

	make_run(&a, "xfs", 1.0);
	make_lifecycle(&life, "xfs");
	make_run(&b, "ext4", 2.0);
	/* An id fsbench does not know goes after the known ones. */
	add(&b, "zz-new", "ops/s", 1, 2, 3);
	assert_int_equal(fsb_compare_table_build(&t, docs, labels, 3), 0);
	assert_int_equal(t.ncols, 2);
	assert_string_equal(t.cols[0].label, "xfs");
	assert_string_equal(t.cols[1].label, "ext4");
	/* write read seq-create zz-new (run), then mkfs write read (lifecycle). */
	assert_int_equal(t.nrows, 7);
	assert_string_equal(t.rows[0].id, "write");
	assert_string_equal(t.rows[1].id, "read");
	assert_string_equal(t.rows[2].id, "seq-create");
	assert_string_equal(t.rows[3].id, "zz-new");
	assert_string_equal(t.rows[4].id, "mkfs");
	assert_string_equal(t.rows[5].kind, "lifecycle");
	assert_string_equal(t.rows[5].id, "write");
	/* Same id, other kind: the name says which. */
	assert_string_equal(t.rows[0].name, "write");
	assert_string_equal(t.rows[5].name, "write (lifecycle)");
	assert_string_equal(t.rows[4].name, "mkfs");
	/* Cells: the lifecycle write (seconds) never lands in the B/s row. */
	assert_ptr_equal(fsb_compare_cell(&t, 0, 0), fsb_result_find(&a, "write"));
	assert_string_equal(fsb_compare_cell(&t, 5, 0)->unit, "s");
	assert_null(fsb_compare_cell(&t, 5, 1));
	assert_null(fsb_compare_cell(&t, 3, 0));
	assert_non_null(fsb_compare_cell(&t, 3, 1));
	/* ext4 is twice as fast and the ranges are apart. */
	assert_int_equal(
		fsb_compare_verdict(fsb_compare_cell(&t, 0, 0), fsb_compare_cell(&t, 0, 1)),
		FSB_CMP_BETTER);
	fsb_compare_table_release(&t);
	fsb_compare_table_release(&t); /* idempotent */
	fsb_result_release(&a);
	fsb_result_release(&b);
	fsb_result_release(&life);
}

static void set_ci(struct fsb_result *r, const char *id, double lo, double hi)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (!strcmp(r->tests[i].id, id)) {
			r->tests[i].has_ci = true;
			r->tests[i].ci95_low = lo;
			r->tests[i].ci95_high = hi;
		}
}

/* Two --repeat auto results side by side: the text view says, per figure,
 * whether the intervals overlap; the json view has them per cell; without
 * intervals neither says anything. */
static void compare_auto_intervals(void **state)
{
	struct fsb_result a, b;
	struct fsb_result *docs[2] = { &a, &b };
	char *labels[2] = { "one", "two" }, *sources[2] = { "a.json", "b.json" };
	const struct fsb_result *cdocs[2] = { &a, &b };
	const char *clabels[2] = { "one", "two" };
	struct fsb_compare_set set = { .docs = docs, .labels = labels, .sources = sources, .n = 2 };
	struct fsb_compare_table t;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	(void)state;

	make_run(&a, "one", 1.0);
	make_run(&b, "two", 1.02);
	assert_int_equal(fsb_compare_table_build(&t, cdocs, clabels, 2), 0);
	f = open_memstream(&out, &len);
	assert_int_equal(fsb_compare_write_text(f, &set, &t), 0);
	fclose(f);
	assert_null(strstr(out, "confidence"));
	free(out);
	fsb_compare_table_release(&t);

	/* write: [100, 110] and [101, 112] MB/s overlap; read: apart. */
	set_ci(&a, "write", 100e6, 110e6);
	set_ci(&b, "write", 101e6, 112e6);
	set_ci(&a, "read", 290e6, 300e6);
	set_ci(&b, "read", 305e6, 315e6);
	assert_int_equal(fsb_compare_table_build(&t, cdocs, clabels, 2), 0);
	f = open_memstream(&out, &len);
	assert_int_equal(fsb_compare_write_text(f, &set, &t), 0);
	fclose(f);
	assert_non_null(strstr(out, "95% confidence intervals of the means (--repeat auto)"));
	assert_non_null(strstr(out, "\n  write, two: [95.4 – 105 MiB/s] and [96.3 – 107 MiB/s] "
				    "overlap (the runs cannot tell the means apart)\n"));
	assert_non_null(strstr(out, "\n  read, two: [277 – 286 MiB/s] and [291 – 300 MiB/s] do "
				    "not overlap: the means differ at 95%\n"));
	assert_null(strstr(out, "seq-create, two"));
	free(out);
	f = open_memstream(&out, &len);
	assert_int_equal(fsb_compare_write_json(f, &set, &t), 0);
	fclose(f);
	assert_non_null(strstr(out, "\"ci_overlap\":true"));
	assert_non_null(strstr(out, "\"ci_overlap\":false"));
	free(out);
	fsb_compare_table_release(&t);
	fsb_result_release(&a);
	fsb_result_release(&b);
}

/* ---- inputs -------------------------------------------------------------------- */

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/fsbench-test-html.XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

#define DOC(label, kind, unit)                                                              \
	"{\"format_version\":1,\"tool\":\"fsbench\",\"kind\":\"" kind "\","                 \
	"\"setup\":{\"label\":\"" label "\"},\"tests\":[{\"id\":\"write\",\"unit\":\"" unit \
	"\",\"median\":2,\"min\":1,\"max\":3,\"runs\":[1,2,3]}]}"

static void set_expands_matrix(void **state)
{
	char *m = write_tmp(
		"{\"format_version\":1,\"kind\":\"matrix\",\"setups\":["
		"{\"label\":\"ext2\",\"config\":{},\"results\":[" DOC("x", "run", "B/s") "," DOC(
			"x", "lifecycle",
			"s") "]},"
			     "{\"label\":\"ext3\",\"results\":[" DOC("y", "run", "B/s") "]}]}");
	char *r = write_tmp(DOC("ext2", "run", "B/s"));
	struct fsb_compare_set s = { 0 };
	(void)state;

	assert_int_equal(fsb_compare_set_load(&s, m), 0);
	assert_int_equal(s.n, 3);
	/* The setup's label, not the embedded document's. */
	assert_string_equal(s.labels[0], "ext2");
	assert_string_equal(s.labels[1], "ext2");
	assert_string_equal(s.labels[2], "ext3");
	assert_string_equal(s.docs[1]->kind, "lifecycle");
	/* Another "ext2" run from another file gets a distinct column. */
	assert_int_equal(fsb_compare_set_load(&s, r), 0);
	assert_int_equal(s.n, 4);
	assert_true(strncmp(s.labels[3], "ext2 (fsbench-test-html.", 24) == 0);
	fsb_compare_set_release(&s);
	unlink(m);
	unlink(r);
	free(m);
	free(r);
}

static void set_refuses_bad_files(void **state)
{
	static const char *const bad[] = {
		"not json at all",
		"{\"format_version\":1,\"tool\":\"fsbench\",\"kind\":\"run\",\"tests\":[",
		"{\"format_version\":1,\"tool\":\"bonnie\",\"kind\":\"run\",\"tests\":[]}",
		"{\"format_version\":99,\"tool\":\"fsbench\",\"kind\":\"run\",\"tests\":[]}",
		"{\"format_version\":99,\"kind\":\"matrix\",\"setups\":[]}",
		"{\"format_version\":1,\"kind\":\"matrix\",\"setups\":{}}",
		"{\"format_version\":1,\"kind\":\"matrix\",\"setups\":[{\"results\":[{}]}]}",
		"{\"format_version\":1,\"kind\":\"matrix\",\"setups\":"
		"[{\"label\":\"a\",\"results\":[]}]}",
		"{\"format_version\":1,\"kind\":\"matrix\",\"setups\":[7]}",
		"",
	};
	struct fsb_compare_set s = { 0 };
	char *good = write_tmp(DOC("a", "run", "B/s"));
	int saved, null;
	(void)state;

	assert_int_equal(fsb_compare_set_load(&s, good), 0);
	/* The refusals are described on stderr; keep the TAP output clean. */
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY);
	assert_true(saved >= 0 && null >= 0);
	dup2(null, STDERR_FILENO);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *p = write_tmp(bad[i]);

		assert_int_equal(fsb_compare_set_load(&s, p), -EINVAL);
		/* A refused file leaves what was loaded before untouched. */
		assert_int_equal(s.n, 1);
		unlink(p);
		free(p);
	}
	assert_int_equal(fsb_compare_set_load(&s, "/nonexistent/x.json"), -ENOENT);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(null);
	fsb_compare_set_release(&s);
	unlink(good);
	free(good);
}

/* ---- html ---------------------------------------------------------------------- */

static char *render(const struct fsb_result *const *docs, const char *const *labels, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fsb_html_write(f, docs, labels, n), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static bool contains_nocase(const char *hay, const char *needle)
{
	for (const char *p = hay; *p; p++)
		if (!strncasecmp(p, needle, strlen(needle)))
			return true;
	return false;
}

/*
 * An attribute such as onerror= or onload= inside a tag. Text cannot hold
 * a '<' (it is escaped), so every '<' starts a real tag; inside it, a
 * quoted value cannot hold a quote (escaped too), so what is between
 * quotes is a value, not an attribute, and is skipped.
 */
static bool has_event_handler(const char *page)
{
	for (const char *lt = page; (lt = strchr(lt, '<')); lt++) {
		const char *gt = strchr(lt, '>');
		bool quoted = false;

		if (!gt)
			return false;
		for (const char *p = lt; p < gt; p++) {
			const char *q = p + 3;

			if (*p == '"')
				quoted = !quoted;
			if (quoted || strncmp(p, " on", 3))
				continue;
			while (q < gt && *q >= 'a' && *q <= 'z')
				q++;
			if (q > p + 3 && *q == '=')
				return true;
		}
	}
	return false;
}

static void html_escapes_everything(void **state)
{
	struct fsb_result a, b;
	const struct fsb_result *docs[2] = { &a, &b };
	const char *labels[2] = { "<script>alert(1)</script>", "a&b \"q\" 'x'" };
	char *page;
	(void)state;

	make_run(&a, labels[0], 1.0);
	make_run(&b, labels[1], 1.5);
	/* Hostile strings in every place a document can hold one. */
	assert_int_equal(fsb_strset(&a.setup.fs_type, "<img src=x onerror=alert(2)>"), 0);
	assert_int_equal(fsb_strset(&a.host.cpu, "</title><script>"), 0);
	assert_int_equal(fsb_result_param_str(&a, "cache", "<SCRIPT>"), 0);
	assert_int_equal(fsb_result_param_str(&a, "<script>k", "v"), 0);
	add(&a, "\"><script>x</script>", "B/s", 1, 2, 3);
	page = render(docs, labels, 2);

	assert_false(contains_nocase(page, "<script"));
	assert_null(strstr(page, "<img"));
	assert_false(has_event_handler(page));
	assert_null(strstr(page, "http://"));
	assert_null(strstr(page, "https://"));
	assert_non_null(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(page, "a&amp;b &quot;q&quot; &#39;x&#39;"));
	assert_non_null(strstr(page, "data-test=\"&quot;&gt;&lt;script&gt;x&lt;/script&gt;\""));
	assert_true(strncmp(page, "<!DOCTYPE html>", 15) == 0);
	assert_non_null(strstr(page, "</html>\n"));
	free(page);
	fsb_result_release(&a);
	fsb_result_release(&b);
}

/* --repeat auto: a figure's interval under its value, the stop reason from
 * the document escaped like every string; a figure without one has none. */
static void html_auto_intervals(void **state)
{
	struct fsb_result a, b;
	const struct fsb_result *docs[2] = { &a, &b };
	const char *labels[2] = { "one", "two" };
	char *page;
	(void)state;

	make_run(&a, "one", 1.0);
	make_run(&b, "two", 1.1);
	set_ci(&a, "write", 100e6, 110e6);
	for (size_t i = 0; i < a.ntests; i++)
		if (!strcmp(a.tests[i].id, "write"))
			assert_int_equal(fsb_strset(&a.tests[i].repeat_stop, "<b>converged"), 0);
	page = render(docs, labels, 2);
	/* 5e6 either side of 105e6: +-4.8% */
	assert_non_null(strstr(
		page, "<span class=\"ci\">mean ±4.8% (95% CI, 3 runs, &lt;b&gt;converged)</span>"));
	assert_int_equal(count(page, "<span class=\"ci\">"), 1);
	assert_false(contains_nocase(page, "<b>"));
	free(page);
	fsb_result_release(&a);
	fsb_result_release(&b);
}

/* What one html_out session wrote, and its finish status in *err. */
struct session {
	char *buf;
	size_t len;
	FILE *f;
	struct fsb_html_out w;
};

static void session_start(struct session *s)
{
	s->buf = NULL;
	s->f = open_memstream(&s->buf, &s->len);
	assert_non_null(s->f);
	fsb_html_out_init(&s->w, s->f);
}

static int session_end(struct session *s)
{
	int err = fsb_html_out_finish(&s->w);

	assert_int_equal(fclose(s->f), 0);
	return err;
}

/* Whether any attribute value of any tag holds "nan" or "inf". */
static bool nonfinite_in_markup(const char *page)
{
	for (const char *lt = page; (lt = strchr(lt, '<')); lt++) {
		const char *gt = strchr(lt, '>');

		if (!gt)
			return false;
		for (const char *p = lt; p < gt; p++)
			if (!strncasecmp(p, "nan", 3) || !strncasecmp(p, "inf", 3))
				return true;
	}
	return false;
}

static void html_hostile_unit_and_numbers(void **state)
{
	static const char img[] = "<img src=x onerror=alert(1)>";
	struct fsb_result a, b;
	const struct fsb_result *docs[2] = { &a, &b };
	const char *labels[2] = { img, "plain" };
	struct fsb_test_result *t;
	char *page;
	(void)state;

	make_run(&a, img, 1.0);
	make_run(&b, "plain", 2.0);
	/* The unit goes into table cells, tooltips and the axis; the id into
	 * data-test and titles; params into the parameter table. */
	add(&a, img, img, 1, 2, 3);
	add(&b, img, img, 4, 5, 6);
	assert_int_equal(fsb_strset(&a.tests[0].unit, img), 0);
	assert_int_equal(fsb_strset(&b.tests[0].unit, img), 0);
	assert_int_equal(fsb_result_param_str(&a, img, img), 0);
	assert_int_equal(fsb_result_param_str(&b, "cache", img), 0);
	assert_int_equal(fsb_strset(&a.setup.mount_options, img), 0);
	assert_int_equal(fsb_strset(&a.host.hostname, img), 0);
	/* Figures no measurement gives: they must not reach the SVG. */
	t = &a.tests[1];
	t->median = NAN;
	t->min = -INFINITY;
	t->max = INFINITY;
	t = &b.tests[1];
	t->median = 1.7e308;
	t->max = 1.7976931348623157e308;
	a.tests[2].cpu_pct = NAN;
	a.tests[2].latency.p99_us = INFINITY;

	page = render(docs, labels, 2);
	assert_null(strstr(page, "<img"));
	assert_false(has_event_handler(page));
	assert_non_null(strstr(page, "&lt;img src=x onerror=alert(1)&gt;"));
	assert_false(nonfinite_in_markup(page));
	assert_non_null(strstr(page, "</html>\n"));
	free(page);
	fsb_result_release(&a);
	fsb_result_release(&b);
}

static void html_escape_function(void **state)
{
	struct session s;
	(void)state;

	session_start(&s);
	/* Controls, a lone continuation byte, an overlong '<' and a surrogate. */
	fsb_html_text(&s.w, "a\x1b[1m\x80<\xc0\xbc\xed\xa0\x80 µ&");
	fsb_html_text(&s.w, NULL);
	assert_int_equal(session_end(&s), 0);
	assert_string_equal(s.buf, "a\xef\xbf\xbd[1m\xef\xbf\xbd&lt;\xef\xbf\xbd\xef\xbf\xbd"
				   "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd µ&amp;");
	free(s.buf);

	/* The five characters that matter, in text and in attributes. */
	session_start(&s);
	fsb_html_lit(&s.w, "<p title=\"");
	fsb_html_attr(&s.w, "<>&\"'");
	fsb_html_lit(&s.w, "\">");
	fsb_html_text(&s.w, "<>&\"'");
	fsb_html_textf(&s.w, "|%s|%d", "<b>", 5);
	fsb_html_lit(&s.w, "</p>");
	assert_int_equal(session_end(&s), 0);
	assert_string_equal(s.buf, "<p title=\"&lt;&gt;&amp;&quot;&#39;\">&lt;&gt;&amp;&quot;&#39;"
				   "|&lt;b&gt;|5</p>");
	free(s.buf);

	/* Cut text ends in an ellipsis; a short one is whole. */
	session_start(&s);
	fsb_html_text_cut(&s.w, "abcdef", 4);
	fsb_html_text_cut(&s.w, "<ab", 4);
	assert_int_equal(session_end(&s), 0);
	assert_string_equal(s.buf, "abc…&lt;ab");
	free(s.buf);
}

static void html_markup_numbers_only(void **state)
{
	struct session s;
	(void)state;

	/* Numbers of every width; NaN and infinities draw at 0. */
	session_start(&s);
	fsb_html_markupf(&s.w,
			 "<rect x=\"%.1f\" y=\"%d\" w=\"%zu\" h=\"%llu\" a=\"%g\" b=\"%5.2f\" "
			 "c=\"%x\" d=\"%ld\" e=\"%%\"/>",
			 NAN, -3, (size_t)7, 8ULL, INFINITY, -INFINITY, 255u, -9L);
	assert_int_equal(session_end(&s), 0);
	assert_string_equal(s.buf, "<rect x=\"0.0\" y=\"-3\" w=\"7\" h=\"8\" a=\"0\" b=\" 0.00\" "
				   "c=\"ff\" d=\"-9\" e=\"%\"/>");
	free(s.buf);

	/* A string conversion in markup is refused: nothing written, -EINVAL
	 * (format-checked, so a %s still needs a string argument). */
	session_start(&s);
	fsb_html_lit(&s.w, "<td>");
	fsb_html_markupf(&s.w, "<td class=\"%s\">", "x\"><img src=x onerror=alert(1)>");
	fsb_html_text(&s.w, "after");
	assert_int_equal(session_end(&s), -EINVAL);
	assert_string_equal(s.buf, "<td>");
	free(s.buf);

	session_start(&s);
	fsb_html_markupf(&s.w, "%c", 'x');
	assert_int_equal(session_end(&s), -EINVAL);
	free(s.buf);
}

static void html_one_chart_per_test(void **state)
{
	struct fsb_result a, b, life;
	const struct fsb_result *docs[3] = { &a, &b, &life };
	const char *labels[3] = { "xfs", "ext4", "ext4" };
	char *page;
	(void)state;

	make_run(&a, "xfs", 1.0);
	make_run(&b, "ext4", 0.5);
	make_lifecycle(&life, "ext4");
	page = render(docs, labels, 3);
	/* 3 run tests + 3 lifecycle phases, one svg.chart each. */
	assert_int_equal(count(page, "<svg class=\"chart\""), 6);
	assert_int_equal(count(page, "<svg"), 6);
	assert_int_equal(count(page, "data-test=\"seq-create\" data-kind=\"run\""), 1);
	assert_int_equal(count(page, "data-test=\"write\" data-kind=\"run\""), 1);
	assert_int_equal(count(page, "data-test=\"write\" data-kind=\"lifecycle\""), 1);
	assert_int_equal(count(page, "data-test=\"mkfs\" data-kind=\"lifecycle\""), 1);
	/* Sections that apply are there; the page runs and fetches nothing. */
	assert_non_null(strstr(page, "id=\"lifecycle\""));
	assert_non_null(strstr(page, "id=\"latency\""));
	assert_non_null(strstr(page, "How measured"));
	assert_non_null(strstr(page, "@media print"));
	assert_false(contains_nocase(page, "<script"));
	assert_false(has_event_handler(page));
	/* ext4 is twice as slow on every run test, and the ranges are apart. */
	assert_int_equal(count(page, "2.00x slower"), 3);
	free(page);

	/* No lifecycle input: no lifecycle section. */
	page = render(docs, labels, 2);
	assert_int_equal(count(page, "<svg class=\"chart\""), 3);
	assert_null(strstr(page, "id=\"lifecycle\""));
	free(page);
	fsb_result_release(&a);
	fsb_result_release(&b);
	fsb_result_release(&life);
}

/* Give every test of r a latency histogram of n operations around ns. */
static void give_hist(struct fsb_result *r, uint64_t ns, unsigned n)
{
	struct fsb_hist *h = malloc(sizeof(*h));

	assert_non_null(h);
	for (size_t i = 0; i < r->ntests; i++) {
		fsb_hist_init(h);
		for (unsigned k = 0; k < n; k++)
			fsb_hist_add(h, ns + k * 37);
		fsb_hist_add(h, ns * 100); /* a slow tail */
		assert_int_equal(fsb_test_set_hist(&r->tests[i], h), 0);
	}
	free(h);
}

/*
 * The pictures: a CDF per run test with a histogram, a strip of every run
 * per test, a bar per job; an input without a histogram says so; a page
 * of documents without histograms is the page it was.
 */
static void html_pictures(void **state)
{
	struct fsb_result a, b, imp;
	const struct fsb_result *docs[3] = { &a, &b, &imp };
	const char *labels[3] = { "xfs", "ext4", "old <b>" };
	const double jobs[2 * 3] = { 50e6, 52e6, 51e6, 20e6, 21e6, 19e6 };
	char *page, *before;

	(void)state;
	make_run(&a, "xfs", 1.0);
	make_run(&b, "ext4", 0.5);
	make_run(&imp, "old <b>", 0.7);
	assert_int_equal(fsb_strset(&imp.source, "bonnie++ 2.00a CSV, line 1 of x.csv"), 0);
	before = render(docs, labels, 3);
	assert_int_equal(count(before, "<svg class=\"pic\""), 0);
	assert_null(strstr(before, "no latency histogram"));

	give_hist(&a, 20000, 500);
	give_hist(&b, 90000, 300);
	assert_int_equal(fsb_test_set_jobs(&a.tests[0], jobs, 2, NULL), 0);
	page = render(docs, labels, 3);
	/* 3 run tests: 3 CDFs, 3 strips; one test of xfs had 2 jobs. */
	assert_int_equal(count(page, "<svg class=\"pic\" data-chart=\"cdf\""), 3);
	assert_int_equal(count(page, "<svg class=\"pic\" data-chart=\"strip\""), 3);
	assert_int_equal(count(page, "<svg class=\"pic\" data-chart=\"jobs\" data-test=\"write\""),
			 1);
	assert_int_equal(count(page, "<svg class=\"pic\""), 7);
	/* The bar charts are as many as before. */
	assert_int_equal(count(page, "<svg class=\"chart\""),
			 count(before, "<svg class=\"chart\""));
	/* The input without a histogram is named in each CDF's legend, escaped. */
	assert_int_equal(
		count(page, "old &lt;b&gt; <tspan class=\"u nohist\">no latency histogram"), 3);
	assert_null(strstr(page, "old <b>"));
	/* Two curves per CDF, 9 dots per strip (3 inputs x 3 runs). */
	assert_int_equal(count(page, "<path class=\"cdf\""), 6);
	assert_int_equal(count(page, "<circle class=\"run\""), 27);
	/* Job 1 is the straggler. */
	assert_int_equal(count(page, "<rect class=\"job\""), 2);
	assert_int_equal(count(page, "class=\"nz\">slowest"), 1);
	assert_non_null(strstr(page, "19.1 MiB/s <tspan class=\"nz\">slowest"));
	assert_false(contains_nocase(page, "<script"));
	assert_false(has_event_handler(page));
	free(page);
	free(before);

	/* Hostile figures and the extreme buckets draw, never break the page. */
	a.tests[1].runs[0] = NAN;
	a.tests[1].runs[1] = -5;
	a.tests[1].runs[2] = INFINITY;
	{
		struct fsb_hist_bucket edge[2] = { { 0, 1 },
						   { FSB_HIST_BUCKETS - 1, UINT64_MAX - 1 } };

		assert_int_equal(fsb_test_set_hist_buckets(&a.tests[1], edge, 2), 0);
	}
	page = render(docs, labels, 3);
	assert_null(strstr(page, "nan"));
	assert_null(strstr(page, "inf\""));
	free(page);
	fsb_result_release(&a);
	fsb_result_release(&b);
	fsb_result_release(&imp);
}

static void html_refuses_nothing(void **state)
{
	FILE *f = fopen("/dev/null", "w");
	(void)state;

	assert_non_null(f);
	assert_int_equal(fsb_html_write(f, NULL, NULL, 0), -EINVAL);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(significance_rule),
		cmocka_unit_test(interval_overlap_rule),
		cmocka_unit_test(ratio_and_direction),
		cmocka_unit_test(values_scale_like_the_text_view),
		cmocka_unit_test(table_rows_and_columns),
		cmocka_unit_test(compare_auto_intervals),
		cmocka_unit_test(set_expands_matrix),
		cmocka_unit_test(set_refuses_bad_files),
		cmocka_unit_test(html_escapes_everything),
		cmocka_unit_test(html_auto_intervals),
		cmocka_unit_test(html_escape_function),
		cmocka_unit_test(html_markup_numbers_only),
		cmocka_unit_test(html_hostile_unit_and_numbers),
		cmocka_unit_test(html_pictures),
		cmocka_unit_test(html_one_chart_per_test),
		cmocka_unit_test(html_refuses_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
