/*
 * The null workload: no I/O at all. It lets the whole pipeline (runner,
 * auto-scaling, statistics, every view) be tested without touching a
 * filesystem, and measures the harness's own per-operation cost.
 */
#include "workloads/workload.h"

#include <errno.h>

static uint64_t null_start(const struct fsb_ctx *ctx)
{
	(void)ctx;
	return 1024;
}

static int null_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	(void)priv;
	for (uint64_t i = 0; i < ctx->work; i++) {
		uint64_t t0 = fsb_clock_ns();
		int r = fsb_sink_op(out, 0, fsb_clock_ns() - t0);

		if (r)
			return r < 0 ? r : 0;
	}
	return 0;
}

const struct fsb_workload_ops fsb_wl_null = {
	.name = "null",
	.family = "null",
	.title = "no I/O: the harness's own cost per operation",
	.work_unit = FSB_WORK_OPS,
	.initial_work = null_start,
	.work_granule = 1024,
	.run = null_run,
};
