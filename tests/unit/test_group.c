/*
 * Unit tests of the job group (core/group.h): which status wins; the
 * single process's collectives are the identity; local jobs (threads)
 * reduce, gather and share one origin, and every collective returns the
 * worst status of all members (cooperative abort); the stop word is seen
 * by every member and by a process forked after the group was made; a
 * member blocked in a system call wakes up on a stop signal; each member
 * thread keeps its own first error (util/error.h scopes per thread);
 * local jobs composed with an outer group (ranks x jobs, as fsbench-mpi
 * runs them) number the members rank-major, reach the outer group once
 * per process and one thread at a time, and give every member the
 * outcome of all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/group.h"
#include "stats/clock.h"
#include "util/error.h"
#include "util/signals.h"
#include "workloads/workload.h"

#define N 5

static void worst_status_wins(void **state)
{
	(void)state;
	assert_int_equal(fsb_group_worst(0, 0), 0);
	assert_int_equal(fsb_group_worst(0, -EINTR), -EINTR);
	assert_int_equal(fsb_group_worst(-EINTR, -ENOSPC), -ENOSPC);
	assert_int_equal(fsb_group_worst(-ENOSPC, -EIO), -EIO);
	assert_int_equal(fsb_group_worst(-EIO, -ENOSPC), -EIO);
	assert_int_equal(fsb_group_worst(-EDQUOT, -EINTR), -EDQUOT);
	/* Of two of a kind, the first (the lower rank) stays. */
	assert_int_equal(fsb_group_worst(-EIO, -EBADF), -EIO);
	assert_int_equal(fsb_group_worst(-EBADF, 0), -EBADF);
}

static void single_is_the_identity(void **state)
{
	static const enum fsb_group_op how[2] = { FSB_GROUP_SUM, FSB_GROUP_MAX };
	struct fsb_group g;
	uint64_t origin = 0, v[2] = { 3, 4 }, now = fsb_clock_ns(), mine = 42, all = 0;
	(void)state;

	assert_int_equal(fsb_group_single_init(&g), 0);
	assert_int_equal(g.size, 1);
	assert_int_equal(g.rank, 0);
	assert_int_equal(fsb_group_barrier(&g, 0, &origin), 0);
	assert_true(origin >= now);
	assert_int_equal(fsb_group_barrier(&g, -EIO, NULL), -EIO);
	assert_int_equal(fsb_group_reduce(&g, 0, v, how, 2), 0);
	assert_true(v[0] == 3 && v[1] == 4);
	assert_int_equal(fsb_group_gather(&g, -ENOSPC, &mine, sizeof(mine), &all), -ENOSPC);
	assert_int_equal(all, 42);
	assert_int_equal(atomic_load(g.halt), FSB_HALT_NONE);
	fsb_group_abort(&g);
	assert_int_equal(atomic_load(g.halt), FSB_HALT_ABORT);
	fsb_group_single_release(&g);
}

/* What each member saw, by rank. */
static struct seen {
	int st_ok, st_fail, st_after;
	uint64_t origin;
	uint64_t sum, min, max;
	uint64_t gathered[N];
	int halt_seen;
	char err[512];
} seen[N];

static int member(struct fsb_group *g, void *arg)
{
	static const enum fsb_group_op how[3] = { FSB_GROUP_SUM, FSB_GROUP_MIN, FSB_GROUP_MAX };
	struct seen *s = &seen[g->rank];
	uint64_t v[3], mine = 100 + g->rank;
	struct fsb_err_scope scope;
	struct fsb_error e = { 0 };
	(void)arg;

	assert_int_equal(g->size, N);
	s->st_ok = fsb_group_barrier(g, 0, &s->origin);
	/* Member 3 fails with EIO, member 1 was stopped: EIO wins, in all. */
	s->st_fail = fsb_group_barrier(g, g->rank == 3 ? -EIO : g->rank == 1 ? -EINTR : 0, NULL);
	v[0] = v[1] = v[2] = 10 + g->rank;
	s->st_after = fsb_group_reduce(g, 0, v, how, 3);
	s->sum = v[0];
	s->min = v[1];
	s->max = v[2];
	fsb_group_gather(g, 0, &mine, sizeof(mine), g->rank ? NULL : s->gathered);
	/* Member 2 aborts: everyone sees the stop word after the barrier. */
	if (g->rank == 2)
		fsb_group_abort(g);
	fsb_group_barrier(g, 0, NULL);
	s->halt_seen = atomic_load(g->halt);
	/* Each thread's own first error, though all describe one at once. */
	fsb_err_capture_begin(&scope, &e, true);
	fsb_group_barrier(g, 0, NULL);
	fsb_err("member %u failed", g->rank);
	fsb_group_barrier(g, 0, NULL);
	fsb_err_capture_end(&scope, -EIO);
	snprintf(s->err, sizeof(s->err), "%s", e.msg);
	return (int)g->rank * 10;
}

