/* Unit tests: summaries, the latency histogram, the auto-scaling rule, the
 * aggregation of jobs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "stats/aggregate.h"
#include "stats/clock.h"
#include "stats/hist.h"
#include "stats/scale.h"
#include "stats/summary.h"

static void summary_odd(void **state)
{
	const double v[] = { 5, 1, 3 };
	struct fsb_summary s;
	(void)state;
	assert_int_equal(fsb_summary_compute(v, 3, &s), 0);
	assert_true(s.median == 3 && s.min == 1 && s.max == 5 && s.mean == 3);
	/* sample sd of 1,3,5 is 2; cv = 2/3 */
	assert_true(fabs(s.cv - 2.0 / 3.0) < 1e-12);
	assert_true(v[0] == 5); /* input untouched */
}

static void summary_even_and_single(void **state)
{
	const double v[] = { 4, 1, 2, 3 }, one[] = { 7 };
	struct fsb_summary s;
	(void)state;
	assert_int_equal(fsb_summary_compute(v, 4, &s), 0);
	assert_true(s.median == 2.5 && s.min == 1 && s.max == 4);
	assert_int_equal(fsb_summary_compute(one, 1, &s), 0);
	assert_true(s.median == 7 && s.cv == 0);
	assert_int_equal(fsb_summary_compute(v, 0, &s), -EINVAL);
}

static void summary_constant_has_zero_cv(void **state)
{
	const double v[] = { 10, 10, 10, 10, 10 };
	struct fsb_summary s;
	(void)state;
	assert_int_equal(fsb_summary_compute(v, 5, &s), 0);
	assert_true(s.cv == 0);
}

static void hist_exact_small_values(void **state)
{
	struct fsb_hist h;
	(void)state;
	fsb_hist_init(&h);
	for (uint64_t i = 1; i <= 50; i++)
		fsb_hist_add(&h, i);
	assert_int_equal(h.count, 50);
	assert_int_equal(h.min_ns, 1);
	assert_int_equal(h.max_ns, 50);
	assert_int_equal(fsb_hist_percentile(&h, 50), 25);
	assert_int_equal(fsb_hist_percentile(&h, 99), 50);
	assert_int_equal(fsb_hist_percentile(&h, 100), 50);
	assert_int_equal(fsb_hist_percentile(&h, 0), 1);
}

static void hist_bucket_bounds(void **state)
{
	(void)state;
	/* Every value lands in a bucket whose bounds contain it, and the
	 * relative width of a bucket is at most 1/32. */
	for (uint64_t v = 1; v < (1ull << 62); v = v * 3 + 1) {
		unsigned b = fsb_hist_bucket_of(v);
		assert_true(b < FSB_HIST_BUCKETS);
		assert_true(fsb_hist_bucket_max(b) >= v);
		if (b > 0)
			assert_true(fsb_hist_bucket_max(b - 1) < v);
		if (v >= FSB_HIST_SUB)
			assert_true((double)(fsb_hist_bucket_max(b) - v) / (double)v <= 1.0 / 32);
	}
	assert_true(fsb_hist_bucket_of(UINT64_MAX) == FSB_HIST_BUCKETS - 1);
	assert_true(fsb_hist_bucket_max(FSB_HIST_BUCKETS - 1) == UINT64_MAX);
	/* Each bucket starts right after the one before: a CDF drawn from
	 * them has no gaps. */
	assert_true(fsb_hist_bucket_min(0) == 0);
	for (unsigned i = 1; i < FSB_HIST_BUCKETS; i++) {
		assert_true(fsb_hist_bucket_min(i) == fsb_hist_bucket_max(i - 1) + 1);
		assert_true(fsb_hist_bucket_of(fsb_hist_bucket_min(i)) == i);
	}
}

static void hist_percentiles_large(void **state)
{
	struct fsb_hist h;
	uint64_t p50, p99, p999;
	(void)state;
	fsb_hist_init(&h);
	/* 1..100000 us: p50 ~ 50 ms, p99 ~ 99 ms, p99.9 ~ 99.9 ms */
	for (uint64_t i = 1; i <= 100000; i++)
		fsb_hist_add(&h, i * 1000);
	p50 = fsb_hist_percentile(&h, 50);
	p99 = fsb_hist_percentile(&h, 99);
	p999 = fsb_hist_percentile(&h, 99.9);
	assert_true(p50 >= 50000000ull && p50 <= 50000000ull * 1.04);
	assert_true(p99 >= 99000000ull && p99 <= 99000000ull * 1.04);
	assert_true(p999 >= 99900000ull && p999 <= 100000000ull);
	assert_int_equal(h.max_ns, 100000000ull);
}

