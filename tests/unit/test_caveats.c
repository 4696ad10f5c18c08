/*
 * Automatic caveats and the device's capability: the pure caveat rules
 * on documents made here (each caveat made to happen, and its near miss),
 * each figure's share of the device, the environment probes on fake /sys
 * and /proc trees, and the JSON keys that carry them (round trip; an old
 * document without them has no caveats).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/env.h"
#include "report/caveats.h"
#include "report/json.h"
#include "report/result.h"
#include "report/writer.h"
#include "util/units.h"

/* ---- documents --------------------------------------------------------- */

static void doc_init(struct fsb_result *r)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(fsb_result_init(r, "run"), 0);
	r->has_caveats = true;
	assert_int_equal(fsb_strset(&r->setup.label, "xfs"), 0);
	assert_int_equal(fsb_strset(&r->setup.fs_type, "xfs"), 0);
	assert_int_equal(fsb_strset(&r->host.virtualization, "none"), 0);
	assert_int_equal(fsb_result_param_str(r, "cache", "drop"), 0);
	assert_int_equal(fsb_result_param_u64(r, "size_bytes", 1ull << 30), 0);
	assert_int_equal(fsb_result_param_double(r, "min_time_s", 0.5), 0);
	assert_int_equal(fsb_result_param_str(r, "device_stats", "on"), 0);
	r->host.ram_bytes = 8ull << 30;
}

static struct fsb_test_result *add(struct fsb_result *r, const char *id, const char *unit,
				   const double *runs, size_t n)
{
	struct fsb_test_result *t = fsb_result_add_test(r, id, unit);

	assert_non_null(t);
	assert_int_equal(fsb_test_set_runs(t, runs, n), 0);
	return t;
}

static const double steady[] = { 100e6, 101e6, 99e6 };

/* The caveats of r, and whether one with this id (and test) is there. */
static size_t find(const struct fsb_result *r, struct fsb_caveat *cav)
{
	return fsb_caveats_find(r, cav, FSB_CAVEATS_MAX);
}

static const struct fsb_caveat *has(const struct fsb_result *r, const char *id, const char *test)
{
	static struct fsb_caveat cav[FSB_CAVEATS_MAX];
	size_t n = find(r, cav);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(cav[i].id, id) && (!test || !strcmp(cav[i].test, test)))
			return &cav[i];
	return NULL;
}

/* ---- caveats ------------------------------------------------------------ */

static void test_quiet_document(void **state)
{
	struct fsb_result r;
	struct fsb_caveat cav[FSB_CAVEATS_MAX];

	(void)state;
	doc_init(&r);
	add(&r, "write", "B/s", steady, 3);
	assert_int_equal(find(&r, cav), 0);
	/* An older document has none, even with a noisy figure. */
	r.has_caveats = false;
	add(&r, "read", "B/s", (const double[]){ 10e6, 50e6, 100e6 }, 3);
	assert_int_equal(find(&r, cav), 0);
	fsb_result_release(&r);
}

static void test_ram(void **state)
{
	struct fsb_result r;
	const struct fsb_caveat *c;

	(void)state;
	doc_init(&r);
	add(&r, "write", "B/s", steady, 3);
	assert_int_equal(fsb_strset(&r.setup.ram_backed, "tmpfs"), 0);
	assert_non_null(c = has(&r, "ram-backed", NULL));
	assert_non_null(strstr(c->text, "tmpfs"));
	assert_non_null(strstr(c->evidence, "setup.ram_backed: tmpfs"));
	assert_null(has(&r, "cache-fits", NULL));
	/* keep: the working set (1 GiB) fits in 8 GiB. */
	assert_int_equal(fsb_result_param_str(&r, "cache", "keep"), 0);
	assert_non_null(c = has(&r, "cache-fits", NULL));
	assert_non_null(strstr(c->evidence, "1.0 GiB"));
	/* Not when it does not fit (4 jobs x 4 GiB in 8 GiB). */
	assert_int_equal(fsb_result_param_u64(&r, "size_bytes", 4ull << 30), 0);
	assert_int_equal(fsb_result_param_u64(&r, "jobs", 4), 0);
	assert_null(has(&r, "cache-fits", NULL));
	fsb_result_release(&r);
}

static void test_machine(void **state)
{
	struct fsb_result r;
	const struct fsb_caveat *c;

	(void)state;
	doc_init(&r);
	add(&r, "write", "B/s", steady, 3);
	assert_null(has(&r, "vm", NULL));
	assert_int_equal(fsb_strset(&r.host.virtualization, "kvm"), 0);
	assert_non_null(c = has(&r, "vm", NULL));
	assert_non_null(strstr(c->evidence, "kvm"));
	assert_null(has(&r, "emulation", NULL));
	assert_int_equal(fsb_strset(&r.host.virtualization, "qemu"), 0);
	assert_non_null(has(&r, "emulation", NULL));
	assert_null(has(&r, "vm", NULL));
	r.host.has_balloon = true;
	assert_null(has(&r, "balloon", NULL));
	r.host.balloon_free_page_reporting = true;
	assert_non_null(c = has(&r, "balloon", NULL));
	assert_non_null(strstr(c->text, "write figures"));
	fsb_result_release(&r);

	/* A guest under TCG, and the device counters off and why. */
	doc_init(&r);
	add(&r, "write", "B/s", steady, 3);
	assert_int_equal(fsb_result_param_str(&r, "guest_accel", "kvm"), 0);
	assert_null(has(&r, "emulation", NULL));
	assert_int_equal(fsb_result_param_str(&r, "guest_accel", "tcg"), 0);
	assert_non_null(c = has(&r, "emulation", NULL));
	assert_non_null(strstr(c->evidence, "guest_accel: tcg"));
	assert_int_equal(fsb_result_param_str(&r, "device_stats",
					      "off: no block device behind the filesystem"),
			 0);
	assert_non_null(c = has(&r, "device-counters-off", NULL));
	assert_non_null(strstr(c->text, "no block device behind the filesystem"));
	fsb_result_release(&r);
}