static void local_collectives(void **state)
{
	int rcs[N];
	(void)state;

	memset(seen, 0, sizeof(seen));
	assert_int_equal(fsb_group_local_run(N, member, NULL, rcs), 0);
	for (unsigned k = 0; k < N; k++) {
		char want[64];

		assert_int_equal(rcs[k], (int)k * 10);
		assert_int_equal(seen[k].st_ok, 0);
		assert_int_equal(seen[k].st_fail, -EIO);
		assert_int_equal(seen[k].st_after, 0);
		/* One origin for all: the moment the last one arrived. */
		assert_true(seen[k].origin == seen[0].origin && seen[k].origin > 0);
		assert_int_equal(seen[k].sum, 10 + 11 + 12 + 13 + 14);
		assert_int_equal(seen[k].min, 10);
		assert_int_equal(seen[k].max, 14);
		assert_int_equal(seen[k].halt_seen, FSB_HALT_ABORT);
		snprintf(want, sizeof(want), "member %u failed", k);
		assert_string_equal(seen[k].err, want);
	}
	/* Gathered in rank order, at member 0. */
	for (unsigned k = 0; k < N; k++)
		assert_int_equal(seen[0].gathered[k], 100 + k);
	assert_int_equal(fsb_group_local_run(0, member, NULL, rcs), -EINVAL);
}

/* The stop word lives in a shared mapping: a seeker forked by a job sees
 * it raised by another job's thread. */
static int raise_for_child(struct fsb_group *g, void *arg)
{
	int *status = arg;

	if (g->rank == 0) {
		pid_t pid = fork();

		if (pid == 0) {
			uint64_t t0 = fsb_clock_ns();

			while (!atomic_load(g->halt) && fsb_clock_ns() - t0 < 5000000000ull)
				;
			_exit(atomic_load(g->halt) == FSB_HALT_STONEWALL ? 0 : 1);
		}
		fsb_group_barrier(g, 0, NULL);
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
	} else {
		fsb_group_barrier(g, 0, NULL);
		fsb_halt_raise(g->halt, FSB_HALT_STONEWALL);
		/* The first reason stays. */
		fsb_halt_raise(g->halt, FSB_HALT_DEADLINE);
	}
	return 0;
}