static void hist_merge(void **state)
{
	struct fsb_hist a, b;
	(void)state;
	fsb_hist_init(&a);
	fsb_hist_init(&b);
	fsb_hist_add(&a, 10);
	fsb_hist_add(&b, 1000000);
	fsb_hist_add(&b, 5);
	fsb_hist_merge(&a, &b);
	assert_int_equal(a.count, 3);
	assert_int_equal(a.min_ns, 5);
	assert_int_equal(a.max_ns, 1000000);
	assert_int_equal(a.sum_ns, 1000015);
	fsb_hist_init(&b);
	fsb_hist_merge(&a, &b); /* empty merge changes nothing */
	assert_int_equal(a.min_ns, 5);
	fsb_hist_init(&a);
	assert_int_equal(fsb_hist_percentile(&a, 50), 0);
}

static void t_quantiles_and_ci(void **state)
{
	/* Five runs: mean 100, deviations -4 -1 0 2 3, t(4) = 2.776 */
	const double v[5] = { 96, 99, 100, 102, 103 };
	double lo, hi, sd = sqrt((16.0 + 1 + 0 + 4 + 9) / 4);
	struct fsb_summary s;
	(void)state;

	/* the standard table, both ends and a middle row; beyond 30: 30's */
	assert_true(fsb_t95(0) == 0);
	assert_true(fabs(fsb_t95(1) - 12.706) < 1e-9);
	assert_true(fabs(fsb_t95(2) - 4.303) < 1e-9);
	assert_true(fabs(fsb_t95(9) - 2.262) < 1e-9);
	assert_true(fabs(fsb_t95(30) - 2.042) < 1e-9);
	assert_true(fabs(fsb_t95(1000) - 2.042) < 1e-9);
	for (unsigned df = 1; df < 30; df++)
		assert_true(fsb_t95(df) > fsb_t95(df + 1));
	assert_int_equal(fsb_summary_compute(v, 5, &s), 0);
	assert_int_equal(s.n, 5);
	assert_true(fabs(s.sd - sd) < 1e-12);
	assert_true(fabs(s.cv - sd / 100) < 1e-12);
	assert_int_equal(fsb_summary_ci95(&s, &lo, &hi), 0);
	assert_true(fabs(lo - (100 - 2.776 * sd / sqrt(5))) < 1e-9);
	assert_true(fabs(hi - (100 + 2.776 * sd / sqrt(5))) < 1e-9);
	/* equal runs: a point */
	assert_int_equal(fsb_summary_compute((const double[]){ 7, 7, 7 }, 3, &s), 0);
	assert_int_equal(fsb_summary_ci95(&s, &lo, &hi), 0);
	assert_true(lo == 7 && hi == 7);
	/* runs far apart: the low end stops at 0, no negative rate (the JSON
	 * reader refuses negative figures; a negative ci95_low it reads as 0) */
	assert_int_equal(fsb_summary_compute((const double[]){ 0.1, 1, 2 }, 3, &s), 0);
	assert_int_equal(fsb_summary_ci95(&s, &lo, &hi), 0);
	assert_true(lo == 0 && hi > 2);
	/* one run has no interval */
	assert_int_equal(fsb_summary_compute(v, 1, &s), 0);
	assert_true(s.n == 1 && s.sd == 0 && s.cv == 0);
	assert_int_equal(fsb_summary_ci95(&s, &lo, &hi), -EINVAL);
	/* the interval is the summary's: mean 50, sd 8, 4 runs, t(3) = 3.182 */
	s = (struct fsb_summary){ .mean = 50, .sd = 8, .n = 4 };
	assert_int_equal(fsb_summary_ci95(&s, &lo, &hi), 0);
	assert_true(fabs(lo - (50 - 3.182 * 8 / 2)) < 1e-9);
	assert_true(fabs(hi - (50 + 3.182 * 8 / 2)) < 1e-9);
}

