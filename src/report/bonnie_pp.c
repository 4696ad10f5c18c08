/*
 * The "bonnie++" view: the text report of bonnie++ 2.00a (the bonnie++
 * reports in docs/references.md) followed by its CSV line. Columns are those of bon_csv2txt, bonnie++'s own
 * renderer of several rows, so a matrix prints its setups under one header.
 *
 * Differences from bonnie++, on purpose: every cell that ran has a number
 * (fsbench grows short tests instead of printing "+++++"), and the version
 * sits on its own line because "fsbench-0.1.0" does not fit the 19-column
 * name field that bonnie++ shares with its version.
 */
#include "report/caveats.h"
#include "report/writer.h"
#include "util/size.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

bool fsb_bonnie_pp_has_io(const struct fsb_result *r)
{
	return fsb_bonnie_any(r, fsb_bonnie_io_cols);
}

bool fsb_bonnie_pp_has_files(const struct fsb_result *r)
{
	return fsb_bonnie_any(r, fsb_bonnie_file_cols);
}

static double sane(double v)
{
	return isfinite(v) && v > 0 ? v : 0;
}

/*
 * Throughput as bon_csv2txt shows it in 5 columns: KiB/s below 10000,
 * then MiB/s ("85.7m", "120m"), then GiB/s ("1.9g").
 */
static void speed_cell(char *buf, size_t len, double bps)
{
	double k = floor(sane(bps) / 1024 + 0.5), m = k / 1024;

	if (k < 10000)
		snprintf(buf, len, "%4.0fk", k);
	else if (m < 100)
		snprintf(buf, len, "%4.1fm", m);
	else if (m < 1000)
		snprintf(buf, len, "%4.0fm", floor(m + 0.5));
	else
		snprintf(buf, len, "%4.1fg", m / 1024);
}

/* Operations per second in 5 columns; thousands beyond that ("1234k"). */
static void ops_cell(char *buf, size_t len, double ops, bool decimal)
{
	ops = sane(ops);
	if (decimal && ops < 1000)
		snprintf(buf, len, "%5.1f", ops); /* bonnie++ does so for seeks */
	else if (ops < 99999.5)
		snprintf(buf, len, "%5.0f", floor(ops + 0.5));
	else
		snprintf(buf, len, "%4.0fk", floor(ops / 1000 + 0.5));
}

static void print_cells(FILE *out, const struct fsb_result *r, const struct fsb_bonnie_col *cols)
{
	for (size_t i = 0; i < FSB_BONNIE_NCOLS; i++) {
		const struct fsb_test_result *t = fsb_writer_test(r, cols[i].id, cols[i].unit);
		char v[32];

		if (!t) {
			fputs("          ", out); /* " %5s %3s", blank */
			continue;
		}
		if (!strcmp(t->unit, "B/s"))
			speed_cell(v, sizeof(v), t->median);
		else
			ops_cell(v, sizeof(v), t->median, !strcmp(t->id, "seeks"));
		fprintf(out, " %5s %3.0f", v, floor(sane(t->cpu_pct) + 0.5));
	}
	fputc('\n', out);
}

/* The Latency row, only when some test of the block measured latency. */
static void print_latency(FILE *out, const struct fsb_result *r, const struct fsb_bonnie_col *cols)
{
	const struct fsb_test_result *t[FSB_BONNIE_NCOLS];
	bool any = false;

	for (size_t i = 0; i < FSB_BONNIE_NCOLS; i++) {
		t[i] = fsb_writer_test(r, cols[i].id, cols[i].unit);
		if (t[i] && !t[i]->has_latency)
			t[i] = NULL;
		any |= t[i] != NULL;
	}
	if (!any)
		return;
	fputs("Latency          ", out);
	for (size_t i = 0; i < FSB_BONNIE_NCOLS; i++) {
		char buf[32] = "";

		if (t[i])
			fsb_writer_bonnie_latency(t[i]->latency.max_us, buf, sizeof(buf));
		fprintf(out, " %9s", buf);
	}
	fputc('\n', out);
}

/*
 * The 19-column row title: the name cut to make room for what follows
 * ("tmpfs          256M"), as bon_csv2txt builds it.
 */
static void print_title(FILE *out, const char *name, const char *what)
{
	size_t n = strlen(what);
	char cut[18 * 4 + 1];

	if (n < 18) {
		/* Cut by characters, escapes whole: a label is anyone's text. */
		fsb_text_cut(name, 18 - n, cut, sizeof(cut));
		fsb_text_pad(out, cut, -(int)(18 - n));
		fprintf(out, " %s", what);
	} else {
		fprintf(out, "%19s", what);
	}
}

static void print_version(FILE *out, const struct fsb_result *r)
{
	fputs("Version  fsbench", out);
	if (r->version) {
		fputc('-', out);
		fsb_text_put(out, r->version);
	}
	fputc('\n', out);
}

