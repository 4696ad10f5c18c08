/*
 * The one progress printer of run, lifecycle and matrix, on stderr.
 *
 * On a terminal (--progress auto/always): one line, rewritten with '\r'
 * and cleared when a test ends, with the test, run k of n, the percent of
 * the current run, the rate, and the time left for the whole suite.
 * --progress json: one JSON object per line for wrappers (json-c), events
 * "test-start", "progress", "test-end", "done" and, from the matrix,
 * "step". Whole lines (the matrix's steps) go through it as well, so the
 * '\r' line never mixes with them.
 *
 * The estimate of the time left: a test not yet run is expected to take
 * (repeat + FSB_PROG_CALIB_RUNS) x --min-time (its calibration attempts
 * and its measured runs) until a test has finished; then the mean time of
 * the finished tests. The current test's rest comes from its current
 * run's pace once FSB_PROG_PACE_PCT of the run is done, else from that
 * expectation.
 */
#ifndef FSB_CORE_PROGRESS_H
#define FSB_CORE_PROGRESS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/plan.h"

/* Calibration attempts a test is expected to need before its runs. */
#define FSB_PROG_CALIB_RUNS 2
/* The current run's pace is trusted from this percent of its work on. */
#define FSB_PROG_PACE_PCT 5.0

struct fsb_prog {
	bool on;	    /* anything to print at all */
	bool json;	    /* JSON lines, not the terminal line */
	bool line;	    /* a '\r' line is showing and must be cleared */
	FILE *out;	    /* stderr; a test's stream in the unit tests */
	const char *prefix; /* before each line ("[2/5] ext3 "); borrowed, may be NULL */
	size_t ntests, ndone;
	double guess_s; /* expected time of a test before any has finished */
	uint64_t start_ns, test_start_ns, done_ns; /* done_ns: finished tests' time */
	uint64_t last_json_ns;			   /* JSON progress at most once a second */
	const char *test;			   /* the current test (borrowed), or NULL */
	/* The current run, as the last tick said: pct < 0 when unknown. */
	unsigned run, runs;
	double pct, run_s;
};

/*
 * Set pr up for a suite of ntests tests of repeat runs of at least
 * min_time_s each: on unless quiet or mode says no (auto: stderr is a
 * terminal; json: always). prefix is borrowed. now_ns: the suite's start.
 */
void fsb_prog_init(struct fsb_prog *pr, enum fsb_progress mode, bool quiet, const char *prefix,
		   size_t ntests, unsigned repeat, double min_time_s, uint64_t now_ns);

/* Every function below does nothing when pr is NULL (no printer). */

/* A test begins (name borrowed until fsb_prog_test_end). */
void fsb_prog_test_start(struct fsb_prog *pr, const char *test, uint64_t now_ns);

/*
 * A tick of the current test: run k of runs, pct of its work done (< 0:
 * unknown, a test that runs for a time), rate in unit ("B/s", "ops/s";
 * < 0: unknown), run_s seconds into the run.
 */
void fsb_prog_tick(struct fsb_prog *pr, unsigned run, unsigned runs, double pct, double rate,
		   const char *unit, double run_s, uint64_t now_ns);

/* The current test ended (err: 0 or its -errno); the line is cleared. */
void fsb_prog_test_end(struct fsb_prog *pr, int err, uint64_t now_ns);

/* The suite ended (err: 0 or -errno): JSON's "done" event. */
void fsb_prog_done(struct fsb_prog *pr, int err, uint64_t now_ns);

/*
 * A whole line about a step (the matrix's "[2/5] ext3: mkfs ..."): text
 * as it is on a terminal (the caller made it safe), or a "step" event
 * with setup (may be NULL) and text.
 */
void fsb_prog_note(struct fsb_prog *pr, const char *setup, const char *text);

/* Seconds the suite still needs, as estimated at now_ns (>= 0). Pure. */
double fsb_prog_eta_s(const struct fsb_prog *pr, uint64_t now_ns);

/* "1h02m", "3m05s", "42s": for the terminal line. Returns buf. */
char *fsb_prog_duration(double s, char *buf, size_t len);

#endif
