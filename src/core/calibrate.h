/*
 * Sizing: what the runner does after each run of a test. Pure: no I/O,
 * no clock. It is told how a run ended and answers keep (the run counts),
 * redo with work W (discard the series, start over at W), fall back to a
 * work that fit (a grown attempt ran out of space) or stop (an error). What
 * it needs to know of the filesystem and the workload (the space left, the
 * work a workload has ready) it asks through fsb_cal_probe, whose answers
 * the runner gathers (collectives: every member asks alike) and a unit
 * test fabricates.
 *
 * A work the user gave (params.fixed) is never grown: every decision on it
 * is keep or stop.
 */
#ifndef FSB_CORE_CALIBRATE_H
#define FSB_CORE_CALIBRATE_H
#include <stdbool.h>
#include <stdint.h>

/* A calibration that has not converged after this many attempts (series
 * started over) keeps the last one: each attempt predicts the work from
 * the last one's rate, so only a workload whose time does not follow its
 * work gets here. Kept runs are no attempts. */
#define FSB_CAL_MAX_ATTEMPTS 12

/* Why a run ended. */
enum fsb_cal_end {
	FSB_CAL_DONE,	  /* it did its work */
	FSB_CAL_DEADLINE, /* cut at --deadline, or an open attempt at its time */
	FSB_CAL_NOSPACE,  /* out of space (ENOSPC, EDQUOT) */
	FSB_CAL_FAILED,	  /* any other error, or a stop signal */
};

enum fsb_cal_action {
	FSB_CAL_KEEP,	  /* the run counts: on to the next of the series */
	FSB_CAL_REDO,	  /* discard the series, start over at work */
	FSB_CAL_FALLBACK, /* out of space: start over at work, grow no more */
	FSB_CAL_STOP,	  /* an error: the test fails */
};

/* What the sizer asks of the world, through the runner. */
struct fsb_cal_probe {
	/* The work that fits in the free space now (keep: a work that fits
	 * as it is, not rounded down); UINT64_MAX when it takes no space. */
	uint64_t (*space)(void *arg, uint64_t keep);
	/* A work in [low, high] the workload has ready (no preparation, no
	 * space), or anything outside it for none. */
	uint64_t (*ready)(void *arg, uint64_t low, uint64_t high);
	void *arg;
};

struct fsb_cal_params {
	uint64_t asked;	  /* the first work (the workload's initial_work) */
	uint64_t hard;	  /* the workload's own limit (UINT64_MAX: none) */
	uint64_t granule; /* grown work is a multiple of this */
	uint64_t min_ns;  /* --min-time (0: no growth) */
	bool grows;	  /* the work unit is bytes or operations, not time */
	bool fixed;	  /* the user gave the work: it runs exactly */
	bool warmup;	  /* the first run is a discarded warm-up (FSB_WL_WARMUP) */
	bool open_first;  /* the first attempt may be open (FSB_WL_OPEN) */
	/* An open attempt is possible at all: one member, no --deadline,
	 * --min-time set, a workload with ready work. */
	bool may_open;
	bool has_ready; /* the workload has ready_work */
	/* The user gave the file the work goes over: it is not grown (no
	 * share of the space), but ready work (passes over it) may be. */
	bool file_given;
};

struct fsb_cal {
	struct fsb_cal_params p;
	struct fsb_cal_probe probe;
	uint64_t work;	/* what the next run does */
	uint64_t start; /* the first work (after the space and the limit) */
	uint64_t cap;	/* growth goes no higher (a share of the space) */
	/* The next run is an open attempt: it stops open_ns after its start,
	 * not before it has done open_least; 0: it does its work. */
	uint64_t open_ns, open_least;
	double target; /* what growth aims at, in --min-time */
	bool warm;     /* the warm-up run is behind */
	bool touch;    /* the series started at a grown work of a warm-up test */
	bool opened;   /* the run being decided on was open */
	unsigned attempts;
	/* Works that completed, ascending: where a grown attempt that runs
	 * out of space falls back to. */
	uint64_t fits[FSB_CAL_MAX_ATTEMPTS + 1];
	unsigned nfits;
	uint64_t failed_at; /* the work that ran out of space (0: none) */
	bool failed_open;   /* that attempt was open: its work was a bound */
};

/* One finished run, as every member knows it. */
struct fsb_cal_run {
	unsigned index;		/* its place in the series (0: the first) */
	enum fsb_cal_end end;	/* why it ended */
	uint64_t done;		/* the work it did */
	uint64_t wall_ns;	/* how long it lasted */
	uint64_t pace_ns;	/* the same at its last quarter's pace */
	uint64_t first_wall_ns; /* index 1: how long the series' first lasted */
};

struct fsb_cal_decision {
	enum fsb_cal_action action;
	uint64_t work; /* the work of the next run (KEEP: the same) */
	/* KEEP: the run was an open attempt stopped at its time; it counts
	 * as a run of its work done, not as one the deadline cut. */
	bool timed;
	/* The series' first run was a first touch of a grown work: drop it
	 * (the second becomes the first) before acting. */
	bool drop_first;
};

/* Set up for a test: the first work (within what fits now, asked of
 * probe->space unless the work is fixed) and whether its first run is
 * open. */
void fsb_cal_init(struct fsb_cal *c, const struct fsb_cal_params *p,
		  const struct fsb_cal_probe *probe);

/* Decide after a run. The run's work is c->work; grown: it is past the
 * first work (an error on it that is out of space is forgiven). */
struct fsb_cal_decision fsb_cal_decide(struct fsb_cal *c, const struct fsb_cal_run *r);

/* Whether the next run is at a grown work (its error waits: fsb_err_hold). */
static inline bool fsb_cal_grown(const struct fsb_cal *c)
{
	return c->work > c->start;
}

/* Why the kept runs are under --min-time, for the result's short_reason:
 * NULL when the shortest (not cut by the deadline) lasted long enough,
 * "space", "given", "time" (growth did not lengthen them) or "limit". */
const char *fsb_cal_short_why(const struct fsb_cal *c, uint64_t shortest_ns, bool shortest_cut);

#endif
