#include "core/runner.h"
#include "device/cache.h"
#include "device/diskstat.h"
#include "device/fsinfo.h"
#include "stats/scale.h"
#include "util/error.h"
#include "util/size.h"
#include "util/text.h"
#include "util/units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
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
		fsb_unit_format_rate((double)done / secs, ps->ops->work_unit == FSB_WORK_BYTES,
				     rate, sizeof(rate));
	if (ps->ops->work_unit == FSB_WORK_TIME)
		fprintf(stderr, "\r\033[K%s%-12s run %u/%u  %.1f s", prefix, ps->ops->name, ps->run,
			ps->runs, secs);
	else
		fprintf(stderr, "\r\033[K%s%-12s run %u/%u %3.0f%%  %s", prefix, ps->ops->name,
			ps->run, ps->runs, ps->work ? 100.0 * (double)done / (double)ps->work : 0.0,
			rate);
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
	case FSB_WORK_BYTES:
		return (double)r->bytes / secs;
	case FSB_WORK_OPS:
		return (double)r->ops / secs;
	case FSB_WORK_TIME:
		break;
	}
	return secs;
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

/*
 * What the workload says fits now (max_work), rounded down to whole units
 * (a cap from free space is no multiple of the chunk); UINT64_MAX when the
 * workload has no bound. *raw gets the value before rounding.
 */
static uint64_t space_limit(const struct fsb_runner *rn, const struct fsb_workload_ops *ops,
			    struct fsb_ctx *ctx, uint64_t granule, uint64_t *raw)
{
	uint64_t m;

	*raw = 0;
	if (!ops->max_work)
		return UINT64_MAX;
	/* A copy-on-write filesystem counts blocks freed or written since
	 * the last commit only after the next one: commit first, so that
	 * statvfs (in max_work) tells what is really free. */
	if (rn->cow)
		fsb_cache_sync_fs(rn->dir);
	m = *raw = ops->max_work(ctx);
	if (!m)
		return UINT64_MAX;
	return m >= granule ? m / granule * granule : m;
}

static bool out_of_space(int err)
{
	return err == -ENOSPC || err == -EDQUOT;
}

int fsb_runner_measure(const struct fsb_runner *rn, const struct fsb_workload_ops *ops,
		       struct fsb_result *res)
{
	const struct fsb_config *cfg = rn->cfg;
	unsigned repeat = cfg->repeat ? cfg->repeat : 1;
	struct fsb_ctx ctx = { .cfg = cfg, .dir = rn->dir, .ext = rn->ext, .cow = rn->cow };
	struct progress_state ps = { .rn = rn, .ops = ops, .runs = repeat };
	struct fsb_hist *all = NULL, *hist = NULL;
	struct one_run *runs = NULL;
	double *values = NULL, cpu_sum = 0, wall_sum = 0;
	uint64_t dev_r = 0, dev_w = 0, bytes_sum = 0, asked, limit, raw = 0, cap, start;
	uint64_t granule = ops->work_granule ? ops->work_granule : cfg->chunk_bytes;
	/* Works that completed, ascending (growth only goes up): where a grown
	 * attempt that runs out of space falls back to. */
	uint64_t fits[MAX_ATTEMPTS + 1], failed_at = 0;
	size_t nfits = 0;
	struct fsb_test_result *t;
	bool have_dev = true, warm = !(ops->flags & FSB_WL_WARMUP), fixed, grows, space_short;
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
	asked = ops->initial_work ? ops->initial_work(&ctx) : 0;
	grows = ops->work_unit != FSB_WORK_TIME;
	limit = grows ? space_limit(rn, ops, &ctx, granule, &raw) : UINT64_MAX;
	/* max_work == initial_work: an exact size the user gave, not grown. */
	fixed = ops->max_work && raw == asked;
	ctx.work = start = asked < limit ? asked : limit;
	/*
	 * Two runs started in one directory at once must both fit: growth may
	 * take only a share of what fits (the first work, which the user
	 * asked for and the up-front check let through, is never cut).
	 */
	cap = fixed ? limit : fsb_scale_share(limit, start, granule);

