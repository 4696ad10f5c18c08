/*
 * The "text" view: what a person reads after a run. A header saying what
 * was measured where, one line per test (median with its range, spread,
 * CPU, tail latency, work done), device counters when known, and a footnote
 * saying how the figures were made, since a number without its cache mode
 * and repeat count invites the wrong conclusion.
 *
 * Units as util/units.h shows them everywhere: rates of bytes binary
 * (KiB/s, MiB/s, GiB/s), operation rates decimal ("12.3 k/s"), three
 * significant digits.
 */
#include "util/text.h"
#include "report/caveats.h"
#include "report/writer.h"
#include "stats/aggregate.h"
#include "stats/summary.h"
#include "util/modes.h"
#include "util/size.h"
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Continuation lines of the header start below the values. */
#define KEY_WIDTH 12
#define LINE_WIDTH 78

static double sane(double v)
{
	return isfinite(v) && v > 0 ? v : 0;
}

/*
 * Every string printed goes through cell or kv_item, and they through
 * util/text: ids, units, labels and paths come from files and must not
 * drive the terminal. Columns are counted in characters, not bytes ("µ"
 * and "–" are two bytes), escapes included.
 */
static void cell(FILE *out, const char *s, size_t w, bool right)
{
	fsb_text_pad(out, s, right ? (int)w : -(int)w);
}

/* ---- header ----------------------------------------------------------- */

/* "key         value" with long values wrapped at LINE_WIDTH. */
struct kv_line {
	FILE *out;
	size_t col; /* 0: nothing printed on this key yet */
};

static void kv_start(struct kv_line *l, FILE *out, const char *key)
{
	l->out = out;
	l->col = 0;
	fputs("  ", out);
	cell(out, key, KEY_WIDTH, false);
}

static void kv_item(struct kv_line *l, const char *item)
{
	size_t n = fsb_text_width(item);

	if (l->col && l->col + 2 + n > LINE_WIDTH - 2 - KEY_WIDTH) {
		fprintf(l->out, ",\n%*s", 2 + KEY_WIDTH, "");
		l->col = 0;
	} else if (l->col) {
		fputs(", ", l->out);
		l->col += 2;
	}
	fsb_text_put(l->out, item);
	l->col += n;
}

static void kv_end(struct kv_line *l)
{
	fputc('\n', l->out);
}

static void header_field(FILE *out, const char *key, const char *value)
{
	struct kv_line l;

	if (!value || !value[0])
		return;
	kv_start(&l, out, key);
	kv_item(&l, value);
	kv_end(&l);
}

