/*
 * Page-cache control: what --cache=drop does before every read-type test,
 * so that reads come from the device and not from memory.
 */
#ifndef FSB_DEVICE_CACHE_H
#define FSB_DEVICE_CACHE_H

/*
 * Make a file's pages clean and evict them: fsync, then
 * posix_fadvise(POSIX_FADV_DONTNEED) over the whole file. 0 or -errno.
 */
int fsb_cache_drop_fd(int fd);

/*
 * As root, also sync() and ask the kernel to drop clean page cache,
 * dentries and inodes (/proc/sys/vm/drop_caches = 3), which reaches
 * metadata and pages fadvise cannot (directory blocks, inode tables).
 * Without root it does nothing and returns 0. -errno on a real failure.
 */
int fsb_cache_drop_global(void);

/*
 * syncfs(2) the filesystem holding dir: write back its dirty data and, on
 * a copy-on-write filesystem, commit the transaction, which is when blocks
 * freed or newly written are counted in statvfs (btrfs reports the free
 * space of before the last commit until then). 0 or -errno.
 */
int fsb_cache_sync_fs(const char *dir);

#endif
