/*
 * Putting results side by side, for `fsbench compare` and `fsbench report`.
 *
 * Three layers, each usable alone:
 *  - the rule: whether two figures differ significantly, and their ratio
 *    (pure functions of two test results);
 *  - the table: rows are figures (kind, test id, unit) found in any input,
 *    columns are inputs (one per label), each cell the test result or
 *    nothing (pure: built from documents already in memory);
 *  - the set: documents read from files, where a matrix document expands
 *    to its setups, each with its label (reads files; says what is wrong).
 */
#ifndef FSB_REPORT_COMPARE_H
#define FSB_REPORT_COMPARE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/result.h"

/* ---- the rule --------------------------------------------------------- */

/*
 * Whether a and b differ by more than their measured spread: true only when
 * both were measured at least twice and their [min, max] ranges do not
 * overlap. A single run has no spread to judge by, so no difference from it
 * is called significant. Ranges are taken from min, median and max together,
 * so a document whose min exceeds its max cannot make a difference look real.
 */
bool fsb_compare_significant(const struct fsb_test_result *a, const struct fsb_test_result *b);

/*
 * Whether the 95% confidence intervals of a's and b's means (--repeat
 * auto) overlap: 1 when they do (the difference of the means is not
 * shown at that confidence), 0 when they do not, -1 when either figure
 * has no interval.
 */
int fsb_compare_ci_overlap(const struct fsb_test_result *a, const struct fsb_test_result *b);

/* True for units where a smaller figure is better: "s" (lifecycle phases). */
bool fsb_compare_lower_is_better(const char *unit);

/*
 * The speed of t relative to base, from their medians: t/base for rates,
 * base/t for times, so above 1 always means t is better. NAN when either
 * median is zero, either figure is not measured (an imported "+++++") or
 * the units differ.
 */
double fsb_compare_ratio(const struct fsb_test_result *base, const struct fsb_test_result *t);

enum fsb_compare_verdict {
	FSB_CMP_NONE,	/* no ratio: a figure is missing, zero or not measured */
	FSB_CMP_SAME,	/* within the measured spread: not significant ("~") */
	FSB_CMP_BETTER, /* significantly faster */
	FSB_CMP_WORSE,	/* significantly slower */
	FSB_CMP_SINGLE, /* a figure has a single run (every imported one): no
			   spread to judge by, the ratio is shown without a verdict */
	FSB_CMP_WORK,	/* the two did different work (fsb_work_differs): no ratio,
			   the row says where they differ instead */
};

/* The verdict on t against base (by the rule and the ratio above). */
enum fsb_compare_verdict fsb_compare_verdict(const struct fsb_test_result *base,
					     const struct fsb_test_result *t);

/*
 * The ratio the way compare prints it: "1.23x faster" or "2.00x slower"
 * (the factor is always >= 1) when significant, "~1.02x" when not,
 * "~1.02x (single run)" when a figure has one run, "-" when there is no
 * ratio. Always NUL-terminates; returns buf.
 */
char *fsb_compare_ratio_text(const struct fsb_test_result *base, const struct fsb_test_result *t,
			     char *buf, size_t len);

/* ---- the work ---------------------------------------------------------- */

/*
 * The parameters that change what a test does, and so its figure: one
 * table of them (compare.c), each with the tests whose figure it changes.
 * Two figures whose work differs in one of them are not compared: no
 * ratio, no verdict; the views say where they differ instead.
 */
enum fsb_work_param {
	FSB_WORK_CHAR_IO, /* putc, getc: stdio or one-byte syscalls */
	FSB_WORK_IO_SIZE, /* the block tests' --chunk, the random tests'
			     --block-size, fio's bs */
	FSB_WORK_ENGINE,  /* --engine, fio's ioengine; null does no I/O */
	FSB_WORK_IODEPTH, /* --iodepth, fio's iodepth */
	FSB_WORK_DATA,	  /* --data */
	FSB_WORK_CACHE,	  /* --cache, fio's direct */
	FSB_WORK_JOBS,	  /* --jobs x MPI ranks, fio's numjobs, bonnie++'s -c */
	FSB_WORK_FSYNC,	  /* writes: fsbench's fsync before the clock stops,
			   * fio's end_fsync / fsync / fdatasync */
	FSB_WORK_NPARAMS
};

/* What the views call parameter p: "char-io", "I/O size", ... Static. */
const char *fsb_work_param_name(enum fsb_work_param p);

