/*
 * fsbench run's executor: plan -> space check -> scratch directory ->
 * runner, test by test -> result document. The option parsing is
 * src/cli/run.c; the view is chosen and printed there too.
 */
#include "core/run.h"
#include "core/clean.h"
#include "core/devcap.h"
#include "core/env.h"
#include "core/group.h"
#include "core/registry.h"
#include "core/runner.h"
#include "device/diskstat.h"
#include "device/fshealth.h"
#include "device/fsinfo.h"
#include "engines/engine.h"
#include "stats/clock.h"
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

/* fsbench-mpi's ranks (fsb_run_set_world); NULL: this process alone. */
static const struct fsb_run_world *world;

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
		if (!k && c->files_given) {
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
	char list[512] = "", data[32];
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
	err |= fsb_result_param_str(r, "data", fsb_data_format(&c->data, data, sizeof(data)));
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
	bool cow;
	struct fsb_prog *prog; /* member 0's progress printer */
	struct fsb_result *res;
	/* Local jobs: each member's first error, and whether it described
	 * one itself (not only the others' failure passed on). */
	struct fsb_error *errs;
	bool *own;
	/* Member 0's harm found after a test that had failed already, for
	 * the run's one line (HARM_MAX bytes); NULL: said as its own line. */
	char *harm;
	/* The filesystem's health before anything of the run touched it
	 * (NULL: read when the tests start), for the harm detector. */
	const struct fsb_fshealth *h0;
};

enum { HARM_MAX = 256 };

/* Whether a test after ops[i] works on ops[i]'s scratch file. */
static bool later_user(const struct fsb_workload_ops *const *ops, size_t n, size_t i)
{
	const char *f = ops[i]->scratch_file;

	for (size_t k = i + 1; k < n && f; k++)
		if (ops[k]->scratch_file && !strcmp(ops[k]->scratch_file, f))
			return true;
	return false;
}

/*
 * Whether the filesystem under test turned read-only or its error counters
 * moved since h0 (read before the tests), said in why (naming the test
 * after which it was seen).
 */
static bool harmed(const char *scratch, const struct fsb_fshealth *h0, const char *test, char *why,
		   size_t size)
{
	struct fsb_fshealth h;

	if (fsb_fshealth_read(scratch, &h))
		return false;
	if (h.rdonly) {
		snprintf(why, size, "filesystem turned read-only after %s (see the kernel log)",
			 test);
		return true;
	}
	if (h0->have_errors && h.have_errors && h.errors != h0->errors) {
		snprintf(why, size,
			 "filesystem error counters moved after %s (%s: %llu, was %llu; see the "
			 "kernel log)",
			 test, h.what, (unsigned long long)h.errors,
			 (unsigned long long)h0->errors);
		return true;
	}
	return false;
}

/* The tests through the runner, in order; the first failure stops them.
 * Every member calls it alike (a collective); member 0 fills the result.
 * A scratch file goes after the last test that works on it. */
