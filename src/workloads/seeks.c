/*
 * Random seeks (bonnie's "Seeks" column): --seekers processes share the
 * work of --seeks random reads of one chunk each; one in ten chunks read
 * is dirtied (generation bumped) and written back in place. Each seeker
 * drives its reads and write-backs through the configured I/O engine at
 * the configured queue depth, set up in the seeker itself (an io_uring
 * ring belongs to the process that submits to it); psync at depth 1 is
 * bonnie's loop, a pread(2) per seek (bonnie's lseek+read in one call).
 *
 * The seekers are forked in setup and wait on a pipe, so fork and exec
 * costs stay outside the clock; run opens the gate by closing the pipe and
 * waits for all of them, which puts their CPU time (RUSAGE_CHILDREN) in the
 * test's %CPU, and wait4's rusage in the job's own. Each seeker has its own
 * file descriptor and writes its counts and latency histogram into a
 * shared anonymous mapping that the parent merges. With jobs, each job has
 * its own seekers, on its own file or its own range of a shared one; they
 * read the jobs' stop word (--stonewall, --deadline, a failed job) and
 * stop issuing when it is raised, finishing the seeks in flight.
 *
 * A seeker never prints: what failed (the step, the offset, the errno, or
 * what was wrong with a chunk) goes in its slot, and the parent describes
 * the first failure in one line. The runner can then hold that line back
 * (a grown attempt out of space), and several seekers failing at once
 * still make one message.
 */
#include "device/cache.h"
#include "engines/engine.h"
#include "util/error.h"
#include "util/io.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/size.h"
#include "util/spawn.h"
#include "workloads/blockfile.h"
#include "workloads/names.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SEEKERS 64

/* The step a seeker failed in. */
enum seeker_step {
	STEP_NONE,
	STEP_ALLOC,
	STEP_OPEN,
	STEP_GATE,
	STEP_ENGINE,
	STEP_READ,
	STEP_VERIFY,
	STEP_WRITE,
	STEP_FSYNC,
};

struct seeker_slot {
	uint64_t ops, bytes;
	int err;       /* -errno of the first failure, 0 if fine */
	int step;      /* enum seeker_step of that failure */
	uint64_t off;  /* its offset (read, verify, write) */
	char why[256]; /* verify: what is wrong with the chunk; engine: its error */
	int stopped;   /* told to stop issuing before its share was done */
	struct fsb_hist hist;
};

/* What the parent tells its seekers when it opens the gate (in the
 * mapping, before the slots). */
struct seekers_ctl {
	atomic_int *halt;     /* the jobs' stop word (NULL: none) */
	uint64_t deadline_ns; /* 0: none */
	uint64_t least;	      /* the run's least seeks (fsb_sink.least), 0: none */
	atomic_int quit;      /* the parent stops them: end now, cleanly */
};

struct seeks_priv {
	struct seekers_ctl *ctl;
	struct seeker_slot *slots;
	size_t map_bytes;
	pid_t pid[MAX_SEEKERS];
	unsigned nkids;
	int gate; /* write end; closing it starts the seekers */
	bool armed;
	bool done; /* the run completed: every chunk is whole */
};

/*
 * Seeks need no space, except on a copy-on-write filesystem, where each
 * chunk written back (one seek in ten, 26/256) takes a new chunk until the
 * transaction commits: count one in eight to be safe.
 */
/* How the seekers of a run share the block file. */
struct seeks_bound {
	uint64_t size_bytes; /* the file, in whole chunks: as it is, or as setup makes it */
	uint64_t chunks;     /* its chunks */
	unsigned seekers;    /* --seekers, at most MAX_SEEKERS and one a chunk */
	uint64_t once;	     /* seeks that read every chunk once, by every seeker */
	uint64_t most;	     /* seeks a run can do: once, or any number in passes */
	uint64_t base;	     /* the file before it grows for the work: as it is, or --size */
	bool ready;	     /* passes over the file as it is (no growth needed) */
	bool grows;	     /* in memory, the file grows to hold the work (seeks_bound) */
};