static void test_noise_and_drift(void **state)
{
	struct fsb_result r;
	const struct fsb_caveat *c;

	(void)state;
	doc_init(&r);
	add(&r, "write", "B/s", (const double[]){ 100e6, 140e6, 80e6 }, 3);
	add(&r, "read", "B/s", (const double[]){ 100e6, 104e6, 108e6, 112e6, 116e6 }, 5);
	add(&r, "getc", "B/s", (const double[]){ 100e6, 104e6, 108e6, 116e6 }, 4);
	add(&r, "putc", "B/s", (const double[]){ 100e6, 104e6, 102e6, 112e6, 116e6 }, 5);
	add(&r, "seeks", "ops/s", (const double[]){ 1000, 990, 980, 970, 960 }, 5);
	assert_non_null(c = has(&r, "noisy", "write"));
	assert_non_null(strstr(c->text, "block write is noisy"));
	assert_non_null(strstr(c->evidence, "cv 28.6% over 3 runs: 95.4, 134, 76.3 MiB/s"));
	assert_null(has(&r, "noisy", "read"));
	/* Monotonic over 5 runs, +16%: drifts. */
	assert_non_null(c = has(&r, "drift", "read"));
	assert_non_null(strstr(c->text, "faster"));
	assert_non_null(strstr(c->evidence, "+16%"));
	/* 4 runs are too few; not monotonic; monotonic but only -4%. */
	assert_null(has(&r, "drift", "getc"));
	assert_null(has(&r, "drift", "putc"));
	assert_null(has(&r, "drift", "seeks"));
	/* A phase in seconds whose times grow is getting slower. */
	add(&r, "mkfs", "s", (const double[]){ 1.0, 1.2, 1.4, 1.6, 1.8 }, 5);
	assert_non_null(c = has(&r, "drift", "mkfs"));
	assert_non_null(strstr(c->text, "slower"));
	fsb_result_release(&r);
}

/* device_stats from another file: "off:" has no reason to read past,
 * "offline" is no "off". */
static void test_counters_off_forms(void **state)
{
	struct fsb_result r;
	const struct fsb_caveat *c;

	(void)state;
	doc_init(&r);
	add(&r, "write", "B/s", steady, 3);
	assert_int_equal(fsb_result_param_str(&r, "device_stats", "off:"), 0);
	assert_non_null(c = has(&r, "device-counters-off", NULL));
	assert_non_null(strstr(c->text, "write amplification): off"));
	assert_int_equal(fsb_result_param_str(&r, "device_stats", "off:x"), 0);
	assert_non_null(c = has(&r, "device-counters-off", NULL));
	assert_non_null(strstr(c->text, "): x"));
	assert_int_equal(fsb_result_param_str(&r, "device_stats", "off"), 0);
	assert_non_null(has(&r, "device-counters-off", NULL));
	assert_int_equal(fsb_result_param_str(&r, "device_stats", "offline"), 0);
	assert_null(has(&r, "device-counters-off", NULL));
	fsb_result_release(&r);
}

/* Two caveats of one kind that say different things are not the same. */
static void test_same_is_the_claim(void **state)
{
	struct fsb_caveat a = { .id = "vm", .text = "a virtual machine (kvm)", .evidence = "e1" };
	struct fsb_caveat b = a, c = a;

	(void)state;
	snprintf(b.evidence, sizeof(b.evidence), "e2");
	snprintf(c.text, sizeof(c.text), "a virtual machine (xen)");
	assert_true(fsb_caveat_same(&a, &b));
	assert_false(fsb_caveat_same(&a, &c));
	assert_true(fsb_csv_formula("=HYPERLINK(1)"));
	assert_true(fsb_csv_formula("@x"));
	assert_false(fsb_csv_formula("ext4"));
	assert_false(fsb_csv_formula(""));
}

static void test_short_space(void **state)
{
	struct fsb_result r;
	struct fsb_test_result *t;
	const struct fsb_caveat *c;

	(void)state;
	doc_init(&r);
	t = add(&r, "write", "B/s", steady, 3);
	t->elapsed_s = 0.21;
	assert_null(has(&r, "short-space", NULL));
	assert_int_equal(fsb_strset(&r.tests[0].short_reason, "space"), 0);
	assert_non_null(c = has(&r, "short-space", "write"));
	assert_non_null(strstr(c->evidence, "shortest run 0.210 s, mean 0.210 s"));
	assert_non_null(strstr(c->evidence, "--min-time 0.5 s"));
	/* Runs of 0.6, 0.45 and 0.6 s: the mean is over --min-time, the
	 * shortest is the one that is not, and the evidence names it. */
	t->elapsed_s = 0.55;
	assert_int_equal(
		fsb_test_set_times(t, (const uint64_t[]){ 0, 1000000000, 2000000000 },
				   (const uint64_t[]){ 600000000, 1450000000, 2600000000 }),
		0);
	assert_non_null(c = has(&r, "short-space", "write"));
	assert_non_null(strstr(c->evidence, "shortest run 0.450 s, mean 0.550 s"));
	/* Short at the test's own limit, or however far it grew: said too. */
	assert_int_equal(fsb_strset(&r.tests[0].short_reason, "limit"), 0);
	assert_null(has(&r, "short-space", "write"));
	assert_non_null(c = has(&r, "short-run", "write"));
	assert_non_null(strstr(c->text, "did the largest work it can"));
	assert_non_null(strstr(c->evidence, "short_reason limit"));
	assert_int_equal(fsb_strset(&r.tests[0].short_reason, "time"), 0);
	assert_non_null(c = has(&r, "short-run", "write"));
	assert_non_null(strstr(c->text, "did not lengthen its runs"));
	assert_int_equal(fsb_strset(&r.tests[0].short_reason, "given"), 0);
	assert_non_null(c = has(&r, "short-run", "write"));
	assert_non_null(strstr(c->text, "exact size given"));
	assert_int_equal(fsb_strset(&r.tests[0].short_reason, "other"), 0);
	assert_null(has(&r, "short-run", "write"));
	fsb_result_release(&r);
}

