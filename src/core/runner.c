#include "core/runner.h"
#include "core/calibrate.h"
#include "core/env.h"
#include "device/btrfs_space.h"
#include "device/cache.h"
#include "device/diskstat.h"
#include "device/fsinfo.h"
#include "device/inflight.h"
#include "stats/aggregate.h"
#include "stats/scale.h"
#include "stats/summary.h"
#include "util/error.h"
#include "util/io.h"
#include "util/scratch.h"
#include "util/size.h"
#include "util/text.h"
#include "util/units.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* A histogram is words only (stats/hist.h), so the members merge theirs
 * with one reduce: counts and sums add up, the least min, the greatest max. */
#define HIST_WORDS (4 + FSB_HIST_BUCKETS)
_Static_assert(sizeof(struct fsb_hist) == HIST_WORDS * sizeof(uint64_t),
	       "struct fsb_hist is count, min, max, sum and the buckets, all uint64_t");
static const enum fsb_group_op hist_how[HIST_WORDS] = { [1] = FSB_GROUP_MIN, [2] = FSB_GROUP_MAX };

struct progress_state {
	const struct fsb_runner *rn;
	const struct fsb_workload_ops *ops;
	unsigned run, runs;
	unsigned njobs;
	uint64_t work;
	uint64_t start_ns;
	uint64_t open_ns; /* an open attempt's length (0: a run of `work`) */
};

static const char *unit_name(enum fsb_work_unit u);

static void show_progress(struct fsb_sink *out)
{
	struct progress_state *ps = out->progress_arg;
	uint64_t now = fsb_clock_ns();
	double secs = (double)(now - ps->start_ns) / 1e9, pct = -1, rate = -1;
	uint64_t done = ps->ops->work_unit == FSB_WORK_BYTES ? out->bytes : out->ops;

	fsb_progress_due = 0;
	if (ps->open_ns) {
		/* An open attempt ends at its time, not at its work. */
		pct = secs * 1e9 < (double)ps->open_ns ? 100.0 * secs * 1e9 / (double)ps->open_ns
						       : 100;
		if (secs > 0)
			rate = (double)done * ps->njobs / secs;
	} else if (ps->ops->work_unit != FSB_WORK_TIME) {
		pct = ps->work ? 100.0 * (double)done / (double)ps->work : 0;
		/* Job 0's own pace, times the jobs: an estimate of the aggregate. */
		if (secs > 0)
			rate = (double)done * ps->njobs / secs;
	}
	fsb_prog_tick(ps->rn->prog, ps->run, ps->runs, pct, rate, unit_name(ps->ops->work_unit),
		      secs, now);
}

/* What a member tells member 0 about its part of a run. */
struct job_rec {
	uint64_t ops, bytes;
	uint64_t start_ns, end_ns; /* relative to its origin (the start gate) */
	uint64_t cpu_ns;	   /* its thread, and the children it reaped */
};

/* A run as every member knows it (reduced), and what member 0 measured. */
struct one_run {
	uint64_t wall_ns;		      /* last end - first start */
	uint64_t pace_ns;		      /* the same at its last quarter's pace (run_once) */
	uint64_t ops, bytes;		      /* of all members */
	uint64_t first_start_ns, last_end_ns; /* relative to the origin */
	int halt;			      /* enum fsb_halt that cut a job short */
	uint64_t cpu_ns;		      /* every process's: each member and reaped child */
	/* member 0 */
	uint64_t origin_ns; /* its start gate, CLOCK_MONOTONIC */
	uint64_t dev_read, dev_write;
	bool have_dev;
	struct fsb_inflight_summary inflight;
};

/* What one measurement shares between its runs. */
struct measure {
	const struct fsb_runner *rn;
	struct fsb_group *g;
	const struct fsb_workload_ops *ops;
	char inflight_path[PATH_MAX]; /* "" when the device is unknown */
	/* The next run is an open attempt (calibrate.c): it stops this long
	 * after its start, but not before it has done open_least. 0: it does
	 * its work, however long. */
	uint64_t open_ns, open_least;
	bool meta_capped;    /* the last space_limit: btrfs metadata was the limit */
	struct fsb_cal cal;  /* the sizer's state (core/calibrate.h) */
	struct fsb_ctx *ctx; /* this member's context, for the sizer's questions */
	uint64_t granule;    /* grown work is a multiple of this */
};

/*
 * Every member's setup of one run (untimed): what the jobs share is made
 * by the first member's setup, the others find it. *set_up: whether
 * teardown is owed, a setup that ran, failed or not; never one that did
 * not (no memory, or the first member's shared setup failed): a zeroed
 * priv would have it close descriptor 0. Returns this member's status.
 */
static int set_up_all(struct measure *m, struct fsb_ctx *ctx, void **privp, bool *set_up)
{
	const struct fsb_workload_ops *ops = m->ops;
	struct fsb_group *g = m->g;
	bool root = g->rank == 0;
	void *priv = NULL;
	int own = 0, st;

	if (ops->priv_size && !(priv = calloc(1, ops->priv_size)))
		own = -ENOMEM;
	*privp = priv;
	*set_up = !own && !ops->setup;
	if (ctx->shared && g->size > 1) {
		if (root && !own && ops->setup) {
			*set_up = true;
			own = ops->setup(ctx, priv);
		}
		st = fsb_group_barrier(g, own, NULL);
		if (!root && !own && !st && ops->setup) {
			*set_up = true;
			own = ops->setup(ctx, priv);
		}
	} else if (!own && ops->setup) {
		*set_up = true;
		own = ops->setup(ctx, priv);
	}
	return own;
}

/* A run's time at its last quarter's pace (0: no mark was passed). */
static uint64_t last_quarter_pace(const struct fsb_sink *sink, uint64_t t1)
{
	uint64_t done = fsb_sink_done(sink);

	if (!sink->mark_ns || t1 <= sink->mark_ns || done <= sink->mark_done)
		return 0;
	return (uint64_t)((double)(t1 - sink->mark_ns) * (double)done /
			  (double)(done - sink->mark_done));
}

/*
 * setup (untimed) -> start gate -> run (timed) -> everybody ended ->
 * teardown (always) -> the figures brought together. A collective: every
 * member calls it, and it returns the worst status of all (group.h).
 * recs: member 0's room for every member's record (else NULL).
 */
