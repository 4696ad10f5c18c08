/*
 * fsbench lifecycle's executor (core/lifecycle.h).
 *
 * Order of business, so that nothing is written before every check passed:
 *   1. checks that read only: root, the kernel knows the type, the mkfs
 *      tool exists, sizes, the --device safety rules;
 *   2. scratch mountpoint, random data, image + loop device (or the
 *      device), first fill;
 *   3. the phases, through the runner;
 *   4. always, in reverse order: umount, close, detach, remove scratch.
 * A signal only sets a flag (src/util/signals.c); every loop polls it and
 * unwinds through step 4; the caller turns that into 128 + signo.
 */
#include "core/lifecycle.h"
#include "core/devcap.h"
#include "core/env.h"
#include "core/runner.h"
#include "device/diskstat.h"
#include "device/fill.h"
#include "device/image.h"
#include "device/loop.h"
#include "device/mkfs.h"
#include "device/mount.h"
#include "device/mtd.h"
#include "device/probe.h"
#include "stats/clock.h"
#include "util/marker.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/size.h"
#include "util/spawn.h"
#include "workloads/pattern.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the run decided and holds; released in reverse order of acquisition. */
struct lc_run {
	const struct fsb_lc_plan *p;
	const char *device;	  /* the block device (after --mtd: /dev/mtdblockN) */
	const char *mkfs;	  /* the template, as recorded */
	char **mkfs_words;	  /* the template split, placeholders kept */
	char mkfs_path[PATH_MAX]; /* the program, found before anything is written */
	char mtd_chr[64], mtd_blk[64];
	char erase_path[PATH_MAX];
	char *erase_argv[8];
	char ubi_paths[3][PATH_MAX];
	char *ubi_argv[3][8];
	char ubi_words[4][64]; /* mtd index, ubi number, ubi device, volume */
	char mount_src[64];
	char ubi_tmpl[256]; /* the three commands as run, for the record */
	int ubi_num;
	uint64_t size; /* of the device */
	uint64_t seed; /* --seed, or drawn */
	char scratch[PATH_MAX];
	char mnt[PATH_MAX];
	bool scratch_made;
	unsigned char *data;
	struct fsb_image image; /* --image: open and locked from the checks on */
	int lock_fd;		/* --device, --mtd: the device node, locked */
	struct fsb_loopdev loop;
	int dev_fd;   /* --device only; image mode uses loop.fd */
	int lower_fd; /* --mtd: the disk under the flash */
	char **mkfs_argv;
	struct fsb_lc_state state;
	struct fsb_lifecycle lc;
	char statpath[PATH_MAX];
};

/* ---- checks that only read (nothing written yet) ---- */

/*
 * Claim the image (open, lock, the rules of src/device/image.h); a missing
 * one is created later, by open_device. A filled image is fully
 * allocated: the space is checked up front.
 */
static int check_image(struct lc_run *run)
{
	const struct fsb_lc_plan *p = run->p;
	int err;

	if ((err = fsb_image_claim(&run->image, p->image, p->image_size, p->destroy_data)))
		return err;
	run->size = run->image.size_bytes;
	if (p->fill != FSB_FILL_NONE)
		return fsb_image_check_space(&run->image);
	return 0;
}

/* Whether the phases selected copy data (write, read). */
static bool copies(const struct fsb_lc_plan *p)
{
	for (size_t i = 0; i < p->nops; i++)
		if (!strcmp(p->ops[i]->name, "write") || !strcmp(p->ops[i]->name, "read"))
			return true;
	return false;
}

static int check_sizes(const struct lc_run *run)
{
	const struct fsb_lc_plan *p = run->p;
	uint64_t min = fsb_probe_min_size(p->fs_type);
	const char *what = p->image ? p->image : run->device;
	char a[32], b[32];

	/* A custom --mkfs may make smaller filesystems (btrfs --mixed). */
	if (!p->mkfs_tmpl && run->size < min) {
		fsb_err("lifecycle: '%s' is %s, smaller than the %s minimum of %s", what,
			fsb_size_format_human(run->size, a, sizeof(a)), p->fs_type,
			fsb_size_format_human(min, b, sizeof(b)));
		return -EINVAL;
	}
	if (p->ubi && run->size < 64 * p->mtd_erase_bytes) {
		fsb_err("lifecycle: '%s' is %s: UBI wants at least 64 erase blocks", what,
			fsb_size_format_human(run->size, a, sizeof(a)));
		return -EINVAL;
	}
	if (copies(p) && p->copy_size >= run->size) {
		fsb_err("lifecycle: a copy of %s cannot fit on '%s' of %s",
			fsb_size_format_human(p->copy_size, a, sizeof(a)), what,
			fsb_size_format_human(run->size, b, sizeof(b)));
		return -EINVAL;
	}
	return 0;
}

