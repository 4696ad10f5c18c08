/*
 * The figures of jobs that run at once (--jobs), as IOR computes them: the
 * aggregate of a run is the total work of all jobs over the time from the
 * first start to the last end (IOR's GetTimes), so a straggler lengthens
 * the run rather than being averaged away; each job also has its own rate
 * (its work over its own duration), and the jobs' spread is their min,
 * median and max. Pure arithmetic, unit-tested.
 */
#ifndef FSB_STATS_AGGREGATE_H
#define FSB_STATS_AGGREGATE_H
#include <stddef.h>
#include <stdint.h>

#include "stats/summary.h"

/* One job's part of a run: its work and when it started and ended (any
 * origin the jobs share). */
struct fsb_job_span {
	uint64_t work;
	uint64_t start_ns, end_ns;
};

/* Work per second from a total and the first start and last end; 0 when
 * no time passed (end <= start). The aggregate of jobs (the runner's
 * figure): all their work over the earliest start to the latest end. */
double fsb_agg_rate_of(uint64_t work, uint64_t first_start_ns, uint64_t last_end_ns);

/* One job's own rate: its work / (its end - its start), per second. */
double fsb_agg_job_rate(const struct fsb_job_span *job);

/*
 * The spread of njobs jobs measured nruns times each: rates holds each
 * job's rate in each run, job-major (rates[j * nruns + r]). A job's figure
 * is the median of its runs (written to job_median[j] when not NULL); out
 * gets the min, median and max (and mean, CV) of those figures. Returns 0,
 * -EINVAL for no job or no run, or -ENOMEM.
 */
int fsb_agg_spread(const double *rates, size_t njobs, size_t nruns, double *job_median,
		   struct fsb_summary *out);

#endif
