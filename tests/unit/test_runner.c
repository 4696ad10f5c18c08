/*
 * Unit tests of the runner with fabricated workloads: auto-scaling discards
 * short runs, every kept run does the same work, teardown always runs, a
 * workload's error is passed up, figures and summaries are computed; the
 * space share is halved but a workload's own limit is not; jobs (local
 * group): the aggregate, the per-job figures, the stop verdict for
 * --stonewall and --deadline, one failing job stopping all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/group.h"
#include "core/registry.h"
#include "core/runner.h"
#include "report/result.h"
#include "util/error.h"

static unsigned setups, runs, teardowns;
static uint64_t works[64];
static int fail_with;

/*
 * The test's clock. While test_clock is on, CLOCK_MONOTONIC, which the
 * runner reads (fsb_clock_ns), is test_now_ns: time passes only when a
 * workload says so (sleep_run, fake_run). This clock_gettime takes the place of
 * libc's in the whole test binary, the library's calls included; any
 * other clock, and every clock while test_clock is off, is libc's.
 */
static bool test_clock;
static uint64_t test_now_ns = 1000000000ull;
/*
 * The jobs' clock (jobs_clock on, set before the job threads start): each
 * thread has its own, moved only by its own operations (job_run), as if
 * every job had a CPU of its own however loaded the machine; at each of
 * the runner's barriers every member's clock is set to the latest of them
 * (clocked_barrier), which is the start gate's origin.
 */
static bool jobs_clock;
static _Thread_local uint64_t job_now_ns = 1000000000ull;

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);

	if ((test_clock || jobs_clock) && id == CLOCK_MONOTONIC) {
		uint64_t now = jobs_clock ? job_now_ns : test_now_ns;

		ts->tv_sec = (time_t)(now / 1000000000ull);
		ts->tv_nsec = (long)(now % 1000000000ull);
		return 0;
	}
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "clock_gettime");
	return real(id, ts);
}

/* fsb_runner_measure on the test's clock. */
static int measure_on_test_clock(const struct fsb_runner *rn, const struct fsb_workload_ops *ops,
				 struct fsb_result *res)
{
	int err;

	test_clock = true;
	err = fsb_runner_measure(rn, ops, res);
	test_clock = false;
	return err;
}

/* 1 unit of work = 1 microsecond of busy waiting: figure ~1e6 ops/s; on
 * the test's clock exactly 1 us, and no waiting. */
static uint64_t fake_start(const struct fsb_ctx *ctx)
{
	(void)ctx;
	return 1000;
}

static int fake_setup(struct fsb_ctx *ctx, void *priv)
{
	(void)ctx;
	(void)priv;
	setups++;
	return 0;
}

static int fake_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	(void)priv;
	if (runs < 64)
		works[runs] = ctx->work;
	runs++;
	if (fail_with)
		return fail_with;
	for (uint64_t i = 0; i < ctx->work; i++) {
		uint64_t t0 = fsb_clock_ns();

		if (test_clock)
			test_now_ns += 1000;
		while (fsb_clock_ns() - t0 < 1000)
			;
		fsb_sink_op(out, 4096, fsb_clock_ns() - t0);
	}
	return 0;
}

static void fake_teardown(struct fsb_ctx *ctx, void *priv)
{
	(void)ctx;
	(void)priv;
	teardowns++;
}

static const struct fsb_workload_ops fake = {
	.name = "fake",
	.family = "test",
	.title = "busy loop",
	.work_unit = FSB_WORK_OPS,
	.initial_work = fake_start,
	.work_granule = 10,
	.setup = fake_setup,
	.run = fake_run,
	.teardown = fake_teardown,
};

static void reset(void)
{
	setups = runs = teardowns = 0;
	fail_with = 0;
	memset(works, 0, sizeof(works));
}

static void grows_until_min_time(void **state)
{
	struct fsb_config cfg = { .repeat = 3, .min_time_ns = 20000000, .chunk_bytes = 8192 };
	struct fsb_runner rn = { .cfg = &cfg, .dir = "/tmp" };
	struct fsb_result res;
	const struct fsb_test_result *t;
	(void)state;

	reset();
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	assert_int_equal(fsb_runner_measure(&rn, &fake, &res), 0);
	t = fsb_result_find(&res, "fake");
	assert_non_null(t);
	assert_string_equal(t->unit, "ops/s");
	assert_int_equal(t->nruns, 3);
	/* 1000 us is shorter than 20 ms: the work grew, short runs dropped. */
	assert_true(runs > 3);
	assert_true(t->work > 1000);
	/* every kept run lasted at least --min-time (wall = work / rate) */
	for (size_t i = 0; i < t->nruns; i++)
		assert_true((double)t->work / t->runs[i] >= 0.020);
	/* the last three runs (the kept ones) all did the same work */
	assert_int_equal(works[runs - 1], t->work);
	assert_int_equal(works[runs - 2], t->work);
	assert_int_equal(works[runs - 3], t->work);
	assert_int_equal(setups, runs);
	assert_int_equal(teardowns, runs);
	/* Each figure is the run's work over its time on the clock; at 1 us
	 * per op at least, it is below 1.1e6 ops/s. (How far below depends
	 * on the CPU the machine's load leaves this thread: a run at 10% of
	 * a CPU measured under 1e5, the bound this had before, once in 100
	 * runs beside two busy loops and a make test.) */
	assert_non_null(t->start_ns);
	for (size_t i = 0; i < t->nruns; i++) {
		double wall = (double)(t->end_ns[i] - t->start_ns[i]) / 1e9;

		assert_true(fabs(t->runs[i] - (double)t->work / wall) < 1e-6 * t->runs[i]);
	}
	assert_true(t->median > 0 && t->median < 1.1e6);
	assert_true(t->min <= t->median && t->median <= t->max);
	assert_true(t->has_latency);
	assert_true(t->latency.p50_us >= 1.0 && t->latency.p50_us < 50);
	assert_true(t->latency.max_us >= t->latency.p99_us);
	/* busy waiting is CPU; one thread cannot exceed 100% (the machine
	 * may be loaded, so only a loose lower bound) */
	assert_true(t->cpu_pct > 5 && t->cpu_pct < 110);
	assert_false(t->has_device);
	fsb_result_release(&res);
}

/*
 * A workload of known rate: 1 unit of work = 1 us on the test's clock, and
 * nothing else passes on it, so a run of W units lasts exactly W us
 * whatever the machine's load: the runner's decisions (grow, predict,
 * keep, stop) are the same on every machine. The first work is
 * sleep_first.
 */
static uint64_t sleep_first;
/* Every other run lasts this much longer (percent): a noisy figure. */
static unsigned sleep_noise_pct;

static uint64_t sleep_start(const struct fsb_ctx *ctx)
{
	(void)ctx;
	return sleep_first;
}

/* NULL, or how long a run lasts instead (given the work and the run's
 * number over the whole measure): a workload of a known shape. */
static uint64_t (*sleep_shape)(uint64_t work, unsigned run);

static int sleep_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	uint64_t us = ctx->work + (runs % 2 ? ctx->work * sleep_noise_pct / 100 : 0);
	(void)priv;
	if (sleep_shape)
		us = sleep_shape(ctx->work, runs);
	if (runs < 64)
		works[runs] = ctx->work;
	runs++;
	test_now_ns += us * 1000;
	out->ops += ctx->work;
	return 0;
}

