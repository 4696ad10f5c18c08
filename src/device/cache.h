/*
 * Page-cache control, and the one place that decides what each --cache
 * mode means for a test:
 *
 *   mode     block tests (write, rewrite,   per-char tests (putc, getc)   stat tests (seq-stat,
 *            read, seeks)                   and other byte-sized I/O      rand-stat)
 *   drop     file fsync'ed and evicted      the same                      dentries, inodes and
 *            (fadvise), and as root the                                   pages dropped (root)
 *            kernel's caches dropped
 *   direct   O_DIRECT; the file's pages     as drop (1-byte I/O cannot    as drop (metadata has
 *            from the untimed preparation   bypass the cache)             no O_DIRECT)
 *            flushed and evicted first
 *   keep     nothing: the cache is measured on purpose
 *
 * Workloads ask, and never decide themselves: fsb_cache_open_flags for
 * the flags of a file they read or write, fsb_cache_prepare_read before a
 * read-type test's timed region.
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
 * where there is no one file, a directory on the filesystem, or -1).
 * Nothing is done on a filesystem in memory (fsb_cache_ram_fs of fd's):
 * its cache cannot be dropped. Returns 0 or -errno (not described: the
 * test names itself in the message).
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
 * As root, also sync() and ask the kernel to drop clean page cache,
 * dentries and inodes (/proc/sys/vm/drop_caches = 3), which reaches
 * metadata and pages fadvise cannot (directory blocks, inode tables).
 * Without root it does nothing and returns 0. -errno on a real failure.
 */
int fsb_cache_drop_global(void);

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
