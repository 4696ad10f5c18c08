/*
 * Image files behind loop devices, and the lock that keeps two fsbench runs
 * off one image or device. fsbench runs as root, so a path it is given may
 * name what someone else put there: a symlink planted in /tmp, another
 * user's file, a filesystem full of files. So:
 *   - a new image is created O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600;
 *   - an existing one is used only when it is a regular file owned by the
 *     caller (euid), not a symlink, not backing a loop device, and empty or
 *     given up with --destroy-data (libblkid names what is on it); it is
 *     resized only with --destroy-data;
 *   - what the path is, is learnt with fstat on the descriptor opened
 *     (O_PATH|O_NOFOLLOW, then reopened through /proc/self/fd), never with
 *     stat on the name, so the file checked is the file used;
 *   - every image, and every --device node, is locked with
 *     flock(LOCK_EX|LOCK_NB) for as long as the command uses it; a second
 *     run is told which process holds it (from /proc/locks).
 * The lock is never an O_EXCL open of the device: mkfs and mount open it
 * O_EXCL themselves and would then fail with EBUSY.
 */
#ifndef FSB_DEVICE_IMAGE_H
#define FSB_DEVICE_IMAGE_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Which rule refused an image (FSB_IMAGE_OK: none did). */
enum fsb_image_rule {
	FSB_IMAGE_OK = 0,
	FSB_IMAGE_MISSING,     /* does not exist, no size to create it with */
	FSB_IMAGE_SYMLINK,     /* never overridden */
	FSB_IMAGE_NOT_REGULAR, /* never overridden: use --device for devices */
	FSB_IMAGE_OWNER,       /* never overridden */
	FSB_IMAGE_LOOP,	       /* backs a loop device: in use */
	FSB_IMAGE_SIGNATURE,   /* lifted by --destroy-data */
	FSB_IMAGE_PTABLE,      /* lifted by --destroy-data */
	FSB_IMAGE_DATA,	       /* not empty: lifted by --destroy-data */
	FSB_IMAGE_EMPTY,       /* empty, no size to make it */
};

/* What is known about an image path (gathered by fsb_image_claim). */
struct fsb_image_facts {
	char path[PATH_MAX];
	bool exists;
	bool is_symlink;
	unsigned mode;	     /* st_mode of what the path names itself */
	uid_t uid;	     /* its owner */
	uid_t euid;	     /* the caller */
	uint64_t size_bytes; /* its size now */
	uint64_t want_bytes; /* --image-size; 0: keep its size */
	char loop_dev[64];   /* the loop device it backs, "" when none */
	bool signature;	     /* libblkid found a superblock */
	char sig_type[64];   /* "ext4", ... */
	char sig_usage[32];  /* "filesystem", "raid", ... */
	bool ptable;	     /* libblkid found a partition table */
	char pt_type[32];
};

/*
 * Decide whether fsbench may use (and overwrite) the image described by f.
 * Rules in order: missing without a size, symlink, not a regular file,
 * owner, backs a loop device, signature, partition table, not empty, empty
 * without a size; destroy_data (--destroy-data) lifts signature, partition
 * table and not empty only. Pure. Returns the first rule that refused and
 * writes to why (when not NULL) one message naming the image, the rule and
 * what to do; FSB_IMAGE_OK leaves why empty.
 */
enum fsb_image_rule fsb_image_decide(const struct fsb_image_facts *f, bool destroy_data, char *why,
				     size_t len);

/* An image in use: open, locked, and whether it was made here. */
struct fsb_image {
	int fd;	      /* O_RDWR|O_CLOEXEC, locked; -1 when not open */
	bool created; /* made here: fsb_image_close may remove it */
	bool missing; /* claimed while absent: fsb_image_make creates it */
	bool destroy_data;
	uint64_t want_bytes;  /* size asked for, 0: its own */
	uint64_t size_bytes;  /* its size once made */
	uint64_t alloc_bytes; /* bytes allocated to it when claimed */
	char path[PATH_MAX];
};

