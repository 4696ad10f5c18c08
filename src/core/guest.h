/*
 * The guest plan and its executor (fsbench guest, and matrix setups with
 * guest = yes): one fsbench command run inside a QEMU guest booted from a
 * distribution kernel, for filesystems the host kernel lacks. Also what a
 * guest needs to run that command: kernel modules and tools (decided from
 * the command's own arguments, pure), where the kernel is, the guest's
 * init, and the cached initramfs that holds all of it.
 * The QEMU side is src/device/qemu.h; the cpio side src/device/initramfs.h.
 */
#ifndef FSB_CORE_GUEST_H
#define FSB_CORE_GUEST_H
#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "device/fill.h"
#include "device/initramfs.h"
#include "device/qemu.h"
#include "report/result.h"
#include "util/error.h"

#define FSB_GUEST_MAX_NEEDS 32

struct fsb_guest_needs {
	const char *modules[FSB_GUEST_MAX_NEEDS]; /* module names, static strings */
	size_t nmodules;
	const char *tools[FSB_GUEST_MAX_NEEDS]; /* program names or paths */
	size_t ntools;
	bool optional[FSB_GUEST_MAX_NEEDS]; /* tools[i] may be absent on the host */
};

/*
 * Add a module or a tool once (strings are not copied: static or owned by
 * argv). 0, or -E2BIG when the list is full.
 */
int fsb_guest_need_module(struct fsb_guest_needs *n, const char *name);
int fsb_guest_need_tool(struct fsb_guest_needs *n, const char *name, bool optional);

/*
 * What `fsbench ARGV...` needs in the guest, from its arguments: virtio
 * disks always; the module of every --fs/--type (ext2 and ext3 are ext4's;
 * ubifs brings ubi and zstd; known soft dependencies such as ext4's
 * crc32c_generic are added); mtd, block2mtd and mtdblock for --mtd; the
 * mkfs tool of each type and of --mkfs; flash_erase for --mtd, and the
 * UBI tools for ubifs. argv[0] is the command word. Pure.
 * Returns 0 or -E2BIG.
 */
int fsb_guest_needs_for(int argc, char *const *argv, struct fsb_guest_needs *n);

/* The Debian package that ships a tool ("mtd-utils" for flash_erase), or NULL. */
const char *fsb_guest_tool_package(const char *tool);

/*
 * The shell script (for the guest's /guest/cmd.sh) that sets the positional
 * parameters to argv, each word single-quoted. Pure. Returns a malloc'ed
 * string or NULL (ENOMEM).
 */
char *fsb_guest_cmd_script(int argc, char *const *argv);

/*
 * Add what a filesystem made and mounted before the command needs (guest
 * --fs TYPE --mkfs TEMPLATE): TYPE's modules and tools, and the program
 * the template names. 0 or -E2BIG.
 */
int fsb_guest_needs_add_fs(struct fsb_guest_needs *n, const char *type, const char *mkfs);

/* The guest's /init (busybox sh). Static text. */
const char *fsb_guest_init_script(void);

/* Where a kernel to boot is, and its release ("6.1.0-57-amd64"). */
struct fsb_guest_kernel {
	char kernel[4096];
	char moddir[4096]; /* holds modules.dep */
	char release[256];
};

/*
 * The kernel cache `make guest-kernel` fills:
 * $XDG_CACHE_HOME/fsbench/kernel, else $HOME/.cache/fsbench/kernel.
 * Writes it to out; returns 0 or -ENAMETOOLONG.
 */
int fsb_guest_kernel_cache(char *out, size_t len);

/*
 * Find the kernel: --kernel/--modules when given (either may be NULL);
 * else the running kernel's /boot/vmlinuz-$(uname -r) and
 * /lib/modules/$(uname -r) when both exist; else the newest kernel in the
 * cache. Checks that the files exist and modules.dep is there. Returns 0 or
 * -ENOENT after a one-line error saying what to install or run.
 */
int fsb_guest_find_kernel(const char *kernel_opt, const char *modules_opt,
			  struct fsb_guest_kernel *k);

