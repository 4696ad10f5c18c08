/*
 * Automatic caveats (report/caveats.h). Each rule reads facts the
 * executors recorded; none measures. The thresholds are the ones the
 * design states (noisy: CV above 10%) or plain reading of the numbers
 * (another process's I/O: the device moved well beyond what the test did).
 */
#include "report/caveats.h"
#include "util/size.h"
#include "util/text.h"
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

struct cav_list {
	struct fsb_caveat *v;
	size_t n, max;
};

static void add(struct cav_list *l, const char *id, const char *test, const char *evidence,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add(struct cav_list *l, const char *id, const char *test, const char *evidence,
		const char *fmt, ...)
{
	struct fsb_caveat *c;
	va_list ap;

	if (l->n >= l->max)
		return;
	c = &l->v[l->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->id, sizeof(c->id), "%s", id);
	snprintf(c->test, sizeof(c->test), "%s", test ? test : "");
	snprintf(c->evidence, sizeof(c->evidence), "%s", evidence);
	va_start(ap, fmt);
	vsnprintf(c->text, sizeof(c->text), fmt, ap);
	va_end(ap);
}

/* What to call a test in a sentence: "block write", "the mkfs phase". */
static const char *title(const struct fsb_test_result *t, char *buf, size_t len)
{
	if (t->unit && !strcmp(t->unit, "s")) {
		snprintf(buf, len, "the %s phase", t->id ? t->id : "?");
		return buf;
	}
	return fsb_test_title(t->id);
}

/* The storage is memory, or the working set fits in it with --cache keep. */
static void ram(const struct fsb_result *r, struct cav_list *l)
{
	const char *cache = fsb_result_get_str(r, "cache", NULL);
	uint64_t size = fsb_result_get_u64(r, "size_bytes", 0) * fsb_result_jobs(r);
	char ev[256], a[32], b[32];

	if (r->setup.ram_backed) {
		snprintf(ev, sizeof(ev), "setup.ram_backed: %s", r->setup.ram_backed);
		add(l, "ram-backed", NULL, ev,
		    "the storage is memory (%s): the figures are RAM's, not a disk's",
		    r->setup.ram_backed);
	}
	if (cache && !strcmp(cache, "keep") && size && r->host.ram_bytes &&
	    size <= r->host.ram_bytes) {
		fsb_size_format_human(size, a, sizeof(a));
		fsb_size_format_human(r->host.ram_bytes, b, sizeof(b));
		snprintf(ev, sizeof(ev), "cache keep, working set %s, RAM %s", a, b);
		add(l, "cache-fits", NULL, ev,
		    "the working set fits in RAM and the page cache is kept: reads may come "
		    "from memory");
	}
}

static void machine(const struct fsb_result *r, struct cav_list *l)
{
	const char *v = r->host.virtualization;
	const struct fsb_param *acc = fsb_result_param(r, "guest_accel");
	char ev[256];

	if (v && strcmp(v, "none")) {
		snprintf(ev, sizeof(ev), "host.virtualization: %s", v);
		if (!strcmp(v, "qemu"))
			add(l, "emulation", NULL, ev,
			    "the machine is emulated (QEMU without KVM, TCG): absolute figures "
			    "say little about real hardware");
		else
			add(l, "vm", NULL, ev,
			    "the machine is a virtual machine (%s): its devices and CPU are the "
			    "host's, shared and virtualised",
			    v);
	}
	if (r->host.has_balloon && r->host.balloon_free_page_reporting)
		add(l, "balloon", NULL, "host.balloon_free_page_reporting: true",
		    "memory is balloon-managed with free page reporting: the first touch of "
		    "freed memory is slow, and the write figures move with it");
	if (acc && acc->type == FSB_PARAM_STR && acc->s && !strcmp(acc->s, "tcg")) {
		snprintf(ev, sizeof(ev), "params.guest_accel: tcg");
		add(l, "emulation", NULL, ev,
		    "ran in a QEMU guest under emulation (TCG): absolute times are not "
		    "comparable with a host's");
	}
}

static void counters(const struct fsb_result *r, struct cav_list *l)
{
	const char *ds = fsb_result_get_str(r, "device_stats", NULL), *why;
	char ev[256];

	/* "off" or "off: why" (a file from elsewhere may hold "off:" or
	 * "offline": the reason is read only as far as it goes). */
	if (!ds || strncmp(ds, "off", 3) || (ds[3] && ds[3] != ':'))
		return;
	why = ds[3] ? ds + 4 + strspn(ds + 4, " ") : "";
	snprintf(ev, sizeof(ev), "params.device_stats: %.200s", ds);
	add(l, "device-counters-off", NULL, ev,
	    "no device counters (bytes at the device, write amplification): %.200s",
	    *why ? why : "off");
}

/* Noisy (CV above 10%) or drifting (monotonic over >= 5 runs, > 10%). */
static void spread(const struct fsb_result *r, struct cav_list *l)
{
	char ev[256], name[64];

	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];
		bool up = true, down = true;
		size_t n = t->nruns, len;

		if (t->not_measured || !n)
			continue;
		if (fsb_test_noisy(t)) {
			struct fsb_unit_scale sc = fsb_unit_scale_for(t->unit, t->median);
			char num[64];

			len = (size_t)snprintf(ev, sizeof(ev),
					       "cv %.1f%% over %zu runs:", t->cv * 100, n);
			for (size_t k = 0; k < n && len < sizeof(ev); k++)
				len += (size_t)snprintf(
					ev + len, sizeof(ev) - len, "%s %s", k ? "," : "",
					fsb_unit_number(&sc, t->runs[k], num, sizeof(num)));
			if (len < sizeof(ev))
				snprintf(ev + len, sizeof(ev) - len, " %s", sc.unit);
			add(l, "noisy", t->id, ev, "%s is noisy: its runs differ by more than 10%%",
			    title(t, name, sizeof(name)));
		}
		if (n < FSB_CAVEAT_DRIFT_RUNS || !(t->runs[0] > 0))
			continue;
		for (size_t k = 1; k < n; k++) {
			up &= t->runs[k] >= t->runs[k - 1];
			down &= t->runs[k] <= t->runs[k - 1];
		}
		if ((up || down) && fabs(t->runs[n - 1] / t->runs[0] - 1) > FSB_CAVEAT_DRIFT) {
			struct fsb_unit_scale sc = fsb_unit_scale_for(t->unit, t->median);
			char a[64], b[64];

			snprintf(ev, sizeof(ev), "%zu runs, first %s, last %s (%+.0f%%)", n,
				 fsb_unit_with(&sc, t->runs[0], a, sizeof(a)),
				 fsb_unit_with(&sc, t->runs[n - 1], b, sizeof(b)),
				 (t->runs[n - 1] / t->runs[0] - 1) * 100);
			/* Rising times (a phase in seconds) are runs getting slower. */
			bool faster = fsb_unit_lower_is_better(t->unit) ? down : up;

			add(l, "drift", t->id, ev, "%s drifts: every run %s than the one before",
			    title(t, name, sizeof(name)), faster ? "faster" : "slower");
		}
	}
}

