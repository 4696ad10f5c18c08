#include "report/views.h"
#include "report/html.h"
#include "report/json.h"
#include "report/lifecycle.h"
#include "report/markdown.h"
#include "report/writer.h"
#include "util/error.h"
#include "util/vocab.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* ---- adapters: each view's own function under the table's signature ---- */

#define RESULT_VIEW(fn)                                          \
	static int view_##fn(FILE *out, const struct fsb_doc *d) \
	{                                                        \
		return fn(out, d->result);                       \
	}
RESULT_VIEW(fsb_write_text)
RESULT_VIEW(fsb_write_bonnie)
RESULT_VIEW(fsb_write_bonnie_pp)
RESULT_VIEW(fsb_write_lifecycle)
RESULT_VIEW(fsb_write_csv)
RESULT_VIEW(fsb_json_write)
RESULT_VIEW(fsb_write_markdown)

#define MATRIX_VIEW(fn)                                          \
	static int view_##fn(FILE *out, const struct fsb_doc *d) \
	{                                                        \
		return fn(out, d->matrix);                       \
	}
MATRIX_VIEW(fsb_matrix_write_text)
MATRIX_VIEW(fsb_matrix_write_csv)
MATRIX_VIEW(fsb_matrix_write_json)

/*
 * A comparison view given no table (report's inputs) builds its own; the
 * error says "report" as fsb_html_write and fsb_markdown_write do.
 */
static int with_table(FILE *out, const struct fsb_doc *d,
		      int (*fn)(FILE *, const struct fsb_compare_set *,
				const struct fsb_compare_table *))
{
	struct fsb_compare_table t;
	int err;

	if (d->table)
		return fn(out, d->set, d->table);
	err = fsb_compare_table_build(&t, fsb_compare_set_docs(d->set),
				      fsb_compare_set_labels(d->set), d->set->n);
	if (err == -E2BIG) {
		fsb_err("report: more than %d distinct tests in these files: not fsbench results",
			FSB_COMPARE_MAX_ROWS);
		return -EINVAL;
	}
	if (err)
		return err;
	err = fn(out, d->set, &t);
	fsb_compare_table_release(&t);
	return err;
}

#define COMPARE_VIEW(fn)                                         \
	static int view_##fn(FILE *out, const struct fsb_doc *d) \
	{                                                        \
		return with_table(out, d, fn);                   \
	}
COMPARE_VIEW(fsb_compare_write_text)
COMPARE_VIEW(fsb_compare_write_json)
COMPARE_VIEW(fsb_compare_write_csv)
COMPARE_VIEW(fsb_compare_write_markdown)

static int view_html(FILE *out, const struct fsb_doc *d)
{
	return fsb_html_write(out, fsb_compare_set_docs(d->set), fsb_compare_set_labels(d->set),
			      d->set->n);
}

/* ---- the table ---------------------------------------------------------- */

#define RES FSB_KINDS_RESULT
#define RUN FSB_KIND_RUN
#define LC FSB_KIND_LIFECYCLE
#define MX FSB_KIND_MATRIX
#define CMP FSB_KIND_COMPARISON

/*
 * One row per (kinds, format). The order of a kind's rows is the order its
 * usage message lists them in, everyday views first.
 */
static const struct fsb_view views[] = {
	{ RES, "text", "txt", view_fsb_write_text },
	{ RUN, "bonnie", "txt", view_fsb_write_bonnie },
	{ RUN, "bonnie++", "txt", view_fsb_write_bonnie_pp },
	{ LC, "lifecycle", "txt", view_fsb_write_lifecycle },
	{ RUN, "csv", "csv", view_fsb_write_csv },
	{ RES, "json", "json", view_fsb_json_write },
	{ RES, "markdown", "md", view_fsb_write_markdown },

	{ MX, "text", "txt", view_fsb_matrix_write_text },
	{ MX, "csv", "csv", view_fsb_matrix_write_csv },
	{ MX, "json", "json", view_fsb_matrix_write_json },

	{ CMP, "text", "txt", view_fsb_compare_write_text },
	{ CMP, "json", "json", view_fsb_compare_write_json },
	{ CMP, "csv", "csv", view_fsb_compare_write_csv },
	{ CMP, "markdown", "md", view_fsb_compare_write_markdown },
	{ CMP, "html", "html", view_html },
};

