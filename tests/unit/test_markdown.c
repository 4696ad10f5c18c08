/*
 * The markdown view: hostile strings stay text inside one table cell, and
 * every row of a table has as many cells as its header.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/markdown.h"
#include "report/result.h"
#include "report/views.h"
#include "report/writer.h"

static char *md(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fsb_md_put(f, s), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void escapes_hostile_strings(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "ext4", "ext4" },
		{ "a|b", "a\\|b" },
		{ "two\nlines\r\n", "two lines  " },
		{ "tab\there", "tab here" },
		{ "`code`", "\\`code\\`" },
		{ "**bold** _em_ ~~s~~", "\\*\\*bold\\*\\* \\_em\\_ \\~\\~s\\~\\~" },
		{ "[x](http://e.invalid)", "\\[x\\](http://e.invalid)" },
		{ "![i](x.png)", "\\!\\[i\\](x.png)" },
		{ "<script>alert(1)</script>", "\\<script\\>alert(1)\\</script\\>" },
		{ "&lt;", "\\&lt;" },
		{ "a\\|b", "a\\\\\\|b" },
		{ "# title", "\\# title" },
		{ "- item", "\\- item" },
		{ "+ item", "\\+ item" },
		{ "=== x", "\\=== x" },
		{ ":--", "\\:--" },
		{ "mid-word # x", "mid-word # x" },
		{ "@team", "\\@team" },
		{ "$x$", "\\$x\\$" },
		{ "\x1b[2J", " \\[2J" },
		{ "caf\xc3\xa9 \xc2\xb5s", "caf\xc3\xa9 \xc2\xb5s" },
		{ "bad \xff byte", "bad \xef\xbf\xbd byte" },
		{ "c1 \xc2\x9b", "c1 \xef\xbf\xbd" },
		{ "cut \xe2\x82", "cut \xef\xbf\xbd\xef\xbf\xbd" },
		{ "", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = md(cases[i].in);

		if (strcmp(got, cases[i].out))
			fail_msg("case %zu: got '%s', want '%s'", i, got, cases[i].out);
		free(got);
	}
	{
		char *got = md(NULL);

		assert_string_equal(got, "");
		free(got);
	}
}

/* Cells of a table line: '|' not preceded by an odd run of backslashes. */
static int cells(const char *line, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len; i++) {
		size_t bs = 0;

		if (line[i] != '|')
			continue;
		while (bs < i && line[i - 1 - bs] == '\\')
			bs++;
		n += bs % 2 == 0;
	}
	return n;
}

static void tables_keep_their_shape(void **state)
{
	struct fsb_result r;
	struct fsb_test_result *t;
	const double runs[3] = { 1e6, 2e6, 3e6 };
	char *buf = NULL, *line, *end;
	size_t len = 0;
	int want = -1, rows = 0;
	FILE *f;

	(void)state;
	assert_int_equal(fsb_result_init(&r, "run"), 0);
	assert_int_equal(fsb_strset(&r.setup.label, "evil|label\n| x | y |\\"), 0);
	assert_int_equal(fsb_strset(&r.setup.fs_type, "`ext4`"), 0);
	assert_int_equal(fsb_strset(&r.setup.mount_options, "<b>rw</b>"), 0);
	t = fsb_result_add_test(&r, "wr|ite\n# x", "B/s");
	assert_non_null(t);
	assert_int_equal(fsb_test_set_runs(t, runs, 3), 0);
	t->has_latency = true;
	t->latency.p50_us = 12;
	t->latency.max_us = 400;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fsb_write_markdown(f, &r), 0);
	assert_int_equal(fclose(f), 0);
	assert_null(strstr(buf, "<b>"));
	assert_non_null(strstr(buf, "evil\\|label \\| x \\| y \\|\\\\"));
	assert_non_null(strstr(buf, "wr\\|ite # x"));
	/* Every line of a table has as many cells as the header above it. */
	for (line = buf; *line; line = end + 1) {
		end = strchr(line, '\n');
		assert_non_null(end);
		if (*line != '|') {
			want = -1;
			continue;
		}
		if (want < 0)
			want = cells(line, (size_t)(end - line));
		assert_int_equal(cells(line, (size_t)(end - line)), want);
		rows++;
	}
	/* inputs: header, rule, 1; figures: header, rule, 1; latency: 3 */
	assert_int_equal(rows, 9);
	free(buf);
	/* The registry knows it, for run and lifecycle results. */
	assert_non_null(fsb_view_select("markdown", "run"));
	assert_non_null(fsb_view_select("markdown", "lifecycle"));
	fsb_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escapes_hostile_strings),
		cmocka_unit_test(tables_keep_their_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
