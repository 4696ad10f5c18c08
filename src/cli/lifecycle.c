/*
 * fsbench lifecycle: mkfs, first mount, umount, mount/umount, cold copy and
 * cold read on a block device (the benchmark of
 * reference/flash-lifecycle-logfs-vs-jffs2.txt).
 *
 * Order of business, so that nothing is written before every check passed:
 *   1. options (malformed: exit 2);
 *   2. checks that read only: root, the kernel knows the type, the mkfs
 *      tool exists, sizes, the --device safety rules (exit 1);
 *   3. scratch mountpoint, random data, image + loop device (or the
 *      device), first fill;
 *   4. the phases, through the runner;
 *   5. always, in reverse order: umount, close, detach, remove scratch.
 * A signal only sets a flag (src/util/signals.c); every loop polls it and
 * unwinds through step 5, then the exit status is 128 + signo.
 */
#include "cli/commands.h"
#include "cli/legacy.h"
#include "util/error.h"
#include "core/registry.h"
#include "core/runner.h"
#include "device/diskstat.h"
#include "device/fill.h"
#include "device/image.h"
#include "device/loop.h"
#include "device/mkfs.h"
#include "util/spawn.h"
#include "device/mount.h"
#include "device/mtd.h"
#include "device/probe.h"
#include "report/result.h"
#include "report/writer.h"
#include "stats/clock.h"
#include "util/marker.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/size.h"
#include "workloads/lifecycle.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PHASES 8
#define MKFS_REPEAT 3
/* Copy in 1 MiB calls, the order of what cp(1) uses. */
#define IO_BYTES (1u << 20)
/* The copy is held in memory: refuse absurd sizes up front. */
#define MAX_COPY (4ull << 30)

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
	"      --copy-size SIZE   random data copied by write, read back by read\n"
	"                         (default 16m)\n"
	"  -r, --repeat N         runs per phase (default 12; mkfs phases 3)\n"
	"  -l, --label NAME       name of this setup in reports (default: --fs)\n"
	"      --seed N           seed of the copy's and the fill's random data\n"
	"  -f, --format VIEW      %s (default text)\n"
	"  -o, --output FILE      write the report to FILE, not stdout: a file is replaced\n"
	"                         atomically, a device or FIFO written (see fsbench(1))\n"
	"      --progress WHEN    auto (on a terminal), always or never\n"
	"  -q, --quiet            no progress lines and no warnings\n"
	"  -h, --help             this text\n"
	"  -V, --version          the version\n"
	"\n"
	"Needs root. Loop devices and mounts made here are always released. The image\n"
	"or device is locked while in use: a second run on it fails at once.\n";

enum {
	OPT_FS = 256, OPT_TYPE, OPT_IMAGE, OPT_IMAGE_SIZE, OPT_DEVICE, OPT_DESTROY, OPT_FILL,
	OPT_REFILL, OPT_PHASES, OPT_MKFS, OPT_OPTIONS, OPT_COPY_SIZE,
	OPT_MTD, OPT_PRE_ERASE,
};

static const struct option long_opts[] = {
	{ "fs", required_argument, NULL, OPT_FS },
	{ "type", required_argument, NULL, OPT_TYPE },
	{ "image", required_argument, NULL, OPT_IMAGE },
	{ "image-size", required_argument, NULL, OPT_IMAGE_SIZE },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "destroy-data", no_argument, NULL, OPT_DESTROY },
	{ "mtd", required_argument, NULL, OPT_MTD },
	{ "pre-erase", no_argument, NULL, OPT_PRE_ERASE },
	{ "fill", required_argument, NULL, OPT_FILL },
	{ "refill", required_argument, NULL, OPT_REFILL },
	{ "phases", required_argument, NULL, OPT_PHASES },
	{ "mkfs", required_argument, NULL, OPT_MKFS },
	{ "options", required_argument, NULL, OPT_OPTIONS },
	{ "copy-size", required_argument, NULL, OPT_COPY_SIZE },
	{ "repeat", required_argument, NULL, 'r' },
	FSB_REPORT_LONG_OPTS,
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static const char *const lc_families[] = { "lifecycle", NULL };
static const char *const phase_names[] = {
	"mkfs", "mkfs-mount", "mkfs-umount", "mount-umount", "write", "read",
};

