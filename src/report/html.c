/*
 * The HTML report: a page a storage engineer can mail to a colleague. It
 * must open anywhere, offline and years later, so it is one file with
 * inline CSS and inline SVG, and it runs nothing: no script element, no
 * event handler, no external URL (a Content-Security-Policy says so too,
 * so even a mistake here could not fetch or run anything). Everything
 * taken from the documents is someone else's text: this file writes
 * nothing itself, only through report/html_out.h, where markup is string
 * literals and every value from a document is escaped on the way out.
 *
 * Charts are horizontal bars, one per input, so long labels stay legible:
 * the bar is the median, the whisker spans the lowest and highest run,
 * the value is written beside it. The axis starts at zero (a bar whose
 * length lies is worse than no chart).
 */
#include "report/html.h"
#include "report/caveats.h"
#include "report/compare.h"
#include "report/html_charts.h"
#include "report/html_out.h"
#include "report/writer.h"
#include "util/error.h"
#include "util/modes.h"
#include "util/size.h"
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- page context ------------------------------------------------------ */

struct page {
	struct fsb_html_out *w; /* every byte of the page goes through it */
	const struct fsb_result *const *docs;
	const char *const *labels;
	size_t n;
	struct fsb_compare_table tab;
	size_t *doc_col; /* column of each document */
};

static const char *colour(size_t col)
{
	return fsb_html_colour(col);
}

static bool has_kind(const struct page *p, const char *kind)
{
	for (size_t r = 0; r < p->tab.nrows; r++)
		if (!strcmp(p->tab.rows[r].kind, kind))
			return true;
	return false;
}

/* Whether some input has the run suite's test id. */
static bool has_test(const struct page *p, const char *id)
{
	for (size_t r = 0; r < p->tab.nrows; r++)
		if (!strcmp(p->tab.rows[r].kind, "run") && !strcmp(p->tab.rows[r].id, id))
			return true;
	return false;
}

static bool is_lifecycle_row(const struct fsb_compare_row *row)
{
	return !strcmp(row->kind, "lifecycle");
}

/* ---- imported results ---------------------------------------------------- */

/* How many inputs come from other tools' files (report/import.h). */
static size_t n_imported(const struct page *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->docs[i]->source != NULL;
	return n;
}

/* Whether column c shows an imported result. */
static bool col_imported(const struct page *p, size_t c)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->doc_col[i] == c && p->docs[i]->source)
			return true;
	return false;
}

/* The document a cell of column c belongs to (NULL: none, a bug). */
static const struct fsb_result *doc_of(const struct page *p, size_t c,
				       const struct fsb_test_result *cell)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct fsb_result *d = p->docs[i];

		if (p->doc_col[i] == c && d->ntests && cell >= d->tests &&
		    cell < d->tests + d->ntests)
			return d;
	}
	return NULL;
}

/*
 * What to write where a figure is not measured: bonnie++'s "+++++" is
 * a test under 0.5 s; fio's 0 is a job faster than its millisecond clock.
 */
static void unmeasured_text(struct fsb_html_out *w, const struct fsb_result *d)
{
	if (d && d->tool && !strncmp(d->tool, "fio", 3))
		fsb_html_lit(w, "not measured (under 1 ms)");
	else
		fsb_html_lit(w, "+++++ (under 0.5 s)");
}

/* ---- head and style ----------------------------------------------------- */

/* A macro, not an array: markup is written from string literals only. */
#define STYLE                                                                                                                                              \
	":root{--fg:#1c2230;--muted:#5d6778;--line:#d9dee7;--head:#f3f5f9;--good:#1a7f37;"                                                                 \
	"--bad:#b42318}\n"                                                                                                                                 \
	"*{box-sizing:border-box}\n"                                                                                                                       \
	"html{-webkit-text-size-adjust:100%}\n"                                                                                                            \
	"body{margin:0;color:var(--fg);background:#fff;font:15px/1.45 system-ui,-apple-system,"                                                            \
	"\"Segoe UI\",Roboto,\"Noto Sans\",\"DejaVu Sans\",sans-serif}\n"                                                                                  \
	"main{max-width:1200px;margin:0 auto;padding:28px 32px 56px}\n"                                                                                    \
	"h1{font-size:26px;margin:0 0 2px}\n"                                                                                                              \
	"h2{font-size:19px;margin:34px 0 10px;padding-bottom:4px;"                                                                                         \
	"border-bottom:2px solid var(--line)}\n"                                                                                                           \
	"h3{font-size:15px;margin:18px 0 6px}\n"                                                                                                           \
	"p{margin:6px 0}\n"                                                                                                                                \
	".sub,.note{color:var(--muted)}\n"                                                                                                                 \
	".note{font-size:13px}\n"                                                                                                                          \
	"dl.host{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:12px 0}\n"                                                         \
	"dl.host dt{color:var(--muted)}dl.host dd{margin:0}\n"                                                                                             \
	".scroll{overflow-x:auto}\n"                                                                                                                       \
	"table{border-collapse:collapse;font-size:14px;margin:8px 0}\n"                                                                                    \
	"th,td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:left;"                                                                      \
	"vertical-align:top}\n"                                                                                                                            \
	"thead th{background:var(--head);font-weight:600;border-bottom:2px solid var(--line)}\n"                                                           \
	"tbody th{font-weight:600}\n"                                                                                                                      \
	"td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"                                                           \
	"td.none{color:var(--muted)}\n"                                                                                                                    \
	"tr.diff td{background:#fff7e0}\n"                                                                                                                 \
	".better{color:var(--good);font-weight:600}.worse{color:var(--bad);font-weight:600}\n"                                                             \
	".same{color:var(--muted)}\n"                                                                                                                      \
	".ci{font-size:11px;color:var(--muted)}\n"                                                                                                         \
	".badge{display:inline-block;font-size:11px;line-height:1.3;padding:0 5px;"                                                                        \
	"border-radius:3px;background:#fde7c8;color:#7a4100;margin-left:4px}\n"                                                                            \
	".key{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}\n"                                                           \
	".charts{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:16px 24px}\n"                                                              \
	"figure{margin:0;padding:10px 12px;border:1px solid var(--line);border-radius:6px;"                                                                \
	"break-inside:avoid;page-break-inside:avoid}\n"                                                                                                    \
	"svg.chart{display:block;width:100%;height:auto}\n"                                                                                                \
	"svg text{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,\"Noto Sans\","                                                                  \
	"\"DejaVu Sans\",sans-serif;font-size:12px;fill:var(--fg)}\n"                                                                                      \
	"svg .t{font-size:14px;font-weight:600}svg .u,svg .tick{fill:var(--muted)}\n"                                                                      \
	"svg .grid{stroke:#e6e9ef;stroke-width:1}svg .axis{stroke:#9aa3b2;stroke-width:1}\n"                                                               \
	"svg .wh{stroke:#1c2230;stroke-width:1.5}svg .nz{fill:#a15c00;font-weight:600}\n"                                                                  \
	"ul{margin:6px 0;padding-left:22px}li{margin:3px 0}\n"                                                                                             \
	"footer{margin-top:36px;color:var(--muted);font-size:12px}\n"                                                                                      \
	"@media (max-width:900px){.charts{grid-template-columns:1fr}main{padding:16px}}\n"                                                                 \
	"@media print{@page{margin:14mm}body{font-size:10.5pt}main{max-width:none;padding:0}"                                                              \
	"h2,h2+p{break-after:avoid;page-break-after:avoid}.scroll{overflow:visible}" /* One chart a row on paper: two would print their labels at 5 pt. */ \
	".charts{grid-template-columns:1fr;gap:10px}.charts figure{max-width:160mm}"                                                                       \
	"table,figure{break-inside:avoid;page-break-inside:avoid}"                                                                                         \
	"*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n"

