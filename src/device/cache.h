/*
 * Page-cache control, and the one place that decides what each --cache
 * mode means for a test:
 *
 *   mode      block tests (write, rewrite,   per-char tests (putc, getc)   stat tests (seq-stat,
 *             read, seeks)                   and other byte-sized I/O      rand-stat)
 *   drop      the test's own file fsync'ed   the same                      on a filesystem fsbench
 *             and evicted (fadvise), its                                   made (matrix): unmounted
 *             resident share measured                                      and mounted again; else
 *             after (mincore)                                              warm, and said so
 *   direct    O_DIRECT; the file's pages     as drop (1-byte I/O cannot    as drop (metadata has
 *             from the untimed preparation   bypass the cache)             no O_DIRECT)
 *             flushed and evicted first
 *   drop-all  as drop, then syncfs of the    the same                      the kernel's dentries,
 *             filesystem under test and                                    inodes and pages dropped
 *             the kernel's clean caches
 *             dropped (root only)
 *   keep      nothing: the cache is measured on purpose
 *
 * No mode calls sync(2) (every filesystem of the machine) or empties the
 * machine's page cache unless drop-all asks for it: other processes on a
 * shared server would pay for it. Workloads ask, and never decide
 * themselves: fsb_cache_open_flags for the flags of a file they read or
 * write, fsb_cache_prepare_read before a read-type test's timed region,
 * fsb_cache_remount_fits and fsb_cache_remount for a stat test's cold
 * metadata. What the preparations did is noted for the runner to record
 * with the test (fsb_cache_note_take).
 */
#ifndef FSB_DEVICE_CACHE_H
#define FSB_DEVICE_CACHE_H
#include <stdbool.h>

#include "util/modes.h"

/* What kind of I/O a test does, which decides what a mode can do for it. */
enum fsb_cache_io {
	FSB_CACHE_IO_BLOCK, /* aligned chunks of a file: O_DIRECT possible */
	FSB_CACHE_IO_BYTES, /* byte-sized file I/O (per-char): no O_DIRECT */
	FSB_CACHE_IO_META,  /* names and inodes (stat): no file to open */
};

/* Whether I/O of this kind bypasses the page cache in mode m. Pure. */
bool fsb_cache_bypass(enum fsb_cache_mode m, enum fsb_cache_io io);

/* open(2) flags to add for a file a test of this kind uses: O_DIRECT when
 * it bypasses the cache, else 0. Pure. */
int fsb_cache_open_flags(enum fsb_cache_mode m, enum fsb_cache_io io);

/*
 * Untimed, right before a read-type test: make what it reads cold as mode
 * m says (table above). fd is the file it reads (for FSB_CACHE_IO_META,
 * where there is no one file, a directory on the filesystem). Nothing is
 * done on a filesystem in memory (fsb_cache_ram_fs of fd's): its cache
 * cannot be dropped. A file's resident share after its eviction, and a
 * stat test left warm (no drop-all), are noted (fsb_cache_note_take).
 * Returns 0 or -errno (not described: the test names itself in the
 * message).
 */
int fsb_cache_prepare_read(int fd, enum fsb_cache_mode m, enum fsb_cache_io io);

/* Whether a filesystem of this statfs f_type lives in the page cache
 * (tmpfs, ramfs): there is nothing below it to read from. Pure. */
bool fsb_cache_ram_fs(unsigned long f_type);

/* Whether the filesystem holding path is one of those (statfs); false
 * when path cannot be asked. */
bool fsb_cache_ram_path(const char *path);

/*
 * Whether making the cache cold is moot: mode m is keep (the cache is
 * measured on purpose), or fd (a file or directory; -1: none known) is on
 * a filesystem in memory (fsb_cache_ram_fs), whose cache cannot be
 * dropped. fsb_cache_prepare_read does nothing then, and untimed work
 * that only undoes a drop (warming a kept set again) can be skipped.
 */
bool fsb_cache_moot(enum fsb_cache_mode m, int fd);

/*
 * Several processes on one host (MPI ranks): from now on
 * fsb_cache_prepare_read only notes that the kernel's caches should be
 * dropped, and one process per host drops them once every process has
 * prepared (core/group.h, settle_cache), so that no drop lands in the
 * middle of another process's timed run. on = false: drop at once again.
 */
