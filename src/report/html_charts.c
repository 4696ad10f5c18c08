/*
 * Pictures for the HTML report: where a reader would rather look than
 * read. The bar charts of html.c say "which is faster"; these say "how
 * sure" (every run as a dot), "how slow is slow" (the latency CDF, whose
 * tail the percentiles only sample) and "who held the others up" (a bar
 * per job). All of it goes through html_out.h: labels and units are the
 * documents' text and are escaped; coordinates are numbers only.
 */
#include "report/html_charts.h"
#include "stats/hist.h"
#include "stats/summary.h"
#include "util/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Geometry in SVG user units, as html.c's charts (the svg scales). */
enum {
	PW = 600,     /* width */
	PLABEL = 132, /* input labels left of the plot */
	PRIGHT = 24,  /* right margin */
	PTOP = 34,    /* title */
	PAXIS = 30,   /* tick labels below the plot */
	PLABEL_CHARS = 19,
	CDF_H = 220,   /* the CDF's plot height */
	CDF_LEFT = 48, /* the CDF's y labels */
	LEGEND_ROW = 18,
	STRIP_ROW = 24,
	JOB_BAR = 14,
	JOB_GAP = 4,
	MAX_JOB_BARS = 64, /* more jobs are summarised, not drawn */
};

/* Eight colours that stay apart in print and for common colour blindness. */
static const char *const palette[] = {
	"#3366cc", "#e6862e", "#2e9e5b", "#c44e9c", "#7f62c4", "#b8962a", "#2a9fb5", "#6b7280",
};

const char *fsb_html_colour(size_t col)
{
	return palette[col % (sizeof(palette) / sizeof(palette[0]))];
}

static double sane(double v)
{
	return isfinite(v) && v > 0 ? v : 0;
}

bool fsb_html_any_hist(const struct fsb_compare_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		if (t->cells[i] && t->cells[i]->nhist)
			return true;
	return false;
}

/* 1, 2, 2.5 or 5 times a power of ten: at least x. */
static double nice_step(double x)
{
	double e, f;

	if (!(x > 0) || !isfinite(x))
		return 1;
	e = pow(10, floor(log10(x)));
	f = x / e;
	if (f <= 1)
		return e;
	if (f <= 2)
		return 2 * e;
	if (f <= 2.5)
		return 2.5 * e;
	if (f <= 5)
		return 5 * e;
	return 10 * e;
}

/* A grid line (the first one the axis) and its tick label, from x1,y1 to
 * x2,y2, the label at lx,ly: the label text follows, then </text>. */
static void grid_line(struct fsb_html_out *w, bool axis, double x1, double y1, double x2, double y2,
		      double lx, double ly, bool end)
{
	if (axis)
		fsb_html_lit(w, "<line class=\"axis\"");
	else
		fsb_html_lit(w, "<line class=\"grid\"");
	fsb_html_markupf(w, " x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x1, y1, x2, y2);
	fsb_html_markupf(w, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\"", lx, ly);
	if (end)
		fsb_html_lit(w, " text-anchor=\"end\">");
	else
		fsb_html_lit(w, " text-anchor=\"middle\">");
}

/* <figure><svg class="pic" data-chart=KIND data-test=ID ...> and a title. */
static void open_pic(struct fsb_html_out *w, const char *kind, const struct fsb_compare_row *row,
		     int height)
{
	fsb_html_lit(w, "<figure><svg class=\"pic\" data-chart=\"");
	fsb_html_attr(w, kind);
	fsb_html_lit(w, "\" data-test=\"");
	fsb_html_attr(w, row->id);
	fsb_html_lit(w, "\" data-kind=\"");
	fsb_html_attr(w, row->kind);
	/* Sized by its own style: the page's style sheet is pinned by the
	 * golden pages of older documents, which have no pictures. */
	fsb_html_markupf(w,
			 "\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
			 "style=\"display:block;width:100%%;height:auto\">\n",
			 PW, height, PW, height);
}

static void close_pic(struct fsb_html_out *w)
{
	fsb_html_lit(w, "</svg></figure>\n");
}

/* The heading line inside a chart: the row's name, then a muted note. */
static void heading(struct fsb_html_out *w, const struct fsb_compare_row *row, const char *note)
{
	fsb_html_lit(w, "<text x=\"0\" y=\"16\"><tspan class=\"t\">");
	fsb_html_text(w, row->name);
	fsb_html_lit(w, "</tspan><tspan class=\"u\" dx=\"8\">");
	fsb_html_text(w, note);
	fsb_html_lit(w, "</tspan></text>\n");
}

/* ---- latency CDF ------------------------------------------------------- */

/* A bucket's value in µs for the axis: its upper bound, at least 1 ns. */
static double bucket_us(unsigned idx, bool upper)
{
	uint64_t ns = upper ? fsb_hist_bucket_max(idx) : fsb_hist_bucket_min(idx);

	return (double)(ns ? ns : 1) / 1e3;
}

static bool row_has_hist(const struct fsb_compare_table *t, size_t r)
{
	for (size_t c = 0; c < t->ncols; c++) {
		const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);

		if (cell && cell->nhist)
			return true;
	}
	return false;
}