static void scale_decisions(void **state)
{
	const uint64_t ms = 1000000, min = 500 * ms;
	(void)state;
	/* long enough: unchanged */
	assert_int_equal(fsb_scale_next(1000, 600 * ms, min, min, 1.4, 1, 0 - 1ull), 1000);
	/* 10x too short: the rate predicts 14x (1.4 x --min-time), rounded up
	 * to the granule */
	assert_int_equal(fsb_scale_next(1024, 50 * ms, min, min, 1.4, 1024, 0 - 1ull), 14336);
	assert_int_equal(fsb_scale_next(1000, 50 * ms, min, min, 1.4, 1024, 0 - 1ull), 14336);
	/* slightly short: predicted, not doubled (0.45 s -> 1.4 x 0.5 s) */
	assert_int_equal(fsb_scale_next(1000, 450 * ms, min, min, 1.4, 1, 0 - 1ull), 1555);
	assert_int_equal(fsb_scale_next(300000, 400 * ms, min, min, 1.4, 1024, 0 - 1ull), 525312);
	/* a hair short: still at least one granule more, never the same work */
	assert_int_equal(fsb_scale_next(1000, min - 1, min, min, 1.4, 1000, 0 - 1ull), 2000);
	assert_int_equal(fsb_scale_next(100000, min - 1, min, min, 1.4, 1, 0 - 1ull), 140000);
	assert_int_equal(fsb_scale_next(1, min - 1, min, min, 1.4, 1, 0 - 1ull), 2);
	/* a freak-fast attempt (1000x too short): at most 16x in one step */
	assert_int_equal(fsb_scale_next(100, min / 1000, min, min, 1.4, 1, 0 - 1ull), 1600);
	/* a hair under 1/32 of --min-time: still at most 16x */
	assert_int_equal(fsb_scale_next(100, min / FSB_SCALE_TRUST - 1, min, min, 1.2, 1, 0 - 1ull),
			 1600);
	/* 1/32 of --min-time or more: the rate is trusted, in one step (16384
	 * creates in 30 ms -> 327680 at 1.2 x 0.5 s, not 262144) */
	assert_int_equal(fsb_scale_next(1000, min / FSB_SCALE_TRUST, min, min, 1.2, 1, 0 - 1ull),
			 38400);
	assert_int_equal(fsb_scale_next(16384, 30 * ms, min, min, 1.2, 1024, 0 - 1ull), 327680);
	assert_int_equal(fsb_scale_next(16384, 30 * ms, min, min, 1.2, 1024, 100000), 100000);
	/* absurdly short (0 ns): at most 16x in one step */
	assert_int_equal(fsb_scale_next(100, 0, min, min, 1.4, 1, 0 - 1ull), 1600);
	/* capped by max_work, and unchanged once at the cap */
	assert_int_equal(fsb_scale_next(100, 10 * ms, min, min, 1.4, 1, 500), 500);
	assert_int_equal(fsb_scale_next(500, 10 * ms, min, min, 1.4, 1, 500), 500);
	/* never overflows */
	assert_true(fsb_scale_next(UINT64_MAX / 2, 1, min, min, 1.4, 4096, UINT64_MAX) >=
		    UINT64_MAX / 2);
	/* long enough for --min-time but not for the margin asked (a series'
	 * first run): grows to the same aim, from its own rate */
	assert_int_equal(fsb_scale_next(1000, 520 * ms, 550 * ms, min, 1.4, 1, 0 - 1ull), 1346);
	assert_int_equal(fsb_scale_next(1000, 550 * ms, 550 * ms, min, 1.4, 1, 0 - 1ull), 1000);
	/* the aim is the caller's: 0.45 s -> 1.2 x 0.5 s, the first growth's */
	assert_int_equal(fsb_scale_next(1000, 450 * ms, min, min, FSB_SCALE_TARGET, 1, 0 - 1ull),
			 1333);
	assert_true(1 < FSB_SCALE_KEEP && FSB_SCALE_KEEP <= FSB_SCALE_READY &&
		    FSB_SCALE_READY < FSB_SCALE_TARGET && FSB_SCALE_TARGET < FSB_SCALE_RETRY);
}

static void scale_work_for_a_time(void **state)
{
	const uint64_t ms = 1000000, min = 500 * ms;
	(void)state;
	/* 1000 units in 200 ms: 1.1 x 500 ms takes 2750 */
	assert_int_equal(fsb_scale_work_for(1000, 200 * ms, 1.1, min, 1), 2750);
	/* rounded up to the granule */
	assert_int_equal(fsb_scale_work_for(1000, 200 * ms, 1.1, min, 1024), 3072);
	/* no rate (0 ns): the work itself */
	assert_int_equal(fsb_scale_work_for(1000, 0, 1.1, min, 1024), 1000);
	/* saturates instead of wrapping */
	assert_true(fsb_scale_work_for(UINT64_MAX / 2, 1, 1.1, min, 4096) == UINT64_MAX);
}