/* Everything the command decided from its options. */
struct lc_plan {
	struct fsb_config cfg;
	bool repeat_set;
	const char *fs_type, *mount_type, *image, *device, *options, *mkfs_tmpl;
	uint64_t image_size, copy_size;
	bool destroy_data, fill_set, refill_set;
	enum fsb_fill fill;
	enum fsb_lc_refill refill;
	const char *phases;
	const char *format, *output;
	enum fsb_progress progress;
	bool quiet;
	const struct fsb_workload_ops *ops[MAX_PHASES];
	size_t nops;
	const struct fsb_writer *writer;
	struct fsb_output out;      /* -o, checked before anything is touched */
	char mkfs_default[256];
	char **mkfs_words;          /* the template split, placeholders kept */
	char mkfs_path[PATH_MAX];   /* the program, found before anything is written */
	const char *mtd;            /* --mtd as given */
	char mtd_dev[PATH_MAX];     /* its DEV */
	uint64_t mtd_erase_bytes;
	bool pre_erase;
	char mtd_chr[64], mtd_blk[64];
	char erase_path[PATH_MAX];
	char *erase_argv[8];
	bool ubi;                   /* ubifs on --mtd: UBI tools are its mkfs */
	char ubi_paths[3][PATH_MAX];
	char *ubi_argv[3][8];
	char ubi_words[4][64];      /* mtd index, ubi number, ubi device, volume */
	char mount_src[64];
	char ubi_tmpl[256];         /* the three commands as run, for the record */
	int ubi_num;
};

/* What the run holds and must release, in reverse order of acquisition. */
struct lc_run {
	char scratch[PATH_MAX];
	char mnt[PATH_MAX];
	bool scratch_made;
	unsigned char *data;
	struct fsb_image image;     /* --image: open and locked from the checks on */
	int lock_fd;                /* --device, --mtd: the device node, locked */
	struct fsb_loopdev loop;
	int dev_fd;                 /* --device only; image mode uses loop.fd */
	int lower_fd;               /* --mtd: the disk under the flash */
	char **mkfs_argv;
	struct fsb_lc_state state;
	struct fsb_lifecycle lc;
	char statpath[PATH_MAX];
};

static void print_usage(FILE *out)
{
	fprintf(out, usage_text, fsb_writer_names_for(FSB_KIND_LIFECYCLE));
}

static bool known_phase(const char *name)
{
	for (size_t i = 0; i < sizeof(phase_names) / sizeof(phase_names[0]); i++)
		if (!strcmp(phase_names[i], name))
			return true;
	return !strcmp(name, "lifecycle") || !strcmp(name, "all");
}

/*
 * Check --phases and resolve it to workloads in report order. "mkfs" means
 * its three timings (mkfs, mkfs-mount, mkfs-umount); "all" every phase.
 * With --mkfs none there is no mkfs step to time. 0 or FSB_EXIT_USAGE.
 */
static int select_phases(struct lc_plan *p)
{
	char expanded[512] = "", *copy, *save = NULL, *item;
	size_t len = 0;
	int n;

	copy = strdup(p->phases ? p->phases : "lifecycle");
	if (!copy) {
		fsb_err("lifecycle: out of memory");
		return FSB_EXIT_FAIL;
	}
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		const char *add = item;

		if (!known_phase(item)) {
			fsb_err("invalid --phases '%s': unknown phase '%s' (phases: mkfs, "
				"mkfs-mount, mkfs-umount, mount-umount, write, read)", p->phases, item);
			free(copy);
			return FSB_EXIT_USAGE;
		}
		if (!strcmp(item, "mkfs"))
			add = "mkfs,mkfs-mount,mkfs-umount";
		else if (!strcmp(item, "all"))
			add = "lifecycle";
		len += (size_t)snprintf(expanded + len, sizeof(expanded) - len, "%s%s",
					len ? "," : "", add);
		if (len >= sizeof(expanded)) {
			free(copy);
			return fsb_opt_bad("--phases", p->phases, "a shorter list");
		}
	}
	free(copy);
	if (!len)
		return fsb_opt_bad("--phases", p->phases, "a comma-separated list of phases");
	n = fsb_registry_select(expanded, lc_families, p->ops, MAX_PHASES);
	if (n < 0)
		return FSB_EXIT_USAGE;
	p->nops = (size_t)n;
	if (fsb_mkfs_is_none(p->mkfs_tmpl)) {
		size_t k = 0;

		for (size_t i = 0; i < p->nops; i++)
			if (strcmp(p->ops[i]->name, "mkfs"))
				p->ops[k++] = p->ops[i];
		p->nops = k;
		if (!k) {
			fsb_err("lifecycle: nothing to do: --mkfs none has no mkfs step to time "
				"(mkfs-mount and mkfs-umount still time the first mount)");
			return FSB_EXIT_USAGE;
		}
	}
	return 0;
}

/* Split the template now: a malformed one is a usage error (exit 2). */
static int check_mkfs_template(struct lc_plan *p)
{
	static const char *const probe_dev[] = { "/dev/loop0" };
	char bad[PATH_MAX + 256];
	const char *why;
	char **trial = NULL;

	if (p->ubi)
		return 0;
	if (!p->mkfs_tmpl) {
		if (fsb_mkfs_default_template(p->fs_type, p->mkfs_default, sizeof(p->mkfs_default)))
			return fsb_opt_bad("--fs", p->fs_type, "a filesystem type name");
		p->mkfs_tmpl = p->mkfs_default;
	}
	if (fsb_mkfs_is_none(p->mkfs_tmpl))
		return 0;
	if (fsb_words_split(p->mkfs_tmpl, &p->mkfs_words, &why) < 0) {
		fsb_err("invalid --mkfs '%s': %s", p->mkfs_tmpl, why);
		return FSB_EXIT_USAGE;
	}
	if (fsb_mkfs_check_template(p->mkfs_tmpl, bad, sizeof(bad))) {
		fsb_err("invalid --mkfs '%s': %s", p->mkfs_tmpl, bad);
		return FSB_EXIT_USAGE;
	}
	/* Placeholders are checked with a stand-in device. */
	if (fsb_mkfs_expand(p->mkfs_words, probe_dev, 1, &trial, &why) < 0) {
		fsb_err("invalid --mkfs '%s': %s", p->mkfs_tmpl, why);
		return FSB_EXIT_USAGE;
	}
	fsb_words_free(trial);
	return 0;
}

