/*
 * fsbench matrix's executor (core/matrix.h): the setups of a plan, one
 * after another, each measured by the run, lifecycle or guest executor
 * called in this process with its plan, and every outcome kept in memory.
 *
 * Order of business per setup: checks that only read (kernel type, mkfs
 * tool, space: a setup that fails them is skipped), images, fill, loop
 * devices (direct I/O), mkfs, mount, the run suite, umount, the lifecycle
 * on the first device, then always, in reverse: umount, detach, remove the
 * images (unless kept). A signal stops after the current setup's teardown.
 */
#include "core/matrix.h"
#include "core/devcap.h"
#include "core/guest.h"
#include "core/progress.h"
#include "device/cache.h"
#include "device/fill.h"
#include "device/image.h"
#include "device/loop.h"
#include "device/mkfs.h"
#include "device/mount.h"
#include "stats/clock.h"
#include "util/marker.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/size.h"
#include "util/spawn.h"
#include "util/text.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Every device a setup may have can be named by its mkfs template. */
_Static_assert(FSB_MATRIX_MAX_DEVICES <= FSB_MKFS_MAX_DEVICES, "more devices than {devN}");

/* A whole suite under emulation outlasts the guest's default hang timeout
 * (600 s): a 512 MiB run takes minutes per test. */
#define GUEST_TIMEOUT_NS (3600 * 1000000000ull)

/* The whole run: the plan, the work directory, the progress. */
struct mx_ctx {
	const struct fsb_matrix_plan *p;
	const struct fsb_matrix_config *cfg;
	/* our scratch dir under workdir (real path); room left for file names */
	char work[PATH_MAX - 128];
	bool work_made;
	bool kept;				/* an image was kept: keep the work dir */
	struct fsb_prog prog;			/* the setups' steps (each run has its own) */
	size_t k;				/* setup k of nselected, for progress */
	char prefix[FSB_MATRIX_MAX_LABEL + 48]; /* "[k/n] label ": the runner's */
};

/* What one setup holds, released in reverse order of acquisition. */
struct mx_setup {
	unsigned ndev;
	struct fsb_image img[FSB_MATRIX_MAX_DEVICES]; /* new, 0600, locked */
	struct fsb_loopdev lo[FSB_MATRIX_MAX_DEVICES];
	const char *devs[FSB_MATRIX_MAX_DEVICES];
	char mnt[PATH_MAX];
	bool mnt_made, mounted;
	/* The first device's raw capability, measured before the fill (its
	 * figures and "device_capability" param); measured when capdoc.params
	 * is set. */
	struct fsb_result capdoc;
};

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
		free(s->run_plan);
		free(s->lc_plan);
		fsb_words_free(s->run_words);
		fsb_words_free(s->lc_words);
	}
	free(cfg->setups);
	free(cfg->path);
	free(cfg->workdir);
	fsb_words_free(cfg->overrides);
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

bool fsb_matrix_mkfs_none(const char *tmpl)
{
	return fsb_mkfs_is_none(tmpl);
}

int fsb_matrix_mkfs_default(const char *type, char *buf, size_t len)
{
	return fsb_mkfs_default_template(type, buf, len);
}

int fsb_matrix_mkfs_check(const char *tmpl, char *why, size_t len)
{
	return fsb_mkfs_check_template(tmpl, why, len);
}

int fsb_matrix_mkfs_devices(const char *tmpl, size_t n, const char **why)
{
	return fsb_mkfs_template_devices(tmpl, n, why);
}

/* ---- progress and failures ---- */

