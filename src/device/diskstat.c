#include "device/diskstat.h"
#include "util/io.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int fsb_diskstat_parse(const char *text, struct fsb_diskstat *out)
{
	unsigned long long f[7];

	/* reads merges sectors ticks writes merges sectors ... */
	if (sscanf(text, "%llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4],
		   &f[5], &f[6]) != 7)
		return -EINVAL;
	out->read_sectors = f[2];
	out->write_sectors = f[6];
	return 0;
}

int fsb_diskstat_read(const char *stat_path, struct fsb_diskstat *out)
{
	char *text;
	size_t len;
	int err = fsb_read_file(stat_path, 4096, &text, &len);

	if (err)
		return err;
	err = fsb_diskstat_parse(text, out);
	free(text);
	return err;
}

static uint64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? (b - a) * 512 : 0;
}

uint64_t fsb_diskstat_read_bytes(const struct fsb_diskstat *before,
				 const struct fsb_diskstat *after)
{
	return delta(before->read_sectors, after->read_sectors);
}

uint64_t fsb_diskstat_write_bytes(const struct fsb_diskstat *before,
				  const struct fsb_diskstat *after)
{
	return delta(before->write_sectors, after->write_sectors);
}

static int stat_path_of(dev_t dev, char *out, size_t len, char *name, size_t name_len)
{
	char link[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	if ((size_t)snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev)) >=
	    sizeof(link))
		return -ENAMETOOLONG;
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	target[n] = '\0';
	if ((size_t)snprintf(out, len, "%s/stat", link) >= len)
		return -ENAMETOOLONG;
	if (access(out, R_OK) < 0)
		return -ENODEV;
	if (name && (size_t)snprintf(name, name_len, "%s", basename(target)) >= name_len)
		return -ENAMETOOLONG;
	return 0;
}

int fsb_diskstat_path_for(const char *path, char *out, size_t len, char *name, size_t name_len)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	/* Anonymous devices (tmpfs, btrfs subvolumes) have major 0. */
	if (major(st.st_dev) == 0)
		return -ENODEV;
	return stat_path_of(st.st_dev, out, len, name, name_len);
}

int fsb_diskstat_path_for_dev(const char *devnode, char *out, size_t len)
{
	struct stat st;

	if (stat(devnode, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	return stat_path_of(st.st_rdev, out, len, NULL, 0);
}

/* Entries of a directory, "." and ".." aside; -errno when it cannot be read. */
static long count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	long n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* Whether the btrfs holding the device `name` has it as its only device
 * (/sys/fs/btrfs/FSID/devices/ lists a filesystem's devices). */
static bool btrfs_alone_on(const char *name)
{
	char path[PATH_MAX];
	DIR *d = opendir("/sys/fs/btrfs");
	struct dirent *e;
	bool alone = false;

	if (!d)
		return false;
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(path, sizeof(path), "/sys/fs/btrfs/%s/devices/%s", e->d_name,
				     name) >= sizeof(path) ||
		    lstat(path, &st) < 0)
			continue;
		*strrchr(path, '/') = '\0';
		alone = count_entries(path) == 1;
		break;
	}
	closedir(d);
	return alone;
}

int fsb_diskstat_path_for_mount(const char *fs_type, const char *source, char *out, size_t len,
				char *name, size_t name_len)
{
	struct stat st;
	int err;

	if (!fs_type || strcmp(fs_type, "btrfs") || !source || strncmp(source, "/dev/", 5))
		return -ENODEV;
	if (stat(source, &st) < 0 || !S_ISBLK(st.st_mode))
		return -ENODEV;
	err = stat_path_of(st.st_rdev, out, len, name, name_len);
	if (err)
		return err;
	return btrfs_alone_on(name) ? 0 : -EXDEV;
}
