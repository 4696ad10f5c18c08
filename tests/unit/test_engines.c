/*
 * Unit tests of the I/O engines and their driver: the registry; each of
 * psync and io_uring writes a verifiable pattern at depth 1, 4 and 32 and
 * the other reads it back (tmpfs buffered and O_DIRECT, and O_DIRECT on
 * the filesystem of /tmp); a read at end of file finishes short; short
 * transfers are resubmitted for the rest; EBADF and EIO reach done() and
 * the caller, not a crash; a stop mid-flight unwinds with every I/O
 * reaped; the driver never has more than the depth in flight (and fills
 * it); a slot with nothing due now (FSB_ENGINE_IDLE) waits for its read
 * to write it back from the same buffer; latencies are stamped per I/O; io_uring refused by a seccomp policy
 * is one clear error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engines/engine.h"
#include "stats/clock.h"
#include "util/error.h"
#include "util/signals.h"
#include "workloads/blockfile.h"
#include "workloads/names.h"

#define BS 4096u

static const unsigned depths[] = { 1, 4, 32 };

/* ---- helpers ---- */

/* A fresh directory under parent, removed by rm_dir. */
static char *make_dir(const char *parent)
{
	char *d = malloc(256);

	assert_non_null(d);
	snprintf(d, 256, "%s/fsb-engines.XXXXXX", parent);
	assert_non_null(mkdtemp(d));
	return d;
}

static void rm_dir(char *d)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	assert_int_equal(system(cmd), 0);
	free(d);
}

/* stderr captured in a temporary file. */
struct captured {
	int saved;
	FILE *f;
	char text[4096];
};

static void capture_start(struct captured *c)
{
	fflush(stderr);
	c->f = tmpfile();
	assert_non_null(c->f);
	c->saved = dup(STDERR_FILENO);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->f), STDERR_FILENO) >= 0);
}

static const char *capture_end(struct captured *c)
{
	size_t n;

	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	rewind(c->f);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->f);
	c->text[n] = '\0';
	fclose(c->f);
	fputs(c->text, stderr);
	return c->text;
}

/*
 * A counting wrapper around any engine: the same hooks, plus the number
 * of I/Os handed to it and not yet given back (in flight as the driver
 * sees them), its maximum, and the number of submissions.
 */
static const struct fsb_engine_ops *inner;
static unsigned cur_inflight, max_inflight, submissions;

static int count_init(struct fsb_engine *e)
{
	return inner->init(e);
}

static int count_queue(struct fsb_engine *e, struct fsb_io *io)
{
	int r = inner->queue(e, io);

	submissions++;
	if (r == FSB_ENGINE_QUEUED) {
		cur_inflight++;
		if (cur_inflight > max_inflight)
			max_inflight = cur_inflight;
	} else if (r == FSB_ENGINE_COMPLETED && max_inflight < 1) {
		max_inflight = 1;
	}
	return r;
}

static int count_commit(struct fsb_engine *e)
{
	return inner->commit(e);
}

static int count_getevents(struct fsb_engine *e, unsigned min, unsigned max)
{
	return inner->getevents(e, min, max);
}

static struct fsb_io *count_event(struct fsb_engine *e, unsigned i)
{
	cur_inflight--;
	return inner->event(e, i);
}

static void count_cleanup(struct fsb_engine *e)
{
	if (inner->cleanup)
		inner->cleanup(e);
}

static struct fsb_engine_ops counting;

static const struct fsb_engine_ops *count_wrap(const char *name)
{
	inner = fsb_engine_find(name);
	assert_non_null(inner);
	cur_inflight = max_inflight = submissions = 0;
	counting = (struct fsb_engine_ops){
		.name = inner->name,
		.title = inner->title,
		.flags = inner->flags,
		.priv_size = inner->priv_size,
		.init = count_init,
		.queue = count_queue,
		.commit = inner->commit ? count_commit : NULL,
		.getevents = inner->getevents ? count_getevents : NULL,
		.event = inner->event ? count_event : NULL,
		.cleanup = count_cleanup,
	};
	return &counting;
}