/* Why a test's runs are under --min-time (short_reason), in words. */
static const char *short_words(const char *why)
{
	if (!strcmp(why, "space"))
		return "the free space ran out";
	if (!strcmp(why, "limit"))
		return "it did the largest work it can (every block or chunk once)";
	if (!strcmp(why, "time"))
		return "growing its work did not lengthen its runs";
	if (!strcmp(why, "given"))
		return "its work is the exact size given";
	return NULL;
}

static void short_runs(const struct fsb_result *r, struct cav_list *l)
{
	const struct fsb_param *mt = fsb_result_param(r, "min_time_s");
	char ev[256], name[64];

	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];
		const char *words = t->short_reason ? short_words(t->short_reason) : NULL;
		double lo = t->elapsed_s;

		if (!words)
			continue;
		/* The shortest run is the one under --min-time: the mean may
		 * be over it (the runs differ). */
		for (size_t k = 0; t->start_ns && t->end_ns && k < t->nruns; k++) {
			double s = t->end_ns[k] > t->start_ns[k]
					   ? (double)(t->end_ns[k] - t->start_ns[k]) / 1e9
					   : 0;

			if (s > 0 && (!k || s < lo))
				lo = s;
		}
		snprintf(ev, sizeof(ev),
			 "short_reason %.8s, shortest run %.3f s, mean %.3f s, --min-time %.3g s",
			 t->short_reason, lo, t->elapsed_s,
			 mt && mt->type == FSB_PARAM_DOUBLE ? mt->d : 0.0);
		add(l, strcmp(t->short_reason, "space") ? "short-run" : "short-space", t->id, ev,
		    "%s ran shorter than --min-time: %s", title(t, name, sizeof(name)), words);
	}
}