static void write_head(struct page *p)
{
	struct fsb_html_out *w = p->w;

	fsb_html_lit(w,
		     "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		     /* Nothing to fetch, nothing to run: only inline styles may apply. */
		     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		     "style-src 'unsafe-inline'\">\n"
		     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		     "<meta name=\"generator\" content=\"fsbench " FSB_VERSION "\">\n"
		     "<title>fsbench report: ");
	for (size_t c = 0; c < p->tab.ncols; c++) {
		if (c + 1 == p->tab.ncols && c)
			fsb_html_lit(w, " vs ");
		else if (c)
			fsb_html_lit(w, ", ");
		fsb_html_text_cut(w, p->tab.cols[c].label, 40);
	}
	fsb_html_lit(w, "</title>\n<style>\n" STYLE);
	/* Only a page with imported results needs their marks (and the page
	 * of fsbench's own results stays as it was). */
	if (n_imported(p))
		fsb_html_lit(
			w,
			".badge.imp{background:#e1eaf8;color:#1d4b8f}"
			"svg .imp{fill:#1d4b8f;font-style:italic}.nm{color:var(--muted);"
			"font-style:italic}svg .nm{fill:var(--muted)}td.src{overflow-wrap:anywhere;"
			"min-width:14em}\n");
	fsb_html_lit(w, "</style>\n</head>\n<body>\n<main>\n");
}

/* ---- header: host and parameters ---------------------------------------- */

