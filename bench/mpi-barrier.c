/*
 * mpi-barrier: what fsbench-mpi's fences cost, for bench/mpi.sh. Every
 * rank runs N rounds of the collectives the runner does around one
 * measured run (barrier after the setups, the cache settle, the start
 * gate, the end barrier, the reduce of the work and times, the gather of
 * the per-member records, the histogram's reduce), through the MPI group,
 * or with --jobs J through local jobs composed with it. Rank 0 prints one
 * line: "ranks=R jobs=J barrier_us=B run_fences_us=F" (the mean of one
 * barrier, and of one run's set of fences).
 *
 *   mpirun -np R build/bench/mpi-barrier [--jobs J] [--rounds N]
 */
#include "core/group.h"
#include "core/group_mpi.h"
#include "stats/clock.h"
#include "stats/hist.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runner's record and histogram sizes (core/runner.c). */
#define REC_BYTES 40
#define HIST_WORDS (sizeof(struct fsb_hist) / sizeof(uint64_t))

static unsigned rounds = 2000;

struct out {
	double barrier_us, fences_us;
};

static int member(struct fsb_group *g, void *arg)
{
	static const enum fsb_group_op how5[5] = { FSB_GROUP_SUM, FSB_GROUP_SUM, FSB_GROUP_MIN,
						   FSB_GROUP_MAX, FSB_GROUP_MAX };
	static enum fsb_group_op hist_how[HIST_WORDS];
	struct out *o = arg;
	char rec[REC_BYTES] = { 0 }, *all = NULL;
	uint64_t v[5], hist[HIST_WORDS], t0, t1, origin;

	if (!g->rank)
		all = calloc(g->size, REC_BYTES);
	fsb_group_barrier(g, 0, NULL);
	t0 = fsb_clock_ns();
	for (unsigned i = 0; i < rounds; i++)
		fsb_group_barrier(g, 0, NULL);
	t1 = fsb_clock_ns();
	if (!g->rank)
		o->barrier_us = (double)(t1 - t0) / 1e3 / rounds;
	fsb_group_barrier(g, 0, NULL);
	t0 = fsb_clock_ns();
	for (unsigned i = 0; i < rounds; i++) {
		memset(v, 0, sizeof(v));
		memset(hist, 0, sizeof(hist));
		fsb_group_barrier(g, 0, NULL);
		fsb_group_settle_cache(g, 0);
		fsb_group_rearm(g);
		fsb_group_barrier(g, 0, &origin);
		fsb_group_barrier(g, 0, NULL);
		fsb_group_reduce(g, 0, v, how5, 5);
		fsb_group_gather(g, 0, rec, sizeof(rec), all);
		fsb_group_reduce(g, 0, hist, hist_how, HIST_WORDS);
	}
	t1 = fsb_clock_ns();
	if (!g->rank)
		o->fences_us = (double)(t1 - t0) / 1e3 / rounds;
	free(all);
	return 0;
}

int main(int argc, char **argv)
{
	struct fsb_mpi_world w;
	struct out o = { 0 };
	unsigned jobs = 1;
	int rcs[64];

	if (fsb_mpi_init(&argc, &argv, &w))
		return 1;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--jobs"))
			jobs = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--rounds"))
			rounds = (unsigned)atoi(argv[i + 1]);
	}
	if (jobs < 1 || jobs > 64)
		jobs = 1;
	if (jobs == 1)
		member(&w.g, &o);
	else
		fsb_group_compose_run(&w.g, jobs, member, &o, rcs);
	if (!w.g.rank)
		printf("ranks=%u jobs=%u barrier_us=%.1f run_fences_us=%.1f\n", w.g.size, jobs,
		       o.barrier_us, o.fences_us);
	fsb_mpi_finalize(&w);
	return 0;
}
