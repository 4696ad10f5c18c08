/*
 * fsbench-mpi: fsbench's command table run by every MPI rank, the run's
 * tests across all of them (core/run.h's world: the MPI group of
 * core/group_mpi.h, composed with each rank's --jobs). Rank 0 alone
 * writes to standard output and describes errors; the others' standard
 * output goes nowhere and their errors reach rank 0 through the group.
 * Only `run` (and --help, --version) runs on more than one rank: the other
 * commands own devices and mounts, which N copies at once must not touch.
 */
#define FSB_MAIN_NO_ENTRY
#include "main.c"

#include "core/group_mpi.h"
#include "core/run.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * What this rank was asked to do: a 64-bit FNV-1a hash of its arguments
 * (not argv[0]: the same binary may sit at other paths on other hosts)
 * and its working directory (what relative paths mean). mpirun's MPMD
 * form (A : B) can give ranks different ones; the runner would silently
 * use rank 0's scratch directory and plan for all.
 */
static uint64_t asked_hash(int argc, char **argv)
{
	char cwd[PATH_MAX];
	uint64_t h = 14695981039346656037ULL;
	const char *s;

	/* Each string with its terminating NUL: "a b" is not "ab". */
	for (int i = 1; i <= argc; i++) {
		s = i < argc ? argv[i] : getcwd(cwd, sizeof(cwd)) ? cwd : "";
		do
			h = (h ^ (unsigned char)*s) * 1099511628211ULL;
		while (*s++);
	}
	return h;
}

/* Whether argv runs `run` (the command word, or none: run is implied). */
static bool runs_run(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-')
		return true;
	return !strcmp(argv[1], "run") || !fsb_command_find(argv[1]);
}

int main(int argc, char **argv)
{
	struct fsb_mpi_world w;
	struct fsb_run_world rw;
	const char **hosts = NULL;
	struct fsb_err_scope quiet;
	int rc;

	if (fsb_mpi_init(&argc, &argv, &w))
		return FSB_EXIT_FAIL;
	if (w.g.rank) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		/* Nothing on standard output but rank 0's, no error but the
		 * one rank 0 says (a usage error is every rank's: once). */
		if (fd >= 0) {
			fflush(stdout);
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
		fsb_err_capture_begin(&quiet, NULL, true);
	}
	if (w.g.size > 1) {
		char differ[256];
		int n = fsb_mpi_differ(&w, asked_hash(argc, argv), differ, sizeof(differ));

		if (n > 0) {
			fsb_err("arguments differ between ranks: rank%s %s differ%s from rank 0 "
				"(every rank must run the same command in the same directory)",
				n > 1 ? "s" : "", differ, n > 1 ? "" : "s");
			rc = FSB_EXIT_USAGE;
			goto out;
		}
	}
	if (w.g.size > 1 && !runs_run(argc, argv)) {
		fsb_err("fsbench-mpi runs 'run' across ranks; use fsbench for '%s'", argv[1]);
		rc = FSB_EXIT_USAGE;
		goto out;
	}
	hosts = calloc(w.g.size, sizeof(*hosts));
	if (!hosts) {
		fsb_err("out of memory");
		rc = FSB_EXIT_FAIL;
		goto out;
	}
	for (unsigned k = 0; k < w.g.size; k++)
		hosts[k] = w.hosts[k];
	rw = (struct fsb_run_world){
		.group = &w.g,
		.hosts = hosts,
		.nodes = w.nodes,
		.ranks_per_node = w.ranks_per_node,
		.library = w.library,
		.watcher = w.watcher,
	};
	fsb_run_set_world(&rw);
	rc = fsb_main(argc, argv);
	fsb_run_set_world(NULL);
out:
	if (w.g.rank)
		fsb_err_capture_end(&quiet, 0);
	free(hosts);
	if (!fsb_mpi_finalize(&w)) {
		/*
		 * A stop abandoned a collective: this rank's files are removed
		 * (the runner's cleanup ran) and MPI cannot be finalized
		 * without waiting for a rank that may be gone. Not MPI_Abort:
		 * it prints a banner of its own and makes mpirun kill ranks
		 * that may still be removing their files. An exit without
		 * MPI_Finalize returns at once; mpirun (Open MPI 4.1) then
		 * ends the job (SIGTERM, then SIGKILL, to the other ranks) and
		 * exits non-zero. _exit: no library destructor that waits.
		 */
		fflush(NULL);
		_exit(rc ? rc : FSB_EXIT_FAIL);
	}
	return rc;
}
