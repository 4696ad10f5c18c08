/*
 * The job group over MPI ranks. See group_mpi.h. Built with mpicc only.
 */
#include "core/group_mpi.h"
#include "device/cache.h"
#include "stats/clock.h"
#include "util/error.h"
#include "util/signals.h"
#include "workloads/workload.h"

#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* The watcher's period: how late another rank may hear a raise. */
#define WATCH_PERIOD_NS 2000000L
/* The tag of a raise on the watcher's communicator. */
#define TAG_HALT 17
/*
 * How long a rank that a stop signal reached still waits for a request.
 * The others are told at once (the watcher raises the stop word), so
 * ranks that are alive meet within it and all stop together; a rank that
 * is dead (SIGKILL) never comes, and the wait is then abandoned. mpirun
 * sends SIGKILL a second after its SIGTERM (odls_base_sigkill_timeout):
 * the grace and the rank's cleanup must both fit in that second.
 */
#define STOP_GRACE_NS 300000000ULL

struct mpi_priv {
	MPI_Comm comm;	   /* the collectives (a duplicate of the world) */
	MPI_Comm node;	   /* the ranks of this host */
	MPI_Comm wcomm;	   /* the watcher's messages */
	atomic_uint epoch; /* runs rearmed so far */
	atomic_bool stop;  /* the watcher ends */
	/* A request was abandoned: the collectives no longer match across
	 * ranks, so no later one waits and MPI is never finalized. */
	atomic_bool broken;
	_Atomic uint64_t stop_seen_ns; /* when a wait first saw a stop; 0: not yet */
	pthread_t watcher;
	bool watching;
	int *pairs; /* 2 ints per rank: status and length */
	size_t room;
	void *scratch; /* every rank's values for a reduce */
};

static struct mpi_priv *P(struct fsb_group *g)
{
	return g->priv;
}

/*
 * Wait for a request without keeping a core busy: test, and sleep a
 * little longer each time up to 100 us. The start gate's skew between
 * ranks is at most that, which is why it is short. After a stop signal
 * the wait lasts until STOP_GRACE_NS after the stop was first seen, then
 * the request is abandoned (it stays posted: a collective cannot be
 * cancelled) and the group is broken. Returns 0 or -EINTR (abandoned).
 */
static int wait_req(struct mpi_priv *p, MPI_Request *r)
{
	long nap = 1000;
	int done = 0;

	for (unsigned spins = 0;; spins++) {
		MPI_Test(r, &done, MPI_STATUS_IGNORE);
		if (done)
			return 0;
		if (atomic_load(&p->broken))
			return -EINTR;
		if (fsb_stop_requested()) {
			uint64_t now = fsb_clock_ns(), none = 0;

			atomic_compare_exchange_strong(&p->stop_seen_ns, &none, now);
			if (now - atomic_load(&p->stop_seen_ns) >= STOP_GRACE_NS) {
				atomic_store(&p->broken, true);
				return -EINTR;
			}
		}
		if (spins > 50) {
			struct timespec ts = { 0, nap };

			nanosleep(&ts, NULL);
			if (nap < 100000)
				nap *= 2;
		}
	}
}

/*
 * The status every collective starts with: each rank's (status, len)
 * gathered by all, folded in rank order. A length that differs between
 * ranks is a bug in the runner: -EPROTO for all rather than mixed data.
 * *same: every rank gave the same len.
 */
static int exchange(struct fsb_group *g, int status, size_t len, bool *same)
{
	struct mpi_priv *p = P(g);
	int mine[2] = { status, (int)len }, worst = 0;
	MPI_Request r;

	*same = false;
	if (atomic_load(&p->broken))
		return fsb_group_worst(status, -EINTR);
	MPI_Iallgather(mine, 2, MPI_INT, p->pairs, 2, MPI_INT, p->comm, &r);
	if (wait_req(p, &r))
		return fsb_group_worst(status, -EINTR);
	*same = true;
	for (unsigned k = 0; k < g->size; k++) {
		worst = fsb_group_worst(worst, p->pairs[2 * k]);
		if (p->pairs[2 * k + 1] != (int)len)
			*same = false;
	}
	return *same ? worst : fsb_group_worst(worst, -EPROTO);
}