static void print_filesystem(FILE *out, const struct fsb_setup *s)
{
	char buf[512];
	size_t n = 0;

	if (!s->fs_type && !s->device)
		return;
	buf[0] = '\0';
	if (s->fs_type)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", s->fs_type);
	if (s->mount_options && s->mount_options[0] && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " (%s)", s->mount_options);
	if (s->device && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%son %s", n ? " " : "", s->device);
	if (s->fill && n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, ", filled with %s", s->fill);
	header_field(out, "filesystem", buf);
}

static void print_host(FILE *out, const struct fsb_host *h)
{
	struct kv_line l;
	char buf[512];

	if (!h->hostname && !h->kernel && !h->cpu && !h->cpus && !h->ram_bytes)
		return;
	kv_start(&l, out, "host");
	if (h->hostname)
		kv_item(&l, h->hostname);
	if (h->kernel) {
		snprintf(buf, sizeof(buf), "kernel %s", h->kernel);
		kv_item(&l, buf);
	}
	if (h->cpu && h->cpus > 0)
		snprintf(buf, sizeof(buf), "%d × %s", h->cpus, h->cpu);
	else if (h->cpu)
		snprintf(buf, sizeof(buf), "%s", h->cpu);
	else if (h->cpus > 0)
		snprintf(buf, sizeof(buf), "%d CPUs", h->cpus);
	if (h->cpu || h->cpus > 0)
		kv_item(&l, buf);
	if (h->ram_bytes) {
		char size[32];

		fsb_size_format_human(h->ram_bytes, size, sizeof(size));
		snprintf(buf, sizeof(buf), "%s RAM", size);
		kv_item(&l, buf);
	}
	kv_end(&l);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

/*
 * "size 1G", "min-time 0.5 s": the key without its unit suffix, dashes for
 * underscores, the value in the unit the suffix names.
 */
static void param_item(char *buf, size_t len, const struct fsb_param *p)
{
	char name[64], val[512];
	bool bytes = ends_with(p->key, "_bytes"), secs = ends_with(p->key, "_s");
	size_t n;

	snprintf(name, sizeof(name), "%s", p->key);
	n = strlen(name);
	if (bytes && n > 6)
		name[n - 6] = '\0';
	else if (secs && n > 2)
		name[n - 2] = '\0';
	for (char *c = name; *c; c++)
		if (*c == '_')
			*c = '-';

	switch (p->type) {
	case FSB_PARAM_U64:
		if (bytes)
			fsb_size_format_exact(p->u, val, sizeof(val));
		else
			snprintf(val, sizeof(val), "%llu%s", (unsigned long long)p->u,
				 secs ? " s" : "");
		break;
	case FSB_PARAM_DOUBLE:
		snprintf(val, sizeof(val), "%g%s", isfinite(p->d) ? p->d : 0, secs ? " s" : "");
		break;
	case FSB_PARAM_STR:
		snprintf(val, sizeof(val), "%s", p->s ? p->s : "");
		break;
	case FSB_PARAM_BOOL:
		snprintf(val, sizeof(val), "%s", p->b ? "yes" : "no");
		break;
	default:
		val[0] = '\0';
	}
	snprintf(buf, len, "%s %s", name, val);
}

/* The parameters a reader looks for first, then the rest as stored. */
static const char *const first_params[] = {
	"size_bytes", "chunk_bytes", "repeat", "cache", "data", "min_time_s", "seed",
};

#define NFIRST (sizeof(first_params) / sizeof(first_params[0]))

static bool is_first_param(const char *key)
{
	for (size_t i = 0; i < NFIRST; i++)
		if (!strcmp(first_params[i], key))
			return true;
	return false;
}

static void print_params(FILE *out, const struct fsb_result *r)
{
	struct kv_line l;
	char buf[640];

	if (!r->nparams)
		return;
	kv_start(&l, out, "parameters");
	for (size_t i = 0; i < NFIRST; i++) {
		const struct fsb_param *p = fsb_result_param(r, first_params[i]);

		if (p) {
			param_item(buf, sizeof(buf), p);
			kv_item(&l, buf);
		}
	}
	for (size_t i = 0; i < r->nparams; i++) {
		if (is_first_param(r->params[i].key))
			continue;
		param_item(buf, sizeof(buf), &r->params[i]);
		kv_item(&l, buf);
	}
	kv_end(&l);
}

static void print_header(FILE *out, const struct fsb_result *r)
{
	fputs("fsbench ", out);
	fsb_text_put(out, r->version ? r->version : "(unknown version)");
	fputs(", ", out);
	fsb_text_put(out, r->kind ? r->kind : "result");
	fputc('\n', out);
	header_field(out, "label", r->setup.label);
	header_field(out, "directory", r->setup.dir);
	print_filesystem(out, &r->setup);
	print_host(out, &r->host);
	print_params(out, r);
}

/* ---- tests ------------------------------------------------------------ */

/* Column widths of the test table. */
enum {
	W_ID = 12,
	W_MEDIAN = 11,
	W_RANGE = 19,
	W_CV = 6,
	W_NOISY = 5,
	W_CPU = 5,
	W_P99 = 9,
	W_WORK = 10
};

static void row(FILE *out, const char *id, const char *median, const char *range, const char *cv,
		const char *noisy, const char *cpu, const char *p99, const char *work)
{
	char *line = NULL;
	size_t len = 0;
	FILE *mem;

	/*
	 * Trailing blanks are trimmed: build the line, then print it. In a
	 * growing buffer: an id from a file may be long, and a line cut at a
	 * fixed size could end inside a character.
	 */
	mem = open_memstream(&line, &len);
	if (!mem)
		return;
	cell(mem, id, W_ID, false);
	fputc(' ', mem);
	cell(mem, median, W_MEDIAN, true);
	fputs("  ", mem);
	cell(mem, range, W_RANGE, false);
	fputc(' ', mem);
	cell(mem, cv, W_CV, true);
	fputc(' ', mem);
	cell(mem, noisy, W_NOISY, false);
	fputc(' ', mem);
	cell(mem, cpu, W_CPU, true);
	fputc(' ', mem);
	cell(mem, p99, W_P99, true);
	fputc(' ', mem);
	cell(mem, work, W_WORK, true);
	if (fclose(mem) == EOF || !line) {
		free(line);
		return;
	}
	for (; len && line[len - 1] == ' '; len--)
		line[len - 1] = '\0';
	fprintf(out, "%s\n", line);
	free(line);
}

static void fmt_work(char *buf, size_t len, const struct fsb_test_result *t)
{
	const char *unit = t->unit ? t->unit : "";

	if (!t->work)
		snprintf(buf, len, "-");
	else if (!strcmp(unit, "ops/s"))
		snprintf(buf, len, "%llu ops", (unsigned long long)t->work);
	else
		fsb_size_format_human(t->work, buf, len);
}

static void print_device(FILE *out, const struct fsb_test_result *t)
{
	char rd[32], wr[32];

	if (!t->has_device && !t->has_wa)
		return;
	fprintf(out, "%*s", W_ID + 1, "");
	if (t->has_device) {
		fsb_size_format_human(t->dev_read_bytes, rd, sizeof(rd));
		fsb_size_format_human(t->dev_write_bytes, wr, sizeof(wr));
		fprintf(out, "device read %s, written %s", rd, wr);
	}
	if (t->has_wa)
		fprintf(out, "%swrite amplification %.2f", t->has_device ? ", " : "",
			sane(t->write_amplification));
	/* The queue depth the device reached while the test ran. */
	if (t->has_inflight)
		fprintf(out, ", queue depth max %.0f, mean %.1f", sane(t->inflight_max),
			sane(t->inflight_mean));
	fputc('\n', out);
}

/* "per job 410 – 520 (median 470 MiB/s)": a spread in the row's scale. */
static void print_spread(FILE *out, const char *label, const struct fsb_test_result *t, double lo_v,
			 double med_v, double hi_v)
{
	struct fsb_unit_scale sc = fsb_unit_scale_for(t->unit, med_v);
	char lo[64], hi[64], med[96];

	fsb_unit_number(&sc, lo_v, lo, sizeof(lo));
	fsb_unit_number(&sc, hi_v, hi, sizeof(hi));
	fsb_unit_with(&sc, med_v, med, sizeof(med));
	fprintf(out, "%*s%s %s – %s (median ", W_ID + 1, "", label, lo, hi);
	fsb_text_put(out, med);
	fputc(')', out);
}

/*
 * With jobs, under the aggregate: each job's own rate (the spread of the
 * jobs' medians, in the row's scale) and %CPU, so a straggler shows:
 * "per job 410 – 520 MiB/s (median 470), %cpu 22.0 – 25.1". With MPI
 * ranks of one job each, the members are the ranks: "per rank".
 */
static void print_jobs(FILE *out, const struct fsb_result *r, const struct fsb_test_result *t)
{
	double cmin = 0, cmax = 0;

	if (t->njobs < 2 || !t->job_runs)
		return;
	print_spread(out,
		     fsb_result_ranks(r) > 1 && fsb_result_ranks(r) == t->njobs ? "per rank"
										: "per job",
		     t, t->job_min, t->job_median, t->job_max);
	for (size_t j = 0; t->job_cpu_pct && j < t->njobs; j++) {
		double c = sane(t->job_cpu_pct[j]);

		if (!j || c < cmin)
			cmin = c;
		if (!j || c > cmax)
			cmax = c;
	}
	if (t->job_cpu_pct)
		fprintf(out, ", %%cpu %.1f – %.1f", cmin, cmax);
	fputc('\n', out);
}

/* The figure as a share of the raw device's matching one. */
static void print_fraction(FILE *out, const struct fsb_result *r, const struct fsb_test_result *t)
{
	double frac;
	bool rough;

	if (!fsb_result_device_fraction(r, t, &frac, &rough))
		return;
	fprintf(out, "%*s%.0f%% of the device%s\n", W_ID + 1, "", sane(frac) * 100,
		rough ? " (rough: against its 4 KiB random read IOPS)" : "");
}

/* The summary of n group figures on its own spread line. */
static void print_group_line(FILE *out, const char *label, const struct fsb_test_result *t,
			     const double *v, size_t n)
{
	struct fsb_summary s;

	if (n < 2 || fsb_summary_compute(v, n, &s))
		return;
	print_spread(out, label, t, s.min, s.median, s.max);
	fputc('\n', out);
}

/*
 * With MPI ranks: the spread of the ranks (when each runs several jobs: a
 * rank's figure is the sum of its jobs' medians) and of the hosts (when
 * there are several: the sum of their ranks'), so a slow client shows.
 * The members are rank-major (rank r's job k is member r x jobs + k).
 */
static void print_ranks(FILE *out, const struct fsb_result *r, const struct fsb_test_result *t)
{
	unsigned ranks = fsb_result_ranks(r);
	const char *hosts = fsb_result_get_str(r, "rank_hosts", NULL);
	double *jm = NULL, *rank = NULL, *host = NULL;
	char **names = NULL, *copy = NULL, *save = NULL;
	size_t jobs, nh = 0;
	struct fsb_summary all;

	if (ranks < 2 || !t->job_runs || t->njobs % ranks || !t->nruns)
		return;
	jobs = t->njobs / ranks;
	jm = calloc(t->njobs, sizeof(*jm));
	rank = calloc(ranks, sizeof(*rank));
	host = calloc(ranks, sizeof(*host));
	names = calloc(ranks, sizeof(*names));
	if (!jm || !rank || !host || !names ||
	    fsb_agg_spread(t->job_runs, t->njobs, t->nruns, jm, &all))
		goto out;
	for (size_t k = 0; k < t->njobs; k++)
		rank[k / jobs] += jm[k];
	if (jobs > 1)
		print_group_line(out, "per rank", t, rank, ranks);
	if (!hosts || !(copy = strdup(hosts)))
		goto out;
	/* Each rank's host, in rank order; the ranks of a host add up. */
	for (unsigned k = 0; k < ranks; k++) {
		char *h = strtok_r(k ? NULL : copy, ",", &save);
		size_t i = 0;

		if (!h)
			goto out;
		while (i < nh && strcmp(names[i], h))
			i++;
		if (i == nh)
			names[nh++] = h;
		host[i] += rank[k];
	}
	print_group_line(out, "per host", t, host, nh);
out:
	free(jm);
	free(rank);
	free(host);
	free(names);
	free(copy);
}

/*
 * --repeat auto, under the figure: the mean with the half-width of its 95%
 * confidence interval, the runs it took and why they stopped:
 * "mean 512 MiB/s ±2.1% (95% CI, 4 runs, converged)".
 */
static void print_ci(FILE *out, const struct fsb_test_result *t)
{
	double mean = (t->ci95_low + t->ci95_high) / 2, half = (t->ci95_high - t->ci95_low) / 2;
	struct fsb_unit_scale sc = fsb_unit_scale_for(t->unit, mean);
	char m[96];

	if (!t->has_ci)
		return;
	fsb_unit_with(&sc, mean, m, sizeof(m));
	fprintf(out, "%*smean %s ±%.1f%% (95%% CI, %zu run%s", W_ID + 1, "", m,
		mean > 0 ? sane(100 * half / mean) : 0.0, t->nruns, t->nruns == 1 ? "" : "s");
	if (t->repeat_stop) {
		fputs(", ", out);
		fsb_text_put(out, t->repeat_stop);
	}
	fputs(")\n", out);
}

static void print_test(FILE *out, const struct fsb_result *r, const struct fsb_test_result *t)
{
	char median[96], lo[64], hi[64], range[160], cv[32], cpu[32], p99[96], work[48];

	struct fsb_unit_scale sc = fsb_unit_scale_for(t->unit, t->median);

	fsb_unit_with(&sc, t->median, median, sizeof(median));
	fsb_unit_number(&sc, t->min, lo, sizeof(lo));
	fsb_unit_number(&sc, t->max, hi, sizeof(hi));
	snprintf(range, sizeof(range), "[%s – %s]", lo, hi);
	snprintf(cv, sizeof(cv), "%.1f%%", sane(t->cv) * 100);
	snprintf(cpu, sizeof(cpu), "%.1f", sane(t->cpu_pct));
	if (t->has_latency)
		fsb_unit_format_us(t->latency.p99_us, p99, sizeof(p99));
	else
		snprintf(p99, sizeof(p99), "-");
	fmt_work(work, sizeof(work), t);
	row(out, t->id ? t->id : "?", median, range, cv, fsb_test_noisy(t) ? "noisy" : "", cpu, p99,
	    work);
	if (fsb_test_harness_only(r, t))
		fprintf(out, "%*snull engine: no I/O, the harness's own cost (not storage)\n",
			W_ID + 1, "");
	print_jobs(out, r, t);
	print_ranks(out, r, t);
	print_ci(out, t);
	print_device(out, t);
	print_fraction(out, r, t);
}

/* What a cache mode means for the figures, when a reader might not know. */
static const char *cache_words(const char *name)
{
	enum fsb_cache_mode mode;

	if (fsb_cache_mode_parse(name, &mode))
		return "";
	switch (mode) {
	case FSB_CACHE_DROP:
		return " (own files evicted before reads)";
	case FSB_CACHE_DROP_ALL:
		return " (the machine's page cache dropped before reads)";
	case FSB_CACHE_DIRECT:
		return " (O_DIRECT, page cache bypassed)";
	case FSB_CACHE_KEEP:
		return " (page cache kept: reads may come from memory)";
	}
	return "";
}

/* O_DIRECT on a buffered loop device reaches only the loop device: said
 * instead of "page cache bypassed". Whether it was said. */
static bool put_loop_direct(FILE *out, const struct fsb_result *r, const char *cache)
{
	if (strcmp(cache, "direct") || !r->setup.loop_device || r->setup.loop_dio)
		return false;
	fputs(" (O_DIRECT, which stops at the buffered loop device ", out);
	fsb_text_put(out, r->setup.loop_device);
	fputs(":\nits reads and writes of its backing file go through the page cache);\neach", out);
	return true;
}

/* One item of a wrapped list after lead: "lead a, b,\n c". */
static void put_item(FILE *out, const char *lead, const char *item, size_t *col)
{
	size_t n = fsb_text_width(item);

	if (!*col) {
		fputs(lead, out);
		*col = strlen(lead);
	} else if (*col + 2 + n + 1 > LINE_WIDTH) {
		fputs(",\n ", out);
		*col = 1;
	} else {
		fputc(',', out);
		(*col)++;
	}
	fputc(' ', out);
	fsb_text_put(out, item);
	*col += 1 + n;
}

/*
 * The figures whose runs a reason cut short, in one sentence: lead, then
 * the ids of the tests whose `field` says `why`. "Runs cut short by free
 * space (under --min-time): write, rewrite."
 */
static void print_cut(FILE *out, const struct fsb_result *r, const char *lead, bool stopped,
		      const char *why, const char *tail)
{
	size_t col = 0;

	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];
		const char *reason = stopped ? t->stopped_by : t->short_reason;

		if (reason && !strcmp(reason, why) && t->id)
			put_item(out, lead, t->id, &col);
	}
	if (col)
		fprintf(out, ".\n%s", tail ? tail : "");
}

