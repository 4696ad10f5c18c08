/*
 * The unit of extension: one test is one `struct fsb_workload_ops`.
 *
 * Contract with the runner (fsb_runner_measure):
 *   - For every measured run the runner calls setup (untimed), then run
 *     (timed: the clock starts right before and stops right after), then
 *     teardown (always, also after a failed setup or run; idempotent).
 *   - ctx->work says how much work this run must do (bytes or operations,
 *     see `work_unit`). When a run lasts less than --min-time the runner
 *     grows ctx->work and runs again; the short run is discarded.
 *   - Workloads never print and never exit. They describe an error once,
 *     with fsb_err(), where it happens, and return -errno. They report
 *     operations, bytes and latencies through the sink.
 *   - Limits: max_work is what a run can do by its nature (every block
 *     once, 7-digit names) or an exact size the user gave; space_fit is
 *     what fits in this job's share of the free space now. The runner
 *     grows up to max_work but into only half of space_fit (another run
 *     may share the filesystem), and asks space_fit again before each
 *     grown attempt. A run (or its setup) that runs out of space returns
 *     -ENOSPC, described as any error: on a grown attempt the runner drops
 *     that description and falls back to the largest work that fit. A run
 *     that fails must leave the scratch files whole for the next attempt
 *     (or remove them), never half-rewritten.
 *   - Jobs (--jobs N): N copies of the test run at once, started together
 *     by the runner's job group). A workload knows only ctx->job, ctx->njobs and its
 *     directory: its own (ctx->dir is the job's sub-directory), or shared
 *     (ctx->shared: a file test works on its own range of the one file,
 *     [job * range, (job + 1) * range); a metadata test prefixes its names
 *     with the job). With a shared directory the runner sets up job 0
 *     first and the others after it, so job 0's setup makes what all
 *     share; every setup ends before any run starts, every run before any
 *     teardown.
 *   - Stopping early: when fsb_sink_op() says FSB_SINK_STOP (--stonewall:
 *     another job finished; --deadline; another job failed), the workload
 *     issues nothing new, finishes what is in flight and ends its run
 *     normally (fsync and close inside the clock): the work done counts.
 *     -EINTR stays for a stop signal (SIGINT), after which it unwinds.
 *   - Anything that must be on disk before the clock starts (the file a
 *     read test reads, the files a stat test stats) is made by setup. Data
 *     shared between tests lives in the scratch directory ctx->dir, so each
 *     test also runs alone (`--tests read`).
 */
#ifndef FSB_WORKLOADS_WORKLOAD_H
#define FSB_WORKLOADS_WORKLOAD_H
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "stats/clock.h"
#include "stats/hist.h"
#include "util/modes.h"
#include "util/signals.h"

struct fsb_engine_ops;

enum fsb_char_io { FSB_CHAR_STDIO, FSB_CHAR_SYSCALL };
enum fsb_links { FSB_LINKS_NONE, FSB_LINKS_HARD, FSB_LINKS_SOFT };