/* The whole chunks of FSB_BLOCKFILE_PASS_MIN and more: a file passes may
 * go over (fsb_blockfile_passes). */
static uint64_t pass_chunks(const struct fsb_config *cfg)
{
	return (FSB_BLOCKFILE_PASS_MIN + cfg->chunk_bytes - 1) / cfg->chunk_bytes;
}

/*
 * At most every chunk once per run (a chunk read again is the page
 * cache's), of the block file as it is or as setup will make it (never
 * smaller than --size), each seeker the same number of chunks; no limit
 * where the page cache is the storage (fsb_blockfile_passes): a seeker
 * then goes over its chunks again, in a new order. On a filesystem in
 * memory a file under FSB_BLOCKFILE_PASS_MIN grows to hold the work, up
 * to that size, and passes go over it from there, as read's does: capped
 * at every chunk of a small file once, seeks on memory, where a chunk
 * costs little, end short of --min-time at the largest work possible. The
 * one computation of
 * max_work, the space a work needs and setup, so that the work the
 * runner allows is the work setup's seekers can do.
 */
static void seeks_bound(const struct fsb_ctx *ctx, struct seeks_bound *b)
{
	const struct fsb_config *cfg = ctx->cfg;
	uint64_t size = fsb_chunkfile_have(ctx, FSB_BLOCKFILE_NAME);
	unsigned n = cfg->seekers ? cfg->seekers : 1;

	if (size < cfg->size_bytes)
		size = cfg->size_bytes;
	b->base = size / cfg->chunk_bytes * cfg->chunk_bytes;
	b->ready = fsb_blockfile_passes(ctx, b->base);
	b->grows = !b->ready && fsb_cache_ram_path(ctx->dir);
	if (b->grows) {
		/* Every seeker the same number of chunks: the work rounded up
		 * to --seekers' chunks (never past the pass size). */
		uint64_t want = pass_chunks(cfg), k = n > MAX_SEEKERS ? MAX_SEEKERS : n;

		if (ctx->work < want)
			want = (ctx->work + k - 1) / k * k;
		if (want * cfg->chunk_bytes > size)
			size = want * cfg->chunk_bytes;
	}
	b->chunks = size / cfg->chunk_bytes;
	b->size_bytes = b->chunks * cfg->chunk_bytes;
	if (n > MAX_SEEKERS)
		n = MAX_SEEKERS;
	if (b->chunks < n)
		n = b->chunks ? (unsigned)b->chunks : 1;
	b->seekers = n;
	b->once = b->chunks / n * n;
	if (!b->once)
		b->once = 1;
	b->most = b->ready || b->grows ? UINT64_MAX / n * n : b->once;
}

/*
 * Seeks need no space, except on a copy-on-write filesystem, where each
 * chunk written back (one seek in ten, 26/256) takes a new chunk until the
 * transaction commits: count one in eight to be safe; and in memory, where
 * the file grows to hold the work (seeks_bound): the work of the chunks
 * the file and the free space hold, any once they reach the pass size.
 */
static uint64_t seeks_fit(const struct fsb_ctx *ctx, const struct fsb_space *share)
{
	uint64_t chunk = ctx->cfg->chunk_bytes, have;
	struct seeks_bound b;

	if (ctx->cow)
		return share->bytes / chunk * 8;
	seeks_bound(ctx, &b);
	if (!b.grows)
		return UINT64_MAX;
	have = b.base / chunk + share->bytes / chunk;
	return have >= pass_chunks(ctx->cfg) ? UINT64_MAX : have;
}

static uint64_t seeks_max(const struct fsb_ctx *ctx)
{
	struct seeks_bound b;

	seeks_bound(ctx, &b);
	return b.most;
}

/*
 * The first attempt: --seeks, but the default (8192) no more than every
 * chunk once, as where no passes are allowed: a run in passes has no
 * other limit, and 8192 chunks of 64 MiB would make runs of minutes
 * (growth takes it on from there). One given is the user's.
 */
