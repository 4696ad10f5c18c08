/*
 * The "bonnie" view: the table of the bonnie 1.2 ext2/ext3/reiserfs report
 * (docs/references.md), one row per setup, K/sec and %CPU per test. The
 * header and row functions are separate so the matrix view prints all its
 * setups under one header (with a label column as wide as its labels).
 */
#include "report/caveats.h"
#include "report/writer.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The label column: 11 wide, as in the reference, unless a caller widens it. */
#define LABEL_WIDTH 11
#define SEPARATOR_TAIL "|------------------------------------------------------------------------\n"

/* Default seeker count when the result does not say (fsbench's default). */
#define DEFAULT_SEEKERS 3
#define DEFAULT_CHUNK 8192

static const char *const io_ids[] = { "putc", "write", "rewrite", "getc", "read" };

/*
 * A K/sec cell, 5 wide. Devices of today overflow 99999 K/sec; rather than
 * push the rest of the row right, such a value keeps the width and names
 * its unit ("1907M" = 1907 MiB/s, "12.5G").
 */
static void kps_cell(char *buf, size_t len, double bps)
{
	double k = isfinite(bps) && bps > 0 ? floor(bps / 1024 + 0.5) : 0;

	if (k < 100000)
		snprintf(buf, len, "%5.0f", k);
	else if (k / 1024 < 9999.5)
		snprintf(buf, len, "%4.0fM", k / 1024);
	else if (k / (1024 * 1024) < 99.95)
		snprintf(buf, len, "%4.1fG", k / (1024 * 1024));
	else
		snprintf(buf, len, "%4.0fG", k / (1024 * 1024));
}

/* A %CPU cell, 4 wide: one decimal as bonnie 1.2, whole above 99.9. */
static void cpu_cell(char *buf, size_t len, double pct)
{
	if (!isfinite(pct) || pct < 0)
		pct = 0;
	if (pct < 99.95)
		snprintf(buf, len, "%4.1f", pct);
	else
		snprintf(buf, len, "%4.0f", pct);
}

/* A seeks /sec cell, 6 wide. */
static void seek_cell(char *buf, size_t len, double ops)
{
	if (!isfinite(ops) || ops < 0)
		ops = 0;
	if (ops < 9999.95)
		snprintf(buf, len, "%6.1f", ops);
	else if (ops < 999999.5)
		snprintf(buf, len, "%6.0f", ops);
	else
		snprintf(buf, len, "%5.0fk", ops / 1000);
}

/* The chunk size for the seek column header: "04k", "01m", "512b". */
static void chunk_label(char *buf, size_t len, uint64_t bytes)
{
	if (bytes && bytes % (1024 * 1024) == 0)
		snprintf(buf, len, "%02llum", (unsigned long long)(bytes >> 20));
	else if (bytes && bytes % 1024 == 0)
		snprintf(buf, len, "%02lluk", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, len, "%llub", (unsigned long long)bytes);
}

/* w characters of c. */
static void run_of(FILE *out, int c, size_t w)
{
	while (w--)
		fputc(c, out);
}

int fsb_bonnie_header(FILE *out, const struct fsb_result *first)
{
	return fsb_bonnie_header_w(out, first, LABEL_WIDTH);
}

int fsb_bonnie_header_w(FILE *out, const struct fsb_result *first, size_t label_width)
{
	uint64_t chunk = fsb_result_get_u64(first, "chunk_bytes", DEFAULT_CHUNK);
	uint64_t seekers = fsb_result_get_u64(first, "seekers", DEFAULT_SEEKERS);
	char size[24], inner[48], cell[64];
	size_t n, left, right;

	/* "--04k (03)-": chunk and seekers framed by dashes to 11 columns. */
	chunk_label(size, sizeof(size), chunk);
	snprintf(inner, sizeof(inner), "%s (%02llu)", size, (unsigned long long)seekers);
	n = strlen(inner);
	left = n + 2 <= 11 ? 2 : (n < 11 ? 11 - n : 0);
	right = n + left < 11 ? 11 - n - left : 0;
	snprintf(cell, sizeof(cell), "%.*s%s%.*s", (int)left, "--", inner, (int)right,
		 "-----------");

	if (label_width < LABEL_WIDTH)
		label_width = LABEL_WIDTH;
	run_of(out, ' ', label_width);
	fputs("| ---Sequential Output (nosync)---   ---Sequential Input--   --Rnd Seek-\n", out);
	run_of(out, ' ', label_width);
	fprintf(out, "| -Per Char- --Block--- -Rewrite--   -Per Char- --Block---   %s\n", cell);
	fprintf(out,
		"%-*s| K/sec %%CPU K/sec %%CPU K/sec %%CPU   K/sec %%CPU K/sec %%CPU     "
		"/sec %%CPU\n",
		(int)label_width, "Filesystem ");
	run_of(out, '-', label_width);
	fputs(SEPARATOR_TAIL, out);
	return ferror(out) ? -EIO : 0;
}

static void io_cell(FILE *out, const struct fsb_result *r, const char *id)
{
	const struct fsb_test_result *t = fsb_writer_test(r, id, "B/s");
	char k[32], cpu[32];

	if (!t) {
		/* A test that did not run is blank, not zero. */
		fputs("           ", out);
		return;
	}
	kps_cell(k, sizeof(k), t->median);
	cpu_cell(cpu, sizeof(cpu), t->cpu_pct);
	fprintf(out, " %s %s", k, cpu);
}

int fsb_bonnie_row(FILE *out, const struct fsb_result *r)
{
	return fsb_bonnie_row_w(out, r, LABEL_WIDTH);
}

int fsb_bonnie_row_w(FILE *out, const struct fsb_result *r, size_t label_width)
{
	const struct fsb_test_result *t;
	char v[32], cpu[32];
	int err = fsb_writer_need_run(r, "bonnie");

	if (err)
		return err;
	/* A long label widens its row rather than losing what tells rows apart. */
	if (label_width < LABEL_WIDTH)
		label_width = LABEL_WIDTH;
	fsb_text_pad(out, fsb_writer_label(r), -(int)label_width);
	fputc('|', out);
	for (int i = 0; i < 3; i++)
		io_cell(out, r, io_ids[i]);
	fputs("  ", out);
	for (int i = 3; i < 5; i++)
		io_cell(out, r, io_ids[i]);
	fputs("  ", out);
	t = fsb_writer_test(r, "seeks", "ops/s");
	if (t) {
		seek_cell(v, sizeof(v), t->median);
		cpu_cell(cpu, sizeof(cpu), t->cpu_pct);
		fprintf(out, " %s %s", v, cpu);
	} else {
		fputs("            ", out);
	}
	fputc('\n', out);
	run_of(out, '-', label_width);
	fputs(SEPARATOR_TAIL, out);
	return ferror(out) ? -EIO : 0;
}

int fsb_write_bonnie(FILE *out, const struct fsb_result *r)
{
	int err = fsb_writer_need_run(r, "bonnie");

	if (err)
		return err;
	if ((err = fsb_bonnie_header(out, r)) || (err = fsb_bonnie_row(out, r)) ||
	    (err = fsb_writer_method_note(out, r)))
		return err;
	fsb_text_print_devcap(out, r);
	return fsb_caveats_print(out, r, "");
}