static bool str_eq(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static bool same_host(const struct fsb_host *a, const struct fsb_host *b)
{
	return str_eq(a->kernel, b->kernel) && str_eq(a->cpu, b->cpu) &&
	       str_eq(a->hostname, b->hostname) && a->cpus == b->cpus &&
	       a->ram_bytes == b->ram_bytes;
}

static void ram_text(uint64_t bytes, char *buf, size_t len)
{
	if (bytes)
		fsb_size_format_human(bytes, buf, len);
	else
		snprintf(buf, len, "unknown");
}

static void write_host_list(struct page *p, const struct fsb_host *h)
{
	struct fsb_html_out *w = p->w;
	char buf[32];

	fsb_html_lit(w, "<dl class=\"host\">\n");
	if (h->hostname) {
		fsb_html_lit(w, "<dt>Host</dt><dd>");
		fsb_html_text(w, h->hostname);
		fsb_html_lit(w, "</dd>\n");
	}
	fsb_html_lit(w, "<dt>Kernel</dt><dd>");
	fsb_html_text(w, h->kernel ? h->kernel : "unknown");
	fsb_html_lit(w, "</dd>\n<dt>CPU</dt><dd>");
	fsb_html_text(w, h->cpu ? h->cpu : "unknown");
	fsb_html_lit(w, "</dd>\n<dt>CPUs</dt><dd>");
	if (h->cpus > 0)
		fsb_html_markupf(w, "%d", h->cpus);
	else
		fsb_html_lit(w, "unknown");
	ram_text(h->ram_bytes, buf, sizeof(buf));
	fsb_html_lit(w, "</dd>\n<dt>RAM</dt><dd>");
	fsb_html_text(w, buf);
	fsb_html_lit(w, "</dd>\n</dl>\n");
}

static void td(struct fsb_html_out *w, const char *s)
{
	if (!s || !s[0]) {
		fsb_html_lit(w, "<td class=\"none\">—</td>");
		return;
	}
	fsb_html_lit(w, "<td>");
	fsb_html_text(w, s);
	fsb_html_lit(w, "</td>");
}

/* A column's heading with its colour key; num: right-aligned like its figures. */
static void th_label_mark(struct fsb_html_out *w, const char *label, size_t col, bool num,
			  bool imported)
{
	if (num)
		fsb_html_lit(w, "<th class=\"num\">");
	else
		fsb_html_lit(w, "<th>");
	fsb_html_lit(w, "<span class=\"key\" style=\"background:");
	fsb_html_attr(w, colour(col));
	fsb_html_lit(w, "\"></span>");
	fsb_html_text(w, label);
	if (imported)
		fsb_html_lit(w, "<span class=\"badge imp\">imported</span>");
	fsb_html_lit(w, "</th>");
}

static void th_label(struct fsb_html_out *w, const char *label, size_t col, bool num)
{
	th_label_mark(w, label, col, num, false);
}

static void write_hosts(struct page *p)
{
	struct fsb_html_out *w = p->w;
	const struct fsb_host *first = NULL;
	bool all_same = true, unknown = false;

	/* An input that records no host (a fio import) is no other host. */
	for (size_t i = 0; i < p->n && all_same; i++) {
		const struct fsb_host *h = &p->docs[i]->host;

		if (!h->kernel && !h->cpu && !h->hostname)
			unknown = true;
		else if (!first)
			first = h;
		else
			all_same = same_host(first, h);
	}
	if (all_same) {
		write_host_list(p, first ? first : &p->docs[0]->host);
		if (unknown && first)
			fsb_html_lit(w, "<p>Some inputs record no host (imported results): the "
					"host above is the others'.</p>\n");
		return;
	}
	/* Results from different machines: say so plainly, one row each. */
	fsb_html_lit(w, "<p><strong>The inputs come from different hosts.</strong></p>\n<div "
			"class=\"scroll\"><table class=\"hosts\"><thead><tr><th>Input</th><th>"
			"Kind</th><th>Host</th><th>Kernel</th><th>CPU</th><th class=\"num\">"
			"CPUs</th><th class=\"num\">RAM</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct fsb_host *h = &p->docs[i]->host;
		char ram[32];

		fsb_html_lit(w, "<tr>");
		td(w, p->labels[i]);
		td(w, p->docs[i]->kind);
		td(w, h->hostname);
		td(w, h->kernel);
		td(w, h->cpu);
		if (h->cpus > 0)
			fsb_html_markupf(w, "<td class=\"num\">%d</td>", h->cpus);
		else
			td(w, NULL);
		ram_text(h->ram_bytes, ram, sizeof(ram));
		fsb_html_lit(w, "<td class=\"num\">");
		fsb_html_text(w, ram);
		fsb_html_lit(w, "</td></tr>\n");
	}
	fsb_html_lit(w, "</tbody></table></div>\n");
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

/* A parameter's value as a reader wants it: sizes in binary units. */
static void param_value(const struct fsb_param *p, char *buf, size_t len)
{
	bool bytes = ends_with(p->key, "_bytes"), secs = ends_with(p->key, "_s");

	switch (p->type) {
	case FSB_PARAM_U64:
		if (bytes)
			fsb_size_format_exact(p->u, buf, len);
		else
			snprintf(buf, len, "%llu%s", (unsigned long long)p->u, secs ? " s" : "");
		break;
	case FSB_PARAM_DOUBLE:
		snprintf(buf, len, "%g%s", isfinite(p->d) ? p->d : 0, secs ? " s" : "");
		break;
	case FSB_PARAM_STR:
		snprintf(buf, len, "%s", p->s ? p->s : "");
		break;
	case FSB_PARAM_BOOL:
		snprintf(buf, len, "%s", p->b ? "yes" : "no");
		break;
	default:
		buf[0] = '\0';
	}
}

/* The key without its unit suffix, dashes for underscores ("min-time"). */
static void param_name(const char *key, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%s", key);
	n = strlen(buf);
	if (ends_with(buf, "_bytes"))
		buf[n - 6] = '\0';
	else if (ends_with(buf, "_s"))
		buf[n - 2] = '\0';
	for (char *c = buf; *c; c++)
		if (*c == '_')
			*c = '-';
}

static const char *const first_params[] = {
	"size_bytes", "chunk_bytes", "repeat", "cache", "data", "min_time_s", "files", "seed",
};

#define NFIRST (sizeof(first_params) / sizeof(first_params[0]))

/* Whether doc i belongs in a table or sentence about kind (NULL: all). */
static bool of_kind(const struct page *p, size_t i, const char *kind)
{
	return !kind || str_eq(p->docs[i]->kind, kind);
}

/* Whether key was listed already: a first param or seen in an earlier doc. */
static bool param_listed(const struct page *p, const char *kind, size_t doc, size_t idx)
{
	const char *key = p->docs[doc]->params[idx].key;

	for (size_t i = 0; i < NFIRST; i++)
		if (!strcmp(first_params[i], key))
			return true;
	for (size_t d = 0; d <= doc; d++) {
		size_t upto = d == doc ? idx : p->docs[d]->nparams;

		if (!of_kind(p, d, kind))
			continue;
		for (size_t i = 0; i < upto; i++)
			if (!strcmp(p->docs[d]->params[i].key, key))
				return true;
	}
	return false;
}

static void param_row(struct page *p, const char *kind, size_t ndocs, const char *key)
{
	struct fsb_html_out *w = p->w;
	char name[96], first[256] = "", val[256];
	bool differs = false, any = false, seen = false;

	for (size_t i = 0; i < p->n; i++) {
		const struct fsb_param *prm = fsb_result_param(p->docs[i], key);

		if (!of_kind(p, i, kind))
			continue;
		val[0] = '\0';
		if (prm)
			param_value(prm, val, sizeof(val));
		if (!seen)
			snprintf(first, sizeof(first), "%s", val);
		else if (strcmp(first, val))
			differs = true;
		seen = true;
		any |= prm != NULL;
	}
	if (!any)
		return;
	param_name(key, name, sizeof(name));
	if (differs)
		fsb_html_lit(w, "<tr class=\"diff\"><th>");
	else
		fsb_html_lit(w, "<tr><th>");
	fsb_html_text(w, name);
	fsb_html_lit(w, "</th>");
	if (!differs && ndocs > 1) {
		/* One value for all: say it once, so what differs stands out. */
		fsb_html_markupf(w, "<td colspan=\"%zu\">", ndocs);
		fsb_html_text(w, first);
		fsb_html_lit(w, "</td></tr>\n");
		return;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct fsb_param *prm = fsb_result_param(p->docs[i], key);

		if (!of_kind(p, i, kind))
			continue;
		val[0] = '\0';
		if (prm)
			param_value(prm, val, sizeof(val));
		td(w, val);
	}
	fsb_html_lit(w, "</tr>\n");
}

/* One table per kind of result: run and lifecycle parameters have little in common. */
static void write_param_table(struct page *p, const char *kind, bool several_kinds)
{
	struct fsb_html_out *w = p->w;
	size_t ndocs = 0, nparams = 0;

	for (size_t i = 0; i < p->n; i++) {
		if (of_kind(p, i, kind)) {
			ndocs++;
			nparams += p->docs[i]->nparams;
		}
	}
	if (!nparams)
		return;
	fsb_html_lit(w, "<h3>Parameters");
	if (several_kinds) {
		fsb_html_lit(w, " of the ");
		fsb_html_text(w, kind);
		if (!strcmp(kind, "run"))
			fsb_html_lit(w, " suites");
		else
			fsb_html_lit(w, " results");
	}
	fsb_html_lit(w, "</h3>\n<div class=\"scroll\"><table class=\"params\"><thead><tr><th>"
			"Parameter</th>");
	for (size_t i = 0; i < p->n; i++)
		if (of_kind(p, i, kind))
			th_label(w, p->labels[i], p->doc_col[i], false);
	fsb_html_lit(w, "</tr></thead><tbody>\n");
	for (size_t k = 0; k < NFIRST; k++)
		param_row(p, kind, ndocs, first_params[k]);
	for (size_t d = 0; d < p->n; d++) {
		if (!of_kind(p, d, kind))
			continue;
		for (size_t i = 0; i < p->docs[d]->nparams; i++)
			if (!param_listed(p, kind, d, i))
				param_row(p, kind, ndocs, p->docs[d]->params[i].key);
	}
	fsb_html_lit(w, "</tbody></table></div>\n");
	if (ndocs > 1)
		fsb_html_lit(w, "<p class=\"note\">Shaded rows differ between inputs; a value "
				"shown once holds for all.</p>\n");
}

static void write_params(struct page *p)
{
	/* The kinds in the order they first appear. */
	for (size_t i = 0; i < p->n; i++) {
		bool earlier = false, several = false;

		for (size_t j = 0; j < p->n; j++) {
			if (j < i && str_eq(p->docs[j]->kind, p->docs[i]->kind))
				earlier = true;
			if (!str_eq(p->docs[j]->kind, p->docs[i]->kind))
				several = true;
		}
		if (!earlier)
			write_param_table(p, p->docs[i]->kind ? p->docs[i]->kind : "", several);
	}
}

static void write_header(struct page *p)
{
	struct fsb_html_out *w = p->w;

	fsb_html_lit(w, "<header>\n<h1>fsbench report</h1>\n<p class=\"sub\">");
	for (size_t c = 0; c < p->tab.ncols; c++) {
		if (c + 1 == p->tab.ncols && c)
			fsb_html_lit(w, " vs ");
		else if (c)
			fsb_html_lit(w, ", ");
		fsb_html_lit(w, "<strong>");
		fsb_html_text(w, p->tab.cols[c].label);
		fsb_html_lit(w, "</strong>");
	}
	fsb_html_markupf(w, " · %zu result", p->n);
	if (p->n != 1)
		fsb_html_lit(w, "s");
	if (n_imported(p))
		fsb_html_markupf(w, " (%zu imported)", n_imported(p));
	fsb_html_lit(w, " · fsbench " FSB_VERSION "</p>\n");
	write_hosts(p);
	write_params(p);
	fsb_html_lit(w, "</header>\n");
}

/* ---- setups --------------------------------------------------------------- */

static void write_setups(struct page *p)
{
	struct fsb_html_out *w = p->w;
	bool imports = n_imported(p) > 0;

	fsb_html_lit(w, "<section id=\"setups\">\n<h2>Setups</h2>\n<div class=\"scroll\"><table "
			"class=\"setups\"><thead><tr><th>Label</th><th>Kind</th><th>Filesystem</th>"
			"<th>Mount options</th><th>Device</th><th>Fill</th>");
	/* With other tools' results the column says which tool, and where from. */
	if (imports)
		fsb_html_lit(w, "<th>Made by</th><th>Source</th>");
	else
		fsb_html_lit(w, "<th>fsbench</th>");
	fsb_html_lit(w, "</tr></thead><tbody>\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct fsb_result *d = p->docs[i];
		const struct fsb_setup *s = &d->setup;

		fsb_html_lit(w, "<tr>");
		th_label(w, p->labels[i], p->doc_col[i], false);
		td(w, d->kind);
		td(w, s->fs_type);
		td(w, s->mount_options);
		td(w, s->device);
		td(w, s->fill);
		if (!imports) {
			td(w, d->version);
		} else if (d->source) {
			td(w, d->tool);
			fsb_html_lit(
				w, "<td class=\"src\"><span class=\"badge imp\">imported</span> ");
			fsb_html_text(w, d->source);
			fsb_html_lit(w, "</td>");
		} else {
			fsb_html_lit(w, "<td>");
			fsb_html_textf(w, "%s %s", d->tool ? d->tool : "fsbench",
				       d->version ? d->version : "");
			fsb_html_lit(w, "</td><td class=\"none\">—</td>");
		}
		fsb_html_lit(w, "</tr>\n");
	}
	fsb_html_lit(w, "</tbody></table></div>\n</section>\n");
}

/* ---- summary: the compare table ------------------------------------------ */

static void value_cell(const struct page *p, size_t c, const struct fsb_test_result *t)
{
	struct fsb_html_out *w = p->w;
	char buf[64];

	if (!t) {
		fsb_html_lit(w, "<td class=\"none num\">—</td>");
		return;
	}
	if (t->not_measured) {
		/* Words, never a number: there is none. */
		fsb_html_lit(w, "<td class=\"num nm\">");
		unmeasured_text(w, doc_of(p, c, t));
		fsb_html_lit(w, "</td>");
		return;
	}
	/* The unit is the document's: "512 <img...>" is text like any other. */
	fsb_unit_format(t->unit, t->median, buf, sizeof(buf));
	fsb_html_lit(w, "<td class=\"num\">");
	fsb_html_text(w, buf);
	if (fsb_test_noisy(t))
		fsb_html_lit(w, "<span class=\"badge\">noisy</span>");
	if (t->has_ci) {
		/* --repeat auto: the mean's interval, as the text view gives it. */
		double mean = (t->ci95_low + t->ci95_high) / 2;
		double half = (t->ci95_high - t->ci95_low) / 2;

		fsb_html_lit(w, "<br><span class=\"ci\">");
		fsb_html_textf(w, "mean ±%.1f%% (95%% CI, %zu run%s",
			       mean > 0 && isfinite(half / mean) ? 100 * half / mean : 0.0,
			       t->nruns, t->nruns == 1 ? "" : "s");
		if (t->repeat_stop) {
			fsb_html_text(w, ", ");
			fsb_html_text_cut(w, t->repeat_stop, 32);
		}
		fsb_html_text(w, ")");
		fsb_html_lit(w, "</span>");
	}
	fsb_html_lit(w, "</td>");
}

static void ratio_cell(struct fsb_html_out *w, const struct fsb_compare_table *tab, size_t r,
		       size_t c)
{
	static const char *const cls[] = {
		[FSB_CMP_NONE] = "same",   [FSB_CMP_SAME] = "same",   [FSB_CMP_BETTER] = "better",
		[FSB_CMP_WORSE] = "worse", [FSB_CMP_SINGLE] = "same", [FSB_CMP_WORK] = "same",
	};
	char buf[160];

	if (!fsb_compare_cell(tab, r, c)) {
		fsb_html_lit(w, "<td></td>");
		return;
	}
	fsb_compare_cell_ratio_text(tab, r, c, buf, sizeof(buf));
	fsb_html_lit(w, "<td class=\"num ");
	fsb_html_attr(w, cls[fsb_compare_cell_verdict(tab, r, c)]);
	fsb_html_lit(w, "\">");
	fsb_html_text(w, buf);
	fsb_html_lit(w, "</td>");
}

/* The rows whose inputs did different work: no ratio across them, and
 * each input's value of what differs (compare.h), as text. */
static void write_work(struct page *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	if (!fsb_compare_any_work(&p->tab) || !(mem = open_memstream(&text, &len)))
		return;
	fsb_compare_work_print(mem, &p->tab, "");
	if (fclose(mem) == 0 && text) {
		fsb_html_lit(p->w, "<p>Different work in one row: no ratio across it "
				   "(<em>differs</em>).</p>\n<pre class=\"work\">");
		fsb_html_text(p->w, text);
		fsb_html_lit(p->w, "</pre>\n");
	}
	free(text);
}

static void write_summary(struct page *p)
{
	struct fsb_html_out *w = p->w;
	const struct fsb_compare_table *t = &p->tab;

	if (!t->nrows)
		return;
	fsb_html_lit(w, "<section id=\"summary\">\n<h2>Summary</h2>\n");
	if (t->ncols > 1) {
		fsb_html_lit(w, "<p>Medians side by side; the speed of each input relative to "
				"<strong>");
		fsb_html_text(w, t->cols[0].label);
		fsb_html_lit(w, "</strong> (for times, less is faster). <span class=\"same\">"
				"~</span> marks a difference within the measured spread: not "
				"significant.</p>\n");
	}
	fsb_html_lit(w, "<div class=\"scroll\"><table class=\"summary\"><thead><tr><th>Test</th>");
	for (size_t c = 0; c < t->ncols; c++) {
		th_label_mark(w, t->cols[c].label, c, true, col_imported(p, c));
		if (c)
			fsb_html_lit(w, "<th class=\"num\">vs first</th>");
	}
	fsb_html_lit(w, "</tr></thead><tbody>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		fsb_html_lit(w, "<tr><th>");
		fsb_html_text(w, t->rows[r].name);
		fsb_html_lit(w, "</th>");
		for (size_t c = 0; c < t->ncols; c++) {
			value_cell(p, c, fsb_compare_cell(t, r, c));
			if (c)
				ratio_cell(w, t, r, c);
		}
		fsb_html_lit(w, "</tr>\n");
	}
	fsb_html_lit(w, "</tbody></table></div>\n");
	write_work(p);
	fsb_html_lit(w, "</section>\n");
}

/* ---- charts ---------------------------------------------------------------- */

/* Chart geometry, in SVG user units (the svg scales to its box). */
enum {
	CH_W = 600,	/* whole width */
	CH_LABEL = 132, /* input labels, right-aligned, left of the plot */
	CH_RIGHT = 128, /* room for the value written after the longest bar */
	CH_TOP = 34,	/* the title above the first bar */
	CH_BAR = 22,
	CH_GAP = 10,
	CH_AXIS = 28, /* tick labels below the last bar */
	CH_LABEL_CHARS = 19,
};

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

static double bounded(double v)
{
	return isfinite(v) && v > 0 ? v : 0;
}

/* v (already in unit) with three significant digits, then the unit: text. */
static void axis_value(struct fsb_html_out *w, double v, const char *unit)
{
	if (v < 9.995)
		fsb_html_textf(w, "%.2f ", v);
	else if (v < 99.95)
		fsb_html_textf(w, "%.1f ", v);
	else
		fsb_html_textf(w, "%.0f ", v);
	fsb_html_text(w, unit);
}

/* What to call a row where the section already says what kind it is. */
static const char *row_title(const struct fsb_compare_row *row)
{
	return strcmp(row->kind, "run") ? row->id : row->name;
}

static void better_words(struct fsb_html_out *w, const struct fsb_compare_row *row)
{
	if (fsb_compare_lower_is_better(row->unit))
		fsb_html_lit(w, "lower is better");
	else
		fsb_html_lit(w, "higher is better");
}

/*
 * The tooltip of one bar: "label: median 5 MiB/s, lowest ..., 3 runs",
 * and for an imported figure where it came from.
 */
static void bar_title(struct fsb_html_out *w, const char *label, const struct fsb_test_result *cell,
		      const struct fsb_result *doc)
{
	char med[64], lo[64], hi[64];

	/* The unit picks the format and is the document's text: all escaped. */
	fsb_unit_format(cell->unit, cell->median, med, sizeof(med));
	fsb_unit_format(cell->unit, cell->min, lo, sizeof(lo));
	fsb_unit_format(cell->unit, cell->max, hi, sizeof(hi));
	fsb_html_lit(w, "<g><title>");
	if (cell->not_measured)
		fsb_html_textf(w, "%s: not measured", label);
	else
		fsb_html_textf(w, "%s: median %s, lowest %s, highest %s, %zu run%s", label, med, lo,
			       hi, cell->nruns, cell->nruns == 1 ? "" : "s");
	if (doc && doc->source)
		fsb_html_textf(w, " (imported: %s)", doc->source);
	fsb_html_lit(w, "</title>\n");
}

static void write_chart(struct page *p, size_t r)
{
	struct fsb_html_out *w = p->w;
	const struct fsb_compare_table *t = &p->tab;
	const struct fsb_compare_row *row = &t->rows[r];
	const char *aunit;
	double vmax = 0, div, step, top, plot = CH_W - CH_LABEL - CH_RIGHT;
	size_t nbars = 0, k = 0;
	int ht;

	for (size_t c = 0; c < t->ncols; c++) {
		const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);

		if (!cell)
			continue;
		nbars++;
		vmax = fmax(vmax, fmax(bounded(cell->median),
				       fmax(bounded(cell->min), bounded(cell->max))));
	}
	aunit = fsb_unit_axis(row->unit, vmax, &div);
	step = nice_step(vmax / div / 4);
	top = ceil(vmax / div / step - 1e-9) * step;
	if (!isfinite(top)) {
		/* Near DBL_MAX the rounded-up axis overflows: end it at the value. */
		top = vmax / div;
		step = top / 4;
	}
	if (!(top > 0))
		top = step;
	ht = CH_TOP + (int)nbars * (CH_BAR + CH_GAP) - CH_GAP + CH_AXIS;

	fsb_html_lit(w, "<figure><svg class=\"chart\" data-test=\"");
	fsb_html_attr(w, row->id);
	fsb_html_lit(w, "\" data-kind=\"");
	fsb_html_attr(w, row->kind);
	fsb_html_markupf(w, "\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">\n",
			 CH_W, ht, CH_W, ht);
	fsb_html_lit(w, "<title>");
	fsb_html_text(w, row_title(row));
	fsb_html_lit(w, ": median of each input, whisker from lowest to highest run (");
	fsb_html_text(w, aunit);
	fsb_html_lit(w, ", ");
	better_words(w, row);
	fsb_html_lit(w, ")</title>\n");
	fsb_html_lit(w, "<text x=\"0\" y=\"16\"><tspan class=\"t\">");
	fsb_html_text(w, row_title(row));
	fsb_html_lit(w, "</tspan><tspan class=\"u\" dx=\"8\">");
	fsb_html_text(w, aunit);
	fsb_html_lit(w, " · ");
	better_words(w, row);
	fsb_html_lit(w, "</tspan></text>\n");

	/* Grid and ticks: at most a handful of round numbers. */
	for (int i = 0; i <= 10; i++) {
		double v = i * step, x;

		if (v > top + step * 1e-6)
			break;
		x = CH_LABEL + plot * v / top;
		if (i)
			fsb_html_lit(w, "<line class=\"grid\"");
		else
			fsb_html_lit(w, "<line class=\"axis\"");
		fsb_html_markupf(w,
				 " x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
				 "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
				 "%.4g</text>\n",
				 x, CH_TOP - 6, x, ht - CH_AXIS + 4, x, ht - 8, v);
	}

	for (size_t c = 0; c < t->ncols; c++) {
		const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);
		const struct fsb_result *doc;
		double y, med, lo, hi, xm, xlo, xhi, yc, xt;

		if (!cell)
			continue;
		y = CH_TOP + (double)k++ * (CH_BAR + CH_GAP);
		yc = y + CH_BAR / 2.0;
		med = bounded(cell->median) / div;
		lo = fmin(bounded(cell->min), bounded(cell->median)) / div;
		hi = fmax(bounded(cell->max), bounded(cell->median)) / div;
		xm = CH_LABEL + plot * med / top;
		xlo = CH_LABEL + plot * lo / top;
		xhi = CH_LABEL + plot * hi / top;

		doc = doc_of(p, c, cell);
		bar_title(w, t->cols[c].label, cell, doc);
		fsb_html_markupf(w, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", CH_LABEL - 8,
				 yc + 4);
		fsb_html_text_cut(w, t->cols[c].label, CH_LABEL_CHARS);
		fsb_html_lit(w, "</text>\n");
		if (cell->not_measured) {
			/* No bar: a bar of 0 would be a figure, and there is none. */
			fsb_html_markupf(w, "<text class=\"nm\" x=\"%d\" y=\"%.1f\">", CH_LABEL + 6,
					 yc + 4);
			unmeasured_text(w, doc);
			fsb_html_lit(w, "</text>\n</g>\n");
			continue;
		}
		fsb_html_markupf(w,
				 "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
				 "rx=\"2\" fill=\"",
				 CH_LABEL, y, xm - CH_LABEL, CH_BAR);
		fsb_html_attr(w, colour(c));
		if (fsb_test_noisy(cell))
			fsb_html_lit(w, "\" fill-opacity=\"0.55");
		/* Another tool's figure: drawn lighter, with a dashed outline. */
		if (doc && doc->source) {
			fsb_html_lit(w,
				     "\" fill-opacity=\"0.4\" stroke-dasharray=\"4 2\" stroke=\"");
			fsb_html_attr(w, colour(c));
		}
		fsb_html_lit(w, "\"/>\n");
		if (xhi - xlo >= 0.5)
			fsb_html_markupf(w,
					 "<path class=\"wh\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1f"
					 "M%.1f %.1fV%.1f\"/>\n",
					 xlo, yc, xhi, xlo, yc - 6, yc + 6, xhi, yc - 6, yc + 6);
		xt = fmax(xm, xhi) + 6;
		/* In the axis's unit, so the label and the scale read alike. */
		fsb_html_markupf(w, "<text x=\"%.1f\" y=\"%.1f\">", xt, yc + 4);
		axis_value(w, med, aunit);
		if (fsb_test_noisy(cell))
			fsb_html_lit(w, " <tspan class=\"nz\">noisy</tspan>");
		if (doc && doc->source)
			fsb_html_lit(w, " <tspan class=\"imp\">imported</tspan>");
		fsb_html_lit(w, "</text>\n</g>\n");
	}
	fsb_html_lit(w, "</svg></figure>\n");
}

