/*
 * Unit tests of the runner with fabricated workloads: auto-scaling discards
 * short runs, every kept run does the same work, teardown always runs, a
 * workload's error is passed up, figures and summaries are computed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "core/registry.h"
#include "core/runner.h"
#include "report/result.h"

static unsigned setups, runs, teardowns;
static uint64_t works[64];
static int fail_with;

/* 1 unit of work = 1 microsecond of busy waiting: figure ~1e6 ops/s. */
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
	/* ~1 us per op: the figure is about 1e6 ops/s, well below 2e6 */
	assert_true(t->median > 1e5 && t->median < 1.1e6);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(grows_until_min_time),
		cmocka_unit_test(error_passed_up_and_teardown_runs),
		cmocka_unit_test(null_workload_through_runner),
		cmocka_unit_test(registry_selects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