/* What the user asked for (part of a plan; read-only for workloads). */
struct fsb_config {
	/* common */
	unsigned repeat; /* measured runs per test (--repeat) */
	/* --repeat auto: 3 runs or more, until the mean is known to +-5%
	 * (core/runner.h); repeat is then the least. */
	bool repeat_auto;
	uint64_t repeat_budget_ns; /* auto: time per test (0: 10 x min_time_ns) */
	uint64_t min_time_ns;	   /* shortest acceptable run (--min-time) */
	enum fsb_cache_mode cache;
	uint64_t seed;
	struct fsb_data data; /* --data: what the written bytes are (workloads/pattern.h) */
	const char *label;
	/* throughput suite */
	uint64_t size_bytes;	  /* --size: the block test file set */
	bool size_given;	  /* --size was given: the block tests run it exactly */
	uint64_t chunk_bytes;	  /* --chunk */
	uint64_t char_size_bytes; /* --char-size; 0 = auto */
	enum fsb_char_io char_io;
	uint64_t seeks;	  /* --seeks, shared by all seekers */
	bool seeks_given; /* --seeks was given: a cut to what a run can do is said */
	unsigned seekers; /* --seekers processes */
	/* I/O engines and the random tests (0 / NULL: the default) */
	const struct fsb_engine_ops *engine; /* --engine (NULL: psync) */
	unsigned iodepth;		     /* --iodepth: I/Os in flight (0: 1) */
	uint64_t block_bytes;		     /* --block-size of randread/randwrite (0: 4096) */
	/* metadata suite */
	uint64_t files;		 /* --files N (0 = skip the suite) */
	bool files_given;	 /* --files was given: N is the user's, not a default */
	uint64_t file_max_bytes; /* --files N:max */
	uint64_t file_min_bytes; /* --files N:max:min */
	unsigned file_dirs;	 /* --files N:max:min:dirs (0 = one dir) */
	enum fsb_links links;
	bool sync; /* --sync: fsync files and directories */
	/* The tests of this suite in the order they run (set by the executor;
	 * NULL when unknown): a create test keeps its sets for a delete test
	 * of its kind only when one comes after it (files.c). */
	const struct fsb_workload_ops *const *suite;
	size_t nsuite;
	/* jobs (the runner's job group) */
	unsigned jobs;	      /* --jobs: copies of each test at once (0: 1) */
	bool shared_file;     /* --shared-file: the file tests' jobs share one file */
	bool shared_dir;      /* --shared-dir: the metadata jobs share one directory */
	bool stonewall;	      /* --stonewall: the first job to finish stops the rest */
	uint64_t deadline_ns; /* --deadline: every job stops this long after the start */
};

/* Per-run context handed to every hook. */
struct fsb_ctx {
	const struct fsb_config *cfg;
	const char *dir;    /* scratch directory: all files go here */
	uint64_t work;	    /* work this run must do (work_unit) */
	unsigned run_index; /* 0-based measured run (calibration included) */
	const void *ext;    /* command-specific data (e.g. lifecycle) */
	/* The filesystem copies on write (fsb_fsinfo_is_cow): a block
	 * rewritten in place takes a free block until the transaction
	 * commits, and blocks a truncate frees come back only then. */
	bool cow;
	unsigned job;	/* this job: 0 .. njobs - 1 */
	unsigned njobs; /* jobs running this test at once (0 means 1) */
	/* The job whose data the files in dir hold: job, except where a
	 * test reads another's directory (--reorder): that one's. */
	unsigned data_job;
	/* dir is shared with the other jobs (see the contract above). */
	bool shared;
};

/* The jobs running this test at once (at least 1). */
static inline unsigned fsb_ctx_njobs(const struct fsb_ctx *ctx)
{
	return ctx->njobs ? ctx->njobs : 1;
}

/*
 * Where this job's range starts in a file the jobs share, for ranges of
 * range_bytes each: job * range_bytes; 0 when the job has its own file.
 */
static inline uint64_t fsb_ctx_base(const struct fsb_ctx *ctx, uint64_t range_bytes)
{
	return ctx->shared ? (uint64_t)ctx->job * range_bytes : 0;
}

/*
 * The stop word the jobs of a test share (struct fsb_sink.halt): why they
 * stop issuing work before it is done. Written once per run, by the first
 * that has a reason.
 */
enum fsb_halt {
	FSB_HALT_NONE = 0,
	FSB_HALT_STONEWALL, /* the first job finished (--stonewall) */
	FSB_HALT_DEADLINE,  /* --deadline passed */
	FSB_HALT_ABORT,	    /* a job failed: all stop, the test fails */
};

/* Raise the stop word (a no-op when it already says why). */
static inline void fsb_halt_raise(atomic_int *halt, enum fsb_halt why)
{
	int none = FSB_HALT_NONE;

	if (halt)
		atomic_compare_exchange_strong(halt, &none, (int)why);
}