/* An image that holds nothing (no system call). */
void fsb_image_init(struct fsb_image *img);

/*
 * Claim the image at path for a run that will overwrite it: open what the
 * path names without following a symlink, check it (fsb_image_decide, with
 * size_bytes as --image-size and destroy_data as --destroy-data), take its
 * lock before looking at whether it is in use, then probe it with libblkid
 * on the descriptor. A missing path with a size is claimed as missing:
 * nothing is created until fsb_image_make. Writes nothing. Returns 0, or
 * -errno after describing it (-EPERM for a refusal, -EBUSY when in use).
 * img is the caller's; release it with fsb_image_close, also after a
 * failure.
 */
int fsb_image_claim(struct fsb_image *img, const char *path, uint64_t size_bytes,
		    bool destroy_data);

/*
 * Make a claimed image ready: create a missing one (O_CREAT|O_EXCL|
 * O_NOFOLLOW, 0600, locked; one that appeared since the claim is claimed
 * again, with the same rules) and give it the size asked for. Returns 0 or
 * -errno after describing it; img->fd is then open and img->size_bytes
 * its size.
 */
int fsb_image_make(struct fsb_image *img);

/*
 * Create a new image at path of size_bytes (O_CREAT|O_EXCL|O_NOFOLLOW,
 * mode 0600, locked); an existing path is an error, never reused: for
 * images fsbench names itself (matrix, guest). Returns 0 or -errno after
 * describing it.
 */
int fsb_image_create(struct fsb_image *img, const char *path, uint64_t size_bytes);

/*
 * Whether the filesystem holding the image has room to allocate all of
 * it (a filled image is fully allocated). Returns 0, or -ENOSPC after
 * saying how much is needed and free. Unknown free space passes.
 */
int fsb_image_check_space(const struct fsb_image *img);

/*
 * Close the image (which drops its lock). With remove, an image created
 * here is unlinked first, while still locked, and only if its path still
 * names that very file. Errors are described. Idempotent.
 */
void fsb_image_close(struct fsb_image *img, bool remove);

/*
 * Lock the file open on fd with flock(LOCK_EX|LOCK_NB), for as long as
 * that open file lives. `what` names it in messages ("image '/x.img'").
 * Returns 0, or -EBUSY after saying "<what> is in use by fsbench PID N"
 * (the holder from /proc/locks; "by another fsbench" when it cannot be
 * found), or -errno after describing it.
 */
int fsb_image_lock(int fd, const char *what);

/*
 * Open the device node at path (never O_EXCL) and lock it as
 * fsb_image_lock does: for --device and the disk under --mtd. Anything
 * but a block device is left alone, for the caller to refuse: *fd = -1.
 * Returns 0 with the locked descriptor in *fd (the caller closes it), or
 * -errno after describing it.
 */
int fsb_image_lock_device(const char *path, int *fd);

/*
 * Claim the block device dev for a run that will overwrite it: first the
 * rules never overridden (not a block device, holds '/'), then its lock
 * (fsb_image_lock_device), then, with the lock held, the rules of
 * fsb_probe_decide (destroy_data = --destroy-data) and the kernel's
 * exclusive-open check (fsb_probe_claim). Returns 0 with the locked
 * descriptor in *lock_fd (the caller closes it; the lock lasts as long)
 * and the device's size in *size_bytes, or -errno after describing it.
 */
int fsb_image_claim_device(const char *dev, bool destroy_data, int *lock_fd, uint64_t *size_bytes);

/*
 * The process holding a FLOCK lock on the file (dev, ino), from the text
 * of /proc/locks ("1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF";
 * blocked waiters, "->", are skipped). Pure. Returns its pid, or 0.
 */
pid_t fsb_image_lock_holder(const char *proc_locks, dev_t dev, ino_t ino);

#endif
