/*
 * The matrix document and its views (see matrix.h). The per-setup rows
 * come from the single-result writers (bonnie, bonnie++, csv) so a matrix
 * row reads exactly like the row `fsbench run --format bonnie` prints.
 */
#include "report/matrix.h"
#include "report/caveats.h"
#include "report/json.h"
#include "report/writer.h"
#include "util/error.h"
#include "util/io.h"
#include "util/size.h"
#include "util/text.h"
#include "util/vocab.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The lifecycle phases in the order the lifecycle view shows them. */
static const char *const phases[] = {
	"mkfs", "mkfs-mount", "mkfs-umount", "mount-umount", "write", "read",
};
#define NPHASES (sizeof(phases) / sizeof(phases[0]))

int fsb_matrix_doc_init(struct fsb_matrix_doc *d, const char *config_path)
{
	int err;

	memset(d, 0, sizeof(*d));
	if ((err = fsb_result_init(&d->head, "matrix")))
		return err;
	/* The host is context, not a requirement: a partial one will do. */
	fsb_result_fill_host(&d->head);
	return fsb_strset(&d->config_path, config_path);
}

static void result_free(struct fsb_result *r)
{
	if (!r)
		return;
	fsb_result_release(r);
	free(r);
}

void fsb_matrix_doc_release(struct fsb_matrix_doc *d)
{
	for (size_t i = 0; d->entries && i < d->n; i++) {
		struct fsb_matrix_entry *e = &d->entries[i];

		free(e->label);
		free(e->type);
		free(e->mkfs);
		free(e->options);
		free(e->fill);
		free(e->run);
		free(e->lifecycle);
		free(e->error);
		free(e->note);
		result_free(e->run_res);
		result_free(e->lc_res);
	}
	free(d->entries);
	free(d->config_path);
	for (size_t i = 0; d->overrides && i < d->noverrides; i++)
		free(d->overrides[i]);
	free(d->overrides);
	fsb_result_release(&d->head);
	memset(d, 0, sizeof(*d));
}

int fsb_matrix_doc_overrides(struct fsb_matrix_doc *d, const char *const *items, size_t n)
{
	if (!n)
		return 0;
	d->overrides = calloc(n, sizeof(*d->overrides));
	if (!d->overrides)
		return -ENOMEM;
	for (; d->noverrides < n; d->noverrides++)
		if (fsb_strset(&d->overrides[d->noverrides], items[d->noverrides]))
			return -ENOMEM;
	return 0;
}

struct fsb_matrix_entry *fsb_matrix_doc_add(struct fsb_matrix_doc *d, const char *label)
{
	struct fsb_matrix_entry *grown = realloc(d->entries, (d->n + 1) * sizeof(*grown));

	if (!grown) {
		errno = ENOMEM;
		return NULL;
	}
	d->entries = grown;
	memset(&grown[d->n], 0, sizeof(*grown));
	if (fsb_strset(&grown[d->n].label, label)) {
		errno = ENOMEM;
		return NULL;
	}
	return &grown[d->n++];
}

int fsb_matrix_entry_status(struct fsb_matrix_entry *e, enum fsb_matrix_status st, const char *fmt,
			    ...)
{
	char why[1024];
	va_list ap;

	e->status = st;
	if (!fmt)
		return fsb_strset(&e->error, NULL);
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return fsb_strset(&e->error, why);
}

const char *fsb_matrix_status_name(enum fsb_matrix_status st)
{
	return st == FSB_MATRIX_OK ? "ok" : st == FSB_MATRIX_FAILED ? "failed" : "skipped";
}

/* ---- JSON ------------------------------------------------------------- */

/* A sticky error, as in json.c: check once at the end. */
struct jb {
	int err;
};

static void put(struct jb *b, struct json_object *o, const char *key, struct json_object *v)
{
	if (b->err || !v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		if (!b->err)
			b->err = -ENOMEM;
	}
}

static void put_str(struct jb *b, struct json_object *o, const char *key, const char *s)
{
	if (s)
		put(b, o, key, json_object_new_string(s));
}

