/*
 * The job group's implementations: a single process, local jobs (one
 * thread per member), and local jobs composed with an outer group (MPI
 * ranks). See group.h.
 */
#include "core/group.h"
#include "device/cache.h"
#include "stats/clock.h"
#include "util/error.h"
#include "util/signals.h"
#include "workloads/workload.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* How often the coordinator of local jobs looks for a stop signal to
 * forward (and forwards it again, in case a member was between its check
 * and a blocking call when the first one came). */
#define WAKE_PERIOD_NS 20000000L

/* Order of the statuses: the higher class wins. */
static int status_class(int s)
{
	if (!s)
		return 0;
	if (s == -EINTR)
		return 1;
	if (s == -ENOSPC || s == -EDQUOT)
		return 2;
	return 3;
}

int fsb_group_worst(int a, int b)
{
	return status_class(b) > status_class(a) ? b : a;
}

/* The stop word, in a mapping that processes forked later share. */
static atomic_int *halt_map(void)
{
	void *m = mmap(NULL, sizeof(atomic_int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	atomic_init((atomic_int *)m, FSB_HALT_NONE);
	return m;
}

static void halt_unmap(atomic_int *h)
{
	if (h)
		munmap(h, sizeof(atomic_int));
}

/* ---- a single process ---- */

static int single_barrier(struct fsb_group *g, int status, uint64_t *origin_ns)
{
	(void)g;
	if (origin_ns)
		*origin_ns = fsb_clock_ns();
	return status;
}

static int single_reduce(struct fsb_group *g, int status, uint64_t *vals,
			 const enum fsb_group_op *how, size_t n)
{
	(void)g;
	(void)vals;
	(void)how;
	(void)n;
	return status;
}

static int single_gather(struct fsb_group *g, int status, const void *mine, size_t len, void *all)
{
	(void)g;
	if (all && all != mine)
		memcpy(all, mine, len);
	return status;
}

static int single_bcast(struct fsb_group *g, int status, void *buf, size_t len)
{
	(void)g;
	(void)buf;
	(void)len;
	return status;
}

static void any_abort(struct fsb_group *g)
{
	fsb_halt_raise(g->halt, FSB_HALT_ABORT);
}

void fsb_group_rearm(struct fsb_group *g)
{
	if (g->ops->rearm)
		g->ops->rearm(g);
	else if (!g->rank)
		atomic_store(g->halt, FSB_HALT_NONE);
}

int fsb_group_settle_cache(struct fsb_group *g, int status)
{
	return g->ops->settle_cache ? g->ops->settle_cache(g, status) : status;
}

static const struct fsb_group_ops single_ops = {
	.name = "single",
	.barrier = single_barrier,
	.reduce = single_reduce,
	.gather = single_gather,
	.bcast = single_bcast,
	.abort = any_abort,
};

int fsb_group_single_init(struct fsb_group *g)
{
	memset(g, 0, sizeof(*g));
	g->ops = &single_ops;
	g->size = 1;
	g->halt = halt_map();
	if (!g->halt) {
		int err = -errno;

		fsb_err_errno(err, "cannot map the jobs' stop word");
		return err;
	}
	return 0;
}

void fsb_group_single_release(struct fsb_group *g)
{
	halt_unmap(g->halt);
	g->halt = NULL;
}

/* ---- local jobs: threads ---- */

enum coll_kind { COLL_BARRIER, COLL_REDUCE, COLL_GATHER, COLL_BCAST };

/* What a member brings to a collective; its results go back through the
 * pointers, written by the last member to arrive while the others wait
 * (so every buffer named here is alive). */
struct deposit {
	int status;
	int *result;
	uint64_t *origin_ns;
	uint64_t *vals;
	const void *mine;
	void *all;
};

struct local {
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* a collective completed */
	pthread_cond_t done_cv; /* a member finished */
	unsigned size, arrived, finished;
	uint64_t gen;
	enum coll_kind kind;
	const enum fsb_group_op *how;
	size_t n, len;
	bool go, cancel, mismatch;
	struct deposit *dep;
	struct fsb_group *members;
	/* Composed with an outer group: each member's handle for the run
	 * (views[k].priv is &members[k]), and the outer group. */
	struct fsb_group *views;
	struct fsb_group *outer;
	bool own_halt; /* the stop word is this group's mapping */
	void *gbuf;    /* local member 0's gather of the threads' parts */
	pthread_t *threads;
	bool *ended;
	int (*fn)(struct fsb_group *g, void *arg);
	void *arg;
	int *rcs;
};

static uint64_t combine_one(enum fsb_group_op op, uint64_t a, uint64_t b)
{
	switch (op) {
	case FSB_GROUP_SUM:
		return a + b;
	case FSB_GROUP_MIN:
		return b < a ? b : a;
	case FSB_GROUP_MAX:
		break;
	}
	return b > a ? b : a;
}

/* The last member to arrive: combine everyone's deposits. Under the lock. */
static void complete(struct local *L)
{
	int worst = 0;
	uint64_t now = fsb_clock_ns();

	for (unsigned k = 0; k < L->size; k++)
		worst = fsb_group_worst(worst, L->dep[k].status);
	/* Members that disagree on the collective is a bug in the runner:
	 * every member fails rather than mixing up their data. */
	if (L->mismatch)
		worst = -EPROTO;
	switch (L->kind) {
	case COLL_BARRIER:
		/* One origin for all: they share the clock, and the moment the
		 * last one arrived is when every member may go. */
		for (unsigned k = 0; k < L->size; k++)
			if (L->dep[k].origin_ns)
				*L->dep[k].origin_ns = now;
		break;
	case COLL_REDUCE:
		for (size_t i = 0; i < L->n && !L->mismatch; i++) {
			uint64_t acc = L->dep[0].vals[i];

			for (unsigned k = 1; k < L->size; k++)
				acc = combine_one(L->how[i], acc, L->dep[k].vals[i]);
			for (unsigned k = 0; k < L->size; k++)
				L->dep[k].vals[i] = acc;
		}
		break;
	case COLL_GATHER:
		for (unsigned k = 0; k < L->size && L->dep[0].all && !L->mismatch; k++)
			memcpy((char *)L->dep[0].all + k * L->len, L->dep[k].mine, L->len);
		break;
	case COLL_BCAST:
		for (unsigned k = 1; k < L->size && !L->mismatch; k++)
			memcpy(L->dep[k].all, L->dep[0].all, L->len);
		break;
	}
	for (unsigned k = 0; k < L->size; k++)
		*L->dep[k].result = worst;
	L->mismatch = false;
	L->arrived = 0;
	L->gen++;
	pthread_cond_broadcast(&L->cv);
}

static int collective(struct fsb_group *g, enum coll_kind kind, struct deposit *d,
		      const enum fsb_group_op *how, size_t n, size_t len)
{
	struct local *L = g->priv;
	int result = 0;

	pthread_mutex_lock(&L->mu);
	d->result = &result;
	L->dep[g->rank] = *d;
	if (!L->arrived) {
		L->kind = kind;
		L->how = how;
		L->n = n;
		L->len = len;
	} else if (L->kind != kind || L->n != n || L->len != len) {
		L->mismatch = true;
	}
	if (++L->arrived == L->size) {
		complete(L);
	} else {
		uint64_t gen = L->gen;

		while (gen == L->gen)
			pthread_cond_wait(&L->cv, &L->mu);
	}
	pthread_mutex_unlock(&L->mu);
	return result;
}

static int local_barrier(struct fsb_group *g, int status, uint64_t *origin_ns)
{
	struct deposit d = { .status = status, .origin_ns = origin_ns };

	return collective(g, COLL_BARRIER, &d, NULL, 0, 0);
}

static int local_reduce(struct fsb_group *g, int status, uint64_t *vals,
			const enum fsb_group_op *how, size_t n)
{
	struct deposit d = { .status = status, .vals = vals };

	return collective(g, COLL_REDUCE, &d, how, n, 0);
}

static int local_gather(struct fsb_group *g, int status, const void *mine, size_t len, void *all)
{
	struct deposit d = { .status = status, .mine = mine, .all = g->rank ? NULL : all };

	return collective(g, COLL_GATHER, &d, NULL, 0, len);
}

static int local_bcast(struct fsb_group *g, int status, void *buf, size_t len)
{
	struct deposit d = { .status = status, .all = buf };

	return collective(g, COLL_BCAST, &d, NULL, 0, len);
}

/*
 * The jobs' setups asked for a global cache drop (--cache drop-all:
 * drop_caches, each having syncfs'ed its filesystem), deferred while the
 * jobs run (fsb_group_local_run): member 0 does it once for all, after
 * every setup, instead of each job once per run.
 */
static int local_settle_cache(struct fsb_group *g, int status)
{
	int s = local_barrier(g, status, NULL);

	if (!g->rank && fsb_cache_take_deferred()) {
		int err = fsb_cache_drop_global();

		if (err)
			fsb_err_errno(err, "cannot drop the kernel's caches");
		s = fsb_group_worst(s, err);
	}
	return local_barrier(g, g->rank ? 0 : s, NULL);
}

static const struct fsb_group_ops local_ops = {
	.name = "local",
	.barrier = local_barrier,
	.reduce = local_reduce,
	.gather = local_gather,
	.bcast = local_bcast,
	.abort = any_abort,
	.settle_cache = local_settle_cache,
};

/* ---- local jobs composed with an outer group ---- */

/*
 * Each collective is three steps: among the threads (the local outcome),
 * local member 0 with the outer group (one call per process, so outer
 * sees one member per process), and back to the threads. The last step
 * carries local member 0's outer status while the others bring 0: the
 * worst of those is the outer one, which already holds every thread's.
 */
static struct fsb_group *inner_of(struct fsb_group *g)
{
	return g->priv;
}

static struct local *local_of(struct fsb_group *g)
{
	return inner_of(g)->priv;
}

static int comp_barrier(struct fsb_group *g, int status, uint64_t *origin_ns)
{
	struct fsb_group *in = inner_of(g);
	int s = local_barrier(in, status, NULL);

	if (!in->rank)
		s = fsb_group_barrier(local_of(g)->outer, s, NULL);
	/* The origin: this process's exit from the whole barrier. */
	return local_barrier(in, in->rank ? 0 : s, origin_ns);
}

static int comp_reduce(struct fsb_group *g, int status, uint64_t *vals,
		       const enum fsb_group_op *how, size_t n)
{
	struct fsb_group *in = inner_of(g);
	int s = local_reduce(in, status, vals, how, n);

	if (!in->rank)
		s = fsb_group_reduce(local_of(g)->outer, s, vals, how, n);
	return local_bcast(in, in->rank ? 0 : s, vals, n * sizeof(*vals));
}

static int comp_gather(struct fsb_group *g, int status, const void *mine, size_t len, void *all)
{
	struct fsb_group *in = inner_of(g);
	struct local *L = local_of(g);
	int s = 0;

	/* Local member 0's room for its threads' parts, kept for the next
	 * gather; the threads agree first on whether it is there. */
	if (!in->rank) {
		void *b = realloc(L->gbuf, len ? L->size * len : 1);

		if (b)
			L->gbuf = b;
		else
			s = -ENOMEM;
	}
	s = local_barrier(in, fsb_group_worst(status, s), NULL);
	if (s) {
		/* A failure (that room among them): every process still calls
		 * the outer gather, with nothing to give; the outer group's
		 * status says why to all. */
		if (!in->rank)
			s = fsb_group_gather(L->outer, s, NULL, 0, NULL);
		return local_barrier(in, in->rank ? 0 : s, NULL);
	}
	s = local_gather(in, s, mine, len, L->gbuf);
	if (!in->rank)
		s = fsb_group_gather(L->outer, s, L->gbuf, L->size * len, g->rank ? NULL : all);
	return local_barrier(in, in->rank ? 0 : s, NULL);
}

static int comp_bcast(struct fsb_group *g, int status, void *buf, size_t len)
{
	struct fsb_group *in = inner_of(g);
	int s = local_barrier(in, status, NULL);

	if (!in->rank)
		s = fsb_group_bcast(local_of(g)->outer, s, buf, len);
	return local_bcast(in, in->rank ? 0 : s, buf, len);
}

static void comp_abort(struct fsb_group *g)
{
	fsb_group_abort(local_of(g)->outer);
}

static void comp_rearm(struct fsb_group *g)
{
	if (!inner_of(g)->rank)
		fsb_group_rearm(local_of(g)->outer);
}

static int comp_settle_cache(struct fsb_group *g, int status)
{
	struct fsb_group *in = inner_of(g);
	int s = local_barrier(in, status, NULL);

	if (!in->rank)
		s = fsb_group_settle_cache(local_of(g)->outer, s);
	return local_barrier(in, in->rank ? 0 : s, NULL);
}

static const struct fsb_group_ops comp_ops = {
	.name = "composed",
	.barrier = comp_barrier,
	.reduce = comp_reduce,
	.gather = comp_gather,
	.bcast = comp_bcast,
	.abort = comp_abort,
	.rearm = comp_rearm,
	.settle_cache = comp_settle_cache,
};

static void *member_main(void *p)
{
	struct fsb_group *g = p;
	struct local *L = g->priv;
	bool run;
	int rc = 0;

	/* Every member starts once all exist: a member that started alone
	 * would wait in its first collective for one that never came. */
	pthread_mutex_lock(&L->mu);
	while (!L->go && !L->cancel)
		pthread_cond_wait(&L->cv, &L->mu);
	run = !L->cancel;
	pthread_mutex_unlock(&L->mu);
	if (run)
		rc = L->fn(L->views ? &L->views[g->rank] : g, L->arg);
	pthread_mutex_lock(&L->mu);
	L->rcs[g->rank] = rc;
	L->ended[g->rank] = true;
	L->finished++;
	pthread_cond_signal(&L->done_cv);
	pthread_mutex_unlock(&L->mu);
	return NULL;
}

static void local_free(struct local *L)
{
	if (!L)
		return;
	if (L->members && L->own_halt)
		halt_unmap(L->members[0].halt);
	pthread_cond_destroy(&L->done_cv);
	pthread_cond_destroy(&L->cv);
	pthread_mutex_destroy(&L->mu);
	free(L->dep);
	free(L->members);
	free(L->views);
	free(L->gbuf);
	free(L->threads);
	free(L->ended);
	free(L);
}

/* n members; their stop word is outer's when composed, else a new one. */
static struct local *local_new(unsigned n, struct fsb_group *outer)
{
	struct local *L = calloc(1, sizeof(*L));
	pthread_condattr_t ca;
	atomic_int *halt;

	if (!L)
		return NULL;
	pthread_mutex_init(&L->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&L->cv, NULL);
	pthread_cond_init(&L->done_cv, &ca);
	pthread_condattr_destroy(&ca);
	L->size = n;
	L->dep = calloc(n, sizeof(*L->dep));
	L->members = calloc(n, sizeof(*L->members));
	L->threads = calloc(n, sizeof(*L->threads));
	L->ended = calloc(n, sizeof(*L->ended));
	L->outer = outer;
	if (outer)
		L->views = calloc(n, sizeof(*L->views));
	L->own_halt = !outer;
	halt = !L->members ? NULL : outer ? outer->halt : halt_map();
	if (!L->dep || !L->members || !L->threads || !L->ended || !halt || (outer && !L->views)) {
		if (L->own_halt)
			halt_unmap(halt);
		free(L->members);
		L->members = NULL;
		local_free(L);
		return NULL;
	}
	for (unsigned k = 0; k < n; k++) {
		L->members[k] = (struct fsb_group){
			.ops = &local_ops,
			.rank = k,
			.size = n,
			.local_rank = k,
			.halt = halt,
			.priv = L,
		};
		if (outer)
			L->views[k] = (struct fsb_group){ .ops = &comp_ops,
							  .rank = outer->rank * n + k,
							  .size = outer->size * n,
							  .local_rank = k,
							  .halt = halt,
							  .priv = &L->members[k] };
	}
	return L;
}

/* The calling thread while the members run: forward stop signals. */
static void coordinate(struct local *L)
{
	struct timespec until;

	pthread_mutex_lock(&L->mu);
	while (L->finished < L->size) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += WAKE_PERIOD_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&L->done_cv, &L->mu, &until);
		if (!fsb_stop_requested())
			continue;
		for (unsigned k = 0; k < L->size; k++)
			if (!L->ended[k])
				fsb_signals_wake(L->threads[k]);
	}
	pthread_mutex_unlock(&L->mu);
}

