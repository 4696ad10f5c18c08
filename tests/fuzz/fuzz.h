/*
 * Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c): each is one
 * LLVMFuzzerTestOneInput for one parser, side-effect free (no file written,
 * no process started), and aborts on a broken invariant so libFuzzer keeps
 * the input. Built and run by `make fuzz`; `make test` replays the corpus.
 */
#ifndef FSB_TESTS_FUZZ_H
#define FSB_TESTS_FUZZ_H
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
#include "report/html.h"
#include "report/json.h"
#include "report/views.h"
#include "util/error.h"
#include "util/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (cut at its first NUL); free it. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A broken invariant: say which, then abort so the input is kept. */
#define FUZZ_ASSERT(cond)                                                                    \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, \
				#cond);                                                      \
			abort();                                                             \
		}                                                                            \
	} while (0)

/*
 * What the views of someone else's file must give, whatever it held:
 *  - HTML: every '<' starts a tag of the writer's own fixed list, and no
 *    tag has an attribute outside quotes beginning with "on" (so no data
 *    became markup);
 *  - text: no control character but '\n' (and '\t', which the lifecycle
 *    view uses), no C1 control, and valid UTF-8.
 */
static const char *const fuzz_tags[] = {
	"!DOCTYPE", "html",   "head",	"meta",	  "title",  "style", "body", "main", "header",
	"h1",	    "h2",     "h3",	"p",	  "strong", "em",    "code", "dl",   "dt",
	"dd",	    "div",    "table",	"thead",  "tbody",  "tr",    "th",   "td",   "span",
	"section",  "figure", "svg",	"g",	  "text",   "tspan", "line", "rect", "path",
	"ul",	    "li",     "footer", "circle", "pre",    "small", NULL,
};

static inline bool fuzz_known_tag(const char *p, size_t n)
{
	for (size_t i = 0; fuzz_tags[i]; i++)
		if (strlen(fuzz_tags[i]) == n && !strncmp(fuzz_tags[i], p, n))
			return true;
	return false;
}

static inline void check_html(const char *page, size_t len)
{
	FUZZ_ASSERT(strlen(page) == len); /* no NUL in the page */
	for (const char *lt = strchr(page, '<'); lt; lt = strchr(lt + 1, '<')) {
		const char *name = lt + 1 + (lt[1] == '/'), *gt;
		size_t n = strspn(name, "!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					"0123456789");
		bool quoted = false;

		FUZZ_ASSERT(fuzz_known_tag(name, n));
		gt = strchr(name, '>');
		FUZZ_ASSERT(gt);
		for (const char *p = name + n; p < gt; p++) {
			if (*p == '"')
				quoted = !quoted;
			FUZZ_ASSERT(*p != '<');
			if (!quoted && (p[0] == ' ' && (p[1] == 'o' || p[1] == 'O') &&
					(p[2] == 'n' || p[2] == 'N')))
				FUZZ_ASSERT(!"an attribute starting with 'on'");
		}
		FUZZ_ASSERT(!quoted);
	}
}

static inline void check_text(const char *out, size_t len, const char *view)
{
	/* A view may print a NUL nowhere: each byte up to len is looked at. */
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)out[i];
		size_t n;

		if (c == '\n' || c == '\t') {
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(stderr, "view %s: control byte 0x%02x at %zu\n", view, c, i);
			abort();
		}
		n = fsb_utf8_len(out + i);
		if (!n || (n == 2 && c == 0xc2 && (unsigned char)out[i + 1] < 0xa0)) {
			fprintf(stderr, "view %s: invalid UTF-8 or C1 at %zu\n", view, i);
			abort();
		}
		i += n;
	}
}

/*
 * The inputs of set through compare's three views and the HTML report, in
 * memory: text and csv checked as text, json parsed back, the page checked
 * as HTML. -E2BIG (too many distinct tests) is the only refusal allowed.
 */
static inline void fuzz_compare_views(const struct fsb_compare_set *set)
{
	static const char *const views[] = { "text", "csv", "json" };
	struct fsb_compare_table t;
	struct fsb_error failure;
	struct fsb_err_scope scope;
	char *buf = NULL, why[256];
	size_t len = 0;
	FILE *f;
	int rc;

	if (!set->n)
		return;
	rc = fsb_compare_table_build(&t, fsb_compare_set_docs(set), fsb_compare_set_labels(set),
				     set->n);
	FUZZ_ASSERT(rc == 0 || rc == -E2BIG || rc == -ENOMEM);
	if (rc)
		return;
	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		f = open_memstream(&buf, &len);
		FUZZ_ASSERT(f);
		struct fsb_doc d = fsb_doc_comparison(set, &t);

		rc = fsb_view_write(fsb_view_find(FSB_KIND_COMPARISON, views[v]), f, &d);
		FUZZ_ASSERT(fclose(f) == 0);
		FUZZ_ASSERT(rc == 0 || rc == -ENOMEM);
		if (!rc && strcmp(views[v], "json")) {
			check_text(buf, len, views[v]);
		} else if (!rc) {
			struct json_object *o = fsb_json_parse(buf, len, why, sizeof(why));

			FUZZ_ASSERT(o);
			json_object_put(o);
		}
		free(buf);
		buf = NULL;
	}
	fsb_compare_table_release(&t);
	f = open_memstream(&buf, &len);
	FUZZ_ASSERT(f);
	fsb_error_clear(&failure);
	fsb_err_capture_begin(&scope, &failure, true);
	rc = fsb_html_write(f, fsb_compare_set_docs(set), fsb_compare_set_labels(set), set->n);
	fsb_err_capture_end(&scope, rc);
	FUZZ_ASSERT(fclose(f) == 0);
	FUZZ_ASSERT(rc == 0 || rc == -ENOMEM ||
		    (rc == -EINVAL && strstr(failure.msg, "distinct tests")));
	if (!rc)
		check_html(buf, len);
	free(buf);
}

/*
 * An imported result as the readers promise it (report/import.h): a run
 * from another tool, its source said, every test one run or not measured
 * (fio: a figure of 0 is not measured, so a measured one is above 0).
 */
static inline void fuzz_check_imported(const struct fsb_result *r, bool fio)
{
	FUZZ_ASSERT(r->source && r->tool && r->kind && !strcmp(r->kind, "run"));
	FUZZ_ASSERT(r->ntests > 0);
	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];

		FUZZ_ASSERT(t->id && t->unit);
		if (t->not_measured) {
			FUZZ_ASSERT(t->nruns == 0 && t->median == 0);
		} else {
			/* bonnie++ gives one run; fio's repeats of one job are runs. */
			FUZZ_ASSERT(t->nruns == 1 ? t->runs[0] == t->median : fio && t->nruns > 1);
			FUZZ_ASSERT(t->median >= t->min && t->median <= t->max);
			FUZZ_ASSERT(!fio || t->median > 0);
			FUZZ_ASSERT(t->median >= 0 && t->median <= 1e21);
		}
		FUZZ_ASSERT(t->cpu_pct >= 0 && t->cpu_pct <= 2e18);
		FUZZ_ASSERT(!t->has_latency ||
			    (t->latency.max_us >= 0 && t->latency.max_us <= 1e16));
	}
}

#endif
