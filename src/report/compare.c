/*
 * Results side by side: the significance rule, the comparison table and
 * the reading of result files (run, lifecycle or matrix) from anyone.
 */
#include "report/compare.h"
#include "report/import.h"
#include "report/json.h"
#include "util/error.h"
#include "util/io.h"
#include "util/signals.h"
#include "util/size.h"
#include "util/text.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the rule --------------------------------------------------------- */

static double finite_or_zero(double v)
{
	return isfinite(v) ? v : 0;
}

/* The [lo, hi] a figure spans, whatever order a hostile file put them in. */
static void span(const struct fsb_test_result *t, double *lo, double *hi)
{
	double a = finite_or_zero(t->min), b = finite_or_zero(t->max);
	double m = finite_or_zero(t->median);

	*lo = fmin(fmin(a, b), m);
	*hi = fmax(fmax(a, b), m);
}

bool fsb_compare_significant(const struct fsb_test_result *a, const struct fsb_test_result *b)
{
	double alo, ahi, blo, bhi;

	/* One run says nothing about how far the next would land. */
	if (!a || !b || a->nruns < 2 || b->nruns < 2)
		return false;
	span(a, &alo, &ahi);
	span(b, &blo, &bhi);
	return ahi < blo || bhi < alo;
}

int fsb_compare_ci_overlap(const struct fsb_test_result *a, const struct fsb_test_result *b)
{
	if (!a || !b || !a->has_ci || !b->has_ci)
		return -1;
	return !(a->ci95_high < b->ci95_low || b->ci95_high < a->ci95_low);
}

bool fsb_compare_lower_is_better(const char *unit)
{
	return fsb_unit_lower_is_better(unit);
}

static bool same_unit(const struct fsb_test_result *a, const struct fsb_test_result *b)
{
	const char *ua = a->unit ? a->unit : "", *ub = b->unit ? b->unit : "";

	return !strcmp(ua, ub);
}

double fsb_compare_ratio(const struct fsb_test_result *base, const struct fsb_test_result *t)
{
	double b, v;

	if (!base || !t || !same_unit(base, t) || base->not_measured || t->not_measured)
		return NAN;
	b = finite_or_zero(base->median);
	v = finite_or_zero(t->median);
	if (b <= 0 || v <= 0)
		return NAN;
	return fsb_compare_lower_is_better(t->unit) ? b / v : v / b;
}

enum fsb_compare_verdict fsb_compare_verdict(const struct fsb_test_result *base,
					     const struct fsb_test_result *t)
{
	double r = fsb_compare_ratio(base, t);

	if (!isfinite(r))
		return FSB_CMP_NONE;
	/* One run says nothing of the spread: no verdict, not even "same". */
	if (base->nruns < 2 || t->nruns < 2)
		return FSB_CMP_SINGLE;
	if (!fsb_compare_significant(base, t) || r == 1.0)
		return FSB_CMP_SAME;
	return r > 1.0 ? FSB_CMP_BETTER : FSB_CMP_WORSE;
}

char *fsb_compare_ratio_text(const struct fsb_test_result *base, const struct fsb_test_result *t,
			     char *buf, size_t len)
{
	double r = fsb_compare_ratio(base, t);

	switch (fsb_compare_verdict(base, t)) {
	case FSB_CMP_BETTER:
		snprintf(buf, len, "%.2fx faster", r);
		break;
	case FSB_CMP_WORSE:
		snprintf(buf, len, "%.2fx slower", 1.0 / r);
		break;
	case FSB_CMP_SAME:
		/* No verdict: within the spread there is no winner. The ratio
		 * itself (the speed relative to the first input, "~0.97x"),
		 * never inverted: "~2.00x" must not stand for half as fast. */
		snprintf(buf, len, "~%.2fx", r);
		break;
	case FSB_CMP_SINGLE:
		snprintf(buf, len, "~%.2fx (single run)", r);
		break;
	default:
		snprintf(buf, len, "-");
	}
	return buf;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the table -------------------------------------------------------- */

/* DESIGN.md's order: what a reader expects to find where. */
static const char *const run_order[] = {
	"putc",	     "write",	    "rewrite",	"getc",	      "read",
	"seeks",     "seq-create",  "seq-stat", "seq-delete", "rand-create",
	"rand-stat", "rand-delete", "randread", "randwrite",
};
static const char *const lifecycle_order[] = {
	"mkfs", "mkfs-mount", "mkfs-umount", "mount-umount", "write", "read",
};

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static int kind_rank(const char *kind)
{
	if (!strcmp(kind, "run"))
		return 0;
	if (!strcmp(kind, "lifecycle"))
		return 1;
	return 2;
}

static size_t id_rank(const char *kind, const char *id)
{
	const char *const *list = NULL;
	size_t n = 0;

	if (!strcmp(kind, "run")) {
		list = run_order;
		n = NELEM(run_order);
	} else if (!strcmp(kind, "lifecycle")) {
		list = lifecycle_order;
		n = NELEM(lifecycle_order);
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], id))
			return i;
	return SIZE_MAX;
}

/*
 * One test of one document while the table is built: its row key (kind,
 * id, unit), where it came from, and the row it lands in. Sorting these
 * finds the distinct figures in O(n log n), whatever a file holds.
 */
struct entry {
	const char *kind, *id, *unit;
	size_t doc, seen; /* seen: order of first appearance */
	const struct fsb_test_result *test;
	size_t row;
};

