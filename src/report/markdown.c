/*
 * Markdown tables for wikis and pull requests. GitHub renders a label
 * such as "a|b", "**x**", "<img src=...>", "[x](http://...)" or "@team"
 * as markup, a column break or a notification: every string taken from a
 * document is written through fsb_md_put, which leaves it as the text it
 * was. Numbers and fixed words are ours.
 */
#include "report/markdown.h"
#include "report/caveats.h"
#include "report/writer.h"
#include "util/error.h"
#include "util/text.h"
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int fsb_md_put(FILE *out, const char *s)
{
	/* ASCII punctuation GFM gives a meaning to inside a line; a backslash
	 * before any ASCII punctuation is a literal in every renderer. */
	static const char inline_marks[] = "\\`*_[]<>|~&$@!";
	/* Characters that start a heading, a list, a quote, a setext line or
	 * the alignment of a column when they open the text. */
	static const char leading_marks[] = "#+-=:";
	bool first = true;

	for (const char *p = s; p && *p;) {
		unsigned char ch = (unsigned char)*p;
		size_t n;

		if (ch < 0x20 || ch == 0x7f) {
			/* A cell is one line: a newline would end the row. */
			fputc(' ', out);
			p++;
		} else if (ch < 0x80) {
			if (strchr(inline_marks, ch) || (first && strchr(leading_marks, ch)))
				fputc('\\', out);
			fputc(ch, out);
			p++;
		} else if ((n = fsb_utf8_len(p)) == 0 ||
			   (ch == 0xc2 && (unsigned char)p[1] >= 0x80 &&
			    (unsigned char)p[1] <= 0x9f)) {
			/* Not UTF-8, or a C1 control: the replacement character. */
			fputs("\xef\xbf\xbd", out);
			p += n ? n : 1;
		} else {
			fwrite(p, 1, n, out);
			p += n;
		}
		first = false;
	}
	return ferror(out) ? -EIO : 0;
}

/* A cell: " text |". */
static void cell(FILE *out, const char *s)
{
	fputc(' ', out);
	fsb_md_put(out, s);
	fputs(" |", out);
}

static void write_inputs(FILE *out, const struct fsb_result *const *docs, const char *const *labels,
			 size_t n)
{
	fputs("| Input | Kind | Tool | Filesystem | Mount options | Kernel | Source |\n"
	      "|:--|:--|:--|:--|:--|:--|:--|\n|",
	      out);
	for (size_t i = 0; i < n; i++) {
		const struct fsb_result *d = docs[i];
		char tool[160];

		snprintf(tool, sizeof(tool), "%s%s%s", d->tool ? d->tool : "?",
			 d->version && !d->source ? " " : "",
			 d->version && !d->source ? d->version : "");
		cell(out, labels[i]);
		cell(out, d->kind);
		cell(out, tool);
		cell(out, d->setup.fs_type);
		cell(out, d->setup.mount_options);
		cell(out, d->host.kernel);
		cell(out, d->source ? d->source : "");
		fputs(i + 1 < n ? "\n|" : "\n", out);
	}
}

/* The value of a cell: "512 MiB/s", "... (noisy)", "not measured", "–". */
static void value(FILE *out, const struct fsb_test_result *t)
{
	char v[64];

	if (!t) {
		cell(out, "–");
		return;
	}
	if (t->not_measured) {
		cell(out, "not measured");
		return;
	}
	fsb_unit_format(t->unit, t->median, v, sizeof(v));
	if (fsb_test_noisy(t))
		strncat(v, " (noisy)", sizeof(v) - strlen(v) - 1);
	cell(out, v);
}

static void write_figures(FILE *out, const struct fsb_compare_table *t)
{
	char buf[96];

	fputs("| Test |", out);
	for (size_t c = 0; c < t->ncols; c++) {
		cell(out, t->cols[c].label);
		if (c) {
			fputs(" vs ", out);
			fsb_md_put(out, t->cols[0].label);
			fputs(" |", out);
		}
	}
	fputs("\n|:--|", out);
	for (size_t c = 0; c < t->ncols; c++)
		fputs(c ? "--:|:--|" : "--:|", out);
	fputc('\n', out);
	for (size_t r = 0; r < t->nrows; r++) {
		fputc('|', out);
		cell(out, t->rows[r].name);
		for (size_t c = 0; c < t->ncols; c++) {
			const struct fsb_test_result *x = fsb_compare_cell(t, r, c);

			value(out, x);
			if (!c)
				continue;
			if (x && fsb_compare_cell(t, r, 0))
				fsb_compare_cell_ratio_text(t, r, c, buf, sizeof(buf));
			else
				snprintf(buf, sizeof(buf), "–");
			cell(out, buf);
		}
		fputc('\n', out);
	}
}

static void us(FILE *out, double v, bool known)
{
	char buf[32];

	if (!known) {
		cell(out, "–");
		return;
	}
	fsb_unit_format_us(v, buf, sizeof(buf));
	cell(out, buf);
}

