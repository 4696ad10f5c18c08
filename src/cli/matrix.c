/*
 * fsbench matrix: argv and the INI file -> plan (each setup's `run =` and
 * `lifecycle =` line parsed by the run and lifecycle parsers, the setup's
 * fields set over them) -> fsb_matrix_execute -> one comparison of all
 * (the layout of the bonnie 1.2 report in docs/references.md).
 */
#include "cli/matrix.h"
#include "cli/commands.h"
#include "cli/lifecycle.h"
#include "cli/matrix_ini.h"
#include "cli/run.h"
#include "report/matrix.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/spawn.h"
#include "util/vocab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: fsbench matrix [OPTIONS] CONFIG.ini\n"
	"\n"
	"Build each setup the INI file names on fresh images and loop devices\n"
	"(direct I/O), make the filesystem, mount it, run the suites, tear it down,\n"
	"then print one comparison: the setups' configuration, one bonnie row per\n"
	"setup, the Create block, a lifecycle table, and what failed and why.\n"
	"\n"
	"  [global]   image_size = SIZE   each image (default 1g)\n"
	"             fill = PATTERN      zero (default), 0xff, random or none\n"
	"             workdir = DIR       where the images go (default /var/tmp)\n"
	"             run = ARGS          'fsbench run' arguments, e.g. --size 512m\n"
	"             lifecycle = ARGS    'fsbench lifecycle' arguments, e.g. --repeat 6\n"
	"             repeat = N|auto     --repeat for both suites (ARGS may override;\n"
	"                                 auto: the run lines only)\n"
	"  [LABEL]    type = TYPE         mount -t TYPE (default: LABEL's leading\n"
	"                                 letters and digits: [ext3-wb] is ext3)\n"
	"             mkfs = TEMPLATE     {dev} {dev1} {dev2} {devs}; none: no mkfs\n"
	"             options = OPTS      mount options (data=writeback,noatime)\n"
	"             devices = N         images and loop devices (default 1)\n"
	"             image_size, fill, run, lifecycle: this setup's own ('run =' off)\n"
	"             guest = yes         run in a QEMU guest (fsbench guest, one boot\n"
	"                                 per suite) on its disk of image_size; the\n"
	"                                 row is marked (guest, ACCEL); --only\n"
	"                                 leaves such setups out\n"
	"             mtd = SIZE          with guest: the disk is flash, erase blocks\n"
	"                                 of SIZE (jffs2, ubifs)\n"
	"\n"
	"Options:\n"
	"  -f, --format VIEW      text (default), csv (bonnie++ lines) or json\n"
	"  -o, --output FILE      write the report to FILE, not stdout: a file is replaced\n"
	"                         atomically, a device or FIFO written (see fsbench(1))\n"
	"      --keep-going       after a failed or skipped setup, go on (default)\n"
	"      --fail-fast        stop at the first setup that fails or is skipped\n"
	"      --keep-images      keep the image files (in the work directory)\n"
	"      --only LABELS      run only these setups (comma-separated); the text\n"
	"                         view names the --only that leaves out guest rows\n"
	"      --set KEY=VALUE    override a key of the file (repeatable, in order):\n"
	"                         a [global] key, in [global] and in every setup\n"
	"                         that sets it; SETUP.KEY=VALUE in [SETUP] only;\n"
	"                         run+=ARGS, lifecycle+=ARGS append to the lines (a\n"
	"                         later option wins). Scaled down, e.g.:\n"
	"                         --set image_size=512m --set 'run+=--size 64m'\n"
	"      --progress WHEN    auto (on a terminal), always, never, or json (JSON\n"
	"                         lines on stderr for wrappers)\n"
	"  -h, --help             this text\n"
	"  -V, --version          the version\n"
	"\n"
	"The file is code run as root: it is refused when another user could change\n"
	"it (writable by group or others, owned by someone else, or in a directory\n"
	"others can write to without the sticky bit), and a mkfs template may name\n"
	"no block device but through its placeholders.\n"
	"\n"
	"Needs root. Exit 0 when every setup was measured, 1 when one failed or\n"
	"was skipped, 2 for a bad file or option, 128+N after signal N.\n";

enum { OPT_KEEP_GOING = 256, OPT_FAIL_FAST, OPT_KEEP_IMAGES, OPT_ONLY, OPT_SET };

static const struct fsb_opt mx_opts[] = {
	{ "keep-going", OPT_KEEP_GOING, FSB_VAL_NONE, NULL },
	{ "fail-fast", OPT_FAIL_FAST, FSB_VAL_NONE, NULL },
	{ "keep-images", OPT_KEEP_IMAGES, FSB_VAL_NONE, NULL },
	{ "only", OPT_ONLY, FSB_VAL_SECTIONS, NULL },
	{ "set", OPT_SET, FSB_VAL_TEXT, NULL },
	{ NULL, 0, FSB_VAL_NONE, NULL },
};

static void print_usage(FILE *out)
{
	fputs(usage_text, out);
}

static const char *matrix_formats(void)
{
	return fsb_view_names(FSB_KIND_MATRIX);
}

static int mx_option(void *ctx, int c, const char *arg)
{
	struct fsb_matrix_cli *o = ctx;

	switch (c) {
	case OPT_KEEP_GOING:
		o->plan.fail_fast = false;
		return 0;
	case OPT_FAIL_FAST:
		o->plan.fail_fast = true;
		return 0;
	case OPT_KEEP_IMAGES:
		o->plan.keep_images = true;
		return 0;
	case OPT_ONLY:
		o->only = arg;
		return 0;
	case OPT_SET:
		if (o->nsets == FSB_MATRIX_MAX_SETS) {
			fsb_err("invalid --set '%s': at most %d --set items", arg,
				FSB_MATRIX_MAX_SETS);
			return FSB_EXIT_USAGE;
		}
		o->sets[o->nsets++] = arg;
		return 0;
	}
	return FSB_EXIT_USAGE;
}