static int run_once(struct measure *m, struct fsb_ctx *ctx, struct fsb_hist *hist,
		    struct progress_state *ps, struct one_run *res, struct job_rec *recs)
{
	static const enum fsb_group_op how[6] = { FSB_GROUP_SUM, FSB_GROUP_SUM, FSB_GROUP_MIN,
						  FSB_GROUP_MAX, FSB_GROUP_MAX, FSB_GROUP_SUM };
	const struct fsb_runner *rn = m->rn;
	const struct fsb_workload_ops *ops = m->ops;
	const struct fsb_config *cfg = rn->cfg;
	struct fsb_group *g = m->g;
	struct fsb_sink sink = { .hist = hist };
	struct fsb_diskstat d0, d1;
	struct fsb_inflight *sampler = NULL;
	struct job_rec me = { 0 };
	bool root = g->rank == 0;
	void *priv = NULL;
	uint64_t t0, t1, c0 = 0, tc0, origin = 0, pcpu = 0, pace = 0, v[6];
	/* The user's --deadline, or an open attempt's (never both). */
	uint64_t deadline = cfg->deadline_ns ? cfg->deadline_ns : m->open_ns;
	/* One member per process measures the process's CPU time (every
	 * member thread and reaped child); the processes' add up. */
	bool proc_lead = g->local_rank == 0, set_up;
	int own = 0, st;

	memset(res, 0, sizeof(*res));
	own = set_up_all(m, ctx, &priv, &set_up);
	if (!own && fsb_stop_requested())
		own = -EINTR;
	/* Every setup is done (or one failed: then nobody runs); the kernel's
	 * caches dropped once per host when the drop is deferred to here. */
	st = fsb_group_barrier(g, own, NULL);
	if (!st)
		st = fsb_group_settle_cache(g, 0);
	if (st)
		goto out;
	/* After every member's setup, before any member's run. */
	fsb_group_rearm(g);
	if (root) {
		res->have_dev = rn->diskstat_path && !fsb_diskstat_read(rn->diskstat_path, &d0);
		if (res->have_dev && m->inflight_path[0])
			sampler = fsb_inflight_start(m->inflight_path);
		if (rn->prog && rn->prog->on) {
			sink.progress = show_progress;
			sink.progress_arg = ps;
			ps->work = ctx->work;
			ps->open_ns = m->open_ns;
		}
	}
	if (proc_lead)
		c0 = fsb_cpu_ns();
	/* The start gate: every member starts now. */
	fsb_group_barrier(g, 0, &origin);
	if (g->size > 1 || deadline)
		sink.halt = g->halt;
	if (deadline)
		sink.deadline_ns = origin + deadline;
	sink.work_bytes = ops->work_unit == FSB_WORK_BYTES;
	if (m->open_ns)
		sink.least = m->open_least;
	else if (g->size == 1)
		sink.mark = ctx->work - ctx->work / 4;
	tc0 = fsb_thread_cpu_ns();
	ps->start_ns = t0 = fsb_clock_ns();
	/* ---- timed region: only the workload's own work ---- */
	own = ops->run(ctx, priv, &sink);
	t1 = fsb_clock_ns();
	/* ---- end of timed region ---- */
	me.cpu_ns = fsb_thread_cpu_ns() - tc0 + sink.child_cpu_ns;
	if (!own && fsb_stop_requested())
		own = -EINTR;
	/* A failure stops the others now; with --stonewall the first to
	 * finish does. */
	if (own && own != -EINTR)
		fsb_group_abort(g);
	else if (!own && cfg->stonewall)
		fsb_halt_raise(g->halt, FSB_HALT_STONEWALL);
	st = fsb_group_barrier(g, own, NULL);
	if (proc_lead)
		pcpu = fsb_cpu_ns() - c0;
	if (root) {
		fsb_inflight_stop(sampler, &res->inflight);
		if (res->have_dev && !fsb_diskstat_read(rn->diskstat_path, &d1)) {
			res->dev_read = fsb_diskstat_read_bytes(&d0, &d1);
			res->dev_write = fsb_diskstat_write_bytes(&d0, &d1);
		} else {
			res->have_dev = false;
		}
		res->origin_ns = origin;
	}
	me.ops = sink.ops;
	me.bytes = sink.bytes;
	/* The run at its last quarter's pace, which its start-up (a new
	 * file's first pages, a new directory, the pattern's first chunks)
	 * no longer slowed. */
	pace = last_quarter_pace(&sink, t1);
	me.start_ns = t0 - origin;
	me.end_ns = t1 - origin;
out:
	if (ops->teardown && set_up)
		ops->teardown(ctx, priv);
	free(priv);
	/* btrfs allocates a new data chunk before it commits to free what a
	 * run overwrote: commit after every run, so that runs do not add up
	 * past the data room and take the metadata's unallocated headroom. */
	if (rn->cow && root)
		fsb_cache_sync_fs(ctx->dir);
	/* These also fence every teardown from the next setup. */
	v[0] = me.ops;
	v[1] = me.bytes;
	v[2] = me.start_ns;
	v[3] = me.end_ns;
	/* Why this member was cut short, if it was: a stop word raised
	 * after every member had finished cut nobody. */
	v[4] = sink.stopped ? (uint64_t)atomic_load(g->halt) : FSB_HALT_NONE;
	v[5] = pcpu;
	st = fsb_group_reduce(g, st, v, how, 6);
	res->cpu_ns = v[5];
	res->ops = v[0];
	res->bytes = v[1];
	res->first_start_ns = v[2];
	res->last_end_ns = v[3];
	res->halt = (int)v[4];
	res->wall_ns = v[3] > v[2] ? v[3] - v[2] : 0;
	res->pace_ns = pace && pace < res->wall_ns ? pace : res->wall_ns;
	st = fsb_group_gather(g, st, &me, sizeof(me), recs);
	return fsb_group_reduce(g, st, (uint64_t *)hist, hist_how, HIST_WORDS);
}

static double figure(const struct fsb_workload_ops *ops, const struct one_run *r)
{
	/* The aggregate (stats/aggregate.h): all members' work over the first
	 * start to the last end. */
	switch (ops->work_unit) {
	case FSB_WORK_BYTES:
		return fsb_agg_rate_of(r->bytes, r->first_start_ns, r->last_end_ns);
	case FSB_WORK_OPS:
		return fsb_agg_rate_of(r->ops, r->first_start_ns, r->last_end_ns);
	case FSB_WORK_TIME:
		break;
	}
	return (double)r->wall_ns / 1e9;
}