static void write_charts(struct page *p, bool lifecycle)
{
	struct fsb_html_out *w = p->w;

	fsb_html_lit(w, "<div class=\"charts\">\n");
	for (size_t r = 0; r < p->tab.nrows; r++)
		if (is_lifecycle_row(&p->tab.rows[r]) == lifecycle)
			write_chart(p, r);
	fsb_html_lit(w, "</div>\n");
}

static void write_results(struct page *p)
{
	struct fsb_html_out *w = p->w;
	bool any = false;

	for (size_t r = 0; r < p->tab.nrows && !any; r++)
		any = !is_lifecycle_row(&p->tab.rows[r]);
	if (!any)
		return;
	fsb_html_lit(w, "<section id=\"results\">\n<h2>Throughput and metadata</h2>\n<p "
			"class=\"note\">Bars are medians; whiskers span the lowest and highest "
			"run. Faded bars are noisy figures (coefficient of variation above "
			"10%).</p>\n");
	write_charts(p, false);
	fsb_html_lit(w, "</section>\n");
}

/*
 * Write amplification (device bytes written / bytes the test wrote) of the
 * throughput and metadata figures that have it, as the text view shows it
 * (has_wa: tests with device counters); the lifecycle table has its own
 * column. Nothing when none has.
 */
static void write_wa(struct page *p)
{
	struct fsb_html_out *w = p->w;
	const struct fsb_compare_table *t = &p->tab;
	bool any = false;

	for (size_t r = 0; r < t->nrows && !any; r++)
		for (size_t c = 0; c < t->ncols && !any; c++)
			any = !is_lifecycle_row(&t->rows[r]) && fsb_compare_cell(t, r, c) &&
			      fsb_compare_cell(t, r, c)->has_wa;
	if (!any)
		return;
	fsb_html_lit(w, "<section id=\"write-amplification\">\n<h2>Write amplification</h2>\n"
			"<p class=\"note\">Bytes written at the device / bytes the test wrote, "
			"for the tests with device counters.</p>\n<div class=\"scroll\"><table "
			"class=\"wa\"><thead><tr><th>Test</th><th>Input</th><th class=\"num\">"
			"Write amplification</th></tr></thead><tbody>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		size_t n = 0, k = 0;

		if (is_lifecycle_row(&t->rows[r]))
			continue;
		for (size_t c = 0; c < t->ncols; c++)
			n += fsb_compare_cell(t, r, c) && fsb_compare_cell(t, r, c)->has_wa;
		for (size_t c = 0; c < t->ncols; c++) {
			const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);

			if (!cell || !cell->has_wa)
				continue;
			fsb_html_lit(w, "<tr>");
			if (!k++) {
				fsb_html_markupf(w, "<th rowspan=\"%zu\">", n);
				fsb_html_text(w, t->rows[r].name);
				fsb_html_lit(w, "</th>");
			}
			td(w, t->cols[c].label);
			fsb_html_markupf(w, "<td class=\"num\">%.2f</td></tr>\n",
					 bounded(cell->write_amplification));
		}
	}
	fsb_html_lit(w, "</tbody></table></div>\n</section>\n");
}

