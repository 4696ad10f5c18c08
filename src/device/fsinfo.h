/* What filesystem a path lives on (libmount's view of mountinfo). */
#ifndef FSB_DEVICE_FSINFO_H
#define FSB_DEVICE_FSINFO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fsb_fsinfo {
	char fs_type[32];  /* "xfs", "tmpfs" */
	char options[512]; /* VFS and fs options, as in mountinfo */
	char source[256];  /* "/dev/loop3", "tmpfs" */
	char target[4096]; /* the mount point */
};

/*
 * Describe the mount holding path (the longest mount point that is a
 * prefix of its real path). Returns 0 or -errno (-ENOENT if none).
 */
int fsb_fsinfo_for_path(const char *path, struct fsb_fsinfo *out);

/*
 * Whether a filesystem type copies on write data rewritten in place, so
 * that rewriting a block needs a free block until the transaction commits:
 * btrfs, bcachefs, zfs. (xfs with reflink copies only shared extents: a
 * file nobody shares is rewritten in place.) NULL or "" is false.
 */
bool fsb_fsinfo_is_cow(const char *fs_type);

/*
 * The most of a file rewritten in place, in order, that holds a second
 * copy on fs_type before the old one is freed: 0 where blocks are
 * rewritten in place; on btrfs one extent's worth, 128 MiB (its largest
 * data extent, BTRFS_MAX_EXTENT_SIZE: an old extent is freed only once
 * all of it is rewritten, then at the transaction's commit, which btrfs
 * forces itself when a data reservation finds the space short);
 * UINT64_MAX (a whole copy) on the other copy-on-write filesystems,
 * where that was not measured.
 */
uint64_t fsb_fsinfo_cow_window(const char *fs_type);

#endif