/* How each test's work was chosen (the user's, grown or the default), in
 * one sentence: "Work: given for write, rewrite, read; grown for putc." */
static void print_chosen(FILE *out, const struct fsb_result *r)
{
	static const char *const hows[] = { "given", "grown", "default" };
	size_t col = 0;

	for (size_t h = 0; h < sizeof(hows) / sizeof(hows[0]); h++) {
		size_t before = col;

		for (size_t i = 0; i < r->ntests; i++) {
			const struct fsb_test_result *t = &r->tests[i];

			if (!t->chosen_how || strcmp(t->chosen_how, hows[h]) || !t->id)
				continue;
			if (col == before) {
				fputs(col ? "; " : "Work: ", out);
				fprintf(out, "%s for", hows[h]);
				col += strlen(hows[h]) + 6;
				fputc(' ', out);
				fsb_text_put(out, t->id);
				col += 1 + fsb_text_width(t->id);
				continue;
			}
			put_item(out, "", t->id, &col);
		}
	}
	if (col)
		fputs(".\n", out);
}

/* The tests whose runs went over their file more than once, each with
 * the file's size. */
static void print_passes(FILE *out, const struct fsb_result *r)
{
	bool any = false;

	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];
		char size[32];

		if (!t->file_bytes || !t->id)
			continue;
		fputs(any ? ",\n  "
			  : "Runs went over their file again, pass after pass (the page cache is the\n"
			    "storage: a pass again reads what a larger file would):\n  ",
		      out);
		fsb_text_put(out, t->id);
		fprintf(out, " over %s", fsb_size_format_human(t->file_bytes, size, sizeof(size)));
		any = true;
	}
	if (any)
		fputs(".\n", out);
}

