/*
 * The views of a comparison (report/compare.h): text, json and csv. Each
 * renders a finished table and never measures or reads files.
 */
#include "report/caveats.h"
#include "report/compare.h"
#include "report/json.h"
#include "report/markdown.h"
#include "report/writer.h"
#include "util/text.h"
#include "util/units.h"
#include "util/vocab.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest label the text table shows; JSON and CSV keep it whole. */
#define LABEL_CHARS 40

/* ---- text -------------------------------------------------------------- */

/*
 * The value of a cell: "512 MiB/s", "512 MiB/s !" when noisy, "-" when
 * absent, "not measured" for an imported "+++++" (never a number).
 */
static void value_text(const struct fsb_test_result *t, char *buf, size_t len)
{
	char v[64];

	if (!t) {
		snprintf(buf, len, "-");
		return;
	}
	if (t->not_measured) {
		snprintf(buf, len, "not measured");
		return;
	}
	fsb_unit_format(t->unit, t->median, v, sizeof(v));
	snprintf(buf, len, "%s%s", v, fsb_test_noisy(t) ? " !" : "");
}

/*
 * Each input's write amplification (device bytes written / bytes the test
 * wrote), where the text view of that input shows it: the tests with
 * device counters (has_wa). One line per input, in the table's row order.
 */
static void print_wa(FILE *out, const struct fsb_compare_table *t)
{
	char lab[LABEL_CHARS * 4 + 8];
	bool any = false;

	for (size_t c = 0; c < t->ncols; c++) {
		size_t k = 0;

		for (size_t r = 0; r < t->nrows; r++) {
			const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);

			if (!cell || !cell->has_wa)
				continue;
			if (!any)
				fputs("\nWrite amplification (device bytes written / bytes written):\n",
				      out);
			any = true;
			if (!k++) {
				fputs("  ", out);
				fputs(fsb_text_safe(t->cols[c].label, LABEL_CHARS, lab,
						    sizeof(lab)),
				      out);
				fputs(":", out);
			}
			fsb_text_safe(t->rows[r].name, LABEL_CHARS, lab, sizeof(lab));
			fprintf(out, "%s %s %.2f", k > 1 ? "," : "", lab,
				isfinite(cell->write_amplification) ? cell->write_amplification
								    : 0.0);
		}
		if (k)
			fputc('\n', out);
	}
}

/* Each input's figures as shares of its own raw device, when measured. */
static void print_fractions(FILE *out, const struct fsb_compare_set *set)
{
	char lab[LABEL_CHARS * 4 + 8];
	bool any = false;

	for (size_t i = 0; i < set->n; i++) {
		const struct fsb_result *r = set->docs[i];
		size_t k = 0;

		for (size_t j = 0; j < r->ntests; j++) {
			double frac;
			bool rough;

			if (!fsb_result_device_fraction(r, &r->tests[j], &frac, &rough))
				continue;
			if (!any)
				fputs("\nOf the device (each input's own, measured raw before it):\n",
				      out);
			any = true;
			if (!k++) {
				fputs("  ", out);
				fputs(fsb_text_safe(set->labels[i], LABEL_CHARS, lab, sizeof(lab)),
				      out);
				fputs(":", out);
			}
			fprintf(out, "%s %s %.0f%%%s", k > 1 ? "," : "",
				fsb_test_title(r->tests[j].id), frac * 100,
				rough ? " (rough)" : "");
		}
		if (k)
			fputc('\n', out);
	}
}

/* Whether doc has caveat c; its own copy (with its evidence) in *mine. */
static bool find_caveat(const struct fsb_result *doc, const struct fsb_caveat *c,
			struct fsb_caveat *mine)
{
	struct fsb_caveat cav[FSB_CAVEATS_MAX];
	size_t n = fsb_caveats_find(doc, cav, FSB_CAVEATS_MAX);

	for (size_t k = 0; k < n; k++) {
		if (fsb_caveat_same(&cav[k], c)) {
			if (mine)
				*mine = cav[k];
			return true;
		}
	}
	return false;
}

static bool has_caveat(const struct fsb_result *doc, const struct fsb_caveat *c)
{
	return find_caveat(doc, c, NULL);
}

