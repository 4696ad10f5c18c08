/*
 * Device truth: bytes read and written at a block device, from the
 * kernel's per-device counters (/sys/block/NAME/stat, or a partition's
 * /sys/dev/block/MAJ:MIN/stat). The counters are in 512-byte sectors
 * whatever the device's block size (Documentation/block/stat.rst).
 */
#ifndef FSB_DEVICE_DISKSTAT_H
#define FSB_DEVICE_DISKSTAT_H
#include <stddef.h>
#include <stdint.h>

struct fsb_diskstat {
	uint64_t read_sectors;
	uint64_t write_sectors;
};

/* Parse the text of a stat file (pure). 0 or -EINVAL. */
int fsb_diskstat_parse(const char *text, struct fsb_diskstat *out);

/* Read a stat file. 0 or -errno. */
int fsb_diskstat_read(const char *stat_path, struct fsb_diskstat *out);

/* Bytes read / written between two samples (0 if a counter went back). */
uint64_t fsb_diskstat_read_bytes(const struct fsb_diskstat *before,
				 const struct fsb_diskstat *after);
uint64_t fsb_diskstat_write_bytes(const struct fsb_diskstat *before,
				  const struct fsb_diskstat *after);

/*
 * The stat file of the block device holding `path` (st_dev of the path),
 * written to out, and the device's name (e.g. "loop3", "sda1") to name.
 * Returns 0, or -ENODEV when the filesystem has no block device behind it
 * (tmpfs, overlay, btrfs multi-device: anonymous st_dev).
 */
int fsb_diskstat_path_for(const char *path, char *out, size_t len, char *name, size_t name_len);

/*
 * The same for a filesystem whose st_dev is anonymous but whose data is on
 * one block device: a btrfs on a single device (the mount's source, e.g.
 * "/dev/loop3", named in /sys/fs/btrfs/FSID/devices/ alone). Returns 0, or
 * -ENODEV for any other filesystem or a source that is no block device,
 * -EXDEV for a btrfs over several devices (one device's counters would be
 * a part).
 */
int fsb_diskstat_path_for_mount(const char *fs_type, const char *source, char *out, size_t len,
				char *name, size_t name_len);

/* The stat file of a block device node such as /dev/loop3. 0 or -errno. */
int fsb_diskstat_path_for_dev(const char *devnode, char *out, size_t len);

#endif
