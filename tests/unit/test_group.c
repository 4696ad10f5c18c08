/*
 * Unit tests of the job group (core/group.h): which status wins; the
 * single process's collectives are the identity; local jobs (threads)
 * reduce, gather and share one origin, and every collective returns the
 * worst status of all members (cooperative abort); the stop word is seen
 * by every member and by a process forked after the group was made; a
 * member blocked in a system call wakes up on a stop signal; each member
 * thread keeps its own first error (util/error.h scopes per thread).
 */
#include <setjmp.h>
#include <stdarg.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(worst_status_wins),
		cmocka_unit_test(single_is_the_identity),
		cmocka_unit_test(local_collectives),
		cmocka_unit_test(stop_word_shared_with_children),
		cmocka_unit_test(stop_wakes_blocked_members),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
