#include "device/image.h"
#include "device/loop.h"
#include "device/probe.h"
#include "util/error.h"
#include "util/size.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* /proc/locks lists every lock in the system: read at most this much. */
#define LOCKS_MAX (1u << 20)

static const char *kind_of(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "a directory";
	case S_IFBLK:
		return "a block device";
	case S_IFCHR:
		return "a character device";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFLNK:
		return "a symbolic link";
	}
	return "something else";
}

enum fsb_image_rule fsb_image_decide(const struct fsb_image_facts *f, bool destroy_data, char *why,
				     size_t len)
{
	static const char override[] = "pass --destroy-data to overwrite it";
	enum fsb_image_rule rule = FSB_IMAGE_OK;
	char buf[PATH_MAX + 512], resize[128] = "", a[32], b[32];

	buf[0] = '\0';
	/* Saying it once is enough: --image-size on a file with data in it
	 * would cut or grow that data. */
	if (f->exists && f->want_bytes && f->want_bytes != f->size_bytes)
		snprintf(resize, sizeof(resize),
			 " (and --image-size would resize it from %s to %s)",
			 fsb_size_format_human(f->size_bytes, a, sizeof(a)),
			 fsb_size_format_human(f->want_bytes, b, sizeof(b)));
	if (!f->exists) {
		if (!f->want_bytes) {
			rule = FSB_IMAGE_MISSING;
			snprintf(buf, sizeof(buf),
				 "image '%s' does not exist: give --image-size to "
				 "create it",
				 f->path);
		}
	} else if (f->is_symlink) {
		rule = FSB_IMAGE_SYMLINK;
		snprintf(buf, sizeof(buf),
			 "refusing image '%s': it is a symbolic link (rule: "
			 "symlink; never followed: give the path of the file itself)",
			 f->path);
	} else if (!S_ISREG(f->mode)) {
		rule = FSB_IMAGE_NOT_REGULAR;
		snprintf(buf, sizeof(buf),
			 "refusing image '%s': it is %s, not a regular file "
			 "(rule: not a file; use --device for block devices)",
			 f->path, kind_of(f->mode));
	} else if (f->uid != f->euid) {
		rule = FSB_IMAGE_OWNER;
		snprintf(buf, sizeof(buf),
			 "refusing image '%s': it is owned by uid %u, not by "
			 "uid %u who runs fsbench (rule: owner; never overridden: its owner could "
			 "change it under a mount); use an image of your own",
			 f->path, (unsigned)f->uid, (unsigned)f->euid);
	} else if (f->loop_dev[0]) {
		rule = FSB_IMAGE_LOOP;
		snprintf(buf, sizeof(buf),
			 "image '%s' is in use: it backs loop device '%s' "
			 "(rule: in use); detach it first",
			 f->path, f->loop_dev);
	} else if (destroy_data) {
		rule = FSB_IMAGE_OK;
	} else if (f->signature) {
		rule = FSB_IMAGE_SIGNATURE;
		snprintf(buf, sizeof(buf),
			 "refusing image '%s': it carries a %s signature (%s) "
			 "(rule: signature)%s; %s",
			 f->path, f->sig_usage[0] ? f->sig_usage : "data",
			 f->sig_type[0] ? f->sig_type : "unknown", resize, override);
	} else if (f->ptable) {
		rule = FSB_IMAGE_PTABLE;
		snprintf(buf, sizeof(buf),
			 "refusing image '%s': it carries a partition table (%s) "
			 "(rule: partition table)%s; %s",
			 f->path, f->pt_type[0] ? f->pt_type : "unknown", resize, override);
	} else if (f->size_bytes) {
		rule = FSB_IMAGE_DATA;
		snprintf(buf, sizeof(buf),
			 "refusing image '%s': it is not empty (%s, no known "
			 "signature) (rule: not empty)%s; %s",
			 f->path, fsb_size_format_human(f->size_bytes, a, sizeof(a)), resize,
			 override);
	}
	if (rule == FSB_IMAGE_OK && f->exists && !f->size_bytes && !f->want_bytes) {
		rule = FSB_IMAGE_EMPTY;
		snprintf(buf, sizeof(buf), "image '%s' is empty: give --image-size", f->path);
	}
	if (why && len)
		snprintf(why, len, "%s", buf);
	return rule;
}

/* ---- locks ---- */

