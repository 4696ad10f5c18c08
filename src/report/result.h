/*
 * The result model: one in-memory document, many renderings. Writers in
 * src/report/ take a finished `const struct fsb_result *`; they never
 * measure. JSON (json.c) is the canonical file format and round-trips
 * every field here.
 */
#ifndef FSB_REPORT_RESULT_H
#define FSB_REPORT_RESULT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/hist.h"

struct fsb_summary; /* stats/summary.h */

#define FSB_FORMAT_VERSION 1

/*
 * The scheme of a kept latency histogram (JSON "latency_hist.scheme"):
 * stats/hist.h's log-linear buckets of nanoseconds, FSB_HIST_SUB_BITS
 * bits. A reader meeting another scheme keeps no histogram.
 */
#define FSB_HIST_SCHEME "log-linear-ns-6"

/* No figure read from a file is above this (no device moves an exabyte a
 * second or does 1e18 operations): a larger one is refused as hostile. */
#define FSB_MAX_FIGURE 1e18

/*
 * --repeat auto: the fewest and the most measured runs of a figure. The
 * runner's rule (core/runner.h), here so that the views that describe it
 * say the numbers it keeps.
 */
#define FSB_RESULT_AUTO_MIN_RUNS 3
#define FSB_RESULT_AUTO_MAX_RUNS 10

/* One non-empty bucket of a latency histogram: its index and its count. */
struct fsb_hist_bucket {
	uint32_t idx; /* < FSB_HIST_BUCKETS, strictly increasing in an array */
	uint64_t count;
};

struct fsb_latency {
	double max_us, p50_us, p99_us, p999_us;
};

struct fsb_test_result {
	char *id;     /* "write", "seq-create", "mkfs", ... */
	char *unit;   /* "B/s", "ops/s" or "s" (lifecycle phases) */
	double *runs; /* every measured run's value, in order */
	size_t nruns;
	double median, min, max, cv;
	double cpu_pct; /* (user+sys of every process in the test) / wall */
	uint64_t work;	/* bytes or operations each run did */
	/* The bytes of the file each run went over more than once, pass
	 * after pass (a filesystem in memory: fsb_blockfile_pass_bytes), or
	 * 0: no byte twice. JSON "file_bytes", present only when set. */
	uint64_t file_bytes;
	double elapsed_s; /* mean wall time of a measured run (0 if unknown) */
	bool has_latency;
	struct fsb_latency latency;
	bool has_device;			  /* the device is known: counters below are real */
	uint64_t dev_read_bytes, dev_write_bytes; /* mean per measured run */
	bool has_wa;
	double write_amplification;
	/* NULL, or why the runs are shorter than --min-time: "space" (free
	 * space capped the work, or a grown attempt ran out of it). JSON key
	 * "short_reason", present only when set. */
	char *short_reason;
	/* How the work was chosen: "given" (the user's --size, --files,
	 * --char-size or --seeks, run exactly), "grown" (fsbench grew a
	 * value left out until runs met --min-time) or "default" (left out,
	 * and not grown); chosen_why says why in words. JSON "chosen": {how,
	 * why}, present only when set. */
	char *chosen_how, *chosen_why;
	/*
	 * The test ran but has no figure: bonnie++'s "+++++" (the test took
	 * under 0.5 s and bonnie++ printed no number). runs is empty and
	 * median, min, max are 0 and mean nothing: views say "not measured",
	 * never 0, and compare computes no ratio with it. Only imported
	 * results (report/import.h) have such tests.
	 */
	bool not_measured;
	/* Of the latency only max_us is known (bonnie++ reports the slowest
	 * single operation); the percentiles are 0 and mean nothing. */
	bool latency_max_only;
	/*
	 * Jobs (--jobs N, N > 1): the figures above are aggregates, the total
	 * work of all jobs over the time from the first start to the last end
	 * of each run; work is each job's. Per job: its own rate in each run
	 * (its work over its own duration), its %CPU, and the spread of the
	 * jobs' medians. JSON "per_job", present only when njobs > 1.
	 */
	size_t njobs;
	double *job_runs;    /* njobs x nruns, job-major: [j * nruns + r] */
	double *job_cpu_pct; /* njobs */
	double job_min, job_median, job_max;
	/* Each measured run's first start and last end, CLOCK_MONOTONIC of
	 * the host that ran it (ns), so that runs of several processes of
	 * one host can be aggregated alike. NULL when unknown. JSON
	 * "start_ns" and "end_ns" (arrays as long as runs). */
	uint64_t *start_ns, *end_ns;
	/* NULL, "stonewall" or "deadline": the jobs were stopped before
	 * their work was done, on purpose. JSON "stopped_by". */
	char *stopped_by;
	/* The device's queue depth while the runs ran (reads + writes in
	 * flight, /sys/block/NAME/inflight), when sampled. JSON
	 * device.inflight_max and device.inflight_mean. */
	bool has_inflight;
	double inflight_max, inflight_mean;
	/* The latency histogram of every measured run of every job, its
	 * non-empty buckets only, in index order; NULL when unknown (older
	 * documents, imported results). JSON "latency_hist". */
	struct fsb_hist_bucket *hist;
	size_t nhist;
	uint64_t hist_count; /* the sum of the buckets' counts */
	/* --repeat auto: the 95% confidence interval of the runs' mean
	 * (Student's t; has_ci) and why the runs stopped (NULL otherwise):
	 * "converged", "max-runs" or "time-budget". JSON "ci95_low",
	 * "ci95_high", "repeat_stop". */
	bool has_ci;
	double ci95_low, ci95_high;
	char *repeat_stop;
	/* The largest share of the test's own file still in the page cache
	 * after fsbench evicted it before a run (mincore: the proof the
	 * eviction worked), when measured. JSON "cache_resident" (0..1). */
	bool has_resident;
	double cache_resident;
	/* NULL, or how a stat test's metadata was made cold: "remount" (a
	 * filesystem fsbench made, unmounted and mounted again), "drop-all"
	 * (the kernel's caches dropped) or "warm" (neither: the dentries and
	 * inodes the create left stayed in memory). JSON "metadata_cold". */
	char *metadata_cold;
	/* The share of a buffered loop device's backing file (setup.loop)
	 * resident in the page cache right after the test's runs, when
	 * measured. JSON "loop_backing_resident" (0..1). */
	bool has_loop_resident;
	double loop_resident;
};

