/*
 * A matrix configuration's sections and setups: each section header as the
 * line reader meets it (names a setup may have, [global] and look-alikes),
 * then the setups resolved from the sections matrix_ini.c read: a label's
 * type, the type's default template, what a setup takes from [global], and
 * the rules across keys (devices and templates, guest and mtd), each
 * refusal naming its line.
 */
#include "cli/matrix_ini.h"
#include "util/size.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The loader's first error (fsb_ini_fail), and the line being read. */
#define fail fsb_ini_fail

static unsigned here(const struct fsb_ini_loader *ld)
{
	return ld->lines.lineno;
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

void fsb_ini_section_header(void *arg, char *name)
{
	struct fsb_ini_loader *ld = arg;
	const char *why;
	struct fsb_ini_section *grown;

	if (!name) {
		ld->nomem = true;
		return;
	}
	name = trim(name);
	if (!strcmp(name, "global")) {
		if (ld->global_seen) {
			fail(ld, here(ld), "section [global] appears twice (first on line %u)",
			     ld->global.line);
			return;
		}
		ld->global_seen = true;
		ld->global.line = ld->lines.lineno;
		ld->cur = &ld->global;
		return;
	}
	/* Every other section is a setup, so a misspelt [global] would
	 * quietly become a filesystem called "globals": refuse look-alikes. */
	if (is_global_lookalike(name)) {
		fail(ld, here(ld),
		     "unknown section [%s]: shared settings go in [global], "
		     "setups in [LABEL]",
		     name);
		ld->cur = NULL;
		return;
	}
	if ((why = label_problem(name))) {
		fail(ld, here(ld), "section name [%s] %s", name, why);
		ld->cur = NULL;
		return;
	}
	for (size_t i = 0; i < ld->nsetups; i++) {
		if (!strcmp(ld->setups[i].name, name)) {
			fail(ld, here(ld), "section [%s] appears twice (first on line %u)", name,
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
	grown[ld->nsetups].line = ld->lines.lineno;
	if (!grown[ld->nsetups].name)
		ld->nomem = true;
	ld->cur = &grown[ld->nsetups++];
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
static const char *inherit(const struct fsb_ini_loader *ld, const struct fsb_ini_section *s, int k,
			   unsigned *line)
{
	if (s->val[k]) {
		*line = s->val_line[k];
		return s->val[k];
	}
	*line = ld->global.val_line[k];
	return ld->global.val[k];
}

static int resolve_guest(struct fsb_ini_loader *ld, const struct fsb_ini_section *s,
			 struct fsb_matrix_setup *out);

static int resolve_setup(struct fsb_ini_loader *ld, const struct fsb_ini_section *s,
			 struct fsb_matrix_setup *out)
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
		fail(ld, s->line,
		     "[%s]: no type: set 'type = ...' (a label such as [ext4-wb] "
		     "implies the type by its leading letters and digits)",
		     s->name);
		return -EINVAL;
	}
	out->devices = 1;
	if (s->val[K_DEVICES] && fsb_ini_count(s->val[K_DEVICES], 1, FSB_MATRIX_MAX_DEVICES, &n))
		out->devices = (unsigned)n;
	if (s->val[K_MKFS]) {
		out->mkfs = strdup(s->val[K_MKFS]);
	} else if (out->devices > 1) {
		fail(ld, s->line,
		     "[%s]: devices = %u needs a mkfs template naming them "
		     "({devs}, or {dev1} to {dev%u})",
		     s->name, out->devices, out->devices);
		return -EINVAL;
	} else {
		if (fsb_matrix_mkfs_default(out->type, tmpl, sizeof(tmpl))) {
			fail(ld, s->line, "[%s]: type '%s' is too long", s->name, out->type);
			return -EINVAL;
		}
		out->mkfs = strdup(tmpl);
	}
	if (!out->mkfs)
		return -ENOMEM;
	line = s->val[K_MKFS] ? s->val_line[K_MKFS] : s->line;
	if (fsb_matrix_mkfs_none(out->mkfs)) {
		if (out->devices > 1) {
			fail(ld, line, "[%s]: mkfs = none works on one device, not %u", s->name,
			     out->devices);
			return -EINVAL;
		}
	} else {
		used = fsb_matrix_mkfs_devices(out->mkfs, out->devices, &why);
		if (used < 0) {
			fail(ld, line, "[%s]: invalid mkfs '%s': %s (devices = %u)", s->name,
			     out->mkfs, why, out->devices);
			return -EINVAL;
		}
		if (!used && out->devices == 1) {
			fail(ld, line, "[%s]: mkfs names no device: use {dev}", s->name);
			return -EINVAL;
		}
		if ((unsigned)used < out->devices) {
			fail(ld, line,
			     "[%s]: mkfs names %d of its %u devices: use {devs}, or "
			     "{dev1} to {dev%u}",
			     s->name, used, out->devices, out->devices);
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
static int resolve_guest(struct fsb_ini_loader *ld, const struct fsb_ini_section *s,
			 struct fsb_matrix_setup *out)
{
	out->guest = s->val[K_GUEST] && !strcmp(s->val[K_GUEST], "yes");
	if (s->val[K_MTD]) {
		fsb_size_parse(s->val[K_MTD], &out->mtd_erase_bytes);
		if (!out->guest) {
			fail(ld, s->val_line[K_MTD],
			     "[%s]: mtd needs guest = yes (emulated flash "
			     "is made in a guest: the host kernel has no MTD)",
			     s->name);
			return -EINVAL;
		}
	}
	if (!out->guest)
		return 0;
	if (out->run && out->mtd_erase_bytes) {
		fail(ld, out->run_line,
		     "[%s]: run does not work on mtd (flash) setups: set "
		     "'run =' for this setup (the lifecycle measures the flash)",
		     s->name);
		return -EINVAL;
	}
	if (out->devices > 1) {
		fail(ld, s->val_line[K_DEVICES], "[%s]: guest = yes works on one device, not %u",
		     s->name, out->devices);
		return -EINVAL;
	}
	if (out->fill == FSB_FILL_RANDOM) {
		fail(ld, s->val[K_FILL] ? s->val_line[K_FILL] : s->val_line[K_GUEST],
		     "[%s]: a guest's disk is filled with 0xff, zero or none, not random", s->name);
		return -EINVAL;
	}
	if (out->mtd_erase_bytes && s->val[K_MKFS] && !fsb_matrix_mkfs_none(out->mkfs)) {
		fail(ld, s->val_line[K_MKFS],
		     "[%s]: mkfs does not go with mtd: on flash, "
		     "jffs2 formats on mount and ubifs is made by the UBI tools",
		     s->name);
		return -EINVAL;
	}
	return 0;
}

int fsb_ini_resolve(struct fsb_ini_loader *ld, struct fsb_matrix_config *cfg)
{
	unsigned long n;
	int err;

	if (!ld->nsetups) {
		fail(ld, here(ld), "no setups: add a [LABEL] section per filesystem setup");
		return -EINVAL;
	}
	if (ld->global.val[K_WORKDIR] && !(cfg->workdir = strdup(ld->global.val[K_WORKDIR])))
		return -ENOMEM;
	if (ld->global.val[K_REPEAT] && !strcmp(ld->global.val[K_REPEAT], "auto"))
		cfg->repeat_auto = true;
	else if (ld->global.val[K_REPEAT] && fsb_ini_count(ld->global.val[K_REPEAT], 1, 1000, &n))
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
