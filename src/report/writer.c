#include "report/writer.h"
#include "util/error.h"
#include "util/io.h"
#include "util/modes.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int fsb_output(struct fsb_output *o, const char *ext, int (*render)(FILE *out, const void *ctx),
	       const void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int err;

	/* Render fully before touching the target: no half-written reports,
	 * and a refusal (-EINVAL) writes nothing at all. */
	mem = open_memstream(&buf, &len);
	if (!mem) {
		err = -errno;
		fsb_err_errno(err, "cannot render the report");
		return err;
	}
	err = render(mem, ctx);
	if (ferror(mem) && !err)
		err = -EIO;
	if (fclose(mem) == EOF && !err)
		err = errno ? -errno : -EIO;
	if (err && err != -EINVAL)
		fsb_err_errno(err, "cannot render the report");
	if (!err) {
		if (ext)
			o->ext = ext;
		err = fsb_output_commit(o, buf, len);
	}
	free(buf);
	return err;
}

bool fsb_csv_formula(const char *s)
{
	return s && *s && strchr("=+-@", *s);
}

const char *fsb_writer_label(const struct fsb_result *r)
{
	return r->setup.label && r->setup.label[0] ? r->setup.label : "fsbench";
}

const struct fsb_test_result *fsb_writer_test(const struct fsb_result *r, const char *id,
					      const char *unit)
{
	const struct fsb_test_result *t = fsb_result_find(r, id);

	if (!t || !t->unit || strcmp(t->unit, unit))
		return NULL;
	return t;
}

char *fsb_writer_bonnie_latency(double us, char *buf, size_t len)
{
	/* bonnie++ truncates, so "467ms" means at least 467 ms. */
	if (!isfinite(us) || us < 0)
		us = 0;
	if (us > 99999999.0)
		snprintf(buf, len, "%.0fs", floor(us / 1e6));
	else if (us > 99999.0)
		snprintf(buf, len, "%.0fms", floor(us / 1e3));
	else
		snprintf(buf, len, "%.0fus", floor(us));
	return buf;
}

char *fsb_writer_bonnie_files(const struct fsb_result *r, char *buf, size_t len)
{
	const struct fsb_param *p = fsb_result_param(r, "files");

	if (!p || p->type != FSB_PARAM_U64)
		snprintf(buf, len, "%s", "");
	else if (p->u % 1024 == 0)
		snprintf(buf, len, "%llu", (unsigned long long)(p->u / 1024));
	else
		/* bonnie++ counts in units of 1024; say so rather than round. */
		snprintf(buf, len, "%.2f", (double)p->u / 1024);
	return buf;
}

int fsb_writer_need_run(const struct fsb_result *r, const char *view)
{
	if (r->kind && !strcmp(r->kind, "run"))
		return 0;
	fsb_err("cannot show a %s result in %s format: it has columns for run results only",
		r->kind ? r->kind : "(kindless)", view);
	return -EINVAL;
}

const char *fsb_writer_data_words(const char *data)
{
	static char buf[96];
	struct fsb_data d;

	if (fsb_data_parse(data, &d))
		return NULL;
	switch (d.kind) {
	case FSB_DATA_ZERO:
		return "all zeros (flatters compressing and deduplicating storage; a misplaced "
		       "chunk cannot be told)";
	case FSB_DATA_COMPRESSIBLE:
		snprintf(buf, sizeof(buf), "zstd or zlib shrink it by %u%%", d.pct);
		return buf;
	case FSB_DATA_DEDUPE:
		snprintf(buf, sizeof(buf), "%u%% of the chunks repeat an earlier chunk", d.pct);
		return buf;
	default:
		return "incompressible, no chunk repeats another";
	}
}

int fsb_writer_method_note(FILE *out, const struct fsb_result *r)
{
	const struct fsb_param *mt = fsb_result_param(r, "min_time_s");
	const char *sep = "; noisy (CV > 10%): ";

	unsigned long long n = (unsigned long long)fsb_result_get_u64(r, "repeat", 0);

	/* The cache mode and the ids come from the file: escaped. */
	fputs("# fsbench: cache ", out);
	fsb_text_put(out, fsb_result_get_str(r, "cache", "?"));
	/* Documents from before --data have no such parameter: all random. */
	if (fsb_result_get_str(r, "data", NULL)) {
		fputs(", data ", out);
		fsb_text_put(out, fsb_result_get_str(r, "data", NULL));
	}
	fputs(", ", out);
	if (!strcmp(fsb_result_get_str(r, "repeat", ""), "auto"))
		fprintf(out, "median of %d to %d runs (--repeat auto)", FSB_RESULT_AUTO_MIN_RUNS,
			FSB_RESULT_AUTO_MAX_RUNS);
	else if (n == 1)
		fputs("a single run", out);
	else
		fprintf(out, "median of %llu runs", n);
	if (mt && mt->type == FSB_PARAM_DOUBLE)
		fprintf(out, " of at least %g s each", mt->d);
	/* The figures of jobs are aggregates: say so, with how many. */
	if (fsb_result_jobs(r) > 1)
		fprintf(out,
			"; %u jobs, each figure their aggregate (all work / first start to "
			"last end)",
			fsb_result_jobs(r));
	for (size_t i = 0; i < r->ntests; i++) {
		if (!fsb_test_noisy(&r->tests[i]))
			continue;
		fputs(sep, out);
		fsb_text_put(out, r->tests[i].id);
		sep = ", ";
	}
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

const struct fsb_bonnie_col fsb_bonnie_io_cols[FSB_BONNIE_NCOLS] = {
	{ "putc", "B/s" }, { "write", "B/s" }, { "rewrite", "B/s" },
	{ "getc", "B/s" }, { "read", "B/s" },  { "seeks", "ops/s" },
};

const struct fsb_bonnie_col fsb_bonnie_file_cols[FSB_BONNIE_NCOLS] = {
	{ "seq-create", "ops/s" },  { "seq-stat", "ops/s" },  { "seq-delete", "ops/s" },
	{ "rand-create", "ops/s" }, { "rand-stat", "ops/s" }, { "rand-delete", "ops/s" },
};

bool fsb_bonnie_any(const struct fsb_result *r, const struct fsb_bonnie_col *cols)
{
	for (size_t i = 0; i < FSB_BONNIE_NCOLS; i++)
		if (fsb_writer_test(r, cols[i].id, cols[i].unit))
			return true;
	return false;
}