/* Where a workload reports what it did. Owned by the runner. */
struct fsb_sink {
	uint64_t ops;	       /* operations done */
	uint64_t bytes;	       /* bytes moved by those operations */
	struct fsb_hist *hist; /* latency of single operations */
	/* Called (out of line, by the runner) when a progress tick is due. */
	void (*progress)(struct fsb_sink *out);
	void *progress_arg;
	/* The jobs' stop word (enum fsb_halt), in memory that processes
	 * forked from this one share (a seeker reads it too); NULL when
	 * nothing can stop this run early. */
	atomic_int *halt;
	uint64_t deadline_ns; /* CLOCK_MONOTONIC; 0: none */
	/* The least work the deadline lets the run do (an open attempt's
	 * first work: runner.c): short of it, in bytes or in ops as
	 * work_bytes says, neither the deadline nor the stop word it raised
	 * stops the run. 0: none. */
	uint64_t least;
	/* The run's work is counted in bytes, else in ops (least's and
	 * mark's unit). */
	bool work_bytes;
	/* Three quarters of the run's work (0: not asked), and when the run
	 * had done that (CLOCK_MONOTONIC; 0: not yet) and how much it had
	 * done then: the runner predicts a larger work from the pace after
	 * it, the run's start-up left out (runner.c, pace_ns). */
	uint64_t mark, mark_ns, mark_done;
	/* CPU time of the child processes the run reaped (the seekers: the
	 * workload adds their rusage), for the job's own %CPU. */
	uint64_t child_cpu_ns;
	/* The run was told to stop issuing before its work was done (set by
	 * fsb_sink_halted, or by a workload whose children saw the stop). */
	bool stopped;
};

/* fsb_sink_op()'s verdict besides 0 (go on) and -EINTR. */
enum { FSB_SINK_STOP = 1 };

/* Whether work must stop being issued now: the stop word halt is raised,
 * or the deadline passed (then raised here); a run still short of its
 * least work (fsb_sink.least) goes on past both the deadline and the stop
 * word it raised. halt NULL: never. */
static inline bool fsb_halt_due_short(atomic_int *halt, uint64_t deadline_ns, bool short_of_least)
{
	int why;

	if (!halt)
		return false;
	why = atomic_load_explicit(halt, memory_order_relaxed);
	if (why)
		return !short_of_least || why != FSB_HALT_DEADLINE;
	if (!short_of_least && deadline_ns && fsb_clock_ns() >= deadline_ns) {
		fsb_halt_raise(halt, FSB_HALT_DEADLINE);
		return true;
	}
	return false;
}

static inline bool fsb_halt_due(atomic_int *halt, uint64_t deadline_ns)
{
	return fsb_halt_due_short(halt, deadline_ns, false);
}

/* The work the run has done so far, in its unit (work_bytes). */
static inline uint64_t fsb_sink_done(const struct fsb_sink *out)
{
	return out->work_bytes ? out->bytes : out->ops;
}

/* Whether this run must stop issuing work now (fsb_halt_due), noted. */
static inline bool fsb_sink_halted(struct fsb_sink *out)
{
	bool short_of = out->least && fsb_sink_done(out) < out->least;

	return fsb_halt_due_short(out->halt, out->deadline_ns, short_of) ? (out->stopped = true)
									 : false;
}

/*
 * Record one operation of `bytes` bytes that took lat_ns. Cheap enough to
 * call per operation: a histogram increment and, every tick, a progress
 * line (and, for jobs, a load of the stop word). Returns 0 to go on;
 * -EINTR when the user asked to stop (SIGINT/SIGTERM): the workload must
 * then unwind and return -EINTR; FSB_SINK_STOP when the run must stop
 * issuing work (see the contract above): the workload finishes what is in
 * flight and ends normally.
 */
static inline int fsb_sink_op(struct fsb_sink *out, uint64_t bytes, uint64_t lat_ns)
{
	out->ops++;
	out->bytes += bytes;
	fsb_hist_add(out->hist, lat_ns);
	if (out->mark && !out->mark_ns && fsb_sink_done(out) >= out->mark) {
		out->mark_ns = fsb_clock_ns();
		out->mark_done = fsb_sink_done(out);
	}
	if (fsb_progress_due && out->progress)
		out->progress(out);
	if (fsb_stop_requested())
		return -EINTR;
	return fsb_sink_halted(out) ? FSB_SINK_STOP : 0;
}

