/*
 * fsbench run: the throughput and metadata suites in a scratch directory
 * under DIR. Options -> plan (struct fsb_config + test list) -> runner ->
 * result document -> the chosen view.
 */
#include "cli/commands.h"
#include "cli/options.h"
#include "core/clean.h"
#include "util/error.h"
#include "core/registry.h"
#include "core/runner.h"
#include "device/diskstat.h"
#include "device/fsinfo.h"
#include "report/result.h"
#include "report/writer.h"
#include "util/filespec.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/size.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TESTS 32

static const char usage_text[] =
	"usage: fsbench run [OPTIONS] [DIR]\n"
	"\n"
	"Benchmark the filesystem holding DIR (default .) in a scratch directory\n"
	"under it, removed at exit. Every figure is the median of --repeat runs,\n"
	"each at least --min-time long, with min, max, %%CPU and latency.\n"
	"\n"
	"Tests (--tests LIST, comma-separated ids or families 'throughput', 'files'):\n"
	"%s"
	"\n"
	"Options:\n"
	"  -s, --size SIZE        block test file size (default 1g; k, m, g suffixes)\n"
	"      --chunk SIZE       block I/O size, a power of two >= 512 (default 8k)\n"
	"      --char-size SIZE   per-char test size (default auto: grows to --min-time)\n"
	"      --char-io MODE     stdio (putc/getc, default) or syscall (1-byte read/write)\n"
	"      --seeks N          random seeks shared by the seekers (default 8192)\n"
	"      --seekers N        seeker processes (default 3)\n"
	"  -n, --files SPEC       N[:max[:min[:dirs]]] files (default 16k; 0 skips)\n"
	"      --links hard|soft  make links instead of files\n"
	"      --sync             fsync each file and directory (mail-server style)\n"
	"  -t, --tests LIST       tests to run (default: all)\n"
	"  -r, --repeat N         measured runs per figure (default 3)\n"
	"      --min-time SECS    shortest measured run; shorter ones grow (default 0.5)\n"
	"      --cache MODE       drop (default), direct (O_DIRECT) or keep\n"
	"  -l, --label NAME       name of this setup in reports\n"
	"      --seed N           seed for data, names and seek offsets (default random)\n"
	"  -f, --format VIEW      %s (default text)\n"
	"  -o, --output FILE      write the report to FILE, not stdout: a file is replaced\n"
	"                         atomically, a device or FIFO written (see fsbench(1))\n"
	"      --progress WHEN    auto (on a terminal), always or never\n"
	"  -q, --quiet            no progress and no warnings\n"
	"  -h, --help             this text\n"
	"  -V, --version          the version\n";

enum {
	OPT_CHUNK = 256, OPT_CHAR_SIZE, OPT_CHAR_IO, OPT_SEEKS, OPT_SEEKERS, OPT_MIN_TIME,
	OPT_CACHE, OPT_LINKS, OPT_SYNC,
};

static const struct option long_opts[] = {
	{ "size", required_argument, NULL, 's' },
	{ "chunk", required_argument, NULL, OPT_CHUNK },
	{ "char-size", required_argument, NULL, OPT_CHAR_SIZE },
	{ "char-io", required_argument, NULL, OPT_CHAR_IO },
	{ "seeks", required_argument, NULL, OPT_SEEKS },
	{ "seekers", required_argument, NULL, OPT_SEEKERS },
	{ "files", required_argument, NULL, 'n' },
	{ "links", required_argument, NULL, OPT_LINKS },
	{ "sync", no_argument, NULL, OPT_SYNC },
	{ "tests", required_argument, NULL, 't' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "min-time", required_argument, NULL, OPT_MIN_TIME },
	{ "cache", required_argument, NULL, OPT_CACHE },
	FSB_REPORT_LONG_OPTS,
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

struct run_plan {
	struct fsb_config cfg;
	const char *dir;
	const char *tests;
	const char *format;
	const char *output;
	enum fsb_progress progress;
	bool quiet;
	const struct fsb_workload_ops *ops[MAX_TESTS];
	size_t nops;
	const struct fsb_writer *writer;
	struct fsb_output out;      /* -o, checked before any work */
};

static const char *const run_families[] = { "throughput", "files", "null", NULL };

static void print_usage(FILE *out)
{
	char list[4096] = "";
	size_t len = 0;

	for (const struct fsb_workload_ops *const *w = fsb_registry_all(); *w; w++) {
		if (!strcmp((*w)->family, "throughput") || !strcmp((*w)->family, "files"))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "  %-12s %s\n",
						(*w)->name, (*w)->title);
		if (len >= sizeof(list))
			break;
	}
	fprintf(out, usage_text, list, fsb_writer_names_for(FSB_KIND_RUN));
}

