/*
 * engine-bench: fsbench's randread on one file, measured exactly as
 * `fsbench run --tests randread` measures it (fsb_runner_measure), for
 * bench/engines.sh to compare with fio at the same queue depth before the
 * command-line options exist.
 *
 *   engine-bench DIR [--engine NAME] [--iodepth N] [--size SIZE]
 *                [--block-size SIZE] [--cache drop|direct|keep] [--seed N]
 *                [--prepare]
 *
 * DIR is used as the scratch directory: the file is DIR/random.dat (made
 * if missing, as the test's setup does). --prepare only makes the file.
 * Otherwise one measured run reads every block once (the run grows to the
 * file's blocks, as fio's randread of --size does), and one line is
 * printed: "iops=N p99_us=N p50_us=N work=N seconds=N cpu_pct=N".
 */
#include "core/registry.h"
#include "core/runner.h"
#include "engines/engine.h"
#include "report/result.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/size.h"
#include "workloads/blockfile.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
	fprintf(stderr,
		"usage: engine-bench DIR [--engine %s] [--iodepth N] [--size SIZE] "
		"[--block-size SIZE] [--cache drop|direct|keep] [--seed N] [--prepare]\n",
		fsb_engine_names());
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "engine", required_argument, NULL, 'e' },
		{ "iodepth", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "block-size", required_argument, NULL, 'b' },
		{ "cache", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 'S' },
		{ "prepare", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct fsb_config cfg = {
		.repeat = 1,
		/* Never long enough: the run grows to every block of the file. */
		.min_time_ns = 3600ull * 1000000000ull,
		.cache = FSB_CACHE_DIRECT,
		.seed = 1,
		.size_bytes = 256u << 20,
		.chunk_bytes = 8192,
		.block_bytes = 4096,
		.iodepth = 1,
	};
	struct fsb_runner rn = { .cfg = &cfg };
	struct fsb_result res;
	const struct fsb_test_result *t;
	unsigned long long v;
	bool prepare = false;
	int c, err;

	if (fsb_engine_check() || fsb_registry_check() || fsb_signals_install())
		return 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			cfg.engine = fsb_engine_find(optarg);
			if (!cfg.engine) {
				fsb_err("unknown engine '%s': expected %s", optarg,
					fsb_engine_names());
				return 2;
			}
			break;
		case 'd':
			v = strtoull(optarg, NULL, 10);
			if (!v || v > 4096)
				return usage();
			cfg.iodepth = (unsigned)v;
			break;
		case 's':
		case 'b':
			if (fsb_size_parse(optarg, c == 's' ? &cfg.size_bytes : &cfg.block_bytes))
				return usage();
			break;
		case 'c':
			if (!strcmp(optarg, "drop"))
				cfg.cache = FSB_CACHE_DROP;
			else if (!strcmp(optarg, "direct"))
				cfg.cache = FSB_CACHE_DIRECT;
			else if (!strcmp(optarg, "keep"))
				cfg.cache = FSB_CACHE_KEEP;
			else
				return usage();
			break;
		case 'S':
			cfg.seed = strtoull(optarg, NULL, 10);
			break;
		case 'p':
			prepare = true;
			break;
		default:
			return usage();
		}
	}
	if (optind != argc - 1 || !cfg.block_bytes || cfg.size_bytes < cfg.block_bytes)
		return usage();
	rn.dir = argv[optind];
	if (prepare) {
		struct fsb_ctx ctx = { .cfg = &cfg, .dir = rn.dir };

		return fsb_chunkfile_prepare(&ctx, "engine-bench", FSB_RANDFILE_NAME,
					     cfg.block_bytes,
					     cfg.size_bytes / cfg.block_bytes * cfg.block_bytes)
			       ? 1
			       : 0;
	}
	fsb_warn_set_quiet(1); /* "under --min-time": on purpose */
	if (fsb_result_init(&res, "run"))
		return 1;
	err = fsb_runner_measure(&rn, fsb_registry_find("randread"), &res);
	t = err ? NULL : fsb_result_find(&res, "randread");
	if (t)
		printf("iops=%.0f p99_us=%.1f p50_us=%.1f work=%llu seconds=%.3f cpu_pct=%.1f\n",
		       t->median, t->latency.p99_us, t->latency.p50_us, (unsigned long long)t->work,
		       t->elapsed_s, t->cpu_pct);
	fsb_result_release(&res);
	return t ? 0 : 1;
}