/* One key of "params": an unsigned integer, a real or a string. */
enum fsb_param_type { FSB_PARAM_U64, FSB_PARAM_DOUBLE, FSB_PARAM_STR, FSB_PARAM_BOOL };

struct fsb_param {
	char *key;
	enum fsb_param_type type;
	uint64_t u;
	double d;
	char *s;
	bool b;
};

struct fsb_host {
	char *kernel; /* uname -r */
	char *cpu;    /* model name */
	char *hostname;
	int cpus;
	uint64_t ram_bytes;
	/* What the machine is (core/env.h): "none" on bare metal, or the
	 * hypervisor ("kvm", "qemu" for emulation under TCG, "vmware",
	 * "microsoft", "xen", ...); NULL when not probed. */
	char *virtualization;
	/* virtio_balloon with free page reporting: freed memory goes back to
	 * the host and its first touch is slow. JSON
	 * host.balloon_free_page_reporting, present when has_balloon. */
	bool has_balloon;
	bool balloon_free_page_reporting;
};

struct fsb_setup {
	char *label, *dir, *fs_type, *mount_options, *device, *fill;
	/* NULL, or why the storage is memory: "tmpfs", "zram0", "loop
	 * device over a file on tmpfs". JSON setup.ram_backed (true) and
	 * setup.ram_backed_why, present only when set. */
	char *ram_backed;
	/* The device under the filesystem is a loop device (core/env.h):
	 * loop_device its name ("loop3", NULL when it is none), loop_backing
	 * its backing file, loop_dio whether it does direct I/O (the kernel's
	 * /sys/block/loopN/loop/dio). A buffered one (dio 0) reads and writes
	 * its backing file through the host's page cache, so O_DIRECT stops
	 * at it; then the share of the backing file resident in the page
	 * cache before the tests (mincore), when measured. JSON setup.loop
	 * {device, backing_file, dio, backing_resident}, present only when
	 * loop_device is set. */
	char *loop_device, *loop_backing;
	bool loop_dio;
	bool has_loop_resident;
	double loop_resident;
};

/*
 * The raw device's own capability, measured before the filesystem's
 * figures (core/devcap.h): what the device does with O_DIRECT at a deep
 * queue, so that each figure can be read as a fraction of it. JSON
 * "device_capability", present only when measured. A figure of 0 was not
 * measured (the writes where the device may not be written).
 */
enum fsb_devcap_fig {
	FSB_DEVCAP_SEQ_READ,
	FSB_DEVCAP_SEQ_WRITE,
	FSB_DEVCAP_RAND_READ,
	FSB_DEVCAP_RAND_WRITE,
	FSB_DEVCAP_FIGS
};
#define FSB_DEVCAP_ROUNDS_MAX 16