static int run_tests(const struct jobs_run *j, struct fsb_group *g, const char *job_dir,
		     const char *read_dir, unsigned read_job)
{
	struct fsb_runner rn = {
		.cfg = j->cfg,
		.dir = j->scratch,
		.group = g,
		.job_dir = job_dir,
		.read_dir = read_dir,
		.read_job = read_job,
		.diskstat_path = j->statpath,
		.prog = g->rank ? NULL : j->prog,
		.cow = j->cow,
	};
	const struct fsb_workload_ops *const *ops = j->p->ops;
	size_t n = j->p->nops;
	struct fsb_fshealth h0 = { 0 };
	bool watch = false;
	char why[HARM_MAX];
	int err = 0;

	if (!g->rank && j->h0)
		h0 = *j->h0, watch = true;
	else if (!g->rank)
		watch = !fsb_fshealth_read(j->scratch, &h0);
	watch = watch && !h0.rdonly;
	for (size_t i = 0; i < n && !err; i++) {
		err = fsb_runner_measure(&rn, ops[i], g->rank ? NULL : j->res);
		if (!err && !later_user(ops, n, i))
			err = fsb_runner_release(&rn, ops[i]);
		/* A test that harmed the filesystem stops the run at once,
		 * failed or not: whatever follows would harm it more. After a
		 * failure already described, the harm joins that line. */
		if (watch && harmed(j->scratch, &h0, ops[i]->name, why, sizeof(why))) {
			if (err && j->harm)
				snprintf(j->harm, HARM_MAX, "%s", why);
			else
				fsb_err("%s: %s", j->scratch, why);
			err = -EROFS;
		}
		if (g->size > 1)
			err = fsb_group_barrier(g, err, NULL);
	}
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
		err = run_tests(j, g, dir, NULL, 0);
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
		   const char *statpath, bool cow, struct fsb_result *res, char *harm,
		   const struct fsb_fshealth *h0)
{
	struct jobs_run j = {
		.p = p,
		.cfg = cfg,
		.scratch = scratch,
		.statpath = statpath,
		.cow = cow,
		.res = res,
		.harm = harm,
		.h0 = h0,
	};
	unsigned n = cfg->jobs ? cfg->jobs : 1;
	struct fsb_group one;
	struct fsb_prog prog;
	int err = 0;

	fsb_prog_init(&prog, p->progress, p->quiet, p->progress_prefix, p->nops, cfg->repeat,
		      (double)cfg->min_time_ns / 1e9, fsb_clock_ns());
	j.prog = &prog;
	if (prog.on)
		fsb_progress_timer_start(250);
	if (n > 1) {
		err = run_jobs(&j, n);
	} else if (!(err = fsb_group_single_init(&one))) {
		/* One job: this thread, in the scratch directory itself. */
		err = run_tests(&j, &one, NULL, NULL, 0);
		fsb_group_single_release(&one);
	}
	if (prog.on)
		fsb_progress_timer_stop();
	fsb_prog_done(&prog, err, fsb_clock_ns());
	return err;
}

/* Options that do nothing in this plan: said once, before any work. */
static void warn_idle_options(const struct fsb_run_plan *p, const struct fsb_config *c)
{
	/* Every rank runs the jobs: the members are ranks x jobs. */
	unsigned n = (c->jobs ? c->jobs : 1) * (world ? world->group->size : 1);
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
	if (p->reorder && !world)
		fsb_warn("--reorder does nothing here: it is for fsbench-mpi's ranks");
	if (c->shared_dir && !names)
		fsb_warn("--shared-dir does nothing here: no metadata test is selected "
			 "(tests on a file share one with --shared-file)");
}

/*
 * The end of a run that made its scratch directory: remove it, then say
 * the run's one line. Errors were held quiet in *hold since the directory
 * was made, the first one's text in first: it is the reason, and what
 * followed it joins that line (the filesystem harmed, the directory left
 * behind on a filesystem gone read-only), as a second line would break
 * the rule that a failure is one line.
 */
static int end_run(const char *scratch, struct fsb_err_scope *hold, const char *first,
		   const char *harm, int err)
{
	char left[PATH_MAX + 128] = "";
	int rm;

	fsb_err_capture_end(hold, 0);
	rm = fsb_scratch_remove(scratch);
	if (!first[0]) {
		if (rm)
			fsb_err_errno(rm, "run: cannot remove scratch directory '%s'", scratch);
		return err ? err : rm;
	}
	if (rm)
		snprintf(left, sizeof(left), "; cannot remove scratch directory '%s': %s", scratch,
			 fsb_err_reason(rm));
	fsb_err("%s%s%s%s", first, *harm ? "; " : "", harm, left);
	return err ? err : rm;
}

/*
 * The block device whose counters are the test's (its stat file and name),
 * or false with *note saying why there is none. *found (may be NULL): a
 * device was found, its counters used or not. Device truth only where the
 * device is the test's own: the disk that holds / also carries the
 * system's and everyone's I/O, so its counters would be charged to the
 * test (a "write amplification" of 2 that is just the journal of someone
 * else's work); a btrfs over several devices has no one device's.
 */
static bool test_device(const char *scratch, const struct fsb_fsinfo *fsi, char *statpath,
			size_t len, char *devname, size_t name_len, bool *found, const char **note)
{
	int err = fsb_diskstat_path_for(scratch, statpath, len, devname, name_len);

	if (err)
		err = fsb_diskstat_path_for_mount(fsi->fs_type, fsi->source, statpath, len, devname,
						  name_len);
	if (found)
		*found = !err;
	if (err == -EXDEV)
		*note = "off: the filesystem spans several devices (one device's counters are "
			"a part)";
	else if (err)
		*note = "off: no block device behind the filesystem";
	else if (shares_root(scratch))
		*note = "off: the filesystem of / (its I/O is not only the test's)";
	return !err && !shares_root(scratch);
}

