/*
 * fsbench matrix: build each setup of an INI file on fresh loop devices,
 * measure it with the run suite and/or the lifecycle, tear it down, and
 * print one comparison of all (reference/bonnie-1.2-ext2-ext3-reiserfs.txt).
 *
 * The measuring is not done here: each setup's suites are the `run` and
 * `lifecycle` commands themselves, called in this process with the file's
 * arguments plus the ones the matrix owns (--format json --output TMP
 * --label LABEL --progress ...), and their JSON read back. So a matrix row
 * is exactly what `fsbench run` prints on that filesystem.
 *
 * Order of business:
 *   1. options and the INI file (malformed: exit 2, before anything else);
 *      the run/lifecycle arguments are parsed by their commands once, with
 *      a target that cannot exist, so a bad `run =` is an error naming its
 *      line before the first image is made;
 *   2. root, the work directory (exit 1);
 *   3. per setup, in file order: checks that only read (kernel type, mkfs
 *      tool, space: a setup that fails them is skipped), images, fill, loop
 *      devices (direct I/O), mkfs, mount, run suite, umount, lifecycle on
 *      the first device, then always, in reverse: umount, detach, remove
 *      the images (unless --keep-images);
 *   4. the view of everything. A signal stops after step 3's teardown of
 *      the current setup: exit 128 + signo, no report.
 */
#include "cli/commands.h"
#include "cli/legacy.h"
#include "util/error.h"
#include "core/matrix.h"
#include "device/fill.h"
#include "device/image.h"
#include "device/loop.h"
#include "device/mkfs.h"
#include "util/spawn.h"
#include "device/mount.h"
#include "report/json.h"
#include "report/matrix.h"
#include "util/marker.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/size.h"
#include "util/text.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* A target no command can use: parsing runs, nothing else does. */
#define NO_TARGET "/dev/null/fsbench-matrix-check"

static const char usage_text[] =
	"usage: fsbench matrix [OPTIONS] CONFIG.ini\n"
	"\n"
	"Build each setup the INI file names on fresh images and loop devices\n"
	"(direct I/O), make the filesystem, mount it, run the suites, tear it down,\n"
	"then print one comparison: the setups' configuration, one bonnie row per\n"
	"setup, the Create block, a lifecycle table, and what failed and why.\n"
	"\n"
	"  [global]   image_size = SIZE   each image (default 1g)\n"
	"             fill = PATTERN      zero (default), 0xff, random or none\n"
	"             workdir = DIR       where the images go (default /var/tmp)\n"
	"             run = ARGS          'fsbench run' arguments, e.g. --size 512m\n"
	"             lifecycle = ARGS    'fsbench lifecycle' arguments, e.g. --repeat 6\n"
	"             repeat = N          --repeat for both suites (ARGS may override)\n"
	"  [LABEL]    type = TYPE         mount -t TYPE (default: LABEL's leading\n"
	"                                 letters and digits: [ext3-wb] is ext3)\n"
	"             mkfs = TEMPLATE     {dev} {dev1} {dev2} {devs}; none: no mkfs\n"
	"             options = OPTS      mount options (data=writeback,noatime)\n"
	"             devices = N         images and loop devices (default 1)\n"
	"             image_size, fill, run, lifecycle: this setup's own ('run =' off)\n"
	"             guest = yes         run in a QEMU guest (fsbench guest, one boot\n"
	"                                 per suite) on its disk of image_size; the\n"
	"                                 row is marked (guest, ACCEL)\n"
	"             mtd = SIZE          with guest: the disk is flash, erase blocks\n"
	"                                 of SIZE (jffs2, ubifs)\n"
	"\n"
	"Options:\n"
	"  -f, --format VIEW      text (default), csv (bonnie++ lines) or json\n"
	"  -o, --output FILE      write the report to FILE, not stdout: a file is replaced\n"
	"                         atomically, a device or FIFO written (see fsbench(1))\n"
	"      --keep-going       after a failed or skipped setup, go on (default)\n"
	"      --fail-fast        stop at the first setup that fails or is skipped\n"
	"      --keep-images      keep the image files (in the work directory)\n"
	"      --only LABELS      run only these setups (comma-separated)\n"
	"      --progress WHEN    auto (on a terminal), always or never\n"
	"  -h, --help             this text\n"
	"  -V, --version          the version\n"
	"\n"
	"The file is code run as root: it is refused when another user could change\n"
	"it (writable by group or others, owned by someone else, or in a directory\n"
	"others can write to without the sticky bit), and a mkfs template may name\n"
	"no block device but through its placeholders.\n"
	"\n"
	"Needs root. Exit 0 when every setup was measured, 1 when one failed or\n"
	"was skipped, 2 for a bad file or option, 128+N after signal N.\n";

enum { OPT_KEEP_GOING = 256, OPT_FAIL_FAST, OPT_KEEP_IMAGES, OPT_ONLY, OPT_PROGRESS };