static int mpi_barrier(struct fsb_group *g, int status, uint64_t *origin_ns)
{
	bool same;
	int s = exchange(g, status, 0, &same);

	if (origin_ns)
		*origin_ns = fsb_clock_ns();
	return s;
}

static int mpi_reduce(struct fsb_group *g, int status, uint64_t *vals, const enum fsb_group_op *how,
		      size_t n)
{
	struct mpi_priv *p = P(g);
	MPI_Request r;
	uint64_t *all;
	bool same;
	int s;

	/* Everyone's values, combined here alike in every rank: the ops
	 * differ per value, which one MPI_Op cannot say. A rank without the
	 * room says length 0: then no rank exchanges values. */
	if (p->room < n * g->size) {
		void *b = realloc(p->scratch, n * g->size * sizeof(uint64_t));

		if (!b) {
			fsb_err("cannot reduce %zu values across %u ranks: out of memory", n,
				g->size);
			return exchange(g, -ENOMEM, 0, &same);
		}
		p->scratch = b;
		p->room = n * g->size;
	}
	s = exchange(g, status, n, &same);
	if (!same || !n)
		return s;
	all = p->scratch;
	MPI_Iallgather(vals, (int)n, MPI_UINT64_T, all, (int)n, MPI_UINT64_T, p->comm, &r);
	if (wait_req(p, &r))
		return fsb_group_worst(s, -EINTR);
	for (size_t i = 0; i < n; i++) {
		uint64_t acc = all[i];

		for (unsigned k = 1; k < g->size; k++) {
			uint64_t v = all[(size_t)k * n + i];

			switch (how[i]) {
			case FSB_GROUP_SUM:
				acc += v;
				break;
			case FSB_GROUP_MIN:
				acc = v < acc ? v : acc;
				break;
			case FSB_GROUP_MAX:
				acc = v > acc ? v : acc;
				break;
			}
		}
		vals[i] = acc;
	}
	return s;
}

static int mpi_gather(struct fsb_group *g, int status, const void *mine, size_t len, void *all)
{
	MPI_Request r;
	bool same;
	int s = exchange(g, status, len, &same);

	if (!same || !len)
		return s;
	MPI_Igather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, 0, P(g)->comm, &r);
	return wait_req(P(g), &r) ? fsb_group_worst(s, -EINTR) : s;
}

static int mpi_bcast(struct fsb_group *g, int status, void *buf, size_t len)
{
	MPI_Request r;
	bool same;
	int s = exchange(g, status, len, &same);

	if (!same || !len)
		return s;
	MPI_Ibcast(buf, (int)len, MPI_BYTE, 0, P(g)->comm, &r);
	return wait_req(P(g), &r) ? fsb_group_worst(s, -EINTR) : s;
}

static void mpi_abort(struct fsb_group *g)
{
	/* The watcher tells the others. */
	fsb_halt_raise(g->halt, FSB_HALT_ABORT);
}

static void mpi_rearm(struct fsb_group *g)
{
	/* The word first, then the run count: a raise the watcher reads
	 * between the two is still tagged with the run it belongs to. */
	atomic_store(g->halt, FSB_HALT_NONE);
	atomic_fetch_add(&P(g)->epoch, 1);
}

static int mpi_settle_cache(struct fsb_group *g, int status)
{
	struct mpi_priv *p = P(g);
	int asked = fsb_cache_take_deferred(), any = 0, node_rank = 0, err = 0;
	MPI_Request r;

	if (!atomic_load(&p->broken)) {
		MPI_Iallreduce(&asked, &any, 1, MPI_INT, MPI_MAX, p->node, &r);
		if (wait_req(p, &r))
			any = 0;
	}
	MPI_Comm_rank(p->node, &node_rank);
	/* One drop per host, by its first rank; the others wait below. */
	if (any && node_rank == 0 && (err = fsb_cache_drop_global()))
		fsb_err_errno(err, "cannot drop the kernel's caches");
	return mpi_barrier(g, fsb_group_worst(status, err), NULL);
}