struct fsb_devcap {
	bool present;
	char *device; /* the block device measured */
	double seq_read_Bps, seq_write_Bps;
	double rand_read_iops, rand_write_iops;
	/* How ("how" in JSON): the engine, the queue depths and block sizes
	 * of the sequential and random figures, and each figure's time. */
	char *engine;
	unsigned seq_depth, rand_depth;
	uint64_t seq_block_bytes, rand_block_bytes;
	double seconds; /* each round's */
	/*
	 * Each figure is the median of its rounds (JSON "rounds", a list per
	 * figure; "spread", (max - min) / median, is derived): one reading
	 * of a device can be another's several times over, and only rounds
	 * show it. nrounds 0: an older file, the figure alone.
	 */
	unsigned nrounds[FSB_DEVCAP_FIGS];
	double rounds[FSB_DEVCAP_FIGS][FSB_DEVCAP_ROUNDS_MAX];
	/*
	 * What the reads covered (JSON "data"): only ranges that hold data,
	 * since a loop device reads its backing file's holes without any
	 * I/O. data_from says where they came from ("the whole device",
	 * "the backing file's data (PATH)"), data_bytes and data_ranges
	 * what they were, read_bytes what the reads transferred (all rounds).
	 * NULL data_from: an older file.
	 */
	char *data_from;
	uint64_t data_bytes, data_ranges, read_bytes;
	/* NULL, or why the figures say little of the device (too little
	 * data to read): JSON "short_reason". */
	char *short_reason;
};

struct fsb_result {
	int format_version;
	char *tool, *version;
	char *kind; /* "run" | "lifecycle" */
	struct fsb_host host;
	struct fsb_setup setup;
	struct fsb_param *params;
	size_t nparams;
	struct fsb_test_result *tests;
	size_t ntests;
	/*
	 * NULL for fsbench's own results. For a result read from another
	 * tool's file (report/import.h), where it came from: "bonnie++ 1.03
	 * CSV, line 3 of old.csv". tool then names that tool ("bonnie++
	 * 1.03", "fio 3.33"), and every view marks the result as imported.
	 */
	char *source;
	struct fsb_devcap devcap;
	/* The document carries caveats (report/caveats.h): fsbench's own
	 * results from this version on, and documents read with a "caveats"
	 * key. Older documents have none, and their views stay as they were. */
	bool has_caveats;
};

/* Initialise an empty document of the given kind (tool/version filled in). */
int fsb_result_init(struct fsb_result *r, const char *kind);

/* Free everything the document owns (not r itself). Safe on a zeroed r. */
void fsb_result_release(struct fsb_result *r);

/* Fill r->host from uname, /proc/cpuinfo and sysconf. 0 or -errno. */
int fsb_result_fill_host(struct fsb_result *r);

/* Set a string field (NULL clears it); the string is copied. 0 or -ENOMEM. */
int fsb_strset(char **field, const char *value);

/* Add or replace a parameter. 0 or -ENOMEM. */
int fsb_result_param_u64(struct fsb_result *r, const char *key, uint64_t v);
int fsb_result_param_double(struct fsb_result *r, const char *key, double v);
int fsb_result_param_str(struct fsb_result *r, const char *key, const char *v);
int fsb_result_param_bool(struct fsb_result *r, const char *key, bool v);

/* Look a parameter up; NULL when absent. */
const struct fsb_param *fsb_result_param(const struct fsb_result *r, const char *key);
/* Convenience: the value, or dflt when absent or of another type. */
uint64_t fsb_result_get_u64(const struct fsb_result *r, const char *key, uint64_t dflt);
const char *fsb_result_get_str(const struct fsb_result *r, const char *key, const char *dflt);

/*
 * Append a test with the given id and unit and return it (zeroed apart from
 * id and unit), or NULL with errno = ENOMEM. The pointer stays valid until
 * the next append.
 */
struct fsb_test_result *fsb_result_add_test(struct fsb_result *r, const char *id, const char *unit);

/* Set a test's runs (copied) and compute median/min/max/cv from them. */
int fsb_test_set_runs(struct fsb_test_result *t, const double *runs, size_t n);

/*
 * As fsb_test_set_runs, for a caller that has summarised the same n runs
 * already (fsb_summary_compute into *s, which is only read): the figures
 * are taken from *s, not computed again. 0, -EINVAL (n == 0) or -ENOMEM.
 */
int fsb_test_set_runs_summarised(struct fsb_test_result *t, const double *runs, size_t n,
				 const struct fsb_summary *s);

