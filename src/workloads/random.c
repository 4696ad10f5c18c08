/*
 * Random I/O tests: randread and randwrite of --block-size blocks (default
 * 4 KiB) over a file of --size, through the configured engine at the
 * configured queue depth. What storage is bought on, next to bonnie's
 * seeks.
 *
 * A run of `work` I/Os takes the first `work` blocks of a random
 * permutation of the file's blocks (keyed by the seed and the run index),
 * so no block is touched twice in a run: nothing is served from the cache
 * a previous I/O filled, and with work = blocks every block is touched
 * exactly once. POSIX_FADV_RANDOM stops readahead from reading blocks the
 * test has not asked for yet; --cache=direct opens with O_DIRECT.
 *
 * The file ("random.dat", apart from the block tests' file) holds chunks
 * of the block file's verifiable format with chunk = block: randread
 * verifies every block it reads, randwrite stamps each block it writes
 * with the run's generation.
 *
 * Measurement policy: making the file, dropping it from the cache,
 * opening it and setting up the engine (io_uring's ring and registrations)
 * are untimed, in setup. The timed region is the I/O loop and, for
 * randwrite, the fsync through the engine (data on the device before the
 * clock stops, as the block write test). Latency is per I/O, from its
 * submission to its completion, stamped by the engine.
 */
#include "engines/engine.h"
#include "util/error.h"
#include "util/scratch.h"
#include "workloads/blockfile.h"
#include "workloads/names.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_BLOCK_BYTES 4096
/* I/Os of the first attempt: a quarter of a second at 16k IOPS; the
 * runner grows it to --min-time. */
#define START_IOS 4096
/* Keys of the two tests' orders: randwrite after randread in one run does
 * not retrace randread's order. */
#define SALT_READ 0x72616e6472656164ull	 /* "randread" */
#define SALT_WRITE 0x72616e6477726974ull /* "randwrit" */

struct random_priv {
	const char *test;
	struct fsb_block_io file; /* the file, its blocks' pattern, the engine and its buffers */
	size_t block;
	uint64_t nblocks;
	struct fsb_names_perm perm;
	uint64_t base; /* this job's range in a shared file */
	uint64_t k;    /* next index into the permutation */
	uint64_t work; /* I/Os this run */
	uint64_t gen;  /* randwrite's generation */
	bool writing;
	bool armed;    /* setup got as far as the file */
	bool done;     /* randwrite completed: every block is whole */
	bool stopping; /* the sink said stop: issue nothing new */
	struct fsb_sink *out;
	char path[4096];
};

static size_t block_of(const struct fsb_config *cfg)
{
	return cfg->block_bytes ? (size_t)cfg->block_bytes : DEFAULT_BLOCK_BYTES;
}

static uint64_t nblocks_of(const struct fsb_config *cfg)
{
	return cfg->size_bytes / block_of(cfg);
}

static uint64_t random_start(const struct fsb_ctx *ctx)
{
	uint64_t n = nblocks_of(ctx->cfg);

	return n < START_IOS ? n : START_IOS;
}

/* The cap is the file's blocks: every block at most once per run. */
static uint64_t random_max(const struct fsb_ctx *ctx)
{
	return nblocks_of(ctx->cfg);
}

/*
 * On a copy-on-write filesystem each block written takes a new one until
 * the transaction commits: randwrite is capped by the free space as well.
 */
static uint64_t randwrite_fit(const struct fsb_ctx *ctx, const struct fsb_space *share)
{
	if (!ctx->cow)
		return UINT64_MAX;
	return share->bytes / block_of(ctx->cfg);
}

/* The order of a run: a permutation of the blocks fixed by the seed, the
 * test and the run index, so each run touches other blocks first. */
static uint64_t order_key(const struct fsb_ctx *ctx, uint64_t salt)
{
	return (ctx->cfg->seed ^ salt) * 0x9e3779b97f4a7c15ull + ctx->run_index;
}

static int random_setup(struct fsb_ctx *ctx, struct random_priv *p, const char *test, bool writing)
{
	const struct fsb_config *cfg = ctx->cfg;
	int err;

	p->test = test;
	p->file.fd = -1;
	p->writing = writing;
	p->block = block_of(cfg);
	p->nblocks = nblocks_of(cfg);
	p->work = ctx->work < p->nblocks ? ctx->work : p->nblocks;
	p->out = NULL;
	/* A shared file: this job's blocks are its own range of it. */
	p->base = fsb_ctx_base(ctx, p->nblocks * p->block);
	if (p->block < 64 || p->block % 8 || p->block > UINT32_MAX) {
		/* The verifiable header and tail need room; the engine's
		 * lengths are 32-bit. */
		fsb_err("%s: invalid block size %zu bytes", test, p->block);
		return -EINVAL;
	}
	if (!p->nblocks) {
		fsb_err("%s: --size %llu is smaller than one block of %zu bytes", test,
			(unsigned long long)cfg->size_bytes, p->block);
		return -EINVAL;
	}
	err = fsb_scratch_path(ctx->dir, FSB_RANDFILE_NAME, p->path, sizeof(p->path));
	if (err)
		return err;
	p->armed = true;
	err = fsb_chunkfile_prepare(ctx, test, FSB_RANDFILE_NAME, p->block, FSB_CACHE_IO_BLOCK,
				    p->nblocks * p->block);
	if (err)
		return err;
	err = fsb_block_io_open(&p->file, ctx, test, FSB_RANDFILE_NAME, p->block,
				writing ? O_RDWR : O_RDONLY);
	if (err)
		return err;
	/* Readahead would read blocks the test has not asked for yet, and
	 * serve them from memory when it does. */
	err = posix_fadvise(p->file.fd, 0, 0, POSIX_FADV_RANDOM);
	if (err) {
		fsb_err_errno(-err, "%s: cannot advise random access on '%s'", test, p->path);
		return -err;
	}
	fsb_names_perm_init(&p->perm, p->nblocks, order_key(ctx, writing ? SALT_WRITE : SALT_READ));
	/* A new generation per run: what a later read finds tells which run
	 * wrote the block. */
	p->gen = (uint64_t)ctx->run_index + 1;
	return 0;
}

