#include "report/result.h"
#include "stats/aggregate.h"
#include "stats/summary.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

int fsb_strset(char **field, const char *value)
{
	char *copy = NULL;

	if (value && !(copy = strdup(value)))
		return -ENOMEM;
	free(*field);
	*field = copy;
	return 0;
}

int fsb_result_init(struct fsb_result *r, const char *kind)
{
	memset(r, 0, sizeof(*r));
	r->format_version = FSB_FORMAT_VERSION;
	if (fsb_strset(&r->tool, "fsbench") || fsb_strset(&r->version, FSB_VERSION) ||
	    fsb_strset(&r->kind, kind)) {
		fsb_result_release(r);
		return -ENOMEM;
	}
	return 0;
}

static void test_release(struct fsb_test_result *t)
{
	free(t->id);
	free(t->unit);
	free(t->runs);
	free(t->short_reason);
	free(t->chosen_how);
	free(t->chosen_why);
	free(t->job_runs);
	free(t->job_cpu_pct);
	free(t->start_ns);
	free(t->end_ns);
	free(t->stopped_by);
	free(t->hist);
	free(t->repeat_stop);
	free(t->metadata_cold);
}

void fsb_result_release(struct fsb_result *r)
{
	free(r->tool);
	free(r->version);
	free(r->kind);
	free(r->host.kernel);
	free(r->host.cpu);
	free(r->host.hostname);
	free(r->setup.label);
	free(r->setup.dir);
	free(r->setup.fs_type);
	free(r->setup.mount_options);
	free(r->setup.device);
	free(r->setup.fill);
	free(r->setup.ram_backed);
	free(r->setup.loop_device);
	free(r->setup.loop_backing);
	free(r->host.virtualization);
	fsb_devcap_release(&r->devcap);
	for (size_t i = 0; i < r->nparams; i++) {
		free(r->params[i].key);
		free(r->params[i].s);
	}
	free(r->params);
	for (size_t i = 0; i < r->ntests; i++)
		test_release(&r->tests[i]);
	free(r->tests);
	free(r->source);
	memset(r, 0, sizeof(*r));
}

static char *cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512], *model = NULL;

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		model = strdup(colon);
		break;
	}
	fclose(f);
	return model;
}

int fsb_result_fill_host(struct fsb_result *r)
{
	struct utsname u;
	char host[256];
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	if (uname(&u) < 0)
		return -errno;
	if (fsb_strset(&r->host.kernel, u.release))
		return -ENOMEM;
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		if (fsb_strset(&r->host.hostname, host))
			return -ENOMEM;
	}
	free(r->host.cpu);
	r->host.cpu = cpu_model();
	if (!r->host.cpu && fsb_strset(&r->host.cpu, u.machine))
		return -ENOMEM;
	r->host.cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	r->host.ram_bytes = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : 0;
	return 0;
}

static struct fsb_param *param_slot(struct fsb_result *r, const char *key)
{
	struct fsb_param *p;

	for (size_t i = 0; i < r->nparams; i++) {
		if (!strcmp(r->params[i].key, key)) {
			p = &r->params[i];
			free(p->s);
			p->s = NULL;
			return p;
		}
	}
	p = realloc(r->params, (r->nparams + 1) * sizeof(*p));
	if (!p)
		return NULL;
	r->params = p;
	p = &r->params[r->nparams];
	memset(p, 0, sizeof(*p));
	if (!(p->key = strdup(key)))
		return NULL;
	r->nparams++;
	return p;
}

int fsb_result_param_u64(struct fsb_result *r, const char *key, uint64_t v)
{
	struct fsb_param *p = param_slot(r, key);

	if (!p)
		return -ENOMEM;
	p->type = FSB_PARAM_U64;
	p->u = v;
	return 0;
}

int fsb_result_param_double(struct fsb_result *r, const char *key, double v)
{
	struct fsb_param *p = param_slot(r, key);

	if (!p)
		return -ENOMEM;
	p->type = FSB_PARAM_DOUBLE;
	p->d = v;
	return 0;
}

int fsb_result_param_str(struct fsb_result *r, const char *key, const char *v)
{
	struct fsb_param *p = param_slot(r, key);

	if (!p)
		return -ENOMEM;
	p->type = FSB_PARAM_STR;
	return fsb_strset(&p->s, v ? v : "");
}

