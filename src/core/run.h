/*
 * The run plan and its executor: the throughput and metadata suites in a
 * scratch directory under DIR (fsbench run, and each matrix setup's run
 * suite on its mounted filesystem).
 */
#ifndef FSB_CORE_RUN_H
#define FSB_CORE_RUN_H
#include <stdbool.h>
#include <stddef.h>

#include "core/plan.h"
#include "report/result.h"
#include "util/error.h"
#include "workloads/workload.h"

#define FSB_RUN_MAX_TESTS 32
/* --jobs and --iodepth go from 1 to these. */
#define FSB_RUN_MAX_JOBS 1024
#define FSB_RUN_MAX_IODEPTH 1024

/* What `fsbench run` will do. Strings are borrowed (argv, a matrix file). */
struct fsb_run_plan {
	struct fsb_config cfg; /* cfg.label NULL: the filesystem type */
	bool seed_set;	       /* cfg.seed was given; else drawn at execution */
	bool repeat_set;       /* --repeat was given */
	const char *tests;     /* --tests as given; NULL: throughput,files */
	const char *engine;    /* --engine as given; NULL: psync (resolved into
	                        * cfg.engine by fsb_run_plan_check) */
	/* The tests, in registry order: resolved by fsb_run_plan_check. */
	const struct fsb_workload_ops *ops[FSB_RUN_MAX_TESTS];
	size_t nops;
	enum fsb_progress progress;
	bool quiet;		     /* no progress lines (warnings: the caller's) */
	bool reorder;		     /* --reorder: read another rank's files */
	const char *progress_prefix; /* before each progress line; NULL: none */
	/* --no-device-capability: the raw device under DIR is not measured. */
	bool no_devcap;
	/* The device's capability measured already (the matrix, before the
	 * images' fill, with writes) and its "device_capability" param: copied
	 * into the result instead of measuring. NULL: measure here, read-only. */
	const struct fsb_devcap *devcap;
	const char *devcap_param;
};

/* The defaults: --size 1g, --chunk 8k, 3 runs of at least 0.5 s, --cache drop,
 * 8192 seeks by 3 seekers, 16k files, one job, the psync engine at depth 1,
 * 4k random blocks; tests not yet resolved. */
void fsb_run_plan_init(struct fsb_run_plan *p);

/*
 * The checks across options, and the tests resolved to workloads: --chunk a
 * power of two from 512 to 64m, --size at least a chunk (rounded down to
 * whole chunks), --block-size a power of two from 512 to 64m and at most
 * --size, --engine a known engine, --links without file sizes, --tests
 * known ids of the run families, --files 0 dropping the metadata suite.
 * Pure. Returns 0, or -EINVAL after one line (a usage error).
 */
int fsb_run_plan_check(struct fsb_run_plan *p);

/* What --tests may name: "putc|write|...|throughput|files|random|null". Static. */
const char *fsb_run_test_names(void);

/* "psync|io_uring|null": the engines --engine takes. A static string. */
const char *fsb_run_engine_names(void);

/*
 * Processes that run one plan together: fsbench-mpi's ranks. Set once by
 * its main before any command; the plain fsbench has none.
 */
struct fsb_run_world {
	struct fsb_group *group;  /* one member per process (core/group.h) */
	const char *const *hosts; /* each member's host name */
	unsigned nodes;		  /* distinct hosts */
	unsigned ranks_per_node;  /* the fewest ranks on a host (--reorder) */
	const char *library;	  /* the MPI library's version line */
	bool watcher;		  /* stop words reach the other ranks at once */
};

/* Run every later plan across w (borrowed; NULL: this process alone). */
void fsb_run_set_world(const struct fsb_run_world *w);

/* Whether this process writes the result (no world, or its member 0). */
bool fsb_run_reports(void);

/*
 * Run the plan in a fresh scratch directory under dir (which must exist and
 * be writable): refuse what cannot fit first (the space check), then each
 * test through the runner, and make res a "run" document (res zeroed by
 * the caller, who releases it in any case) with the setup, the parameters
 * and the figures. The scratch directory is removed
 * on every way out. The first error described is also kept in e (may be
 * NULL). Returns 0, -EINTR when a stop signal ended it, or -errno.
 *
 * With a world (fsb_run_set_world), a collective of its processes: member
 * 0 makes the scratch directory (with the marker) and tells the others
 * its name; each process works in its own rank-N below it (job-K below
 * that with --jobs) and removes it; member 0 removes the top after the
 * last barrier and alone fills res (with ranks, hosts, the MPI library)
 * and describes a failure, naming the first rank that failed, its host
 * and its own message; the others describe nothing.
 */
int fsb_run_execute(const struct fsb_run_plan *p, const char *dir, struct fsb_result *res,
		    struct fsb_error *e);

#endif