int fsb_bonnie_pp_io_header(FILE *out, const struct fsb_result *first)
{
	const char *mode = fsb_result_get_str(first, "char_io", NULL);
	/* The Per Chr columns name their call: stdio's putc/getc and one-byte
	 * write(2)/read(2) (bonnie++ 2.00a's) are different work. */
	const char *put = "-Per Chr-", *get = "-Per Chr-";

	if (mode && !strcmp(mode, "stdio")) {
		put = "-Chr putc";
		get = "-Chr getc";
	} else if (mode && !strcmp(mode, "syscall")) {
		put = "Chr write";
		get = "-Chr read";
	}
	print_version(out, first);
	fprintf(out,
		"                    ------Sequential Output------ --Sequential Input- --Random-\n"
		"                    %s --Block-- -Rewrite- %s --Block-- --Seeks--\n"
		"Name:Size etc        /sec %%CP  /sec %%CP  /sec %%CP  /sec %%CP  /sec %%CP  /sec "
		"%%CP\n",
		put, get);
	return ferror(out) ? -EIO : 0;
}

int fsb_bonnie_pp_io_row(FILE *out, const struct fsb_result *r)
{
	const struct fsb_param *p;
	char size[48] = "", chunk[24];
	size_t n;
	int err = fsb_writer_need_run(r, "bonnie++");

	if (err)
		return err;
	if (!fsb_bonnie_pp_has_io(r))
		return 0;
	if ((p = fsb_result_param(r, "size_bytes")) && p->type == FSB_PARAM_U64)
		fsb_size_format_exact(p->u, size, sizeof(size));
	/* bonnie++ shows a chunk other than its default after the size: "16M:4k". */
	p = fsb_result_param(r, "chunk_bytes");
	if (p && p->type == FSB_PARAM_U64 && p->u != FSB_BONNIE_CHUNK) {
		fsb_size_format_exact(p->u, chunk, sizeof(chunk));
		n = strlen(chunk);
		if (n && chunk[n - 1] >= 'A' && chunk[n - 1] <= 'Z')
			chunk[n - 1] = (char)(chunk[n - 1] - 'A' + 'a');
		n = strlen(size);
		snprintf(size + n, sizeof(size) - n, ":%s", chunk);
	}
	print_title(out, fsb_writer_label(r), size);
	print_cells(out, r, fsb_bonnie_io_cols);
	print_latency(out, r, fsb_bonnie_io_cols);
	return ferror(out) ? -EIO : 0;
}

int fsb_bonnie_pp_file_header(FILE *out, const struct fsb_result *first)
{
	print_version(out, first);
	fputs("                    ------Sequential Create------ --------Random Create--------\n"
	      "                    -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n"
	      "Name:Files etc       /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n",
	      out);
	return ferror(out) ? -EIO : 0;
}

int fsb_bonnie_pp_file_row(FILE *out, const struct fsb_result *r)
{
	const char *links = fsb_result_get_str(r, "links", "none");
	uint64_t max = fsb_result_get_u64(r, "file_max_bytes", 0);
	uint64_t min = fsb_result_get_u64(r, "file_min_bytes", 0);
	uint64_t dirs = fsb_result_get_u64(r, "file_dirs", 0);
	char what[128];
	size_t n;
	int err = fsb_writer_need_run(r, "bonnie++");

	if (err)
		return err;
	if (!fsb_bonnie_pp_has_files(r))
		return 0;
	/* bonnie++'s spelling of the -n argument: files[:max[:min]][/dirs]. */
	fsb_writer_bonnie_files(r, what, sizeof(what));
	n = strlen(what);
	if (!strcmp(links, "hard"))
		snprintf(what + n, sizeof(what) - n, ":link");
	else if (!strcmp(links, "soft"))
		snprintf(what + n, sizeof(what) - n, ":symlink");
	else if (max && min)
		snprintf(what + n, sizeof(what) - n, ":%llu:%llu", (unsigned long long)max,
			 (unsigned long long)min);
	else if (max)
		snprintf(what + n, sizeof(what) - n, ":%llu", (unsigned long long)max);
	n = strlen(what);
	if (dirs > 1)
		snprintf(what + n, sizeof(what) - n, "/%llu", (unsigned long long)dirs);
	print_title(out, fsb_writer_label(r), what);
	print_cells(out, r, fsb_bonnie_file_cols);
	print_latency(out, r, fsb_bonnie_file_cols);
	return ferror(out) ? -EIO : 0;
}

int fsb_write_bonnie_pp(FILE *out, const struct fsb_result *r)
{
	int err = fsb_writer_need_run(r, "bonnie++");

	if (err)
		return err;
	if (fsb_bonnie_pp_has_io(r) &&
	    ((err = fsb_bonnie_pp_io_header(out, r)) || (err = fsb_bonnie_pp_io_row(out, r))))
		return err;
	/* No create block at all when no file test ran, as bonnie++ -n 0. */
	if (fsb_bonnie_pp_has_files(r) &&
	    ((err = fsb_bonnie_pp_file_header(out, r)) || (err = fsb_bonnie_pp_file_row(out, r))))
		return err;
	/* The note goes before the CSV line, which stays last for tail -1. */
	if ((err = fsb_writer_method_note(out, r)))
		return err;
	fsb_text_print_devcap(out, r);
	if ((err = fsb_caveats_print(out, r, "")))
		return err;
	/* Its fields stay bonnie++'s: the caveats never go into it. */
	return fsb_csv_line(out, r);
}
