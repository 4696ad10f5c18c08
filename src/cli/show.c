/*
 * fsbench show: a saved result rendered again, in any view of the table
 * (report/views.h) that fits its kind, byte for byte what the command
 * that made it printed in that view: a run, lifecycle or matrix document,
 * or bonnie++ CSV / fio JSON through the importers (one result: a run;
 * several: side by side, as compare puts them).
 */
#include "cli/commands.h"
#include "cli/options.h"
#include "report/compare.h"
#include "report/import.h"
#include "report/json.h"
#include "report/matrix.h"
#include "report/views.h"
#include "util/error.h"
#include "util/io.h"
#include "util/signals.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALL_KINDS (FSB_KINDS_RESULT | FSB_KIND_MATRIX | FSB_KIND_COMPARISON)

static const char usage_text[] =
	"usage: fsbench show [OPTIONS] FILE\n"
	"\n"
	"Render a saved result again without measuring: a JSON document of\n"
	"'fsbench run', 'fsbench lifecycle' or 'fsbench matrix', or bonnie++ CSV and\n"
	"fio JSON, read as 'fsbench compare' reads them. The output is byte for byte\n"
	"what the command that made the result printed with the same --format;\n"
	"html (and, for a matrix, markdown) is the page 'fsbench report FILE' makes.\n"
	"A file of several imported results shows them side by side, as compare does.\n"
	"\n"
	"Options:\n"
	"  -f, --format FMT   the view (default text): %s;\n"
	"                     each kind of result has its own (see fsbench(1))\n"
	"  -o, --output FILE  write to FILE, not stdout: a file is replaced atomically,\n"
	"                     a device or FIFO written; never the input\n"
	"  -h, --help         this text\n"
	"  -V, --version      the version\n";

static const char *show_formats(void)
{
	return fsb_view_names(ALL_KINDS);
}

static void print_usage(FILE *out)
{
	fprintf(out, usage_text, show_formats());
}

const struct fsb_cmd_spec fsb_show_spec = {
	.name = "show",
	.common = FSB_OPT_BASIC | FSB_OPT_FORMAT | FSB_OPT_OUTPUT,
	.operands = FSB_VAL_FILE,
	.formats = show_formats,
};

/* What was read: a matrix document, or the set compare would make. */
struct shown {
	struct fsb_matrix_doc matrix;
	bool is_matrix;
	struct fsb_compare_set set;
};

/* A matrix document, judged by its "kind": 1 read, 0 not one, -errno. */
static int load_matrix(struct shown *s, const char *path, const char *buf, size_t len)
{
	size_t at = 0;
	char why[256] = "";
	struct json_object *doc, *kind;
	int err = 0;

	if (fsb_import_sniff(buf, len, &at) != FSB_IMPORT_JSON)
		return 0;
	doc = fsb_json_parse(buf, len, why, sizeof(why));
	if (!doc)
		return 0; /* compare's reader says what is wrong */
	if (json_object_object_get_ex(doc, "kind", &kind) &&
	    json_object_is_type(kind, json_type_string) &&
	    !strcmp(json_object_get_string(kind), "matrix")) {
		err = fsb_matrix_from_json(doc, &s->matrix, why, sizeof(why));
		if (err)
			fsb_err("cannot read '%s': %s", path, why);
		else
			s->is_matrix = true;
		err = err ? err : 1;
	}
	json_object_put(doc);
	return err;
}

static int load(struct shown *s, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	int err = fsb_read_file(path, FSB_JSON_MAX_BYTES, &buf, &len);

	if (err) {
		/* The same words as compare's for a file it cannot read. */
		free(buf);
		return fsb_compare_set_load(&s->set, path);
	}
	err = load_matrix(s, path, buf, len);
	free(buf);
	if (err)
		return err < 0 ? err : 0;
	return fsb_compare_set_load(&s->set, path);
}

/* The kind of what was read: a matrix, one result, or several side by side. */
static unsigned shown_kind(const struct shown *s)
{
	if (s->is_matrix)
		return FSB_KIND_MATRIX;
	if (s->set.n == 1)
		return fsb_view_kind(s->set.docs[0]->kind);
	return FSB_KIND_COMPARISON;
}

static const char *kind_name(unsigned kind)
{
	switch (kind) {
	case FSB_KIND_RUN:
		return "run";
	case FSB_KIND_LIFECYCLE:
		return "lifecycle";
	case FSB_KIND_MATRIX:
		return "matrix";
	default:
		return "comparison";
	}
}

int fsb_cmd_show(int argc, char **argv)
{
	struct shown s;
	struct fsb_common co;
	struct fsb_output dest = { 0 };
	const struct fsb_view *v;
	const char *format;
	struct fsb_doc doc;
	unsigned kind;
	int i, rc = fsb_cli_getopt(&fsb_show_spec, argc, argv, NULL, NULL, &co, &i);

	memset(&s, 0, sizeof(s));
	if (rc || fsb_cli_answered(&co, print_usage))
		return rc;
	format = co.format ? co.format : "text";
	/* A name no kind has is refused before the file is read. */
	if (!fsb_view_find(FSB_KIND_RUN, format) && !fsb_view_find(FSB_KIND_LIFECYCLE, format) &&
	    !fsb_view_find(FSB_KIND_MATRIX, format) && !fsb_view_find(FSB_KIND_COMPARISON, format))
		return fsb_opt_bad("--format", format, show_formats());
	if ((rc = fsb_cli_result_files("show", i, argc, argv)))
		return rc;
	if (argc - i > 1) {
		fsb_err("show: one result file at a time (fsbench compare puts several side by "
			"side)");
		return FSB_EXIT_USAGE;
	}
	if (fsb_output_open(&dest, co.output, (const char *const *)argv + i, 1))
		return FSB_EXIT_USAGE;
	rc = FSB_EXIT_FAIL;
	if (load(&s, argv[i]))
		goto out;
	kind = shown_kind(&s);
	v = fsb_view_find(kind, format);
	/* A view only a comparison has (html): the page report makes of this
	 * one file, read as compare reads it. */
	if (!v && kind != FSB_KIND_COMPARISON && fsb_view_find(FSB_KIND_COMPARISON, format)) {
		if (s.is_matrix && fsb_compare_set_load(&s.set, argv[i]))
			goto out;
		kind = FSB_KIND_COMPARISON;
		v = fsb_view_find(kind, format);
	}
	if (!v) {
		fsb_err("show: '%s' is a %s result: --format %s does not fit it (expected %s)",
			argv[i], kind_name(kind), format, fsb_view_names(kind));
		rc = FSB_EXIT_USAGE;
		goto out;
	}
	if (kind == FSB_KIND_MATRIX)
		doc = fsb_doc_matrix(&s.matrix);
	else if (kind == FSB_KIND_COMPARISON)
		doc = fsb_doc_comparison(&s.set, NULL);
	else
		doc = fsb_doc_result(s.set.docs[0]);
	if (fsb_stop_requested())
		goto out;
	if (!fsb_view_output(v, &doc, &dest))
		rc = FSB_EXIT_OK;
out:
	if (fsb_stop_requested())
		rc = 128 + fsb_stop_signo();
	fsb_output_release(&dest);
	if (s.is_matrix)
		fsb_matrix_doc_release(&s.matrix);
	fsb_compare_set_release(&s.set);
	return rc;
}
