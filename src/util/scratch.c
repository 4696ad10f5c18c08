#include "util/scratch.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int fsb_scratch_create(const char *parent, char *out, size_t len)
{
	if ((size_t)snprintf(out, len, "%s/fsbench.%ld.XXXXXX", parent, (long)getpid()) >= len)
		return -ENAMETOOLONG;
	if (!mkdtemp(out))
		return -errno;
	return 0;
}

static int remove_err;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (remove(path) < 0 && errno != ENOENT && !remove_err)
		remove_err = -errno;
	(void)flag;
	return 0;
}

int fsb_scratch_remove(const char *path)
{
	remove_err = 0;
	/* FTW_DEPTH: children first; FTW_PHYS: never follow links; FTW_MOUNT:
	 * never descend into something mounted below the scratch dir. */
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0 && errno != ENOENT)
		return -errno;
	return remove_err;
}