static int key_cmp(const struct entry *a, const struct entry *b)
{
	int d = strcmp(a->kind, b->kind);

	if (!d)
		d = strcmp(a->id, b->id);
	if (!d)
		d = strcmp(a->unit, b->unit);
	return d;
}

/* By key, then by appearance: the first of each key is its representative. */
static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int d = key_cmp(a, b);

	if (d)
		return d;
	return a->seen < b->seen ? -1 : a->seen > b->seen;
}

/* The order rows are shown in. */
static int row_cmp(const void *pa, const void *pb)
{
	const struct entry *a = *(const struct entry *const *)pa;
	const struct entry *b = *(const struct entry *const *)pb;
	int ka = kind_rank(a->kind), kb = kind_rank(b->kind);
	size_t ia = id_rank(a->kind, a->id), ib = id_rank(b->kind, b->id);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (ia != ib)
		return ia < ib ? -1 : 1;
	return a->seen < b->seen ? -1 : a->seen > b->seen;
}

/* Rows by id, then kind: rows sharing an id end up next to each other. */
static int id_cmp(const void *pa, const void *pb)
{
	const struct fsb_compare_row *a = *(const struct fsb_compare_row *const *)pa;
	const struct fsb_compare_row *b = *(const struct fsb_compare_row *const *)pb;
	int d = strcmp(a->id, b->id);

	return d ? d : strcmp(a->kind, b->kind);
}

/*
 * The run suite's ids are the plain names; a row whose id another kind
 * also uses says its kind ("write (lifecycle)"), and one whose id its own
 * kind uses in another unit says its unit too.
 */
static int name_rows(struct fsb_compare_table *t)
{
	struct fsb_compare_row **by_id = calloc(t->nrows ? t->nrows : 1, sizeof(*by_id));
	size_t g = 0;

	if (!by_id)
		return -ENOMEM;
	for (size_t r = 0; r < t->nrows; r++)
		by_id[r] = &t->rows[r];
	if (t->nrows)
		qsort(by_id, t->nrows, sizeof(*by_id), id_cmp);
	while (g < t->nrows) {
		size_t end = g, k;

		while (end < t->nrows && !strcmp(by_id[end]->id, by_id[g]->id))
			end++;
		for (k = g; k < end;) {
			size_t run = k;

			while (run < end && !strcmp(by_id[run]->kind, by_id[k]->kind))
				run++;
			for (size_t i = k; i < run; i++) {
				struct fsb_compare_row *r = by_id[i];
				bool other_kind = run - k<end - g, same_kind = run - k> 1;
				int n;

				if (other_kind && strcmp(r->kind, "run") && same_kind)
					n = asprintf(&r->name, "%s (%s) [%s]", r->id, r->kind,
						     r->unit);
				else if (other_kind && strcmp(r->kind, "run"))
					n = asprintf(&r->name, "%s (%s)", r->id, r->kind);
				else if (same_kind)
					n = asprintf(&r->name, "%s [%s]", r->id, r->unit);
				else
					n = asprintf(&r->name, "%s", r->id);
				if (n < 0) {
					r->name = NULL;
					free(by_id);
					return -ENOMEM;
				}
			}
			k = run;
		}
		g = end;
	}
	free(by_id);
	return 0;
}

/*
 * Each cell's work against column 0's, and each row's: a parameter in which
 * a cell's value is not the first known value of its row (linear in the
 * cells, whatever a file holds).
 */
static void work_fill(struct fsb_compare_table *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		bool harness = false, real = false;

		for (size_t c = 1; c < t->ncols; c++)
			t->work[r * t->ncols + c] = fsb_work_differs(
				fsb_compare_cell_doc(t, r, 0), fsb_compare_cell(t, r, 0),
				fsb_compare_cell_doc(t, r, c), fsb_compare_cell(t, r, c));
		for (int p = 0; p < FSB_WORK_NPARAMS; p++) {
			char first[160] = "", v[160];
			bool known = false;

			for (size_t c = 0; c < t->ncols; c++) {
				if (!fsb_work_value(fsb_compare_cell_doc(t, r, c),
						    fsb_compare_cell(t, r, c),
						    (enum fsb_work_param)p, v, sizeof(v)))
					continue;
				if (!known)
					snprintf(first, sizeof(first), "%s", v);
				else if (strcmp(first, v))
					t->row_work[r] |= 1u << p;
				known = true;
			}
		}
		for (size_t c = 0; c < t->ncols; c++) {
			if (!fsb_compare_cell(t, r, c))
				continue;
			if (fsb_test_harness_only(fsb_compare_cell_doc(t, r, c),
						  fsb_compare_cell(t, r, c)))
				harness = true;
			else
				real = true;
		}
		if (harness && real)
			t->row_work[r] |= 1u << FSB_WORK_ENGINE;
	}
}

