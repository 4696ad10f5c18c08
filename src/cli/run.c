/*
 * fsbench run: argv -> plan (struct fsb_run_plan) -> fsb_run_execute ->
 * the result in the chosen view.
 */
#include "cli/run.h"
#include "cli/commands.h"
#include "core/registry.h"
#include "core/runner.h"
#include "report/views.h"
#include "util/error.h"
#include "util/filespec.h"
#include "util/signals.h"

#include <stdio.h>
#include <string.h>

static const char usage_text[] =
	"usage: fsbench run [OPTIONS] [DIR]\n"
	"\n"
	"Benchmark the filesystem holding DIR (default .) in a scratch directory\n"
	"under it, removed at exit. Every figure is the median of --repeat runs,\n"
	"each at least --min-time long, with min, max, %%CPU and latency.\n"
	"\n"
	"Tests (--tests LIST, comma-separated ids or families 'throughput', 'files',\n"
	"'random'; the random tests run only when named):\n"
	"%s"
	"\n"
	"Options:\n"
	"  -s, --size SIZE        block test file size, used exactly when given\n"
	"                         (default 1g, grown to --min-time; k, m, g suffixes)\n"
	"      --chunk SIZE       block I/O size, a power of two >= 512 (default 8k)\n"
	"      --char-size SIZE   per-char test size (default auto: grows to --min-time)\n"
	"      --char-io MODE     stdio (putc/getc, default) or syscall (1-byte read/write)\n"
	"      --seeks N          random seeks shared by the seekers (default 8192)\n"
	"      --seekers N        seeker processes (default 3)\n"
	"  -n, --files SPEC       N[:max[:min[:dirs]]] files (default 16k; 0 skips)\n"
	"      --links hard|soft  make links instead of files\n"
	"      --sync             fsync each file and directory (mail-server style)\n"
	"  -t, --tests LIST       tests to run (default: throughput,files)\n"
	"  -r, --repeat N|auto    measured runs per figure (default 3); auto: %d to %d,\n"
	"                         until the mean's 95%% interval is within +-%g%%\n"
	"      --min-time SECS    shortest measured run; shorter ones grow (default 0.5)\n"
	"      --cache MODE       drop (default: evict fsbench's own files), direct\n"
	"                         (O_DIRECT), keep, or drop-all (root: also empty the\n"
	"                         whole machine's caches, the only cold stat tests\n"
	"                         outside a matrix)\n"
	"      --data PATTERN     the written data: random (default), zero,\n"
	"                         compressible:PCT (shrinks by PCT%% under zstd/zlib)\n"
	"                         or dedupe:PCT (PCT%% of chunks repeat an earlier one)\n"
	"      --engine NAME      I/O engine of the block and random tests: %s\n"
	"                         (default psync)\n"
	"      --iodepth N        I/Os in flight per job, 1 to 1024 (default 1)\n"
	"      --block-size SIZE  randread/randwrite I/O size, a power of two >= 512\n"
	"                         (default 4k)\n"
	"  -j, --jobs N           N copies of each test at once, 1 to 1024 (default 1);\n"
	"                         figures are aggregates: all jobs' work / (last end -\n"
	"                         first start)\n"
	"      --shared-file      the jobs share one file, each its own range\n"
	"      --shared-dir       the metadata jobs share one directory\n"
	"      --stonewall        stop every job when the first one finishes\n"
	"      --deadline SECS    stop every job this long after the start\n"
	"      --no-device-capability\n"
	"                         do not measure the raw device under DIR (by default\n"
	"                         read-only, O_DIRECT, ~1 s, before the tests)\n"
	"      --reorder          fsbench-mpi: each rank reads back the files another\n"
	"                         host's rank wrote (IOR's -C), not its own\n"
	"  -l, --label NAME       name of this setup in reports\n"
	"      --seed N           seed for data, names and seek offsets (default random)\n"
	"  -f, --format VIEW      %s (default text)\n"
	"  -o, --output FILE      write the report to FILE, not stdout: a file is replaced\n"
	"                         atomically, a device or FIFO written (see fsbench(1))\n"
	"      --progress WHEN    auto (on a terminal), always, never, or json (JSON\n"
	"                         lines on stderr for wrappers)\n"
	"  -q, --quiet            no progress and no warnings\n"
	"  -h, --help             this text\n"
	"  -V, --version          the version\n";

enum {
	OPT_CHUNK = 256,
	OPT_CHAR_SIZE,
	OPT_CHAR_IO,
	OPT_SEEKS,
	OPT_SEEKERS,
	OPT_MIN_TIME,
	OPT_CACHE,
	OPT_LINKS,
	OPT_SYNC,
	OPT_ENGINE,
	OPT_IODEPTH,
	OPT_BLOCK_SIZE,
	OPT_SHARED_FILE,
	OPT_SHARED_DIR,
	OPT_STONEWALL,
	OPT_DEADLINE,
	OPT_NO_DEVCAP,
	OPT_REORDER,
	OPT_DATA,
};

/* The words of --char-io and --links, in their enums' order. */
static const char *char_io_words(void)
{
	return "stdio|syscall";
}

