/*
 * The HTML report's pictures beyond the bar charts (report/html.c): a
 * latency CDF per test, a strip chart of every run per test, and a bar per
 * job for results of several jobs. Each is an inline
 * <svg class="pic" data-chart="cdf|strip|jobs" data-test="ID"> written
 * through report/html_out.h only, so nothing from a document can become
 * markup, and non-finite or negative figures draw at 0.
 */
#ifndef FSB_REPORT_HTML_CHARTS_H
#define FSB_REPORT_HTML_CHARTS_H
#include <stdbool.h>
#include <stddef.h>

#include "report/compare.h"
#include "report/html_out.h"

/* The colour of input column col (eight, then again). A literal. */
const char *fsb_html_colour(size_t col);

/* Whether any cell of t keeps a latency histogram. */
bool fsb_html_any_hist(const struct fsb_compare_table *t);

/*
 * The latency CDFs: for each run test one chart with a curve per input
 * that has a histogram (log-scaled latency axis), inputs without one named
 * as having "no latency histogram", and a note naming the tests none of
 * whose inputs has one. Writes nothing when no cell has a histogram (older
 * documents render as before).
 */
void fsb_html_cdf_charts(struct fsb_html_out *w, const struct fsb_compare_table *t);

/*
 * Section "Every run": per test one strip chart, a row per input and a dot
 * per run (the median marked), so spread and outliers show. Tests no input
 * measured are left out; nothing is written when none is left, nor when
 * no cell keeps a latency histogram (pages of older documents render as
 * they did).
 */
void fsb_html_runs_section(struct fsb_html_out *w, const struct fsb_compare_table *t);

/*
 * Section "Jobs": for each test and input of several jobs, a bar per job
 * (the median of its runs' rates), the slowest marked, so stragglers show.
 * Nothing when no input ran several jobs.
 */
void fsb_html_jobs_section(struct fsb_html_out *w, const struct fsb_compare_table *t);

#endif