int fsb_compare_table_build(struct fsb_compare_table *t, const struct fsb_result *const *docs,
			    const char *const *labels, size_t n)
{
	struct entry *e = NULL, **firsts = NULL;
	size_t ne = 0, total = 0, *col_of = NULL;
	int err = -ENOMEM;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < n; i++)
		total += docs[i]->ntests;
	t->cols = calloc(n ? n : 1, sizeof(*t->cols));
	col_of = calloc(n ? n : 1, sizeof(*col_of));
	e = calloc(total ? total : 1, sizeof(*e));
	if (!t->cols || !col_of || !e)
		goto fail;

	/* Columns: one per distinct label, in order of first appearance. */
	for (size_t i = 0; i < n; i++) {
		const char *label = labels[i] ? labels[i] : "";
		size_t c = 0;

		while (c < t->ncols && strcmp(t->cols[c].label, label))
			c++;
		if (c == t->ncols)
			t->cols[t->ncols++] = (struct fsb_compare_col){ label, i };
		col_of[i] = c;
	}

	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < docs[i]->ntests; k++) {
			const struct fsb_test_result *tr = &docs[i]->tests[k];

			if (!tr->id)
				continue;
			e[ne] = (struct entry){
				.kind = str_or_empty(docs[i]->kind),
				.id = tr->id,
				.unit = str_or_empty(tr->unit),
				.doc = i,
				.seen = ne,
				.test = tr,
			};
			ne++;
		}
	}
	if (ne)
		qsort(e, ne, sizeof(*e), entry_cmp);

	/* The first entry of each key stands for its row. */
	firsts = calloc(ne ? ne : 1, sizeof(*firsts));
	if (!firsts)
		goto fail;
	for (size_t i = 0; i < ne; i++)
		if (!i || key_cmp(&e[i - 1], &e[i]))
			firsts[t->nrows++] = &e[i];
	if (t->nrows > FSB_COMPARE_MAX_ROWS) {
		err = -E2BIG;
		goto fail;
	}
	if (t->nrows)
		qsort(firsts, t->nrows, sizeof(*firsts), row_cmp);

	t->rows = calloc(t->nrows ? t->nrows : 1, sizeof(*t->rows));
	t->cells = calloc(t->nrows && t->ncols ? t->nrows * t->ncols : 1, sizeof(*t->cells));
	t->cell_docs = calloc(t->nrows && t->ncols ? t->nrows * t->ncols : 1,
			      sizeof(*t->cell_docs));
	t->work = calloc(t->nrows && t->ncols ? t->nrows * t->ncols : 1, sizeof(*t->work));
	t->row_work = calloc(t->nrows ? t->nrows : 1, sizeof(*t->row_work));
	if (!t->rows || !t->cells || !t->cell_docs || !t->work || !t->row_work)
		goto fail;
	for (size_t r = 0; r < t->nrows; r++) {
		t->rows[r] = (struct fsb_compare_row){ .kind = firsts[r]->kind,
						       .id = firsts[r]->id,
						       .unit = firsts[r]->unit };
		firsts[r]->row = r;
	}
	/*
	 * Entries of a key follow its first in appearance order, so the first
	 * document (and first test) with a figure fills its cell.
	 */
	for (size_t i = 0, row = 0; i < ne; i++) {
		const struct fsb_test_result **cell;

		if (!i || key_cmp(&e[i - 1], &e[i]))
			row = e[i].row;
		cell = &t->cells[row * t->ncols + col_of[e[i].doc]];
		if (!*cell) {
			*cell = e[i].test;
			t->cell_docs[row * t->ncols + col_of[e[i].doc]] = docs[e[i].doc];
		}
	}
	work_fill(t);
	if ((err = name_rows(t)))
		goto fail;
	free(firsts);
	free(e);
	free(col_of);
	return 0;
fail:
	free(firsts);
	free(e);
	free(col_of);
	fsb_compare_table_release(t);
	return err;
}

void fsb_compare_table_release(struct fsb_compare_table *t)
{
	for (size_t r = 0; t->rows && r < t->nrows; r++)
		free(t->rows[r].name);
	free(t->rows);
	free(t->cols);
	free(t->cells);
	free(t->cell_docs);
	free(t->work);
	free(t->row_work);
	memset(t, 0, sizeof(*t));
}

/* ---- the work ---------------------------------------------------------- */

/* The tests each parameter changes (NULL ends a list). */
static const char *const chars_tests[] = { "putc", "getc", NULL };
static const char *const io_tests[] = { "write",    "rewrite",	 "read", "seeks",
					"randread", "randwrite", NULL };
static const char *const write_tests[] = { "write", "rewrite", "randwrite", NULL };
static const char *const data_tests[] = { "write",	 "rewrite",   "read",	    "seeks",
					  "randread",	 "randwrite", "seq-create", "seq-stat",
					  "rand-create", "rand-stat", NULL };

/* Which tests' figures a parameter changes: a list, or every run test. */
struct work_param {
	const char *name;
	const char *const *tests; /* NULL: every test of a run */
	bool other_ids;		  /* and ids fsbench has no test of (fio's own rows) */
};

static const struct work_param work_params[FSB_WORK_NPARAMS] = {
	[FSB_WORK_CHAR_IO] = { "char-io", chars_tests, false },
	[FSB_WORK_IO_SIZE] = { "I/O size", io_tests, true },
	[FSB_WORK_ENGINE] = { "engine", io_tests, true },
	[FSB_WORK_IODEPTH] = { "iodepth", io_tests, true },
	[FSB_WORK_DATA] = { "data", data_tests, false },
	[FSB_WORK_CACHE] = { "cache", NULL, true },
	[FSB_WORK_JOBS] = { "jobs", NULL, true },
	[FSB_WORK_FSYNC] = { "fsync", write_tests, true },
};

const char *fsb_work_param_name(enum fsb_work_param p)
{
	return p < FSB_WORK_NPARAMS ? work_params[p].name : "?";
}

static bool in_list(const char *const *list, const char *id)
{
	for (; *list; list++)
		if (!strcmp(*list, id))
			return true;
	return false;
}

/* fsbench's own run tests: an id outside them is another tool's row. */
static bool own_id(const char *id)
{
	for (size_t i = 0; i < NELEM(run_order); i++)
		if (!strcmp(run_order[i], id))
			return true;
	return false;
}