static const struct fsb_workload_ops sleeper = {
	.name = "sleeper",
	.family = "test",
	.title = "known rate",
	.work_unit = FSB_WORK_OPS,
	.initial_work = sleep_start,
	.work_granule = 10,
	.setup = fake_setup,
	.run = sleep_run,
	.teardown = fake_teardown,
};

static const struct fsb_workload_ops sleeper_warm = {
	.name = "sleeper",
	.family = "test",
	.title = "known rate, warm-up",
	.flags = FSB_WL_WARMUP,
	.work_unit = FSB_WORK_OPS,
	.initial_work = sleep_start,
	.work_granule = 10,
	.setup = fake_setup,
	.run = sleep_run,
	.teardown = fake_teardown,
};

static const struct fsb_test_result *measure_sleeper_cfg(const struct fsb_workload_ops *ops,
							 uint64_t first, struct fsb_config *cfg,
							 struct fsb_result *res)
{
	struct fsb_runner rn = { .cfg = cfg, .dir = "/tmp" };

	int err;

	reset();
	sleep_first = first;
	assert_int_equal(fsb_result_init(res, "run"), 0);
	err = measure_on_test_clock(&rn, ops, res);
	assert_int_equal(err, 0);
	return fsb_result_find(res, "sleeper");
}

static const struct fsb_test_result *measure_sleeper(const struct fsb_workload_ops *ops,
						     uint64_t first, struct fsb_result *res)
{
	static struct fsb_config cfg = { .repeat = 3,
					 .min_time_ns = 50000000,
					 .chunk_bytes = 8192 };

	sleep_noise_pct = 0;
	return measure_sleeper_cfg(ops, first, &cfg, res);
}

/*
 * --repeat auto, each reason to stop at its own timings (the test's clock
 * makes them exact): 3 runs when their mean is known to +-5% at once;
 * runs that alternate 60 and 90 ms never get there, and stop at 10 runs,
 * or at the time budget first when that is short. The interval and the
 * reason are in the result.
 */
static void repeat_auto_stops(void **state)
{
	struct fsb_config cfg = { .repeat = 3,
				  .repeat_auto = true,
				  .min_time_ns = 50000000,
				  .repeat_budget_ns = 100000000000ull,
				  .chunk_bytes = 8192 };
	const struct fsb_test_result *t;
	struct fsb_result res;
	double mean;
	(void)state;

	/* Runs of 60, 61.2 and 60 ms: a 2% spread, within +-5% at 3 runs
	 * (with 3 runs, t = 4.303: +-5% needs a CV under about 2%). */
	sleep_noise_pct = 2;
	t = measure_sleeper_cfg(&sleeper, 60000, &cfg, &res);
	assert_non_null(t);
	assert_int_equal(t->nruns, 3);
	assert_int_equal(runs, t->nruns);
	assert_string_equal(t->repeat_stop, "converged");
	assert_true(t->has_ci);
	mean = (t->ci95_low + t->ci95_high) / 2;
	assert_true(t->ci95_low < t->median && t->median < t->ci95_high);
	assert_true(t->ci95_high - t->ci95_low <= 0.1 * mean);
	fsb_result_release(&res);

	sleep_noise_pct = 50;
	t = measure_sleeper_cfg(&sleeper, 60000, &cfg, &res);
	assert_non_null(t);
	assert_int_equal(t->nruns, 10);
	assert_string_equal(t->repeat_stop, "max-runs");
	assert_true(t->has_ci);
	assert_true(t->ci95_high - t->ci95_low > 0.1 * (t->ci95_low + t->ci95_high) / 2);
	fsb_result_release(&res);

	/* 0.25 s: 210 ms spent after 3 runs (60 + 90 + 60), 300 after 4. */
	cfg.repeat_budget_ns = 250000000;
	t = measure_sleeper_cfg(&sleeper, 60000, &cfg, &res);
	assert_non_null(t);
	assert_int_equal(t->nruns, 4);
	assert_int_equal(runs, 4);
	assert_string_equal(t->repeat_stop, "time-budget");
	fsb_result_release(&res);
	sleep_noise_pct = 0;

	/* A fixed --repeat records neither. */
	t = measure_sleeper(&sleeper, 60000, &res);
	assert_false(t->has_ci);
	assert_null(t->repeat_stop);
	fsb_result_release(&res);
}

/* A first attempt short (35 ms of 50, and 49.99 ms: the test's clock
 * makes "short" exact): the work is predicted from its rate (1.2 x 50 ms,
 * 60000 units), not doubled; that work is long enough, so one attempt was
 * thrown away and three kept. */
static void work_predicted_from_the_rate(void **state)
{
	const struct fsb_test_result *t;
	struct fsb_result res;
	(void)state;

	t = measure_sleeper(&sleeper, 35000, &res);
	assert_non_null(t);
	assert_int_equal(works[0], 35000);
	assert_int_equal(t->work, 60000);
	assert_int_equal(runs, 4);
	assert_int_equal(t->nruns, 3);
	for (unsigned i = 1; i < 4; i++)
		assert_int_equal(works[i], t->work);
	fsb_result_release(&res);

	t = measure_sleeper(&sleeper, 49990, &res);
	assert_non_null(t);
	assert_int_equal(t->work, 60000);
	assert_int_equal(runs, 4);
	assert_int_equal(t->nruns, 3);
	fsb_result_release(&res);

	/* 5000x too short: one attempt grows 16x at most (10 -> 160), the
	 * next ones are predicted from their rate, never past 1.2 x 50 ms. */
	t = measure_sleeper(&sleeper, 10, &res);
	assert_non_null(t);
	assert_int_equal(works[1], 160);
	assert_int_equal(t->work, 60000);
	assert_true(runs >= 5);
	fsb_result_release(&res);
}

/* A first attempt that already meets --min-time is the first measured run
 * (no calibration thrown away), unless the test asks for a warm-up. */
static void long_enough_attempt_is_kept(void **state)
{
	const struct fsb_test_result *t;
	struct fsb_result res;
	(void)state;

	t = measure_sleeper(&sleeper, 60000, &res);
	assert_non_null(t);
	assert_int_equal(runs, 3);
	assert_int_equal(t->nruns, 3);
	assert_int_equal(t->work, 60000);
	assert_int_equal(setups, 3);
	fsb_result_release(&res);

	t = measure_sleeper(&sleeper_warm, 60000, &res);
	assert_non_null(t);
	assert_int_equal(runs, 4);
	assert_int_equal(t->nruns, 3);
	assert_int_equal(t->work, 60000);
	fsb_result_release(&res);

	/* The warm-up is the first attempt, also when it was short: the grown
	 * attempt after it is kept. */
	t = measure_sleeper(&sleeper_warm, 45000, &res);
	assert_non_null(t);
	assert_int_equal(runs, 4);
	assert_int_equal(t->nruns, 3);
	fsb_result_release(&res);
}

