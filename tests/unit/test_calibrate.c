/*
 * Unit tests of the sizer (core/calibrate.c): tables of cases, each a
 * test's parameters, what the probe answers, and a sequence of finished
 * runs with the decision each must get. Covers every decision: keep, redo
 * (growth, warm-up, retry margin, ready work, open attempts), fall back,
 * stop, the first-touch drop, and each short-run reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/calibrate.h"
#include "stats/scale.h"

#define MIB (1024u * 1024u)
#define MS 1000000ull
#define NONE UINT64_MAX

struct answers {
	uint64_t space; /* probe.space's answer (NONE: no space taken) */
	uint64_t ready; /* probe.ready's answer (0: none) */
};

static uint64_t ans_space(void *arg, uint64_t keep)
{
	(void)keep;
	return ((struct answers *)arg)->space;
}

static uint64_t ans_ready(void *arg, uint64_t low, uint64_t high)
{
	(void)low;
	(void)high;
	return ((struct answers *)arg)->ready;
}

struct step {
	enum fsb_cal_end end;
	uint64_t wall_ms;
	uint64_t done; /* 0: the run's work */
	enum fsb_cal_action want;
	uint64_t want_work;
	bool timed, drop_first;
};

struct cal_case {
	const char *name;
	struct fsb_cal_params p;
	struct answers a;
	uint64_t first_work; /* the work fsb_cal_init sets */
	bool first_open;
	struct step steps[16];
	unsigned nsteps;
	const char *short_why; /* after the last step, of its wall time */
};

/* .hard 0 in a case: no limit (UINT64_MAX). */
#define BYTES(...)                                                             \
	{                                                                      \
		.granule = MIB, .min_ns = 500 * MS, .grows = true, __VA_ARGS__ \
	}