/* One member's figure in one run: its work over its own duration. */
static double job_figure(const struct fsb_workload_ops *ops, const struct job_rec *j)
{
	struct fsb_job_span span = {
		.work = ops->work_unit == FSB_WORK_BYTES ? j->bytes : j->ops,
		.start_ns = j->start_ns,
		.end_ns = j->end_ns,
	};

	if (ops->work_unit == FSB_WORK_TIME)
		return (double)(j->end_ns - j->start_ns) / 1e9;
	return fsb_agg_job_rate(&span);
}

static const char *unit_name(enum fsb_work_unit u)
{
	return u == FSB_WORK_BYTES ? "B/s" : u == FSB_WORK_OPS ? "ops/s" : "s";
}

/* "1.2 GiB" or "16384 operations": an amount of the workload's work. */
static void fmt_work(const struct fsb_workload_ops *ops, uint64_t work, char *buf, size_t len)
{
	if (ops->work_unit == FSB_WORK_BYTES)
		fsb_size_format_human(work, buf, len);
	else
		snprintf(buf, len, "%llu operations", (unsigned long long)work);
}

/* Free inodes for the filesystem holding dir, UINT64_MAX when it has no
 * fixed count (btrfs) or cannot say. */
static uint64_t free_inodes(const char *dir)
{
	struct statvfs sv;

	if (statvfs(dir, &sv) < 0 || !sv.f_files)
		return UINT64_MAX;
	return (uint64_t)sv.f_favail;
}

/*
 * What the space lets each member's run do now (space_fit on its share of
 * the free space, the least of all members), rounded down to whole units
 * (a cap from free space is no multiple of the chunk) except to below
 * `keep`, a work that fits as it is (the one asked for: --files 2500 where
 * 2697 fit is not cut to 2048); UINT64_MAX when the workload takes no
 * space. A collective.
 */
static uint64_t space_limit(struct measure *m, struct fsb_ctx *ctx, uint64_t granule, uint64_t keep)
{
	static const enum fsb_group_op how[1] = { FSB_GROUP_MIN };
	struct fsb_space share;
	struct fsb_btrfs_meta bm;
	uint64_t v, plain;

	if (!m->ops->space_fit || fsb_workload_no_data(m->ops, ctx->cfg))
		return UINT64_MAX;
	/* A copy-on-write filesystem counts blocks freed or written since
	 * the last commit only after the next one: commit first, so that
	 * statvfs tells what is really free. */
	if (m->rn->cow)
		fsb_cache_sync_fs(ctx->dir);
	share.bytes = fsb_btrfs_scratch_space(ctx->dir, 0) / m->g->size;
	share.inodes = free_inodes(ctx->dir);
	if (share.inodes != UINT64_MAX)
		share.inodes /= m->g->size;
	share.meta = UINT64_MAX;
	plain = m->ops->space_fit(ctx, &share);
	/* btrfs: the metadata a file set takes (files_fit keeps a margin). */
	v = plain;
	if ((m->ops->flags & FSB_WL_NAMES) && !fsb_btrfs_meta_read(ctx->dir, &bm)) {
		share.meta = fsb_btrfs_meta_room(&bm) / m->g->size;
		v = m->ops->space_fit(ctx, &share);
	}
	/* Whether the metadata is what holds the work back, for the warning. */
	m->meta_capped = v < plain;
	fsb_group_reduce(m->g, 0, &v, how, 1);
	if (keep <= v && keep > v / granule * granule)
		return keep;
	return v >= granule ? v / granule * granule : v;
}

static bool out_of_space(int err)
{
	return err == -ENOSPC || err == -EDQUOT;
}

/* Member 0: the figure of the kept runs, appended to res. */
/* What the setups did to make the runs cold (device/cache.h): the file's
 * resident share after eviction, and how a stat test's metadata went
 * (the weakest of its runs: warm over drop-all over remount). Then the
 * share of a buffered loop device's backing file the runs left in the
 * page cache, where O_DIRECT on that loop device may have been served. */
static int record_cache(const struct fsb_result *res, struct fsb_test_result *t)
{
	struct fsb_cache_note n;
	const char *how = NULL;
	double share;

	fsb_cache_note_take(&n);
	t->has_resident = n.resident_known;
	t->cache_resident = n.resident;
	if (!fsb_env_loop_resident(res, &share)) {
		t->has_loop_resident = true;
		t->loop_resident = share;
	}
	if (n.meta & FSB_CACHE_META_WARM)
		how = "warm";
	else if (n.meta & FSB_CACHE_META_DROP_ALL)
		how = "drop-all";
	else if (n.meta & FSB_CACHE_META_REMOUNT)
		how = "remount";
	return how && fsb_strset(&t->metadata_cold, how) ? -ENOMEM : 0;
}

/* How the work was chosen and why, and why the runs are short (if so). */
static int record_choice(const struct measure *m, struct fsb_test_result *t, const char *short_why)
{
	const struct fsb_cal *c = &m->cal;
	const char *how, *why;

	if (short_why && fsb_strset(&t->short_reason, short_why))
		return -ENOMEM;
	if (!c->p.grows)
		return 0;
	if (c->p.fixed || c->p.file_given) {
		how = "given";
		why = c->work > c->p.asked ? "the file given, gone over in passes"
					   : "the value given, run exactly";
	} else if (c->work != c->p.asked) {
		how = "grown";
		why = c->work < c->p.asked ? "the default cut to what fits or what a run can do"
					   : "left out: grown until runs met --min-time";
	} else {
		how = "default";
		why = "left out: the default met --min-time";
	}
	return fsb_strset(&t->chosen_how, how) || fsb_strset(&t->chosen_why, why) ? -ENOMEM : 0;
}