/*
 * A fake asynchronous engine over pread/pwrite: it moves at most
 * `dribble` bytes per submission (0: all), fails the I/O at offset
 * `fail_off` with `fail_err`, and completes at the next reap.
 */
static uint32_t dribble;
static uint64_t fail_off = UINT64_MAX;
static int fail_err;

struct fake_priv {
	struct fsb_io *q[64], *ready[64], *ev[64];
	unsigned nq, nready;
};

static int fake_init(struct fsb_engine *e)
{
	return e->depth <= 64 ? 0 : -EINVAL;
}

static int fake_queue(struct fsb_engine *e, struct fsb_io *io)
{
	struct fake_priv *p = e->priv;

	p->q[p->nq++] = io;
	cur_inflight++;
	if (cur_inflight > max_inflight)
		max_inflight = cur_inflight;
	submissions++;
	return FSB_ENGINE_QUEUED;
}

static int fake_commit(struct fsb_engine *e)
{
	struct fake_priv *p = e->priv;

	for (unsigned i = 0; i < p->nq; i++) {
		struct fsb_io *io = p->q[i];
		uint32_t n = dribble && io->xfer_len > dribble ? dribble : io->xfer_len;
		ssize_t r;

		io->submit_ns = fsb_clock_ns();
		if (io->off == fail_off)
			r = -1, errno = fail_err;
		else if (io->op == FSB_IO_READ)
			r = pread(e->fd, io->xfer_buf, n, (off_t)io->xfer_off);
		else if (io->op == FSB_IO_WRITE)
			r = pwrite(e->fd, io->xfer_buf, n, (off_t)io->xfer_off);
		else
			r = fsync(e->fd);
		io->res = r < 0 ? -errno : r;
		p->ready[p->nready++] = io;
	}
	p->nq = 0;
	return 0;
}

static int fake_getevents(struct fsb_engine *e, unsigned min, unsigned max)
{
	struct fake_priv *p = e->priv;
	unsigned n = p->nready < max ? p->nready : max;

	assert_true(n >= min);
	for (unsigned i = 0; i < n; i++) {
		p->ev[i] = p->ready[i];
		p->ev[i]->complete_ns = fsb_clock_ns();
	}
	memmove(p->ready, p->ready + n, (p->nready - n) * sizeof(p->ready[0]));
	p->nready -= n;
	return (int)n;
}

static struct fsb_io *fake_event(struct fsb_engine *e, unsigned i)
{
	cur_inflight--;
	return ((struct fake_priv *)e->priv)->ev[i];
}

static const struct fsb_engine_ops fake_ops = {
	.name = "fake",
	.title = "test",
	.priv_size = sizeof(struct fake_priv),
	.init = fake_init,
	.queue = fake_queue,
	.commit = fake_commit,
	.getevents = fake_getevents,
	.event = fake_event,
};

static void fake_reset(void)
{
	dribble = 0;
	fail_off = UINT64_MAX;
	fail_err = 0;
	cur_inflight = max_inflight = submissions = 0;
}

/*
 * A job for the driver: n blocks of BS in the order of a permutation,
 * written (stamped with gen) or read and compared in full with what the
 * writer wrote. Records what done() saw.
 */
struct job {
	struct fsb_config cfg;
	struct fsb_names_perm perm;
	uint64_t n, k;
	bool write;
	uint64_t gen;
	void *expect;	/* one block of the seed's pattern */
	unsigned *seen; /* done() calls per block */
	unsigned dones;
	int64_t first_bad_res; /* first res that was not BS */
	uint64_t first_bad_off;
	unsigned stop_after; /* request a stop after this many dones */
	uint64_t t0;	     /* before the drive */
	unsigned lat_bad;    /* latencies that do not match the stamps */
	int verify_err;
};

