/*
 * Unit tests of the random I/O tests (randread, randwrite): every block
 * touched exactly once per run, in an order that differs per run index and
 * per seed and is reproducible; randwrite stamps its generation on every
 * block it writes; randread verifies what it reads; growth stops at the
 * file's blocks; both tests through fsb_runner_measure on real files
 * (tmpfs and the filesystem of /tmp, O_DIRECT and cached), with each
 * engine; the registry keeps them out of the default suite.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/registry.h"
#include "core/runner.h"
#include "engines/engine.h"
#include "report/result.h"
#include "util/error.h"
#include "workloads/blockfile.h"

#define BS 4096u

/* ---- helpers ---- */

static char *make_dir(const char *parent)
{
	char *d = malloc(256);

	assert_non_null(d);
	snprintf(d, 256, "%s/fsb-random.XXXXXX", parent);
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
 * A recording wrapper around an engine: the offset of every submission
 * in order (the order the test chose), so a test can count the blocks.
 */
#define MAX_REC 20000
static const struct fsb_engine_ops *inner;
static uint64_t rec[MAX_REC];
static unsigned nrec;

static int rec_init(struct fsb_engine *e)
{
	return inner->init(e);
}

static int rec_queue(struct fsb_engine *e, struct fsb_io *io)
{
	if (io->op != FSB_IO_FSYNC && nrec < MAX_REC)
		rec[nrec++] = io->xfer_off;
	return inner->queue(e, io);
}

static int rec_commit(struct fsb_engine *e)
{
	return inner->commit(e);
}

static int rec_getevents(struct fsb_engine *e, unsigned min, unsigned max)
{
	return inner->getevents(e, min, max);
}

static struct fsb_io *rec_event(struct fsb_engine *e, unsigned i)
{
	return inner->event(e, i);
}

static void rec_cleanup(struct fsb_engine *e)
{
	if (inner->cleanup)
		inner->cleanup(e);
}

static struct fsb_engine_ops recording;

static const struct fsb_engine_ops *rec_wrap(const char *name)
{
	inner = fsb_engine_find(name);
	assert_non_null(inner);
	nrec = 0;
	recording = (struct fsb_engine_ops){
		.name = inner->name,
		.title = inner->title,
		.flags = inner->flags,
		.priv_size = inner->priv_size,
		.init = rec_init,
		.queue = rec_queue,
		.commit = inner->commit ? rec_commit : NULL,
		.getevents = inner->getevents ? rec_getevents : NULL,
		.event = inner->event ? rec_event : NULL,
		.cleanup = rec_cleanup,
	};
	return &recording;
}

/* One run of a workload hook by hook, as the runner does it. */
static int run_hooks(const char *test, const struct fsb_config *cfg, const char *dir, uint64_t work,
		     unsigned run_index, struct fsb_sink *sink)
{
	const struct fsb_workload_ops *ops = fsb_registry_find(test);
	struct fsb_ctx ctx = { .cfg = cfg, .dir = dir, .work = work, .run_index = run_index };
	void *priv;
	int err;

	assert_non_null(ops);
	priv = calloc(1, ops->priv_size);
	assert_non_null(priv);
	fsb_hist_init(sink->hist);
	sink->ops = sink->bytes = 0;
	err = ops->setup(&ctx, priv);
	if (!err)
		err = ops->run(&ctx, priv, sink);
	ops->teardown(&ctx, priv);
	free(priv);
	return err;
}

/* Each block of n counted in rec[]; returns how many were touched, and
 * fails on a block touched twice or out of the file. */
static unsigned count_blocks(uint64_t n)
{
	unsigned char *seen = calloc(n, 1);
	unsigned touched = 0;

	assert_non_null(seen);
	for (unsigned i = 0; i < nrec; i++) {
		uint64_t b = rec[i] / BS;

		assert_int_equal(rec[i] % BS, 0);
		assert_true(b < n);
		assert_int_equal(seen[b], 0);
		seen[b] = 1;
		touched++;
	}
	free(seen);
	return touched;
}

/* The generation of every block of dir's random.dat into gens[]; each
 * block must verify. */
static void read_gens(const char *dir, uint64_t n, uint64_t *gens)
{
	struct fsb_pattern pat;
	char path[300];
	char *buf = malloc(BS);
	int fd;

	assert_non_null(buf);
	/* The check of random data depends on the offsets, not the seed. */
	assert_int_equal(fsb_pattern_init(&pat, NULL, 0, BS), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, FSB_RANDFILE_NAME);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	for (uint64_t b = 0; b < n; b++) {
		assert_int_equal(pread(fd, buf, BS, (off_t)(b * BS)), BS);
		assert_int_equal(fsb_block_verify(&pat, "test", path, buf, b * BS), 0);
		gens[b] = fsb_pattern_gen(&pat, buf);
	}
	close(fd);
	free(buf);
	fsb_pattern_release(&pat);
}

/* ---- every block once, orders ---- */

static void every_block_once_per_run(void **state)
{
	static const struct {
		const char *engine;
		unsigned depth;
	} cases[] = {
		{ "psync", 1 },
		{ "io_uring", 8 },
		{ "null", 32 },
	};
	const uint64_t n = 1000;
	char *dir = make_dir("/dev/shm");
	struct fsb_hist hist;
	struct fsb_sink sink = { .hist = &hist };
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		for (int w = 0; w < 2; w++) {
			const char *test = w ? "randwrite" : "randread";
			struct fsb_config cfg = { .seed = 11,
						  .size_bytes = n * BS,
						  .chunk_bytes = 8192,
						  .cache = FSB_CACHE_KEEP,
						  .iodepth = cases[c].depth };
			static uint64_t first[1000];

			cfg.engine = rec_wrap(cases[c].engine);
			/* the whole file: every block exactly once */
			assert_int_equal(run_hooks(test, &cfg, dir, n, 0, &sink), 0);
			assert_int_equal(nrec, n);
			assert_int_equal(count_blocks(n), n);
			assert_int_equal(sink.ops, n);
			assert_int_equal(sink.bytes, n * BS);
			assert_int_equal(hist.count, n);
			memcpy(first, rec, sizeof(first));
			/* the same seed and run index: the same order */
			nrec = 0;
			assert_int_equal(run_hooks(test, &cfg, dir, n, 0, &sink), 0);
			assert_memory_equal(rec, first, sizeof(first));
			/* another run index: another order, every block once */
			nrec = 0;
			assert_int_equal(run_hooks(test, &cfg, dir, n, 1, &sink), 0);
			assert_int_equal(count_blocks(n), n);
			assert_memory_not_equal(rec, first, sizeof(first));
			/* another seed: another order */
			nrec = 0;
			cfg.seed = 12;
			assert_int_equal(run_hooks(test, &cfg, dir, n, 0, &sink), 0);
			assert_int_equal(count_blocks(n), n);
			assert_memory_not_equal(rec, first, sizeof(first));
			/* less work than blocks: each block at most once */
			nrec = 0;
			assert_int_equal(run_hooks(test, &cfg, dir, 300, 3, &sink), 0);
			assert_int_equal(count_blocks(n), 300);
			assert_int_equal(sink.ops, 300);
		}
	}
	rm_dir(dir);
}

