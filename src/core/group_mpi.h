/*
 * The job group over MPI ranks (core/group.h): one member per process,
 * built only into fsbench-mpi (`make mpi`, mpicc); the single-process
 * fsbench neither compiles nor links this.
 *
 * Every collective first exchanges each rank's status (an allgather), so
 * that every rank folds the same worst status in rank order and a failing
 * rank makes all stop at the next collective: cooperative abort, never
 * MPI_Abort. Waiting polls a non-blocking request with short sleeps, so
 * that ranks waiting at a barrier leave the CPU to those still working
 * (several ranks per core when oversubscribed).
 *
 * The stop word (group.h) is this process's; a watcher thread carries a
 * raise (--stonewall, --deadline, a failing rank's abort) to every other
 * rank within a few milliseconds, tagged with the run it belongs to (the
 * rearm count), so that a raise that arrives late never stops the next
 * run. This needs MPI_THREAD_MULTIPLE (Open MPI has it); without it the
 * raise stays in its rank and the others stop at the next collective.
 *
 * A stop signal is a raise too (the watcher sends it), and bounds every
 * wait: a rank that a stop reached abandons a request still pending a
 * short grace later, since a rank it waits for may be dead (SIGKILL) or
 * hung. The group is then broken: later collectives return -EINTR at
 * once, so the runner's cleanup runs (rank 0 removes the whole scratch
 * directory, a dead rank's files too), and MPI is left unfinalized.
 */
#ifndef FSB_CORE_GROUP_MPI_H
#define FSB_CORE_GROUP_MPI_H
#include <stdbool.h>
#include <stdint.h>

#include "core/group.h"

#define FSB_MPI_HOST_MAX 256

struct fsb_mpi_world {
	struct fsb_group g;		 /* this rank's handle: g.rank, g.size */
	char (*hosts)[FSB_MPI_HOST_MAX]; /* every rank's host name */
	unsigned node_rank;		 /* this rank among those of its host */
	unsigned ranks_per_node;	 /* the fewest ranks any host has */
	unsigned nodes;			 /* hosts */
	bool watcher;			 /* raises reach the other ranks at once */
	char library[256];		 /* MPI_Get_library_version, first line */
	void *priv;
};

/*
 * MPI_Init_thread (asking for MPI_THREAD_MULTIPLE), then the group: the
 * host names, the per-host communicator (MPI_Comm_split_type, shared
 * memory) whose rank 0 drops the kernel's caches for its host, the stop
 * word and its watcher. Returns 0 or -errno (described); on failure MPI
 * is finalized (or was never initialised).
 */
int fsb_mpi_init(int *argc, char ***argv, struct fsb_mpi_world *w);

/*
 * Every rank's mine (a hash of what it was asked to do) gathered: the
 * ranks whose value differs from rank 0's, listed in out ("1, 3").
 * Returns how many differ, or -errno. A collective.
 */
int fsb_mpi_differ(struct fsb_mpi_world *w, uint64_t mine, char *out, size_t len);

/*
 * Stop the watcher, drain what it was sent, free everything and
 * MPI_Finalize. Every rank calls it (a collective). After a stop signal
 * made a rank abandon a collective (a rank it waited for is gone, or
 * never came within the grace), the barriers are skipped and MPI is not
 * finalized, which could wait for the missing rank: false, and the
 * caller must end the process at once (_exit, see main_mpi.c).
 */
bool fsb_mpi_finalize(struct fsb_mpi_world *w);

#endif
