/*
 * Loading a matrix configuration (matrix_ini.h): the file read line by line
 * (util/ini.h), inih for the INI syntax, the keys and their values checked
 * where they are written, so every error names its line. The setups are
 * resolved from the sections in matrix_setup.c.
 */
#include "cli/matrix_ini.h"
#include "cli/options.h"
#include "util/size.h"
#include "util/spawn.h"
#include "util/trust.h"

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

/* The loader's first error (fsb_ini_fail), and the line being read. */
#define fail fsb_ini_fail

static unsigned here(const struct fsb_ini_loader *ld)
{
	return ld->set_line ? ld->set_line : ld->lines.lineno;
}

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

void fsb_ini_fail(struct fsb_ini_loader *ld, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (ld->err_line)
		return;
	ld->err_line = line ? line : 1;
	va_start(ap, fmt);
	vsnprintf(ld->err, sizeof(ld->err), fmt, ap);
	va_end(ap);
}

/* What the line reader refused (binary content, a line too long). */
static void refuse(void *arg, unsigned line, const char *why)
{
	fsb_ini_fail(arg, line, "%s", why);
}

static void ini_section_release(struct fsb_ini_section *s)
{
	free(s->name);
	for (int k = 0; k < NKEYS; k++)
		free(s->val[k]);
}

static int find_key(const char *name)
{
	for (int k = 0; k < NKEYS; k++)
		if (!strcmp(keys[k].name, name))
			return k;
	return -1;
}

/* A run or lifecycle value must split into words; its parser says the rest. */
static bool check_args(struct fsb_ini_loader *ld, const char *key, const char *value)
{
	const char *why;
	char **words = NULL;

	if (!*value)
		return true;
	if (fsb_words_split(value, &words, &why) < 0) {
		fail(ld, here(ld), "invalid %s '%s': %s", key, value, why);
		return false;
	}
	fsb_words_free(words);
	return true;
}

bool fsb_ini_count(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	uint64_t v;

	/* The command line's parser: one notion of a count. */
	if (!fsb_opt_is_count(s, min, max, &v))
		return false;
	*out = (unsigned long)v;
	return true;
}