/* Whether every input that has caveat c has it with the same evidence. */
static bool same_evidence(const struct fsb_compare_set *set, const struct fsb_caveat *c)
{
	struct fsb_caveat mine;

	for (size_t j = 0; j < set->n; j++)
		if (set->docs[j]->has_caveats && find_caveat(set->docs[j], c, &mine) &&
		    strcmp(mine.evidence, c->evidence))
			return false;
	return true;
}

/*
 * The caveats that differ between the inputs ("tmpfs: the storage is
 * memory", and nothing of it for the disk), each under its input's label,
 * then the ones every input shares, once. Only documents that carry
 * caveats take part: an older one says nothing either way.
 */
static void print_caveats(FILE *out, const struct fsb_compare_set *set)
{
	struct fsb_caveat cav[FSB_CAVEATS_MAX];
	char lab[LABEL_CHARS * 4 + 8], buf[600];
	size_t ndocs = 0, first = SIZE_MAX;
	bool any = false;

	for (size_t i = 0; i < set->n; i++) {
		if (set->docs[i]->has_caveats) {
			ndocs++;
			if (first == SIZE_MAX)
				first = i;
		}
	}
	if (!ndocs)
		return;
	for (size_t i = 0; i < set->n; i++) {
		size_t n = fsb_caveats_find(set->docs[i], cav, FSB_CAVEATS_MAX);

		for (size_t k = 0; k < n; k++) {
			bool everyone = true;

			for (size_t j = 0; j < set->n && everyone; j++)
				if (set->docs[j]->has_caveats && !has_caveat(set->docs[j], &cav[k]))
					everyone = false;
			if (everyone && ndocs > 1)
				continue;
			if (!any)
				fputs(ndocs > 1 ? "\nCaveats that differ between the inputs:\n"
						: "\nCaveats:\n",
				      out);
			any = true;
			fputs("  - ", out);
			if (ndocs > 1) {
				fputs(fsb_text_safe(set->labels[i], LABEL_CHARS, lab, sizeof(lab)),
				      out);
				fputs(": ", out);
			}
			fsb_caveat_put(out, &cav[k]);
		}
	}
	if (ndocs < 2)
		return;
	/* What every input shares: said once, with each input's evidence
	 * when theirs differ (the runs of a noisy figure). */
	any = false;
	for (size_t k = 0, n = fsb_caveats_find(set->docs[first], cav, FSB_CAVEATS_MAX); k < n;
	     k++) {
		bool everyone = true;

		for (size_t j = 0; j < set->n && everyone; j++)
			if (set->docs[j]->has_caveats && !has_caveat(set->docs[j], &cav[k]))
				everyone = false;
		if (!everyone)
			continue;
		if (!any)
			fputs("\nCaveats of every input:\n", out);
		any = true;
		fputs("  - ", out);
		if (same_evidence(set, &cav[k])) {
			fsb_caveat_put(out, &cav[k]);
			continue;
		}
		fprintf(out, "%s\n", fsb_text_safe(cav[k].text, 0, buf, sizeof(buf)));
		for (size_t j = 0; j < set->n; j++) {
			struct fsb_caveat mine;

			if (!set->docs[j]->has_caveats ||
			    !find_caveat(set->docs[j], &cav[k], &mine))
				continue;
			fprintf(out, "      %s: ",
				fsb_text_safe(set->labels[j], LABEL_CHARS, lab, sizeof(lab)));
			fprintf(out, "%s\n", fsb_text_safe(mine.evidence, 0, buf, sizeof(buf)));
		}
	}
}

/* "[1.20 – 1.31] GiB/s": a figure's 95% interval of the mean, in sc's
 * unit (one for both figures of a line, so that they read alike). */
static void ci_text(const struct fsb_test_result *t, const struct fsb_unit_scale *sc, char *buf,
		    size_t len)
{
	char lo[64], hi[96];

	fsb_unit_number(sc, t->ci95_low, lo, sizeof(lo));
	fsb_unit_with(sc, t->ci95_high, hi, sizeof(hi));
	snprintf(buf, len, "[%s – %s]", lo, hi);
}

/*
 * --repeat auto on both sides: whether the 95% confidence intervals of
 * the means overlap, per figure, against the first input.
 */