/* randread and randwrite of one run index take different orders. */
static void read_and_write_orders_differ(void **state)
{
	static uint64_t rd[500];
	char *dir = make_dir("/dev/shm");
	struct fsb_hist hist;
	struct fsb_sink sink = { .hist = &hist };
	struct fsb_config cfg = { .seed = 5, .size_bytes = 500 * BS, .cache = FSB_CACHE_KEEP };
	(void)state;

	cfg.engine = rec_wrap("psync");
	assert_int_equal(run_hooks("randread", &cfg, dir, 500, 0, &sink), 0);
	memcpy(rd, rec, sizeof(rd));
	nrec = 0;
	assert_int_equal(run_hooks("randwrite", &cfg, dir, 500, 0, &sink), 0);
	assert_memory_not_equal(rec, rd, sizeof(rd));
	rm_dir(dir);
}

/* ---- verification ---- */

static void randwrite_stamps_its_generation(void **state)
{
	const uint64_t n = 700;
	char *dir = make_dir("/dev/shm");
	uint64_t *gens = calloc(n, sizeof(*gens));
	struct fsb_hist hist;
	struct fsb_sink sink = { .hist = &hist };
	struct fsb_config cfg = {
		.seed = 3, .size_bytes = n * BS, .cache = FSB_CACHE_KEEP, .iodepth = 16
	};
	unsigned newer = 0;
	(void)state;

	assert_non_null(gens);
	cfg.engine = fsb_engine_find("io_uring");
	/* run index 2 writes generation 3 on every block */
	assert_int_equal(run_hooks("randwrite", &cfg, dir, n, 2, &sink), 0);
	read_gens(dir, n, gens);
	for (uint64_t b = 0; b < n; b++)
		assert_int_equal(gens[b], 3);
	/* run index 4 with 100 I/Os: 100 blocks of generation 5 */
	cfg.engine = fsb_engine_find("psync");
	assert_int_equal(run_hooks("randwrite", &cfg, dir, 100, 4, &sink), 0);
	read_gens(dir, n, gens);
	for (uint64_t b = 0; b < n; b++) {
		assert_true(gens[b] == 3 || gens[b] == 5);
		newer += gens[b] == 5;
	}
	assert_int_equal(newer, 100);
	/* and randread verifies what randwrite wrote */
	assert_int_equal(run_hooks("randread", &cfg, dir, n, 0, &sink), 0);
	free(gens);
	rm_dir(dir);
}