static struct json_object *entry_json(struct jb *b, const struct fsb_matrix_entry *e)
{
	struct json_object *o = json_object_new_object(), *cfg = json_object_new_object();
	struct json_object *results = json_object_new_array();
	const struct fsb_result *res[2] = { e->run_res, e->lc_res };

	if (!o || !cfg || !results) {
		json_object_put(o);
		json_object_put(cfg);
		json_object_put(results);
		b->err = -ENOMEM;
		return NULL;
	}
	put_str(b, o, "label", e->label);
	put_str(b, cfg, "type", e->type);
	put_str(b, cfg, "mkfs", e->mkfs);
	put_str(b, cfg, "options", e->options);
	put(b, cfg, "devices", json_object_new_int64(e->devices));
	put(b, cfg, "image_size", json_object_new_int64((int64_t)e->image_bytes));
	put_str(b, cfg, "fill", e->fill);
	put_str(b, cfg, "run", e->run);
	put_str(b, cfg, "lifecycle", e->lifecycle);
	put(b, o, "config", cfg);
	put_str(b, o, "status", fsb_matrix_status_name(e->status));
	put_str(b, o, "error", e->error);
	put_str(b, o, "note", e->note);
	for (size_t i = 0; i < 2; i++) {
		struct json_object *r;

		if (!res[i] || b->err)
			continue;
		r = fsb_json_from_result(res[i]);
		if (!r || json_object_array_add(results, r)) {
			json_object_put(r);
			b->err = -ENOMEM;
		}
	}
	put(b, o, "results", results);
	return o;
}

struct json_object *fsb_matrix_to_json(const struct fsb_matrix_doc *d)
{
	struct jb b = { 0 };
	struct json_object *doc = fsb_json_from_result(&d->head), *setups;

	if (!doc)
		return NULL;
	/* The head is an empty result document: keep its top and host only. */
	json_object_object_del(doc, "setup");
	json_object_object_del(doc, "params");
	json_object_object_del(doc, "tests");
	put_str(&b, doc, "config_file", d->config_path);
	if (d->noverrides) {
		struct json_object *sets = json_object_new_array();

		put(&b, doc, "overrides", sets);
		for (size_t i = 0; !b.err && i < d->noverrides; i++) {
			struct json_object *v = json_object_new_string(d->overrides[i]);

			if (!v || json_object_array_add(sets, v)) {
				json_object_put(v);
				b.err = -ENOMEM;
			}
		}
	}
	setups = json_object_new_array();
	put(&b, doc, "setups", setups);
	for (size_t i = 0; !b.err && i < d->n; i++) {
		struct json_object *e = entry_json(&b, &d->entries[i]);

		if (e && json_object_array_add(setups, e)) {
			json_object_put(e);
			b.err = -ENOMEM;
		}
	}
	if (b.err) {
		json_object_put(doc);
		errno = ENOMEM;
		return NULL;
	}
	return doc;
}

int fsb_matrix_write_json(FILE *out, const struct fsb_matrix_doc *d)
{
	struct json_object *doc = fsb_matrix_to_json(d);
	int err;

	if (!doc)
		return -ENOMEM;
	err = fsb_json_print(out, doc);
	json_object_put(doc);
	return err;
}

/* ---- CSV -------------------------------------------------------------- */

int fsb_matrix_write_csv(FILE *out, const struct fsb_matrix_doc *d)
{
	bool any = false;
	int err;

	for (size_t i = 0; i < d->n; i++) {
		if (!d->entries[i].run_res)
			continue;
		if ((err = fsb_csv_line(out, d->entries[i].run_res)))
			return err;
		any = true;
	}
	if (!any) {
		fsb_err("cannot show this matrix in csv format: no setup ran the run suite");
		return -EINVAL;
	}
	return ferror(out) ? -EIO : 0;
}

/* ---- text ------------------------------------------------------------- */

