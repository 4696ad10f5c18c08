#include "util/io.h"
#include "util/fault.h"
#include "util/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * EINTR is retried unless a stop was requested: the handler for
 * SIGINT/SIGTERM is installed without SA_RESTART precisely so that a long
 * transfer notices the stop.
 */
static int retry(void)
{
	return errno == EINTR && !fsb_stop_requested();
}

ssize_t fsb_read_full(int fd, void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = read(fd, (char *)buf + done, n - done);
		if (r < 0) {
			if (retry())
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

ssize_t fsb_pread_full(int fd, void *buf, size_t n, off_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done, off + (off_t)done);
		if (r < 0) {
			if (retry())
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

int fsb_write_full(int fd, const void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = write(fd, (const char *)buf + done, n - done);
		if (r < 0) {
			if (retry())
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		done += (size_t)r;
	}
	return 0;
}

int fsb_pwrite_full(int fd, const void *buf, size_t n, off_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pwrite(fd, (const char *)buf + done, n - done, off + (off_t)done);
		if (r < 0) {
			if (retry())
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		done += (size_t)r;
	}
	return 0;
}

int fsb_write_file_atomic(const char *path, const void *buf, size_t n)
{
	char tmp[PATH_MAX];
	int fd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) < 0)
		err = -errno;
	if (!err)
		err = fsb_write_full(fd, buf, n);
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		fsb_cleanup_unlinkat(AT_FDCWD, tmp, 0);
	return err;
}

int fsb_read_file(const char *path, size_t max_bytes, char **out, size_t *len)
{
	size_t cap = 4096, used = 0;
	char *buf = NULL, *bigger;
	struct stat st;
	ssize_t got;
	int fd, err = 0;

	/*
	 * O_NONBLOCK: opening a FIFO with no writer would wait forever (a
	 * FIFO given as a result file hung compare), and a terminal must
	 * not become ours. Only regular files are read, in blocking mode.
	 */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		err = -errno;
		goto out;
	}
	/* st_size is a hint only: /proc files say 0 and sysfs files 4096. */
	if ((uint64_t)st.st_size > max_bytes) {
		err = -EFBIG;
		goto out;
	}
	if ((size_t)st.st_size >= cap)
		cap = (size_t)st.st_size + 1;
	for (;;) {
		if (used + 1 >= cap || !buf) {
			if (buf)
				cap *= 2;
			bigger = realloc(buf, cap);
			if (!bigger) {
				err = -ENOMEM;
				goto out;
			}
			buf = bigger;
		}
		got = fsb_read_full(fd, buf + used, cap - used - 1);
		if (got < 0) {
			err = (int)got;
			goto out;
		}
		used += (size_t)got;
		if (used > max_bytes) {
			err = -EFBIG;
			goto out;
		}
		if (used + 1 < cap)
			break; /* short read: end of file */
	}
	buf[used] = '\0';
	*out = buf;
	*len = used;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return err;
}

/* ---- the *at calls, each a fault point (util/fault.h) ---- */

int fsb_io_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	FSB_FAULT_SYSCALL("fsbench/io/openat");
	return openat(dirfd, path, flags, mode);
}

int fsb_io_mkdirat(int dirfd, const char *path, mode_t mode)
{
	FSB_FAULT_SYSCALL("fsbench/io/mkdirat");
	return mkdirat(dirfd, path, mode);
}

int fsb_io_unlinkat(int dirfd, const char *path, int flags)
{
	FSB_FAULT_SYSCALL("fsbench/io/unlinkat");
	return unlinkat(dirfd, path, flags);
}

int fsb_io_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	FSB_FAULT_SYSCALL("fsbench/io/renameat");
	return renameat(olddirfd, oldpath, newdirfd, newpath);
}

int fsb_io_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	FSB_FAULT_SYSCALL("fsbench/io/fstatat");
	return fstatat(dirfd, path, st, flags);
}

int fsb_io_linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)
{
	FSB_FAULT_SYSCALL("fsbench/io/linkat");
	return linkat(olddirfd, oldpath, newdirfd, newpath, flags);
}

int fsb_io_symlinkat(const char *target, int dirfd, const char *path)
{
	FSB_FAULT_SYSCALL("fsbench/io/symlinkat");
	return symlinkat(target, dirfd, path);
}

/* ---- cleanup: never injected ---- */

int fsb_cleanup_unlinkat(int dirfd, const char *path, int flags)
{
#ifdef FSB_FIU
	/* libfiu's preload replaces the libc symbols, not the system call. */
	return (int)syscall(SYS_unlinkat, dirfd, path, flags);
#else
	return unlinkat(dirfd, path, flags);
#endif
}

int fsb_cleanup_openat(int dirfd, const char *path, int flags)
{
#ifdef FSB_FIU
	return (int)syscall(SYS_openat, dirfd, path, flags, 0);
#else
	return openat(dirfd, path, flags);
#endif
}