static uint64_t seeks_start(const struct fsb_ctx *ctx)
{
	struct seeks_bound b;

	if (ctx->cfg->seeks_given)
		return ctx->cfg->seeks;
	seeks_bound(ctx, &b);
	return ctx->cfg->seeks < b.once ? ctx->cfg->seeks : b.once;
}

/* In passes, any number of seeks needs nothing prepared: the file is
 * there (or setup makes it, whatever the work). */
static uint64_t seeks_ready(const struct fsb_ctx *ctx, uint64_t low, uint64_t high)
{
	struct seeks_bound b;

	(void)low;
	seeks_bound(ctx, &b);
	/* (Not a file that must grow first: that takes space.) */
	return b.ready ? (high < b.most ? high : b.most) : 0;
}

/* The file, when a run of ctx->work seeks goes over its chunks more than
 * once. */
static uint64_t seeks_pass_file(const struct fsb_ctx *ctx)
{
	struct seeks_bound b;

	seeks_bound(ctx, &b);
	return ctx->work > b.once ? b.size_bytes : 0;
}

/* An explicit --seeks above what a run can do is cut: say so, with why. */
static void seeks_cut(const struct fsb_ctx *ctx, uint64_t asked, uint64_t most)
{
	struct seeks_bound b;
	char size[32];

	if (!ctx->cfg->seeks_given)
		return;
	seeks_bound(ctx, &b);
	fsb_size_format_human(b.size_bytes, size, sizeof(size));
	fsb_warn("seeks: --seeks %llu is more than a run can do: %llu seeks a run, every "
		 "chunk of the %s block file once (a chunk read again would come from the "
		 "page cache)",
		 (unsigned long long)asked, (unsigned long long)most, size);
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
	if (slot->step)
		return 1; /* the first failure is the one to tell */
	slot->err = err;
	slot->step = step;
	slot->off = off;
	return 1;
}

/* What a buffer of a seeker holds: the chunk in flight in it. */
struct seek_buf {
	uint64_t off;
	uint64_t start_ns; /* the read's first submission: the unit's start */
	bool busy;	   /* a read or its write-back is in flight */
	bool writeback;	   /* this chunk is dirtied and written back */
	bool write;	   /* read and dirtied: write it back next */
};

/* One seeker: its share, its random stream, its buffers' chunks. */
struct seeker {
	const struct seekers_ctl *ctl;
	struct seeker_slot *slot;
	struct seek_buf *bufs;
	struct fsb_pattern pat; /* the block file's data (--data) */
	/* This seeker's chunks in a random order, each once per run: a chunk
	 * read twice would come from the page cache, not the device. */
	struct fsb_names_perm perm;
	uint64_t k;
	unsigned depth;
	size_t chunk;
	uint64_t rnd, left, nchunks, base;
	uint64_t least; /* issued at least this many, the deadline may stop it */
	unsigned idx, nkids;
	bool verify;
	bool stopping;
};

/* Whether the seeker must stop issuing: the jobs' stop word, or the
 * deadline (which this seeker then raises for the others). */
static bool seeker_halted(struct seeker *s)
{
	return atomic_load_explicit(&s->ctl->quit, memory_order_relaxed) ||
	       fsb_halt_due_short(s->ctl->halt, s->ctl->deadline_ns, s->k < s->least);
}

