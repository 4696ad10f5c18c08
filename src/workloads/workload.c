/* What every workload shares (workload.h). */
#include "workloads/workload.h"
#include "engines/engine.h"
#include "util/error.h"
#include "util/size.h"

#include <errno.h>
#include <string.h>

bool fsb_workload_no_data(const struct fsb_workload_ops *ops, const struct fsb_config *cfg)
{
	return (ops->flags & FSB_WL_ENGINE) && cfg->engine &&
	       (cfg->engine->flags & FSB_ENGINE_NODATA);
}

int fsb_workload_io_error(const char *test, const char *what, const char *path, uint64_t off,
			  int err, uint64_t need)
{
	char buf[32];

	if (err == -EINTR && fsb_stop_requested())
		return err;
	if (err == -ENOSPC)
		fsb_err("%s: cannot %s '%s' at offset %llu: %s (the test needs %s)", test, what,
			path, (unsigned long long)off, strerror(-err),
			fsb_size_format_human(need, buf, sizeof(buf)));
	else
		fsb_err("%s: cannot %s '%s' at offset %llu: %s", test, what, path,
			(unsigned long long)off,
			err ? fsb_err_reason(err) : "unexpected end of file");
	return err ? err : -EIO;
}