/* --engine null: which figures are no storage's, and that their data
 * was never written (the pattern above is only the buffers'). */
static void print_null_engine(FILE *out, const struct fsb_result *r)
{
	size_t col = 0;

	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];

		if (!fsb_test_harness_only(r, t))
			continue;
		if (!col) {
			fputs("Engine null: no I/O, nothing written or read:", out);
			col = 46;
		} else {
			fputc(',', out);
		}
		fputc(' ', out);
		fsb_text_put(out, t->id);
	}
	if (col)
		fputs(".\nTheir figures are the harness's own cost per I/O, not the storage's.\n",
		      out);
}

/* The proof of the cold cache: what of each test's file stayed in the
 * page cache after fsbench evicted it (mincore), and how each stat test's
 * metadata was made cold. */
static void print_cold(FILE *out, const struct fsb_result *r)
{
	char item[96];
	size_t col = 0;

	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];

		if (!t->has_resident || !t->id)
			continue;
		snprintf(item, sizeof(item), "%.40s %.1f%%", t->id, 100 * t->cache_resident);
		put_item(out, "Resident after eviction (mincore):", item, &col);
	}
	if (col)
		fputs(".\n", out);
	col = 0;
	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];

		if (!t->has_loop_resident || !t->id)
			continue;
		snprintf(item, sizeof(item), "%.40s %.1f%%", t->id, 100 * t->loop_resident);
		put_item(out, "Loop backing file in the page cache after each test:", item, &col);
	}
	if (col)
		fputs(".\n", out);
	col = 0;
	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];

		if (!t->metadata_cold || !t->id)
			continue;
		snprintf(item, sizeof(item), "%.40s %.20s%s", t->id, t->metadata_cold,
			 strcmp(t->metadata_cold, "warm") ? "" : " (not cold)");
		put_item(out, "Stat tests' metadata:", item, &col);
	}
	if (col)
		fputs(".\n", out);
}

