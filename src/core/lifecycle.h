/*
 * The lifecycle plan and its executor: mkfs, first mount, umount,
 * mount/umount, cold copy and cold read on a block device (the benchmark
 * of docs/references.md's flash lifecycle report): a loop device over an
 * image file, a device, or emulated flash (MTD) over a device.
 */
#ifndef FSB_CORE_LIFECYCLE_H
#define FSB_CORE_LIFECYCLE_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/plan.h"
#include "report/result.h"
#include "util/error.h"
#include "util/modes.h"
#include "workloads/lifecycle.h"
#include "workloads/workload.h"

#define FSB_LC_MAX_PHASES 8
/* Runs of the mkfs phases when --repeat is not given (mkfs is slow). */
#define FSB_LC_MKFS_REPEAT 3
/* The copy is written and read in 1 MiB calls, the order of what cp(1) uses. */
#define FSB_LC_IO_BYTES (1u << 20)
/* The copy is held in memory: absurd sizes are refused up front. */
#define FSB_LC_MAX_COPY (4ull << 30)

/* What `fsbench lifecycle` will do. Strings are borrowed (argv, a matrix file). */
struct fsb_lc_plan {
	struct fsb_config cfg; /* repeat (default 12), seed, label (NULL: fs_type) */
	bool seed_set, repeat_set;
	const char *fs_type;	/* --fs: what mkfs makes */
	const char *mount_type; /* --type: what mount(2) is told; NULL: fs_type */
	const char *options;	/* --options: mount options; NULL: none */
	const char *mkfs_tmpl;	/* --mkfs; NULL: the type's default (fsb_lc_plan_mkfs) */
	/* The target: exactly one of these (fsb_lc_plan_check says so). */
	const char *image;   /* --image PATH */
	const char *device;  /* --device DEV */
	const char *mtd;     /* --mtd DEV,ERASESIZE, as given */
	bool device_later;   /* the device is given at execution (a matrix setup) */
	uint64_t image_size; /* --image-size; 0: the image's own */
	uint64_t copy_size;  /* --copy-size (default 16m) */
	bool destroy_data;
	bool fill_set, refill_set, pre_erase;
	enum fsb_fill fill;	   /* default: 0xff for an image, none for a device */
	enum fsb_lc_refill refill; /* used when refill_set */
	const char *phases;	   /* --phases as given; NULL: all */
	enum fsb_progress progress;
	bool quiet;
	const char *progress_prefix; /* before each progress line; NULL: none */
	/* --no-device-capability: the raw device is not measured. */
	bool no_devcap;
	/* Measured already (the matrix, before the images' fill) with its
	 * "device_capability" param: copied instead of measuring. */
	const struct fsb_devcap *devcap;
	const char *devcap_param;
	/* Resolved by fsb_lc_plan_check. */
	const struct fsb_workload_ops *ops[FSB_LC_MAX_PHASES];
	size_t nops;
	char mkfs_default[256];	  /* the type's default template */
	char mtd_dev[PATH_MAX];	  /* --mtd's DEV */
	uint64_t mtd_erase_bytes; /* --mtd's ERASESIZE */
	bool ubi;		  /* ubifs on --mtd: the UBI tools are its mkfs */
};

/* The defaults: 12 runs (mkfs phases 3), a 16 MiB copy, cache drop. */
void fsb_lc_plan_init(struct fsb_lc_plan *p);

/* What --phases may name: "mkfs|mkfs-mount|...|read|all" (util/vocab.h). Static. */
const char *fsb_lc_phase_names(void);

/*
 * The checks across options, and what follows from them: --fs given and a
 * type name, one target, --pre-erase and --fill with --mtd, jffs2 on flash
 * made by its first mount (--mkfs none), ubifs on flash made by the UBI
 * tools, the fill's default, the mkfs template split and its placeholders
 * tried (a word naming a block device is refused: fsb_mkfs_check_template),
 * the phases resolved. Pure but for the template check's stat(2) of words
 * that look like paths. Returns 0, or -EINVAL after one line (a usage
 * error).
 */
int fsb_lc_plan_check(struct fsb_lc_plan *p);

/* --mtd DEV,ERASESIZE: the target is flash over DEV. 0, or -EINVAL (not
 * described) for a malformed spec. Pure. */
int fsb_lc_plan_mtd(struct fsb_lc_plan *p, const char *spec);

/* The mkfs template the plan uses: --mkfs, else the type's default. */
const char *fsb_lc_plan_mkfs(const struct fsb_lc_plan *p);

/* The block device whose rules apply: --device, or the disk under --mtd. */
const char *fsb_lc_plan_device(const struct fsb_lc_plan *p);

/*
 * Run the plan: refuse, before anything is written, what cannot work
 * (root, the kernel's type, the mkfs tool, the image or device rules of
 * device/image.h, sizes); then a mountpoint in a scratch directory under
 * dir (NULL: $TMPDIR, else /tmp), the image and its loop device (or the
 * device, or the MTD device), the fill, every phase through the runner;
 * then always, in reverse order: umount, detach, close, remove. res
 * (zeroed by the caller, who releases it) becomes a "lifecycle" document.
 * The first error described is also kept in e (may be NULL). Returns 0,
 * -EINTR when a stop signal ended it, or -errno.
 */
int fsb_lc_execute(const struct fsb_lc_plan *p, const char *dir, struct fsb_result *res,
		   struct fsb_error *e);

#endif