static const struct cal_case cases[] = {
	{ "long-enough run is kept",
	  BYTES(.asked = MIB),
	  { NONE, 0 },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 600, 0, FSB_CAL_KEEP, MIB, false, false },
	    { FSB_CAL_DONE, 550, 0, FSB_CAL_KEEP, MIB, false, false } },
	  2,
	  NULL },
	/* 1.2 x 500 ms / 50 ms = 12x */
	{ "short run grows by its rate",
	  BYTES(.asked = MIB),
	  { NONE, 0 },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 50, 0, FSB_CAL_REDO, 12 * MIB, false, false },
	    { FSB_CAL_DONE, 600, 0, FSB_CAL_KEEP, 12 * MIB, false, false } },
	  2,
	  NULL },
	/* 0.51 s is under FSB_SCALE_KEEP's margin for a first run */
	{ "first run needs the keep margin",
	  BYTES(.asked = 100 * MIB),
	  { NONE, 0 },
	  100 * MIB,
	  false,
	  { { FSB_CAL_DONE, 510, 0, FSB_CAL_REDO, 118 * MIB, false, false } },
	  1,
	  NULL },
	/* a later short run: the series starts over with FSB_SCALE_RETRY */
	{ "later short run retries higher",
	  BYTES(.asked = 10 * MIB),
	  { NONE, 0 },
	  10 * MIB,
	  false,
	  { { FSB_CAL_DONE, 600, 0, FSB_CAL_KEEP, 10 * MIB, false, false },
	    { FSB_CAL_DONE, 400, 0, FSB_CAL_REDO, 18 * MIB, false, false } },
	  2,
	  NULL },
	{ "warm-up run is redone at its work",
	  BYTES(.asked = MIB, .warmup = true),
	  { NONE, 0 },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 700, 0, FSB_CAL_REDO, MIB, false, false },
	    { FSB_CAL_DONE, 600, 0, FSB_CAL_KEEP, MIB, false, false } },
	  2,
	  NULL },
	{ "first touch of a grown work is dropped",
	  BYTES(.asked = MIB, .warmup = true),
	  { NONE, 0 },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 50, 0, FSB_CAL_REDO, 12 * MIB, false, false },
	    { FSB_CAL_DONE, 1000, 0, FSB_CAL_KEEP, 12 * MIB, false, false },
	    { FSB_CAL_DONE, 600, 0, FSB_CAL_KEEP, 12 * MIB, false, true } },
	  3,
	  NULL },
	{ "a given work is not grown",
	  BYTES(.asked = MIB, .hard = MIB, .fixed = true),
	  { 4 * MIB, 0 },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 50, 0, FSB_CAL_KEEP, MIB, false, false },
	    { FSB_CAL_DONE, 50, 0, FSB_CAL_KEEP, MIB, false, false } },
	  2,
	  "given" },
	/* space 4 MiB: growth takes half */
	/* a given file: no share of the space, but passes (ready work) */
	{ "a given file is not grown",
	  BYTES(.asked = MIB, .file_given = true),
	  { 4 * MIB, 0 },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 50, 0, FSB_CAL_KEEP, MIB, false, false } },
	  1,
	  "given" },
	{ "a given file may be gone over in passes",
	  BYTES(.asked = MIB, .file_given = true, .has_ready = true),
	  { 4 * MIB, 11 * MIB },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 50, 0, FSB_CAL_REDO, 11 * MIB, false, false },
	    { FSB_CAL_DONE, 100, 0, FSB_CAL_KEEP, 11 * MIB, false, false } },
	  2,
	  "given" },
	{ "growth stops at the space share",
	  BYTES(.asked = MIB),
	  { 4 * MIB, 0 },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 50, 0, FSB_CAL_REDO, 2 * MIB, false, false },
	    { FSB_CAL_DONE, 100, 0, FSB_CAL_KEEP, 2 * MIB, false, false } },
	  2,
	  "space" },
	{ "a first work past the space starts at its share",
	  BYTES(.asked = 64 * MIB),
	  { 8 * MIB, 0 },
	  4 * MIB,
	  false,
	  { { FSB_CAL_DONE, 600, 0, FSB_CAL_KEEP, 4 * MIB, false, false } },
	  1,
	  NULL },
	{ "growth stops at the workload's limit",
	  BYTES(.asked = MIB, .hard = 2 * MIB),
	  { NONE, 0 },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 50, 0, FSB_CAL_REDO, 2 * MIB, false, false },
	    { FSB_CAL_DONE, 100, 0, FSB_CAL_KEEP, 2 * MIB, false, false } },
	  2,
	  "limit" },
	{ "out of space at a grown work falls back",
	  BYTES(.asked = MIB),
	  { NONE, 0 },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 50, 0, FSB_CAL_REDO, 12 * MIB, false, false },
	    { FSB_CAL_NOSPACE, 10, 0, FSB_CAL_FALLBACK, MIB, false, false },
	    { FSB_CAL_DONE, 50, 0, FSB_CAL_KEEP, MIB, false, false } },
	  3,
	  "space" },
	{ "out of space at the first work stops",
	  BYTES(.asked = MIB),
	  { NONE, 0 },
	  MIB,
	  false,
	  { { FSB_CAL_NOSPACE, 10, 0, FSB_CAL_STOP, MIB, false, false } },
	  1,
	  NULL },
	{ "an error stops",
	  BYTES(.asked = MIB),
	  { NONE, 0 },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 50, 0, FSB_CAL_REDO, 12 * MIB, false, false },
	    { FSB_CAL_FAILED, 10, 0, FSB_CAL_STOP, 12 * MIB, false, false } },
	  2,
	  NULL },
	{ "a run the deadline cut is kept",
	  BYTES(.asked = MIB),
	  { NONE, 0 },
	  MIB,
	  false,
	  { { FSB_CAL_DEADLINE, 50, 0, FSB_CAL_KEEP, MIB, false, false } },
	  1,
	  NULL },
	/* ready work in [1.1 x, 1.2 x] of --min-time at its rate */
	{ "ready work is taken",
	  BYTES(.asked = MIB, .has_ready = true),
	  { NONE, 11 * MIB },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 50, 0, FSB_CAL_REDO, 11 * MIB, false, false } },
	  1,
	  NULL },
	{ "ready work out of range is not",
	  BYTES(.asked = MIB, .has_ready = true),
	  { NONE, 100 * MIB },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 50, 0, FSB_CAL_REDO, 12 * MIB, false, false } },
	  1,
	  NULL },
	{ "an open first attempt counts its work done",
	  BYTES(.asked = MIB, .has_ready = true, .may_open = true, .open_first = true),
	  { NONE, 1000 * MIB },
	  1000 * MIB,
	  true,
	  { { FSB_CAL_DEADLINE, 600, 300 * MIB, FSB_CAL_KEEP, 300 * MIB, true, false },
	    { FSB_CAL_DONE, 600, 0, FSB_CAL_KEEP, 300 * MIB, false, false } },
	  2,
	  NULL },
	{ "no open attempt without open_first",
	  BYTES(.asked = MIB, .has_ready = true, .may_open = true),
	  { NONE, 1000 * MIB },
	  MIB,
	  false,
	  { { FSB_CAL_DONE, 600, 0, FSB_CAL_KEEP, MIB, false, false } },
	  1,
	  NULL },
	{ "a time unit never grows",
	  { .granule = 1, .min_ns = 500 * MS, .asked = 0 },
	  { NONE, 0 },
	  0,
	  false,
	  { { FSB_CAL_DONE, 5, 0, FSB_CAL_KEEP, 0, false, false } },
	  1,
	  NULL },
};