int fsb_result_param_bool(struct fsb_result *r, const char *key, bool v)
{
	struct fsb_param *p = param_slot(r, key);

	if (!p)
		return -ENOMEM;
	p->type = FSB_PARAM_BOOL;
	p->b = v;
	return 0;
}

const struct fsb_param *fsb_result_param(const struct fsb_result *r, const char *key)
{
	for (size_t i = 0; i < r->nparams; i++)
		if (!strcmp(r->params[i].key, key))
			return &r->params[i];
	return NULL;
}

uint64_t fsb_result_get_u64(const struct fsb_result *r, const char *key, uint64_t dflt)
{
	const struct fsb_param *p = fsb_result_param(r, key);

	return p && p->type == FSB_PARAM_U64 ? p->u : dflt;
}

const char *fsb_result_get_str(const struct fsb_result *r, const char *key, const char *dflt)
{
	const struct fsb_param *p = fsb_result_param(r, key);

	return p && p->type == FSB_PARAM_STR ? p->s : dflt;
}

struct fsb_test_result *fsb_result_add_test(struct fsb_result *r, const char *id, const char *unit)
{
	struct fsb_test_result *t = realloc(r->tests, (r->ntests + 1) * sizeof(*t));

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	r->tests = t;
	t = &r->tests[r->ntests];
	memset(t, 0, sizeof(*t));
	if (fsb_strset(&t->id, id) || fsb_strset(&t->unit, unit)) {
		test_release(t);
		errno = ENOMEM;
		return NULL;
	}
	r->ntests++;
	return t;
}

int fsb_test_set_runs(struct fsb_test_result *t, const double *runs, size_t n)
{
	struct fsb_summary s;
	int err;

	/* (n == 0 is -EINVAL there) */
	if ((err = fsb_summary_compute(runs, n, &s)))
		return err;
	return fsb_test_set_runs_summarised(t, runs, n, &s);
}

int fsb_test_set_runs_summarised(struct fsb_test_result *t, const double *runs, size_t n,
				 const struct fsb_summary *s)
{
	double *copy;

	if (!n)
		return -EINVAL;
	copy = malloc(n * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, runs, n * sizeof(*copy));
	free(t->runs);
	t->runs = copy;
	t->nruns = n;
	t->median = s->median;
	t->min = s->min;
	t->max = s->max;
	t->cv = s->cv;
	return 0;
}

int fsb_test_set_jobs(struct fsb_test_result *t, const double *job_runs, size_t njobs,
		      const double *cpu_pct)
{
	struct fsb_summary s;
	double *runs, *cpu;
	int err;

	if (!njobs || !t->nruns || njobs > SIZE_MAX / sizeof(double) / t->nruns)
		return -EINVAL;
	runs = malloc(njobs * t->nruns * sizeof(*runs));
	cpu = calloc(njobs, sizeof(*cpu));
	if (!runs || !cpu) {
		free(runs);
		free(cpu);
		return -ENOMEM;
	}
	memcpy(runs, job_runs, njobs * t->nruns * sizeof(*runs));
	if (cpu_pct)
		memcpy(cpu, cpu_pct, njobs * sizeof(*cpu));
	err = fsb_agg_spread(runs, njobs, t->nruns, NULL, &s);
	if (err) {
		free(runs);
		free(cpu);
		return err;
	}
	free(t->job_runs);
	free(t->job_cpu_pct);
	t->job_runs = runs;
	t->job_cpu_pct = cpu;
	t->njobs = njobs;
	t->job_min = s.min;
	t->job_median = s.median;
	t->job_max = s.max;
	return 0;
}