/* Returns 0, an exit status, or -1 for "done: exit 0" (--help). */
static int parse(int argc, char **argv, struct lc_plan *p)
{
	const struct fsb_report_opts ro = { &p->cfg.label, &p->cfg.seed, &p->format, &p->output,
					    &p->progress, &p->quiet };
	int c, rc;
	uint64_t v;

	p->cfg = (struct fsb_config){
		.repeat = 12,
		.min_time_ns = 0,
		.cache = FSB_CACHE_DROP,
		.seed = fsb_default_seed(),
		.chunk_bytes = IO_BYTES,
	};
	p->copy_size = 16u << 20;
	p->format = "text";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":r:l:f:o:qhV", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_FS:
			p->fs_type = optarg;
			break;
		case OPT_TYPE:
			p->mount_type = optarg;
			break;
		case OPT_IMAGE:
			p->image = optarg;
			break;
		case OPT_IMAGE_SIZE:
			if (fsb_opt_size("--image-size", optarg, &p->image_size))
				return FSB_EXIT_USAGE;
			break;
		case OPT_DEVICE:
			p->device = optarg;
			break;
		case OPT_DESTROY:
			p->destroy_data = true;
			break;
		case OPT_MTD:
			if (fsb_mtd_parse(optarg, p->mtd_dev, sizeof(p->mtd_dev),
					  &p->mtd_erase_bytes))
				return fsb_opt_bad("--mtd", optarg, "DEV,ERASESIZE (/dev/vda,128k)");
			p->mtd = optarg;
			break;
		case OPT_PRE_ERASE:
			p->pre_erase = true;
			break;
		case OPT_FILL:
			if (fsb_fill_parse(optarg, &p->fill))
				return fsb_opt_bad("--fill", optarg, "0xff, zero, random or none");
			p->fill_set = true;
			break;
		case OPT_REFILL:
			if (!strcmp(optarg, "each"))
				p->refill = FSB_LC_REFILL_EACH;
			else if (!strcmp(optarg, "once"))
				p->refill = FSB_LC_REFILL_ONCE;
			else
				return fsb_opt_bad("--refill", optarg, "each or once");
			p->refill_set = true;
			break;
		case OPT_PHASES:
			p->phases = optarg;
			break;
		case OPT_MKFS:
			p->mkfs_tmpl = optarg;
			break;
		case OPT_OPTIONS:
			p->options = optarg;
			break;
		case OPT_COPY_SIZE:
			if (fsb_opt_size("--copy-size", optarg, &p->copy_size))
				return FSB_EXIT_USAGE;
			if (p->copy_size > MAX_COPY)
				return fsb_opt_bad("--copy-size", optarg, "at most 4g (it is held in memory)");
			break;
		case 'r':
			if (fsb_opt_count("--repeat", optarg, 1, 1000, &v))
				return FSB_EXIT_USAGE;
			p->cfg.repeat = (unsigned)v;
			p->repeat_set = true;
			break;
		case 'h':
			print_usage(stdout);
			return -1;
		case 'V':
			printf("fsbench %s\n", FSB_VERSION);
			return -1;
		default:
			rc = fsb_opt_report(c, optarg, &ro);
			if (rc < 0)
				return fsb_opt_unknown(argc, argv, c);
			if (rc)
				return rc;
		}
	}
	if (optind < argc) {
		fsb_err("lifecycle: unexpected argument '%s' (see --help)", argv[optind]);
		return FSB_EXIT_USAGE;
	}
	/* Checks across options, all before anything is touched. */
	if (!p->fs_type) {
		fsb_err("lifecycle: --fs TYPE is required (ext4, xfs, btrfs, ...)");
		return FSB_EXIT_USAGE;
	}
	/* The type names mkfs.TYPE and goes to mount(2): a name, not a path. */
	if (!*p->fs_type || strpbrk(p->fs_type, "/ \t\n"))
		return fsb_opt_bad("--fs", p->fs_type, "a filesystem type name (ext4, xfs, btrfs, ...)");
	if (!p->mount_type)
		p->mount_type = p->fs_type;
	if (!!p->image + !!p->device + !!p->mtd != 1) {
		fsb_err("lifecycle: give exactly one of --image PATH, --device DEV and --mtd DEV,SIZE");
		return FSB_EXIT_USAGE;
	}
	if (p->pre_erase && !p->mtd) {
		fsb_err("lifecycle: --pre-erase goes with --mtd");
		return FSB_EXIT_USAGE;
	}
	if (p->mtd) {
		if (p->fill_set) {
			fsb_err("lifecycle: --fill does not go with --mtd (flash is erased)");
			return FSB_EXIT_USAGE;
		}
		/* JFFS2 formats blank flash on its first mount: the reference's
		 * "mkfs" is that mount. */
		if (!p->mkfs_tmpl && !strcmp(p->fs_type, "jffs2"))
			p->mkfs_tmpl = "none";
		/* UBIFS lives on a UBI volume: formatting the flash for UBI,
		 * attaching it and making the volume is its mkfs. */
		if (!strcmp(p->fs_type, "ubifs")) {
			if (p->mkfs_tmpl) {
				fsb_err("lifecycle: --mkfs does not go with --fs ubifs --mtd (its mkfs "
					"is ubiformat, ubiattach, ubimkvol)");
				return FSB_EXIT_USAGE;
			}
			if (p->pre_erase) {
				fsb_err("lifecycle: --pre-erase is for jffs2 (ubiformat erases)");
				return FSB_EXIT_USAGE;
			}
			p->ubi = true;
			p->mkfs_tmpl = "ubiformat -y -q {mtd}; ubiattach -m N -d N; "
				       "ubimkvol /dev/ubiN -N fsbench -m";
			/* ubiformat erases every block itself (keeping erase
			 * counters, as on real flash): no erase before each mkfs. */
			if (!p->refill_set) {
				p->refill = FSB_LC_REFILL_ONCE;
				p->refill_set = true;
			}
		}
		/* The checks of --device apply to the disk under the flash. */
		p->device = p->mtd_dev;
		p->destroy_data = true;
	}
	if (p->image_size && !p->image) {
		fsb_err("lifecycle: --image-size goes with --image (a device has its own size)");
		return FSB_EXIT_USAGE;
	}
	if (!p->fill_set)
		p->fill = p->device ? FSB_FILL_NONE : FSB_FILL_FF;
	if ((p->image && !*p->image) || (p->device && !*p->device)) {
		fsb_err("lifecycle: --image and --device need a path");
		return FSB_EXIT_USAGE;
	}
	p->writer = fsb_writer_select(p->format, "lifecycle");
	if (!p->writer)
		return FSB_EXIT_USAGE;
	if ((rc = check_mkfs_template(p)) || (rc = select_phases(p)))
		return rc;
	/* Last, as it holds descriptors: -o is never the image or a device. */
	{
		const char *inputs[] = { p->image, p->device, p->mtd ? p->mtd_dev : NULL };

		if (fsb_output_open(&p->out, p->output, inputs, 3))
			return FSB_EXIT_USAGE;
	}
	return 0;
}

