#include "util/output.h"
#include "util/error.h"
#include "util/io.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- startup ---------------------------------------------------------- */

/*
 * The descriptor a name stands for: /dev/stdin, /dev/stdout, /dev/stderr,
 * /dev/fd/N and /proc/self/fd/N mean "the N this process already has",
 * whatever it points to now. -1 for any other name.
 */
static int fd_alias(const char *path)
{
	static const char *const std[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(path, std[i]))
			return i;
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(dirs[i]);
		const char *s = path + n;
		char *end;
		long v;

		if (strncmp(path, dirs[i], n) || !isdigit((unsigned char)*s))
			continue;
		errno = 0;
		v = strtol(s, &end, 10);
		if (*end || errno || v > INT_MAX)
			return -1;
		return (int)v;
	}
	return -1;
}

/* "cannot write 'PATH'" or "cannot write to standard output", for messages. */
static const char *subject(const struct fsb_output *o, char *buf, size_t len)
{
	if (!o->path)
		snprintf(buf, len, "to standard output");
	else
		snprintf(buf, len, "'%s'", o->path);
	return buf;
}

/* The fallback file's extension from the path ("out.json" -> "json"). */
static void default_ext(struct fsb_output *o)
{
	const char *dot = o->base ? strrchr(o->base, '.') : NULL;
	size_t n = dot ? strlen(dot + 1) : 0;

	o->ext = "txt";
	if (!dot || dot == o->base || !n || n >= sizeof(o->ext_buf))
		return;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)dot[1 + i]))
			return;
	memcpy(o->ext_buf, dot + 1, n + 1);
	o->ext = o->ext_buf;
}

/* Split path into its directory (malloc'ed) and last name (in path). */
static int split(const char *path, char **dir, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		*dir = strdup(".");
		*base = path;
	} else {
		*dir = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
		*base = slash + 1;
	}
	return *dir ? 0 : -ENOMEM;
}

