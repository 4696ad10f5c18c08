/*
 * Random seeks (bonnie's "Seeks" column): --seekers processes share the
 * work of --seeks random lseek+read of one chunk each; one in ten chunks
 * read is dirtied (generation bumped) and written back in place.
 *
 * The seekers are forked in setup and wait on a pipe, so fork and exec
 * costs stay outside the clock; run opens the gate by closing the pipe and
 * waits for all of them, which puts their CPU time (RUSAGE_CHILDREN) in the
 * test's %CPU. Each seeker has its own file descriptor (its own offset, as
 * in bonnie) and writes its counts and latency histogram into a shared
 * anonymous mapping that the parent merges.
 */
#include "workloads/blockfile.h"
#include "util/error.h"
#include "util/io.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SEEKERS 64

struct seeker_slot {
	uint64_t ops, bytes;
	int err;                /* -errno of the first failure, 0 if fine */
	struct fsb_hist hist;
};

struct seeks_priv {
	struct seeker_slot *slots;
	size_t map_bytes;
	pid_t pid[MAX_SEEKERS];
	unsigned nkids;
	int gate;               /* write end; closing it starts the seekers */
	bool armed;
	bool done;              /* the run completed: every chunk is whole */
};

static uint64_t seeks_start(const struct fsb_ctx *ctx)
{
	return ctx->cfg->seeks;
}

/*
 * Seeks need no space, except on a copy-on-write filesystem, where each
 * chunk written back (one seek in ten, 26/256) takes a new chunk until the
 * transaction commits: count one in eight to be safe.
 */