/* Check one value where it is written, so the error names its line. */
static bool check_value(struct fsb_ini_loader *ld, int k, const char *v)
{
	unsigned long n;
	uint64_t size;
	enum fsb_fill fill;
	const char *why;
	char **words = NULL, bad[PATH_MAX + 256];

	switch (k) {
	case K_TYPE:
		if (!*v || strpbrk(v, "/ \t")) {
			fail(ld, here(ld),
			     "invalid type '%s': expected a filesystem type such as "
			     "ext4, xfs or btrfs",
			     v);
			return false;
		}
		return true;
	case K_MKFS:
		if (fsb_matrix_mkfs_none(v))
			return true;
		if (fsb_words_split(v, &words, &why) < 0) {
			fail(ld, here(ld), "invalid mkfs '%s': %s", v, why);
			return false;
		}
		fsb_words_free(words);
		/* Only the devices made for the setup, through placeholders. */
		if (fsb_matrix_mkfs_check(v, bad, sizeof(bad))) {
			fail(ld, here(ld), "invalid mkfs '%s': %s", v, bad);
			return false;
		}
		return true;
	case K_DEVICES:
		if (!fsb_ini_count(v, 1, FSB_MATRIX_MAX_DEVICES, &n)) {
			fail(ld, here(ld),
			     "invalid devices '%s': expected a whole number from 1 to %d", v,
			     FSB_MATRIX_MAX_DEVICES);
			return false;
		}
		return true;
	case K_REPEAT:
		if (strcmp(v, "auto") && !fsb_ini_count(v, 1, 1000, &n)) {
			fail(ld, here(ld),
			     "invalid repeat '%s': expected a whole number from 1 to 1000, or auto",
			     v);
			return false;
		}
		return true;
	case K_IMAGE_SIZE:
		/* Under 1 MiB an image holds no filesystem with room for a
		 * suite's files: refused here, not by mkfs after the build. */
		if (fsb_size_parse(v, &size) || size < (1u << 20)) {
			fail(ld, here(ld),
			     "invalid image_size '%s': expected a size of at least 1m, "
			     "such as 512m or 2g",
			     v);
			return false;
		}
		return true;
	case K_FILL:
		if (fsb_fill_parse(v, &fill)) {
			fail(ld, here(ld), "invalid fill '%s': expected 0xff, zero, random or none",
			     v);
			return false;
		}
		return true;
	case K_GUEST:
		if (strcmp(v, "yes") && strcmp(v, "no")) {
			fail(ld, here(ld), "invalid guest '%s': expected yes or no", v);
			return false;
		}
		return true;
	case K_MTD:
		/* An erase block size, as lifecycle --mtd takes it. */
		if (fsb_size_parse(v, &size) || size < 4096 || size > (16u << 20) ||
		    (size & (size - 1))) {
			fail(ld, here(ld),
			     "invalid mtd '%s': expected an erase block size, a "
			     "power of two from 4k to 16m (128k)",
			     v);
			return false;
		}
		return true;
	case K_WORKDIR:
		if (!*v) {
			fail(ld, here(ld), "workdir is empty: give a directory for the images");
			return false;
		}
		return true;
	case K_RUN:
		return check_args(ld, "run", v);
	case K_LIFECYCLE:
		return check_args(ld, "lifecycle", v);
	default:
		return true;
	}
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct fsb_ini_loader *ld = user;
	struct fsb_ini_section *s = ld->cur;
	bool global = s == &ld->global;
	int k;

	(void)section; /* our reader knows the section, with its line */
	if (!s) {
		/* A key before any header, or under a refused header. */
		if (!ld->err_line)
			fail(ld, here(ld),
			     "key '%s' outside a section: start with [global] or "
			     "[LABEL]",
			     name);
		return 0;
	}
	k = find_key(name);
	if (k < 0 || !(keys[k].where & (global ? IN_GLOBAL : IN_SETUP))) {
		if (k >= 0 && global)
			fail(ld, here(ld),
			     "key '%s' belongs in a setup section, not [global] "
			     "(keys of [global]: %s)",
			     name, global_keys);
		else if (k >= 0)
			fail(ld, here(ld), "key '%s' belongs in [global], not [%s]", name, s->name);
		else
			fail(ld, here(ld), "unknown key '%s' in [%s] (keys: %s)", name,
			     global ? "global" : s->name, global ? global_keys : setup_keys);
		return 0;
	}
	if (s->val[k]) {
		fail(ld, here(ld), "key '%s' set twice in [%s] (first on line %u)", name,
		     global ? "global" : s->name, s->val_line[k]);
		return 0;
	}
	if (!check_value(ld, k, value))
		return 0;
	s->val[k] = strdup(value);
	s->val_line[k] = ld->lines.lineno;
	if (!s->val[k]) {
		ld->nomem = true;
		return 0;
	}
	return 1;
}

/* ---- --set: the command line over the file ---- */

/* s's value of key k replaced by v, or (append) v's words after it; base
 * is the line in effect when s has none of its own. */
static bool set_value(struct fsb_ini_loader *ld, struct fsb_ini_section *s, int k, const char *v,
		      bool append, const char *base)
{
	const char *old = s->val[k] ? s->val[k] : base;
	char *now;

	if (append && old && *old) {
		size_t n = strlen(old) + strlen(v) + 2;

		if ((now = malloc(n)))
			snprintf(now, n, "%s %s", old, v);
	} else {
		now = strdup(v);
	}
	if (!now) {
		ld->nomem = true;
		return false;
	}
	free(s->val[k]);
	s->val[k] = now;
	s->val_line[k] = ld->set_line;
	return true;
}

static struct fsb_ini_section *find_section(struct fsb_ini_loader *ld, const char *name)
{
	for (size_t i = 0; i < ld->nsetups; i++)
		if (!strcmp(ld->setups[i].name, name))
			return &ld->setups[i];
	return NULL;
}

