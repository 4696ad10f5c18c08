/*
 * bonnie++ CSV lines into the result model (report/import.h).
 *
 * Three layouts, told apart by their first field and their number of
 * fields (bonnie++ never quotes, so a field is what lies between commas):
 *  - 1.03 (bonnie++ 1.0x), 27 fields: name, size[:chunk], six I/O figures
 *    each followed by its %CPU (per-char write, block write, rewrite,
 *    per-char read, block read in K/sec; seeks /sec), the file count in
 *    units of 1024 ("16", or "16:max:min/dirs"), six file-test figures
 *    (/sec) each followed by its %CPU. No latency.
 *  - 1.96 and 1.97, 48 fields: format version, bonnie++ version, name,
 *    concurrency, seed, size, chunk, the twelve I/O fields, file count,
 *    max size, min size, an empty field, directories, the twelve file
 *    fields, then twelve latencies (the slowest single operation).
 *  - 1.98 (bonnie++ 1.98 to 2.00a, and fsbench's own csv view), 50
 *    fields: as 1.96 with the seek count and seeker count after the chunk.
 * A figure is a number, "+++++" (or "+++") when the test took under 0.5 s
 * and bonnie++ printed none (not measured: kept, never as 0), or empty
 * when the test did not run (absent).
 */
#include "report/import.h"
#include "report/writer.h"
#include "util/size.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 64
/* No %CPU is a million: a larger one is junk, not data. */
#define MAX_CPU 1e6
/* bonnie++'s figures are K/sec; the model's B/s. */
#define KIB 1024.0

struct layout {
	const char *tag; /* the format version field 0 holds; NULL for 1.03 */
	size_t nfields;
	/* Field indexes; -1 where the layout has no such field. */
	int version, name, concurrency, seed, size, chunk, seeks, seekers;
	int io;	   /* per-char write K/sec; then its %CPU, block write, ... seeks %CPU */
	int files; /* file count (1.03: "N[:max[:min]][/dirs]") */
	int max, min, dirs;
	int file; /* sequential create /sec; then its %CPU, ... random delete %CPU */
	int lat;  /* the twelve latencies, I/O tests then file tests */
};

static const struct layout layouts[] = {
	{ "1.98", 50, 1, 2, 3, 4, 5, 6, 7, 8, 9, 21, 22, 23, 25, 26, 38 },
	{ "1.97", 48, 1, 2, 3, 4, 5, 6, -1, -1, 7, 19, 20, 21, 23, 24, 36 },
	{ "1.96", 48, 1, 2, 3, 4, 5, 6, -1, -1, 7, 19, 20, 21, 23, 24, 36 },
	{ NULL, 27, -1, 0, -1, -1, 1, -1, -1, -1, 2, 14, -1, -1, -1, 15, -1 },
};

#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

/* What bonnie++'s own report calls each column, for messages. */
static const char *const io_names[FSB_BONNIE_NCOLS] = {
	"per-char write", "block write", "rewrite", "per-char read", "block read", "seeks",
};
static const char *const file_names[FSB_BONNIE_NCOLS] = {
	"sequential create", "sequential read", "sequential delete",
	"random create",     "random read",	"random delete",
};

/* ---- lines and fields ---------------------------------------------------- */

/* One line of the buffer, NUL-terminated in a copy; fields point into it. */
struct line {
	char text[FSB_IMPORT_MAX_LINE + 1];
	char *f[MAX_FIELDS];
	size_t n;      /* fields; counted past MAX_FIELDS, stored up to it */
	size_t lineno; /* from 1 */
	bool too_long; /* longer than FSB_IMPORT_MAX_LINE */
	bool nul;      /* held a NUL byte */
};

/* The line starting at *pos; *pos moves past it. False at the end. */
static bool next_line(const char *buf, size_t len, size_t *pos, struct line *l)
{
	size_t start = *pos, end, n;

	if (start >= len)
		return false;
	end = start;
	while (end < len && buf[end] != '\n')
		end++;
	*pos = end < len ? end + 1 : end;
	l->lineno++;
	n = end - start;
	if (n && buf[start + n - 1] == '\r')
		n--;
	l->too_long = n > FSB_IMPORT_MAX_LINE;
	if (l->too_long)
		n = FSB_IMPORT_MAX_LINE;
	memcpy(l->text, buf + start, n);
	l->text[n] = '\0';
	l->nul = strlen(l->text) != n;
	return true;
}