/*
 * A series' first run must leave a margin over --min-time
 * (FSB_SCALE_KEEP, 1.05 x): one of 505 ms for a 500 ms minimum grows at
 * once, from its own rate, instead of waiting for a later run to fall
 * short and start the series over; one of 530 ms is kept (under 1.1 x,
 * the margin before, it grew).
 */
static void first_run_needs_a_margin(void **state)
{
	struct fsb_config cfg = { .repeat = 3, .min_time_ns = 500000000, .chunk_bytes = 8192 };
	const struct fsb_test_result *t;
	struct fsb_result res;
	(void)state;

	sleep_noise_pct = 0;
	t = measure_sleeper_cfg(&sleeper, 505000, &cfg, &res);
	assert_non_null(t);
	assert_int_equal(works[0], 505000);
	assert_true(t->work > 505000 && t->work <= 700000);
	assert_int_equal(runs, 4);
	assert_int_equal(t->nruns, 3);
	fsb_result_release(&res);

	t = measure_sleeper_cfg(&sleeper, 530000, &cfg, &res);
	assert_non_null(t);
	assert_int_equal(t->work, 530000);
	assert_int_equal(runs, 3);
	assert_int_equal(t->nruns, 3);
	fsb_result_release(&res);
}

/* Every run after the first at a work is 20% faster than the first. */
static uint64_t fast_last_work;

static uint64_t fast_later(uint64_t work, unsigned run)
{
	uint64_t us = work == fast_last_work ? work * 80 / 100 : work;

	(void)run;
	fast_last_work = work;
	return us;
}

/*
 * Growth aims at 1.2 x --min-time; a test whose later run still falls
 * short aims at 1.4 x from then on. Here 35 ms of 50 grow to 60000 units:
 * 60 ms, kept (over 1.05 x 50 ms), then 48 ms, short: the series starts
 * over at 1.4 x 50 ms at the 48 ms rate, 87500 units (at 1.2 x it would
 * be 75000), whose runs (87.5, 70, 70 ms) are kept.
 */
static void series_started_over_aims_higher(void **state)
{
	const struct fsb_test_result *t;
	struct fsb_result res;
	(void)state;

	fast_last_work = 0;
	sleep_shape = fast_later;
	t = measure_sleeper(&sleeper, 35000, &res);
	sleep_shape = NULL;
	assert_non_null(t);
	assert_int_equal(works[1], 60000);
	assert_int_equal(works[2], 60000);
	assert_int_equal(t->work, 87500);
	assert_int_equal(runs, 6);
	assert_int_equal(t->nruns, 3);
	fsb_result_release(&res);
}

/* The run numbered 14 (from 0, over the whole measure) lasts half. */
static uint64_t dip(uint64_t work, unsigned run)
{
	return run == 14 ? work / 2 : work;
}

/*
 * With --repeat 20, the 15th run (30 ms of 50) still starts the series
 * over: kept runs are no growth attempts (it was kept, with a warning
 * blaming "the largest work possible", when every run counted as one).
 * 60 ms runs, then one of 30 ms: the work grows to 1.4 x 50 ms at that
 * rate, 140000 units, and 20 runs of it are kept.
 */
static void long_series_checks_every_run(void **state)
{
	struct fsb_config cfg = { .repeat = 20, .min_time_ns = 50000000, .chunk_bytes = 8192 };
	const struct fsb_test_result *t;
	struct fsb_result res;
	(void)state;

	sleep_shape = dip;
	t = measure_sleeper_cfg(&sleeper, 60000, &cfg, &res);
	sleep_shape = NULL;
	assert_non_null(t);
	assert_int_equal(works[14], 60000);
	assert_int_equal(t->work, 140000);
	assert_int_equal(t->nruns, 20);
	assert_int_equal(runs, 35);
	fsb_result_release(&res);
}

/* A run lasts twice as long the first time it reaches a work: the first
 * touch of memory a VM hands out slowly (FSB_WL_WARMUP). */
static uint64_t touched;

static int touch_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	uint64_t us = ctx->work > touched ? 2 * ctx->work : ctx->work;

	(void)priv;
	if (ctx->work > touched)
		touched = ctx->work;
	runs++;
	test_now_ns += us * 1000;
	out->ops += ctx->work;
	return 0;
}

/*
 * The warm-up touches the first work only: when the work then grows, the
 * first run at the grown work is slow again. A warm-up workload discards
 * that run when it lasted more than 1.5 x the next one, so its kept runs
 * are alike; a workload without warm-up keeps it.
 */
static void first_touch_after_growth_is_discarded(void **state)
{
	struct fsb_workload_ops warm = sleeper_warm, plain = sleeper;
	const struct fsb_test_result *t;
	struct fsb_result res;
	(void)state;

	warm.run = plain.run = touch_run;
	touched = 0;
	/* every grown work's first run (twice as long) goes: the kept runs
	 * are alike */
	t = measure_sleeper(&warm, 10000, &res);
	assert_non_null(t);
	assert_int_equal(t->nruns, 3);
	assert_true(t->work > 10000);
	assert_true(t->min >= 0.8 * t->max);
	fsb_result_release(&res);

	/* without warm-up, the slow first run of the last work is kept */
	touched = 0;
	t = measure_sleeper(&plain, 10000, &res);
	assert_non_null(t);
	assert_int_equal(t->nruns, 3);
	assert_true(t->min < 0.6 * t->max);
	fsb_result_release(&res);
}

static void error_passed_up_and_teardown_runs(void **state)
{
	struct fsb_config cfg = { .repeat = 3, .min_time_ns = 1000, .chunk_bytes = 8192 };
	struct fsb_runner rn = { .cfg = &cfg, .dir = "/tmp" };
	struct fsb_result res;
	(void)state;

	reset();
	fail_with = -ENOSPC;
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	assert_int_equal(fsb_runner_measure(&rn, &fake, &res), -ENOSPC);
	assert_int_equal(setups, 1);
	assert_int_equal(teardowns, 1);
	assert_null(fsb_result_find(&res, "fake"));
	fsb_result_release(&res);
}

/* ---- space: the growth cap, the re-check and the fallback ---- */

/* What the fake's space_fit says fits, per call (the last value repeats). */
static uint64_t space_seq[8];
static unsigned space_calls, space_n;
/* Out of space above this much work (0: never), or on this run (1-based). */
static uint64_t enospc_above;
static unsigned enospc_on_run;

static uint64_t space_max(const struct fsb_ctx *ctx, const struct fsb_space *share)
{
	(void)ctx;
	(void)share;
	return space_seq[space_calls < space_n ? space_calls++ : space_n - 1];
}

/* Out of space once, at the first run that repeats the work of the run
 * before it: the second measured run (calibration attempts always grow). */
static bool enospc_on_repeat, enospc_fired;

static int space_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	bool repeat = enospc_on_repeat && !enospc_fired && runs > 0 && runs <= 64 &&
		      ctx->work == works[runs - 1];

	if ((enospc_above && ctx->work > enospc_above) ||
	    (enospc_on_run && runs + 1 == enospc_on_run) || repeat) {
		enospc_fired = enospc_fired || repeat;
		if (runs < 64)
			works[runs] = ctx->work;
		runs++;
		/* Described where it happens, as a workload does. */
		fsb_err("fake: cannot write 'x' at offset 42: No space left on device");
		return -ENOSPC;
	}
	return fake_run(ctx, priv, out);
}

