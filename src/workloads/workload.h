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
 *   - Space: max_work says how much work fits in the free space now; the
 *     runner grows into only a share of it and asks again before each
 *     grown attempt. A run (or its setup) that runs out of space returns
 *     -ENOSPC, described as any error: on a grown attempt the runner drops
 *     that description and falls back to the largest work that fit. A run
 *     that fails must leave the scratch files whole for the next attempt
 *     (or remove them), never half-rewritten.
 *   - Anything that must be on disk before the clock starts (the file a
 *     read test reads, the files a stat test stats) is made by setup. Data
 *     shared between tests lives in the scratch directory ctx->dir, so each
 *     test also runs alone (`--tests read`).
 */
#ifndef FSB_WORKLOADS_WORKLOAD_H
#define FSB_WORKLOADS_WORKLOAD_H
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
	unsigned repeat;      /* measured runs per test (--repeat) */
	uint64_t min_time_ns; /* shortest acceptable run (--min-time) */
	enum fsb_cache_mode cache;
	uint64_t seed;
	const char *label;
	/* throughput suite */
	uint64_t size_bytes;	  /* --size: the block test file set */
	uint64_t chunk_bytes;	  /* --chunk */
	uint64_t char_size_bytes; /* --char-size; 0 = auto */
	enum fsb_char_io char_io;
	uint64_t seeks;	  /* --seeks, shared by all seekers */
	unsigned seekers; /* --seekers processes */
	/* I/O engines and the random tests (0 / NULL: the default) */
	const struct fsb_engine_ops *engine; /* --engine (NULL: psync) */
	unsigned iodepth;		     /* --iodepth: I/Os in flight (0: 1) */
	uint64_t block_bytes;		     /* --block-size of randread/randwrite (0: 4096) */
	/* metadata suite */
	uint64_t files;		 /* --files N (0 = skip the suite) */
	uint64_t file_max_bytes; /* --files N:max */
	uint64_t file_min_bytes; /* --files N:max:min */
	unsigned file_dirs;	 /* --files N:max:min:dirs (0 = one dir) */
	enum fsb_links links;
	bool sync; /* --sync: fsync files and directories */
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
};

/* Where a workload reports what it did. Owned by the runner. */
struct fsb_sink {
	uint64_t ops;	       /* operations done */
	uint64_t bytes;	       /* bytes moved by those operations */
	struct fsb_hist *hist; /* latency of single operations */
	/* Called (out of line, by the runner) when a progress tick is due. */
	void (*progress)(struct fsb_sink *out);
	void *progress_arg;
};

/*
 * Record one operation of `bytes` bytes that took lat_ns. Cheap enough to
 * call per operation: a histogram increment and, every tick, a progress
 * line. Returns non-zero when the user asked to stop (SIGINT/SIGTERM): the
 * workload must then unwind and return -EINTR.
 */
static inline int fsb_sink_op(struct fsb_sink *out, uint64_t bytes, uint64_t lat_ns)
{
	out->ops++;
	out->bytes += bytes;
	fsb_hist_add(out->hist, lat_ns);
	if (fsb_progress_due && out->progress)
		out->progress(out);
	return fsb_stop_requested();
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
	 * first time the machine hands it pages it never touched (seen on VMs:
	 * 1.0 then 2.1 GB/s), which is not the filesystem's cost. */
	FSB_WL_WARMUP = 1u << 1,
};

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
	/* Largest work a run may do: what fits in the free space now (the
	 * workload's own files it would replace count as free, except where
	 * ctx->cow says otherwise), or an exact size the user gave (then equal
	 * to initial_work: no growth); 0 = unbounded. Asked before the first
	 * attempt and again before each grown one. */
	uint64_t (*max_work)(const struct fsb_ctx *ctx);
	uint64_t work_granule; /* grown work is a multiple of this (0 = chunk) */
	size_t priv_size;      /* bytes of zeroed private state per run */
	int (*setup)(struct fsb_ctx *ctx, void *priv); /* untimed; 0 or -errno */
	int (*run)(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out);
	void (*teardown)(struct fsb_ctx *ctx, void *priv); /* always, idempotent */
};

/*
 * Describe a failed transfer of a test once: "TEST: cannot WHAT 'PATH' at
 * offset N: why", naming the space the test needs (need bytes) for ENOSPC
 * and "unexpected end of file" for err == 0. Silent for EINTR after a stop
 * request. Returns err, or -EIO for err == 0.
 */
int fsb_workload_io_error(const char *test, const char *what, const char *path, uint64_t off,
			  int err, uint64_t need);

#endif