static bool param_applies(enum fsb_work_param p, const struct fsb_result *r,
			  const struct fsb_test_result *t)
{
	const struct work_param *w = &work_params[p];

	if (!t->id || (r->kind && strcmp(r->kind, "run")))
		return false;
	if (!w->tests)
		return true;
	/* Empty files (--files N without sizes) hold no data to differ in. */
	if (p == FSB_WORK_DATA && strstr(t->id, "-") && !fsb_result_get_u64(r, "file_max_bytes", 0))
		return false;
	return in_list(w->tests, t->id) || (w->other_ids && !own_id(t->id));
}

static bool tool_is(const struct fsb_result *r, const char *name)
{
	size_t n = strlen(name);

	return r->source && r->tool && !strncmp(r->tool, name, n) &&
	       (!r->tool[n] || r->tool[n] == ' ');
}

/*
 * fio's value of option key for the job that gave test t. The importer
 * keeps one value when the jobs agree, else "JOB=value, ..." (its
 * "default" where fio's default holds); the job of a row is in its id
 * ("fio:JOB:write"), or for fsbench's ids the first job of that kind in
 * the "jobs" param ("JOB (write), ..."). NULL when the option was never
 * set (fio's default) and "" when the job cannot be told.
 */
static const char *fio_option(const struct fsb_result *r, const struct fsb_test_result *t,
			      const char *key, char *buf, size_t len)
{
	const char *v = fsb_result_get_str(r, key, NULL), *p;
	char job[160] = "";

	if (!v || !strstr(v, "="))
		return v;
	if (!strncmp(t->id, "fio:", 4)) {
		const char *end = strrchr(t->id, ':');
		size_t n = end && end > t->id + 4 ? (size_t)(end - t->id - 4) : 0;

		snprintf(job, sizeof(job), "%.*s", (int)n, t->id + 4);
		if ((p = strrchr(job, '[')) && p[strlen(p) - 1] == ']')
			job[p - job] = '\0';
	} else {
		const char *jobs = fsb_result_get_str(r, "jobs", ""), *k;
		char kind[48];

		snprintf(kind, sizeof(kind), " (%s)", t->id);
		for (p = jobs; *p; p = k + strlen(kind) + (k[strlen(kind)] == ',') * 2) {
			if (!(k = strstr(p, kind)))
				break;
			if (k[strlen(kind)] == ',' || !k[strlen(kind)]) {
				/* The name starts after the ", " before it. */
				const char *start = p;

				for (const char *q = p; q + 1 < k; q++)
					if (q[0] == ',' && q[1] == ' ')
						start = q + 2;
				snprintf(job, sizeof(job), "%.*s", (int)(k - start), start);
				break;
			}
		}
	}
	if (!job[0])
		return "";
	for (p = v; *p;) {
		size_t n = strcspn(p, ",");

		if (!strncmp(p, job, strlen(job)) && p[strlen(job)] == '=') {
			size_t off = strlen(job) + 1;

			snprintf(buf, len, "%.*s", n > off ? (int)(n - off) : 0, p + off);
			return strcmp(buf, "default") ? buf : NULL;
		}
		p += n;
		p += strspn(p, ", ");
	}
	return "";
}

/* A size in words: "8 KiB"; a text that is no size stays as written. */
static void size_words(const char *s, char *buf, size_t len)
{
	uint64_t b;

	if (!fsb_size_parse(s, &b))
		fsb_size_format_human(b, buf, len);
	else
		snprintf(buf, len, "%s", s);
}

static bool fio_value(const struct fsb_result *r, const struct fsb_test_result *t,
		      enum fsb_work_param p, char *buf, size_t len)
{
	char opt[160];
	const char *v;

	switch (p) {
	case FSB_WORK_IO_SIZE:
		/* fio's default block size is 4 KiB. */
		v = fio_option(r, t, "bs", opt, sizeof(opt));
		size_words(v ? v : "4k", buf, len);
		break;
	case FSB_WORK_ENGINE:
		/* fio's default engine on Linux is psync. */
		v = fio_option(r, t, "ioengine", opt, sizeof(opt));
		snprintf(buf, len, "%s", v ? v : "psync");
		break;
	case FSB_WORK_IODEPTH:
		v = fio_option(r, t, "iodepth", opt, sizeof(opt));
		snprintf(buf, len, "%s", v ? v : "1");
		break;
	case FSB_WORK_CACHE:
		/* fio's buffered I/O invalidates the file's cache at the start. */
		v = fio_option(r, t, "direct", opt, sizeof(opt));
		if (v && !*v)
			return false;
		snprintf(buf, len, "%s", v && !strcmp(v, "1") ? "direct" : "fio buffered");
		break;
	case FSB_WORK_JOBS:
		v = fio_option(r, t, "numjobs", opt, sizeof(opt));
		snprintf(buf, len, "%s", v ? v : "1");
		break;
	case FSB_WORK_FSYNC:
		/* fio flushes only when told: end_fsync, fsync=N, fdatasync=N. */
		if ((v = fio_option(r, t, "fsync", opt, sizeof(opt))) && strcmp(v, "0"))
			snprintf(buf, len, "every %s writes", v);
		else if ((v = fio_option(r, t, "fdatasync", opt, sizeof(opt))) && strcmp(v, "0"))
			snprintf(buf, len, "fdatasync every %s writes", v);
		else if ((v = fio_option(r, t, "end_fsync", opt, sizeof(opt))) && strcmp(v, "0"))
			snprintf(buf, len, "at the end");
		else
			snprintf(buf, len, "none");
		break;
	default:
		return false;
	}
	return buf[0] != '\0';
}

