/*
 * Loading a matrix configuration (see matrix.h).
 *
 * inih does the INI syntax; this file knows the keys. inih calls us per
 * key without the line number and never for a section without keys, so
 * the lines reach inih through our own reader, which counts them, notes
 * each section header (an empty [xfs] is a setup too) and strips leading
 * blanks: with inih's multi-line values, an indented `key = value` would
 * otherwise be glued to the key above it. The reader is the one place
 * that sees the file's bytes: it ends lines at LF, CR or CRLF, never
 * writes past inih's buffer, and refuses binary content.
 */
#include "core/matrix.h"
#include "device/mkfs.h"
#include "util/spawn.h"
#include "util/size.h"
#include "util/trust.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum key {
	K_TYPE, K_MKFS, K_OPTIONS, K_DEVICES, K_IMAGE_SIZE, K_FILL, K_RUN, K_LIFECYCLE,
	K_WORKDIR, K_REPEAT, K_GUEST, K_MTD, NKEYS
};

#define IN_GLOBAL 1u
#define IN_SETUP 2u

static const struct {
	const char *name;
	unsigned where;
} keys[NKEYS] = {
	[K_TYPE] = { "type", IN_SETUP },
	[K_MKFS] = { "mkfs", IN_SETUP },
	[K_OPTIONS] = { "options", IN_SETUP },
	[K_DEVICES] = { "devices", IN_SETUP },
	[K_IMAGE_SIZE] = { "image_size", IN_GLOBAL | IN_SETUP },
	[K_FILL] = { "fill", IN_GLOBAL | IN_SETUP },
	[K_RUN] = { "run", IN_GLOBAL | IN_SETUP },
	[K_LIFECYCLE] = { "lifecycle", IN_GLOBAL | IN_SETUP },
	[K_WORKDIR] = { "workdir", IN_GLOBAL },
	[K_REPEAT] = { "repeat", IN_GLOBAL },
	[K_GUEST] = { "guest", IN_SETUP },
	[K_MTD] = { "mtd", IN_SETUP },
};

static const char global_keys[] = "image_size, fill, workdir, run, lifecycle, repeat";
static const char setup_keys[] =
	"type, mkfs, options, devices, image_size, fill, run, lifecycle, guest, mtd";

/* A section as written: its values (NULL = not set) and their lines. */
struct section {
	char *name;
	unsigned line;
	char *val[NKEYS];
	unsigned val_line[NKEYS];
};

struct loader {
	const char *path;
	FILE *f;
	unsigned lineno;
	bool stop;                  /* the reader found binary content: no more lines */
	struct section global;
	bool global_seen;
	struct section *setups;
	size_t nsetups;
	struct section *cur;        /* where keys go now; NULL before any header */
	unsigned err_line;          /* first error found by us (0: none) */
	char err[512];
	bool nomem;
};