/* ---- lifecycle ------------------------------------------------------------- */

/* A figure formatted with its unit, which may be the document's: text. */
static void num_cell(struct fsb_html_out *w, const char *formatted)
{
	fsb_html_lit(w, "<td class=\"num\">");
	fsb_html_text(w, formatted);
	fsb_html_lit(w, "</td>");
}

static void size_cell(struct fsb_html_out *w, bool known, uint64_t bytes)
{
	char buf[32];

	if (!known) {
		fsb_html_lit(w, "<td class=\"none num\">—</td>");
		return;
	}
	fsb_size_format_human(bytes, buf, sizeof(buf));
	num_cell(w, buf);
}

static void write_lifecycle(struct page *p)
{
	struct fsb_html_out *w = p->w;
	const struct fsb_compare_table *t = &p->tab;

	if (!has_kind(p, "lifecycle"))
		return;
	fsb_html_lit(w, "<section id=\"lifecycle\">\n<h2>Lifecycle</h2>\n<p class=\"note\">Wall "
			"time of each phase on the device (mkfs, mount, copy, read, umount): bars "
			"are medians, whiskers span the highest and lowest time. Lower is "
			"better.</p>\n");
	write_charts(p, true);
	fsb_html_lit(w, "<div class=\"scroll\"><table class=\"lifecycle\"><thead><tr><th>Phase</th>"
			"<th>Input</th><th class=\"num\">Lowest</th><th class=\"num\">Median</th>"
			"<th class=\"num\">Highest</th><th class=\"num\">Runs</th><th "
			"class=\"num\">Device read</th><th class=\"num\">Device written</th><th "
			"class=\"num\">Write amp.</th></tr></thead><tbody>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		size_t n = 0, k = 0;

		if (!is_lifecycle_row(&t->rows[r]))
			continue;
		for (size_t c = 0; c < t->ncols; c++)
			n += fsb_compare_cell(t, r, c) != NULL;
		for (size_t c = 0; c < t->ncols; c++) {
			const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);
			char lo[48], med[48], hi[48];

			if (!cell)
				continue;
			fsb_unit_format(cell->unit, cell->min, lo, sizeof(lo));
			fsb_unit_format(cell->unit, cell->median, med, sizeof(med));
			fsb_unit_format(cell->unit, cell->max, hi, sizeof(hi));
			fsb_html_lit(w, "<tr>");
			if (!k++) {
				fsb_html_markupf(w, "<th rowspan=\"%zu\">", n);
				fsb_html_text(w, row_title(&t->rows[r]));
				fsb_html_lit(w, "</th>");
			}
			td(w, t->cols[c].label);
			num_cell(w, lo);
			num_cell(w, med);
			num_cell(w, hi);
			fsb_html_markupf(w, "<td class=\"num\">%zu</td>", cell->nruns);
			size_cell(w, cell->has_device, cell->dev_read_bytes);
			size_cell(w, cell->has_device, cell->dev_write_bytes);
			if (cell->has_wa)
				fsb_html_markupf(w, "<td class=\"num\">%.2f</td>",
						 bounded(cell->write_amplification));
			else
				fsb_html_lit(w, "<td class=\"none num\">—</td>");
			fsb_html_lit(w, "</tr>\n");
		}
	}
	fsb_html_lit(w, "</tbody></table></div>\n</section>\n");
}

