/*
 * fsbench lifecycle: argv -> plan (struct fsb_lc_plan) -> fsb_lc_execute ->
 * the result in the chosen view. The benchmark of the flash lifecycle
 * report in docs/references.md.
 */
#include "cli/lifecycle.h"
#include "cli/commands.h"
#include "report/views.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/vocab.h"

#include <stdio.h>
#include <string.h>

static const char usage_text[] =
	"usage: fsbench lifecycle [OPTIONS] --fs TYPE (--image PATH [--image-size SIZE] | --device DEV\n"
	"                                            | --mtd DEV,ERASESIZE)\n"
	"\n"
	"Time how long a filesystem takes to be made, mounted and unmounted, and\n"
	"to take in and give back a file from a cold start, on a block device:\n"
	"a loop device over an image file (attached with direct I/O), or a device.\n"
	"Each phase runs --repeat times: highest, median and lowest wall time, and\n"
	"bytes read and written at the device.\n"
	"\n"
	"Phases (--phases LIST, comma-separated; default all):\n"
	"  mkfs           mkfs.TYPE, then the first mount (mkfs-mount), then the\n"
	"                 umount after it (mkfs-umount), each timed separately\n"
	"  mount-umount   one mount plus one umount\n"
	"  write          mount, copy --copy-size of random data, fsync, umount\n"
	"  read           mount, read the copy back and verify it, umount\n"
	"\n"
	"Options:\n"
	"      --fs TYPE          filesystem to make (ext2, ext3, ext4, xfs, btrfs, ...)\n"
	"      --type TYPE        filesystem type to mount it as (default: --fs)\n"
	"      --image PATH       image file to use: created (mode 0600) when missing,\n"
	"                         and removed again if the run fails; an existing one\n"
	"                         must be a file of yours (not a symlink) and empty,\n"
	"                         unless --destroy-data\n"
	"      --image-size SIZE  size of the image (k, m, g suffixes); resizes an\n"
	"                         existing one only with --destroy-data\n"
	"      --device DEV       a block device; refused when mounted, swap or held,\n"
	"                         and when carrying a signature unless --destroy-data\n"
	"      --destroy-data     allow overwriting what is on the --image or --device\n"
	"      --mtd DEV,ERASESIZE  emulated flash: an MTD device made by block2mtd\n"
	"                         over DEV (same checks as --device), used through\n"
	"                         /dev/mtdblockN; refills are erases (flash_erase).\n"
	"                         jffs2 defaults to --mkfs none: the first mount\n"
	"                         formats, and mkfs-umount includes the background\n"
	"                         erase that mount started (as in the reference)\n"
	"      --pre-erase        with --mtd: erase with JFFS2 cleanmarkers\n"
	"                         (flash_erase -j) so no background erase is needed\n"
	"      --fill PATTERN     0xff (default for --image: erased flash), zero, random,\n"
	"                         none (default for --device)\n"
	"      --refill WHEN      each: refill before every repetition; once: only at\n"
	"                         the start (default: each for mkfs, once otherwise)\n"
	"      --phases LIST      phases to run (default all)\n"
	"      --mkfs TEMPLATE    mkfs command, {dev} = the device (it may name no\n"
	"                         other block device); split into words with quotes\n"
	"                         and backslashes, run without a shell; 'none' when\n"
	"                         the filesystem formats on first mount\n"
	"      --options OPTS     mount options (e.g. noatime,data=writeback)\n"
	"      --copy-size SIZE   data copied by write, read back by read\n"
	"                         (default 16m)\n"
	"      --data PATTERN     the copy's data: random (default), zero,\n"
	"                         compressible:PCT (shrinks by PCT%% under zstd/zlib)\n"
	"                         or dedupe:PCT (PCT%% of 4 KiB chunks repeat one)\n"
	"  -r, --repeat N         runs per phase (default 12; mkfs phases 3)\n"
	"      --no-device-capability\n"
	"                         do not measure the raw device first (by default: its\n"
	"                         sequential and random figures, O_DIRECT, ~2 s, before\n"
	"                         the fill; writes only on an image or with\n"
	"                         --destroy-data, read-only otherwise)\n"
	"  -l, --label NAME       name of this setup in reports (default: --fs)\n"
	"      --seed N           seed of the copy's and the fill's random data\n"
	"  -f, --format VIEW      %s (default text)\n"
	"  -o, --output FILE      write the report to FILE, not stdout: a file is replaced\n"
	"                         atomically, a device or FIFO written (see fsbench(1))\n"
	"      --progress WHEN    auto (on a terminal), always, never, or json (JSON\n"
	"                         lines on stderr for wrappers)\n"
	"  -q, --quiet            no progress lines and no warnings\n"
	"  -h, --help             this text\n"
	"  -V, --version          the version\n"
	"\n"
	"Needs root. Loop devices and mounts made here are always released. The image\n"
	"or device is locked while in use: a second run on it fails at once.\n";

