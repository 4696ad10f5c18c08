/* The scratch directory: the only place fsbench writes in a user's DIR. */
#ifndef FSB_UTIL_SCRATCH_H
#define FSB_UTIL_SCRATCH_H
#include <stddef.h>

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

#endif
