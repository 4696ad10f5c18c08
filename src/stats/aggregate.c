#include "stats/aggregate.h"

#include <errno.h>
#include <stdlib.h>

double fsb_agg_rate_of(uint64_t work, uint64_t first_start_ns, uint64_t last_end_ns)
{
	if (last_end_ns <= first_start_ns)
		return 0;
	return (double)work / ((double)(last_end_ns - first_start_ns) / 1e9);
}

double fsb_agg_job_rate(const struct fsb_job_span *job)
{
	return fsb_agg_rate_of(job->work, job->start_ns, job->end_ns);
}

int fsb_agg_spread(const double *rates, size_t njobs, size_t nruns, double *job_median,
		   struct fsb_summary *out)
{
	struct fsb_summary one;
	double *med;
	int err = 0;

	if (!njobs || !nruns)
		return -EINVAL;
	med = malloc(njobs * sizeof(*med));
	if (!med)
		return -ENOMEM;
	for (size_t j = 0; j < njobs && !err; j++) {
		err = fsb_summary_compute(rates + j * nruns, nruns, &one);
		med[j] = one.median;
		if (job_median)
			job_median[j] = one.median;
	}
	if (!err)
		err = fsb_summary_compute(med, njobs, out);
	free(med);
	return err;
}