/* ---- latency ----------------------------------------------------------------- */

static void us_cell(struct fsb_html_out *w, double us)
{
	char buf[32];

	fsb_unit_format_us(us, buf, sizeof(buf));
	num_cell(w, buf);
}

static void write_latency(struct page *p)
{
	struct fsb_html_out *w = p->w;
	const struct fsb_compare_table *t = &p->tab;
	bool any = false;

	for (size_t i = 0; i < t->nrows * t->ncols && !any; i++)
		any = t->cells[i] && t->cells[i]->has_latency;
	if (!any)
		return;
	fsb_html_lit(w, "<section id=\"latency\">\n<h2>Latency</h2>\n<p class=\"note\">Time of a "
			"single operation (one chunk, one file, one seek), from a log-linear "
			"histogram.</p>\n<div class=\"scroll\"><table class=\"latency\"><thead><tr>"
			"<th>Test</th><th>Input</th><th class=\"num\">p50</th><th class=\"num\">"
			"p99</th><th class=\"num\">p99.9</th><th class=\"num\">max</th></tr>"
			"</thead><tbody>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		size_t n = 0, k = 0;

		for (size_t c = 0; c < t->ncols; c++)
			n += fsb_compare_cell(t, r, c) && fsb_compare_cell(t, r, c)->has_latency;
		for (size_t c = 0; c < t->ncols; c++) {
			const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);

			if (!cell || !cell->has_latency)
				continue;
			fsb_html_lit(w, "<tr>");
			if (!k++) {
				fsb_html_markupf(w, "<th rowspan=\"%zu\">", n);
				fsb_html_text(w, t->rows[r].name);
				fsb_html_lit(w, "</th>");
			}
			td(w, t->cols[c].label);
			if (cell->latency_max_only) {
				/* bonnie++ keeps the slowest operation only. */
				fsb_html_lit(w, "<td class=\"none num\">—</td><td class=\"none "
						"num\">—</td><td class=\"none num\">—</td>");
			} else {
				us_cell(w, cell->latency.p50_us);
				us_cell(w, cell->latency.p99_us);
				us_cell(w, cell->latency.p999_us);
			}
			us_cell(w, cell->latency.max_us);
			fsb_html_lit(w, "</tr>\n");
		}
	}
	fsb_html_lit(w, "</tbody></table></div>\n");
	fsb_html_cdf_charts(w, t);
	fsb_html_lit(w, "</section>\n");
}

/* ---- how measured -------------------------------------------------------------- */

/*
 * One parameter across the inputs of a kind (NULL: all): "3" when all
 * that have it agree, else "3 (a), 12 (b)". Returns false when none has it.
 */
static bool param_across(struct page *p, const char *key, const char *kind, struct fsb_html_out *w)
{
	char first[256] = "", val[256];
	bool any = false, differ = false;

	for (size_t i = 0; i < p->n; i++) {
		const struct fsb_param *prm = fsb_result_param(p->docs[i], key);

		if (!prm || !of_kind(p, i, kind))
			continue;
		param_value(prm, val, sizeof(val));
		if (!any)
			snprintf(first, sizeof(first), "%s", val);
		else if (strcmp(first, val))
			differ = true;
		any = true;
	}
	if (!any)
		return false;
	if (!differ) {
		fsb_html_lit(w, "<strong>");
		fsb_html_text(w, first);
		fsb_html_lit(w, "</strong>");
		return true;
	}
	for (size_t i = 0, k = 0; i < p->n; i++) {
		const struct fsb_param *prm = fsb_result_param(p->docs[i], key);

		if (!prm || !of_kind(p, i, kind))
			continue;
		param_value(prm, val, sizeof(val));
		if (k++)
			fsb_html_lit(w, ", ");
		fsb_html_lit(w, "<strong>");
		fsb_html_text(w, val);
		fsb_html_lit(w, "</strong> (");
		fsb_html_text(w, p->labels[i]);
		fsb_html_lit(w, ")");
	}
	return true;
}

static bool any_param(const struct page *p, const char *key)
{
	for (size_t i = 0; i < p->n; i++)
		if (fsb_result_param(p->docs[i], key))
			return true;
	return false;
}