/*
 * UBIFS on the MTD device mtdN: UBI device N (so two flashes never clash),
 * volume "fsbench" of all the space, mounted as ubiN:fsbench.
 */
static int plan_ubi(struct lc_run *run)
{
	static const char *const tools[3] = { "ubiformat", "ubiattach", "ubimkvol" };
	char(*w)[64] = run->ubi_words;

	if (sscanf(run->mtd_chr, "/dev/mtd%d", &run->ubi_num) != 1)
		return -EINVAL;
	for (size_t i = 0; i < 3; i++) {
		if (fsb_which(tools[i], run->ubi_paths[i], sizeof(run->ubi_paths[i]))) {
			fsb_err("lifecycle: --fs ubifs needs '%s' (package mtd-utils)", tools[i]);
			return -ENOENT;
		}
	}
	snprintf(w[0], sizeof(w[0]), "%d", run->ubi_num);
	snprintf(w[1], sizeof(w[1]), "%d", run->ubi_num);
	snprintf(w[2], sizeof(w[2]), "/dev/ubi%d", run->ubi_num);
	snprintf(w[3], sizeof(w[3]), "fsbench");
	snprintf(run->mount_src, sizeof(run->mount_src), "ubi%d:fsbench", run->ubi_num);
	snprintf(run->ubi_tmpl, sizeof(run->ubi_tmpl),
		 "ubiformat -y -q %s; ubiattach -m %d -d %d; ubimkvol /dev/ubi%d -N fsbench -m",
		 run->mtd_chr, run->ubi_num, run->ubi_num, run->ubi_num);
	run->mkfs = run->ubi_tmpl;
	memcpy(run->ubi_argv[0], (char *[]){ "ubiformat", "-y", "-q", run->mtd_chr, NULL },
	       5 * sizeof(char *));
	memcpy(run->ubi_argv[1], (char *[]){ "ubiattach", "-m", w[0], "-d", w[1], NULL },
	       6 * sizeof(char *));
	memcpy(run->ubi_argv[2], (char *[]){ "ubimkvol", w[2], "-N", w[3], "-m", NULL },
	       6 * sizeof(char *));
	return 0;
}

/*
 * --mtd: flash_erase found first, then the MTD device made over the disk
 * (the last check, since it is the first thing that changes the system);
 * from here on the device is /dev/mtdblockN.
 */
static int attach_mtd(struct lc_run *run)
{
	const struct fsb_lc_plan *p = run->p;
	size_t n = 0;
	int err;

	if (fsb_which("flash_erase", run->erase_path, sizeof(run->erase_path))) {
		fsb_err("lifecycle: --mtd needs 'flash_erase' (package mtd-utils)");
		return -ENOENT;
	}
	if ((err = fsb_mtd_attach(p->mtd_dev, p->mtd_erase_bytes, run->mtd_chr,
				  sizeof(run->mtd_chr), run->mtd_blk, sizeof(run->mtd_blk))))
		return err;
	run->erase_argv[n++] = "flash_erase";
	run->erase_argv[n++] = "-q";
	if (p->pre_erase)
		run->erase_argv[n++] = "-j";
	run->erase_argv[n++] = run->mtd_chr;
	run->erase_argv[n++] = "0";
	run->erase_argv[n++] = "0";
	run->erase_argv[n] = NULL;
	run->device = run->mtd_blk;
	return p->ubi ? plan_ubi(run) : 0;
}

