#include "report/lifecycle.h"
#include "report/caveats.h"
#include "report/writer.h"
#include "util/error.h"
#include "util/size.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The phases in the reference's order, and their headings. */
static const struct {
	const char *id;
	const char *heading; /* the words before the label */
	bool sized;	     /* heading names the copy size: "Copy 16MiB file to " */
	const char *timed;   /* what each "real" line timed, named on the line */
} phases[] = {
	{ "mkfs", "Mkfs ", false, "mkfs" },
	{ "mkfs-mount", "Mount ", false, "mount" },
	{ "mkfs-umount", "Umount ", false, "umount" },
	{ "mount-umount", "Mount/umount ", false, "mount+umount" },
	{ "write", "Copy %s file to ", true, "mount+copy+umount" },
	{ "read", "Read %s from ", true, "mount+read+umount" },
};

#define NPHASES (sizeof(phases) / sizeof(phases[0]))

char *fsb_lifecycle_fmt_real(double s, char *buf, size_t len)
{
	long long us, ms;

	if (!isfinite(s) || s < 0)
		s = 0;
	/* Round once, in integers, so 59.9996 s prints as 1m0.000s. */
	if (s < 0.01) {
		us = llround(s * 1e6);
		snprintf(buf, len, "0m0.%06llds", us);
		return buf;
	}
	ms = llround(s * 1e3);
	snprintf(buf, len, "%lldm%lld.%03llds", ms / 60000, ms % 60000 / 1000, ms % 1000);
	return buf;
}

/* "16MiB" as in the reference's headings; exact, never rounded. */
static void fmt_copy_size(uint64_t bytes, char *buf, size_t len)
{
	if (bytes && bytes % (1u << 30) == 0)
		snprintf(buf, len, "%lluGiB", (unsigned long long)(bytes >> 30));
	else if (bytes && bytes % (1u << 20) == 0)
		snprintf(buf, len, "%lluMiB", (unsigned long long)(bytes >> 20));
	else if (bytes && bytes % 1024 == 0)
		snprintf(buf, len, "%lluKiB", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
}

static const struct fsb_test_result *phase_of(const struct fsb_result *r, const char *id)
{
	if (!r || !r->kind || strcmp(r->kind, "lifecycle"))
		return NULL;
	return fsb_writer_test(r, id, "s");
}

static void block(FILE *out, const struct fsb_result *r, size_t p, const struct fsb_test_result *t)
{
	const char *label = fsb_writer_label(r);
	char a[64], b[64], c[64];

	if (phases[p].sized) {
		fmt_copy_size(fsb_result_get_u64(r, "copy_size_bytes", t->work), a, sizeof(a));
		fprintf(out, phases[p].heading, a);
	} else {
		fputs(phases[p].heading, out);
	}
	/* The label is anyone's text: escaped for the terminal. */
	fsb_text_put(out, label);
	fputc('\n', out);
	/* Highest first, as the reference lists them; each line says what it
	 * timed and which of the runs it is, since three bare "real" lines
	 * read as three different steps. */
	fprintf(out, "real\t%s\t%s, highest of %zu\n", fsb_lifecycle_fmt_real(t->max, a, sizeof(a)),
		phases[p].timed, t->nruns);
	fprintf(out, "real\t%s\t%s, median\n", fsb_lifecycle_fmt_real(t->median, a, sizeof(a)),
		phases[p].timed);
	fprintf(out, "real\t%s\t%s, lowest\n", fsb_lifecycle_fmt_real(t->min, a, sizeof(a)),
		phases[p].timed);
	if (t->has_device) {
		fsb_size_format_human(t->dev_read_bytes, b, sizeof(b));
		fsb_size_format_human(t->dev_write_bytes, c, sizeof(c));
		fprintf(out, "device\tread %s, written %s (mean of %zu runs)\n", b, c, t->nruns);
	}
	if (t->has_wa)
		fprintf(out, "write amplification\t%.2f (device bytes written / bytes copied)\n",
			isfinite(t->write_amplification) ? t->write_amplification : 0.0);
	/* The copy's data, where a copy is timed, after the reference's lines
	 * (absent from documents made before --data). */
	if (phases[p].sized && fsb_result_get_str(r, "data", NULL)) {
		fputs("data\t", out);
		fsb_text_put(out, fsb_result_get_str(r, "data", NULL));
		fputc('\n', out);
	}
}

int fsb_write_lifecycle_many(FILE *out, const struct fsb_result *const *rs, size_t n)
{
	bool any = false, first = true;

	for (size_t p = 0; p < NPHASES; p++) {
		bool here = false;

		for (size_t i = 0; i < n; i++) {
			const struct fsb_test_result *t = phase_of(rs[i], phases[p].id);

			if (!t || !t->nruns)
				continue;
			if (!here && !first)
				fputc('\n', out);
			block(out, rs[i], p, t);
			here = any = true;
			first = false;
		}
	}
	if (!any) {
		fsb_err("cannot show %s in lifecycle format: no lifecycle phase in it",
			n == 1 ? "this result" : "these results");
		return -EINVAL;
	}
	return ferror(out) ? -EIO : 0;
}

int fsb_write_lifecycle(FILE *out, const struct fsb_result *r)
{
	int err = fsb_write_lifecycle_many(out, &r, 1);

	if (err)
		return err;
	fsb_text_print_devcap(out, r);
	return fsb_caveats_print(out, r, "");
}