/* Every test ran on the null engine: no data was written to describe. */
static bool all_harness_only(const struct fsb_result *r)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (!fsb_test_harness_only(r, &r->tests[i]))
			return false;
	return r->ntests > 0;
}

static void print_footer(FILE *out, const struct fsb_result *r)
{
	const char *cache = fsb_result_get_str(r, "cache", NULL);
	const char *data = fsb_result_get_str(r, "data", NULL);
	size_t lo = SIZE_MAX, hi = 0;

	/* Each test says how often it ran (lifecycle mkfs phases differ). */
	for (size_t i = 0; i < r->ntests; i++) {
		if (r->tests[i].nruns < lo)
			lo = r->tests[i].nruns;
		if (r->tests[i].nruns > hi)
			hi = r->tests[i].nruns;
	}
	if (!hi)
		lo = hi = (size_t)fsb_result_get_u64(r, "repeat", 0);
	fputc('\n', out);
	if (cache) {
		fputs("Cache mode ", out);
		fsb_text_put(out, cache);
		if (put_loop_direct(out, r, cache))
			;
		else if (r->setup.ram_backed && !strcmp(cache, "direct"))
			/* On memory storage there is no cache to bypass. */
			fputs(" (O_DIRECT; the storage is memory: its page cache is the storage); "
			      "each",
			      out);
		else
			fprintf(out, "%s; each", cache_words(cache));
	} else {
		fputs("Each", out);
	}
	if (lo == hi)
		fprintf(out, " figure is the median of %zu run%s.\n", hi, hi == 1 ? "" : "s");
	else
		fprintf(out, " figure is the median of its %zu to %zu runs.\n", lo, hi);
	if (data && !all_harness_only(r)) {
		const char *words = fsb_writer_data_words(data);

		fputs("Data written: ", out);
		fsb_text_put(out, data);
		if (words)
			fprintf(out, " (%s)", words);
		fputs(".\n", out);
	}
	print_null_engine(out, r);
	if (fsb_result_ranks(r) > 1)
		fprintf(out,
			"%u MPI ranks x %u job%s ran each test at once: a figure is their "
			"aggregate,\nthe work of all over the time from the first start to the last "
			"end of a run.\nThe work column is one job's share of a run.\n",
			fsb_result_ranks(r), fsb_result_jobs(r) / fsb_result_ranks(r),
			fsb_result_jobs(r) / fsb_result_ranks(r) == 1 ? "" : "s");
	else if (fsb_result_jobs(r) > 1)
		fprintf(out,
			"%u jobs ran each test at once: a figure is their aggregate, the work of "
			"all\njobs over the time from the first start to the last end of a run.\n"
			"The work column is one job's share of a run.\n",
			fsb_result_jobs(r));
	print_passes(out, r);
	print_chosen(out, r);
	print_cold(out, r);
	print_cut(out, r, "Runs cut short by free space (under --min-time):", false, "space", NULL);
	print_cut(out, r, "Runs under --min-time at the largest work the test can do:", false,
		  "limit", NULL);
	print_cut(out, r, "Runs under --min-time however far their work grew:", false, "time",
		  NULL);
	print_cut(out, r, "Runs under --min-time at the exact size given:", false, "given", NULL);
	print_cut(out, r, "Every job stopped when the first finished (--stonewall):", true,
		  "stonewall", "The jobs stopped did less than the work column says.\n");
	print_cut(out, r, "Every job stopped at --deadline:", true, "deadline",
		  "Their runs did less than the work column says, and may be under --min-time.\n");
}