/* ---- checks that only read (exit 1, nothing written yet) ---- */

/*
 * Claim the image (open, lock, the rules of src/device/image.h); a missing
 * one is created later, by open_device. A filled image is fully
 * allocated: the space is checked up front.
 */
static int check_image(const struct lc_plan *p, struct lc_run *run, uint64_t *size)
{
	int err;

	if ((err = fsb_image_claim(&run->image, p->image, p->image_size, p->destroy_data)))
		return err;
	*size = run->image.size_bytes;
	if (p->fill != FSB_FILL_NONE)
		return fsb_image_check_space(&run->image);
	return 0;
}

static int check_device(const struct lc_plan *p, struct lc_run *run, uint64_t *size)
{
	return fsb_image_claim_device(p->device, p->destroy_data, &run->lock_fd, size);
}

/* Whether the phases selected copy data (write, read). */
static bool copies(const struct lc_plan *p)
{
	for (size_t i = 0; i < p->nops; i++)
		if (!strcmp(p->ops[i]->name, "write") || !strcmp(p->ops[i]->name, "read"))
			return true;
	return false;
}

static int check_sizes(const struct lc_plan *p, uint64_t size)
{
	uint64_t min = fsb_probe_min_size(p->fs_type);
	const char *what = p->image ? p->image : p->device;
	char a[32], b[32];

	/* A custom --mkfs may make smaller filesystems (btrfs --mixed). */
	if (p->mkfs_tmpl == p->mkfs_default && size < min) {
		fsb_err("lifecycle: '%s' is %s, smaller than the %s minimum of %s", what,
			fsb_size_format_human(size, a, sizeof(a)), p->fs_type,
			fsb_size_format_human(min, b, sizeof(b)));
		return -EINVAL;
	}
	if (p->ubi && size < 64 * p->mtd_erase_bytes) {
		fsb_err("lifecycle: '%s' is %s: UBI wants at least 64 erase blocks",
			what, fsb_size_format_human(size, a, sizeof(a)));
		return -EINVAL;
	}
	if (copies(p) && p->copy_size >= size) {
		fsb_err("lifecycle: a copy of %s cannot fit on '%s' of %s",
			fsb_size_format_human(p->copy_size, a, sizeof(a)), what,
			fsb_size_format_human(size, b, sizeof(b)));
		return -EINVAL;
	}
	return 0;
}