pid_t fsb_image_lock_holder(const char *text, dev_t dev, ino_t ino)
{
	const char *line = text;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		char type[16], arrow[4];
		unsigned ma, mi;
		unsigned long long in;
		long pid;

		/* "N: FLOCK  ADVISORY  WRITE PID MAJ:MIN:INO START END", majors
		 * and minors in hex; a waiter's line has "->" after "N:". */
		if (sscanf(line, "%*s %3s", arrow) == 1 && strcmp(arrow, "->") &&
		    sscanf(line, "%*s %15s %*s %*s %ld %x:%x:%llu", type, &pid, &ma, &mi, &in) ==
			    5 &&
		    !strcmp(type, "FLOCK") && makedev(ma, mi) == dev &&
		    in == (unsigned long long)ino && pid > 0)
			return (pid_t)pid;
		line = end ? end + 1 : NULL;
	}
	return 0;
}

/* The holder's pid from /proc/locks, 0 when it cannot be told. */
static pid_t find_holder(int fd)
{
	struct stat st;
	char *text;
	size_t n = 0;
	ssize_t r;
	pid_t pid = 0;
	int lfd;

	if (fstat(fd, &st) < 0)
		return 0;
	text = malloc(LOCKS_MAX + 1);
	lfd = open("/proc/locks", O_RDONLY | O_CLOEXEC);
	if (!text || lfd < 0)
		goto out;
	while (n < LOCKS_MAX && (r = read(lfd, text + n, LOCKS_MAX - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		n += (size_t)r;
	}
	text[n] = '\0';
	pid = fsb_image_lock_holder(text, st.st_dev, st.st_ino);
out:
	if (lfd >= 0)
		close(lfd);
	free(text);
	return pid;
}

/* Whether process pid is called fsbench (/proc/PID/comm). */
static bool is_fsbench(pid_t pid, char *comm, size_t len)
{
	char path[64];
	FILE *f;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return true; /* gone, or hidden: say what we know */
	if (!fgets(comm, (int)len, f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return !comm[0] || !strncmp(comm, "fsbench", 7);
}

int fsb_image_lock(int fd, const char *what)
{
	char comm[32];
	pid_t pid;
	int err;

	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		err = -errno;
		if (err == -EINTR)
			continue;
		if (err != -EWOULDBLOCK) {
			fsb_err_errno(err, "cannot lock %s", what);
			return err;
		}
		pid = find_holder(fd);
		if (!pid)
			fsb_err("%s is in use by another fsbench (it holds its lock)", what);
		else if (is_fsbench(pid, comm, sizeof(comm)))
			fsb_err("%s is in use by fsbench PID %ld", what, (long)pid);
		else
			fsb_err("%s is in use by PID %ld (%s), which holds a lock on it", what,
				(long)pid, comm);
		return -EBUSY;
	}
	return 0;
}

/*
 * Reopen the file open on an O_PATH descriptor for real I/O: through
 * /proc/self/fd, which names the very file checked, not the path (which
 * may have been swapped since).
 */
static int reopen(int pfd, int flags)
{
	char link[64];

	snprintf(link, sizeof(link), "/proc/self/fd/%d", pfd);
	return open(link, flags | O_CLOEXEC);
}

int fsb_image_lock_device(const char *path, int *fd)
{
	char what[PATH_MAX + 16];
	struct stat st;
	int pfd, err;

	*fd = -1;
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot use device '%s'", path);
		return err;
	}
	if (fstat(pfd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		close(pfd);
		return 0;
	}
	/* O_RDONLY and never O_EXCL: mkfs and mount need the exclusive open. */
	*fd = reopen(pfd, O_RDONLY | O_NONBLOCK);
	close(pfd);
	if (*fd < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot open device '%s'", path);
		return err;
	}
	snprintf(what, sizeof(what), "device '%s'", path);
	if ((err = fsb_image_lock(*fd, what))) {
		close(*fd);
		*fd = -1;
	}
	return err;
}

int fsb_image_claim_device(const char *dev, bool destroy_data, int *lock_fd, uint64_t *size_bytes)
{
	struct fsb_probe_facts *f = calloc(1, sizeof(*f));
	char why[4 * FSB_PROBE_STR + 64];
	enum fsb_probe_rule rule;
	int err;

	*lock_fd = -1;
	if (!f) {
		fsb_err("device '%s': out of memory", dev);
		return -ENOMEM;
	}
	/* What is never overridden needs no open (the device holding '/' may
	 * not even be openable here); then the lock, so a second fsbench is
	 * told who has the device; then whether anything else uses it. */
	if ((err = fsb_probe_gather(dev, f)))
		goto out;
	rule = fsb_probe_decide(f, destroy_data, why, sizeof(why));
	if (rule == FSB_PROBE_NOT_BLOCKDEV || rule == FSB_PROBE_ROOT) {
		fsb_err("%s", why);
		err = -EPERM;
		goto out;
	}
	if ((err = fsb_image_lock_device(dev, lock_fd)) || (err = fsb_probe_gather(dev, f)))
		goto out;
	if (fsb_probe_decide(f, destroy_data, why, sizeof(why)) != FSB_PROBE_OK) {
		fsb_err("%s", why);
		err = -EPERM;
		goto out;
	}
	/* The kernel's word on whether anything holds it right now. */
	if ((err = fsb_probe_claim(dev)))
		goto out;
	*size_bytes = f->size_bytes;
out:
	if (err && *lock_fd >= 0) {
		close(*lock_fd);
		*lock_fd = -1;
	}
	free(f);
	return err;
}

/* ---- images ---- */

void fsb_image_init(struct fsb_image *img)
{
	memset(img, 0, sizeof(*img));
	img->fd = -1;
}

static int set_path(struct fsb_image *img, const char *path)
{
	if ((size_t)snprintf(img->path, sizeof(img->path), "%s", path) >= sizeof(img->path)) {
		/* The why last, from errno: a path this long fills the line. */
		fsb_err_errno(-ENAMETOOLONG, "image '%s'", path);
		return -ENAMETOOLONG;
	}
	return 0;
}

/*
 * Describe and refuse what fsb_image_decide refuses; with identity_only,
 * only the rules about what the path is (symlink, not a file, owner): the
 * rules about its content wait for the lock and the probe.
 */
static int refuse(const struct fsb_image_facts *f, bool destroy_data, bool identity_only)
{
	char why[PATH_MAX + 512];
	enum fsb_image_rule rule = fsb_image_decide(f, destroy_data, why, sizeof(why));

	if (identity_only && rule != FSB_IMAGE_SYMLINK && rule != FSB_IMAGE_NOT_REGULAR &&
	    rule != FSB_IMAGE_OWNER)
		return 0;
	if (rule == FSB_IMAGE_OK)
		return 0;
	fsb_err("%s", why);
	switch (rule) {
	case FSB_IMAGE_MISSING:
		return -ENOENT;
	case FSB_IMAGE_LOOP:
		return -EBUSY;
	case FSB_IMAGE_NOT_REGULAR:
	case FSB_IMAGE_EMPTY:
		return -EINVAL;
	default:
		return -EPERM;
	}
}

int fsb_image_claim(struct fsb_image *img, const char *path, uint64_t size_bytes, bool destroy_data)
{
	struct fsb_image_facts *f = calloc(1, sizeof(*f));
	struct fsb_probe_facts *pf = calloc(1, sizeof(*pf));
	char what[PATH_MAX + 16];
	struct stat st;
	int pfd = -1, err;

	if (!f || !pf) {
		err = -ENOMEM;
		fsb_err("image '%s': out of memory", path);
		goto out;
	}
	fsb_image_init(img);
	img->want_bytes = size_bytes;
	img->destroy_data = destroy_data;
	if ((err = set_path(img, path)))
		goto out;
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->euid = geteuid();
	f->want_bytes = size_bytes;
	/* What the name itself is: O_NOFOLLOW|O_PATH opens a symlink as a
	 * symlink, and a device or FIFO without any of open's side effects. */
	pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0 && errno == ENOENT) {
		if ((err = refuse(f, destroy_data, false)))
			goto out;
		img->missing = true;
		img->size_bytes = size_bytes;
		goto out;
	}
	if (pfd < 0 || fstat(pfd, &st) < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot use image '%s'", path);
		goto out;
	}
	f->exists = true;
	f->is_symlink = S_ISLNK(st.st_mode);
	f->mode = st.st_mode;
	f->uid = st.st_uid;
	f->size_bytes = (uint64_t)st.st_size;
	if ((err = refuse(f, destroy_data, true)))
		goto out;
	img->fd = reopen(pfd, O_RDWR);
	if (img->fd < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot open image '%s'", path);
		goto out;
	}
	/* The lock first: a second fsbench is told who has the image, not
	 * what the first one made of it. */
	snprintf(what, sizeof(what), "image '%s'", path);
	if ((err = fsb_image_lock(img->fd, what)))
		goto out;
	err = fsb_loopdev_find_backing_fd(img->fd, f->loop_dev, sizeof(f->loop_dev));
	if (err < 0) {
		fsb_err_errno(err, "cannot tell whether image '%s' backs a loop device", path);
		goto out;
	}
	if (f->size_bytes) {
		if ((err = fsb_probe_signature_fd(img->fd, path, pf)))
			goto out;
		f->signature = pf->signature;
		f->ptable = pf->ptable;
		snprintf(f->sig_type, sizeof(f->sig_type), "%s", pf->sig_type);
		snprintf(f->sig_usage, sizeof(f->sig_usage), "%s", pf->sig_usage);
		snprintf(f->pt_type, sizeof(f->pt_type), "%s", pf->pt_type);
	}
	if ((err = refuse(f, destroy_data, false)))
		goto out;
	img->size_bytes = size_bytes ? size_bytes : f->size_bytes;
	img->alloc_bytes = (uint64_t)st.st_blocks * 512;
out:
	if (pfd >= 0)
		close(pfd);
	if (err && img->fd >= 0) {
		close(img->fd);
		img->fd = -1;
	}
	free(f);
	free(pf);
	return err;
}

/* Create the image (see fsb_image_create); -EEXIST quietly when quiet. */
static int create(struct fsb_image *img, uint64_t size_bytes, bool quiet)
{
	char what[PATH_MAX + 16];
	int err;

	img->fd = open(img->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (img->fd < 0) {
		err = -errno;
		if (!(quiet && err == -EEXIST))
			fsb_err_errno(err, "cannot create image '%s'", img->path);
		return err;
	}
	snprintf(what, sizeof(what), "image '%s'", img->path);
	/* Someone opened the new file by its name in between: it is theirs. */
	if ((err = fsb_image_lock(img->fd, what))) {
		close(img->fd);
		img->fd = -1;
		return err;
	}
	img->created = true;
	img->missing = false;
	if (ftruncate(img->fd, (off_t)size_bytes) < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot size image '%s'", img->path);
		fsb_image_close(img, true);
		return err;
	}
	img->size_bytes = size_bytes;
	return 0;
}

int fsb_image_make(struct fsb_image *img)
{
	struct stat st;
	int err;

	if (img->missing) {
		err = create(img, img->want_bytes, true);
		if (err != -EEXIST)
			return err;
		/* It appeared since the claim: judged like any existing file. */
		if ((err = fsb_image_claim(img, img->path, img->want_bytes, img->destroy_data)))
			return err;
		if (img->missing) {
			fsb_err("image '%s' keeps appearing and disappearing: refusing it",
				img->path);
			return -EAGAIN;
		}
	}
	if (fstat(img->fd, &st) < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot stat image '%s'", img->path);
		return err;
	}
	/* The claim refused a resize of anything with data, unless
	 * --destroy-data said so. */
	if (img->want_bytes && (uint64_t)st.st_size != img->want_bytes &&
	    ftruncate(img->fd, (off_t)img->want_bytes) < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot size image '%s'", img->path);
		return err;
	}
	img->size_bytes = img->want_bytes ? img->want_bytes : (uint64_t)st.st_size;
	return 0;
}

int fsb_image_create(struct fsb_image *img, const char *path, uint64_t size_bytes)
{
	int err;

	fsb_image_init(img);
	if ((err = set_path(img, path)))
		return err;
	img->want_bytes = size_bytes;
	return create(img, size_bytes, false);
}

int fsb_image_check_space(const struct fsb_image *img)
{
	char dir[PATH_MAX], *slash, a[32], b[32];
	struct statvfs vfs;
	uint64_t need, have;
	int rc;

	if (img->size_bytes <= img->alloc_bytes)
		return 0;
	need = img->size_bytes - img->alloc_bytes;
	snprintf(dir, sizeof(dir), "%s", img->path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	rc = img->fd >= 0 ? fstatvfs(img->fd, &vfs) : statvfs(dir, &vfs);
	if (rc < 0)
		return 0;
	have = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (need <= have)
		return 0;
	fsb_err("image '%s' needs %s more, '%s' has %s free", img->path,
		fsb_size_format_human(need, a, sizeof(a)), dir,
		fsb_size_format_human(have, b, sizeof(b)));
	return -ENOSPC;
}

void fsb_image_close(struct fsb_image *img, bool remove)
{
	struct stat mine, named;

	if (img->fd >= 0 && remove && img->created) {
		/* Unlinked while still locked, and only if the name still is
		 * the file made here. */
		if (!fstat(img->fd, &mine) && !lstat(img->path, &named) &&
		    mine.st_dev == named.st_dev && mine.st_ino == named.st_ino &&
		    unlink(img->path) < 0)
			fsb_err_errno(-errno, "cannot remove image '%s'", img->path);
	}
	if (img->fd >= 0)
		close(img->fd);
	img->fd = -1;
	img->created = false;
}
