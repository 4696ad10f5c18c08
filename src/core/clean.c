#include "core/clean.h"
#include "device/loop.h"
#include "device/mount.h"
#include "util/error.h"
#include "util/marker.h"
#include "util/scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Stacked mounts on one target are undone one at a time; this many at most. */
#define MAX_STACKED 8

/* One fsbench.* directory and what is to be done about it. */
struct cand {
	char path[PATH_MAX];
	char real[PATH_MAX]; /* its real path: mount claims must lie below it */
	struct fsb_marker m;
	int state;	/* enum fsb_owner_state */
	bool planned;	/* every claim proven: undo them, remove it */
	bool failed;	/* an undo failed: the directory stays */
	bool *act;	/* per claim: mounted / bound / present, to undo */
	int *image;	/* per loop claim: the image claim it is bound to */
	char **backing; /* per loop claim: its backing file */
};

struct cands {
	struct cand *v;
	size_t n;
};

struct ctx {
	const struct fsb_clean_opts *o;
	struct fsb_clean_counts *c;
	const char *proc;
};

static void emit(struct ctx *x, enum fsb_clean_what what, enum fsb_clean_outcome outcome,
		 const char *path, const char *extra, const char *why, pid_t pid)
{
	const struct fsb_clean_event ev = { what, outcome, path, extra, why, pid };

	if (outcome == FSB_CLEAN_DONE || outcome == FSB_CLEAN_WOULD)
		x->c->done++;
	else if (outcome == FSB_CLEAN_REFUSED)
		x->c->refused++;
	else if (outcome == FSB_CLEAN_FAILED)
		x->c->failed++;
	if (x->o->report)
		x->o->report(&ev, x->o->arg);
}

static void cand_release(struct cand *k)
{
	if (k->backing)
		for (size_t i = 0; i < k->m.nclaims; i++)
			free(k->backing[i]);
	free(k->backing);
	free(k->image);
	free(k->act);
	fsb_marker_release(&k->m);
}

/* ---- finding the directories ---- */

/*
 * Open the candidate and read its marker. Returns 0 when the marker is
 * read (k->m filled), else a reason to refuse the directory in *why.
 */
static int read_cand(struct cand *k, const char **why)
{
	struct stat st;
	int fd, err;

	fd = open(k->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		*why = strerror(errno);
		return -errno;
	}
	err = -EPERM;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		*why = strerror(errno);
	} else if (st.st_uid != geteuid()) {
		*why = "directory belongs to another user";
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		*why = "directory is writable by others";
	} else {
		err = fsb_marker_read_at(fd, &k->m, why);
		if (err == -ENOENT)
			*why = "no marker " FSB_MARKER_NAME
			       " (not made by fsbench, or by an older one)";
		else if (err && !**why)
			*why = strerror(-err);
	}
	close(fd);
	return err;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Add the fsbench.* directories under dir to cs (each directory once). */
static int scan(const char *dir, struct cands *cs, struct stat **seen, size_t *nseen)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int err = 0;

	if (!d) {
		err = -errno;
		fsb_err_errno(err, "clean: cannot read directory '%s'", dir);
		return err;
	}
	while ((de = readdir(d))) {
		struct stat st, *sv;
		struct cand *v;
		bool dup = false;

		if (!fsb_scratch_name_ok(de->d_name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue; /* a file or a symlink by that name is no scratch dir */
		for (size_t i = 0; i < *nseen && !dup; i++)
			dup = same_file(&(*seen)[i], &st);
		if (dup)
			continue;
		/* A path past PATH_MAX cannot be examined: say so (exit 1). */
		if (strlen(dir) + 1 + strlen(de->d_name) >= sizeof(cs->v[0].path)) {
			fsb_err_errno(-ENAMETOOLONG, "clean: cannot examine '%s/%s'", dir,
				      de->d_name);
			err = -ENAMETOOLONG;
			continue;
		}
		sv = realloc(*seen, (*nseen + 1) * sizeof(*sv));
		v = realloc(cs->v, (cs->n + 1) * sizeof(*v));
		if (sv)
			*seen = sv;
		if (v)
			cs->v = v;
		if (!sv || !v) {
			err = -ENOMEM;
			fsb_err("clean: out of memory");
			break;
		}
		(*seen)[(*nseen)++] = st;
		memset(&cs->v[cs->n], 0, sizeof(cs->v[0]));
		snprintf(cs->v[cs->n].path, sizeof(cs->v[0].path), "%s%s%s", dir,
			 dir[strlen(dir) - 1] == '/' ? "" : "/", de->d_name);
		cs->n++;
	}
	closedir(d);
	return err;
}

/* ---- proving the claims ---- */

/* The image claim a loop device bound to file (dev:ino) belongs to, or -1. */
static int find_image(const struct fsb_marker *m, const char *file, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < m->nclaims; i++) {
		const struct fsb_claim *im = &m->claims[i];
		size_t n = strlen(im->path);

		if (im->kind != FSB_CLAIM_IMAGE || im->dev != dev || im->ino != ino)
			continue;
		/* The kernel's name of the file, "(deleted)" once unlinked. */
		if (!strcmp(file, im->path) ||
		    (!strncmp(file, im->path, n) && !strcmp(file + n, " (deleted)")))
			return (int)i;
	}
	return -1;
}