/*
 * Set a test's per-job figures (after its runs): job_runs holds njobs x
 * t->nruns rates, job-major; cpu_pct njobs values (may be NULL: 0). Both
 * copied; the spread (job_min/median/max) is computed. 0, -EINVAL or
 * -ENOMEM.
 */
int fsb_test_set_jobs(struct fsb_test_result *t, const double *job_runs, size_t njobs,
		      const double *cpu_pct);

/* Set each run's first start and last end (t->nruns of each, copied).
 * 0, -EINVAL (no runs yet) or -ENOMEM. */
int fsb_test_set_times(struct fsb_test_result *t, const uint64_t *start_ns, const uint64_t *end_ns);

/*
 * Keep h's non-empty buckets as the test's histogram (replacing any).
 * An empty h clears it. 0 or -ENOMEM.
 */
int fsb_test_set_hist(struct fsb_test_result *t, const struct fsb_hist *h);

/*
 * Set the histogram from n (index, count) pairs (copied), as read from a
 * file: 0, or -EINVAL when an index is out of range or not above the one
 * before, a count is 0 or the counts overflow; -ENOMEM.
 */
int fsb_test_set_hist_buckets(struct fsb_test_result *t, const struct fsb_hist_bucket *b, size_t n);

/* The members that ran each test at once: the "jobs" parameter times the
 * "ranks" one (fsbench-mpi), each 1 when absent (older documents have
 * none). */
unsigned fsb_result_jobs(const struct fsb_result *r);

/* The MPI ranks of a result (fsbench-mpi's "ranks"), 1 when absent. */
unsigned fsb_result_ranks(const struct fsb_result *r);

/* The test with this id, or NULL. */
const struct fsb_test_result *fsb_result_find(const struct fsb_result *r, const char *id);

/*
 * The figure t as a fraction of the device's matching figure (write: seq
 * write, read: seq read, randread: rand read, randwrite: rand write, seeks:
 * rand read, only a rough guide, *rough set). Returns true and sets *frac
 * when both are known. Pure.
 */
/* The device's figure k (its median), its JSON key ("seq_read_Bps") and
 * its name in a sentence ("sequential read"). */
double fsb_devcap_value(const struct fsb_devcap *d, enum fsb_devcap_fig k);
const char *fsb_devcap_key(enum fsb_devcap_fig k);
const char *fsb_devcap_title(enum fsb_devcap_fig k);

/*
 * The spread of figure k over its rounds: (max - min) / median, with the
 * lowest and highest round in lo, hi (either may be NULL). 0 when fewer
 * than two rounds are known or the median is not positive. Pure.
 */
double fsb_devcap_spread(const struct fsb_devcap *d, enum fsb_devcap_fig k, double *lo, double *hi);

/* Copy src into dst (its strings duplicated; dst's own released first).
 * 0 or -ENOMEM. Release with fsb_devcap_release. */
int fsb_devcap_dup(struct fsb_devcap *dst, const struct fsb_devcap *src);
void fsb_devcap_release(struct fsb_devcap *d);

bool fsb_result_device_fraction(const struct fsb_result *r, const struct fsb_test_result *t,
				double *frac, bool *rough);

/* What a test id means to a reader: "write" -> "block write", "seeks" ->
 * "random seeks"; other ids as they are. Static strings. */
const char *fsb_test_title(const char *id);

/* Whether test id drives its I/O through --engine: write, rewrite, read,
 * seeks, randread, randwrite (the per-char and metadata tests do not). */
bool fsb_test_uses_engine(const char *id);

/*
 * True for units where a smaller figure is better: "s" (lifecycle
 * phases). A property of the unit, so the result model holds it for
 * compare and the caveats alike.
 */
bool fsb_unit_lower_is_better(const char *unit);

/* Whether r is fsbench's own run with --engine null (an imported result
 * never is: no other tool's figure is fsbench's engine). */
bool fsb_result_null_engine(const struct fsb_result *r);

/*
 * Whether t's figure is the harness's own cost, not storage's: r ran with
 * --engine null and t went through the engine, so no I/O was done at all
 * (engines/null.c). Every view says so beside such a figure.
 */
bool fsb_test_harness_only(const struct fsb_result *r, const struct fsb_test_result *t);

/*
 * The unit fsbench gives test id in a document of this kind: "s" for
 * every lifecycle phase, "B/s" or "ops/s" for a run's tests by their work
 * unit (core/registry.c); NULL for an id fsbench does not make. Static.
 */
const char *fsb_test_unit(const char *kind, const char *id);

/* True when the figure's spread is above FSB_NOISY_CV. */
bool fsb_test_noisy(const struct fsb_test_result *t);

#endif
