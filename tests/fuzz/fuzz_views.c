/*
 * Every view of parsed results, in memory: a JSON document (a run or
 * lifecycle result, or a matrix of them) is read as `fsbench compare` and
 * `fsbench report` read a file, then rendered by each writer, by the
 * matrix views (the inputs as setups, their strings in every field) and by
 * the HTML report into open_memstream buffers. Asserted (fuzz.h): the HTML
 * holds only the writer's own tags and no data became markup; the text
 * views hold no control character and are valid UTF-8.
 */
#include "fuzz.h"
#include "report/compare.h"
#include "report/html.h"
#include "report/json.h"
#include "report/markdown.h"
#include "report/matrix.h"
#include "report/views.h"
#include "report/writer.h"
#include "util/error.h"
#include "util/text.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>

/* Render with view v into memory; returns the buffer (caller frees). */
static char *render(const struct fsb_view *v, const struct fsb_result *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int rc;

	FUZZ_ASSERT(f);
	{
		struct fsb_doc d = fsb_doc_result(r);

		rc = fsb_view_write(v, f, &d);
	}
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	FUZZ_ASSERT(fclose(f) == 0);
	return buf;
}

/*
 * The matrix views of the inputs as setups: each input's strings fill the
 * configuration fields, error and note, so every one of them is printed.
 * The results are borrowed from the set (unhooked before the release).
 */
static void check_matrix(const struct fsb_compare_set *set)
{
	struct fsb_matrix_doc d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	memset(&d, 0, sizeof(d));
	FUZZ_ASSERT(!fsb_result_init(&d.head, "matrix"));
	FUZZ_ASSERT(!fsb_strset(&d.config_path, set->sources[0]));
	FUZZ_ASSERT(!fsb_strset(&d.head.host.cpu, set->docs[0]->host.cpu));
	FUZZ_ASSERT(!fsb_strset(&d.head.host.kernel, set->docs[0]->host.kernel));
	FUZZ_ASSERT(!fsb_strset(&d.head.host.hostname, set->docs[0]->host.hostname));
	for (size_t i = 0; i < set->n; i++) {
		const struct fsb_result *r = set->docs[i];
		struct fsb_matrix_entry *e = fsb_matrix_doc_add(&d, set->labels[i]);

		FUZZ_ASSERT(e);
		FUZZ_ASSERT(!fsb_strset(&e->type, r->setup.fs_type));
		FUZZ_ASSERT(!fsb_strset(&e->mkfs, r->setup.device));
		FUZZ_ASSERT(!fsb_strset(&e->options, r->setup.mount_options));
		FUZZ_ASSERT(!fsb_strset(&e->fill, r->setup.fill));
		FUZZ_ASSERT(!fsb_strset(&e->run, r->setup.dir));
		FUZZ_ASSERT(!fsb_strset(&e->lifecycle, r->version));
		FUZZ_ASSERT(!fsb_strset(&e->note, r->host.cpu));
		e->devices = (unsigned)(i % 3) + 1;
		e->image_bytes = (uint64_t)i << 20;
		if (i % 2)
			FUZZ_ASSERT(!fsb_matrix_entry_status(e, FSB_MATRIX_FAILED, "%s",
							     r->kind ? r->kind : ""));
		if (r->kind && !strcmp(r->kind, "lifecycle"))
			e->lc_res = set->docs[i];
		else
			e->run_res = set->docs[i];
	}
	f = open_memstream(&buf, &len);
	FUZZ_ASSERT(f);
	FUZZ_ASSERT(fsb_matrix_write_text(f, &d) == 0);
	FUZZ_ASSERT(fclose(f) == 0);
	check_text(buf, len, "matrix text");
	free(buf);
	f = open_memstream(&buf, &len);
	FUZZ_ASSERT(f);
	fsb_matrix_write_csv(f, &d); /* -EINVAL when no setup ran the run suite */
	FUZZ_ASSERT(fclose(f) == 0);
	check_text(buf, len, "matrix csv");
	free(buf);
	for (size_t i = 0; i < d.n; i++)
		d.entries[i].run_res = d.entries[i].lc_res = NULL;
	fsb_matrix_doc_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const views[] = { "text",	  "bonnie", "bonnie++",
					     "lifecycle", "csv",    "markdown" };
	struct fsb_compare_set set = { 0 };
	struct json_object *doc;
	struct fsb_error failure;
	struct fsb_err_scope scope;
	char why[256], *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	fsb_warn_set_quiet(1);
	doc = fsb_json_parse((const char *)data, size, why, sizeof(why));
	if (!doc)
		return 0;
	rc = fsb_compare_set_add_json(&set, doc, "fuzz.json", why, sizeof(why));
	json_object_put(doc);
	if (rc) {
		fsb_compare_set_release(&set);
		return 0;
	}
	for (size_t i = 0; i < set.n; i++) {
		for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
			/* Every writer on every input, as before the view table:
			 * a lifecycle view of a run result must not crash either. */
			const struct fsb_view *w = fsb_view_find(FSB_KIND_RUN, views[v]);

			if (!w)
				w = fsb_view_find(FSB_KIND_LIFECYCLE, views[v]);

			FUZZ_ASSERT(w);
			buf = render(w, set.docs[i], &len);
			check_text(buf, len, views[v]);
			free(buf);
		}
	}
	if (set.n)
		check_matrix(&set);
	f = open_memstream(&buf, &len);
	FUZZ_ASSERT(f);
	fsb_error_clear(&failure);
	fsb_err_capture_begin(&scope, &failure, true);
	rc = fsb_html_write(f, fsb_compare_set_docs(&set), fsb_compare_set_labels(&set), set.n);
	fsb_err_capture_end(&scope, rc);
	FUZZ_ASSERT(fclose(f) == 0);
	/* -EINVAL only for more distinct tests than a table takes (a markup
	 * format that is not numeric would be a bug in the writer). */
	FUZZ_ASSERT(rc == 0 || rc == -ENOMEM ||
		    (rc == -EINVAL && strstr(failure.msg, "distinct tests")));
	if (!rc)
		check_html(buf, len);
	free(buf);
	/* The markdown tables of all inputs: one line per row, whatever the
	 * labels held (each view above checked one document alone). */
	f = open_memstream(&buf, &len);
	FUZZ_ASSERT(f);
	fsb_err_capture_begin(&scope, &failure, true);
	rc = fsb_markdown_write(f, fsb_compare_set_docs(&set), fsb_compare_set_labels(&set), set.n);
	fsb_err_capture_end(&scope, rc);
	FUZZ_ASSERT(fclose(f) == 0);
	FUZZ_ASSERT(rc == 0 || rc == -ENOMEM || rc == -EINVAL);
	if (!rc)
		check_text(buf, len, "markdown");
	free(buf);
	fsb_compare_set_release(&set);
	return 0;
}
