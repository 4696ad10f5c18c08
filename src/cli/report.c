/*
 * fsbench report: result files (run, lifecycle or matrix) into one
 * self-contained HTML page (report/html.h), written through util/output.h.
 */
#include "cli/commands.h"
#include "cli/options.h"
#include "report/compare.h"
#include "report/views.h"
#include "util/error.h"
#include "util/signals.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char usage_text[] =
	"usage: fsbench report [OPTIONS] RESULT... -o OUT.html|OUT.md\n"
	"\n"
	"Make one self-contained HTML page from result files of 'fsbench run',\n"
	"'fsbench lifecycle' or 'fsbench matrix' (a matrix file gives one input per\n"
	"setup), and from bonnie++ CSV or fio JSON, read as 'fsbench compare' reads\n"
	"them and marked as imported: host and parameters, the setups, a summary\n"
	"table with the speed of each input relative to the first, one bar chart per\n"
	"test (median, with a whisker from the lowest to the highest run), the\n"
	"lifecycle phases, the latency table and how the figures were measured. For\n"
	"results that keep latency histograms it also draws a latency CDF per test, a\n"
	"strip chart of every run and, for jobs, a bar per job. The page uses inline\n"
	"CSS and SVG only: no scripts, no network. --format markdown writes the\n"
	"inputs, the figures and the latency as GitHub tables instead.\n"
	"\n"
	"A difference is called significant only when both figures were measured at\n"
	"least twice and their [min, max] ranges do not overlap; otherwise it is\n"
	"marked '~' (within the measured spread).\n"
	"\n"
	"Options:\n"
	"  -f, --format FMT   html or markdown (tables for a wiki or a pull request);\n"
	"                     default: markdown for an OUT ending in .md, else html\n"
	"  -o, --output FILE  the page to write (required): '-' for stdout; a file is\n"
	"                     replaced atomically, a device or FIFO written; never an\n"
	"                     input (see fsbench(1))\n"
	"  -h, --help         this text\n"
	"  -V, --version      the version\n";

static void print_usage(FILE *out)
{
	fputs(usage_text, out);
}

static const char *report_formats(void)
{
	return "html|markdown";
}

const struct fsb_cmd_spec fsb_report_spec = {
	.name = "report",
	.common = FSB_OPT_BASIC | FSB_OPT_FORMAT | FSB_OPT_OUTPUT,
	.operands = FSB_VAL_FILE,
	.formats = report_formats,
};

/* --format, else the output's name: OUT.md (or OUT.MD) is markdown, the
 * rest html; a file named only ".md" has no extension. */
static bool is_markdown(const char *format, const char *output)
{
	const char *base;
	size_t n;

	if (format)
		return !strcmp(format, "markdown");
	if (!output)
		return false;
	base = strrchr(output, '/');
	base = base ? base + 1 : output;
	n = strlen(base);
	return n > 3 && !strcasecmp(base + n - 3, ".md");
}

int fsb_cmd_report(int argc, char **argv)
{
	struct fsb_compare_set set = { 0 };
	struct fsb_common co;
	struct fsb_output dest = { 0 };
	struct fsb_doc doc;
	bool md;
	int i, rc = fsb_cli_getopt(&fsb_report_spec, argc, argv, NULL, NULL, &co, &i);

	if (rc || fsb_cli_answered(&co, print_usage))
		return rc;
	if (co.format && strcmp(co.format, "html") && strcmp(co.format, "markdown"))
		return fsb_opt_bad("--format", co.format, report_formats());
	md = is_markdown(co.format, co.output);
	if ((rc = fsb_cli_result_files("report", i, argc, argv)))
		return rc;
	if (!co.output) {
		fsb_err("report: no output file: give -o OUT.%s (or -o - for stdout)",
			md ? "md" : "html");
		return FSB_EXIT_USAGE;
	}
	/* Before any file is read: -o is never one of them. */
	if (fsb_output_open(&dest, co.output, (const char *const *)argv + i, (size_t)(argc - i)))
		return FSB_EXIT_USAGE;
	rc = FSB_EXIT_FAIL;
	/* The first bad file stops us: one line, naming it. */
	if (fsb_compare_set_load_all(&set, argv + i, (size_t)(argc - i)))
		goto out;
	/* SIGINT/SIGTERM only set a flag: honour it before writing anything. */
	if (fsb_stop_requested())
		goto out;
	/* No table: the views build it, and say "report" if it is too big. */
	doc = fsb_doc_comparison(&set, NULL);
	if (!fsb_view_output(fsb_view_find(FSB_KIND_COMPARISON, md ? "markdown" : "html"), &doc,
			     &dest))
		rc = FSB_EXIT_OK;
out:
	if (fsb_stop_requested())
		rc = 128 + fsb_stop_signo();
	fsb_output_release(&dest);
	fsb_compare_set_release(&set);
	return rc;
}