/* Runs that went over their file again, pass after pass (file_bytes):
 * one line for all of them, each test with its file's size. */
static void passes(const struct fsb_result *r, struct cav_list *l)
{
	char ids[160] = "", ev[256] = "file_bytes", size[32];
	size_t in = 0, at = strlen(ev), n = 0;

	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];
		int k;

		if (!t->file_bytes || !t->id)
			continue;
		k = snprintf(ids + in, sizeof(ids) - in, "%s%s", n ? ", " : "", t->id);
		in = k < 0 || (size_t)k >= sizeof(ids) - in ? sizeof(ids) - 1 : in + (size_t)k;
		k = snprintf(ev + at, sizeof(ev) - at, "%s %s %s", n ? "," : ":", t->id,
			     fsb_size_format_human(t->file_bytes, size, sizeof(size)));
		at = k < 0 || (size_t)k >= sizeof(ev) - at ? sizeof(ev) - 1 : at + (size_t)k;
		n++;
	}
	if (n)
		add(l, "passes", NULL, ev,
		    "%s went over %s file again, pass after pass, instead of a larger one: the "
		    "page cache is the storage",
		    ids, n == 1 ? "its" : "their");
}

/* compress= or compress-force= among mount options. */
static bool compress_option(const char *opts, char *what, size_t len)
{
	const char *p = opts;

	while (p && *p) {
		size_t n = strcspn(p, ",");

		if ((n > 9 && !strncmp(p, "compress=", 9)) ||
		    (n > 15 && !strncmp(p, "compress-force=", 15))) {
			snprintf(what, len, "%.*s", (int)(n > 64 ? 64 : n), p);
			return true;
		}
		p += n + (p[n] == ',');
	}
	return false;
}

static void compression(const struct fsb_result *r, struct cav_list *l)
{
	const char *fs = r->setup.fs_type, *data = fsb_result_get_str(r, "data", "random");
	char what[96], ev[256];

	if (!fs || !r->ntests)
		return;
	if (!strcmp(fs, "btrfs")) {
		char opt[80];

		if (!compress_option(r->setup.mount_options, opt, sizeof(opt)))
			return;
		snprintf(what, sizeof(what), "btrfs %s", opt);
	} else if (!strcmp(fs, "jffs2") || !strcmp(fs, "ubifs")) {
		snprintf(what, sizeof(what), "%s", fs);
	} else {
		return;
	}
	snprintf(ev, sizeof(ev), "data %s, %s", data, what);
	if (!strcmp(data, "random"))
		add(l, "compress-random", NULL, ev,
		    "random data on a compressing filesystem (%s): it cannot compress it, so "
		    "the figures show none of its compression",
		    what);
	else if (!strcmp(data, "zero"))
		add(l, "compress-zero", NULL, ev,
		    "zeros on a compressing filesystem (%s): they compress to almost nothing "
		    "and flatter the figures",
		    what);
}

/* Write amplification a filesystem plausibly has: journal and metadata
 * (ext*, xfs), copy-on-write trees (btrfs). Beyond it, someone else wrote. */
static double plausible_wa(const char *fs)
{
	return fs && !strcmp(fs, "btrfs") ? 6.0 : 3.0;
}

static void other_io(const struct fsb_result *r, struct cav_list *l)
{
	unsigned jobs = fsb_result_jobs(r);
	char ev[256], a[32], b[32], name[64];

	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];
		bool rd, wr;
		double own;

		if (!t->has_device || !t->id || !t->unit || strcmp(t->unit, "B/s"))
			continue;
		rd = !strcmp(t->id, "read") || !strcmp(t->id, "getc");
		wr = !strcmp(t->id, "write") || !strcmp(t->id, "putc") || !strcmp(t->id, "rewrite");
		own = (double)t->work * jobs;
		if (rd && (double)t->dev_read_bytes > 2 * own + FSB_CAVEAT_OTHER_SLACK) {
			fsb_size_format_human(t->dev_read_bytes, a, sizeof(a));
			fsb_size_format_human((uint64_t)own, b, sizeof(b));
			snprintf(ev, sizeof(ev), "device read %s per run, the test read %s", a, b);
			add(l, "other-io", t->id, ev,
			    "another process read from the device during %s",
			    title(t, name, sizeof(name)));
		}
		if (wr && (double)t->dev_write_bytes >
				  plausible_wa(r->setup.fs_type) * own + FSB_CAVEAT_OTHER_SLACK) {
			fsb_size_format_human(t->dev_write_bytes, a, sizeof(a));
			fsb_size_format_human((uint64_t)own, b, sizeof(b));
			snprintf(ev, sizeof(ev), "device written %s per run, the test wrote %s", a,
				 b);
			add(l, "other-io", t->id, ev,
			    "another process wrote to the device during %s",
			    title(t, name, sizeof(name)));
		}
	}
}