/*
 * UBIFS on the MTD device mtdN: UBI device N (so two flashes never clash),
 * volume "fsbench" of all the space, mounted as ubiN:fsbench.
 */
static int plan_ubi(struct lc_plan *p)
{
	static const char *const tools[3] = { "ubiformat", "ubiattach", "ubimkvol" };
	char (*w)[64] = p->ubi_words;

	if (sscanf(p->mtd_chr, "/dev/mtd%d", &p->ubi_num) != 1)
		return -EINVAL;
	for (size_t i = 0; i < 3; i++) {
		if (fsb_which(tools[i], p->ubi_paths[i], sizeof(p->ubi_paths[i]))) {
			fsb_err("lifecycle: --fs ubifs needs '%s' (package mtd-utils)", tools[i]);
			return -ENOENT;
		}
	}
	snprintf(w[0], sizeof(w[0]), "%d", p->ubi_num);
	snprintf(w[1], sizeof(w[1]), "%d", p->ubi_num);
	snprintf(w[2], sizeof(w[2]), "/dev/ubi%d", p->ubi_num);
	snprintf(w[3], sizeof(w[3]), "fsbench");
	snprintf(p->mount_src, sizeof(p->mount_src), "ubi%d:fsbench", p->ubi_num);
	snprintf(p->ubi_tmpl, sizeof(p->ubi_tmpl),
		 "ubiformat -y -q %s; ubiattach -m %d -d %d; ubimkvol /dev/ubi%d -N fsbench -m",
		 p->mtd_chr, p->ubi_num, p->ubi_num, p->ubi_num);
	p->mkfs_tmpl = p->ubi_tmpl;
	memcpy(p->ubi_argv[0], (char *[]){ "ubiformat", "-y", "-q", p->mtd_chr, NULL },
	       5 * sizeof(char *));
	memcpy(p->ubi_argv[1], (char *[]){ "ubiattach", "-m", w[0], "-d", w[1], NULL },
	       6 * sizeof(char *));
	memcpy(p->ubi_argv[2], (char *[]){ "ubimkvol", w[2], "-N", w[3], "-m", NULL },
	       6 * sizeof(char *));
	return 0;
}

/*
 * --mtd: flash_erase found first, then the MTD device made over the disk
 * (the last check, since it is the first thing that changes the system);
 * from here on the device is /dev/mtdblockN.
 */
static int attach_mtd(struct lc_plan *p)
{
	size_t n = 0;
	int err;

	if (fsb_which("flash_erase", p->erase_path, sizeof(p->erase_path))) {
		fsb_err("lifecycle: --mtd needs 'flash_erase' (package mtd-utils)");
		return -ENOENT;
	}
	if ((err = fsb_mtd_attach(p->mtd_dev, p->mtd_erase_bytes, p->mtd_chr, sizeof(p->mtd_chr),
				  p->mtd_blk, sizeof(p->mtd_blk))))
		return err;
	p->erase_argv[n++] = "flash_erase";
	p->erase_argv[n++] = "-q";
	if (p->pre_erase)
		p->erase_argv[n++] = "-j";
	p->erase_argv[n++] = p->mtd_chr;
	p->erase_argv[n++] = "0";
	p->erase_argv[n++] = "0";
	p->erase_argv[n] = NULL;
	p->device = p->mtd_blk;
	return p->ubi ? plan_ubi(p) : 0;
}

static int preflight(struct lc_plan *p, struct lc_run *run, uint64_t *size)
{
	int err;

	if (geteuid() != 0) {
		fsb_err("lifecycle: needs root (it attaches loop devices and mounts filesystems)");
		return -EPERM;
	}
	if ((err = fsb_mount_fs_supported(p->mount_type)))
		return err;
	if (p->mkfs_words && fsb_which(p->mkfs_words[0], p->mkfs_path,
					    sizeof(p->mkfs_path))) {
		fsb_err("lifecycle: mkfs program '%s' not found (in PATH, /sbin, /usr/sbin)",
			p->mkfs_words[0]);
		return -ENOENT;
	}
	err = p->image ? check_image(p, run, size) : check_device(p, run, size);
	if (err)
		return err;
	if ((err = check_sizes(p, *size)))
		return err;
	if (p->mtd)
		return attach_mtd(p);
	return 0;
}

/* ---- the run ---- */

static const char *refill_name(enum fsb_lc_refill r)
{
	return r == FSB_LC_REFILL_EACH ? "each" : "once";
}

static int fill_result(const struct lc_plan *p, const struct lc_run *run, uint64_t size,
		       struct fsb_result *r)
{
	const struct fsb_lifecycle *lc = &run->lc;
	char list[256] = "", argvs[2048] = "";
	size_t len = 0;
	int err = 0;