static int report(struct measure *m, const struct one_run *runs, unsigned repeat,
		  const struct job_rec *recs, const struct fsb_hist *all, const struct fsb_ctx *ctx,
		  const char *short_why, const char *repeat_stop, struct fsb_result *res)
{
	const struct fsb_workload_ops *ops = m->ops;
	unsigned njobs = m->g->size;
	double *values = calloc(repeat, sizeof(*values)), cpu_sum = 0, wall_sum = 0;
	double *job_runs = NULL, *job_cpu = NULL, *job_wall = NULL;
	uint64_t *starts = calloc(repeat, sizeof(*starts)), *ends = calloc(repeat, sizeof(*ends));
	uint64_t dev_r = 0, dev_w = 0, bytes_sum = 0, infl_samples = 0, infl_max = 0;
	double infl_sum = 0;
	const char *stopped = NULL;
	struct fsb_test_result *t;
	struct fsb_summary sum;
	bool have_dev = true;
	int err = -ENOMEM;

	if (njobs > 1) {
		job_runs = calloc((size_t)njobs * repeat, sizeof(*job_runs));
		job_cpu = calloc(njobs, sizeof(*job_cpu));
		job_wall = calloc(njobs, sizeof(*job_wall));
		if (!job_runs || !job_cpu || !job_wall)
			goto out;
	}
	if (!values || !starts || !ends)
		goto out;
	for (unsigned i = 0; i < repeat; i++) {
		const struct one_run *r = &runs[i];

		values[i] = figure(ops, r);
		cpu_sum += (double)r->cpu_ns;
		wall_sum += (double)r->wall_ns;
		dev_r += r->dev_read;
		dev_w += r->dev_write;
		bytes_sum += r->bytes;
		have_dev = have_dev && r->have_dev;
		starts[i] = r->origin_ns + r->first_start_ns;
		ends[i] = r->origin_ns + r->last_end_ns;
		if (r->halt == FSB_HALT_STONEWALL && !stopped)
			stopped = "stonewall";
		else if (r->halt == FSB_HALT_DEADLINE)
			stopped = "deadline";
		infl_samples += r->inflight.samples;
		infl_sum += r->inflight.mean * (double)r->inflight.samples;
		if (r->inflight.max > infl_max)
			infl_max = r->inflight.max;
		for (unsigned k = 0; k < njobs && njobs > 1; k++) {
			const struct job_rec *j = &recs[(size_t)i * njobs + k];

			job_runs[(size_t)k * repeat + i] = job_figure(ops, j);
			job_cpu[k] += (double)j->cpu_ns;
			job_wall[k] += (double)(j->end_ns - j->start_ns);
		}
	}
	for (unsigned k = 0; k < njobs && njobs > 1; k++)
		job_cpu[k] = job_wall[k] > 0 ? 100.0 * job_cpu[k] / job_wall[k] : 0;

	t = fsb_result_add_test(res, ops->name, unit_name(ops->work_unit));
	if (!t)
		goto out;
	/* One summary of the runs: the result's figures and the interval. */
	if ((err = fsb_summary_compute(values, repeat, &sum)) ||
	    (err = fsb_test_set_runs_summarised(t, values, repeat, &sum)) ||
	    (err = fsb_test_set_times(t, starts, ends)) ||
	    (njobs > 1 && (err = fsb_test_set_jobs(t, job_runs, njobs, job_cpu))))
		goto out;
	err = -ENOMEM;
	t->work = ctx->work;
	t->file_bytes = ops->pass_file ? ops->pass_file(ctx) : 0;
	if (record_choice(m, t, short_why))
		goto out;
	if ((stopped && fsb_strset(&t->stopped_by, stopped)) || record_cache(res, t))
		goto out;
	/* --repeat auto: the interval the runs stopped at, and why. */
	if (repeat_stop) {
		if (fsb_strset(&t->repeat_stop, repeat_stop))
			goto out;
		t->has_ci = !fsb_summary_ci95(&sum, &t->ci95_low, &t->ci95_high);
	}
	t->cpu_pct = wall_sum > 0 ? 100.0 * cpu_sum / wall_sum : 0;
	t->elapsed_s = wall_sum / 1e9 / repeat;
	if (all->count) {
		t->has_latency = true;
		t->latency.max_us = (double)all->max_ns / 1e3;
		t->latency.p50_us = (double)fsb_hist_percentile(all, 50) / 1e3;
		t->latency.p99_us = (double)fsb_hist_percentile(all, 99) / 1e3;
		t->latency.p999_us = (double)fsb_hist_percentile(all, 99.9) / 1e3;
		if (fsb_test_set_hist(t, all))
			goto out;
	}
	if (m->rn->diskstat_path && have_dev) {
		t->has_device = true;
		t->dev_read_bytes = dev_r / repeat;
		t->dev_write_bytes = dev_w / repeat;
		if ((ops->flags & FSB_WL_WRITES) && bytes_sum &&
		    !fsb_workload_no_data(ops, ctx->cfg)) {
			t->has_wa = true;
			t->write_amplification = (double)dev_w / (double)bytes_sum;
		}
		if (infl_samples) {
			t->has_inflight = true;
			t->inflight_max = (double)infl_max;
			t->inflight_mean = infl_sum / (double)infl_samples;
		}
	}
	err = 0;
out:
	free(values);
	free(starts);
	free(ends);
	free(job_runs);
	free(job_cpu);
	free(job_wall);
	return err;
}

/*
 * Why --repeat auto stops after a run, a code so that the members of a group
 * can agree on it (the largest wins); auto_stops[] names each in the result.
 */
enum auto_stop { AUTO_MORE, AUTO_CONVERGED, AUTO_MAX_RUNS, AUTO_TIME_BUDGET, AUTO_NCODES };

static const char *const auto_stops[AUTO_NCODES] = {
	[AUTO_MORE] = NULL,
	[AUTO_CONVERGED] = "converged",
	[AUTO_MAX_RUNS] = "max-runs",
	[AUTO_TIME_BUDGET] = "time-budget",
};

/* Why --repeat auto stops after n runs (AUTO_MORE: one more run). */
static enum auto_stop auto_stop(const struct fsb_workload_ops *ops, const struct one_run *runs,
				unsigned n, uint64_t spent_ns, uint64_t budget_ns)
{
	double v[FSB_RUNNER_AUTO_MAX_RUNS], lo, hi;
	struct fsb_summary s;

	if (n < FSB_RUNNER_AUTO_MIN_RUNS)
		return AUTO_MORE;
	for (unsigned i = 0; i < n; i++)
		v[i] = figure(ops, &runs[i]);
	/* hi - mean: the half width even where the low end stops at 0 */
	if (!fsb_summary_compute(v, n, &s) && !fsb_summary_ci95(&s, &lo, &hi) && s.mean > 0 &&
	    hi - s.mean <= FSB_RUNNER_AUTO_REL * s.mean)
		return AUTO_CONVERGED;
	if (n >= FSB_RUNNER_AUTO_MAX_RUNS)
		return AUTO_MAX_RUNS;
	if (spent_ns >= budget_ns)
		return AUTO_TIME_BUDGET;
	return AUTO_MORE;
}