static const struct fsb_workload_ops space_fake = {
	.name = "fake",
	.family = "test",
	.title = "busy loop that runs out of space",
	.work_unit = FSB_WORK_OPS,
	.initial_work = fake_start,
	.space_fit = space_max,
	.work_granule = 10,
	.setup = fake_setup,
	.run = space_run,
	.teardown = fake_teardown,
};

static void space_reset(void)
{
	reset();
	memset(space_seq, 0, sizeof(space_seq));
	space_calls = space_n = 0;
	enospc_above = 0;
	enospc_on_run = 0;
	enospc_on_repeat = enospc_fired = false;
}

/* stderr of one runner call, captured in a temporary file. */
struct captured {
	int saved;
	FILE *f;
	char text[4096];
};

/* What a call described as its error (util/error.h's capture scope). */
static struct fsb_error caught;
static struct fsb_err_scope scope;

static void capture_start(struct captured *c)
{
	fflush(stderr);
	c->f = tmpfile();
	assert_non_null(c->f);
	c->saved = dup(STDERR_FILENO);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->f), STDERR_FILENO) >= 0);
}

static const char *capture_end(struct captured *c)
{
	size_t n;

	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	rewind(c->f);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->f);
	c->text[n] = '\0';
	fclose(c->f);
	/* Show it in the test log too. */
	fputs(c->text, stderr);
	return c->text;
}

/* A sleeper for which `fit` units fit in the free space (growth takes
 * half), and that has `ready_at` units ready (the stat test's files). */
static uint64_t ready_at, fit;

static uint64_t tight_space(const struct fsb_ctx *ctx, const struct fsb_space *share)
{
	(void)ctx;
	(void)share;
	return fit;
}

static uint64_t ready_fake(const struct fsb_ctx *ctx, uint64_t low, uint64_t high)
{
	(void)ctx;
	return ready_at >= high ? high : ready_at >= low ? ready_at : 0;
}

/*
 * Work that is ready takes no space: growth reaches it past the space's
 * cap (10 ms at 10000 units predicts 70000 for 70 ms; 60000 are ready
 * and last 1.2 x 50 ms). Without it ready, the cap holds: runs of 12 ms,
 * short for want of space, and the result says so.
 */
static void ready_work_is_not_capped_by_space(void **state)
{
	struct fsb_workload_ops ops = sleeper;
	const struct fsb_test_result *t;
	struct fsb_result res;
	(void)state;

	ops.space_fit = tight_space;
	ops.ready_work = ready_fake;
	fit = 24000;
	ready_at = 60000;
	t = measure_sleeper(&ops, 10000, &res);
	assert_non_null(t);
	assert_int_equal(t->work, 60000);
	assert_null(t->short_reason);
	fsb_result_release(&res);

	ready_at = 0;
	fsb_warn_set_quiet(1);
	t = measure_sleeper(&ops, 10000, &res);
	fsb_warn_set_quiet(0);
	assert_non_null(t);
	assert_int_equal(t->work, 12000);
	assert_non_null(t->short_reason);
	fsb_result_release(&res);
}

/* A sleeper that stops when told (the sink's stop verdict, one unit of
 * 1 us at a time; step_later_ns a unit in every run after the measure's
 * first, when set), with `ready_at` units ready; each run starts up for
 * startup_us first. */
static uint64_t step_later_ns, startup_us;

static int stepper_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	uint64_t step = runs && step_later_ns ? step_later_ns : 1000;

	(void)priv;
	if (runs < 64)
		works[runs] = ctx->work;
	runs++;
	test_now_ns += startup_us * 1000;
	for (uint64_t i = 0; i < ctx->work; i++) {
		test_now_ns += step;
		if (fsb_sink_op(out, 0, 1000))
			break;
	}
	return 0;
}

/*
 * A short attempt predicts the work at its last quarter's pace: 4000
 * units after a start-up of 4 ms last 8 ms, at 1 ms a thousand in their
 * last quarter, and the next work is 1.2 x 50 ms of that pace (60000
 * units, 64 ms with the start-up): long enough, kept. From the whole
 * run's rate it would be 30000 units (34 ms), short again. Without a
 * start-up the prediction is the rate's, as before (as for a workload
 * that counts its work only at the end, the sleeper of
 * work_predicted_from_the_rate: no pace, its whole run counts).
 */
static void work_predicted_from_the_pace(void **state)
{
	struct fsb_workload_ops ops = sleeper;
	const struct fsb_test_result *t;
	struct fsb_result res;
	(void)state;

	ops.run = stepper_run;
	startup_us = 4000;
	t = measure_sleeper(&ops, 4000, &res);
	assert_non_null(t);
	assert_int_equal(works[0], 4000);
	assert_int_equal(works[1], 60000);
	assert_int_equal(t->work, 60000);
	assert_int_equal(runs, 4);
	assert_int_equal(t->nruns, 3);
	fsb_result_release(&res);

	startup_us = 0;
	t = measure_sleeper(&ops, 35000, &res);
	assert_non_null(t);
	assert_int_equal(works[1], 60000);
	assert_int_equal(runs, 4);
	fsb_result_release(&res);

	/* A long enough run is kept, whatever its pace. */
	startup_us = 40000;
	t = measure_sleeper(&ops, 20000, &res);
	assert_non_null(t);
	assert_int_equal(t->work, 20000);
	assert_int_equal(runs, 3);
	fsb_result_release(&res);
	startup_us = 0;
}

/*
 * An open first attempt (FSB_WL_OPEN, far more ready than the first
 * work): it has 1024 x the first work, stops 1.2 x --min-time (60 ms)
 * after its start, and is the series' first run; the series does the
 * 60000 units it did. Nothing is thrown away, and the result does not
 * say the deadline stopped it. Where the work ready runs out before the
 * time (20000 units, 20 ms), the attempt has that, and is one like any:
 * thrown away and grown from (to 1.2 x 50 ms). Without the flag the first
 * attempt has its first work (1 ms), and the growth to the ready work is
 * open. Under the user's --deadline, no attempt is open.
 */