static void scale_share_of_space(void **state)
{
	(void)state;
	/* half of what fits, in whole granules */
	assert_int_equal(fsb_scale_share(100000, 1000, 10), 50000);
	assert_int_equal(fsb_scale_share(100 << 20, 8 << 20, 8192), 50 << 20);
	assert_int_equal(fsb_scale_share((100 << 20) + 12345, 8192, 8192), 50 << 20);
	/* two runs that start together, each taking its share, both fit */
	assert_true(2 * fsb_scale_share(56800000, 8 << 20, 8192) <= 56800000);
	/* never below the work already done: "do not grow" */
	assert_int_equal(fsb_scale_share(8000, 6000, 10), 6000);
	assert_int_equal(fsb_scale_share(0, 1000, 10), 1000);
	/* unbounded stays unbounded; granule 0 means 1 */
	assert_true(fsb_scale_share(UINT64_MAX, 1000, 4096) == UINT64_MAX);
	assert_int_equal(fsb_scale_share(101, 0, 0), 50);
	/* the growth rule respects the share as its cap */
	assert_int_equal(fsb_scale_next(1000, 1000000, 500000000, 500000000, FSB_SCALE_TARGET, 10,
					fsb_scale_share(20000, 1000, 10)),
			 10000);
}

/*
 * IOR's GetTimes: the aggregate is all the work over the first start to
 * the last end, not the sum (nor the mean) of the jobs' own rates, which
 * would hide a straggler or a late start.
 */
static void aggregate_is_total_over_first_start_to_last_end(void **state)
{
	/* Two jobs of 100 MB each: one runs 0-1 s, the other 0.5-2 s. */
	const struct fsb_job_span j[] = {
		{ .work = 100000000, .start_ns = 0, .end_ns = 1000000000 },
		{ .work = 100000000, .start_ns = 500000000, .end_ns = 2000000000 },
	};
	(void)state;
	/* 200 MB over 2 s (first start 0, last end 2 s, as the runner reduces
	 * them): 100 MB/s (the sum of own rates would say 166.7). */
	assert_true(fabs(fsb_agg_rate_of(j[0].work + j[1].work, j[0].start_ns, j[1].end_ns) - 1e8) <
		    1e-3);
	assert_true(fabs(fsb_agg_job_rate(&j[0]) - 1e8) < 1e-3);
	assert_true(fabs(fsb_agg_job_rate(&j[1]) - 1e8 / 1.5) < 1e-3);
	/* One job: its own rate. */
	assert_true(fabs(fsb_agg_rate_of(j[0].work, j[0].start_ns, j[0].end_ns) -
			 fsb_agg_job_rate(&j[0])) < 1e-6);
	/* The first-start/last-end reduction itself is the runner's: pinned
	 * by test_runner's jobs_aggregate_and_per_job. */
	/* No time: no rate, not a division by zero. */
	assert_true(fsb_agg_rate_of(5, 7, 7) == 0);
	assert_true(fsb_agg_rate_of(0, 0, 0) == 0);
}

static void aggregate_spread_of_job_medians(void **state)
{
	/* 3 jobs x 3 runs, job-major: job medians 20, 10, 30. */
	const double rates[] = { 20, 25, 15, 10, 12, 9, 30, 31, 29 };
	double med[3];
	struct fsb_summary s;
	(void)state;
	assert_int_equal(fsb_agg_spread(rates, 3, 3, med, &s), 0);
	assert_true(med[0] == 20 && med[1] == 10 && med[2] == 30);
	assert_true(s.min == 10 && s.median == 20 && s.max == 30);
	assert_int_equal(fsb_agg_spread(rates, 0, 3, NULL, &s), -EINVAL);
	assert_int_equal(fsb_agg_spread(rates, 3, 0, NULL, &s), -EINVAL);
}

/* A thread's own CPU clock advances with its work. */
static void thread_cpu_clock(void **state)
{
	uint64_t t0 = fsb_thread_cpu_ns(), w0 = fsb_clock_ns(), cpu = 0, wall = 0;
	(void)state;
	/* Busy until the thread's clock shows 5 ms (a loaded machine gives
	 * this thread only part of the wall time; 10 s is the give-up): the
	 * clock must move, and never faster than the wall clock. */
	while (cpu < 5000000 && wall < 10000000000ull) {
		cpu = fsb_thread_cpu_ns() - t0;
		wall = fsb_clock_ns() - w0;
	}
	assert_true(cpu >= 5000000);
	assert_true(cpu <= fsb_clock_ns() - w0 + 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_odd),
		cmocka_unit_test(summary_even_and_single),
		cmocka_unit_test(summary_constant_has_zero_cv),
		cmocka_unit_test(hist_exact_small_values),
		cmocka_unit_test(hist_bucket_bounds),
		cmocka_unit_test(hist_percentiles_large),
		cmocka_unit_test(hist_merge),
		cmocka_unit_test(t_quantiles_and_ci),
		cmocka_unit_test(scale_decisions),
		cmocka_unit_test(scale_work_for_a_time),
		cmocka_unit_test(scale_share_of_space),
		cmocka_unit_test(aggregate_is_total_over_first_start_to_last_end),
		cmocka_unit_test(aggregate_spread_of_job_medians),
		cmocka_unit_test(thread_cpu_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
