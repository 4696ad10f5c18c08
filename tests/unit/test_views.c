/*
 * Every view of three real result documents, byte for byte.
 *
 * tests/golden/run.json, lifecycle.json and matrix.json were written by
 * `fsbench run`, `fsbench lifecycle` and `fsbench matrix` with --seed 7
 * (tests/golden/README says how, and from which commit). Each is loaded
 * here and rendered through every view that takes it:
 *
 *   run.json        text, bonnie, bonnie++, csv, json
 *   lifecycle.json  text, lifecycle, json
 *   matrix.json     the matrix views text, csv, json (the document is rebuilt
 *                   from its setups' configuration and result documents)
 *   all three       the HTML report (`fsbench report` of the three files)
 *
 * and compared with tests/golden/<doc>.<view>.txt (the json views with the
 * document itself: it must come back byte for byte). These goldens pin what
 * the views printed before the engine rework of issue 10: a rework that
 * moves code must leave them unchanged. They come from the documents alone
 * (host, version and paths included), so the test does not depend on the
 * machine it runs on.
 *
 * Run from the repository root (the files are found relative to it).
 * FSB_UPDATE_GOLDEN=1 writes a golden file that is MISSING (for a new
 * view); it never rewrites one that exists: to change a golden on purpose,
 * delete it, regenerate, and say why in the commit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
#include "report/html.h"
#include "report/json.h"
#include "report/matrix.h"
#include "report/result.h"
#include "report/views.h"
#include "report/writer.h"

#define GOLDEN_DIR "tests/golden/"

/* ---- files ------------------------------------------------------------ */

/* The whole file at path, NUL-terminated, in *len bytes; NULL when absent. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t got;

		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	assert_false(ferror(f));
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * Compare got with the golden file name. Shows the first differing line,
 * which says far more than two 100 KiB strings side by side.
 */
static void check_golden(const char *name, const char *got)
{
	char path[256];
	size_t len, line = 1;
	char *want;

	snprintf(path, sizeof(path), GOLDEN_DIR "%s", name);
	want = slurp(path, &len);
	if (!want && getenv("FSB_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "wx");

		assert_non_null(f);
		assert_int_equal(fwrite(got, 1, strlen(got), f), strlen(got));
		assert_int_equal(fclose(f), 0);
		print_message("wrote %s\n", path);
		return;
	}
	if (!want)
		fail_msg("cannot read %s (run from the repository root): %s", path,
			 strerror(errno));
	if (strlen(want) != len)
		fail_msg("%s holds a NUL byte", path);
	for (size_t i = 0;; i++) {
		if (want[i] != got[i]) {
			const char *w = want + i, *g = got + i;

			while (w > want && w[-1] != '\n')
				w--;
			while (g > got && g[-1] != '\n')
				g--;
			fail_msg("%s differs at line %zu:\n  want: %.*s\n  got:  %.*s", path, line,
				 (int)strcspn(w, "\n"), w, (int)strcspn(g, "\n"), g);
		}
		if (!want[i])
			break;
		line += want[i] == '\n';
	}
	free(want);
}

/* ---- documents ---------------------------------------------------------- */

static void load(const char *name, struct fsb_result *r)
{
	char path[256];

	snprintf(path, sizeof(path), GOLDEN_DIR "%s", name);
	if (fsb_json_load(path, r))
		fail_msg("cannot load %s (run from the repository root)", path);
}

/*
 * Rebuild the matrix document of matrix.json with report/matrix.h
 * (fsb_matrix_from_json, what `fsbench show` reads it with): the head from
 * the file (its version and host, never this machine's), then each
 * setup's configuration, status and result documents.
 */
static void load_matrix(struct fsb_matrix_doc *d)
{
	struct json_object *doc = fsb_json_read(GOLDEN_DIR "matrix.json");
	char why[256];

	if (!doc)
		fail_msg("cannot read " GOLDEN_DIR "matrix.json (run from the repository root)");
	if (fsb_matrix_from_json(doc, d, why, sizeof(why)))
		fail_msg("matrix.json: %s", why);
	json_object_put(doc);
}

/* ---- rendering ---------------------------------------------------------- */

static char *render(const struct fsb_view *v, const struct fsb_doc *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fsb_view_write(v, f, d), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/*
 * The json view's golden is the document itself: rendered from what was
 * loaded, it must give back the very bytes fsbench wrote (nothing lost or
 * reordered on the way through the result model).
 */
static void check_round_trip(const char *doc, const char *golden)
{
	char path[256];
	size_t len;
	char *file;

	snprintf(path, sizeof(path), GOLDEN_DIR "%s", doc);
	file = slurp(path, &len);
	assert_non_null(file);
	assert_string_equal(file, golden);
	free(file);
}

/*
 * The views of one kind of document, in the registry's order: exactly
 * these must be what fsb_writer_names_for() lists, so a view added to the
 * registry without a golden here fails rather than going unpinned.
 */
static const char *const run_views[] = { "text", "bonnie", "bonnie++", "csv", "json", "markdown" };
static const char *const lifecycle_views[] = { "text", "lifecycle", "json", "markdown" };

static void check_doc(const char *doc, unsigned kind, const char *const *views, size_t n)
{
	struct fsb_result r;
	char names[256] = "", golden[128];

	load(doc, &r);
	for (size_t i = 0; i < n; i++) {
		const struct fsb_view *w = fsb_view_find(kind, views[i]);
		struct fsb_doc d = fsb_doc_result(&r);
		char *got;

		assert_non_null(w);
		assert_int_equal(d.kind, kind);
		got = render(w, &d);
		if (!strcmp(views[i], "json")) {
			check_round_trip(doc, got);
		} else {
			snprintf(golden, sizeof(golden), "%s.%s.txt", doc, views[i]);
			check_golden(golden, got);
		}
		free(got);
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? "|" : "",
			 views[i]);
	}
	assert_string_equal(fsb_view_names(kind), names);
	fsb_result_release(&r);
}

/* ---- the tests ---------------------------------------------------------- */

static void run_doc(void **state)
{
	struct fsb_result r;

	(void)state;
	check_doc("run.json", FSB_KIND_RUN, run_views, sizeof(run_views) / sizeof(run_views[0]));
	load("run.json", &r);
	assert_string_equal(r.kind, "run");
	assert_int_equal(r.ntests, 12);
	fsb_result_release(&r);
}

/*
 * fsbench-mpi's result (4 ranks, edited to 2 hosts): every run view reads
 * it; text has the per-rank and per-host spread and the ranks footnote,
 * the CSV's concurrency field is the 4 members.
 */
static void mpi_doc(void **state)
{
	struct fsb_result r;
	char *text;

	(void)state;
	check_doc("mpi.json", FSB_KIND_RUN, run_views, sizeof(run_views) / sizeof(run_views[0]));
	load("mpi.json", &r);
	assert_int_equal(fsb_result_ranks(&r), 4);
	assert_int_equal(fsb_result_jobs(&r), 4);
	{
		struct fsb_doc d = fsb_doc_result(&r);

		text = render(fsb_view_find(FSB_KIND_RUN, "text"), &d);
	}
	assert_non_null(strstr(text, "per rank "));
	assert_non_null(strstr(text, "per host "));
	assert_non_null(strstr(text, "4 MPI ranks x 1 job ran each test at once"));
	free(text);
	fsb_result_release(&r);
}

static void lifecycle_doc(void **state)
{
	struct fsb_result r;

	(void)state;
	check_doc("lifecycle.json", FSB_KIND_LIFECYCLE, lifecycle_views,
		  sizeof(lifecycle_views) / sizeof(lifecycle_views[0]));
	load("lifecycle.json", &r);
	assert_string_equal(r.kind, "lifecycle");
	assert_int_equal(r.ntests, 6);
	fsb_result_release(&r);
}

static void matrix_doc(void **state)
{
	static const char *const views[] = { "text", "csv", "json" };
	struct fsb_matrix_doc d;
	char golden[128];

	(void)state;
	load_matrix(&d);
	assert_int_equal(d.n, 2);
	for (size_t i = 0; i < d.n; i++) {
		assert_non_null(d.entries[i].run_res);
		assert_non_null(d.entries[i].lc_res);
	}
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		const struct fsb_view *view = fsb_view_find(FSB_KIND_MATRIX, views[i]);
		struct fsb_doc doc = fsb_doc_matrix(&d);
		char *got;

		assert_non_null(view);
		got = render(view, &doc);
		if (!strcmp(views[i], "json")) {
			check_round_trip("matrix.json", got);
		} else {
			snprintf(golden, sizeof(golden), "matrix.json.%s.txt", views[i]);
			check_golden(golden, got);
		}
		free(got);
	}
	fsb_matrix_doc_release(&d);
}