static void open_attempt_is_the_first_run(void **state)
{
	struct fsb_workload_ops ops = sleeper;
	struct fsb_config cfg = { .repeat = 3, .min_time_ns = 50000000, .chunk_bytes = 8192 };
	const struct fsb_test_result *t;
	struct fsb_result res;
	(void)state;

	ops.flags = FSB_WL_OPEN;
	ops.run = stepper_run;
	ops.ready_work = ready_fake;
	ready_at = UINT64_MAX;
	t = measure_sleeper_cfg(&ops, 1000, &cfg, &res);
	assert_non_null(t);
	assert_int_equal(works[0], 1024000);
	assert_int_equal(t->work, 60000);
	assert_int_equal(runs, 3);
	assert_int_equal(t->nruns, 3);
	assert_int_equal(works[1], 60000);
	assert_int_equal(works[2], 60000);
	assert_null(t->stopped_by);
	fsb_result_release(&res);

	/* Never less than the first work: one of 80 ms goes past the open
	 * attempt's time, which then stops it at once (the first work is
	 * long enough: kept, as before open attempts). */
	t = measure_sleeper_cfg(&ops, 80000, &cfg, &res);
	assert_non_null(t);
	assert_int_equal(works[0], 80000 * 1024);
	assert_int_equal(t->work, 80000);
	assert_int_equal(runs, 3);
	fsb_result_release(&res);

	/* The runs after it 20% faster: the second falls short (48 ms), and
	 * the series starts over at an open attempt of the retry's margin
	 * (1.4 x 50 ms: 87500 units of 0.8 us). */
	step_later_ns = 800;
	t = measure_sleeper_cfg(&ops, 1000, &cfg, &res);
	assert_non_null(t);
	assert_int_equal(works[1], 60000);
	assert_int_equal(works[2], 60000 * 1024);
	assert_int_equal(t->work, 87500);
	assert_int_equal(runs, 5);
	assert_int_equal(t->nruns, 3);
	fsb_result_release(&res);
	step_later_ns = 0;

	ready_at = 20000;
	t = measure_sleeper_cfg(&ops, 1000, &cfg, &res);
	assert_non_null(t);
	assert_int_equal(works[0], 20000);
	assert_int_equal(t->work, 60000);
	assert_int_equal(runs, 4);
	assert_int_equal(t->nruns, 3);
	fsb_result_release(&res);

	ready_at = UINT64_MAX;
	ops.flags = 0;
	t = measure_sleeper_cfg(&ops, 1000, &cfg, &res);
	assert_non_null(t);
	assert_int_equal(works[0], 1000);
	assert_int_equal(works[1], 1024000);
	assert_int_equal(t->work, 60000);
	assert_int_equal(runs, 4);
	assert_int_equal(t->nruns, 3);
	fsb_result_release(&res);

	ops.flags = FSB_WL_OPEN;
	cfg.deadline_ns = 1000000000;
	t = measure_sleeper_cfg(&ops, 1000, &cfg, &res);
	assert_non_null(t);
	assert_int_equal(works[0], 1000);
	assert_true(works[1] < 1024000);
	fsb_result_release(&res);
	ready_at = 0;
}

/*
 * Growth stopped at the space's cap: a later run that falls short is kept
 * (there is no more work to give it), and the figure must say so as when
 * the first run is the short one. Here 30000 units start, and no more fit
 * (60000 halved): the first run lasts 2 x 30 ms (a first touch), the next
 * ones 30 ms, under 50.
 */
static void later_short_run_at_the_cap_is_reported(void **state)
{
	struct fsb_workload_ops ops = sleeper;
	struct captured c;
	const struct fsb_test_result *t;
	struct fsb_result res;
	const char *said;
	(void)state;

	ops.run = touch_run;
	ops.space_fit = tight_space;
	fit = 60000;
	touched = 0;
	capture_start(&c);
	t = measure_sleeper(&ops, 30000, &res);
	said = capture_end(&c);
	assert_non_null(t);
	assert_non_null(t->short_reason);
	assert_string_equal(t->short_reason, "space");
	assert_non_null(strstr(said, "under --min-time"));
	fsb_result_release(&res);
}

static void growth_capped_to_half_the_space(void **state)
{
	/* 1000 ops take ~1 ms; 1 s wants ~1e6 ops; 20000 fit: grow to 10000. */
	struct fsb_config cfg = { .repeat = 2, .min_time_ns = 1000000000, .chunk_bytes = 8192 };
	struct fsb_runner rn = { .cfg = &cfg, .dir = "/tmp" };
	struct fsb_result res;
	const struct fsb_test_result *t;
	(void)state;

	space_reset();
	space_seq[0] = 20005;
	space_n = 1;
	fsb_warn_set_quiet(1);
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	assert_int_equal(measure_on_test_clock(&rn, &space_fake, &res), 0);
	fsb_warn_set_quiet(0);
	t = fsb_result_find(&res, "fake");
	assert_non_null(t);
	assert_int_equal(t->work, 10000);
	for (unsigned i = 0; i < runs && i < 64; i++)
		assert_true(works[i] <= 10000);
	/* Short because of space, and the result says so. */
	assert_non_null(t->short_reason);
	assert_string_equal(t->short_reason, "space");
	fsb_result_release(&res);
}

static void growth_rechecks_the_space(void **state)
{
	/* 2,000,000 fit at first; then another process takes nearly all. */
	struct fsb_config cfg = { .repeat = 2, .min_time_ns = 1000000000, .chunk_bytes = 8192 };
	struct fsb_runner rn = { .cfg = &cfg, .dir = "/tmp" };
	struct fsb_result res;
	const struct fsb_test_result *t;
	(void)state;

	space_reset();
	space_seq[0] = 2000000;
	space_seq[1] = 8000;
	space_n = 2;
	fsb_warn_set_quiet(1);
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	assert_int_equal(measure_on_test_clock(&rn, &space_fake, &res), 0);
	fsb_warn_set_quiet(0);
	t = fsb_result_find(&res, "fake");
	assert_non_null(t);
	/* Asked again before growing: half of 8000 it is. */
	assert_true(space_calls >= 2);
	assert_int_equal(t->work, 4000);
	for (unsigned i = 0; i < runs && i < 64; i++)
		assert_true(works[i] <= 4000);
	assert_string_equal(t->short_reason, "space");
	fsb_result_release(&res);
}

/* Measure ops (space_fake's run) on the test's clock with room for 3000
 * units: what it printed, the error of the call in `caught`. */
static const char *measure_out_of_space_above_3000(const struct fsb_workload_ops *ops,
						   struct fsb_result *res, struct captured *cap)
{
	static struct fsb_config cfg = { .repeat = 3,
					 .min_time_ns = 100000000,
					 .chunk_bytes = 8192 };
	struct fsb_runner rn = { .cfg = &cfg, .dir = "/tmp" };

	space_reset();
	space_seq[0] = 1000000000;
	space_n = 1;
	enospc_above = 3000;
	assert_int_equal(fsb_result_init(res, "run"), 0);
	capture_start(cap);
	fsb_error_clear(&caught);
	fsb_err_capture_begin(&scope, &caught, false);
	assert_int_equal(measure_on_test_clock(&rn, ops, res), 0);
	fsb_err_capture_end(&scope, 0);
	return capture_end(cap);
}