/* What a cache mode means, as the page's own words (markup, not data). */
static void cache_words(struct fsb_html_out *w, enum fsb_cache_mode mode)
{
	switch (mode) {
	case FSB_CACHE_DROP:
		fsb_html_lit(w, "fsbench's own files are fsync'ed and evicted from the page cache "
				"before each read test, so reads come from the device; the rest "
				"of the machine's cache is left alone");
		break;
	case FSB_CACHE_DROP_ALL:
		fsb_html_lit(w, "as drop, and the whole machine's page cache, dentries and inodes "
				"are dropped before each read test (drop_caches)");
		break;
	case FSB_CACHE_DIRECT:
		fsb_html_lit(w, "block tests bypass the page cache with O_DIRECT, down to the "
				"device (not through a buffered loop device: see the caveats)");
		break;
	case FSB_CACHE_KEEP:
		fsb_html_lit(w, "the page cache is kept on purpose: reads may come from memory");
		break;
	}
}

/* "3" or, with several kinds, "run suites 3, lifecycle phases 12". */
static void write_repeats(struct page *p)
{
	struct fsb_html_out *w = p->w;
	size_t nkinds = 0;

	for (size_t i = 0; i < p->n; i++) {
		const char *kind = p->docs[i]->kind ? p->docs[i]->kind : "";
		bool earlier = false, several = false;
		size_t nruns = 0;

		for (size_t j = 0; j < p->n; j++) {
			if (j < i && str_eq(p->docs[j]->kind, kind))
				earlier = true;
			if (!str_eq(p->docs[j]->kind, kind))
				several = true;
		}
		if (earlier)
			continue;
		if (nkinds++)
			fsb_html_lit(w, "; ");
		if (several && !strcmp(kind, "run"))
			fsb_html_lit(w, "run suites ");
		else if (several && !strcmp(kind, "lifecycle"))
			fsb_html_lit(w, "lifecycle phases ");
		else if (several)
			fsb_html_lit(w, "other ");
		if (param_across(p, "repeat", kind, w))
			continue;
		/* No parameter: the tests say how often they ran. */
		for (size_t j = 0; j < p->n && !nruns; j++)
			if (of_kind(p, j, kind) && p->docs[j]->ntests)
				nruns = p->docs[j]->tests[0].nruns;
		fsb_html_markupf(w, "<strong>%zu</strong>", nruns);
	}
}

/* Whether some document ran more than one job. */
static bool any_jobs(const struct page *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (fsb_result_jobs(p->docs[i]) > 1)
			return true;
	return false;
}

static void write_method(struct page *p)
{
	struct fsb_html_out *w = p->w;
	static const enum fsb_cache_mode modes[] = { FSB_CACHE_DROP, FSB_CACHE_DIRECT,
						     FSB_CACHE_KEEP, FSB_CACHE_DROP_ALL };
	bool listed[4] = { false };

	fsb_html_lit(w, "<section id=\"method\">\n<h2>How measured</h2>\n<ul>\n");
	fsb_html_lit(w, "<li>Each figure is the <strong>median</strong> of repeated measured "
			"runs, drawn as a bar; its whisker spans the lowest and highest run "
			"(min–max).");
	fsb_html_lit(w, " Repeats: ");
	write_repeats(p);
	fsb_html_lit(w, ".</li>\n");
	fsb_html_lit(w, "<li>A figure is flagged <span class=\"badge\">noisy</span> when its "
			"coefficient of variation (standard deviation / mean of the runs) exceeds "
			"10%.</li>\n");
	if (any_param(p, "min_time_s")) {
		fsb_html_lit(w, "<li>Every measured run lasts at least the minimum time (");
		param_across(p, "min_time_s", NULL, w);
		fsb_html_lit(w, "): a shorter run is discarded and the work grown, so every figure "
				"is a real measurement (no <code>+++++</code>).</li>\n");
	}
	if (any_param(p, "cache")) {
		fsb_html_lit(w, "<li>Cache mode: ");
		param_across(p, "cache", NULL, w);
		fsb_html_lit(w, ".");
		for (size_t m = 0; m < 4; m++) {
			for (size_t i = 0; i < p->n && !listed[m]; i++) {
				const char *name = fsb_result_get_str(p->docs[i], "cache", NULL);
				enum fsb_cache_mode mode;

				if (!fsb_cache_mode_parse(name, &mode) && mode == modes[m]) {
					fsb_html_lit(w, " <em>");
					fsb_html_text(w, fsb_cache_mode_name(mode));
					fsb_html_lit(w, "</em>: ");
					cache_words(w, modes[m]);
					fsb_html_lit(w, ".");
					listed[m] = true;
				}
			}
		}
		fsb_html_lit(w, "</li>\n");
	}
	if (any_param(p, "data")) {
		fsb_html_lit(w, "<li>Data written (<code>--data</code>): ");
		param_across(p, "data", NULL, w);
		fsb_html_lit(w, ".");
		/* What each value that appears means, once. */
		for (size_t i = 0; i < p->n; i++) {
			const char *v = fsb_result_get_str(p->docs[i], "data", NULL), *words;
			bool seen = false;

			for (size_t j = 0; v && j < i; j++)
				seen |= !strcmp(v, fsb_result_get_str(p->docs[j], "data", ""));
			if (!v || seen || !(words = fsb_writer_data_words(v)))
				continue;
			fsb_html_lit(w, " <em>");
			fsb_html_text(w, v);
			fsb_html_lit(w, "</em>: ");
			fsb_html_text(w, words);
			fsb_html_lit(w, ".");
		}
		fsb_html_lit(w, "</li>\n");
	}
	if (any_param(p, "size_bytes") && (has_test(p, "write") || has_test(p, "rewrite") ||
					   has_test(p, "read") || has_test(p, "seeks"))) {
		fsb_html_lit(w, "<li>Block tests: a file of ");
		param_across(p, "size_bytes", NULL, w);
		fsb_html_lit(w, " in chunks of ");
		if (!param_across(p, "chunk_bytes", NULL, w))
			fsb_html_lit(w, "unknown size");
		if (any_param(p, "seeks")) {
			fsb_html_lit(w, "; random seeks: ");
			param_across(p, "seeks", NULL, w);
			fsb_html_lit(w, " shared by ");
			if (!param_across(p, "seekers", NULL, w))
				fsb_html_lit(w, "several");
			fsb_html_lit(w, " processes");
		}
		fsb_html_lit(w, ".</li>\n");
	}
	if (any_param(p, "block_size_bytes") &&
	    (has_test(p, "randread") || has_test(p, "randwrite"))) {
		fsb_html_lit(w, "<li>Random tests: blocks of ");
		param_across(p, "block_size_bytes", NULL, w);
		fsb_html_lit(w, " in a random order, each at most once per run, through the ");
		if (!param_across(p, "engine", NULL, w))
			fsb_html_lit(w, "psync");
		fsb_html_lit(w, " engine with up to ");
		if (!param_across(p, "iodepth", NULL, w))
			fsb_html_lit(w, "1");
		fsb_html_lit(w, " I/Os in flight.</li>\n");
	}
	if (any_jobs(p)) {
		fsb_html_lit(w, "<li>Jobs: ");
		param_across(p, "jobs", NULL, w);
		fsb_html_lit(
			w, " copies of each test ran at once, started together. A figure is "
			   "their <strong>aggregate</strong>: the work of all jobs divided by the "
			   "time from the first start to the last end of a run (IOR's "
			   "definition), so a slow job lengthens the run instead of being "
			   "averaged away.</li>\n");
	}
	if (any_param(p, "files") && (has_test(p, "seq-create") || has_test(p, "rand-create"))) {
		fsb_html_lit(w, "<li>Metadata tests: ");
		param_across(p, "files", NULL, w);
		fsb_html_lit(w, " files created, stat'ed and deleted, in sequential and in random "
				"order.</li>\n");
	}
	if (has_kind(p, "lifecycle"))
		fsb_html_lit(w, "<li>Lifecycle phases are timed on a block device (a loop device "
				"over an image file, attached with direct I/O, or the device "
				"given), each phase repeated and reported as highest, median and "
				"lowest wall time; device bytes come from the <code>"
				"/sys/block</code> counters.</li>\n");
	if (n_imported(p))
		fsb_html_lit(w, "<li>Results marked <span class=\"badge imp\">imported</span> are "
				"other tools' figures as their files hold them, drawn lighter "
				"with a dashed outline. Each is a single run, so no difference "
				"against one is called significant: its ratio is marked "
				"<em>single run</em>. bonnie++: K/sec are KiB/s; <code>+++++"
				"</code> (a test that took under 0.5 s) is shown as not "
				"measured, never as 0; its latency is the slowest single "
				"operation only. fio: a sequential write or read job's bandwidth "
				"is <em>write</em> or <em>read</em>, a randread or randwrite "
				"job's IOPS <em>randread</em> or <em>randwrite</em>, other jobs "
				"are rows named <code>fio:JOB:DIRECTION</code>; latency is the "
				"completion latency (clat) percentiles; a figure of 0 from a job "
				"that moved data (under fio's 1 ms clock) is not "
				"measured.</li>\n");
	fsb_html_lit(w, "<li>%CPU is user + system time of every process of a test divided by wall "
			"time; latency is that of single operations (p50, p99, p99.9, max).</li>"
			"\n");
	if (p->tab.ncols > 1) {
		fsb_html_lit(w, "<li>Ratios compare medians with the first input, <strong>");
		fsb_html_text(w, p->tab.cols[0].label);
		fsb_html_lit(w, "</strong>. A difference is called significant only when both "
				"figures were measured at least twice and their [min, max] ranges "
				"do not overlap; otherwise it lies within the measured spread and "
				"is marked ~.</li>\n");
	}
	fsb_html_lit(w, "</ul>\n</section>\n");
}