static bool check_mount(struct ctx *x, struct cand *k, size_t i)
{
	const struct fsb_claim *cl = &k->m.claims[i];
	size_t rl = strlen(k->real);
	int r;

	if (strncmp(cl->path, k->real, rl) || cl->path[rl] != '/') {
		emit(x, FSB_CLEAN_MOUNT, FSB_CLEAN_REFUSED, cl->path, NULL,
		     "mount point outside the directory", k->m.owner.pid);
		return false;
	}
	if (k->state == FSB_OWNER_OTHER_BOOT) {
		emit(x, FSB_CLEAN_MOUNT, FSB_CLEAN_NOTE, cl->path, NULL,
		     "listed by a run of an earlier boot: not acted on", k->m.owner.pid);
		return true;
	}
	r = fsb_mount_at(cl->path, NULL);
	if (r < 0) {
		emit(x, FSB_CLEAN_MOUNT, FSB_CLEAN_FAILED, cl->path, NULL, NULL, k->m.owner.pid);
		return false;
	}
	k->act[i] = r > 0;
	return true;
}

static bool check_loop(struct ctx *x, struct cand *k, size_t i)
{
	const struct fsb_claim *cl = &k->m.claims[i];
	char file[PATH_MAX], why[PATH_MAX + 96];
	dev_t dev;
	ino_t ino;
	int r;

	if (k->state == FSB_OWNER_OTHER_BOOT) {
		emit(x, FSB_CLEAN_LOOP, FSB_CLEAN_NOTE, cl->path, NULL,
		     "listed by a run of an earlier boot: not acted on", k->m.owner.pid);
		return true;
	}
	r = fsb_loopdev_backing(cl->path, file, sizeof(file), &dev, &ino);
	if (r < 0) {
		fsb_err_errno(r, "clean: cannot read loop device '%s'", cl->path);
		emit(x, FSB_CLEAN_LOOP, FSB_CLEAN_FAILED, cl->path, NULL, NULL, k->m.owner.pid);
		return false;
	}
	if (!r)
		return true; /* released already */
	k->image[i] = find_image(&k->m, file, dev, ino);
	if (k->image[i] < 0) {
		/* Loop numbers are reused once released: this one is someone
		 * else's now. Not ours to detach, and no reason to doubt the rest. */
		snprintf(why, sizeof(why), "bound to '%s', no image of this run: not ours any more",
			 file);
		emit(x, FSB_CLEAN_LOOP, FSB_CLEAN_NOTE, cl->path, NULL, why, k->m.owner.pid);
		return true;
	}
	k->backing[i] = strdup(file);
	if (!k->backing[i]) {
		fsb_err("clean: out of memory");
		emit(x, FSB_CLEAN_LOOP, FSB_CLEAN_FAILED, cl->path, NULL, NULL, k->m.owner.pid);
		return false;
	}
	k->act[i] = true;
	return true;
}

static bool check_image(struct ctx *x, struct cand *k, size_t i)
{
	const struct fsb_claim *cl = &k->m.claims[i];
	struct stat st;

	if (!cl->created)
		return true; /* the user's: only a witness for loop devices */
	if (lstat(cl->path, &st) < 0) {
		if (errno == ENOENT)
			return true;
		emit(x, FSB_CLEAN_IMAGE, FSB_CLEAN_REFUSED, cl->path, NULL, strerror(errno),
		     k->m.owner.pid);
		return false;
	}
	if (!S_ISREG(st.st_mode) || st.st_dev != cl->dev || st.st_ino != cl->ino) {
		emit(x, FSB_CLEAN_IMAGE, FSB_CLEAN_REFUSED, cl->path, NULL,
		     "not the file fsbench made (device and inode differ)", k->m.owner.pid);
		return false;
	}
	k->act[i] = true;
	return true;
}

