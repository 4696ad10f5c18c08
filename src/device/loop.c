#include "device/loop.h"
#include "util/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* Other processes (losetup, other fsbench runs, tests) may take the free
 * device between LOOP_CTL_GET_FREE and LOOP_CONFIGURE; try this many. */
#define ATTACH_TRIES 32
/* Old kernels answer LOOP_CLR_FD with EBUSY while a transient opener
 * (udev's blkid) holds the device; wait up to 50 x 20 ms for it. */
#define DETACH_TRIES 50

static void nap_ms(long ms)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = ms * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Newer kernels answer LOOP_CLR_FD on a device another process holds open
 * (udev's blkid, probing after a change) by unbinding it at that process's
 * last close: wait up to DETACH_TRIES x 20 ms for the unbinding, so that
 * no loop device of ours is still bound when fsbench has exited. (One
 * bound again meanwhile by someone else only costs the wait.)
 */
static void wait_unbound(int nr)
{
	char sys[64];

	snprintf(sys, sizeof(sys), "/sys/block/loop%d/loop/backing_file", nr);
	for (int tries = 0; tries < DETACH_TRIES && access(sys, F_OK) == 0; tries++)
		nap_ms(20);
}

void fsb_loopdev_init(struct fsb_loopdev *lo)
{
	memset(lo, 0, sizeof(*lo));
	lo->fd = -1;
	lo->nr = -1;
}

/* Configure the open loop device; 0 or -errno (not described). */
static int configure(int fd, int backing_fd, const char *name, bool dio)
{
	struct loop_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (unsigned)backing_fd;
	cfg.info.lo_flags = dio ? LO_FLAGS_DIRECT_IO : 0;
	snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", name);
	if (ioctl(fd, LOOP_CONFIGURE, &cfg) < 0)
		return -errno;
	return 0;
}

int fsb_loopdev_attach(struct fsb_loopdev *lo, int backing_fd, const char *name,
		       bool want_direct_io)
{
	int ctl, err = 0;

	fsb_loopdev_init(lo);
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot attach '%s' to a loop device: /dev/loop-control", name);
		return err;
	}
	for (int tries = 0; tries < ATTACH_TRIES; tries++) {
		struct loop_info64 info;
		int nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		int fd;

		if (nr < 0) {
			err = -errno;
			break;
		}
		snprintf(lo->path, sizeof(lo->path), "/dev/loop%d", nr);
		fd = open(lo->path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			/* A node devtmpfs has not made yet: try again. */
			if (err == -ENOENT) {
				nap_ms(10);
				continue;
			}
			break;
		}
		err = configure(fd, backing_fd, name, want_direct_io);
		/* Kernels that reject direct I/O outright (instead of clearing
		 * the flag) answer EINVAL: the backing fs cannot do O_DIRECT. */
		if (err == -EINVAL && want_direct_io)
			err = configure(fd, backing_fd, name, false);
		if (err == -EBUSY) {
			/* Someone else bound it first; take the next free one. */
			close(fd);
			continue;
		}
		if (err) {
			close(fd);
			break;
		}
		lo->fd = fd;
		lo->nr = nr;
		/* Newer kernels silently drop DIRECT_IO they cannot honour. */
		if (ioctl(fd, LOOP_GET_STATUS64, &info) == 0)
			lo->direct_io = (info.lo_flags & LO_FLAGS_DIRECT_IO) != 0;
		close(ctl);
		return 0;
	}
	close(ctl);
	if (!err)
		err = -EBUSY;
	fsb_err_errno(err, "cannot attach '%s' to a loop device", name);
	fsb_loopdev_init(lo);
	return err;
}

int fsb_loopdev_detach(struct fsb_loopdev *lo)
{
	int err = 0;

	if (lo->fd < 0)
		return 0;
	for (int tries = 0; tries < DETACH_TRIES; tries++) {
		err = ioctl(lo->fd, LOOP_CLR_FD) < 0 ? -errno : 0;
		/* ENXIO: already unbound (someone ran losetup -d on it). */
		if (err != -EBUSY)
			break;
		nap_ms(20);
	}
	if (err == -ENXIO)
		err = 0;
	if (err)
		fsb_err_errno(err, "cannot detach loop device '%s'", lo->path);
	close(lo->fd);
	if (!err && lo->nr >= 0)
		wait_unbound(lo->nr);
	fsb_loopdev_init(lo);
	return err;
}

