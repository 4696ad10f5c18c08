/*
 * The matrix plan and its executor (fsbench matrix): each setup of a
 * configuration built on fresh images and loop devices, measured with the
 * run suite and/or the lifecycle by calling their executors in-process
 * with plans, torn down, and every outcome returned in memory as a matrix
 * document (report/matrix.h).
 *
 * The configuration comes from an INI file (src/cli/matrix_ini.h reads
 * and checks it); what each key means is in docs/ and fsbench(1). Here are
 * the resolved setups, each with the plans its `run =` and `lifecycle =`
 * lines became (parsed by the run and lifecycle parsers, the setup's own
 * fields set over them).
 */
#ifndef FSB_CORE_MATRIX_H
#define FSB_CORE_MATRIX_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/lifecycle.h"
#include "core/plan.h"
#include "core/run.h"
#include "util/modes.h"

#include "report/matrix.h"
#include "util/error.h"

/* Loop devices one setup may use ({dev1} .. {dev8}). */
#define FSB_MATRIX_MAX_DEVICES 8
/* Longest section name: it is the setup's label in every report. */
#define FSB_MATRIX_MAX_LABEL 48

struct fsb_matrix_setup {
	char *label;	      /* the section name */
	char *type;	      /* filesystem type: mount -t, lifecycle --fs */
	char *mkfs;	      /* template with {dev} {devN} {devs}, or "none" */
	char *options;	      /* mount options, "" for none */
	unsigned devices;     /* loop devices (images) it is built on */
	uint64_t image_bytes; /* size of each image */
	enum fsb_fill fill;   /* content of the images before mkfs */
	char *run;	      /* arguments of the run suite, NULL: no run */
	char *lifecycle;      /* arguments of the lifecycle, NULL: none */
	unsigned line;	      /* line of the section header */
	unsigned run_line;    /* line the run/lifecycle value came from */
	unsigned lifecycle_line;
	bool guest;		  /* guest = yes: run in a QEMU guest, one boot per suite */
	uint64_t mtd_erase_bytes; /* mtd = SIZE: the guest's disk is flash; 0: not */
	/* The plans (set by the caller that parsed the lines; owned, freed by
	 * fsb_matrix_config_release), and the words they borrow. */
	bool selected; /* to be run (--only) */
	struct fsb_run_plan *run_plan;
	struct fsb_lc_plan *lc_plan;
	char **run_words, **lc_words; /* "run"/"lifecycle" + the line's words */
	char mtd_spec[64];	      /* a guest's flash: "/dev/vda,ERASESIZE" */
};

struct fsb_matrix_config {
	char *path;	 /* the file, as given */
	char *workdir;	 /* [global] workdir, NULL: the default */
	unsigned repeat; /* [global] repeat, 0 when not set */
	/* [global] repeat = auto: the run lines' --repeat auto (lifecycle
	 * lines keep their own default: their phases have no auto mode) */
	bool repeat_auto;
	struct fsb_matrix_setup *setups;
	size_t nsetups;
	/* The command line's --set items, as given, NULL-terminated (NULL:
	 * none): applied over the file's values before the setups were
	 * resolved; a value one set has the line FSB_MATRIX_SET_LINE(i). */
	char **overrides;
	size_t noverrides;
};

/* Most --set items; the line number a value from --set item i carries. */
#define FSB_MATRIX_MAX_SETS 64
#define FSB_MATRIX_SET_LINE(i) (UINT_MAX - (unsigned)(i))

/* Defaults of keys nobody set. */
#define FSB_MATRIX_DEFAULT_IMAGE_BYTES (1ull << 30)
#define FSB_MATRIX_DEFAULT_FILL FSB_FILL_ZERO
#define FSB_MATRIX_DEFAULT_WORKDIR "/var/tmp"

/* Free what cfg owns (not cfg), plans included. Safe on a zeroed or half-made cfg. */
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
 * A setup's template as the file gives it, for whoever reads the file (the
 * rules are device/mkfs.h's): "none" (the filesystem formats itself on
 * first mount); the type's default ("mkfs.ext4 -q -F {dev}"; 0 or
 * -ENAMETOOLONG); naming no block device but through its placeholders
 * (0, or -EPERM with why set); how many of n devices it names (or -EINVAL
 * with *why set). Pure but for the check's stat(2) of words that look like
 * paths.
 */
bool fsb_matrix_mkfs_none(const char *tmpl);
int fsb_matrix_mkfs_default(const char *type, char *buf, size_t len);
int fsb_matrix_mkfs_check(const char *tmpl, char *why, size_t len);
int fsb_matrix_mkfs_devices(const char *tmpl, size_t n, const char **why);

/* What `fsbench matrix` will do. */
struct fsb_matrix_plan {
	struct fsb_matrix_config cfg; /* the setups, their plans, selected or not */
	size_t nselected;
	bool fail_fast;	  /* stop at the first setup that fails or is skipped */
	bool keep_images; /* keep the images (and so the work directory) */
	enum fsb_progress progress;
};

/*
 * Run the plan: root, a scratch work directory under the workdir (made
 * real: libmount compares mountpoints with mountinfo); per selected setup,
 * in file order: checks that only read (kernel type, mkfs tool, space: a
 * setup that fails them is skipped), images, fill, loop devices, mkfs,
 * mount, the run executor on the mountpoint, umount, the lifecycle
 * executor on the first device (or, for guest = yes, the guest executor
 * once per suite), then always, in reverse: umount, detach, remove the
 * images (unless keep_images). Every file it makes is in the work
 * directory, removed at the end (unless images are kept).
 *
 * doc (zeroed by the caller, who releases it) gets one entry per selected
 * setup: its configuration, its status ("STEP: MESSAGE" when a step
 * failed, the first error that step described) and its results. Returns 0
 * when every setup was tried (statuses say how each went), -EINTR when a
 * stop signal ended it (the current setup torn down), or -errno when the
 * matrix itself could not run (described; also kept in e, which may be
 * NULL).
 */
int fsb_matrix_execute(const struct fsb_matrix_plan *p, struct fsb_matrix_doc *doc,
		       struct fsb_error *e);

#endif