/* ---- the devices and the caveats ---------------------------------------- */

/* A device figure, with its rounds' spread where it has rounds. */
static void devcap_cell(const struct fsb_devcap *dc, enum fsb_devcap_fig k, char *buf, size_t len)
{
	bool bytes = k == FSB_DEVCAP_SEQ_READ || k == FSB_DEVCAP_SEQ_WRITE;
	double v = fsb_devcap_value(dc, k), sp = fsb_devcap_spread(dc, k, NULL, NULL);
	size_t n;

	if (!(v > 0)) {
		snprintf(buf, len, "not written");
		return;
	}
	fsb_unit_format_rate(v, bytes, buf, len);
	n = strlen(buf);
	if (dc->nrounds[k] >= 2 && n < len)
		snprintf(buf + n, len - n, " (spread %.0f%%)", isfinite(sp) ? sp * 100 : 0.0);
}

/* Each input's raw device, and its figures as shares of the device's. */
static void write_devcaps(struct page *p)
{
	struct fsb_html_out *w = p->w;
	char a[64], b[64], c[64], d[64];
	bool any = false;

	for (size_t i = 0; i < p->n; i++) {
		const struct fsb_result *r = p->docs[i];
		const struct fsb_devcap *dc = &r->devcap;

		if (!dc->present)
			continue;
		if (!any)
			fsb_html_lit(
				w, "<section>\n<h2>The devices themselves</h2>\n<p>Each "
				   "device measured raw, with O_DIRECT at a deep queue, before "
				   "the filesystem's tests; each figure below is the "
				   "filesystem's as a share of the device's matching one.</p>\n"
				   "<table>\n<tr><th>input</th><th>device</th><th class=\"num\">"
				   "seq read</th><th class=\"num\">seq write</th><th class=\"num\">"
				   "4 KiB rand read</th><th class=\"num\">4 KiB rand write</th>"
				   "<th>of the device</th></tr>\n");
		any = true;
		devcap_cell(dc, FSB_DEVCAP_SEQ_READ, a, sizeof(a));
		devcap_cell(dc, FSB_DEVCAP_SEQ_WRITE, b, sizeof(b));
		devcap_cell(dc, FSB_DEVCAP_RAND_READ, c, sizeof(c));
		devcap_cell(dc, FSB_DEVCAP_RAND_WRITE, d, sizeof(d));
		fsb_html_lit(w, "<tr>");
		td(w, p->labels[i]);
		td(w, dc->device ? dc->device : "?");
		num_cell(w, a);
		num_cell(w, b);
		num_cell(w, c);
		num_cell(w, d);
		fsb_html_lit(w, "<td>");
		for (size_t j = 0, k = 0; j < r->ntests; j++) {
			double frac;
			bool rough;

			if (!fsb_result_device_fraction(r, &r->tests[j], &frac, &rough))
				continue;
			if (k++)
				fsb_html_lit(w, ", ");
			fsb_html_textf(w, "%s %.0f%%%s", fsb_test_title(r->tests[j].id),
				       isfinite(frac) ? frac * 100 : 0.0,
				       rough ? " (rough: against random reads)" : "");
		}
		fsb_html_lit(w, "</td></tr>\n");
	}
	if (any)
		fsb_html_lit(w, "</table>\n</section>\n");
}

/* What each input's reader must know, found by fsbench from its facts. */
static void write_caveats(struct page *p)
{
	struct fsb_html_out *w = p->w;
	struct fsb_caveat cav[FSB_CAVEATS_MAX];
	bool any = false;

	for (size_t i = 0; i < p->n; i++) {
		size_t n = fsb_caveats_find(p->docs[i], cav, FSB_CAVEATS_MAX);

		if (!n)
			continue;
		if (!any)
			fsb_html_lit(w, "<section>\n<h2>Caveats</h2>\n");
		any = true;
		fsb_html_lit(w, "<h3>");
		fsb_html_text(w, p->labels[i]);
		fsb_html_lit(w, "</h3>\n<ul>\n");
		for (size_t k = 0; k < n; k++) {
			fsb_html_lit(w, "<li>");
			fsb_html_text(w, cav[k].text);
			fsb_html_lit(w, " <small>(");
			fsb_html_text(w, cav[k].evidence);
			fsb_html_lit(w, ")</small></li>\n");
		}
		fsb_html_lit(w, "</ul>\n");
	}
	if (any)
		fsb_html_lit(w, "</section>\n");
}

/* ---- the page ---------------------------------------------------------------- */

int fsb_html_write(FILE *out, const struct fsb_result *const *docs, const char *const *labels,
		   size_t n)
{
	struct fsb_html_out w;
	struct page p = { .w = &w, .docs = docs, .labels = labels, .n = n };
	int err;

	if (!n)
		return -EINVAL;
	err = fsb_compare_table_build(&p.tab, docs, labels, n);
	if (err == -E2BIG) {
		fsb_err("report: more than %d distinct tests in these files: not fsbench results",
			FSB_COMPARE_MAX_ROWS);
		return -EINVAL;
	}
	if (err)
		return err;
	fsb_html_out_init(&w, out);
	p.doc_col = calloc(n, sizeof(*p.doc_col));
	if (!p.doc_col) {
		fsb_compare_table_release(&p.tab);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < p.tab.ncols; c++)
			if (!strcmp(p.tab.cols[c].label, labels[i] ? labels[i] : ""))
				p.doc_col[i] = c;

	write_head(&p);
	write_header(&p);
	write_setups(&p);
	write_summary(&p);
	write_results(&p);
	write_wa(&p);
	write_lifecycle(&p);
	write_latency(&p);
	fsb_html_runs_section(&w, &p.tab);
	fsb_html_jobs_section(&w, &p.tab);
	write_devcaps(&p);
	write_method(&p);
	write_caveats(&p);
	fsb_html_lit(&w, "<footer>Made by fsbench " FSB_VERSION ". This page is self-contained: "
			 "it needs no network and runs no scripts.</footer>\n</main>\n</body>\n"
			 "</html>\n");

	free(p.doc_col);
	fsb_compare_table_release(&p.tab);
	return fsb_html_out_finish(&w);
}
