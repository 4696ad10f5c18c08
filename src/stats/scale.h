/*
 * Auto-scaling: how much work the next attempt should do when a measured
 * run was shorter than --min-time. Pure arithmetic, unit-tested.
 */
#ifndef FSB_STATS_SCALE_H
#define FSB_STATS_SCALE_H
#include <stdint.h>

/*
 * The run the next attempt aims at, in units of --min-time. The run that
 * predicts the work (an attempt, or the series' first run) and the runs
 * after it differ by a few percent, so a margin keeps the later runs over
 * --min-time; every point of margin lengthens every kept run, so it stays
 * small (the suites that chose 1.2: bench/NOTES.md). A test whose series
 * still starts over (a later run fell short) aims at FSB_SCALE_RETRY from
 * then on, so a noisy machine pays one series, not one a growth.
 */
#define FSB_SCALE_TARGET 1.2
/* The aim once a test's series started over for a short run: runs of one
 * work on a loaded, shared machine differ by up to +-30%. */
#define FSB_SCALE_RETRY 1.4
/* The least a grown attempt may aim at when a workload has that work
 * ready (fsb_workload_ops.ready_work): a work whose preparation costs
 * nothing (files already made) is worth a slimmer margin than the target
 * above, since a later run that falls short costs one attempt, while
 * growing past it costs the preparation of every run. */
#define FSB_SCALE_READY 1.1
/*
 * The margin over --min-time a series' first run must leave to be kept:
 * barely long enough, a later run would fall short and start the series
 * over, wasting the runs before it. The later runs of a series are a few
 * percent shorter than its first, and a minority far shorter: a first run
 * kept at 1.05 starts a series over now and then, at the cost of a run or
 * two, while discarding every one under 1.1 costs a run each time, plus
 * the files of a create test made again (bench/NOTES.md).
 */
#define FSB_SCALE_KEEP 1.05
/* The most one attempt may grow the work: a run can be short because of a
 * hiccup (a freak-fast attempt) as well as because it is small. */
#define FSB_SCALE_MAX_GROWTH 16.0
/*
 * Except an attempt that lasted at least 1/FSB_SCALE_TRUST of --min-time
 * (15.6 ms at 0.5 s): its rate is measured well enough to predict from in
 * one step (at most FSB_SCALE_TRUST x the aim, 38x at 1.2). Capped at 16x,
 * a fast create test grew to a work still short of the margin, whose file
 * set was then made and removed for nothing (bench/NOTES.md).
 */
#define FSB_SCALE_TRUST 32.0

/*
 * Given that `work` units took `elapsed_ns`, predict the work for the next
 * attempt from that rate so that it lasts `target` x min_ns
 * (FSB_SCALE_TARGET, or FSB_SCALE_RETRY): at most FSB_SCALE_MAX_GROWTH
 * times the work when the attempt lasted under min_ns / FSB_SCALE_TRUST
 * (also when elapsed_ns is 0), at least one granule more,
 * rounded up to a multiple of `granule` and capped at max_work. A run is
 * long enough when it lasted need_ns (min_ns, or more where the caller
 * wants a margin). Returns `work` itself when the run was long enough or
 * cannot grow (so the caller stops scaling).
 */
uint64_t fsb_scale_next(uint64_t work, uint64_t elapsed_ns, uint64_t need_ns, uint64_t min_ns,
			double target, uint64_t granule, uint64_t max_work);

/*
 * The work that, at the rate `work` units in `elapsed_ns` showed, lasts
 * `target` x min_ns, rounded up to a multiple of `granule`; `work` itself
 * when elapsed_ns is 0 (no rate to go by). Saturates at UINT64_MAX.
 */
uint64_t fsb_scale_work_for(uint64_t work, uint64_t elapsed_ns, double target, uint64_t min_ns,
			    uint64_t granule);

/*
 * The cap on automatic growth given `limit`, the largest work that fits
 * in the free space now (a workload's max_work, which already leaves a
 * reserve; UINT64_MAX = unbounded): half of it, rounded down to a multiple
 * of `granule`, so that another run started in the same directory at the
 * same time fits as well. Never below `floor` (the work already done,
 * which is not taken back): returns floor when even that exceeds the
 * share, i.e. "do not grow". UINT64_MAX when limit is unbounded.
 */
uint64_t fsb_scale_share(uint64_t limit, uint64_t floor, uint64_t granule);

#endif
