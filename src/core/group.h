/*
 * The job group: the members that run each test at once (--jobs), and the
 * collective operations the runner fences them with, as IOR structures its
 * tasks. The runner is written once, for one member, and talks only to
 * this interface: every member runs the same sequence of collectives, so
 * every decision taken from their results (grow the work, fall back, stop)
 * is the same in all of them, and member 0 (the reporting member) alone
 * writes the result.
 *
 * Every collective carries a status: the member's own (0, or the -errno
 * it failed with) goes in, the worst of all members' comes out
 * (fsb_group_worst), so a member that fails makes every member stop and
 * clean up at the next collective: cooperative abort, with no member left
 * waiting and nobody killed before it has removed its files. To stop the
 * others sooner, in the middle of a run, a failing member also calls
 * fsb_group_abort(), which raises the shared stop word (halt).
 *
 * Times are relative to the member's own exit from a barrier (origin_ns),
 * so that the clocks of different hosts need not agree; a member reports
 * its start and end relative to it and the group reduces the earliest
 * start and the latest end.
 *
 * Implementations: a single process (one member: every collective is the
 * identity) and local jobs (one thread per member, fsb_group_local_run);
 * MPI ranks fit the same operations.
 */
#ifndef FSB_CORE_GROUP_H
#define FSB_CORE_GROUP_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct fsb_group;

/* How fsb_group_reduce combines one value across the members. */
enum fsb_group_op { FSB_GROUP_SUM, FSB_GROUP_MIN, FSB_GROUP_MAX };

struct fsb_group_ops {
	const char *name; /* "single", "local" */
	/* Wait for every member. *origin_ns (may be NULL): this member's
	 * CLOCK_MONOTONIC at its exit from the barrier. */
	int (*barrier)(struct fsb_group *g, int status, uint64_t *origin_ns);
	/* vals[i] becomes how[i] of every member's vals[i], in every member. */
	int (*reduce)(struct fsb_group *g, int status, uint64_t *vals, const enum fsb_group_op *how,
		      size_t n);
	/* Member 0 gets every member's len bytes of mine in all, in member
	 * order (all: size * len bytes; ignored in the other members). */
	int (*gather)(struct fsb_group *g, int status, const void *mine, size_t len, void *all);
	/* Make every member stop issuing work now (raises halt to ABORT).
	 * Not a collective: any member may call it at any time. */
	void (*abort)(struct fsb_group *g);
};

/* One member's handle. */
struct fsb_group {
	const struct fsb_group_ops *ops;
	unsigned rank; /* this member, 0 .. size - 1; 0 reports */
	unsigned size; /* members */
	/* The stop word (enum fsb_halt in workloads/workload.h) every member
	 * and every process they fork sees: a shared mapping. */
	atomic_int *halt;
	void *priv;
};

/*
 * The worse of two statuses: a failure (any -errno but the ones below)
 * before running out of space (-ENOSPC, -EDQUOT: the runner may forgive
 * that on a grown attempt), before a stop signal (-EINTR), before 0; the
 * first of two of a kind (members are combined in rank order, so the
 * lowest rank's). Pure.
 */
int fsb_group_worst(int a, int b);

static inline int fsb_group_barrier(struct fsb_group *g, int status, uint64_t *origin_ns)
{
	return g->ops->barrier(g, status, origin_ns);
}

static inline int fsb_group_reduce(struct fsb_group *g, int status, uint64_t *vals,
				   const enum fsb_group_op *how, size_t n)
{
	return g->ops->reduce(g, status, vals, how, n);
}

static inline int fsb_group_gather(struct fsb_group *g, int status, const void *mine, size_t len,
				   void *all)
{
	return g->ops->gather(g, status, mine, len, all);
}

static inline void fsb_group_abort(struct fsb_group *g)
{
	g->ops->abort(g);
}

/*
 * A group of one member: this thread. Its stop word is in a fresh shared
 * mapping. Returns 0 or -errno (described); release with
 * fsb_group_single_release (also after a failed init).
 */
int fsb_group_single_init(struct fsb_group *g);
void fsb_group_single_release(struct fsb_group *g);

/*
 * Local jobs: run fn(g, arg) in n threads at once (n >= 1), one per
 * member, g their handle (g->rank is the member), and wait for all of
 * them; rcs[k] gets member k's return value. The threads start only once
 * all of them exist. The calling thread does no member's work: while the
 * members run, it forwards a stop signal (SIGINT and the rest, see
 * util/signals.h) to every member thread, so that one blocked in a system
 * call (waitpid, an io_uring wait) returns EINTR and notices it, whichever
 * thread the signal was delivered to. Returns 0 when every member ran
 * (whatever they returned), or -errno (described) when the threads could
 * not be made (then no member ran).
 */
int fsb_group_local_run(unsigned n, int (*fn)(struct fsb_group *g, void *arg), void *arg, int *rcs);

#endif
