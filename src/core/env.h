/*
 * The environment a result was measured in, recorded in it for the
 * caveats (report/caveats.h): host.virtualization, the balloon's free
 * page reporting, whether the storage is memory (setup.ram_backed), and
 * the loop device under the filesystem (setup.loop_*).
 */
#ifndef FSB_CORE_ENV_H
#define FSB_CORE_ENV_H
#include "report/result.h"

/*
 * Probe this machine and the storage under the result (r->setup.fs_type
 * and devname, the name of its block device in /sys/block, or NULL) and
 * record the facts in r; marks r as carrying caveats. 0 or -ENOMEM
 * (described).
 */
int fsb_env_record(struct fsb_result *r, const char *devname);

/*
 * The share (0..1) of the backing file of r's buffered loop device
 * (setup.loop_device with loop_dio false) that is in the page cache now
 * (device/cache.h, fsb_cache_resident): the file opened read-only, never
 * read or written. 0, -ENOENT when r has no buffered loop device, or
 * another -errno (the file gone, not a regular file). Not described.
 */
int fsb_env_loop_resident(const struct fsb_result *r, double *share);

#endif