static bool same_object(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * Whether input names what o would write: the same object (any type, so a
 * device or a hard link counts), or, when neither exists yet, the same
 * new name in the same directory (lifecycle's image to be created).
 */
static bool is_input(const struct fsb_output *o, const struct stat *obj, const char *input)
{
	struct stat st, dst;
	const char *base;
	char *dir;
	bool same;

	if (stat(input, &st) == 0)
		return obj && same_object(obj, &st);
	if (errno != ENOENT || obj || o->target != FSB_OUTPUT_REPLACE)
		return false;
	if (split(input, &dir, &base))
		return false;
	same = !strcmp(base, o->base) && stat(dir, &st) == 0 && fstat(o->dir_fd, &dst) == 0 &&
	       same_object(&st, &dst);
	free(dir);
	return same;
}

static int check_inputs(const struct fsb_output *o, const struct stat *obj,
			const char *const *inputs, size_t n)
{
	char who[PATH_MAX + 32];

	for (size_t i = 0; i < n; i++) {
		if (!inputs[i] || !is_input(o, obj, inputs[i]))
			continue;
		fsb_err("will not write %s: it is the input '%s' (give another -o)",
			subject(o, who, sizeof(who)), inputs[i]);
		return -EINVAL;
	}
	return 0;
}

/* A descriptor of ours: open, and for writing. */
static int open_fd(struct fsb_output *o, int fd, const char *const *inputs, size_t n)
{
	char who[PATH_MAX + 32];
	struct stat st;
	int fl;

	o->target = FSB_OUTPUT_FD;
	o->fd = fd;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fstat(fd, &st) < 0) {
		fsb_err("cannot write %s: descriptor %d is not open", subject(o, who, sizeof(who)),
			fd);
		return -EBADF;
	}
	if ((fl & O_PATH) || (fl & O_ACCMODE) == O_RDONLY) {
		fsb_err("cannot write %s: descriptor %d is open for reading only",
			subject(o, who, sizeof(who)), fd);
		return -EBADF;
	}
	return check_inputs(o, &st, inputs, n);
}

/* Say where a symbolic link leads, for whoever means to write there. */
static void refuse_link(const struct fsb_output *o)
{
	char target[PATH_MAX], *real = realpath(o->path, NULL);
	ssize_t n;

	if (real) {
		fsb_err("will not write '%s': it is a symbolic link (to write to what it points "
			"to, give -o '%s')",
			o->path, real);
		free(real);
		return;
	}
	n = readlinkat(o->obj_fd, "", target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	fsb_err("will not write '%s': it is a symbolic link%s%s%s", o->path, n > 0 ? " (to '" : "",
		target, n > 0 ? "', which does not resolve)" : "");
}

static int classify(struct fsb_output *o, const char *const *inputs, size_t n)
{
	mode_t m = o->st.st_mode;
	const char *what = NULL;
	int err;

	if (S_ISLNK(m)) {
		refuse_link(o);
		return -ELOOP;
	}
	if ((err = check_inputs(o, &o->st, inputs, n)))
		return err;
	if (S_ISREG(m)) {
		o->target = FSB_OUTPUT_REPLACE;
		return 0;
	}
	if (S_ISCHR(m) || S_ISFIFO(m)) {
		o->target = FSB_OUTPUT_DIRECT;
		/* The name is no symlink (checked), so access() sees the object. */
		if (faccessat(AT_FDCWD, o->path, W_OK, AT_EACCESS) < 0) {
			err = -errno;
			fsb_err_errno(err, "cannot write '%s'", o->path);
			return err;
		}
		return 0;
	}
	if (S_ISDIR(m))
		what = "a directory";
	else if (S_ISBLK(m))
		what = "a block device (reports go to files, character devices and FIFOs)";
	else if (S_ISSOCK(m))
		what = "a socket";
	else
		what = "not a regular file, character device or FIFO";
	fsb_err("will not write '%s': it is %s", o->path, what);
	return S_ISDIR(m) ? -EISDIR : -EINVAL;
}

/* A name for the temporary file beside base, hidden, never an existing one. */
static void temp_name(const char *base, unsigned attempt, char *out, size_t len)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(out, len, ".%.200s.%lx%04x.tmp", base,
		 (unsigned long)((uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 20) & 0xffffffUL,
		 attempt & 0xffff);
}

/*
 * Whether a file can really be created in the directory, as the temporary
 * file and the rename at the end will need: only trying tells. access(2)
 * lets root through where no file can be made (/proc, /sys) and cannot
 * know a full inode table. A uniquely named empty file is created O_EXCL
 * there and removed at once. 0 or -errno, described.
 */
static int probe_dir(const struct fsb_output *o, const char *dir)
{
	char tmp[NAME_MAX + 1];
	int fd = -1, err = 0;

	for (unsigned i = 0; fd < 0 && i < 100; i++) {
		temp_name(o->base, i, tmp, sizeof(tmp));
		fd = openat(o->dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0 && errno != EEXIST) {
			err = -errno;
			break;
		}
	}
	if (fd >= 0) {
		close(fd);
		fsb_cleanup_unlinkat(o->dir_fd, tmp, 0);
		return 0;
	}
	if (!err)
		err = -EEXIST;
	/* ENOENT for a name in a directory that exists: /proc and the like. */
	if (err == -ENOENT)
		fsb_err("cannot write '%s': no file can be created in '%s' (%s)", o->path, dir,
			strerror(ENOENT));
	else
		fsb_err_errno(err, "cannot write '%s': cannot create a file in '%s'", o->path, dir);
	return err;
}

static int open_path(struct fsb_output *o, const char *const *inputs, size_t n)
{
	const char *base;
	char *dir = NULL;
	int err;

	if (o->path[strlen(o->path) - 1] == '/') {
		fsb_err("will not write '%s': a file name is needed, not a directory", o->path);
		return -EISDIR;
	}
	if ((err = split(o->path, &dir, &base)))
		goto nomem;
	if (!strcmp(base, ".") || !strcmp(base, "..")) {
		fsb_err("will not write '%s': it is a directory", o->path);
		err = -EISDIR;
		goto out;
	}
	o->base = strdup(base);
	if (!o->base) {
		err = -ENOMEM;
		goto nomem;
	}
	default_ext(o);
	/* The directory is held too: the final rename happens in it. */
	o->dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dir_fd < 0) {
		err = -errno;
		if (err == -ENOENT)
			fsb_err("cannot write '%s': directory '%s' does not exist", o->path, dir);
		else if (err == -ENOTDIR)
			fsb_err("cannot write '%s': '%s' is not a directory", o->path, dir);
		else
			fsb_err_errno(err, "cannot write '%s'", o->path);
		goto out;
	}
	o->obj_fd = openat(o->dir_fd, o->base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (o->obj_fd >= 0) {
		if (fstat(o->obj_fd, &o->st) < 0) {
			err = -errno;
			fsb_err_errno(err, "cannot write '%s'", o->path);
			goto out;
		}
		o->exists = true;
		if ((err = classify(o, inputs, n)))
			goto out;
	} else if (errno == ENOENT) {
		o->target = FSB_OUTPUT_REPLACE;
		if ((err = check_inputs(o, NULL, inputs, n)))
			goto out;
	} else {
		err = -errno;
		fsb_err_errno(err, "cannot write '%s'", o->path);
		goto out;
	}
	if (o->target != FSB_OUTPUT_REPLACE)
		goto out;
	if ((err = probe_dir(o, dir)))
		goto out;
	/* Replacing a file one may not write would be a way around its mode. */
	if (o->exists && faccessat(o->dir_fd, o->base, W_OK, AT_EACCESS) < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot write '%s'", o->path);
	}
out:
	free(dir);
	return err;
nomem:
	fsb_err_errno(err, "cannot write '%s'", o->path);
	goto out;
}

int fsb_output_open(struct fsb_output *o, const char *path, const char *const *inputs,
		    size_t ninputs)
{
	int fd, err;

	memset(o, 0, sizeof(*o));
	o->opened = true;
	o->fd = -1;
	o->obj_fd = -1;
	o->dir_fd = -1;
	o->ext = "txt";
	/* No -o: standard output, checked when written (a closed one falls
	 * back). A shell may have pointed it at an input (show r.json >>r.json):
	 * refused as -o - is, before the input is read. */
	if (!path) {
		struct stat st;

		o->fd = STDOUT_FILENO;
		if (fstat(STDOUT_FILENO, &st) == 0 && (err = check_inputs(o, &st, inputs, ninputs)))
			goto out;
		return 0;
	}
	if (!*path) {
		fsb_err("invalid --output '': expected a file name or '-'");
		err = -EINVAL;
		goto out;
	}
	if (!strcmp(path, "-")) {
		err = open_fd(o, STDOUT_FILENO, inputs, ninputs);
		goto out;
	}
	o->path = strdup(path);
	if (!o->path) {
		err = -ENOMEM;
		fsb_err_errno(err, "cannot write '%s'", path);
		goto out;
	}
	fd = fd_alias(path);
	err = fd >= 0 ? open_fd(o, fd, inputs, ninputs) : open_path(o, inputs, ninputs);
out:
	if (err)
		fsb_output_release(o);
	return err;
}

void fsb_output_release(struct fsb_output *o)
{
	if (!o->opened)
		return;
	if (o->obj_fd >= 0)
		close(o->obj_fd);
	if (o->dir_fd >= 0)
		close(o->dir_fd);
	free(o->path);
	free(o->base);
	memset(o, 0, sizeof(*o));
}

/* ---- the end ---------------------------------------------------------- */

/* A character device or FIFO, reopened through the descriptor held. */
static int write_direct(const struct fsb_output *o, const void *buf, size_t len, const char **why)
{
	char proc[64];
	struct stat st;
	int fd, err;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->obj_fd);
	/* A FIFO's open waits for a reader: that is what writing to one means. */
	fd = open(proc, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* No /proc: by name, and only if it is still the same object. */
		fd = open(o->path, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && (fstat(fd, &st) < 0 || !same_object(&st, &o->st) ||
				st.st_rdev != o->st.st_rdev)) {
			close(fd);
			*why = "it was replaced while fsbench ran";
			return -ESTALE;
		}
	}
	if (fd < 0)
		return -errno;
	err = fsb_write_full(fd, buf, len);
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

/*
 * A regular file: write a temporary file in the same directory, give it
 * the mode (and, as root, the owner) of the file it replaces, fsync, and
 * rename it over the name: readers see the old report or the new, never
 * half of one.
 */
static int write_replace(const struct fsb_output *o, const void *buf, size_t len, const char **why)
{
	char tmp[NAME_MAX + 1];
	struct stat now;
	bool keep = false;
	int fd = -1, dfd, err = 0;

	/* What is at the name now, which is what rename replaces. */
	if (fstatat(o->dir_fd, o->base, &now, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISREG(now.st_mode)) {
			*why = "it is no longer a regular file";
			return -EEXIST;
		}
		keep = true;
	} else if (errno != ENOENT) {
		return -errno;
	}
	for (unsigned i = 0; fd < 0 && i < 100; i++) {
		temp_name(o->base, i, tmp, sizeof(tmp));
		/* A new file gets 0666 & ~umask; a replacement starts private. */
		fd = fsb_io_openat(o->dir_fd, tmp,
				   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				   keep ? 0600 : 0666);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	if (keep) {
		/* Owner first, then the permission bits; never the set-id and
		 * sticky bits: a report is no program, and root must not make
		 * a set-id file of another user's with its contents. */
		if (geteuid() == 0) {
			if (fchown(fd, now.st_uid, now.st_gid) < 0)
				err = -errno;
		} else if (fchown(fd, (uid_t)-1, now.st_gid) < 0) {
			/* Only a group we belong to is ours to set: otherwise the
			 * file keeps our own group. (An if, not a cast to void:
			 * _FORTIFY_SOURCE makes an unused result an error.) */
		}
		if (!err && fchmod(fd, now.st_mode & 0777) < 0)
			err = -errno;
	}
	if (!err)
		err = fsb_write_full(fd, buf, len);
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && fsb_io_renameat(o->dir_fd, tmp, o->dir_fd, o->base) < 0)
		err = -errno;
	if (err) {
		fsb_cleanup_unlinkat(o->dir_fd, tmp, 0);
		return err;
	}
	/* The new name survives a crash too (best effort: the data is there). */
	dfd = openat(o->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
}

/* Whether standard output is the very thing that failed. */
static bool stdout_failed(const struct fsb_output *o)
{
	struct stat st;

	if (o->target == FSB_OUTPUT_FD)
		return o->fd == STDOUT_FILENO;
	return o->target == FSB_OUTPUT_DIRECT && fstat(STDOUT_FILENO, &st) == 0 &&
	       same_object(&st, &o->st);
}

/* The report in a file of its own: O_EXCL, 0600, in dir. 0 or -errno. */
static int keep_in(const char *dir, const char *ext, const void *buf, size_t len, char *where,
		   size_t wlen)
{
	int fd = -1, err;

	for (unsigned i = 0; fd < 0 && i < 10; i++) {
		int n = i ? snprintf(where, wlen, "%s/fsbench-result.%d-%u.%s", dir, (int)getpid(),
				     i, ext)
			  : snprintf(where, wlen, "%s/fsbench-result.%d.%s", dir, (int)getpid(),
				     ext);

		if (n < 0 || (size_t)n >= wlen)
			return -ENAMETOOLONG;
		fd = open(where, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	err = fsb_write_full(fd, buf, len);
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (err)
		fsb_cleanup_unlinkat(AT_FDCWD, where, 0);
	return err;
}

/* Keep the report somewhere named; where says where. 0 or -errno. */
static int keep(const struct fsb_output *o, const void *buf, size_t len, char *where, size_t wlen)
{
	const char *tmpdir = getenv("TMPDIR");
	int err = -ENOENT;

	if (tmpdir && tmpdir[0] == '/')
		err = keep_in(tmpdir, o->ext, buf, len, where, wlen);
	if (err && (!tmpdir || strcmp(tmpdir, "/tmp")))
		err = keep_in("/tmp", o->ext, buf, len, where, wlen);
	if (err && !stdout_failed(o)) {
		fflush(stdout);
		err = fsb_write_full(STDOUT_FILENO, buf, len);
		if (!err)
			snprintf(where, wlen, "standard output");
	}
	return err;
}

int fsb_output_commit(struct fsb_output *o, const void *buf, size_t len)
{
	char who[PATH_MAX + 32], where[PATH_MAX + 64];
	const char *why = NULL;
	int err;

	/* Never opened (a caller's early path): standard output, as before. */
	if (!o->opened) {
		o->target = FSB_OUTPUT_FD;
		o->fd = STDOUT_FILENO;
		o->ext = "txt";
	}
	switch (o->target) {
	case FSB_OUTPUT_FD:
	default:
		/* Whatever stdio holds for this descriptor goes first. */
		if (o->fd == STDOUT_FILENO)
			fflush(stdout);
		else if (o->fd == STDERR_FILENO)
			fflush(stderr);
		err = fsb_write_full(o->fd, buf, len);
		break;
	case FSB_OUTPUT_DIRECT:
		err = write_direct(o, buf, len, &why);
		break;
	case FSB_OUTPUT_REPLACE:
		err = write_replace(o, buf, len, &why);
		break;
	}
	if (!err)
		return 0;
	subject(o, who, sizeof(who));
	if (!why)
		why = fsb_err_reason(err);
	if (!keep(o, buf, len, where, sizeof(where))) {
		if (!strcmp(where, "standard output"))
			fsb_err("cannot write %s: %s (the result is on standard output)", who, why);
		else
			fsb_err("cannot write %s: %s (the result is in '%s')", who, why, where);
	} else {
		fsb_err("cannot write %s: %s (and no copy of the result could be kept)", who, why);
	}
	return err;
}
