#include "report/json.h"
#include "report/caveats.h"
#include "stats/summary.h"
#include "util/error.h"
#include "util/io.h"
#include "util/text.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * Upper bounds for arrays and objects read from a file. They are far above
 * anything fsbench writes (3 runs, 12 tests, a dozen params) and keep a
 * hostile file from making us allocate in proportion to its whims.
 */
#define MAX_TESTS 4096
#define MAX_RUNS 100000
#define MAX_PARAMS 4096
/* Jobs per test (fsbench takes 1024) and job x run figures per test. */
#define MAX_JOBS 65536
#define MAX_JOB_FIGURES 1000000

/* ---- writing ---------------------------------------------------------- */

/*
 * A builder with a sticky error: every put after a failure is a no-op, and
 * the caller checks once at the end instead of after each key.
 */
struct jbuild {
	int err;
};

static void put(struct jbuild *b, struct json_object *obj, const char *key, struct json_object *val)
{
	if (b->err) {
		json_object_put(val);
		return;
	}
	if (!val) {
		b->err = -ENOMEM;
		return;
	}
	if (json_object_object_add(obj, key, val)) {
		json_object_put(val);
		b->err = -ENOMEM;
	}
}

static void put_str(struct jbuild *b, struct json_object *obj, const char *key, const char *s)
{
	/* An unknown string is absent, not "" or null. */
	if (s)
		put(b, obj, key, json_object_new_string(s));
}

static void put_u64(struct jbuild *b, struct json_object *obj, const char *key, uint64_t v)
{
	put(b, obj, key, json_object_new_uint64(v));
}

static struct json_object *new_double(double v)
{
	/* JSON has no NaN or Infinity; a reader would choke on them. */
	return json_object_new_double(isfinite(v) ? v : 0.0);
}

static void put_double(struct jbuild *b, struct json_object *obj, const char *key, double v)
{
	put(b, obj, key, new_double(v));
}

static struct json_object *new_obj(struct jbuild *b, struct json_object *parent, const char *key)
{
	struct json_object *o = json_object_new_object();

	put(b, parent, key, o);
	return b->err ? NULL : o;
}

static void build_host(struct jbuild *b, struct json_object *doc, const struct fsb_host *h)
{
	struct json_object *o = new_obj(b, doc, "host");

	if (!o)
		return;
	put_str(b, o, "kernel", h->kernel);
	put_str(b, o, "cpu", h->cpu);
	put(b, o, "cpus", json_object_new_int(h->cpus > 0 ? h->cpus : 0));
	put_u64(b, o, "ram_bytes", h->ram_bytes);
	put_str(b, o, "hostname", h->hostname);
	put_str(b, o, "virtualization", h->virtualization);
	if (h->has_balloon)
		put(b, o, "balloon_free_page_reporting",
		    json_object_new_boolean(h->balloon_free_page_reporting));
}

static void build_setup(struct jbuild *b, struct json_object *doc, const struct fsb_setup *s)
{
	struct json_object *o = new_obj(b, doc, "setup"), *lo;

	if (!o)
		return;
	put_str(b, o, "label", s->label);
	put_str(b, o, "dir", s->dir);
	put_str(b, o, "fs_type", s->fs_type);
	put_str(b, o, "mount_options", s->mount_options);
	put_str(b, o, "device", s->device);
	put_str(b, o, "fill", s->fill);
	if (s->ram_backed) {
		put(b, o, "ram_backed", json_object_new_boolean(1));
		put_str(b, o, "ram_backed_why", s->ram_backed);
	}
	if (s->loop_device && (lo = new_obj(b, o, "loop"))) {
		put_str(b, lo, "device", s->loop_device);
		put_str(b, lo, "backing_file", s->loop_backing);
		put(b, lo, "dio", json_object_new_boolean(s->loop_dio));
		if (s->has_loop_resident)
			put_double(b, lo, "backing_resident", s->loop_resident);
	}
}

static struct json_object *double_array(struct jbuild *b, const double *v, size_t n);

/* Each figure's rounds, their spread (derived, for readers of the file),
 * and what the reads covered. */
static void build_devcap_rounds(struct jbuild *b, struct json_object *o, const struct fsb_devcap *d)
{
	struct json_object *rounds = NULL, *spread = NULL, *data;

	for (int k = 0; !b->err && k < FSB_DEVCAP_FIGS; k++) {
		unsigned n = d->nrounds[k] > FSB_DEVCAP_ROUNDS_MAX ? FSB_DEVCAP_ROUNDS_MAX
								   : d->nrounds[k];

		if (!n || !(fsb_devcap_value(d, (enum fsb_devcap_fig)k) > 0))
			continue;
		if (!rounds &&
		    (!(rounds = new_obj(b, o, "rounds")) || !(spread = new_obj(b, o, "spread"))))
			return;
		put(b, rounds, fsb_devcap_key((enum fsb_devcap_fig)k),
		    double_array(b, d->rounds[k], n));
		put_double(b, spread, fsb_devcap_key((enum fsb_devcap_fig)k),
			   fsb_devcap_spread(d, (enum fsb_devcap_fig)k, NULL, NULL));
	}
	if (!d->data_from || !(data = new_obj(b, o, "data")))
		return;
	put_str(b, data, "from", d->data_from);
	put_u64(b, data, "bytes", d->data_bytes);
	put_u64(b, data, "ranges", d->data_ranges);
	put_u64(b, data, "read_bytes", d->read_bytes);
}

static void build_devcap(struct jbuild *b, struct json_object *doc, const struct fsb_devcap *d)
{
	struct json_object *o, *how;

	if (!d->present || !(o = new_obj(b, doc, "device_capability")))
		return;
	put_str(b, o, "device", d->device);
	put_double(b, o, "seq_read_Bps", d->seq_read_Bps);
	/* The writes are absent where the device could only be read. */
	if (d->seq_write_Bps > 0)
		put_double(b, o, "seq_write_Bps", d->seq_write_Bps);
	put_double(b, o, "rand_read_iops", d->rand_read_iops);
	if (d->rand_write_iops > 0)
		put_double(b, o, "rand_write_iops", d->rand_write_iops);
	build_devcap_rounds(b, o, d);
	put_str(b, o, "short_reason", d->short_reason);
	if (!(how = new_obj(b, o, "how")))
		return;
	put_u64(b, how, "rounds", d->nrounds[FSB_DEVCAP_SEQ_READ]);
	put_str(b, how, "engine", d->engine);
	put_u64(b, how, "seq_depth", d->seq_depth);
	put_u64(b, how, "seq_block_bytes", d->seq_block_bytes);
	put_u64(b, how, "rand_depth", d->rand_depth);
	put_u64(b, how, "rand_block_bytes", d->rand_block_bytes);
	put_double(b, how, "seconds", d->seconds);
}

static void build_caveats(struct jbuild *b, struct json_object *doc, const struct fsb_result *r)
{
	struct fsb_caveat cav[FSB_CAVEATS_MAX];
	size_t n = fsb_caveats_find(r, cav, FSB_CAVEATS_MAX);
	struct json_object *arr = json_object_new_array();

	put(b, doc, "caveats", arr);
	for (size_t i = 0; !b->err && i < n; i++) {
		struct json_object *o = json_object_new_object();

		if (!o || json_object_array_add(arr, o)) {
			json_object_put(o);
			b->err = -ENOMEM;
			return;
		}
		put_str(b, o, "id", cav[i].id);
		put_str(b, o, "text", cav[i].text);
		put_str(b, o, "evidence", cav[i].evidence);
	}
}

static void build_params(struct jbuild *b, struct json_object *doc, const struct fsb_result *r)
{
	struct json_object *o = new_obj(b, doc, "params");

	for (size_t i = 0; o && i < r->nparams; i++) {
		const struct fsb_param *p = &r->params[i];

		switch (p->type) {
		case FSB_PARAM_U64:
			put_u64(b, o, p->key, p->u);
			break;
		case FSB_PARAM_DOUBLE:
			put_double(b, o, p->key, p->d);
			break;
		case FSB_PARAM_STR:
			put(b, o, p->key, json_object_new_string(p->s ? p->s : ""));
			break;
		case FSB_PARAM_BOOL:
			put(b, o, p->key, json_object_new_boolean(p->b));
			break;
		}
	}
}

/* A new array of n unsigned integers (NULL after a failure, in b). */
static struct json_object *u64_array(struct jbuild *b, const uint64_t *v, size_t n)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; arr && !b->err && i < n; i++) {
		struct json_object *x = json_object_new_uint64(v[i]);

		if (!x || json_object_array_add(arr, x)) {
			json_object_put(x);
			b->err = -ENOMEM;
		}
	}
	return arr;
}

/* A new array of n reals. */
static struct json_object *double_array(struct jbuild *b, const double *v, size_t n)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; arr && !b->err && i < n; i++) {
		struct json_object *x = new_double(v[i]);

		if (!x || json_object_array_add(arr, x)) {
			json_object_put(x);
			b->err = -ENOMEM;
		}
	}
	return arr;
}