static const char *links_words(void)
{
	return "hard|soft";
}

static const char *run_formats(void)
{
	return fsb_view_names(FSB_KIND_RUN);
}

static const struct fsb_opt run_opts[] = {
	{ "size", 's', FSB_VAL_SIZE, NULL },
	{ "chunk", OPT_CHUNK, FSB_VAL_SIZE, NULL },
	{ "char-size", OPT_CHAR_SIZE, FSB_VAL_SIZE, NULL },
	{ "char-io", OPT_CHAR_IO, FSB_VAL_WORD, char_io_words },
	{ "seeks", OPT_SEEKS, FSB_VAL_NUMBER, NULL },
	{ "seekers", OPT_SEEKERS, FSB_VAL_NUMBER, NULL },
	{ "files", 'n', FSB_VAL_TEXT, NULL },
	{ "links", OPT_LINKS, FSB_VAL_WORD, links_words },
	{ "sync", OPT_SYNC, FSB_VAL_NONE, NULL },
	{ "tests", 't', FSB_VAL_LIST, fsb_run_test_names },
	{ "repeat", 'r', FSB_VAL_NUMBER, NULL },
	{ "min-time", OPT_MIN_TIME, FSB_VAL_SECONDS, NULL },
	{ "cache", OPT_CACHE, FSB_VAL_WORD, fsb_cache_mode_names },
	{ "engine", OPT_ENGINE, FSB_VAL_WORD, fsb_run_engine_names },
	{ "iodepth", OPT_IODEPTH, FSB_VAL_NUMBER, NULL },
	{ "block-size", OPT_BLOCK_SIZE, FSB_VAL_SIZE, NULL },
	{ "jobs", 'j', FSB_VAL_NUMBER, NULL },
	{ "shared-file", OPT_SHARED_FILE, FSB_VAL_NONE, NULL },
	{ "shared-dir", OPT_SHARED_DIR, FSB_VAL_NONE, NULL },
	{ "stonewall", OPT_STONEWALL, FSB_VAL_NONE, NULL },
	{ "deadline", OPT_DEADLINE, FSB_VAL_SECONDS, NULL },
	{ "no-device-capability", OPT_NO_DEVCAP, FSB_VAL_NONE, NULL },
	{ "reorder", OPT_REORDER, FSB_VAL_NONE, NULL },
	{ "data", OPT_DATA, FSB_VAL_TEXT, NULL },
	{ NULL, 0, FSB_VAL_NONE, NULL },
};

static void print_usage(FILE *out)
{
	char list[4096] = "";
	size_t len = 0;

	for (const struct fsb_workload_ops *const *w = fsb_registry_all(); *w; w++) {
		if (!strcmp((*w)->family, "throughput") || !strcmp((*w)->family, "files") ||
		    !strcmp((*w)->family, "random"))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "  %-12s %s\n",
						(*w)->name, (*w)->title);
		if (len >= sizeof(list))
			break;
	}
	/* The --repeat auto numbers are the runner's own, never copied. */
	fprintf(out, usage_text, list, FSB_RUNNER_AUTO_MIN_RUNS, FSB_RUNNER_AUTO_MAX_RUNS,
		FSB_RUNNER_AUTO_REL * 100, fsb_run_engine_names(), fsb_view_names(FSB_KIND_RUN));
}