/* bonnie++'s file: its chunk size, per-char mode (the importer's
 * char_io, by version) and concurrency; nothing of the rest. */
static bool bonnie_value(const struct fsb_result *r, const struct fsb_test_result *t,
			 enum fsb_work_param p, char *buf, size_t len)
{
	const struct fsb_param *q;

	switch (p) {
	case FSB_WORK_CHAR_IO:
		q = fsb_result_param(r, "char_io");
		if (!q || q->type != FSB_PARAM_STR || !q->s)
			return false;
		snprintf(buf, len, "%s", q->s);
		return true;
	case FSB_WORK_IO_SIZE:
		if (!strcmp(t->id, "randread") || !strcmp(t->id, "randwrite"))
			return false;
		q = fsb_result_param(r, "chunk_bytes");
		if (!q || q->type != FSB_PARAM_U64)
			return false;
		fsb_size_format_human(q->u, buf, len);
		return true;
	case FSB_WORK_JOBS:
		snprintf(buf, len, "%llu",
			 (unsigned long long)fsb_result_get_u64(r, "concurrency", 1));
		return true;
	default:
		return false;
	}
}

/* fsbench's own document; an older one without a key ran its default
 * then (psync at depth 1 before engines existed, random data). */
static bool own_value(const struct fsb_result *r, const struct fsb_test_result *t,
		      enum fsb_work_param p, char *buf, size_t len)
{
	const struct fsb_param *q;
	bool rnd = !strcmp(t->id, "randread") || !strcmp(t->id, "randwrite");

	switch (p) {
	case FSB_WORK_CHAR_IO:
		snprintf(buf, len, "%s", fsb_result_get_str(r, "char_io", "stdio"));
		break;
	case FSB_WORK_IO_SIZE:
		q = fsb_result_param(r, rnd ? "block_size_bytes" : "chunk_bytes");
		if (!q || q->type != FSB_PARAM_U64)
			return false;
		fsb_size_format_human(q->u, buf, len);
		break;
	case FSB_WORK_ENGINE:
		snprintf(buf, len, "%s", fsb_result_get_str(r, "engine", "psync"));
		break;
	case FSB_WORK_IODEPTH:
		snprintf(buf, len, "%llu", (unsigned long long)fsb_result_get_u64(r, "iodepth", 1));
		break;
	case FSB_WORK_DATA:
		snprintf(buf, len, "%s", fsb_result_get_str(r, "data", "random"));
		break;
	case FSB_WORK_CACHE:
		if (!fsb_result_get_str(r, "cache", NULL))
			return false;
		snprintf(buf, len, "%s", fsb_result_get_str(r, "cache", ""));
		break;
	case FSB_WORK_JOBS:
		snprintf(buf, len, "%u", fsb_result_jobs(r));
		break;
	case FSB_WORK_FSYNC:
		/* Every writing test fsyncs before its clock stops. */
		snprintf(buf, len, "at the end");
		break;
	default:
		return false;
	}
	return true;
}

bool fsb_compare_any_work(const struct fsb_compare_table *t)
{
	for (size_t r = 0; r < t->nrows; r++)
		if (t->row_work[r])
			return true;
	return false;
}

bool fsb_work_value(const struct fsb_result *r, const struct fsb_test_result *t,
		    enum fsb_work_param p, char *buf, size_t len)
{
	bool known;

	if (len)
		buf[0] = '\0';
	if (!r || !t || p >= FSB_WORK_NPARAMS || !param_applies(p, r, t))
		return false;
	if (!r->source)
		known = own_value(r, t, p, buf, len);
	else if (tool_is(r, "fio"))
		known = fio_value(r, t, p, buf, len);
	else if (tool_is(r, "bonnie++"))
		known = bonnie_value(r, t, p, buf, len);
	else
		known = false;
	return known && buf[0];
}

unsigned fsb_work_differs(const struct fsb_result *ra, const struct fsb_test_result *a,
			  const struct fsb_result *rb, const struct fsb_test_result *b)
{
	unsigned mask = 0;

	if (!ra || !a || !rb || !b)
		return 0;
	for (int p = 0; p < FSB_WORK_NPARAMS; p++) {
		char va[160], vb[160];

		if (fsb_work_value(ra, a, (enum fsb_work_param)p, va, sizeof(va)) &&
		    fsb_work_value(rb, b, (enum fsb_work_param)p, vb, sizeof(vb)) && strcmp(va, vb))
			mask |= 1u << p;
	}
	/* No I/O beside I/O, whatever else either file says. */
	if (fsb_test_harness_only(ra, a) != fsb_test_harness_only(rb, b))
		mask |= 1u << FSB_WORK_ENGINE;
	return mask;
}

char *fsb_work_names(unsigned mask, char *buf, size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	for (int p = 0; p < FSB_WORK_NPARAMS && len; p++) {
		int n;

		if (!(mask & (1u << p)))
			continue;
		n = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", work_params[p].name);
		if (n < 0 || (size_t)n >= len - at)
			break;
		at += (size_t)n;
	}
	return buf;
}

/* A value as a reader needs it: what the null engine and the per-char
 * modes mean. */
static void value_words(enum fsb_work_param p, const char *v, char *buf, size_t len)
{
	if (p == FSB_WORK_ENGINE && !strcmp(v, "null"))
		snprintf(buf, len, "null (no I/O: the harness's own cost)");
	else if (p == FSB_WORK_CHAR_IO && !strcmp(v, "stdio"))
		snprintf(buf, len, "stdio putc/getc");
	else if (p == FSB_WORK_CHAR_IO && !strcmp(v, "syscall"))
		snprintf(buf, len, "one-byte write(2)/read(2)");
	else
		snprintf(buf, len, "%s", v);
}