/* Runs over their file again: one caveat names every such test and its
 * file's size. */
static void test_passes(void **state)
{
	struct fsb_result r;
	const struct fsb_caveat *c;

	(void)state;
	doc_init(&r);
	add(&r, "write", "B/s", steady, 3);
	add(&r, "read", "B/s", steady, 3);
	add(&r, "getc", "B/s", steady, 3);
	assert_null(has(&r, "passes", NULL));
	r.tests[1].file_bytes = 1536ull << 20;
	assert_non_null(c = has(&r, "passes", NULL));
	assert_string_equal(c->text, "read went over its file again, pass after pass, instead of "
				     "a larger one: the page cache is the storage");
	assert_string_equal(c->evidence, "file_bytes: read 1.5 GiB");
	r.tests[2].file_bytes = 512ull << 20;
	assert_non_null(c = has(&r, "passes", NULL));
	assert_non_null(strstr(c->text, "read, getc went over their file again"));
	assert_string_equal(c->evidence, "file_bytes: read 1.5 GiB, getc 512.0 MiB");
	fsb_result_release(&r);
}

static void test_compression(void **state)
{
	struct fsb_result r;
	const struct fsb_caveat *c;

	(void)state;
	doc_init(&r);
	add(&r, "write", "B/s", steady, 3);
	assert_int_equal(fsb_strset(&r.setup.fs_type, "btrfs"), 0);
	assert_int_equal(fsb_strset(&r.setup.mount_options, "rw,relatime,space_cache=v2"), 0);
	assert_null(has(&r, "compress-random", NULL));
	assert_int_equal(
		fsb_strset(&r.setup.mount_options, "rw,relatime,compress=zstd:3,space_cache=v2"),
		0);
	/* No data param: random. */
	assert_non_null(c = has(&r, "compress-random", NULL));
	assert_non_null(strstr(c->text, "btrfs compress=zstd:3"));
	assert_int_equal(fsb_result_param_str(&r, "data", "zero"), 0);
	assert_null(has(&r, "compress-random", NULL));
	assert_non_null(has(&r, "compress-zero", NULL));
	assert_int_equal(fsb_result_param_str(&r, "data", "compressible:50"), 0);
	assert_null(has(&r, "compress-zero", NULL));
	assert_null(has(&r, "compress-random", NULL));
	assert_int_equal(fsb_result_param_str(&r, "data", "random"), 0);
	assert_int_equal(fsb_strset(&r.setup.mount_options, "rw,compress-force=lzo"), 0);
	assert_non_null(has(&r, "compress-random", NULL));
	assert_int_equal(fsb_strset(&r.setup.fs_type, "jffs2"), 0);
	assert_non_null(c = has(&r, "compress-random", NULL));
	assert_non_null(strstr(c->text, "jffs2"));
	assert_int_equal(fsb_strset(&r.setup.fs_type, "xfs"), 0);
	assert_null(has(&r, "compress-random", NULL));
	fsb_result_release(&r);
}

static void test_other_io(void **state)
{
	struct fsb_result r;
	struct fsb_test_result *w, *rd;
	const struct fsb_caveat *c;

	(void)state;
	doc_init(&r);
	w = add(&r, "write", "B/s", steady, 3);
	w->work = 100 << 20;
	w->has_device = true;
	w->dev_write_bytes = 250ull << 20; /* journal and metadata: plausible */
	rd = add(&r, "read", "B/s", steady, 3);
	rd = &r.tests[1];
	rd->work = 100 << 20;
	rd->has_device = true;
	rd->dev_read_bytes = 150ull << 20;
	assert_null(has(&r, "other-io", NULL));
	r.tests[0].dev_write_bytes = 400ull << 20;
	r.tests[1].dev_read_bytes = 300ull << 20;
	assert_non_null(c = has(&r, "other-io", "write"));
	assert_non_null(strstr(c->text, "wrote to the device during block write"));
	assert_non_null(strstr(c->evidence, "400.0 MiB"));
	assert_non_null(c = has(&r, "other-io", "read"));
	assert_non_null(strstr(c->text, "read from the device during block read"));
	/* btrfs copies on write: 4x is still its own. */
	assert_int_equal(fsb_strset(&r.setup.fs_type, "btrfs"), 0);
	assert_null(has(&r, "other-io", "write"));
	fsb_result_release(&r);
}

/* ---- the device's capability ---------------------------------------------- */

static void test_device_fraction(void **state)
{
	struct fsb_result r;
	double f;
	bool rough;

	(void)state;
	doc_init(&r);
	add(&r, "write", "B/s", steady, 3);
	add(&r, "read", "B/s", steady, 3);
	add(&r, "seeks", "ops/s", (const double[]){ 500, 500, 500 }, 3);
	add(&r, "randread", "ops/s", (const double[]){ 2000, 2000, 2000 }, 3);
	add(&r, "randwrite", "ops/s", (const double[]){ 1000, 1000, 1000 }, 3);
	add(&r, "rewrite", "B/s", steady, 3);
	assert_false(fsb_result_device_fraction(&r, &r.tests[0], &f, &rough));
	r.devcap.present = true;
	r.devcap.seq_read_Bps = 400e6;
	r.devcap.rand_read_iops = 10000;
	/* Read-only: no write figure, no write fraction. */
	assert_false(fsb_result_device_fraction(&r, &r.tests[0], &f, &rough));
	assert_true(fsb_result_device_fraction(&r, &r.tests[1], &f, &rough));
	assert_float_equal(f, 0.25, 1e-9);
	assert_false(rough);
	assert_true(fsb_result_device_fraction(&r, &r.tests[2], &f, &rough));
	assert_float_equal(f, 0.05, 1e-9);
	assert_true(rough);
	assert_true(fsb_result_device_fraction(&r, &r.tests[3], &f, &rough));
	assert_float_equal(f, 0.2, 1e-9);
	assert_false(fsb_result_device_fraction(&r, &r.tests[4], &f, &rough));
	r.devcap.seq_write_Bps = 125e6;
	r.devcap.rand_write_iops = 4000;
	assert_true(fsb_result_device_fraction(&r, &r.tests[0], &f, &rough));
	assert_float_equal(f, 0.8, 1e-9);
	assert_true(fsb_result_device_fraction(&r, &r.tests[4], &f, &rough));
	assert_float_equal(f, 0.25, 1e-9);
	/* No device figure matches a rewrite. */
	assert_false(fsb_result_device_fraction(&r, &r.tests[5], &f, &rough));
	/* The null engine's figures are the harness's: no share of a device. */
	assert_int_equal(fsb_result_param_str(&r, "engine", "null"), 0);
	assert_false(fsb_result_device_fraction(&r, &r.tests[0], &f, &rough));
	assert_false(fsb_result_device_fraction(&r, &r.tests[3], &f, &rough));
	fsb_result_release(&r);

	/* A lifecycle's write phase is in seconds: no fraction. */
	doc_init(&r);
	add(&r, "write", "s", (const double[]){ 0.1, 0.1, 0.1 }, 3);
	r.devcap.present = true;
	r.devcap.seq_write_Bps = 125e6;
	assert_false(fsb_result_device_fraction(&r, &r.tests[0], &f, &rough));
	fsb_result_release(&r);
}