/* [global]'s KEY=VALUE: there, and where a setup sets the key itself. */
static void set_everywhere(struct fsb_ini_loader *ld, int k, const char *v, bool append)
{
	bool suite = k == K_RUN || k == K_LIFECYCLE;
	char mine[256] = "";
	size_t n = 0;

	if (!set_value(ld, &ld->global, k, v, append, NULL))
		return;
	for (size_t i = 0; i < ld->nsetups; i++) {
		struct fsb_ini_section *s = &ld->setups[i];

		/* A setup's own empty run or lifecycle switched its suite off. */
		if (!s->val[k] || (suite && !*s->val[k]))
			continue;
		/* A setup's own line replaced is said, never silent. */
		if (!append && n < sizeof(mine))
			n += (size_t)snprintf(mine + n, sizeof(mine) - n, "%s[%s]", n ? ", " : "",
					      s->name);
		if (!set_value(ld, s, k, v, append, NULL))
			return;
	}
	if (n)
		fsb_warn("--set %s=...: %s set their own %s; it is replaced there too (%s%s"
			 "SETUP.%s= sets one setup's)",
			 keys[k].name, mine, keys[k].name, suite ? keys[k].name : "",
			 suite ? "+= appends instead; " : "", keys[k].name);
}

/* One --set item, checked as a line of the file is (the key's section,
 * its value), then applied. */
static void apply_set(struct fsb_ini_loader *ld, const char *item)
{
	const char *eq = strchr(item, '='), *key;
	struct fsb_ini_section *only = NULL;
	char name[FSB_MATRIX_MAX_LABEL + 64], *dot;
	size_t n = eq ? (size_t)(eq - item) : 0;
	bool append = n && item[n - 1] == '+';
	int k;

	if (append)
		n--;
	if (!eq || !n || n >= sizeof(name)) {
		fail(ld, here(ld),
		     "expected KEY=VALUE, SETUP.KEY=VALUE or KEY+=WORDS (keys of "
		     "[global]: %s)",
		     global_keys);
		return;
	}
	memcpy(name, item, n);
	name[n] = '\0';
	key = name;
	if ((dot = strrchr(name, '.'))) {
		*dot = '\0';
		key = dot + 1;
		if (!(only = find_section(ld, name))) {
			fail(ld, here(ld), "'%s' is no setup of this file", name);
			return;
		}
	}
	k = find_key(key);
	if (k < 0 || !(keys[k].where & (only ? IN_SETUP : IN_GLOBAL))) {
		if (k >= 0 && !only)
			fail(ld, here(ld),
			     "key '%s' is a setup's: give it as SETUP.%s=VALUE (keys of [global]: %s)",
			     key, key, global_keys);
		else if (k >= 0)
			fail(ld, here(ld),
			     "key '%s' belongs in [global], not [%s]: give it as %s=VALUE", key,
			     name, key);
		else
			fail(ld, here(ld), "unknown key '%s' (keys: %s)", key,
			     only ? setup_keys : global_keys);
		return;
	}
	if (append && k != K_RUN && k != K_LIFECYCLE) {
		fail(ld, here(ld), "'+=' appends words to run or lifecycle, not to %s", key);
		return;
	}
	/* A file's line holds no control character; neither may an item that
	 * stands for one (a newline would end up in mount options or argv). */
	for (const char *c = eq + 1; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			fail(ld, here(ld), "control character 0x%02x in the value of '%s'",
			     (unsigned char)*c, key);
			return;
		}
	if (!check_value(ld, k, eq + 1))
		return;
	if (only)
		set_value(ld, only, k, eq + 1, append, ld->global.val[k]);
	else
		set_everywhere(ld, k, eq + 1, append);
}

static void apply_sets(struct fsb_ini_loader *ld)
{
	if (ld->nsets > FSB_MATRIX_MAX_SETS) {
		ld->set_line = FSB_MATRIX_SET_LINE(FSB_MATRIX_MAX_SETS);
		fail(ld, here(ld), "more than %d --set items", FSB_MATRIX_MAX_SETS);
		return;
	}
	for (size_t i = 0; i < ld->nsets && !ld->err_line && !ld->nomem; i++) {
		ld->set_line = FSB_MATRIX_SET_LINE(i);
		apply_set(ld, ld->sets[i]);
	}
	ld->set_line = 0;
}

