/*
 * Loop devices made by fsbench: attached with the LOOP_CTL_GET_FREE and
 * LOOP_CONFIGURE ioctls (no losetup, no fork), with direct I/O so that the
 * host's page cache does not hide the device, and always detached by the
 * code that attached them.
 */
#ifndef FSB_DEVICE_LOOP_H
#define FSB_DEVICE_LOOP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct fsb_loopdev {
	int fd;		/* open on path while attached, else -1 */
	int nr;		/* N of /dev/loopN, -1 while not attached */
	char path[32];	/* "/dev/loopN" */
	bool direct_io; /* the kernel kept LO_FLAGS_DIRECT_IO */
};

/* Initialise an unattached context (no system call). */
void fsb_loopdev_init(struct fsb_loopdev *lo);

/*
 * Attach the file open on backing_fd (O_RDWR) to a free loop device.
 * `name` (the image path) is only used in messages and as lo_file_name.
 * With want_direct_io the device is configured with LO_FLAGS_DIRECT_IO;
 * when the backing filesystem refuses it, the device is configured without
 * it and lo->direct_io says so. LO_FLAGS_AUTOCLEAR is never set: the
 * device lives until fsb_loopdev_detach/_release. Races with other users
 * of loop devices (EBUSY) are retried with the next free device.
 * backing_fd stays the caller's; the kernel holds its own reference.
 * Returns 0, or -errno after describing the error.
 */
int fsb_loopdev_attach(struct fsb_loopdev *lo, int backing_fd, const char *name,
		       bool want_direct_io);

/*
 * Detach the device (LOOP_CLR_FD) and close it. No-op when not attached.
 * Returns 0, or -errno after describing the error; the context is reset
 * either way, so it is never detached twice.
 */
int fsb_loopdev_detach(struct fsb_loopdev *lo);

/* Detach if attached, ignoring errors (they are described). Idempotent. */
void fsb_loopdev_release(struct fsb_loopdev *lo);

/*
 * Whether the file at `image` already backs a loop device (the files named
 * in /sys/block/loopN/loop/backing_file, compared by device and inode): 1
 * with the device's node in dev, 0 when none does, -errno when `image`
 * cannot be resolved. Not described.
 */
int fsb_loopdev_find_backing(const char *image, char *dev, size_t len);

/* The same for the file open on fd (no name to race with). */
int fsb_loopdev_find_backing_fd(int fd, char *dev, size_t len);
/*
 * The backing file of the loop device name ("loop3", a name in
 * /sys/block) as root/sys/block/NAME/loop/backing_file has it, only when
 * it is proven to be the file the device holds: with root "/", stat of
 * that name must give LOOP_GET_STATUS64's lo_device and lo_inode (a name
 * with a newline, or one renamed or deleted since, may be another
 * file's); another root (a copy of /sys in tests) is taken as it is.
 * Returns 1 with the name in file; 0 when the device is not bound or
 * does not exist; -ESTALE when the name is unknown (file empty: say so,
 * never use another file); -errno otherwise. dev and ino (may be NULL)
 * get the device's own identity of its backing file whenever it is
 * bound (root "/"), proven name or not. Not described.
 */
int fsb_loopdev_backing_file(const char *root, const char *name, char *file, size_t len, dev_t *dev,
			     ino_t *ino);

/*
 * What backs the loop device at path ("/dev/loopN"): 1 when it is bound,
 * with the backing file's proven name in file
 * (fsb_loopdev_backing_file: -ESTALE when unknown) and its st_dev and st_ino (LOOP_GET_STATUS64) in dev, ino;
 * 0 when it is not bound or does not exist; -errno otherwise. Not
 * described. For `fsbench clean`, which must prove a device is its own.
 */
int fsb_loopdev_backing(const char *path, char *file, size_t len, dev_t *dev, ino_t *ino);

/*
 * Detach the loop device at path, but only while it is bound to the file
 * dev:ino (checked again on the descriptor that detaches it). Returns 0
 * when detached, 1 when it was not bound (nothing done), -ESTALE when it
 * is bound to another file (nothing done, not described), or -errno after
 * describing the error.
 */
int fsb_loopdev_detach_if(const char *path, dev_t dev, ino_t ino);

/* A byte range [off, off + len). */
struct fsb_range {
	uint64_t off, len;
};

/*
 * The ranges of the file open on fd that hold data (lseek SEEK_DATA and
 * SEEK_HOLE), within [start, start + len), as offsets from start, each
 * cut to whole align-byte blocks (align a power of two); at most max
 * ranges (the rest left out). *v is malloc'ed (NULL when none), *n its
 * count. A file without SEEK_DATA (a block device; a filesystem without
 * it answers EINVAL, or reports every byte as data) is all data.
 * Returns 0 or -errno; not described.
 */
int fsb_file_data_ranges(int fd, uint64_t start, uint64_t len, uint64_t align, size_t max,
			 struct fsb_range **v, size_t *n);

/*
 * The same for the loop device open on fd, of dev_bytes bytes: its
 * backing file's data from the device's offset into it (lo_offset), as
 * device offsets. Returns 1 with the ranges and the backing file's name
 * (fsb_loopdev_backing_file) in file; 0 when fd is
 * not a bound loop device (every byte of it may then hold data); -errno
 * when the backing file cannot be opened (-ESTALE: its name is
 * unknown, or another file's now) or sought. Not described.
 */
int fsb_loopdev_data_ranges(int fd, uint64_t dev_bytes, uint64_t align, size_t max,
			    struct fsb_range **v, size_t *n, char *file, size_t len);

#endif
