/*
 * The progress printer: the estimate of the time left, the terminal line
 * (rewritten with '\r', cleared at the end) and the JSON lines.
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

#include "core/progress.h"

#define S 1000000000ull

static void eta_from_guess_then_from_tests(void **state)
{
	struct fsb_prog pr;
	char buf[32];

	(void)state;
	/* 4 tests of 3 runs >= 0.5 s: (3 + 2) x 0.5 = 2.5 s each, guessed. */
	fsb_prog_init(&pr, FSB_PROGRESS_NEVER, false, NULL, 4, 3, 0.5, 0);
	assert_false(pr.on);
	assert_true(fabs(fsb_prog_eta_s(&pr, 0) - 10.0) < 1e-9);
	fsb_prog_test_start(&pr, "write", 0);
	/* 1 s into the first test: 1.5 s of it and 3 tests left. */
	assert_true(fabs(fsb_prog_eta_s(&pr, 1 * S) - (1.5 + 7.5)) < 1e-9);
	/* Its second of three runs, 50% done after 2 s: 2 s more of this run,
	 * one 4 s run after it, then the three tests still guessed. */
	fsb_prog_tick(&pr, 2, 3, 50, 1e6, "B/s", 2.0, 5 * S);
	assert_true(fabs(fsb_prog_eta_s(&pr, 5 * S) - (2 + 4 + 7.5)) < 1e-9);
	/* Under FSB_PROG_PACE_PCT the pace is not trusted. */
	fsb_prog_tick(&pr, 3, 3, 1, 1e6, "B/s", 0.01, 6 * S);
	assert_true(fabs(fsb_prog_eta_s(&pr, 6 * S) - 7.5) < 1e-9);
	/* The first test took 8 s: the three left are expected to as well. */
	fsb_prog_test_end(&pr, 0, 8 * S);
	assert_int_equal(pr.ndone, 1);
	assert_true(fabs(fsb_prog_eta_s(&pr, 8 * S) - 24.0) < 1e-9);
	fsb_prog_test_start(&pr, "read", 8 * S);
	fsb_prog_test_end(&pr, 0, 12 * S);
	/* Mean of 8 and 4 s, two tests left. */
	assert_true(fabs(fsb_prog_eta_s(&pr, 12 * S) - 12.0) < 1e-9);
	/* Late in a test: never negative. */
	fsb_prog_test_start(&pr, "seeks", 12 * S);
	assert_true(fsb_prog_eta_s(&pr, 100 * S) >= 6.0);
	assert_string_equal(fsb_prog_duration(42.4, buf, sizeof(buf)), "42s");
	assert_string_equal(fsb_prog_duration(185, buf, sizeof(buf)), "3m05s");
	assert_string_equal(fsb_prog_duration(3720, buf, sizeof(buf)), "1h02m");
	assert_string_equal(fsb_prog_duration(NAN, buf, sizeof(buf)), "0s");
	/* No printer: every call is a no-op. */
	fsb_prog_test_start(NULL, "x", 0);
	fsb_prog_tick(NULL, 1, 1, 1, 1, "B/s", 1, 0);
	fsb_prog_test_end(NULL, 0, 0);
	fsb_prog_done(NULL, 0, 0);
	fsb_prog_note(NULL, NULL, "x");
}

static char *capture(enum fsb_progress mode, bool quiet)
{
	struct fsb_prog pr;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fsb_prog_init(&pr, mode, quiet, "[1/2] a\"b ", 2, 3, 0.5, 0);
	pr.out = f;
	fsb_prog_note(&pr, "a\"b", "[1/2] a\"b: mkfs -t ext4");
	fsb_prog_test_start(&pr, "write", 0);
	fsb_prog_tick(&pr, 1, 3, 40, 100 << 20, "B/s", 1.0, 1 * S);
	fsb_prog_tick(&pr, 1, 3, 60, 100 << 20, "B/s", 1.5, 1 * S + S / 2);
	fsb_prog_tick(&pr, 2, 3, 10, 100 << 20, "B/s", 0.5, 3 * S);
	fsb_prog_test_end(&pr, 0, 4 * S);
	fsb_prog_test_start(&pr, "seeks", 4 * S);
	fsb_prog_tick(&pr, 1, 3, -1, -1, "ops/s", 2.0, 6 * S);
	fsb_prog_test_end(&pr, -EINTR, 7 * S);
	fsb_prog_done(&pr, -EINTR, 7 * S);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void terminal_line(void **state)
{
	char *out = capture(FSB_PROGRESS_ALWAYS, false), *p;

	(void)state;
	/* The note is a whole line; each tick rewrites one line. */
	assert_true(!strncmp(out, "[1/2] a\"b: mkfs -t ext4\n", 24));
	assert_non_null(strstr(out, "\r\033[K[1/2] a\"b write        run 1/3  40%  100 MiB/s  "
				    "test 1/2, ETA "));
	assert_non_null(strstr(out, "\r\033[K[1/2] a\"b seeks        run 1/3  2.0 s  test 2/2, "
				    "ETA "));
	/* No newline after the note: the line is only ever rewritten, and
	 * it ends cleared. */
	assert_null(strchr(out + 24, '\n'));
	p = out + strlen(out) - strlen("\r\033[K");
	assert_string_equal(p, "\r\033[K");
	free(out);
	out = capture(FSB_PROGRESS_ALWAYS, true);
	assert_string_equal(out, "");
	free(out);
	out = capture(FSB_PROGRESS_NEVER, false);
	assert_string_equal(out, "");
	free(out);
}

static void json_lines(void **state)
{
	static const char *const want[] = { "step",	"test-start", "progress",
					    "progress", "test-end",   "test-start",
					    "progress", "test-end",   "done" };
	char *out = capture(FSB_PROGRESS_JSON, false), *line, *save = NULL;
	size_t n = 0;

	(void)state;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		struct json_object *o = json_tokener_parse(line), *v;

		assert_non_null(o);
		assert_true(n < sizeof(want) / sizeof(want[0]));
		assert_true(json_object_object_get_ex(o, "event", &v));
		assert_string_equal(json_object_get_string(v), want[n]);
		if (!strcmp(want[n], "progress") && n == 2) {
			/* The second tick, half a second later, is not written;
			 * the third is. */
			assert_true(json_object_object_get_ex(o, "pct", &v));
			assert_true(json_object_get_double(v) == 40);
			assert_true(json_object_object_get_ex(o, "unit", &v));
			assert_string_equal(json_object_get_string(v), "B/s");
			assert_true(json_object_object_get_ex(o, "eta_s", &v));
			assert_true(json_object_get_double(v) > 0);
			assert_true(json_object_object_get_ex(o, "prefix", &v));
			assert_string_equal(json_object_get_string(v), "[1/2] a\"b ");
		}
		if (n == 6) {
			/* A test that runs for a time: no percent, no rate. */
			assert_true(json_object_object_get_ex(o, "pct", &v));
			assert_null(v);
			assert_true(json_object_object_get_ex(o, "rate", &v));
			assert_null(v);
		}
		if (n == 7 || n == 8) {
			assert_true(json_object_object_get_ex(o, "ok", &v));
			assert_false(json_object_get_boolean(v));
		}
		json_object_put(o);
	}
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(eta_from_guess_then_from_tests),
		cmocka_unit_test(terminal_line),
		cmocka_unit_test(json_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
