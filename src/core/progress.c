/*
 * Progress on stderr: one printer, so that the terminal's '\r' line, the
 * matrix's step lines and the JSON events never interleave badly, and so
 * the estimate of the time left is made in one place. The line is
 * written outside any signal handler (the runner calls fsb_prog_tick when
 * the SIGALRM tick it polls is due).
 */
#include "core/progress.h"
#include "report/json.h"
#include "util/error.h"
#include "util/text.h"
#include "util/units.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void fsb_prog_init(struct fsb_prog *pr, enum fsb_progress mode, bool quiet, const char *prefix,
		   size_t ntests, unsigned repeat, double min_time_s, uint64_t now_ns)
{
	memset(pr, 0, sizeof(*pr));
	pr->out = stderr;
	pr->json = mode == FSB_PROGRESS_JSON;
	pr->on = !quiet && fsb_progress_enabled(mode);
	pr->prefix = prefix;
	pr->ntests = ntests;
	pr->guess_s = (double)(repeat + FSB_PROG_CALIB_RUNS) * (min_time_s > 0 ? min_time_s : 0);
	pr->start_ns = now_ns;
	pr->pct = -1;
}

static double secs(uint64_t from, uint64_t to)
{
	return to > from ? (double)(to - from) / 1e9 : 0;
}

double fsb_prog_eta_s(const struct fsb_prog *pr, uint64_t now_ns)
{
	/* A test's expected time: the mean of those done, else the guess. */
	double per = pr->ndone ? secs(0, pr->done_ns) / (double)pr->ndone : pr->guess_s;
	size_t left = pr->ntests > pr->ndone ? pr->ntests - pr->ndone : 0;
	double eta, cur = 0;

	if (pr->test && left) {
		double in = secs(pr->test_start_ns, now_ns);

		left--;
		if (pr->pct >= FSB_PROG_PACE_PCT && pr->run_s > 0 && pr->runs >= pr->run) {
			/* This run's pace: its whole length, then the runs after it
			 * (not before a few percent: a run's first I/O says little). */
			double whole = pr->run_s * 100.0 / fmin(pr->pct, 100.0);

			cur = whole - pr->run_s + whole * (double)(pr->runs - pr->run);
		} else {
			cur = per > in ? per - in : 0;
		}
	}
	eta = cur + per * (double)left;
	return isfinite(eta) && eta > 0 ? eta : 0;
}

char *fsb_prog_duration(double s, char *buf, size_t len)
{
	unsigned long long t = isfinite(s) && s > 0 ? (unsigned long long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%lluh%02llum", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, len, "%llum%02llus", t / 60, t % 60);
	else
		snprintf(buf, len, "%llus", t);
	return buf;
}

/* ---- JSON lines ---------------------------------------------------------- */

/* NULL v is JSON null ("unknown"). */
static void put(struct json_object *o, const char *key, struct json_object *v)
{
	/* A lost key in a progress line is no reason to stop a benchmark. */
	if (json_object_object_add(o, key, v))
		json_object_put(v);
}

static struct json_object *event(const struct fsb_prog *pr, const char *name)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	put(o, "event", json_object_new_string(name));
	if (pr->prefix && pr->prefix[0])
		put(o, "prefix", json_object_new_string(pr->prefix));
	return o;
}

/* Three decimals are plenty, and spare readers json-c's 17 digits. */
static struct json_object *real(double v)
{
	char buf[64];

	if (!isfinite(v))
		v = 0;
	snprintf(buf, sizeof(buf), "%.3f", v);
	return json_object_new_double_s(v, buf);
}