static const struct fsb_group_ops mpi_ops = {
	.name = "mpi",
	.barrier = mpi_barrier,
	.reduce = mpi_reduce,
	.gather = mpi_gather,
	.bcast = mpi_bcast,
	.abort = mpi_abort,
	.rearm = mpi_rearm,
	.settle_cache = mpi_settle_cache,
};

/*
 * The watcher: a raise of this rank's stop word goes to every other rank
 * once per run; a raise from another rank for the current run raises
 * ours. A raise tagged with an earlier run is dropped.
 */
static void *watch(void *arg)
{
	struct fsb_group *g = arg;
	struct mpi_priv *p = P(g);
	unsigned told = 0; /* the run whose raise went out (or came in), + 1 */

	while (!atomic_load(&p->stop)) {
		struct timespec ts = { 0, WATCH_PERIOD_NS };
		unsigned ep = atomic_load(&p->epoch);
		int h = atomic_load(g->halt), flag = 0;
		MPI_Status st;

		/* A stop signal stops the others' timed runs too, so that
		 * they reach the next collective within this rank's grace. */
		if (fsb_stop_requested() && h == FSB_HALT_NONE) {
			fsb_halt_raise(g->halt, FSB_HALT_ABORT);
			h = atomic_load(g->halt);
		}
		if (h != FSB_HALT_NONE && ep == atomic_load(&p->epoch) && told != ep + 1 &&
		    !atomic_load(&p->broken)) {
			int msg[2] = { (int)ep, h };

			for (unsigned k = 0; k < g->size; k++) {
				MPI_Request r;

				if (k == g->rank)
					continue;
				MPI_Isend(msg, 2, MPI_INT, (int)k, TAG_HALT, p->wcomm, &r);
				if (wait_req(p, &r))
					break;
			}
			told = ep + 1;
		}
		for (;;) {
			int msg[2];

			MPI_Iprobe(MPI_ANY_SOURCE, TAG_HALT, p->wcomm, &flag, &st);
			if (!flag)
				break;
			MPI_Recv(msg, 2, MPI_INT, st.MPI_SOURCE, TAG_HALT, p->wcomm,
				 MPI_STATUS_IGNORE);
			if ((unsigned)msg[0] == atomic_load(&p->epoch)) {
				fsb_halt_raise(g->halt, (enum fsb_halt)msg[1]);
				told = (unsigned)msg[0] + 1;
			}
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void library_line(char *out, size_t len)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int n = 0;

	MPI_Get_library_version(v, &n);
	v[n < (int)sizeof(v) ? n : (int)sizeof(v) - 1] = '\0';
	v[strcspn(v, "\n,")] = '\0';
	snprintf(out, len, "%s", v);
}

int fsb_mpi_init(int *argc, char ***argv, struct fsb_mpi_world *w)
{
	char host[MPI_MAX_PROCESSOR_NAME] = "";
	int provided = 0, rank = 0, size = 1, nsize = 1, nrank = 0, len = 0, minppn = 0, nodes = 0;
	struct mpi_priv *p;
	void *m;

	memset(w, 0, sizeof(*w));
	if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
		fsb_err("cannot initialise MPI");
		return -EIO;
	}
	p = calloc(1, sizeof(*p));
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	w->hosts = calloc((size_t)size, sizeof(*w->hosts));
	m = mmap(NULL, sizeof(atomic_int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		 0);
	if (!p || !w->hosts || m == MAP_FAILED) {
		fsb_err("cannot set up MPI rank %d: out of memory", rank);
		free(p);
		free(w->hosts);
		if (m != MAP_FAILED)
			munmap(m, sizeof(atomic_int));
		MPI_Finalize();
		return -ENOMEM;
	}
	p->pairs = calloc((size_t)size * 2, sizeof(int));
	atomic_init((atomic_int *)m, FSB_HALT_NONE);
	MPI_Comm_dup(MPI_COMM_WORLD, &p->comm);
	MPI_Comm_dup(MPI_COMM_WORLD, &p->wcomm);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &p->node);
	MPI_Comm_size(p->node, &nsize);
	MPI_Comm_rank(p->node, &nrank);
	/* Non-blocking, like every collective (wait_req). */
	{
		int first = nrank == 0; /* hosts: each host's first rank counts once */
		MPI_Request r[3];

		MPI_Iallreduce(&nsize, &minppn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &r[0]);
		MPI_Iallreduce(&first, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
		MPI_Get_processor_name(host, &len);
		snprintf(w->hosts[rank], FSB_MPI_HOST_MAX, "%s", host);
		MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, w->hosts, FSB_MPI_HOST_MAX,
			       MPI_CHAR, MPI_COMM_WORLD, &r[2]);
		for (int k = 0; k < 3; k++)
			wait_req(p, &r[k]);
	}
	library_line(w->library, sizeof(w->library));
	w->g = (struct fsb_group){ .ops = &mpi_ops,
				   .rank = (unsigned)rank,
				   .size = (unsigned)size,
				   .halt = m,
				   .priv = p };
	w->node_rank = (unsigned)nrank;
	w->ranks_per_node = (unsigned)minppn;
	w->nodes = (unsigned)nodes;
	w->priv = p;
	if (!p->pairs) {
		fsb_err("cannot set up MPI rank %d: out of memory", rank);
		fsb_mpi_finalize(w);
		return -ENOMEM;
	}
	if (provided >= MPI_THREAD_MULTIPLE && size > 1)
		p->watching = !pthread_create(&p->watcher, NULL, watch, &w->g);
	w->watcher = p->watching;
	/* The kernel's caches: one drop per host, after every rank's setup. */
	fsb_cache_defer_global(true);
	return 0;
}

int fsb_mpi_differ(struct fsb_mpi_world *w, uint64_t mine, char *out, size_t len)
{
	struct mpi_priv *p = w->priv;
	uint64_t *all = calloc(w->g.size, sizeof(*all));
	int n = 0, at = 0;
	MPI_Request r;

	if (!all)
		return -ENOMEM;
	out[0] = '\0';
	MPI_Iallgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, p->comm, &r);
	if (wait_req(p, &r)) {
		free(all);
		return -EINTR;
	}
	for (unsigned k = 1; k < w->g.size; k++) {
		if (all[k] == all[0])
			continue;
		if (at >= 0 && (size_t)at < len)
			at += snprintf(out + at, len - (size_t)at, "%s%u", n ? ", " : "", k);
		n++;
	}
	free(all);
	return n;
}