static void print_intervals(FILE *out, const struct fsb_compare_table *t)
{
	char a[200], b[200], lab[LABEL_CHARS * 4 + 8];
	struct fsb_unit_scale sc;
	bool head = false;

	for (size_t r = 0; r < t->nrows; r++) {
		const struct fsb_test_result *base = fsb_compare_cell(t, r, 0);

		for (size_t c = 1; c < t->ncols; c++) {
			const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);
			int ov = fsb_compare_ci_overlap(base, cell);

			if (ov < 0)
				continue;
			if (!head) {
				fputs("95% confidence intervals of the means (--repeat auto), against "
				      "the first input:\n",
				      out);
				head = true;
			}
			sc = fsb_unit_scale_for(base->unit, fmax(base->ci95_high, cell->ci95_high));
			ci_text(base, &sc, a, sizeof(a));
			ci_text(cell, &sc, b, sizeof(b));
			fputs("  ", out);
			fsb_text_safe(t->rows[r].name, LABEL_CHARS, lab, sizeof(lab));
			fputs(lab, out);
			fputs(", ", out);
			fsb_text_safe(t->cols[c].label, LABEL_CHARS, lab, sizeof(lab));
			fputs(lab, out);
			fprintf(out, ": %s and %s %s\n", a, b,
				ov ? "overlap (the runs cannot tell the means apart)"
				   : "do not overlap: the means differ at 95%");
		}
	}
	if (head)
		fputc('\n', out);
}