enum {
	OPT_FS = 256,
	OPT_NO_DEVCAP,
	OPT_TYPE,
	OPT_IMAGE,
	OPT_IMAGE_SIZE,
	OPT_DEVICE,
	OPT_DESTROY,
	OPT_FILL,
	OPT_REFILL,
	OPT_PHASES,
	OPT_MKFS,
	OPT_OPTIONS,
	OPT_COPY_SIZE,
	OPT_MTD,
	OPT_PRE_ERASE,
	OPT_DATA,
};

/* The words of --refill, in the enum's order (each, once). */
static const char *refill_words(void)
{
	return "each|once";
}

static const char *lc_formats(void)
{
	return fsb_view_names(FSB_KIND_LIFECYCLE);
}

static const struct fsb_opt lc_opts[] = {
	{ "fs", OPT_FS, FSB_VAL_FSTYPE, NULL },
	{ "type", OPT_TYPE, FSB_VAL_FSTYPE, NULL },
	{ "image", OPT_IMAGE, FSB_VAL_FILE, NULL },
	{ "image-size", OPT_IMAGE_SIZE, FSB_VAL_SIZE, NULL },
	{ "device", OPT_DEVICE, FSB_VAL_FILE, NULL },
	{ "destroy-data", OPT_DESTROY, FSB_VAL_NONE, NULL },
	{ "mtd", OPT_MTD, FSB_VAL_FILE, NULL },
	{ "pre-erase", OPT_PRE_ERASE, FSB_VAL_NONE, NULL },
	{ "fill", OPT_FILL, FSB_VAL_WORD, fsb_fill_names },
	{ "refill", OPT_REFILL, FSB_VAL_WORD, refill_words },
	{ "phases", OPT_PHASES, FSB_VAL_LIST, fsb_lc_phase_names },
	{ "mkfs", OPT_MKFS, FSB_VAL_TEXT, NULL },
	{ "options", OPT_OPTIONS, FSB_VAL_TEXT, NULL },
	{ "copy-size", OPT_COPY_SIZE, FSB_VAL_SIZE, NULL },
	{ "data", OPT_DATA, FSB_VAL_TEXT, NULL },
	{ "repeat", 'r', FSB_VAL_NUMBER, NULL },
	{ "no-device-capability", OPT_NO_DEVCAP, FSB_VAL_NONE, NULL },
	{ NULL, 0, FSB_VAL_NONE, NULL },
};

static void print_usage(FILE *out)
{
	fprintf(out, usage_text, fsb_view_names(FSB_KIND_LIFECYCLE));
}