static int preflight(struct lc_run *run)
{
	const struct fsb_lc_plan *p = run->p;
	const char *why;
	int err;

	if (!p->image && !run->device) {
		fsb_err("lifecycle: no device to work on");
		return -EINVAL;
	}
	/* The phases need root, a block device and to mount it: we have both. */
	if ((err = fsb_runner_check_needs(
		     p->ops, p->nops, fsb_runner_have() | FSB_NEEDS_BLOCKDEV | FSB_NEEDS_MOUNT)))
		return err;
	if ((err = fsb_mount_fs_supported(p->mount_type)))
		return err;
	if (!p->ubi && !fsb_mkfs_is_none(run->mkfs)) {
		if (fsb_words_split(run->mkfs, &run->mkfs_words, &why) < 0) {
			fsb_err("invalid --mkfs '%s': %s", run->mkfs, why);
			return -EINVAL;
		}
		if (fsb_which(run->mkfs_words[0], run->mkfs_path, sizeof(run->mkfs_path))) {
			fsb_err("lifecycle: mkfs program '%s' not found (in PATH, /sbin, /usr/sbin)",
				run->mkfs_words[0]);
			return -ENOENT;
		}
	}
	err = p->image ? check_image(run)
		       : fsb_image_claim_device(run->device, p->destroy_data, &run->lock_fd,
						&run->size);
	if (err || (err = check_sizes(run)))
		return err;
	if (p->mtd)
		return attach_mtd(run);
	return 0;
}

/* ---- the run ---- */

static const char *refill_name(enum fsb_lc_refill r)
{
	return r == FSB_LC_REFILL_EACH ? "each" : "once";
}

static int fill_result(const struct lc_run *run, struct fsb_result *r)
{
	const struct fsb_lc_plan *p = run->p;
	const struct fsb_lifecycle *lc = &run->lc;
	char list[256] = "", argvs[2048] = "", data[32];
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
		err |= fsb_result_param_str(r, "mtd_device", run->mtd_chr);
		err |= fsb_result_param_u64(r, "erase_bytes", p->mtd_erase_bytes);
		err |= fsb_result_param_bool(r, "pre_erase", p->pre_erase);
		err |= fsb_result_param_bool(r, "erase_in_umount", lc->wait_erase);
		if (p->ubi)
			err |= fsb_result_param_str(r, "ubi_volume", run->mount_src);
	}
	if (p->image) {
		err |= fsb_result_param_str(r, "image", p->image);
		err |= fsb_result_param_bool(r, "direct_io", run->loop.direct_io);
	}
	err |= fsb_result_param_u64(r, "device_bytes", run->size);
	err |= fsb_result_param_str(r, "mount_type", p->mount_type);
	err |= fsb_result_param_str(r, "mkfs", run->mkfs);
	err |= fsb_result_param_str(r, "mkfs_argv", argvs);
	err |= fsb_result_param_u64(r, "copy_size_bytes", p->copy_size);
	err |= fsb_result_param_u64(r, "io_bytes", FSB_LC_IO_BYTES);
	err |= fsb_result_param_u64(r, "repeat", p->cfg.repeat);
	err |= fsb_result_param_u64(r, "mkfs_repeat",
				    p->repeat_set ? p->cfg.repeat : FSB_LC_MKFS_REPEAT);
	err |= fsb_result_param_str(r, "refill_mkfs", refill_name(lc->refill_mkfs));
	err |= fsb_result_param_str(r, "refill", refill_name(lc->refill_other));
	err |= fsb_result_param_u64(r, "seed", run->seed);
	err |= fsb_result_param_str(r, "data", fsb_data_format(&p->cfg.data, data, sizeof(data)));
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