static int execute(const struct fsb_run_plan *p, const char *dir, struct fsb_result *res)
{
	struct fsb_config cfg = p->cfg;
	struct fsb_fsinfo fsi = { 0 };
	char scratch[PATH_MAX] = "", statpath[PATH_MAX], devname[64], devpath[80];
	char harm[HARM_MAX] = "";
	const char *device_note = NULL;
	const struct fsb_test_result *t;
	struct fsb_err_scope hold;
	char first[FSB_ERR_LINE_MAX];
	struct fsb_fshealth h0;
	bool have_dev, got_dev, have_h0;
	int err;

	if (!p->seed_set)
		cfg.seed = fsb_default_seed();
	cfg.suite = p->ops;
	cfg.nsuite = p->nops;
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
	/* From here on every path out removes the scratch directory, and
	 * says the run's one line after. */
	fsb_err_capture_begin(&hold, NULL, true);
	fsb_err_capture_line(&hold, first, sizeof(first));
	/* Before the device capability and the rest: an error the filesystem
	 * counts from here on is the run's doing. */
	have_h0 = !fsb_fshealth_read(scratch, &h0);
	fsb_fsinfo_for_path(scratch, &fsi);
	have_dev = test_device(scratch, &fsi, statpath, sizeof(statpath), devname, sizeof(devname),
			       &got_dev, &device_note);
	if (have_dev)
		snprintf(devpath, sizeof(devpath), "/dev/%s", devname);
	if (fsb_result_init(res, "run") ||
	    fill_result(p, &cfg, scratch, &fsi, have_dev ? devpath : NULL, res) ||
	    fsb_result_param_str(res, "device_stats", have_dev ? "on" : device_note)) {
		fsb_err("run: out of memory");
		err = -ENOMEM;
		goto out;
	}
	if ((err = fsb_env_record(res, got_dev ? devname : NULL)))
		goto out;
	/*
	 * The raw device first, read-only (O_RDONLY, never written: the
	 * filesystem on it is someone's), before the tests' files exist.
	 */
	if (p->devcap)
		err = fsb_devcap_copy(res, p->devcap, p->devcap_param ? p->devcap_param : "on");
	else
		err = fsb_devcap_record(res, have_dev ? devpath : NULL, false,
					p->no_devcap ? "off: --no-device-capability"
					: have_dev   ? NULL
						     : device_note);
	if (err)
		goto out;
	err = measure(p, &cfg, scratch, have_dev ? statpath : NULL, fsb_fsinfo_is_cow(fsi.fs_type),
		      res, harm, have_h0 ? &h0 : NULL);
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
	return end_run(scratch, &hold, first, harm, err);
}

/* ---- many processes: fsbench-mpi's ranks ---- */

void fsb_run_set_world(const struct fsb_run_world *w)
{
	world = w;
}

bool fsb_run_reports(void)
{
	return !world || world->group->rank == 0;
}

/* What a rank's jobs (threads) work with. */
struct world_run {
	struct jobs_run j;
	unsigned jobs;		   /* per rank */
	const char *rank_dir;	   /* this rank's rank-N */
	const char *read_rank_dir; /* --reorder: the rank-M it reads; NULL: none */
	unsigned read_rank;	   /* M */
};

/*
 * One job of one rank (a member of the ranks x jobs group): its directory
 * is the rank's, or job-K below it with --jobs, made by itself; with
 * --reorder it reads the same job's directory of another rank.
 */
static int world_member(struct fsb_group *g, void *arg)
{
	struct world_run *w = arg;
	unsigned k = g->rank % w->jobs;
	struct fsb_error *e = &w->j.errs[k];
	struct fsb_err_scope scope;
	char dir[PATH_MAX], rdir[PATH_MAX];
	const char *mine = w->rank_dir, *reads = w->read_rank_dir;
	int err = 0;

	fsb_err_capture_begin(&scope, e, true);
	if (w->jobs > 1) {
		if ((size_t)snprintf(dir, sizeof(dir), "%s/job-%u", w->rank_dir, k) >=
			    sizeof(dir) ||
		    (reads &&
		     (size_t)snprintf(rdir, sizeof(rdir), "%s/job-%u", reads, k) >= sizeof(rdir))) {
			err = -ENAMETOOLONG;
			fsb_err_errno(err, "cannot name the directory of job %u in '%s'", k,
				      w->rank_dir);
		} else if (fsb_io_mkdirat(AT_FDCWD, dir, 0700) < 0) {
			err = -errno;
			fsb_err_errno(err, "cannot create directory '%s'", dir);
		}
		mine = dir;
		reads = reads ? rdir : NULL;
	}
	/* Every job of every rank has its directory before any reads one. */
	err = fsb_group_barrier(g, err, NULL);
	if (!err)
		/* Members are rank x jobs + job (fsb_group_compose_run): the
		 * same job of the rank whose directory it reads. */
		err = run_tests(&w->j, g, mine, reads, w->read_rank * w->jobs + k);
	w->j.own[k] = e->msg[0] != '\0';
	return fsb_err_capture_end(&scope, err);
}

