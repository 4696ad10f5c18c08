/*
 * fsbench run's executor: plan -> space check -> scratch directory ->
 * runner, test by test -> result document. The option parsing is
 * src/cli/run.c; the view is chosen and printed there too.
 */
#include "core/run.h"
#include "core/clean.h"
#include "core/group.h"
#include "core/registry.h"
#include "core/runner.h"
#include "device/diskstat.h"
#include "device/fsinfo.h"
#include "engines/engine.h"
#include "util/io.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/size.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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
		.jobs = 1,
		.iodepth = 1,
		.block_bytes = 4096,
	};
}

const char *fsb_run_engine_names(void)
{
	return fsb_engine_names();
}

/* Whether a test of this family is selected. */
static bool has_family(const struct fsb_run_plan *p, const char *family)
{
	for (size_t i = 0; i < p->nops; i++)
		if (!strcmp(p->ops[i]->family, family))
			return true;
	return false;
}

/* Whether a selected test works on a file (what --shared-file shares). */
static bool has_file_test(const struct fsb_run_plan *p)
{
	for (size_t i = 0; i < p->nops; i++)
		if (!(p->ops[i]->flags & FSB_WL_NAMES) && strcmp(p->ops[i]->family, "null"))
			return true;
	return false;
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
	if (!fsb_is_pow2(c->block_bytes) || c->block_bytes < 512 || c->block_bytes > (64u << 20)) {
		fsb_err("invalid --block-size: expected a power of two from 512 to 64m");
		return -EINVAL;
	}
	c->engine = p->engine ? fsb_engine_find(p->engine) : fsb_engine_default();
	if (!c->engine) {
		fsb_err("invalid --engine '%s': expected %s", p->engine, fsb_engine_names());
		return -EINVAL;
	}
	if (c->links != FSB_LINKS_NONE && (c->file_max_bytes || c->file_min_bytes)) {
		fsb_err("run: --links makes links, which have no size: drop max/min from --files");
		return -EINVAL;
	}
	n = fsb_registry_select(p->tests ? p->tests : "throughput,files", run_families, p->ops,
				FSB_RUN_MAX_TESTS);
	if (n < 0)
		return -EINVAL;
	p->nops = (size_t)n;
	if (has_family(p, "random") && c->size_bytes < c->block_bytes) {
		fsb_err("run: --size (%llu bytes) is smaller than --block-size (%llu bytes)",
			(unsigned long long)c->size_bytes, (unsigned long long)c->block_bytes);
		return -EINVAL;
	}
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
	if (c->repeat_auto)
		err |= fsb_result_param_str(r, "repeat", "auto");
	else
		err |= fsb_result_param_u64(r, "repeat", c->repeat);
	err |= fsb_result_param_double(r, "min_time_s", (double)c->min_time_ns / 1e9);
	err |= fsb_result_param_str(r, "cache", fsb_cache_mode_name(c->cache));
	err |= fsb_result_param_u64(r, "seed", c->seed);
	err |= fsb_result_param_str(r, "tests", list);
	err |= fsb_result_param_u64(r, "jobs", c->jobs ? c->jobs : 1);
	err |= fsb_result_param_bool(r, "shared_file", c->shared_file);
	err |= fsb_result_param_bool(r, "shared_dir", c->shared_dir);
	err |= fsb_result_param_bool(r, "stonewall", c->stonewall);
	if (c->deadline_ns)
		err |= fsb_result_param_double(r, "deadline_s", (double)c->deadline_ns / 1e9);
	err |= fsb_result_param_str(r, "engine", c->engine ? c->engine->name : "psync");
	err |= fsb_result_param_u64(r, "iodepth", c->iodepth ? c->iodepth : 1);
	err |= fsb_result_param_u64(r, "block_size_bytes", c->block_bytes);
	return err ? -ENOMEM : 0;
}

/* What every member of the run's job group works with. */
struct jobs_run {
	const struct fsb_run_plan *p;
	const struct fsb_config *cfg;
	const char *scratch;
	const char *statpath;
	bool cow, progress;
	struct fsb_result *res;
	/* Local jobs: each member's first error, and whether it described
	 * one itself (not only the others' failure passed on). */
	struct fsb_error *errs;
	bool *own;
};

/* The tests through the runner, in order; the first failure stops them.
 * Every member calls it alike (a collective); member 0 fills the result. */
static int run_tests(const struct jobs_run *j, struct fsb_group *g, const char *job_dir)
{
	struct fsb_runner rn = {
		.cfg = j->cfg,
		.dir = j->scratch,
		.group = g,
		.job_dir = job_dir,
		.diskstat_path = j->statpath,
		.progress = j->progress,
		.progress_prefix = j->p->progress_prefix,
		.cow = j->cow,
	};
	int err = 0;

	for (size_t i = 0; i < j->p->nops && !err; i++)
		err = fsb_runner_measure(&rn, j->p->ops[i], g->rank ? NULL : j->res);
	return err;
}