static void cdf_chart(struct fsb_html_out *w, const struct fsb_compare_table *t, size_t r)
{
	const struct fsb_compare_row *row = &t->rows[r];
	double lo = INFINITY, hi = 0, plot_w = PW - CDF_LEFT - PRIGHT;
	int d0, d1, nlegend = 0, ht, legend_y;

	for (size_t c = 0; c < t->ncols; c++) {
		const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);

		if (cell && (cell->nhist || cell->has_latency))
			nlegend++;
		if (!cell || !cell->nhist)
			continue;
		lo = fmin(lo, bucket_us(cell->hist[0].idx, false));
		hi = fmax(hi, bucket_us(cell->hist[cell->nhist - 1].idx, true));
	}
	/* Whole decades: a log axis reads best at 1, 10, 100. */
	d0 = (int)floor(log10(lo));
	d1 = (int)ceil(log10(hi));
	if (d1 <= d0)
		d1 = d0 + 1;
	ht = PTOP + CDF_H + PAXIS + nlegend * LEGEND_ROW + 6;
	legend_y = PTOP + CDF_H + PAXIS + 12;

	open_pic(w, "cdf", row, ht);
	fsb_html_lit(w, "<title>");
	fsb_html_text(w, row->name);
	fsb_html_lit(w,
		     ": share of operations at most this slow (latency on a log scale)</title>\n");
	heading(w, row, "latency CDF · log scale · further left is better");

	/* The y axis: 0 to 100% of the operations. */
	for (int i = 0; i <= 4; i++) {
		double y = PTOP + CDF_H - CDF_H * i / 4.0;

		grid_line(w, !i, CDF_LEFT, y, PW - PRIGHT, y, CDF_LEFT - 6, y + 4, true);
		fsb_html_markupf(w, "%d%%</text>\n", 25 * i);
	}
	/* The x axis: a line per decade, labelled in its own unit. */
	for (int d = d0; d <= d1; d++) {
		double x = CDF_LEFT + plot_w * (d - d0) / (double)(d1 - d0);
		char us[32];

		grid_line(w, false, x, PTOP, x, PTOP + CDF_H, x, PTOP + CDF_H + 16, false);
		fsb_unit_format_us(pow(10, d), us, sizeof(us));
		fsb_html_text(w, us);
		fsb_html_lit(w, "</text>\n");
	}

	/* One step curve per input: at each bucket's upper bound, the share
	 * of operations no slower. */
	for (size_t c = 0; c < t->ncols; c++) {
		const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);
		double cum = 0, x, y;

		if (!cell || !cell->nhist || !cell->hist_count)
			continue;
		fsb_html_lit(w, "<g><title>");
		fsb_html_textf(w, "%s: %llu operations", t->cols[c].label,
			       (unsigned long long)cell->hist_count);
		fsb_html_lit(w, "</title><path class=\"cdf\" fill=\"none\" stroke-width=\"2\" "
				"stroke=\"");
		fsb_html_attr(w, fsb_html_colour(c));
		fsb_html_lit(w, "\" d=\"");
		x = CDF_LEFT +
		    plot_w * (log10(bucket_us(cell->hist[0].idx, false)) - d0) / (d1 - d0);
		fsb_html_markupf(w, "M%.1f %d", x, PTOP + CDF_H);
		for (size_t i = 0; i < cell->nhist; i++) {
			cum += (double)cell->hist[i].count;
			x = CDF_LEFT +
			    plot_w * (log10(bucket_us(cell->hist[i].idx, true)) - d0) / (d1 - d0);
			y = PTOP + CDF_H - CDF_H * cum / (double)cell->hist_count;
			fsb_html_markupf(w, "H%.1fV%.1f", x, y);
		}
		fsb_html_lit(w, "\"/></g>\n");
	}

	/* The legend: who is which curve, and who has none. */
	for (size_t c = 0, k = 0; c < t->ncols; c++) {
		const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);
		double y = legend_y + (double)k * LEGEND_ROW;

		if (!cell || !(cell->nhist || cell->has_latency))
			continue;
		k++;
		fsb_html_markupf(w, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"3\" fill=\"",
				 CDF_LEFT, y - 4);
		fsb_html_attr(w, cell->nhist ? fsb_html_colour(c) : "#c0c6d0");
		fsb_html_markupf(w, "\"/><text x=\"%d\" y=\"%.1f\">", CDF_LEFT + 18, y);
		fsb_html_text_cut(w, t->cols[c].label, 40);
		if (!cell->nhist)
			fsb_html_lit(w, " <tspan class=\"u nohist\">no latency histogram</tspan>");
		fsb_html_lit(w, "</text>\n");
	}
	close_pic(w);
}