/* Returns 0, or an exit status (FSB_EXIT_USAGE, or -1 for "done: exit 0"). */
static int parse(int argc, char **argv, struct run_plan *p)
{
	const struct fsb_report_opts ro = { &p->cfg.label, &p->cfg.seed, &p->format, &p->output,
					    &p->progress, &p->quiet };
	bool files_set = false;
	int c, err, rc;

	memset(p, 0, sizeof(*p));
	p->cfg = (struct fsb_config){
		.repeat = 3,
		.min_time_ns = 500000000ull,
		.cache = FSB_CACHE_DROP,
		.seed = fsb_default_seed(),
		.size_bytes = 1ull << 30,
		.chunk_bytes = 8192,
		.seeks = 8192,
		.seekers = 3,
		.files = 16384,
	};
	p->format = "text";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:n:t:r:l:f:o:qhV", long_opts, NULL)) != -1) {
		uint64_t v;

		switch (c) {
		case 's':
			if (fsb_opt_size("--size", optarg, &p->cfg.size_bytes))
				return FSB_EXIT_USAGE;
			break;
		case OPT_CHUNK:
			if (fsb_opt_size("--chunk", optarg, &p->cfg.chunk_bytes))
				return FSB_EXIT_USAGE;
			break;
		case OPT_CHAR_SIZE:
			if (!strcmp(optarg, "auto"))
				p->cfg.char_size_bytes = 0;
			else if (fsb_opt_size("--char-size", optarg, &p->cfg.char_size_bytes))
				return FSB_EXIT_USAGE;
			break;
		case OPT_CHAR_IO:
			if (!strcmp(optarg, "stdio"))
				p->cfg.char_io = FSB_CHAR_STDIO;
			else if (!strcmp(optarg, "syscall"))
				p->cfg.char_io = FSB_CHAR_SYSCALL;
			else
				return fsb_opt_bad("--char-io", optarg, "stdio or syscall");
			break;
		case OPT_SEEKS:
			if (fsb_opt_count("--seeks", optarg, 1, UINT32_MAX, &p->cfg.seeks))
				return FSB_EXIT_USAGE;
			break;
		case OPT_SEEKERS:
			if (fsb_opt_count("--seekers", optarg, 1, 64, &v))
				return FSB_EXIT_USAGE;
			p->cfg.seekers = (unsigned)v;
			break;
		case 'n':
			err = fsb_files_spec_parse(optarg, &p->cfg.files, &p->cfg.file_max_bytes,
						   &p->cfg.file_min_bytes, &p->cfg.file_dirs);
			if (err)
				return fsb_opt_bad("--files", optarg, "N[:max[:min[:dirs]]], min <= max");
			files_set = true;
			break;
		case OPT_LINKS:
			if (!strcmp(optarg, "hard"))
				p->cfg.links = FSB_LINKS_HARD;
			else if (!strcmp(optarg, "soft"))
				p->cfg.links = FSB_LINKS_SOFT;
			else
				return fsb_opt_bad("--links", optarg, "hard or soft");
			break;
		case OPT_SYNC:
			p->cfg.sync = true;
			break;
		case 't':
			p->tests = optarg;
			break;
		case 'r':
			if (fsb_opt_count("--repeat", optarg, 1, 1000, &v))
				return FSB_EXIT_USAGE;
			p->cfg.repeat = (unsigned)v;
			break;
		case OPT_MIN_TIME:
			if (fsb_opt_seconds("--min-time", optarg, &p->cfg.min_time_ns))
				return FSB_EXIT_USAGE;
			break;
		case OPT_CACHE:
			if (fsb_opt_cache(optarg, &p->cfg.cache))
				return FSB_EXIT_USAGE;
			break;
		case 'h':
			print_usage(stdout);
			return -1;
		case 'V':
			printf("fsbench %s\n", FSB_VERSION);
			return -1;
		default:
			rc = fsb_opt_report(c, optarg, &ro);
			if (rc < 0)
				return fsb_opt_unknown(argc, argv, c);
			if (rc)
				return rc;
		}
	}
	if (optind < argc)
		p->dir = argv[optind++];
	if (optind < argc) {
		fsb_err("run: unexpected argument '%s' (one DIR only)", argv[optind]);
		return FSB_EXIT_USAGE;
	}
	if (!p->dir)
		p->dir = ".";

	/* Checks across options, all before anything is created. */
	if (!fsb_is_pow2(p->cfg.chunk_bytes) || p->cfg.chunk_bytes < 512 ||
	    p->cfg.chunk_bytes > (64u << 20))
		return fsb_opt_bad("--chunk", NULL, "a power of two from 512 to 64m");
	if (p->cfg.size_bytes < p->cfg.chunk_bytes) {
		fsb_err("run: --size (%llu bytes) is smaller than --chunk (%llu bytes)",
			(unsigned long long)p->cfg.size_bytes,
			(unsigned long long)p->cfg.chunk_bytes);
		return FSB_EXIT_USAGE;
	}
	p->cfg.size_bytes = p->cfg.size_bytes / p->cfg.chunk_bytes * p->cfg.chunk_bytes;
	if (p->cfg.links != FSB_LINKS_NONE && (p->cfg.file_max_bytes || p->cfg.file_min_bytes)) {
		fsb_err("run: --links makes links, which have no size: drop max/min from --files");
		return FSB_EXIT_USAGE;
	}
	p->writer = fsb_writer_select(p->format, "run");
	if (!p->writer)
		return FSB_EXIT_USAGE;
	{
		const char *list = p->tests ? p->tests : "throughput,files";
		int n = fsb_registry_select(list, run_families, p->ops, MAX_TESTS);

		if (n < 0)
			return FSB_EXIT_USAGE;
		p->nops = (size_t)n;
	}
	/* --files 0 skips the metadata suite, even when named in --tests. */
	if (!p->cfg.files) {
		size_t k = 0;
		for (size_t i = 0; i < p->nops; i++)
			if (strcmp(p->ops[i]->family, "files"))
				p->ops[k++] = p->ops[i];
		p->nops = k;
		if (!k && files_set) {
			fsb_err("run: nothing to do: --files 0 and no other test selected");
			return FSB_EXIT_USAGE;
		}
	}
	p->cfg.label = p->cfg.label ? p->cfg.label : NULL;
	/* Last: the only check that holds something (released by the caller). */
	if (fsb_output_open(&p->out, p->output, NULL, 0))
		return FSB_EXIT_USAGE;
	return 0;
}

