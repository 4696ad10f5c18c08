/*
 * The --device safety rules. fsbench destroys data only where it was told
 * to: before it writes to a block device the user named, it gathers facts
 * about that device (fsb_probe_gather: mountinfo, /proc/swaps, sysfs
 * holders, libblkid signatures, the device holding '/'), and a pure
 * function (fsb_probe_decide) turns the facts into a verdict, so unit
 * tests can fabricate any answer the system could give.
 */
#ifndef FSB_DEVICE_PROBE_H
#define FSB_DEVICE_PROBE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FSB_PROBE_STR 256

struct fsb_probe_facts {
	char dev[FSB_PROBE_STR]; /* the device as the user named it */
	bool is_blockdev;
	uint64_t size_bytes; /* BLKGETSIZE64 (0 if unknown) */
	/* It is the device holding '/', the disk that partition is on, or a
	 * device under it (RAID member, device-mapper slave). */
	bool holds_root;
	char root_dev[FSB_PROBE_STR]; /* what holds '/' */
	/* It, or one of its partitions, is mounted. */
	bool mounted;
	char mounted_dev[FSB_PROBE_STR]; /* the device or partition mounted */
	char mounted_on[FSB_PROBE_STR];	 /* where */
	/* It, or one of its partitions, is used as swap (/proc/swaps). */
	bool swap;
	char swap_dev[FSB_PROBE_STR];
	/* It, or one of its partitions, has holders (md RAID, device mapper). */
	bool held;
	char held_dev[FSB_PROBE_STR];
	char holder[FSB_PROBE_STR]; /* e.g. "md0", "dm-2" */
	/* libblkid found a superblock: filesystem, RAID member, crypto, ... */
	bool signature;
	char sig_type[64];  /* "ext4", "linux_raid_member", ... */
	char sig_usage[32]; /* "filesystem", "raid", "crypto", "other" */
	/* libblkid found a partition table. */
	bool ptable;
	char pt_type[32]; /* "gpt", "dos" */
};

/* Which rule refused a device (FSB_PROBE_OK: none did). */
enum fsb_probe_rule {
	FSB_PROBE_OK = 0,
	FSB_PROBE_NOT_BLOCKDEV, /* never overridden: use --image for files */
	FSB_PROBE_ROOT,		/* never overridden */
	FSB_PROBE_MOUNTED,
	FSB_PROBE_SWAP,
	FSB_PROBE_HOLDERS,
	FSB_PROBE_SIGNATURE,
	FSB_PROBE_PTABLE,
};

/*
 * Decide whether fsbench may destroy the device described by f. Rules in
 * order: not a block device, holds '/', mounted, swap, holders, signature,
 * partition table. Only the last two are lifted by destroy_data
 * (--destroy-data): a device in use is refused by the kernel's exclusive
 * open anyway, so its message says to stop the user (unmount, swapoff).
 * Pure. Returns the first rule that refused, and writes to why (when not
 * NULL) a message naming the device, the rule and what to do about it;
 * FSB_PROBE_OK leaves why empty.
 */
enum fsb_probe_rule fsb_probe_decide(const struct fsb_probe_facts *f, bool destroy_data, char *why,
				     size_t len);

/* The rule's short name ("mounted", "signature", ...). Pure. */
const char *fsb_probe_rule_name(enum fsb_probe_rule rule);

/*
 * Fill the signature and partition-table facts of f (signature, sig_type,
 * sig_usage, ptable, pt_type; the rest is left alone) from the device or
 * image file open on fd, with libblkid. name is for messages. Returns 0,
 * or -errno after describing it.
 */
int fsb_probe_signature_fd(int fd, const char *name, struct fsb_probe_facts *f);

/*
 * Gather the facts about dev (reading only). Returns 0, or -errno after
 * describing what could not be read (dev missing; a fact that cannot be
 * established is an error, never a guess that the device is free).
 */
int fsb_probe_gather(const char *dev, struct fsb_probe_facts *f);

/*
 * Claim dev exclusively for a moment (open with O_EXCL): the kernel's own
 * answer to "is anything using it" (a mount, swap, RAID, device mapper or
 * another process's exclusive open holds it so). Returns 0, or
 * -EBUSY/-errno after describing it ("held by another process").
 */
int fsb_probe_claim(const char *dev);

/*
 * The smallest device the default mkfs of fs_type accepts, in bytes:
 * xfs 300 MiB, btrfs 109 MiB (114294784), ext2/3/4 1 MiB, 0 = unknown.
 * Pure.
 */
uint64_t fsb_probe_min_size(const char *fs_type);

/*
 * The block device d and its partitions (from sysfs), d first, into out
 * (at most max). Returns how many (0 when out of memory). Reads only.
 */
size_t fsb_blockdev_family(dev_t d, dev_t *out, size_t max);

/*
 * Whether one of devs[0..n) is in use other than mounted: held (sysfs
 * holders: md RAID, device mapper), swap (/proc/swaps) or open in another
 * process (/proc/PID/fd). 1 with what uses it in why ("held by 'dm-2'",
 * "in use as swap", "held open by process 42"), 0 when none.
 */
int fsb_blockdev_user(const dev_t *devs, size_t n, char *why, size_t len);

/* The size of the block device open on fd (BLKGETSIZE64). 0 or -errno. */
int fsb_blockdev_size(int fd, uint64_t *bytes);

#endif
