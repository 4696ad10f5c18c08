#include "util/trust.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uid_t fsb_trust_invoking_uid(void)
{
	const char *s = getenv("SUDO_UID");
	unsigned long v;
	char *end;

	/* sudo sets SUDO_UID; only root's own environment can carry it to a
	 * process with euid 0, so it is root's word, not an intruder's. */
	if (geteuid() == 0 && s && isdigit((unsigned char)*s)) {
		errno = 0;
		v = strtoul(s, &end, 10);
		if (!errno && !*end && v < (unsigned long)(uid_t)-1)
			return (uid_t)v;
	}
	return getuid();
}

int fsb_trust_check_file(const char *path, const struct stat *st, uid_t user, char *why, size_t len)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, len, "refusing '%s': it is not a regular file", path);
		return -EINVAL;
	}
	if (st->st_uid != 0 && st->st_uid != user) {
		snprintf(
			why, len,
			"refusing '%s': it is owned by uid %u, not by root or uid %u who "
			"runs fsbench, and what it says is run as root: chown it, or use a copy of "
			"your own",
			path, (unsigned)st->st_uid, (unsigned)user);
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, len,
			 "refusing '%s': it is writable by group or others (mode %04o), "
			 "and what it says is run as root: chmod go-w '%s'",
			 path, (unsigned)(st->st_mode & 07777), path);
		return -EPERM;
	}
	return 0;
}

int fsb_trust_check_dir(const char *path, const char *dir, const struct stat *st, char *why,
			size_t len)
{
	/* Write access to a directory is the power to replace its entries;
	 * the sticky bit takes that away from all but each entry's owner. */
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX)) {
		snprintf(why, len,
			 "refusing '%s': its directory '%s' is writable by group or "
			 "others without the sticky bit (mode %04o), so another user could replace "
			 "it, and what it says is run as root: chmod go-w '%s', or move the file",
			 path, dir, (unsigned)(st->st_mode & 07777), dir);
		return -EPERM;
	}
	return 0;
}

/*
 * Check every directory of real (an absolute path without symlinks, as
 * /proc gives it) from / down, each opened relative to the one above
 * (O_NOFOLLOW), then that the last name still is the file open as st.
 */
static int check_dirs(const char *path, const char *real, const struct stat *st, char *why,
		      size_t len)
{
	char dir[PATH_MAX], name[NAME_MAX + 1];
	const char *p = real + 1;
	struct stat ds, ls;
	int dfd, err = 0;

	snprintf(dir, sizeof(dir), "/");
	dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &ds) < 0) {
		err = -errno;
		snprintf(why, len, "cannot check '%s': /: %s", path, strerror(errno));
		goto out;
	}
	if ((err = fsb_trust_check_dir(path, dir, &ds, why, len)))
		goto out;
	for (;;) {
		size_t n = strcspn(p, "/");
		int next;

		if (!n || n > NAME_MAX) {
			err = -EINVAL;
			snprintf(why, len, "cannot check '%s': odd path '%s'", path, real);
			goto out;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (!p[n])
			break;
		snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "%s%s",
			 strcmp(dir, "/") ? "/" : "", name);
		next = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 || fstat(next, &ds) < 0) {
			err = -errno;
			snprintf(why, len,
				 "refusing '%s': directory '%s' changed while it was "
				 "checked: %s",
				 path, dir, strerror(errno));
			if (next >= 0)
				close(next);
			goto out;
		}
		close(dfd);
		dfd = next;
		if ((err = fsb_trust_check_dir(path, dir, &ds, why, len)))
			goto out;
		p += n + 1;
	}
	if (fstatat(dfd, name, &ls, AT_SYMLINK_NOFOLLOW) < 0 || ls.st_dev != st->st_dev ||
	    ls.st_ino != st->st_ino) {
		err = -EAGAIN;
		snprintf(why, len, "refusing '%s': it moved while it was checked", path);
	}
out:
	if (dfd >= 0)
		close(dfd);
	return err;
}

int fsb_trusted_file_open(const char *path, uid_t user, char *why, size_t len)
{
	char link[64], real[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd, flags, err;

	/* O_NONBLOCK: a FIFO planted under the name must not hang the open;
	 * it is refused as not a regular file just after. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, len, "cannot read '%s': %s", path, strerror(errno));
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		snprintf(why, len, "cannot read '%s': %s", path, strerror(errno));
		goto fail;
	}
	if ((err = fsb_trust_check_file(path, &st, user, why, len)))
		goto fail;
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		err = -errno;
		snprintf(why, len, "cannot read '%s': %s", path, strerror(errno));
		goto fail;
	}
	/* Where the open file really is: the name may have been a symlink. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, real, sizeof(real) - 1);
	if (n <= 0 || real[0] != '/') {
		err = n < 0 ? -errno : -EINVAL;
		snprintf(why, len, "cannot check '%s': cannot read %s", path, link);
		goto fail;
	}
	real[n] = '\0';
	if ((err = check_dirs(path, real, &st, why, len)))
		goto fail;
	return fd;
fail:
	close(fd);
	return err;
}