/* A figure well above the raw device's own came from a cache: said, with
 * both figures; 20% above (readahead, merging) is not; seeks never. */
static void test_above_device(void **state)
{
	const struct fsb_caveat *c;
	struct fsb_result r;

	(void)state;
	doc_init(&r);
	add(&r, "read", "B/s", (const double[]){ 2e9, 2e9, 2e9 }, 3);
	add(&r, "write", "B/s", (const double[]){ 120e6, 120e6, 120e6 }, 3);
	add(&r, "seeks", "ops/s", (const double[]){ 50000, 50000, 50000 }, 3);
	assert_null(has(&r, "above-device", NULL));
	r.devcap.present = true;
	r.devcap.seq_read_Bps = 1e9;
	r.devcap.seq_write_Bps = 100e6;
	r.devcap.rand_read_iops = 10000;
	/* A firm baseline: 3 steady rounds of 0.25 s for each figure. */
	r.devcap.seconds = 0.25;
	for (int k = 0; k < FSB_DEVCAP_FIGS; k++) {
		double v = fsb_devcap_value(&r.devcap, (enum fsb_devcap_fig)k);

		r.devcap.nrounds[k] = 3;
		r.devcap.rounds[k][0] = v * 0.98;
		r.devcap.rounds[k][1] = v;
		r.devcap.rounds[k][2] = v * 1.02;
	}
	c = has(&r, "above-device", "read");
	assert_non_null(c);
	assert_non_null(strstr(c->text, "block read ran at 200% of the raw device"));
	{
		char a[64], b[64], want[160];

		fsb_unit_format("B/s", 2e9, a, sizeof(a));
		fsb_unit_format("B/s", 1e9, b, sizeof(b));
		snprintf(want, sizeof(want), "read %s, the device %s with O_DIRECT", a, b);
		assert_string_equal(c->evidence, want);
	}
	assert_null(has(&r, "above-device", "write"));
	assert_null(has(&r, "above-device", "seeks"));
	r.devcap.seq_write_Bps = 90e6;
	assert_non_null(has(&r, "above-device", "write"));
	assert_null(has(&r, "above-device-unsure", NULL));
	fsb_result_release(&r);
}

/* Above a weak baseline (a device figure of too few or too short rounds,
 * too little data, or a spread over 20%) nothing says a cache served it:
 * the device may have been measured low, and the caveat says it cannot
 * tell. */
static void test_above_weak_device(void **state)
{
	const struct fsb_caveat *c;
	struct fsb_result r;

	(void)state;
	doc_init(&r);
	add(&r, "read", "B/s", (const double[]){ 2e9, 2e9, 2e9 }, 3);
	r.devcap.present = true;
	r.devcap.seq_read_Bps = 1e9;
	r.devcap.seconds = 0.25;
	r.devcap.nrounds[FSB_DEVCAP_SEQ_READ] = 3;
	r.devcap.rounds[FSB_DEVCAP_SEQ_READ][0] = 0.7e9;
	r.devcap.rounds[FSB_DEVCAP_SEQ_READ][1] = 1e9;
	r.devcap.rounds[FSB_DEVCAP_SEQ_READ][2] = 1.3e9;
	/* Spread 60%. */
	assert_null(has(&r, "above-device", "read"));
	c = has(&r, "above-device-unsure", "read");
	assert_non_null(c);
	assert_null(strstr(c->text, ": a cache served it"));
	assert_non_null(strstr(c->text, "to tell whether a cache served it"));
	assert_non_null(strstr(c->evidence, "spread 60%"));
	/* Steady, but one short round. */
	r.devcap.nrounds[FSB_DEVCAP_SEQ_READ] = 1;
	r.devcap.rounds[FSB_DEVCAP_SEQ_READ][0] = 1e9;
	assert_null(has(&r, "above-device", "read"));
	assert_non_null(has(&r, "above-device-unsure", "read"));
	/* Three steady rounds, but of 0.05 s each: 0.15 s in all. */
	r.devcap.nrounds[FSB_DEVCAP_SEQ_READ] = 3;
	r.devcap.rounds[FSB_DEVCAP_SEQ_READ][1] = r.devcap.rounds[FSB_DEVCAP_SEQ_READ][2] = 1e9;
	r.devcap.seconds = 0.05;
	assert_null(has(&r, "above-device", "read"));
	assert_non_null(has(&r, "above-device-unsure", "read"));
	/* Long and steady, but read from too little data. */
	r.devcap.seconds = 0.25;
	assert_non_null(has(&r, "above-device", "read"));
	assert_int_equal(fsb_strset(&r.devcap.short_reason, "only 4 MiB hold data"), 0);
	assert_null(has(&r, "above-device", "read"));
	assert_non_null(has(&r, "above-device-unsure", "read"));
	fsb_result_release(&r);
}