static void stop_word_shared_with_children(void **state)
{
	int rcs[2], status = -1;
	(void)state;

	assert_int_equal(fsb_group_local_run(2, raise_for_child, &status, rcs), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A member blocked in read(2) on a pipe nobody writes: a stop signal
 * (whichever thread it reached) wakes it, and the run ends. */
static int fds[2];

static int blocked(struct fsb_group *g, void *arg)
{
	char c;
	ssize_t n;
	(void)arg;

	if (g->rank == 0) {
		/* As the signal handler would. */
		fsb_stop_signal = SIGINT;
		return 0;
	}
	n = read(fds[0], &c, 1);
	return n < 0 ? -errno : 0;
}

static void stop_wakes_blocked_members(void **state)
{
	int rcs[3];
	uint64_t t0 = fsb_clock_ns();
	(void)state;

	assert_int_equal(pipe(fds), 0);
	assert_int_equal(fsb_group_local_run(3, blocked, NULL, rcs), 0);
	fsb_stop_signal = 0;
	assert_int_equal(rcs[1], -EINTR);
	assert_int_equal(rcs[2], -EINTR);
	assert_true(fsb_clock_ns() - t0 < 5000000000ull);
	close(fds[0]);
	close(fds[1]);
}

/* ---- ranks x jobs: local jobs composed with an outer group ---- */

#define RANKS 2
#define JOBS 3
#define ALL (RANKS * JOBS)

/* The outer group's stand-in: a rank is a thread of an outer local group;
 * each call to it is counted, and two at once in one rank are caught. */
struct rank_view {
	struct fsb_group *real; /* the outer local member */
	atomic_int busy, calls, overlap;
};
static struct rank_view views[RANKS];

#define VIEW(g) ((struct rank_view *)(g)->priv)
static void enter(struct fsb_group *g)
{
	if (atomic_fetch_add(&VIEW(g)->busy, 1))
		atomic_store(&VIEW(g)->overlap, 1);
	atomic_fetch_add(&VIEW(g)->calls, 1);
}
static int leave(struct fsb_group *g, int rc)
{
	atomic_fetch_sub(&VIEW(g)->busy, 1);
	return rc;
}
static int v_barrier(struct fsb_group *g, int st, uint64_t *o)
{
	enter(g);
	return leave(g, fsb_group_barrier(VIEW(g)->real, st, o));
}
static int v_reduce(struct fsb_group *g, int st, uint64_t *v, const enum fsb_group_op *h, size_t n)
{
	enter(g);
	return leave(g, fsb_group_reduce(VIEW(g)->real, st, v, h, n));
}
static int v_gather(struct fsb_group *g, int st, const void *m, size_t len, void *all)
{
	enter(g);
	return leave(g, fsb_group_gather(VIEW(g)->real, st, m, len, all));
}
static int v_bcast(struct fsb_group *g, int st, void *b, size_t len)
{
	enter(g);
	return leave(g, fsb_group_bcast(VIEW(g)->real, st, b, len));
}
static void v_abort(struct fsb_group *g)
{
	fsb_group_abort(VIEW(g)->real);
}
static const struct fsb_group_ops view_ops = {
	.name = "test-outer",
	.barrier = v_barrier,
	.reduce = v_reduce,
	.gather = v_gather,
	.bcast = v_bcast,
	.abort = v_abort,
};

static struct {
	unsigned rank, size;
	int st_fail, st_after;
	uint64_t sum, min, max, bcast, origin;
	int halt_after_abort, halt_after_rearm;
	unsigned gathered[ALL];
} cseen[ALL];

static int composed_member(struct fsb_group *g, void *arg)
{
	static const enum fsb_group_op how[3] = { FSB_GROUP_SUM, FSB_GROUP_MIN, FSB_GROUP_MAX };
	unsigned mine = 100 + g->rank;
	uint64_t v[3] = { g->rank + 10, g->rank + 10, g->rank + 10 }, b = g->rank ? 0 : 42;
	(void)arg;

	cseen[g->rank].rank = g->rank;
	cseen[g->rank].size = g->size;
	/* One member of the second rank fails: every member hears it. */
	cseen[g->rank].st_fail = fsb_group_barrier(g, g->rank == 4 ? -EIO : 0, NULL);
	cseen[g->rank].st_after = fsb_group_barrier(g, 0, &cseen[g->rank].origin);
	fsb_group_reduce(g, 0, v, how, 3);
	cseen[g->rank].sum = v[0];
	cseen[g->rank].min = v[1];
	cseen[g->rank].max = v[2];
	fsb_group_bcast(g, 0, &b, sizeof(b));
	cseen[g->rank].bcast = b;
	fsb_group_gather(g, 0, &mine, sizeof(mine), g->rank ? NULL : cseen[0].gathered);
	if (g->rank == 5)
		fsb_group_abort(g);
	fsb_group_barrier(g, 0, NULL);
	cseen[g->rank].halt_after_abort = atomic_load(g->halt);
	/* The stand-in's ranks share one stop word (MPI ranks each have
	 * their own): every one has read it before it is rearmed. */
	fsb_group_barrier(g, 0, NULL);
	fsb_group_rearm(g);
	fsb_group_barrier(g, fsb_group_settle_cache(g, 0), NULL);
	cseen[g->rank].halt_after_rearm = atomic_load(g->halt);
	return 0;
}

static int one_rank(struct fsb_group *outer, void *arg)
{
	struct fsb_group view = *outer;
	int rcs[JOBS];
	(void)arg;

	views[outer->rank].real = outer;
	view.ops = &view_ops;
	view.priv = &views[outer->rank];
	assert_int_equal(fsb_group_compose_run(&view, JOBS, composed_member, NULL, rcs), 0);
	return 0;
}

static void composed_ranks_and_jobs(void **state)
{
	int rcs[RANKS];
	(void)state;

	memset(cseen, 0, sizeof(cseen));
	memset(views, 0, sizeof(views));
	assert_int_equal(fsb_group_local_run(RANKS, one_rank, NULL, rcs), 0);
	for (unsigned k = 0; k < ALL; k++) {
		unsigned r = k / JOBS;

		assert_int_equal(cseen[k].rank, k);
		assert_int_equal(cseen[k].size, ALL);
		assert_int_equal(cseen[k].st_fail, -EIO);
		assert_int_equal(cseen[k].st_after, 0);
		assert_int_equal(cseen[k].sum, 10 + 11 + 12 + 13 + 14 + 15);
		assert_int_equal(cseen[k].min, 10);
		assert_int_equal(cseen[k].max, 15);
		assert_int_equal(cseen[k].bcast, 42);
		assert_int_equal(cseen[k].halt_after_abort, FSB_HALT_ABORT);
		assert_int_equal(cseen[k].halt_after_rearm, FSB_HALT_NONE);
		/* One origin per process: its own exit from the barrier. */
		assert_true(cseen[k].origin == cseen[r * JOBS].origin && cseen[k].origin > 0);
	}
	/* Rank-major: rank r's job j is member r * JOBS + j. */
	for (unsigned k = 0; k < ALL; k++)
		assert_int_equal(cseen[0].gathered[k], 100 + k);
	/* The outer group: once per collective per rank (8; the
	 * settle_cache stays local: the stand-in has none),
	 * never two threads of a rank at once. */
	for (unsigned r = 0; r < RANKS; r++) {
		assert_int_equal(atomic_load(&views[r].overlap), 0);
		assert_int_equal(atomic_load(&views[r].calls), 8);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(worst_status_wins),
		cmocka_unit_test(single_is_the_identity),
		cmocka_unit_test(local_collectives),
		cmocka_unit_test(stop_word_shared_with_children),
		cmocka_unit_test(stop_wakes_blocked_members),
		cmocka_unit_test(composed_ranks_and_jobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
