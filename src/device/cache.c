#include "device/cache.h"
#include "device/mount.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

bool fsb_cache_bypass(enum fsb_cache_mode m, enum fsb_cache_io io)
{
	/* O_DIRECT takes aligned chunks of a file: neither single bytes nor
	 * directory entries and inodes can go around the cache. */
	return m == FSB_CACHE_DIRECT && io == FSB_CACHE_IO_BLOCK;
}

int fsb_cache_open_flags(enum fsb_cache_mode m, enum fsb_cache_io io)
{
	return fsb_cache_bypass(m, io) ? O_DIRECT : 0;
}

/* The global drop deferred (many processes per host: one drops for all),
 * and whether one was asked for since it was last taken. */
static atomic_bool defer_global, global_asked;

void fsb_cache_defer_global(bool on)
{
	atomic_store(&defer_global, on);
	atomic_store(&global_asked, false);
}

bool fsb_cache_take_deferred(void)
{
	return atomic_exchange(&global_asked, false);
}

bool fsb_cache_ram_fs(unsigned long f_type)
{
	return f_type == TMPFS_MAGIC || f_type == RAMFS_MAGIC;
}

bool fsb_cache_ram_path(const char *path)
{
	struct statfs sf;

	return !statfs(path, &sf) && fsb_cache_ram_fs((unsigned long)sf.f_type);
}

bool fsb_cache_moot(enum fsb_cache_mode m, int fd)
{
	struct statfs sf;

	if (m == FSB_CACHE_KEEP)
		return true;
	/*
	 * On tmpfs and ramfs the page cache is the filesystem: neither
	 * fadvise nor drop_caches can evict a page or a dentry of it, so the
	 * run is the same without them, and their cost is saved.
	 */
	return fd >= 0 && !fstatfs(fd, &sf) && fsb_cache_ram_fs((unsigned long)sf.f_type);
}

/* What the preparations did since the runner's last reset (jobs prepare
 * in threads of one process at once). */
static pthread_mutex_t note_mu = PTHREAD_MUTEX_INITIALIZER;
static struct fsb_cache_note note;

void fsb_cache_note_reset(void)
{
	pthread_mutex_lock(&note_mu);
	memset(&note, 0, sizeof(note));
	pthread_mutex_unlock(&note_mu);
}

void fsb_cache_note_take(struct fsb_cache_note *out)
{
	pthread_mutex_lock(&note_mu);
	*out = note;
	pthread_mutex_unlock(&note_mu);
}

static void note_meta(unsigned how)
{
	pthread_mutex_lock(&note_mu);
	note.meta |= how;
	pthread_mutex_unlock(&note_mu);
}

/* The proof an eviction worked: what of fd stayed resident. A file that
 * cannot be mapped (a filesystem without mmap) is not measured. */
static void note_resident(int fd)
{
	double share;

	if (fsb_cache_resident(fd, &share))
		return;
	pthread_mutex_lock(&note_mu);
	if (!note.resident_known || share > note.resident)
		note.resident = share;
	note.resident_known = true;
	pthread_mutex_unlock(&note_mu);
}

int fsb_cache_prepare_read(int fd, enum fsb_cache_mode m, enum fsb_cache_io io)
{
	int err = 0;

	if (fsb_cache_moot(m, fd))
		return 0;
	/* Direct I/O bypasses the cache, but pages left by the untimed
	 * preparation would still be written back during the test: flush
	 * and evict the file's pages in every mode but keep, and prove it. */
	if (io != FSB_CACHE_IO_META) {
		if ((err = fsb_cache_drop_fd(fd)))
			return err;
		note_resident(fd);
	}
	if (m != FSB_CACHE_DROP_ALL) {
		/* Metadata has no file to evict: only a remount (the caller's,
		 * fsb_cache_remount) or the global drop reaches it. */
		if (io == FSB_CACHE_IO_META)
			note_meta(FSB_CACHE_META_WARM);
		return 0;
	}
	/* drop-all: the filesystem under test written back (dirty pages
	 * cannot be dropped), and the kernel's caches, once for all jobs. */
	if (syncfs(fd) < 0)
		return -errno;
	if (io == FSB_CACHE_IO_META)
		note_meta(FSB_CACHE_META_DROP_ALL);
	if (atomic_load(&defer_global))
		atomic_store(&global_asked, true);
	else
		err = fsb_cache_drop_global();
	return err;
}