/* What goes into an initramfs: every path already resolved on the host. */
struct fsb_guest_inputs {
	const char *busybox;	  /* a static busybox */
	const char *fsbench;	  /* this program */
	const char *const *tools; /* host paths; stored at the same path */
	size_t ntools;
	const char *moddir;   /* the kernel's modules directory */
	char *const *modules; /* paths relative to moddir, load order */
	size_t nmodules;
	bool with_libs; /* add ldd's libraries (false in tests) */
};

/*
 * Fill fs (initialised by the caller) with the guest's tree: /init,
 * /bin/busybox, /bin/fsbench, the tools, /lib/modules/<path> for each
 * module, /guest/modules (their load order), /dev/console and the mount
 * points, then fsb_irfs_finish. Returns 0 or -errno (described).
 */
int fsb_guest_irfs_fill(struct fsb_irfs *fs, const struct fsb_guest_inputs *in);

/*
 * The cached initramfs for fs: cache_dir/initramfs-<hash>.cpio, written
 * (atomically) only when no file of that name exists. *built says whether
 * it was written now. Returns 0 or -errno (described).
 */
int fsb_guest_irfs_cached(const struct fsb_irfs *fs, const char *cache_dir, char *out, size_t len,
			  bool *built);

/*
 * A --disk value: "SIZE[,fill=0xff|zero|none]" (default fill 0xff, erased
 * flash), SIZE with k/m/g suffixes, at least 1 MiB and a whole number of
 * sectors. Pure. 0 or -EINVAL.
 */
int fsb_guest_disk_parse(const char *spec, uint64_t *size_bytes, enum fsb_fill *fill);

/* What `fsbench guest` will do. Strings are borrowed (argv, a matrix file). */
struct fsb_guest_plan {
	const char *kernel;			 /* --kernel; NULL: found (fsb_guest_find_kernel) */
	const char *modules;			 /* --modules; NULL: the kernel's */
	const char *accel;			 /* auto (default), kvm, tcg */
	uint64_t disk_bytes[FSB_QEMU_MAX_DISKS]; /* --disk: fresh images, /dev/vda... */
	enum fsb_fill disk_fill[FSB_QEMU_MAX_DISKS];
	size_t ndisks;
	uint64_t memory_bytes; /* default 1 GiB */
	uint64_t timeout_ns;   /* --guest-timeout, default 600 s */
	unsigned cpus;	       /* default 1 */
	bool console;	       /* copy the guest's console to stderr */
	/* The command the guest runs: "run" or "lifecycle" and its words (the
	 * host adds --format json, the result file and --progress never). */
	int cmd_argc;
	char *const *cmd_argv;
	/* --fs: a filesystem made with mkfs (NULL: the type's default) on
	 * /dev/vda and mounted with options before run, which measures it. */
	const char *fs, *mkfs, *options;
	char mkfs_default[256];
};

/* The defaults: accel auto, 1 GiB, 1 CPU, 600 s, no disks, no command. */
void fsb_guest_plan_init(struct fsb_guest_plan *p);

/*
 * The checks across options: a command (run or lifecycle), --fs only with
 * run and a disk, --mkfs and --options only with --fs, the template split
 * and expanded for /dev/vda. Pure. 0, or -EINVAL after one line.
 */
int fsb_guest_plan_check(struct fsb_guest_plan *p);

/* The commands a guest runs: "run|lifecycle" (util/vocab.h). Static. */
const char *fsb_guest_commands(void);

/*
 * Run the plan: qemu, the kernel, its modules and every tool the command
 * needs found (or one line naming what to install, nothing booted), the
 * initramfs from the cache or built into it, a scratch directory under
 * dir (NULL: $TMPDIR, else /tmp) with this boot's initrd, the disks and
 * the result file; the boot, watched (timeout, panic, a stop signal);
 * then the guest's result checked, marked as a guest's ("(guest, tcg)" in
 * host.kernel, guest_* params) into res (zeroed by the caller, who
 * releases it). QEMU is always reaped and the scratch directory removed.
 * The first error described is also kept in e (may be NULL). Returns 0,
 * -EINTR when a stop signal ended it, or -errno.
 */
int fsb_guest_execute(const struct fsb_guest_plan *p, const char *dir, struct fsb_result *res,
		      struct fsb_error *e);

#endif