static int run_option(void *ctx, int c, const char *arg)
{
	struct fsb_run_plan *p = ctx;
	struct fsb_config *cfg = &p->cfg;
	uint64_t v;
	unsigned i;

	switch (c) {
	case 's':
		cfg->size_given = true;
		return fsb_opt_size("--size", arg, &cfg->size_bytes);
	case OPT_CHUNK:
		return fsb_opt_size("--chunk", arg, &cfg->chunk_bytes);
	case OPT_CHAR_SIZE:
		if (!strcmp(arg, "auto")) {
			cfg->char_size_bytes = 0;
			return 0;
		}
		return fsb_opt_size("--char-size", arg, &cfg->char_size_bytes);
	case OPT_CHAR_IO:
		if (fsb_opt_word("--char-io", arg, char_io_words(), &i))
			return FSB_EXIT_USAGE;
		cfg->char_io = i ? FSB_CHAR_SYSCALL : FSB_CHAR_STDIO;
		return 0;
	case OPT_SEEKS:
		cfg->seeks_given = true;
		return fsb_opt_count("--seeks", arg, 1, UINT32_MAX, &cfg->seeks);
	case OPT_SEEKERS:
		if (fsb_opt_count("--seekers", arg, 1, 64, &v))
			return FSB_EXIT_USAGE;
		cfg->seekers = (unsigned)v;
		return 0;
	case 'n':
		if (fsb_files_spec_parse(arg, &cfg->files, &cfg->file_max_bytes,
					 &cfg->file_min_bytes, &cfg->file_dirs))
			return fsb_opt_bad("--files", arg,
					   "N[:max[:min[:dirs]]], N up to 9999999, min <= max, "
					   "dirs up to 99999");
		cfg->files_given = true;
		return 0;
	case OPT_LINKS:
		if (fsb_opt_word("--links", arg, links_words(), &i))
			return FSB_EXIT_USAGE;
		cfg->links = i ? FSB_LINKS_SOFT : FSB_LINKS_HARD;
		return 0;
	case OPT_SYNC:
		cfg->sync = true;
		return 0;
	case 't':
		p->tests = arg;
		return 0;
	case 'r':
		p->repeat_set = true;
		/* auto: as many runs as the mean needs (core/runner.h). */
		if (arg && !strcmp(arg, "auto")) {
			fsb_runner_repeat_auto(cfg);
			return 0;
		}
		cfg->repeat_auto = false;
		/* Not a count: the message names both forms it takes. */
		if (!fsb_opt_is_count(arg, 1, 1000, &v))
			return fsb_opt_bad("--repeat", arg,
					   "a whole number from 1 to 1000, or auto");
		cfg->repeat = (unsigned)v;
		return 0;
	case OPT_MIN_TIME:
		return fsb_opt_seconds("--min-time", arg, &cfg->min_time_ns);
	case OPT_CACHE:
		return fsb_opt_cache(arg, &cfg->cache);
	case OPT_ENGINE:
		p->engine = arg; /* resolved by fsb_run_plan_check */
		return 0;
	case OPT_IODEPTH:
		if (fsb_opt_count("--iodepth", arg, 1, FSB_RUN_MAX_IODEPTH, &v))
			return FSB_EXIT_USAGE;
		cfg->iodepth = (unsigned)v;
		return 0;
	case OPT_BLOCK_SIZE:
		return fsb_opt_size("--block-size", arg, &cfg->block_bytes);
	case 'j':
		if (fsb_opt_count("--jobs", arg, 1, FSB_RUN_MAX_JOBS, &v))
			return FSB_EXIT_USAGE;
		cfg->jobs = (unsigned)v;
		return 0;
	case OPT_SHARED_FILE:
		cfg->shared_file = true;
		return 0;
	case OPT_SHARED_DIR:
		cfg->shared_dir = true;
		return 0;
	case OPT_STONEWALL:
		cfg->stonewall = true;
		return 0;
	case OPT_DEADLINE:
		return fsb_opt_seconds("--deadline", arg, &cfg->deadline_ns);
	case OPT_NO_DEVCAP:
		p->no_devcap = true;
		return 0;
	case OPT_REORDER:
		p->reorder = true;
		return 0;
	case OPT_DATA:
		return fsb_opt_data(arg, &cfg->data);
	}
	return FSB_EXIT_USAGE;
}

const struct fsb_cmd_spec fsb_run_spec = {
	.name = "run",
	.common = FSB_OPT_REPORTING,
	.opts = run_opts,
	.operands = FSB_VAL_DIR,
	.formats = run_formats,
	.own = run_option,
};

int fsb_run_parse(int argc, char **argv, const struct fsb_cli_nest *nest, struct fsb_run_cli *out)
{
	struct fsb_run_plan *p = &out->plan;
	int rc, i;

	memset(out, 0, sizeof(*out));
	fsb_run_plan_init(p);
	out->dir = ".";
	rc = fsb_cli_getopt(&fsb_run_spec, argc, argv, nest, p, &out->co, &i);
	if (rc || (out->co.given & FSB_OPT_BASIC))
		return rc;
	if (i < argc)
		out->dir = argv[i++];
	if (i < argc) {
		fsb_err("run: unexpected argument '%s' (one DIR only)", argv[i]);
		return FSB_EXIT_USAGE;
	}
	p->cfg.label = out->co.label;
	p->cfg.seed = out->co.seed;
	p->seed_set = out->co.given & FSB_OPT_SEED;
	p->progress = out->co.progress;
	p->quiet = out->co.quiet;
	return fsb_run_plan_check(p) ? FSB_EXIT_USAGE : 0;
}

int fsb_cmd_run(int argc, char **argv)
{
	struct fsb_run_cli cli;
	struct fsb_result res = { 0 };
	struct fsb_output out = { 0 };
	const struct fsb_view *w;
	int rc = fsb_run_parse(argc, argv, NULL, &cli), err;
	bool reports = fsb_run_reports();

	if (rc || fsb_cli_answered(&cli.co, print_usage))
		return rc;
	w = fsb_view_select(cli.co.format ? cli.co.format : "text", "run");
	/* Last: the only check that holds something. Only the process that
	 * reports (fsbench-mpi's rank 0) opens the output. */
	if (!w || (reports && fsb_output_open(&out, cli.co.output, NULL, 0)))
		return FSB_EXIT_USAGE;
	fsb_warn_set_quiet(cli.plan.quiet || !reports);
	err = fsb_run_execute(&cli.plan, cli.dir, &res, NULL);
	if (fsb_stop_requested())
		rc = 128 + fsb_stop_signo();
	else if (err || (reports && fsb_view_output_result(w, &res, &out)))
		rc = FSB_EXIT_FAIL;
	fsb_result_release(&res);
	fsb_output_release(&out);
	return rc;
}
