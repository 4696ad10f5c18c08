/*
 * A btrfs filesystem's metadata space and its devices' error counters,
 * read by ioctl (linux/btrfs.h): what growth of a file set may still take
 * without driving the filesystem into ENOSPC on metadata (which aborts the
 * transaction and forces the filesystem read-only), and what tells that a
 * test harmed it.
 */
#ifndef FSB_DEVICE_BTRFS_SPACE_H
#define FSB_DEVICE_BTRFS_SPACE_H
#include <stdbool.h>
#include <stdint.h>

/* The most devices read; a filesystem with more reads the first ones. */
#define FSB_BTRFS_MAX_DEVS 64

struct fsb_btrfs_meta {
	uint64_t total;	     /* metadata block groups: logical bytes allocated */
	uint64_t used;	     /* of them, used (settled at commit: syncfs first) */
	uint64_t reserve;    /* the global reserve, which nothing else may take */
	uint64_t chunk_room; /* logical metadata bytes new chunks can still get
			      * from the devices' unallocated space */
	unsigned copies;     /* devices each metadata chunk needs (RAID-1: 2) */
	unsigned ndevs;
	uint64_t unallocated[FSB_BTRFS_MAX_DEVS]; /* per device, bytes */
};

/*
 * Read the metadata space of the btrfs filesystem holding path. Returns 0,
 * -ENOTTY when it is no btrfs, or another -errno (nothing described).
 */
int fsb_btrfs_meta_read(const char *path, struct fsb_btrfs_meta *out);

/*
 * The metadata bytes still free for new items: free in the metadata block
 * groups plus what new chunks can get, less the global reserve (0 when
 * the reserve is not covered). Pure.
 */
uint64_t fsb_btrfs_meta_room(const struct fsb_btrfs_meta *m);

/*
 * The logical bytes chunks of a profile can still get from ndevs devices
 * with unalloc[i] bytes unallocated each: every chunk on `copies` distinct
 * devices (single 1, RAID-1 2, RAID1C3 3), or both copies on one device
 * when dup. The largest L with sum(min(unalloc[i], L)) >= copies x L. Pure.
 */
uint64_t fsb_btrfs_chunk_room(const uint64_t *unalloc, unsigned ndevs, unsigned copies, bool dup);

/*
 * The sum of every device's error counters (write, read, flush,
 * corruption, generation: BTRFS_IOC_GET_DEV_STATS) of the btrfs holding
 * path, in *sum. Returns 0, -ENOTTY when it is no btrfs, or -errno.
 */
int fsb_btrfs_dev_errors(const char *path, uint64_t *sum);

#endif