int fsb_compare_work_print(FILE *out, const struct fsb_compare_table *t, const char *prefix)
{
	char lab[40 * 4 + 8], v[160], words[200];

	for (size_t r = 0; r < t->nrows; r++) {
		bool first = true;

		if (!t->row_work[r])
			continue;
		fputs(prefix, out);
		fputs("  ", out);
		fputs(fsb_text_safe(t->rows[r].name, 40, lab, sizeof(lab)), out);
		fputc(':', out);
		for (int p = 0; p < FSB_WORK_NPARAMS; p++) {
			size_t k = 0;

			if (!(t->row_work[r] & (1u << p)))
				continue;
			fprintf(out, "%s %s", first ? "" : ";", work_params[p].name);
			first = false;
			for (size_t c = 0; c < t->ncols; c++) {
				const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);
				const struct fsb_result *doc = fsb_compare_cell_doc(t, r, c);

				if (!cell)
					continue;
				if (!fsb_work_value(doc, cell, (enum fsb_work_param)p, v,
						    sizeof(v)))
					snprintf(v, sizeof(v), "%s",
						 p == FSB_WORK_ENGINE &&
								 fsb_test_harness_only(doc, cell)
							 ? "null"
							 : "not recorded");
				value_words((enum fsb_work_param)p, v, words, sizeof(words));
				fprintf(out, "%s %s (", k++ ? "," : "",
					fsb_text_safe(words, 0, v, sizeof(v)));
				fputs(fsb_text_safe(t->cols[c].label, 40, lab, sizeof(lab)), out);
				fputc(')', out);
			}
		}
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

enum fsb_compare_verdict fsb_compare_cell_verdict(const struct fsb_compare_table *t, size_t r,
						  size_t c)
{
	const struct fsb_test_result *base = fsb_compare_cell(t, r, 0),
				     *x = fsb_compare_cell(t, r, c);

	if (c && fsb_compare_cell_work(t, r, c) && base && x && !base->not_measured &&
	    !x->not_measured)
		return FSB_CMP_WORK;
	return fsb_compare_verdict(base, x);
}

double fsb_compare_cell_ratio(const struct fsb_compare_table *t, size_t r, size_t c)
{
	if (c && fsb_compare_cell_work(t, r, c))
		return NAN;
	return fsb_compare_ratio(fsb_compare_cell(t, r, 0), fsb_compare_cell(t, r, c));
}

char *fsb_compare_cell_ratio_text(const struct fsb_compare_table *t, size_t r, size_t c, char *buf,
				  size_t len)
{
	char names[120];

	if (fsb_compare_cell_verdict(t, r, c) == FSB_CMP_WORK) {
		snprintf(buf, len, "differs: %s",
			 fsb_work_names(fsb_compare_cell_work(t, r, c), names, sizeof(names)));
		return buf;
	}
	return fsb_compare_ratio_text(fsb_compare_cell(t, r, 0), fsb_compare_cell(t, r, c), buf,
				      len);
}

/* ---- the set of inputs -------------------------------------------------- */

/* Far more than any matrix fsbench writes; bounds what a hostile file costs. */
#define MAX_SETUPS 1024
#define MAX_SETUP_RESULTS 16
/* Inputs in one set: far more columns than anyone reads. */
#define MAX_INPUTS 1024

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static bool label_taken(const struct fsb_compare_set *s, const char *label, const char *kind)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->labels[i], label) &&
		    !strcmp(str_or_empty(s->docs[i]->kind), str_or_empty(kind)))
			return true;
	return false;
}

static char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *dup_printf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/*
 * Append doc (taking it over; on failure it is released) labelled want,
 * or a distinct variant of it when an input of the same kind already has
 * that label, so that no two figures ever fight for one cell.
 */
static int set_add(struct fsb_compare_set *s, struct fsb_result *doc, const char *want,
		   const char *path)
{
	struct fsb_result *copy = NULL;
	char *label = NULL, *source = NULL, **nl, **ns;
	struct fsb_result **nd;

	if (s->n >= MAX_INPUTS) {
		fsb_result_release(doc);
		return -E2BIG;
	}
	if (!label_taken(s, want, doc->kind)) {
		label = strdup(want);
	} else {
		label = dup_printf("%s (%s)", want, base_name(path));
		/* Numbered by position, so a long run of twins stays linear. */
		for (size_t k = s->n + 1; label && label_taken(s, label, doc->kind); k++) {
			free(label);
			label = dup_printf("%s (%s, %zu)", want, base_name(path), k);
		}
	}
	source = strdup(path);
	copy = malloc(sizeof(*copy));
	nd = realloc(s->docs, (s->n + 1) * sizeof(*nd));
	if (nd)
		s->docs = nd;
	nl = realloc(s->labels, (s->n + 1) * sizeof(*nl));
	if (nl)
		s->labels = nl;
	ns = realloc(s->sources, (s->n + 1) * sizeof(*ns));
	if (ns)
		s->sources = ns;
	if (!label || !source || !copy || !nd || !nl || !ns) {
		free(label);
		free(source);
		free(copy);
		fsb_result_release(doc);
		return -ENOMEM;
	}
	*copy = *doc;
	memset(doc, 0, sizeof(*doc));
	s->docs[s->n] = copy;
	s->labels[s->n] = label;
	s->sources[s->n] = source;
	s->n++;
	return 0;
}