int fsb_test_set_times(struct fsb_test_result *t, const uint64_t *start_ns, const uint64_t *end_ns)
{
	uint64_t *a, *b;

	if (!t->nruns)
		return -EINVAL;
	a = malloc(t->nruns * sizeof(*a));
	b = malloc(t->nruns * sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	memcpy(a, start_ns, t->nruns * sizeof(*a));
	memcpy(b, end_ns, t->nruns * sizeof(*b));
	free(t->start_ns);
	free(t->end_ns);
	t->start_ns = a;
	t->end_ns = b;
	return 0;
}

int fsb_test_set_hist(struct fsb_test_result *t, const struct fsb_hist *h)
{
	struct fsb_hist_bucket *b;
	size_t n = 0, k = 0;

	for (unsigned i = 0; i < FSB_HIST_BUCKETS; i++)
		n += h->bucket[i] != 0;
	free(t->hist);
	t->hist = NULL;
	t->nhist = 0;
	t->hist_count = 0;
	if (!n)
		return 0;
	b = malloc(n * sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (unsigned i = 0; i < FSB_HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		b[k].idx = i;
		b[k++].count = h->bucket[i];
		t->hist_count += h->bucket[i];
	}
	t->hist = b;
	t->nhist = n;
	return 0;
}

int fsb_test_set_hist_buckets(struct fsb_test_result *t, const struct fsb_hist_bucket *b, size_t n)
{
	struct fsb_hist_bucket *copy = NULL;
	uint64_t sum = 0;

	if (n > FSB_HIST_BUCKETS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		/* Increasing indexes: no bucket twice, and at most every bucket. */
		if (b[i].idx >= FSB_HIST_BUCKETS || (i && b[i].idx <= b[i - 1].idx) ||
		    !b[i].count || b[i].count > UINT64_MAX - sum)
			return -EINVAL;
		sum += b[i].count;
	}
	if (n && !(copy = malloc(n * sizeof(*copy))))
		return -ENOMEM;
	if (n)
		memcpy(copy, b, n * sizeof(*copy));
	free(t->hist);
	t->hist = copy;
	t->nhist = n;
	t->hist_count = sum;
	return 0;
}

unsigned fsb_result_ranks(const struct fsb_result *r)
{
	uint64_t n = fsb_result_get_u64(r, "ranks", 1);

	return n >= 1 && n <= 1u << 20 ? (unsigned)n : 1;
}

unsigned fsb_result_jobs(const struct fsb_result *r)
{
	uint64_t n = fsb_result_get_u64(r, "jobs", 1);

	if (n < 1 || n > 1u << 20)
		n = 1;
	/* Every rank ran the jobs: the members are ranks x jobs. */
	n *= fsb_result_ranks(r);
	return n <= 1u << 20 ? (unsigned)n : 1;
}

const struct fsb_test_result *fsb_result_find(const struct fsb_result *r, const char *id)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (!strcmp(r->tests[i].id, id))
			return &r->tests[i];
	return NULL;
}

double fsb_devcap_value(const struct fsb_devcap *d, enum fsb_devcap_fig k)
{
	switch (k) {
	case FSB_DEVCAP_SEQ_READ:
		return d->seq_read_Bps;
	case FSB_DEVCAP_SEQ_WRITE:
		return d->seq_write_Bps;
	case FSB_DEVCAP_RAND_READ:
		return d->rand_read_iops;
	case FSB_DEVCAP_RAND_WRITE:
		return d->rand_write_iops;
	default:
		return 0;
	}
}

const char *fsb_devcap_key(enum fsb_devcap_fig k)
{
	static const char *const keys[FSB_DEVCAP_FIGS] = { "seq_read_Bps", "seq_write_Bps",
							   "rand_read_iops", "rand_write_iops" };

	return (unsigned)k < FSB_DEVCAP_FIGS ? keys[k] : "?";
}

const char *fsb_devcap_title(enum fsb_devcap_fig k)
{
	static const char *const names[FSB_DEVCAP_FIGS] = { "sequential read", "sequential write",
							    "4 KiB random read",
							    "4 KiB random write" };

	return (unsigned)k < FSB_DEVCAP_FIGS ? names[k] : "?";
}

double fsb_devcap_spread(const struct fsb_devcap *d, enum fsb_devcap_fig k, double *lo, double *hi)
{
	double med = fsb_devcap_value(d, k), mn, mx;
	unsigned n = (unsigned)k < FSB_DEVCAP_FIGS ? d->nrounds[k] : 0;

	if (n > FSB_DEVCAP_ROUNDS_MAX)
		n = FSB_DEVCAP_ROUNDS_MAX;
	mn = mx = n ? d->rounds[k][0] : med;
	for (unsigned i = 1; i < n; i++) {
		mn = d->rounds[k][i] < mn ? d->rounds[k][i] : mn;
		mx = d->rounds[k][i] > mx ? d->rounds[k][i] : mx;
	}
	if (lo)
		*lo = mn;
	if (hi)
		*hi = mx;
	return n >= 2 && med > 0 ? (mx - mn) / med : 0;
}

void fsb_devcap_release(struct fsb_devcap *d)
{
	free(d->device);
	free(d->engine);
	free(d->data_from);
	free(d->short_reason);
	memset(d, 0, sizeof(*d));
}

int fsb_devcap_dup(struct fsb_devcap *dst, const struct fsb_devcap *src)
{
	fsb_devcap_release(dst);
	*dst = *src;
	dst->device = dst->engine = dst->data_from = dst->short_reason = NULL;
	if (fsb_strset(&dst->device, src->device) || fsb_strset(&dst->engine, src->engine) ||
	    fsb_strset(&dst->data_from, src->data_from) ||
	    fsb_strset(&dst->short_reason, src->short_reason))
		return -ENOMEM;
	return 0;
}

bool fsb_result_device_fraction(const struct fsb_result *r, const struct fsb_test_result *t,
				double *frac, bool *rough)
{
	const struct fsb_devcap *d = &r->devcap;
	double dev = 0;

	*rough = false;
	/* The null engine's figures are no storage's: no share of a device. */
	if (!d->present || t->not_measured || !t->nruns || !t->id || !t->unit ||
	    fsb_test_harness_only(r, t))
		return false;
	/* Rates only: a lifecycle's "write" is a phase in seconds. */
	if (strcmp(t->unit, !strcmp(t->id, "write") || !strcmp(t->id, "read") ? "B/s" : "ops/s"))
		return false;
	if (!strcmp(t->id, "write"))
		dev = d->seq_write_Bps;
	else if (!strcmp(t->id, "read"))
		dev = d->seq_read_Bps;
	else if (!strcmp(t->id, "randread"))
		dev = d->rand_read_iops;
	else if (!strcmp(t->id, "randwrite"))
		dev = d->rand_write_iops;
	else if (!strcmp(t->id, "seeks"))
		dev = d->rand_read_iops, *rough = true;
	if (!(dev > 0))
		return false;
	*frac = t->median / dev;
	return true;
}

const char *fsb_test_title(const char *id)
{
	static const char *const t[][2] = {
		{ "putc", "per-char write" },  { "write", "block write" },
		{ "rewrite", "rewrite" },      { "getc", "per-char read" },
		{ "read", "block read" },      { "seeks", "random seeks" },
		{ "randread", "random read" }, { "randwrite", "random write" },
	};

	for (size_t i = 0; id && i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(id, t[i][0]))
			return t[i][1];
	return id ? id : "?";
}

const char *fsb_test_unit(const char *kind, const char *id)
{
	/* The registry's tests (core/registry.c) by their work unit. */
	static const char *const bytes[] = { "putc", "write", "rewrite", "getc", "read" };
	static const char *const ops[] = { "seeks",	 "randread",   "randwrite",  "null",
					   "seq-create", "seq-stat",   "seq-delete", "rand-create",
					   "rand-stat",	 "rand-delete" };

	if (!kind || !id)
		return NULL;
	if (!strcmp(kind, "lifecycle"))
		return "s";
	if (strcmp(kind, "run"))
		return NULL;
	for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++)
		if (!strcmp(id, bytes[i]))
			return "B/s";
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(id, ops[i]))
			return "ops/s";
	return NULL;
}

bool fsb_test_noisy(const struct fsb_test_result *t)
{
	return t->cv > FSB_NOISY_CV;
}

bool fsb_test_uses_engine(const char *id)
{
	static const char *const ids[] = { "write", "rewrite",	"read",
					   "seeks", "randread", "randwrite" };

	for (size_t i = 0; id && i < sizeof(ids) / sizeof(ids[0]); i++)
		if (!strcmp(id, ids[i]))
			return true;
	return false;
}

bool fsb_result_null_engine(const struct fsb_result *r)
{
	const char *e = r->source ? NULL : fsb_result_get_str(r, "engine", NULL);

	return e && !strcmp(e, "null");
}

bool fsb_test_harness_only(const struct fsb_result *r, const struct fsb_test_result *t)
{
	return t && fsb_result_null_engine(r) && fsb_test_uses_engine(t->id) &&
	       (!r->kind || !strcmp(r->kind, "run"));
}

bool fsb_unit_lower_is_better(const char *unit)
{
	return unit && !strcmp(unit, "s");
}
