/*
 * The runner: owns clocks, CPU accounting, device counters, repeats and
 * the decision to grow the work. Workloads only do the work.
 */
#ifndef FSB_CORE_RUNNER_H
#define FSB_CORE_RUNNER_H
#include <stdbool.h>

#include "report/result.h"
#include "workloads/workload.h"

struct fsb_runner {
	const struct fsb_config *cfg;
	const char *dir;              /* scratch directory */
	const void *ext;              /* passed to workloads as ctx->ext */
	const char *diskstat_path;    /* /sys/.../stat of the device, or NULL */
	bool progress;                /* progress lines on stderr */
	const char *progress_prefix;  /* e.g. "ext4 (2/3) " for matrix; may be NULL */
};

/*
 * Measure one workload: grow its work until a run lasts cfg->min_time_ns
 * (short runs are discarded, see fsb_scale_next), then take cfg->repeat
 * measured runs of that work, and append the figure to res (runs, median,
 * min, max, CV, %CPU, latency percentiles, device bytes).
 * Returns 0, -EINTR when SIGINT/SIGTERM stopped it, or the workload's
 * -errno (already described by the workload).
 */
int fsb_runner_measure(const struct fsb_runner *rn, const struct fsb_workload_ops *ops,
		       struct fsb_result *res);

#endif
