/*
 * fio's JSON output (`fio --output-format=json`, fio 3.x) into one result
 * of the model (report/import.h).
 *
 * fio's document: "fio version", "time", "global options" (an object of
 * strings), "jobs" (an array). Each job has "jobname", "error", "job
 * options" (strings), "read", "write" and "trim" (each with io_bytes,
 * bw_bytes, bw in KiB/s, iops, runtime in ms, total_ios and clat_ns, the
 * completion latency in nanoseconds with a "percentile" object keyed
 * "50.000000", "99.000000", "99.900000"), usr_cpu and sys_cpu (%). An
 * option a job does not set is the global one, else fio's default (rw
 * defaults to read).
 *
 * Only what fsbench measures the same way is given fsbench's test id: a
 * sequential write or read job's bandwidth (write, read) and a random
 * read or write job's IOPS (randread, randwrite, 4 KiB random I/O in
 * fsbench). The rest is kept as rows of their own, named after the job.
 */
#include "report/import.h"
#include "util/error.h"
#include "util/size.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Far more jobs than a job file holds; bounds what a hostile file costs. */
#define MAX_JOBS 1024
/* A job name longer than this is no name a person gave. */
#define MAX_NAME 256
#define MAX_OPTION 128
/* A param listing each job's value stays readable. */
#define MAX_PARAM 512

enum dir { DIR_READ, DIR_WRITE, DIR_TRIM, NDIRS };
static const char *const dir_names[NDIRS] = { "read", "write", "trim" };

/* One direction of a job, as read. */
struct side {
	bool present;
	double io_bytes, bw_bytes, iops, runtime_ms, total_ios;
	bool has_clat_max, has_pcts;
	double clat_max_ns, p50_ns, p99_ns, p999_ns;
};

struct job {
	const char *name;	  /* borrowed from the document */
	const char *rw;		  /* rw as given, or NULL for fio's default */
	char kind[40];		  /* rw without ":..." modifiers, default "read" */
	struct json_object *opts; /* "job options", or NULL */
	int64_t error;
	double cpu;
	struct side side[NDIRS];
	/* The options that make two jobs the same work (merge_key), and the
	 * test each direction of the job gave (index + 1; 0: none). */
	const char *key[7];
	size_t test_of[NDIRS];
	/* Of a first copy (numjobs without group_reporting): the runtime of
	 * its copies so far per direction, the weight of its %CPU. */
	double copy_ms[NDIRS];
};

/* Jobs alike in these do the same work: a warm-up and its repeats. */
static const char *const merge_keys[7] = { "rw",      "bs",	  "iodepth", "direct",
					   "numjobs", "ioengine", "size" };

struct rd {
	char *why;
	size_t why_len;
	const char *path;
	/* The first job left out and how many more, said once at the end. */
	char left_out[256];
	size_t nleft;
	char renamed[256];
	size_t nrenamed;
};

/* The reason into rd->why, -EINVAL (util/error.h). */
#define bad(rd, ...) fsb_why((rd)->why, (rd)->why_len, __VA_ARGS__)

bool fsb_import_is_fio(struct json_object *doc)
{
	return doc && json_object_is_type(doc, json_type_object) &&
	       json_object_object_get_ex(doc, "fio version", NULL);
}

/* ---- typed members -------------------------------------------------------- */

/* 1 and *v when key is there and not null, else 0. */
static int member(struct json_object *o, const char *key, struct json_object **v)
{
	*v = NULL;
	return json_object_object_get_ex(o, key, v) && *v ? 1 : 0;
}