char *fsb_matrix_fmt_phase(double median_s, double min_s, double max_s, char *buf, size_t len)
{
	double m = isfinite(median_s) && median_s > 0 ? median_s * 1e3 : 0;
	double lo = isfinite(min_s) && min_s > 0 ? min_s * 1e3 : 0;
	double hi = isfinite(max_s) && max_s > 0 ? max_s * 1e3 : 0;
	/* Three significant digits of the median; the range in its precision. */
	int dec = m < 9.995 ? 2 : m < 99.95 ? 1 : 0;

	snprintf(buf, len, "%.*f [%.*f-%.*f]", dec, m, dec, lo, dec, hi);
	return buf;
}

/* A configuration string as shown: "" when unknown. */
static const char *str(const char *s)
{
	return s ? s : "";
}

/* The string all entries share in field off, or NULL when they differ. */
static const char *common(const struct fsb_matrix_doc *d, size_t off)
{
	const char *first = NULL;

	for (size_t i = 0; i < d->n; i++) {
		const char *s = *(char *const *)((const char *)&d->entries[i] + off);

		if (!i)
			first = s;
		else if (!first != !s || (s && strcmp(first, s)))
			return NULL;
	}
	return first;
}

static bool same_images(const struct fsb_matrix_doc *d)
{
	for (size_t i = 1; i < d->n; i++)
		if (d->entries[i].image_bytes != d->entries[0].image_bytes ||
		    strcmp(str(d->entries[i].fill), str(d->entries[0].fill)))
			return false;
	return true;
}

static void print_head(FILE *out, const struct fsb_matrix_doc *d)
{
	const struct fsb_host *h = &d->head.host;
	char ram[32] = "";

	/* Every string here came from a file or a system: escaped (util/text.h). */
	fputs("Benchmark using fsbench ", out);
	fsb_text_put(out, str(d->head.version));
	fputs(" matrix (", out);
	fsb_text_put(out, str(d->config_path));
	fputs(")\n\n", out);
	if (h->ram_bytes)
		fsb_size_format_human(h->ram_bytes, ram, sizeof(ram));
	fputs("Hardware: ", out);
	if (h->cpus > 0)
		fprintf(out, "%d x ", h->cpus);
	fsb_text_put(out, h->cpu ? h->cpu : "CPU");
	fprintf(out, "%s%s\n", ram[0] ? ", RAM " : "", ram);
	fputs("Software: Linux ", out);
	fsb_text_put(out, h->kernel ? h->kernel : "?");
	if (h->hostname) {
		fputs(" on ", out);
		fsb_text_put(out, h->hostname);
	}
	fputs("\n\n", out);
}

/* A word as a shell would take it back: quoted unless plainly safe. */
static void put_shell_word(FILE *out, const char *w)
{
	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_.,:/=+-") == strlen(w)) {
		fsb_text_put(out, w);
		return;
	}
	fputc('\'', out);
	for (const char *p = w; *p; p++) {
		char one[2] = { *p, 0 };

		if (*p == '\'')
			fputs("'\\''", out);
		else
			fsb_text_put(out, one);
	}
	fputc('\'', out);
}

/* "Overrides:": the file's keys the command line set, so that a scaled
 * down matrix is never read as the file's. */
static void print_overrides(FILE *out, const struct fsb_matrix_doc *d)
{
	if (!d->noverrides)
		return;
	fputs("Overrides:", out);
	for (size_t i = 0; i < d->noverrides; i++) {
		fputs(" --set ", out);
		put_shell_word(out, d->overrides[i]);
	}
	fputs(" (over the file's values: a [global] key's in every setup that sets "
	      "it)\n\n",
	      out);
}

/*
 * Rows that boot a QEMU guest take minutes each under emulation: name
 * them, and the --only that leaves them out (the other rows).
 */