/*
 * Every setup's raw device in the matrix text view names its setup: the
 * lines "The device /dev/loopN itself ..." of two setups cannot be told
 * apart otherwise (loop device names are reused from setup to setup).
 */
static void matrix_devcap_names_setup(void **state)
{
	struct fsb_matrix_doc d;
	char *got, *at, want[128];
	size_t lines = 0;

	(void)state;
	load_matrix(&d);
	for (size_t i = 0; i < d.n; i++) {
		struct fsb_devcap *c = &d.entries[i].run_res->devcap;

		c->present = true;
		assert_int_equal(fsb_strset(&c->device, "/dev/loop7"), 0);
		c->seq_read_Bps = 1e9;
		c->rand_read_iops = 1e4;
	}
	{
		struct fsb_doc doc = fsb_doc_matrix(&d);

		got = render(fsb_view_find(FSB_KIND_MATRIX, "text"), &doc);
	}
	for (at = got; (at = strstr(at, "The device ")); at++)
		lines++;
	assert_int_equal(lines, d.n);
	for (size_t i = 0; i < d.n; i++) {
		snprintf(want, sizeof(want),
			 "The device /dev/loop7 of setup %s itself:", d.entries[i].label);
		if (!strstr(got, want))
			fail_msg("no line \"%s\" in:\n%s", want, got);
	}
	free(got);
	fsb_matrix_doc_release(&d);
}

/* The HTML page `fsbench report run.json lifecycle.json matrix.json` makes. */
static void html_report(void **state)
{
	static const char *const docs[] = { GOLDEN_DIR "run.json", GOLDEN_DIR "lifecycle.json",
					    GOLDEN_DIR "matrix.json" };
	struct fsb_compare_set set = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
		if (fsb_compare_set_load(&set, docs[i]))
			fail_msg("cannot load %s (run from the repository root)", docs[i]);
	assert_int_equal(set.n, 6);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(
		fsb_html_write(f, fsb_compare_set_docs(&set), fsb_compare_set_labels(&set), set.n),
		0);
	assert_int_equal(fclose(f), 0);
	check_golden("report.html.txt", buf);
	free(buf);
	fsb_compare_set_release(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(run_doc),
		cmocka_unit_test(mpi_doc),
		cmocka_unit_test(lifecycle_doc),
		cmocka_unit_test(matrix_doc),
		cmocka_unit_test(matrix_devcap_names_setup),
		cmocka_unit_test(html_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