static void emit(struct fsb_prog *pr, struct json_object *o)
{
	const char *s;

	if (!o)
		return;
	/* A test name or a setup label may hold any bytes (report/json.h). */
	s = fsb_json_utf8(o) ? NULL
			     : json_object_to_json_string_ext(
				       o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (s) {
		fputs(s, pr->out);
		fputc('\n', pr->out);
		fflush(pr->out);
	}
	json_object_put(o);
}

/* ---- the terminal line ---------------------------------------------------- */

static void clear_line(struct fsb_prog *pr)
{
	if (!pr->line)
		return;
	fputs("\r\033[K", pr->out);
	fflush(pr->out);
	pr->line = false;
	fsb_err_set_open_line(NULL, NULL);
}

/* Before a warning or an error: the line erased, the message on its own
 * line at column 0; the next tick draws the line again below it. */
static void end_line(void *pr)
{
	clear_line(pr);
}

void fsb_prog_test_start(struct fsb_prog *pr, const char *test, uint64_t now_ns)
{
	struct json_object *o;

	if (!pr)
		return;
	pr->test = test;
	pr->test_start_ns = now_ns;
	pr->run = pr->runs = 0;
	pr->pct = -1;
	pr->run_s = 0;
	pr->last_json_ns = 0;
	if (!pr->on || !pr->json)
		return;
	o = event(pr, "test-start");
	if (o) {
		put(o, "test", json_object_new_string(test));
		put(o, "index", json_object_new_uint64(pr->ndone + 1));
		put(o, "tests", json_object_new_uint64(pr->ntests));
	}
	emit(pr, o);
}

void fsb_prog_tick(struct fsb_prog *pr, unsigned run, unsigned runs, double pct, double rate,
		   const char *unit, double run_s, uint64_t now_ns)
{
	char prefix[160], test[64], eta[32], r[32] = "";
	double left;
	struct json_object *o;

	if (!pr)
		return;
	pr->run = run;
	pr->runs = runs;
	pr->pct = pct;
	pr->run_s = run_s;
	if (!pr->on || !pr->test)
		return;
	left = fsb_prog_eta_s(pr, now_ns);
	if (pr->json) {
		/* Wrappers want news, not a flood: once a second at most. */
		if (pr->last_json_ns && now_ns - pr->last_json_ns < 1000000000ull)
			return;
		pr->last_json_ns = now_ns;
		o = event(pr, "progress");
		if (o) {
			put(o, "test", json_object_new_string(pr->test));
			put(o, "run", json_object_new_uint64(run));
			put(o, "runs", json_object_new_uint64(runs));
			put(o, "pct", pct >= 0 ? real(fmin(pct, 100)) : NULL);
			put(o, "rate", rate >= 0 ? real(rate) : NULL);
			put(o, "unit", unit ? json_object_new_string(unit) : NULL);
			put(o, "elapsed_s", real(run_s));
			put(o, "eta_s", real(left));
		}
		emit(pr, o);
		return;
	}
	/* The prefix may name a setup from a file: no control bytes. */
	fsb_text_safe(pr->prefix, 40, prefix, sizeof(prefix));
	fsb_text_safe(pr->test, 20, test, sizeof(test));
	if (rate >= 0 && unit)
		fsb_unit_format(unit, rate, r, sizeof(r));
	fsb_prog_duration(left, eta, sizeof(eta));
	if (pct >= 0)
		fprintf(pr->out, "\r\033[K%s%-12s run %u/%u %3.0f%%  %s  test %zu/%zu, ETA %s",
			prefix, test, run, runs, fmin(pct, 100), r, pr->ndone + 1, pr->ntests, eta);
	else
		fprintf(pr->out, "\r\033[K%s%-12s run %u/%u  %.1f s  test %zu/%zu, ETA %s", prefix,
			test, run, runs, run_s, pr->ndone + 1, pr->ntests, eta);
	fflush(pr->out);
	pr->line = true;
	fsb_err_set_open_line(end_line, pr);
}

void fsb_prog_test_end(struct fsb_prog *pr, int err, uint64_t now_ns)
{
	struct json_object *o;
	const char *test;

	if (!pr || !pr->test)
		return;
	test = pr->test;
	/* No current test from here on: the estimate is of the tests left. */
	pr->test = NULL;
	if (!err) {
		pr->ndone++;
		pr->done_ns += now_ns > pr->test_start_ns ? now_ns - pr->test_start_ns : 0;
	}
	if (pr->on && pr->json) {
		o = event(pr, "test-end");
		if (o) {
			put(o, "test", json_object_new_string(test));
			put(o, "ok", json_object_new_boolean(!err));
			put(o, "elapsed_s", real(secs(pr->test_start_ns, now_ns)));
			put(o, "eta_s", real(fsb_prog_eta_s(pr, now_ns)));
		}
		emit(pr, o);
	} else if (pr->on) {
		clear_line(pr);
	}
}

void fsb_prog_done(struct fsb_prog *pr, int err, uint64_t now_ns)
{
	struct json_object *o;

	if (!pr || !pr->on)
		return;
	if (!pr->json) {
		clear_line(pr);
		return;
	}
	o = event(pr, "done");
	if (o) {
		put(o, "ok", json_object_new_boolean(!err));
		put(o, "tests", json_object_new_uint64(pr->ndone));
		put(o, "elapsed_s", real(secs(pr->start_ns, now_ns)));
	}
	emit(pr, o);
}

void fsb_prog_note(struct fsb_prog *pr, const char *setup, const char *text)
{
	struct json_object *o;

	if (!pr || !pr->on)
		return;
	if (!pr->json) {
		clear_line(pr);
		fprintf(pr->out, "%s\n", text);
		fflush(pr->out);
		return;
	}
	o = event(pr, "step");
	if (o) {
		if (setup)
			put(o, "setup", json_object_new_string(setup));
		put(o, "text", json_object_new_string(text));
	}
	emit(pr, o);
}