static const struct option long_opts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "keep-going", no_argument, NULL, OPT_KEEP_GOING },
	{ "fail-fast", no_argument, NULL, OPT_FAIL_FAST },
	{ "keep-images", no_argument, NULL, OPT_KEEP_IMAGES },
	{ "only", required_argument, NULL, OPT_ONLY },
	{ "progress", required_argument, NULL, OPT_PROGRESS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

struct mx_opts {
	const char *config;
	const char *format, *output, *only;
	bool fail_fast, keep_images;
	enum fsb_progress progress;
	fsb_matrix_view view;
};

/* The whole run: the configuration, the work directory, the report. */
struct mx_ctx {
	const struct mx_opts *o;
	struct fsb_matrix_config cfg;
	bool *selected;             /* per setup: in --only (all without it) */
	size_t nselected;
	/* our scratch dir under workdir (real path); room left for file names */
	char work[PATH_MAX - 128];
	bool work_made;
	bool kept;                  /* an image was kept: keep the work dir */
	bool progress;
	size_t k;                   /* setup k of nselected, for progress */
	struct fsb_matrix_doc doc;
};

/* What one setup holds, released in reverse order of acquisition. */
struct mx_setup {
	unsigned ndev;
	struct fsb_image img[FSB_MATRIX_MAX_DEVICES];  /* new, 0600, locked */
	struct fsb_loopdev lo[FSB_MATRIX_MAX_DEVICES];
	const char *devs[FSB_MATRIX_MAX_DEVICES];
	char mnt[PATH_MAX];
	bool mnt_made, mounted;
};

/* Returns 0, an exit status, or -1 for "done: exit 0" (--help). */
static int parse(int argc, char **argv, struct mx_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->format = "text";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:hV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->format = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_KEEP_GOING:
			o->fail_fast = false;
			break;
		case OPT_FAIL_FAST:
			o->fail_fast = true;
			break;
		case OPT_KEEP_IMAGES:
			o->keep_images = true;
			break;
		case OPT_ONLY:
			o->only = optarg;
			break;
		case OPT_PROGRESS:
			if (fsb_opt_progress(optarg, &o->progress))
				return FSB_EXIT_USAGE;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		case 'V':
			printf("fsbench %s\n", FSB_VERSION);
			return -1;
		default:
			return fsb_opt_unknown(argc, argv, c);
		}
	}
	if (optind >= argc) {
		fsb_err("matrix: a configuration file is required (see --help)");
		return FSB_EXIT_USAGE;
	}
	o->config = argv[optind++];
	if (optind < argc) {
		fsb_err("matrix: unexpected argument '%s' (one CONFIG.ini only)", argv[optind]);
		return FSB_EXIT_USAGE;
	}
	o->view = fsb_matrix_view_find(o->format);
	if (!o->view)
		return fsb_opt_bad("--format", o->format, "text, csv or json");
	return 0;
}

