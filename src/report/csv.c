/*
 * The "csv" view: the bonnie++ 1.98 CSV line (DESIGN.md, CSV table), so
 * bon_csv2txt and bon_csv2html read fsbench results unchanged. The shape
 * follows what bonnie++ 2.00a really writes (its sample CSV lines in
 * docs/references.md), not its own header line, which names fields 21-25
 * wrongly.
 */
#include "report/writer.h"
#include "util/size.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CSV_FIELDS 50
#define CELL 64

/* Round half away from zero; "%.0f" alone rounds half to even. */
static void put_round(char *cell, double v)
{
	if (!isfinite(v) || v < 0)
		v = 0;
	snprintf(cell, CELL, "%.0f", floor(v + 0.5));
}

static void put_u64_param(char *cell, const struct fsb_result *r, const char *key)
{
	const struct fsb_param *p = fsb_result_param(r, key);

	if (p && p->type == FSB_PARAM_U64)
		snprintf(cell, CELL, "%llu", (unsigned long long)p->u);
}

/* A chunk size as bonnie++ prints one: "512", "4k", "1m". */
static void put_chunk(char *cell, uint64_t bytes)
{
	static const char units[] = " km";
	int u = 0;

	while (bytes && bytes % 1024 == 0 && u < 2) {
		bytes /= 1024;
		u++;
	}
	if (u)
		snprintf(cell, CELL, "%llu%c", (unsigned long long)bytes, units[u]);
	else
		snprintf(cell, CELL, "%llu", (unsigned long long)bytes);
}

static void fill_io(char cells[][CELL], const struct fsb_result *r)
{
	const struct fsb_param *p;
	char size[32];

	if ((p = fsb_result_param(r, "size_bytes")) && p->type == FSB_PARAM_U64)
		snprintf(cells[5], CELL, "%s", fsb_size_format_exact(p->u, size, sizeof(size)));
	p = fsb_result_param(r, "chunk_bytes");
	if (p && p->type == FSB_PARAM_U64 && p->u != FSB_BONNIE_CHUNK)
		put_chunk(cells[6], p->u);
	put_u64_param(cells[7], r, "seeks");
	put_u64_param(cells[8], r, "seekers");

	for (size_t i = 0; i < FSB_BONNIE_NCOLS; i++) {
		const struct fsb_test_result *t = fsb_writer_test(r, fsb_bonnie_io_cols[i].id,
								  fsb_bonnie_io_cols[i].unit);
		char *val = cells[9 + 2 * i], *cpu = cells[10 + 2 * i];

		if (!t)
			continue;
		if (!strcmp(t->unit, "B/s"))
			put_round(val, t->median / 1024); /* K/sec */
		else if (isfinite(t->median) && t->median >= 0 && t->median < 1000)
			snprintf(val, CELL, "%.1f", t->median); /* as bonnie++ does */
		else
			put_round(val, t->median);
		put_round(cpu, t->cpu_pct);
	}
}

static void fill_files(char cells[][CELL], const struct fsb_result *r)
{
	const char *links = fsb_result_get_str(r, "links", "none");
	uint64_t max = fsb_result_get_u64(r, "file_max_bytes", 0);
	uint64_t min = fsb_result_get_u64(r, "file_min_bytes", 0);
	uint64_t dirs = fsb_result_get_u64(r, "file_dirs", 0);

	fsb_writer_bonnie_files(r, cells[21], CELL);
	/* bonnie++ spells hard links "link" and soft links "symlink". */
	if (!strcmp(links, "hard")) {
		snprintf(cells[22], CELL, "link");
	} else if (!strcmp(links, "soft")) {
		snprintf(cells[22], CELL, "symlink");
	} else if (max) {
		snprintf(cells[22], CELL, "%llu", (unsigned long long)max);
		if (min)
			snprintf(cells[23], CELL, "%llu", (unsigned long long)min);
	}
	/* Field 24 stays empty: bonnie++ 2.00a never fills it. */
	if (dirs > 1) /* 0 and 1 both mean "one directory" to bonnie++ */
		snprintf(cells[25], CELL, "%llu", (unsigned long long)dirs);

	for (size_t i = 0; i < FSB_BONNIE_NCOLS; i++) {
		const struct fsb_test_result *t = fsb_writer_test(r, fsb_bonnie_file_cols[i].id,
								  fsb_bonnie_file_cols[i].unit);

		if (!t)
			continue;
		put_round(cells[26 + 2 * i], t->median);
		put_round(cells[27 + 2 * i], t->cpu_pct);
	}
}

static void fill_latency(char *cell, const struct fsb_result *r, const struct fsb_bonnie_col *c)
{
	const struct fsb_test_result *t = fsb_writer_test(r, c->id, c->unit);

	if (t && t->has_latency)
		fsb_writer_bonnie_latency(t->latency.max_us, cell, CELL);
}

/*
 * A free-text field (version, label) must not split the line, and the
 * bonnie++ format has no quoting (bon_csv2txt splits on every comma): its
 * controls are escaped as everywhere (util/text.h: a newline becomes the
 * two characters "\n"), then each comma becomes ';'. 0 or -ENOMEM.
 */
static int put_text(FILE *out, const char *str)
{
	char *s;

	if (!str)
		return 0;
	if (!(s = fsb_text_dup(str)))
		return -ENOMEM;
	for (char *c = s; *c; c++)
		if (*c == ',')
			*c = ';';
	/* Not a formula to a spreadsheet (writer.h: fsb_csv_formula). */
	if (fsb_csv_formula(s))
		fputc('\'', out);
	fputs(s, out);
	free(s);
	return 0;
}

int fsb_csv_line(FILE *out, const struct fsb_result *r)
{
	char cells[CSV_FIELDS][CELL];
	int err = fsb_writer_need_run(r, "csv");

	if (err)
		return err;
	memset(cells, 0, sizeof(cells));
	snprintf(cells[0], CELL, "1.98");
	/* Fields 1 and 2 are free text, written by put_text below. */
	/* bonnie++'s concurrency (-c): fsbench's job count. */
	snprintf(cells[3], CELL, "%u", fsb_result_jobs(r));
	put_u64_param(cells[4], r, "seed");
	if (fsb_bonnie_any(r, fsb_bonnie_io_cols))
		fill_io(cells, r);
	if (fsb_bonnie_any(r, fsb_bonnie_file_cols))
		fill_files(cells, r);
	for (size_t i = 0; i < FSB_BONNIE_NCOLS; i++) {
		fill_latency(cells[38 + i], r, &fsb_bonnie_io_cols[i]);
		fill_latency(cells[44 + i], r, &fsb_bonnie_file_cols[i]);
	}

	for (int i = 0; i < CSV_FIELDS && !err; i++) {
		if (i)
			fputc(',', out);
		if (i == 1 && fsb_result_null_engine(r) && r->version) {
			/* The line has no room for a note: the version field says
			 * that its block figures are no storage's. */
			char *v = NULL;

			err = asprintf(&v, "%s (engine null: harness cost; no I/O)", r->version) < 0
				      ? -ENOMEM
				      : put_text(out, v);
			free(v);
		} else if (i == 1)
			err = put_text(out, r->version);
		else if (i == 2)
			err = put_text(out, fsb_writer_label(r));
		else
			fputs(cells[i], out);
	}
	if (err)
		return err;
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

int fsb_write_csv(FILE *out, const struct fsb_result *r)
{
	return fsb_csv_line(out, r);
}
