#include "core/runner.h"
#include "core/error.h"
#include "device/diskstat.h"
#include "stats/scale.h"
#include "util/size.h"
#include "util/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A calibration that has not converged after this many attempts keeps the
 * last one: growth is at least 2x per attempt, so this is a 2^12 range. */
#define MAX_ATTEMPTS 12

struct progress_state {
	const struct fsb_runner *rn;
	const struct fsb_workload_ops *ops;
	unsigned run, runs;
	uint64_t work;
	uint64_t start_ns;
};

/* The text view's units: binary for bytes (MiB/s), decimal for ops (k/s). */
static void fmt_rate(double v, bool bytes, char *buf, size_t len)
{
	static const char *const bunit[] = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s" };
	static const char *const ounit[] = { "/s", "k/s", "M/s", "G/s", "T/s" };
	double base = bytes ? 1024 : 1000;
	int i = 0;

	while (v >= base && i < 4) {
		v /= base;
		i++;
	}
	snprintf(buf, len, "%.1f %s", v, bytes ? bunit[i] : ounit[i]);
}

static void show_progress(struct fsb_sink *out)
{
	struct progress_state *ps = out->progress_arg;
	uint64_t now = fsb_clock_ns();
	double secs = (double)(now - ps->start_ns) / 1e9;
	uint64_t done = ps->ops->work_unit == FSB_WORK_BYTES ? out->bytes : out->ops;
	char rate[32] = "", prefix[160];

	fsb_progress_due = 0;
	/* The prefix may name a setup from a file: no control bytes on the line. */
	fsb_text_safe(ps->rn->progress_prefix, 40, prefix, sizeof(prefix));
	if (secs > 0 && ps->ops->work_unit != FSB_WORK_TIME)
		fmt_rate((double)done / secs, ps->ops->work_unit == FSB_WORK_BYTES, rate,
			 sizeof(rate));
	if (ps->ops->work_unit == FSB_WORK_TIME)
		fprintf(stderr, "\r\033[K%s%-12s run %u/%u  %.1f s",
			prefix, ps->ops->name, ps->run, ps->runs, secs);
	else
		fprintf(stderr, "\r\033[K%s%-12s run %u/%u %3.0f%%  %s",
			prefix, ps->ops->name, ps->run, ps->runs,
			ps->work ? 100.0 * (double)done / (double)ps->work : 0.0, rate);
	fflush(stderr);
}

struct one_run {
	uint64_t wall_ns;
	uint64_t cpu_ns;
	uint64_t ops, bytes;
	uint64_t dev_read, dev_write;
	bool have_dev;
};

/* setup (untimed) -> run (timed) -> teardown (always). */
static int run_once(const struct fsb_runner *rn, const struct fsb_workload_ops *ops,
		    struct fsb_ctx *ctx, struct fsb_hist *hist, struct progress_state *ps,
		    struct one_run *res)
{
	struct fsb_sink sink = { .hist = hist };
	struct fsb_diskstat d0, d1;
	void *priv = NULL;
	uint64_t t0, c0;
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (ops->priv_size && !(priv = calloc(1, ops->priv_size)))
		return -ENOMEM;
	if (ops->setup && (err = ops->setup(ctx, priv)))
		goto out;
	if (fsb_stop_requested()) {
		err = -EINTR;
		goto out;
	}
	if (rn->progress) {
		sink.progress = show_progress;
		sink.progress_arg = ps;
		ps->work = ctx->work;
	}
	res->have_dev = rn->diskstat_path && !fsb_diskstat_read(rn->diskstat_path, &d0);
	c0 = fsb_cpu_ns();
	ps->start_ns = t0 = fsb_clock_ns();
	/* ---- timed region: only the workload's own work ---- */
	err = ops->run(ctx, priv, &sink);
	res->wall_ns = fsb_clock_ns() - t0;
	/* ---- end of timed region ---- */
	res->cpu_ns = fsb_cpu_ns() - c0;
	if (res->have_dev && !fsb_diskstat_read(rn->diskstat_path, &d1)) {
		res->dev_read = fsb_diskstat_read_bytes(&d0, &d1);
		res->dev_write = fsb_diskstat_write_bytes(&d0, &d1);
	} else {
		res->have_dev = false;
	}
	res->ops = sink.ops;
	res->bytes = sink.bytes;
	if (!err && fsb_stop_requested())
		err = -EINTR;
out:
	if (ops->teardown)
		ops->teardown(ctx, priv);
	free(priv);
	return err;
}

static double figure(const struct fsb_workload_ops *ops, const struct one_run *r)
{
	double secs = (double)r->wall_ns / 1e9;

	if (secs <= 0)
		secs = 1e-9;
	switch (ops->work_unit) {
	case FSB_WORK_BYTES: return (double)r->bytes / secs;
	case FSB_WORK_OPS: return (double)r->ops / secs;
	case FSB_WORK_TIME: break;
	}
	return secs;
}

static const char *unit_name(enum fsb_work_unit u)
{
	return u == FSB_WORK_BYTES ? "B/s" : u == FSB_WORK_OPS ? "ops/s" : "s";
}

