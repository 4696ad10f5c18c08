/*
 * The environment a result was measured in, recorded in it for the
 * caveats (report/caveats.h): host.virtualization, the balloon's free
 * page reporting, and whether the storage is memory (setup.ram_backed).
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

#endif