/*
 * The seed of the data this job writes (workloads/pattern.h): the run's
 * seed for job 0, another for each other job with files of its own, so
 * the jobs' files are not copies of one another (which a deduplicating
 * layer would store once); the run's for a file the jobs share, whose
 * every range job 0 may prepare.
 */
static inline uint64_t fsb_ctx_data_seed(const struct fsb_ctx *ctx)
{
	return ctx->shared ? ctx->cfg->seed
			   : ctx->cfg->seed + (uint64_t)ctx->data_job * 0x9e3779b97f4a7c15ull;
}

/* Requirements a workload declares (checked by the runner up front). */
enum {
	FSB_NEEDS_ROOT = 1u << 0,
	FSB_NEEDS_BLOCKDEV = 1u << 1,
	FSB_NEEDS_MOUNT = 1u << 2,
};

/* Properties of a workload. */
enum {
	/* The sink's bytes were written: report write amplification =
	 * device bytes written / sink bytes, when the device is known. */
	FSB_WL_WRITES = 1u << 0,
	/* The first run is a discarded warm-up even when long enough: a test
	 * that allocates fresh memory (page cache of a new file) runs slow the
	 * first time the machine hands it pages it never touched (seen on
	 * VMs), which is not the filesystem's cost. For the
	 * same reason the first run at a grown work is discarded when it was
	 * far slower than the next (runner.c, FIRST_TOUCH). */
	FSB_WL_WARMUP = 1u << 1,
	/* A metadata test: its jobs share a directory with --shared-dir (a
	 * test on a file shares the file with --shared-file). */
	FSB_WL_NAMES = 1u << 2,
	/* Where ready_work has far more than the first work ready, the
	 * first attempt may be open: it stops at a time instead, and is the
	 * series' first run (runner.c, open_work; growth to ready work is
	 * open for every test). For a test whose first run is like the runs
	 * after it: not rewrite, whose first pass over the file write left
	 * is slower than the passes after it (each page rewritten a first
	 * time), so that the next run would fall under --min-time and start
	 * the series over. */
	FSB_WL_OPEN = 1u << 3,
	/* Its I/O goes through --engine: with an engine that moves no data
	 * (null) the test takes no space and writes nothing to the device. */
	FSB_WL_ENGINE = 1u << 4,
	/* Its work goes over the block file, which a --size the user gave
	 * holds as given: never grown, its runs may still go over it in
	 * passes where ready_work offers them (read, rewrite). */
	FSB_WL_GIVEN_FILE = 1u << 5,
};

/* This job's share of what is free on the filesystem (space_fit). */
struct fsb_space {
	uint64_t bytes;	 /* free bytes, less a reserve, divided among the jobs */
	uint64_t inodes; /* free inodes divided among the jobs; UINT64_MAX: no
	                  * fixed count (btrfs) */
	uint64_t meta;	 /* btrfs: metadata bytes free (less the global reserve)
	                  * divided among the jobs; UINT64_MAX: not btrfs */
};

/*
 * What one file costs in btrfs metadata, counted high: a committed empty
 * file takes a few hundred bytes, but the reservations of transactions in
 * flight allocate chunks for several times that before the metadata runs
 * out (the measurement: bench/NOTES.md).
 */
#define FSB_BTRFS_FILE_META 2048u
/* The share of the metadata room a file set may never take: a margin
 * that stays free for the transactions in flight and everything else. */
#define FSB_BTRFS_META_MARGIN 4u
/* btrfs keeps a file's data in its metadata when the file is no larger
 * than max_inline (2048 bytes by default): a set of such files costs that
 * much more per file. */
#define FSB_BTRFS_MAX_INLINE 2048u

/* What one file of a set of files of min..max bytes costs in btrfs
 * metadata, counted high (the largest file's inline data). */
static inline uint64_t fsb_btrfs_file_meta(uint64_t min_bytes, uint64_t max_bytes)
{
	(void)min_bytes;
	return FSB_BTRFS_FILE_META +
	       (max_bytes < FSB_BTRFS_MAX_INLINE ? max_bytes : FSB_BTRFS_MAX_INLINE);
}