int fsb_runner_measure(const struct fsb_runner *rn, const struct fsb_workload_ops *ops,
		       struct fsb_result *res)
{
	const struct fsb_config *cfg = rn->cfg;
	unsigned repeat = cfg->repeat ? cfg->repeat : 1;
	struct fsb_ctx ctx = { .cfg = cfg, .dir = rn->dir, .ext = rn->ext };
	struct progress_state ps = { .rn = rn, .ops = ops, .runs = repeat };
	struct fsb_hist *all = NULL, *hist = NULL;
	struct one_run *runs = NULL;
	double *values = NULL, cpu_sum = 0, wall_sum = 0;
	uint64_t dev_r = 0, dev_w = 0, bytes_sum = 0, max_work;
	uint64_t granule = ops->work_granule ? ops->work_granule : cfg->chunk_bytes;
	struct fsb_test_result *t;
	bool have_dev = true, warm = !(ops->flags & FSB_WL_WARMUP);
	int err = 0;

	all = malloc(sizeof(*all));
	hist = malloc(sizeof(*hist));
	runs = calloc(repeat, sizeof(*runs));
	values = calloc(repeat, sizeof(*values));
	if (!all || !hist || !runs || !values) {
		err = -ENOMEM;
		goto out;
	}
	fsb_hist_init(all);
	ctx.work = ops->initial_work ? ops->initial_work(&ctx) : 0;
	max_work = ops->max_work ? ops->max_work(&ctx) : UINT64_MAX;
	if (!max_work)
		max_work = UINT64_MAX;
	/* A cap (free space) is no multiple of the chunk: round it down, so
	 * every run does whole units (chunks, seeks, files). */
	if (max_work != UINT64_MAX && max_work >= granule)
		max_work = max_work / granule * granule;
	if (ctx.work > max_work)
		ctx.work = max_work;

	for (unsigned i = 0, attempts = 0; i < repeat;) {
		ps.run = i + 1;
		ctx.run_index = i;
		fsb_hist_init(hist);
		err = run_once(rn, ops, &ctx, hist, &ps, &runs[i]);
		if (err)
			goto out;
		/*
		 * No '+++++': a run shorter than --min-time is discarded, the
		 * work grown, and measuring starts over, so that every kept run
		 * does the same work and lasts long enough. This also catches a
		 * slow first run (cold allocation) hiding fast later ones.
		 */
		if (ops->work_unit != FSB_WORK_TIME && ++attempts < MAX_ATTEMPTS) {
			uint64_t next = fsb_scale_next(ctx.work, runs[i].wall_ns, cfg->min_time_ns,
						       granule, max_work);
			if (next != ctx.work || !warm) {
				ctx.work = next;
				warm = true;
				i = 0;
				fsb_hist_init(all);
				continue;
			}
		}
		fsb_hist_merge(all, hist);
		i++;
	}
	for (unsigned i = 0; i < repeat; i++) {
		values[i] = figure(ops, &runs[i]);
		cpu_sum += (double)runs[i].cpu_ns;
		wall_sum += (double)runs[i].wall_ns;
		dev_r += runs[i].dev_read;
		dev_w += runs[i].dev_write;
		bytes_sum += runs[i].bytes;
		have_dev = have_dev && runs[i].have_dev;
	}
	if (ops->work_unit != FSB_WORK_TIME && runs[0].wall_ns < cfg->min_time_ns) {
		char work[32];

		if (ops->work_unit == FSB_WORK_BYTES)
			fsb_size_format_human(ctx.work, work, sizeof(work));
		else
			snprintf(work, sizeof(work), "%llu operations", (unsigned long long)ctx.work);
		fsb_warn("%s: runs last %.3f s, under --min-time, at the largest work possible "
			 "(%s): the figure is less certain", ops->name,
			 (double)runs[0].wall_ns / 1e9, work);
	}

	t = fsb_result_add_test(res, ops->name, unit_name(ops->work_unit));
	if (!t) {
		err = -ENOMEM;
		goto out;
	}
	err = fsb_test_set_runs(t, values, repeat);
	if (err)
		goto out;
	t->work = ctx.work;
	t->cpu_pct = wall_sum > 0 ? 100.0 * cpu_sum / wall_sum : 0;
	t->elapsed_s = wall_sum / 1e9 / repeat;
	if (all->count) {
		t->has_latency = true;
		t->latency.max_us = (double)all->max_ns / 1e3;
		t->latency.p50_us = (double)fsb_hist_percentile(all, 50) / 1e3;
		t->latency.p99_us = (double)fsb_hist_percentile(all, 99) / 1e3;
		t->latency.p999_us = (double)fsb_hist_percentile(all, 99.9) / 1e3;
	}
	if (rn->diskstat_path && have_dev) {
		t->has_device = true;
		t->dev_read_bytes = dev_r / repeat;
		t->dev_write_bytes = dev_w / repeat;
		if ((ops->flags & FSB_WL_WRITES) && bytes_sum) {
			t->has_wa = true;
			t->write_amplification = (double)dev_w / (double)bytes_sum;
		}
	}
out:
	if (rn->progress)
		fprintf(stderr, "\r\033[K");
	free(all);
	free(hist);
	free(runs);
	free(values);
	return err;
}
