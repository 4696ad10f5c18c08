#include "util/scratch.h"
#include "util/fault.h"
#include "util/io.h"
#include "util/marker.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int fsb_scratch_create(const char *parent, char *out, size_t len)
{
	int err;

	if ((size_t)snprintf(out, len, "%s/fsbench.%ld.XXXXXX", parent, (long)getpid()) >= len)
		return -ENAMETOOLONG;
	/* mkdtemp's mkdir is no symbol libfiu's preload can fail. */
	FSB_FAULT_NEG("fsbench/io/mkdir");
	if (!mkdtemp(out))
		return -errno;
	err = fsb_marker_create(out);
	if (err) {
		rmdir(out);
		return err;
	}
	return 0;
}

int fsb_scratch_name_ok(const char *name)
{
	size_t n;

	if (strncmp(name, "fsbench.", 8))
		return 0;
	name += 8;
	n = strspn(name, "0123456789");
	if (!n || name[n] != '.')
		return 0;
	name += n + 1;
	for (n = 0; name[n]; n++)
		if (!isalnum((unsigned char)name[n]))
			return 0;
	return n == 6;
}

static int remove_err;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	/* The top directory and its marker are removed after the walk. */
	if (ftw->level == 0 || (ftw->level == 1 && !strcmp(path + ftw->base, FSB_MARKER_NAME)))
		return 0;
	if (remove(path) < 0 && errno != ENOENT && !remove_err)
		remove_err = -errno;
	return 0;
}

/* Whether nothing but the marker is left in path (nftw skips, without a
 * word, what FTW_MOUNT keeps it out of). 0, -ENOTEMPTY or -errno. */
static int only_marker_left(const char *path)
{
	struct dirent *e;
	DIR *d = opendir(path);
	int err = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!err && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strcmp(e->d_name, FSB_MARKER_NAME))
			err = -ENOTEMPTY;
	closedir(d);
	return err;
}

int fsb_scratch_remove(const char *path)
{
	char marker[PATH_MAX];
	int err;

	if ((size_t)snprintf(marker, sizeof(marker), "%s/%s", path, FSB_MARKER_NAME) >=
	    sizeof(marker))
		return -ENAMETOOLONG;
	remove_err = 0;
	/* FTW_DEPTH: children first; FTW_PHYS: never follow links; FTW_MOUNT:
	 * never descend into something mounted below the scratch dir. */
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (remove_err)
		return remove_err;
	if ((err = only_marker_left(path)))
		return err;
	if (fsb_cleanup_unlinkat(AT_FDCWD, marker, 0) < 0 && errno != ENOENT)
		return -errno;
	if (rmdir(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int fsb_scratch_open_dir(const char *root, const char *dir)
{
	const int how = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	size_t n = strlen(root);
	const char *rest;
	char comp[NAME_MAX + 1];
	int fd, next;

	if (strncmp(dir, root, n) || (dir[n] && dir[n] != '/'))
		return -EINVAL;
	rest = dir + n;
	fd = fsb_cleanup_openat(AT_FDCWD, root, how);
	if (fd < 0)
		return -errno;
	while (*rest) {
		size_t len;

		rest += strspn(rest, "/");
		if (!*rest)
			break;
		len = strcspn(rest, "/");
		/* ".." is no symlink, yet leads out of root: never below it. */
		if ((len == 1 && rest[0] == '.') || (len == 2 && !strncmp(rest, "..", 2))) {
			close(fd);
			return -EINVAL;
		}
		if (len > NAME_MAX) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(comp, rest, len);
		comp[len] = '\0';
		rest += len;
		next = fsb_cleanup_openat(fd, comp, how);
		if (next < 0)
			next = -errno;
		close(fd);
		if (next < 0)
			return next;
		fd = next;
	}
	return fd;
}

int fsb_scratch_path(const char *dir, const char *name, char *out, size_t len)
{
	if ((size_t)snprintf(out, len, "%s/%s", dir, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

uint64_t fsb_scratch_file_size(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	/* Never through a symlink planted as the file: its target is not
	 * ours to measure (and every open of it refuses it). */
	if (fsb_scratch_path(dir, name, path, sizeof(path)) || lstat(path, &st) < 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	return (uint64_t)st.st_size;
}

uint64_t fsb_scratch_space(const char *dir, uint64_t reuse)
{
	struct statvfs vfs;
	uint64_t free_bytes, margin;

	if (statvfs(dir, &vfs) < 0)
		return 0;
	free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize + reuse;
	/* Leave room for metadata and the other test file. */
	margin = free_bytes / 20 + (4u << 20);
	return free_bytes > margin ? free_bytes - margin : 0;
}