static int run_members(struct fsb_group *outer, unsigned n,
		       int (*fn)(struct fsb_group *g, void *arg), void *arg, int *rcs)
{
	struct local *L;
	unsigned made = 0;
	int err = 0;

	if (!n)
		return -EINVAL;
	L = local_new(n, outer);
	if (!L) {
		fsb_err("cannot set up %u jobs: out of memory", n);
		return -ENOMEM;
	}
	L->fn = fn;
	L->arg = arg;
	L->rcs = rcs;
	err = fsb_signals_wake_install();
	if (err) {
		fsb_err_errno(err, "cannot set up %u jobs", n);
		local_free(L);
		return err;
	}
	for (; made < n; made++) {
		int r = pthread_create(&L->threads[made], NULL, member_main, &L->members[made]);

		if (r) {
			err = -r;
			fsb_err_errno(err, "cannot start job %u of %u", made, n);
			break;
		}
	}
	pthread_mutex_lock(&L->mu);
	if (err)
		L->cancel = true;
	else
		L->go = true;
	pthread_cond_broadcast(&L->cv);
	pthread_mutex_unlock(&L->mu);
	if (!err)
		coordinate(L);
	for (unsigned k = 0; k < made; k++)
		pthread_join(L->threads[k], NULL);
	local_free(L);
	return err;
}

int fsb_group_local_run(unsigned n, int (*fn)(struct fsb_group *g, void *arg), void *arg, int *rcs)
{
	int err;

	/* One global cache drop (drop-all) per run for all the jobs
	 * (local_settle_cache). */
	fsb_cache_defer_global(true);
	err = run_members(NULL, n, fn, arg, rcs);
	fsb_cache_defer_global(false);
	return err;
}

int fsb_group_compose_run(struct fsb_group *outer, unsigned n,
			  int (*fn)(struct fsb_group *g, void *arg), void *arg, int *rcs)
{
	return run_members(outer, n, fn, arg, rcs);
}