/* The cold cache not reached: a file whose pages stayed after eviction
 * (over 5%), and stat tests on warm metadata, one line for all; a
 * remount or drop-all is cold. */
static void test_cold_cache(void **state)
{
	const struct fsb_caveat *c;
	struct fsb_test_result *t;
	struct fsb_result r;

	(void)state;
	doc_init(&r);
	t = add(&r, "read", "B/s", steady, 3);
	t->has_resident = true;
	t->cache_resident = 0.04;
	t = add(&r, "getc", "B/s", steady, 3);
	t->has_resident = true;
	t->cache_resident = 0.5;
	t = add(&r, "seq-stat", "ops/s", steady, 3);
	assert_int_equal(fsb_strset(&t->metadata_cold, "warm"), 0);
	t = add(&r, "rand-stat", "ops/s", steady, 3);
	assert_int_equal(fsb_strset(&t->metadata_cold, "remount"), 0);
	assert_null(has(&r, "cache-resident", "read"));
	assert_non_null(c = has(&r, "cache-resident", "getc"));
	assert_non_null(strstr(c->text, "50% of its file stayed in the page cache"));
	assert_string_equal(c->evidence, "cache_resident 0.500, cache drop");
	assert_non_null(c = has(&r, "metadata-warm", NULL));
	assert_true(!strncmp(c->text, "seq-stat ran on warm metadata", 29));
	assert_null(strstr(c->text, "rand-stat"));
	fsb_result_release(&r);
}

/* A device figure whose rounds spread over 20% ((max - min) / median) is
 * no baseline: said, per figure, with its rounds; exactly 20% is not. Too
 * little data to read is said too. */
static void test_device_spread(void **state)
{
	const struct fsb_caveat *c;
	struct fsb_result r;
	double lo, hi;

	(void)state;
	doc_init(&r);
	add(&r, "read", "B/s", steady, 3);
	r.devcap.present = true;
	r.devcap.seq_read_Bps = 100e6;
	r.devcap.rand_read_iops = 10000;
	/* An older file: the figure alone, no spread. */
	assert_float_equal(fsb_devcap_spread(&r.devcap, FSB_DEVCAP_SEQ_READ, NULL, NULL), 0, 0);
	assert_null(has(&r, "device-spread", NULL));
	memcpy(r.devcap.rounds[FSB_DEVCAP_SEQ_READ], (double[]){ 90e6, 100e6, 110e6 },
	       3 * sizeof(double));
	r.devcap.nrounds[FSB_DEVCAP_SEQ_READ] = 3;
	assert_float_equal(fsb_devcap_spread(&r.devcap, FSB_DEVCAP_SEQ_READ, &lo, &hi), 0.2, 1e-12);
	assert_float_equal(lo, 90e6, 0);
	assert_float_equal(hi, 110e6, 0);
	assert_null(has(&r, "device-spread", NULL));
	r.devcap.rounds[FSB_DEVCAP_SEQ_READ][2] = 111e6;
	assert_non_null(c = has(&r, "device-spread", NULL));
	assert_string_equal(c->text, "the device's own sequential read varied by 21% over its "
				     "rounds: \"% of the device\" is unreliable");
	assert_non_null(strstr(c->evidence, "device_capability.rounds.seq_read_Bps: 3 rounds"));
	/* Rounds far apart (a device read from holes): far over 20%. */
	memcpy(r.devcap.rounds[FSB_DEVCAP_RAND_READ], (double[]){ 2000, 10000, 13000 },
	       3 * sizeof(double));
	r.devcap.nrounds[FSB_DEVCAP_RAND_READ] = 3;
	{
		struct fsb_caveat cav[FSB_CAVEATS_MAX];
		size_t n = find(&r, cav), spread = 0;

		for (size_t i = 0; i < n; i++)
			spread += !strcmp(cav[i].id, "device-spread");
		assert_int_equal(spread, 2);
	}
	assert_null(has(&r, "device-short", NULL));
	assert_int_equal(fsb_strset(&r.devcap.short_reason, "only 396 KiB hold data"), 0);
	assert_non_null(c = has(&r, "device-short", NULL));
	assert_string_equal(c->evidence, "device_capability.short_reason: only 396 KiB hold data");
	fsb_result_release(&r);
}

/* The text view says it as a reader would: "xfs block write: 80% of the device". */
static void test_text_view(void **state)
{
	struct fsb_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	doc_init(&r);
	add(&r, "write", "B/s", steady, 3);
	r.devcap.present = true;
	r.devcap.seq_read_Bps = 400e6;
	r.devcap.seq_write_Bps = 125e6;
	r.devcap.rand_read_iops = 10000;
	r.devcap.seq_depth = 16;
	r.devcap.rand_depth = 32;
	r.devcap.seq_block_bytes = 1 << 20;
	r.devcap.rand_block_bytes = 4096;
	r.devcap.seconds = 0.5;
	assert_int_equal(fsb_strset(&r.devcap.device, "/dev/loop7"), 0);
	assert_int_equal(fsb_strset(&r.devcap.engine, "io_uring"), 0);
	assert_int_equal(fsb_strset(&r.setup.ram_backed, "loop7 over a file on tmpfs"), 0);
	memcpy(r.devcap.rounds[FSB_DEVCAP_SEQ_READ], (double[]){ 400e6, 390e6, 410e6 },
	       3 * sizeof(double));
	r.devcap.nrounds[FSB_DEVCAP_SEQ_READ] = 3;
	assert_int_equal(fsb_strset(&r.devcap.data_from, "the backing file's data (/i)"), 0);
	r.devcap.data_bytes = 48 << 20;
	r.devcap.data_ranges = 3;
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(fsb_write_text(f, &r), 0);
	fclose(f);
	assert_non_null(strstr(buf, "80% of the device\n"));
	assert_non_null(strstr(buf, "  xfs block write: 80% of the device\n"));
	assert_non_null(strstr(buf, "The device /dev/loop7 itself: sequential read 381 MiB/s, "
				    "write 119 MiB/s"));
	assert_non_null(strstr(buf, ", 3 rounds of 0.5 s each).\nMedian of the rounds; their "
				    "range: sequential read 372 MiB/s – 391 MiB/s (spread 5%).\n"
				    "Read only where the device holds data: 48.0 MiB in 3 ranges, "
				    "the backing file's data (/i).\n"));
	/* The caveats end the view. */
	assert_non_null(strstr(buf, "\nCaveats:\n  - the storage is memory (loop7 over a file on "
				    "tmpfs)"));
	free(buf);
	fsb_result_release(&r);
}

