/*
 * Making filesystems: a --mkfs template ("mkfs.xfs -f -b size=1024 {dev}")
 * is split into words (fsb_words_split, util/spawn.h: no shell), its
 * placeholders replaced by the devices made for it, checked to name no
 * other block device, and run with fork+exec (fsb_tool_run: it dies with
 * fsbench, its stderr shown under fsbench's own one-line error).
 */
#ifndef FSB_DEVICE_MKFS_H
#define FSB_DEVICE_MKFS_H
#include <stddef.h>

/* The most devices a template names ({dev1} .. {dev8}): a matrix setup's. */
#define FSB_MKFS_MAX_DEVICES 8

/*
 * Replace placeholders in every word: {dev} = the first device, {devN} =
 * the N-th (1-based), {devs} = all of them: as separate words when it is
 * the whole word, joined with spaces inside a longer word. Other braces are
 * kept. Pure. Returns the new word count and a new vector in *out (free
 * with fsb_words_free), or -EINVAL with *why set (a {devN} beyond ndevs,
 * no device given), -ENOMEM.
 */
int fsb_mkfs_expand(char *const *words, const char *const *devs, size_t ndevs, char ***out,
		    const char **why);

/*
 * A template may name only the devices fsbench made for it, through its
 * placeholders. Check every word of argv (an expanded template) and the
 * parts of it a tool could take as a path: after '=' ("--device=/dev/sda",
 * "logdev=/dev/sdb"), each of its ','-separated pieces, and after the
 * letters of a short option ("-d/dev/sda"). A part that stat(2) resolves
 * to a block device (after following symlinks: /dev/disk/by-*, /dev/mapper,
 * relative paths) must be one of devs[0..ndevs) (compared by device
 * number). Returns 0, or -EPERM with why set to "'WORD' names block device
 * 'PART', which fsbench did not make for it: name devices with {dev},
 * {devN} or {devs}".
 */
int fsb_mkfs_check_devices(char *const *argv, const char *const *devs, size_t ndevs, char *why,
			   size_t len);

/*
 * The same check on a template before any device exists: its placeholders
 * are replaced by names that resolve to nothing, so every block device it
 * names is one it may not name. A template that does not split or expand
 * passes (the caller reports that its own way); "none" passes. Returns 0
 * or -EPERM with why set as for fsb_mkfs_check_devices.
 */
int fsb_mkfs_check_template(const char *tmpl, char *why, size_t len);

/*
 * How many of n devices (1 to FSB_MKFS_MAX_DEVICES) the template names, by
 * expanding it with stand-ins (a setup on 2 devices whose template says
 * only {dev} leaves one unused). Pure. Returns the count, or -EINVAL with
 * *why set.
 */
int fsb_mkfs_template_devices(const char *tmpl, size_t n, const char **why);

/*
 * The default template for a filesystem type, written to buf:
 * "mkfs.ext4 -q -F {dev}" for ext2/3/4, "mkfs.xfs -q -f {dev}",
 * "mkfs.btrfs -q -f {dev}", "mkfs.TYPE {dev}" otherwise. Pure.
 * Returns 0 or -ENAMETOOLONG.
 */
int fsb_mkfs_default_template(const char *fs_type, char *buf, size_t len);

/* True for the template "none": the filesystem formats itself on first
 * mount (JFFS2 on erased flash), so there is no mkfs step. */
int fsb_mkfs_is_none(const char *tmpl);

/*
 * Run an mkfs program (or one of the tools that make a filesystem on
 * flash) as fsb_tool_run does: "fsbench: mkfs failed: ..." on failure.
 * Returns 0, -EINTR, -EIO (the tool failed) or -errno.
 */
int fsb_mkfs_run(const char *path, char *const *argv);

#endif