/* Each figure's spread over its rounds, and what the reads covered. */
static void print_devcap_rounds(FILE *out, const struct fsb_devcap *d)
{
	char a[48], b[48];
	bool any = false;

	for (int k = 0; k < FSB_DEVCAP_FIGS; k++) {
		enum fsb_devcap_fig f = (enum fsb_devcap_fig)k;
		bool bytes = f == FSB_DEVCAP_SEQ_READ || f == FSB_DEVCAP_SEQ_WRITE;
		double lo, hi, sp = fsb_devcap_spread(d, f, &lo, &hi);

		if (d->nrounds[k] < 2 || !(fsb_devcap_value(d, f) > 0))
			continue;
		fsb_unit_format_rate(lo, bytes, a, sizeof(a));
		fsb_unit_format_rate(hi, bytes, b, sizeof(b));
		fprintf(out, "%s %s %s – %s (spread %.0f%%)",
			any ? "," : "Median of the rounds; their range:", fsb_devcap_title(f), a, b,
			sane(sp) * 100);
		any = true;
	}
	if (any)
		fputs(".\n", out);
	if (d->data_from) {
		fsb_size_format_human(d->data_bytes, a, sizeof(a));
		fprintf(out, "Read only where the device holds data: %s in %llu range%s, ", a,
			(unsigned long long)d->data_ranges, d->data_ranges == 1 ? "" : "s");
		fsb_text_put(out, d->data_from);
		fputs(".\n", out);
	}
	if (d->short_reason) {
		fputs("Short: ", out);
		fsb_text_put(out, d->short_reason);
		fputs(".\n", out);
	}
}

