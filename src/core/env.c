/* The environment of a result (core/env.h). */
#include "core/env.h"
#include "device/cache.h"
#include "device/env.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

int fsb_env_loop_resident(const struct fsb_result *r, double *share)
{
	struct stat st;
	int fd, err = 0;

	if (!r->setup.loop_device || r->setup.loop_dio || !r->setup.loop_backing)
		return -ENOENT;
	/*
	 * Read-only, and never read: mincore maps the file and asks which
	 * pages are in memory, which reads none and changes no time stamp
	 * (no O_NOATIME needed, which only the owner may ask for).
	 * O_NONBLOCK: a FIFO put in its place must not hang the run.
	 */
	fd = open(r->setup.loop_backing, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -ENOTSUP; /* a block device's cache is not a file's pages */
	else
		err = fsb_cache_resident(fd, share);
	close(fd);
	return err;
}

/* The loop device under the filesystem, if it is one, and how much of a
 * buffered one's backing file is in memory now. */
static int record_loop(struct fsb_result *r, const char *devname)
{
	char name[40], backing[PATH_MAX];
	double share;
	bool dio;

	if (!fsb_env_loop("/", devname, name, sizeof(name), backing, sizeof(backing), &dio))
		return 0;
	/* An unproven name stays unset (reported unknown): never another
	 * file's resident share. */
	if (fsb_strset(&r->setup.loop_device, name) ||
	    (backing[0] && fsb_strset(&r->setup.loop_backing, backing)))
		return -ENOMEM;
	r->setup.loop_dio = dio;
	if (!fsb_env_loop_resident(r, &share)) {
		r->setup.has_loop_resident = true;
		r->setup.loop_resident = share;
	}
	return 0;
}

int fsb_env_record(struct fsb_result *r, const char *devname)
{
	char virt[64], vendor[16], why[256];
	bool has_cpuid = fsb_env_cpuid_vendor(vendor, sizeof(vendor));

	fsb_env_virt("/", has_cpuid ? vendor : NULL, virt, sizeof(virt));
	fsb_env_balloon("/", &r->host.has_balloon, &r->host.balloon_free_page_reporting);
	if (fsb_strset(&r->host.virtualization, virt) ||
	    (fsb_env_ram_backed("/", r->setup.fs_type, devname, why, sizeof(why)) &&
	     fsb_strset(&r->setup.ram_backed, why)) ||
	    record_loop(r, devname)) {
		fsb_err("out of memory");
		return -ENOMEM;
	}
	r->has_caveats = true;
	return 0;
}