/*
 * What r's test t did in parameter p, in words ("stdio putc/getc", "8 KiB",
 * "null: no I/O, the harness's own cost"): true with buf set, false when p
 * does not change t's figure or r does not say (an import whose tool does
 * not record it: no claim either way). Pure.
 */
bool fsb_work_value(const struct fsb_result *r, const struct fsb_test_result *t,
		    enum fsb_work_param p, char *buf, size_t len);

/*
 * The parameters (bit 1u << p) in which a's work (of document ra) and b's
 * (of rb) differ: each that both documents say, and the engine whenever
 * one figure is the harness's own cost (--engine null) and the other is
 * not. 0: the same work as far as the documents tell. Pure.
 */
unsigned fsb_work_differs(const struct fsb_result *ra, const struct fsb_test_result *a,
			  const struct fsb_result *rb, const struct fsb_test_result *b);

/* "I/O size, engine": the names of the bits of mask, in table order. */
char *fsb_work_names(unsigned mask, char *buf, size_t len);

/* ---- the table -------------------------------------------------------- */

/* Far more figures than fsbench has tests: 12 run tests, 6 lifecycle phases. */
#define FSB_COMPARE_MAX_ROWS 1024

struct fsb_compare_row {
	const char *kind; /* "run" or "lifecycle" (borrowed from a document) */
	const char *id;	  /* test id (borrowed) */
	const char *unit; /* borrowed */
	char *name;	  /* what to call the row: the id, or "write (lifecycle)"
				  when another row has the same id */
};

struct fsb_compare_col {
	const char *label; /* borrowed from the labels given */
	size_t first_doc;  /* index of the first document with this label */
};

struct fsb_compare_table {
	struct fsb_compare_row *rows;
	size_t nrows;
	struct fsb_compare_col *cols;
	size_t ncols;
	/* nrows x ncols, row-major; NULL where the input lacks the figure. */
	const struct fsb_test_result **cells;
	/* nrows x ncols: the document each cell came from (NULL with it), and
	 * where its work differs from column 0's (fsb_work_differs; 0 in
	 * column 0 and where either cell is empty). */
	const struct fsb_result **cell_docs;
	unsigned *work;
	/* nrows: the parameters in which any two of the row's cells differ. */
	unsigned *row_work;
};

/*
 * Build the table of n documents, docs[i] labelled labels[i]. Documents
 * with equal labels share a column (a matrix setup's run and lifecycle
 * results); columns keep the order labels first appear in. Rows are the
 * figures found in any document, keyed by kind, id and unit (a lifecycle
 * "write" phase in seconds is not the run suite's "write" in B/s), in a
 * stable order: run tests, then lifecycle phases, each in the order of
 * DESIGN.md, then unknown ids in the order they first appear. In a column,
 * a figure comes from the first document that has it. The table borrows
 * docs and labels: they must outlive it. Returns 0, -E2BIG when there
 * are more than FSB_COMPARE_MAX_ROWS distinct figures (no reader wants
 * them, and a hostile file must not turn into a gigabyte of output), or
 * -ENOMEM.
 */
int fsb_compare_table_build(struct fsb_compare_table *t, const struct fsb_result *const *docs,
			    const char *const *labels, size_t n);

/* Free what the table owns. Safe on a zeroed table. */
void fsb_compare_table_release(struct fsb_compare_table *t);

/* The cell at row r, column c (NULL when that input lacks the figure). */
static inline const struct fsb_test_result *fsb_compare_cell(const struct fsb_compare_table *t,
							     size_t r, size_t c)
{
	return t->cells[r * t->ncols + c];
}

/* The document the cell at row r, column c came from (NULL when empty). */
static inline const struct fsb_result *fsb_compare_cell_doc(const struct fsb_compare_table *t,
							    size_t r, size_t c)
{
	return t->cell_docs[r * t->ncols + c];
}

/* Where the cell's work differs from the first input's (0: the same). */
static inline unsigned fsb_compare_cell_work(const struct fsb_compare_table *t, size_t r, size_t c)
{
	return t->work[r * t->ncols + c];
}

/*
 * The rule applied to a cell against column 0's in the same row: as
 * fsb_compare_verdict, fsb_compare_ratio and fsb_compare_ratio_text, but
 * FSB_CMP_WORK, NAN and "differs: I/O size" (the parameters by name) when
 * the two did different work. Every view takes its ratios from these.
 */