/* --only: every name must be a setup of the file. 0 or FSB_EXIT_USAGE. */
static int select_setups(struct mx_ctx *m)
{
	char *copy, *save = NULL, *item;
	int rc = 0;

	m->selected = calloc(m->cfg.nsetups, sizeof(*m->selected));
	if (!m->selected) {
		fsb_err("matrix: out of memory");
		return FSB_EXIT_FAIL;
	}
	if (!m->o->only) {
		for (size_t i = 0; i < m->cfg.nsetups; i++)
			m->selected[i] = true;
		m->nselected = m->cfg.nsetups;
		return 0;
	}
	copy = strdup(m->o->only);
	if (!copy) {
		fsb_err("matrix: out of memory");
		return FSB_EXIT_FAIL;
	}
	for (item = strtok_r(copy, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
		const struct fsb_matrix_setup *s = fsb_matrix_config_find(&m->cfg, item);

		if (!s) {
			fsb_err("invalid --only '%s': '%s' is no setup of '%s'", m->o->only, item,
				m->cfg.path);
			rc = FSB_EXIT_USAGE;
		} else if (!m->selected[s - m->cfg.setups]) {
			m->selected[s - m->cfg.setups] = true;
			m->nselected++;
		}
	}
	free(copy);
	if (!rc && !m->nselected)
		rc = fsb_opt_bad("--only", m->o->only, "setup labels separated by commas");
	return rc;
}

/*
 * The csv view has lines for the run suite only: refuse it up front when no
 * selected setup runs that suite, rather than after measuring them all.
 */
static int check_view(const struct mx_ctx *m)
{
	if (m->o->view != fsb_matrix_write_csv)
		return 0;
	for (size_t i = 0; i < m->cfg.nsetups; i++)
		if (m->selected[i] && m->cfg.setups[i].run)
			return 0;
	fsb_err("invalid --format 'csv' for this matrix: it has lines for the run suite, "
		"and no selected setup runs it (expected text or json)");
	return FSB_EXIT_USAGE;
}

/* ---- calling the run and lifecycle commands ---- */

/* An argv under construction; the strings are borrowed, not owned. */
struct argv_b {
	char **v;
	size_t n, cap;
	bool nomem;
};

static void arg(struct argv_b *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			a->nomem = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

/*
 * glibc's getopt keeps state between calls beyond optind; optind = 0 makes
 * it start afresh, as if the next command were the first of the process.
 */
static void getopt_reset(void)
{
	static char *none[] = { (char *)"fsbench", NULL };

	optind = 0;
	opterr = 0;
	while (getopt(1, none, "") != -1)
		;
}

/*
 * argv for `fsbench run`/`lifecycle` in this setup: the fixed front
 * (device, filesystem: the matrix's), --repeat from [global], the file's
 * words (which may override --repeat), then the options only the matrix
 * sets. words is split from the file; front/back are NULL-terminated.
 */
static int build_argv(struct argv_b *a, const char *cmd, const char *const *front,
		      unsigned repeat, char repeat_buf[16], char **words,
		      const char *const *back)
{
	memset(a, 0, sizeof(*a));
	arg(a, cmd);
	for (size_t i = 0; front && front[i]; i++)
		arg(a, front[i]);
	if (repeat) {
		snprintf(repeat_buf, 16, "%u", repeat);
		arg(a, "--repeat");
		arg(a, repeat_buf);
	}
	for (size_t i = 0; words && words[i]; i++)
		arg(a, words[i]);
	for (size_t i = 0; back && back[i]; i++)
		arg(a, back[i]);
	if (a->nomem) {
		free(a->v);
		a->v = NULL;
		fsb_err("matrix: out of memory");
		return -ENOMEM;
	}
	return 0;
}

static const char *progress_name(enum fsb_progress p)
{
	return p == FSB_PROGRESS_ALWAYS ? "always" : p == FSB_PROGRESS_NEVER ? "never" : "auto";
}

/*
 * Send stderr to /dev/null until unmute_stderr(the returned fd): for calls
 * whose complaints are read back with fsb_err_last and said our way.
 * Returns the saved stderr, or -1 when it could not be muted.
 */
static int mute_stderr(void)
{
	int saved, null;

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0 && dup2(null, STDERR_FILENO) >= 0) {
		close(null);
		return saved;
	}
	if (null >= 0)
		close(null);
	if (saved >= 0)
		close(saved);
	return -1;
}

static void unmute_stderr(int saved)
{
	if (saved < 0)
		return;
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
}

/*
 * Let `fsbench CMD` parse the file's arguments against NO_TARGET: its
 * option checks run and print; the target check that follows fails. Only
 * the parser's verdict (exit 2) matters, so stderr is muted and the message
 * read back with fsb_err_last. 0, or FSB_EXIT_USAGE after saying which line.
 */
static int check_args_with(const struct mx_ctx *m, int (*cmd)(int, char **), const char *name,
			   const char *const *front, const char *value, unsigned line,
			   const char *const *back)
{
	struct argv_b a;
	char **words = NULL, rep[16];
	const char *why;
	int rc, saved;

	if (fsb_words_split(value, &words, &why) < 0)
		return FSB_EXIT_USAGE; /* the loader said so already */
	if (build_argv(&a, name, front, m->cfg.repeat, rep, words, back)) {
		fsb_words_free(words);
		return FSB_EXIT_FAIL;
	}
	saved = mute_stderr();
	getopt_reset();
	rc = cmd((int)a.n, a.v);
	unmute_stderr(saved);
	if (rc == FSB_EXIT_USAGE)
		fsb_err("%s:%u: %s: %s", m->cfg.path, line, name, fsb_err_last());
	free(a.v);
	fsb_words_free(words);
	return rc == FSB_EXIT_USAGE ? FSB_EXIT_USAGE : 0;
}

/* Every run/lifecycle value in use, once per line it was written on. */
static int check_args(const struct mx_ctx *m)
{
	static const char *const run_back[] = { "--format", "json", "--progress", "never",
						"--", NO_TARGET, NULL };
	unsigned done[64];
	size_t ndone = 0;
	int rc;

	for (size_t i = 0; i < m->cfg.nsetups; i++) {
		const struct fsb_matrix_setup *s = &m->cfg.setups[i];
		const char *lc_front[] = { "--device", NO_TARGET, "--destroy-data", "--fs", s->type,
					   "--mkfs", s->mkfs, NULL };
		/* On flash (guest, mtd) the lifecycle is called with --mtd, and
		 * without --mkfs: it knows how jffs2 and ubifs are made there. */
		const char *mtd_front[] = { "--mtd", NO_TARGET ",128k", "--fs", s->type, NULL };
		const char *lc_back[] = { "--format", "json", "--progress", "never", NULL };
		bool seen_run = false, seen_lc = false;

		if (!m->selected[i])
			continue;
		for (size_t j = 0; j < ndone; j++) {
			seen_run |= s->run && done[j] == s->run_line;
			seen_lc |= s->lifecycle && done[j] == s->lifecycle_line;
		}
		if (s->run && !seen_run) {
			if ((rc = check_args_with(m, fsb_cmd_run, "run", NULL, s->run, s->run_line,
						  run_back)))
				return rc;
			if (ndone < sizeof(done) / sizeof(done[0]))
				done[ndone++] = s->run_line;
		}
		if (s->lifecycle && !seen_lc) {
			if ((rc = check_args_with(m, fsb_cmd_lifecycle, "lifecycle",
						  s->mtd_erase_bytes ? mtd_front : lc_front,
						  s->lifecycle, s->lifecycle_line, lc_back)))
				return rc;
			if (ndone < sizeof(done) / sizeof(done[0]))
				done[ndone++] = s->lifecycle_line;
		}
	}
	return 0;
}

/* ---- one setup ---- */

static void progress(const struct mx_ctx *m, const struct fsb_matrix_setup *s,
		     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void progress(const struct mx_ctx *m, const struct fsb_matrix_setup *s,
		     const char *fmt, ...)
{
	va_list ap;
	char label[4 * FSB_MATRIX_MAX_LABEL + 8];

	if (!m->progress)
		return;
	fprintf(stderr, "[%zu/%zu] %s: ", m->k, m->nselected,
		fsb_text_safe(s->label, 0, label, sizeof(label)));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * Record why a step failed: what the step printed last (fsb_err_last),
 * when it printed something since `before`, else just the step.
 */
static void step_failed(struct fsb_matrix_entry *e, const char *step, const char *before)
{
	const char *last = fsb_err_last();

	if (fsb_stop_requested())
		fsb_matrix_entry_status(e, FSB_MATRIX_FAILED, "%s: interrupted by signal %d", step,
					fsb_stop_signo());
	else if (*last && strcmp(last, before))
		fsb_matrix_entry_status(e, FSB_MATRIX_FAILED, "%s: %s", step, last);
	else
		fsb_matrix_entry_status(e, FSB_MATRIX_FAILED, "%s failed", step);
}

/* Checks that only read: a setup failing them is skipped. */
static int preflight(struct mx_ctx *m, const struct fsb_matrix_setup *s,
		     struct fsb_matrix_entry *e)
{
	char **words = NULL, path[PATH_MAX], a[32], b[32];
	const char *why;
	struct statvfs vfs;
	uint64_t need = 0, have;
	int saved, err;

	saved = mute_stderr();
	err = fsb_mount_fs_supported(s->type);
	unmute_stderr(saved);
	if (err) {
		/* One line that also says what becomes of the setup. */
		fsb_matrix_entry_status(e, FSB_MATRIX_SKIPPED, "%s", fsb_err_last());
		fsb_err("matrix: %s: %s: setup skipped", s->label, e->error ? e->error : "");
		return err;
	}
	if (!fsb_mkfs_is_none(s->mkfs)) {
		if (fsb_words_split(s->mkfs, &words, &why) < 0)
			return -EINVAL; /* checked when the file was loaded */
		if (fsb_which(words[0], path, sizeof(path))) {
			fsb_err("matrix: %s: mkfs program '%s' not found (in PATH, /sbin, /usr/sbin): "
				"setup skipped", s->label, words[0]);
			fsb_matrix_entry_status(e, FSB_MATRIX_SKIPPED, "mkfs program '%s' not found "
						"(in PATH, /sbin, /usr/sbin)", words[0]);
			fsb_words_free(words);
			return -ENOENT;
		}
		fsb_words_free(words);
	}
	if (s->lifecycle && s->devices > 1 && !s->run) {
		fsb_err("matrix: %s: the lifecycle works on one device, this setup has %u: "
			"setup skipped", s->label, s->devices);
		fsb_matrix_entry_status(e, FSB_MATRIX_SKIPPED, "the lifecycle works on one device, "
					"this setup has %u", s->devices);
		return -EINVAL;
	}
	/* A filled image is fully allocated: check the space up front. */
	if (s->fill != FSB_FILL_NONE)
		need = (uint64_t)s->devices * s->image_bytes;
	if (need && statvfs(m->work, &vfs) == 0 &&
	    need > (have = (uint64_t)vfs.f_bavail * vfs.f_frsize)) {
		fsb_err("matrix: %s: images need %s in '%s', only %s free", s->label,
			fsb_size_format_human(need, a, sizeof(a)), m->work,
			fsb_size_format_human(have, b, sizeof(b)));
		fsb_matrix_entry_status(e, FSB_MATRIX_FAILED, "images need %s in '%s', only %s free",
					a, m->work, b);
		return -ENOSPC;
	}
	return 0;
}

/*
 * What is made outside plain files is listed in the work dir's marker as
 * soon as it exists, so that after a SIGKILL `fsbench clean` can prove it
 * is ours. Describes a failed append (marker.h does not).
 */
static int mark(const struct mx_ctx *m, int err)
{
	if (err)
		fsb_err_errno(err, "matrix: cannot record what was made in '%s/%s'", m->work,
			      FSB_MARKER_NAME);
	return err;
}

/* Images, their fill (when the run suite uses them) and loop devices. */
static int make_devices(struct mx_ctx *m, size_t idx, const struct fsb_matrix_setup *s,
			struct mx_setup *st)
{
	uint64_t seed = fsb_default_seed();
	int err;

	for (unsigned j = 0; j < s->devices; j++) {
		struct fsb_image *img = &st->img[j];
		char path[PATH_MAX];

		if (fsb_stop_requested())
			return -EINTR;
		snprintf(path, sizeof(path), "%s/setup%zu-dev%u.img", m->work, idx + 1, j + 1);
		st->ndev = j + 1;
		/* Fresh in our own work directory: never an existing file. */
		if ((err = fsb_image_create(img, path, s->image_bytes)) ||
		    (err = mark(m, fsb_marker_add_image(m->work, path, img->fd, img->created))))
			return err;
		/* The lifecycle fills its device itself; only the run suite
		 * needs the images in their state before mkfs now. */
		if (s->run && s->fill != FSB_FILL_NONE) {
			progress(m, s, "fill %s with %s", img->path, fsb_fill_name(s->fill));
			err = fsb_fill_fd(img->fd, img->path, s->image_bytes, s->fill, seed + j);
			if (err)
				return err;
		}
		err = fsb_loopdev_attach(&st->lo[j], img->fd, img->path, true);
		if (err || (err = mark(m, fsb_marker_add_loop(m->work, st->lo[j].path))))
			return err;
		if (!st->lo[j].direct_io)
			fsb_warn("loop device '%s' runs without direct I/O (the filesystem holding "
				 "'%s' refused it): the host's cache may flatter reads",
				 st->lo[j].path, img->path);
		st->devs[j] = st->lo[j].path;
	}
	return 0;
}

static int make_fs(struct mx_ctx *m, const struct fsb_matrix_setup *s, struct mx_setup *st)
{
	char **argv = NULL, path[PATH_MAX], line[1024] = "", bad[PATH_MAX + 256];
	const char *why;
	size_t len = 0;
	int err;

	if (fsb_mkfs_is_none(s->mkfs))
		return 0;
	err = fsb_matrix_mkfs_argv(s, st->devs, st->ndev, &argv, &why);
	if (err < 0) {
		fsb_err("matrix: %s: invalid mkfs '%s': %s", s->label, s->mkfs, why);
		return err;
	}
	/* Checked when the file was loaded; again now, right before exec,
	 * against the devices made for this setup. */
	if ((err = fsb_mkfs_check_devices(argv, st->devs, st->ndev, bad, sizeof(bad)))) {
		fsb_err("matrix: %s: refusing to run mkfs: %s", s->label, bad);
		fsb_words_free(argv);
		return err;
	}
	for (size_t i = 0; argv[i] && len < sizeof(line); i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", i ? " " : "",
					argv[i]);
	progress(m, s, "%s", line);
	if (fsb_which(argv[0], path, sizeof(path))) {
		fsb_err("matrix: %s: mkfs program '%s' not found", s->label, argv[0]);
		err = -ENOENT;
	} else {
		err = fsb_mkfs_run(path, argv);
	}
	fsb_words_free(argv);
	return err;
}

static int mount_fs(struct mx_ctx *m, size_t idx, const struct fsb_matrix_setup *s,
		    struct mx_setup *st)
{
	int err;

	snprintf(st->mnt, sizeof(st->mnt), "%s/setup%zu.mnt", m->work, idx + 1);
	if (mkdir(st->mnt, 0700) < 0) {
		err = -errno;
		fsb_err_errno(err, "matrix: cannot create mountpoint '%s'", st->mnt);
		return err;
	}
	st->mnt_made = true;
	if ((err = mark(m, fsb_marker_add_mount(m->work, st->mnt))))
		return err;
	progress(m, s, "mount -t %s%s%s %s %s", s->type, *s->options ? " -o " : "", s->options,
		 st->lo[0].path, st->mnt);
	err = fsb_mount(st->lo[0].path, st->mnt, s->type, s->options);
	if (!err)
		st->mounted = true;
	return err;
}

/*
 * Run `fsbench CMD` with argv, then load its JSON from json_path into a
 * new result (*out, the caller's). Returns 0, the command's exit status
 * (> 0), or -errno.
 */
static int call(int (*cmd)(int, char **), struct argv_b *a, const char *json_path,
		struct fsb_result **out)
{
	struct fsb_result *r;
	int rc, err;

	getopt_reset();
	rc = cmd((int)a->n, a->v);
	if (rc)
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	err = fsb_json_load(json_path, r);
	unlink(json_path);
	if (err) {
		free(r);
		return err;
	}
	*out = r;
	return 0;
}

static int run_suite(struct mx_ctx *m, size_t idx, const struct fsb_matrix_setup *s,
		     struct mx_setup *st, struct fsb_matrix_entry *e)
{
	char json[PATH_MAX], rep[16], **words = NULL;
	const char *why;
	const char *back[] = { "--label", s->label, "--format", "json", "--output", json,
			       "--progress", progress_name(m->o->progress), "--", st->mnt, NULL };
	struct argv_b a;
	int rc;

	snprintf(json, sizeof(json), "%s/setup%zu.run.json", m->work, idx + 1);
	if (fsb_words_split(s->run, &words, &why) < 0)
		return -EINVAL;
	if (build_argv(&a, "run", NULL, m->cfg.repeat, rep, words, back)) {
		fsb_words_free(words);
		return -ENOMEM;
	}
	progress(m, s, "fsbench run %s", s->run);
	rc = call(fsb_cmd_run, &a, json, &e->run_res);
	free(a.v);
	fsb_words_free(words);
	if (rc == 0 && e->run_res) {
		/* What run cannot know: the images' content before mkfs, and
		 * every device of a multi-device filesystem. */
		fsb_strset(&e->run_res->setup.fill, fsb_fill_name(s->fill));
		if (!e->run_res->setup.device || st->ndev > 1) {
			char devs[FSB_MATRIX_MAX_DEVICES * 24] = "";
			size_t len = 0;

			for (unsigned j = 0; j < st->ndev && len < sizeof(devs); j++)
				len += (size_t)snprintf(devs + len, sizeof(devs) - len, "%s%s",
							j ? "," : "", st->lo[j].path);
			fsb_strset(&e->run_res->setup.device, devs);
		}
	}
	return rc;
}

static int run_lifecycle(struct mx_ctx *m, size_t idx, const struct fsb_matrix_setup *s,
			 struct mx_setup *st, struct fsb_matrix_entry *e)
{
	char json[PATH_MAX], rep[16], **words = NULL;
	const char *why;
	const char *front[] = { "--device", st->lo[0].path, "--destroy-data", "--fs", s->type,
				"--mkfs", s->mkfs, "--fill", fsb_fill_name(s->fill),
				*s->options ? "--options" : NULL, s->options, NULL };
	const char *back[] = { "--label", s->label, "--format", "json", "--output", json,
			       "--progress", progress_name(m->o->progress), NULL };
	struct argv_b a;
	int rc;

	snprintf(json, sizeof(json), "%s/setup%zu.lifecycle.json", m->work, idx + 1);
	if (fsb_words_split(s->lifecycle, &words, &why) < 0)
		return -EINVAL;
	if (build_argv(&a, "lifecycle", front, m->cfg.repeat, rep, words, back)) {
		fsb_words_free(words);
		return -ENOMEM;
	}
	progress(m, s, "fsbench lifecycle %s on %s", s->lifecycle, st->lo[0].path);
	rc = call(fsb_cmd_lifecycle, &a, json, &e->lc_res);
	free(a.v);
	fsb_words_free(words);
	return rc;
}

/*
 * A guest = yes setup: one `fsbench guest` boot per suite, on the guest's
 * first disk (/dev/vda, an image of image_size with the setup's fill, made
 * and removed by the guest command). The run suite measures the
 * filesystem the guest makes there with the setup's mkfs template and
 * mounts with its options (guest --fs --mkfs --options); the lifecycle
 * works on the bare disk, or with mtd on erased flash made by block2mtd
 * over it. Rows are marked "(guest, ACCEL)" and noted: absolute times
 * under emulation are not comparable with host rows, ratios within the
 * guest are.
 */
static int run_guest(struct mx_ctx *m, size_t idx, const struct fsb_matrix_setup *s,
		     struct fsb_matrix_entry *e, bool suite)
{
	char json[PATH_MAX], rep[16], disk[64], mtd[64], size[32], **words = NULL;
	const char *why;
	const char *front[24];
	const char *back[] = { "--label", s->label, NULL };
	struct fsb_result **res = suite ? &e->run_res : &e->lc_res;
	struct argv_b a;
	size_t n = 0;
	int rc;

	snprintf(json, sizeof(json), "%s/setup%zu.guest.%s.json", m->work, idx + 1,
		 suite ? "run" : "lifecycle");
	fsb_size_format_human(s->image_bytes, size, sizeof(size));
	snprintf(disk, sizeof(disk), "%llu,fill=%s", (unsigned long long)s->image_bytes,
		 s->mtd_erase_bytes ? "0xff" : fsb_fill_name(s->fill));
	front[n++] = "--disk";
	front[n++] = disk;
	front[n++] = "--format";
	front[n++] = "json";
	front[n++] = "--output";
	front[n++] = json;
	/* A whole suite under emulation outlasts the guest command's default
	 * hang timeout (600 s): a 512 MiB run takes minutes per test. */
	front[n++] = "--guest-timeout";
	front[n++] = "3600";
	if (suite) {
		front[n++] = "--fs";
		front[n++] = s->type;
		front[n++] = "--mkfs";
		front[n++] = s->mkfs;
		if (*s->options) {
			front[n++] = "--options";
			front[n++] = s->options;
		}
		front[n++] = "--";
		front[n++] = "run";
	} else {
		front[n++] = "--";
		front[n++] = "lifecycle";
		front[n++] = "--fs";
		front[n++] = s->type;
		if (s->mtd_erase_bytes) {
			/* The lifecycle knows how each type is made on flash. */
			snprintf(mtd, sizeof(mtd), "/dev/vda,%llu",
				 (unsigned long long)s->mtd_erase_bytes);
			front[n++] = "--mtd";
			front[n++] = mtd;
			if (fsb_mkfs_is_none(s->mkfs)) {
				front[n++] = "--mkfs";
				front[n++] = "none";
			}
		} else {
			front[n++] = "--device";
			front[n++] = "/dev/vda";
			front[n++] = "--destroy-data";
			front[n++] = "--mkfs";
			front[n++] = s->mkfs;
		}
		if (*s->options) {
			front[n++] = "--options";
			front[n++] = s->options;
		}
	}
	front[n] = NULL;
	if (fsb_words_split(suite ? s->run : s->lifecycle, &words, &why) < 0)
		return -EINVAL;
	/* build_argv puts the command name first: here it is "guest", and
	 * the suite's words follow the guest's own options. */
	if (build_argv(&a, "guest", front, m->cfg.repeat, rep, words, back)) {
		fsb_words_free(words);
		return -ENOMEM;
	}
	progress(m, s, "fsbench guest --disk %s%s -- %s %s", size,
		 s->mtd_erase_bytes ? " (flash)" : "", suite ? "run" : "lifecycle",
		 suite ? s->run : s->lifecycle);
	rc = call(fsb_cmd_guest, &a, json, res);
	free(a.v);
	fsb_words_free(words);
	if (rc == 0 && *res) {
		const struct fsb_param *pa = fsb_result_param(*res, "guest_accel");
		char mark[FSB_MATRIX_MAX_LABEL + 32];

		snprintf(mark, sizeof(mark), "%s (guest, %s)", s->label,
			 pa && pa->s ? pa->s : "?");
		fsb_strset(&e->label, mark);
		fsb_strset(&(*res)->setup.label, mark);
		/* On flash the lifecycle chose how the filesystem is made
		 * (jffs2: on mount; ubifs: the UBI tools): show what it ran. */
		if (!suite && s->mtd_erase_bytes && (pa = fsb_result_param(*res, "mkfs")) && pa->s)
			fsb_strset(&e->mkfs, pa->s);
		if (suite)
			fsb_strset(&(*res)->setup.fill, fsb_fill_name(s->fill));
		fsb_strset(&e->note, "ran in a QEMU guest under emulation: its absolute times are "
			   "not comparable with host rows; ratios between guest rows are");
	}
	return rc;
}

/* Always, whatever happened: umount, detach, remove images. */
static void teardown(struct mx_ctx *m, struct mx_setup *st)
{
	/* A mount that will not go (a process sits in it) is detached
	 * lazily: nothing of ours stays in the mount table. */
	if (st->mounted && fsb_umount(st->mnt) && !fsb_umount_lazy(st->mnt))
		st->mounted = false;
	if (st->mnt_made && !st->mounted && rmdir(st->mnt) < 0)
		fsb_err_errno(-errno, "matrix: cannot remove mountpoint '%s'", st->mnt);
	for (unsigned j = st->ndev; j-- > 0;) {
		fsb_loopdev_release(&st->lo[j]);
		if (st->img[j].created && m->o->keep_images)
			m->kept = true;
		fsb_image_close(&st->img[j], !m->o->keep_images);
	}
}

static void record_config(const struct fsb_matrix_setup *s, struct fsb_matrix_entry *e)
{
	fsb_strset(&e->type, s->type);
	fsb_strset(&e->mkfs, s->mkfs);
	fsb_strset(&e->options, s->options);
	fsb_strset(&e->fill, fsb_fill_name(s->fill));
	fsb_strset(&e->run, s->run);
	fsb_strset(&e->lifecycle, s->lifecycle);
	e->devices = s->devices;
	e->image_bytes = s->image_bytes;
}

/* One setup from images to teardown; its outcome goes into e. */
static void do_setup(struct mx_ctx *m, size_t idx, struct fsb_matrix_entry *e)
{
	const struct fsb_matrix_setup *s = &m->cfg.setups[idx];
	struct mx_setup st;
	char before[1024], size[32];
	int err;

	memset(&st, 0, sizeof(st));
	for (unsigned j = 0; j < FSB_MATRIX_MAX_DEVICES; j++) {
		fsb_image_init(&st.img[j]);
		fsb_loopdev_init(&st.lo[j]);
	}
	record_config(s, e);
	if (s->guest) {
		/* One boot per suite: run on a filesystem the guest made and
		 * mounted, then the lifecycle on the bare disk. */
		snprintf(before, sizeof(before), "%s", fsb_err_last());
		if (s->run && run_guest(m, idx, s, e, true)) {
			step_failed(e, "run suite in a guest", before);
			return;
		}
		if (s->lifecycle && !fsb_stop_requested() && run_guest(m, idx, s, e, false))
			step_failed(e, "lifecycle in a guest", before);
		else if (fsb_stop_requested())
			step_failed(e, "setup", before);
		return;
	}
	progress(m, s, "%u x %s image%s", s->devices,
		 fsb_size_format_human(s->image_bytes, size, sizeof(size)),
		 s->devices > 1 ? "s" : "");
	if (preflight(m, s, e))
		return;
	snprintf(before, sizeof(before), "%s", fsb_err_last());
	if ((err = make_devices(m, idx, s, &st))) {
		step_failed(e, "images and loop devices", before);
		goto out;
	}
	if (s->run) {
		if ((err = make_fs(m, s, &st))) {
			step_failed(e, "mkfs", before);
			goto out;
		}
		if (fsb_stop_requested() || (err = mount_fs(m, idx, s, &st))) {
			step_failed(e, "mount", before);
			goto out;
		}
		if ((err = run_suite(m, idx, s, &st, e))) {
			step_failed(e, "run suite", before);
			goto out;
		}
		err = fsb_umount(st.mnt);
		st.mounted = err != 0;
		if (err) {
			step_failed(e, "umount", before);
			goto out;
		}
	}
	if (s->lifecycle && s->devices > 1) {
		/* fsbench lifecycle makes, fills and counts one device. */
		char note[128];

		snprintf(note, sizeof(note), "lifecycle skipped: it works on one device, this "
			 "setup has %u", s->devices);
		fsb_strset(&e->note, note);
	} else if (s->lifecycle && !fsb_stop_requested()) {
		if ((err = run_lifecycle(m, idx, s, &st, e))) {
			step_failed(e, "lifecycle", before);
			goto out;
		}
	}
	if (fsb_stop_requested())
		step_failed(e, "setup", before);
out:
	teardown(m, &st);
}

/* ---- the command ---- */

static int make_work(struct mx_ctx *m)
{
	const char *dir = m->cfg.workdir ? m->cfg.workdir : FSB_MATRIX_DEFAULT_WORKDIR;
	char made[PATH_MAX], real[PATH_MAX];
	struct stat sb;
	int err;

	if (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		err = stat(dir, &sb) < 0 ? -errno : -ENOTDIR;
		fsb_err_errno(err, "matrix: cannot use workdir '%s'", dir);
		return err;
	}
	err = fsb_scratch_create(dir, made, sizeof(made));
	if (err) {
		fsb_err_errno(err, "matrix: cannot create a scratch directory in '%s'", dir);
		return err;
	}
	/* libmount compares mountpoints with mountinfo, which has real paths. */
	if (!realpath(made, real)) {
		err = -errno;
		fsb_err_errno(err, "matrix: cannot resolve '%s'", made);
		fsb_scratch_remove(made);
		return err;
	}
	if ((size_t)snprintf(m->work, sizeof(m->work), "%s", real) >= sizeof(m->work)) {
		fsb_err("matrix: cannot use '%s': path too long", real);
		fsb_scratch_remove(made);
		return -ENAMETOOLONG;
	}
	m->work_made = true;
	return 0;
}

static void remove_work(struct mx_ctx *m)
{
	int err;

	if (!m->work_made)
		return;
	if (m->kept) {
		char path[4 * sizeof(m->work)];

		/* The user's now: `fsbench clean` leaves it alone. */
		if (fsb_marker_add_kept(m->work))
			fsb_err("matrix: cannot mark '%s' as kept: 'fsbench clean' would remove it",
				m->work);
		fprintf(stderr, "fsbench: matrix: images kept in '%s'\n",
			fsb_text_safe(m->work, 0, path, sizeof(path)));
		return;
	}
	err = fsb_scratch_remove(m->work);
	if (err)
		fsb_err_errno(err, "matrix: cannot remove scratch directory '%s'", m->work);
}

int fsb_cmd_matrix(int argc, char **argv)
{
	struct mx_opts o;
	struct mx_ctx m;
	struct fsb_output dest = { 0 };
	char why[1024];
	bool all_ok = true, stopped = false;
	int rc, err;

	memset(&m, 0, sizeof(m));
	m.o = &o;
	rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? FSB_EXIT_OK : rc;
	/* -o first, and never the INI file; nothing is made before the end. */
	if (fsb_output_open(&dest, o.output, &o.config, 1))
		return FSB_EXIT_USAGE;
	err = fsb_matrix_config_load(o.config, &m.cfg, why, sizeof(why));
	if (err) {
		fsb_err("%s", why);
		rc = FSB_EXIT_USAGE;
		goto out;
	}
	if ((rc = select_setups(&m)) || (rc = check_view(&m)) || (rc = check_args(&m)))
		goto out;
	rc = FSB_EXIT_FAIL;
	if (geteuid() != 0) {
		fsb_err("matrix: needs root (it attaches loop devices and mounts filesystems)");
		goto out;
	}
	if (make_work(&m))
		goto out;
	if (fsb_matrix_doc_init(&m.doc, o.config)) {
		fsb_err("matrix: out of memory");
		goto out;
	}
	m.progress = fsb_progress_enabled(o.progress);
	for (size_t i = 0; i < m.cfg.nsetups; i++) {
		struct fsb_matrix_entry *e;

		if (!m.selected[i])
			continue;
		m.k++;
		e = fsb_matrix_doc_add(&m.doc, m.cfg.setups[i].label);
		if (!e) {
			fsb_err("matrix: out of memory");
			goto out;
		}
		if (stopped) {
			/* --fail-fast: the rest is listed, not run. */
			record_config(&m.cfg.setups[i], e);
			fsb_matrix_entry_status(e, FSB_MATRIX_SKIPPED, "not run: --fail-fast");
			continue;
		}
		do_setup(&m, i, e);
		if (fsb_stop_requested()) {
			fsb_err("matrix: stopped by signal %d during setup '%s' (torn down, no "
				"report)", fsb_stop_signo(), e->label);
			break;
		}
		if (e->status != FSB_MATRIX_OK) {
			all_ok = false;
			stopped = o.fail_fast;
		}
	}
	if (fsb_stop_requested())
		goto out;
	if (fsb_matrix_output(o.view, &m.doc, &dest))
		goto out;
	rc = all_ok ? FSB_EXIT_OK : FSB_EXIT_FAIL;
out:
	remove_work(&m);
	fsb_output_release(&dest);
	if (fsb_stop_requested())
		rc = 128 + fsb_stop_signo();
	fsb_matrix_doc_release(&m.doc);
	fsb_matrix_config_release(&m.cfg);
	free(m.selected);
	return rc;
}