static void grown_attempt_out_of_space_falls_back(void **state)
{
	struct fsb_workload_ops ops = space_fake;
	struct fsb_result res;
	const struct fsb_test_result *t;
	struct captured cap;
	const char *err;
	(void)state;

	/* 1000 ops (1 ms) grow 16x to 16000: out of space above 3000. */
	err = measure_out_of_space_above_3000(&space_fake, &res, &cap);
	/* Nor is it the error of the call, for whoever records one. */
	assert_string_equal(caught.msg, "");
	t = fsb_result_find(&res, "fake");
	assert_non_null(t);
	/* Measured at the first work, the last that completed. */
	assert_int_equal(t->work, 1000);
	assert_int_equal(t->nruns, 3);
	assert_true(t->median > 0);
	assert_string_equal(t->short_reason, "space");
	assert_int_equal(works[runs - 1], 1000);
	assert_int_equal(teardowns, runs);
	/* The forgiven error is not shown; a warning says what happened. */
	assert_null(strstr(err, "No space left"));
	assert_non_null(strstr(err, "fsbench: warning: fake: out of space at 16000 operations "
				    "while growing: measured runs of 1000 operations instead"));
	fsb_result_release(&res);

	/* An open first attempt out of space (another run took what its
	 * setup would add): the same fall back, and its work, a bound of
	 * 1024 x the first, is named nowhere. */
	ops.flags = FSB_WL_OPEN;
	ops.ready_work = ready_fake;
	ready_at = UINT64_MAX;
	err = measure_out_of_space_above_3000(&ops, &res, &cap);
	ready_at = 0;
	assert_string_equal(caught.msg, "");
	t = fsb_result_find(&res, "fake");
	assert_non_null(t);
	assert_int_equal(works[0], 1024000);
	assert_int_equal(t->work, 1000);
	assert_string_equal(t->short_reason, "space");
	assert_null(strstr(err, "No space left"));
	assert_null(strstr(err, "1024000"));
	assert_non_null(strstr(err, "fsbench: warning: fake: out of space while growing: "
				    "measured runs of 1000 operations instead"));
	fsb_result_release(&res);
}

static void measured_run_out_of_space_falls_back_to_what_fit(void **state)
{
	/*
	 * Growth goes up from 1000 until a run lasts 200 ms; the
	 * second measured run at that work runs out of space: the runs are
	 * measured at the largest work that completed below it.
	 */
	struct fsb_config cfg = { .repeat = 3, .min_time_ns = 200000000, .chunk_bytes = 8192 };
	struct fsb_runner rn = { .cfg = &cfg, .dir = "/tmp" };
	struct fsb_result res;
	const struct fsb_test_result *t;
	struct captured cap;
	uint64_t failed, want = 1000;
	unsigned k;
	(void)state;

	space_reset();
	space_seq[0] = 1000000000;
	space_n = 1;
	fsb_warn_set_quiet(1);
	/* Not a count of calls found by a dry run: the failing call is found
	 * in works[], whatever the growth's steps. */
	enospc_on_repeat = true;
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	capture_start(&cap);
	assert_int_equal(measure_on_test_clock(&rn, &space_fake, &res), 0);
	capture_end(&cap);
	fsb_warn_set_quiet(0);
	assert_true(enospc_fired);
	for (k = 1; k < runs && k < 64 && works[k] != works[k - 1]; k++)
		;
	assert_true(k < runs && k < 64); /* the call that failed */
	failed = works[k];
	assert_true(failed > 1000);
	for (unsigned i = 0; i < k; i++)
		if (works[i] < failed && works[i] > want)
			want = works[i];
	t = fsb_result_find(&res, "fake");
	assert_non_null(t);
	assert_int_equal(t->work, want);
	assert_int_equal(t->nruns, 3);
	assert_string_equal(t->short_reason, "space");
	fsb_result_release(&res);
}

static void out_of_space_at_the_first_work_is_an_error(void **state)
{
	struct fsb_config cfg = { .repeat = 3, .min_time_ns = 100000000, .chunk_bytes = 8192 };
	struct fsb_runner rn = { .cfg = &cfg, .dir = "/tmp" };
	struct fsb_result res;
	struct captured cap;
	const char *err;
	(void)state;

	space_reset();
	space_seq[0] = 1000000000;
	space_n = 1;
	enospc_above = 999; /* the first work, 1000, does not fit */
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	capture_start(&cap);
	assert_int_equal(measure_on_test_clock(&rn, &space_fake, &res), -ENOSPC);
	err = capture_end(&cap);
	assert_int_equal(runs, 1);
	assert_int_equal(teardowns, 1);
	assert_null(fsb_result_find(&res, "fake"));
	/* Described once, by the workload, and not forgiven. */
	assert_non_null(strstr(err, "fsbench: fake: cannot write 'x' at offset 42: No space left"));
	assert_null(strstr(err, "warning"));
	fsb_result_release(&res);
}

/* A workload's own limit (every block once) is not free space: it is
 * reached, not halved, and the runs are short at the limit, not "short
 * because of space". */
static uint64_t five_thousand(const struct fsb_ctx *ctx)
{
	(void)ctx;
	return 5000;
}

static void own_limit_is_not_halved(void **state)
{
	struct fsb_workload_ops capped = fake;
	struct fsb_config cfg = { .repeat = 1, .min_time_ns = 1000000000, .chunk_bytes = 8192 };
	struct fsb_runner rn = { .cfg = &cfg, .dir = "/tmp" };
	struct fsb_result res;
	const struct fsb_test_result *t;
	(void)state;

	reset();
	capped.max_work = five_thousand;
	fsb_warn_set_quiet(1);
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	assert_int_equal(measure_on_test_clock(&rn, &capped, &res), 0);
	fsb_warn_set_quiet(0);
	t = fsb_result_find(&res, "fake");
	assert_non_null(t);
	assert_int_equal(t->work, 5000);
	assert_non_null(t->short_reason);
	assert_string_equal(t->short_reason, "limit");
	fsb_result_release(&res);
}

/* ---- jobs ---- */

/*
 * Job k's operations take (1 + k * slow) microseconds; job fail_job (if
 * not -1) fails with -EIO after 50 operations. Each job records how much
 * it did and whether it was told to stop.
 */
static unsigned slow;
static int fail_job = -1;
/* The jobs but job 0 wait before their last operation until they are
 * told to stop (10 s at most): job 0 is certain to finish first. */
static bool hold_last;
static struct {
	uint64_t ops;
	int stopped;
	unsigned teardowns;
	unsigned njobs;
	char dir[64];
} jobs_seen[8];

static int job_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	uint64_t per = 1000 * (1 + ctx->job * slow);
	(void)priv;

	jobs_seen[ctx->job].njobs = ctx->njobs;
	snprintf(jobs_seen[ctx->job].dir, sizeof(jobs_seen[0].dir), "%s", ctx->dir);
	for (uint64_t i = 0; i < ctx->work; i++) {
		uint64_t t0 = fsb_clock_ns();
		int r;

		if ((int)ctx->job == fail_job && i == 50) {
			fsb_err("fake: job %u broke", ctx->job);
			return -EIO;
		}
		if (hold_last && ctx->job > 0 && i + 1 == ctx->work) {
			uint64_t until = fsb_clock_ns() + 10000000000ull;
			struct timespec ts = { 0, 100000 };

			while (!fsb_sink_halted(out) && fsb_clock_ns() < until)
				nanosleep(&ts, NULL);
			if (out->stopped) {
				jobs_seen[ctx->job].stopped = 1;
				return 0;
			}
		}
		if (jobs_clock)
			job_now_ns += per;
		else
			while (fsb_clock_ns() - t0 < per)
				;
		jobs_seen[ctx->job].ops++;
		r = fsb_sink_op(out, 4096, fsb_clock_ns() - t0);
		if (r < 0)
			return r;
		if (r == FSB_SINK_STOP) {
			jobs_seen[ctx->job].stopped = 1;
			return 0;
		}
	}
	return 0;
}

static void job_teardown(struct fsb_ctx *ctx, void *priv)
{
	(void)priv;
	jobs_seen[ctx->job].teardowns++;
}