static void set_add_why(int err, char *why, size_t why_len)
{
	if (err == -E2BIG)
		snprintf(why, why_len, "more than %d results in all", MAX_INPUTS);
	else
		snprintf(why, why_len, "out of memory");
}

/* Drop the inputs after the first n (a file that failed half-way). */
static void set_truncate(struct fsb_compare_set *s, size_t n)
{
	while (s->n > n) {
		s->n--;
		fsb_result_release(s->docs[s->n]);
		free(s->docs[s->n]);
		free(s->labels[s->n]);
		free(s->sources[s->n]);
	}
}

void fsb_compare_set_release(struct fsb_compare_set *s)
{
	set_truncate(s, 0);
	free(s->docs);
	free(s->labels);
	free(s->sources);
	memset(s, 0, sizeof(*s));
}

static bool is_matrix(struct json_object *doc)
{
	struct json_object *kind;

	return json_object_is_type(doc, json_type_object) &&
	       json_object_object_get_ex(doc, "kind", &kind) &&
	       json_object_is_type(kind, json_type_string) &&
	       !strcmp(json_object_get_string(kind), "matrix");
}

/* A string member without NULs, or NULL when absent / not such a string. */
static const char *get_string(struct json_object *o, const char *key)
{
	struct json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	return (size_t)json_object_get_string_len(v) == strlen(s) ? s : NULL;
}

/* The matrix document's own head: the same rules as a single result's. */
static int matrix_head(struct json_object *doc, char *why, size_t why_len)
{
	struct json_object *v;
	int64_t fv;

	if (!json_object_object_get_ex(doc, "format_version", &v) || !v) {
		snprintf(why, why_len, "format_version is missing");
		return -EINVAL;
	}
	if (!json_object_is_type(v, json_type_int)) {
		snprintf(why, why_len, "format_version is not an integer");
		return -EINVAL;
	}
	fv = json_object_get_int64(v);
	if (fv < 1) {
		snprintf(why, why_len, "format_version %lld is not valid", (long long)fv);
		return -EINVAL;
	}
	if (fv > FSB_FORMAT_VERSION) {
		snprintf(why, why_len, "format_version %lld is newer than this fsbench reads (%d)",
			 (long long)fv, FSB_FORMAT_VERSION);
		return -EINVAL;
	}
	/* DESIGN.md's matrix shape has no "tool"; when present it must be ours. */
	if (json_object_object_get_ex(doc, "tool", &v) && v) {
		const char *tool = get_string(doc, "tool");

		if (!tool || strcmp(tool, "fsbench")) {
			snprintf(why, why_len, "tool is not 'fsbench'");
			return -EINVAL;
		}
	}
	return 0;
}

static int load_matrix(struct fsb_compare_set *s, struct json_object *doc, const char *path,
		       char *why, size_t why_len)
{
	struct json_object *setups;
	size_t nsetups, added = s->n;
	char *label = NULL;
	int err;

	if ((err = matrix_head(doc, why, why_len)))
		return err;
	if (!json_object_object_get_ex(doc, "setups", &setups) || !setups) {
		snprintf(why, why_len, "setups is missing");
		return -EINVAL;
	}
	if (!json_object_is_type(setups, json_type_array)) {
		snprintf(why, why_len, "setups is not an array");
		return -EINVAL;
	}
	nsetups = json_object_array_length(setups);
	if (nsetups > MAX_SETUPS) {
		snprintf(why, why_len, "setups has more than %d entries", MAX_SETUPS);
		return -EINVAL;
	}
	for (size_t i = 0; i < nsetups; i++) {
		struct json_object *setup = json_object_array_get_idx(setups, i), *results;
		char fallback[64];
		size_t nres;

		if (!setup || !json_object_is_type(setup, json_type_object)) {
			snprintf(why, why_len, "setups[%zu] is not an object", i);
			err = -EINVAL;
			goto out;
		}
		/* The label as the writer had it (its label_bytes, report/json.h). */
		snprintf(fallback, sizeof(fallback), "setups[%zu].", i);
		free(label);
		label = NULL;
		if ((err = fsb_json_get_text(setup, fallback, "label", &label, why, why_len)) < 0)
			goto out;
		if (!json_object_object_get_ex(setup, "results", &results) || !results) {
			snprintf(why, why_len, "setups[%zu].results is missing", i);
			err = -EINVAL;
			goto out;
		}
		if (!json_object_is_type(results, json_type_array)) {
			snprintf(why, why_len, "setups[%zu].results is not an array", i);
			err = -EINVAL;
			goto out;
		}
		nres = json_object_array_length(results);
		if (nres > MAX_SETUP_RESULTS) {
			snprintf(why, why_len, "setups[%zu].results has more than %d entries", i,
				 MAX_SETUP_RESULTS);
			err = -EINVAL;
			goto out;
		}
		if (!nres) {
			char name[256], error[512];

			/* A setup that failed in the matrix run: say so, show the rest
			 * (fsb_warn escapes what the file held; here it is only cut). */
			fsb_text_safe(label ? label : "", 60, name, sizeof(name));
			fsb_text_safe(get_string(setup, "error") ? get_string(setup, "error")
								 : "no error recorded",
				      120, error, sizeof(error));
			fsb_warn("'%s': setup %zu '%s' has no results (%s)", path, i + 1, name,
				 error);
			continue;
		}
		for (size_t j = 0; j < nres; j++) {
			struct fsb_result r;
			char sub[160];

			err = fsb_json_to_result(json_object_array_get_idx(results, j), &r, sub,
						 sizeof(sub));
			if (err) {
				snprintf(why, why_len, "setups[%zu].results[%zu]: %s", i, j,
					 err == -ENOMEM ? "out of memory" : sub);
				goto out;
			}
			if (!label || !label[0]) {
				/* No setup label: the result's own, else its place. */
				if (r.setup.label && r.setup.label[0])
					snprintf(fallback, sizeof(fallback), "%.60s",
						 r.setup.label);
				else
					snprintf(fallback, sizeof(fallback), "setup %zu", i + 1);
			}
			err = set_add(s, &r, label && label[0] ? label : fallback, path);
			if (err) {
				set_add_why(err, why, why_len);
				goto out;
			}
		}
	}
	err = 0;
	if (s->n == added) {
		snprintf(why, why_len, "the matrix holds no results");
		err = -EINVAL;
	}
out:
	free(label);
	return err;
}