/* This rank's jobs, composed with the world's group; the rank's own
 * failure described once (the job that failed named with --jobs). */
static int world_measure(struct world_run *w)
{
	const struct fsb_run_plan *p = w->j.p;
	unsigned n = w->jobs;
	int *rcs = calloc(n, sizeof(*rcs)), err;
	struct fsb_prog prog;

	w->j.errs = calloc(n, sizeof(*w->j.errs));
	w->j.own = calloc(n, sizeof(*w->j.own));
	err = !rcs || !w->j.errs || !w->j.own ? -ENOMEM : 0;
	if (err)
		fsb_err("run: out of memory for %u jobs", n);
	/* Every rank starts its jobs, or none does. (Threads that cannot be
	 * made, below, are not agreed on: this rank's fences then fall out of
	 * step with the others', which fail or wait until mpirun ends them.) */
	if ((err = fsb_group_barrier(world->group, err, NULL)))
		goto out;
	/* Rank 0 alone shows progress (its member 0 tells the printer). */
	fsb_prog_init(&prog, world->group->rank ? FSB_PROGRESS_NEVER : p->progress, p->quiet,
		      p->progress_prefix, p->nops, w->j.cfg->repeat,
		      (double)w->j.cfg->min_time_ns / 1e9, fsb_clock_ns());
	w->j.prog = &prog;
	if (prog.on)
		fsb_progress_timer_start(250);
	err = fsb_group_compose_run(world->group, n, world_member, w, rcs);
	if (prog.on)
		fsb_progress_timer_stop();
	fsb_prog_done(&prog, err, fsb_clock_ns());
	if (err)
		goto out;
	err = rcs[0];
	if (!err || (err == -EINTR && fsb_stop_requested()))
		goto out;
	for (unsigned k = 0; k < n; k++) {
		if (w->j.own[k] && w->j.errs[k].code != -EINTR) {
			if (n > 1)
				fsb_err("job %u: %s", k, w->j.errs[k].msg);
			else
				fsb_err("%s", w->j.errs[k].msg);
			goto out;
		}
	}
out:
	free(rcs);
	free(w->j.errs);
	free(w->j.own);
	return err;
}

/* The run's facts about the ranks, in member 0's result. */
static int fill_world(struct fsb_result *r, unsigned jobs, bool reorder)
{
	const struct fsb_group *G = world->group;
	size_t len = 0, cap = (size_t)G->size * 64 + 1;
	char *hosts = malloc(cap), *list = malloc(cap);
	size_t llen = 0;
	int err = 0;

	if (!hosts || !list) {
		free(hosts);
		free(list);
		return -ENOMEM;
	}
	hosts[0] = list[0] = '\0';
	/* Each rank's host, in rank order, and the distinct ones. */
	for (unsigned k = 0; k < G->size; k++) {
		const char *h = world->hosts[k];
		bool seen = false;

		len += (size_t)snprintf(hosts + len, len < cap ? cap - len : 0, "%s%.60s",
					k ? "," : "", h);
		for (unsigned i = 0; i < k && !seen; i++)
			seen = !strcmp(world->hosts[i], h);
		if (!seen)
			llen += (size_t)snprintf(list + llen, llen < cap ? cap - llen : 0,
						 "%s%.60s", llen ? "," : "", h);
	}
	err |= fsb_result_param_u64(r, "ranks", G->size);
	err |= fsb_result_param_u64(r, "nodes", world->nodes);
	err |= fsb_result_param_str(r, "hosts", list);
	err |= fsb_result_param_str(r, "rank_hosts", hosts);
	err |= fsb_result_param_u64(r, "members", (uint64_t)G->size * jobs);
	err |= fsb_result_param_bool(r, "reorder", reorder);
	err |= fsb_result_param_str(r, "mpi_library", world->library);
	free(hosts);
	free(list);
	return err ? -ENOMEM : 0;
}