static const struct fsb_workload_ops job_fake = {
	.name = "fake",
	.family = "test",
	.title = "busy loop per job",
	.work_unit = FSB_WORK_OPS,
	.initial_work = fake_start,
	.work_granule = 10,
	.run = job_run,
	.teardown = job_teardown,
};

struct jobs_arg {
	const struct fsb_config *cfg;
	struct fsb_result *res;
	int rcs[8];
};

/* The group's own operations, for clocked_barrier (each member's thread). */
static _Thread_local const struct fsb_group_ops *job_group_ops;

/* On the jobs' clock: the group's barrier, then every member's clock and
 * the origin set to the latest of the members' clocks (a reduce before
 * it), the same for all whatever order they came in. */
static int clocked_barrier(struct fsb_group *g, int status, uint64_t *origin_ns)
{
	static const enum fsb_group_op latest_of = FSB_GROUP_MAX;
	uint64_t latest = job_now_ns;
	int st;

	job_group_ops->reduce(g, 0, &latest, &latest_of, 1);
	st = job_group_ops->barrier(g, status, origin_ns);
	job_now_ns = latest;
	if (origin_ns)
		*origin_ns = latest;
	return st;
}

static int job_member(struct fsb_group *g, void *arg)
{
	struct jobs_arg *a = arg;
	char dir[64];
	struct fsb_runner rn = { .cfg = a->cfg, .dir = "/tmp/shared", .group = g, .job_dir = dir };
	const struct fsb_group_ops *own = g->ops;
	struct fsb_group_ops clocked = *own;
	int err;

	snprintf(dir, sizeof(dir), "/tmp/job-%u", g->rank);
	if (jobs_clock) {
		job_group_ops = own;
		clocked.barrier = clocked_barrier;
		g->ops = &clocked;
	}
	err = fsb_runner_measure(&rn, &job_fake, g->rank ? NULL : a->res);
	g->ops = own;
	return err;
}

static int run_jobs(unsigned n, const struct fsb_config *cfg, struct fsb_result *res,
		    struct jobs_arg *a)
{
	memset(jobs_seen, 0, sizeof(jobs_seen));
	a->cfg = cfg;
	a->res = res;
	assert_int_equal(fsb_group_local_run(n, job_member, a, a->rcs), 0);
	for (unsigned k = 1; k < n; k++)
		assert_int_equal(a->rcs[k], a->rcs[0]);
	return a->rcs[0];
}

/* run_jobs on the jobs' clock. */
static int run_jobs_on_clock(unsigned n, const struct fsb_config *cfg, struct fsb_result *res,
			     struct jobs_arg *a)
{
	int err;

	jobs_clock = true;
	err = run_jobs(n, cfg, res, a);
	jobs_clock = false;
	return err;
}

static void jobs_aggregate_and_per_job(void **state)
{
	/* On the jobs' clock: every job has a CPU of its own and they start
	 * together, whatever the machine's load (on the real clock a job
	 * that got no CPU for a while could run slower than the slowest). */
	struct fsb_config cfg = { .repeat = 2, .min_time_ns = 100000000, .chunk_bytes = 8192 };
	struct fsb_result res;
	const struct fsb_test_result *t;
	struct jobs_arg a;
	(void)state;

	slow = 1; /* job 0: 1 us per op, job 3: 4 us */
	fail_job = -1;
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	assert_int_equal(run_jobs_on_clock(4, &cfg, &res, &a), 0);
	t = fsb_result_find(&res, "fake");
	assert_non_null(t);
	for (unsigned k = 0; k < 4; k++) {
		char want[64];

		assert_int_equal(jobs_seen[k].njobs, 4);
		snprintf(want, sizeof(want), "/tmp/job-%u", k);
		assert_string_equal(jobs_seen[k].dir, want);
		assert_false(jobs_seen[k].stopped);
		assert_true(jobs_seen[k].teardowns >= 2);
	}
	assert_int_equal(t->njobs, 4);
	assert_non_null(t->job_runs);
	assert_non_null(t->start_ns);
	/* Each job did the work; the slowest (4 us per op) sets the time. */
	for (size_t r = 0; r < t->nruns; r++) {
		double wall = (double)(t->end_ns[r] - t->start_ns[r]) / 1e9;
		double slowest = t->job_runs[3 * t->nruns + r];

		assert_true(t->end_ns[r] > t->start_ns[r]);
		assert_true(fabs(wall - 4e-6 * (double)t->work) < 1e-9);
		/* The aggregate: all four jobs' work over first start to last end. */
		assert_true(fabs(t->runs[r] - 4.0 * (double)t->work / wall) < 1e-6 * t->runs[r]);
		/* The fastest job runs 4 times the slowest's rate. */
		assert_true(fabs(t->job_runs[0 * t->nruns + r] - 4 * slowest) < 1e-6 * slowest);
		/* Four jobs together do 4 times the slowest one alone, which
		 * sets the time. */
		assert_true(fabs(t->runs[r] - 4 * slowest) < 1e-6 * slowest);
	}
	assert_true(t->job_min <= t->job_median && t->job_median <= t->job_max);
	assert_non_null(t->job_cpu_pct);
	assert_null(t->stopped_by);
	assert_true(t->elapsed_s >= 0.02);
	fsb_result_release(&res);
}

static void stonewall_stops_the_others(void **state)
{
	struct fsb_config cfg = {
		.repeat = 1, .min_time_ns = 20000000, .chunk_bytes = 8192, .stonewall = true
	};
	struct fsb_result res;
	const struct fsb_test_result *t;
	struct jobs_arg a;
	(void)state;

	slow = 9; /* job 0: 1 us per op, job 2: 19 us */
	fail_job = -1;
	/* and the slow ones never finish first, even when a loaded machine
	 * gives job 0 no CPU for a while */
	hold_last = true;
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	assert_int_equal(run_jobs(3, &cfg, &res, &a), 0);
	hold_last = false;
	t = fsb_result_find(&res, "fake");
	assert_non_null(t);
	assert_non_null(t->stopped_by);
	assert_string_equal(t->stopped_by, "stonewall");
	/* Job 0 finished its work; the slow ones stopped early, and what
	 * they did counts. */
	assert_false(jobs_seen[0].stopped);
	assert_true(jobs_seen[2].stopped);
	assert_true(jobs_seen[2].ops < t->work);
	fsb_result_release(&res);
}