int fsb_compare_write_text(FILE *out, const struct fsb_compare_set *set,
			   const struct fsb_compare_table *t)
{
	size_t wname = 4, wlabel = 0, *wval, *wratio;
	char buf[256], lab[LABEL_CHARS * 4 + 8];
	bool unmeasured = false, single = false;
	int err = 0;

	wval = calloc(t->ncols, sizeof(*wval));
	wratio = calloc(t->ncols, sizeof(*wratio));
	if (!wval || !wratio) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t r = 0; r < t->nrows; r++) {
		fsb_text_safe(t->rows[r].name, LABEL_CHARS, lab, sizeof(lab));
		if (fsb_text_width(lab) > wname)
			wname = fsb_text_width(lab);
	}
	for (size_t c = 0; c < t->ncols; c++) {
		fsb_text_safe(t->cols[c].label, LABEL_CHARS, lab, sizeof(lab));
		wval[c] = fsb_text_width(lab);
		if (wval[c] > wlabel)
			wlabel = wval[c];
		for (size_t r = 0; r < t->nrows; r++) {
			const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);

			value_text(cell, buf, sizeof(buf));
			if (fsb_text_width(buf) > wval[c])
				wval[c] = fsb_text_width(buf);
			unmeasured |= cell && cell->not_measured;
			if (c && cell) {
				single |= fsb_compare_cell_verdict(t, r, c) == FSB_CMP_SINGLE;
				fsb_compare_cell_ratio_text(t, r, c, buf, sizeof(buf));
				if (fsb_text_width(buf) > wratio[c])
					wratio[c] = fsb_text_width(buf);
			}
		}
	}

	fsb_text_safe(t->cols[0].label, LABEL_CHARS, lab, sizeof(lab));
	if (t->ncols > 1)
		fprintf(out, "fsbench compare: %zu inputs, speed relative to '%s'\n", t->ncols,
			lab);
	else
		fputs("fsbench compare: 1 input\n", out);
	for (size_t c = 0; c < t->ncols; c++) {
		fputs("  ", out);
		fsb_text_safe(t->cols[c].label, LABEL_CHARS, lab, sizeof(lab));
		fsb_text_pad(out, lab, -(int)wlabel);
		fputs("  ", out);
		for (size_t i = 0, k = 0; i < set->n; i++) {
			if (strcmp(set->labels[i], t->cols[c].label))
				continue;
			if (set->docs[i]->source) {
				/* Another tool's file: say which, and that it is imported. */
				fsb_text_safe(set->docs[i]->source, 3 * LABEL_CHARS, buf,
					      sizeof(buf));
				fprintf(out, "%simported: %s", k++ ? ", " : "", buf);
				continue;
			}
			fsb_text_safe(set->sources[i], 2 * LABEL_CHARS, buf, sizeof(buf));
			fprintf(out, "%s%s (", k++ ? ", " : "", buf);
			fsb_text_put(out, set->docs[i]->kind ? set->docs[i]->kind : "?");
			fputc(')', out);
		}
		fputc('\n', out);
	}
	fputc('\n', out);

	fsb_text_pad(out, "test", -(int)wname);
	for (size_t c = 0; c < t->ncols; c++) {
		fputs("  ", out);
		fsb_text_safe(t->cols[c].label, LABEL_CHARS, lab, sizeof(lab));
		if (c == t->ncols - 1)
			fputs(lab, out);
		else
			fsb_text_pad(out, lab, -(int)(wval[c] + (c ? 2 + wratio[c] : 0)));
	}
	fputc('\n', out);
	for (size_t r = 0; r < t->nrows; r++) {
		char *line = NULL;
		size_t n = 0;
		FILE *mem = open_memstream(&line, &n);

		if (!mem) {
			err = -errno;
			goto out;
		}
		fsb_text_safe(t->rows[r].name, LABEL_CHARS, lab, sizeof(lab));
		fsb_text_pad(mem, lab, -(int)wname);
		for (size_t c = 0; c < t->ncols; c++) {
			const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);

			fputs("  ", mem);
			value_text(cell, buf, sizeof(buf));
			fsb_text_pad(mem, buf, -(int)wval[c]);
			if (!c)
				continue;
			fputs("  ", mem);
			if (cell)
				fsb_compare_cell_ratio_text(t, r, c, buf, sizeof(buf));
			else
				buf[0] = '\0';
			fsb_text_pad(mem, buf, -(int)wratio[c]);
		}
		if (fclose(mem) == EOF || !line) {
			free(line);
			err = -ENOMEM;
			goto out;
		}
		/* Trailing blanks help nobody. */
		for (; n && line[n - 1] == ' '; n--)
			line[n - 1] = '\0';
		fprintf(out, "%s\n", line);
		free(line);
	}
	if (!t->nrows)
		fputs("(no figures)\n", out);
	fputc('\n', out);
	print_intervals(out, t);
	if (t->ncols > 1)
		fputs("Speed is relative to the first input; for times, less is faster. '~': not\n"
		      "significant (the [min, max] ranges overlap, or a figure has a single run).\n",
		      out);
	if (single)
		fputs("'(single run)': a figure measured once (every imported one) has no spread:\n"
		      "its ratio is shown without a verdict.\n",
		      out);
	if (unmeasured)
		fputs("'not measured': bonnie++ printed +++++ (the test took under 0.5 s), or fio's\n"
		      "figure was 0 for a job that moved data; there is no figure to compare.\n",
		      out);
	fputs("'!': noisy (CV above 10%).\n", out);
	if (fsb_compare_any_work(t)) {
		fputs("\nDifferent work in one row: no ratio across it ('differs: ...'):\n", out);
		fsb_compare_work_print(out, t, "");
	}
	print_wa(out, t);
	print_fractions(out, set);
	print_caveats(out, set);
out:
	free(wval);
	free(wratio);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}

/* ---- json -------------------------------------------------------------- */

/* A sticky-error builder, as in report/json.c: check once at the end. */
struct jb {
	int err;
};

static void put(struct jb *b, struct json_object *obj, const char *key, struct json_object *v)
{
	if (b->err || !v || json_object_object_add(obj, key, v)) {
		json_object_put(v);
		b->err = -ENOMEM;
	}
}

/* A null member: json-c stores NULL as JSON null. */
static void put_null(struct jb *b, struct json_object *obj, const char *key)
{
	if (!b->err && json_object_object_add(obj, key, NULL))
		b->err = -ENOMEM;
}

static void append(struct jb *b, struct json_object *arr, struct json_object *v)
{
	if (b->err || !v || json_object_array_add(arr, v)) {
		json_object_put(v);
		b->err = -ENOMEM;
	}
}

static struct json_object *num(double v)
{
	return json_object_new_double(isfinite(v) ? v : 0.0);
}