/* "per_job": the spread of the jobs' medians, each job's runs and %CPU. */
static void build_per_job(struct jbuild *b, struct json_object *o, const struct fsb_test_result *t)
{
	struct json_object *runs = json_object_new_array();

	put_u64(b, o, "jobs", t->njobs);
	put_double(b, o, "min", t->job_min);
	put_double(b, o, "median", t->job_median);
	put_double(b, o, "max", t->job_max);
	put(b, o, "runs", runs);
	for (size_t j = 0; !b->err && j < t->njobs; j++) {
		struct json_object *one = double_array(b, t->job_runs + j * t->nruns, t->nruns);

		if (!one || json_object_array_add(runs, one)) {
			json_object_put(one);
			b->err = -ENOMEM;
		}
	}
	if (t->job_cpu_pct)
		put(b, o, "cpu_pct", double_array(b, t->job_cpu_pct, t->njobs));
}

/*
 * "latency_hist": the scheme and the non-empty buckets as [index, count]
 * pairs, in index order (a few dozen pairs where the full histogram has
 * FSB_HIST_BUCKETS).
 */
static void build_hist(struct jbuild *b, struct json_object *o, const struct fsb_test_result *t)
{
	struct json_object *arr = json_object_new_array();

	put(b, o, "scheme", json_object_new_string(FSB_HIST_SCHEME));
	put_u64(b, o, "count", t->hist_count);
	put(b, o, "buckets", arr);
	for (size_t i = 0; !b->err && i < t->nhist; i++) {
		uint64_t pair[2] = { t->hist[i].idx, t->hist[i].count };
		struct json_object *one = u64_array(b, pair, 2);

		if (!one || json_object_array_add(arr, one)) {
			json_object_put(one);
			b->err = -ENOMEM;
		}
	}
}

static void build_test(struct jbuild *b, struct json_object *arr, const struct fsb_result *r,
		       const struct fsb_test_result *t)
{
	struct json_object *o = json_object_new_object(), *runs, *sub;
	double frac;
	bool rough;

	if (!o) {
		b->err = -ENOMEM;
		return;
	}
	if (json_object_array_add(arr, o)) {
		json_object_put(o);
		b->err = -ENOMEM;
		return;
	}
	put_str(b, o, "id", t->id);
	put_str(b, o, "unit", t->unit);
	put_double(b, o, "median", t->median);
	put_double(b, o, "min", t->min);
	put_double(b, o, "max", t->max);
	put_double(b, o, "cv", t->cv);
	put(b, o, "noisy", json_object_new_boolean(fsb_test_noisy(t)));
	runs = json_object_new_array();
	put(b, o, "runs", runs);
	for (size_t i = 0; !b->err && i < t->nruns; i++) {
		struct json_object *v = new_double(t->runs[i]);

		if (!v || json_object_array_add(runs, v)) {
			json_object_put(v);
			b->err = -ENOMEM;
		}
	}
	put_double(b, o, "cpu_pct", t->cpu_pct);
	put_u64(b, o, "work", t->work);
	put_double(b, o, "elapsed_s", t->elapsed_s);
	if (t->has_latency && (sub = new_obj(b, o, "latency_us"))) {
		put_double(b, sub, "max", t->latency.max_us);
		put_double(b, sub, "p50", t->latency.p50_us);
		put_double(b, sub, "p99", t->latency.p99_us);
		put_double(b, sub, "p999", t->latency.p999_us);
	}
	if (t->nhist && (sub = new_obj(b, o, "latency_hist")))
		build_hist(b, sub, t);
	if (t->has_device && (sub = new_obj(b, o, "device"))) {
		put_u64(b, sub, "read_bytes", t->dev_read_bytes);
		put_u64(b, sub, "write_bytes", t->dev_write_bytes);
		if (t->has_inflight) {
			put_double(b, sub, "inflight_max", t->inflight_max);
			put_double(b, sub, "inflight_mean", t->inflight_mean);
		}
	}
	if (t->has_wa)
		put_double(b, o, "write_amplification", t->write_amplification);
	if (t->file_bytes)
		put_u64(b, o, "file_bytes", t->file_bytes);
	if (t->short_reason)
		put_str(b, o, "short_reason", t->short_reason);
	if (t->chosen_how && (sub = new_obj(b, o, "chosen"))) {
		put_str(b, sub, "how", t->chosen_how);
		put_str(b, sub, "why", t->chosen_why);
	}
	if (t->start_ns && t->end_ns) {
		put(b, o, "start_ns", u64_array(b, t->start_ns, t->nruns));
		put(b, o, "end_ns", u64_array(b, t->end_ns, t->nruns));
	}
	if (t->stopped_by)
		put_str(b, o, "stopped_by", t->stopped_by);
	if (t->has_ci) {
		put_double(b, o, "ci95_low", t->ci95_low);
		put_double(b, o, "ci95_high", t->ci95_high);
	}
	if (t->repeat_stop)
		put_str(b, o, "repeat_stop", t->repeat_stop);
	if (t->has_resident)
		put_double(b, o, "cache_resident", t->cache_resident);
	if (t->has_loop_resident)
		put_double(b, o, "loop_backing_resident", t->loop_resident);
	if (t->metadata_cold)
		put_str(b, o, "metadata_cold", t->metadata_cold);
	if (t->njobs > 1 && t->job_runs && (sub = new_obj(b, o, "per_job")))
		build_per_job(b, sub, t);
	/* Derived from the test and device_capability, written for readers
	 * of the file; fsbench recomputes it when it reads one. */
	if (fsb_result_device_fraction(r, t, &frac, &rough)) {
		put_double(b, o, "device_fraction", frac);
		if (rough)
			put(b, o, "device_fraction_rough", json_object_new_boolean(1));
	}
}

struct json_object *fsb_json_from_result(const struct fsb_result *r)
{
	struct jbuild b = { 0 };
	struct json_object *doc = json_object_new_object(), *tests;

	if (!doc) {
		errno = ENOMEM;
		return NULL;
	}
	put(&b, doc, "format_version", json_object_new_int(r->format_version));
	put_str(&b, doc, "tool", r->tool);
	put_str(&b, doc, "version", r->version);
	put_str(&b, doc, "kind", r->kind);
	build_host(&b, doc, &r->host);
	build_setup(&b, doc, &r->setup);
	build_params(&b, doc, r);
	build_devcap(&b, doc, &r->devcap);
	tests = json_object_new_array();
	put(&b, doc, "tests", tests);
	for (size_t i = 0; !b.err && i < r->ntests; i++)
		build_test(&b, tests, r, &r->tests[i]);
	if (r->has_caveats)
		build_caveats(&b, doc, r);
	if (b.err) {
		json_object_put(doc);
		errno = -b.err;
		return NULL;
	}
	return doc;
}

/* ---- valid UTF-8 ------------------------------------------------------ */

/* The key beside a string that keeps its exact bytes: "label_bytes". */
#define BYTES_SUFFIX "_bytes"

static char *bytes_key(const char *key)
{
	size_t n = strlen(key);
	char *k = malloc(n + sizeof(BYTES_SUFFIX));

	if (k) {
		memcpy(k, key, n);
		memcpy(k + n, BYTES_SUFFIX, sizeof(BYTES_SUFFIX));
	}
	return k;
}

/* A new string: s as valid UTF-8, or NULL when it is already or on ENOMEM
 * (*err says which). */
static struct json_object *mended(const char *s, int *err)
{
	struct json_object *v;
	char *clean;

	*err = 0;
	if (fsb_utf8_valid(s))
		return NULL;
	if (!(clean = fsb_utf8_clean(s))) {
		*err = -ENOMEM;
		return NULL;
	}
	v = json_object_new_string(clean);
	free(clean);
	if (!v)
		*err = -ENOMEM;
	return v;
}

/* The string at key in o made valid, its bytes kept at key_bytes. */
static int mend_member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL, *now, *b64;
	const char *s;
	char *bk, *enc;
	int err;

	json_object_object_get_ex(o, key, &v);
	s = json_object_get_string(v);
	if (!(now = mended(s, &err)))
		return err;
	bk = bytes_key(key);
	enc = fsb_base64_encode(s, strlen(s));
	b64 = enc ? json_object_new_string(enc) : NULL;
	free(enc);
	/* key_bytes first: replacing key frees s. */
	if (!bk || !b64 || json_object_object_add(o, bk, b64)) {
		free(bk);
		json_object_put(b64);
		json_object_put(now);
		return -ENOMEM;
	}
	free(bk);
	if (json_object_object_add(o, key, now)) {
		json_object_put(now);
		return -ENOMEM;
	}
	return 0;
}

int fsb_json_utf8(struct json_object *doc)
{
	struct json_object *now;
	char **keys;
	size_t n = 0;
	int err = 0;

	if (json_object_is_type(doc, json_type_array)) {
		for (size_t i = 0; !err && i < json_object_array_length(doc); i++) {
			struct json_object *v = json_object_array_get_idx(doc, i);

			if (!json_object_is_type(v, json_type_string))
				err = fsb_json_utf8(v);
			else if ((now = mended(json_object_get_string(v), &err)) &&
				 json_object_array_put_idx(doc, i, now)) {
				json_object_put(now);
				err = -ENOMEM;
			}
		}
		return err;
	}
	if (!json_object_is_type(doc, json_type_object))
		return 0;
	/* The strings to mend are gathered first: an object is not changed
	 * while it is walked. */
	keys = calloc(json_object_object_length(doc) + 1, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	json_object_object_foreach(doc, key, val)
	{
		if (err)
			break;
		if (!json_object_is_type(val, json_type_string))
			err = fsb_json_utf8(val);
		else if (!fsb_utf8_valid(json_object_get_string(val)) && !(keys[n++] = strdup(key)))
			err = -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (!err && keys[i])
			err = mend_member(doc, keys[i]);
		free(keys[i]);
	}
	free(keys);
	return err;
}

int fsb_json_print(FILE *out, struct json_object *doc)
{
	const char *s;

	if (fsb_json_utf8(doc))
		return -ENOMEM;
	s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s)
		return -ENOMEM;
	if (fputs(s, out) == EOF || fputc('\n', out) == EOF || ferror(out))
		return -EIO;
	return 0;
}

