/*
 * The matrix document: every setup of a `fsbench matrix` run with its
 * configuration, its status and its result documents, and its views:
 *
 *   text  the bonnie 1.2 report's layout (docs/references.md):
 *         the keys --set overrode, the setups' configuration (with how
 *         to leave out the rows that boot a QEMU guest: --only), one bonnie 1.2 row per setup, the
 *         bonnie++ Create block when the metadata suite ran, a lifecycle
 *         table (rows setups, columns phases), setups that failed or were
 *         skipped with the reason, and how the figures were made;
 *   csv   one bonnie++ CSV line per setup that ran the run suite, so
 *         bon_csv2html and bon_csv2txt draw their own multi-row table;
 *   json  DESIGN.md's matrix document:
 *         { "format_version", "tool", "version", "kind": "matrix", "host",
 *           "config_file", "overrides": [ "KEY=VALUE" ... ] (only when
 *           --set gave some), "setups": [ { "label", "config": { "type", "mkfs",
 *           "options", "devices", "image_size", "fill", "run", "lifecycle" },
 *           "status": "ok"|"failed"|"skipped", "error", "note",
 *           "results": [ <run doc>, <lifecycle doc> ] } ] }
 *
 * Like every writer, these render a finished document and never measure.
 */
#ifndef FSB_REPORT_MATRIX_H
#define FSB_REPORT_MATRIX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/result.h"
#include "util/output.h"

struct json_object;

enum fsb_matrix_status { FSB_MATRIX_OK, FSB_MATRIX_FAILED, FSB_MATRIX_SKIPPED };

/* One setup: its configuration as strings for the record, and what came of it. */
struct fsb_matrix_entry {
	char *label;
	char *type, *mkfs, *options, *fill;
	char *run, *lifecycle; /* arguments; NULL when not used */
	unsigned devices;
	uint64_t image_bytes;
	bool guest; /* ran in a QEMU guest (guest = yes), not on loop devices */
	enum fsb_matrix_status status;
	char *error;		    /* why it failed or was skipped; NULL when ok */
	char *note;		    /* a remark that is no failure; NULL when none */
	struct fsb_result *run_res; /* the run suite's document, NULL if it did not run */
	struct fsb_result *lc_res;  /* the lifecycle's document, NULL likewise */
};

struct fsb_matrix_doc {
	struct fsb_result head; /* kind "matrix": tool, version and host */
	char *config_path;	/* the INI file it came from */
	char **overrides;	/* its keys the command line set (--set items), or NULL */
	size_t noverrides;
	struct fsb_matrix_entry *entries;
	size_t n;
};

/*
 * Initialise an empty document (tool, version, host filled in) for the
 * configuration at config_path. 0 or -ENOMEM; release it either way.
 */
int fsb_matrix_doc_init(struct fsb_matrix_doc *d, const char *config_path);

/* The --set items the file's keys were overridden with, copied into d
 * (n of them; none: nothing). 0 or -ENOMEM. */
int fsb_matrix_doc_overrides(struct fsb_matrix_doc *d, const char *const *items, size_t n);

/* Free everything d owns, results included. Safe on a zeroed d. */
void fsb_matrix_doc_release(struct fsb_matrix_doc *d);

/*
 * Append a zeroed entry (status ok) for label and return it, or NULL with
 * errno = ENOMEM. The pointer stays valid until the next append. The
 * caller fills in the strings (fsb_strset) and hands over result
 * documents it allocated with malloc (the entry then owns them).
 */
struct fsb_matrix_entry *fsb_matrix_doc_add(struct fsb_matrix_doc *d, const char *label);

/* Set an entry's status with a reason (printf format; NULL for none). */
int fsb_matrix_entry_status(struct fsb_matrix_entry *e, enum fsb_matrix_status st, const char *fmt,
			    ...) __attribute__((format(printf, 3, 4)));

/* "ok", "failed" or "skipped". */
const char *fsb_matrix_status_name(enum fsb_matrix_status st);

/*
 * The JSON document (see above). A new object the caller releases with
 * json_object_put, or NULL with errno = ENOMEM.
 */
struct json_object *fsb_matrix_to_json(const struct fsb_matrix_doc *d);

/* The views. Each returns 0, -EIO when the stream reports an error, or
 * -EINVAL (described) when the document has nothing that view can show. */
int fsb_matrix_write_text(FILE *out, const struct fsb_matrix_doc *d);
int fsb_matrix_write_csv(FILE *out, const struct fsb_matrix_doc *d);
int fsb_matrix_write_json(FILE *out, const struct fsb_matrix_doc *d);

/*
 * Rebuild d from a matrix document as fsb_matrix_to_json wrote it (its
 * version and host, never this machine's). 0, or -EINVAL with the reason
 * in why ("setups[1].results[0]: ...") / -ENOMEM, d released.
 */
int fsb_matrix_from_json(struct json_object *doc, struct fsb_matrix_doc *d, char *why,
			 size_t why_len);

/*
 * A lifecycle cell: the median with its range in milliseconds, three
 * significant digits ("179 [170-201]", "1.23 [1.20-1.31]"). Pure.
 * Returns buf.
 */
char *fsb_matrix_fmt_phase(double median_s, double min_s, double max_s, char *buf, size_t len);

#endif