void fsb_cache_defer_global(bool on);

/* Whether a deferred global drop was asked for since the last call (and
 * forget it). */
bool fsb_cache_take_deferred(void);

/*
 * Make a file's pages clean and evict them: fsync, then
 * posix_fadvise(POSIX_FADV_DONTNEED) over the whole file. 0 or -errno.
 */
int fsb_cache_drop_fd(int fd);

/*
 * The share of a file's pages that sit in the page cache now, 0..1, in
 * *share: mincore(2) over read-only mappings of the file, a window at a
 * time (mapping does not read a page, so asking does not change the
 * answer). An empty file has share 0. This is the proof an eviction
 * worked, and how much of a loop device's backing file is in memory.
 * 0 or -errno.
 */
int fsb_cache_resident(int fd, double *share);

/*
 * --cache drop-all only: ask the kernel to drop the whole machine's clean
 * page cache, dentries and inodes (/proc/sys/vm/drop_caches = 3), which
 * reaches metadata and pages fadvise cannot (directory blocks, inode
 * tables). The caller has syncfs'ed the filesystem under test (nothing
 * else is written back: no sync(2)). Needs root (checked with the
 * option). 0 or -errno.
 */
int fsb_cache_drop_global(void);

/*
 * What the preparations of a test's runs did, since the last take: the
 * largest share of a file that stayed in the page cache after its
 * eviction (mincore; resident_known when one was measured), and how a
 * stat test's metadata was made cold, or not.
 */
enum fsb_cache_meta {
	FSB_CACHE_META_NONE = 0,     /* no stat test prepared */
	FSB_CACHE_META_REMOUNT = 1,  /* unmounted and mounted again */
	FSB_CACHE_META_DROP_ALL = 2, /* the kernel's caches dropped */
	FSB_CACHE_META_WARM = 4,     /* neither: the create's dentries and inodes stay */
};

struct fsb_cache_note {
	bool resident_known;
	double resident; /* 0..1, the largest over the runs */
	unsigned meta;	 /* enum fsb_cache_meta bits */
};

/* Forget what was noted (the runner, before a test's first run). */
void fsb_cache_note_reset(void);

/* What was noted since the reset (thread-safe: jobs prepare at once). */
void fsb_cache_note_take(struct fsb_cache_note *out);

/*
 * A filesystem fsbench made itself (a matrix setup's), which it may
 * unmount and mount again for cold metadata: what mounted it and the
 * descriptors of its devices (whose buffer cache outlives the umount,
 * fsbench keeping them open) and of their image files (whose pages hold
 * the device's content when the loop device is buffered). Borrowed.
 */
struct fsb_cache_own_fs {
	const char *dev, *mnt, *type, *options;
	const int *dev_fds, *file_fds; /* ndev each; -1: none */
	unsigned ndev;
};

/* Set (or, NULL, clear) the filesystem fsbench made, for the runs that
 * follow. */
void fsb_cache_set_own_fs(const struct fsb_cache_own_fs *own);

/*
 * Whether a stat test whose directory fd is open gets cold metadata by
 * fsb_cache_remount: mode drop or direct, fd on the filesystem fsbench
 * made (fsb_cache_set_own_fs), and alone (another job's descriptors
 * would keep it busy). Not on a filesystem in memory.
 */
bool fsb_cache_remount_fits(enum fsb_cache_mode m, int fd, bool alone);

/*
 * Unmount that filesystem, drop its devices' buffer cache and their
 * image files' pages, and mount it again (noted as
 * FSB_CACHE_META_REMOUNT). The caller has closed every descriptor it had
 * on it. 0 or -errno (described).
 */
int fsb_cache_remount(void);

/*
 * A block device's buffer cache written back and dropped (BLKFLSBUF):
 * fsbench keeps the device open, so the kernel would otherwise keep it
 * across umount. 0 or -errno.
 */
int fsb_cache_drop_blockdev(int fd);

/*
 * syncfs(2) the filesystem holding dir: write back its dirty data and, on
 * a copy-on-write filesystem, commit the transaction, which is when blocks
 * freed or newly written are counted in statvfs (btrfs reports the free
 * space of before the last commit until then). 0 or -errno.
 */
int fsb_cache_sync_fs(const char *dir);

#endif