/* Decide what to do about one directory: refuse it, leave it, or plan it. */
static void judge(struct ctx *x, struct cand *k)
{
	const char *why = "";
	bool ok = true;
	int err;

	if (read_cand(k, &why)) {
		emit(x, FSB_CLEAN_DIR, FSB_CLEAN_REFUSED, k->path, NULL, why, 0);
		return;
	}
	k->state = fsb_owner_state(&k->m.owner, x->proc);
	if (k->state < 0) {
		emit(x, FSB_CLEAN_DIR, FSB_CLEAN_REFUSED, k->path, NULL,
		     "cannot read this boot's id to tell whether its owner runs", k->m.owner.pid);
		return;
	}
	if (k->state == FSB_OWNER_ALIVE) {
		emit(x, FSB_CLEAN_DIR, FSB_CLEAN_IN_USE, k->path, NULL, NULL, k->m.owner.pid);
		return;
	}
	if (k->m.kept) {
		emit(x, FSB_CLEAN_DIR, FSB_CLEAN_KEPT, k->path, NULL, NULL, k->m.owner.pid);
		return;
	}
	if (!realpath(k->path, k->real)) {
		err = -errno;
		emit(x, FSB_CLEAN_DIR, FSB_CLEAN_REFUSED, k->path, NULL, strerror(-err),
		     k->m.owner.pid);
		return;
	}
	k->act = calloc(k->m.nclaims + 1, sizeof(*k->act));
	k->image = calloc(k->m.nclaims + 1, sizeof(*k->image));
	k->backing = calloc(k->m.nclaims + 1, sizeof(*k->backing));
	if (!k->act || !k->image || !k->backing) {
		fsb_err("clean: out of memory");
		emit(x, FSB_CLEAN_DIR, FSB_CLEAN_FAILED, k->path, NULL, NULL, k->m.owner.pid);
		return;
	}
	/* Every claim is looked at (each refusal is reported), then the
	 * verdict: one unproven claim keeps the whole directory as it is. */
	for (size_t i = 0; i < k->m.nclaims; i++) {
		switch (k->m.claims[i].kind) {
		case FSB_CLAIM_MOUNT:
			ok &= check_mount(x, k, i);
			break;
		case FSB_CLAIM_LOOP:
			ok &= check_loop(x, k, i);
			break;
		case FSB_CLAIM_IMAGE:
			ok &= check_image(x, k, i);
			break;
		}
	}
	if (!ok) {
		emit(x, FSB_CLEAN_DIR, FSB_CLEAN_REFUSED, k->path, NULL,
		     "its marker lists something that cannot be proven fsbench's: left as it is",
		     k->m.owner.pid);
		return;
	}
	k->planned = true;
}

/* ---- undoing ---- */

static void undo_mounts(struct ctx *x, struct cand *k)
{
	for (size_t i = 0; i < k->m.nclaims; i++) {
		const struct fsb_claim *cl = &k->m.claims[i];
		int r = 0, undone = 0;

		if (cl->kind != FSB_CLAIM_MOUNT || !k->act[i])
			continue;
		if (x->o->dry_run) {
			emit(x, FSB_CLEAN_MOUNT, FSB_CLEAN_WOULD, cl->path, NULL, NULL,
			     k->m.owner.pid);
			continue;
		}
		for (int n = 0; n < MAX_STACKED; n++) {
			r = fsb_mount_at(cl->path, NULL);
			if (r <= 0)
				break;
			if ((r = fsb_umount(cl->path)))
				break;
			undone++;
		}
		if (r > 0) {
			fsb_err("clean: cannot unmount '%s': still mounted after %d umounts",
				cl->path, MAX_STACKED);
			r = -EBUSY;
		}
		if (r < 0) {
			k->failed = true;
			emit(x, FSB_CLEAN_MOUNT, FSB_CLEAN_FAILED, cl->path, NULL, NULL,
			     k->m.owner.pid);
		} else if (undone) {
			emit(x, FSB_CLEAN_MOUNT, FSB_CLEAN_DONE, cl->path, NULL, NULL,
			     k->m.owner.pid);
		}
	}
}