/* The filesystem fsbench made (fsb_cache_set_own_fs), borrowed. */
static const struct fsb_cache_own_fs *own_fs;

void fsb_cache_set_own_fs(const struct fsb_cache_own_fs *own)
{
	own_fs = own;
}

bool fsb_cache_remount_fits(enum fsb_cache_mode m, int fd, bool alone)
{
	struct stat a, b;

	if ((m != FSB_CACHE_DROP && m != FSB_CACHE_DIRECT) || !own_fs || !alone ||
	    fsb_cache_moot(m, fd))
		return false;
	return !fstat(fd, &a) && !stat(own_fs->mnt, &b) && a.st_dev == b.st_dev;
}

int fsb_cache_remount(void)
{
	const struct fsb_cache_own_fs *o = own_fs;
	int err, mounted;

	if (!o)
		return -EINVAL;
	if ((err = fsb_umount(o->mnt)))
		return err;
	/* The devices stay open (fsbench holds them): their buffer cache
	 * and, under a buffered loop device, the image's pages would keep
	 * the metadata in memory across the umount. */
	for (unsigned i = 0; i < o->ndev; i++) {
		int e = 0;

		if (o->dev_fds[i] >= 0 && (e = fsb_cache_drop_blockdev(o->dev_fds[i])))
			fsb_err_errno(e, "cannot drop the buffer cache of '%s'", o->dev);
		else if (o->file_fds[i] >= 0 && (e = fsb_cache_drop_fd(o->file_fds[i])))
			fsb_err_errno(e, "cannot drop the image pages under '%s'", o->dev);
		if (e && !err)
			err = e;
	}
	/* Mounted again in any case: the run goes on, or cleans up, there. */
	if ((mounted = fsb_mount(o->dev, o->mnt, o->type, o->options)))
		return mounted;
	if (!err)
		note_meta(FSB_CACHE_META_REMOUNT);
	return err;
}

int fsb_cache_drop_fd(int fd)
{
	int err;

	if (fsync(fd) < 0)
		return -errno;
	/* posix_fadvise returns the error number instead of setting errno. */
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return err ? -err : 0;
}

/* Pages of one window [off, off + len) of fd in the page cache, or
 * -errno. off is page-aligned. */
static int64_t resident_window(int fd, off_t off, size_t len, size_t page)
{
	size_t n = (len + page - 1) / page, i;
	unsigned char *vec = malloc(n);
	int64_t in = 0;
	void *map;

	if (!vec)
		return -ENOMEM;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);
	if (map == MAP_FAILED) {
		in = -errno;
	} else {
		if (mincore(map, len, vec) < 0)
			in = -errno;
		for (i = 0; in >= 0 && i < n; i++)
			in += vec[i] & 1;
		munmap(map, len);
	}
	free(vec);
	return in;
}

int fsb_cache_resident(int fd, double *share)
{
	/* A window bounds the vector mincore fills (one byte per page). */
	const off_t window = (off_t)1 << 30;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t pages = 0, in = 0;
	struct stat st;
	off_t off;

	*share = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	for (off = 0; off < st.st_size; off += window) {
		size_t len = (size_t)(st.st_size - off < window ? st.st_size - off : window);
		int64_t got = resident_window(fd, off, len, page);

		if (got < 0)
			return (int)got;
		in += (uint64_t)got;
		pages += (len + page - 1) / page;
	}
	if (pages)
		*share = (double)in / (double)pages;
	return 0;
}

int fsb_cache_drop_global(void)
{
	int fd, err;

	/* Asked for by name (--cache drop-all): a refusal (a container's
	 * read-only /proc) is the run's failure, not silence. */
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fsb_write_full(fd, "3\n", 2);
	close(fd);
	return err;
}

int fsb_cache_drop_blockdev(int fd)
{
	return ioctl(fd, BLKFLSBUF, 0) < 0 ? -errno : 0;
}

int fsb_cache_sync_fs(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (syncfs(fd) < 0)
		err = -errno;
	close(fd);
	return err;
}