/* The data of the tests' blocks: random, seed 7, made once. */
static const struct fsb_pattern *tpat(void)
{
	static struct fsb_pattern pat;

	if (!pat.pool)
		assert_int_equal(fsb_pattern_init(&pat, NULL, 7, BS), 0);
	return &pat;
}

static void job_init(struct job *j, uint64_t n, bool write, uint64_t gen)
{
	memset(j, 0, sizeof(*j));
	j->cfg.seed = 7;
	j->n = n;
	j->write = write;
	j->gen = gen;
	fsb_names_perm_init(&j->perm, n, 1234 + gen);
	j->expect = fsb_block_bufs_alloc(BS, 1);
	assert_non_null(j->expect);
	j->seen = calloc(n + 2, sizeof(*j->seen));
	assert_non_null(j->seen);
	j->first_bad_res = INT64_MIN;
	j->t0 = fsb_clock_ns();
}

static void job_free(struct job *j)
{
	free(j->expect);
	free(j->seen);
}

static int job_next(void *arg, struct fsb_io *io)
{
	struct job *j = arg;

	if (j->k >= j->n)
		return 0;
	io->off = fsb_names_perm_at(&j->perm, j->k++) * BS;
	io->len = BS;
	io->op = j->write ? FSB_IO_WRITE : FSB_IO_READ;
	if (j->write)
		fsb_pattern_fill(tpat(), io->buf, io->off, j->gen);
	else
		memset(io->buf, 0xa5, BS); /* no stale block can pass */
	return 1;
}

static int job_done(void *arg, struct fsb_io *io, uint64_t lat_ns)
{
	struct job *j = arg;
	uint64_t now = fsb_clock_ns();

	j->dones++;
	if (io->off / BS <= j->n)
		j->seen[io->off / BS]++;
	if (io->submit_ns < j->t0 || io->complete_ns > now || io->submit_ns > io->complete_ns ||
	    lat_ns != io->complete_ns - io->submit_ns)
		j->lat_bad++;
	if (io->res != BS && j->first_bad_res == INT64_MIN) {
		j->first_bad_res = io->res;
		j->first_bad_off = io->off;
	}
	if (io->res < 0)
		return (int)io->res;
	if (!j->write && io->res == BS) {
		fsb_pattern_fill(tpat(), j->expect, io->off, j->gen);
		if (memcmp(io->buf, j->expect, BS)) {
			j->verify_err++;
			return -EIO;
		}
	}
	if (j->stop_after && j->dones == j->stop_after)
		fsb_stop_signal = SIGINT;
	return 0;
}

/* Bring up an engine on fd with depth buffers of BS. */
static void *engine_up(struct fsb_engine *e, const struct fsb_engine_ops *ops, int fd,
		       unsigned depth)
{
	void *bufs = fsb_block_bufs_alloc(BS, depth);

	assert_non_null(bufs);
	assert_int_equal(fsb_engine_init(e, ops, fd, depth, bufs, BS, depth), 0);
	return bufs;
}

/* Drive job j through engine `ops` on fd at depth; returns drive's result. */
static int run_job(const struct fsb_engine_ops *ops, int fd, unsigned depth, struct job *j)
{
	struct fsb_engine e;
	void *bufs = engine_up(&e, ops, fd, depth);
	int r = fsb_engine_drive(&e, job_next, job_done, j);

	fsb_engine_release(&e);
	free(bufs);
	return r;
}

/* ---- registry ---- */

static void registry_lists_and_checks(void **state)
{
	(void)state;
	assert_int_equal(fsb_engine_check(), 0);
	assert_non_null(fsb_engine_find("psync"));
	assert_non_null(fsb_engine_find("io_uring"));
	assert_non_null(fsb_engine_find("null"));
	assert_null(fsb_engine_find("libaio"));
	assert_null(fsb_engine_find(NULL));
	assert_ptr_equal(fsb_engine_default(), fsb_engine_find("psync"));
	assert_string_equal(fsb_engine_names(), "psync|io_uring|null");
	assert_true(fsb_engine_find("psync")->flags & FSB_ENGINE_SYNC);
	assert_true(fsb_engine_find("null")->flags & FSB_ENGINE_NODATA);
	assert_false(fsb_engine_find("io_uring")->flags & (FSB_ENGINE_SYNC | FSB_ENGINE_NODATA));
}