static bool undo_loop(struct ctx *x, struct cand *k, size_t i)
{
	const struct fsb_claim *cl = &k->m.claims[i], *im = &k->m.claims[k->image[i]];
	char where[PATH_MAX];
	struct stat st;
	int r;

	if (x->o->dry_run) {
		emit(x, FSB_CLEAN_LOOP, FSB_CLEAN_WOULD, cl->path, k->backing[i], NULL,
		     k->m.owner.pid);
		return true;
	}
	/* Detaching a mounted loop device only marks it for autoclear: the
	 * mount, not listed here, is someone's, and so is the device now. */
	if (stat(cl->path, &st) == 0 && S_ISBLK(st.st_mode) &&
	    (r = fsb_mount_of_dev(st.st_rdev, where, sizeof(where))) != 0) {
		if (r > 0)
			fsb_err("clean: cannot detach loop device '%s': mounted on '%s'", cl->path,
				where);
		emit(x, FSB_CLEAN_LOOP, FSB_CLEAN_FAILED, cl->path, k->backing[i], NULL,
		     k->m.owner.pid);
		return false;
	}
	r = fsb_loopdev_detach_if(cl->path, im->dev, im->ino);
	if (r == 0)
		emit(x, FSB_CLEAN_LOOP, FSB_CLEAN_DONE, cl->path, k->backing[i], NULL,
		     k->m.owner.pid);
	else if (r == -ESTALE)
		emit(x, FSB_CLEAN_LOOP, FSB_CLEAN_NOTE, cl->path, NULL,
		     "bound to another file meanwhile: not ours any more", k->m.owner.pid);
	else if (r < 0)
		emit(x, FSB_CLEAN_LOOP, FSB_CLEAN_FAILED, cl->path, k->backing[i], NULL,
		     k->m.owner.pid);
	return r >= 0 || r == -ESTALE;
}

static bool undo_image(struct ctx *x, struct cand *k, size_t i)
{
	const struct fsb_claim *cl = &k->m.claims[i];
	struct stat st;
	int err;

	if (x->o->dry_run) {
		emit(x, FSB_CLEAN_IMAGE, FSB_CLEAN_WOULD, cl->path, NULL, NULL, k->m.owner.pid);
		return true;
	}
	/* Checked again right before: the name is removed only while it is
	 * still the file fsbench made. */
	if (lstat(cl->path, &st) < 0) {
		if (errno == ENOENT)
			return true;
		err = -errno;
		fsb_err_errno(err, "clean: cannot remove image '%s'", cl->path);
		emit(x, FSB_CLEAN_IMAGE, FSB_CLEAN_FAILED, cl->path, NULL, NULL, k->m.owner.pid);
		return false;
	}
	if (!S_ISREG(st.st_mode) || st.st_dev != cl->dev || st.st_ino != cl->ino) {
		emit(x, FSB_CLEAN_IMAGE, FSB_CLEAN_REFUSED, cl->path, NULL,
		     "not the file fsbench made (device and inode differ)", k->m.owner.pid);
		return false;
	}
	if (unlink(cl->path) < 0) {
		err = -errno;
		fsb_err_errno(err, "clean: cannot remove image '%s'", cl->path);
		emit(x, FSB_CLEAN_IMAGE, FSB_CLEAN_FAILED, cl->path, NULL, NULL, k->m.owner.pid);
		return false;
	}
	emit(x, FSB_CLEAN_IMAGE, FSB_CLEAN_DONE, cl->path, NULL, NULL, k->m.owner.pid);
	return true;
}