void fsb_text_print_devcap(FILE *out, const struct fsb_result *r)
{
	fsb_text_print_devcap_of(out, r, NULL);
}

void fsb_text_print_devcap_of(FILE *out, const struct fsb_result *r, const char *setup)
{
	const struct fsb_devcap *d = &r->devcap;
	const char *label = r->setup.label ? r->setup.label : "the filesystem";
	char a[48], b[48], c[48], e[48];
	bool any = false;

	if (!d->present)
		return;
	fsb_unit_format_rate(d->seq_read_Bps, true, a, sizeof(a));
	fsb_unit_format_rate(d->rand_read_iops, false, c, sizeof(c));
	fputs("\nThe device ", out);
	fsb_text_put(out, d->device ? d->device : "?");
	if (setup) {
		fputs(" of setup ", out);
		fsb_text_put(out, setup);
	}
	fprintf(out, " itself: sequential read %s", a);
	if (d->seq_write_Bps > 0) {
		fsb_unit_format_rate(d->seq_write_Bps, true, b, sizeof(b));
		fprintf(out, ", write %s", b);
	}
	fprintf(out, "; 4 KiB random read %s", c);
	if (d->rand_write_iops > 0) {
		fsb_unit_format_rate(d->rand_write_iops, false, e, sizeof(e));
		fprintf(out, ", write %s", e);
	}
	fputs("\n(", out);
	fsb_text_put(out, d->engine ? d->engine : "?");
	fprintf(out, ", O_DIRECT, depth %u at %llu KiB and %u at %llu KiB, ", d->seq_depth,
		(unsigned long long)(d->seq_block_bytes >> 10), d->rand_depth,
		(unsigned long long)(d->rand_block_bytes >> 10));
	if (d->nrounds[FSB_DEVCAP_SEQ_READ] > 1)
		fprintf(out, "%u rounds of ", d->nrounds[FSB_DEVCAP_SEQ_READ]);
	fprintf(out, "%.2g s each%s).\n", sane(d->seconds),
		d->seq_write_Bps > 0 ? "" : ", read-only");
	print_devcap_rounds(out, d);
	if (r->setup.loop_device && !r->setup.loop_dio)
		fputs("O_DIRECT stopped at the buffered loop device: these may be the page "
		      "cache's.\n",
		      out);
	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];
		double frac;
		bool rough;

		if (!fsb_result_device_fraction(r, t, &frac, &rough))
			continue;
		if (!any)
			fputs("Of the device:\n", out);
		any = true;
		fputs("  ", out);
		fsb_text_put(out, label);
		fprintf(out, " %s: %.0f%% of the device%s\n", fsb_test_title(t->id),
			sane(frac) * 100,
			rough ? " (rough guide: seeks against 4 KiB random reads)" : "");
	}
}

int fsb_write_text(FILE *out, const struct fsb_result *r)
{
	print_header(out, r);
	fputc('\n', out);
	if (!r->ntests) {
		fputs("No test ran.\n", out);
	} else {
		row(out, "test", "median", "[min – max]", "cv", "", "%cpu", "p99 lat", "work");
		for (size_t i = 0; i < r->ntests; i++)
			print_test(out, r, &r->tests[i]);
	}
	print_footer(out, r);
	fsb_text_print_devcap(out, r);
	fsb_caveats_print(out, r, "");
	return ferror(out) ? -EIO : 0;
}
