#include "device/fshealth.h"
#include "device/btrfs_space.h"
#include "device/fsinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

/* ext4 counts the errors it met since mkfs in /sys/fs/ext4/<dev>/, the
 * kernel's name of the device (dm-3 for /dev/mapper/x: the real path). */
static bool ext4_errors(const char *source, uint64_t *out)
{
	char *real = realpath(source, NULL), path[PATH_MAX];
	const char *name;
	unsigned long long v;
	bool ok = false;
	FILE *f;

	if (!real)
		return false;
	name = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	if ((size_t)snprintf(path, sizeof(path), "/sys/fs/ext4/%s/errors_count", name) <
		    sizeof(path) &&
	    (f = fopen(path, "re"))) {
		ok = fscanf(f, "%llu", &v) == 1;
		fclose(f);
		*out = v;
	}
	free(real);
	return ok;
}

int fsb_fshealth_read(const char *dir, struct fsb_fshealth *out)
{
	struct fsb_fsinfo fsi;
	struct statvfs sv;

	memset(out, 0, sizeof(*out));
	if (statvfs(dir, &sv) < 0)
		return -errno;
	out->rdonly = (sv.f_flag & ST_RDONLY) != 0;
	if (fsb_fsinfo_for_path(dir, &fsi))
		return 0;
	if (!strcmp(fsi.fs_type, "ext4") && ext4_errors(fsi.source, &out->errors)) {
		out->have_errors = true;
		snprintf(out->what, sizeof(out->what), "ext4 errors_count");
	} else if (!strcmp(fsi.fs_type, "btrfs") && !fsb_btrfs_dev_errors(dir, &out->errors)) {
		out->have_errors = true;
		snprintf(out->what, sizeof(out->what), "btrfs device stats");
	}
	return 0;
}
