/*
 * Reading a matrix configuration: an INI file (parsed with inih, its lines
 * read by util/ini.h) naming the setups `fsbench matrix` builds on loop
 * devices, one after another.
 *
 *   [global]      image_size, fill, workdir, run, lifecycle, repeat
 *   [LABEL] ...   type, mkfs, options, devices, image_size, fill, run,
 *                 lifecycle, guest (yes: in a QEMU guest), mtd (erase
 *                 block size: the guest's disk is flash) (one section per
 *                 setup, in file order)
 *
 * A setup takes image_size, fill, run and lifecycle from [global] unless it
 * sets them itself; an empty value in a setup (`run =`) switches the
 * global one off for it. Its type defaults to the label's leading letters
 * and digits, lowercased ([ext3-wb] is ext3), its mkfs to the type's
 * default template (one device only). Every section but [global] is a
 * setup, so look-alikes of [global] ([globals], [defaults]) are refused as
 * unknown sections; so are unknown keys, keys set twice, bad sizes,
 * malformed templates, templates that leave a device unnamed, run and
 * lifecycle values that do not split into words, lines longer than
 * libinih takes, and binary content (a NUL byte, control characters other
 * than tab): errors naming the file and the line. Lines end at LF, CR or
 * CRLF. What the run and lifecycle words say is checked by their own
 * parsers, when the caller turns them into plans.
 * A template word that names a block device (a path, a symlink to one, or
 * the value of an option: "--device=/dev/sda", "-d/dev/sda") is refused:
 * a template may name only the devices made for its setup, through its
 * placeholders. The file itself is code run as root: one that another
 * user could change (see src/util/trust.h) is refused before it is read
 * (by fsb_matrix_config_load; the stream loader takes what it is given).
 * Loading only reads: whether the mkfs tool exists or the kernel has the
 * type is not checked here.
 */
#ifndef FSB_CLI_MATRIX_INI_H
#define FSB_CLI_MATRIX_INI_H
#include <stdbool.h>
#include <stdio.h>

#include "core/matrix.h"
#include "util/ini.h"

/*
 * Read and check the INI file at path into cfg (overwritten; the caller
 * releases it with fsb_matrix_config_release, also after a failure). The
 * file is opened once with fsb_trusted_file_open (for the invoking user)
 * and parsed from that descriptor. Prints nothing. Returns 0; -EINVAL with
 * why = "PATH:LINE: what is wrong" for a bad file; or -errno with why
 * naming the file when it cannot be read or is not to be trusted
 * ("refusing 'PATH': ...; chmod go-w 'PATH'").
 */
int fsb_matrix_config_load(const char *path, struct fsb_matrix_config *cfg, char *why,
			   size_t why_len);

/*
 * The same, with the command line's --set items (sets[0..nsets), at most
 * FSB_MATRIX_MAX_SETS) applied in their order over what the file says,
 * before the setups are resolved, each checked as the file's values are:
 *   KEY=VALUE         a [global] key (image_size, fill, workdir, run,
 *                     lifecycle, repeat): set in [global] and in every
 *                     setup that sets the key itself (a setup's empty run
 *                     or lifecycle, its suite switched off, stays off);
 *   SETUP.KEY=VALUE   any setup key, in [SETUP] only;
 *   KEY+=WORDS        (run and lifecycle, either form) the words appended
 *                     to the line in effect: the run and lifecycle
 *                     parsers take an option's last value, so
 *                     'run+=--size 64m' scales a line and keeps the rest.
 * A bad item is refused like a bad line: why = "PATH: --set 'ITEM': ...".
 * cfg->overrides keeps the items.
 */
int fsb_matrix_config_load_set(const char *path, const char *const *sets, size_t nsets,
			       struct fsb_matrix_config *cfg, char *why, size_t why_len);

/*
 * The same (--set items included), reading the configuration from f
 * (borrowed, not closed; a file, or a buffer through fmemopen) and naming
 * it path in messages and in cfg->path. Touches nothing else: this is what the fuzzer calls.
 * -EIO when f reports a read error.
 */
int fsb_matrix_config_load_stream(FILE *f, const char *path, const char *const *sets, size_t nsets,
				  struct fsb_matrix_config *cfg, char *why, size_t why_len);

/* Where a value of cfg came from, for a message: "PATH:LINE", or
 * "PATH: --set 'ITEM'" for a line FSB_MATRIX_SET_LINE gave. Returns buf. */
const char *fsb_matrix_config_where(const struct fsb_matrix_config *cfg, unsigned line, char *buf,
				    size_t len);

/*
 * Each selected setup's run and lifecycle lines into plans (setup->run_plan,
 * ->lc_plan and the words they borrow): parsed by `fsbench run`'s and
 * `fsbench lifecycle`'s own parsers, the options the matrix sets in every
 * line refused (--format, --output, --label, --progress, --help,
 * --version; and the lifecycle's target, filesystem, template, mount
 * options and fill, which are the setup's), the setup's fields set over
 * them, [global] repeat where the line gives none, then checked. Pure.
 * Returns 0, or FSB_EXIT_USAGE after one line "FILE:LINE: run: why"
 * (FSB_EXIT_FAIL when out of memory).
 */
int fsb_matrix_lines_to_plans(struct fsb_matrix_config *cfg);

/* ---- between the loader's two files (matrix_ini.c, matrix_setup.c) ---- */

enum fsb_ini_key {
	K_TYPE,
	K_MKFS,
	K_OPTIONS,
	K_DEVICES,
	K_IMAGE_SIZE,
	K_FILL,
	K_RUN,
	K_LIFECYCLE,
	K_WORKDIR,
	K_REPEAT,
	K_GUEST,
	K_MTD,
	NKEYS
};

/* A section as written: its values (NULL = not set) and their lines. */
struct fsb_ini_section {
	char *name;
	unsigned line;
	char *val[NKEYS];
	unsigned val_line[NKEYS];
};

struct fsb_ini_loader {
	const char *path;
	struct fsb_ini_lines lines; /* the reader: its line number is inih's */
	struct fsb_ini_section global;
	bool global_seen;
	struct fsb_ini_section *setups;
	size_t nsetups;
	struct fsb_ini_section *cur; /* where keys go now; NULL before any header */
	unsigned err_line;	     /* first error found by us (0: none) */
	unsigned set_line;	     /* applying a --set: its FSB_MATRIX_SET_LINE; 0: none */
	const char *const *sets;     /* the --set items */
	size_t nsets;
	char err[512];
	bool nomem;
};

/* Record the first error only: later ones are often its consequences. */
void fsb_ini_fail(struct fsb_ini_loader *ld, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The line reader's section callback: a new setup for [name], or [global]
 * (arg: the loader). Refuses look-alikes of [global], bad labels and a
 * section given twice. */
void fsb_ini_section_header(void *arg, char *name);

/* A whole number in [min, max] (a key's value), into *out. */
bool fsb_ini_count(const char *s, unsigned long min, unsigned long max, unsigned long *out);

/* Turn the sections read into cfg's setups (defaults, inheritance from
 * [global], the checks across keys). 0, -EINVAL (recorded with
 * fsb_ini_fail) or -ENOMEM. */
int fsb_ini_resolve(struct fsb_ini_loader *ld, struct fsb_matrix_config *cfg);

#endif