static int seeker_next(void *arg, struct fsb_io *io)
{
	struct seeker *s = arg;
	struct seek_buf *b = &s->bufs[io->buf_index];
	uint64_t r, off;

	if (b->write) {
		b->write = false;
		io->op = FSB_IO_WRITE;
		io->off = b->off;
		io->len = (uint32_t)s->chunk;
		return FSB_ENGINE_NEXT;
	}
	if (!s->stopping && s->left && seeker_halted(s)) {
		s->stopping = true;
		s->slot->stopped = 1;
	}
	/* Idle, not ended: another buffer may still have a write-back. */
	if (s->stopping || !s->left)
		return FSB_ENGINE_IDLE;
	if (s->k && s->k % s->perm.n == 0) {
		/* Another pass over the chunks (fsb_blockfile_passes)
		 * starts once the last is done, no chunk in flight twice, in
		 * an order of its own. */
		for (unsigned i = 0; i < s->depth; i++)
			if (s->bufs[i].busy)
				return FSB_ENGINE_IDLE;
		fsb_names_perm_init(&s->perm, s->perm.n, next_rand(&s->rnd));
	}
	/*
	 * Seeker idx owns the chunks idx, idx+n, idx+2n, ...: offsets are
	 * still random over the whole file (or the job's range of it), but no
	 * two seekers touch one chunk, so a read never overlaps another
	 * seeker's write-back and every chunk read can be verified strictly.
	 * Within a seeker, each chunk once a pass (max_work keeps a run to
	 * one pass where the file must hold the work), and a pass starts
	 * when the last is done, so none is in flight twice either.
	 */
	r = next_rand(&s->rnd);
	off = s->base +
	      (fsb_names_perm_at(&s->perm, s->k++ % s->perm.n) * s->nkids + s->idx) * s->chunk;
	s->left--;
	b->off = off;
	b->busy = true;
	b->writeback = (r & 0xff) < 26; /* 26/256 ~ 10%: dirty and write back */
	io->op = FSB_IO_READ;
	io->off = off;
	io->len = (uint32_t)s->chunk;
	return FSB_ENGINE_NEXT;
}

static int seeker_done(void *arg, struct fsb_io *io, uint64_t lat_ns)
{
	struct seeker *s = arg;
	struct seek_buf *b = &s->bufs[io->buf_index];
	const char *bad;

	if (io->res != io->len) {
		/* 0: a short read, the file ended (no errno). */
		seeker_failed(s->slot, io->op == FSB_IO_READ ? STEP_READ : STEP_WRITE,
			      io->res < 0 ? (int)io->res : 0, io->off);
		return io->res < 0 ? (int)io->res : -EIO;
	}
	if (io->op == FSB_IO_READ) {
		if (s->verify && (bad = fsb_pattern_check(&s->pat, io->buf, io->off))) {
			snprintf(s->slot->why, sizeof(s->slot->why), "%s", bad);
			seeker_failed(s->slot, STEP_VERIFY, -EIO, io->off);
			return -EIO;
		}
		if (b->writeback) {
			fsb_pattern_stamp(&s->pat, io->buf, io->off,
					  fsb_pattern_gen(&s->pat, io->buf) + 1);
			b->start_ns = io->complete_ns - lat_ns;
			b->write = true;
			return 0;
		}
		b->start_ns = io->complete_ns - lat_ns;
	}
	/* One seek done: its read, and its write-back if it had one. */
	b->busy = false;
	fsb_hist_add(&s->slot->hist, io->complete_ns - b->start_ns);
	s->slot->ops++;
	s->slot->bytes += s->chunk;
	return 0;
}