void fsb_html_cdf_charts(struct fsb_html_out *w, const struct fsb_compare_table *t)
{
	const char *sep = "";
	bool none = false;

	if (!fsb_html_any_hist(t))
		return;
	fsb_html_lit(w, "<h3>Latency distribution</h3>\n<p class=\"note\">Each curve is the "
			"share of operations (up) that took at most a given time (across, log "
			"scale), from the histogram of every measured run and job: the further "
			"left and the steeper, the better; a long flat top is a slow tail.</p>\n"
			"<div class=\"charts\">\n");
	for (size_t r = 0; r < t->nrows; r++)
		if (!strcmp(t->rows[r].kind, "run") && row_has_hist(t, r))
			cdf_chart(w, t, r);
	fsb_html_lit(w, "</div>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		bool lat = false;

		if (strcmp(t->rows[r].kind, "run") || row_has_hist(t, r))
			continue;
		for (size_t c = 0; c < t->ncols; c++)
			lat = lat ||
			      (fsb_compare_cell(t, r, c) && fsb_compare_cell(t, r, c)->has_latency);
		if (!lat)
			continue;
		if (!none)
			fsb_html_lit(w, "<p class=\"note nohist\">No latency histogram (imported "
					"results and older files keep only the figures above): ");
		none = true;
		fsb_html_text(w, sep);
		fsb_html_text(w, t->rows[r].name);
		sep = ", ";
	}
	if (none)
		fsb_html_lit(w, ".</p>\n");
}

/* ---- every run --------------------------------------------------------- */

static bool measured(const struct fsb_test_result *cell)
{
	return cell && !cell->not_measured && cell->nruns;
}