/* The mountpoint: an empty directory in a scratch dir of our own under dir. */
static int make_mountpoint(struct lc_run *run, const char *dir)
{
	char real[PATH_MAX];
	int err;

	err = fsb_scratch_create(dir, run->scratch, sizeof(run->scratch));
	if (err) {
		fsb_err_errno(err, "lifecycle: cannot create a scratch directory in '%s'", dir);
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
static int open_device(struct lc_run *run)
{
	const struct fsb_lc_plan *p = run->p;
	const char *devs[1];
	char refusal[PATH_MAX + 256];
	const char *why;
	uint64_t size;
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
				 "before every phase instead",
				 run->loop.path, p->image);
		run->lc.dev = run->loop.path;
		run->lc.dev_fd = run->loop.fd;
		run->lc.image_fd = run->loop.direct_io ? -1 : run->image.fd;
	} else {
		run->dev_fd = open(run->device, O_RDWR | O_CLOEXEC);
		if (run->dev_fd < 0) {
			err = -errno;
			fsb_err_errno(err, "lifecycle: cannot open device '%s'", run->device);
			return err;
		}
		run->lc.dev = run->device;
		run->lc.dev_fd = run->dev_fd;
		run->lc.image_fd = -1;
	}
	if ((err = fsb_blockdev_size(run->lc.dev_fd, &size))) {
		fsb_err_errno(err, "lifecycle: cannot get the size of '%s'", run->lc.dev);
		return err;
	}
	run->size = run->lc.dev_bytes = size;
	if (run->mkfs_words) {
		devs[0] = run->lc.dev;
		err = fsb_mkfs_expand(run->mkfs_words, devs, 1, &run->mkfs_argv, &why);
		if (err < 0) {
			fsb_err("invalid --mkfs '%s': %s", run->mkfs, why);
			return err;
		}
		if ((err = fsb_mkfs_check_devices(run->mkfs_argv, devs, 1, refusal,
						  sizeof(refusal)))) {
			fsb_err("invalid --mkfs '%s': %s", run->mkfs, refusal);
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
	fsb_words_free(run->mkfs_words);
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

static int run_phases(const struct lc_run *run, const struct fsb_config *cfg,
		      struct fsb_result *res)
{
	const struct fsb_lc_plan *p = run->p;
	struct fsb_config cfg_mkfs = *cfg;
	struct fsb_runner rn = {
		.cfg = cfg,
		.dir = run->scratch,
		.ext = &run->lc,
		.diskstat_path = run->statpath[0] ? run->statpath : NULL,
	};
	struct fsb_runner rn_mkfs;
	struct fsb_prog prog;
	int err = 0;

	fsb_prog_init(&prog, p->progress, p->quiet, p->progress_prefix, p->nops, cfg->repeat,
		      (double)cfg->min_time_ns / 1e9, fsb_clock_ns());
	rn.prog = &prog;
	rn_mkfs = rn;
	cfg_mkfs.repeat = p->repeat_set ? cfg->repeat : FSB_LC_MKFS_REPEAT;
	rn_mkfs.cfg = &cfg_mkfs;
	if (prog.on)
		fsb_progress_timer_start(250);
	for (size_t i = 0; i < p->nops && !err; i++) {
		bool mkfs_phase = !strncmp(p->ops[i]->name, "mkfs", 4);

		err = fsb_runner_measure(mkfs_phase ? &rn_mkfs : &rn, p->ops[i], res);
		if (!err && fsb_stop_requested())
			err = -EINTR;
	}
	if (prog.on)
		fsb_progress_timer_stop();
	fsb_prog_done(&prog, err, fsb_clock_ns());
	return err;
}

/*
 * The raw device's capability, before the fill so that the device is left
 * in the fill's state (0xff: erased flash). Writes only where the device
 * is fsbench's to overwrite (an image, or --destroy-data) and a fill
 * follows to give it a known content again; read-only otherwise. Flash
 * (MTD, UBI) is not measured: its block device is an emulation layer.
 */
static int measure_device(const struct lc_run *run, struct fsb_result *res)
{
	const struct fsb_lc_plan *p = run->p;
	bool write = (p->image || p->destroy_data) && p->fill != FSB_FILL_NONE;

	if (p->devcap)
		return fsb_devcap_copy(res, p->devcap, p->devcap_param ? p->devcap_param : "on")
			       ? -ENOMEM
			       : 0;
	if (p->no_devcap)
		return fsb_devcap_record(res, NULL, false, "off: --no-device-capability");
	if (p->mtd)
		return fsb_devcap_record(res, NULL, false,
					 "off: flash (MTD/UBI): the block device is an "
					 "emulation layer, not what the filesystem uses");
	return fsb_devcap_record(res, run->lc.dev, write, NULL);
}

/* From the mountpoint on: everything made here is released by the caller. */
static int work(struct lc_run *run, const char *dir, const struct fsb_config *cfg,
		struct fsb_result *res)
{
	const struct fsb_lc_plan *p = run->p;
	struct fsb_pattern pat = { 0 };
	int err;

	run->lc = (struct fsb_lifecycle){
		.mnt = run->mnt,
		.mount_type = p->mount_type,
		.options = p->options,
		.mkfs_path = run->mkfs_words ? run->mkfs_path : NULL,
		.fill = p->fill,
		.fill_seed = cfg->seed ^ 0x66696c6cull, /* "fill" */
		.refill_mkfs = p->refill_set ? p->refill : FSB_LC_REFILL_EACH,
		.refill_other = p->refill_set ? p->refill : FSB_LC_REFILL_ONCE,
		.copy_bytes = p->copy_size,
		.io_bytes = FSB_LC_IO_BYTES,
		.dev_fd = -1,
		.image_fd = -1,
		.lower_fd = -1,
		.state = &run->state,
		.erase_path = p->mtd ? run->erase_path : NULL,
		.erase_argv = p->mtd ? run->erase_argv : NULL,
		.wait_erase = p->mtd && !p->pre_erase && fsb_mkfs_is_none(run->mkfs),
		.mtd_chr = p->mtd ? run->mtd_chr : NULL,
		.erase_bytes = p->mtd_erase_bytes,
		.ubi_num = run->ubi_num,
	};
	if ((err = make_mountpoint(run, dir)))
		return err;
	/* The copy's data (--data), made before any clock starts. */
	run->data = malloc(p->copy_size);
	err = run->data ? fsb_pattern_init(&pat, &cfg->data, cfg->seed, FSB_PATTERN_STREAM_CHUNK)
			: -ENOMEM;
	if (err) {
		fsb_pattern_release(&pat);
		fsb_err("lifecycle: cannot hold a copy of %llu bytes in memory",
			(unsigned long long)p->copy_size);
		return -ENOMEM;
	}
	fsb_pattern_bytes(&pat, run->data, 0, 0, p->copy_size);
	fsb_pattern_release(&pat);
	run->lc.data = run->data;
	if ((err = open_device(run)))
		return err;
	run->lc.mkfs_argv = run->mkfs_argv;
	if (p->ubi) {
		for (size_t i = 0; i < 3; i++) {
			run->lc.ubi_paths[i] = run->ubi_paths[i];
			run->lc.ubi_argv[i] = run->ubi_argv[i];
		}
		run->lc.mount_src = run->mount_src;
	}
	if (fsb_result_init(res, "lifecycle") || fill_result(run, res)) {
		fsb_err("lifecycle: out of memory");
		return -ENOMEM;
	}
	{
		const char *slash = strrchr(run->lc.dev, '/');

		if ((err = fsb_env_record(res, slash ? slash + 1 : run->lc.dev)))
			return err;
	}
	if ((err = measure_device(run, res)))
		return err;
	if ((err = fsb_lc_fill(&run->lc)))
		return err;
	if ((err = run_phases(run, cfg, res)))
		return err;
	if (run->state.erase_checked &&
	    (fsb_result_param_u64(res, "erase_blocks", run->state.erase_blocks) ||
	     fsb_result_param_u64(res, "erase_blocks_left_by_umount",
				  run->state.erase_unfinished))) {
		fsb_err("lifecycle: out of memory");
		return -ENOMEM;
	}
	/* Release before the result is shown: it is only shown when every
	 * mount is undone and the loop device is gone. */
	if ((err = fsb_lc_unmount(&run->lc)) || (err = fsb_lc_ubi_detach(&run->lc)))
		return err;
	return fsb_loopdev_detach(&run->loop);
}

int fsb_lc_execute(const struct fsb_lc_plan *p, const char *dir, struct fsb_result *res,
		   struct fsb_error *e)
{
	struct fsb_err_scope scope;
	struct fsb_config cfg = p->cfg;
	const char *tmp = getenv("TMPDIR");
	struct lc_run *run = calloc(1, sizeof(*run));
	int err;

	fsb_err_capture_begin(&scope, e, false);
	if (!run) {
		fsb_err("lifecycle: out of memory");
		return fsb_err_capture_end(&scope, -ENOMEM);
	}
	if (!dir)
		dir = tmp && *tmp ? tmp : "/tmp";
	if (!p->seed_set)
		cfg.seed = fsb_default_seed();
	run->p = p;
	run->seed = cfg.seed;
	run->device = fsb_lc_plan_device(p);
	run->mkfs = fsb_lc_plan_mkfs(p);
	fsb_image_init(&run->image);
	run->lock_fd = -1;
	run->dev_fd = -1;
	run->lower_fd = -1;
	fsb_loopdev_init(&run->loop);
	err = preflight(run);
	if (!err)
		err = work(run, dir, &cfg, res);
	if (!err && fsb_stop_requested())
		err = -EINTR;
	release(run, err != 0);
	free(run);
	return fsb_err_capture_end(&scope, err);
}
