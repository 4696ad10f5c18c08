/* The scratch directory: the only place fsbench writes in a user's DIR. */
#ifndef FSB_UTIL_SCRATCH_H
#define FSB_UTIL_SCRATCH_H
#include <stddef.h>
#include <stdint.h>

/*
 * Create a fresh directory "fsbench.<pid>.XXXXXX" under parent (mkdtemp, so
 * two runs in the same parent never collide), put the owner marker in it
 * (util/marker.h: who made it, so that `fsbench clean` can prove a
 * leftover is ours) and write its path to out. Returns 0 or -errno (parent
 * missing, not a directory, not writable); on failure nothing is left.
 */
int fsb_scratch_create(const char *parent, char *out, size_t len);

/*
 * Whether a directory entry name has the form fsb_scratch_create gives:
 * "fsbench.<digits>.<6 letters or digits>". Pure.
 */
int fsb_scratch_name_ok(const char *name);

/*
 * Remove path and everything below it, without following symlinks or
 * crossing into other filesystems. The owner marker goes last, only once
 * everything else is gone, so a directory that could not be emptied still
 * says whose it is. Returns 0 or the first -errno.
 */
int fsb_scratch_remove(const char *path);

/*
 * Open dir, which is root (a scratch directory) or a directory below it,
 * as a directory descriptor, following no symlink from root down: root
 * and every component after it are opened O_NOFOLLOW | O_DIRECTORY, so a
 * job's directory swapped for a symlink to elsewhere is refused (-ELOOP or
 * -ENOTDIR). Returns the descriptor (the caller closes it), -EINVAL when
 * dir is not below root (a "." or ".." component after root counts as
 * not below it), or -errno.
 */
int fsb_scratch_open_dir(const char *root, const char *dir);

/* Path of the file name in dir into out. 0 or -ENAMETOOLONG. */
int fsb_scratch_path(const char *dir, const char *name, char *out, size_t len);

/* Size of the file name in dir, 0 when absent or no regular file (a
 * symlink is not followed). */
uint64_t fsb_scratch_file_size(const char *dir, const char *name);

/*
 * Free bytes for the filesystem holding dir (statvfs f_bavail), plus
 * `reuse` bytes of files about to be replaced, minus a margin for
 * metadata and the tests' other files (5% and 4 MiB). 0 when it cannot
 * be read. The work caps of the block and per-char tests come from this.
 */
uint64_t fsb_scratch_space(const char *dir, uint64_t reuse);

#endif