const char *fsb_matrix_config_where(const struct fsb_matrix_config *cfg, unsigned line, char *buf,
				    size_t len)
{
	size_t i = UINT_MAX - line;

	if (line > FSB_MATRIX_SET_LINE(FSB_MATRIX_MAX_SETS) && i < cfg->noverrides)
		snprintf(buf, len, "%s: --set '%s'", cfg->path, cfg->overrides[i]);
	else if (line >= FSB_MATRIX_SET_LINE(FSB_MATRIX_MAX_SETS))
		snprintf(buf, len, "%s: --set", cfg->path);
	else
		snprintf(buf, len, "%s:%u", cfg->path, line);
	return buf;
}

/* cfg->overrides: a copy of the items, NULL-terminated. */
static int keep_sets(struct fsb_matrix_config *cfg, const char *const *sets, size_t n)
{
	if (!n)
		return 0;
	if (!(cfg->overrides = calloc(n + 1, sizeof(*cfg->overrides))))
		return -ENOMEM;
	for (; cfg->noverrides < n; cfg->noverrides++)
		if (!(cfg->overrides[cfg->noverrides] = strdup(sets[cfg->noverrides])))
			return -ENOMEM;
	return 0;
}

int fsb_matrix_config_load_stream(FILE *f, const char *path, const char *const *sets, size_t nsets,
				  struct fsb_matrix_config *cfg, char *why, size_t why_len)
{
	struct fsb_ini_loader *ld;
	int rc, err = 0;

	memset(cfg, 0, sizeof(*cfg));
	ld = calloc(1, sizeof(*ld));
	if (!ld) {
		snprintf(why, why_len, "%s: out of memory", path);
		return -ENOMEM;
	}
	ld->path = path;
	ld->sets = sets;
	ld->nsets = nsets;
	ld->lines.f = f;
	ld->lines.section = fsb_ini_section_header;
	ld->lines.refuse = refuse;
	ld->lines.arg = ld;
	if (!(cfg->path = strdup(path)) || keep_sets(cfg, sets, nsets)) {
		err = -ENOMEM;
		goto out;
	}
	rc = ini_parse_stream(fsb_ini_read_line, &ld->lines, handler, ld);
	if (ferror(f)) {
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
		fail(ld, (unsigned)rc,
		     "syntax error: expected [section], key = value, or a "
		     "comment starting with '#' or ';'");
	}
	if (!ld->err_line)
		apply_sets(ld);
	if (ld->nomem) {
		err = -ENOMEM;
		goto out;
	}
	if (!ld->err_line)
		err = fsb_ini_resolve(ld, cfg);
	if (ld->err_line)
		err = -EINVAL;
	if (err == -EINVAL) {
		char where[PATH_MAX + 64];

		snprintf(why, why_len, "%s: %s",
			 fsb_matrix_config_where(cfg, ld->err_line, where, sizeof(where)), ld->err);
	}
out:
	if (err == -ENOMEM)
		snprintf(why, why_len, "%s: out of memory", path);
	ini_section_release(&ld->global);
	for (size_t i = 0; i < ld->nsetups; i++)
		ini_section_release(&ld->setups[i]);
	free(ld->setups);
	free(ld);
	return err;
}

int fsb_matrix_config_load(const char *path, struct fsb_matrix_config *cfg, char *why,
			   size_t why_len)
{
	return fsb_matrix_config_load_set(path, NULL, 0, cfg, why, why_len);
}

int fsb_matrix_config_load_set(const char *path, const char *const *sets, size_t nsets,
			       struct fsb_matrix_config *cfg, char *why, size_t why_len)
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
	err = fsb_matrix_config_load_stream(f, path, sets, nsets, cfg, why, why_len);
	fclose(f);
	return err;
}
