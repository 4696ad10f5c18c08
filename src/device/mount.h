/*
 * Mount and umount through libmount in this process (no fork of mount(8)),
 * so that a timed mount costs what the kernel costs plus microseconds.
 */
#ifndef FSB_DEVICE_MOUNT_H
#define FSB_DEVICE_MOUNT_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct libmnt_fs;

/* The block device of a libmount mountinfo entry: its source node when
 * that is a block device (btrfs and others show an anonymous devno), else
 * its devno when that has a major; 0 when none. */
dev_t fsb_mount_fs_devno(struct libmnt_fs *fs);

/*
 * Whether `type` appears in the text of /proc/filesystems (one entry per
 * line, optionally flagged "nodev"). Pure.
 */
bool fsb_mount_fs_listed(const char *proc_filesystems, const char *type);

/*
 * Whether the kernel can mount `type`: listed in /proc/filesystems, or
 * provided by a module the kernel would load on mount (an "alias fs-TYPE"
 * line in /lib/modules/$(uname -r)/modules.alias). Returns 0, or -ENODEV
 * after describing it ("filesystem type 'x' is not supported by the kernel").
 */
int fsb_mount_fs_supported(const char *type);

/*
 * Mount the block device dev on dir as `type` with the mount options
 * `options` (NULL or "" for none; VFS flags such as noatime and
 * filesystem options such as data=writeback alike). /etc/mtab and utab are
 * not written and no /sbin/mount.TYPE helper is run.
 * Returns 0, or -errno after describing the error with libmount's
 * explanation ("cannot mount '/dev/loop3' on '/tmp/x': ...").
 */
int fsb_mount(const char *dev, const char *dir, const char *type, const char *options);

/*
 * Unmount the filesystem mounted on dir. Returns 0, or -errno after
 * describing the error ("cannot unmount '/tmp/x': Device or resource busy").
 */
int fsb_umount(const char *dir);

/*
 * Last resort of a cleanup path: detach the mount on dir now and let the
 * kernel finish the umount when its last user goes (MNT_DETACH), so that
 * nothing stays visible in the mount table. Returns 0 or -errno
 * (described).
 */
int fsb_umount_lazy(const char *dir);

/*
 * Whether a filesystem is mounted exactly on target (a real path, compared
 * with /proc/self/mountinfo's mount points as they are): 1 with the
 * device number of the topmost such mount in *devno (NULL: not wanted),
 * 0 when nothing is, -errno after describing the error.
 */
int fsb_mount_at(const char *target, dev_t *devno);

/*
 * Where the filesystem on device devno is mounted: 1 with the first mount
 * point in where, 0 when it is mounted nowhere, -errno after describing
 * the error.
 */
int fsb_mount_of_dev(dev_t devno, char *where, size_t len);

/* One line of /proc/self/mountinfo: its mount point and its block device
 * (the source node's when it names one, as btrfs shows an anonymous
 * number; else the line's own, 0 when that is no block device's). */
struct fsb_mount_ent {
	char *target;
	dev_t dev;
};

struct fsb_mount_tab {
	struct fsb_mount_ent *v; /* in mountinfo order: later ones on top */
	size_t n;
};

/*
 * A snapshot of the mount table in the mountinfo file `path` (NULL:
 * /proc/self/mountinfo) into t, so that one decision sees one state of
 * it. Returns 0, or -errno after describing the error (t is then empty).
 * Release with fsb_mount_tab_free.
 */
int fsb_mount_tab_read(const char *path, struct fsb_mount_tab *t);
void fsb_mount_tab_free(struct fsb_mount_tab *t);

#endif