/* The raw device's figure that test id is a share of (as
 * fsb_result_device_fraction matches them); seeks' is rough and left out. */
static bool devcap_fig_of(const char *id, enum fsb_devcap_fig *f)
{
	static const struct {
		const char *id;
		enum fsb_devcap_fig fig;
	} m[] = {
		{ "write", FSB_DEVCAP_SEQ_WRITE },
		{ "read", FSB_DEVCAP_SEQ_READ },
		{ "randread", FSB_DEVCAP_RAND_READ },
		{ "randwrite", FSB_DEVCAP_RAND_WRITE },
	};

	for (size_t i = 0; id && i < sizeof(m) / sizeof(m[0]); i++)
		if (!strcmp(id, m[i].id)) {
			*f = m[i].fig;
			return true;
		}
	return false;
}

/*
 * Why the raw device's figure f is too weak a baseline to say a cache
 * served a figure above it, in why; false when it is firm: enough rounds
 * (FSB_CAVEAT_BASELINE_ROUNDS) adding up to FSB_CAVEAT_BASELINE_SECONDS,
 * read from enough data (no short_reason), spread within
 * FSB_CAVEAT_DEVICE_SPREAD.
 */
static bool weak_baseline(const struct fsb_devcap *d, enum fsb_devcap_fig f, char *why, size_t len)
{
	double sp = fsb_devcap_spread(d, f, NULL, NULL);
	unsigned n = d->nrounds[f];

	if (d->short_reason) {
		snprintf(why, len, "read from too little data");
		return true;
	}
	if (n < FSB_CAVEAT_BASELINE_ROUNDS || !(n * d->seconds >= FSB_CAVEAT_BASELINE_SECONDS)) {
		snprintf(why, len, "%u round%s of %.2g s", n, n == 1 ? "" : "s", d->seconds);
		return true;
	}
	if (!(sp <= FSB_CAVEAT_DEVICE_SPREAD)) {
		snprintf(why, len, "spread %.0f%% over its rounds", sp * 100);
		return true;
	}
	return false;
}

/*
 * A figure well above the raw device's matching one: a cache served it (the
 * page cache, a loop device's backing file in the host's memory, the
 * device's write cache), so the fraction of the device says nothing about
 * the device. Said only when the device's figure is a firm baseline (long
 * and steady, weak_baseline); above a weak one, the device may simply have
 * been measured low, and the caveat says it cannot tell which. Seeks, only
 * roughly comparable, are left out.
 */
static void above_device(const struct fsb_result *r, struct cav_list *l)
{
	char ev[256], a[64], b[64], name[64], why[96];

	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];
		enum fsb_devcap_fig f;
		double frac;
		bool rough;

		if (!fsb_result_device_fraction(r, t, &frac, &rough) || rough ||
		    !(frac > FSB_CAVEAT_ABOVE_DEVICE) || !isfinite(frac) ||
		    !devcap_fig_of(t->id, &f))
			continue;
		fsb_unit_format(t->unit, t->median, a, sizeof(a));
		fsb_unit_format(t->unit, t->median / frac, b, sizeof(b));
		if (weak_baseline(&r->devcap, f, why, sizeof(why))) {
			snprintf(ev, sizeof(ev), "%s %s, the device %s with O_DIRECT (%s)", t->id,
				 a, b, why);
			add(l, "above-device-unsure", t->id, ev,
			    "%s ran at %.0f%% of the raw device, whose own figure is too short or "
			    "unsteady a baseline to tell whether a cache served it",
			    title(t, name, sizeof(name)), 100 * frac);
			continue;
		}
		snprintf(ev, sizeof(ev), "%s %s, the device %s with O_DIRECT", t->id, a, b);
		add(l, "above-device", t->id, ev,
		    "%s ran at %.0f%% of the raw device: a cache served it (page cache, a loop "
		    "device's backing file in memory, the device's own), not the device alone",
		    title(t, name, sizeof(name)), 100 * frac);
	}
}