static bool is_blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t')
			return false;
	return true;
}

/* Split l->text at every comma; blanks around a field are dropped. */
static void split(struct line *l)
{
	char *p = l->text;

	l->n = 0;
	for (;;) {
		char *comma = strchr(p, ','), *e;

		if (comma)
			*comma = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		e = p + strlen(p);
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (l->n < MAX_FIELDS)
			l->f[l->n] = p;
		l->n++;
		if (!comma)
			break;
		p = comma + 1;
	}
}

/* A header line of bon_csv2txt-style files: "format_version,..." or "name,...". */
static bool is_header(const char *text)
{
	if (strncmp(text, "format_version,", 15) && strncmp(text, "name,", 5))
		return false;
	/* Field names only: a data line has figures. */
	for (const char *p = text; *p; p++)
		if (!(islower((unsigned char)*p) || *p == '_' || *p == ',' || *p == ' '))
			return false;
	return true;
}

static bool skipped(const char *text)
{
	return is_blank(text) || text[0] == '#' || is_header(text);
}

/* The layout a split line claims: its format tag, else 1.03 by count. */
static const struct layout *claimed(const struct line *l)
{
	for (size_t i = 0; i < NLAYOUTS; i++)
		if (layouts[i].tag && l->n && !strcmp(l->f[0], layouts[i].tag))
			return &layouts[i];
	for (size_t i = 0; i < NLAYOUTS; i++)
		if (!layouts[i].tag && l->n == layouts[i].nfields)
			return &layouts[i];
	return NULL;
}

size_t fsb_import_bom(const char *buf, size_t len)
{
	return len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
}

/* ---- sniffing --------------------------------------------------------------- */

static bool json_start(const char *p, const char *end)
{
	static const char *const words[] = { "true", "false", "null" };

	if (p >= end)
		return false;
	if (strchr("{[\"-", *p) || isdigit((unsigned char)*p))
		return true;
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);

		if ((size_t)(end - p) >= n && !memcmp(p, words[i], n) &&
		    ((size_t)(end - p) == n || !isalnum((unsigned char)p[n])))
			return true;
	}
	return false;
}

enum fsb_import_kind fsb_import_sniff(const char *buf, size_t len, size_t *json_at)
{
	struct line *l = calloc(1, sizeof(*l));
	size_t pos = fsb_import_bom(buf, len), i;
	bool header = false, csv = false;

	*json_at = 0;
	if (!l)
		return FSB_IMPORT_UNKNOWN;
	while (next_line(buf, len, &pos, l)) {
		if (is_header(l->text))
			header = true;
		if (skipped(l->text))
			continue;
		split(l);
		csv = claimed(l) != NULL;
		break;
	}
	free(l);
	/* A header says bonnie++ even when its lines are broken: say how. */
	if (csv || header)
		return FSB_IMPORT_BONNIE;
	/* A JSON document: fsbench's or fio's own. */
	for (i = 0; i < len && isspace((unsigned char)buf[i]); i++)
		;
	if (json_start(buf + i, buf + len))
		return FSB_IMPORT_JSON;
	/* Text, then a line that opens an object: fio's notes before its JSON. */
	for (i = 0; i + 1 < len; i++) {
		if (buf[i] == '\0')
			break;
		if (buf[i] == '\n' && buf[i + 1] == '{') {
			*json_at = i + 1;
			return FSB_IMPORT_FIO;
		}
	}
	return FSB_IMPORT_UNKNOWN;
}

