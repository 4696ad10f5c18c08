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
	bool dup;	     /* metadata DUP: both copies on one device */
	bool mixed;	     /* data and metadata share block groups */
	uint64_t meta_chunk; /* the logical size of a new metadata chunk */
	uint64_t data_total; /* data block groups: logical bytes allocated */
	uint64_t data_used;  /* of them, used (settled at commit) */
	uint64_t data_chunk; /* the logical size of a new data chunk */
	unsigned data_copies;
	bool data_dup;
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
 * The size of a new chunk btrfs allocates (volumes.c, regular policy):
 * the space info's chunk_size, at most 10% of the devices' total,
 * rounded up to 16 MiB. Pure.
 */
uint64_t fsb_btrfs_chunk_size(uint64_t chunk_size, uint64_t devs_total);

/*
 * The data bytes that may still be written without a data chunk taking
 * the metadata's headroom: free in the data block groups, plus the whole
 * data chunks the devices' unallocated space holds once every device
 * keeps one metadata chunk and the global reserve (twice when DUP)
 * unallocated. Data chunks are never freed while a file holds a byte of
 * them, nor at once when emptied, so metadata that cannot get a chunk
 * runs into ENOSPC (a mkdir fails; a transaction abort forces the
 * filesystem read-only). Every device keeps it: exact for RAID-1 over two,
 * more than needed for single metadata over several. Pure.
 */
uint64_t fsb_btrfs_data_room(const struct fsb_btrfs_meta *m);

/*
 * What the block and per-char tests may use of dir's filesystem:
 * fsb_scratch_space, on btrfs no more than fsb_btrfs_data_room less the
 * same margin (the whole figure when it is no btrfs or cannot be read).
 */
uint64_t fsb_btrfs_scratch_space(const char *dir, uint64_t reuse);

/*
 * Wait, at most max_ms, for btrfs to give back the data chunks a test
 * emptied (its cleaner deletes an empty block group on its own, some
 * seconds after the commit that emptied it), until every device again
 * holds a metadata chunk and the global reserve unallocated: a file set
 * needs metadata chunks the data must not hold. Commits while it waits.
 * Returns 0 when the headroom is there (or it is no btrfs), -ENOSPC when
 * it is not after max_ms or there is no empty data to give back.
 */
int fsb_btrfs_wait_headroom(const char *dir, unsigned max_ms);

/* How long a file test waits for it, at most: btrfs's cleaner deletes an
 * empty block group only after its next commits (and discard=async delays
 * it further), so the bound covers several commit intervals (30 s each by
 * default); past it the file tests run with what headroom there is. */
#define FSB_BTRFS_HEADROOM_WAIT_MS 45000u

/*
 * The sum of every device's error counters (write, read, flush,
 * corruption, generation: BTRFS_IOC_GET_DEV_STATS) of the btrfs holding
 * path, in *sum. Returns 0, -ENOTTY when it is no btrfs, or -errno.
 */
int fsb_btrfs_dev_errors(const char *path, uint64_t *sum);

#endif