/* DIR must exist, be a directory and be writable: runtime errors (1). */
static int check_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		fsb_err_errno(-errno, "run: cannot use '%s'", dir);
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode)) {
		fsb_err("run: cannot use '%s': Not a directory", dir);
		return -ENOTDIR;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		fsb_err_errno(-errno, "run: cannot write in '%s'", dir);
		return -EACCES;
	}
	return 0;
}

/* Whether path is on the filesystem (device) that holds /. */
static bool shares_root(const char *path)
{
	struct stat a, b;

	return stat(path, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev;
}

static int fill_result(const struct run_plan *p, const char *scratch,
		       const struct fsb_fsinfo *fsi, const char *devname,
		       struct fsb_result *r)
{
	const struct fsb_config *c = &p->cfg;
	static const char *const links[] = { "none", "hard", "soft" };
	char list[512] = "";
	size_t len = 0;
	int err = 0;

	for (size_t i = 0; i < p->nops && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? "," : "",
					p->ops[i]->name);
	err |= fsb_result_fill_host(r);
	err |= fsb_strset(&r->setup.label, c->label ? c->label : fsi->fs_type[0] ? fsi->fs_type : "fsbench");
	err |= fsb_strset(&r->setup.dir, scratch);
	if (fsi->fs_type[0]) {
		err |= fsb_strset(&r->setup.fs_type, fsi->fs_type);
		err |= fsb_strset(&r->setup.mount_options, fsi->options);
	}
	if (devname)
		err |= fsb_strset(&r->setup.device, devname);
	err |= fsb_result_param_u64(r, "size_bytes", c->size_bytes);
	err |= fsb_result_param_u64(r, "chunk_bytes", c->chunk_bytes);
	err |= fsb_result_param_u64(r, "char_size_bytes", c->char_size_bytes);
	err |= fsb_result_param_str(r, "char_io", c->char_io == FSB_CHAR_STDIO ? "stdio" : "syscall");
	err |= fsb_result_param_u64(r, "seeks", c->seeks);
	err |= fsb_result_param_u64(r, "seekers", c->seekers);
	err |= fsb_result_param_u64(r, "files", c->files);
	err |= fsb_result_param_u64(r, "file_max_bytes", c->file_max_bytes);
	err |= fsb_result_param_u64(r, "file_min_bytes", c->file_min_bytes);
	err |= fsb_result_param_u64(r, "file_dirs", c->file_dirs);
	err |= fsb_result_param_str(r, "links", links[c->links]);
	err |= fsb_result_param_bool(r, "sync", c->sync);
	err |= fsb_result_param_u64(r, "repeat", c->repeat);
	err |= fsb_result_param_double(r, "min_time_s", (double)c->min_time_ns / 1e9);
	err |= fsb_result_param_str(r, "cache", fsb_cache_mode_name(c->cache));
	err |= fsb_result_param_u64(r, "seed", c->seed);
	err |= fsb_result_param_str(r, "tests", list);
	return err ? -ENOMEM : 0;
}

int fsb_cmd_run(int argc, char **argv)
{
	struct run_plan p;
	struct fsb_result res = { 0 };
	struct fsb_fsinfo fsi = { 0 };
	char scratch[PATH_MAX] = "", statpath[PATH_MAX], devname[64], devpath[80];
	const char *device_note = NULL;
	bool have_dev;
	int rc = parse(argc, argv, &p), err;

	if (rc)
		return rc < 0 ? FSB_EXIT_OK : rc;
	fsb_warn_set_quiet(p.quiet);
	rc = FSB_EXIT_FAIL;
	if (check_dir(p.dir))
		goto out;
	/* Before the space check: a killed run's scratch dir may be what
	 * holds the space this one needs. */
	fsb_clean_warn_stale(p.dir);
	if (fsb_runner_check_space(&p.cfg, p.ops, p.nops, p.dir))
		goto out;
	err = fsb_scratch_create(p.dir, scratch, sizeof(scratch));
	if (err) {
		fsb_err_errno(err, "run: cannot create a scratch directory in '%s'", p.dir);
		scratch[0] = '\0';
		goto out;
	}
	/* From here on every path out removes the scratch directory. */
	rc = FSB_EXIT_FAIL;
	fsb_fsinfo_for_path(scratch, &fsi);
	have_dev = !fsb_diskstat_path_for(scratch, statpath, sizeof(statpath), devname,
					  sizeof(devname));
	/*
	 * Device truth only where the device is the test's own: the disk that
	 * holds / also carries the system's and everyone's I/O, so its counters
	 * would be charged to the test (a "write amplification" of 2 that is
	 * just the journal of someone else's work).
	 */
	if (have_dev && shares_root(scratch)) {
		have_dev = false;
		device_note = "off: the filesystem of / (its I/O is not only the test's)";
	}
	if (have_dev)
		snprintf(devpath, sizeof(devpath), "/dev/%s", devname);
	if (!have_dev && !device_note)
		device_note = "off: no block device behind the filesystem";
	if (fsb_result_init(&res, "run") ||
	    fill_result(&p, scratch, &fsi, have_dev ? devpath : NULL, &res) ||
	    fsb_result_param_str(&res, "device_stats", have_dev ? "on" : device_note)) {
		fsb_err("run: out of memory");
		goto out;
	}
	{
		struct fsb_runner rn = {
			.cfg = &p.cfg,
			.dir = scratch,
			.diskstat_path = have_dev ? statpath : NULL,
			.progress = !p.quiet && fsb_progress_enabled(p.progress),
			.cow = fsb_fsinfo_is_cow(fsi.fs_type),
		};

		if (rn.progress)
			fsb_progress_timer_start(250);
		for (size_t i = 0; i < p.nops; i++) {
			err = fsb_runner_measure(&rn, p.ops[i], &res);
			if (err)
				break;
		}
		if (rn.progress)
			fsb_progress_timer_stop();
	}
	if (fsb_stop_requested()) {
		rc = 128 + fsb_stop_signo();
		goto out;
	}
	if (err)
		goto out;
	/* What the per-char tests really used (auto-scaled) goes in params. */
	{
		const struct fsb_test_result *t = fsb_result_find(&res, "putc");
		if (!t)
			t = fsb_result_find(&res, "getc");
		if (t && fsb_result_param_u64(&res, "char_size_bytes", t->work))
			goto out;
	}
	rc = fsb_writer_output(p.writer, &res, &p.out) ? FSB_EXIT_FAIL : FSB_EXIT_OK;
out:
	err = scratch[0] ? fsb_scratch_remove(scratch) : 0;
	if (err) {
		fsb_err_errno(err, "run: cannot remove scratch directory '%s'", scratch);
		if (rc == FSB_EXIT_OK)
			rc = FSB_EXIT_FAIL;
	}
	fsb_result_release(&res);
	fsb_output_release(&p.out);
	return rc;
}