void fsb_import_unknown_why(const char *buf, size_t len, char *why, size_t why_len)
{
	struct line *l = calloc(1, sizeof(*l));
	size_t pos = fsb_import_bom(buf, len);

	snprintf(why, why_len, "not a result fsbench reads (fsbench or fio JSON, bonnie++ CSV)");
	if (!l)
		return;
	while (next_line(buf, len, &pos, l)) {
		if (skipped(l->text))
			continue;
		split(l);
		if (l->nul)
			snprintf(why, why_len,
				 "not a result fsbench reads: line %zu holds a NUL byte",
				 l->lineno);
		else if (l->n > 1)
			snprintf(why, why_len,
				 "not a result fsbench reads: not JSON, and line %zu has %zu "
				 "comma-separated fields where bonnie++ CSV has 27, 48 or 50",
				 l->lineno, l->n);
		else
			snprintf(why, why_len,
				 "not a result fsbench reads: neither JSON (fsbench, fio) nor "
				 "bonnie++ CSV");
		break;
	}
	free(l);
}

/* ---- results ----------------------------------------------------------------- */

void fsb_import_list_release(struct fsb_import_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		fsb_result_release(&l->docs[i]);
	free(l->docs);
	memset(l, 0, sizeof(*l));
}

/* The reader of one file: where reasons go, the line being read. */
struct reader {
	char *why;
	size_t why_len;
	const struct layout *lay;
	struct line *l;
};

