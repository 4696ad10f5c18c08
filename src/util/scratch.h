/* The scratch directory: the only place fsbench writes in a user's DIR. */
#ifndef FSB_UTIL_SCRATCH_H
#define FSB_UTIL_SCRATCH_H
#include <stddef.h>

/*
 * Create a fresh directory "fsbench.<pid>.XXXXXX" under parent (mkdtemp, so
 * two runs in the same parent never collide) and write its path to out.
 * Returns 0 or -errno (parent missing, not a directory, not writable).
 */
int fsb_scratch_create(const char *parent, char *out, size_t len);

/*
 * Remove path and everything below it, without following symlinks or
 * crossing into other filesystems. Returns 0 or the first -errno.
 */
int fsb_scratch_remove(const char *path);

#endif
