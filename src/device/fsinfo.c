#include "device/fsinfo.h"

#include <errno.h>
#include <libmount.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

int fsb_fsinfo_for_path(const char *path, struct fsb_fsinfo *out)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_fs *fs;
	char *real = realpath(path, NULL);
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!tb || !real) {
		err = real ? -ENOMEM : -errno;
		goto out;
	}
	err = mnt_table_parse_mtab(tb, NULL);
	if (err)
		goto out;
	fs = mnt_table_find_mountpoint(tb, real, MNT_ITER_BACKWARD);
	if (!fs) {
		err = -ENOENT;
		goto out;
	}
	copy(out->fs_type, sizeof(out->fs_type), mnt_fs_get_fstype(fs));
	copy(out->options, sizeof(out->options), mnt_fs_get_options(fs));
	copy(out->source, sizeof(out->source), mnt_fs_get_source(fs));
	copy(out->target, sizeof(out->target), mnt_fs_get_target(fs));
out:
	free(real);
	mnt_unref_table(tb);
	return err < 0 ? err : err ? -EINVAL : 0;
}

bool fsb_fsinfo_is_cow(const char *fs_type)
{
	static const char *const cow[] = { "btrfs", "bcachefs", "zfs" };

	for (size_t i = 0; fs_type && i < sizeof(cow) / sizeof(cow[0]); i++)
		if (!strcmp(fs_type, cow[i]))
			return true;
	return false;
}

uint64_t fsb_fsinfo_cow_window(const char *fs_type)
{
	if (!fsb_fsinfo_is_cow(fs_type))
		return 0;
	return !strcmp(fs_type, "btrfs") ? 128ull << 20 : UINT64_MAX;
}
