/*
 * What a guest needs to run one fsbench command: kernel modules and tools
 * (decided from the command's own arguments, pure), where the kernel is,
 * the guest's init, and the cached initramfs that holds all of it.
 * The QEMU side is src/device/qemu.h; the cpio side src/device/initramfs.h.
 */
#ifndef FSB_CORE_GUEST_H
#define FSB_CORE_GUEST_H
#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "device/fill.h"
#include "device/initramfs.h"

#define FSB_GUEST_MAX_NEEDS 32

struct fsb_guest_needs {
	const char *modules[FSB_GUEST_MAX_NEEDS];   /* module names, static strings */
	size_t nmodules;
	const char *tools[FSB_GUEST_MAX_NEEDS];     /* program names or paths */
	size_t ntools;
	bool optional[FSB_GUEST_MAX_NEEDS];         /* tools[i] may be absent on the host */
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
	char moddir[4096];     /* holds modules.dep */
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
	const char *busybox;          /* a static busybox */
	const char *fsbench;          /* this program */
	const char *const *tools;     /* host paths; stored at the same path */
	size_t ntools;
	const char *moddir;           /* the kernel's modules directory */
	char *const *modules;         /* paths relative to moddir, load order */
	size_t nmodules;
	bool with_libs;               /* add ldd's libraries (false in tests) */
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
int fsb_guest_irfs_cached(const struct fsb_irfs *fs, const char *cache_dir, char *out,
			  size_t len, bool *built);

/*
 * A --disk value: "SIZE[,fill=0xff|zero|none]" (default fill 0xff, erased
 * flash), SIZE with k/m/g suffixes, at least 1 MiB and a whole number of
 * sectors. Pure. 0 or -EINVAL.
 */
int fsb_guest_disk_parse(const char *spec, uint64_t *size_bytes, enum fsb_fill *fill);

#endif
