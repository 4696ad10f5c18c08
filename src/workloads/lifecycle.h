/*
 * The lifecycle phases (family "lifecycle"): how long a filesystem takes
 * to be made, mounted and unmounted, and to take in and give back a file
 * from a cold start, on a block device. Each phase is a workload run by
 * fsb_runner_measure(); ctx->ext points to a struct fsb_lifecycle that the
 * `lifecycle` command fills in.
 *
 *   test id        setup (untimed)                      run (timed)
 *   mkfs           refill (policy)                      mkfs
 *   mkfs-mount     [refill] + mkfs unless fresh         first mount
 *   mkfs-umount    [refill] + mkfs unless fresh, mount  umount after it
 *   mount-umount   a filesystem (mkfs if none)          mount + umount
 *   write          a filesystem without the file        mount + copy + fsync + umount
 *   read           the file written                     mount + read + verify + umount
 *
 * Every setup ends by flushing the device's cache (BLKFLSBUF, and the
 * image's host pages when the loop device has no direct I/O), so mounts
 * and reads start cold, as after the reboot of the reference report.
 */
#ifndef FSB_WORKLOADS_LIFECYCLE_H
#define FSB_WORKLOADS_LIFECYCLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/fill.h"
#include "workloads/workload.h"

/* When the device is filled again (--refill). */
enum fsb_lc_refill { FSB_LC_REFILL_ONCE, FSB_LC_REFILL_EACH };

/* What is on the device: kept up to date by the phases. */
enum fsb_lc_dev {
	FSB_LC_UNKNOWN, /* anything (a failed step, --fill none) */
	FSB_LC_BLANK,	/* just filled; nothing written since */
	FSB_LC_FRESH,	/* mkfs done, never mounted */
	FSB_LC_USED,	/* a filesystem that has been mounted */
};

/* Mutable state shared by the phases and the command's cleanup. */
struct fsb_lc_state {
	enum fsb_lc_dev dev;
	bool has_file; /* the copy is on the filesystem, complete */
	bool mounted;  /* the filesystem is mounted on mnt now */
	/* After an mkfs-umount that waited for the erase (wait_erase): erase
	 * blocks checked on the flash, and how many of them still did not
	 * start with a JFFS2 node (a cleanmarker) - erases the umount cut
	 * short. Worst case over the repetitions. */
	uint64_t erase_blocks, erase_unfinished;
	bool erase_checked;
	bool ubi_attached; /* UBI holds the MTD device (ubifs) */
};

/* The command's plan (ctx->ext). Everything is owned by the command. */
struct fsb_lifecycle {
	const char *dev;	/* /dev/loopN or --device */
	int dev_fd;		/* open O_RDWR on dev: fills, cache flush */
	uint64_t dev_bytes;	/* device size: what a fill writes */
	int image_fd;		/* image behind a loop device without
	                               * direct I/O (its host cache is dropped
	                               * too), else -1 */
	const char *mnt;	/* empty mountpoint dir in a scratch dir */
	const char *mount_type; /* --type, default --fs */
	const char *options;	/* --options, or NULL */
	const char *mkfs_path;	/* resolved program, NULL for --mkfs none */
	char *const *mkfs_argv; /* expanded template, argv[0] as written */
	enum fsb_fill fill;
	uint64_t fill_seed;
	enum fsb_lc_refill refill_mkfs;	 /* mkfs, mkfs-mount, mkfs-umount */
	enum fsb_lc_refill refill_other; /* mount-umount, write, read */
	const unsigned char *data;	 /* copy_bytes of --data, made before
	                               * any clock starts */
	uint64_t copy_bytes;		 /* --copy-size */
	size_t io_bytes;		 /* size of each write/read call */
	struct fsb_lc_state *state;
	/* MTD (--mtd): a fill is an erase with this tool (flash_erase, with
	 * -j when pre-erasing for JFFS2's cleanmarkers); NULL otherwise. */
	const char *erase_path;
	char *const *erase_argv;
	/* mkfs-umount waits, inside its clock, for the erase a filesystem
	 * started in the background on its first mount (JFFS2 on blank flash)
	 * to finish before the umount, as the reference's umount did. */
	bool wait_erase;
	/* The MTD character device (/dev/mtdN) and its erase block size, read
	 * after that umount to prove every block was erased; NULL otherwise. */
	const char *mtd_chr;
	uint64_t erase_bytes;
	/* UBIFS on the flash: "mkfs" is these three tools in turn (ubiformat,
	 * ubiattach, ubimkvol), all inside its clock; UBI is detached (ioctl
	 * on /dev/ubi_ctrl) before a refill or another mkfs, and the
	 * filesystem is mounted from mount_src (ubiN:VOLUME), not from dev.
	 * ubi_paths[0] NULL otherwise. */
	const char *ubi_paths[3];
	char *const *ubi_argv[3];
	int ubi_num;
	const char *mount_src;
	/* The disk under the flash (block2mtd keeps its pages in that disk's
	 * cache), flushed too so flash reads start cold; -1 when none. */
	int lower_fd;
};

/* Name of the file the write phase copies and the read phase reads. */
#define FSB_LC_FILE "fsbench.lifecycle.dat"

/* The phases, in report order (also listed in the workload registry). */
extern const struct fsb_workload_ops fsb_wl_lc_mkfs, fsb_wl_lc_mkfs_mount, fsb_wl_lc_mkfs_umount,
	fsb_wl_lc_mount_umount, fsb_wl_lc_write, fsb_wl_lc_read;

/*
 * Bring the device to the state the phases start from: filled with
 * lc->fill (a no-op for none), or erased with lc->erase_argv on MTD.
 * Returns 0 or -errno (described).
 */
int fsb_lc_fill(const struct fsb_lifecycle *lc);

/*
 * Unmount lc->mnt if a phase left it mounted (after an error or a signal).
 * Safe to call at any time; returns 0 or -errno (described).
 */
int fsb_lc_unmount(const struct fsb_lifecycle *lc);

/*
 * Detach UBI from the flash if a UBIFS mkfs attached it (the filesystem
 * must be unmounted). Safe to call at any time; 0 or -errno (described).
 */
int fsb_lc_ubi_detach(const struct fsb_lifecycle *lc);

#endif