/*
 * The raw device's own figures are no firm baseline: one spread over its
 * rounds by more than 20%, or read from too little data (short_reason).
 */
static void device_baseline(const struct fsb_result *r, struct cav_list *l)
{
	const struct fsb_devcap *d = &r->devcap;
	char ev[256], a[48], b[48], m[48];
	double lo, hi, sp;

	if (!d->present)
		return;
	for (int k = 0; k < FSB_DEVCAP_FIGS; k++) {
		enum fsb_devcap_fig f = (enum fsb_devcap_fig)k;
		bool bytes = f == FSB_DEVCAP_SEQ_READ || f == FSB_DEVCAP_SEQ_WRITE;

		sp = fsb_devcap_spread(d, f, &lo, &hi);
		if (!(sp > FSB_CAVEAT_DEVICE_SPREAD) || !isfinite(sp))
			continue;
		fsb_unit_format_rate(lo, bytes, a, sizeof(a));
		fsb_unit_format_rate(hi, bytes, b, sizeof(b));
		fsb_unit_format_rate(fsb_devcap_value(d, f), bytes, m, sizeof(m));
		snprintf(ev, sizeof(ev),
			 "device_capability.rounds.%s: %u rounds, %s to %s, median %s",
			 fsb_devcap_key(f), d->nrounds[k], a, b, m);
		add(l, "device-spread", NULL, ev,
		    "the device's own %s varied by %.0f%% over its rounds: \"%% of the device\" "
		    "is unreliable",
		    fsb_devcap_title(f), sp * 100);
	}
	if (d->short_reason) {
		snprintf(ev, sizeof(ev), "device_capability.short_reason: %.200s", d->short_reason);
		add(l, "device-short", NULL, ev,
		    "the device's own figures were read from too little data: \"%% of the "
		    "device\" is unreliable");
	}
}

/*
 * A buffered loop device (dio 0) under the filesystem: what it reads and
 * writes goes through the host's page cache holding its backing file, so
 * neither the tests nor the device capability measured a disk alone, and
 * O_DIRECT reaches only the loop device. Storage in memory already says
 * more (ram-backed).
 */
static void loop_buffered(const struct fsb_result *r, struct cav_list *l)
{
	const struct fsb_setup *s = &r->setup;
	const char *cache = fsb_result_get_str(r, "cache", NULL);
	char ev[256], res[96] = "";
	double after = -1;

	if (!s->loop_device || s->loop_dio || s->ram_backed)
		return;
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].has_loop_resident && r->tests[i].loop_resident > after)
			after = r->tests[i].loop_resident;
	if (s->has_loop_resident && after >= 0)
		snprintf(res, sizeof(res), ", %.0f%% resident before the tests, up to %.0f%% after",
			 100 * s->loop_resident, 100 * after);
	else if (s->has_loop_resident || after >= 0)
		snprintf(res, sizeof(res), ", %.0f%% resident %s the tests",
			 100 * (after >= 0 ? after : s->loop_resident),
			 after >= 0 ? "after" : "before");
	snprintf(ev, sizeof(ev), "setup.loop: %.32s dio 0, backing file %.120s%s", s->loop_device,
		 s->loop_backing ? s->loop_backing : "?", res);
	add(l, "loop-buffered", NULL, ev,
	    "%.32s is a loop device without direct I/O: the test figures%s may come from the "
	    "host's page cache holding its backing file, not from the disk",
	    s->loop_device,
	    r->devcap.present ? " and the device capability (\"device itself\")" : "");
	if (cache && !strcmp(cache, "direct"))
		add(l, "loop-direct", NULL, ev,
		    "--cache direct: O_DIRECT stops at the loop device %.32s, whose own reads "
		    "and writes of its backing file are buffered: the page cache is not "
		    "bypassed",
		    s->loop_device);
}