static const char *verdict_name(const struct fsb_compare_table *tab, size_t r, size_t c)
{
	const struct fsb_test_result *t = fsb_compare_cell(tab, r, c);

	if (t && t->not_measured)
		return "not-measured";
	if (!c)
		return "baseline";
	switch (fsb_compare_cell_verdict(tab, r, c)) {
	case FSB_CMP_WORK:
		return "different-work";
	case FSB_CMP_SINGLE:
		return "single-run";
	case FSB_CMP_BETTER:
		return "faster";
	case FSB_CMP_WORSE:
		return "slower";
	case FSB_CMP_SAME:
		return "same";
	default:
		return "none";
	}
}

/* The names of a mask's work parameters (compare.h) as a JSON array. */
static struct json_object *work_json(struct jb *b, unsigned mask)
{
	struct json_object *arr = json_object_new_array();

	for (int p = 0; arr && p < FSB_WORK_NPARAMS; p++)
		if (mask & (1u << p))
			append(b, arr,
			       json_object_new_string(fsb_work_param_name((enum fsb_work_param)p)));
	return arr;
}

/* Each input's value of each parameter its row differs in: the evidence. */
static struct json_object *work_values_json(struct jb *b, const struct fsb_compare_table *t,
					    size_t r)
{
	struct json_object *o = json_object_new_object();

	for (int p = 0; o && !b->err && p < FSB_WORK_NPARAMS; p++) {
		struct json_object *vals;

		if (!(t->row_work[r] & (1u << p)))
			continue;
		vals = json_object_new_array();
		put(b, o, fsb_work_param_name((enum fsb_work_param)p), vals);
		for (size_t c = 0; vals && !b->err && c < t->ncols; c++) {
			char v[160];

			if (fsb_work_value(fsb_compare_cell_doc(t, r, c), fsb_compare_cell(t, r, c),
					   (enum fsb_work_param)p, v, sizeof(v)))
				append(b, vals, json_object_new_string(v));
			else if (!b->err && json_object_array_add(vals, NULL))
				b->err = -ENOMEM;
		}
	}
	return o;
}

static struct json_object *json_cell(struct jb *b, const struct fsb_compare_table *t, size_t r,
				     size_t c)
{
	const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);
	const struct fsb_test_result *base = fsb_compare_cell(t, r, 0);
	struct json_object *o;
	double ratio = c ? fsb_compare_cell_ratio(t, r, c) : 1.0;

	if (!cell)
		return NULL;
	if (cell->not_measured)
		ratio = NAN;
	o = json_object_new_object();
	if (!o) {
		b->err = -ENOMEM;
		return NULL;
	}
	put(b, o, "input", json_object_new_string(t->cols[c].label));
	if (cell->not_measured) {
		/* No figure, so no number: null, never 0. */
		put(b, o, "not_measured", json_object_new_boolean(1));
		put_null(b, o, "median");
		put_null(b, o, "min");
		put_null(b, o, "max");
		put_null(b, o, "cv");
	} else {
		put(b, o, "median", num(cell->median));
		put(b, o, "min", num(cell->min));
		put(b, o, "max", num(cell->max));
		put(b, o, "cv", num(cell->cv));
	}
	put(b, o, "runs", json_object_new_uint64(cell->nruns));
	/* As the text view: only for a test with device counters. */
	if (cell->has_wa)
		put(b, o, "write_amplification", num(cell->write_amplification));
	put(b, o, "noisy", json_object_new_boolean(fsb_test_noisy(cell)));
	/* Absent, not 0, when there is nothing to compare against. */
	if (isfinite(ratio))
		put(b, o, "ratio", num(ratio));
	put(b, o, "significant",
	    json_object_new_boolean(c && !fsb_compare_cell_work(t, r, c) &&
				    fsb_compare_significant(base, cell)));
	/* --repeat auto: the interval, and whether it overlaps the baseline's. */
	if (cell->has_ci) {
		put(b, o, "ci95_low", num(cell->ci95_low));
		put(b, o, "ci95_high", num(cell->ci95_high));
	}
	if (c && fsb_compare_ci_overlap(base, cell) >= 0)
		put(b, o, "ci_overlap",
		    json_object_new_boolean(fsb_compare_ci_overlap(base, cell)));
	put(b, o, "verdict", json_object_new_string(verdict_name(t, r, c)));
	if (fsb_compare_cell_work(t, r, c))
		put(b, o, "work_differs", work_json(b, fsb_compare_cell_work(t, r, c)));
	return o;
}

