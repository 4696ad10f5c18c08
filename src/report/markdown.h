/*
 * Markdown tables (GitHub Flavored Markdown) for a wiki page or a pull
 * request: `run --format markdown` (one result), `compare --format
 * markdown` and `report --format markdown` (several, side by side, as
 * compare puts them). Like every writer it renders finished documents and
 * never measures. Every string from a document goes through
 * fsb_md_put, so a label cannot end a cell, start a link or raw HTML,
 * mention anyone or run two table rows together.
 */
#ifndef FSB_REPORT_MARKDOWN_H
#define FSB_REPORT_MARKDOWN_H
#include <stddef.h>
#include <stdio.h>

#include "report/compare.h"
#include "report/result.h"

/*
 * Write s as the text of one table cell: '|' and the characters that
 * start inline markup (\ ` * _ [ ] < > ~ & $ @ !) are backslash-escaped;
 * a leading # + - = : is escaped too; newlines, tabs and other control
 * characters become a blank (a cell is one line); bytes that are not
 * valid UTF-8 and C1 controls become U+FFFD. NULL or "" writes nothing.
 * Returns 0 or -EIO when the stream reports an error.
 */
int fsb_md_put(FILE *out, const char *s);

/*
 * The tables of n documents, docs[i] labelled labels[i] (equal labels
 * share a column, see fsb_compare_table_build): the inputs (label, kind,
 * tool, filesystem, mount options, kernel, source), the medians with each
 * input's ratio to the first, and the latency percentiles. 0, -EINVAL
 * (n is 0, or too many distinct tests: described), -ENOMEM or -EIO.
 */
int fsb_markdown_write(FILE *out, const struct fsb_result *const *docs, const char *const *labels,
		       size_t n);

/* The same for a table already built from set (compare's view). */
int fsb_compare_write_markdown(FILE *out, const struct fsb_compare_set *set,
			       const struct fsb_compare_table *t);

/* One result (the writers' table: run and lifecycle --format markdown). */
int fsb_write_markdown(FILE *out, const struct fsb_result *r);

#endif