static void print_guest_hint(FILE *out, const struct fsb_matrix_doc *d)
{
	size_t guests = 0, k = 0, len = 1;
	char *hosts;

	for (size_t i = 0; i < d->n; i++) {
		guests += d->entries[i].guest;
		len += strlen(d->entries[i].label) + 1;
	}
	if (!guests)
		return;
	fputs("Guest rows (each boots a QEMU guest): ", out);
	for (size_t i = 0; i < d->n; i++)
		if (d->entries[i].guest) {
			fputs(k++ ? ", " : "", out);
			fsb_text_put(out, d->entries[i].label);
		}
	hosts = guests < d->n ? calloc(1, len) : NULL;
	if (!hosts) {
		fputs("; --only LABELS runs only the setups named\n\n", out);
		return;
	}
	for (size_t i = 0; i < d->n; i++)
		if (!d->entries[i].guest) {
			if (*hosts)
				strcat(hosts, ",");
			strcat(hosts, d->entries[i].label);
		}
	fputs("; leave them out with --only ", out);
	put_shell_word(out, hosts);
	fputs("\n\n", out);
	free(hosts);
}

/* Where the setups' images were used: loop devices, a guest's disk, or both. */
static const char *where(const struct fsb_matrix_doc *d)
{
	size_t guests = 0;

	for (size_t i = 0; i < d->n; i++)
		guests += d->entries[i].guest;
	if (!guests)
		return "on loop devices (direct I/O)";
	if (guests == d->n)
		return "as the disk of a QEMU guest";
	return "on loop devices (direct I/O), or as the disk of a QEMU guest (guest rows)";
}

/*
 * "Configuration:" as the reference lists it: per setup the mkfs command
 * and the mount, then what the setups share (images, the commands run).
 */
static void print_config(FILE *out, const struct fsb_matrix_doc *d)
{
	const char *run = common(d, offsetof(struct fsb_matrix_entry, run));
	const char *lc = common(d, offsetof(struct fsb_matrix_entry, lifecycle));
	bool images = same_images(d);
	size_t lw = 0, mw = 0;
	char size[32];

	for (size_t i = 0; i < d->n; i++) {
		size_t l = fsb_text_width(d->entries[i].label) + 1;
		size_t m = fsb_text_width(d->entries[i].mkfs);

		lw = l > lw ? l : lw;
		mw = m > mw ? m : mw;
	}
	if (d->n && images) {
		fsb_size_format_human(d->entries[0].image_bytes, size, sizeof(size));
		fprintf(out, "Configuration: fresh %s images filled with ", size);
		fsb_text_put(out, str(d->entries[0].fill));
		fprintf(out, ", %s, per setup\n", where(d));
	} else {
		fprintf(out, "Configuration: fresh images %s, per setup\n", where(d));
	}
	for (size_t i = 0; i < d->n; i++) {
		const struct fsb_matrix_entry *e = &d->entries[i];

		fputs("               ", out);
		fsb_text_put(out, e->label);
		fputc(':', out);
		fsb_text_pad(out, "", (int)(lw - fsb_text_width(e->label) - 1));
		fputc(' ', out);
		fsb_text_pad(out, str(e->mkfs), -(int)mw);
		fputs("  mount -t ", out);
		fsb_text_put(out, str(e->type));
		if (e->options && *e->options) {
			fputs(" -o ", out);
			fsb_text_put(out, e->options);
		}
		if (e->devices > 1)
			fprintf(out, "  (%u devices)", e->devices);
		if (!images) {
			fsb_size_format_human(e->image_bytes, size, sizeof(size));
			fprintf(out, "  [%s, ", size);
			fsb_text_put(out, str(e->fill));
			fputc(']', out);
		}
		if (!run && e->run) {
			fputs("  run: ", out);
			fsb_text_put(out, e->run);
		}
		if (!lc && e->lifecycle) {
			fputs("  lifecycle: ", out);
			fsb_text_put(out, e->lifecycle);
		}
		fputc('\n', out);
	}
	fputc('\n', out);
	if (run) {
		fputs("Command: fsbench run ", out);
		fsb_text_put(out, run);
		fputc('\n', out);
	}
	if (lc) {
		fputs("Lifecycle: fsbench lifecycle ", out);
		fsb_text_put(out, lc);
		fputc('\n', out);
	}
	if (run || lc)
		fputc('\n', out);
}