/*
 * Input i's caveats as JSON: id, test, text, evidence, and "differs" when
 * not every input that carries caveats has it.
 */
static struct json_object *caveats_json(struct jb *b, const struct fsb_compare_set *set, size_t i)
{
	struct fsb_caveat cav[FSB_CAVEATS_MAX];
	size_t n = fsb_caveats_find(set->docs[i], cav, FSB_CAVEATS_MAX);
	struct json_object *arr = json_object_new_array();

	for (size_t k = 0; arr && !b->err && k < n; k++) {
		struct json_object *o = json_object_new_object();
		bool everyone = true;

		for (size_t j = 0; j < set->n && everyone; j++)
			if (set->docs[j]->has_caveats && !has_caveat(set->docs[j], &cav[k]))
				everyone = false;
		append(b, arr, o);
		put(b, o, "id", json_object_new_string(cav[k].id));
		if (cav[k].test[0])
			put(b, o, "test", json_object_new_string(cav[k].test));
		put(b, o, "text", json_object_new_string(cav[k].text));
		put(b, o, "evidence", json_object_new_string(cav[k].evidence));
		put(b, o, "differs", json_object_new_boolean(!everyone));
	}
	return arr;
}

int fsb_compare_write_json(FILE *out, const struct fsb_compare_set *set,
			   const struct fsb_compare_table *t)
{
	struct json_object *doc = json_object_new_object(), *inputs, *rows;
	struct jb b = { 0 };
	int err = 0;

	if (!doc)
		return -ENOMEM;
	put(&b, doc, "format_version", json_object_new_int(FSB_FORMAT_VERSION));
	put(&b, doc, "tool", json_object_new_string("fsbench"));
	put(&b, doc, "version", json_object_new_string(FSB_VERSION));
	put(&b, doc, "kind", json_object_new_string("compare"));
	put(&b, doc, "baseline", json_object_new_string(t->ncols ? t->cols[0].label : ""));
	put(&b, doc, "rule",
	    json_object_new_string("ratio: speed relative to the baseline (above 1 is faster; "
				   "for unit s, baseline time / this time); significant: both "
				   "figures have at least 2 runs and their [min, max] ranges "
				   "do not overlap; no ratio where the work differs "
				   "(work_differs: char-io, I/O size, engine, iodepth, data, "
				   "cache, jobs, fsync)"));
	inputs = json_object_new_array();
	put(&b, doc, "inputs", inputs);
	for (size_t c = 0; !b.err && c < t->ncols; c++) {
		struct json_object *in = json_object_new_object(), *src = json_object_new_array();

		append(&b, inputs, in);
		put(&b, in, "label", json_object_new_string(t->cols[c].label));
		put(&b, in, "sources", src);
		for (size_t i = 0; !b.err && i < set->n; i++) {
			struct json_object *one;

			if (strcmp(set->labels[i], t->cols[c].label))
				continue;
			one = json_object_new_object();
			append(&b, src, one);
			put(&b, one, "file", json_object_new_string(set->sources[i]));
			put(&b, one, "kind",
			    json_object_new_string(set->docs[i]->kind ? set->docs[i]->kind : ""));
			if (set->docs[i]->source) {
				put(&b, one, "imported", json_object_new_boolean(1));
				put(&b, one, "tool",
				    json_object_new_string(set->docs[i]->tool ? set->docs[i]->tool
									      : ""));
				put(&b, one, "source",
				    json_object_new_string(set->docs[i]->source));
			}
			if (set->docs[i]->setup.fs_type)
				put(&b, one, "fs_type",
				    json_object_new_string(set->docs[i]->setup.fs_type));
			if (set->docs[i]->has_caveats)
				put(&b, one, "caveats", caveats_json(&b, set, i));
		}
	}
	rows = json_object_new_array();
	put(&b, doc, "rows", rows);
	for (size_t r = 0; !b.err && r < t->nrows; r++) {
		struct json_object *row = json_object_new_object();
		struct json_object *cells = json_object_new_array();

		append(&b, rows, row);
		put(&b, row, "name", json_object_new_string(t->rows[r].name));
		put(&b, row, "id", json_object_new_string(t->rows[r].id));
		put(&b, row, "kind", json_object_new_string(t->rows[r].kind));
		put(&b, row, "unit", json_object_new_string(t->rows[r].unit));
		put(&b, row, "lower_is_better",
		    json_object_new_boolean(fsb_compare_lower_is_better(t->rows[r].unit)));
		/* Where the inputs' work differs: each input's value (null where
		 * its file does not say), so no ratio is taken across it. */
		if (t->row_work[r])
			put(&b, row, "work_differs", work_values_json(&b, t, r));
		put(&b, row, "cells", cells);
		for (size_t c = 0; !b.err && c < t->ncols; c++) {
			struct json_object *cell = json_cell(&b, t, r, c);

			/* null marks an input without this figure; keeps columns aligned. */
			if (!b.err && json_object_array_add(cells, cell)) {
				json_object_put(cell);
				b.err = -ENOMEM;
			}
		}
	}
	if (b.err) {
		json_object_put(doc);
		return b.err;
	}
	err = fsb_json_print(out, doc);
	json_object_put(doc);
	return err;
}