/* Make path, a directory of this rank's: 0 or -errno (described). */
static int make_dir(const char *path)
{
	int err;

	if (fsb_io_mkdirat(AT_FDCWD, path, 0700) == 0)
		return 0;
	err = -errno;
	fsb_err_errno(err, "cannot create directory '%s'", path);
	return err;
}

static int execute_world(const struct fsb_run_plan *p, const char *dir, struct fsb_result *res)
{
	struct fsb_group *G = world->group;
	bool lead = G->rank == 0, made = false;
	struct fsb_config cfg = p->cfg;
	struct fsb_fsinfo fsi = { 0 };
	char scratch[PATH_MAX] = "", rank_dir[PATH_MAX], read_dir[PATH_MAX], statpath[PATH_MAX];
	char devname[64], devpath[80];
	const char *device_note = NULL;
	unsigned jobs = cfg.jobs ? cfg.jobs : 1;
	struct world_run w = { .jobs = jobs };
	struct stat st;
	bool have_dev;
	int err = 0, rm;

	/* One seed for all: the ranks' data is the same pattern. */
	if (!p->seed_set)
		cfg.seed = fsb_default_seed();
	cfg.suite = p->ops;
	cfg.nsuite = p->nops;
	if ((err = fsb_group_bcast(G, 0, &cfg.seed, sizeof(cfg.seed))))
		return err;
	if (lead)
		warn_idle_options(p, &cfg);
	if (!(err = fsb_runner_check_needs(p->ops, p->nops, fsb_runner_have())))
		err = check_dir(dir);
	if ((err = fsb_group_barrier(G, err, NULL)))
		return err;
	if (lead) {
		/* On a shared filesystem every rank's files are in DIR: the
		 * space check counts ranks x jobs. */
		struct fsb_config every = cfg;

		every.jobs = jobs * G->size;
		fsb_clean_warn_stale(dir);
		err = fsb_runner_check_space(&every, p->ops, p->nops, dir);
		if (!err && (err = fsb_scratch_create(dir, scratch, sizeof(scratch))))
			fsb_err_errno(err, "run: cannot create a scratch directory in '%s'", dir);
	}
	if ((err = fsb_group_bcast(G, err, scratch, sizeof(scratch))))
		return err;
	/* From here on every way out removes this rank's directory, and
	 * member 0 the top one after the last barrier. */
	if (stat(scratch, &st) < 0 || !S_ISDIR(st.st_mode)) {
		err = -ENOENT;
		fsb_err("run: cannot see '%s', made by rank 0: DIR must be on a filesystem every "
			"rank shares",
			scratch);
	} else if ((size_t)snprintf(rank_dir, sizeof(rank_dir), "%s/rank-%u", scratch, G->rank) >=
		   sizeof(rank_dir)) {
		err = -ENAMETOOLONG;
		fsb_err_errno(err, "cannot name the directory of rank %u in '%s'", G->rank,
			      scratch);
	} else if (!(err = make_dir(rank_dir))) {
		made = true;
	}
	if ((err = fsb_group_barrier(G, err, NULL)))
		goto out;
	w.rank_dir = rank_dir;
	if (p->reorder && G->size > 1) {
		/* IOR's -C: the rank a host further on; on one host (no other
		 * host's writes to read) the next rank. */
		unsigned other = (G->rank + world->ranks_per_node) % G->size;

		if (other == G->rank)
			other = (G->rank + 1) % G->size;
		snprintf(read_dir, sizeof(read_dir), "%s/rank-%u", scratch, other);
		w.read_rank_dir = read_dir;
		w.read_rank = other;
	}
	fsb_fsinfo_for_path(scratch, &fsi);
	have_dev = test_device(scratch, &fsi, statpath, sizeof(statpath), devname, sizeof(devname),
			       NULL, &device_note);
	/* Rank 0 reads the counters of its own host's device: with ranks on
	 * several hosts they are not the run's (write amplification would
	 * come out divided by the hosts). */
	if (have_dev && world->nodes > 1) {
		have_dev = false;
		device_note = "off: ranks on several hosts (one host's counters are not the run's)";
	}
	if (have_dev)
		snprintf(devpath, sizeof(devpath), "/dev/%s", devname);
	if (lead && (fsb_result_init(res, "run") ||
		     fill_result(p, &cfg, scratch, &fsi, have_dev ? devpath : NULL, res) ||
		     fsb_result_param_str(res, "device_stats", have_dev ? "on" : device_note) ||
		     fill_world(res, jobs, w.read_rank_dir != NULL))) {
		fsb_err("run: out of memory");
		err = -ENOMEM;
	}
	if ((err = fsb_group_barrier(G, err, NULL)))
		goto out;
	w.j = (struct jobs_run){
		.p = p,
		.cfg = &cfg,
		.scratch = scratch,
		.statpath = have_dev ? statpath : NULL,
		.cow = fsb_fsinfo_is_cow(fsi.fs_type),
		.res = lead ? res : NULL,
	};
	err = world_measure(&w);
	if (!err && fsb_stop_requested())
		err = -EINTR;
	if (lead && !err) {
		const struct fsb_test_result *t = fsb_result_find(res, "putc");

		if (!t)
			t = fsb_result_find(res, "getc");
		if (t && fsb_result_param_u64(res, "char_size_bytes", t->work))
			err = -ENOMEM;
	}
out:
	/* Every rank is done with every directory (--reorder reads another
	 * rank's) before any removes its own. */
	err = fsb_group_barrier(G, err, NULL);
	rm = made ? fsb_scratch_remove(rank_dir) : 0;
	if (rm)
		fsb_err_errno(rm, "run: cannot remove '%s'", rank_dir);
	err = fsb_group_barrier(G, fsb_group_worst(err, rm), NULL);
	if (lead) {
		rm = fsb_scratch_remove(scratch);
		if (rm) {
			fsb_err_errno(rm, "run: cannot remove scratch directory '%s'", scratch);
			err = err ? err : rm;
		}
	}
	return err;
}

