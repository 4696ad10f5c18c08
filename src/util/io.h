/* Whole-buffer read and write that survive EINTR and short transfers. */
#ifndef FSB_UTIL_IO_H
#define FSB_UTIL_IO_H
#include <stddef.h>
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
 * Refuses files larger than max_bytes with -EFBIG. 0 or -errno. */
int fsb_read_file(const char *path, size_t max_bytes, char **out, size_t *len);

#endif
