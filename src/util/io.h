/*
 * Whole-buffer read and write that survive EINTR and short transfers; the
 * *at calls of the workloads, each a fault-injection point; cleanup calls
 * that never are.
 */
#ifndef FSB_UTIL_IO_H
#define FSB_UTIL_IO_H
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Read up to n bytes, retrying on EINTR and short reads. Returns the bytes
 * read (less than n only at end of file) or -errno. After SIGINT/SIGTERM
 * (fsb_stop_requested()) an interrupted call returns -EINTR instead.
 */
ssize_t fsb_read_full(int fd, void *buf, size_t n);
ssize_t fsb_pread_full(int fd, void *buf, size_t n, off_t off);

/* Write all n bytes, retrying on EINTR and short writes. 0 or -errno. */
int fsb_write_full(int fd, const void *buf, size_t n);
int fsb_pwrite_full(int fd, const void *buf, size_t n, off_t off);

/*
 * Write a whole file atomically: data goes to a temporary file beside
 * path, is fsync'ed and renamed over path (mode 0644). For fsbench's own
 * files in its own directories (markers, golden files); a user's -o goes
 * through util/output.h, which knows devices, FIFOs, links and modes.
 * Returns 0 or -errno.
 */
int fsb_write_file_atomic(const char *path, const void *buf, size_t n);

/* Read a whole file into a malloc'ed, NUL-terminated buffer (caller frees).
 * Refuses files larger than max_bytes with -EFBIG, a directory with
 * -EISDIR and anything else that is not a regular file with -EINVAL, at
 * once: a FIFO is not waited on. 0 or -errno. */
int fsb_read_file(const char *path, size_t max_bytes, char **out, size_t *len);

/*
 * openat(2), mkdirat(2), unlinkat(2), renameat(2), fstatat(2), linkat(2)
 * and symlinkat(2) for the work itself (the metadata tests' operations,
 * the files they set up, fsbench's own files): the same arguments and
 * result, -1 with errno on failure. In the fault-injection build each is
 * the point "fsbench/io/NAME" (util/fault.h), which libfiu's POSIX
 * preload cannot reach; otherwise it is exactly the call.
 */
int fsb_io_openat(int dirfd, const char *path, int flags, mode_t mode);
int fsb_io_mkdirat(int dirfd, const char *path, mode_t mode);
int fsb_io_unlinkat(int dirfd, const char *path, int flags);
int fsb_io_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
int fsb_io_fstatat(int dirfd, const char *path, struct stat *st, int flags);
int fsb_io_linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags);
int fsb_io_symlinkat(const char *target, int dirfd, const char *path);

/*
 * Cleanup: unlinkat(2) and openat(2) (no O_CREAT) for removing what
 * fsbench made, after a failure or at the end; -1 with errno, as the
 * calls. Never fault-injected: in the fault-injection build they go to
 * the kernel directly (syscall(2)), past libfiu's preload, so that an
 * injected failure stops the work but never leaves it behind.
 */
int fsb_cleanup_unlinkat(int dirfd, const char *path, int flags);
int fsb_cleanup_openat(int dirfd, const char *path, int flags);

#endif
