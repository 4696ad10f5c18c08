#include "stats/hist.h"

#include <math.h>
#include <string.h>

void fsb_hist_init(struct fsb_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

unsigned fsb_hist_bucket_of(uint64_t ns)
{
	unsigned msb, shift;

	if (ns < FSB_HIST_SUB)
		return (unsigned)ns;
	msb = 63u - (unsigned)__builtin_clzll(ns); /* >= SUB_BITS */
	shift = msb - (FSB_HIST_SUB_BITS - 1);	   /* keep SUB_BITS bits */
	/* (ns >> shift) is in [SUB/2, SUB): the group's half-range bucket. */
	return FSB_HIST_SUB + (msb - FSB_HIST_SUB_BITS) * (FSB_HIST_SUB / 2) +
	       (unsigned)((ns >> shift) - FSB_HIST_SUB / 2);
}

uint64_t fsb_hist_bucket_max(unsigned idx)
{
	unsigned group, sub, msb, shift;

	if (idx < FSB_HIST_SUB)
		return idx;
	group = (idx - FSB_HIST_SUB) / (FSB_HIST_SUB / 2);
	sub = (idx - FSB_HIST_SUB) % (FSB_HIST_SUB / 2) + FSB_HIST_SUB / 2;
	msb = group + FSB_HIST_SUB_BITS;
	shift = msb - (FSB_HIST_SUB_BITS - 1);
	if (msb == 63 && sub == FSB_HIST_SUB - 1)
		return UINT64_MAX;
	return (((uint64_t)sub + 1) << shift) - 1;
}

uint64_t fsb_hist_bucket_min(unsigned idx)
{
	/* Buckets tile the values without gaps: each starts after the last. */
	return idx ? fsb_hist_bucket_max(idx - 1) + 1 : 0;
}

void fsb_hist_add(struct fsb_hist *h, uint64_t ns)
{
	h->count++;
	h->sum_ns += ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->bucket[fsb_hist_bucket_of(ns)]++;
}

void fsb_hist_merge(struct fsb_hist *dst, const struct fsb_hist *src)
{
	if (!src->count)
		return;
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (unsigned i = 0; i < FSB_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

uint64_t fsb_hist_percentile(const struct fsb_hist *h, double p)
{
	uint64_t want, seen = 0;

	if (!h->count)
		return 0;
	if (p <= 0)
		return h->min_ns;
	if (p >= 100)
		return h->max_ns;
	want = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (want < 1)
		want = 1;
	for (unsigned i = 0; i < FSB_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= want) {
			uint64_t v = fsb_hist_bucket_max(i);
			if (v > h->max_ns)
				v = h->max_ns;
			if (v < h->min_ns)
				v = h->min_ns;
			return v;
		}
	}
	return h->max_ns;
}