static int print_bonnie(FILE *out, const struct fsb_matrix_doc *d)
{
	bool header = false;
	size_t lw = 0;
	int err;

	/* One label column for all rows: a guest's "(guest, tcg)" widens it. */
	for (size_t i = 0; i < d->n; i++) {
		const struct fsb_result *r = d->entries[i].run_res;

		if (r && fsb_text_width(fsb_writer_label(r)) > lw)
			lw = fsb_text_width(fsb_writer_label(r));
	}
	for (size_t i = 0; i < d->n; i++) {
		const struct fsb_result *r = d->entries[i].run_res;

		if (!r)
			continue;
		if (!header && (err = fsb_bonnie_header_w(out, r, lw)))
			return err;
		header = true;
		if ((err = fsb_bonnie_row_w(out, r, lw)))
			return err;
	}
	if (header)
		fputc('\n', out);
	return 0;
}

/* A writing test of r whose device bytes are known, or NULL. */
static const struct fsb_test_result *device_test(const struct fsb_result *r, const char *id)
{
	const struct fsb_test_result *t = fsb_writer_test(r, id, "B/s");

	if (!t)
		t = fsb_writer_test(r, id, "ops/s");
	return t && t->has_wa ? t : NULL;
}

/* "256 MiB (1.01)": bytes at the device per run and the amplification. */
static void device_cell(const struct fsb_test_result *t, char *buf, size_t len)
{
	char size[32];

	fsb_size_format_human(t->dev_write_bytes, size, sizeof(size));
	snprintf(buf, len, "%s (%.2f)", size,
		 isfinite(t->write_amplification) ? t->write_amplification : 0.0);
}

/* line[0..len) without its trailing blanks, terminal-safe, and a newline. */
static void put_trimmed(FILE *out, char *line, size_t len)
{
	if (len >= 512)
		len = 511;
	line[len] = '\0';
	while (len > 0 && line[len - 1] == ' ')
		line[--len] = '\0';
	fsb_text_put(out, line);
	fputc('\n', out);
}

/*
 * What reached the device for each writing test, per setup: the bytes per
 * run and the write amplification, beside the data written (--data). Where
 * a compressing or deduplicating filesystem is compared this is the row
 * that shows it; nothing when no setup had its device counted.
 */
static void print_device(FILE *out, const struct fsb_matrix_doc *d)
{
	static const char *const ids[] = { "putc", "write", "rewrite", "randwrite" };
	size_t lw = 10, dw = 0, cw[4] = { 0 }, len;
	char cell[64], line[512];
	bool any = false;

	for (size_t i = 0; i < d->n; i++) {
		const struct fsb_result *r = d->entries[i].run_res;
		const char *data = r ? fsb_result_get_str(r, "data", NULL) : NULL;

		for (size_t c = 0; r && c < 4; c++) {
			const struct fsb_test_result *t = device_test(r, ids[c]);

			if (!t)
				continue;
			device_cell(t, cell, sizeof(cell));
			cw[c] = strlen(cell) > cw[c] ? strlen(cell) : cw[c];
			cw[c] = strlen(ids[c]) > cw[c] ? strlen(ids[c]) : cw[c];
			any = true;
		}
		if (r && fsb_text_width(d->entries[i].label) > lw)
			lw = fsb_text_width(d->entries[i].label);
		/* A data column only for documents that record --data. */
		if (data && strlen(data) + 1 > dw)
			dw = strlen(data) + 1 > 5 ? strlen(data) + 1 : 5;
	}
	if (!any)
		return;
	fputs("Device writes: bytes written at the device per run (write amplification)\n", out);
	len = (size_t)snprintf(line, sizeof(line), "%-*s |", (int)lw, "Filesystem");
	if (dw)
		len += (size_t)snprintf(line + len, sizeof(line) - len, " %-*s", (int)dw - 1,
					"data");
	for (size_t c = 0; c < 4 && len < sizeof(line); c++)
		if (cw[c])
			len += (size_t)snprintf(line + len, sizeof(line) - len, "  %-*s",
						(int)cw[c], ids[c]);
	put_trimmed(out, line, len);
	for (size_t k = 0; k < lw + 1; k++)
		fputc('-', out);
	fputc('|', out);
	for (size_t k = 0; k < dw; k++)
		fputc('-', out);
	for (size_t c = 0; c < 4; c++)
		for (size_t k = 0; cw[c] && k < cw[c] + 2; k++)
			fputc('-', out);
	fputc('\n', out);
	for (size_t i = 0; i < d->n; i++) {
		const struct fsb_result *r = d->entries[i].run_res;

		if (!r)
			continue;
		fsb_text_pad(out, d->entries[i].label, -(int)lw);
		fputs(" |", out);
		/* Cells into a line first: the last one's padding is trimmed. */
		len = 0;
		if (dw)
			len = (size_t)snprintf(line, sizeof(line), " %-*s", (int)dw - 1,
					       fsb_result_get_str(r, "data", "-"));
		for (size_t c = 0; c < 4 && len < sizeof(line); c++) {
			const struct fsb_test_result *t = device_test(r, ids[c]);

			if (!cw[c])
				continue;
			cell[0] = '\0';
			if (t)
				device_cell(t, cell, sizeof(cell));
			len += (size_t)snprintf(line + len, sizeof(line) - len, "  %-*s",
						(int)cw[c], cell);
		}
		/* The data value comes from the file: escaped. */
		put_trimmed(out, line, len);
	}
	fputc('\n', out);
}