	for (size_t i = 0; i < p->nops && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? "," : "",
					p->ops[i]->name);
	/* The words as run, quoted where a reader would otherwise misread them
	 * (a label with blanks): for the record, not for a shell. */
	len = 0;
	for (size_t i = 0; run->mkfs_argv && run->mkfs_argv[i] && len < sizeof(argvs); i++) {
		const char *w = run->mkfs_argv[i];
		bool quote = !*w || strpbrk(w, " \t\n'\"\\");

		len += (size_t)snprintf(argvs + len, sizeof(argvs) - len, "%s%s%s%s", i ? " " : "",
					quote ? "\"" : "", w, quote ? "\"" : "");
	}
	err |= fsb_result_fill_host(r);
	err |= fsb_strset(&r->setup.label, p->cfg.label ? p->cfg.label : p->fs_type);
	err |= fsb_strset(&r->setup.fs_type, p->fs_type);
	err |= fsb_strset(&r->setup.mount_options, p->options ? p->options : "");
	err |= fsb_strset(&r->setup.device, lc->dev);
	err |= fsb_strset(&r->setup.fill, p->mtd ? (p->pre_erase ? "0xff+cleanmarkers" : "0xff")
					       : fsb_fill_name(p->fill));
	if (p->mtd) {
		err |= fsb_result_param_str(r, "mtd", p->mtd);
		err |= fsb_result_param_str(r, "mtd_device", p->mtd_chr);
		err |= fsb_result_param_u64(r, "erase_bytes", p->mtd_erase_bytes);
		err |= fsb_result_param_bool(r, "pre_erase", p->pre_erase);
		err |= fsb_result_param_bool(r, "erase_in_umount", lc->wait_erase);
		if (p->ubi)
			err |= fsb_result_param_str(r, "ubi_volume", p->mount_src);
	}
	if (p->image) {
		err |= fsb_result_param_str(r, "image", p->image);
		err |= fsb_result_param_bool(r, "direct_io", run->loop.direct_io);
	}
	err |= fsb_result_param_u64(r, "device_bytes", size);
	err |= fsb_result_param_str(r, "mount_type", p->mount_type);
	err |= fsb_result_param_str(r, "mkfs", p->mkfs_tmpl);
	err |= fsb_result_param_str(r, "mkfs_argv", argvs);
	err |= fsb_result_param_u64(r, "copy_size_bytes", p->copy_size);
	err |= fsb_result_param_u64(r, "io_bytes", IO_BYTES);
	err |= fsb_result_param_u64(r, "repeat", p->cfg.repeat);
	err |= fsb_result_param_u64(r, "mkfs_repeat", p->repeat_set ? p->cfg.repeat : MKFS_REPEAT);
	err |= fsb_result_param_str(r, "refill_mkfs", refill_name(lc->refill_mkfs));
	err |= fsb_result_param_str(r, "refill", refill_name(lc->refill_other));
	err |= fsb_result_param_u64(r, "seed", p->cfg.seed);
	err |= fsb_result_param_str(r, "phases", list);
	err |= fsb_result_param_u64(r, "clock_res_ns", fsb_clock_res_ns());
	return err ? -ENOMEM : 0;
}

/*
 * What is made outside plain files is listed in the scratch dir's marker
 * as soon as it exists, so that after a SIGKILL `fsbench clean` can prove
 * it is ours. Describes a failed append (marker.h does not).
 */
static int mark(const struct lc_run *run, int err)
{
	if (err)
		fsb_err_errno(err, "lifecycle: cannot record what was made in '%s/%s'",
			      run->scratch, FSB_MARKER_NAME);
	return err;
}

/* The mountpoint: an empty directory in a scratch dir of our own. */
static int make_mountpoint(struct lc_run *run)
{
	const char *tmp = getenv("TMPDIR");
	char real[PATH_MAX];
	int err;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	err = fsb_scratch_create(tmp, run->scratch, sizeof(run->scratch));
	if (err) {
		fsb_err_errno(err, "lifecycle: cannot create a scratch directory in '%s'", tmp);
		return err;
	}
	run->scratch_made = true;
	/* libmount compares targets with mountinfo, which has real paths. */
	if (!realpath(run->scratch, real) ||
	    (size_t)snprintf(run->mnt, sizeof(run->mnt), "%s/mnt", real) >= sizeof(run->mnt)) {
		err = -ENAMETOOLONG;
		fsb_err_errno(err, "lifecycle: cannot use scratch directory '%s'", run->scratch);
		return err;
	}
	if (mkdir(run->mnt, 0700) < 0) {
		err = -errno;
		fsb_err_errno(err, "lifecycle: cannot create mountpoint '%s'", run->mnt);
		return err;
	}
	/* Listed before anything is mounted there (see mark()). */
	return mark(run, fsb_marker_add_mount(run->scratch, run->mnt));
}

