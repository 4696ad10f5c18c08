/*
 * fsbench report: result files (run, lifecycle or matrix) into one
 * self-contained HTML page (report/html.h), written through util/output.h.
 */
#include "cli/commands.h"
#include "cli/legacy.h"
#include "util/error.h"
#include "report/compare.h"
#include "report/writer.h"
#include "report/html.h"
#include "util/signals.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage_text[] =
	"usage: fsbench report [OPTIONS] RESULT.json... -o OUT.html\n"
	"\n"
	"Make one self-contained HTML page from result files of 'fsbench run',\n"
	"'fsbench lifecycle' or 'fsbench matrix' (a matrix file gives one input per\n"
	"setup): host and parameters, the setups, a summary table with the speed of\n"
	"each input relative to the first, one bar chart per test (median, with a\n"
	"whisker from the lowest to the highest run), the lifecycle phases, the\n"
	"latency table and how the figures were measured. The page uses inline CSS\n"
	"and SVG only: no scripts, no network.\n"
	"\n"
	"A difference is called significant only when both figures were measured at\n"
	"least twice and their [min, max] ranges do not overlap; otherwise it is\n"
	"marked '~' (within the measured spread).\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE  the page to write (required): '-' for stdout; a file is\n"
	"                     replaced atomically, a device or FIFO written; never an\n"
	"                     input (see fsbench(1))\n"
	"  -h, --help         this text\n"
	"  -V, --version      the version\n";

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int render(FILE *out, const void *ctx)
{
	const struct fsb_compare_set *set = ctx;

	return fsb_html_write(out, fsb_compare_set_docs(set), fsb_compare_set_labels(set),
			      set->n);
}

int fsb_cmd_report(int argc, char **argv)
{
	struct fsb_compare_set set = { 0 };
	const char *output = NULL;
	struct fsb_output dest = { 0 };
	int c, rc = FSB_EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:hV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return FSB_EXIT_OK;
		case 'V':
			printf("fsbench %s\n", FSB_VERSION);
			return FSB_EXIT_OK;
		default:
			return fsb_opt_unknown(argc, argv, c);
		}
	}
	if (optind >= argc) {
		fputs(usage_text, stderr);
		return FSB_EXIT_USAGE;
	}
	if (!output) {
		fsb_err("report: no output file: give -o OUT.html (or -o - for stdout)");
		return FSB_EXIT_USAGE;
	}
	/* Before any file is read: -o is never one of them. */
	if (fsb_output_open(&dest, output, (const char *const *)argv + optind,
			    (size_t)(argc - optind)))
		return FSB_EXIT_USAGE;

	/* The first bad file stops us: one line, naming it. */
	if (fsb_compare_set_load_all(&set, argv + optind, (size_t)(argc - optind)))
		goto out;
	/* SIGINT/SIGTERM only set a flag: honour it before writing anything. */
	if (fsb_stop_requested())
		goto out;
	if (!fsb_output(&dest, "html", render, &set))
		rc = FSB_EXIT_OK;
out:
	if (fsb_stop_requested())
		rc = 128 + fsb_stop_signo();
	fsb_output_release(&dest);
	fsb_compare_set_release(&set);
	return rc;
}