static int bad(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct reader *rd, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (rd->why && rd->why_len) {
		if (rd->l)
			n = snprintf(rd->why, rd->why_len, "line %zu: ", rd->l->lineno);
		if (n < 0 || (size_t)n >= rd->why_len)
			n = 0;
		va_start(ap, fmt);
		vsnprintf(rd->why + n, rd->why_len - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* What field f of the layout holds: "block write K/sec", "file size". */
static void field_name(const struct layout *L, int f, char *buf, size_t len)
{
	const struct {
		int field;
		const char *name;
	} named[] = {
		{ L->version, "bonnie++ version" },
		{ L->name, "name" },
		{ L->concurrency, "concurrency" },
		{ L->seed, "seed" },
		{ L->size, "file size" },
		{ L->chunk, "chunk size" },
		{ L->seeks, "seeks" },
		{ L->seekers, "seekers" },
		{ L->files, "number of files" },
		{ L->max, "max file size" },
		{ L->min, "min file size" },
		{ L->dirs, "directories" },
	};
	int i;

	snprintf(buf, len, "unused");
	if (f >= L->io && f < L->io + 2 * FSB_BONNIE_NCOLS) {
		const char *unit = "%CPU";

		i = (f - L->io) / 2;
		if ((f - L->io) % 2 == 0)
			unit = i == 5 ? "/sec" : "K/sec";
		snprintf(buf, len, "%s %s", io_names[i], unit);
	} else if (f >= L->file && f < L->file + 2 * FSB_BONNIE_NCOLS) {
		i = (f - L->file) / 2;
		snprintf(buf, len, "%s %s", file_names[i], (f - L->file) % 2 ? "%CPU" : "/sec");
	} else if (L->lat >= 0 && f >= L->lat && f < L->lat + 2 * FSB_BONNIE_NCOLS) {
		i = f - L->lat;
		snprintf(buf, len, "%s latency",
			 i < FSB_BONNIE_NCOLS ? io_names[i] : file_names[i - FSB_BONNIE_NCOLS]);
	} else {
		for (size_t k = 0; k < sizeof(named) / sizeof(named[0]); k++)
			if (named[k].field == f)
				snprintf(buf, len, "%s", named[k].name);
	}
}

/* "field 11 (block write K/sec) is not a number: '12x'" */
static int bad_field(struct reader *rd, int f, const char *what)
{
	char name[64], val[64];

	field_name(rd->lay, f, name, sizeof(name));
	fsb_text_safe(rd->l->f[f], 24, val, sizeof(val));
	return bad(rd, "field %d (%s) %s: '%s'", f, name, what, val);
}

/* A figure as bonnie++ prints one: digits, then optionally '.' and digits. */
static bool decimal(const char *s)
{
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return *p == '\0';
}

static int get_num(struct reader *rd, int f, double max, double *out)
{
	const char *s = rd->l->f[f];
	double v;

	if (!decimal(s))
		return bad_field(rd, f, "is not a number");
	v = strtod(s, NULL);
	if (!isfinite(v) || v > max)
		return bad_field(rd, f, "is out of range");
	*out = v;
	return 0;
}

static int get_u64(struct reader *rd, int f, uint64_t max, uint64_t *out)
{
	const char *s = rd->l->f[f];
	uint64_t v = 0;

	if (!*s)
		return bad_field(rd, f, "is empty");
	for (const char *p = s; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return bad_field(rd, f, "is not a whole number");
		if (v > (max - (uint64_t)(*p - '0')) / 10)
			return bad_field(rd, f, "is out of range");
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

static bool plus(const char *s)
{
	return !strcmp(s, "+++++") || !strcmp(s, "+++");
}

/* "19351us", "467ms", "2s" in microseconds. */
static int get_latency(struct reader *rd, int f, double *us)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = { { "us", 1 }, { "ms", 1e3 }, { "s", 1e6 } };
	const char *s = rd->l->f[f], *p = s;
	char digits[32];
	size_t n;

	while (isdigit((unsigned char)*p))
		p++;
	n = (size_t)(p - s);
	if (!n || n >= sizeof(digits))
		return bad_field(rd, f, n ? "is out of range" : "is not a latency");
	memcpy(digits, s, n);
	digits[n] = '\0';
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(p, units[i].suffix)) {
			*us = strtod(digits, NULL) * units[i].mult;
			if (!isfinite(*us) || *us > FSB_MAX_FIGURE)
				return bad_field(rd, f, "is out of range");
			return 0;
		}
	}
	return bad_field(rd, f, "is not a latency (like 850us, 467ms or 2s)");
}

/*
 * One test: the figure at field f, its %CPU at f + 1, its latency at lat
 * (-1: none). Absent when the figure is empty.
 */
static int add_test(struct reader *rd, struct fsb_result *r, const struct fsb_bonnie_col *col,
		    double mult, int f, int lat)
{
	const char *val = rd->l->f[f], *cpu = rd->l->f[f + 1];
	struct fsb_test_result *t;
	double v = 0, c = 0, us = 0;
	int err;

	if (!*val) {
		/* No figure, nothing else may claim the test ran. */
		if (*cpu)
			return bad_field(rd, f + 1, "is given for a test without a figure");
		return 0;
	}
	if (!plus(val) && (err = get_num(rd, f, FSB_MAX_FIGURE / KIB, &v)))
		return err;
	if (*cpu && !plus(cpu) && (err = get_num(rd, f + 1, MAX_CPU, &c)))
		return err;
	if (lat >= 0 && *rd->l->f[lat] && (err = get_latency(rd, lat, &us)))
		return err;
	t = fsb_result_add_test(r, col->id, col->unit);
	if (!t)
		return -ENOMEM;
	if (plus(val)) {
		t->not_measured = true;
	} else {
		double x = v * mult;

		if ((err = fsb_test_set_runs(t, &x, 1)))
			return err;
	}
	t->cpu_pct = c;
	if (lat >= 0 && *rd->l->f[lat]) {
		t->has_latency = true;
		t->latency_max_only = true;
		t->latency.max_us = us;
	}
	return 0;
}

/* A size as bonnie++ writes the file size: digits and a unit ("512M", "2G"). */
static int get_file_size(struct reader *rd, int f, uint64_t *out)
{
	const char *s = rd->l->f[f];
	size_t n = strlen(s);

	if (!n || !strchr("kKmMgGtT", s[n - 1]) || fsb_size_parse(s, out))
		return bad_field(rd, f, "is not a size like 512M or 2G");
	return 0;
}

/* 1.03's size field: "2G" or "2G:4k" (size, then chunk size). */
static int size_103(struct reader *rd, struct fsb_result *r, int f)
{
	char *s = rd->l->f[f], *colon = strchr(s, ':');
	uint64_t size, chunk = FSB_BONNIE_CHUNK;
	int err;

	if (colon) {
		*colon = '\0';
		rd->l->f[f] = colon + 1;
		if (fsb_size_parse(colon + 1, &chunk) || !chunk)
			err = bad_field(rd, f, "is not a chunk size");
		else
			err = 0;
		rd->l->f[f] = s;
		if (err)
			return err;
	}
	if ((err = get_file_size(rd, f, &size)))
		return err;
	if (fsb_result_param_u64(r, "size_bytes", size) ||
	    fsb_result_param_u64(r, "chunk_bytes", chunk))
		return -ENOMEM;
	return 0;
}

static int size_19x(struct reader *rd, struct fsb_result *r)
{
	const struct layout *L = rd->lay;
	uint64_t size, chunk = FSB_BONNIE_CHUNK, v;
	int err;

	if (*rd->l->f[L->size]) {
		if ((err = get_file_size(rd, L->size, &size)))
			return err;
		if (fsb_result_param_u64(r, "size_bytes", size))
			return -ENOMEM;
	}
	/* An empty chunk field means bonnie++'s default. */
	if (*rd->l->f[L->chunk] && (fsb_size_parse(rd->l->f[L->chunk], &chunk) || !chunk))
		return bad_field(rd, L->chunk, "is not a chunk size");
	if (*rd->l->f[L->size] && fsb_result_param_u64(r, "chunk_bytes", chunk))
		return -ENOMEM;
	if (L->seeks >= 0 && *rd->l->f[L->seeks]) {
		if ((err = get_u64(rd, L->seeks, UINT32_MAX, &v)))
			return err;
		if (fsb_result_param_u64(r, "seeks", v))
			return -ENOMEM;
	}
	if (L->seekers >= 0 && *rd->l->f[L->seekers]) {
		if ((err = get_u64(rd, L->seekers, 65536, &v)))
			return err;
		if (fsb_result_param_u64(r, "seekers", v))
			return -ENOMEM;
	}
	if (*rd->l->f[L->concurrency]) {
		if ((err = get_u64(rd, L->concurrency, 65536, &v)))
			return err;
		if (fsb_result_param_u64(r, "concurrency", v))
			return -ENOMEM;
	}
	if (*rd->l->f[L->seed]) {
		if ((err = get_u64(rd, L->seed, UINT64_MAX, &v)))
			return err;
		if (fsb_result_param_u64(r, "seed", v))
			return -ENOMEM;
	}
	return 0;
}

/* The file count in units of 1024: "16", or "0.25" as fsbench writes 256. */
static int files_param(struct reader *rd, struct fsb_result *r, int f, const char *s)
{
	double n;
	char *keep = rd->l->f[f];
	int err;

	rd->l->f[f] = (char *)s;
	err = get_num(rd, f, 1e9, &n);
	rd->l->f[f] = keep;
	if (err)
		return err;
	return fsb_result_param_u64(r, "files", (uint64_t)floor(n * 1024 + 0.5)) ? -ENOMEM : 0;
}

/* A max or min size field: bytes, or for max "link" / "symlink". */
static int file_size_param(struct reader *rd, struct fsb_result *r, int f, const char *key,
			   bool links)
{
	uint64_t v;
	int err;

	if (!*rd->l->f[f])
		return 0;
	if (links && (!strcmp(rd->l->f[f], "link") || !strcmp(rd->l->f[f], "symlink")))
		return fsb_result_param_str(r, "links",
					    strcmp(rd->l->f[f], "link") ? "soft" : "hard")
			       ? -ENOMEM
			       : 0;
	if ((err = get_u64(rd, f, (uint64_t)1 << 40, &v)))
		return err;
	return fsb_result_param_u64(r, key, v) ? -ENOMEM : 0;
}

static int files_19x(struct reader *rd, struct fsb_result *r)
{
	const struct layout *L = rd->lay;
	uint64_t v;
	int err;

	if (!*rd->l->f[L->files])
		return 0;
	if ((err = files_param(rd, r, L->files, rd->l->f[L->files])) ||
	    (err = file_size_param(rd, r, L->max, "file_max_bytes", true)) ||
	    (err = file_size_param(rd, r, L->min, "file_min_bytes", false)))
		return err;
	if (*rd->l->f[L->dirs]) {
		if ((err = get_u64(rd, L->dirs, 1u << 20, &v)))
			return err;
		if (fsb_result_param_u64(r, "file_dirs", v))
			return -ENOMEM;
	}
	return 0;
}

/* 1.03's file field: "16", "16:4096", "16:4096:1024", each maybe with "/dirs". */
static int files_103(struct reader *rd, struct fsb_result *r)
{
	int f = rd->lay->files;
	char *s = rd->l->f[f], *dirs = strchr(s, '/'), *max = NULL, *min = NULL;
	uint64_t v;
	int err = 0;

	if (!*s)
		return 0;
	if (dirs)
		*dirs++ = '\0';
	if ((max = strchr(s, ':'))) {
		*max++ = '\0';
		if ((min = strchr(max, ':')))
			*min++ = '\0';
	}
	/* Each part is checked as a field of its own, named as the whole. */
	err = files_param(rd, r, f, s);
	if (!err && max) {
		rd->l->f[f] = max;
		err = file_size_param(rd, r, f, "file_max_bytes", true);
	}
	if (!err && min) {
		rd->l->f[f] = min;
		err = file_size_param(rd, r, f, "file_min_bytes", false);
	}
	if (!err && dirs) {
		rd->l->f[f] = dirs;
		err = get_u64(rd, f, 1u << 20, &v);
		if (!err && fsb_result_param_u64(r, "file_dirs", v))
			err = -ENOMEM;
	}
	rd->l->f[f] = s;
	return err;
}

/* "bonnie++ 2.00a": the version field names the tool when it is a number. */
static int set_tool(struct fsb_result *r, const char *version)
{
	char tool[96];

	if (isdigit((unsigned char)version[0]))
		snprintf(tool, sizeof(tool), "bonnie++ %.80s", version);
	else
		snprintf(tool, sizeof(tool), "%.90s", version);
	if (fsb_strset(&r->tool, tool) || fsb_strset(&r->version, version))
		return -ENOMEM;
	return 0;
}

static int read_line(struct reader *rd, struct fsb_result *r, const char *path)
{
	const struct layout *L = rd->lay;
	const char *version = L->tag ? rd->l->f[L->version] : "1.03";
	char *src = NULL;
	int err, n;

	if (L->tag && !*version)
		return bad_field(rd, L->version, "is empty");
	if (strlen(version) > 32)
		return bad_field(rd, L->version, "is longer than 32 bytes");
	r->format_version = FSB_FORMAT_VERSION;
	if ((err = set_tool(r, version)) || fsb_strset(&r->kind, "run"))
		return err ? err : -ENOMEM;
	if (L->tag)
		n = asprintf(&src, "%s CSV (format %s), line %zu of %s", r->tool, L->tag,
			     rd->l->lineno, path);
	else
		n = asprintf(&src, "bonnie++ 1.03 CSV, line %zu of %s", rd->l->lineno, path);
	if (n < 0)
		return -ENOMEM;
	r->source = src;
	if (*rd->l->f[L->name] && fsb_strset(&r->setup.label, rd->l->f[L->name]))
		return -ENOMEM;
	/* The per-char tests by version: bonnie++ 1.0x calls putc/getc
	 * (stdio's buffer), 1.9x and 2.00a one-byte write(2)/read(2), a
	 * system call per byte and far slower: different work (compare.h). */
	if (fsb_result_param_str(r, "char_io", L->tag ? "syscall" : "stdio"))
		return -ENOMEM;
	if (L->tag)
		err = size_19x(rd, r);
	else if (*rd->l->f[L->size])
		err = size_103(rd, r, L->size);
	if (!err)
		err = L->tag ? files_19x(rd, r) : files_103(rd, r);
	for (int i = 0; !err && i < FSB_BONNIE_NCOLS; i++)
		err = add_test(rd, r, &fsb_bonnie_io_cols[i], i == 5 ? 1 : KIB, L->io + 2 * i,
			       L->lat >= 0 ? L->lat + i : -1);
	for (int i = 0; !err && i < FSB_BONNIE_NCOLS; i++)
		err = add_test(rd, r, &fsb_bonnie_file_cols[i], 1, L->file + 2 * i,
			       L->lat >= 0 ? L->lat + FSB_BONNIE_NCOLS + i : -1);
	if (err)
		return err;
	if (!r->ntests)
		return bad(rd, "no test figures (every figure field is empty)");
	return 0;
}

static char *label_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *label_printf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/*
 * Lines that share a name with another line of the file are labelled
 * "NAME (line N)", so each is a column of its own; a line without a name
 * is "line N".
 */
static int label_lines(struct fsb_import_list *out, const size_t *lineno)
{
	bool *twin = calloc(out->n ? out->n : 1, sizeof(*twin));

	if (!twin)
		return -ENOMEM;
	/* All twins first: renaming one must not hide it from the next. */
	for (size_t i = 0; i < out->n; i++)
		for (size_t j = i + 1; j < out->n && out->docs[i].setup.label; j++)
			if (out->docs[j].setup.label &&
			    !strcmp(out->docs[j].setup.label, out->docs[i].setup.label))
				twin[i] = twin[j] = true;
	for (size_t i = 0; i < out->n; i++) {
		struct fsb_result *r = &out->docs[i];
		char *label;

		if (r->setup.label && !twin[i])
			continue;
		if (r->setup.label)
			label = label_printf("%s (line %zu)", r->setup.label, lineno[i]);
		else
			label = label_printf("line %zu", lineno[i]);
		if (!label) {
			free(twin);
			return -ENOMEM;
		}
		free(r->setup.label);
		r->setup.label = label;
	}
	free(twin);
	return 0;
}

int fsb_import_bonnie(const char *buf, size_t len, const char *path, struct fsb_import_list *out,
		      char *why, size_t why_len)
{
	struct line *l = calloc(1, sizeof(*l));
	struct reader rd = { .why = why, .why_len = why_len, .l = NULL };
	size_t pos = fsb_import_bom(buf, len), *lineno = NULL;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (why && why_len)
		why[0] = '\0';
	if (!l)
		return -ENOMEM;
	while (!err && next_line(buf, len, &pos, l)) {
		struct fsb_result *docs;
		size_t *nos;

		rd.l = l;
		if (l->nul) {
			err = bad(&rd, "holds a NUL byte: not a bonnie++ line");
			break;
		}
		if (skipped(l->text))
			continue;
		if (l->too_long) {
			err = bad(&rd, "longer than %d bytes: not a bonnie++ line",
				  FSB_IMPORT_MAX_LINE);
			break;
		}
		split(l);
		rd.lay = claimed(l);
		if (!rd.lay) {
			err = bad(&rd,
				  "%zu fields: a bonnie++ line has 27 (1.03), 48 (1.96, 1.97) or "
				  "50 (1.98)",
				  l->n);
			break;
		}
		if (l->n != rd.lay->nfields) {
			err = bad(&rd, "%zu fields: a bonnie++ %s line has %zu", l->n,
				  rd.lay->tag ? rd.lay->tag : "1.03", rd.lay->nfields);
			break;
		}
		if (out->n >= FSB_IMPORT_MAX_LINES) {
			rd.l = NULL;
			err = bad(&rd, "more than %d result lines", FSB_IMPORT_MAX_LINES);
			break;
		}
		docs = realloc(out->docs, (out->n + 1) * sizeof(*docs));
		if (docs)
			out->docs = docs;
		nos = realloc(lineno, (out->n + 1) * sizeof(*nos));
		if (nos)
			lineno = nos;
		if (!docs || !nos) {
			err = -ENOMEM;
			break;
		}
		lineno[out->n] = l->lineno;
		memset(&docs[out->n], 0, sizeof(docs[0]));
		out->n++;
		err = read_line(&rd, &docs[out->n - 1], path);
	}
	rd.l = NULL;
	if (!err && !out->n)
		err = bad(&rd, "no bonnie++ result line (only comments, blanks or a header)");
	if (!err)
		err = label_lines(out, lineno);
	if (err == -ENOMEM && why && why_len)
		snprintf(why, why_len, "out of memory");
	if (err)
		fsb_import_list_release(out);
	free(lineno);
	free(l);
	return err;
}