/* Whether the members of g work on one file or directory for ops. */
static bool is_shared(const struct fsb_runner *rn, const struct fsb_workload_ops *ops,
		      const struct fsb_group *g)
{
	return g->size > 1 &&
	       ((ops->flags & FSB_WL_NAMES) ? rn->cfg->shared_dir : rn->cfg->shared_file);
}

/* Where a member writes: its job's directory, or what the jobs share. */
static const char *own_dir(const struct fsb_runner *rn, bool shared)
{
	return shared || !rn->job_dir ? rn->dir : rn->job_dir;
}

int fsb_runner_release(const struct fsb_runner *rn, const struct fsb_workload_ops *ops)
{
	struct fsb_group *g = rn->group; /* NULL: this process alone */
	bool shared = g && is_shared(rn, ops, g);
	const char *dir = own_dir(rn, shared);
	int err = 0, fd;

	if (!ops->scratch_file)
		return 0;
	/* Every member is done with every file first: with --reorder a rank
	 * reads another's. */
	if (g)
		err = fsb_group_barrier(g, 0, NULL);
	/* The file only, and only inside the scratch directory: never
	 * through a job's directory swapped for a symlink (nor the file: an
	 * unlink removes a link, never its target). Gone or not removable,
	 * it is the scratch directory's removal's at the end. */
	if (!err && (!shared || g->rank == 0) && (fd = fsb_scratch_open_dir(rn->dir, dir)) >= 0) {
		if (!fsb_cleanup_unlinkat(fd, ops->scratch_file, 0))
			/* The freeing is done and counted before the next
			 * test: its setup asks what is free (copy-on-write
			 * filesystems free blocks at commit), and no journal
			 * commit of this unlink lands in its clock. */
			fsb_cache_sync_fs(dir);
		close(fd);
	}
	return g ? fsb_group_barrier(g, err, NULL) : err;
}

/* The sizer's questions (core/calibrate.h), answered for this test: a
 * collective, as every member asks the same after the same run. */
static uint64_t probe_space(void *arg, uint64_t keep)
{
	struct measure *m = arg;

	m->ctx->work = m->cal.work;
	return space_limit(m, m->ctx, m->granule, keep);
}

/* The members take the least of their answers, 0 when one has none: a
 * smaller ready work is ready for all. */
static uint64_t probe_ready(void *arg, uint64_t low, uint64_t high)
{
	static const enum fsb_group_op how[1] = { FSB_GROUP_MIN };
	struct measure *m = arg;
	uint64_t v;

	m->ctx->work = m->cal.work;
	v = m->ops->ready_work(m->ctx, low, high);
	fsb_group_reduce(m->g, 0, &v, how, 1);
	return v;
}

/* The first work and the sizing rules of this test (a collective). */
static void size_test(struct measure *m, struct fsb_ctx *ctx)
{
	static const enum fsb_group_op min2[2] = { FSB_GROUP_MIN, FSB_GROUP_MIN };
	const struct fsb_workload_ops *ops = m->ops;
	const struct fsb_config *cfg = m->rn->cfg;
	struct fsb_cal_probe probe = { .space = probe_space, .ready = probe_ready, .arg = m };
	struct fsb_cal_params p = { .granule = m->granule, .min_ns = cfg->min_time_ns };
	uint64_t lim[2];

	lim[0] = ops->initial_work ? ops->initial_work(ctx) : 0;
	lim[1] = ops->max_work ? ops->max_work(ctx) : 0;
	if (!lim[1])
		lim[1] = UINT64_MAX;
	fsb_group_reduce(m->g, 0, lim, min2, 2);
	p.asked = lim[0];
	p.hard = lim[1];
	p.grows = ops->work_unit != FSB_WORK_TIME;
	/* max_work == initial_work: an exact size the user gave, not grown. */
	p.fixed = ops->max_work && p.hard == p.asked;
	p.warmup = ops->flags & FSB_WL_WARMUP;
	p.open_first = ops->flags & FSB_WL_OPEN;
	/* Not for jobs (each would stop at its own work), nor under the
	 * user's --deadline, nor without --min-time (nothing would stop it). */
	p.may_open = m->g->size == 1 && !cfg->deadline_ns && cfg->min_time_ns;
	p.has_ready = ops->ready_work != NULL;
	p.file_given = (ops->flags & FSB_WL_GIVEN_FILE) && cfg->size_given;
	fsb_cal_init(&m->cal, &p, &probe);
	ctx->work = m->cal.work;
	if (m->g->rank == 0 && p.asked > p.hard && ops->work_cut)
		ops->work_cut(ctx, p.asked, p.hard);
}

/* How a run ended, for the sizer. */
static enum fsb_cal_end run_end(int err, const struct one_run *r)
{
	if (err)
		return out_of_space(err) && !fsb_stop_requested() ? FSB_CAL_NOSPACE
								  : FSB_CAL_FAILED;
	return r->halt == FSB_HALT_DEADLINE ? FSB_CAL_DEADLINE : FSB_CAL_DONE;
}

/* The runs of one measurement and where they stand. */
struct series {
	struct one_run *runs;
	struct job_rec *recs; /* member 0: every member's record of every run */
	struct fsb_hist *all, *hist;
	unsigned repeat; /* the room; at the end, the runs kept */
	const char *why; /* --repeat auto: why it stopped */
};

/* One run of the series at the sizer's work, and its decision. */
static int one_step(struct measure *m, struct fsb_ctx *ctx, struct progress_state *ps,
		    struct series *s, unsigned i, struct fsb_cal_decision *d)
{
	bool grown = fsb_cal_grown(&m->cal);
	struct one_run *r = &s->runs[i];
	struct fsb_cal_run cr = { .index = i };
	int err;

