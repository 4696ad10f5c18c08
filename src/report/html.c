/*
 * The HTML report: a page a storage engineer can mail to a colleague. It
 * must open anywhere, offline and years later, so it is one file with
 * inline CSS and inline SVG, and it runs nothing: no script element, no
 * event handler, no external URL (a Content-Security-Policy says so too,
 * so even a mistake here could not fetch or run anything). Everything
 * taken from the documents is someone else's text and is escaped.
 *
 * Charts are horizontal bars, one per input, so long labels stay legible:
 * the bar is the median, the whisker spans the lowest and highest run,
 * the value is written beside it. The axis starts at zero (a bar whose
 * length lies is worse than no chart).
 */
#include "report/html.h"
#include "core/error.h"
#include "report/compare.h"
#include "util/size.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- escaping ---------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		/* No overlong forms, no UTF-16 surrogates. */
		if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f))
			return 0;
		return (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
			return 0;
		return (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 &&
		       (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

/*
 * Escape at most max characters of s; when s is longer, end with "…" so
 * a reader knows (the whole string goes in a <title> beside it).
 */
static void escape_n(FILE *out, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t chars = 0;

	for (; *s; chars++) {
		size_t n = utf8_len(s);

		if (chars + 1 == max && s[n ? n : 1]) {
			fputs("…", out);
			return;
		}
		if (!n) {
			fputs("\xef\xbf\xbd", out);
			s++;
			continue;
		}
		if (n == 1) {
			switch (*s) {
			case '&': fputs("&amp;", out); break;
			case '<': fputs("&lt;", out); break;
			case '>': fputs("&gt;", out); break;
			case '"': fputs("&quot;", out); break;
			case '\'': fputs("&#39;", out); break;
			case '\t': case '\n': case '\r':
				fputc(*s, out);
				break;
			default:
				/* Controls are parse errors in HTML: show U+FFFD instead. */
				if (*s < 0x20 || *s == 0x7f)
					fputs("\xef\xbf\xbd", out);
				else
					fputc(*s, out);
			}
		} else if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0) {
			/* C1 controls (U+0080-U+009F). */
			fputs("\xef\xbf\xbd", out);
		} else {
			fwrite(s, 1, n, out);
		}
		s += n;
	}
}

void fsb_html_escape(FILE *out, const char *s)
{
	escape_n(out, s, SIZE_MAX);
}

#define esc fsb_html_escape

/* ---- page context ------------------------------------------------------ */

struct page {
	FILE *out;
	const struct fsb_result *const *docs;
	const char *const *labels;
	size_t n;
	struct fsb_compare_table tab;
	size_t *doc_col;          /* column of each document */
};

/* Eight colours that stay apart in print and for common colour blindness. */
static const char *const palette[] = {
	"#3366cc", "#e6862e", "#2e9e5b", "#c44e9c", "#7f62c4", "#b8962a", "#2a9fb5", "#6b7280",
};

static const char *colour(size_t col)
{
	return palette[col % (sizeof(palette) / sizeof(palette[0]))];
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

/* ---- head and style ----------------------------------------------------- */

static const char style[] =
	":root{--fg:#1c2230;--muted:#5d6778;--line:#d9dee7;--head:#f3f5f9;--good:#1a7f37;"
	"--bad:#b42318}\n"
	"*{box-sizing:border-box}\n"
	"html{-webkit-text-size-adjust:100%}\n"
	"body{margin:0;color:var(--fg);background:#fff;font:15px/1.45 system-ui,-apple-system,"
	"\"Segoe UI\",Roboto,\"Noto Sans\",\"DejaVu Sans\",sans-serif}\n"
	"main{max-width:1200px;margin:0 auto;padding:28px 32px 56px}\n"
	"h1{font-size:26px;margin:0 0 2px}\n"
	"h2{font-size:19px;margin:34px 0 10px;padding-bottom:4px;"
	"border-bottom:2px solid var(--line)}\n"
	"h3{font-size:15px;margin:18px 0 6px}\n"
	"p{margin:6px 0}\n"
	".sub,.note{color:var(--muted)}\n"
	".note{font-size:13px}\n"
	"dl.host{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:12px 0}\n"
	"dl.host dt{color:var(--muted)}dl.host dd{margin:0}\n"
	".scroll{overflow-x:auto}\n"
	"table{border-collapse:collapse;font-size:14px;margin:8px 0}\n"
	"th,td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:left;"
	"vertical-align:top}\n"
	"thead th{background:var(--head);font-weight:600;border-bottom:2px solid var(--line)}\n"
	"tbody th{font-weight:600}\n"
	"td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"td.none{color:var(--muted)}\n"
	"tr.diff td{background:#fff7e0}\n"
	".better{color:var(--good);font-weight:600}.worse{color:var(--bad);font-weight:600}\n"
	".same{color:var(--muted)}\n"
	".badge{display:inline-block;font-size:11px;line-height:1.3;padding:0 5px;"
	"border-radius:3px;background:#fde7c8;color:#7a4100;margin-left:4px}\n"
	".key{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}\n"
	".charts{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:16px 24px}\n"
	"figure{margin:0;padding:10px 12px;border:1px solid var(--line);border-radius:6px;"
	"break-inside:avoid;page-break-inside:avoid}\n"
	"svg.chart{display:block;width:100%;height:auto}\n"
	"svg text{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,\"Noto Sans\","
	"\"DejaVu Sans\",sans-serif;font-size:12px;fill:var(--fg)}\n"
	"svg .t{font-size:14px;font-weight:600}svg .u,svg .tick{fill:var(--muted)}\n"
	"svg .grid{stroke:#e6e9ef;stroke-width:1}svg .axis{stroke:#9aa3b2;stroke-width:1}\n"
	"svg .wh{stroke:#1c2230;stroke-width:1.5}svg .nz{fill:#a15c00;font-weight:600}\n"
	"ul{margin:6px 0;padding-left:22px}li{margin:3px 0}\n"
	"footer{margin-top:36px;color:var(--muted);font-size:12px}\n"
	"@media (max-width:900px){.charts{grid-template-columns:1fr}main{padding:16px}}\n"
	"@media print{@page{margin:14mm}body{font-size:10.5pt}main{max-width:none;padding:0}"
	"h2,h2+p{break-after:avoid;page-break-after:avoid}.scroll{overflow:visible}"
	/* One chart a row on paper: two would print their labels at 5 pt. */
	".charts{grid-template-columns:1fr;gap:10px}.charts figure{max-width:160mm}"
	"table,figure{break-inside:avoid;page-break-inside:avoid}"
	"*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n";

static void write_head(struct page *p)
{
	FILE *out = p->out;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      /* Nothing to fetch, nothing to run: only inline styles may apply. */
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"fsbench " FSB_VERSION "\">\n"
	      "<title>fsbench report: ",
	      out);
	for (size_t c = 0; c < p->tab.ncols; c++) {
		if (c)
			fputs(c + 1 == p->tab.ncols ? " vs " : ", ", out);
		escape_n(out, p->tab.cols[c].label, 40);
	}
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", style);
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
	FILE *out = p->out;
	char buf[32];

	fputs("<dl class=\"host\">\n", out);
	if (h->hostname) {
		fputs("<dt>Host</dt><dd>", out);
		esc(out, h->hostname);
		fputs("</dd>\n", out);
	}
	fputs("<dt>Kernel</dt><dd>", out);
	esc(out, h->kernel ? h->kernel : "unknown");
	fputs("</dd>\n<dt>CPU</dt><dd>", out);
	esc(out, h->cpu ? h->cpu : "unknown");
	fputs("</dd>\n<dt>CPUs</dt><dd>", out);
	if (h->cpus > 0)
		fprintf(out, "%d", h->cpus);
	else
		fputs("unknown", out);
	ram_text(h->ram_bytes, buf, sizeof(buf));
	fprintf(out, "</dd>\n<dt>RAM</dt><dd>%s</dd>\n</dl>\n", buf);
}

static void td(FILE *out, const char *s)
{
	if (!s || !s[0]) {
		fputs("<td class=\"none\">—</td>", out);
		return;
	}
	fputs("<td>", out);
	esc(out, s);
	fputs("</td>", out);
}

static void th_label(FILE *out, const char *label, size_t col, const char *cls)
{
	fprintf(out, "<th%s%s%s><span class=\"key\" style=\"background:%s\"></span>",
		cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "", colour(col));
	esc(out, label);
	fputs("</th>", out);
}

static void write_hosts(struct page *p)
{
	FILE *out = p->out;
	bool all_same = true;

	for (size_t i = 1; i < p->n && all_same; i++)
		all_same = same_host(&p->docs[0]->host, &p->docs[i]->host);
	if (all_same) {
		write_host_list(p, &p->docs[0]->host);
		return;
	}
	/* Results from different machines: say so plainly, one row each. */
	fputs("<p><strong>The inputs come from different hosts.</strong></p>\n"
	      "<div class=\"scroll\"><table class=\"hosts\"><thead><tr><th>Input</th><th>Kind</th>"
	      "<th>Host</th><th>Kernel</th><th>CPU</th><th class=\"num\">CPUs</th>"
	      "<th class=\"num\">RAM</th></tr></thead><tbody>\n", out);
	for (size_t i = 0; i < p->n; i++) {
		const struct fsb_host *h = &p->docs[i]->host;
		char ram[32];

		fputs("<tr>", out);
		td(out, p->labels[i]);
		td(out, p->docs[i]->kind);
		td(out, h->hostname);
		td(out, h->kernel);
		td(out, h->cpu);
		if (h->cpus > 0)
			fprintf(out, "<td class=\"num\">%d</td>", h->cpus);
		else
			td(out, NULL);
		ram_text(h->ram_bytes, ram, sizeof(ram));
		fprintf(out, "<td class=\"num\">%s</td></tr>\n", ram);
	}
	fputs("</tbody></table></div>\n", out);
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
	"size_bytes", "chunk_bytes", "repeat", "cache", "min_time_s", "files", "seed",
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
	FILE *out = p->out;
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
	fprintf(out, "<tr%s><th>", differs ? " class=\"diff\"" : "");
	esc(out, name);
	fputs("</th>", out);
	if (!differs && ndocs > 1) {
		/* One value for all: say it once, so what differs stands out. */
		fprintf(out, "<td colspan=\"%zu\">", ndocs);
		esc(out, first);
		fputs("</td></tr>\n", out);
		return;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct fsb_param *prm = fsb_result_param(p->docs[i], key);

		if (!of_kind(p, i, kind))
			continue;
		val[0] = '\0';
		if (prm)
			param_value(prm, val, sizeof(val));
		td(out, val);
	}
	fputs("</tr>\n", out);
}

/* One table per kind of result: run and lifecycle parameters have little in common. */
static void write_param_table(struct page *p, const char *kind, bool several_kinds)
{
	FILE *out = p->out;
	size_t ndocs = 0, nparams = 0;

	for (size_t i = 0; i < p->n; i++) {
		if (of_kind(p, i, kind)) {
			ndocs++;
			nparams += p->docs[i]->nparams;
		}
	}
	if (!nparams)
		return;
	fputs("<h3>Parameters", out);
	if (several_kinds) {
		fputs(" of the ", out);
		esc(out, kind);
		fputs(!strcmp(kind, "run") ? " suites" : " results", out);
	}
	fputs("</h3>\n<div class=\"scroll\"><table class=\"params\"><thead><tr>"
	      "<th>Parameter</th>", out);
	for (size_t i = 0; i < p->n; i++)
		if (of_kind(p, i, kind))
			th_label(out, p->labels[i], p->doc_col[i], NULL);
	fputs("</tr></thead><tbody>\n", out);
	for (size_t k = 0; k < NFIRST; k++)
		param_row(p, kind, ndocs, first_params[k]);
	for (size_t d = 0; d < p->n; d++) {
		if (!of_kind(p, d, kind))
			continue;
		for (size_t i = 0; i < p->docs[d]->nparams; i++)
			if (!param_listed(p, kind, d, i))
				param_row(p, kind, ndocs, p->docs[d]->params[i].key);
	}
	fputs("</tbody></table></div>\n", out);
	if (ndocs > 1)
		fputs("<p class=\"note\">Shaded rows differ between inputs; a value shown once "
		      "holds for all.</p>\n", out);
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
	FILE *out = p->out;

	fputs("<header>\n<h1>fsbench report</h1>\n<p class=\"sub\">", out);
	for (size_t c = 0; c < p->tab.ncols; c++) {
		if (c)
			fputs(c + 1 == p->tab.ncols ? " vs " : ", ", out);
		fputs("<strong>", out);
		esc(out, p->tab.cols[c].label);
		fputs("</strong>", out);
	}
	fprintf(out, " · %zu result%s · fsbench " FSB_VERSION "</p>\n", p->n,
		p->n == 1 ? "" : "s");
	write_hosts(p);
	write_params(p);
	fputs("</header>\n", out);
}

/* ---- setups --------------------------------------------------------------- */

static void write_setups(struct page *p)
{
	FILE *out = p->out;

	fputs("<section id=\"setups\">\n<h2>Setups</h2>\n<div class=\"scroll\"><table "
	      "class=\"setups\"><thead><tr><th>Label</th><th>Kind</th><th>Filesystem</th>"
	      "<th>Mount options</th><th>Device</th><th>Fill</th>"
	      "<th>fsbench</th></tr></thead><tbody>\n", out);
	for (size_t i = 0; i < p->n; i++) {
		const struct fsb_setup *s = &p->docs[i]->setup;

		fputs("<tr>", out);
		th_label(out, p->labels[i], p->doc_col[i], NULL);
		td(out, p->docs[i]->kind);
		td(out, s->fs_type);
		td(out, s->mount_options);
		td(out, s->device);
		td(out, s->fill);
		td(out, p->docs[i]->version);
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div>\n</section>\n", out);
}

/* ---- summary: the compare table ------------------------------------------ */

static void value_cell(FILE *out, const struct fsb_test_result *t)
{
	char buf[64];

	if (!t) {
		fputs("<td class=\"none num\">—</td>", out);
		return;
	}
	fsb_compare_format_value(t->unit, t->median, buf, sizeof(buf));
	fprintf(out, "<td class=\"num\">%s%s</td>", buf,
		fsb_test_noisy(t) ? "<span class=\"badge\">noisy</span>" : "");
}

static void ratio_cell(FILE *out, const struct fsb_test_result *base,
		       const struct fsb_test_result *t)
{
	static const char *const cls[] = {
		[FSB_CMP_NONE] = "same", [FSB_CMP_SAME] = "same",
		[FSB_CMP_BETTER] = "better", [FSB_CMP_WORSE] = "worse",
	};
	char buf[64];

	if (!t) {
		fputs("<td></td>", out);
		return;
	}
	fsb_compare_ratio_text(base, t, buf, sizeof(buf));
	fprintf(out, "<td class=\"num %s\">%s</td>", cls[fsb_compare_verdict(base, t)], buf);
}

static void write_summary(struct page *p)
{
	FILE *out = p->out;
	const struct fsb_compare_table *t = &p->tab;

	if (!t->nrows)
		return;
	fputs("<section id=\"summary\">\n<h2>Summary</h2>\n", out);
	if (t->ncols > 1) {
		fputs("<p>Medians side by side; the speed of each input relative to <strong>", out);
		esc(out, t->cols[0].label);
		fputs("</strong> (for times, less is faster). <span class=\"same\">~</span> "
		      "marks a difference within the measured spread: not significant.</p>\n", out);
	}
	fputs("<div class=\"scroll\"><table class=\"summary\"><thead><tr><th>Test</th>", out);
	for (size_t c = 0; c < t->ncols; c++) {
		th_label(out, t->cols[c].label, c, "num");
		if (c)
			fputs("<th class=\"num\">vs first</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs("<tr><th>", out);
		esc(out, t->rows[r].name);
		fputs("</th>", out);
		for (size_t c = 0; c < t->ncols; c++) {
			value_cell(out, fsb_compare_cell(t, r, c));
			if (c)
				ratio_cell(out, fsb_compare_cell(t, r, 0),
					   fsb_compare_cell(t, r, c));
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div>\n</section>\n", out);
}

/* ---- charts ---------------------------------------------------------------- */

/* Chart geometry, in SVG user units (the svg scales to its box). */
enum {
	CH_W = 600,        /* whole width */
	CH_LABEL = 132,    /* input labels, right-aligned, left of the plot */
	CH_RIGHT = 128,    /* room for the value written after the longest bar */
	CH_TOP = 34,       /* the title above the first bar */
	CH_BAR = 22,
	CH_GAP = 10,
	CH_AXIS = 28,      /* tick labels below the last bar */
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

/* v (already in unit) with three significant digits, escaped. */
static void axis_value(FILE *out, double v, const char *unit)
{
	char buf[32];

	if (v < 9.995)
		snprintf(buf, sizeof(buf), "%.2f ", v);
	else if (v < 99.95)
		snprintf(buf, sizeof(buf), "%.1f ", v);
	else
		snprintf(buf, sizeof(buf), "%.0f ", v);
	fputs(buf, out);
	esc(out, unit);
}

/* What to call a row where the section already says what kind it is. */
static const char *row_title(const struct fsb_compare_row *row)
{
	return strcmp(row->kind, "run") ? row->id : row->name;
}

static void write_chart(struct page *p, size_t r)
{
	FILE *out = p->out;
	const struct fsb_compare_table *t = &p->tab;
	const struct fsb_compare_row *row = &t->rows[r];
	const char *aunit;
	double vmax = 0, div, step, top, plot = CH_W - CH_LABEL - CH_RIGHT;
	size_t nbars = 0, k = 0;
	int h;

	for (size_t c = 0; c < t->ncols; c++) {
		const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);

		if (!cell)
			continue;
		nbars++;
		vmax = fmax(vmax, fmax(bounded(cell->median), fmax(bounded(cell->min),
								   bounded(cell->max))));
	}
	aunit = fsb_compare_axis_unit(row->unit, vmax, &div);
	step = nice_step(vmax / div / 4);
	top = ceil(vmax / div / step - 1e-9) * step;
	if (!(top > 0))
		top = step;
	h = CH_TOP + (int)nbars * (CH_BAR + CH_GAP) - CH_GAP + CH_AXIS;

	fputs("<figure><svg class=\"chart\" data-test=\"", out);
	esc(out, row->id);
	fputs("\" data-kind=\"", out);
	esc(out, row->kind);
	fprintf(out, "\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">\n",
		CH_W, h, CH_W, h);
	fputs("<title>", out);
	esc(out, row_title(row));
	fputs(": median of each input, whisker from lowest to highest run (", out);
	esc(out, aunit);
	fprintf(out, ", %s is better)</title>\n",
		fsb_compare_lower_is_better(row->unit) ? "lower" : "higher");
	fputs("<text x=\"0\" y=\"16\"><tspan class=\"t\">", out);
	esc(out, row_title(row));
	fputs("</tspan><tspan class=\"u\" dx=\"8\">", out);
	esc(out, aunit);
	fprintf(out, " · %s is better</tspan></text>\n",
		fsb_compare_lower_is_better(row->unit) ? "lower" : "higher");

	/* Grid and ticks: at most a handful of round numbers. */
	for (int i = 0; i <= 10; i++) {
		double v = i * step, x;

		if (v > top + step * 1e-6)
			break;
		x = CH_LABEL + plot * v / top;
		fprintf(out, "<line class=\"%s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
			"%.4g</text>\n",
			i ? "grid" : "axis", x, CH_TOP - 6, x, h - CH_AXIS + 4, x, h - 8, v);
	}

	for (size_t c = 0; c < t->ncols; c++) {
		const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);
		double y, med, lo, hi, xm, xlo, xhi, yc, xt;
		char value[64];

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

		fputs("<g><title>", out);
		esc(out, t->cols[c].label);
		fsb_compare_format_value(cell->unit, cell->median, value, sizeof(value));
		fprintf(out, ": median %s", value);
		fsb_compare_format_value(cell->unit, cell->min, value, sizeof(value));
		fprintf(out, ", lowest %s", value);
		fsb_compare_format_value(cell->unit, cell->max, value, sizeof(value));
		fprintf(out, ", highest %s, %zu run%s</title>\n", value, cell->nruns,
			cell->nruns == 1 ? "" : "s");
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", CH_LABEL - 8,
			yc + 4);
		escape_n(out, t->cols[c].label, CH_LABEL_CHARS);
		fputs("</text>\n", out);
		fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" "
			"fill=\"%s\"%s/>\n", CH_LABEL, y, xm - CH_LABEL, CH_BAR, colour(c),
			fsb_test_noisy(cell) ? " fill-opacity=\"0.55\"" : "");
		if (xhi - xlo >= 0.5)
			fprintf(out, "<path class=\"wh\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f "
				"%.1fV%.1f\"/>\n", xlo, yc, xhi, xlo, yc - 6, yc + 6, xhi, yc - 6,
				yc + 6);
		xt = fmax(xm, xhi) + 6;
		/* In the axis's unit, so the label and the scale read alike. */
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", xt, yc + 4);
		axis_value(out, med, aunit);
		fprintf(out, "%s</text>\n</g>\n",
			fsb_test_noisy(cell) ? " <tspan class=\"nz\">noisy</tspan>" : "");
	}
	fputs("</svg></figure>\n", out);
}

static void write_charts(struct page *p, bool lifecycle)
{
	FILE *out = p->out;

	fputs("<div class=\"charts\">\n", out);
	for (size_t r = 0; r < p->tab.nrows; r++)
		if (is_lifecycle_row(&p->tab.rows[r]) == lifecycle)
			write_chart(p, r);
	fputs("</div>\n", out);
}

static void write_results(struct page *p)
{
	bool any = false;

	for (size_t r = 0; r < p->tab.nrows && !any; r++)
		any = !is_lifecycle_row(&p->tab.rows[r]);
	if (!any)
		return;
	fputs("<section id=\"results\">\n<h2>Throughput and metadata</h2>\n<p class=\"note\">"
	      "Bars are medians; whiskers span the lowest and highest run. Faded bars are "
	      "noisy figures (coefficient of variation above 10%).</p>\n", p->out);
	write_charts(p, false);
	fputs("</section>\n", p->out);
}

/* ---- lifecycle ------------------------------------------------------------- */

static void size_cell(FILE *out, bool known, uint64_t bytes)
{
	char buf[32];

	if (!known) {
		fputs("<td class=\"none num\">—</td>", out);
		return;
	}
	fsb_size_format_human(bytes, buf, sizeof(buf));
	fprintf(out, "<td class=\"num\">%s</td>", buf);
}

static void write_lifecycle(struct page *p)
{
	FILE *out = p->out;
	const struct fsb_compare_table *t = &p->tab;

	if (!has_kind(p, "lifecycle"))
		return;
	fputs("<section id=\"lifecycle\">\n<h2>Lifecycle</h2>\n<p class=\"note\">Wall time of "
	      "each phase on the device (mkfs, mount, copy, read, umount): bars are medians, "
	      "whiskers span the highest and lowest time. Lower is better.</p>\n", out);
	write_charts(p, true);
	fputs("<div class=\"scroll\"><table class=\"lifecycle\"><thead><tr><th>Phase</th>"
	      "<th>Input</th><th class=\"num\">Lowest</th><th class=\"num\">Median</th>"
	      "<th class=\"num\">Highest</th><th class=\"num\">Runs</th>"
	      "<th class=\"num\">Device read</th><th class=\"num\">Device written</th>"
	      "<th class=\"num\">Write amp.</th></tr></thead><tbody>\n", out);
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
			fsb_compare_format_value(cell->unit, cell->min, lo, sizeof(lo));
			fsb_compare_format_value(cell->unit, cell->median, med, sizeof(med));
			fsb_compare_format_value(cell->unit, cell->max, hi, sizeof(hi));
			fputs("<tr>", out);
			if (!k++) {
				fprintf(out, "<th rowspan=\"%zu\">", n);
				esc(out, row_title(&t->rows[r]));
				fputs("</th>", out);
			}
			td(out, t->cols[c].label);
			fprintf(out, "<td class=\"num\">%s</td><td class=\"num\">%s</td>"
				"<td class=\"num\">%s</td><td class=\"num\">%zu</td>", lo, med, hi,
				cell->nruns);
			size_cell(out, cell->has_device, cell->dev_read_bytes);
			size_cell(out, cell->has_device, cell->dev_write_bytes);
			if (cell->has_wa)
				fprintf(out, "<td class=\"num\">%.2f</td>",
					bounded(cell->write_amplification));
			else
				fputs("<td class=\"none num\">—</td>", out);
			fputs("</tr>\n", out);
		}
	}
	fputs("</tbody></table></div>\n</section>\n", out);
}

/* ---- latency ----------------------------------------------------------------- */

static void us_cell(FILE *out, double us)
{
	char buf[32];

	fsb_compare_format_us(us, buf, sizeof(buf));
	fprintf(out, "<td class=\"num\">%s</td>", buf);
}

static void write_latency(struct page *p)
{
	FILE *out = p->out;
	const struct fsb_compare_table *t = &p->tab;
	bool any = false;

	for (size_t i = 0; i < t->nrows * t->ncols && !any; i++)
		any = t->cells[i] && t->cells[i]->has_latency;
	if (!any)
		return;
	fputs("<section id=\"latency\">\n<h2>Latency</h2>\n<p class=\"note\">Time of a single "
	      "operation (one chunk, one file, one seek), from a log-linear histogram.</p>\n"
	      "<div class=\"scroll\"><table class=\"latency\"><thead><tr>"
	      "<th>Test</th><th>Input</th><th class=\"num\">p50</th><th class=\"num\">p99</th>"
	      "<th class=\"num\">p99.9</th><th class=\"num\">max</th></tr></thead><tbody>\n",
	      out);
	for (size_t r = 0; r < t->nrows; r++) {
		size_t n = 0, k = 0;

		for (size_t c = 0; c < t->ncols; c++)
			n += fsb_compare_cell(t, r, c) && fsb_compare_cell(t, r, c)->has_latency;
		for (size_t c = 0; c < t->ncols; c++) {
			const struct fsb_test_result *cell = fsb_compare_cell(t, r, c);

			if (!cell || !cell->has_latency)
				continue;
			fputs("<tr>", out);
			if (!k++) {
				fprintf(out, "<th rowspan=\"%zu\">", n);
				esc(out, t->rows[r].name);
				fputs("</th>", out);
			}
			td(out, t->cols[c].label);
			us_cell(out, cell->latency.p50_us);
			us_cell(out, cell->latency.p99_us);
			us_cell(out, cell->latency.p999_us);
			us_cell(out, cell->latency.max_us);
			fputs("</tr>\n", out);
		}
	}
	fputs("</tbody></table></div>\n</section>\n", out);
}

/* ---- how measured -------------------------------------------------------------- */

/*
 * One parameter across the inputs of a kind (NULL: all): "3" when all
 * that have it agree, else "3 (a), 12 (b)". Returns false when none has it.
 */
static bool param_across(struct page *p, const char *key, const char *kind, FILE *out)
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
		fputs("<strong>", out);
		esc(out, first);
		fputs("</strong>", out);
		return true;
	}
	for (size_t i = 0, k = 0; i < p->n; i++) {
		const struct fsb_param *prm = fsb_result_param(p->docs[i], key);

		if (!prm || !of_kind(p, i, kind))
			continue;
		param_value(prm, val, sizeof(val));
		fputs(k++ ? ", <strong>" : "<strong>", out);
		esc(out, val);
		fputs("</strong> (", out);
		esc(out, p->labels[i]);
		fputs(")", out);
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

static const char *cache_words(const char *mode)
{
	if (!strcmp(mode, "drop"))
		return "files are fsync'ed and dropped from the page cache before each read test, "
		       "so reads come from the device";
	if (!strcmp(mode, "direct"))
		return "block tests bypass the page cache with O_DIRECT";
	if (!strcmp(mode, "keep"))
		return "the page cache is kept on purpose: reads may come from memory";
	return NULL;
}

/* "3" or, with several kinds, "run suites 3, lifecycle phases 12". */
static void write_repeats(struct page *p)
{
	FILE *out = p->out;
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
			fputs("; ", out);
		if (several)
			fputs(!strcmp(kind, "run") ? "run suites " :
			      !strcmp(kind, "lifecycle") ? "lifecycle phases " : "other ", out);
		if (param_across(p, "repeat", kind, out))
			continue;
		/* No parameter: the tests say how often they ran. */
		for (size_t j = 0; j < p->n && !nruns; j++)
			if (of_kind(p, j, kind) && p->docs[j]->ntests)
				nruns = p->docs[j]->tests[0].nruns;
		fprintf(out, "<strong>%zu</strong>", nruns);
	}
}