static void progress(struct mx_ctx *m, const struct fsb_matrix_setup *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void progress(struct mx_ctx *m, const struct fsb_matrix_setup *s, const char *fmt, ...)
{
	va_list ap;
	char label[4 * FSB_MATRIX_MAX_LABEL + 8], what[1024],
		line[sizeof(label) + sizeof(what) + 48];

	if (!m->prog.on)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (m->prog.json) {
		/* JSON escapes what it must itself; the label stays as it is. */
		snprintf(line, sizeof(line), "[%zu/%zu] %s", m->k, m->p->nselected, what);
		fsb_prog_note(&m->prog, s->label, line);
		return;
	}
	snprintf(line, sizeof(line), "[%zu/%zu] %s: %s", m->k, m->p->nselected,
		 fsb_text_safe(s->label, 0, label, sizeof(label)), what);
	fsb_prog_note(&m->prog, NULL, line);
}

/*
 * A step of a setup: what it describes as it fails is printed as usual and
 * its first error kept, so the setup's status says the step and why.
 */
struct step {
	struct fsb_error e;
	struct fsb_err_scope scope;
};

static void step_begin(struct step *st, const char *name)
{
	fsb_error_clear(&st->e);
	fsb_error_step(&st->e, "%s", name);
	fsb_err_capture_begin(&st->scope, &st->e, false);
}

/* msg without a leading "step: " (the lifecycle says "lifecycle: ..."). */
static const char *unprefixed(const char *msg, const char *step)
{
	size_t n = strlen(step);

	return !strncmp(msg, step, n) && !strncmp(msg + n, ": ", 2) ? msg + n + 2 : msg;
}

/* End the step with its result; on failure record it in e. True when it failed. */
static bool step_failed(struct step *st, int err, struct fsb_matrix_entry *e)
{
	if (!err && fsb_stop_requested())
		err = -EINTR;
	fsb_err_capture_end(&st->scope, err);
	if (!err)
		return false;
	if (fsb_stop_requested())
		fsb_matrix_entry_status(e, FSB_MATRIX_FAILED, "%s: interrupted by signal %d",
					st->e.step, fsb_stop_signo());
	else
		fsb_matrix_entry_status(e, FSB_MATRIX_FAILED, "%s: %s", st->e.step,
					unprefixed(st->e.msg, st->e.step));
	return true;
}

/* ---- one setup ---- */

/* Checks that only read: a setup failing them is skipped. */
static int preflight(struct mx_ctx *m, const struct fsb_matrix_setup *s, struct fsb_matrix_entry *e)
{
	struct fsb_error why;
	struct fsb_err_scope scope;
	char **words = NULL, path[PATH_MAX], a[32], b[32];
	const char *bad;
	struct statvfs vfs;
	uint64_t need = 0, have;
	int err;

	/* Said once, our way: one line that also says what becomes of the setup. */
	fsb_error_clear(&why);
	fsb_err_capture_begin(&scope, &why, true);
	err = fsb_err_capture_end(&scope, fsb_mount_fs_supported(s->type));
	if (err) {
		fsb_matrix_entry_status(e, FSB_MATRIX_SKIPPED, "%s", why.msg);
		fsb_err("matrix: %s: %s: setup skipped", s->label, why.msg);
		return err;
	}
	if (!fsb_mkfs_is_none(s->mkfs)) {
		if (fsb_words_split(s->mkfs, &words, &bad) < 0)
			return -EINVAL; /* checked when the file was loaded */
		if (fsb_which(words[0], path, sizeof(path))) {
			fsb_err("matrix: %s: mkfs program '%s' not found (in PATH, /sbin, /usr/sbin): "
				"setup skipped",
				s->label, words[0]);
			fsb_matrix_entry_status(e, FSB_MATRIX_SKIPPED,
						"mkfs program '%s' not found "
						"(in PATH, /sbin, /usr/sbin)",
						words[0]);
			fsb_words_free(words);
			return -ENOENT;
		}
		fsb_words_free(words);
	}
	if (s->lifecycle && s->devices > 1 && !s->run) {
		fsb_err("matrix: %s: the lifecycle works on one device, this setup has %u: "
			"setup skipped",
			s->label, s->devices);
		fsb_matrix_entry_status(e, FSB_MATRIX_SKIPPED,
					"the lifecycle works on one device, "
					"this setup has %u",
					s->devices);
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
		fsb_matrix_entry_status(e, FSB_MATRIX_FAILED,
					"images need %s in '%s', only %s free", a, m->work, b);
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

/*
 * The raw capability of the setup's first device, before its fill and
 * mkfs. The device is fsbench's own: written too when a fill follows to
 * give it a known content again (the run suite's fill, or the lifecycle's),
 * read-only with fill = none (the image stays as made). Kept in
 * st->capdoc for the suites. A failure is only said (fsb_devcap_record).
 */
static int measure_device(struct mx_ctx *m, const struct fsb_matrix_setup *s, struct mx_setup *st)
{
	bool off = (s->run_plan && s->run_plan->no_devcap) ||
		   (!s->run_plan && s->lc_plan && s->lc_plan->no_devcap);

	if (off)
		return fsb_devcap_record(&st->capdoc, NULL, false, "off: --no-device-capability");
	if (s->mtd_erase_bytes)
		return fsb_devcap_record(&st->capdoc, NULL, false,
					 "off: flash (MTD/UBI): the block device is an "
					 "emulation layer, not what the filesystem uses");
	progress(m, s, "measure the raw device %s", st->lo[0].path);
	return fsb_devcap_record(&st->capdoc, st->lo[0].path, s->fill != FSB_FILL_NONE, NULL);
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
		err = fsb_loopdev_attach(&st->lo[j], img->fd, img->path, true);
		if (err || (err = mark(m, fsb_marker_add_loop(m->work, st->lo[j].path))))
			return err;
		if (!st->lo[j].direct_io)
			fsb_warn("loop device '%s' runs without direct I/O (the filesystem holding "
				 "'%s' refused it): the host's cache may flatter reads",
				 st->lo[j].path, img->path);
		st->devs[j] = st->lo[j].path;
		if (!j && (err = measure_device(m, s, st)))
			return err;
		/* The lifecycle fills its device itself; only the run suite
		 * needs the images in their state before mkfs now. After the
		 * device was measured: its writes are overwritten. */
		if (s->run && s->fill != FSB_FILL_NONE) {
			progress(m, s, "fill %s with %s", img->path, fsb_fill_name(s->fill));
			err = fsb_fill_fd(img->fd, img->path, s->image_bytes, s->fill, seed + j);
			if (err)
				return err;
		}
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

/* A result the executors fill, on the heap: the entry owns it once it is good. */
static struct fsb_result *new_result(void)
{
	struct fsb_result *r = calloc(1, sizeof(*r));

	if (!r)
		fsb_err("matrix: out of memory");
	return r;
}

static void drop_result(struct fsb_result *r)
{
	if (r)
		fsb_result_release(r);
	free(r);
}

/* The run suite on the mounted filesystem: the run executor, its plan as the line said. */
static int run_suite(struct mx_ctx *m, const struct fsb_matrix_setup *s, struct mx_setup *st,
		     struct fsb_matrix_entry *e)
{
	struct fsb_run_plan plan = *s->run_plan;
	struct fsb_result *r = new_result();
	int dev_fds[FSB_MATRIX_MAX_DEVICES], file_fds[FSB_MATRIX_MAX_DEVICES], err;
	struct fsb_cache_own_fs own = { .dev = st->lo[0].path,
					.mnt = st->mnt,
					.type = s->type,
					.options = s->options,
					.dev_fds = dev_fds,
					.file_fds = file_fds,
					.ndev = st->ndev };

	if (!r)
		return -ENOMEM;
	plan.progress = m->p->progress;
	plan.progress_prefix = m->prefix;
	if (st->capdoc.params) {
		plan.devcap = &st->capdoc.devcap;
		plan.devcap_param = fsb_result_get_str(&st->capdoc, "device_capability", NULL);
	}
	progress(m, s, "fsbench run %s", s->run);
	/* fsbench made this filesystem: a stat test may unmount and mount it
	 * for cold metadata instead of emptying the machine's caches. */
	for (unsigned j = 0; j < st->ndev; j++) {
		dev_fds[j] = st->lo[j].fd;
		file_fds[j] = st->img[j].fd;
	}
	fsb_cache_set_own_fs(&own);
	err = fsb_run_execute(&plan, st->mnt, r, NULL);
	fsb_cache_set_own_fs(NULL);
	if (err) {
		drop_result(r);
		return err;
	}
	e->run_res = r;
	/* What run cannot know: the images' content before mkfs, and
	 * every device of a multi-device filesystem. */
	fsb_strset(&r->setup.fill, fsb_fill_name(s->fill));
	if (!r->setup.device || st->ndev > 1) {
		char devs[FSB_MATRIX_MAX_DEVICES * 24] = "";
		size_t len = 0;

		for (unsigned j = 0; j < st->ndev && len < sizeof(devs); j++)
			len += (size_t)snprintf(devs + len, sizeof(devs) - len, "%s%s",
						j ? "," : "", st->lo[j].path);
		fsb_strset(&r->setup.device, devs);
	}
	return 0;
}

/* The lifecycle on the setup's first device, its scratch in the work dir. */
static int run_lifecycle(struct mx_ctx *m, const struct fsb_matrix_setup *s, struct mx_setup *st,
			 struct fsb_matrix_entry *e)
{
	struct fsb_lc_plan *plan = malloc(sizeof(*plan));
	struct fsb_result *r = new_result();
	int err = -ENOMEM;

	if (plan && r) {
		*plan = *s->lc_plan;
		plan->device = st->lo[0].path;
		if (st->capdoc.params) {
			plan->devcap = &st->capdoc.devcap;
			plan->devcap_param = fsb_result_get_str(&st->capdoc, "device_capability",
								NULL);
		}
		plan->progress = m->p->progress;
		plan->progress_prefix = m->prefix;
		progress(m, s, "fsbench lifecycle %s on %s", s->lifecycle, st->lo[0].path);
		err = fsb_lc_execute(plan, m->work, r, NULL);
	} else {
		fsb_err("matrix: out of memory");
	}
	free(plan);
	if (err) {
		drop_result(r);
		return err;
	}
	e->lc_res = r;
	return 0;
}

/*
 * The words a guest runs for a suite: the command, what the matrix sets
 * (the lifecycle's target and filesystem), [global] repeat, the line's
 * own words, the label. They cross into another machine's fsbench, so
 * they are words again; the host parsed the line with the same parser.
 */
static int guest_words(const struct mx_ctx *m, const struct fsb_matrix_setup *s, bool suite,
		       char *repeat, size_t rlen, char ***out)
{
	char **line = suite ? s->run_words : s->lc_words, **w;
	size_t nline = 0, n = 0;

	while (line[nline])
		nline++;
	w = calloc(nline + 20, sizeof(*w));
	if (!w) {
		fsb_err("matrix: out of memory");
		return -ENOMEM;
	}
	w[n++] = line[0];
	/* A guest's disk is a file on the host seen through virtio under
	 * emulation: its raw figures would describe neither. */
	w[n++] = "--no-device-capability";
	if (!suite) {
		w[n++] = "--fs";
		w[n++] = s->type;
		if (s->mtd_erase_bytes) {
			/* The lifecycle knows how each type is made on flash. */
			w[n++] = "--mtd";
			w[n++] = (char *)s->mtd_spec;
			if (fsb_mkfs_is_none(s->mkfs)) {
				w[n++] = "--mkfs";
				w[n++] = "none";
			}
		} else {
			w[n++] = "--device";
			w[n++] = "/dev/vda";
			w[n++] = "--destroy-data";
			w[n++] = "--mkfs";
			w[n++] = s->mkfs;
		}
		if (*s->options) {
			w[n++] = "--options";
			w[n++] = s->options;
		}
	}
	if (m->cfg->repeat_auto && suite) {
		w[n++] = "--repeat";
		w[n++] = "auto";
	} else if (m->cfg->repeat) {
		snprintf(repeat, rlen, "%u", m->cfg->repeat);
		w[n++] = "--repeat";
		w[n++] = repeat;
	}
	for (size_t i = 1; i < nline; i++)
		w[n++] = line[i];
	w[n++] = "--label";
	w[n++] = s->label;
	w[n] = NULL;
	*out = w;
	return (int)n;
}

/*
 * A guest = yes setup: one guest boot per suite, on the guest's first disk
 * (/dev/vda, an image of image_size with the setup's fill, made and
 * removed by the guest executor in the work dir). The run suite measures
 * the filesystem the guest makes there with the setup's mkfs template and
 * mounts with its options; the lifecycle works on the bare disk, or with
 * mtd on erased flash made by block2mtd over it. Rows are marked
 * "(guest, ACCEL)" and noted: absolute times under emulation are not
 * comparable with host rows, ratios within the guest are.
 */
static int run_guest(struct mx_ctx *m, const struct fsb_matrix_setup *s, struct fsb_matrix_entry *e,
		     bool suite)
{
	struct fsb_guest_plan plan;
	struct fsb_result *r = new_result();
	const struct fsb_param *pa;
	char **words = NULL, repeat[16], size[32], mark[FSB_MATRIX_MAX_LABEL + 32];
	int n, err;

	if (!r)
		return -ENOMEM;
	if ((n = guest_words(m, s, suite, repeat, sizeof(repeat), &words)) < 0) {
		drop_result(r);
		return n;
	}
	fsb_guest_plan_init(&plan);
	plan.ndisks = 1;
	plan.disk_bytes[0] = s->image_bytes;
	plan.disk_fill[0] = s->mtd_erase_bytes ? FSB_FILL_FF : s->fill;
	plan.timeout_ns = GUEST_TIMEOUT_NS;
	plan.cmd_argc = n;
	plan.cmd_argv = words;
	if (suite) {
		plan.fs = s->type;
		plan.mkfs = s->mkfs;
		plan.options = *s->options ? s->options : NULL;
	}
	fsb_size_format_human(s->image_bytes, size, sizeof(size));
	progress(m, s, "fsbench guest --disk %s%s -- %s %s", size,
		 s->mtd_erase_bytes ? " (flash)" : "", suite ? "run" : "lifecycle",
		 suite ? s->run : s->lifecycle);
	err = fsb_guest_plan_check(&plan);
	if (!err)
		err = fsb_guest_execute(&plan, m->work, r, NULL);
	free(words);
	if (err) {
		drop_result(r);
		return err;
	}
	if (suite)
		e->run_res = r;
	else
		e->lc_res = r;
	pa = fsb_result_param(r, "guest_accel");
	snprintf(mark, sizeof(mark), "%s (guest, %s)", s->label, pa && pa->s ? pa->s : "?");
	fsb_strset(&e->label, mark);
	fsb_strset(&r->setup.label, mark);
	/* On flash the lifecycle chose how the filesystem is made (jffs2: on
	 * mount; ubifs: the UBI tools): show what it ran. */
	if (!suite && s->mtd_erase_bytes && (pa = fsb_result_param(r, "mkfs")) && pa->s)
		fsb_strset(&e->mkfs, pa->s);
	if (suite)
		fsb_strset(&r->setup.fill, fsb_fill_name(s->fill));
	fsb_strset(&e->note, "ran in a QEMU guest under emulation: its absolute times are "
			     "not comparable with host rows; ratios between guest rows are");
	return 0;
}

/* Always, whatever happened: umount, detach, remove images. */
static void teardown(struct mx_ctx *m, struct mx_setup *st)
{
	fsb_result_release(&st->capdoc);
	/* A mount that will not go (a process sits in it) is detached
	 * lazily: nothing of ours stays in the mount table. */
	if (st->mounted && fsb_umount(st->mnt) && !fsb_umount_lazy(st->mnt))
		st->mounted = false;
	if (st->mnt_made && !st->mounted && rmdir(st->mnt) < 0)
		fsb_err_errno(-errno, "matrix: cannot remove mountpoint '%s'", st->mnt);
	for (unsigned j = st->ndev; j-- > 0;) {
		fsb_loopdev_release(&st->lo[j]);
		if (st->img[j].created && m->p->keep_images)
			m->kept = true;
		fsb_image_close(&st->img[j], !m->p->keep_images);
	}
}

static void record_config(const struct fsb_matrix_setup *s, struct fsb_matrix_entry *e)
{
	fsb_strset(&e->type, s->type);
	fsb_strset(&e->mkfs, s->mkfs);
	fsb_strset(&e->options, s->options);
	/* A guest's flash is erased: its disk holds 0xff, whatever fill says. */
	fsb_strset(&e->fill, fsb_fill_name(s->mtd_erase_bytes ? FSB_FILL_FF : s->fill));
	fsb_strset(&e->run, s->run);
	fsb_strset(&e->lifecycle, s->lifecycle);
	e->devices = s->devices;
	e->image_bytes = s->image_bytes;
	e->guest = s->guest;
}

/* One boot per suite: run on a filesystem the guest made and mounted, then
 * the lifecycle on the bare disk. */
static void guest_setup(struct mx_ctx *m, const struct fsb_matrix_setup *s,
			struct fsb_matrix_entry *e)
{
	struct step st;

	if (s->run) {
		step_begin(&st, "run suite in a guest");
		if (step_failed(&st, run_guest(m, s, e, true), e))
			return;
	}
	if (s->lifecycle) {
		step_begin(&st, "lifecycle in a guest");
		step_failed(&st, fsb_stop_requested() ? -EINTR : run_guest(m, s, e, false), e);
	}
}

/* One setup from images to teardown; its outcome goes into e. */
static void do_setup(struct mx_ctx *m, size_t idx, struct fsb_matrix_entry *e)
{
	const struct fsb_matrix_setup *s = &m->cfg->setups[idx];
	struct mx_setup mx;
	struct step st;
	char size[32];
	int err;

	memset(&mx, 0, sizeof(mx));
	for (unsigned j = 0; j < FSB_MATRIX_MAX_DEVICES; j++) {
		fsb_image_init(&mx.img[j]);
		fsb_loopdev_init(&mx.lo[j]);
	}
	record_config(s, e);
	if (s->guest) {
		guest_setup(m, s, e);
		return;
	}
	progress(m, s, "%u x %s image%s", s->devices,
		 fsb_size_format_human(s->image_bytes, size, sizeof(size)),
		 s->devices > 1 ? "s" : "");
	if (preflight(m, s, e))
		return;
	step_begin(&st, "images and loop devices");
	if (step_failed(&st, make_devices(m, idx, s, &mx), e))
		goto out;
	if (s->run) {
		step_begin(&st, "mkfs");
		if (step_failed(&st, make_fs(m, s, &mx), e))
			goto out;
		step_begin(&st, "mount");
		if (step_failed(&st, fsb_stop_requested() ? -EINTR : mount_fs(m, idx, s, &mx), e))
			goto out;
		step_begin(&st, "run suite");
		if (step_failed(&st, run_suite(m, s, &mx, e), e))
			goto out;
		step_begin(&st, "umount");
		err = fsb_umount(mx.mnt);
		mx.mounted = err != 0;
		if (step_failed(&st, err, e))
			goto out;
	}
	if (s->lifecycle && s->devices > 1) {
		/* The lifecycle makes, fills and counts one device. */
		char note[128];

		snprintf(note, sizeof(note),
			 "lifecycle skipped: it works on one device, this "
			 "setup has %u",
			 s->devices);
		fsb_strset(&e->note, note);
	} else if (s->lifecycle && !fsb_stop_requested()) {
		step_begin(&st, "lifecycle");
		if (step_failed(&st, run_lifecycle(m, s, &mx, e), e))
			goto out;
	}
	if (fsb_stop_requested()) {
		step_begin(&st, "setup");
		step_failed(&st, -EINTR, e);
	}
out:
	teardown(m, &mx);
}

/* ---- the matrix ---- */

static int make_work(struct mx_ctx *m)
{
	const char *dir = m->cfg->workdir ? m->cfg->workdir : FSB_MATRIX_DEFAULT_WORKDIR;
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
		fsb_err_errno(-ENAMETOOLONG, "matrix: cannot use '%s'", real);
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

static int execute(struct mx_ctx *m, struct fsb_matrix_doc *doc)
{
	const struct fsb_matrix_config *cfg = m->cfg;
	bool stopped = false;
	int err;

	if (geteuid() != 0) {
		fsb_err("matrix: needs root (it attaches loop devices and mounts filesystems)");
		return -EPERM;
	}
	if ((err = make_work(m)))
		return err;
	if (fsb_matrix_doc_init(doc, cfg->path) ||
	    fsb_matrix_doc_overrides(doc, (const char *const *)cfg->overrides, cfg->noverrides)) {
		fsb_err("matrix: out of memory");
		return -ENOMEM;
	}
	fsb_prog_init(&m->prog, m->p->progress, false, NULL, 0, 0, 0, fsb_clock_ns());
	for (size_t i = 0; i < cfg->nsetups; i++) {
		const struct fsb_matrix_setup *s = &cfg->setups[i];
		struct fsb_matrix_entry *e;

		if (!s->selected)
			continue;
		m->k++;
		snprintf(m->prefix, sizeof(m->prefix), "[%zu/%zu] %s ", m->k, m->p->nselected,
			 s->label);
		e = fsb_matrix_doc_add(doc, s->label);
		if (!e) {
			fsb_err("matrix: out of memory");
			return -ENOMEM;
		}
		if (stopped) {
			/* --fail-fast: the rest is listed, not run. */
			record_config(s, e);
			fsb_matrix_entry_status(e, FSB_MATRIX_SKIPPED, "not run: --fail-fast");
			continue;
		}
		do_setup(m, i, e);
		if (fsb_stop_requested()) {
			fsb_err("matrix: stopped by signal %d during setup '%s' (torn down, no "
				"report)",
				fsb_stop_signo(), e->label);
			return -EINTR;
		}
		if (e->status != FSB_MATRIX_OK)
			stopped = m->p->fail_fast;
	}
	return 0;
}

int fsb_matrix_execute(const struct fsb_matrix_plan *p, struct fsb_matrix_doc *doc,
		       struct fsb_error *e)
{
	struct fsb_err_scope scope;
	struct mx_ctx *m = calloc(1, sizeof(*m));
	int err;

	fsb_err_capture_begin(&scope, e, false);
	if (!m) {
		fsb_err("matrix: out of memory");
		return fsb_err_capture_end(&scope, -ENOMEM);
	}
	m->p = p;
	m->cfg = &p->cfg;
	err = execute(m, doc);
	remove_work(m);
	free(m);
	return fsb_err_capture_end(&scope, err);
}