static void randread_catches_a_bad_block(void **state)
{
	static const char *const engines[] = { "psync", "io_uring" };
	const uint64_t n = 256;
	char *dir = make_dir("/dev/shm"), path[300], zero[BS], want[400];
	struct fsb_hist hist;
	struct fsb_sink sink = { .hist = &hist };
	struct fsb_config cfg = {
		.seed = 3, .size_bytes = n * BS, .cache = FSB_CACHE_KEEP, .iodepth = 4
	};
	struct captured cap;
	int fd;
	(void)state;

	/* make the file, then zero block 77 */
	assert_int_equal(run_hooks("randread", &cfg, dir, n, 0, &sink), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, FSB_RANDFILE_NAME);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	memset(zero, 0, sizeof(zero));
	assert_int_equal(pwrite(fd, zero, BS, 77 * BS), BS);
	close(fd);
	snprintf(want, sizeof(want),
		 "fsbench: randread: data mismatch in '%s' at offset %u: not fsbench data", path,
		 77 * BS);
	for (size_t i = 0; i < 2; i++) {
		const char *err;

		cfg.engine = fsb_engine_find(engines[i]);
		capture_start(&cap);
		assert_int_equal(run_hooks("randread", &cfg, dir, n, 0, &sink), -EIO);
		err = capture_end(&cap);
		assert_non_null(strstr(err, want));
		/* described once */
		assert_null(strstr(strstr(err, want) + 1, "fsbench:"));
	}
	/* the null engine moves no data: nothing to verify, no error */
	cfg.engine = fsb_engine_find("null");
	assert_int_equal(run_hooks("randread", &cfg, dir, n, 0, &sink), 0);
	rm_dir(dir);
}

static void size_below_one_block_refused(void **state)
{
	char *dir = make_dir("/dev/shm");
	struct fsb_hist hist;
	struct fsb_sink sink = { .hist = &hist };
	struct fsb_config cfg = { .seed = 3, .size_bytes = 1000, .cache = FSB_CACHE_KEEP };
	struct captured cap;
	(void)state;

	capture_start(&cap);
	assert_int_equal(run_hooks("randread", &cfg, dir, 1, 0, &sink), -EINVAL);
	assert_non_null(
		strstr(capture_end(&cap),
		       "fsbench: randread: --size 1000 is smaller than one block of 4096 bytes"));
	rm_dir(dir);
}

/* ---- through the runner ---- */

/* On a real file: the figure in ops/s, the latency, every kept run of the
 * same work, at most the file's blocks; the file verifies afterwards. */