static void write_method(struct page *p)
{
	FILE *out = p->out;
	bool listed[3] = { false };
	static const char *const modes[] = { "drop", "direct", "keep" };

	fputs("<section id=\"method\">\n<h2>How measured</h2>\n<ul>\n", out);
	fputs("<li>Each figure is the <strong>median</strong> of repeated measured runs, drawn "
	      "as a bar; its whisker spans the lowest and highest run (min–max).", out);
	fputs(" Repeats: ", out);
	write_repeats(p);
	fputs(".</li>\n", out);
	fputs("<li>A figure is flagged <span class=\"badge\">noisy</span> when its coefficient "
	      "of variation (standard deviation / mean of the runs) exceeds 10%.</li>\n", out);
	if (any_param(p, "min_time_s")) {
		fputs("<li>Every measured run lasts at least the minimum time (", out);
		param_across(p, "min_time_s", NULL, out);
		fputs("): a shorter run is discarded and the work grown, so every figure is a "
		      "real measurement (no <code>+++++</code>).</li>\n", out);
	}
	if (any_param(p, "cache")) {
		fputs("<li>Cache mode: ", out);
		param_across(p, "cache", NULL, out);
		fputs(".", out);
		for (size_t m = 0; m < 3; m++) {
			for (size_t i = 0; i < p->n && !listed[m]; i++) {
				const char *mode = fsb_result_get_str(p->docs[i], "cache", NULL);

				if (mode && !strcmp(mode, modes[m])) {
					fprintf(out, " <em>%s</em>: %s.", modes[m],
						cache_words(modes[m]));
					listed[m] = true;
				}
			}
		}
		fputs("</li>\n", out);
	}
	if (any_param(p, "size_bytes") &&
	    (has_test(p, "write") || has_test(p, "rewrite") || has_test(p, "read") ||
	     has_test(p, "seeks"))) {
		fputs("<li>Block tests: a file of ", out);
		param_across(p, "size_bytes", NULL, out);
		fputs(" in chunks of ", out);
		if (!param_across(p, "chunk_bytes", NULL, out))
			fputs("unknown size", out);
		if (any_param(p, "seeks")) {
			fputs("; random seeks: ", out);
			param_across(p, "seeks", NULL, out);
			fputs(" shared by ", out);
			if (!param_across(p, "seekers", NULL, out))
				fputs("several", out);
			fputs(" processes", out);
		}
		fputs(".</li>\n", out);
	}
	if (any_param(p, "files") && (has_test(p, "seq-create") || has_test(p, "rand-create"))) {
		fputs("<li>Metadata tests: ", out);
		param_across(p, "files", NULL, out);
		fputs(" files created, stat'ed and deleted, in sequential and in random "
		      "order.</li>\n", out);
	}
	if (has_kind(p, "lifecycle"))
		fputs("<li>Lifecycle phases are timed on a block device (a loop device over an "
		      "image file, attached with direct I/O, or the device given), each phase "
		      "repeated and reported as highest, median and lowest wall time; device "
		      "bytes come from the <code>/sys/block</code> counters.</li>\n", out);
	fputs("<li>%CPU is user + system time of every process of a test divided by wall "
	      "time; latency is that of single operations (p50, p99, p99.9, max).</li>\n", out);
	if (p->tab.ncols > 1) {
		fputs("<li>Ratios compare medians with the first input, <strong>", out);
		esc(out, p->tab.cols[0].label);
		fputs("</strong>. A difference is called significant only when both figures were "
		      "measured at least twice and their [min, max] ranges do not overlap; "
		      "otherwise it lies within the measured spread and is marked ~.</li>\n", out);
	}
	fputs("</ul>\n</section>\n", out);
}

/* ---- the page ---------------------------------------------------------------- */

int fsb_html_write(FILE *out, const struct fsb_result *const *docs,
		   const char *const *labels, size_t n)
{
	struct page p = { .out = out, .docs = docs, .labels = labels, .n = n };
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
	write_lifecycle(&p);
	write_latency(&p);
	write_method(&p);
	fputs("<footer>Made by fsbench " FSB_VERSION ". This page is self-contained: it needs no "
	      "network and runs no scripts.</footer>\n</main>\n</body>\n</html>\n", out);

	free(p.doc_col);
	fsb_compare_table_release(&p.tab);
	return ferror(out) ? -EIO : 0;
}