void fsb_loopdev_release(struct fsb_loopdev *lo)
{
	(void)fsb_loopdev_detach(lo);
}

/*
 * The first loop device whose backing file is the file (st_dev, st_ino):
 * compared by identity, not by name, so a hard link or another path to
 * the same file is found too. 1 with its node in dev, 0, or -errno.
 */
static int find_backing(dev_t fdev, ino_t fino, char *dev, size_t len)
{
	char file[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int found = 0;

	d = opendir("/sys/block");
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!found && (de = readdir(d))) {
		dev_t bdev = 0;
		ino_t bino = 0;
		int rc;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		/* Unproven names (-ESTALE) still have the device's own
		 * identity of its backing file, which is what counts. */
		rc = fsb_loopdev_backing_file("/", de->d_name, file, sizeof(file), &bdev, &bino);
		if ((rc == 1 || rc == -ESTALE) && bdev == fdev && bino == fino) {
			snprintf(dev, len, "/dev/%s", de->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

int fsb_loopdev_find_backing(const char *image, char *dev, size_t len)
{
	struct stat st;

	if (stat(image, &st) < 0)
		return -errno;
	return find_backing(st.st_dev, st.st_ino, dev, len);
}

int fsb_loopdev_find_backing_fd(int fd, char *dev, size_t len)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	return find_backing(st.st_dev, st.st_ino, dev, len);
}

/* The backing file's st_dev: the kernel encodes lo_device with
 * new_encode_dev (huge_encode_dev), not with the C library's makedev. */
static dev_t backing_dev(const struct loop_info64 *info)
{
	unsigned long long d = info->lo_device;

	return makedev((unsigned)((d & 0xfff00) >> 8),
		       (unsigned)((d & 0xff) | ((d >> 12) & 0xfff00)));
}

/* Open /dev/loopN and read its status: 1 bound, 0 not, -errno. */
static int open_status(const char *path, int *fd, struct loop_info64 *info)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return errno == ENOENT || errno == ENXIO || errno == ENODEV ? 0 : -errno;
	if (ioctl(*fd, LOOP_GET_STATUS64, info) < 0) {
		int err = errno == ENXIO ? 0 : -errno;

		close(*fd);
		*fd = -1;
		return err;
	}
	return 1;
}

int fsb_loopdev_backing_file(const char *root, const char *name, char *file, size_t len, dev_t *dev,
			     ino_t *ino)
{
	struct loop_info64 info;
	struct stat st;
	char sys[PATH_MAX];
	bool real = !strcmp(root, "/");
	size_t n;
	FILE *f;
	int fd, rc;

	file[0] = '\0';
	if (strncmp(name, "loop", 4) || strchr(name, '/') || !len)
		return -EINVAL;
	if (real) {
		snprintf(sys, sizeof(sys), "/dev/%s", name);
		rc = open_status(sys, &fd, &info);
		if (rc <= 0)
			return rc;
		close(fd);
		if (dev)
			*dev = backing_dev(&info);
		if (ino)
			*ino = (ino_t)info.lo_inode;
	}
	/* The full name: lo_file_name is cut at 64 bytes and is whatever the
	 * attacher passed; sysfs has the kernel's path of the open file, one
	 * line ended by a newline that is not the name's. */
	snprintf(sys, sizeof(sys), "%s/sys/block/%s/loop/backing_file", real ? "" : root, name);
	f = fopen(sys, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno; /* unbound meanwhile */
	n = fread(file, 1, len - 1, f);
	rc = !feof(f) || ferror(f);
	fclose(f);
	file[n] = '\0';
	if (n && file[n - 1] == '\n')
		file[--n] = '\0';
	if (rc || !n) {
		file[0] = '\0';
		return -ESTALE; /* cut, or no name */
	}
	/* A copy of /sys (tests) has no device to ask. */
	if (!real)
		return 1;
	/* A name with a newline in it, or one renamed or deleted since
	 * (" (deleted)"), may be another file's: only the file the device
	 * holds (lo_device, lo_inode) is its backing file. */
	if (stat(file, &st) < 0 || st.st_dev != backing_dev(&info) ||
	    st.st_ino != (ino_t)info.lo_inode) {
		file[0] = '\0';
		return -ESTALE;
	}
	return 1;
}

int fsb_loopdev_backing(const char *path, char *file, size_t len, dev_t *dev, ino_t *ino)
{
	const char *name = strrchr(path, '/');

	if (!name || strncmp(name + 1, "loop", 4) || strncmp(path, "/dev/", 5))
		return -EINVAL;
	return fsb_loopdev_backing_file("/", name + 1, file, len, dev, ino);
}

int fsb_loopdev_detach_if(const char *path, dev_t dev, ino_t ino)
{
	struct fsb_loopdev lo;
	struct loop_info64 info;
	int fd, rc = open_status(path, &fd, &info);

	if (rc < 0) {
		fsb_err_errno(rc, "cannot open loop device '%s'", path);
		return rc;
	}
	if (rc == 0)
		return 1;
	if (backing_dev(&info) != dev || (ino_t)info.lo_inode != ino) {
		close(fd);
		return -ESTALE;
	}
	fsb_loopdev_init(&lo);
	lo.fd = fd;
	lo.nr = 0;
	snprintf(lo.path, sizeof(lo.path), "%s", path);
	return fsb_loopdev_detach(&lo);
}

int fsb_file_data_ranges(int fd, uint64_t start, uint64_t len, uint64_t align, size_t max,
			 struct fsb_range **v, size_t *n)
{
	uint64_t end = start + len, pos = start;
	struct fsb_range *out = NULL;
	size_t cap = 0, k = 0;

	*v = NULL;
	*n = 0;
	while (pos < end && k < max) {
		off_t d = lseek(fd, (off_t)pos, SEEK_DATA), h;
		uint64_t a, b;

		if (d < 0 && errno == ENXIO) /* no data from pos to the end of file */
			break;
		/* No SEEK_DATA here (a block device, an old filesystem):
		 * all of the rest is data. */
		if (d < 0 && errno == EINVAL)
			d = (off_t)pos, h = (off_t)end;
		else if (d < 0 || ((uint64_t)d < end && (h = lseek(fd, d, SEEK_HOLE)) < 0)) {
			free(out);
			return -errno;
		}
		/* A file whose lseek does not move (a character device
		 * answers 0 to anything) has no data to give. */
		if ((uint64_t)d >= end || (uint64_t)d < pos || h <= d)
			break;
		pos = (uint64_t)h < end ? (uint64_t)h : end;
		/* Whole blocks only, as device offsets: an O_DIRECT read is
		 * block-aligned, and a block half in a hole is partly free. */
		a = ((uint64_t)d - start + align - 1) & ~(align - 1);
		b = (pos - start) & ~(align - 1);
		if (b <= a)
			continue;
		if (k == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct fsb_range *nv = realloc(out, nc * sizeof(*nv));

			if (!nv) {
				free(out);
				return -ENOMEM;
			}
			out = nv;
			cap = nc;
		}
		out[k].off = a;
		out[k++].len = b - a;
	}
	*v = out;
	*n = k;
	return 0;
}

int fsb_loopdev_data_ranges(int fd, uint64_t dev_bytes, uint64_t align, size_t max,
			    struct fsb_range **v, size_t *n, char *file, size_t len)
{
	struct loop_info64 info;
	struct stat st, bst;
	char link[PATH_MAX], sys[64];
	const char *name;
	ssize_t k;
	int bfd, err;

	*v = NULL;
	*n = 0;
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || ioctl(fd, LOOP_GET_STATUS64, &info) < 0)
		return 0; /* not a loop device, or not bound */
	/* Its name in /sys/block: the last part of its /sys/dev link. */
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if ((k = readlink(sys, link, sizeof(link) - 1)) < 0)
		return -errno;
	link[k] = '\0';
	name = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	err = fsb_loopdev_backing_file("/", name, file, len, NULL, NULL);
	if (err <= 0)
		return err ? err : -ESTALE;
	if ((bfd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return -errno;
	/* Renamed between the proof and the open: check again, on the
	 * descriptor that is read. */
	if (fstat(bfd, &bst) < 0 || bst.st_dev != backing_dev(&info) ||
	    bst.st_ino != (ino_t)info.lo_inode) {
		close(bfd);
		return -ESTALE;
	}
	err = fsb_file_data_ranges(bfd, info.lo_offset, dev_bytes, align, max, v, n);
	close(bfd);
	return err < 0 ? err : 1;
}