	ctx->work = m->cal.work;
	m->open_ns = m->cal.open_ns;
	m->open_least = m->cal.open_least;
	ctx->run_index = i;
	fsb_hist_init(s->hist);
	/* A grown attempt's error waits: out of space, it is forgiven. */
	if (grown)
		fsb_err_hold();
	err = run_once(m, ctx, s->hist, ps, r, s->recs ? s->recs + (size_t)i * m->g->size : NULL);
	m->open_ns = 0;
	if (grown)
		fsb_err_release(!out_of_space(err) || fsb_stop_requested());
	cr.end = run_end(err, r);
	cr.done = m->ops->work_unit == FSB_WORK_BYTES ? r->bytes : r->ops;
	cr.wall_ns = r->wall_ns;
	cr.pace_ns = r->pace_ns;
	cr.first_wall_ns = i == 1 ? s->runs[0].wall_ns : 0;
	*d = fsb_cal_decide(&m->cal, &cr);
	ctx->work = m->cal.work;
	if (d->timed)
		r->halt = FSB_HALT_NONE;
	if (d->drop_first) {
		s->runs[0] = s->runs[1];
		if (s->recs)
			memcpy(s->recs, s->recs + m->g->size, m->g->size * sizeof(*s->recs));
	}
	return d->action == FSB_CAL_STOP ? err : 0;
}

/* Run the series: the sizer's decisions carried out until the runs are
 * kept, --repeat's or --repeat auto's. */
static int run_series(struct measure *m, struct fsb_ctx *ctx, struct progress_state *ps,
		      struct series *s)
{
	static const enum fsb_group_op max1[1] = { FSB_GROUP_MAX };
	const struct fsb_config *cfg = m->rn->cfg;
	uint64_t budget = cfg->repeat_budget_ns ? cfg->repeat_budget_ns
						: FSB_RUNNER_AUTO_BUDGET * cfg->min_time_ns;
	uint64_t series_ns = 0;
	unsigned i = 0;
	int err;

	while (i < s->repeat) {
		struct fsb_cal_decision d;

		/* The measured series starts (over) here: its time budget too. */
		if (!i)
			series_ns = fsb_clock_ns();
		ps->run = i + 1;
		/* auto: the runs still certain are the least it takes (the
		 * progress line and its ETA), not the most it may take. */
		if (cfg->repeat_auto)
			ps->runs = i + 1 > FSB_RUNNER_AUTO_MIN_RUNS ? i + 1
								    : FSB_RUNNER_AUTO_MIN_RUNS;
		if ((err = one_step(m, ctx, ps, s, i, &d)))
			return err;
		if (d.drop_first) {
			fsb_hist_init(s->all);
			i = 0;
		}
		if (d.action != FSB_CAL_KEEP) {
			fsb_hist_init(s->all);
			i = 0;
			continue;
		}
		fsb_hist_merge(s->all, s->hist);
		i++;
		if (cfg->repeat_auto && i >= FSB_RUNNER_AUTO_MIN_RUNS) {
			/* Every member stops after the same run: the clocks differ. */
			uint64_t code = auto_stop(m->ops, s->runs, i, fsb_clock_ns() - series_ns,
						  budget);

			fsb_group_reduce(m->g, 0, &code, max1, 1);
			if (code != AUTO_MORE) {
				s->why = auto_stops[code];
				break;
			}
		}
	}
	s->repeat = i;
	return 0;
}

/* The shortest kept run the deadline did not cut (where growth stopped at
 * a cap, a later run may be the short one). */
static unsigned shortest_run(const struct one_run *runs, unsigned n)
{
	unsigned shortest = 0;

	for (unsigned k = 1; k < n; k++)
		if (runs[k].halt != FSB_HALT_DEADLINE &&
		    (runs[k].wall_ns < runs[shortest].wall_ns ||
		     runs[shortest].halt == FSB_HALT_DEADLINE))
			shortest = k;
	return shortest;
}

/* Member 0: the warning for runs that fell back or are under --min-time. */
static void warn_sizing(const struct measure *m, const char *short_why, uint64_t shortest_ns)
{
	const struct fsb_workload_ops *ops = m->ops;
	const struct fsb_cal *c = &m->cal;
	char at[40] = "", work[32];

	fmt_work(ops, c->work, work, sizeof(work));
	if (c->failed_at) {
		char was[32];

		/* Not for an open attempt: its work was a bound, not what ran
		 * out of space. */
		if (!c->failed_open) {
			fmt_work(ops, c->failed_at, was, sizeof(was));
			snprintf(at, sizeof(at), " at %s", was);
		}
		fsb_warn("%s: out of space%s while growing: measured runs of %s instead%s",
			 ops->name, at, work, short_why ? ", shorter than --min-time" : "");
	} else if (short_why && !strcmp(short_why, "time")) {
		fsb_warn("%s: runs last %.3f s, under --min-time, at %s after %u "
			 "attempts to grow the work (its time does not follow it): the "
			 "figure is less certain",
			 ops->name, (double)shortest_ns / 1e9, work, c->attempts);
	} else if (short_why && !strcmp(short_why, "given")) {
		fsb_warn("%s: runs last %.3f s, under --min-time, at the work given (%s): the "
			 "figure is less certain",
			 ops->name, (double)shortest_ns / 1e9, work);
	} else if (short_why) {
		fsb_warn("%s: runs last %.3f s, under --min-time, at the largest work %s "
			 "(%s): the figure is less certain",
			 ops->name, (double)shortest_ns / 1e9,
			 strcmp(short_why, "space") ? "possible"
			 : m->meta_capped ? "the btrfs metadata space allows, with a margin"
					  : "the free space allows",
			 work);
	}
}

/* Where this member's test works (its directory, another's to read). */
static void place_ctx(const struct fsb_runner *rn, const struct fsb_workload_ops *ops,
		      const struct fsb_group *g, struct fsb_ctx *ctx)
{
	bool shared = is_shared(rn, ops, g);

	ctx->dir = own_dir(rn, shared);
	ctx->job = ctx->data_job = g->rank;
	if (!shared && rn->read_dir && !(ops->flags & (FSB_WL_WRITES | FSB_WL_NAMES))) {
		/* Another's files, written with its data (getc compares every
		 * byte with it). */
		ctx->dir = rn->read_dir;
		ctx->data_job = rn->read_job;
	}
	ctx->njobs = g->size;
	ctx->shared = shared;
}

