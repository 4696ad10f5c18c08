/* The environment of a result (core/env.h). */
#include "core/env.h"
#include "device/env.h"
#include "util/error.h"

#include <errno.h>
#include <stdbool.h>

int fsb_env_record(struct fsb_result *r, const char *devname)
{
	char virt[64], vendor[16], why[256];
	bool has_cpuid = fsb_env_cpuid_vendor(vendor, sizeof(vendor));

	fsb_env_virt("/", has_cpuid ? vendor : NULL, virt, sizeof(virt));
	fsb_env_balloon("/", &r->host.has_balloon, &r->host.balloon_free_page_reporting);
	if (fsb_strset(&r->host.virtualization, virt) ||
	    (fsb_env_ram_backed("/", r->setup.fs_type, devname, why, sizeof(why)) &&
	     fsb_strset(&r->setup.ram_backed, why))) {
		fsb_err("out of memory");
		return -ENOMEM;
	}
	r->has_caveats = true;
	return 0;
}