const struct fsb_cmd_spec fsb_matrix_spec = {
	.name = "matrix",
	.common = FSB_OPT_BASIC | FSB_OPT_FORMAT | FSB_OPT_OUTPUT | FSB_OPT_PROGRESS,
	.opts = mx_opts,
	.operands = FSB_VAL_FILE,
	.formats = matrix_formats,
	.own = mx_option,
};

int fsb_matrix_parse(int argc, char **argv, struct fsb_matrix_cli *o)
{
	int rc, i;

	memset(o, 0, sizeof(*o));
	rc = fsb_cli_getopt(&fsb_matrix_spec, argc, argv, NULL, o, &o->co, &i);
	if (rc || (o->co.given & FSB_OPT_BASIC))
		return rc;
	if (i >= argc) {
		fsb_err("matrix: a configuration file is required (see --help)");
		return FSB_EXIT_USAGE;
	}
	o->config = argv[i++];
	if (i < argc) {
		fsb_err("matrix: unexpected argument '%s' (one CONFIG.ini only)", argv[i]);
		return FSB_EXIT_USAGE;
	}
	o->plan.progress = o->co.progress;
	o->view = fsb_view_find(FSB_KIND_MATRIX, o->co.format ? o->co.format : "text");
	if (!o->view) {
		char want[64];

		return fsb_opt_bad("--format", o->co.format,
				   fsb_vocab_describe(matrix_formats(), want, sizeof(want)));
	}
	return 0;
}

/* --only: every name must be a setup of the file. 0 or FSB_EXIT_USAGE. */
static int select_setups(struct fsb_matrix_cli *m)
{
	struct fsb_matrix_config *cfg = &m->plan.cfg;
	char *copy, *save = NULL, *item;
	int rc = 0;

	if (!m->only) {
		for (size_t i = 0; i < cfg->nsetups; i++)
			cfg->setups[i].selected = true;
		m->plan.nselected = cfg->nsetups;
		return 0;
	}
	copy = strdup(m->only);
	if (!copy) {
		fsb_err("matrix: out of memory");
		return FSB_EXIT_FAIL;
	}
	for (item = strtok_r(copy, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
		struct fsb_matrix_setup *s = (struct fsb_matrix_setup *)fsb_matrix_config_find(
			cfg, item);

		if (!s) {
			fsb_err("invalid --only '%s': '%s' is no setup of '%s'", m->only, item,
				cfg->path);
			rc = FSB_EXIT_USAGE;
		} else if (!s->selected) {
			s->selected = true;
			m->plan.nselected++;
		}
	}
	free(copy);
	if (!rc && !m->plan.nselected)
		rc = fsb_opt_bad("--only", m->only, "setup labels separated by commas");
	return rc;
}

/*
 * The csv view has lines for the run suite only: refuse it up front when no
 * selected setup runs that suite, rather than after measuring them all.
 */
static int check_view(const struct fsb_matrix_cli *m)
{
	if (strcmp(m->view->name, "csv"))
		return 0;
	for (size_t i = 0; i < m->plan.cfg.nsetups; i++)
		if (m->plan.cfg.setups[i].selected && m->plan.cfg.setups[i].run)
			return 0;
	fsb_err("invalid --format 'csv' for this matrix: it has lines for the run suite, "
		"and no selected setup runs it (expected text or json)");
	return FSB_EXIT_USAGE;
}

int fsb_cmd_matrix(int argc, char **argv)
{
	struct fsb_matrix_cli *m = calloc(1, sizeof(*m));
	struct fsb_matrix_doc doc;
	struct fsb_output dest = { 0 };
	char why[1024];
	bool all_ok = true;
	int rc;

	memset(&doc, 0, sizeof(doc));
	if (!m) {
		fsb_err("matrix: out of memory");
		return FSB_EXIT_FAIL;
	}
	rc = fsb_matrix_parse(argc, argv, m);
	if (rc || fsb_cli_answered(&m->co, print_usage))
		goto out;
	/* -o first, and never the INI file; nothing is made before the end. */
	if (fsb_output_open(&dest, m->co.output, &m->config, 1)) {
		rc = FSB_EXIT_USAGE;
		goto out;
	}
	if (fsb_matrix_config_load_set(m->config, m->sets, m->nsets, &m->plan.cfg, why,
				       sizeof(why))) {
		fsb_err("%s", why);
		rc = FSB_EXIT_USAGE;
		goto out;
	}
	if ((rc = select_setups(m)) || (rc = check_view(m)) ||
	    (rc = fsb_matrix_lines_to_plans(&m->plan.cfg)))
		goto out;
	rc = FSB_EXIT_FAIL;
	if (fsb_matrix_execute(&m->plan, &doc, NULL))
		goto out;
	for (size_t i = 0; i < doc.n; i++)
		all_ok &= doc.entries[i].status == FSB_MATRIX_OK;
	if (!fsb_view_output(m->view, &(struct fsb_doc){ .kind = FSB_KIND_MATRIX, .matrix = &doc },
			     &dest))
		rc = all_ok ? FSB_EXIT_OK : FSB_EXIT_FAIL;
out:
	fsb_output_release(&dest);
	if (fsb_stop_requested())
		rc = 128 + fsb_stop_signo();
	fsb_matrix_doc_release(&doc);
	fsb_matrix_config_release(&m->plan.cfg);
	free(m);
	return rc;
}