int fsb_runner_measure(const struct fsb_runner *rn, const struct fsb_workload_ops *ops,
		       struct fsb_result *res)
{
	const struct fsb_config *cfg = rn->cfg;
	/* --repeat auto: room for the most runs; auto_stop says when. */
	unsigned repeat = cfg->repeat_auto ? FSB_RUNNER_AUTO_MAX_RUNS
			  : cfg->repeat	   ? cfg->repeat
					   : 1;
	struct fsb_ctx ctx = { .cfg = cfg, .ext = rn->ext, .cow = rn->cow };
	struct measure m = { .rn = rn, .g = rn->group, .ops = ops, .ctx = &ctx };
	struct progress_state ps = { .rn = rn, .ops = ops, .runs = repeat };
	struct series s = { .repeat = repeat };
	struct fsb_group single;
	const char *short_why;
	unsigned shortest;
	bool root;
	int err = 0;

	if (!m.g) {
		/* A command without jobs (lifecycle): a group of one. */
		if ((err = fsb_group_single_init(&single)))
			return err;
		m.g = &single;
	}
	root = m.g->rank == 0;
	if (root) {
		fsb_prog_test_start(rn->prog, ops->name, fsb_clock_ns());
		fsb_cache_note_reset(); /* before any member's setup (the barrier below) */
	}
	place_ctx(rn, ops, m.g, &ctx);
	/* btrfs: a file set's metadata needs the chunks emptied data held. */
	if (root && (ops->flags & FSB_WL_NAMES) && rn->cow)
		fsb_btrfs_wait_headroom(ctx.dir, FSB_BTRFS_HEADROOM_WAIT_MS);
	ps.njobs = m.g->size;
	m.granule = ops->work_granule ? ops->work_granule : cfg->chunk_bytes;
	if (rn->diskstat_path &&
	    fsb_inflight_path(rn->diskstat_path, m.inflight_path, sizeof(m.inflight_path)))
		m.inflight_path[0] = '\0';
	s.all = malloc(sizeof(*s.all));
	s.hist = malloc(sizeof(*s.hist));
	s.runs = calloc(repeat, sizeof(*s.runs));
	if (root)
		s.recs = calloc((size_t)repeat * m.g->size, sizeof(*s.recs));
	/* Whether every member has its memory is agreed on, like the rest. */
	err = fsb_group_barrier(
		m.g, !s.all || !s.hist || !s.runs || (root && !s.recs) ? -ENOMEM : 0, NULL);
	if (err)
		goto out;
	fsb_hist_init(s.all);
	size_test(&m, &ctx);
	if ((err = run_series(&m, &ctx, &ps, &s)) || !root)
		goto out;
	shortest = shortest_run(s.runs, s.repeat);
	short_why = fsb_cal_short_why(&m.cal, s.runs[shortest].wall_ns,
				      s.runs[shortest].halt == FSB_HALT_DEADLINE);
	warn_sizing(&m, short_why, s.runs[shortest].wall_ns);
	err = report(&m, s.runs, s.repeat, s.recs, s.all, &ctx, short_why, s.why, res);
out:
	if (root)
		fsb_prog_test_end(rn->prog, err, fsb_clock_ns());
	free(s.all);
	free(s.hist);
	free(s.runs);
	free(s.recs);
	if (m.g == &single)
		fsb_group_single_release(&single);
	return err;
}

unsigned fsb_runner_have(void)
{
	return geteuid() == 0 ? FSB_NEEDS_ROOT : 0;
}

int fsb_runner_check_needs(const struct fsb_workload_ops *const *ops, size_t nops, unsigned have)
{
	static const struct {
		unsigned bit;
		const char *what;
	} needs[] = {
		{ FSB_NEEDS_ROOT, "root" },
		{ FSB_NEEDS_BLOCKDEV, "a block device" },
		{ FSB_NEEDS_MOUNT, "a filesystem it may mount" },
	};

	for (size_t i = 0; i < nops; i++) {
		unsigned lack = ops[i]->needs & ~have;
		char list[128] = "";
		size_t len = 0, n = 0;

		if (!lack)
			continue;
		for (size_t k = 0; k < sizeof(needs) / sizeof(needs[0]); k++) {
			if (!(lack & needs[k].bit))
				continue;
			/* "root", "root and a block device", "a, b and c". */
			lack &= ~needs[k].bit;
			if (n)
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s",
							lack ? ", " : " and ");
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s",
						needs[k].what);
			n++;
		}
		fsb_err("%s: needs %s", ops[i]->name, list);
		return -EPERM;
	}
	return 0;
}

/* Whether id is among ops and takes space: a test on an engine that moves
 * no data (null) writes no file. */
static bool has_test(const struct fsb_config *cfg, const struct fsb_workload_ops *const *ops,
		     size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ops[i]->name, id) && !fsb_workload_no_data(ops[i], cfg))
			return true;
	return false;
}

/* Append "what" with a size to the explanation in buf. */
static void add_part(char *buf, size_t len, uint64_t bytes, const char *what)
{
	size_t n = strlen(buf);
	char size[32];

	if (n < len)
		snprintf(buf + n, len - n, "%s%s %s", n ? ", " : "",
			 fsb_size_format_human(bytes, size, sizeof(size)), what);
}

/* a + b and a x b, held at UINT64_MAX: a --size near 2^64 needs more
 * than a filesystem holds, and is refused as such, not wrapped round to a
 * need that fits. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/*
 * btrfs: a --files count the user gave must fit in the metadata with the
 * margin files_fit keeps (every job's set), or it is refused before any
 * work: ENOSPC on metadata forces the filesystem read-only.
 */
static int check_meta(const struct fsb_config *cfg, const struct fsb_workload_ops *const *ops,
		      size_t nops, const char *dir, uint64_t jobs)
{
	struct fsb_btrfs_meta bm;
	const char *who = NULL;
	uint64_t room, usable, need, each;
	char a[32], b[32], c[32];

	for (size_t i = 0; i < nops && !who; i++)
		if (ops[i]->flags & FSB_WL_NAMES)
			who = ops[i]->name;
	if (!who || !cfg->files_given || !cfg->files || fsb_btrfs_meta_read(dir, &bm))
		return 0;
	room = fsb_btrfs_meta_room(&bm);
	usable = room - room / FSB_BTRFS_META_MARGIN;
	each = fsb_btrfs_file_meta(cfg->file_min_bytes, cfg->file_max_bytes);
	need = sat_mul(sat_mul(cfg->files, jobs), each);
	if (need <= usable)
		return 0;
	fsb_size_format_human(need, a, sizeof(a));
	fsb_size_format_human(room, b, sizeof(b));
	fsb_size_format_human(room - usable, c, sizeof(c));
	fsb_err("%s: needs %s of btrfs metadata in '%s' (%llu files x %u bytes), only %s free "
		"of which %s stays free as a margin (use a smaller --files)",
		who, a, dir, (unsigned long long)sat_mul(cfg->files, jobs), (unsigned)each, b, c);
	return -ENOSPC;
}

