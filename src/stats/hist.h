/*
 * Log-linear latency histogram (the HdrHistogram idea, fixed size).
 *
 * Values (nanoseconds) below 2^FSB_HIST_SUB_BITS are counted exactly; above,
 * each power-of-two range is split into 2^(FSB_HIST_SUB_BITS-1) equal buckets,
 * so any recorded value is known to within 2/2^FSB_HIST_SUB_BITS (~3%).
 * The struct is plain data with no pointers: it can live in shared memory
 * written by forked seekers and be merged by the parent.
 */
#ifndef FSB_STATS_HIST_H
#define FSB_STATS_HIST_H
#include <stdint.h>

#define FSB_HIST_SUB_BITS 6
#define FSB_HIST_SUB (1u << FSB_HIST_SUB_BITS)
/* Exact values 0..SUB-1, then one group of SUB/2 buckets per power of two
 * from 2^SUB_BITS up to 2^63 (the top half of each group's range). */
#define FSB_HIST_BUCKETS (FSB_HIST_SUB + (64 - FSB_HIST_SUB_BITS) * (FSB_HIST_SUB / 2))

struct fsb_hist {
	uint64_t count;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t sum_ns;
	uint64_t bucket[FSB_HIST_BUCKETS];
};

/* Empty the histogram. */
void fsb_hist_init(struct fsb_hist *h);

/* Record one value. */
void fsb_hist_add(struct fsb_hist *h, uint64_t ns);

/* Add every count of src into dst. */
void fsb_hist_merge(struct fsb_hist *dst, const struct fsb_hist *src);

/*
 * The value at percentile p (0..100): the smallest recorded bucket whose
 * cumulative count reaches p% of all values, reported as the bucket's upper
 * bound clamped to [min, max]. 0 for an empty histogram.
 */
uint64_t fsb_hist_percentile(const struct fsb_hist *h, double p);

/* Bucket index for a value, and the largest value a bucket holds (tests). */
unsigned fsb_hist_bucket_of(uint64_t ns);
uint64_t fsb_hist_bucket_max(unsigned idx);
/* The smallest value a bucket holds (idx < FSB_HIST_BUCKETS). */
uint64_t fsb_hist_bucket_min(unsigned idx);

#endif