static void measure(const char *parent, enum fsb_cache_mode cache, const char *engine,
		    unsigned depth)
{
	const uint64_t n = 2048; /* 8 MiB */
	char *dir = make_dir(parent);
	uint64_t *gens = calloc(n, sizeof(*gens));
	struct fsb_config cfg = { .repeat = 2,
				  .min_time_ns = 20000000,
				  .chunk_bytes = 8192,
				  .size_bytes = n * BS,
				  .seed = 9,
				  .cache = cache,
				  .iodepth = depth };
	struct fsb_runner rn = { .cfg = &cfg, .dir = dir };
	struct fsb_result res;
	const struct fsb_test_result *t;

	assert_non_null(gens);
	cfg.engine = fsb_engine_find(engine);
	fsb_warn_set_quiet(1); /* "under --min-time" on a fast machine */
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	assert_int_equal(fsb_runner_measure(&rn, fsb_registry_find("randread"), &res), 0);
	assert_int_equal(fsb_runner_measure(&rn, fsb_registry_find("randwrite"), &res), 0);
	fsb_warn_set_quiet(0);
	for (int i = 0; i < 2; i++) {
		t = fsb_result_find(&res, i ? "randwrite" : "randread");
		assert_non_null(t);
		assert_string_equal(t->unit, "ops/s");
		assert_int_equal(t->nruns, 2);
		assert_true(t->median > 0);
		assert_true(t->work >= 1 && t->work <= n);
		assert_true(t->has_latency);
		assert_true(t->latency.p50_us > 0);
		assert_true(t->latency.max_us >= t->latency.p99_us);
	}
	/* every block whole, and the last run's blocks of its generation */
	read_gens(dir, n, gens);
	free(gens);
	fsb_result_release(&res);
	rm_dir(dir);
}

static void through_runner_tmpfs(void **state)
{
	(void)state;
	/* keep: as root, drop would also drop the whole machine's cache */
	measure("/dev/shm", FSB_CACHE_KEEP, "psync", 1);
	measure("/dev/shm", FSB_CACHE_DIRECT, "io_uring", 16);
}

static void through_runner_disk_direct(void **state)
{
	(void)state;
	measure("/tmp", FSB_CACHE_DIRECT, "io_uring", 32);
	measure("/tmp", FSB_CACHE_DIRECT, "psync", 1);
}

/* Growth stops at the file's blocks, not at half of them. */
static void growth_stops_at_every_block(void **state)
{
	const uint64_t n = 8192;
	char *dir = make_dir("/dev/shm");
	struct fsb_config cfg = { .repeat = 1,
				  .min_time_ns = 5000000000ull,
				  .chunk_bytes = 8192,
				  .size_bytes = n * BS,
				  .seed = 9,
				  .cache = FSB_CACHE_KEEP,
				  .iodepth = 8 };
	struct fsb_runner rn = { .cfg = &cfg, .dir = dir };
	struct fsb_result res;
	const struct fsb_test_result *t;
	(void)state;

	cfg.engine = fsb_engine_find("null");
	fsb_warn_set_quiet(1);
	assert_int_equal(fsb_result_init(&res, "run"), 0);
	assert_int_equal(fsb_runner_measure(&rn, fsb_registry_find("randread"), &res), 0);
	fsb_warn_set_quiet(0);
	t = fsb_result_find(&res, "randread");
	assert_non_null(t);
	assert_int_equal(t->work, n);
	fsb_result_release(&res);
	rm_dir(dir);
}

/* ---- registry ---- */

static void random_family_is_opt_in(void **state)
{
	const struct fsb_workload_ops *ops[32];
	const char *const fams[] = { "throughput", "files", "random", NULL };
	int n;
	(void)state;

	assert_int_equal(fsb_registry_check(), 0);
	assert_string_equal(fsb_registry_find("randread")->family, "random");
	assert_string_equal(fsb_registry_find("randwrite")->family, "random");
	assert_int_equal(fsb_registry_select("random", fams, ops, 32), 2);
	assert_string_equal(ops[0]->name, "randread");
	assert_string_equal(ops[1]->name, "randwrite");
	assert_int_equal(fsb_registry_select("randwrite,randread", fams, ops, 32), 2);
	/* the default list and the throughput family leave them out */
	n = fsb_registry_select("throughput,files", fams, ops, 32);
	assert_int_equal(n, 12);
	for (int i = 0; i < n; i++)
		assert_string_not_equal(ops[i]->family, "random");
	assert_int_equal(fsb_registry_select("throughput", fams, ops, 32), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_block_once_per_run),
		cmocka_unit_test(read_and_write_orders_differ),
		cmocka_unit_test(randwrite_stamps_its_generation),
		cmocka_unit_test(randread_catches_a_bad_block),
		cmocka_unit_test(size_below_one_block_refused),
		cmocka_unit_test(through_runner_tmpfs),
		cmocka_unit_test(through_runner_disk_direct),
		cmocka_unit_test(growth_stops_at_every_block),
		cmocka_unit_test(random_family_is_opt_in),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