int fsb_compare_set_add_json(struct fsb_compare_set *s, struct json_object *doc, const char *path,
			     char *why, size_t why_len)
{
	struct fsb_result r;
	size_t before = s->n;
	int err;

	if (is_matrix(doc)) {
		err = load_matrix(s, doc, path, why, why_len);
	} else if (fsb_import_is_fio(doc)) {
		err = fsb_import_fio(doc, path, &r, why, why_len);
		if (!err && (err = set_add(s, &r, base_name(path), path)))
			set_add_why(err, why, why_len);
	} else {
		err = fsb_json_to_result(doc, &r, why, why_len);
		if (!err) {
			const char *label = r.setup.label && r.setup.label[0] ? r.setup.label
									      : base_name(path);
			char *copy = strdup(label);

			err = copy ? set_add(s, &r, copy, path) : -ENOMEM;
			free(copy);
			if (!copy)
				fsb_result_release(&r);
			if (err)
				set_add_why(err, why, why_len);
		}
	}
	if (err)
		set_truncate(s, before);
	return err;
}

/* Each line of a bonnie++ CSV file, one input each, labelled by the importer. */
static int add_bonnie(struct fsb_compare_set *s, const char *buf, size_t len, const char *path,
		      char *why, size_t why_len)
{
	struct fsb_import_list list;
	size_t before = s->n;
	int err = fsb_import_bonnie(buf, len, path, &list, why, why_len);

	for (size_t i = 0; !err && i < list.n; i++) {
		struct fsb_result *r = &list.docs[i];
		char *label = strdup(r->setup.label ? r->setup.label : base_name(path));

		err = label ? set_add(s, r, label, path) : -ENOMEM;
		free(label);
		if (err)
			set_add_why(err, why, why_len);
	}
	if (err)
		set_truncate(s, before);
	fsb_import_list_release(&list);
	return err;
}

static bool all_blank(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n", buf[i]) || !buf[i])
			return false;
	return true;
}

int fsb_compare_set_add_buffer(struct fsb_compare_set *s, const char *buf, size_t len,
			       const char *path, char *why, size_t why_len)
{
	struct json_object *doc;
	size_t at = 0;
	int err;

	if (why && why_len)
		why[0] = '\0';
	/* Whatever the file is, a byte order mark before it is no part of it. */
	at = fsb_import_bom(buf, len);
	buf += at;
	len -= at;
	at = 0;
	if (all_blank(buf, len)) {
		snprintf(why, why_len, "empty file");
		return -EINVAL;
	}
	switch (fsb_import_sniff(buf, len, &at)) {
	case FSB_IMPORT_BONNIE:
		return add_bonnie(s, buf, len, path, why, why_len);
	case FSB_IMPORT_JSON:
	case FSB_IMPORT_FIO:
		doc = fsb_json_parse(buf + at, len - at, why, why_len);
		if (!doc)
			return -EINVAL;
		/* Lines of text before a JSON document: only fio writes that. */
		if (at && !fsb_import_is_fio(doc)) {
			fsb_import_unknown_why(buf, len, why, why_len);
			err = -EINVAL;
		} else {
			err = fsb_compare_set_add_json(s, doc, path, why, why_len);
		}
		json_object_put(doc);
		return err;
	default:
		fsb_import_unknown_why(buf, len, why, why_len);
		return -EINVAL;
	}
}

int fsb_compare_set_load(struct fsb_compare_set *s, const char *path)
{
	char *buf = NULL, why[256] = "";
	size_t len = 0;
	int err;

	/* The same bound and words as for a JSON result, whatever the file is. */
	err = fsb_read_file(path, FSB_JSON_MAX_BYTES, &buf, &len);
	if (err == -EFBIG) {
		fsb_err("cannot read '%s': larger than %zu MiB, not a result file", path,
			FSB_JSON_MAX_BYTES >> 20);
		return -EINVAL;
	}
	if (err == -EINVAL) {
		fsb_err("cannot read '%s': not a regular file", path);
		return err;
	}
	if (err) {
		fsb_err_errno(err, "cannot read '%s'", path);
		return err;
	}
	err = fsb_compare_set_add_buffer(s, buf, len, path, why, sizeof(why));
	free(buf);
	if (err)
		fsb_err("cannot read '%s': %s", path, why);
	return err;
}

int fsb_compare_set_load_all(struct fsb_compare_set *s, char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int err;

		if (fsb_stop_requested())
			return -EINTR;
		err = fsb_compare_set_load(s, paths[i]);
		if (err)
			return err;
	}
	return 0;
}
