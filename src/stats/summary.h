/* Summaries of repeated measurements: median, min, max, mean, CV. Pure. */
#ifndef FSB_STATS_SUMMARY_H
#define FSB_STATS_SUMMARY_H
#include <stddef.h>

struct fsb_summary {
	double median;
	double min;
	double max;
	double mean;
	double cv; /* sample standard deviation / mean; 0 for n < 2 */
};

/*
 * Summarise n values (n >= 1; the array is not modified). The median of an
 * even count is the mean of the two middle values. Returns 0, or -EINVAL
 * for n == 0.
 */
int fsb_summary_compute(const double *v, size_t n, struct fsb_summary *out);

/* A figure whose CV exceeds this is flagged noisy in every view. */
#define FSB_NOISY_CV 0.10

#endif