/* A string of at most max bytes without NUL: 1 when present, 0 absent. */
static int get_str(struct rd *rd, struct json_object *o, const char *path, const char *key,
		   size_t max, const char **out)
{
	struct json_object *v;
	const char *s;

	*out = NULL;
	if (!member(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return bad(rd, "%s%s is not a string", path, key);
	s = json_object_get_string(v);
	if ((size_t)json_object_get_string_len(v) != strlen(s))
		return bad(rd, "%s%s contains a NUL character", path, key);
	if (strlen(s) > max)
		return bad(rd, "%s%s is longer than %zu bytes", path, key, max);
	*out = s;
	return 1;
}

/* A number in [0, FSB_MAX_FIGURE]: 1 when present, 0 absent. */
static int get_num(struct rd *rd, struct json_object *o, const char *path, const char *key,
		   double *out)
{
	struct json_object *v;
	double d;

	*out = 0;
	if (!member(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return bad(rd, "%s%s is not a number", path, key);
	if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) < 0)
		return bad(rd, "%s%s is negative", path, key);
	d = json_object_get_double(v);
	if (!isfinite(d) || d > FSB_MAX_FIGURE)
		return bad(rd, "%s%s is out of range", path, key);
	if (d < 0)
		return bad(rd, "%s%s is negative", path, key);
	*out = d;
	return 1;
}

/* An optional object member: 1 and *out when present, 0 absent. */
static int get_obj(struct rd *rd, struct json_object *o, const char *path, const char *key,
		   struct json_object **out)
{
	if (!member(o, key, out))
		return 0;
	if (!json_object_is_type(*out, json_type_object))
		return bad(rd, "%s%s is not an object", path, key);
	return 1;
}

/* ---- a job ------------------------------------------------------------------ */

static int read_clat(struct rd *rd, struct json_object *side, const char *path, struct side *s)
{
	struct json_object *clat, *pct;
	char sub[MAX_NAME + 64];
	double v;
	int err, n = 0;

	if ((err = get_obj(rd, side, path, "clat_ns", &clat)) <= 0)
		return err;
	snprintf(sub, sizeof(sub), "%sclat_ns.", path);
	if ((err = get_num(rd, clat, sub, "max", &v)) < 0)
		return err;
	s->has_clat_max = err > 0;
	s->clat_max_ns = v;
	if ((err = get_obj(rd, clat, sub, "percentile", &pct)) <= 0)
		return err;
	snprintf(sub, sizeof(sub), "%sclat_ns.percentile.", path);
	/* fio prints each percentile as "%f": the keys are these exactly. */
	if ((err = get_num(rd, pct, sub, "50.000000", &s->p50_ns)) < 0)
		return err;
	n += err;
	if ((err = get_num(rd, pct, sub, "99.000000", &s->p99_ns)) < 0)
		return err;
	n += err;
	if ((err = get_num(rd, pct, sub, "99.900000", &s->p999_ns)) < 0)
		return err;
	n += err;
	s->has_pcts = n == 3;
	return 0;
}

static int read_side(struct rd *rd, struct json_object *job, const char *jpath, enum dir d,
		     struct side *s)
{
	struct json_object *o;
	char path[MAX_NAME + 32];
	double bw_kib;
	int err, has_bytes;

	if ((err = get_obj(rd, job, jpath, dir_names[d], &o)) <= 0)
		return err;
	s->present = true;
	snprintf(path, sizeof(path), "%s%s.", jpath, dir_names[d]);
	if ((err = get_num(rd, o, path, "io_bytes", &s->io_bytes)) < 0 ||
	    (has_bytes = err = get_num(rd, o, path, "bw_bytes", &s->bw_bytes)) < 0 ||
	    (err = get_num(rd, o, path, "bw", &bw_kib)) < 0 ||
	    (err = get_num(rd, o, path, "iops", &s->iops)) < 0 ||
	    (err = get_num(rd, o, path, "runtime", &s->runtime_ms)) < 0 ||
	    (err = get_num(rd, o, path, "total_ios", &s->total_ios)) < 0)
		return err;
	/* bw_bytes since fio 3.0; before it only bw, in KiB/s. */
	if (!has_bytes)
		s->bw_bytes = bw_kib * 1024;
	return read_clat(rd, o, path, s);
}

/* An option of the job, else of the global section: NULL when neither sets it. */
static int option(struct rd *rd, const struct job *j, struct json_object *global, size_t idx,
		  const char *key, const char **out)
{
	char path[64];
	int err;

	*out = NULL;
	snprintf(path, sizeof(path), "jobs[%zu].job options.", idx);
	if (j->opts && (err = get_str(rd, j->opts, path, key, MAX_OPTION, out)) != 0)
		return err < 0 ? err : 0;
	if (global && (err = get_str(rd, global, "global options.", key, MAX_OPTION, out)) < 0)
		return err;
	return 0;
}

static int read_job(struct rd *rd, struct json_object *o, size_t idx, struct json_object *global,
		    struct job *j)
{
	struct json_object *v;
	char path[32];
	double usr, sys;
	const char *rw;
	int err;

	memset(j, 0, sizeof(*j));
	snprintf(path, sizeof(path), "jobs[%zu]", idx);
	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "%s is not an object", path);
	snprintf(path, sizeof(path), "jobs[%zu].", idx);
	if ((err = get_str(rd, o, path, "jobname", MAX_NAME, &j->name)) < 0)
		return err;
	if (!err)
		return bad(rd, "%sjobname is missing", path);
	if (member(o, "error", &v)) {
		if (!json_object_is_type(v, json_type_int))
			return bad(rd, "%serror is not an integer", path);
		j->error = json_object_get_int64(v);
	}
	if ((err = get_obj(rd, o, path, "job options", &j->opts)) < 0 ||
	    (err = get_num(rd, o, path, "usr_cpu", &usr)) < 0 ||
	    (err = get_num(rd, o, path, "sys_cpu", &sys)) < 0)
		return err;
	j->cpu = usr + sys;
	for (int d = 0; d < NDIRS; d++)
		if ((err = read_side(rd, o, path, (enum dir)d, &j->side[d])))
			return err;
	if ((err = option(rd, j, global, idx, "rw", &rw)) ||
	    (!rw && (err = option(rd, j, global, idx, "readwrite", &rw))))
		return err;
	j->rw = rw;
	j->key[0] = rw;
	for (size_t k = 1; k < 7; k++)
		if ((err = option(rd, j, global, idx, merge_keys[k], &j->key[k])))
			return err;
	/* "randread:8" and "rw:4k" are fio's modifiers of the same pattern. */
	snprintf(j->kind, sizeof(j->kind), "%.*s", (int)strcspn(rw ? rw : "read", ":"),
		 rw ? rw : "read");
	return 0;
}

/* ---- tests ------------------------------------------------------------------- */

static void note(char *buf, size_t len, size_t *count, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Keep the first of a kind of message, count the rest. */
static void note(char *buf, size_t len, size_t *count, const char *fmt, ...)
{
	va_list ap;

	if (!(*count)++) {
		va_start(ap, fmt);
		vsnprintf(buf, len, fmt, ap);
		va_end(ap);
	}
}

static bool is_random(const char *kind)
{
	return !strncmp(kind, "rand", 4);
}

/* fsbench's id for a job of this kind, or NULL: the job gets rows of its own. */
static const char *mapped_id(const char *kind, enum dir *d, const char **unit)
{
	static const struct {
		const char *kind, *id, *unit;
		enum dir dir;
	} map[] = {
		{ "write", "write", "B/s", DIR_WRITE },
		{ "read", "read", "B/s", DIR_READ },
		{ "randread", "randread", "ops/s", DIR_READ },
		{ "randwrite", "randwrite", "ops/s", DIR_WRITE },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (!strcmp(kind, map[i].kind)) {
			*d = map[i].dir;
			*unit = map[i].unit;
			return map[i].id;
		}
	}
	return NULL;
}

static bool id_taken(const struct fsb_result *r, const char *id)
{
	return fsb_result_find(r, id) != NULL;
}

/* One test from one direction of a job. */
static int add_test(struct fsb_result *r, const struct job *j, const struct side *s, const char *id,
		    const char *unit)
{
	bool bytes = !strcmp(unit, "B/s");
	double v = bytes ? s->bw_bytes : s->iops;
	struct fsb_test_result *t = fsb_result_add_test(r, id, unit);
	int err;

	if (!t)
		return -ENOMEM;
	if (v > 0) {
		if ((err = fsb_test_set_runs(t, &v, 1)))
			return err;
	} else {
		/* Data moved in less time than fio's millisecond clock shows:
		 * no figure, and certainly not 0. */
		t->not_measured = true;
	}
	t->cpu_pct = j->cpu;
	t->work = (uint64_t)(bytes ? s->io_bytes : s->total_ios);
	t->elapsed_s = s->runtime_ms / 1000;
	if (s->has_clat_max) {
		t->has_latency = true;
		t->latency.max_us = s->clat_max_ns / 1000;
		if (s->has_pcts) {
			t->latency.p50_us = s->p50_ns / 1000;
			t->latency.p99_us = s->p99_ns / 1000;
			t->latency.p999_us = s->p999_ns / 1000;
		} else {
			t->latency_max_only = true;
		}
	}
	return 0;
}

static int extra_id(const struct fsb_result *r, const struct job *j, size_t idx, enum dir d,
		    char *id, size_t len)
{
	snprintf(id, len, "fio:%s:%s", j->name, dir_names[d]);
	/* numjobs without group_reporting: one entry per copy, one name. */
	if (id_taken(r, id))
		snprintf(id, len, "fio:%s[%zu]:%s", j->name, idx, dir_names[d]);
	return id_taken(r, id) ? -EEXIST : 0;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* An earlier job with figures whose work is j's: the same options, and
 * not a copy of the same job running at once (numjobs > 1 without
 * group_reporting: one entry per copy, under one name). */
static struct job *alike(struct job *jobs, size_t idx)
{
	const struct job *j = &jobs[idx];
	bool copies = j->key[4] && strcmp(j->key[4], "1");

	for (size_t i = 0; i < idx; i++) {
		bool same = !jobs[i].error;

		for (size_t k = 0; k < 7 && same; k++)
			same = same_str(jobs[i].key[k], j->key[k]) ||
			       (!k && same_str(jobs[i].key[0] ? jobs[i].key[0] : "read",
					       j->key[0] ? j->key[0] : "read"));
		if (!same || (copies && !strcmp(jobs[i].name, j->name)))
			continue;
		for (int d = 0; d < NDIRS; d++)
			if (jobs[i].test_of[d])
				return &jobs[i];
	}
	return NULL;
}

/* j's figure of direction d as one more run of test t (of the earlier
 * job alike): the runs in job order, %CPU and time their mean; latency
 * and work stay the first job's. */
static int add_run(struct fsb_test_result *t, const struct job *j, const struct side *s)
{
	bool bytes = !strcmp(t->unit, "B/s");
	double v = bytes ? s->bw_bytes : s->iops, *runs;
	size_t n = t->nruns;
	int err;

	if (!(v > 0))
		return 0; /* not measured: no run, and certainly not 0 */
	runs = malloc((n + 1) * sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	if (n)
		memcpy(runs, t->runs, n * sizeof(*runs));
	runs[n] = v;
	err = fsb_test_set_runs(t, runs, n + 1);
	free(runs);
	if (err)
		return err;
	t->not_measured = false;
	t->cpu_pct = (t->cpu_pct * (double)n + j->cpu) / (double)(n + 1);
	t->elapsed_s = (t->elapsed_s * (double)n + s->runtime_ms / 1000) / (double)(n + 1);
	return 0;
}

/* An earlier copy of j running at the same time (numjobs > 1 without
 * group_reporting: one entry per copy, one name, the same options), whose
 * tests j's figures join; NULL when j is no such copy. */
static struct job *copy_of(struct job *jobs, size_t idx)
{
	const struct job *j = &jobs[idx];

	if (!j->key[4] || !strcmp(j->key[4], "1"))
		return NULL;
	for (size_t i = 0; i < idx; i++) {
		bool same = !jobs[i].error && !strcmp(jobs[i].name, j->name);

		for (size_t k = 0; k < 7 && same; k++)
			same = same_str(jobs[i].key[k], j->key[k]);
		if (same)
			return &jobs[i];
	}
	return NULL;
}

/* What the imported latency of copies is, said once in the result. */
#define COPIES_LATENCY                                                                 \
	"numjobs copies without group_reporting: max is the slowest copy's; p50, p99 " \
	"and p99.9 the worst copy's, as fio merges histograms its output does not hold"

/*
 * Copy j's latency and %CPU into t, the test of its first copy, as fio's
 * group_reporting combines them (stat.c sum_thread_stats): %CPU is the
 * copies' CPU time over their summed run time, so a runtime-weighted mean;
 * the max is the largest. A percentile of merged histograms cannot be had
 * from percentiles: the worst copy's is kept, an upper bound, and the
 * result says so (param "fio_copies_latency").
 */
static int merge_copy_side(struct fsb_result *r, struct fsb_test_result *t, const struct job *j,
			   const struct side *s, double *copy_ms)
{
	double w = s->runtime_ms > 0 ? s->runtime_ms : 1;

	t->cpu_pct = (t->cpu_pct * *copy_ms + j->cpu * w) / (*copy_ms + w);
	*copy_ms += w;
	if (!s->has_clat_max)
		return 0;
	if (!t->has_latency) {
		t->has_latency = true;
		t->latency_max_only = true;
	}
	t->latency.max_us = fmax(t->latency.max_us, s->clat_max_ns / 1000);
	if (s->has_pcts && !t->latency_max_only) {
		t->latency.p50_us = fmax(t->latency.p50_us, s->p50_ns / 1000);
		t->latency.p99_us = fmax(t->latency.p99_us, s->p99_ns / 1000);
		t->latency.p999_us = fmax(t->latency.p999_us, s->p999_ns / 1000);
	} else if (!s->has_pcts) {
		/* One copy without percentiles: none is known for them all. */
		t->latency.p50_us = t->latency.p99_us = t->latency.p999_us = 0;
		t->latency_max_only = true;
	}
	return fsb_result_param_str(r, "fio_copies_latency", COPIES_LATENCY);
}

/*
 * The copies of one job ran at once: their figure is the sum of theirs
 * (fio's group_reporting), as fsbench's --jobs figure is the jobs'
 * aggregate, never one copy's beside it. j's rate joins the last run of
 * the first copy's test; %CPU and latency are combined (merge_copy_side).
 */
static int add_copy(struct fsb_result *r, struct job *j, struct job *first)
{
	for (int d = 0; d < NDIRS; d++) {
		struct fsb_test_result *t;
		const struct side *s = &j->side[d];
		double *runs;
		int err;

		if (!first->test_of[d] || !s->present || s->io_bytes <= 0)
			continue;
		t = &r->tests[first->test_of[d] - 1];
		if (!t->nruns)
			continue;
		if (!(runs = malloc(t->nruns * sizeof(*runs))))
			return -ENOMEM;
		memcpy(runs, t->runs, t->nruns * sizeof(*runs));
		runs[t->nruns - 1] += !strcmp(t->unit, "B/s") ? s->bw_bytes : s->iops;
		err = fsb_test_set_runs(t, runs, t->nruns);
		free(runs);
		if (!first->copy_ms[d])
			first->copy_ms[d] = first->side[d].runtime_ms > 0
						    ? first->side[d].runtime_ms
						    : 1;
		if (err || (err = merge_copy_side(r, t, j, s, &first->copy_ms[d])))
			return err;
		j->test_of[d] = first->test_of[d];
	}
	return 0;
}

static int merge_job(struct fsb_result *r, struct job *j, const struct job *first)
{
	int err;

	for (int d = 0; d < NDIRS; d++) {
		if (!first->test_of[d] || !j->side[d].present || j->side[d].io_bytes <= 0)
			continue;
		if ((err = add_run(&r->tests[first->test_of[d] - 1], j, &j->side[d])))
			return err;
		j->test_of[d] = first->test_of[d];
	}
	return 0;
}

static int job_tests(struct rd *rd, struct fsb_result *r, struct job *jobs, size_t idx)
{
	struct job *j = &jobs[idx], *first;
	char id[MAX_NAME + 48];
	const char *unit, *mapped;
	bool added = false;
	enum dir d;
	int err;

	if (j->error) {
		note(rd->left_out, sizeof(rd->left_out), &rd->nleft,
		     "job '%s' ended with error %lld", j->name, (long long)j->error);
		return 0;
	}
	if ((first = copy_of(jobs, idx)))
		return add_copy(r, j, first);
	if ((first = alike(jobs, idx)))
		return merge_job(r, j, first);
	mapped = mapped_id(j->kind, &d, &unit);
	if (mapped) {
		const struct side *s = &j->side[d];

		if (!s->present || s->io_bytes <= 0) {
			note(rd->left_out, sizeof(rd->left_out), &rd->nleft,
			     "job '%s' (%s) moved no data", j->name, j->kind);
			return 0;
		}
		j->test_of[d] = r->ntests + 1;
		if (!id_taken(r, mapped))
			return add_test(r, j, s, mapped, unit);
		/* A second job measuring the same thing: a row of its own. */
		if (extra_id(r, j, idx, d, id, sizeof(id)))
			return bad(rd, "jobs[%zu]: job names repeat too often", idx);
		note(rd->renamed, sizeof(rd->renamed), &rd->nrenamed,
		     "job '%s' measures '%s' as an earlier job does: shown as '%s'", j->name,
		     mapped, id);
		return add_test(r, j, s, id, unit);
	}
	unit = is_random(j->kind) ? "ops/s" : "B/s";
	for (int k = 0; k < NDIRS; k++) {
		const struct side *s = &j->side[k];

		if (!s->present || s->io_bytes <= 0)
			continue;
		if (extra_id(r, j, idx, (enum dir)k, id, sizeof(id)))
			return bad(rd, "jobs[%zu]: job names repeat too often", idx);
		j->test_of[k] = r->ntests + 1;
		if ((err = add_test(r, j, s, id, unit)))
			return err;
		added = true;
	}
	if (!added)
		note(rd->left_out, sizeof(rd->left_out), &rd->nleft, "job '%s' (%s) moved no data",
		     j->name, j->kind);
	return 0;
}

/* ---- params ----------------------------------------------------------------- */

/* Append "fmt" to buf (cut with "..." when full). */
static void cat(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	if (strlen(buf) + 1 >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

/*
 * One option across the jobs kept: its value when they agree, else
 * "job=value, ..." ("default" where a job leaves it to fio). Nothing when
 * no job sets it.
 */
static int option_param(struct rd *rd, struct fsb_result *r, const struct job *jobs, size_t n,
			const bool *kept, struct json_object *global, const char *key)
{
	const char *first = NULL, *v;
	bool any = false, differ = false, seen = false;
	char list[MAX_PARAM] = "";
	uint64_t bytes;
	int err;

	for (size_t i = 0; i < n; i++) {
		if (!kept[i])
			continue;
		if ((err = option(rd, &jobs[i], global, i, key, &v)))
			return err;
		if (seen && (!v != !first || (v && strcmp(v, first))))
			differ = true;
		if (!seen)
			first = v;
		seen = true;
		any |= v != NULL;
	}
	if (!any)
		return 0;
	if (!differ) {
		/* fio's sizes are binary like fsbench's: "4m" is 4 MiB. */
		if (!strcmp(key, "size") && !fsb_size_parse(first, &bytes))
			return fsb_result_param_u64(r, "size_bytes", bytes) ? -ENOMEM : 0;
		return fsb_result_param_str(r, key, first) ? -ENOMEM : 0;
	}
	for (size_t i = 0, k = 0; i < n; i++) {
		if (!kept[i])
			continue;
		if ((err = option(rd, &jobs[i], global, i, key, &v)))
			return err;
		cat(list, sizeof(list), "%s%s=%s", k++ ? ", " : "", jobs[i].name,
		    v ? v : "default");
	}
	return fsb_result_param_str(r, key, list) ? -ENOMEM : 0;
}

static int params(struct rd *rd, struct fsb_result *r, const struct job *jobs, size_t n,
		  const bool *kept, struct json_object *global, const char *date)
{
	static const char *const keys[] = { "bs",   "iodepth", "numjobs",   "ioengine", "direct",
					    "size", "fsync",   "fdatasync", "end_fsync" };
	char list[MAX_PARAM] = "";
	int err;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if ((err = option_param(rd, r, jobs, n, kept, global, keys[i])))
			return err;
	for (size_t i = 0, k = 0; i < n; i++)
		if (kept[i])
			cat(list, sizeof(list), "%s%s (%s)", k++ ? ", " : "", jobs[i].name,
			    jobs[i].kind);
	if (fsb_result_param_str(r, "jobs", list))
		return -ENOMEM;
	if (date && fsb_result_param_str(r, "date", date))
		return -ENOMEM;
	return 0;
}

/* ---- the document ----------------------------------------------------------- */

static int head(struct rd *rd, struct json_object *doc, struct fsb_result *r, const char **date)
{
	const char *ver, *v;
	char tool[96];
	int err;

	if ((err = get_str(rd, doc, "", "fio version", 64, &ver)) < 0)
		return err;
	if (!err)
		return bad(rd, "fio version is missing");
	if ((err = get_str(rd, doc, "", "time", 64, date)) < 0)
		return err;
	/* "fio-3.33" names itself; the tool is "fio 3.33". */
	v = strncmp(ver, "fio-", 4) ? ver : ver + 4;
	snprintf(tool, sizeof(tool), "fio %s", v);
	r->format_version = FSB_FORMAT_VERSION;
	if (fsb_strset(&r->tool, tool) || fsb_strset(&r->version, v) || fsb_strset(&r->kind, "run"))
		return -ENOMEM;
	if (asprintf(&r->source, "%s JSON, %s", tool, rd->path) < 0) {
		r->source = NULL;
		return -ENOMEM;
	}
	return 0;
}

int fsb_import_fio(struct json_object *doc, const char *path, struct fsb_result *out, char *why,
		   size_t why_len)
{
	struct rd rd = { .why = why, .why_len = why_len, .path = path };
	struct json_object *jobs_arr, *global = NULL;
	struct fsb_result r;
	struct job *jobs = NULL;
	bool *kept = NULL;
	const char *date = NULL;
	size_t n = 0;
	int err;

	memset(&r, 0, sizeof(r));
	memset(out, 0, sizeof(*out));
	if (why && why_len)
		why[0] = '\0';
	if (!fsb_import_is_fio(doc)) {
		err = bad(&rd, "not fio's JSON output");
		goto out;
	}
	if ((err = head(&rd, doc, &r, &date)) ||
	    (err = get_obj(&rd, doc, "", "global options", &global)) < 0)
		goto out;
	if (!member(doc, "jobs", &jobs_arr)) {
		err = bad(&rd, "jobs is missing");
		goto out;
	}
	if (!json_object_is_type(jobs_arr, json_type_array)) {
		err = bad(&rd, "jobs is not an array");
		goto out;
	}
	n = json_object_array_length(jobs_arr);
	if (n > MAX_JOBS) {
		err = bad(&rd, "jobs has more than %d entries", MAX_JOBS);
		goto out;
	}
	jobs = calloc(n ? n : 1, sizeof(*jobs));
	kept = calloc(n ? n : 1, sizeof(*kept));
	if (!jobs || !kept) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		size_t before = r.ntests;

		if ((err = read_job(&rd, json_object_array_get_idx(jobs_arr, i), i, global,
				    &jobs[i])) ||
		    (err = job_tests(&rd, &r, jobs, i)))
			goto out;
		kept[i] = r.ntests > before;
		for (int d = 0; d < NDIRS; d++)
			kept[i] |= jobs[i].test_of[d] != 0;
	}
	if (!r.ntests) {
		err = bad(&rd, n ? "no job with figures (each failed or moved no data)"
				 : "jobs is empty");
		goto out;
	}
	if ((err = params(&rd, &r, jobs, n, kept, global, date)))
		goto out;
	if (rd.nrenamed > 1)
		fsb_warn("'%s': %s (and %zu more like it)", path, rd.renamed, rd.nrenamed - 1);
	else if (rd.nrenamed)
		fsb_warn("'%s': %s", path, rd.renamed);
	if (rd.nleft > 1)
		fsb_warn("'%s': %s: left out (and %zu more jobs)", path, rd.left_out, rd.nleft - 1);
	else if (rd.nleft)
		fsb_warn("'%s': %s: left out", path, rd.left_out);
	*out = r;
	memset(&r, 0, sizeof(r));
out:
	if (err == -ENOMEM && why && why_len)
		snprintf(why, why_len, "out of memory");
	free(jobs);
	free(kept);
	fsb_result_release(&r);
	return err;
}