static void write_latency(FILE *out, const struct fsb_compare_table *t)
{
	bool any = false;

	for (size_t i = 0; i < t->nrows * t->ncols && !any; i++)
		any = t->cells[i] && t->cells[i]->has_latency;
	if (!any)
		return;
	fputs("\n## Latency\n\nOne operation (a chunk, a file, a seek); bonnie++ keeps the "
	      "slowest only.\n\n| Test | Input | p50 | p99 | p99.9 | max |\n"
	      "|:--|:--|--:|--:|--:|--:|\n",
	      out);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const struct fsb_test_result *x = fsb_compare_cell(t, r, c);
			bool pct;

			if (!x || !x->has_latency)
				continue;
			pct = !x->latency_max_only;
			fputc('|', out);
			cell(out, t->rows[r].name);
			cell(out, t->cols[c].label);
			us(out, x->latency.p50_us, pct);
			us(out, x->latency.p99_us, pct);
			us(out, x->latency.p999_us, pct);
			us(out, x->latency.max_us, true);
			fputc('\n', out);
		}
	}
}

/*
 * Write amplification (device bytes written / bytes the test wrote) of
 * every figure that has it, as the text view shows it: only tests with
 * device counters. Nothing when none has.
 */
static void write_wa(FILE *out, const struct fsb_compare_table *t)
{
	char buf[32];
	bool any = false;

	for (size_t i = 0; i < t->nrows * t->ncols && !any; i++)
		any = t->cells[i] && t->cells[i]->has_wa;
	if (!any)
		return;
	fputs("\n## Write amplification\n\nDevice bytes written / bytes the test wrote.\n\n"
	      "| Test | Input | WA |\n|:--|:--|--:|\n",
	      out);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const struct fsb_test_result *x = fsb_compare_cell(t, r, c);

			if (!x || !x->has_wa)
				continue;
			snprintf(buf, sizeof(buf), "%.2f",
				 isfinite(x->write_amplification) ? x->write_amplification : 0.0);
			fputc('|', out);
			cell(out, t->rows[r].name);
			cell(out, t->cols[c].label);
			cell(out, buf);
			fputc('\n', out);
		}
	}
}

/*
 * The caveats of each input that has them (older documents have none and
 * say nothing), one list item each with its evidence, under the input's
 * label when there are several inputs: the text views' ending, here too.
 */
static void write_caveats(FILE *out, const struct fsb_result *const *docs,
			  const char *const *labels, size_t n)
{
	struct fsb_caveat cav[FSB_CAVEATS_MAX];
	bool head = false;

	for (size_t i = 0; i < n; i++) {
		size_t k = fsb_caveats_find(docs[i], cav, FSB_CAVEATS_MAX);

		for (size_t j = 0; j < k; j++) {
			if (!head)
				fputs("\n## Caveats\n\n", out);
			head = true;
			fputs("- ", out);
			if (n > 1) {
				fputs("**", out);
				fsb_md_put(out, labels[i]);
				fputs("**: ", out);
			}
			fsb_md_put(out, cav[j].text);
			fputs(" (", out);
			fsb_md_put(out, cav[j].evidence);
			fputs(")\n", out);
		}
	}
}

static int write_all(FILE *out, const struct fsb_result *const *docs, const char *const *labels,
		     size_t n, const struct fsb_compare_table *t)
{
	bool unmeasured = false;

	fputs("## fsbench results\n\n", out);
	write_inputs(out, docs, labels, n);
	fputs("\n## Figures\n\nMedians of each input's runs; \"vs\" is the speed relative to "
	      "the first input (\"~\": within the measured spread).\n\n",
	      out);
	write_figures(out, t);
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		unmeasured |= t->cells[i] && t->cells[i]->not_measured;
	if (unmeasured)
		fputs("\n\"not measured\": bonnie++ printed +++++ (the test took under 0.5 s) "
		      "or fio's clock saw no time; never zero.\n",
		      out);
	if (fsb_compare_any_work(t)) {
		/* An indented code block: a label's markup stays text. */
		fputs("\n### Different work\n\nNo ratio across a difference in the work "
		      "(\"differs\"):\n\n",
		      out);
		fsb_compare_work_print(out, t, "  ");
	}
	write_latency(out, t);
	write_wa(out, t);
	write_caveats(out, docs, labels, n);
	return ferror(out) ? -EIO : 0;
}

int fsb_markdown_write(FILE *out, const struct fsb_result *const *docs, const char *const *labels,
		       size_t n)
{
	struct fsb_compare_table t;
	int err;

	if (!n)
		return -EINVAL;
	err = fsb_compare_table_build(&t, docs, labels, n);
	if (err == -E2BIG) {
		fsb_err("report: more than %d distinct tests in these files: not fsbench results",
			FSB_COMPARE_MAX_ROWS);
		return -EINVAL;
	}
	if (err)
		return err;
	err = write_all(out, docs, labels, n, &t);
	fsb_compare_table_release(&t);
	return err;
}

int fsb_compare_write_markdown(FILE *out, const struct fsb_compare_set *set,
			       const struct fsb_compare_table *t)
{
	return write_all(out, fsb_compare_set_docs(set), fsb_compare_set_labels(set), set->n, t);
}

int fsb_write_markdown(FILE *out, const struct fsb_result *r)
{
	const char *label = fsb_writer_label(r);

	return fsb_markdown_write(out, &r, &label, 1);
}
