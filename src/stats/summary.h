/* Summaries of repeated measurements: median, min, max, mean, CV. Pure. */
#ifndef FSB_STATS_SUMMARY_H
#define FSB_STATS_SUMMARY_H
#include <stddef.h>

struct fsb_summary {
	double median;
	double min;
	double max;
	double mean;
	double sd; /* sample standard deviation; 0 for n < 2 */
	double cv; /* sd / mean; 0 for n < 2 or a mean of 0 */
	size_t n;  /* how many values */
};

/*
 * Summarise n values (n >= 1; the array is not modified). The median of an
 * even count is the mean of the two middle values. Returns 0, or -EINVAL
 * for n == 0.
 */
int fsb_summary_compute(const double *v, size_t n, struct fsb_summary *out);

/*
 * The two-sided 95% quantile of Student's t distribution with df degrees
 * of freedom (t 0.975, df), from the standard t table (as printed in any
 * statistics text, e.g. NIST/SEMATECH e-Handbook of Statistical Methods,
 * section 1.3.6.7.2, "Critical values of the Student's t distribution"),
 * for df 1 to 30; above 30 the value of 30 (2.042, a little wider than
 * the exact quantile: the interval errs on the wide side). 0 for df 0.
 */
double fsb_t95(unsigned df);

/*
 * The 95% confidence interval of the mean of the values summarised in s
 * (by fsb_summary_compute, of n >= 2 values): mean -+ t95(n - 1) x sd /
 * sqrt(n), its low end never below 0 (the values are rates and times:
 * three runs of 0.1, 1 and 2 GB/s would otherwise give a negative rate).
 * Returns 0, or -EINVAL for n < 2.
 */
int fsb_summary_ci95(const struct fsb_summary *s, double *lo, double *hi);

/* A figure whose CV exceeds this is flagged noisy in every view. */
#define FSB_NOISY_CV 0.10

#endif