/* ---- csv --------------------------------------------------------------- */

/*
 * RFC 4180: quote a field holding a comma or a quote. Controls are escaped
 * first (util/text.h), as everywhere a terminal may show the output, so no
 * field holds a line break; a field a spreadsheet would take for a formula
 * (a label "=HYPERLINK(...)" from an imported file) starts with a '.
 */
static int csv_field(FILE *out, const char *str)
{
	char *s = fsb_text_dup(str ? str : "");

	if (!s)
		return -ENOMEM;
	if (!strpbrk(s, ",\"")) {
		if (fsb_csv_formula(s))
			fputc('\'', out);
		fputs(s, out);
	} else {
		fputc('"', out);
		if (fsb_csv_formula(s))
			fputc('\'', out);
		for (const char *c = s; *c; c++) {
			if (*c == '"')
				fputc('"', out);
			fputc(*c, out);
		}
		fputc('"', out);
	}
	free(s);
	return 0;
}

int fsb_compare_write_csv(FILE *out, const struct fsb_compare_set *set,
			  const struct fsb_compare_table *t)
{
	(void)set;

	fputs("test,kind,unit,input,median,min,max,cv,runs,noisy,ratio,significant,verdict,"
	      "work_differs\n",
	      out);
	for (size_t r = 0; r < t->nrows; r++) {
		const struct fsb_test_result *base = fsb_compare_cell(t, r, 0);

		for (size_t c = 0; c < t->ncols; c++) {
			const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);
			double ratio = c ? fsb_compare_cell_ratio(t, r, c) : 1.0;
			char names[120];

			if (!cell)
				continue;
			if (cell->not_measured)
				ratio = NAN;
			if (csv_field(out, t->rows[r].id) || fputc(',', out) == EOF ||
			    csv_field(out, t->rows[r].kind) || fputc(',', out) == EOF ||
			    csv_field(out, t->rows[r].unit) || fputc(',', out) == EOF ||
			    csv_field(out, t->cols[c].label))
				return ferror(out) ? -EIO : -ENOMEM;
			if (cell->not_measured)
				/* Empty figures, never 0: there is no number. */
				fputs(",,,,,0,0,", out);
			else
				fprintf(out, ",%.6g,%.6g,%.6g,%.4g,%zu,%d,", cell->median,
					cell->min, cell->max, cell->cv, cell->nruns,
					fsb_test_noisy(cell));
			if (isfinite(ratio))
				fprintf(out, "%.4f", ratio);
			fprintf(out, ",%d,%s,",
				c && !fsb_compare_cell_work(t, r, c) &&
					fsb_compare_significant(base, cell),
				verdict_name(t, r, c));
			if (csv_field(out, fsb_work_names(fsb_compare_cell_work(t, r, c), names,
							  sizeof(names))))
				return -ENOMEM;
			fputc('\n', out);
		}
	}
	return ferror(out) ? -EIO : 0;
}