static void init_refuses_bad_arguments(void **state)
{
	struct fsb_engine e;
	struct captured cap;
	char buf[BS] __attribute__((aligned(4096)));
	const char *err;
	(void)state;

	capture_start(&cap);
	assert_int_equal(fsb_engine_init(&e, fsb_engine_find("io_uring"), 0, 4, buf, BS, 1),
			 -EINVAL);
	assert_int_equal(fsb_engine_init(&e, fsb_engine_find("null"), 0, 100000, buf, BS, 1),
			 -EINVAL);
	err = capture_end(&cap);
	assert_non_null(strstr(err, "fsbench: engine io_uring: 1 buffers for a queue depth of 4"));
	assert_non_null(strstr(err, "queue depth 100000 is more than"));
	fsb_engine_release(&e);
	fsb_engine_release(&e);
}

/* ---- data round trips ---- */

/* Write n blocks with one engine at depth d, read them back with the
 * other at depth d, in another order; every block once, data identical. */
static void roundtrip(const char *dir, int oflags, const char *wname, const char *rname,
		      unsigned depth, uint64_t gen)
{
	char path[300];
	struct job w, r;
	int fd;
	uint64_t n = 300; /* not a power of two: the order walks cycles */

	snprintf(path, sizeof(path), "%s/rt.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | oflags, 0600);
	assert_true(fd >= 0);
	job_init(&w, n, true, gen);
	assert_int_equal(run_job(fsb_engine_find(wname), fd, depth, &w), 0);
	assert_int_equal(w.dones, n);
	assert_int_equal(w.lat_bad, 0);
	assert_int_equal(w.first_bad_res, INT64_MIN);
	for (uint64_t b = 0; b < n; b++)
		assert_int_equal(w.seen[b], 1);
	job_free(&w);

	job_init(&r, n, false, gen);
	fsb_names_perm_init(&r.perm, n, 99); /* another order */
	assert_int_equal(run_job(fsb_engine_find(rname), fd, depth, &r), 0);
	assert_int_equal(r.dones, n);
	assert_int_equal(r.verify_err, 0);
	assert_int_equal(r.lat_bad, 0);
	for (uint64_t b = 0; b < n; b++)
		assert_int_equal(r.seen[b], 1);
	job_free(&r);
	close(fd);
}

static void roundtrips_in(const char *parent, int oflags)
{
	char *dir = make_dir(parent);
	uint64_t gen = 1;

	if (oflags & O_DIRECT) {
		char probe[300];
		int fd;

		snprintf(probe, sizeof(probe), "%s/probe", dir);
		fd = open(probe, O_RDWR | O_CREAT | O_DIRECT, 0600);
		if (fd < 0 && errno == EINVAL) {
			rm_dir(dir);
			skip(); /* no O_DIRECT on this filesystem */
		}
		assert_true(fd >= 0);
		close(fd);
	}
	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		roundtrip(dir, oflags, "psync", "io_uring", depths[i], gen++);
		roundtrip(dir, oflags, "io_uring", "psync", depths[i], gen++);
	}
	rm_dir(dir);
}

static void roundtrip_tmpfs(void **state)
{
	(void)state;
	roundtrips_in("/dev/shm", 0);
}

static void roundtrip_tmpfs_direct(void **state)
{
	(void)state;
	roundtrips_in("/dev/shm", O_DIRECT);
}

/* /tmp is a disk filesystem on most machines (ext4 here). */
static void roundtrip_tmp_direct(void **state)
{
	(void)state;
	roundtrips_in("/tmp", O_DIRECT);
}

/* ---- end of file, short transfers, errors ---- */

/* What done() saw for each block: a record per offset. */
static int64_t res_at[16];

