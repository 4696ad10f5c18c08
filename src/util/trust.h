/*
 * Files that are code run as root (a matrix INI names the commands fsbench
 * runs as root): opened once, and trusted only when nobody but root and
 * the invoking user could have changed them. The checks look at the open
 * descriptor (fstat) and at every directory above the file, so what is
 * parsed is what was checked. Prints nothing: the caller says why.
 */
#ifndef FSB_UTIL_TRUST_H
#define FSB_UTIL_TRUST_H
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * The user fsbench runs for: under sudo (euid 0 and SUDO_UID a number),
 * the user who ran sudo, so `sudo fsbench matrix my.ini` trusts the
 * caller's own files; else the real uid.
 */
uid_t fsb_trust_invoking_uid(void);

/*
 * Whether a file with status st may be trusted: a regular file owned by
 * root or by user, writable by nobody else (no group or other write bit).
 * Pure. Returns 0, or -EPERM (-EINVAL: not a regular file) with why set to
 * "refusing 'PATH': <why>; <how to fix it>".
 */
int fsb_trust_check_file(const char *path, const struct stat *st, uid_t user, char *why,
			 size_t len);

/*
 * Whether a directory dir with status st above a trusted file is safe:
 * nobody but its owner may write to it, unless it has the sticky bit (then
 * others cannot rename or remove what is not theirs, as in /tmp). Pure.
 * Returns 0, or -EPERM with why set (naming path, the file, and dir).
 */
int fsb_trust_check_dir(const char *path, const char *dir, const struct stat *st, char *why,
			size_t len);

/*
 * Open path for reading (following symlinks, O_CLOEXEC) and check the
 * file on the descriptor and every directory from its real location up to
 * / (fsb_trust_check_file, fsb_trust_check_dir); a file that moved while
 * it was being checked is refused too. Returns the descriptor (the
 * caller's), or -errno with why set: "cannot read 'PATH': ..." when it
 * cannot be opened, else the refusal.
 */
int fsb_trusted_file_open(const char *path, uid_t user, char *why, size_t len);

#endif