/*
 * One local job (a thread): its own directory job-K in the scratch
 * directory, made by itself, then the tests. Its errors are only kept
 * (a quiet scope of its own thread): the run names the job that failed,
 * once, when every job has stopped.
 */
static int job_member(struct fsb_group *g, void *arg)
{
	const struct jobs_run *j = arg;
	struct fsb_error *e = &j->errs[g->rank];
	struct fsb_err_scope scope;
	char dir[PATH_MAX];
	int err = 0;

	fsb_err_capture_begin(&scope, e, true);
	if ((size_t)snprintf(dir, sizeof(dir), "%s/job-%u", j->scratch, g->rank) >= sizeof(dir)) {
		err = -ENAMETOOLONG;
		fsb_err_errno(err, "cannot name the directory of job %u in '%s'", g->rank,
			      j->scratch);
	} else if (fsb_io_mkdirat(AT_FDCWD, dir, 0700) < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot create directory '%s'", dir);
	}
	/* A job without its directory fails them all, before any work. */
	err = fsb_group_barrier(g, err, NULL);
	if (!err)
		err = run_tests(j, g, dir);
	j->own[g->rank] = e->msg[0] != '\0';
	return fsb_err_capture_end(&scope, err);
}

/* --jobs N > 1: the members are threads; the one line says which failed. */
static int run_jobs(struct jobs_run *j, unsigned n)
{
	int *rcs = calloc(n, sizeof(*rcs)), err;

	j->errs = calloc(n, sizeof(*j->errs));
	j->own = calloc(n, sizeof(*j->own));
	if (!rcs || !j->errs || !j->own) {
		fsb_err("run: out of memory for %u jobs", n);
		err = -ENOMEM;
		goto out;
	}
	err = fsb_group_local_run(n, job_member, j, rcs);
	if (err)
		goto out;
	/* Every member returns the same (the worst status of all). */
	err = rcs[0];
	if (!err || (err == -EINTR && fsb_stop_requested()))
		goto out;
	/* The first job that described its own failure says why. */
	for (unsigned k = 0; k < n; k++) {
		if (j->own[k] && j->errs[k].code != -EINTR) {
			fsb_err("job %u: %s", k, j->errs[k].msg);
			goto out;
		}
	}
	fsb_err("run: %u jobs: %s", n, j->errs[0].msg);
out:
	free(rcs);
	free(j->errs);
	free(j->own);
	return err;
}

static int measure(const struct fsb_run_plan *p, const struct fsb_config *cfg, const char *scratch,
		   const char *statpath, bool cow, struct fsb_result *res)
{
	struct jobs_run j = {
		.p = p,
		.cfg = cfg,
		.scratch = scratch,
		.statpath = statpath,
		.cow = cow,
		.progress = !p->quiet && fsb_progress_enabled(p->progress),
		.res = res,
	};
	unsigned n = cfg->jobs ? cfg->jobs : 1;
	struct fsb_group one;
	int err = 0;

	if (j.progress)
		fsb_progress_timer_start(250);
	if (n > 1) {
		err = run_jobs(&j, n);
	} else if (!(err = fsb_group_single_init(&one))) {
		/* One job: this thread, in the scratch directory itself. */
		err = run_tests(&j, &one, NULL);
		fsb_group_single_release(&one);
	}
	if (j.progress)
		fsb_progress_timer_stop();
	return err;
}

/* Options that do nothing in this plan: said once, before any work. */
static void warn_idle_options(const struct fsb_run_plan *p, const struct fsb_config *c)
{
	unsigned n = c->jobs ? c->jobs : 1;
	bool names = false, files = has_file_test(p);

	for (size_t i = 0; i < p->nops; i++)
		names |= (p->ops[i]->flags & FSB_WL_NAMES) != 0;
	if (c->engine && (c->engine->flags & FSB_ENGINE_SYNC) && c->iodepth > 1)
		fsb_warn("--iodepth %u: the %s engine keeps one I/O in flight whatever the "
			 "depth (as fio's psync); use --engine io_uring for a queue",
			 c->iodepth, c->engine->name);
	if (n == 1 && (c->shared_file || c->shared_dir || c->stonewall))
		fsb_warn("%s does nothing with one job (see --jobs)",
			 c->shared_file	 ? "--shared-file"
			 : c->shared_dir ? "--shared-dir"
					 : "--stonewall");
	if (c->shared_file && !files)
		fsb_warn("--shared-file does nothing here: no selected test works on a file "
			 "(the metadata tests share a directory with --shared-dir)");
	if (c->shared_dir && !names)
		fsb_warn("--shared-dir does nothing here: no metadata test is selected "
			 "(tests on a file share one with --shared-file)");
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
	warn_idle_options(p, &cfg);
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