static int eof_next(void *arg, struct fsb_io *io)
{
	unsigned *k = arg;

	if (*k >= 12)
		return 0;
	io->op = FSB_IO_READ;
	io->off = (uint64_t)*k * BS;
	io->len = BS;
	(*k)++;
	return 1;
}

static int eof_done(void *arg, struct fsb_io *io, uint64_t lat_ns)
{
	(void)arg;
	(void)lat_ns;
	res_at[io->off / BS] = io->res;
	if (io->res == BS)
		return fsb_block_verify(tpat(), "test", "eof", io->buf, io->off);
	return 0;
}

/* 10.5 blocks: a read of block 10 finishes with half a block, a read of
 * block 11 with nothing, through every engine that moves data, at every
 * depth; done() gets them as they are (the workload decides). */
static void short_read_at_eof(void **state)
{
	static const char *const names[] = { "psync", "io_uring" };
	char *dir = make_dir("/dev/shm"), path[300];
	void *blk = fsb_block_bufs_alloc(BS, 1);
	int fd;
	(void)state;

	snprintf(path, sizeof(path), "%s/eof.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (uint64_t b = 0; b < 11; b++) {
		fsb_pattern_fill(tpat(), blk, b * BS, 0);
		assert_int_equal(pwrite(fd, blk, BS, (off_t)(b * BS)), BS);
	}
	assert_int_equal(ftruncate(fd, 10 * BS + BS / 2), 0);
	for (size_t i = 0; i < 2; i++) {
		for (size_t d = 0; d < 3; d++) {
			struct fsb_engine e;
			void *bufs = engine_up(&e, fsb_engine_find(names[i]), fd, depths[d]);
			unsigned k = 0;

			memset(res_at, 0x55, sizeof(res_at));
			assert_int_equal(fsb_engine_drive(&e, eof_next, eof_done, &k), 0);
			for (int b = 0; b < 10; b++)
				assert_int_equal(res_at[b], BS);
			assert_int_equal(res_at[10], BS / 2);
			assert_int_equal(res_at[11], 0);
			fsb_engine_release(&e);
			free(bufs);
		}
	}
	free(blk);
	close(fd);
	rm_dir(dir);
}

/* An engine that moves 1000 bytes per submission: the driver asks again
 * for the rest, done() sees each I/O once and whole. */
static void short_transfers_resubmitted(void **state)
{
	char *dir = make_dir("/dev/shm"), path[300];
	int fd;
	(void)state;

	snprintf(path, sizeof(path), "%s/dribble.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (size_t d = 0; d < 3; d++) {
		struct job w, r;

		fake_reset();
		dribble = 1000;
		job_init(&w, 40, true, 3);
		assert_int_equal(run_job(&fake_ops, fd, depths[d], &w), 0);
		assert_int_equal(w.dones, 40);
		assert_int_equal(w.first_bad_res, INT64_MIN);
		/* 4096 bytes in 1000-byte goes: 5 submissions per I/O */
		assert_int_equal(submissions, 40 * 5);
		assert_int_equal(cur_inflight, 0);
		assert_true(max_inflight <= depths[d]);
		job_free(&w);

		fake_reset();
		dribble = 1000;
		job_init(&r, 40, false, 3);
		assert_int_equal(run_job(&fake_ops, fd, depths[d], &r), 0);
		assert_int_equal(r.dones, 40);
		assert_int_equal(r.verify_err, 0);
		assert_int_equal(submissions, 40 * 5);
		job_free(&r);
	}
	fake_reset();
	close(fd);
	rm_dir(dir);
}

/* A write to a read-only descriptor: EBADF reaches done() and the caller
 * through every engine that does I/O, with nothing left in flight. */
