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
 * identity), local jobs (one thread per member, fsb_group_local_run) and
 * MPI ranks (core/group_mpi.h, one member per process, built only into
 * fsbench-mpi). They compose: local jobs inside each member of an outer
 * group (fsb_group_compose_run) make one group of outer size x jobs
 * members, whose collectives meet among the threads first, then one
 * thread per process (the local member 0) takes them to the outer group.
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
	const char *name; /* "single", "local", "composed", "mpi" */
	/* Wait for every member. *origin_ns (may be NULL): this member's
	 * CLOCK_MONOTONIC at its exit from the barrier. */
	int (*barrier)(struct fsb_group *g, int status, uint64_t *origin_ns);
	/* vals[i] becomes how[i] of every member's vals[i], in every member. */
	int (*reduce)(struct fsb_group *g, int status, uint64_t *vals, const enum fsb_group_op *how,
		      size_t n);
	/* Member 0 gets every member's len bytes of mine in all, in member
	 * order (all: size * len bytes; ignored in the other members). */
	int (*gather)(struct fsb_group *g, int status, const void *mine, size_t len, void *all);
	/* Member 0's len bytes of buf into every member's buf. */
	int (*bcast)(struct fsb_group *g, int status, void *buf, size_t len);
	/* Make every member stop issuing work now (raises halt to ABORT).
	 * Not a collective: any member may call it at any time. */
	void (*abort)(struct fsb_group *g);
	/* Between every member's setup and the start gate: the stop word back
	 * to FSB_HALT_NONE for the next run, by one member per stop word.
	 * NULL: member 0 does it. Not a collective (no waiting). */
	void (*rearm)(struct fsb_group *g);
	/* A collective after every member's setup: the kernel's caches
	 * dropped once per host when a setup asked for it and the drop was
	 * deferred (device/cache.h: fsb_cache_defer_global), the others
	 * waiting. NULL: nothing to do (each setup dropped its own). */
	int (*settle_cache)(struct fsb_group *g, int status);
};

/* One member's handle. */
struct fsb_group {
	const struct fsb_group_ops *ops;
	unsigned rank; /* this member, 0 .. size - 1; 0 reports */
	unsigned size; /* members */
	/* This member among those of its process (0: the one that measures
	 * the process, e.g. its CPU time); rank for one process. */
	unsigned local_rank;
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

static inline int fsb_group_bcast(struct fsb_group *g, int status, void *buf, size_t len)
{
	return g->ops->bcast(g, status, buf, len);
}

static inline void fsb_group_abort(struct fsb_group *g)
{
	g->ops->abort(g);
}

/* Before a run's start gate: the stop word cleared (see ops->rearm). */
void fsb_group_rearm(struct fsb_group *g);

/* After every member's setup: see ops->settle_cache. Returns the worst
 * status of all. */
int fsb_group_settle_cache(struct fsb_group *g, int status);

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

/*
 * fsb_group_local_run inside one member of outer (another process's view
 * of a group spanning processes, or a test's stand-in): the n threads are
 * members outer->rank * n .. outer->rank * n + n - 1 of a group of
 * outer->size * n members, and share outer's stop word. Every collective
 * meets among the threads, then the local member 0 alone takes it to
 * outer (one call per process), then the outcome comes back to the
 * threads: the worst status of all members everywhere, reduced values,
 * member 0's broadcast, the gather in member order (global member 0
 * only). The stop word is rearmed by local member 0 through outer's
 * rearm. outer is used by one thread at a time. Returns as
 * fsb_group_local_run.
 */
int fsb_group_compose_run(struct fsb_group *outer, unsigned n,
			  int (*fn)(struct fsb_group *g, void *arg), void *arg, int *rcs);

#endif