static uint64_t seeks_max(const struct fsb_ctx *ctx)
{
	uint64_t n;

	if (!ctx->cow)
		return 0;
	n = fsb_scratch_space(ctx->dir, 0) / ctx->cfg->chunk_bytes * 8;
	return n > ctx->cfg->seeks ? n : ctx->cfg->seeks;
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* The body of one seeker process; its return value is its exit status. */
static int seeker(struct fsb_ctx *ctx, struct seeker_slot *slot, int gate, unsigned idx,
		  unsigned nkids, uint64_t nseeks, uint64_t nchunks)
{
	size_t chunk = ctx->cfg->chunk_bytes;
	uint64_t rnd = (ctx->cfg->seed + 1) * 0x9e3779b97f4a7c15ull ^
		       ((uint64_t)idx << 32 | ctx->run_index);
	char path[4096], c;
	void *buf = fsb_block_buf_alloc(ctx->cfg);
	int fd, err = 0;

	fsb_hist_init(&slot->hist);
	if (!buf)
		return 1;
	fd = fsb_blockfile_open(ctx, "seeks", O_RDWR);
	if (fd < 0) {
		slot->err = fd;
		return 1;
	}
	fsb_scratch_path(ctx->dir, FSB_BLOCKFILE_NAME, path, sizeof(path));
	/* Wait for the gate: EOF when the parent closes its end. */
	while (read(gate, &c, 1) < 0 && errno == EINTR)
		;
	for (uint64_t i = 0; i < nseeks && !err; i++) {
		/*
		 * Seeker idx owns the chunks idx, idx+n, idx+2n, ...: offsets are
		 * still random over the whole file, but no two seekers touch one
		 * chunk, so a read never overlaps another seeker's write-back and
		 * every chunk read can be verified strictly.
		 */
		uint64_t r = next_rand(&rnd);
		uint64_t off = ((r >> 8) % (nchunks / nkids) * nkids + idx) * chunk;
		uint64_t t0 = fsb_clock_ns();
		ssize_t got;

		if (lseek(fd, (off_t)off, SEEK_SET) < 0) {
			err = -errno;
			break;
		}
		got = fsb_read_full(fd, buf, chunk);
		if (got != (ssize_t)chunk) {
			err = got < 0 ? (int)got : -EIO;
			break;
		}
		err = fsb_block_verify("seeks", path, buf, chunk, off);
		if (err)
			break;
		if ((r & 0xff) < 26) { /* 26/256 ~ 10%: dirty and write back */
			fsb_block_stamp(buf, chunk, off, fsb_block_gen(buf) + 1);
			if (lseek(fd, (off_t)off, SEEK_SET) < 0)
				err = -errno;
			else
				err = fsb_write_full(fd, buf, chunk);
			if (err)
				break;
		}
		fsb_hist_add(&slot->hist, fsb_clock_ns() - t0);
		slot->ops++;
		slot->bytes += chunk;
	}
	/* The written-back chunks reach the file before the seeker ends. */
	if (!err && fsync(fd) < 0)
		err = -errno;
	/* The parent describes the failure (fsb_block_verify described -EIO):
	 * the runner may forgive running out of space, and only the parent's
	 * messages can be held back for that. */
	slot->err = err;
	close(fd);
	free(buf);
	return err ? 1 : 0;
}

static int seeks_setup(struct fsb_ctx *ctx, void *priv)
{
	struct seeks_priv *p = priv;
	const struct fsb_config *cfg = ctx->cfg;
	unsigned n = cfg->seekers ? cfg->seekers : 1;
	uint64_t size = fsb_scratch_file_size(ctx->dir, FSB_BLOCKFILE_NAME), nchunks;
	int pipefd[2], err;

	p->gate = -1;
	if (n > MAX_SEEKERS)
		n = MAX_SEEKERS;
	if (size < cfg->size_bytes)
		size = cfg->size_bytes;
	err = fsb_blockfile_prepare(ctx, "seeks", size);
	if (err)
		return err;
	nchunks = size / cfg->chunk_bytes;
	if (nchunks < n)
		n = (unsigned)nchunks;
	p->map_bytes = n * sizeof(struct seeker_slot);
	p->slots = mmap(NULL, p->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	if (p->slots == MAP_FAILED) {
		p->slots = NULL;
		return -errno;
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	for (unsigned i = 0; i < n; i++) {
		pid_t parent = getpid();
		uint64_t share = ctx->work / n + (i < ctx->work % n);
		pid_t pid = fork();

		if (pid < 0) {
			err = -errno;
			fsb_err_errno(err, "seeks: cannot fork seeker %u", i);
			break;
		}
		if (pid == 0) {
			/* Die with the parent, even by SIGKILL; stop on the
			 * terminal's SIGINT like it. */
			fsb_child_die_with_parent(parent);
			fsb_signals_default();
			close(pipefd[1]);
			_exit(seeker(ctx, &p->slots[i], pipefd[0], i, n, share, nchunks));
		}
		p->pid[p->nkids++] = pid;
	}
	close(pipefd[0]);
	p->gate = pipefd[1];
	p->armed = true;
	return err;
}

static void kill_seekers(struct seeks_priv *p)
{
	for (unsigned i = 0; i < p->nkids; i++) {
		if (p->pid[i] > 0) {
			kill(p->pid[i], SIGKILL);
			while (waitpid(p->pid[i], NULL, 0) < 0 && errno == EINTR)
				;
			p->pid[i] = 0;
		}
	}
}

static int seeks_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	struct seeks_priv *p = priv;
	int err = 0;

	close(p->gate);
	p->gate = -1;
	for (unsigned i = 0; i < p->nkids; i++) {
		int status;

		while (waitpid(p->pid[i], &status, 0) < 0) {
			if (errno != EINTR || fsb_stop_requested()) {
				kill_seekers(p);
				return -EINTR;
			}
		}
		p->pid[i] = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			int e = p->slots[i].err;

			if (!err)
				err = e ? e : -ECHILD;
			if (!e)
				fsb_err("seeks: seeker %u died (status %d)", i, status);
			else if (e != -EIO)
				fsb_err_errno(e, "seeks: seeker %u failed on '%s/%s'", i, ctx->dir,
					      FSB_BLOCKFILE_NAME);
		}
	}
	if (err)
		return err;
	for (unsigned i = 0; i < p->nkids; i++) {
		out->ops += p->slots[i].ops;
		out->bytes += p->slots[i].bytes;
		fsb_hist_merge(out->hist, &p->slots[i].hist);
	}
	if (fsb_stop_requested())
		return -EINTR;
	p->done = true;
	return 0;
}

static void seeks_teardown(struct fsb_ctx *ctx, void *priv)
{
	struct seeks_priv *p = priv;
	char path[4096];

	/* A write-back cut short (out of space on a copy-on-write
	 * filesystem) can leave a torn chunk: the next setup remakes it. */
	if (p->armed && !p->done &&
	    !fsb_scratch_path(ctx->dir, FSB_BLOCKFILE_NAME, path, sizeof(path)))
		unlink(path);
	if (!p->armed && !p->slots)
		return;
	if (p->gate >= 0)
		close(p->gate);
	p->gate = -1;
	kill_seekers(p);
	if (p->slots)
		munmap(p->slots, p->map_bytes);
	p->slots = NULL;
	p->armed = false;
}

const struct fsb_workload_ops fsb_wl_seeks = {
	.name = "seeks",
	.family = "throughput",
	.title = "random seeks: --seekers processes share --seeks lseek+read of a chunk, 10% written back",
	.work_unit = FSB_WORK_OPS,
	.initial_work = seeks_start,
	.max_work = seeks_max,
	.work_granule = 64,
	.priv_size = sizeof(struct seeks_priv),
	.setup = seeks_setup,
	.run = seeks_run,
	.teardown = seeks_teardown,
};
