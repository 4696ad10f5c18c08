/*
 * The HTML report (`fsbench report`): one self-contained HTML5 page that
 * needs nothing but a browser to view: inline CSS, inline SVG charts, no
 * scripts at all and no external URL. Like every writer it renders
 * finished documents and never measures.
 */
#ifndef FSB_REPORT_HTML_H
#define FSB_REPORT_HTML_H
#include <stddef.h>
#include <stdio.h>

#include "report/result.h"

/*
 * Write the page for n documents, docs[i] labelled labels[i] (documents
 * with equal labels form one input, as a matrix setup's run and lifecycle
 * results do; see fsb_compare_table_build). The page holds a header with
 * host and parameters, the setup table, a summary table with ratios to the
 * first input, one bar chart per test (one bar per input: the median, with
 * a min-max whisker, the value labelled), the lifecycle phases when there
 * are any, the latency table and a "How measured" section. Every chart is
 * an <svg class="chart" data-test="ID" data-kind="KIND">. Every string
 * taken from the documents is escaped: the page is written through
 * report/html_out.h only, where data can never become markup, and
 * non-finite figures draw at 0. Borrows everything; returns 0, -EINVAL
 * when n is 0 or when the documents hold more than FSB_COMPARE_MAX_ROWS
 * distinct tests (described with fsb_err) or, as a bug, when the writer
 * used a markup format that is not numeric, -ENOMEM, or -EIO when the
 * stream reports an error.
 */
int fsb_html_write(FILE *out, const struct fsb_result *const *docs, const char *const *labels,
		   size_t n);

#endif
