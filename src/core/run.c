/*
 * fsbench run's executor: plan -> space check -> scratch directory ->
 * runner, test by test -> result document. The option parsing is
 * src/cli/run.c; the view is chosen and printed there too.
 */
#include "core/run.h"
#include "core/clean.h"
#include "core/registry.h"
#include "core/runner.h"
#include "device/diskstat.h"
#include "device/fsinfo.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/size.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const run_families[] = { "throughput", "files", "random", "null", NULL };

const char *fsb_run_test_names(void)
{
	static char names[512];

	if (!names[0])
		fsb_registry_names(run_families, names, sizeof(names));
	return names;
}

void fsb_run_plan_init(struct fsb_run_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->cfg = (struct fsb_config){
		.repeat = 3,
		.min_time_ns = 500000000ull,
		.cache = FSB_CACHE_DROP,
		.size_bytes = 1ull << 30,
		.chunk_bytes = 8192,
		.seeks = 8192,
		.seekers = 3,
		.files = 16384,
	};
}

int fsb_run_plan_check(struct fsb_run_plan *p)
{
	struct fsb_config *c = &p->cfg;
	int n;

	if (!fsb_is_pow2(c->chunk_bytes) || c->chunk_bytes < 512 || c->chunk_bytes > (64u << 20)) {
		fsb_err("invalid --chunk: expected a power of two from 512 to 64m");
		return -EINVAL;
	}
	if (c->size_bytes < c->chunk_bytes) {
		fsb_err("run: --size (%llu bytes) is smaller than --chunk (%llu bytes)",
			(unsigned long long)c->size_bytes, (unsigned long long)c->chunk_bytes);
		return -EINVAL;
	}
	c->size_bytes = c->size_bytes / c->chunk_bytes * c->chunk_bytes;
	if (c->links != FSB_LINKS_NONE && (c->file_max_bytes || c->file_min_bytes)) {
		fsb_err("run: --links makes links, which have no size: drop max/min from --files");
		return -EINVAL;
	}
	n = fsb_registry_select(p->tests ? p->tests : "throughput,files", run_families, p->ops,
				FSB_RUN_MAX_TESTS);
	if (n < 0)
		return -EINVAL;
	p->nops = (size_t)n;
	/* --files 0 skips the metadata suite, even when named in --tests. */
	if (!c->files) {
		size_t k = 0;

		for (size_t i = 0; i < p->nops; i++)
			if (strcmp(p->ops[i]->family, "files"))
				p->ops[k++] = p->ops[i];
		p->nops = k;
		if (!k && p->files_set) {
			fsb_err("run: nothing to do: --files 0 and no other test selected");
			return -EINVAL;
		}
	}
	return 0;
}

/* dir must exist, be a directory and be writable. */
static int check_dir(const char *dir)
{
	struct stat st;
	int err;

	if (stat(dir, &st) < 0) {
		err = -errno;
		fsb_err_errno(err, "run: cannot use '%s'", dir);
		return err;
	}
	if (!S_ISDIR(st.st_mode)) {
		fsb_err("run: cannot use '%s': Not a directory", dir);
		return -ENOTDIR;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		err = -errno;
		fsb_err_errno(err, "run: cannot write in '%s'", dir);
		return err;
	}
	return 0;
}

/* Whether path is on the filesystem (device) that holds /. */
static bool shares_root(const char *path)
{
	struct stat a, b;

	return stat(path, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev;
}

static int fill_result(const struct fsb_run_plan *p, const struct fsb_config *c,
		       const char *scratch, const struct fsb_fsinfo *fsi, const char *devname,
		       struct fsb_result *r)
{
	static const char *const links[] = { "none", "hard", "soft" };
	char list[512] = "";
	size_t len = 0;
	int err = 0;

	for (size_t i = 0; i < p->nops && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? "," : "",
					p->ops[i]->name);
	err |= fsb_result_fill_host(r);
	if (c->label)
		err |= fsb_strset(&r->setup.label, c->label);
	else
		err |= fsb_strset(&r->setup.label, fsi->fs_type[0] ? fsi->fs_type : "fsbench");
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
	err |= fsb_result_param_str(r, "char_io",
				    c->char_io == FSB_CHAR_STDIO ? "stdio" : "syscall");
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

/* The tests through the runner, in order; the first failure stops them. */
static int measure(const struct fsb_run_plan *p, const struct fsb_config *cfg, const char *scratch,
		   const char *statpath, bool cow, struct fsb_result *res)
{
	struct fsb_runner rn = {
		.cfg = cfg,
		.dir = scratch,
		.diskstat_path = statpath,
		.progress = !p->quiet && fsb_progress_enabled(p->progress),
		.progress_prefix = p->progress_prefix,
		.cow = cow,
	};
	int err = 0;

	if (rn.progress)
		fsb_progress_timer_start(250);
	for (size_t i = 0; i < p->nops && !err; i++)
		err = fsb_runner_measure(&rn, p->ops[i], res);
	if (rn.progress)
		fsb_progress_timer_stop();
	return err;
}

static int execute(const struct fsb_run_plan *p, const char *dir, struct fsb_result *res)
{
	struct fsb_config cfg = p->cfg;
	struct fsb_fsinfo fsi = { 0 };
	char scratch[PATH_MAX] = "", statpath[PATH_MAX], devname[64], devpath[80];
	const char *device_note = NULL;
	const struct fsb_test_result *t;
	bool have_dev;
	int err, rm;

	if (!p->seed_set)
		cfg.seed = fsb_default_seed();
	if ((err = fsb_runner_check_needs(p->ops, p->nops, fsb_runner_have())) ||
	    (err = check_dir(dir)))
		return err;
	/* Before the space check: a killed run's scratch dir may be what
	 * holds the space this one needs. */
	fsb_clean_warn_stale(dir);
	if ((err = fsb_runner_check_space(&cfg, p->ops, p->nops, dir)))
		return err;
	err = fsb_scratch_create(dir, scratch, sizeof(scratch));
	if (err) {
		fsb_err_errno(err, "run: cannot create a scratch directory in '%s'", dir);
		return err;
	}
	/* From here on every path out removes the scratch directory. */
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
	if (fsb_result_init(res, "run") ||
	    fill_result(p, &cfg, scratch, &fsi, have_dev ? devpath : NULL, res) ||
	    fsb_result_param_str(res, "device_stats", have_dev ? "on" : device_note)) {
		fsb_err("run: out of memory");
		err = -ENOMEM;
		goto out;
	}
	err = measure(p, &cfg, scratch, have_dev ? statpath : NULL, fsb_fsinfo_is_cow(fsi.fs_type),
		      res);
	if (!err && fsb_stop_requested())
		err = -EINTR;
	if (err)
		goto out;
	/* What the per-char tests really used (auto-scaled) goes in params. */
	if (!(t = fsb_result_find(res, "putc")))
		t = fsb_result_find(res, "getc");
	if (t && fsb_result_param_u64(res, "char_size_bytes", t->work))
		err = -ENOMEM;
out:
	rm = fsb_scratch_remove(scratch);
	if (rm) {
		fsb_err_errno(rm, "run: cannot remove scratch directory '%s'", scratch);
		err = err ? err : rm;
	}
	return err;
}

int fsb_run_execute(const struct fsb_run_plan *p, const char *dir, struct fsb_result *res,
		    struct fsb_error *e)
{
	struct fsb_err_scope scope;

	fsb_err_capture_begin(&scope, e, false);
	return fsb_err_capture_end(&scope, execute(p, dir, res));
}