/* Image + loop device, or the device itself; the mkfs argv for it. */
static int open_device(const struct lc_plan *p, struct lc_run *run, uint64_t *size)
{
	const char *devs[1];
	char bad[PATH_MAX + 256];
	const char *why;
	int err;

	if (p->image) {
		if ((err = fsb_image_make(&run->image)))
			return err;
		if ((err = mark(run, fsb_marker_add_image(run->scratch, p->image, run->image.fd,
							   run->image.created))))
			return err;
		if (fsb_stop_requested())
			return -EINTR;
		if ((err = fsb_loopdev_attach(&run->loop, run->image.fd, p->image, true)))
			return err;
		if ((err = mark(run, fsb_marker_add_loop(run->scratch, run->loop.path))))
			return err;
		if (!run->loop.direct_io && !p->quiet)
			fsb_warn("loop device '%s' runs without direct I/O (the filesystem "
				 "holding '%s' refused it): the image's host cache is dropped "
				 "before every phase instead", run->loop.path, p->image);
		run->lc.dev = run->loop.path;
		run->lc.dev_fd = run->loop.fd;
		run->lc.image_fd = run->loop.direct_io ? -1 : run->image.fd;
	} else {
		run->dev_fd = open(p->device, O_RDWR | O_CLOEXEC);
		if (run->dev_fd < 0) {
			err = -errno;
			fsb_err_errno(err, "lifecycle: cannot open device '%s'", p->device);
			return err;
		}
		run->lc.dev = p->device;
		run->lc.dev_fd = run->dev_fd;
		run->lc.image_fd = -1;
	}
	if (ioctl(run->lc.dev_fd, BLKGETSIZE64, size) < 0) {
		err = -errno;
		fsb_err_errno(err, "lifecycle: cannot get the size of '%s'", run->lc.dev);
		return err;
	}
	run->lc.dev_bytes = *size;
	if (p->mkfs_words) {
		devs[0] = run->lc.dev;
		err = fsb_mkfs_expand(p->mkfs_words, devs, 1, &run->mkfs_argv, &why);
		if (err < 0) {
			fsb_err("invalid --mkfs '%s': %s", p->mkfs_tmpl, why);
			return err;
		}
		if ((err = fsb_mkfs_check_devices(run->mkfs_argv, devs, 1, bad, sizeof(bad)))) {
			fsb_err("invalid --mkfs '%s': %s", p->mkfs_tmpl, bad);
			return err;
		}
	}
	/* On flash the filesystem talks to MTD, not to mtdblock: the bytes
	 * that reach a device are counted on the disk under it. */
	if (p->mtd) {
		run->lower_fd = open(p->mtd_dev, O_RDONLY | O_CLOEXEC);
		if (run->lower_fd < 0) {
			err = -errno;
			fsb_err_errno(err, "lifecycle: cannot open '%s'", p->mtd_dev);
			return err;
		}
		run->lc.lower_fd = run->lower_fd;
	}
	if (fsb_diskstat_path_for_dev(p->mtd ? p->mtd_dev : run->lc.dev, run->statpath,
				      sizeof(run->statpath)))
		run->statpath[0] = '\0';
	return 0;
}

static void release(struct lc_run *run, bool failed)
{
	/* Reverse order: umount, device, loop, image, scratch. A mount that
	 * will not go (a process sits in it) is detached lazily: nothing of
	 * ours stays in the mount table, the kernel finishes when it can. */
	if (run->lc.state && run->lc.mnt && fsb_lc_unmount(&run->lc) &&
	    !fsb_umount_lazy(run->lc.mnt))
		run->state.mounted = false;
	if (run->lc.state && !run->state.mounted)
		(void)fsb_lc_ubi_detach(&run->lc);
	if (run->dev_fd >= 0)
		close(run->dev_fd);
	if (run->lower_fd >= 0)
		close(run->lower_fd);
	fsb_loopdev_release(&run->loop);
	/* An image made for a run that did not finish is of no use to anyone. */
	fsb_image_close(&run->image, failed);
	if (run->lock_fd >= 0)
		close(run->lock_fd);
	fsb_words_free(run->mkfs_argv);
	free(run->data);
	if (run->scratch_made) {
		int err;

		/* The mountpoint must be empty and unmounted by now: rmdir, not rm -r,
		 * so a mount that could not be undone is never descended into. */
		if (run->mnt[0])
			(void)rmdir(run->mnt);
		err = fsb_scratch_remove(run->scratch);
		if (err)
			fsb_err_errno(err, "lifecycle: cannot remove scratch directory '%s'",
				      run->scratch);
	}
}

static int run_phases(const struct lc_plan *p, struct lc_run *run, struct fsb_result *res)
{
	struct fsb_config cfg_mkfs = p->cfg;
	struct fsb_runner rn = {
		.cfg = &p->cfg,
		.dir = run->scratch,
		.ext = &run->lc,
		.diskstat_path = run->statpath[0] ? run->statpath : NULL,
		.progress = !p->quiet && fsb_progress_enabled(p->progress),
	};
	struct fsb_runner rn_mkfs = rn;
	int err = 0;

	cfg_mkfs.repeat = p->repeat_set ? p->cfg.repeat : MKFS_REPEAT;
	rn_mkfs.cfg = &cfg_mkfs;
	if (rn.progress)
		fsb_progress_timer_start(250);
	for (size_t i = 0; i < p->nops && !err; i++) {
		bool mkfs_phase = !strncmp(p->ops[i]->name, "mkfs", 4);

		err = fsb_runner_measure(mkfs_phase ? &rn_mkfs : &rn, p->ops[i], res);
		if (!err && fsb_stop_requested())
			err = -EINTR;
	}
	if (rn.progress)
		fsb_progress_timer_stop();
	return err;
}