static int print_create(FILE *out, const struct fsb_matrix_doc *d)
{
	bool header = false;
	int err;

	for (size_t i = 0; i < d->n; i++) {
		const struct fsb_result *r = d->entries[i].run_res;

		if (!r || !fsb_bonnie_pp_has_files(r))
			continue;
		if (!header && (err = fsb_bonnie_pp_file_header(out, r)))
			return err;
		header = true;
		if ((err = fsb_bonnie_pp_file_row(out, r)))
			return err;
	}
	if (header)
		fputc('\n', out);
	return 0;
}

static const struct fsb_test_result *phase(const struct fsb_result *r, const char *id)
{
	return r ? fsb_writer_test(r, id, "s") : NULL;
}

/* Rows setups, columns phases: "median [min-max]" in milliseconds. */
/* The lifecycle copies' --data: one for all, or "per setup" (each
 * setup's lifecycle line above says which). Nothing for documents from
 * before --data. */
static void print_lc_data(FILE *out, const struct fsb_matrix_doc *d)
{
	const char *data = NULL;

	for (size_t i = 0; i < d->n; i++) {
		const char *s = d->entries[i].lc_res
					? fsb_result_get_str(d->entries[i].lc_res, "data", NULL)
					: NULL;

		if (!s)
			continue;
		if (data && strcmp(data, s)) {
			fputs(", its data per setup", out);
			return;
		}
		data = s;
	}
	if (data) {
		fputs(" of ", out);
		fsb_text_put(out, data);
		fputs(" data", out);
	}
}