static void run_case(const struct cal_case *k)
{
	struct answers a = k->a;
	struct fsb_cal_probe probe = { .space = ans_space, .ready = ans_ready, .arg = &a };
	struct fsb_cal_params p = k->p;
	struct fsb_cal c;
	unsigned index = 0;
	uint64_t first_wall = 0, wall = 0;
	bool cut = false, kept = false;

	if (!p.hard)
		p.hard = NONE;
	fsb_cal_init(&c, &p, &probe);
	if (c.work != k->first_work || (c.open_ns != 0) != k->first_open)
		fail_msg("%s: first work %llu (open %d)", k->name, (unsigned long long)c.work,
			 c.open_ns != 0);
	for (unsigned s = 0; s < k->nsteps; s++) {
		const struct step *st = &k->steps[s];
		struct fsb_cal_run r = {
			.index = index,
			.end = st->end,
			.done = st->done ? st->done : c.work,
			.wall_ns = st->wall_ms * MS,
			.pace_ns = st->wall_ms * MS,
			.first_wall_ns = index == 1 ? first_wall : 0,
		};
		struct fsb_cal_decision d = fsb_cal_decide(&c, &r);

		if (d.action != st->want || d.work != st->want_work || d.timed != st->timed ||
		    d.drop_first != st->drop_first)
			fail_msg("%s, step %u: action %d work %llu timed %d drop %d", k->name, s,
				 d.action, (unsigned long long)d.work, d.timed, d.drop_first);
		if (d.drop_first)
			index = 0;
		if (index == 0)
			first_wall = r.wall_ns;
		wall = r.wall_ns;
		cut = st->end == FSB_CAL_DEADLINE && !d.timed;
		kept = d.action == FSB_CAL_KEEP;
		index = d.action == FSB_CAL_KEEP ? index + 1 : 0;
	}
	{
		/* Asked of the kept runs only. */
		const char *why = kept ? fsb_cal_short_why(&c, wall, cut) : NULL;

		if ((why == NULL) != (k->short_why == NULL) || (why && strcmp(why, k->short_why)))
			fail_msg("%s: short_why %s", k->name, why ? why : "(none)");
	}
}

static void table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

/* (short_why is asked after kept runs only.) */

/* A workload whose time does not follow its work: after
 * FSB_CAL_MAX_ATTEMPTS attempts the last is kept, the reason "time". */
static void attempts_run_out(void **state)
{
	struct answers a = { NONE, 0 };
	struct fsb_cal_probe probe = { .space = ans_space, .ready = ans_ready, .arg = &a };
	struct fsb_cal_params p = BYTES(.asked = 1);
	struct fsb_cal c;
	unsigned redo = 0;

	(void)state;
	p.granule = 1;
	p.hard = NONE;
	fsb_cal_init(&c, &p, &probe);
	for (unsigned s = 0; s < 40; s++) {
		struct fsb_cal_run r = {
			.end = FSB_CAL_DONE, .done = c.work, .wall_ns = 10 * MS, .pace_ns = 10 * MS
		};
		struct fsb_cal_decision d = fsb_cal_decide(&c, &r);

		if (d.action == FSB_CAL_KEEP)
			break;
		assert_int_equal(d.action, FSB_CAL_REDO);
		redo++;
	}
	assert_int_equal(redo, FSB_CAL_MAX_ATTEMPTS);
	assert_string_equal(fsb_cal_short_why(&c, 10 * MS, false), "time");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table),
		cmocka_unit_test(attempts_run_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