	for (unsigned i = 0, attempts = 0; i < repeat;) {
		bool grown = ctx.work > start;

		ps.run = i + 1;
		ctx.run_index = i;
		fsb_hist_init(hist);
		/* A grown attempt's error waits: out of space, it is forgiven. */
		if (grown)
			fsb_err_hold();
		err = run_once(rn, ops, &ctx, hist, &ps, &runs[i]);
		if (grown)
			fsb_err_release(!out_of_space(err) || fsb_stop_requested());
		if (err && grown && out_of_space(err) && !fsb_stop_requested()) {
			/* The largest work below this one that completed, or the
			 * first: measure that, and grow no more. */
			while (nfits && fits[nfits - 1] >= ctx.work)
				nfits--;
			failed_at = ctx.work;
			ctx.work = cap = nfits ? fits[nfits - 1] : start;
			warm = true;
			i = 0;
			fsb_hist_init(all);
			continue;
		}
		if (err)
			goto out;
		if (!nfits || (fits[nfits - 1] < ctx.work && nfits < MAX_ATTEMPTS + 1))
			fits[nfits++] = ctx.work;
		/*
		 * No '+++++': a run shorter than --min-time is discarded, the
		 * work grown, and measuring starts over, so that every kept run
		 * does the same work and lasts long enough. This also catches a
		 * slow first run (cold allocation) hiding fast later ones.
		 */
		if (grows && !failed_at && ++attempts < MAX_ATTEMPTS) {
			uint64_t next = fsb_scale_next(ctx.work, runs[i].wall_ns, cfg->min_time_ns,
						       granule, cap);
			if (next != ctx.work) {
				/* Ask again: another process may have taken space. */
				uint64_t now = space_limit(rn, ops, &ctx, granule, &raw);

				now = fsb_scale_share(now, ctx.work, granule);
				if (now < cap) {
					cap = now;
					next = fsb_scale_next(ctx.work, runs[i].wall_ns,
							      cfg->min_time_ns, granule, cap);
				}
			}
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
	/*
	 * Short runs because of space: a grown attempt ran out of it, or the
	 * work stopped at the space cap (not at an exact size the user gave,
	 * nor for want of attempts).
	 */
	space_short = grows && runs[0].wall_ns < cfg->min_time_ns &&
		      (failed_at || (!fixed && cap != UINT64_MAX && ctx.work >= cap));
	if (failed_at) {
		char at[32], work[32];

		fmt_work(ops, failed_at, at, sizeof(at));
		fmt_work(ops, ctx.work, work, sizeof(work));
		fsb_warn("%s: out of space at %s while growing: measured runs of %s instead%s",
			 ops->name, at, work,
			 runs[0].wall_ns < cfg->min_time_ns ? ", shorter than --min-time" : "");
	} else if (grows && runs[0].wall_ns < cfg->min_time_ns) {
		char work[32];

		fmt_work(ops, ctx.work, work, sizeof(work));
		fsb_warn("%s: runs last %.3f s, under --min-time, at the largest work %s "
			 "(%s): the figure is less certain",
			 ops->name, (double)runs[0].wall_ns / 1e9,
			 space_short ? "the free space allows" : "possible", work);
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
	if (space_short && fsb_strset(&t->short_reason, "space")) {
		err = -ENOMEM;
		goto out;
	}
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

static bool has_test(const struct fsb_workload_ops *const *ops, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ops[i]->name, id))
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

int fsb_runner_check_space(const struct fsb_config *cfg, const struct fsb_workload_ops *const *ops,
			   size_t nops, const char *dir)
{
	static const char *const block_tests[] = { "write", "rewrite", "read", "seeks" };
	struct fsb_fsinfo fsi;
	struct statvfs vfs;
	uint64_t free_bytes, need = 0, total;
	const char *who = NULL;
	char parts[256] = "", a[64], b[64];
	const char *smaller;
	bool block, chr, cow;

	for (size_t i = 0; i < 4 && !who; i++)
		if (has_test(ops, nops, block_tests[i]))
			who = block_tests[i];
	block = who != NULL;
	chr = cfg->char_size_bytes && (has_test(ops, nops, "putc") || has_test(ops, nops, "getc"));
	if (!block && !chr)
		return 0;
	cow = !fsb_fsinfo_for_path(dir, &fsi) && fsb_fsinfo_is_cow(fsi.fs_type);
	if (block) {
		need += cfg->size_bytes;
		add_part(parts, sizeof(parts), cfg->size_bytes, "for --size");
	}
	if (cow && has_test(ops, nops, "rewrite")) {
		need += cfg->size_bytes;
		add_part(parts, sizeof(parts), cfg->size_bytes,
			 "more for rewrite on copy-on-write");
	}
	if (chr) {
		need += cfg->char_size_bytes;
		add_part(parts, sizeof(parts), cfg->char_size_bytes, "for --char-size");
		who = who ? who : has_test(ops, nops, "putc") ? "putc" : "getc";
	}
	/* The free space of a copy-on-write filesystem is settled at commit
	 * (files a previous run removed come back only then). */
	if (cow)
		fsb_cache_sync_fs(dir);
	if (statvfs(dir, &vfs) < 0)
		return 0;
	free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	total = need + need / 50 + (1u << 20);
	if (total <= free_bytes)
		return 0;
	add_part(parts, sizeof(parts), total - need, "to spare");
	fsb_size_format_pair(total, free_bytes, a, b, sizeof(a));
	if (block && chr)
		smaller = "--size or --char-size";
	else if (block)
		smaller = "--size";
	else
		smaller = "--char-size";
	fsb_err("%s: needs %s in '%s' (%s), only %s free (use a smaller %s)", who, a, dir, parts, b,
		smaller);
	return -ENOSPC;
}
