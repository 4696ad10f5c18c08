/*
 * The one table of views. A view renders a finished document of one kind
 * (run, lifecycle, matrix, comparison) to a stream and never measures; the
 * table is keyed by (kind, --format name), so a new view is one file (its
 * write function) and one row in views.c. Every command that prints a
 * document (run, lifecycle, guest, matrix, compare, report, show) takes
 * its view from here, and so do the usage messages and the completion.
 */
#ifndef FSB_REPORT_VIEWS_H
#define FSB_REPORT_VIEWS_H
#include <stdio.h>

#include "report/compare.h"
#include "report/matrix.h"
#include "report/result.h"
#include "util/output.h"

/* The kinds of document (struct fsb_view.kinds). */
enum {
	FSB_KIND_RUN = 1u << 0,	       /* a "run" document */
	FSB_KIND_LIFECYCLE = 1u << 1,  /* a "lifecycle" document */
	FSB_KIND_MATRIX = 1u << 2,     /* a "matrix" document */
	FSB_KIND_COMPARISON = 1u << 3, /* several inputs side by side */
};
/* The kinds one struct fsb_result holds. */
#define FSB_KINDS_RESULT (FSB_KIND_RUN | FSB_KIND_LIFECYCLE)

/* What a view renders: kind says which members are set. */
struct fsb_doc {
	unsigned kind;
	const struct fsb_result *result;       /* run, lifecycle */
	const struct fsb_matrix_doc *matrix;   /* matrix */
	const struct fsb_compare_set *set;     /* comparison: the inputs */
	const struct fsb_compare_table *table; /* comparison: their table; NULL: the
						  view builds it (report) */
};

struct fsb_view {
	unsigned kinds;	  /* FSB_KIND_* it renders */
	const char *name; /* --format value: "text", "csv", ... */
	const char *ext;  /* file name extension of its output */
	/* 0, -EIO when the stream reports an error, -EINVAL (described)
	 * when d cannot be shown in this view, -ENOMEM. */
	int (*write)(FILE *out, const struct fsb_doc *d);
};

/* FSB_KIND_* for "run", "lifecycle", "matrix", "comparison"; else 0. */
unsigned fsb_view_kind(const char *kind);

/* The view called name that renders every kind in kinds, or NULL. */
const struct fsb_view *fsb_view_find(unsigned kinds, const char *name);

/*
 * The names of the views rendering any of kinds, in table order, joined
 * with '|' ("text|bonnie|bonnie++|csv|json|markdown" for runs), for usage
 * messages and the completion. Static; do not free.
 */
const char *fsb_view_names(unsigned kinds);

/*
 * The view called name if it renders documents of kind ("run",
 * "lifecycle", ...; NULL or unknown: any result kind), for checking
 * --format before there is a document. Otherwise NULL, after one line
 * naming the formats that would do ("fsbench: invalid --format
 * 'lifecycle' for a run result: expected text|bonnie|bonnie++|csv|json").
 */
const struct fsb_view *fsb_view_select(const char *name, const char *kind);

/* Render d with v into stream out (v must render d->kind). */
int fsb_view_write(const struct fsb_view *v, FILE *out, const struct fsb_doc *d);

/*
 * Render d with v to o, in memory first (fsb_output in report/writer.h):
 * nothing is written when v refuses. Describes a failure once. Returns 0
 * or -errno (-EINVAL: v cannot show d, described).
 */
int fsb_view_output(const struct fsb_view *v, const struct fsb_doc *d, struct fsb_output *o);

/* The same for a run or lifecycle result r. */
int fsb_view_output_result(const struct fsb_view *v, const struct fsb_result *r,
			   struct fsb_output *o);

/* The documents of one struct fsb_result (run or lifecycle) and so on. */
struct fsb_doc fsb_doc_result(const struct fsb_result *r);
struct fsb_doc fsb_doc_matrix(const struct fsb_matrix_doc *m);
struct fsb_doc fsb_doc_comparison(const struct fsb_compare_set *set,
				  const struct fsb_compare_table *t);

#endif