static void print_lifecycle(FILE *out, const struct fsb_matrix_doc *d)
{
	size_t width[NPHASES] = { 0 }, lw = 10, last = 0;
	uint64_t repeat, mkfs_repeat;
	bool any = false;
	char cell[96], size[32] = "";
	const struct fsb_result *first = NULL;

	for (size_t i = 0; i < d->n; i++) {
		const struct fsb_matrix_entry *e = &d->entries[i];

		if (!e->lc_res)
			continue;
		first = first ? first : e->lc_res;
		lw = fsb_text_width(e->label) > lw ? fsb_text_width(e->label) : lw;
		for (size_t p = 0; p < NPHASES; p++) {
			const struct fsb_test_result *t = phase(e->lc_res, phases[p]);

			if (!t)
				continue;
			fsb_matrix_fmt_phase(t->median, t->min, t->max, cell, sizeof(cell));
			width[p] = strlen(cell) > width[p] ? strlen(cell) : width[p];
			if (strlen(phases[p]) > width[p])
				width[p] = strlen(phases[p]);
			any = true;
		}
	}
	if (!any)
		return;
	for (size_t p = 0; p < NPHASES; p++)
		if (width[p])
			last = p;
	repeat = fsb_result_get_u64(first, "repeat", 0);
	mkfs_repeat = fsb_result_get_u64(first, "mkfs_repeat", 0);
	fprintf(out, "Lifecycle, ms: median [min-max] of %llu run%s", (unsigned long long)repeat,
		repeat == 1 ? "" : "s");
	if (width[0] && mkfs_repeat != repeat)
		fprintf(out, " (mkfs: %llu)", (unsigned long long)mkfs_repeat);
	if (width[4] || width[5]) {
		fsb_size_format_human(fsb_result_get_u64(first, "copy_size_bytes", 0), size,
				      sizeof(size));
		fprintf(out, "; the copy is %s", size);
		print_lc_data(out, d);
	}
	fputc('\n', out);
	fprintf(out, "%-*s |", (int)lw, "Filesystem");
	for (size_t p = 0; p < NPHASES; p++)
		if (width[p])
			fprintf(out, " %-*s", p < last ? (int)width[p] : 0, phases[p]);
	fputc('\n', out);
	for (size_t c = 0; c < lw + 1; c++)
		fputc('-', out);
	fputc('|', out);
	for (size_t p = 0; p < NPHASES; p++)
		for (size_t c = 0; width[p] && c < width[p] + 1; c++)
			fputc('-', out);
	fputc('\n', out);
	for (size_t i = 0; i < d->n; i++) {
		const struct fsb_matrix_entry *e = &d->entries[i];

		if (!e->lc_res)
			continue;
		fsb_text_pad(out, e->label, -(int)lw);
		fputs(" |", out);
		for (size_t p = 0; p < NPHASES; p++) {
			const struct fsb_test_result *t = phase(e->lc_res, phases[p]);

			if (!width[p])
				continue;
			if (t)
				fsb_matrix_fmt_phase(t->median, t->min, t->max, cell, sizeof(cell));
			else
				cell[0] = '\0';
			/* The last column is not padded: no trailing blanks. */
			fprintf(out, " %-*s", p < last ? (int)width[p] : 0, cell);
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

static void print_problems(FILE *out, const struct fsb_matrix_doc *d)
{
	bool header = false;

	for (size_t i = 0; i < d->n; i++) {
		const struct fsb_matrix_entry *e = &d->entries[i];

		if (e->status == FSB_MATRIX_OK && !e->note)
			continue;
		if (!header)
			fputs("Not measured, or not all of it:\n", out);
		header = true;
		if (e->status != FSB_MATRIX_OK) {
			fputs("  ", out);
			fsb_text_put(out, e->label);
			fprintf(out, ": %s: ", fsb_matrix_status_name(e->status));
			fsb_text_put(out, e->error ? e->error : "(no reason recorded)");
			fputc('\n', out);
		}
		if (e->note) {
			fputs("  ", out);
			fsb_text_put(out, e->label);
			fputs(": note: ", out);
			fsb_text_put(out, e->note);
			fputc('\n', out);
		}
	}
	if (header)
		fputc('\n', out);
}

/* The run view's method note, under each setup's own label. */
static int print_notes(FILE *out, const struct fsb_matrix_doc *d)
{
	static const char prefix[] = "# fsbench: ";

	for (size_t i = 0; i < d->n; i++) {
		const struct fsb_matrix_entry *e = &d->entries[i];
		char *buf = NULL;
		size_t len = 0;
		FILE *mem;
		int err;

		if (!e->run_res)
			continue;
		mem = open_memstream(&buf, &len);
		if (!mem)
			return -errno;
		err = fsb_writer_method_note(mem, e->run_res);
		if (fclose(mem) == EOF && !err)
			err = -EIO;
		if (!err) {
			if (!strncmp(buf, prefix, sizeof(prefix) - 1)) {
				/* The note is escaped already; the label is not. */
				fputs("# ", out);
				fsb_text_put(out, e->label);
				fprintf(out, ": %s", buf + sizeof(prefix) - 1);
			} else {
				fputs(buf, out);
			}
		}
		free(buf);
		if (err)
			return err;
	}
	return 0;
}

/* Each setup's raw device, as measured before its filesystem was made,
 * named by its setup: two setups' loop devices may even share a name. */
static void print_devcaps(FILE *out, const struct fsb_matrix_doc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct fsb_matrix_entry *e = &d->entries[i];

		if (e->run_res && e->run_res->devcap.present)
			fsb_text_print_devcap_of(out, e->run_res, e->label);
		else if (e->lc_res && e->lc_res->devcap.present)
			fsb_text_print_devcap_of(out, e->lc_res, e->label);
	}
}

/* A caveat about the machine, the same for every setup: said once. */
static bool machine_caveat(const struct fsb_caveat *c)
{
	return !strcmp(c->id, "vm") || !strcmp(c->id, "balloon") ||
	       (!strcmp(c->id, "emulation") && !strncmp(c->evidence, "host.", 5));
}

/* The machine caveats said so far, once each. */
struct said {
	struct fsb_caveat v[FSB_CAVEATS_MAX];
	size_t n;
};

/* Whether s holds c (same_text) or a caveat of c's kind. */
static bool said_before(const struct said *s, const struct fsb_caveat *c, bool same_text)
{
	for (size_t k = 0; k < s->n; k++)
		if (same_text ? fsb_caveat_same(&s->v[k], c) : !strcmp(s->v[k].id, c->id))
			return true;
	return false;
}

static void print_doc_caveats(FILE *out, const struct fsb_matrix_entry *e,
			      const struct fsb_result *r, const char *suite, bool *any,
			      struct said *machine)
{
	struct fsb_caveat cav[FSB_CAVEATS_MAX];
	size_t n = r ? fsb_caveats_find(r, cav, FSB_CAVEATS_MAX) : 0;

	for (size_t k = 0; k < n; k++) {
		/* A machine caveat is said once, unlabelled, by the first
		 * setup that has it; a setup whose machine says otherwise (a
		 * guest beside the host: "(qemu)" after "(kvm)") says its own,
		 * labelled. */
		bool m = machine_caveat(&cav[k]) && !said_before(machine, &cav[k], false);

		if (machine_caveat(&cav[k]) && said_before(machine, &cav[k], true))
			continue;
		if (m && machine->n < FSB_CAVEATS_MAX)
			machine->v[machine->n++] = cav[k];
		if (!*any)
			fputs("\nCaveats:\n", out);
		*any = true;
		fputs("  - ", out);
		if (!m) {
			fsb_text_put(out, e->label);
			fprintf(out, " (%s): ", suite);
		}
		fsb_caveat_put(out, &cav[k]);
	}
}

static void print_caveats(FILE *out, const struct fsb_matrix_doc *d)
{
	struct said machine = { .n = 0 };
	bool any = false;

	for (size_t i = 0; i < d->n; i++) {
		print_doc_caveats(out, &d->entries[i], d->entries[i].run_res, "run", &any,
				  &machine);
		print_doc_caveats(out, &d->entries[i], d->entries[i].lc_res, "lifecycle", &any,
				  &machine);
	}
}

int fsb_matrix_write_text(FILE *out, const struct fsb_matrix_doc *d)
{
	int err;

	print_head(out, d);
	print_overrides(out, d);
	print_config(out, d);
	print_guest_hint(out, d);
	if ((err = print_bonnie(out, d)) || (err = print_create(out, d)))
		return err;
	print_device(out, d);
	print_lifecycle(out, d);
	print_problems(out, d);
	if ((err = print_notes(out, d)))
		return err;
	print_devcaps(out, d);
	print_caveats(out, d);
	return ferror(out) ? -EIO : 0;
}