#define NVIEWS (sizeof(views) / sizeof(views[0]))
#define NKINDS 16 /* every combination of the four FSB_KIND_* bits */

unsigned fsb_view_kind(const char *kind)
{
	static const char *const names[] = { "run", "lifecycle", "matrix", "comparison" };

	for (unsigned i = 0; kind && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(kind, names[i]))
			return 1u << i;
	return 0;
}

const struct fsb_view *fsb_view_find(unsigned kinds, const char *name)
{
	for (size_t i = 0; name && kinds && i < NVIEWS; i++)
		if ((views[i].kinds & kinds) == kinds && !strcmp(views[i].name, name))
			return &views[i];
	return NULL;
}

const char *fsb_view_names(unsigned kinds)
{
	/* Built from the table so a new view can never be missing from it;
	 * one buffer per combination of kinds, each name once. */
	static char names[NKINDS][256];
	const char *each[NVIEWS];
	size_t n = 0;

	kinds &= NKINDS - 1;
	if (names[kinds][0])
		return names[kinds];
	for (size_t i = 0; i < NVIEWS; i++) {
		bool seen = false;

		if (!(views[i].kinds & kinds))
			continue;
		for (size_t k = 0; k < n; k++)
			seen = seen || !strcmp(each[k], views[i].name);
		if (!seen)
			each[n++] = views[i].name;
	}
	return fsb_vocab_join(each, n, names[kinds], sizeof(names[0]));
}

const struct fsb_view *fsb_view_select(const char *name, const char *kind)
{
	unsigned k = fsb_view_kind(kind);
	const struct fsb_view *v = fsb_view_find(k ? k : FSB_KIND_RUN, name);

	if (!k && !v)
		v = fsb_view_find(FSB_KIND_LIFECYCLE, name);
	if (v)
		return v;
	if (fsb_view_find(FSB_KINDS_RESULT, name) || fsb_view_find(FSB_KIND_RUN, name) ||
	    fsb_view_find(FSB_KIND_LIFECYCLE, name))
		fsb_err("invalid --format '%s' for a %s result: expected %s", name, kind,
			fsb_view_names(k));
	else
		fsb_err("invalid --format '%s': expected %s", name ? name : "",
			fsb_view_names(k ? k : FSB_KINDS_RESULT));
	return NULL;
}

int fsb_view_write(const struct fsb_view *v, FILE *out, const struct fsb_doc *d)
{
	return v->write(out, d);
}

struct view_job {
	const struct fsb_view *v;
	const struct fsb_doc *d;
};

static int render(FILE *out, const void *ctx)
{
	const struct view_job *job = ctx;

	return job->v->write(out, job->d);
}

int fsb_view_output(const struct fsb_view *v, const struct fsb_doc *d, struct fsb_output *o)
{
	struct view_job job = { v, d };

	return fsb_output(o, v->ext, render, &job);
}

int fsb_view_output_result(const struct fsb_view *v, const struct fsb_result *r,
			   struct fsb_output *o)
{
	struct fsb_doc d = fsb_doc_result(r);

	return fsb_view_output(v, &d, o);
}

struct fsb_doc fsb_doc_result(const struct fsb_result *r)
{
	return (struct fsb_doc){ .kind = fsb_view_kind(r->kind), .result = r };
}

struct fsb_doc fsb_doc_matrix(const struct fsb_matrix_doc *m)
{
	return (struct fsb_doc){ .kind = FSB_KIND_MATRIX, .matrix = m };
}

struct fsb_doc fsb_doc_comparison(const struct fsb_compare_set *set,
				  const struct fsb_compare_table *t)
{
	return (struct fsb_doc){ .kind = FSB_KIND_COMPARISON, .set = set, .table = t };
}