int fsb_json_write(FILE *out, const struct fsb_result *r)
{
	struct json_object *doc = fsb_json_from_result(r);
	int err;

	if (!doc)
		return -errno;
	err = fsb_json_print(out, doc);
	json_object_put(doc);
	return err;
}

/* ---- reading ---------------------------------------------------------- */

/*
 * The reader's state: where the reason for a refusal goes. Every check
 * names the key by its path ("tests[2].runs[0]") so the user can find it.
 */
struct jread {
	char *why;
	size_t why_len;
};

/* The reason into rd->why, -EINVAL (util/error.h). */
#define bad(rd, ...) fsb_why((rd)->why, (rd)->why_len, __VA_ARGS__)

/*
 * Look key up in obj. Returns 1 and sets *val when present and not null,
 * 0 when absent (or null, which other writers use for "unknown").
 */
static int lookup(struct json_object *obj, const char *key, struct json_object **val)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(obj, key, &v) || !v)
		return 0;
	*val = v;
	return 1;
}

/*
 * The string v, found at key in obj, as the writer had it: when the
 * writer kept its bytes at key_bytes (fsb_json_utf8), those bytes, which
 * must be base64 of bytes without a NUL that fsb_utf8_clean makes into
 * v's string. *out is replaced.
 */
static int read_text(struct jread *rd, struct json_object *obj, const char *path, const char *key,
		     struct json_object *v, char **out)
{
	struct json_object *b;
	const char *s = json_object_get_string(v);
	char *bk, *raw = NULL, *clean = NULL;
	size_t n;
	int err;

	/* A NUL inside would silently cut the string short in every view. */
	if ((size_t)json_object_get_string_len(v) != strlen(s))
		return bad(rd, "%s%s contains a NUL character", path, key);
	if (!(bk = bytes_key(key)))
		return -ENOMEM;
	if (!lookup(obj, bk, &b)) {
		free(bk);
		return fsb_strset(out, s);
	}
	free(bk);
	if (!json_object_is_type(b, json_type_string))
		return bad(rd, "%s%s" BYTES_SUFFIX " is not a string", path, key);
	err = fsb_base64_decode(json_object_get_string(b), &raw, &n);
	if (err == -EINVAL)
		return bad(rd, "%s%s" BYTES_SUFFIX " is not base64", path, key);
	if (err)
		return err;
	if (strlen(raw) != n)
		err = bad(rd, "%s%s" BYTES_SUFFIX " holds a NUL byte", path, key);
	else if (!(clean = fsb_utf8_clean(raw)))
		err = -ENOMEM;
	else if (strcmp(clean, s))
		err = bad(rd, "%s%s" BYTES_SUFFIX " is not the bytes of %s%s", path, key, path,
			  key);
	free(clean);
	if (err) {
		free(raw);
		return err;
	}
	free(*out);
	*out = raw;
	return 0;
}

static int read_str(struct jread *rd, struct json_object *obj, const char *path, const char *key,
		    bool required, char **out)
{
	struct json_object *v;
	char *bk;
	int err = 0;

	if (!lookup(obj, key, &v)) {
		if (!(bk = bytes_key(key)))
			return -ENOMEM;
		if (lookup(obj, bk, &v))
			err = bad(rd, "%s%s without %s%s", path, bk, path, key);
		free(bk);
		if (err || !required)
			return err;
		return bad(rd, "%s%s is missing", path, key);
	}
	if (!json_object_is_type(v, json_type_string))
		return bad(rd, "%s%s is not a string", path, key);
	return read_text(rd, obj, path, key, v, out);
}

int fsb_json_get_text(struct json_object *obj, const char *path, const char *key, char **out,
		      char *why, size_t why_len)
{
	struct jread rd = { .why = why, .why_len = why_len };
	struct json_object *v;
	char *got = NULL, *bk;
	int err;

	*out = NULL;
	if (!lookup(obj, key, &v)) {
		if (!(bk = bytes_key(key)))
			return -ENOMEM;
		err = lookup(obj, bk, &v) ? bad(&rd, "%s%s without %s%s", path, bk, path, key) : 0;
		free(bk);
		return err;
	}
	if ((err = read_str(&rd, obj, path, key, true, &got)))
		return err;
	*out = got;
	return 1;
}

static int get_u64(struct jread *rd, struct json_object *v, const char *path, const char *key,
		   uint64_t *out)
{
	if (!json_object_is_type(v, json_type_int))
		return bad(rd, "%s%s is not an integer", path, key);
	/* json-c clamps to INT64_MIN..INT64_MAX here, so the sign is right. */
	if (json_object_get_int64(v) < 0)
		return bad(rd, "%s%s is negative", path, key);
	*out = json_object_get_uint64(v);
	return 0;
}

static int read_u64(struct jread *rd, struct json_object *obj, const char *path, const char *key,
		    bool required, uint64_t *out)
{
	struct json_object *v;

	if (!lookup(obj, key, &v))
		return required ? bad(rd, "%s%s is missing", path, key) : 0;
	return get_u64(rd, v, path, key, out);
}

static int get_double(struct jread *rd, struct json_object *v, const char *path, const char *key,
		      double *out)
{
	double d;

	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return bad(rd, "%s%s is not a number", path, key);
	d = json_object_get_double(v);
	/* json-c accepts NaN and Infinity even in strict mode. */
	if (!isfinite(d))
		return bad(rd, "%s%s is not a finite number", path, key);
	if (d < 0)
		return bad(rd, "%s%s is negative", path, key);
	if (d > FSB_MAX_FIGURE)
		return bad(rd, "%s%s is out of range", path, key);
	*out = d;
	return 0;
}

static int read_double(struct jread *rd, struct json_object *obj, const char *path, const char *key,
		       bool required, double *out)
{
	struct json_object *v;

	if (!lookup(obj, key, &v))
		return required ? bad(rd, "%s%s is missing", path, key) : 0;
	return get_double(rd, v, path, key, out);
}

/*
 * The low end of a mean's 95% interval (required here). Builds before the
 * clamp (stats/summary.h: fsb_summary_ci95) wrote it below 0 when the runs
 * lay far apart; such a file is read with the end at 0, as they write it
 * now. Every other check of a figure stays, a very large negative one too.
 */
static int read_ci95_low(struct jread *rd, struct json_object *obj, const char *path, double *out)
{
	struct json_object *v;
	double d;

	if (!lookup(obj, "ci95_low", &v))
		return bad(rd, "%sci95_low is missing", path);
	if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) {
		d = json_object_get_double(v);
		if (d < 0 && d >= -FSB_MAX_FIGURE) {
			*out = 0;
			return 0;
		}
		if (d < 0 && isfinite(d))
			return bad(rd, "%sci95_low is out of range", path);
	}
	return get_double(rd, v, path, "ci95_low", out);
}

/* An optional sub-object: 1 and *val when present, 0 when absent. */
static int read_obj(struct jread *rd, struct json_object *obj, const char *path, const char *key,
		    struct json_object **val)
{
	if (!lookup(obj, key, val))
		return 0;
	if (!json_object_is_type(*val, json_type_object))
		return bad(rd, "%s%s is not an object", path, key);
	return 1;
}

/* How a test's work was chosen: "chosen" {how, why}, both or neither. */
static int read_chosen(struct jread *rd, struct json_object *o, const char *path,
		       struct fsb_test_result *t)
{
	struct json_object *c;
	char sub[96];
	int err = read_obj(rd, o, path, "chosen", &c);

	if (err <= 0)
		return err;
	snprintf(sub, sizeof(sub), "%schosen.", path);
	if ((err = read_str(rd, c, sub, "how", true, &t->chosen_how)) ||
	    (err = read_str(rd, c, sub, "why", true, &t->chosen_why)))
		return err;
	return 0;
}