static void test_json_round_trip(void **state)
{
	struct fsb_result r, back;
	struct json_object *doc, *v, *t0;
	char why[256];

	(void)state;
	doc_init(&r);
	add(&r, "write", "B/s", (const double[]){ 100e6, 140e6, 80e6 }, 3);
	r.devcap.present = true;
	r.devcap.seq_read_Bps = 400e6;
	r.devcap.seq_write_Bps = 125e6;
	r.devcap.rand_read_iops = 10000;
	r.devcap.seq_depth = 16;
	r.devcap.rand_depth = 32;
	r.devcap.seq_block_bytes = 1 << 20;
	r.devcap.rand_block_bytes = 4096;
	r.devcap.seconds = 0.5;
	assert_int_equal(fsb_strset(&r.devcap.engine, "psync"), 0);
	memcpy(r.devcap.rounds[FSB_DEVCAP_SEQ_READ], (double[]){ 400e6, 300e6, 500e6 },
	       3 * sizeof(double));
	r.devcap.nrounds[FSB_DEVCAP_SEQ_READ] = 3;
	assert_int_equal(fsb_strset(&r.devcap.data_from, "the whole device"), 0);
	r.devcap.data_bytes = 1ull << 30;
	r.devcap.data_ranges = 1;
	r.devcap.read_bytes = 123456789;
	assert_int_equal(fsb_strset(&r.devcap.short_reason, "too little"), 0);
	assert_int_equal(fsb_strset(&r.host.virtualization, "kvm"), 0);
	r.host.has_balloon = r.host.balloon_free_page_reporting = true;
	assert_int_equal(fsb_strset(&r.setup.ram_backed, "tmpfs"), 0);
	assert_non_null(doc = fsb_json_from_result(&r));
	assert_true(json_object_object_get_ex(doc, "caveats", &v));
	/* ram, vm, balloon, noisy, the device's spread and its short data */
	assert_int_equal(json_object_array_length(v), 6);
	assert_string_equal(json_object_get_string(
				    json_object_object_get(json_object_array_get_idx(v, 0), "id")),
			    "ram-backed");
	assert_non_null(json_object_object_get(json_object_array_get_idx(v, 3), "evidence"));
	t0 = json_object_array_get_idx(json_object_object_get(doc, "tests"), 0);
	assert_float_equal(json_object_get_double(json_object_object_get(t0, "device_fraction")),
			   100e6 / 125e6, 1e-9);
	v = json_object_object_get(doc, "device_capability");
	assert_non_null(v);
	assert_null(json_object_object_get(v, "rand_write_iops")); /* not measured */
	assert_float_equal(json_object_get_double(json_object_object_get(
				   json_object_object_get(v, "spread"), "seq_read_Bps")),
			   0.5, 1e-12);
	assert_int_equal(json_object_array_length(json_object_object_get(
				 json_object_object_get(v, "rounds"), "seq_read_Bps")),
			 3);
	assert_null(json_object_object_get(json_object_object_get(v, "rounds"),
					   "rand_read_iops")); /* the figure alone */
	assert_int_equal(fsb_json_to_result(doc, &back, why, sizeof(why)), 0);
	assert_int_equal(back.devcap.nrounds[FSB_DEVCAP_SEQ_READ], 3);
	assert_float_equal(back.devcap.rounds[FSB_DEVCAP_SEQ_READ][1], 300e6, 1e-3);
	assert_int_equal(back.devcap.nrounds[FSB_DEVCAP_RAND_READ], 0);
	assert_float_equal(fsb_devcap_spread(&back.devcap, FSB_DEVCAP_SEQ_READ, NULL, NULL), 0.5,
			   1e-9);
	assert_string_equal(back.devcap.data_from, "the whole device");
	assert_int_equal(back.devcap.data_bytes, 1ull << 30);
	assert_int_equal(back.devcap.data_ranges, 1);
	assert_int_equal(back.devcap.read_bytes, 123456789);
	assert_string_equal(back.devcap.short_reason, "too little");
	assert_true(back.has_caveats);
	assert_true(back.devcap.present);
	assert_float_equal(back.devcap.seq_write_Bps, 125e6, 1e-3);
	assert_float_equal(back.devcap.rand_write_iops, 0, 0);
	assert_int_equal(back.devcap.rand_depth, 32);
	assert_string_equal(back.devcap.engine, "psync");
	assert_string_equal(back.host.virtualization, "kvm");
	assert_true(back.host.has_balloon && back.host.balloon_free_page_reporting);
	assert_string_equal(back.setup.ram_backed, "tmpfs");
	json_object_put(doc);
	fsb_result_release(&back);

	/* A figure outside its own rounds is refused, naming it. */
	r.devcap.seq_read_Bps = 600e6;
	assert_non_null(doc = fsb_json_from_result(&r));
	assert_int_equal(fsb_json_to_result(doc, &back, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "device_capability.seq_read_Bps is outside its rounds");
	json_object_put(doc);
	fsb_result_release(&back);
	r.devcap.seq_read_Bps = 400e6;

	/* An older document: no caveats key, none derived. */
	r.has_caveats = false;
	assert_non_null(doc = fsb_json_from_result(&r));
	assert_false(json_object_object_get_ex(doc, "caveats", NULL));
	assert_int_equal(fsb_json_to_result(doc, &back, why, sizeof(why)), 0);
	assert_false(back.has_caveats);
	json_object_put(doc);
	fsb_result_release(&back);
	fsb_result_release(&r);
}

/* A buffered loop device (dio 0): the figures and the device capability
 * may be the host's page cache; with --cache direct, O_DIRECT stops at
 * it. Not for one with direct I/O, nor where the storage is memory
 * already (ram-backed says more). */
static void loop_doc(struct fsb_result *r, bool dio)
{
	struct fsb_test_result *t;

	doc_init(r);
	t = add(r, "read", "B/s", steady, 3);
	t->has_loop_resident = true;
	t->loop_resident = 0.97;
	assert_int_equal(fsb_strset(&r->setup.loop_device, "loop3"), 0);
	assert_int_equal(fsb_strset(&r->setup.loop_backing, "/srv/img"), 0);
	r->setup.loop_dio = dio;
	r->setup.has_loop_resident = true;
	r->setup.loop_resident = 0.25;
	r->devcap.present = true;
	r->devcap.seq_read_Bps = 5e9;
	r->devcap.rand_read_iops = 440e3;
}

static void test_loop_buffered(void **state)
{
	const struct fsb_caveat *c;
	struct fsb_result r;

	(void)state;
	loop_doc(&r, false);
	assert_non_null(c = has(&r, "loop-buffered", NULL));
	assert_non_null(strstr(c->text, "loop3 is a loop device without direct I/O"));
	assert_non_null(strstr(c->text, "the test figures and the device capability "
					"(\"device itself\") may come from the host's page cache"));
	assert_string_equal(c->evidence, "setup.loop: loop3 dio 0, backing file /srv/img, 25% "
					 "resident before the tests, up to 97% after");
	assert_null(has(&r, "loop-direct", NULL)); /* cache drop */
	assert_int_equal(fsb_result_param_str(&r, "cache", "direct"), 0);
	assert_non_null(c = has(&r, "loop-direct", NULL));
	assert_non_null(strstr(c->text, "O_DIRECT stops at the loop device loop3"));
	/* No device capability measured: only the figures are named. */
	r.devcap.present = false;
	assert_non_null(c = has(&r, "loop-buffered", NULL));
	assert_null(strstr(c->text, "device itself"));
	/* Only one share known. */
	r.setup.has_loop_resident = false;
	assert_non_null(c = has(&r, "loop-buffered", NULL));
	assert_non_null(strstr(c->evidence, "/srv/img, 97% resident after the tests"));
	/* The storage is memory: that caveat says more. */
	assert_int_equal(fsb_strset(&r.setup.ram_backed, "loop3 over a file on tmpfs"), 0);
	assert_null(has(&r, "loop-buffered", NULL));
	assert_null(has(&r, "loop-direct", NULL));
	fsb_result_release(&r);

	loop_doc(&r, true);
	assert_int_equal(fsb_result_param_str(&r, "cache", "direct"), 0);
	assert_null(has(&r, "loop-buffered", NULL));
	assert_null(has(&r, "loop-direct", NULL));
	fsb_result_release(&r);
}

/* The text view does not claim the page cache was bypassed. */
static void test_loop_text_view(void **state)
{
	struct fsb_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	loop_doc(&r, false);
	assert_int_equal(fsb_result_param_str(&r, "cache", "direct"), 0);
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(fsb_write_text(f, &r), 0);
	fclose(f);
	assert_null(strstr(buf, "page cache bypassed"));
	assert_non_null(strstr(buf, "Cache mode direct (O_DIRECT, which stops at the buffered "
				    "loop device loop3:\n"));
	assert_non_null(strstr(buf, "Loop backing file in the page cache after each test: read "
				    "97.0%.\n"));
	free(buf);
	buf = NULL;
	r.setup.loop_dio = true;
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(fsb_write_text(f, &r), 0);
	fclose(f);
	assert_non_null(strstr(buf, "O_DIRECT, page cache bypassed"));
	free(buf);
	fsb_result_release(&r);
}

/* setup.loop and a test's loop_backing_resident read back; a share out
 * of 0..1 and a loop without dio are refused, naming the field. */
static void test_loop_json(void **state)
{
	struct fsb_result r, back;
	struct json_object *doc, *lo;
	char why[256];

	(void)state;
	loop_doc(&r, false);
	assert_non_null(doc = fsb_json_from_result(&r));
	lo = json_object_object_get(json_object_object_get(doc, "setup"), "loop");
	assert_non_null(lo);
	assert_false(json_object_get_boolean(json_object_object_get(lo, "dio")));
	assert_int_equal(fsb_json_to_result(doc, &back, why, sizeof(why)), 0);
	assert_string_equal(back.setup.loop_device, "loop3");
	assert_string_equal(back.setup.loop_backing, "/srv/img");
	assert_false(back.setup.loop_dio);
	assert_true(back.setup.has_loop_resident);
	assert_float_equal(back.setup.loop_resident, 0.25, 1e-9);
	assert_true(back.tests[0].has_loop_resident);
	assert_float_equal(back.tests[0].loop_resident, 0.97, 1e-9);
	assert_non_null(has(&back, "loop-buffered", NULL));
	fsb_result_release(&back);
	json_object_object_add(lo, "backing_resident", json_object_new_double(1.5));
	assert_int_not_equal(fsb_json_to_result(doc, &back, why, sizeof(why)), 0);
	assert_string_equal(why, "setup.loop.backing_resident is not a share from 0 to 1");
	json_object_object_del(lo, "backing_resident");
	json_object_object_del(lo, "dio");
	assert_int_not_equal(fsb_json_to_result(doc, &back, why, sizeof(why)), 0);
	assert_string_equal(why, "setup.loop.dio is missing");
	json_object_put(doc);
	fsb_result_release(&r);
}

/* ---- environment probes on fake trees ------------------------------------------ */

static void put_file(const char *root, const char *rel, const char *text)
{
	char path[4096], cmd[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static void rm_tree(const char *root)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void test_env_virt(void **state)
{
	char root[] = "/tmp/fsb-env-XXXXXX", out[64];

	(void)state;
	assert_non_null(mkdtemp(root));
	fsb_env_virt(root, NULL, out, sizeof(out));
	assert_string_equal(out, "none");
	put_file(root, "proc/cpuinfo",
		 "processor\t: 0\nflags\t\t: fpu vme sse2 hypervisor lahf_lm\n");
	fsb_env_virt(root, NULL, out, sizeof(out));
	assert_string_equal(out, "vm");
	put_file(root, "sys/class/dmi/id/sys_vendor", "QEMU\n");
	fsb_env_virt(root, NULL, out, sizeof(out));
	assert_string_equal(out, "qemu");
	/* CPUID says what runs it: KVM under a QEMU machine model. */
	fsb_env_virt(root, "KVMKVMKVM", out, sizeof(out));
	assert_string_equal(out, "kvm");
	fsb_env_virt(root, "TCGTCGTCGTCG", out, sizeof(out));
	assert_string_equal(out, "qemu");
	put_file(root, "sys/class/dmi/id/sys_vendor", "Microsoft Corporation\n");
	put_file(root, "sys/class/dmi/id/product_name", "Virtual Machine\n");
	fsb_env_virt(root, NULL, out, sizeof(out));
	assert_string_equal(out, "microsoft");
	put_file(root, "sys/class/dmi/id/sys_vendor", "Dell Inc.\n");
	put_file(root, "sys/class/dmi/id/product_name", "PowerEdge R740\n");
	put_file(root, "proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme sse2\n");
	fsb_env_virt(root, NULL, out, sizeof(out));
	assert_string_equal(out, "none");
	rm_tree(root);
}

static void test_env_balloon(void **state)
{
	char root[] = "/tmp/fsb-env-XXXXXX", out[128];
	bool has, rep;

	(void)state;
	assert_non_null(mkdtemp(root));
	fsb_env_balloon(root, &has, &rep);
	assert_false(has);
	assert_false(rep);
	put_file(root, "sys/bus/virtio/drivers/virtio_balloon/bind", "");
	fsb_env_balloon(root, &has, &rep);
	assert_false(has);
	/* Bits 1 and 2 (stats, deflate on OOM), not 5. */
	put_file(root, "sys/bus/virtio/drivers/virtio_balloon/virtio0/features",
		 "0110000000000000000000000000000010000000\n");
	fsb_env_balloon(root, &has, &rep);
	assert_true(has);
	assert_false(rep);
	/* Free page reporting: bit 5 (as on this machine). */
	put_file(root, "sys/bus/virtio/drivers/virtio_balloon/virtio0/features",
		 "0110010100000000000000000000000010000000\n");
	fsb_env_balloon(root, &has, &rep);
	assert_true(has);
	assert_true(rep);

	/* RAM-backed storage, by type and by device. */
	assert_true(fsb_env_ram_backed(root, "tmpfs", NULL, out, sizeof(out)));
	assert_string_equal(out, "tmpfs");
	assert_true(fsb_env_ram_backed(root, "ext4", "zram0", out, sizeof(out)));
	assert_string_equal(out, "zram0 (zram)");
	assert_true(fsb_env_ram_backed(root, "ext4", "ram1", out, sizeof(out)));
	assert_string_equal(out, "ram1 (brd)");
	assert_false(fsb_env_ram_backed(root, "ext4", "sda1", out, sizeof(out)));
	assert_false(fsb_env_ram_backed(root, "ext4", "loop9", out, sizeof(out)));
	assert_false(fsb_env_ram_backed(root, "xfs", NULL, out, sizeof(out)));
	rm_tree(root);
}

/* A loop device, a partition of one, with and without direct I/O. */
static void test_env_loop(void **state)
{
	char root[] = "/tmp/fsb-env-XXXXXX", name[40], back[256];
	bool dio = true;

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_false(fsb_env_loop(root, "loop3", name, sizeof(name), back, sizeof(back), &dio));
	assert_false(dio);
	put_file(root, "sys/block/loop3/loop/backing_file", "/srv/disk image.img\n");
	put_file(root, "sys/block/loop3/loop/dio", "0\n");
	assert_true(fsb_env_loop(root, "loop3", name, sizeof(name), back, sizeof(back), &dio));
	assert_string_equal(name, "loop3");
	assert_string_equal(back, "/srv/disk image.img");
	assert_false(dio);
	assert_true(fsb_env_loop(root, "loop3p12", name, sizeof(name), back, sizeof(back), &dio));
	assert_string_equal(name, "loop3");
	put_file(root, "sys/block/loop3/loop/dio", "1\n");
	assert_true(fsb_env_loop(root, "loop3", name, sizeof(name), back, sizeof(back), &dio));
	assert_true(dio);
	assert_false(fsb_env_loop(root, "loop3x", name, sizeof(name), back, sizeof(back), &dio));
	assert_false(fsb_env_loop(root, "loop3p", name, sizeof(name), back, sizeof(back), &dio));
	assert_false(fsb_env_loop(root, "sda", name, sizeof(name), back, sizeof(back), &dio));
	assert_false(fsb_env_loop(root, NULL, name, sizeof(name), back, sizeof(back), &dio));
	rm_tree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quiet_document),
		cmocka_unit_test(test_ram),
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_noise_and_drift),
		cmocka_unit_test(test_short_space),
		cmocka_unit_test(test_passes),
		cmocka_unit_test(test_compression),
		cmocka_unit_test(test_other_io),
		cmocka_unit_test(test_device_fraction),
		cmocka_unit_test(test_above_device),
		cmocka_unit_test(test_above_weak_device),
		cmocka_unit_test(test_device_spread),
		cmocka_unit_test(test_text_view),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_env_virt),
		cmocka_unit_test(test_env_balloon),
		cmocka_unit_test(test_counters_off_forms),
		cmocka_unit_test(test_same_is_the_claim),
		cmocka_unit_test(test_cold_cache),
		cmocka_unit_test(test_loop_buffered),
		cmocka_unit_test(test_loop_text_view),
		cmocka_unit_test(test_loop_json),
		cmocka_unit_test(test_env_loop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