/* The body of one seeker process; its return value is its exit status. */
static int seeker(struct fsb_ctx *ctx, const struct seekers_ctl *ctl, struct seeker_slot *slot,
		  int gate, unsigned idx, unsigned nkids, uint64_t nseeks, uint64_t nchunks,
		  uint64_t base)
{
	const struct fsb_config *cfg = ctx->cfg;
	const struct fsb_engine_ops *ops = cfg->engine ? cfg->engine : fsb_engine_default();
	/* No more I/Os in flight than this seeker has chunks: each is in
	 * flight at most once, and a deeper queue would wait for ever for a
	 * chunk that is not. */
	unsigned depth = cfg->iodepth ? cfg->iodepth : 1;
	uint64_t own = nchunks / nkids;

	if (own && depth > own)
		depth = (unsigned)own;
	struct seeker s = {
		.ctl = ctl,
		.slot = slot,
		.depth = depth,
		.chunk = cfg->chunk_bytes,
		.rnd = (cfg->seed + 1) * 0x9e3779b97f4a7c15ull ^
		       ((uint64_t)idx << 32 | ctx->run_index) ^ (uint64_t)ctx->job << 48,
		.left = nseeks,
		.nchunks = nchunks,
		.base = base,
		.idx = idx,
		.nkids = nkids,
		.verify = !(ops->flags & FSB_ENGINE_NODATA),
	};
	struct fsb_engine eng = { 0 };
	struct fsb_err_scope scope;
	struct fsb_error e = { 0 };
	char path[4096], c;
	void *bufs = fsb_block_bufs_alloc(cfg->chunk_bytes, depth);
	ssize_t n;
	int fd, err = 0, flags = O_RDWR | O_CLOEXEC;

	fsb_hist_init(&slot->hist);
	fsb_names_perm_init(&s.perm, own ? own : 1, s.rnd);
	s.bufs = calloc(depth, sizeof(*s.bufs));
	if (!bufs || !s.bufs ||
	    fsb_pattern_init(&s.pat, &cfg->data, fsb_ctx_data_seed(ctx), s.chunk))
		return seeker_failed(slot, STEP_ALLOC, -ENOMEM, 0);
	if ((err = fsb_scratch_path(ctx->dir, FSB_BLOCKFILE_NAME, path, sizeof(path))))
		return seeker_failed(slot, STEP_OPEN, err, 0);
	/* As fsb_chunkfile_open, which would describe a failure itself. */
	fd = open(path, flags | O_NOFOLLOW | fsb_cache_open_flags(cfg->cache, FSB_CACHE_IO_BLOCK));
	if (fd < 0)
		return seeker_failed(slot, STEP_OPEN, -errno, 0);
	/* The engine is set up here, in the process that drives it (an
	 * io_uring ring belongs to its submitter); what it would print goes
	 * to the parent, which describes it. */
	fsb_err_capture_begin(&scope, &e, true);
	err = fsb_engine_init(&eng, ops, fd, depth, bufs, cfg->chunk_bytes, depth);
	fsb_err_capture_end(&scope, err);
	if (err) {
		snprintf(slot->why, sizeof(slot->why), "%.255s", e.msg);
		close(fd);
		return seeker_failed(slot, STEP_ENGINE, err, 0);
	}
	/* Wait for the gate: EOF when the parent closes its end. */
	while ((n = read(gate, &c, 1)) < 0 && errno == EINTR)
		;
	if (n < 0)
		err = seeker_failed(slot, STEP_GATE, -errno, 0);
	/* This seeker's part of the run's least seeks, shared as the work is. */
	s.least = ctl->least / nkids + (idx < ctl->least % nkids);
	if (!err && fsb_engine_drive(&eng, seeker_next, seeker_done, &s))
		err = 1; /* the slot says what (or a stop signal: not an error) */
	/* The written-back chunks reach the file before the seeker ends. */
	if (!err && (n = fsb_engine_fsync(&eng)) < 0)
		err = seeker_failed(slot, STEP_FSYNC, (int)n, 0);
	fsb_engine_release(&eng);
	close(fd);
	free(bufs);
	free(s.bufs);
	fsb_pattern_release(&s.pat);
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
		[STEP_OPEN] = "open",
		[STEP_READ] = "read",
		[STEP_WRITE] = "write back to",
		[STEP_FSYNC] = "flush",
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
	case STEP_ENGINE:
		fsb_err("seeks: seeker %u%s: %s", idx, others, slot->why);
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
	struct seeks_bound b;
	uint64_t nchunks, base;
	unsigned n;
	int pipefd[2], err;

	p->gate = -1;
	seeks_bound(ctx, &b);
	n = b.seekers;
	nchunks = b.chunks;
	err = fsb_blockfile_prepare(ctx, "seeks", b.size_bytes);
	if (err)
		return err;
	/* A shared file: this job seeks in its own range of it. */
	base = fsb_ctx_base(ctx, b.size_bytes);
	p->map_bytes = sizeof(struct seekers_ctl) + n * sizeof(struct seeker_slot);
	p->ctl = mmap(NULL, p->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		      0);
	if (p->ctl == MAP_FAILED) {
		p->ctl = NULL;
		return -errno;
	}
	p->slots = (struct seeker_slot *)(p->ctl + 1);
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
			/* Nothing of the parent's but its gate: another job's
			 * seekers must not hold this job's gate open. */
			close(pipefd[1]); /* its own gate's EOF must not wait on itself */
			fsb_child_close_fds(pipefd[0]);
			_exit(seeker(ctx, p->ctl, &p->slots[i], pipefd[0], i, n, share, nchunks,
				     base));
		}
		p->pid[p->nkids++] = pid;
	}
	close(pipefd[0]);
	p->gate = pipefd[1];
	p->armed = true;
	return err;
}