/*
 * The bytes a --files N:max set the user gave holds at once (every job's,
 * each file its average size rounded up to a block, as files_fit counts);
 * 0 without file data or file tests. The set is made after the block,
 * random and per-char files are gone: it needs its space alone.
 */
static uint64_t files_need(const struct fsb_config *cfg, const struct fsb_workload_ops *const *ops,
			   size_t nops, uint64_t bsize, uint64_t jobs, const char **who)
{
	uint64_t avg = cfg->file_max_bytes / 2 + cfg->file_min_bytes / 2;

	*who = NULL;
	for (size_t i = 0; i < nops && !*who; i++)
		if (ops[i]->flags & FSB_WL_NAMES)
			*who = ops[i]->name;
	if (!*who || !cfg->files_given || !cfg->files || !cfg->file_max_bytes ||
	    cfg->links != FSB_LINKS_NONE)
		return 0;
	if (!bsize)
		bsize = 4096;
	return sat_mul(sat_mul(cfg->files, jobs), (avg / bsize + 1) * bsize);
}

int fsb_runner_check_space(const struct fsb_config *cfg, const struct fsb_workload_ops *const *ops,
			   size_t nops, const char *dir)
{
	static const char *const block_tests[] = { "write", "rewrite", "read", "seeks" };
	struct fsb_fsinfo fsi;
	struct statvfs vfs;
	uint64_t free_bytes, need = 0, total, jobs = cfg->jobs ? cfg->jobs : 1;
	uint64_t size = sat_mul(cfg->size_bytes, jobs);
	const char *who = NULL;
	char parts[256] = "", a[96], b[96], each[32] = "";
	const char *smaller;
	const char *fwho;
	uint64_t fneed;
	bool block, chr, rnd, cow;

	if (check_meta(cfg, ops, nops, dir, jobs))
		return -ENOSPC;
	for (size_t i = 0; i < 4 && !who; i++)
		if (has_test(cfg, ops, nops, block_tests[i]))
			who = block_tests[i];
	block = who != NULL;
	rnd = has_test(cfg, ops, nops, "randread") || has_test(cfg, ops, nops, "randwrite");
	chr = cfg->char_size_bytes &&
	      (has_test(cfg, ops, nops, "putc") || has_test(cfg, ops, nops, "getc"));
	if (!block && !chr && !rnd && !files_need(cfg, ops, nops, 0, jobs, &fwho))
		return 0;
	/* Every job has its files (or its range of a shared one). */
	if (jobs > 1)
		snprintf(each, sizeof(each), " x %llu jobs", (unsigned long long)jobs);
	cow = !fsb_fsinfo_for_path(dir, &fsi) && fsb_fsinfo_is_cow(fsi.fs_type);
	if (block) {
		need = sat_add(need, size);
		snprintf(a, sizeof(a), "for --size%s", each);
		add_part(parts, sizeof(parts), size, a);
	}
	if (cow && has_test(cfg, ops, nops, "rewrite")) {
		/* Rewritten in place, a file holds a second copy of at most
		 * the filesystem's window (btrfs: an extent) per job. */
		uint64_t window = fsb_fsinfo_cow_window(fsi.fs_type);
		uint64_t more = sat_mul(cfg->size_bytes < window ? cfg->size_bytes : window, jobs);

		need = sat_add(need, more);
		snprintf(a, sizeof(a), "more for rewrite on copy-on-write%s",
			 window < cfg->size_bytes ? " (an extent's worth)" : "");
		add_part(parts, sizeof(parts), more, a);
	}
	if (rnd) {
		/* The random tests' own file, beside the block tests'. */
		need = sat_add(need, size);
		snprintf(a, sizeof(a), "for the random tests' --size%s", each);
		add_part(parts, sizeof(parts), size, a);
		who = who ? who : has_test(cfg, ops, nops, "randread") ? "randread" : "randwrite";
	}
	if (chr) {
		need = sat_add(need, sat_mul(cfg->char_size_bytes, jobs));
		snprintf(a, sizeof(a), "for --char-size%s", each);
		add_part(parts, sizeof(parts), sat_mul(cfg->char_size_bytes, jobs), a);
		who = who ? who : has_test(cfg, ops, nops, "putc") ? "putc" : "getc";
	}
	/* The free space of a copy-on-write filesystem is settled at commit
	 * (files a previous run removed come back only then). */
	if (cow)
		fsb_cache_sync_fs(dir);
	if (statvfs(dir, &vfs) < 0)
		return 0;
	free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	fneed = files_need(cfg, ops, nops, vfs.f_frsize, jobs, &fwho);
	if (fneed > need) {
		need = fneed, who = fwho, parts[0] = '\0';
		char mx[32];

		snprintf(a, sizeof(a), "for --files: %llu files of up to %s%s",
			 (unsigned long long)cfg->files,
			 fsb_size_format_human(cfg->file_max_bytes, mx, sizeof(mx)), each);
		add_part(parts, sizeof(parts), fneed, a);
	}
	total = sat_add(sat_add(need, need / 50), 1u << 20);
	if (total <= free_bytes)
		return 0;
	add_part(parts, sizeof(parts), total - need, "to spare");
	fsb_size_format_pair(total, free_bytes, a, b, sizeof(a));
	if (need == fneed)
		smaller = jobs > 1 ? "--files or --jobs" : "--files";
	else if ((block || rnd) && chr)
		smaller = jobs > 1 ? "--size, --char-size or --jobs" : "--size or --char-size";
	else if (block || rnd)
		smaller = jobs > 1 ? "--size or --jobs" : "--size";
	else
		smaller = jobs > 1 ? "--char-size or --jobs" : "--char-size";
	fsb_err("%s: needs %s in '%s' (%s), only %s free (use a smaller %s)", who, a, dir, parts, b,
		smaller);
	return -ENOSPC;
}