static void ebadf_reported(void **state)
{
	static const char *const names[] = { "psync", "io_uring" };
	char *dir = make_dir("/dev/shm"), path[300];
	int fd;
	(void)state;

	snprintf(path, sizeof(path), "%s/ro.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 64 * BS), 0);
	close(fd);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	for (size_t i = 0; i < 2; i++) {
		for (size_t d = 0; d < 3; d++) {
			struct job w;

			job_init(&w, 64, true, 1);
			assert_int_equal(run_job(count_wrap(names[i]), fd, depths[d], &w), -EBADF);
			assert_int_equal(w.first_bad_res, -EBADF);
			/* the first error stops it: one done() call, the rest
			 * reaped without it */
			assert_int_equal(w.dones, 1);
			assert_int_equal(cur_inflight, 0);
			job_free(&w);
		}
	}
	close(fd);
	rm_dir(dir);
}

/* A device error on one block (injected): -EIO to done() and the caller,
 * the other I/Os in flight reaped. */
static void eio_reported(void **state)
{
	char *dir = make_dir("/dev/shm"), path[300];
	int fd;
	(void)state;

	snprintf(path, sizeof(path), "%s/eio.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (size_t d = 0; d < 3; d++) {
		struct job w;

		fake_reset();
		job_init(&w, 64, true, 1);
		fail_off = fsb_names_perm_at(&w.perm, 10) * BS;
		fail_err = EIO;
		assert_int_equal(run_job(&fake_ops, fd, depths[d], &w), -EIO);
		assert_int_equal(w.first_bad_res, -EIO);
		assert_int_equal(w.first_bad_off, fail_off);
		assert_int_equal(cur_inflight, 0);
		/* nothing submitted after the failure was seen */
		assert_true(submissions <= 11 + depths[d]);
		job_free(&w);
	}
	fake_reset();
	close(fd);
	rm_dir(dir);
}

/* ---- depth, stop, latency ---- */

/* Never more than depth in flight; an asynchronous engine fills it, psync
 * has one at a time. */
static void depth_bound(void **state)
{
	static const char *const names[] = { "psync", "io_uring", "null" };
	char *dir = make_dir("/dev/shm"), path[300];
	int fd;
	(void)state;

	snprintf(path, sizeof(path), "%s/depth.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (size_t i = 0; i < 3; i++) {
		for (size_t d = 0; d < 3; d++) {
			const struct fsb_engine_ops *ops = count_wrap(names[i]);
			struct job w;

			job_init(&w, 500, true, 1);
			assert_int_equal(run_job(ops, fd, depths[d], &w), 0);
			assert_int_equal(w.dones, 500);
			assert_int_equal(submissions, 500);
			assert_int_equal(cur_inflight, 0);
			assert_int_equal(max_inflight,
					 ops->flags & FSB_ENGINE_SYNC ? 1 : depths[d]);
			job_free(&w);
		}
	}
	close(fd);
	rm_dir(dir);
}

/*
 * A rewrite through the driver: a block is read into a slot's buffer and
 * written back from that same slot once dirtied; while a slot has nothing
 * due, next() says FSB_ENGINE_IDLE, and the drive goes on until every
 * block is written back, at any depth.
 */
struct rw {
	uint64_t n, k;
	int state[64]; /* per buffer: 0 idle, 1 reading, 2 write due, 3 writing */
	uint64_t off[64];
	unsigned reads, writes, bad, idles;
	unsigned *seen_r, *seen_w;
};

static int rw_next(void *arg, struct fsb_io *io)
{
	struct rw *w = arg;
	unsigned b = io->buf_index;

	if (w->state[b] == 2) {
		w->state[b] = 3;
		io->op = FSB_IO_WRITE;
		io->off = w->off[b];
		io->len = BS;
		return FSB_ENGINE_NEXT;
	}
	if (w->state[b] != 0)
		w->bad++; /* a slot in use was handed out */
	if (w->k >= w->n) {
		w->idles++;
		return FSB_ENGINE_IDLE;
	}
	w->state[b] = 1;
	io->op = FSB_IO_READ;
	io->off = w->off[b] = w->k++ * BS;
	io->len = BS;
	return FSB_ENGINE_NEXT;
}

static int rw_done(void *arg, struct fsb_io *io, uint64_t lat_ns)
{
	struct rw *w = arg;
	unsigned b = io->buf_index;

	(void)lat_ns;
	if (io->res != BS || io->off != w->off[b])
		w->bad++;
	if (io->op == FSB_IO_READ) {
		if (w->state[b] != 1 || fsb_pattern_check(tpat(), io->buf, io->off) ||
		    fsb_pattern_gen(tpat(), io->buf) != 1)
			w->bad++;
		fsb_pattern_stamp(tpat(), io->buf, io->off, 2);
		w->state[b] = 2;
		w->reads++;
		w->seen_r[io->off / BS]++;
	} else {
		/* Written only after its own read, from the same buffer. */
		if (w->state[b] != 3 || w->seen_r[io->off / BS] != 1)
			w->bad++;
		w->state[b] = 0;
		w->writes++;
		w->seen_w[io->off / BS]++;
	}
	return 0;
}

static void idle_slots_write_back_their_reads(void **state)
{
	static const char *const names[] = { "psync", "io_uring" };
	char *dir = make_dir("/dev/shm"), path[300];
	int fd;
	(void)state;

	snprintf(path, sizeof(path), "%s/rw.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (size_t i = 0; i < 2; i++) {
		for (size_t d = 0; d < 3; d++) {
			struct rw w = { .n = 300 };
			struct fsb_engine e;
			struct job check;
			void *bufs;

			job_init(&check, 300, true, 1);
			assert_int_equal(run_job(fsb_engine_find("psync"), fd, 1, &check), 0);
			job_free(&check);
			w.seen_r = calloc(w.n, sizeof(unsigned));
			w.seen_w = calloc(w.n, sizeof(unsigned));
			assert_non_null(w.seen_r);
			assert_non_null(w.seen_w);
			bufs = engine_up(&e, fsb_engine_find(names[i]), fd, depths[d]);
			assert_int_equal(fsb_engine_drive(&e, rw_next, rw_done, &w), 0);
			fsb_engine_release(&e);
			free(bufs);
			assert_int_equal(w.bad, 0);
			assert_int_equal(w.reads, 300);
			assert_int_equal(w.writes, 300);
			for (uint64_t k = 0; k < w.n; k++) {
				assert_int_equal(w.seen_r[k], 1);
				assert_int_equal(w.seen_w[k], 1);
			}
			/* Every slot ended idle: the drive ended, not stalled. */
			assert_true(w.idles >= 1);
			/* The file holds the written-back generation. */
			job_init(&check, 300, false, 2);
			assert_int_equal(run_job(fsb_engine_find("psync"), fd, 4, &check), 0);
			assert_int_equal(check.verify_err, 0);
			job_free(&check);
			free(w.seen_r);
			free(w.seen_w);
		}
	}
	close(fd);
	rm_dir(dir);
}

/* A stop requested after 100 completions: the driver returns -EINTR,
 * done() is not called again, nothing is left in flight. */
static void stop_unwinds_after_reaping(void **state)
{
	static const char *const names[] = { "psync", "io_uring", "null" };
	char *dir = make_dir("/dev/shm"), path[300];
	int fd;
	(void)state;

	snprintf(path, sizeof(path), "%s/stop.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (size_t i = 0; i < 3; i++) {
		for (size_t d = 0; d < 3; d++) {
			const struct fsb_engine_ops *ops = count_wrap(names[i]);
			struct job w;

			job_init(&w, 1000, true, 1);
			w.stop_after = 100;
			assert_int_equal(run_job(ops, fd, depths[d], &w), -EINTR);
			fsb_stop_signal = 0;
			assert_int_equal(w.dones, 100);
			assert_int_equal(cur_inflight, 0);
			/* what was in flight then, and no more */
			assert_true(submissions <= 100 + depths[d]);
			job_free(&w);
		}
	}
	close(fd);
	rm_dir(dir);
}

/* A stop already requested: nothing is submitted. */
static void stop_before_start(void **state)
{
	char *dir = make_dir("/dev/shm"), path[300];
	struct job w;
	int fd;
	(void)state;

	snprintf(path, sizeof(path), "%s/stop.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	job_init(&w, 10, true, 1);
	fsb_stop_signal = SIGTERM;
	assert_int_equal(run_job(count_wrap("io_uring"), fd, 8, &w), -EINTR);
	fsb_stop_signal = 0;
	assert_int_equal(submissions, 0);
	assert_int_equal(w.dones, 0);
	job_free(&w);
	close(fd);
	rm_dir(dir);
}

/* Each I/O gets its own stamps, inside the drive, and its latency is the
 * difference; a real read takes time. */
static void latency_stamped_per_io(void **state)
{
	static const char *const names[] = { "psync", "io_uring", "null" };
	char *dir = make_dir("/tmp"), path[300];
	int fd;
	(void)state;

	snprintf(path, sizeof(path), "%s/lat.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (size_t i = 0; i < 3; i++) {
		for (size_t d = 0; d < 3; d++) {
			struct job w;

			job_init(&w, 64, true, 1);
			assert_int_equal(run_job(fsb_engine_find(names[i]), fd, depths[d], &w), 0);
			assert_int_equal(w.lat_bad, 0);
			job_free(&w);
		}
	}
	close(fd);
	rm_dir(dir);
}

/* fsync goes through each engine. */
static void fsync_through_engines(void **state)
{
	static const char *const names[] = { "psync", "io_uring", "null" };
	char *dir = make_dir("/tmp"), path[300];
	int fd;
	(void)state;

	snprintf(path, sizeof(path), "%s/sync.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (size_t i = 0; i < 3; i++) {
		struct fsb_engine e;
		void *bufs = engine_up(&e, fsb_engine_find(names[i]), fd, 4);

		assert_int_equal(fsb_engine_fsync(&e), 0);
		fsb_engine_release(&e);
		free(bufs);
	}
	close(fd);
	rm_dir(dir);
}

/* ---- io_uring refused ---- */

/* In a child under a seccomp filter that answers io_uring_setup with
 * EPERM (as container runtimes do): one line that says what to do. */
static void io_uring_refused(void **state)
{
	int pipefd[2], status;
	char text[512] = "";
	ssize_t n;
	pid_t pid;
	(void)state;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sock_filter filter[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };
		struct fsb_engine e;
		char buf[BS] __attribute__((aligned(4096)));
		int r;

		dup2(pipefd[1], STDERR_FILENO);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(100);
		r = fsb_engine_init(&e, fsb_engine_find("io_uring"), 0, 1, buf, BS, 1);
		fsb_engine_release(&e);
		_exit(r == -EPERM ? 0 : 101);
	}
	close(pipefd[1]);
	n = read(pipefd[0], text, sizeof(text) - 1);
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(n > 0);
	text[n] = '\0';
	assert_string_equal(text, "fsbench: engine io_uring: cannot set up a ring of 1 entries: "
				  "Operation not permitted (io_uring is not allowed here: use the "
				  "psync engine)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry_lists_and_checks),
		cmocka_unit_test(idle_slots_write_back_their_reads),
		cmocka_unit_test(init_refuses_bad_arguments),
		cmocka_unit_test(roundtrip_tmpfs),
		cmocka_unit_test(roundtrip_tmpfs_direct),
		cmocka_unit_test(roundtrip_tmp_direct),
		cmocka_unit_test(short_read_at_eof),
		cmocka_unit_test(short_transfers_resubmitted),
		cmocka_unit_test(ebadf_reported),
		cmocka_unit_test(eio_reported),
		cmocka_unit_test(depth_bound),
		cmocka_unit_test(stop_unwinds_after_reaping),
		cmocka_unit_test(stop_before_start),
		cmocka_unit_test(latency_stamped_per_io),
		cmocka_unit_test(fsync_through_engines),
		cmocka_unit_test(io_uring_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