/* How a run's figure is computed. */
enum fsb_work_unit {
	FSB_WORK_BYTES, /* figure = sink bytes / wall seconds ("B/s") */
	FSB_WORK_OPS,	/* figure = sink ops / wall seconds ("ops/s") */
	FSB_WORK_TIME,	/* figure = wall seconds ("s"); work is never grown */
};

struct fsb_workload_ops {
	const char *name;   /* test id, e.g. "rewrite" */
	const char *family; /* "throughput", "files", "lifecycle", "null" */
	const char *title;  /* one line for --help and the man page */
	unsigned needs;	    /* FSB_NEEDS_* */
	unsigned flags;	    /* FSB_WL_* */
	enum fsb_work_unit work_unit;
	/* Work of the first attempt (bytes or ops) for this configuration. */
	uint64_t (*initial_work)(const struct fsb_ctx *ctx);
	/* Largest work a run may do by its nature, whatever the space: every
	 * block once (randread), 7-digit names (files), or an exact size the
	 * user gave (then equal to initial_work: no growth); 0 = unbounded.
	 * The runner never shares it out. NULL: unbounded. */
	uint64_t (*max_work)(const struct fsb_ctx *ctx);
	/* Optional: max_work cut the work the test starts at (initial_work,
	 * asked) to most. Called once per test, on member 0 only, before the
	 * first run, so that the workload can say so (fsb_warn) when the user
	 * asked for that work; NULL: the cut is silent. */
	void (*work_cut)(const struct fsb_ctx *ctx, uint64_t asked, uint64_t most);
	/* Largest work of this job's run that fits in share (its part of the
	 * free space), its own files it would replace counting as free,
	 * except where ctx->cow says otherwise; 0 = nothing more fits. NULL:
	 * the test takes no space. Asked before the first attempt and again
	 * before each grown one; the runner grows into half of it. */
	uint64_t (*space_fit)(const struct fsb_ctx *ctx, const struct fsb_space *share);
	/* Optional: the largest work in [low, high] that is ready, i.e.
	 * needs no preparation and no space (the files an earlier test
	 * left, passes over a file in memory), when the runner is about to
	 * grow to `high` and `low` would still last long enough (or is
	 * `high`, when one step cannot reach that); 0 when none is. NULL:
	 * none ever is. */
	uint64_t (*ready_work)(const struct fsb_ctx *ctx, uint64_t low, uint64_t high);
	/* Optional: the bytes of the file a run of ctx->work goes over more
	 * than once, pass after pass (fsb_blockfile_pass_bytes), or 0 when
	 * it goes over no byte twice; recorded with the figure. Asked on
	 * member 0 after the runs. NULL: never more than once. */
	uint64_t (*pass_file)(const struct fsb_ctx *ctx);
	uint64_t work_granule; /* grown work is a multiple of this (0 = chunk) */
	size_t priv_size;      /* bytes of zeroed private state per run */
	int (*setup)(struct fsb_ctx *ctx, void *priv); /* untimed; 0 or -errno */
	int (*run)(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out);
	void (*teardown)(struct fsb_ctx *ctx, void *priv); /* always, idempotent */
	/* The scratch file the test works on, which other tests of the suite
	 * share (block.dat, char.dat, random.dat), or NULL. The run removes it
	 * after the last test that names it, as bonnie++ removes its I/O files
	 * before the file tests: what follows gets the space back and, on a
	 * filesystem in memory, pages the machine has just used. */
	const char *scratch_file;
};

/*
 * Describe a failed transfer of a test once: "TEST: cannot WHAT 'PATH' at
 * offset N: why", naming the space the test needs (need bytes) for ENOSPC
 * and "unexpected end of file" for err == 0. Silent for EINTR after a stop
 * request. Returns err, or -EIO for err == 0.
 */
/* ops runs on an engine that moves no data (--engine null): its figures
 * are the harness's own cost, it needs no space and writes nothing. */
bool fsb_workload_no_data(const struct fsb_workload_ops *ops, const struct fsb_config *cfg);

int fsb_workload_io_error(const char *test, const char *what, const char *path, uint64_t off,
			  int err, uint64_t need);

#endif