static void undo_rest(struct ctx *x, struct cand *k)
{
	bool ok = !k->failed;
	int err;

	for (size_t i = 0; i < k->m.nclaims && ok; i++)
		if (k->m.claims[i].kind == FSB_CLAIM_LOOP && k->act[i])
			ok = undo_loop(x, k, i);
	for (size_t i = 0; i < k->m.nclaims && ok; i++)
		if (k->m.claims[i].kind == FSB_CLAIM_IMAGE && k->act[i])
			ok = undo_image(x, k, i);
	if (!ok)
		return;
	if (x->o->dry_run) {
		emit(x, FSB_CLEAN_DIR, FSB_CLEAN_WOULD, k->path, NULL, NULL, k->m.owner.pid);
		return;
	}
	err = fsb_scratch_remove(k->path);
	if (err) {
		fsb_err_errno(err, "clean: cannot remove '%s'", k->path);
		emit(x, FSB_CLEAN_DIR, FSB_CLEAN_FAILED, k->path, NULL, NULL, k->m.owner.pid);
		return;
	}
	emit(x, FSB_CLEAN_DIR, FSB_CLEAN_DONE, k->path, NULL, NULL, k->m.owner.pid);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct cand *)a)->path, ((const struct cand *)b)->path);
}

int fsb_clean(const char *const *dirs, size_t n, const struct fsb_clean_opts *o,
	      struct fsb_clean_counts *c)
{
	struct ctx x = { o, c, o->proc_root ? o->proc_root : "/proc" };
	struct cands cs = { NULL, 0 };
	struct stat *seen = NULL, *tops = NULL;
	size_t nseen = 0, ntops = 0;
	int first = 0, err;

	memset(c, 0, sizeof(*c));
	tops = calloc(n + 1, sizeof(*tops));
	if (!tops) {
		fsb_err("clean: out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		bool dup = false;

		/* "." and $TMPDIR may well be the same directory. */
		if (stat(dirs[i], &tops[ntops]) == 0) {
			for (size_t j = 0; j < ntops && !dup; j++)
				dup = same_file(&tops[j], &tops[ntops]);
			if (dup)
				continue;
			ntops++;
		}
		err = scan(dirs[i], &cs, &seen, &nseen);
		if (err) {
			c->failed++;
			if (!first)
				first = err;
		}
	}
	c->found = (unsigned)cs.n;
	/* Reported in name order, whatever order readdir had. */
	if (cs.n)
		qsort(cs.v, cs.n, sizeof(cs.v[0]), by_path);
	for (size_t i = 0; i < cs.n; i++)
		judge(&x, &cs.v[i]);
	/* All unmounts first: a directory's mount may sit on another's loop. */
	for (size_t i = 0; i < cs.n; i++)
		if (cs.v[i].planned)
			undo_mounts(&x, &cs.v[i]);
	for (size_t i = 0; i < cs.n; i++)
		if (cs.v[i].planned)
			undo_rest(&x, &cs.v[i]);
	for (size_t i = 0; i < cs.n; i++)
		cand_release(&cs.v[i]);
	free(cs.v);
	free(seen);
	free(tops);
	return first;
}

unsigned fsb_clean_warn_stale(const char *dir)
{
	struct cands cs = { NULL, 0 };
	struct stat *seen = NULL;
	size_t nseen = 0;
	unsigned stale = 0;

	/* Unreadable DIR: run itself reports that, in its own words. */
	if (access(dir, R_OK | X_OK) < 0)
		return 0;
	(void)scan(dir, &cs, &seen, &nseen);
	for (size_t i = 0; i < cs.n; i++) {
		struct cand *k = &cs.v[i];
		const char *why;
		int state;

		if (read_cand(k, &why) || k->m.kept)
			continue;
		state = fsb_owner_state(&k->m.owner, "/proc");
		if (state != FSB_OWNER_DEAD && state != FSB_OWNER_OTHER_BOOT)
			continue;
		fsb_warn("'%s' was left by an fsbench process that did not finish (pid %ld): "
			 "'fsbench clean %s' removes it",
			 k->path, (long)k->m.owner.pid, dir);
		stale++;
	}
	for (size_t i = 0; i < cs.n; i++)
		cand_release(&cs.v[i]);
	free(cs.v);
	free(seen);
	return stale;
}

size_t fsb_clean_default_dirs(const char *dirs[FSB_CLEAN_MAX_DEFAULTS])
{
	const char *tmp = getenv("TMPDIR");
	const char *cand[FSB_CLEAN_MAX_DEFAULTS] = { ".", tmp && *tmp ? tmp : "/tmp", "/var/tmp" };
	struct stat st;
	size_t n = 0;

	for (size_t i = 0; i < FSB_CLEAN_MAX_DEFAULTS; i++)
		if (stat(cand[i], &st) == 0 && S_ISDIR(st.st_mode))
			dirs[n++] = cand[i];
	return n;
}
