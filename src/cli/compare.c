/*
 * fsbench compare: result files side by side. Rows are figures, columns
 * are inputs (a matrix file adds one per setup), each cell the median and
 * its speed against the first input, with differences inside the measured
 * spread marked "~" rather than counted as wins (report/compare.h has the
 * rule). Views: report/views.c's comparison rows.
 */
#include "report/compare.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "report/views.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/vocab.h"

#include <errno.h>
#include <stdio.h>

static const char usage_text[] =
	"usage: fsbench compare [OPTIONS] RESULT...\n"
	"\n"
	"Put result files from 'fsbench run', 'fsbench lifecycle' or 'fsbench matrix'\n"
	"side by side: one row per test, one column per input (a matrix file gives\n"
	"one column per setup), each cell the median and its speed relative to the\n"
	"first input:\n"
	"\n"
	"  1.23x faster, 2.00x slower   a significant difference; for lifecycle\n"
	"                               phases (seconds) less time is faster\n"
	"  ~1.02x                       not significant\n"
	"  ~1.02x (single run)          a figure measured once: no verdict\n"
	"\n"
	"A difference is significant only when both figures were measured at least\n"
	"twice and their [min, max] ranges do not overlap; otherwise it lies within\n"
	"the measured spread and neither input wins. '!' marks a noisy figure\n"
	"(coefficient of variation above 10%).\n"
	"\n"
	"Other tools' results are read too, told apart by their content: bonnie++\n"
	"CSV lines (1.03, 1.96/1.97 and 1.98/2.00 layouts; one input per line; its\n"
	"+++++ is 'not measured', never 0) and fio's --output-format=json (write and\n"
	"read jobs' bandwidth, randread and randwrite jobs' IOPS under fsbench's test\n"
	"ids, other jobs as rows 'fio:JOB:DIRECTION'). Each is a single run.\n"
	"\n"
	"Options:\n"
	"  -f, --format FMT   text (default), json, csv, markdown (GitHub tables) or\n"
	"                     html (the page 'fsbench report' makes)\n"
	"  -o, --output FILE  write to FILE, not stdout: a file is replaced atomically,\n"
	"                     a device or FIFO written; never an input (see fsbench(1))\n"
	"  -h, --help         this text\n"
	"  -V, --version      the version\n";

/* ---- command ------------------------------------------------------------ */

static void print_usage(FILE *out)
{
	fputs(usage_text, out);
}

static const char *compare_formats(void)
{
	return fsb_view_names(FSB_KIND_COMPARISON);
}

const struct fsb_cmd_spec fsb_compare_spec = {
	.name = "compare",
	.common = FSB_OPT_BASIC | FSB_OPT_FORMAT | FSB_OPT_OUTPUT,
	.operands = FSB_VAL_FILE,
	.formats = compare_formats,
};

int fsb_cmd_compare(int argc, char **argv)
{
	struct fsb_compare_set set = { 0 };
	struct fsb_compare_table tab = { 0 };
	const struct fsb_view *view;
	struct fsb_doc doc;
	struct fsb_common co;
	struct fsb_output dest = { 0 };
	int i, err, rc = fsb_cli_getopt(&fsb_compare_spec, argc, argv, NULL, NULL, &co, &i);

	if (rc || fsb_cli_answered(&co, print_usage))
		return rc;
	view = fsb_view_find(FSB_KIND_COMPARISON, co.format ? co.format : "text");
	if (!view) {
		char want[64];

		return fsb_opt_bad("--format", co.format,
				   fsb_vocab_describe(compare_formats(), want, sizeof(want)));
	}
	if ((rc = fsb_cli_result_files("compare", i, argc, argv)))
		return rc;
	/* Before any file is read: -o is never one of them. */
	if (fsb_output_open(&dest, co.output, (const char *const *)argv + i, (size_t)(argc - i)))
		return FSB_EXIT_USAGE;
	rc = FSB_EXIT_FAIL;
	/* The first bad file stops us: one line, naming it. */
	if (fsb_compare_set_load_all(&set, argv + i, (size_t)(argc - i)))
		goto out;
	err = fsb_compare_table_build(&tab, fsb_compare_set_docs(&set),
				      fsb_compare_set_labels(&set), set.n);
	if (err == -E2BIG)
		fsb_err("compare: more than %d distinct tests in these files: not fsbench results",
			FSB_COMPARE_MAX_ROWS);
	else if (err)
		fsb_err_errno(err, "compare");
	if (err)
		goto out;
	/* SIGINT/SIGTERM only set a flag: honour it before writing anything. */
	if (fsb_stop_requested())
		goto out;
	doc = fsb_doc_comparison(&set, &tab);
	if (!fsb_view_output(view, &doc, &dest))
		rc = FSB_EXIT_OK;
out:
	if (fsb_stop_requested())
		rc = 128 + fsb_stop_signo();
	fsb_output_release(&dest);
	fsb_compare_table_release(&tab);
	fsb_compare_set_release(&set);
	return rc;
}