/* A barrier that a stop may abandon (wait_req). */
static void barrier(struct mpi_priv *p)
{
	MPI_Request r;

	if (atomic_load(&p->broken))
		return;
	MPI_Ibarrier(p->comm, &r);
	wait_req(p, &r);
}

bool fsb_mpi_finalize(struct fsb_mpi_world *w)
{
	struct mpi_priv *p = w->priv;
	bool broken;

	if (!p)
		return true;
	if (p->watching) {
		atomic_store(&p->stop, true);
		pthread_join(p->watcher, NULL);
	}
	/* No watcher sends any more: what it sent is now all there is. */
	barrier(p);
	for (;;) {
		int flag = 0, msg[2];
		MPI_Status st;

		if (atomic_load(&p->broken))
			break;
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_HALT, p->wcomm, &flag, &st);
		if (!flag)
			break;
		MPI_Recv(msg, 2, MPI_INT, st.MPI_SOURCE, TAG_HALT, p->wcomm, MPI_STATUS_IGNORE);
	}
	barrier(p);
	broken = atomic_load(&p->broken);
	/* A broken group's communicators still hold abandoned requests:
	 * freeing them, like MPI_Finalize, may wait for ranks that are gone. */
	if (!broken) {
		MPI_Comm_free(&p->node);
		MPI_Comm_free(&p->wcomm);
		MPI_Comm_free(&p->comm);
	}
	munmap((void *)w->g.halt, sizeof(atomic_int));
	free(p->pairs);
	free(p->scratch);
	free(p);
	free(w->hosts);
	w->priv = NULL;
	fsb_cache_defer_global(false);
	if (broken)
		return false;
	MPI_Finalize();
	return true;
}