/*
 * End the seekers: told to quit, each finishes its write-backs in flight
 * and ends as it would at the end of its share, releasing its engine;
 * those not ended QUIT_WAIT_NS after the word are killed. Killed at
 * once, a seeker's io_uring ring was torn down later by the kernel, in a
 * worker, and with it the ring's hold on the block file: the file's space
 * stayed taken after fsbench had removed it and exited.
 */
#define QUIT_WAIT_NS 2000000000ull
static void kill_seekers(struct seeks_priv *p)
{
	uint64_t until = fsb_clock_ns() + QUIT_WAIT_NS;

	if (p->ctl)
		atomic_store(&p->ctl->quit, 1);
	/* Seekers still waiting at the gate: let them in, to quit. */
	if (p->gate >= 0)
		close(p->gate);
	p->gate = -1;
	for (unsigned i = 0; i < p->nkids; i++) {
		if (p->pid[i] <= 0)
			continue;
		for (;;) {
			pid_t r = waitpid(p->pid[i], NULL, WNOHANG);

			if (r == p->pid[i] || (r < 0 && errno != EINTR))
				break;
			if (fsb_clock_ns() >= until) {
				kill(p->pid[i], SIGKILL);
				while (waitpid(p->pid[i], NULL, 0) < 0 && errno == EINTR)
					;
				break;
			}
			usleep(1000);
		}
		p->pid[i] = 0;
	}
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

static int seeks_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	struct seeks_priv *p = priv;
	int first_status = 0;
	unsigned first = 0, nfailed = 0;

	/* Read by the seekers once the gate opens. */
	p->ctl->halt = out->halt;
	p->ctl->deadline_ns = out->deadline_ns;
	p->ctl->least = out->least;
	close(p->gate);
	p->gate = -1;
	for (unsigned i = 0; i < p->nkids; i++) {
		struct rusage ru;
		int status;

		/* wait4: the seeker's own CPU, for this job's %CPU. */
		while (wait4(p->pid[i], &status, 0, &ru) < 0) {
			if (errno != EINTR || fsb_stop_requested()) {
				kill_seekers(p);
				return -EINTR;
			}
		}
		p->pid[i] = 0;
		out->child_cpu_ns += tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
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
		out->stopped |= p->slots[i].stopped != 0;
		fsb_hist_merge(out->hist, &p->slots[i].hist);
	}
	if (fsb_stop_requested())
		return -EINTR;
	/* Stopped early, each chunk written back is whole all the same. */
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
	if (!p->armed && !p->ctl)
		return;
	kill_seekers(p);
	if (p->ctl)
		munmap(p->ctl, p->map_bytes);
	p->ctl = NULL;
	p->slots = NULL;
	p->armed = false;
}

const struct fsb_workload_ops fsb_wl_seeks = {
	.name = "seeks",
	.family = "throughput",
	.title = "random seeks: --seekers processes share --seeks random reads of a chunk, 10% "
		 "written back",
	.flags = FSB_WL_OPEN | FSB_WL_ENGINE,
	.work_unit = FSB_WORK_OPS,
	.initial_work = seeks_start,
	.max_work = seeks_max,
	.work_cut = seeks_cut,
	.ready_work = seeks_ready,
	.pass_file = seeks_pass_file,
	.space_fit = seeks_fit,
	.work_granule = 64,
	.scratch_file = FSB_BLOCKFILE_NAME,
	.priv_size = sizeof(struct seeks_priv),
	.setup = seeks_setup,
	.run = seeks_run,
	.teardown = seeks_teardown,
};