static void strip_chart(struct fsb_html_out *w, const struct fsb_compare_table *t, size_t r)
{
	const struct fsb_compare_row *row = &t->rows[r];
	double lo = INFINITY, hi = 0, div, step, a0, a1, plot_w = PW - PLABEL - PRIGHT;
	const char *aunit;
	size_t nrows = 0, k = 0;
	int ht;

	for (size_t c = 0; c < t->ncols; c++) {
		const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);

		if (!measured(cell))
			continue;
		nrows++;
		for (size_t i = 0; i < cell->nruns; i++) {
			lo = fmin(lo, sane(cell->runs[i]));
			hi = fmax(hi, sane(cell->runs[i]));
		}
	}
	aunit = fsb_unit_axis(row->unit, hi, &div);
	lo /= div;
	hi /= div;
	/* The axis spans the runs, not zero to the top: the spread is the
	 * point here (the bars above show the scale). */
	if (!(hi > lo)) {
		double pad = hi > 0 ? hi * 0.05 : 1;

		lo = fmax(0, lo - pad);
		hi += pad;
	}
	step = nice_step((hi - lo) / 4);
	a0 = floor(lo / step) * step;
	a1 = ceil(hi / step) * step;
	if (!isfinite(a0) || !isfinite(a1) || !(a1 > a0)) {
		a0 = lo;
		a1 = hi > lo ? hi : lo + 1;
		step = (a1 - a0) / 4;
	}
	ht = PTOP + (int)nrows * STRIP_ROW + PAXIS;

	open_pic(w, "strip", row, ht);
	fsb_html_lit(w, "<title>");
	fsb_html_text(w, row->name);
	fsb_html_lit(w, ": every measured run of each input as a dot, the median as a bar (");
	fsb_html_text(w, aunit);
	fsb_html_lit(w, ")</title>\n");
	fsb_html_lit(w, "<text x=\"0\" y=\"16\"><tspan class=\"t\">");
	fsb_html_text(w, row->name);
	fsb_html_lit(w, "</tspan><tspan class=\"u\" dx=\"8\">");
	fsb_html_text(w, aunit);
	fsb_html_lit(w, " · every run · axis not from zero</tspan></text>\n");
	for (int i = 0; i <= 20; i++) {
		double v = a0 + i * step, x;

		if (v > a1 + step * 1e-6)
			break;
		x = PLABEL + plot_w * (v - a0) / (a1 - a0);
		grid_line(w, !i, x, PTOP - 6, x, ht - PAXIS + 4, x, ht - 10, false);
		fsb_html_markupf(w, "%.4g</text>\n", v);
	}
	for (size_t c = 0; c < t->ncols; c++) {
		const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);
		double yc, xm;

		if (!measured(cell))
			continue;
		yc = PTOP + (double)k++ * STRIP_ROW + STRIP_ROW / 2.0;
		fsb_html_lit(w, "<g><title>");
		fsb_html_textf(w, "%s: %zu run%s", t->cols[c].label, cell->nruns,
			       cell->nruns == 1 ? "" : "s");
		fsb_html_markupf(w, "</title><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
				 PLABEL - 8, yc + 4);
		fsb_html_text_cut(w, t->cols[c].label, PLABEL_CHARS);
		fsb_html_lit(w, "</text>\n");
		xm = PLABEL + plot_w * (sane(cell->median) / div - a0) / (a1 - a0);
		fsb_html_markupf(w, "<path class=\"wh\" d=\"M%.1f %.1fV%.1f\"/>\n", xm, yc - 8,
				 yc + 8);
		for (size_t i = 0; i < cell->nruns; i++) {
			double x = PLABEL + plot_w * (sane(cell->runs[i]) / div - a0) / (a1 - a0);

			fsb_html_markupf(w,
					 "<circle class=\"run\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
					 "fill-opacity=\"0.7\" fill=\"",
					 x, yc);
			fsb_html_attr(w, fsb_html_colour(c));
			fsb_html_lit(w, "\"/>");
		}
		fsb_html_lit(w, "\n</g>\n");
	}
	close_pic(w);
}

void fsb_html_runs_section(struct fsb_html_out *w, const struct fsb_compare_table *t)
{
	bool any = false;

	/* Pages of documents older than the histograms render as they did
	 * (the golden pages pin that); a page with one new document gets the
	 * strips of every input, imported ones included. */
	if (!fsb_html_any_hist(t))
		return;
	for (size_t i = 0; i < t->nrows * t->ncols && !any; i++)
		any = measured(t->cells[i]);
	if (!any)
		return;
	fsb_html_lit(w, "<section id=\"runs\">\n<h2>Every run</h2>\n<p class=\"note\">One dot "
			"per measured run, the median a vertical bar: dots far apart are a "
			"noisy figure, a lone dot an outlier. The axis spans the runs and does "
			"not start at zero.</p>\n<div class=\"charts\">\n");
	for (size_t r = 0; r < t->nrows; r++) {
		bool row_any = false;

		for (size_t c = 0; c < t->ncols && !row_any; c++)
			row_any = measured(fsb_compare_cell(t, r, c));
		if (row_any)
			strip_chart(w, t, r);
	}
	fsb_html_lit(w, "</div>\n</section>\n");
}

/* ---- jobs ----------------------------------------------------------------- */

static bool has_jobs(const struct fsb_test_result *cell)
{
	return cell && cell->njobs > 1 && cell->job_runs && cell->nruns;
}

/* The median of job j's runs. */
static double job_median(const struct fsb_test_result *cell, size_t j)
{
	struct fsb_summary s;

	if (fsb_summary_compute(cell->job_runs + j * cell->nruns, cell->nruns, &s))
		return 0;
	return sane(s.median);
}