enum fsb_compare_verdict fsb_compare_cell_verdict(const struct fsb_compare_table *t, size_t r,
						  size_t c);
double fsb_compare_cell_ratio(const struct fsb_compare_table *t, size_t r, size_t c);
char *fsb_compare_cell_ratio_text(const struct fsb_compare_table *t, size_t r, size_t c, char *buf,
				  size_t len);

/* Whether any row's inputs differ in their work (t->row_work). */
bool fsb_compare_any_work(const struct fsb_compare_table *t);

/*
 * Each row whose inputs differ in their work, one line each: "  write:
 * I/O size 8 KiB (a), 1 MiB (b); engine psync (a), null (no I/O: the
 * harness's own cost) (b)", labels cut to 40 characters and made
 * terminal-safe; prefix goes before each line. The caller says what the
 * lines are (fsb_compare_any_work). Returns 0 or -EIO.
 */
int fsb_compare_work_print(FILE *out, const struct fsb_compare_table *t, const char *prefix);

/* ---- the set of inputs -------------------------------------------------- */

struct fsb_compare_set {
	struct fsb_result **docs; /* owned */
	char **labels;		  /* owned; labels[i] names docs[i]'s column */
	char **sources;		  /* owned; the file docs[i] came from */
	size_t n;
};

/*
 * Read one file and append what it holds, judged by its content
 * (report/import.h), never by its name: a "run" or "lifecycle" document
 * is one input, labelled by its setup.label or else the file's name; a
 * "matrix" document adds each setup's results, labelled by the setup's
 * label; fio's JSON output is one input labelled by the file's name;
 * bonnie++ CSV adds one input per line, labelled by its name field. A
 * document whose label is already taken by an input of the same kind
 * from another file is relabelled "label (file)", so every column stays
 * distinct. On failure says once what is wrong, naming the file ("cannot
 * read 'x.json': truncated JSON", "cannot read 'old.csv': line 3: ..."),
 * leaves s as it was and returns -EINVAL (not a usable result), -E2BIG
 * (more than 1024 inputs in all), -ENOMEM or -errno (cannot read the file).
 */
int fsb_compare_set_load(struct fsb_compare_set *s, const char *path);

/*
 * The same for a file's content already in memory (len bytes of buf),
 * path naming where it came from (labels, sources); says nothing on
 * failure but why (what an importer leaves out, and a matrix setup without
 * results, are still warnings). Touches no file.
 */
int fsb_compare_set_add_buffer(struct fsb_compare_set *s, const char *buf, size_t len,
			       const char *path, char *why, size_t why_len);

/*
 * The same for a JSON document already parsed (fsb_json_parse): fsbench's
 * own (run, lifecycle, matrix) or fio's output.
 */
struct json_object;
int fsb_compare_set_add_json(struct fsb_compare_set *s, struct json_object *doc, const char *path,
			     char *why, size_t why_len);

/*
 * Load n files in order; the first bad one stops it (described, naming
 * the file), and so does SIGINT/SIGTERM (-EINTR, nothing described).
 */
int fsb_compare_set_load_all(struct fsb_compare_set *s, char *const *paths, size_t n);

/* Free everything the set owns. Safe on a zeroed set. */
void fsb_compare_set_release(struct fsb_compare_set *s);

/* The set's documents and labels as the const arrays the views take. */
static inline const struct fsb_result *const *fsb_compare_set_docs(const struct fsb_compare_set *s)
{
	return (const struct fsb_result *const *)s->docs;
}

static inline const char *const *fsb_compare_set_labels(const struct fsb_compare_set *s)
{
	return (const char *const *)s->labels;
}

/* ---- the views --------------------------------------------------------- */

/*
 * The table t of the inputs in set as text (a table of medians with the
 * speed relative to the first input, labels cut to 40 characters and made
 * terminal-safe), JSON (every cell with its spread, ratio and verdict) or
 * CSV (one line per cell). Each returns 0, -ENOMEM or -EIO.
 */
int fsb_compare_write_text(FILE *out, const struct fsb_compare_set *set,
			   const struct fsb_compare_table *t);
int fsb_compare_write_json(FILE *out, const struct fsb_compare_set *set,
			   const struct fsb_compare_table *t);
int fsb_compare_write_csv(FILE *out, const struct fsb_compare_set *set,
			  const struct fsb_compare_table *t);

#endif