static int read_host(struct jread *rd, struct json_object *doc, struct fsb_host *h)
{
	struct json_object *o, *v;
	uint64_t cpus = 0;
	int err = read_obj(rd, doc, "", "host", &o);

	if (err <= 0)
		return err;
	if ((err = read_str(rd, o, "host.", "kernel", false, &h->kernel)) ||
	    (err = read_str(rd, o, "host.", "cpu", false, &h->cpu)) ||
	    (err = read_str(rd, o, "host.", "hostname", false, &h->hostname)) ||
	    (err = read_u64(rd, o, "host.", "ram_bytes", false, &h->ram_bytes)) ||
	    (err = read_str(rd, o, "host.", "virtualization", false, &h->virtualization)))
		return err;
	if (lookup(o, "balloon_free_page_reporting", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return bad(rd, "host.balloon_free_page_reporting is not a boolean");
		h->has_balloon = true;
		h->balloon_free_page_reporting = json_object_get_boolean(v);
	}
	if (lookup(o, "cpus", &v)) {
		if ((err = get_u64(rd, v, "host.", "cpus", &cpus)))
			return err;
		if (cpus > INT_MAX)
			return bad(rd, "host.cpus is out of range");
		h->cpus = (int)cpus;
	}
	return 0;
}

/* An optional share from 0 to 1: *has when present. */
static int read_share(struct jread *rd, struct json_object *obj, const char *path, const char *key,
		      bool *has, double *out)
{
	struct json_object *v;
	int err;

	if (!lookup(obj, key, &v))
		return 0;
	if ((err = get_double(rd, v, path, key, out)))
		return err;
	if (!(*out >= 0 && *out <= 1))
		return bad(rd, "%s%s is not a share from 0 to 1", path, key);
	*has = true;
	return 0;
}

/* setup.loop: the loop device under the filesystem (result.h). */
static int read_loop(struct jread *rd, struct json_object *setup, struct fsb_setup *s)
{
	struct json_object *o, *v;
	int err = read_obj(rd, setup, "setup.", "loop", &o);

	if (err <= 0)
		return err;
	if ((err = read_str(rd, o, "setup.loop.", "device", true, &s->loop_device)) ||
	    (err = read_str(rd, o, "setup.loop.", "backing_file", false, &s->loop_backing)))
		return err;
	if (!lookup(o, "dio", &v))
		return bad(rd, "setup.loop.dio is missing");
	if (!json_object_is_type(v, json_type_boolean))
		return bad(rd, "setup.loop.dio is not a boolean");
	s->loop_dio = json_object_get_boolean(v);
	return read_share(rd, o, "setup.loop.", "backing_resident", &s->has_loop_resident,
			  &s->loop_resident);
}

static int read_setup(struct jread *rd, struct json_object *doc, struct fsb_setup *s)
{
	struct json_object *o;
	int err = read_obj(rd, doc, "", "setup", &o);

	if (err <= 0)
		return err;
	if ((err = read_loop(rd, o, s)))
		return err;
	if ((err = read_str(rd, o, "setup.", "label", false, &s->label)) ||
	    (err = read_str(rd, o, "setup.", "dir", false, &s->dir)) ||
	    (err = read_str(rd, o, "setup.", "fs_type", false, &s->fs_type)) ||
	    (err = read_str(rd, o, "setup.", "mount_options", false, &s->mount_options)) ||
	    (err = read_str(rd, o, "setup.", "device", false, &s->device)) ||
	    (err = read_str(rd, o, "setup.", "ram_backed_why", false, &s->ram_backed)))
		return err;
	return read_str(rd, o, "setup.", "fill", false, &s->fill);
}

/*
 * Whether a figure read from a file is the one fsbench computes, a to b:
 * other writers may print fewer digits than json-c's 17, so five
 * significant digits agree (a relative 1e-4), with an absolute slack for
 * figures near 0 (a CV of 0.00004 printed as 0).
 */
static bool same_figure(double a, double b, double abs_slack)
{
	return fabs(a - b) <= 1e-4 * fmax(fabs(a), fabs(b)) + abs_slack;
}

/* The rounds of each figure (its median must lie within them) and the
 * data the reads covered; "spread" is derived from the rounds. */
static int read_devcap_rounds(struct jread *rd, struct json_object *o, struct fsb_devcap *d)
{
	static const char *const path = "device_capability.";
	struct json_object *rounds, *arr, *data;
	struct fsb_summary sum;
	char key[64];
	int err;

	if ((err = read_obj(rd, o, path, "rounds", &rounds)) < 0)
		return err;
	for (int k = 0; err == 1 && k < FSB_DEVCAP_FIGS; k++) {
		const char *name = fsb_devcap_key((enum fsb_devcap_fig)k);
		double lo, hi, med = fsb_devcap_value(d, (enum fsb_devcap_fig)k);
		size_t n;

		if (!lookup(rounds, name, &arr))
			continue;
		if (!json_object_is_type(arr, json_type_array))
			return bad(rd, "%srounds.%s is not an array", path, name);
		n = json_object_array_length(arr);
		if (n > FSB_DEVCAP_ROUNDS_MAX)
			return bad(rd, "%srounds.%s has more than %d values", path, name,
				   FSB_DEVCAP_ROUNDS_MAX);
		for (size_t i = 0; i < n; i++) {
			snprintf(key, sizeof(key), "rounds.%s[%zu]", name, i);
			if ((err = get_double(rd, json_object_array_get_idx(arr, i), path, key,
					      &d->rounds[k][i])))
				return err;
		}
		d->nrounds[k] = (unsigned)n;
		fsb_devcap_spread(d, (enum fsb_devcap_fig)k, &lo, &hi);
		if (n && (med < lo * (1 - 1e-9) || med > hi * (1 + 1e-9)))
			return bad(rd, "%s%s is outside its rounds", path, name);
		/* The figure is the median of its rounds (core/devcap.c). */
		if (n && !fsb_summary_compute(d->rounds[k], n, &sum) &&
		    !same_figure(med, sum.median, 0))
			return bad(rd, "%s%s %.6g is not the median of its rounds (%.6g)", path,
				   name, med, sum.median);
		err = 1; /* go on with the next figure */
	}
	if ((err = read_obj(rd, o, path, "data", &data)) <= 0)
		return err;
	if ((err = read_str(rd, data, "device_capability.data.", "from", false, &d->data_from)) ||
	    (err = read_u64(rd, data, "device_capability.data.", "bytes", false, &d->data_bytes)) ||
	    (err = read_u64(rd, data, "device_capability.data.", "ranges", false, &d->data_ranges)))
		return err;
	return read_u64(rd, data, "device_capability.data.", "read_bytes", false, &d->read_bytes);
}

static int read_devcap(struct jread *rd, struct json_object *doc, struct fsb_devcap *d)
{
	struct json_object *o, *how;
	uint64_t u;
	int err = read_obj(rd, doc, "", "device_capability", &o);

	if (err <= 0)
		return err;
	if ((err = read_str(rd, o, "device_capability.", "device", false, &d->device)) ||
	    (err = read_double(rd, o, "device_capability.", "seq_read_Bps", true,
			       &d->seq_read_Bps)) ||
	    (err = read_double(rd, o, "device_capability.", "seq_write_Bps", false,
			       &d->seq_write_Bps)) ||
	    (err = read_double(rd, o, "device_capability.", "rand_read_iops", false,
			       &d->rand_read_iops)) ||
	    (err = read_double(rd, o, "device_capability.", "rand_write_iops", false,
			       &d->rand_write_iops)))
		return err;
	if (d->seq_read_Bps < 0 || d->seq_write_Bps < 0 || d->rand_read_iops < 0 ||
	    d->rand_write_iops < 0)
		return bad(rd, "device_capability has a negative figure");
	d->present = true;
	if ((err = read_devcap_rounds(rd, o, d)) ||
	    (err = read_str(rd, o, "device_capability.", "short_reason", false, &d->short_reason)))
		return err;
	if ((err = read_obj(rd, o, "device_capability.", "how", &how)) <= 0)
		return err;
	if ((err = read_str(rd, how, "device_capability.how.", "engine", false, &d->engine)) ||
	    (err = read_double(rd, how, "device_capability.how.", "seconds", false, &d->seconds)))
		return err;
	if ((err = read_u64(rd, how, "device_capability.how.", "seq_depth", false, &u)))
		return err;
	d->seq_depth = u > 1u << 20 ? 1u << 20 : (unsigned)u;
	if ((err = read_u64(rd, how, "device_capability.how.", "rand_depth", false, &u)))
		return err;
	d->rand_depth = u > 1u << 20 ? 1u << 20 : (unsigned)u;
	if ((err = read_u64(rd, how, "device_capability.how.", "seq_block_bytes", false,
			    &d->seq_block_bytes)))
		return err;
	return read_u64(rd, how, "device_capability.how.", "rand_block_bytes", false,
			&d->rand_block_bytes);
}

/*
 * Whether key in o is the bytes of another string there (fsb_json_utf8):
 * "K_bytes" beside a string K that is not itself such bytes. (So a
 * parameter "K_bytes" of another writer beside the bytes "K_bytes" of
 * a string K, written "K_bytes_bytes" in turn, reads back as it was.)
 */
static bool is_bytes_of(struct json_object *o, const char *key)
{
	size_t n = strlen(key), sn = strlen(BYTES_SUFFIX);
	struct json_object *base;
	char *k;
	bool yes;

	if (n <= sn || strcmp(key + n - sn, BYTES_SUFFIX) || !(k = strndup(key, n - sn)))
		return false;
	yes = lookup(o, k, &base) && json_object_is_type(base, json_type_string) &&
	      !is_bytes_of(o, k);
	free(k);
	return yes;
}

/*
 * The parameters fsbench writes as counts and sizes (fsb_result_param_u64
 * in core/ and report/): a negative number there is no setting fsbench
 * can have had, and a view would print it as one. Another key's negative
 * number is a newer writer's and kept as a real.
 */
static bool unsigned_param(const char *key)
{
	static const char *const keys[] = {
		"block_size_bytes",
		"char_size_bytes",
		"chunk_bytes",
		"clock_res_ns",
		"concurrency",
		"copy_size_bytes",
		"device_bytes",
		"erase_bytes",
		"file_dirs",
		"file_max_bytes",
		"file_min_bytes",
		"files",
		"io_bytes",
		"iodepth",
		"jobs",
		"members",
		"mkfs_repeat",
		"nodes",
		"ranks",
		"repeat",
		"seed",
		"seekers",
		"seeks",
		"size_bytes",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

static int read_param(struct jread *rd, struct fsb_result *r, struct json_object *o,
		      const char *key, struct json_object *v)
{
	char *text = NULL;
	uint64_t u;
	double d;
	int err;

	if ((json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) &&
	    json_object_get_double(v) < 0 && unsigned_param(key))
		return bad(rd, "params.%s is negative", key);
	switch (json_object_get_type(v)) {
	case json_type_int:
		/* A negative count has no slot in the model; keep it as a real. */
		if (json_object_get_int64(v) < 0) {
			d = (double)json_object_get_int64(v);
			return fsb_result_param_double(r, key, d);
		}
		if ((err = get_u64(rd, v, "params.", key, &u)))
			return err;
		return fsb_result_param_u64(r, key, u);
	case json_type_double:
		d = json_object_get_double(v);
		if (!isfinite(d))
			return bad(rd, "params.%s is not a finite number", key);
		return fsb_result_param_double(r, key, d);
	case json_type_string:
		if ((err = read_text(rd, o, "params.", key, v, &text)))
			return err;
		err = fsb_result_param_str(r, key, text);
		free(text);
		return err;
	case json_type_boolean:
		return fsb_result_param_bool(r, key, json_object_get_boolean(v));
	default:
		/* Arrays, objects, null: a newer writer's idea; not ours to judge. */
		return 0;
	}
}

static int read_params(struct jread *rd, struct json_object *doc, struct fsb_result *r)
{
	struct json_object *o;
	int err = read_obj(rd, doc, "", "params", &o);

	if (err <= 0)
		return err;
	if (json_object_object_length(o) > MAX_PARAMS)
		return bad(rd, "params has more than %d keys", MAX_PARAMS);
	json_object_object_foreach(o, key, val)
	{
		/* fsbench's keys are ASCII; another's are written back as read. */
		if (!fsb_utf8_valid(key))
			return bad(rd, "params has a key that is not valid UTF-8");
		if (!val || is_bytes_of(o, key))
			continue;
		if ((err = read_param(rd, r, o, key, val)))
			return err;
	}
	return 0;
}

static int read_latency(struct jread *rd, struct json_object *o, const char *path,
			struct fsb_test_result *t)
{
	struct json_object *l;
	char sub[64];
	int err = read_obj(rd, o, path, "latency_us", &l);

	if (err <= 0)
		return err;
	snprintf(sub, sizeof(sub), "%slatency_us.", path);
	if ((err = read_double(rd, l, sub, "max", true, &t->latency.max_us)) ||
	    (err = read_double(rd, l, sub, "p50", true, &t->latency.p50_us)) ||
	    (err = read_double(rd, l, sub, "p99", true, &t->latency.p99_us)) ||
	    (err = read_double(rd, l, sub, "p999", true, &t->latency.p999_us)))
		return err;
	t->has_latency = true;
	return 0;
}

static int read_device(struct jread *rd, struct json_object *o, const char *path,
		       struct fsb_test_result *t)
{
	struct json_object *dev, *v;
	char sub[64];
	int err = read_obj(rd, o, path, "device", &dev);

	if (err <= 0)
		return err;
	snprintf(sub, sizeof(sub), "%sdevice.", path);
	if ((err = read_u64(rd, dev, sub, "read_bytes", true, &t->dev_read_bytes)) ||
	    (err = read_u64(rd, dev, sub, "write_bytes", true, &t->dev_write_bytes)))
		return err;
	t->has_device = true;
	if (lookup(dev, "inflight_max", &v) || lookup(dev, "inflight_mean", &v)) {
		if ((err = read_double(rd, dev, sub, "inflight_max", true, &t->inflight_max)) ||
		    (err = read_double(rd, dev, sub, "inflight_mean", true, &t->inflight_mean)))
			return err;
		t->has_inflight = true;
	}
	return 0;
}

/* arr, named key, as exactly n numbers: reals, or unsigned integers when
 * ints is set. 0 or -EINVAL (described). */
static int read_array(struct jread *rd, struct json_object *arr, const char *path, const char *key,
		      size_t n, double *reals, uint64_t *ints)
{
	char name[64];
	int err;

	if (!json_object_is_type(arr, json_type_array))
		return bad(rd, "%s%s is not an array", path, key);
	if (json_object_array_length(arr) != n)
		return bad(rd, "%s%s has %zu values, not %zu", path, key,
			   json_object_array_length(arr), n);
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);

		snprintf(name, sizeof(name), "%s[%zu]", key, i);
		err = ints ? get_u64(rd, v, path, name, &ints[i])
			   : get_double(rd, v, path, name, &reals[i]);
		if (err)
			return err;
	}
	return 0;
}

/* The same for the array at key in o: 1 when read, 0 when absent. */
static int read_numbers(struct jread *rd, struct json_object *o, const char *path, const char *key,
			size_t n, double *reals, uint64_t *ints)
{
	struct json_object *arr;
	int err;

	if (!lookup(o, key, &arr))
		return 0;
	err = read_array(rd, arr, path, key, n, reals, ints);
	return err ? err : 1;
}

/* "start_ns" and "end_ns", as long as the runs; both or neither. */
static int read_times(struct jread *rd, struct json_object *o, const char *path,
		      struct fsb_test_result *t)
{
	uint64_t *a = calloc(t->nruns, sizeof(*a)), *b = calloc(t->nruns, sizeof(*b));
	int ra, rb, err = -ENOMEM;

	if (!a || !b)
		goto out;
	ra = read_numbers(rd, o, path, "start_ns", t->nruns, NULL, a);
	rb = ra < 0 ? ra : read_numbers(rd, o, path, "end_ns", t->nruns, NULL, b);
	err = ra < 0 ? ra : rb < 0 ? rb : 0;
	if (err)
		goto out;
	if (ra != rb) {
		err = bad(rd, "%s%s without %s", path, ra ? "start_ns" : "end_ns",
			  ra ? "end_ns" : "start_ns");
		goto out;
	}
	if (ra)
		err = fsb_test_set_times(t, a, b);
out:
	free(a);
	free(b);
	return err;
}

/*
 * "latency_hist": [index, count] pairs of the scheme we know, indexes
 * increasing and in range, counts positive and their sum "count". Another
 * scheme is a newer writer's: no histogram, no refusal.
 */
static int read_hist(struct jread *rd, struct json_object *o, const char *path,
		     struct fsb_test_result *t)
{
	struct json_object *lh, *v, *arr;
	struct fsb_hist_bucket *b = NULL;
	uint64_t count = 0, sum = 0;
	char sub[96], key[48];
	size_t n;
	int err = read_obj(rd, o, path, "latency_hist", &lh);

	if (err <= 0)
		return err;
	snprintf(sub, sizeof(sub), "%slatency_hist.", path);
	if (!lookup(lh, "scheme", &v) || !json_object_is_type(v, json_type_string))
		return bad(rd, "%sscheme is missing or not a string", sub);
	if (strcmp(json_object_get_string(v), FSB_HIST_SCHEME))
		return 0;
	if ((err = read_u64(rd, lh, sub, "count", true, &count)))
		return err;
	if (!lookup(lh, "buckets", &arr) || !json_object_is_type(arr, json_type_array))
		return bad(rd, "%sbuckets is missing or not an array", sub);
	n = json_object_array_length(arr);
	/* Strictly increasing indexes below FSB_HIST_BUCKETS: no more pairs. */
	if (n > FSB_HIST_BUCKETS)
		return bad(rd, "%sbuckets has more than %d pairs", sub, FSB_HIST_BUCKETS);
	if (n && !(b = calloc(n, sizeof(*b))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t pair[2];

		snprintf(key, sizeof(key), "buckets[%zu]", i);
		if ((err = read_array(rd, json_object_array_get_idx(arr, i), sub, key, 2, NULL,
				      pair)))
			goto out;
		if (pair[0] >= FSB_HIST_BUCKETS || (i && pair[0] <= b[i - 1].idx)) {
			err = bad(rd, "%s%s: index %llu is out of range or not increasing", sub,
				  key, (unsigned long long)pair[0]);
			goto out;
		}
		if (!pair[1] || pair[1] > UINT64_MAX - sum) {
			err = bad(rd, "%s%s: count is 0 or the counts overflow", sub, key);
			goto out;
		}
		sum += pair[1];
		b[i].idx = (uint32_t)pair[0];
		b[i].count = pair[1];
	}
	if (sum != count) {
		err = bad(rd, "%scount is %llu, the buckets hold %llu", sub,
			  (unsigned long long)count, (unsigned long long)sum);
		goto out;
	}
	err = fsb_test_set_hist_buckets(t, b, n);
	if (err == -EINVAL)
		err = bad(rd, "%sbuckets are not valid", sub);
out:
	free(b);
	return err;
}

/* "per_job": each job's runs (as many as the test's), its %CPU. */
static int read_per_job(struct jread *rd, struct json_object *o, const char *path,
			struct fsb_test_result *t, double job[3], bool *has_job)
{
	struct json_object *pj, *runs;
	double *rates = NULL, *cpu = NULL;
	uint64_t njobs = 0;
	char sub[96];
	int err = read_obj(rd, o, path, "per_job", &pj);

	if (err <= 0)
		return err;
	snprintf(sub, sizeof(sub), "%sper_job.", path);
	/* The spread as written, for check_summary: it is derived again. */
	*has_job = lookup(pj, "median", &runs);
	if ((err = read_double(rd, pj, sub, "min", *has_job, &job[0])) ||
	    (err = read_double(rd, pj, sub, "median", *has_job, &job[1])) ||
	    (err = read_double(rd, pj, sub, "max", *has_job, &job[2])))
		return err;
	if (!lookup(pj, "runs", &runs) || !json_object_is_type(runs, json_type_array))
		return bad(rd, "%sruns is missing or not an array", sub);
	njobs = json_object_array_length(runs);
	if (njobs < 2 || njobs > MAX_JOBS || njobs * t->nruns > MAX_JOB_FIGURES)
		return bad(rd, "%sruns has %llu jobs (2 to %d)", sub, (unsigned long long)njobs,
			   MAX_JOBS);
	rates = calloc(njobs * t->nruns, sizeof(*rates));
	cpu = calloc(njobs, sizeof(*cpu));
	if (!rates || !cpu) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t j = 0; j < njobs; j++) {
		char key[32];

		snprintf(key, sizeof(key), "runs[%zu]", j);
		err = read_array(rd, json_object_array_get_idx(runs, j), sub, key, t->nruns,
				 rates + j * t->nruns, NULL);
		if (err)
			goto out;
	}
	err = read_numbers(rd, pj, sub, "cpu_pct", njobs, cpu, NULL);
	if (err < 0)
		goto out;
	err = fsb_test_set_jobs(t, rates, njobs, cpu);
out:
	free(rates);
	free(cpu);
	return err;
}

static int read_runs(struct jread *rd, struct json_object *o, const char *path,
		     struct fsb_test_result *t)
{
	struct json_object *arr;
	size_t n;
	char key[32];
	int err;

	if (!lookup(o, "runs", &arr))
		return bad(rd, "%sruns is missing", path);
	if (!json_object_is_type(arr, json_type_array))
		return bad(rd, "%sruns is not an array", path);
	n = json_object_array_length(arr);
	if (n == 0)
		return bad(rd, "%sruns is empty", path);
	if (n > MAX_RUNS)
		return bad(rd, "%sruns has more than %d values", path, MAX_RUNS);
	t->runs = calloc(n, sizeof(*t->runs));
	if (!t->runs)
		return -ENOMEM;
	t->nruns = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "runs[%zu]", i);
		err = get_double(rd, json_object_array_get_idx(arr, i), path, key, &t->runs[i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * What the figures of one test say of each other, as every writer of the
 * format makes them: min <= median <= max with every run in between (they
 * are the runs' own), percentiles that do not fall as they rise, and runs
 * that end after they start. A file where they disagree was edited or
 * broken, and a view would show whichever figure it reads as the truth.
 */
static int check_test(struct jread *rd, const char *path, const struct fsb_test_result *t)
{
	const struct fsb_latency *l = &t->latency;

	if (t->min > t->max)
		return bad(rd, "%smin is greater than %smax", path, path);
	if (t->median < t->min || t->median > t->max)
		return bad(rd, "%smedian is not between %smin and %smax", path, path, path);
	for (size_t i = 0; i < t->nruns; i++)
		if (t->runs[i] < t->min || t->runs[i] > t->max)
			return bad(rd, "%sruns[%zu] is not between %smin and %smax", path, i, path,
				   path);
	if (t->has_latency && l->p50_us > l->p99_us)
		return bad(rd, "%slatency_us.p50 is greater than %slatency_us.p99", path, path);
	if (t->has_latency && l->p99_us > l->p999_us)
		return bad(rd, "%slatency_us.p99 is greater than %slatency_us.p999", path, path);
	for (size_t i = 0; t->start_ns && i < t->nruns; i++)
		if (t->start_ns[i] > t->end_ns[i])
			return bad(rd, "%sstart_ns[%zu] is after %send_ns[%zu]", path, i, path, i);
	return 0;
}

/*
 * The summary of a test against its runs, recomputed with the code the
 * writer uses (stats/summary.h): median, min, max and CV are the runs',
 * "noisy" is the CV against FSB_NOISY_CV, the interval of --repeat auto
 * is the runs' (fsb_summary_ci95) and the jobs' spread is their runs'.
 * A hand-edited file where they disagree shows a figure its runs do not
 * hold; it is refused, naming the test and the field.
 */
static int check_summary(struct jread *rd, struct json_object *o, const char *path,
			 struct fsb_test_result *t, const char *shown, double job[3])
{
	struct json_object *v;
	struct fsb_summary s;
	double lo, hi;
	bool noisy, has_cv = lookup(o, "cv", &v);
	int err = fsb_summary_compute(t->runs, t->nruns, &s);

	if (err)
		return err;
	if (!same_figure(t->median, s.median, 0))
		return bad(rd, "%s (%s): median %.6g is not the median of its runs (%.6g)", path,
			   shown, t->median, s.median);
	if (!same_figure(t->min, s.min, 0))
		return bad(rd, "%s (%s): min %.6g is not the lowest of its runs (%.6g)", path,
			   shown, t->min, s.min);
	if (!same_figure(t->max, s.max, 0))
		return bad(rd, "%s (%s): max %.6g is not the highest of its runs (%.6g)", path,
			   shown, t->max, s.max);
	if (has_cv && !same_figure(t->cv, s.cv, 5e-5))
		return bad(rd, "%s (%s): cv %.6g is not the cv of its runs (%.6g)", path, shown,
			   t->cv, s.cv);
	/* A cv left out is its runs': written back, the file must read again. */
	if (!has_cv)
		t->cv = s.cv;
	/* The writer flags the cv it writes: the flag follows that figure. */
	if (lookup(o, "noisy", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return bad(rd, "%s (%s): noisy is not a boolean", path, shown);
		noisy = json_object_get_boolean(v);
		if (noisy != ((has_cv ? t->cv : s.cv) > FSB_NOISY_CV))
			return bad(rd, "%s (%s): noisy %s contradicts cv %.6g (noisy above %g)",
				   path, shown, noisy ? "true" : "false", has_cv ? t->cv : s.cv,
				   FSB_NOISY_CV);
	}
	if (t->has_ci && !fsb_summary_ci95(&s, &lo, &hi) &&
	    (!same_figure(t->ci95_low, lo, 1e-9 * hi) || !same_figure(t->ci95_high, hi, 0)))
		return bad(rd,
			   "%s (%s): ci95 %.6g to %.6g is not the 95%% interval of its runs "
			   "(%.6g to %.6g)",
			   path, shown, t->ci95_low, t->ci95_high, lo, hi);
	if (!job || t->njobs < 2)
		return 0;
	if (!same_figure(job[1], t->job_median, 0))
		return bad(rd, "%s (%s): per_job.median %.6g is not the median of its jobs (%.6g)",
			   path, shown, job[1], t->job_median);
	if (!same_figure(job[0], t->job_min, 0) || !same_figure(job[2], t->job_max, 0))
		return bad(rd,
			   "%s (%s): per_job.min and max %.6g, %.6g are not its lowest and "
			   "highest job (%.6g, %.6g)",
			   path, shown, job[0], job[2], t->job_min, t->job_max);
	return 0;
}

static int read_test(struct jread *rd, struct json_object *o, size_t idx, struct fsb_result *r)
{
	struct fsb_test_result *t;
	struct json_object *wa;
	char path[48], shown[48], *id = NULL, *unit = NULL;
	const char *want;
	double job[3] = { 0 };
	bool has_job = false;
	int err;

	snprintf(path, sizeof(path), "tests[%zu]", idx);
	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "%s is not an object", path);
	snprintf(path, sizeof(path), "tests[%zu].", idx);
	if ((err = read_str(rd, o, path, "id", true, &id)) ||
	    (err = read_str(rd, o, path, "unit", true, &unit)))
		goto out;
	if (!id[0]) {
		err = bad(rd, "%sid is empty", path);
		goto out;
	}
	fsb_text_safe(id, 32, shown, sizeof(shown));
	/* A figure in another unit than its test's is another figure. */
	want = fsb_test_unit(r->kind, id);
	if (want && strcmp(unit, want)) {
		char ushown[48];

		err = bad(rd, "tests[%zu] (%s): unit \"%s\" is not the unit of %s %s (%s)", idx,
			  shown, fsb_text_safe(unit, 32, ushown, sizeof(ushown)),
			  strcmp(r->kind, "lifecycle") ? "test" : "lifecycle phase", shown, want);
		goto out;
	}
	/* Every view finds a test by its id: a second one would be dropped. */
	for (size_t i = 0; i < r->ntests; i++) {
		if (strcmp(r->tests[i].id, id))
			continue;
		err = bad(rd, "%sid \"%s\" is also tests[%zu].id", path, shown, i);
		goto out;
	}
	t = fsb_result_add_test(r, id, unit);
	if (!t) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = read_double(rd, o, path, "median", true, &t->median)) ||
	    (err = read_double(rd, o, path, "min", true, &t->min)) ||
	    (err = read_double(rd, o, path, "max", true, &t->max)) ||
	    (err = read_double(rd, o, path, "cv", false, &t->cv)) ||
	    (err = read_runs(rd, o, path, t)) ||
	    (err = read_double(rd, o, path, "cpu_pct", false, &t->cpu_pct)) ||
	    (err = read_u64(rd, o, path, "work", false, &t->work)) ||
	    (err = read_u64(rd, o, path, "file_bytes", false, &t->file_bytes)) ||
	    (err = read_double(rd, o, path, "elapsed_s", false, &t->elapsed_s)) ||
	    (err = read_latency(rd, o, path, t)) || (err = read_hist(rd, o, path, t)) ||
	    (err = read_device(rd, o, path, t)) ||
	    (err = read_str(rd, o, path, "short_reason", false, &t->short_reason)) ||
	    (err = read_str(rd, o, path, "stopped_by", false, &t->stopped_by)) ||
	    (err = read_times(rd, o, path, t)) ||
	    (err = read_per_job(rd, o, path, t, job, &has_job)))
		goto out;
	if ((err = read_str(rd, o, path, "repeat_stop", false, &t->repeat_stop)) ||
	    (err = read_str(rd, o, path, "metadata_cold", false, &t->metadata_cold)) ||
	    (err = read_chosen(rd, o, path, t)))
		goto out;
	if ((err = read_share(rd, o, path, "cache_resident", &t->has_resident,
			      &t->cache_resident)) ||
	    (err = read_share(rd, o, path, "loop_backing_resident", &t->has_loop_resident,
			      &t->loop_resident)))
		goto out;
	/* The interval comes whole or not at all. */
	if (lookup(o, "ci95_low", &wa) || lookup(o, "ci95_high", &wa)) {
		if ((err = read_ci95_low(rd, o, path, &t->ci95_low)) ||
		    (err = read_double(rd, o, path, "ci95_high", true, &t->ci95_high)))
			goto out;
		if (t->ci95_low > t->ci95_high) {
			err = bad(rd, "%sci95_low is above ci95_high", path);
			goto out;
		}
		t->has_ci = true;
	}
	if (lookup(o, "write_amplification", &wa)) {
		err = read_double(rd, o, path, "write_amplification", true,
				  &t->write_amplification);
		if (err)
			goto out;
		t->has_wa = true;
	}
	if ((err = check_test(rd, path, t)))
		goto out;
	snprintf(path, sizeof(path), "tests[%zu]", idx);
	err = check_summary(rd, o, path, t, shown, has_job ? job : NULL);
out:
	free(id);
	free(unit);
	return err;
}

static int read_tests(struct jread *rd, struct json_object *doc, struct fsb_result *r)
{
	struct json_object *arr;
	size_t n;
	int err;

	if (!lookup(doc, "tests", &arr))
		return bad(rd, "tests is missing");
	if (!json_object_is_type(arr, json_type_array))
		return bad(rd, "tests is not an array");
	n = json_object_array_length(arr);
	if (n > MAX_TESTS)
		return bad(rd, "tests has more than %d entries", MAX_TESTS);
	for (size_t i = 0; i < n; i++)
		if ((err = read_test(rd, json_object_array_get_idx(arr, i), i, r)))
			return err;
	return 0;
}

static int read_head(struct jread *rd, struct json_object *doc, struct fsb_result *r)
{
	struct json_object *v;
	int64_t fv;
	int err;

	if (!lookup(doc, "format_version", &v))
		return bad(rd, "format_version is missing");
	if (!json_object_is_type(v, json_type_int))
		return bad(rd, "format_version is not an integer");
	fv = json_object_get_int64(v);
	if (fv < 1)
		return bad(rd, "format_version %lld is not valid", (long long)fv);
	if (fv > FSB_FORMAT_VERSION)
		return bad(rd, "format_version %lld is newer than this fsbench reads (%d)",
			   (long long)fv, FSB_FORMAT_VERSION);
	r->format_version = (int)fv;

	if ((err = read_str(rd, doc, "", "tool", true, &r->tool)))
		return err;
	if (strcmp(r->tool, "fsbench"))
		return bad(rd, "tool is not 'fsbench'");
	if ((err = read_str(rd, doc, "", "version", false, &r->version)) ||
	    (err = read_str(rd, doc, "", "kind", true, &r->kind)))
		return err;
	if (!strcmp(r->kind, "matrix"))
		return bad(rd, "kind 'matrix' holds several results, not one");
	if (strcmp(r->kind, "run") && strcmp(r->kind, "lifecycle"))
		return bad(rd, "kind is neither 'run' nor 'lifecycle'");
	return 0;
}

/* What a JSON value is, for "the document is ...": "null", "a number". */
static const char *json_kind(struct json_object *o)
{
	switch (o ? json_object_get_type(o) : json_type_null) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
	case json_type_int:
		return "a number";
	case json_type_string:
		return "a string";
	case json_type_array:
		return "an array";
	case json_type_object:
		return "an object";
	}
	return "not an object";
}

int fsb_json_to_result(struct json_object *o, struct fsb_result *out, char *why, size_t why_len)
{
	struct jread rd = { .why = why, .why_len = why_len };
	struct fsb_result r;
	int err;

	memset(&r, 0, sizeof(r));
	memset(out, 0, sizeof(*out));
	if (why && why_len)
		why[0] = '\0';
	/* Valid JSON, wrong kind of document: say what it is. */
	if (!o || !json_object_is_type(o, json_type_object))
		return bad(&rd, "not an fsbench result: the document is %s", json_kind(o));
	if ((err = read_head(&rd, o, &r)) || (err = read_host(&rd, o, &r.host)) ||
	    (err = read_setup(&rd, o, &r.setup)) || (err = read_params(&rd, o, &r)) ||
	    (err = read_tests(&rd, o, &r)) || (err = read_devcap(&rd, o, &r.devcap)))
		goto fail;
	/* The caveats are derived again from the facts (report/caveats.h);
	 * the key says the document has them. */
	r.has_caveats = json_object_object_get_ex(o, "caveats", NULL);
	*out = r;
	return 0;
fail:
	if (err == -ENOMEM && why && why_len)
		snprintf(why, why_len, "out of memory");
	fsb_result_release(&r);
	return err;
}

/*
 * The scan of the raw text, for what json-c drops without a word: it
 * reads an integer beyond the 64-bit range as the nearest end of it (2^64
 * becomes 2^64-1, a RAM of "16.0 EiB"), so only the text tells
 * 18446744073709551616 from the 18446744073709551615 a --seed may hold;
 * and of a key given twice in one object it keeps the last value. The
 * scan walks a document json-c took whole, keeping the path of the value
 * it is in ("host.ram_bytes", "tests[3].work") to name it.
 */
#define SCAN_DEPTH 64 /* json-c refuses a document nested deeper than 32 */

/* A key of an object still open, as json-c decodes it (own: a copy). */
struct kspan {
	const char *p;
	size_t n;
	char *own;
};

struct iscan {
	const char *p, *end;
	char path[160];
	char *why;
	size_t why_len;
	struct kspan *keys; /* of the objects open, outermost first */
	size_t nkeys, cap;
	char dup[160]; /* the first key given twice in one object, or "" */
};

static void scan_blank(struct iscan *s)
{
	while (s->p < s->end && strchr(" \t\r\n", *s->p) && *s->p)
		s->p++;
}

/* Past the string s->p starts (at its quote); its inside in *at, *n. */
static void scan_string(struct iscan *s, const char **at, size_t *n)
{
	*at = ++s->p;
	while (s->p < s->end && *s->p != '"')
		s->p += *s->p == '\\' && s->p + 1 < s->end ? 2 : 1;
	*n = (size_t)(s->p - *at);
	if (s->p < s->end)
		s->p++;
}

/* path[0..len) + the key or index, cut to the buffer; the new length. */
static size_t scan_path_add(struct iscan *s, size_t len, const char *key, size_t n, size_t idx)
{
	size_t cap = sizeof(s->path) - 1;

	if (!key) {
		snprintf(s->path + len, sizeof(s->path) - len, "[%zu]", idx);
		return strlen(s->path);
	}
	if (len && len < cap)
		s->path[len++] = '.';
	/* A key is shown as ASCII: it ends up on a terminal. */
	for (size_t i = 0; i < n && len < cap; i++)
		s->path[len++] = key[i] >= 0x20 && key[i] < 0x7f ? key[i] : '?';
	s->path[len] = '\0';
	return len;
}

/* Whether the digits d (n of them, no sign) are above the decimal max. */
static bool digits_above(const char *d, size_t n, const char *max)
{
	size_t m = strlen(max);

	while (n > 1 && *d == '0')
		d++, n--;
	return n != m ? n > m : memcmp(d, max, n) > 0;
}

/* A number or literal: refused when an integer out of the 64-bit range. */
static int scan_atom(struct iscan *s, size_t len)
{
	const char *at = s->p, *d;
	bool integer = true;
	size_t n;

	while (s->p < s->end && *s->p && !strchr(",]} \t\r\n", *s->p)) {
		if (!strchr("-0123456789", *s->p))
			integer = false;
		s->p++;
	}
	d = at + (at < s->p && *at == '-');
	n = (size_t)(s->p - d);
	if (!integer || !n || memchr(d, '-', n))
		return 0;
	if (!digits_above(d, n, *at == '-' ? "9223372036854775808" : "18446744073709551615"))
		return 0;
	s->path[len] = '\0';
	snprintf(s->why, s->why_len, "%s%s is out of range (an integer %s)",
		 len ? "" : "the document", s->path, *at == '-' ? "below -2^63" : "above 2^64-1");
	return -EINVAL;
}

/*
 * The scanners return 0 to go on, -EINVAL when refused, and 1 to stop
 * with no refusal where the text is not as the scan expects (deeper than
 * SCAN_DEPTH): guessing on from there could take a string for a number.
 */
static int scan_value(struct iscan *s, size_t len, int depth);

/* Keep the key at[0..n) of the object being read, decoded as json-c does. */
static int scan_key(struct iscan *s, const char *at, size_t n)
{
	struct kspan k = { .p = at, .n = n };
	struct json_object *o;
	char *quoted;

	if (s->nkeys == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct kspan *keys = realloc(s->keys, cap * sizeof(*keys));

		if (!keys)
			return -ENOMEM;
		s->keys = keys;
		s->cap = cap;
	}
	if (memchr(at, '\\', n)) {
		if (asprintf(&quoted, "\"%.*s\"", (int)n, at) < 0)
			return -ENOMEM;
		o = json_tokener_parse(quoted);
		free(quoted);
		if (o && json_object_is_type(o, json_type_string))
			k.own = strdup(json_object_get_string(o));
		json_object_put(o);
		if (!k.own)
			return -ENOMEM;
		k.p = k.own;
		k.n = strlen(k.own);
	}
	s->keys[s->nkeys++] = k;
	return 0;
}

static int kspan_cmp(const void *a, const void *b)
{
	const struct kspan *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);

	return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* The object at path[0..len) is read: note a key it has twice, forget its keys. */
static void scan_keys_done(struct iscan *s, size_t len, size_t base)
{
	/* No key seen yet (an empty object): no array to offset. */
	struct kspan *k = s->keys ? s->keys + base : NULL;
	size_t n = s->nkeys - base;

	if (n > 1)
		qsort(k, n, sizeof(*k), kspan_cmp);
	for (size_t i = 1; i < n && !s->dup[0]; i++)
		if (!kspan_cmp(&k[i - 1], &k[i])) {
			scan_path_add(s, len, k[i].p, k[i].n, 0);
			snprintf(s->dup, sizeof(s->dup), "%s", s->path);
		}
	for (size_t i = 0; i < n; i++)
		free(k[i].own);
	s->nkeys = base;
}

/* An object or an array, s->p at its opening bracket. */
static int scan_container(struct iscan *s, size_t len, int depth)
{
	bool object = *s->p == '{';
	const char *key = NULL;
	size_t n = 0, idx = 0, base = s->nkeys;
	int err;

	s->p++;
	for (;;) {
		scan_blank(s);
		if (s->p >= s->end || *s->p == (object ? '}' : ']'))
			break;
		if (object) {
			if (*s->p != '"')
				return 1;
			scan_string(s, &key, &n);
			if ((err = scan_key(s, key, n)))
				return err;
			scan_blank(s);
			if (s->p >= s->end || *s->p != ':')
				return 1;
			s->p++;
		}
		if ((err = scan_value(s, scan_path_add(s, len, key, n, idx++), depth + 1)))
			return err;
		scan_blank(s);
		if (s->p >= s->end || *s->p != ',')
			break;
		s->p++;
	}
	if (s->p < s->end)
		s->p++;
	if (object)
		scan_keys_done(s, len, base);
	return 0;
}

static int scan_value(struct iscan *s, size_t len, int depth)
{
	const char *at;
	size_t n;

	scan_blank(s);
	if (s->p >= s->end || depth > SCAN_DEPTH)
		return 1;
	if (*s->p == '{' || *s->p == '[')
		return scan_container(s, len, depth);
	if (*s->p == '"') {
		scan_string(s, &at, &n);
		return 0;
	}
	return scan_atom(s, len);
}

/*
 * 0, -EINVAL with why naming the first integer out of range, or -ENOMEM.
 * The first key given twice in one object goes in dup (else ""): json-c
 * keeps the last one's value and drops the other without a word.
 */
static int scan_text(const char *buf, size_t len, char *dup, size_t dup_len, char *why,
		     size_t why_len)
{
	struct iscan s = { .p = buf, .end = buf + len, .why = why, .why_len = why_len };
	int err;

	s.path[0] = s.dup[0] = '\0';
	err = scan_value(&s, 0, 0);
	for (size_t i = 0; i < s.nkeys; i++)
		free(s.keys[i].own);
	free(s.keys);
	snprintf(dup, dup_len, "%s", s.dup);
	if (err == -ENOMEM)
		snprintf(why, why_len, "out of memory");
	return err < 0 ? err : 0;
}

/*
 * Whether doc says it is fsbench's. fsbench writes no key twice (json-c
 * cannot), so one given twice there is an edit; fio does write some
 * twice ("filename" in "job options", repeated percentiles), and its
 * files are read as json-c reads them.
 */
static bool says_fsbench(struct json_object *doc)
{
	struct json_object *v;

	return json_object_is_type(doc, json_type_object) &&
	       json_object_object_get_ex(doc, "tool", &v) &&
	       json_object_is_type(v, json_type_string) &&
	       !strcmp(json_object_get_string(v), "fsbench");
}

/* Parse a whole buffer; NULL with why set on failure. */
struct json_object *fsb_json_parse(const char *buf, size_t len, char *why, size_t why_len)
{
	struct json_tokener *tok;
	struct json_object *o = NULL;
	enum json_tokener_error jerr;
	char dup[160];
	size_t fed;
	int err;

	if (len > INT_MAX) {
		snprintf(why, why_len, "file too large");
		return NULL;
	}
	tok = json_tokener_new();
	if (!tok) {
		snprintf(why, why_len, "out of memory");
		return NULL;
	}
	/* Strict: no trailing commas, no single quotes, nothing after the end. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	fed = len;
	if (jerr == json_tokener_continue && len) {
		/*
		 * A number or literal that ends the file ("42", "null" with no
		 * newline) is complete only once something follows it: "42"
		 * could go on as "420". End the input with a blank; whatever
		 * is still open after that was cut short.
		 */
		o = json_tokener_parse_ex(tok, "\n", 1);
		jerr = json_tokener_get_error(tok);
		fed = 1;
	}
	if (jerr == json_tokener_continue) {
		/* The input ended inside a value: the file was cut short. */
		snprintf(why, why_len, len ? "truncated JSON" : "empty file");
	} else if (jerr == json_tokener_success && !o) {
		/* json-c gives NULL for the valid document "null". */
		snprintf(why, why_len, "not an fsbench result: the document is null");
	} else if (jerr != json_tokener_success || !o) {
		snprintf(why, why_len, "not valid JSON (%s at byte %zu)",
			 json_tokener_error_desc(jerr), json_tokener_get_parse_end(tok));
		json_object_put(o);
		o = NULL;
	} else if (json_tokener_get_parse_end(tok) < fed) {
		/* Strict mode stops at a NUL byte; anything after it is not ours. */
		snprintf(why, why_len, "not valid JSON (data after the document at byte %zu)",
			 json_tokener_get_parse_end(tok));
		json_object_put(o);
		o = NULL;
	} else if ((err = scan_text(buf, len, dup, sizeof(dup), why, why_len)) ||
		   (dup[0] && says_fsbench(o))) {
		if (!err)
			snprintf(why, why_len, "%s appears twice", dup);
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

struct json_object *fsb_json_read(const char *path)
{
	struct json_object *doc;
	char *buf = NULL, why[160] = "";
	size_t len = 0;
	int err;

	err = fsb_read_file(path, FSB_JSON_MAX_BYTES, &buf, &len);
	if (err == -EFBIG) {
		fsb_err("cannot read '%s': larger than %zu MiB, not a result file", path,
			FSB_JSON_MAX_BYTES >> 20);
		err = -EINVAL;
	} else if (err == -EINVAL) {
		fsb_err("cannot read '%s': not a regular file", path);
	} else if (err) {
		fsb_err_errno(err, "cannot read '%s'", path);
	}
	if (err) {
		errno = -err;
		return NULL;
	}
	doc = fsb_json_parse(buf, len, why, sizeof(why));
	free(buf);
	if (!doc) {
		fsb_err("cannot read '%s': %s", path, why);
		errno = EINVAL;
	}
	return doc;
}

int fsb_json_load(const char *path, struct fsb_result *out)
{
	struct json_object *doc;
	char why[160] = "";
	int err;

	memset(out, 0, sizeof(*out));
	doc = fsb_json_read(path);
	if (!doc)
		return -errno;
	err = fsb_json_to_result(doc, out, why, sizeof(why));
	json_object_put(doc);
	if (err)
		fsb_err("cannot read '%s': %s", path, why);
	return err;
}