/* --engine null: the tests through the engine did no I/O at all. */
static void null_engine(const struct fsb_result *r, struct cav_list *l)
{
	char ids[160] = "";
	size_t in = 0, n = 0;

	for (size_t i = 0; i < r->ntests; i++) {
		int k;

		if (!fsb_test_harness_only(r, &r->tests[i]))
			continue;
		k = snprintf(ids + in, sizeof(ids) - in, "%s%s", n++ ? ", " : "", r->tests[i].id);
		in = k < 0 || (size_t)k >= sizeof(ids) - in ? sizeof(ids) - 1 : in + (size_t)k;
	}
	if (n)
		add(l, "engine-null", NULL, "params.engine: null",
		    "%s ran through the null engine, which does no I/O: %s the harness's own cost "
		    "per I/O, not the storage's; no data was written or read",
		    ids, n == 1 ? "its figure is" : "their figures are");
}

/*
 * The cold cache not reached: pages of a test's file that stayed resident
 * after fsbench evicted them (mincore), and stat tests on warm metadata
 * (no remount, no --cache drop-all), one line for all of those.
 */
static void cold(const struct fsb_result *r, struct cav_list *l)
{
	const char *cache = fsb_result_get_str(r, "cache", "?");
	char ids[160] = "", ev[256], name[64];
	size_t in = 0, n = 0;

	for (size_t i = 0; i < r->ntests; i++) {
		const struct fsb_test_result *t = &r->tests[i];
		int k;

		if (t->has_resident && t->cache_resident > FSB_CAVEAT_RESIDENT) {
			snprintf(ev, sizeof(ev), "cache_resident %.3f, cache %.40s",
				 t->cache_resident, cache);
			add(l, "cache-resident", t->id, ev,
			    "%s: %.0f%% of its file stayed in the page cache after fsbench evicted "
			    "it: reads may come from memory",
			    title(t, name, sizeof(name)), 100 * t->cache_resident);
		}
		if (!t->metadata_cold || strcmp(t->metadata_cold, "warm") || !t->id)
			continue;
		k = snprintf(ids + in, sizeof(ids) - in, "%s%s", n++ ? ", " : "", t->id);
		in = k < 0 || (size_t)k >= sizeof(ids) - in ? sizeof(ids) - 1 : in + (size_t)k;
	}
	if (!n)
		return;
	snprintf(ev, sizeof(ev), "metadata_cold warm, cache %.40s", cache);
	add(l, "metadata-warm", NULL, ev,
	    "%s ran on warm metadata: the dentries and inodes the create left stayed in "
	    "memory (only --cache drop-all, as root, or a filesystem fsbench made, "
	    "remounted, makes them cold)",
	    ids);
}

size_t fsb_caveats_find(const struct fsb_result *r, struct fsb_caveat *out, size_t max)
{
	struct cav_list l = { .v = out, .max = max };

	if (!r->has_caveats)
		return 0;
	null_engine(r, &l);
	ram(r, &l);
	machine(r, &l);
	counters(r, &l);
	compression(r, &l);
	short_runs(r, &l);
	passes(r, &l);
	spread(r, &l);
	other_io(r, &l);
	above_device(r, &l);
	device_baseline(r, &l);
	loop_buffered(r, &l);
	cold(r, &l);
	return l.n;
}

bool fsb_caveat_same(const struct fsb_caveat *a, const struct fsb_caveat *b)
{
	/* The claim itself, not only its kind: "virtual machine (kvm)" and
	 * "(xen)" are two caveats. The evidence (the runs, a CV) may differ. */
	return !strcmp(a->id, b->id) && !strcmp(a->test, b->test) && !strcmp(a->text, b->text);
}

void fsb_caveat_put(FILE *out, const struct fsb_caveat *c)
{
	char buf[1024];

	fputs(fsb_text_safe(c->text, 0, buf, sizeof(buf)), out);
	fprintf(out, " (%s)\n", fsb_text_safe(c->evidence, 0, buf, sizeof(buf)));
}

int fsb_caveats_print(FILE *out, const struct fsb_result *r, const char *prefix)
{
	struct fsb_caveat cav[FSB_CAVEATS_MAX];
	size_t n = fsb_caveats_find(r, cav, FSB_CAVEATS_MAX);

	if (!n)
		return 0;
	fprintf(out, "\n%sCaveats:\n", prefix);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s  - ", prefix);
		fsb_caveat_put(out, &cav[i]);
	}
	return ferror(out) ? -EIO : 0;
}
