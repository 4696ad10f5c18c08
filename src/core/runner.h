/*
 * The runner: owns clocks, CPU accounting, device counters, repeats and
 * the decision to grow the work. Workloads only do the work.
 */
#ifndef FSB_CORE_RUNNER_H
#define FSB_CORE_RUNNER_H
#include <stdbool.h>

#include "core/group.h"
#include "core/progress.h"
#include "report/result.h"
#include "workloads/workload.h"

/*
 * --repeat auto: at least FSB_RUNNER_AUTO_MIN_RUNS measured runs, more
 * while the 95% confidence interval of their mean (Student's t) is wider
 * than +-FSB_RUNNER_AUTO_REL of it, up to FSB_RUNNER_AUTO_MAX_RUNS runs
 * and FSB_RUNNER_AUTO_BUDGET x --min-time of wall time per test (setups
 * included, from the first measured run's). The least and the most runs
 * are the result model's (report/result.h), which the views may see.
 */
#define FSB_RUNNER_AUTO_MIN_RUNS FSB_RESULT_AUTO_MIN_RUNS
#define FSB_RUNNER_AUTO_MAX_RUNS FSB_RESULT_AUTO_MAX_RUNS
#define FSB_RUNNER_AUTO_BUDGET 10
#define FSB_RUNNER_AUTO_REL 0.05

/*
 * Set --repeat auto on cfg: the runner decides how many runs; until it
 * does, cfg->repeat is the least it makes (what the progress line and the
 * workloads that prepare per run count on). The one place that says so.
 */
static inline void fsb_runner_repeat_auto(struct fsb_config *cfg)
{
	cfg->repeat_auto = true;
	cfg->repeat = FSB_RUNNER_AUTO_MIN_RUNS;
}

struct fsb_runner {
	const struct fsb_config *cfg;
	const char *dir; /* scratch directory (what the jobs share) */
	/* Jobs: this member's handle (core/group.h; NULL: a single process)
	 * and its own directory (NULL: dir), where a test that the jobs do
	 * not share (no --shared-file / --shared-dir) works. */
	struct fsb_group *group;
	const char *job_dir;
	/* --reorder (ranks): where a test that only reads its file (no
	 * FSB_WL_WRITES, no FSB_WL_NAMES) finds it, another rank's directory
	 * (NULL: its own), so that it never reads from its own writes' cache. */
	const char *read_dir;
	unsigned read_job;	   /* with read_dir: the member whose files it holds */
	const void *ext;	   /* passed to workloads as ctx->ext */
	const char *diskstat_path; /* /sys/.../stat of the device, or NULL */
	/* The progress printer (core/progress.h), which member 0 tells of
	 * each test's start, ticks and end; NULL: none. */
	struct fsb_prog *prog;
	bool cow; /* dir is on a copy-on-write fs (fsb_fsinfo_is_cow) */
};

/*
 * Measure one workload: grow its work until a run lasts cfg->min_time_ns
 * (short runs are discarded, see fsb_scale_next), then take cfg->repeat
 * measured runs of that work, and append the figure to res (runs, median,
 * min, max, CV, %CPU, latency percentiles, device bytes and queue depth,
 * each run's start and end).
 *
 * Jobs: a collective of rn->group. Every member calls it for the same
 * workload, each with its own rn (its job_dir); every run is set up by
 * all, started together on a barrier, timed per member and ended by all
 * before any tears down. A run's figure is the aggregate: the work of all
 * members over the time from the first start to the last end. Member 0
 * alone appends the figure to res (with the per-job rates); the others'
 * res is not touched (may be NULL). The work grows per member, alike in
 * all. A member that fails makes all stop (the stop word) and fail with
 * its error, which it describes; --stonewall and --deadline stop all
 * members early and the work done so far counts.
 *
 * Sizing: every decision (grow, keep, fall back) is core/calibrate.c's;
 * this carries them out. A work the user gave is run exactly, never
 * grown (a given --size file may be gone over in passes, not grown).
 *
 * Space: growth goes up to the workload's max_work but uses at most half
 * of what its space_fit says fits in each member's share of the free
 * space (fsb_scale_share), asked again before each grown attempt (after a
 * syncfs on a copy-on-write filesystem). A grown attempt that runs out of
 * space (-ENOSPC, -EDQUOT) is forgiven: its error is not printed, the
 * runs are measured at the largest work that fit (or the first work) with
 * a warning, and the test's short_reason says "space". Out of space at
 * the first work is an error, as any other.
 *
 * Returns 0, -EINTR when SIGINT/SIGTERM stopped it, or the first failing
 * member's -errno (already described by its workload).
 */
int fsb_runner_measure(const struct fsb_runner *rn, const struct fsb_workload_ops *ops,
		       struct fsb_result *res);

/*
 * Remove the scratch file ops works on (ops->scratch_file; nothing when it
 * has none) from each member's directory, or once from the shared one,
 * once every member is done with it, then syncfs. For the run executor,
 * after the last test that names the file. A collective, like
 * fsb_runner_measure; the file may be gone already. Returns 0, or the
 * group's failure.
 */
int fsb_runner_release(const struct fsb_runner *rn, const struct fsb_workload_ops *ops);

/* What this process offers a workload: FSB_NEEDS_ROOT when it runs as root. */
unsigned fsb_runner_have(void);

/*
 * Refuse up front, before any work, a selection with a workload whose
 * FSB_NEEDS_* are not all in have (what the process and the target offer:
 * fsb_runner_have(), plus FSB_NEEDS_BLOCKDEV and FSB_NEEDS_MOUNT when the
 * target is a block device fsbench may mount): one line naming the first
 * such test and what it lacks ("mkfs: needs root and a block device").
 * Returns 0 or -EPERM.
 */
int fsb_runner_check_needs(const struct fsb_workload_ops *const *ops, size_t nops, unsigned have);

/*
 * Refuse up front, with the numbers, a run whose files cannot fit in dir:
 * the block file (--size) when a block test is selected, on a
 * copy-on-write filesystem when rewrite is the part of it that holds a
 * second copy while rewritten in place (fsb_fsinfo_cow_window per job:
 * 128 MiB on btrfs; all of it elsewhere),
 * the random tests' file (--size) when one is selected, an explicit
 * --char-size for the per-char tests, each once per job (--jobs; a shared
 * file holds every job's range), and room to spare. Returns 0 (also when
 * the free space cannot be read) or -ENOSPC after describing the
 * shortfall and the option to change.
 */
int fsb_runner_check_space(const struct fsb_config *cfg, const struct fsb_workload_ops *const *ops,
			   size_t nops, const char *dir);

#endif