/* Record the first error only: later ones are often its consequences. */
static void __attribute__((format(printf, 3, 4)))
fail(struct loader *ld, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (ld->err_line)
		return;
	ld->err_line = line ? line : 1;
	va_start(ap, fmt);
	vsnprintf(ld->err, sizeof(ld->err), fmt, ap);
	va_end(ap);
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* A label goes into every report, CSV and --only lists: keep it plain. */
static const char *label_problem(const char *name)
{
	if (!*name)
		return "is empty";
	if (strlen(name) > FSB_MATRIX_MAX_LABEL)
		return "is longer than 48 characters";
	for (const char *p = name; *p; p++) {
		if (*p == ',')
			return "contains ',' (it separates labels in --only and CSV fields)";
		if (iscntrl((unsigned char)*p))
			return "contains a control character";
	}
	return NULL;
}

static bool is_global_lookalike(const char *name)
{
	static const char *const names[] = {
		"global", "globals", "default", "defaults", "common", "all", "general", NULL,
	};

	for (size_t i = 0; names[i]; i++)
		if (!strcasecmp(name, names[i]))
			return true;
	return false;
}

static void section_header(struct loader *ld, char *name)
{
	const char *why;
	struct section *grown;

	name = trim(name);
	if (!strcmp(name, "global")) {
		if (ld->global_seen) {
			fail(ld, ld->lineno, "section [global] appears twice (first on line %u)",
			     ld->global.line);
			return;
		}
		ld->global_seen = true;
		ld->global.line = ld->lineno;
		ld->cur = &ld->global;
		return;
	}
	/* Every other section is a setup, so a misspelt [global] would
	 * quietly become a filesystem called "globals": refuse look-alikes. */
	if (is_global_lookalike(name)) {
		fail(ld, ld->lineno, "unknown section [%s]: shared settings go in [global], "
		     "setups in [LABEL]", name);
		ld->cur = NULL;
		return;
	}
	if ((why = label_problem(name))) {
		fail(ld, ld->lineno, "section name [%s] %s", name, why);
		ld->cur = NULL;
		return;
	}
	for (size_t i = 0; i < ld->nsetups; i++) {
		if (!strcmp(ld->setups[i].name, name)) {
			fail(ld, ld->lineno, "section [%s] appears twice (first on line %u)", name,
			     ld->setups[i].line);
			return;
		}
	}
	grown = realloc(ld->setups, (ld->nsetups + 1) * sizeof(*grown));
	if (!grown) {
		ld->nomem = true;
		return;
	}
	ld->setups = grown;
	memset(&grown[ld->nsetups], 0, sizeof(*grown));
	grown[ld->nsetups].name = strdup(name);
	grown[ld->nsetups].line = ld->lineno;
	if (!grown[ld->nsetups].name)
		ld->nomem = true;
	ld->cur = &grown[ld->nsetups++];
}

/* A line being read into inih's buffer. */
struct line {
	char *str;
	size_t len, max;        /* max: characters that fit with "\n" and NUL */
	bool leading;           /* still in the leading blanks */
	bool too_long;
};

static void line_put(struct line *l, int c)
{
	if (l->leading && (c == ' ' || c == '\t'))
		return;
	l->leading = false;
	if (l->len < l->max)
		l->str[l->len++] = (char)c;
	else
		l->too_long = true;
}

/*
 * inih's reader: one line per call, so ld->lineno is inih's line number.
 * The line goes straight into inih's buffer (num bytes, fixed when libinih
 * was built: 200 by default), which must hold it, the newline we end it
 * with and a NUL; whatever the file holds, nothing is written past that.
 * A line ends at LF, at CR (old Mac files) or at CRLF (one end, not two).
 * Leading blanks and, on line 1, a UTF-8 byte order mark are dropped.
 * A NUL byte or another control character (tab apart) means this is not
 * a text file: refused with its line, and nothing after it is read.
 */
static char *read_line(char *str, int num, void *stream)
{
	static const unsigned char bom[] = { 0xef, 0xbb, 0xbf };
	struct loader *ld = stream;
	struct line l = { .str = str, .leading = true };
	size_t nbom;     /* bytes of a byte order mark seen; 3: none expected */
	int c, bad = -1;

	if (ld->stop || num < 4 || (c = getc(ld->f)) == EOF)
		return NULL;
	l.max = (size_t)num - 3;
	nbom = ++ld->lineno == 1 ? 0 : 3;
	for (; c != EOF && c != '\n'; c = getc(ld->f)) {
		if (nbom < 3) {
			if (c == bom[nbom]) {
				nbom++;
				continue;
			}
			/* Not a byte order mark after all: its bytes are the line's. */
			for (size_t i = 0; i < nbom; i++)
				line_put(&l, bom[i]);
			nbom = 3;
		}
		if (c == '\r') {
			c = getc(ld->f);
			if (c != '\n' && c != EOF)
				ungetc(c, ld->f);
			break;
		}
		if (bad < 0 && ((c < 0x20 && c != '\t') || c == 0x7f))
			bad = c;
		line_put(&l, c);
	}
	for (size_t i = 0; nbom < 3 && i < nbom; i++)
		line_put(&l, bom[i]);
	if (bad == 0)
		fail(ld, ld->lineno, "contains a NUL byte: not a text file");
	else if (bad > 0)
		fail(ld, ld->lineno, "contains the control character 0x%02x: not a text file",
		     (unsigned)bad);
	else if (l.too_long)
		fail(ld, ld->lineno, "line too long (at most %zu characters)", l.max);
	if (bad >= 0 || l.too_long) {
		/* Not the file we want: reading on would only bring more of it. */
		ld->stop = true;
		return NULL;
	}
	str[l.len] = '\0';
	if (str[0] == '[') {
		char *end = strchr(str, ']');

		/* Without ']' inih reports the line as a syntax error. */
		if (end) {
			/* A copy: the name is trimmed, inih still parses the line. */
			char *name = strndup(str + 1, (size_t)(end - str - 1));

			if (name)
				section_header(ld, name);
			else
				ld->nomem = true;
			free(name);
		}
	}
	str[l.len] = '\n';
	str[l.len + 1] = '\0';
	return str;
}

static int find_key(const char *name)
{
	for (int k = 0; k < NKEYS; k++)
		if (!strcmp(keys[k].name, name))
			return k;
	return -1;
}

/*
 * Options of `fsbench run` / `fsbench lifecycle` that the matrix sets for
 * every setup: the view, the output file, the label, the progress, the
 * device, the filesystem and how it is made and mounted. Set in the file
 * they would be overridden without a word, so they are refused.
 */
static const char *const run_reserved[] = {
	"format", "output", "label", "progress", "help", "version", NULL,
};
static const char *const lc_reserved[] = {
	"format", "output", "label", "progress", "help", "version", "device", "image",
	"image-size", "destroy-data", "fs", "type", "mkfs", "options", "fill", NULL,
};

struct arg_rules {
	const char *const *reserved;
	const char *short_reserved;  /* letters of reserved short options */
	const char *short_arg;       /* letters of short options taking a value */
};

static const struct arg_rules run_rules = { run_reserved, "folhV", "snrtlfo" };
static const struct arg_rules lc_rules = { lc_reserved, "folhV", "rlfo" };

/* The first reserved option among words, copied to bad; false when none. */
static bool reserved_option(char **words, const struct arg_rules *r, char *bad, size_t len)
{
	for (size_t i = 0; words[i]; i++) {
		const char *w = words[i];

		if (!strcmp(w, "--"))
			break;
		if (w[0] == '-' && w[1] == '-') {
			size_t n = strcspn(w + 2, "=");

			/* getopt_long takes an unambiguous prefix: "--out" is --output. */
			for (size_t j = 0; n && r->reserved[j]; j++) {
				if (!strncmp(r->reserved[j], w + 2, n)) {
					snprintf(bad, len, "--%s", r->reserved[j]);
					return true;
				}
			}
		} else if (w[0] == '-' && isalpha((unsigned char)w[1])) {
			/* A cluster ("-qf"): letters until one that takes a value. */
			for (const char *c = w + 1; *c; c++) {
				if (strchr(r->short_reserved, *c)) {
					snprintf(bad, len, "-%c", *c);
					return true;
				}
				if (strchr(r->short_arg, *c))
					break;
			}
		}
	}
	return false;
}

static bool check_args(struct loader *ld, const char *key, const char *value,
		       const struct arg_rules *rules)
{
	const char *why;
	char **words = NULL, bad[64];
	bool ok = true;

	if (!*value)
		return true;
	if (fsb_words_split(value, &words, &why) < 0) {
		fail(ld, ld->lineno, "invalid %s '%s': %s", key, value, why);
		return false;
	}
	if (reserved_option(words, rules, bad, sizeof(bad))) {
		fail(ld, ld->lineno, "%s: option '%s' is set by fsbench matrix, not in the file",
		     key, bad);
		ok = false;
	}
	fsb_words_free(words);
	return ok;
}

static bool parse_count(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !errno && !*end && *out >= min && *out <= max;
}

/* Check one value where it is written, so the error names its line. */
static bool check_value(struct loader *ld, int k, const char *v)
{
	unsigned long n;
	uint64_t size;
	enum fsb_fill fill;
	const char *why;
	char **words = NULL, bad[PATH_MAX + 256];

	switch (k) {
	case K_TYPE:
		if (!*v || strpbrk(v, "/ \t")) {
			fail(ld, ld->lineno, "invalid type '%s': expected a filesystem type such as "
			     "ext4, xfs or btrfs", v);
			return false;
		}
		return true;
	case K_MKFS:
		if (fsb_mkfs_is_none(v))
			return true;
		if (fsb_words_split(v, &words, &why) < 0) {
			fail(ld, ld->lineno, "invalid mkfs '%s': %s", v, why);
			return false;
		}
		fsb_words_free(words);
		/* Only the devices made for the setup, through placeholders. */
		if (fsb_mkfs_check_template(v, bad, sizeof(bad))) {
			fail(ld, ld->lineno, "invalid mkfs '%s': %s", v, bad);
			return false;
		}
		return true;
	case K_DEVICES:
		if (!parse_count(v, 1, FSB_MATRIX_MAX_DEVICES, &n)) {
			fail(ld, ld->lineno, "invalid devices '%s': expected a whole number from 1 to %d",
			     v, FSB_MATRIX_MAX_DEVICES);
			return false;
		}
		return true;
	case K_REPEAT:
		if (!parse_count(v, 1, 1000, &n)) {
			fail(ld, ld->lineno, "invalid repeat '%s': expected a whole number from 1 to 1000",
			     v);
			return false;
		}
		return true;
	case K_IMAGE_SIZE:
		if (fsb_size_parse(v, &size) || !size) {
			fail(ld, ld->lineno, "invalid image_size '%s': expected a size such as 512m or 2g",
			     v);
			return false;
		}
		return true;
	case K_FILL:
		if (fsb_fill_parse(v, &fill)) {
			fail(ld, ld->lineno, "invalid fill '%s': expected 0xff, zero, random or none", v);
			return false;
		}
		return true;
	case K_GUEST:
		if (strcmp(v, "yes") && strcmp(v, "no")) {
			fail(ld, ld->lineno, "invalid guest '%s': expected yes or no", v);
			return false;
		}
		return true;
	case K_MTD:
		/* An erase block size, as lifecycle --mtd takes it. */
		if (fsb_size_parse(v, &size) || size < 4096 || size > (16u << 20) ||
		    (size & (size - 1))) {
			fail(ld, ld->lineno, "invalid mtd '%s': expected an erase block size, a "
			     "power of two from 4k to 16m (128k)", v);
			return false;
		}
		return true;
	case K_WORKDIR:
		if (!*v) {
			fail(ld, ld->lineno, "workdir is empty: give a directory for the images");
			return false;
		}
		return true;
	case K_RUN:
		return check_args(ld, "run", v, &run_rules);
	case K_LIFECYCLE:
		return check_args(ld, "lifecycle", v, &lc_rules);
	default:
		return true;
	}
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct loader *ld = user;
	struct section *s = ld->cur;
	bool global = s == &ld->global;
	int k;

	(void)section; /* our reader knows the section, with its line */
	if (!s) {
		/* A key before any header, or under a refused header. */
		if (!ld->err_line)
			fail(ld, ld->lineno, "key '%s' outside a section: start with [global] or "
			     "[LABEL]", name);
		return 0;
	}
	k = find_key(name);
	if (k < 0 || !(keys[k].where & (global ? IN_GLOBAL : IN_SETUP))) {
		if (k >= 0 && global)
			fail(ld, ld->lineno, "key '%s' belongs in a setup section, not [global] "
			     "(keys of [global]: %s)", name, global_keys);
		else if (k >= 0)
			fail(ld, ld->lineno, "key '%s' belongs in [global], not [%s]", name, s->name);
		else
			fail(ld, ld->lineno, "unknown key '%s' in [%s] (keys: %s)", name,
			     global ? "global" : s->name, global ? global_keys : setup_keys);
		return 0;
	}
	if (s->val[k]) {
		fail(ld, ld->lineno, "key '%s' set twice in [%s] (first on line %u)", name,
		     global ? "global" : s->name, s->val_line[k]);
		return 0;
	}
	if (!check_value(ld, k, value))
		return 0;
	s->val[k] = strdup(value);
	s->val_line[k] = ld->lineno;
	if (!s->val[k]) {
		ld->nomem = true;
		return 0;
	}
	return 1;
}

/* The type a label implies: its leading letters and digits ("ext3-wb"). */
static char *type_from_label(const char *label)
{
	size_t n = 0;
	char *t;

	while (isalnum((unsigned char)label[n]))
		n++;
	t = strndup(label, n);
	for (size_t i = 0; t && t[i]; i++)
		t[i] = (char)tolower((unsigned char)t[i]);
	return t;
}

/* A setup's own value, else [global]'s; NULL when neither set it. */
static const char *inherit(const struct loader *ld, const struct section *s, int k,
			   unsigned *line)
{
	if (s->val[k]) {
		*line = s->val_line[k];
		return s->val[k];
	}
	*line = ld->global.val_line[k];
	return ld->global.val[k];
}

static int resolve_guest(struct loader *ld, const struct section *s,
			 struct fsb_matrix_setup *out);

static int resolve_setup(struct loader *ld, const struct section *s, struct fsb_matrix_setup *out)
{
	char tmpl[256];
	const char *v, *why;
	unsigned line;
	unsigned long n;
	int used;

	out->line = s->line;
	if (!(out->label = strdup(s->name)))
		return -ENOMEM;
	out->type = s->val[K_TYPE] ? strdup(s->val[K_TYPE]) : type_from_label(s->name);
	if (!out->type)
		return -ENOMEM;
	if (!*out->type) {
		fail(ld, s->line, "[%s]: no type: set 'type = ...' (a label such as [ext4-wb] "
		     "implies the type by its leading letters and digits)", s->name);
		return -EINVAL;
	}
	out->devices = 1;
	if (s->val[K_DEVICES] && parse_count(s->val[K_DEVICES], 1, FSB_MATRIX_MAX_DEVICES, &n))
		out->devices = (unsigned)n;
	if (s->val[K_MKFS]) {
		out->mkfs = strdup(s->val[K_MKFS]);
	} else if (out->devices > 1) {
		fail(ld, s->line, "[%s]: devices = %u needs a mkfs template naming them "
		     "({devs}, or {dev1} to {dev%u})", s->name, out->devices, out->devices);
		return -EINVAL;
	} else {
		if (fsb_mkfs_default_template(out->type, tmpl, sizeof(tmpl))) {
			fail(ld, s->line, "[%s]: type '%s' is too long", s->name, out->type);
			return -EINVAL;
		}
		out->mkfs = strdup(tmpl);
	}
	if (!out->mkfs)
		return -ENOMEM;
	line = s->val[K_MKFS] ? s->val_line[K_MKFS] : s->line;
	if (fsb_mkfs_is_none(out->mkfs)) {
		if (out->devices > 1) {
			fail(ld, line, "[%s]: mkfs = none works on one device, not %u", s->name,
			     out->devices);
			return -EINVAL;
		}
	} else {
		used = fsb_matrix_template_devices(out->mkfs, out->devices, &why);
		if (used < 0) {
			fail(ld, line, "[%s]: invalid mkfs '%s': %s (devices = %u)", s->name,
			     out->mkfs, why, out->devices);
			return -EINVAL;
		}
		if ((unsigned)used < out->devices) {
			fail(ld, line, "[%s]: mkfs names %d of its %u devices: use {devs}, or "
			     "{dev1} to {dev%u}", s->name, used, out->devices, out->devices);
			return -EINVAL;
		}
	}
	if (!(out->options = strdup(s->val[K_OPTIONS] ? s->val[K_OPTIONS] : "")))
		return -ENOMEM;
	out->image_bytes = FSB_MATRIX_DEFAULT_IMAGE_BYTES;
	if ((v = inherit(ld, s, K_IMAGE_SIZE, &line)))
		fsb_size_parse(v, &out->image_bytes);
	out->fill = FSB_MATRIX_DEFAULT_FILL;
	if ((v = inherit(ld, s, K_FILL, &line)))
		fsb_fill_parse(v, &out->fill);
	/* An empty value in a setup switches the global one off. */
	if ((v = inherit(ld, s, K_RUN, &line)) && *v) {
		if (!(out->run = strdup(v)))
			return -ENOMEM;
		out->run_line = line;
	}
	if ((v = inherit(ld, s, K_LIFECYCLE, &line)) && *v) {
		if (!(out->lifecycle = strdup(v)))
			return -ENOMEM;
		out->lifecycle_line = line;
	}
	if (!out->run && !out->lifecycle) {
		fail(ld, s->line, "[%s]: nothing to do: set run or lifecycle (here or in [global])",
		     s->name);
		return -EINVAL;
	}
	return resolve_guest(ld, s, out);
}

/*
 * guest = yes: the setup runs in a QEMU guest (fsbench guest), one boot
 * per suite, on the guest's first virtio disk (image_size, fill): the run
 * suite on the filesystem the guest makes with the setup's mkfs and
 * mounts with its options, the lifecycle on the bare disk. mtd = SIZE
 * makes that disk emulated flash with erase blocks of SIZE (lifecycle
 * only: run measures a mounted block device filesystem).
 */
static int resolve_guest(struct loader *ld, const struct section *s,
			 struct fsb_matrix_setup *out)
{
	out->guest = s->val[K_GUEST] && !strcmp(s->val[K_GUEST], "yes");
	if (s->val[K_MTD]) {
		fsb_size_parse(s->val[K_MTD], &out->mtd_erase_bytes);
		if (!out->guest) {
			fail(ld, s->val_line[K_MTD], "[%s]: mtd needs guest = yes (emulated flash "
			     "is made in a guest: the host kernel has no MTD)", s->name);
			return -EINVAL;
		}
	}
	if (!out->guest)
		return 0;
	if (out->run && out->mtd_erase_bytes) {
		fail(ld, out->run_line, "[%s]: run does not work on mtd (flash) setups: set "
		     "'run =' for this setup (the lifecycle measures the flash)", s->name);
		return -EINVAL;
	}
	if (out->devices > 1) {
		fail(ld, s->val_line[K_DEVICES], "[%s]: guest = yes works on one device, not %u",
		     s->name, out->devices);
		return -EINVAL;
	}
	if (out->fill == FSB_FILL_RANDOM) {
		fail(ld, s->val[K_FILL] ? s->val_line[K_FILL] : s->val_line[K_GUEST],
		     "[%s]: a guest's disk is filled with 0xff, zero or none, not random",
		     s->name);
		return -EINVAL;
	}
	if (out->mtd_erase_bytes && s->val[K_MKFS] && !fsb_mkfs_is_none(out->mkfs)) {
		fail(ld, s->val_line[K_MKFS], "[%s]: mkfs does not go with mtd: on flash, "
		     "jffs2 formats on mount and ubifs is made by the UBI tools", s->name);
		return -EINVAL;
	}
	return 0;
}

static void section_release(struct section *s)
{
	free(s->name);
	for (int k = 0; k < NKEYS; k++)
		free(s->val[k]);
}

static int resolve(struct loader *ld, struct fsb_matrix_config *cfg)
{
	unsigned long n;
	int err;

	if (!ld->nsetups) {
		fail(ld, ld->lineno, "no setups: add a [LABEL] section per filesystem setup");
		return -EINVAL;
	}
	if (ld->global.val[K_WORKDIR] && !(cfg->workdir = strdup(ld->global.val[K_WORKDIR])))
		return -ENOMEM;
	if (ld->global.val[K_REPEAT] && parse_count(ld->global.val[K_REPEAT], 1, 1000, &n))
		cfg->repeat = (unsigned)n;
	cfg->setups = calloc(ld->nsetups, sizeof(*cfg->setups));
	if (!cfg->setups)
		return -ENOMEM;
	cfg->nsetups = ld->nsetups;
	for (size_t i = 0; i < ld->nsetups; i++)
		if ((err = resolve_setup(ld, &ld->setups[i], &cfg->setups[i])))
			return err;
	return 0;
}

int fsb_matrix_config_load_stream(FILE *f, const char *path, struct fsb_matrix_config *cfg,
				  char *why, size_t why_len)
{
	struct loader *ld;
	int rc, err = 0;

	memset(cfg, 0, sizeof(*cfg));
	ld = calloc(1, sizeof(*ld));
	if (!ld) {
		snprintf(why, why_len, "%s: out of memory", path);
		return -ENOMEM;
	}
	ld->path = path;
	ld->f = f;
	if (!(cfg->path = strdup(path))) {
		err = -ENOMEM;
		goto out;
	}
	rc = ini_parse_stream(read_line, ld, handler, ld);
	if (ferror(ld->f)) {
		err = -EIO;
		snprintf(why, why_len, "cannot read '%s': %s", path, strerror(EIO));
		goto out;
	}
	if (ld->nomem || rc == -2) {
		err = -ENOMEM;
		goto out;
	}
	/* inih's own complaints (no '=', no ']') come without a message. */
	if (rc > 0 && (!ld->err_line || (unsigned)rc < ld->err_line)) {
		ld->err_line = 0;
		fail(ld, (unsigned)rc, "syntax error: expected [section], key = value, or a "
		     "comment starting with '#' or ';'");
	}
	if (!ld->err_line)
		err = resolve(ld, cfg);
	if (ld->err_line)
		err = -EINVAL;
	if (err == -EINVAL)
		snprintf(why, why_len, "%s:%u: %s", path, ld->err_line, ld->err);
out:
	if (err == -ENOMEM)
		snprintf(why, why_len, "%s: out of memory", path);
	section_release(&ld->global);
	for (size_t i = 0; i < ld->nsetups; i++)
		section_release(&ld->setups[i]);
	free(ld->setups);
	free(ld);
	return err;
}

int fsb_matrix_config_load(const char *path, struct fsb_matrix_config *cfg, char *why,
			   size_t why_len)
{
	FILE *f;
	int fd, err;

	memset(cfg, 0, sizeof(*cfg));
	/* The file is code run as root: opened once, checked on that
	 * descriptor (and its directories), parsed from it. */
	fd = fsb_trusted_file_open(path, fsb_trust_invoking_uid(), why, why_len);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "r");
	if (!f) {
		err = -errno;
		snprintf(why, why_len, "cannot read '%s': %s", path, strerror(errno));
		close(fd);
		return err;
	}
	err = fsb_matrix_config_load_stream(f, path, cfg, why, why_len);
	fclose(f);
	return err;
}