static int randread_setup(struct fsb_ctx *ctx, void *priv)
{
	return random_setup(ctx, priv, "randread", false);
}

static int randwrite_setup(struct fsb_ctx *ctx, void *priv)
{
	return random_setup(ctx, priv, "randwrite", true);
}

/* The driver's next(): the following block of the permutation. */
static int random_next(void *arg, struct fsb_io *io)
{
	struct random_priv *p = arg;

	if (p->stopping || p->k >= p->work)
		return FSB_ENGINE_END;
	io->off = p->base + fsb_names_perm_at(&p->perm, p->k++) * p->block;
	io->len = (uint32_t)p->block;
	if (p->writing) {
		io->op = FSB_IO_WRITE;
		/* Fresh data for every block, as the block write's. */
		fsb_pattern_fill(&p->file.pat, io->buf, io->off, p->gen);
	} else {
		io->op = FSB_IO_READ;
	}
	return FSB_ENGINE_NEXT;
}

/* The driver's done(): check the I/O and report it. */
static int random_done(void *arg, struct fsb_io *io, uint64_t lat_ns)
{
	struct random_priv *p = arg;
	int err;

	if (io->res < 0 || io->res < io->len)
		return fsb_workload_io_error(p->test, p->writing ? "write" : "read", p->path,
					     io->off, io->res < 0 ? (int)io->res : 0,
					     p->nblocks * p->block);
	if (!p->writing && p->file.verify) {
		err = fsb_block_verify(&p->file.pat, p->test, p->path, io->buf, io->off);
		if (err)
			return err;
	}
	err = fsb_sink_op(p->out, p->block, lat_ns);
	if (err == FSB_SINK_STOP)
		p->stopping = true;
	return err < 0 ? err : 0;
}

static int random_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	struct random_priv *p = priv;
	int err;

	(void)ctx;
	p->out = out;
	p->k = 0;
	p->stopping = false;
	err = fsb_engine_drive(&p->file.eng, random_next, random_done, p);
	if (err || !p->writing)
		return err;
	err = fsb_engine_fsync(&p->file.eng);
	if (err) {
		if (err == -EINTR && fsb_stop_requested())
			return err;
		fsb_err_errno(err, "%s: cannot flush '%s'", p->test, p->path);
		return err;
	}
	p->done = true;
	return 0;
}

static void random_teardown(struct fsb_ctx *ctx, void *priv)
{
	struct random_priv *p = priv;

	(void)ctx;
	if (!p->test)
		return; /* no setup ran */
	fsb_block_io_release(&p->file);
	/* A write cut short (out of space on a copy-on-write filesystem, a
	 * stop) may leave a torn block, which the next run would rightly
	 * call corrupt: remove the file, and the next setup makes it whole. */
	if (p->armed && p->writing && !p->done)
		unlink(p->path);
	p->armed = false;
}

const struct fsb_workload_ops fsb_wl_randread = {
	.name = "randread",
	.family = "random",
	.title = "random read: --block-size blocks in a random order, each once per run, "
		 "verified (--engine, --iodepth)",
	.flags = FSB_WL_ENGINE,
	.work_unit = FSB_WORK_OPS,
	.initial_work = random_start,
	.max_work = random_max,
	.work_granule = 1,
	.scratch_file = FSB_RANDFILE_NAME,
	.priv_size = sizeof(struct random_priv),
	.setup = randread_setup,
	.run = random_run,
	.teardown = random_teardown,
};

const struct fsb_workload_ops fsb_wl_randwrite = {
	.name = "randwrite",
	.family = "random",
	.title = "random write: --block-size blocks in a random order, each once per run; "
		 "fsync before the clock stops",
	.flags = FSB_WL_WRITES | FSB_WL_ENGINE,
	.work_unit = FSB_WORK_OPS,
	.initial_work = random_start,
	.max_work = random_max,
	.space_fit = randwrite_fit,
	.work_granule = 1,
	.scratch_file = FSB_RANDFILE_NAME,
	.priv_size = sizeof(struct random_priv),
	.setup = randwrite_setup,
	.run = random_run,
	.teardown = random_teardown,
};