static void deadline_stops_every_job(void **state)
{
	struct fsb_config cfg = {
		.repeat = 1, .min_time_ns = 1000000, .chunk_bytes = 8192, .deadline_ns = 30000000
	};
	struct fsb_result res;
	const struct fsb_test_result *t;
	struct jobs_arg a;
	unsigned stopped;
	(void)state;

	slow = 1;
	fail_job = -1;
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	assert_int_equal(run_jobs_on_clock(3, &cfg, &res, &a), 0);
	t = fsb_result_find(&res, "fake");
	assert_non_null(t);
	/* On the jobs' clock (a stall of the loaded machine's could pass
	 * the deadline on the real one): 1000 ops take 1-3 ms, under the
	 * deadline: not stopped, and the work did not grow past it
	 * (min-time 1 ms). */
	assert_null(t->stopped_by);
	fsb_result_release(&res);

	/* Now a run that would last far past the deadline. */
	cfg.min_time_ns = 500000000;
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	assert_int_equal(run_jobs_on_clock(3, &cfg, &res, &a), 0);
	t = fsb_result_find(&res, "fake");
	assert_non_null(t);
	assert_non_null(t->stopped_by);
	assert_string_equal(t->stopped_by, "deadline");
	/* Every job was stopped, or (on a loaded machine) had just done
	 * all its work as the deadline came; at least one was stopped. */
	stopped = 0;
	for (unsigned k = 0; k < 3; k++) {
		assert_true(jobs_seen[k].stopped || jobs_seen[k].ops >= t->work);
		stopped += jobs_seen[k].stopped;
	}
	assert_true(stopped > 0);
	/* The slowest job (3 us an op) is past the deadline before the end
	 * of its work however the jobs' threads are scheduled. */
	assert_true(jobs_seen[2].stopped);
	/* Stopped at 30 ms (an op more at most), and not grown again after
	 * that. */
	assert_true(t->end_ns[0] - t->start_ns[0] >= 30000000);
	assert_true(t->end_ns[0] - t->start_ns[0] <= 30000000 + 3000);
	fsb_result_release(&res);
}

static void one_failing_job_fails_all(void **state)
{
	struct fsb_config cfg = { .repeat = 1, .min_time_ns = 20000000, .chunk_bytes = 8192 };
	struct fsb_result res;
	struct jobs_arg a;
	struct captured cap;
	(void)state;

	slow = 0;
	fail_job = 2;
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	capture_start(&cap);
	assert_int_equal(run_jobs(4, &cfg, &res, &a), -EIO);
	capture_end(&cap);
	fail_job = -1;
	assert_null(fsb_result_find(&res, "fake"));
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(jobs_seen[k].teardowns, 1);
	fsb_result_release(&res);
}

static void null_workload_through_runner(void **state)
{
	struct fsb_config cfg = { .repeat = 2, .min_time_ns = 5000000, .chunk_bytes = 8192 };
	struct fsb_runner rn = { .cfg = &cfg, .dir = "/tmp" };
	struct fsb_result res;
	const struct fsb_test_result *t;
	(void)state;

	assert_int_equal(fsb_registry_check(), 0);
	assert_non_null(fsb_registry_find("null"));
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	assert_int_equal(fsb_runner_measure(&rn, fsb_registry_find("null"), &res), 0);
	t = fsb_result_find(&res, "null");
	assert_non_null(t);
	assert_int_equal(t->nruns, 2);
	assert_true(t->median > 0);
	assert_true(t->elapsed_s >= 0.005);
	fsb_result_release(&res);
}

static void registry_selects(void **state)
{
	const struct fsb_workload_ops *ops[32];
	const char *const fams[] = { "throughput", NULL };
	(void)state;

	assert_int_equal(fsb_registry_select("read,write", fams, ops, 32), 2);
	/* registry order, not the order given */
	assert_string_equal(ops[0]->name, "write");
	assert_string_equal(ops[1]->name, "read");
	assert_int_equal(fsb_registry_select("throughput", fams, ops, 32), 6);
	assert_int_equal(fsb_registry_select("bogus", fams, ops, 32), -EINVAL);
	/* a test of another family is unknown here */
	assert_int_equal(fsb_registry_select("null", fams, ops, 32), -EINVAL);
}

static void needs_checked_up_front(void **state)
{
	static const struct fsb_workload_ops plain = { .name = "plain" };
	static const struct fsb_workload_ops rooted = { .name = "rooted", .needs = FSB_NEEDS_ROOT };
	static const struct fsb_workload_ops dev = {
		.name = "dev", .needs = FSB_NEEDS_ROOT | FSB_NEEDS_BLOCKDEV | FSB_NEEDS_MOUNT
	};
	const struct fsb_workload_ops *all[] = { &plain, &rooted, &dev };
	struct fsb_err_scope sc;

	(void)state;
	assert_int_equal(fsb_runner_check_needs(all, 1, 0), 0);
	assert_int_equal(fsb_runner_check_needs(
				 all, 3, FSB_NEEDS_ROOT | FSB_NEEDS_BLOCKDEV | FSB_NEEDS_MOUNT),
			 0);
	/* One line naming the first test that lacks something, and what. */
	fsb_error_clear(&caught);
	fsb_err_capture_begin(&sc, &caught, true);
	assert_int_equal(fsb_runner_check_needs(all, 3, 0), -EPERM);
	fsb_err_capture_end(&sc, 0);
	assert_string_equal(caught.msg, "rooted: needs root");
	fsb_error_clear(&caught);
	fsb_err_capture_begin(&sc, &caught, true);
	assert_int_equal(fsb_runner_check_needs(all, 3, FSB_NEEDS_ROOT), -EPERM);
	fsb_err_capture_end(&sc, 0);
	assert_string_equal(caught.msg, "dev: needs a block device and a filesystem it may mount");
	fsb_error_clear(&caught);
	fsb_err_capture_begin(&sc, &caught, true);
	assert_int_equal(fsb_runner_check_needs(all + 2, 1, 0), -EPERM);
	fsb_err_capture_end(&sc, 0);
	assert_string_equal(caught.msg, "dev: needs root, a block device and a filesystem it "
					"may mount");
	/* The lifecycle phases declare theirs. */
	assert_int_equal(fsb_registry_find("mkfs")->needs, FSB_NEEDS_ROOT | FSB_NEEDS_BLOCKDEV);
	assert_int_equal(fsb_runner_have() & FSB_NEEDS_ROOT, geteuid() == 0 ? FSB_NEEDS_ROOT : 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(needs_checked_up_front),
		cmocka_unit_test(grows_until_min_time),
		cmocka_unit_test(work_predicted_from_the_rate),
		cmocka_unit_test(work_predicted_from_the_pace),
		cmocka_unit_test(long_enough_attempt_is_kept),
		cmocka_unit_test(first_run_needs_a_margin),
		cmocka_unit_test(series_started_over_aims_higher),
		cmocka_unit_test(long_series_checks_every_run),
		cmocka_unit_test(first_touch_after_growth_is_discarded),
		cmocka_unit_test(ready_work_is_not_capped_by_space),
		cmocka_unit_test(open_attempt_is_the_first_run),
		cmocka_unit_test(later_short_run_at_the_cap_is_reported),
		cmocka_unit_test(repeat_auto_stops),
		cmocka_unit_test(error_passed_up_and_teardown_runs),
		cmocka_unit_test(growth_capped_to_half_the_space),
		cmocka_unit_test(growth_rechecks_the_space),
		cmocka_unit_test(grown_attempt_out_of_space_falls_back),
		cmocka_unit_test(measured_run_out_of_space_falls_back_to_what_fit),
		cmocka_unit_test(out_of_space_at_the_first_work_is_an_error),
		cmocka_unit_test(own_limit_is_not_halved),
		cmocka_unit_test(jobs_aggregate_and_per_job),
		cmocka_unit_test(stonewall_stops_the_others),
		cmocka_unit_test(deadline_stops_every_job),
		cmocka_unit_test(one_failing_job_fails_all),
		cmocka_unit_test(null_workload_through_runner),
		cmocka_unit_test(registry_selects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