void fsb_matrix_config_release(struct fsb_matrix_config *cfg)
{
	for (size_t i = 0; cfg->setups && i < cfg->nsetups; i++) {
		struct fsb_matrix_setup *s = &cfg->setups[i];

		free(s->label);
		free(s->type);
		free(s->mkfs);
		free(s->options);
		free(s->run);
		free(s->lifecycle);
	}
	free(cfg->setups);
	free(cfg->path);
	free(cfg->workdir);
	memset(cfg, 0, sizeof(*cfg));
}

const struct fsb_matrix_setup *fsb_matrix_config_find(const struct fsb_matrix_config *cfg,
						      const char *label)
{
	for (size_t i = 0; i < cfg->nsetups; i++)
		if (!strcmp(cfg->setups[i].label, label))
			return &cfg->setups[i];
	return NULL;
}

int fsb_matrix_mkfs_argv(const struct fsb_matrix_setup *s, const char *const *devs, size_t n,
			 char ***argv, const char **why)
{
	char **words = NULL;
	int rc;

	*argv = NULL;
	if (fsb_mkfs_is_none(s->mkfs)) {
		*why = "the setup has no mkfs step (mkfs = none)";
		return -ENOENT;
	}
	rc = fsb_words_split(s->mkfs, &words, why);
	if (rc < 0)
		return rc;
	rc = fsb_mkfs_expand(words, devs, n, argv, why);
	fsb_words_free(words);
	return rc;
}

int fsb_matrix_template_devices(const char *tmpl, size_t n, const char **why)
{
	/* Stand-ins no template contains by accident. */
	char names[FSB_MATRIX_MAX_DEVICES][24];
	const char *devs[FSB_MATRIX_MAX_DEVICES];
	char **words = NULL, **argv = NULL;
	int rc, used = 0;

	if (n < 1 || n > FSB_MATRIX_MAX_DEVICES) {
		*why = "the number of devices is out of range";
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "\x01" "fsbench-dev%zu\x01", i + 1);
		devs[i] = names[i];
	}
	rc = fsb_words_split(tmpl, &words, why);
	if (rc < 0)
		return rc;
	rc = fsb_mkfs_expand(words, devs, n, &argv, why);
	fsb_words_free(words);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		for (size_t w = 0; argv[w]; w++) {
			if (strstr(argv[w], names[i])) {
				used++;
				break;
			}
		}
	}
	fsb_words_free(argv);
	return used;
}