static int lc_option(void *ctx, int c, const char *arg)
{
	struct fsb_lc_plan *p = ctx;
	char want[64];
	uint64_t v;
	unsigned i;

	switch (c) {
	case OPT_FS:
		p->fs_type = arg;
		return 0;
	case OPT_TYPE:
		p->mount_type = arg;
		return 0;
	case OPT_IMAGE:
		p->image = arg;
		return 0;
	case OPT_IMAGE_SIZE:
		return fsb_opt_size("--image-size", arg, &p->image_size);
	case OPT_DEVICE:
		p->device = arg;
		return 0;
	case OPT_DESTROY:
		p->destroy_data = true;
		return 0;
	case OPT_NO_DEVCAP:
		p->no_devcap = true;
		return 0;
	case OPT_MTD:
		if (fsb_lc_plan_mtd(p, arg))
			return fsb_opt_bad("--mtd", arg, "DEV,ERASESIZE (/dev/vda,128k)");
		return 0;
	case OPT_PRE_ERASE:
		p->pre_erase = true;
		return 0;
	case OPT_FILL:
		/* The aliases (ff, 0x00, 0) too: not offered, still accepted. */
		if (fsb_fill_parse(arg, &p->fill))
			return fsb_opt_bad(
				"--fill", arg,
				fsb_vocab_describe(fsb_fill_names(), want, sizeof(want)));
		p->fill_set = true;
		return 0;
	case OPT_REFILL:
		if (fsb_opt_word("--refill", arg, refill_words(), &i))
			return FSB_EXIT_USAGE;
		p->refill = i ? FSB_LC_REFILL_ONCE : FSB_LC_REFILL_EACH;
		p->refill_set = true;
		return 0;
	case OPT_PHASES:
		p->phases = arg;
		return 0;
	case OPT_MKFS:
		p->mkfs_tmpl = arg;
		return 0;
	case OPT_OPTIONS:
		p->options = arg;
		return 0;
	case OPT_DATA:
		return fsb_opt_data(arg, &p->cfg.data);
	case OPT_COPY_SIZE:
		if (fsb_opt_size("--copy-size", arg, &p->copy_size))
			return FSB_EXIT_USAGE;
		if (p->copy_size > FSB_LC_MAX_COPY)
			return fsb_opt_bad("--copy-size", arg, "at most 4g (it is held in memory)");
		return 0;
	case 'r':
		if (fsb_opt_count("--repeat", arg, 1, 1000, &v))
			return FSB_EXIT_USAGE;
		p->cfg.repeat = (unsigned)v;
		p->repeat_set = true;
		return 0;
	}
	return FSB_EXIT_USAGE;
}

const struct fsb_cmd_spec fsb_lc_spec = {
	.name = "lifecycle",
	.common = FSB_OPT_REPORTING,
	.opts = lc_opts,
	.formats = lc_formats,
	.own = lc_option,
};

int fsb_lc_parse(int argc, char **argv, const struct fsb_cli_nest *nest, struct fsb_lc_cli *out)
{
	struct fsb_lc_plan *p = &out->plan;
	int rc, i;

	memset(out, 0, sizeof(*out));
	fsb_lc_plan_init(p);
	rc = fsb_cli_getopt(&fsb_lc_spec, argc, argv, nest, p, &out->co, &i);
	if (rc || (out->co.given & FSB_OPT_BASIC))
		return rc;
	if (i < argc) {
		fsb_err("lifecycle: unexpected argument '%s' (see --help)", argv[i]);
		return FSB_EXIT_USAGE;
	}
	p->cfg.label = out->co.label;
	p->cfg.seed = out->co.seed;
	p->seed_set = out->co.given & FSB_OPT_SEED;
	p->progress = out->co.progress;
	p->quiet = out->co.quiet;
	/* A matrix line: the caller completes the plan, then checks it. */
	if (nest)
		return 0;
	return fsb_lc_plan_check(p) ? FSB_EXIT_USAGE : 0;
}

int fsb_cmd_lifecycle(int argc, char **argv)
{
	struct fsb_lc_cli cli;
	struct fsb_result res = { 0 };
	struct fsb_output out = { 0 };
	const struct fsb_view *w;
	const char *inputs[3];
	int rc = fsb_lc_parse(argc, argv, NULL, &cli), err;

	if (rc || fsb_cli_answered(&cli.co, print_usage))
		return rc;
	w = fsb_view_select(cli.co.format ? cli.co.format : "text", "lifecycle");
	/* Last, as it holds descriptors: -o is never the image or a device. */
	inputs[0] = cli.plan.image;
	inputs[1] = cli.plan.device;
	inputs[2] = cli.plan.mtd ? cli.plan.mtd_dev : NULL;
	if (!w || fsb_output_open(&out, cli.co.output, inputs, 3))
		return FSB_EXIT_USAGE;
	fsb_warn_set_quiet(cli.plan.quiet);
	err = fsb_lc_execute(&cli.plan, NULL, &res, NULL);
	if (fsb_stop_requested())
		rc = 128 + fsb_stop_signo();
	else if (err || fsb_view_output_result(w, &res, &out))
		rc = FSB_EXIT_FAIL;
	fsb_result_release(&res);
	fsb_output_release(&out);
	return rc;
}