/* How a rank ended, for member 0 to say which failed and why. */
struct rank_end {
	int code;
	int own;   /* a failure of its own (not only the others' passed on) */
	int signo; /* the signal that stopped it, else 0 */
	char msg[512];
};

static int world_execute(const struct fsb_run_plan *p, const char *dir, struct fsb_result *res,
			 struct fsb_error *e)
{
	struct fsb_group *G = world->group;
	struct fsb_error mine = { 0 };
	struct fsb_err_scope scope;
	struct rank_end me = { 0 }, *all = NULL;
	int err, st, room;

	/* Every rank keeps its first error; member 0 alone says it. */
	fsb_err_capture_begin(&scope, &mine, true);
	err = execute_world(p, dir, res);
	/* Described here, before the scope's end writes strerror in. */
	me.own = mine.msg[0] && err != -EINTR;
	err = fsb_err_capture_end(&scope, err);
	me.code = err;
	me.signo = fsb_stop_requested() ? fsb_stop_signo() : 0;
	snprintf(me.msg, sizeof(me.msg), "%s", mine.msg);
	/* Rank 0's room for every rank's end, agreed on before the gather. */
	room = G->rank || (all = calloc(G->size, sizeof(*all))) != NULL;
	st = fsb_group_bcast(G, 0, &room, sizeof(room));
	if (!st && room)
		st = fsb_group_gather(G, err, &me, sizeof(me), all);
	err = err ? err : st;
	fsb_err_capture_begin(&scope, e, false);
	if (all && err && !(err == -EINTR && fsb_stop_requested())) {
		unsigned k = 0, s = 0;

		while (k < G->size && !all[k].own)
			k++;
		while (s < G->size && !all[s].signo)
			s++;
		if (k < G->size)
			fsb_err("rank %u on %s: %s", k, world->hosts[k], all[k].msg);
		else if (s < G->size)
			fsb_err("rank %u on %s: stopped by %s", s, world->hosts[s],
				strsignal(all[s].signo));
		else
			fsb_err("run: %u ranks: %s", G->size,
				mine.msg[0] ? mine.msg : "another rank failed");
	}
	free(all);
	return fsb_err_capture_end(&scope, err);
}

int fsb_run_execute(const struct fsb_run_plan *p, const char *dir, struct fsb_result *res,
		    struct fsb_error *e)
{
	struct fsb_err_scope scope;

	if (world)
		return world_execute(p, dir, res, e);
	fsb_err_capture_begin(&scope, e, false);
	return fsb_err_capture_end(&scope, execute(p, dir, res));
}