int fsb_cmd_lifecycle(int argc, char **argv)
{
	struct lc_plan plan;
	struct lc_run run;
	struct fsb_result res = { 0 };
	uint64_t size = 0, seed_state;
	int rc, err;

	memset(&plan, 0, sizeof(plan));
	memset(&run, 0, sizeof(run));
	fsb_image_init(&run.image);
	run.lock_fd = -1;
	run.dev_fd = -1;
	run.lower_fd = -1;
	fsb_loopdev_init(&run.loop);

	rc = parse(argc, argv, &plan);
	if (rc) {
		fsb_words_free(plan.mkfs_words);
		return rc < 0 ? FSB_EXIT_OK : rc;
	}
	fsb_warn_set_quiet(plan.quiet);
	rc = FSB_EXIT_FAIL;
	if (preflight(&plan, &run, &size))
		goto out;

	/* ---- from here on, things are made and must be released ---- */
	run.lc = (struct fsb_lifecycle){
		.mnt = run.mnt,
		.mount_type = plan.mount_type,
		.options = plan.options,
		.mkfs_path = plan.mkfs_words ? plan.mkfs_path : NULL,
		.fill = plan.fill,
		.fill_seed = plan.cfg.seed ^ 0x66696c6cull, /* "fill" */
		.refill_mkfs = plan.refill_set ? plan.refill : FSB_LC_REFILL_EACH,
		.refill_other = plan.refill_set ? plan.refill : FSB_LC_REFILL_ONCE,
		.copy_bytes = plan.copy_size,
		.io_bytes = IO_BYTES,
		.dev_fd = -1,
		.image_fd = -1,
		.lower_fd = -1,
		.state = &run.state,
		.erase_path = plan.mtd ? plan.erase_path : NULL,
		.erase_argv = plan.mtd ? plan.erase_argv : NULL,
		.wait_erase = plan.mtd && !plan.pre_erase && fsb_mkfs_is_none(plan.mkfs_tmpl),
		.mtd_chr = plan.mtd ? plan.mtd_chr : NULL,
		.erase_bytes = plan.mtd_erase_bytes,
		.ubi_num = plan.ubi_num,
	};
	if ((err = make_mountpoint(&run)))
		goto out;
	/* The copy's random data, made before any clock starts. */
	run.data = malloc(plan.copy_size);
	if (!run.data) {
		fsb_err("lifecycle: cannot hold a copy of %llu bytes in memory",
			(unsigned long long)plan.copy_size);
		goto out;
	}
	seed_state = plan.cfg.seed;
	fsb_fill_random(run.data, plan.copy_size, &seed_state);
	run.lc.data = run.data;
	if ((err = open_device(&plan, &run, &size)))
		goto out;
	run.lc.mkfs_argv = run.mkfs_argv;
	if (plan.ubi) {
		for (size_t i = 0; i < 3; i++) {
			run.lc.ubi_paths[i] = plan.ubi_paths[i];
			run.lc.ubi_argv[i] = plan.ubi_argv[i];
		}
		run.lc.mount_src = plan.mount_src;
	}
	if ((err = fsb_lc_fill(&run.lc)))
		goto out;
	if (fsb_result_init(&res, "lifecycle") || fill_result(&plan, &run, size, &res)) {
		fsb_err("lifecycle: out of memory");
		goto out;
	}
	if ((err = run_phases(&plan, &run, &res)))
		goto out;
	if (run.state.erase_checked &&
	    (fsb_result_param_u64(&res, "erase_blocks", run.state.erase_blocks) ||
	     fsb_result_param_u64(&res, "erase_blocks_left_by_umount",
				  run.state.erase_unfinished))) {
		fsb_err("lifecycle: out of memory");
		goto out;
	}
	/* Release before printing: the report is only shown when every
	 * mount is undone and the loop device is gone. */
	if (fsb_lc_unmount(&run.lc) || fsb_lc_ubi_detach(&run.lc))
		goto out;
	if (fsb_loopdev_detach(&run.loop))
		goto out;
	rc = fsb_writer_output(plan.writer, &res, &plan.out) ? FSB_EXIT_FAIL : FSB_EXIT_OK;
out:
	release(&run, rc != FSB_EXIT_OK);
	if (fsb_stop_requested())
		rc = 128 + fsb_stop_signo();
	fsb_words_free(plan.mkfs_words);
	fsb_output_release(&plan.out);
	fsb_result_release(&res);
	return rc;
}
