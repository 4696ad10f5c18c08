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
 *
 * A seeker never prints: what failed (the step, the offset, the errno, or
 * what was wrong with a chunk) goes in its slot, and the parent describes
 * the first failure in one line. The runner can then hold that line back
 * (a grown attempt out of space), and several seekers failing at once
 * still make one message.
 */
#include "device/cache.h"
#include "util/error.h"
#include "util/io.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/spawn.h"
#include "workloads/blockfile.h"

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

/* The step a seeker failed in. */
enum seeker_step {
	STEP_NONE,
	STEP_ALLOC,
	STEP_OPEN,
	STEP_GATE,
	STEP_SEEK,
	STEP_READ,
	STEP_VERIFY,
	STEP_WRITE,
	STEP_FSYNC,
};

struct seeker_slot {
	uint64_t ops, bytes;
	int err;      /* -errno of the first failure, 0 if fine */
	int step;     /* enum seeker_step of that failure */
	uint64_t off; /* its offset (seek, read, verify, write) */
	char why[64]; /* verify: what is wrong with the chunk */
	struct fsb_hist hist;
};

struct seeks_priv {
	struct seeker_slot *slots;
	size_t map_bytes;
	pid_t pid[MAX_SEEKERS];
	unsigned nkids;
	int gate; /* write end; closing it starts the seekers */
	bool armed;
	bool done; /* the run completed: every chunk is whole */
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

/* Record a seeker's failure in its slot; returns the exit status 1. */
static int seeker_failed(struct seeker_slot *slot, enum seeker_step step, int err, uint64_t off)
{
	slot->err = err;
	slot->step = step;
	slot->off = off;
	return 1;
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
	const char *bad;
	ssize_t n;
	int fd, err = 0, flags = O_RDWR | O_CLOEXEC;

	fsb_hist_init(&slot->hist);
	if (!buf)
		return seeker_failed(slot, STEP_ALLOC, -ENOMEM, 0);
	if ((err = fsb_scratch_path(ctx->dir, FSB_BLOCKFILE_NAME, path, sizeof(path))))
		return seeker_failed(slot, STEP_OPEN, err, 0);
	/* As fsb_blockfile_open, which would describe a failure itself. */
	fd = open(path, flags | fsb_cache_open_flags(ctx->cfg->cache, FSB_CACHE_IO_BLOCK));
	if (fd < 0)
		return seeker_failed(slot, STEP_OPEN, -errno, 0);
	/* Wait for the gate: EOF when the parent closes its end. */
	while ((n = read(gate, &c, 1)) < 0 && errno == EINTR)
		;
	if (n < 0)
		err = seeker_failed(slot, STEP_GATE, -errno, 0);
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
			err = seeker_failed(slot, STEP_SEEK, -errno, off);
			break;
		}
		got = fsb_read_full(fd, buf, chunk);
		if (got != (ssize_t)chunk) {
			/* 0: a short read, the file ended (no errno). */
			err = seeker_failed(slot, STEP_READ, got < 0 ? (int)got : 0, off);
			break;
		}
		if ((bad = fsb_block_check(buf, chunk, off))) {
			snprintf(slot->why, sizeof(slot->why), "%s", bad);
			err = seeker_failed(slot, STEP_VERIFY, -EIO, off);
			break;
		}
		if ((r & 0xff) < 26) { /* 26/256 ~ 10%: dirty and write back */
			fsb_block_stamp(buf, chunk, off, fsb_block_gen(buf) + 1);
			if (lseek(fd, (off_t)off, SEEK_SET) < 0) {
				err = seeker_failed(slot, STEP_SEEK, -errno, off);
				break;
			}
			if ((err = fsb_write_full(fd, buf, chunk))) {
				err = seeker_failed(slot, STEP_WRITE, err, off);
				break;
			}
		}
		fsb_hist_add(&slot->hist, fsb_clock_ns() - t0);
		slot->ops++;
		slot->bytes += chunk;
	}
	/* The written-back chunks reach the file before the seeker ends. */
	if (!err && fsync(fd) < 0)
		err = seeker_failed(slot, STEP_FSYNC, -errno, 0);
	close(fd);
	free(buf);
	return err ? 1 : 0;
}

/*
 * The one line for a failed seeker: the step, the file, the offset, why.
 * Returns the error to pass up (ENOSPC stays ENOSPC, for the runner).
 */
static int describe_seeker(const struct fsb_ctx *ctx, unsigned idx, const struct seeker_slot *slot,
			   int status, unsigned nfailed)
{
	static const char *const verb[] = {
		[STEP_OPEN] = "open",		[STEP_SEEK] = "seek in", [STEP_READ] = "read",
		[STEP_WRITE] = "write back to", [STEP_FSYNC] = "flush",
	};
	char path[4096], others[48] = "";
	unsigned long long off = (unsigned long long)slot->off;
	int err = slot->err;

	/* A stop (SIGINT/SIGTERM) killed the seekers too: not an error. */
	if (fsb_stop_requested())
		return -EINTR;
	fsb_scratch_path(ctx->dir, FSB_BLOCKFILE_NAME, path, sizeof(path));
	if (nfailed > 1)
		snprintf(others, sizeof(others), " (and %u other seekers)", nfailed - 1);
	switch (slot->step) {
	case STEP_NONE:
		fsb_err("seeks: seeker %u died (status %d)%s", idx, status, others);
		return -ECHILD;
	case STEP_ALLOC:
		fsb_err("seeks: seeker %u: out of memory%s", idx, others);
		return err;
	case STEP_GATE:
		fsb_err_errno(err, "seeks: seeker %u cannot wait for the start%s", idx, others);
		return err;
	case STEP_VERIFY:
		fsb_err("seeks: seeker %u found a data mismatch in '%s' at offset %llu%s: %s", idx,
			path, off, others, slot->why);
		return err;
	case STEP_READ:
		if (!err) {
			fsb_err("seeks: seeker %u cannot read '%s' at offset %llu%s: unexpected end "
				"of file",
				idx, path, off, others);
			return -EIO;
		}
		break;
	case STEP_OPEN:
	case STEP_FSYNC:
		fsb_err_errno(err, "seeks: seeker %u cannot %s '%s'%s", idx, verb[slot->step], path,
			      others);
		return err;
	default:
		break;
	}
	fsb_err_errno(err, "seeks: seeker %u cannot %s '%s' at offset %llu%s", idx,
		      verb[slot->step], path, off, others);
	return err;
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
	p->slots = mmap(NULL, p->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
			0);
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

	int first_status = 0;
	unsigned first = 0, nfailed = 0;

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
			if (!nfailed++) {
				first = i;
				first_status = status;
			}
		}
	}
	/* One line, for the first seeker that failed: the others most likely
	 * met the same fault. */
	if (nfailed)
		return describe_seeker(ctx, first, &p->slots[first], first_status, nfailed);
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
		fsb_cleanup_unlinkat(AT_FDCWD, path, 0);
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
	.title =
		"random seeks: --seekers processes share --seeks lseek+read of a chunk, 10% written back",
	.work_unit = FSB_WORK_OPS,
	.initial_work = seeks_start,
	.max_work = seeks_max,
	.work_granule = 64,
	.priv_size = sizeof(struct seeks_priv),
	.setup = seeks_setup,
	.run = seeks_run,
	.teardown = seeks_teardown,
};