static void jobs_chart(struct fsb_html_out *w, const struct fsb_compare_table *t, size_t r,
		       size_t c)
{
	const struct fsb_compare_row *row = &t->rows[r];
	const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);
	size_t n = cell->njobs < MAX_JOB_BARS ? cell->njobs : MAX_JOB_BARS, slow = 0;
	bool lower = fsb_compare_lower_is_better(row->unit);
	double vmax = 0, div, step, top, plot_w = PW - PLABEL - PRIGHT - 60;
	const char *aunit;
	int ht;

	for (size_t j = 0; j < n; j++) {
		double v = job_median(cell, j), s = job_median(cell, slow);

		vmax = fmax(vmax, v);
		if (lower ? v > s : v < s)
			slow = j;
	}
	aunit = fsb_unit_axis(row->unit, vmax, &div);
	step = nice_step(vmax / div / 4);
	top = ceil(vmax / div / step - 1e-9) * step;
	if (!isfinite(top) || !(top > 0)) {
		top = vmax / div > 0 && isfinite(vmax / div) ? vmax / div : 1;
		step = top / 4;
	}
	ht = PTOP + 18 + (int)n * (JOB_BAR + JOB_GAP) + PAXIS;

	open_pic(w, "jobs", row, ht);
	fsb_html_lit(w, "<title>");
	fsb_html_textf(w, "%s, %s: each job's median over its runs", row->name, t->cols[c].label);
	fsb_html_lit(w, "</title>\n");
	heading(w, row, aunit);
	fsb_html_lit(w, "<text class=\"u\" x=\"0\" y=\"34\">");
	fsb_html_text_cut(w, t->cols[c].label, 40);
	fsb_html_textf(w, " · %zu jobs", cell->njobs);
	if (n < cell->njobs)
		fsb_html_textf(w, ", the first %zu drawn", n);
	fsb_html_lit(w, "</text>\n");
	for (int i = 0; i <= 10; i++) {
		double v = i * step, x;

		if (v > top + step * 1e-6)
			break;
		x = PLABEL + plot_w * v / top;
		grid_line(w, !i, x, PTOP + 12, x, ht - PAXIS + 4, x, ht - 10, false);
		fsb_html_markupf(w, "%.4g</text>\n", v);
	}
	for (size_t j = 0; j < n; j++) {
		double v = job_median(cell, j) / div,
		       y = PTOP + 18 + (double)j * (JOB_BAR + JOB_GAP);
		double x = PLABEL + plot_w * fmin(v, top) / top;
		char val[64];

		fsb_html_markupf(w,
				 "<g><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">job %zu</text>",
				 PLABEL - 8, y + JOB_BAR - 3, j);
		fsb_html_markupf(w,
				 "<rect class=\"job\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" "
				 "height=\"%d\" rx=\"2\" fill=\"",
				 PLABEL, y, x - PLABEL, JOB_BAR);
		fsb_html_attr(w, fsb_html_colour(c));
		if (j == slow)
			fsb_html_lit(w, "\"/>");
		else
			fsb_html_lit(w, "\" fill-opacity=\"0.6\"/>");
		fsb_unit_format(row->unit, v * div, val, sizeof(val));
		fsb_html_markupf(w, "<text x=\"%.1f\" y=\"%.1f\">", x + 6, y + JOB_BAR - 3);
		fsb_html_text(w, val);
		if (j == slow && cell->njobs > 1)
			fsb_html_lit(w, " <tspan class=\"nz\">slowest</tspan>");
		fsb_html_lit(w, "</text></g>\n");
	}
	close_pic(w);
}

void fsb_html_jobs_section(struct fsb_html_out *w, const struct fsb_compare_table *t)
{
	bool any = false;

	for (size_t i = 0; i < t->nrows * t->ncols && !any; i++)
		any = has_jobs(t->cells[i]);
	if (!any)
		return;
	fsb_html_lit(w, "<section id=\"jobs\">\n<h2>Jobs</h2>\n<p class=\"note\">Each job's own "
			"rate (the median of its runs), one bar per job: a short bar is a "
			"straggler that held the aggregate's last end back. The slowest job is "
			"drawn solid.</p>\n<div class=\"charts\">\n");
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++)
			if (has_jobs(fsb_compare_cell(t, r, c)))
				jobs_chart(w, t, r, c);
	fsb_html_lit(w, "</div>\n</section>\n");
}
