/*
 * The matrix configuration: an INI file (parsed with inih) naming the
 * setups `fsbench matrix` builds on loop devices, one after another.
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
 * malformed templates, templates that leave a device unnamed, and run /
 * lifecycle arguments the matrix sets itself (--format, --output, --label,
 * --device, ...), lines longer than libinih takes, and binary content (a
 * NUL byte, control characters other than tab): errors naming the file
 * and the line. Lines end at LF, CR or CRLF.
 * A template word that names a block device (a path, a symlink to one, or
 * the value of an option: "--device=/dev/sda", "-d/dev/sda") is refused:
 * a template may name only the devices made for its setup, through its
 * placeholders. The file itself is code run as root: one that another
 * user could change (see src/util/trust.h) is refused before it is read
 * (by fsb_matrix_config_load; the stream loader takes what it is given).
 * Loading only reads: whether the mkfs tool exists or the kernel has the
 * type is not checked here.
 */
#ifndef FSB_CORE_MATRIX_H
#define FSB_CORE_MATRIX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "device/fill.h"

/* Loop devices one setup may use ({dev1} .. {dev8}). */
#define FSB_MATRIX_MAX_DEVICES 8
/* Longest section name: it is the setup's label in every report. */
#define FSB_MATRIX_MAX_LABEL 48

struct fsb_matrix_setup {
	char *label;            /* the section name */
	char *type;             /* filesystem type: mount -t, lifecycle --fs */
	char *mkfs;             /* template with {dev} {devN} {devs}, or "none" */
	char *options;          /* mount options, "" for none */
	unsigned devices;       /* loop devices (images) it is built on */
	uint64_t image_bytes;   /* size of each image */
	enum fsb_fill fill;     /* content of the images before mkfs */
	char *run;              /* arguments of the run suite, NULL: no run */
	char *lifecycle;        /* arguments of the lifecycle, NULL: none */
	unsigned line;          /* line of the section header */
	unsigned run_line;      /* line the run/lifecycle value came from */
	unsigned lifecycle_line;
	bool guest;             /* guest = yes: run in a QEMU guest, one boot */
	uint64_t mtd_erase_bytes; /* mtd = SIZE: the guest's disk is flash; 0: not */
};

struct fsb_matrix_config {
	char *path;             /* the file, as given */
	char *workdir;          /* [global] workdir, NULL: the default */
	unsigned repeat;        /* [global] repeat, 0 when not set */
	struct fsb_matrix_setup *setups;
	size_t nsetups;
};

/* Defaults of keys nobody set. */
#define FSB_MATRIX_DEFAULT_IMAGE_BYTES (1ull << 30)
#define FSB_MATRIX_DEFAULT_FILL FSB_FILL_ZERO
#define FSB_MATRIX_DEFAULT_WORKDIR "/var/tmp"

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
 * The same, reading the configuration from f (borrowed, not closed; a
 * file, or a buffer through fmemopen) and naming it path in messages and
 * in cfg->path. Touches nothing else: this is what the fuzzer calls.
 * -EIO when f reports a read error.
 */
int fsb_matrix_config_load_stream(FILE *f, const char *path, struct fsb_matrix_config *cfg,
				  char *why, size_t why_len);

/* Free what cfg owns (not cfg). Safe on a zeroed or half-loaded cfg. */
void fsb_matrix_config_release(struct fsb_matrix_config *cfg);

/* The setup labelled label, or NULL. */
const struct fsb_matrix_setup *fsb_matrix_config_find(const struct fsb_matrix_config *cfg,
						      const char *label);

/*
 * The mkfs command of a setup for its devices: the template split into
 * words (quotes, no shell) and its placeholders replaced by devs[0..n).
 * Pure. Returns the word count and a vector the caller frees with
 * fsb_words_free, or -EINVAL with *why set (a static text), -ENOMEM.
 * A setup whose template is "none" has no mkfs command: -ENOENT.
 */
int fsb_matrix_mkfs_argv(const struct fsb_matrix_setup *s, const char *const *devs, size_t n,
			 char ***argv, const char **why);

/*
 * How many of n devices the template names, by expanding it with stand-ins
 * (a setup on 2 devices whose template says only {dev} leaves one unused).
 * Pure. Returns the count, or -EINVAL with *why set.
 */
int fsb_matrix_template_devices(const char *tmpl, size_t n, const char **why);

#endif
