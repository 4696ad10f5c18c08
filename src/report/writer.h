/*
 * Views of a result: each writer renders a finished `const struct fsb_result *`
 * to a stream and never measures. The table of views that maps --format
 * names to them is report/views.h; this is what the result views share.
 */
#ifndef FSB_REPORT_WRITER_H
#define FSB_REPORT_WRITER_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/result.h"
#include "util/output.h"

/*
 * Render with render(out, ctx) into memory, then hand the bytes to o
 * (fsb_output_commit: standard output, a descriptor, a device or FIFO
 * written in place, or a file replaced atomically; a report that cannot be
 * written is kept in a fallback file, whose extension is ext). Nothing is
 * written when render fails: -EINVAL from it means it refused and
 * described why; other failures are described here. Returns 0 or -errno.
 */
int fsb_output(struct fsb_output *o, const char *ext, int (*render)(FILE *out, const void *ctx),
	       const void *ctx);

/*
 * The views. Each returns 0, -EIO when the stream reports an error, or
 * -EINVAL (described with fsb_err) when the result cannot be shown in that
 * view (bonnie, bonnie++ and csv show "run" results only).
 */

/* Modern human-readable report: header, one line per test, footnote. */
int fsb_write_text(FILE *out, const struct fsb_result *r);

/*
 * The raw device's capability (r->devcap) in a few lines, and each figure
 * that has a matching device figure as a share of it ("xfs block write:
 * 71% of the device"). Nothing when the device was not measured.
 */
void fsb_text_print_devcap(FILE *out, const struct fsb_result *r);

/*
 * The same, its first line naming the setup it belongs to ("The device
 * /dev/loop3 of setup xfs itself: ..."): a matrix lists one per setup, and
 * a device name alone does not say whose it was. setup NULL: as above.
 */
void fsb_text_print_devcap_of(FILE *out, const struct fsb_result *r, const char *setup);

/* bonnie 1.2 table (the ext2/ext3/reiserfs report in docs/references.md). */
int fsb_write_bonnie(FILE *out, const struct fsb_result *r);
/*
 * The same table in pieces, so a matrix view can print several results
 * under one header: the header takes the chunk size and seeker count from
 * first; each row is the result's line followed by the dashed separator.
 */
int fsb_bonnie_header(FILE *out, const struct fsb_result *first);
int fsb_bonnie_row(FILE *out, const struct fsb_result *r);
/* The same with a label column label_width characters wide (at least the
 * reference's 11), so that rows with long labels line up. */
int fsb_bonnie_header_w(FILE *out, const struct fsb_result *first, size_t label_width);
int fsb_bonnie_row_w(FILE *out, const struct fsb_result *r, size_t label_width);

/* bonnie++ 2.00a text report followed by the CSV line ("bonnie++" view). */
int fsb_write_bonnie_pp(FILE *out, const struct fsb_result *r);
/*
 * The bonnie++ report in pieces, for several results under one header:
 * the throughput block (header, then per result a row and a Latency row)
 * and the file-creation block likewise. Row functions print nothing for a
 * result that has none of the block's tests; the *_has_* predicates say
 * whether a block applies at all.
 */
bool fsb_bonnie_pp_has_io(const struct fsb_result *r);
bool fsb_bonnie_pp_has_files(const struct fsb_result *r);
int fsb_bonnie_pp_io_header(FILE *out, const struct fsb_result *first);
int fsb_bonnie_pp_io_row(FILE *out, const struct fsb_result *r);
int fsb_bonnie_pp_file_header(FILE *out, const struct fsb_result *first);
int fsb_bonnie_pp_file_row(FILE *out, const struct fsb_result *r);

/* The bonnie++ 1.98 CSV line alone (the "csv" view). */
int fsb_write_csv(FILE *out, const struct fsb_result *r);
/* One CSV line, 50 fields, newline-terminated. 0, -EIO or -EINVAL. */
int fsb_csv_line(FILE *out, const struct fsb_result *r);

/*
 * Helpers shared by the views.
 */

/* bonnie++'s two blocks of six columns, in its order (the CSV's fields
 * 9-20 and 26-37, and the latencies 38-49 in the same order). */
struct fsb_bonnie_col {
	const char *id;
	const char *unit;
};
#define FSB_BONNIE_NCOLS 6
extern const struct fsb_bonnie_col fsb_bonnie_io_cols[FSB_BONNIE_NCOLS];
extern const struct fsb_bonnie_col fsb_bonnie_file_cols[FSB_BONNIE_NCOLS];

/* bonnie++'s default chunk: 2.00a leaves the CSV's chunk field empty for it. */
#define FSB_BONNIE_CHUNK 8192

/* Whether r has any of the six tests of cols (with the column's unit). */
bool fsb_bonnie_any(const struct fsb_result *r, const struct fsb_bonnie_col *cols);

/* The row name of a result: setup.label, else "fsbench". Never NULL. */
const char *fsb_writer_label(const struct fsb_result *r);

/*
 * Whether a CSV text field would be read as a formula by a spreadsheet
 * (it starts with = + - @): the CSV writers then put a ' before it, which
 * spreadsheets show as text. s is text already made safe (util/text.h:
 * fsb_text_dup), so it never starts with the other lead-ins OWASP names,
 * a tab or a carriage return: those are escaped to "\t" and "\r".
 */
bool fsb_csv_formula(const char *s);

/*
 * The test with this id whose unit is unit, else NULL: views that put a
 * test in a fixed column check the unit so that, say, a lifecycle "write"
 * phase (seconds) never lands in a K/sec column.
 */
const struct fsb_test_result *fsb_writer_test(const struct fsb_result *r, const char *id,
					      const char *unit);

/*
 * A latency the way bonnie++ writes it: whole microseconds up to 99999us,
 * then whole milliseconds ("467ms") up to 99999ms, then whole seconds
 * ("120s"), truncated as bonnie++ does. Always NUL-terminates; returns buf.
 */
char *fsb_writer_bonnie_latency(double us, char *buf, size_t len);

/*
 * The bonnie++ "files" figure: param "files" in units of 1024 ("16"), with
 * two decimals when the count is not a whole multiple ("0.98"), or "" when
 * the parameter is absent. Returns buf.
 */
char *fsb_writer_bonnie_files(const struct fsb_result *r, char *buf, size_t len);

/*
 * -EINVAL, described once, unless r is a "run" result: the bonnie layouts
 * have columns for the run suites only. view names the view in the message.
 */
int fsb_writer_need_run(const struct fsb_result *r, const char *view);

/*
 * The "how measured" line the legacy layouts lack: cache mode, repeats,
 * --min-time, the job count (when more than one: the figures are their
 * aggregates), and the figures flagged noisy (CV above 10%), e.g.
 * "# fsbench: cache drop, median of 3 runs >= 0.5 s each; noisy: write".
 * 0 or -EIO.
 */
int fsb_writer_method_note(FILE *out, const struct fsb_result *r);

/*
 * What a --data value recorded in a result means, for a reader: "random"
 * -> "incompressible, no chunk repeats another", "compressible:50" ->
 * "a compressor shrinks it by 50%", ... A static string; NULL for a value
 * fsbench does not know (a newer or hand-edited document).
 */
const char *fsb_writer_data_words(const char *data);

#endif
