#include "core/clean.h"
#include "device/loop.h"
#include "device/mount.h"
#include "device/probe.h"
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
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Stacked mounts on one target are undone one at a time; this many at most. */
#define MAX_STACKED 8

/* What clean does about one claim or one directory. */
enum verdict {
	V_NONE,	  /* nothing to do: not mounted, released, absent, the user's */
	V_UNDO,	  /* unmount, detach, remove (dry run: would) */
	V_REFUSE, /* not proven fsbench's, or would not come undone: why */
	V_NOTE,	  /* not fsbench's any more, or of an earlier boot: why */
	V_FAIL,	  /* could not be examined (described on stderr) */
	V_IN_USE, /* directory: its owner runs */
	V_KEPT,	  /* directory: kept on purpose */
};

/* A decision and its reason, made before anything is touched: the dry
 * run reports the decisions, the real run carries them out. */
struct decision {
	enum verdict v;
	char why[PATH_MAX + 128];
};

/* One fsbench.* directory and what is to be done about it. */
struct cand {
	char path[PATH_MAX];
	char real[PATH_MAX]; /* its real path: mount claims must lie below it */
	struct fsb_marker m;
	int state;	     /* enum fsb_owner_state */
	struct decision dir; /* V_UNDO: every claim proven, to be undone */
	struct decision *d;  /* per claim */
	bool failed;	     /* an undo failed: the directory stays */
	int *image;	     /* per loop claim: the image claim it is bound to */
	char **backing;	     /* per loop claim: its backing file */
};

struct cands {
	struct cand *v;
	size_t n;
};

struct ctx {
	const struct fsb_clean_opts *o;
	struct fsb_clean_counts *c;
	const char *proc;
	char mountinfo[PATH_MAX]; /* proc's self/mountinfo */
	struct fsb_mount_tab tab; /* the mount table the decisions saw */
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
	free(k->d);
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

/* ---- deciding: reads only, touches nothing ---- */

static void set(struct decision *d, enum verdict v, const char *why)
{
	d->v = v;
	snprintf(d->why, sizeof(d->why), "%s", why ? why : "");
}

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

/* Whether something is mounted on target in the snapshot. */
static bool tab_has(const struct fsb_mount_tab *t, const char *target)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].target, target))
			return true;
	return false;
}

/* Whether clean is to unmount target: a mount claim to be undone of a
 * directory to be removed. cs NULL: nothing is pending any more. */
static bool pending_mount(const struct cands *cs, const char *target)
{
	for (size_t j = 0; cs && j < cs->n; j++) {
		const struct cand *k = &cs->v[j];

		if (k->dir.v != V_UNDO)
			continue;
		for (size_t i = 0; i < k->m.nclaims; i++)
			if (k->m.claims[i].kind == FSB_CLAIM_MOUNT && k->d[i].v == V_UNDO &&
			    !strcmp(k->m.claims[i].path, target))
				return true;
	}
	return false;
}

/* The kernel's name of block device dev ("loop3", "loop3p1"), or "". */
static void dev_name(dev_t dev, char *out, size_t len)
{
	char link[64], to[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	n = readlink(link, to, sizeof(to) - 1);
	*out = '\0';
	if (n > 0) {
		to[n] = '\0';
		snprintf(out, len, "%.63s", strrchr(to, '/') ? strrchr(to, '/') + 1 : to);
	}
}

/*
 * Whether what is mounted on top at target sits on a loop device the
 * marker lists (or one of its partitions): a mount there of anything else
 * (a bind mount of the disk, another device) is not fsbench's to undo. A
 * marker without loop devices (lifecycle --device) proves nothing more
 * than the path.
 */
static bool mounted_ours(const struct fsb_mount_tab *t, const struct fsb_marker *m,
			 const char *target, char *name, size_t len)
{
	dev_t dev = 0;
	bool loops = false;

	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].target, target))
			dev = t->v[i].dev;
	dev_name(dev, name, len);
	for (size_t i = 0; i < m->nclaims; i++) {
		const char *l = m->claims[i].path + 5; /* past "/dev/" */
		size_t ln;

		if (m->claims[i].kind != FSB_CLAIM_LOOP)
			continue;
		loops = true;
		ln = strlen(l);
		if (dev && !strncmp(name, l, ln) && (!name[ln] || name[ln] == 'p'))
			return true;
	}
	return !loops;
}

static void decide_mount(struct ctx *x, struct cand *k, size_t i)
{
	const struct fsb_claim *cl = &k->m.claims[i];
	size_t rl = strlen(k->real);
	char name[64], why[128];

	if (strncmp(cl->path, k->real, rl) || cl->path[rl] != '/') {
		set(&k->d[i], V_REFUSE, "mount point outside the directory");
	} else if (k->state == FSB_OWNER_OTHER_BOOT) {
		set(&k->d[i], V_NOTE, "listed by a run of an earlier boot: not acted on");
	} else if (!tab_has(&x->tab, cl->path)) {
		set(&k->d[i], V_NONE, NULL);
	} else if (!mounted_ours(&x->tab, &k->m, cl->path, name, sizeof(name))) {
		snprintf(why, sizeof(why), "mounted there is %s%.40s, no loop device it lists",
			 *name ? "" : "a filesystem without a block device", name);
		set(&k->d[i], V_REFUSE, why);
	} else {
		set(&k->d[i], V_UNDO, NULL);
	}
}

static void decide_loop(struct cand *k, size_t i)
{
	const struct fsb_claim *cl = &k->m.claims[i];
	char file[PATH_MAX], why[PATH_MAX + 96];
	dev_t dev;
	ino_t ino;
	int r;

	if (k->state == FSB_OWNER_OTHER_BOOT) {
		set(&k->d[i], V_NOTE, "listed by a run of an earlier boot: not acted on");
		return;
	}
	r = fsb_loopdev_backing(cl->path, file, sizeof(file), &dev, &ino);
	if (r < 0) {
		fsb_err_errno(r, "clean: cannot read loop device '%s'", cl->path);
		set(&k->d[i], V_FAIL, NULL);
		return;
	}
	set(&k->d[i], V_NONE, NULL); /* !r: released already */
	if (!r)
		return;
	k->image[i] = find_image(&k->m, file, dev, ino);
	if (k->image[i] < 0) {
		/* Loop numbers are reused once released: this one is someone
		 * else's now. Not ours to detach, and no reason to doubt the rest. */
		snprintf(why, sizeof(why), "bound to '%s', no image of this run: not ours any more",
			 file);
		set(&k->d[i], V_NOTE, why);
		return;
	}
	k->backing[i] = strdup(file);
	if (!k->backing[i]) {
		fsb_err("clean: out of memory");
		set(&k->d[i], V_FAIL, NULL);
		return;
	}
	set(&k->d[i], V_UNDO, NULL);
}

static void decide_image(struct cand *k, size_t i)
{
	const struct fsb_claim *cl = &k->m.claims[i];
	struct stat st;

	set(&k->d[i], V_NONE, NULL); /* not created: only a witness for loop devices */
	if (!cl->created)
		return;
	if (lstat(cl->path, &st) < 0) {
		if (errno != ENOENT)
			set(&k->d[i], V_REFUSE, strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode) || st.st_dev != cl->dev || st.st_ino != cl->ino)
		set(&k->d[i], V_REFUSE, "not the file fsbench made (device and inode differ)");
	else
		set(&k->d[i], V_UNDO, NULL);
}

/*
 * Whether the loop device at path is in use by someone clean does not
 * stop: it or a partition of it mounted where clean is not to unmount,
 * held (device mapper, md) or swap. Detaching it then would only mark it
 * for autoclear while its user goes on: the user is someone's, and so is
 * the device now. 1 with the reason in why, 0 when free.
 */
static int loop_busy(const struct ctx *x, const char *path, const struct cands *cs, char *why,
		     size_t len)
{
	dev_t fam[64];
	char user[FSB_PROBE_STR + 32];
	struct stat st;
	size_t n;

	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
		return 0; /* gone: detach_if finds it released */
	n = fsb_blockdev_family(st.st_rdev, fam, sizeof(fam) / sizeof(fam[0]));
	for (size_t i = 0; i < x->tab.n; i++)
		for (size_t j = 0; j < n; j++)
			if (x->tab.v[i].dev && x->tab.v[i].dev == fam[j] &&
			    !pending_mount(cs, x->tab.v[i].target)) {
				snprintf(why, len,
					 "in use: mounted on '%s', which clean does not unmount",
					 x->tab.v[i].target);
				return 1;
			}
	if (fsb_blockdev_user(fam, n, user, sizeof(user))) {
		snprintf(why, len, "in use: %s", user);
		return 1;
	}
	return 0;
}

/* A mount on or below the directory that clean is not to unmount: 1 with
 * the reason naming it in why, else 0. Removing the directory would stop
 * at it (and a bind mount of the same filesystem would not even stop
 * nftw's FTW_MOUNT). */
static int foreign_mount(const struct ctx *x, const char *real, const struct cands *cs, char *why,
			 size_t len)
{
	size_t rl = strlen(real);

	for (size_t i = 0; i < x->tab.n; i++) {
		const char *t = x->tab.v[i].target;

		if (!strncmp(t, real, rl) && (t[rl] == '/' || !t[rl]) && !pending_mount(cs, t)) {
			snprintf(why, len,
				 "'%s' is mounted inside and its marker does not list it: "
				 "left as it is",
				 t);
			return 1;
		}
	}
	return 0;
}

/* Decide about one directory and each of its claims, from the marker,
 * the disk and the mount table; whether others' decisions let it go is
 * settle's. */
static void decide(struct ctx *x, struct cand *k)
{
	const char *why = "";
	struct statvfs sv;
	bool ok = true;

	if (read_cand(k, &why)) {
		set(&k->dir, V_REFUSE, why);
		return;
	}
	k->state = fsb_owner_state(&k->m.owner, x->proc);
	if (k->state < 0) {
		set(&k->dir, V_REFUSE, "cannot read this boot's id to tell whether its owner runs");
		return;
	}
	if (k->state == FSB_OWNER_ALIVE || k->m.kept) {
		set(&k->dir, k->state == FSB_OWNER_ALIVE ? V_IN_USE : V_KEPT, NULL);
		return;
	}
	if (!realpath(k->path, k->real)) {
		set(&k->dir, V_REFUSE, strerror(errno));
		return;
	}
	k->d = calloc(k->m.nclaims + 1, sizeof(*k->d));
	k->image = calloc(k->m.nclaims + 1, sizeof(*k->image));
	k->backing = calloc(k->m.nclaims + 1, sizeof(*k->backing));
	if (!k->d || !k->image || !k->backing) {
		fsb_err("clean: out of memory");
		set(&k->dir, V_FAIL, NULL);
		return;
	}
	/* Every claim is looked at (each refusal is reported), then the
	 * verdict: one unproven claim keeps the whole directory as it is. */
	for (size_t i = 0; i < k->m.nclaims; i++) {
		if (k->m.claims[i].kind == FSB_CLAIM_MOUNT)
			decide_mount(x, k, i);
		else if (k->m.claims[i].kind == FSB_CLAIM_LOOP)
			decide_loop(k, i);
		else
			decide_image(k, i);
		ok &= k->d[i].v != V_REFUSE && k->d[i].v != V_FAIL;
	}
	if (!ok)
		set(&k->dir, V_REFUSE,
		    "its marker lists something that cannot be proven fsbench's: left as it is");
	else if (!statvfs(k->real, &sv) && (sv.f_flag & ST_RDONLY))
		/* Nothing in it can be removed: said alike in the dry run. */
		set(&k->dir, V_REFUSE, "on a read-only filesystem: left as it is");
	else
		set(&k->dir, V_UNDO, NULL);
}

/*
 * Whether a directory to be removed still can be, given which mounts the
 * others' decisions leave: its loop devices free, no foreign mount inside.
 * When not, it is refused and left as it is. Returns whether it changed.
 */
static bool settle_one(struct ctx *x, struct cand *k, const struct cands *cs)
{
	bool ok = true;

	for (size_t i = 0; i < k->m.nclaims; i++)
		if (k->m.claims[i].kind == FSB_CLAIM_LOOP && k->d[i].v == V_UNDO &&
		    loop_busy(x, k->m.claims[i].path, cs, k->d[i].why, sizeof(k->d[i].why))) {
			k->d[i].v = V_REFUSE;
			ok = false;
		}
	if (!ok) {
		set(&k->dir, V_REFUSE, "a loop device it lists is in use: left as it is");
		return true;
	}
	if (foreign_mount(x, k->real, cs, k->dir.why, sizeof(k->dir.why))) {
		k->dir.v = V_REFUSE;
		return true;
	}
	return false;
}

/* A directory refused keeps its mounts, which may hold another's loop
 * device: settled again until no decision changes (each pass refuses one
 * more directory or ends). */
static void settle(struct ctx *x, struct cands *cs)
{
	bool changed = true;

	while (changed) {
		changed = false;
		for (size_t j = 0; j < cs->n; j++)
			if (cs->v[j].dir.v == V_UNDO && settle_one(x, &cs->v[j], cs))
				changed = true;
	}
}

/* ---- reporting the decisions that leave things alone ---- */

static void emit_verdict(struct ctx *x, enum fsb_clean_what what, const struct decision *d,
			 const char *path, pid_t pid)
{
	static const enum fsb_clean_outcome out[] = {
		[V_REFUSE] = FSB_CLEAN_REFUSED, [V_NOTE] = FSB_CLEAN_NOTE,
		[V_FAIL] = FSB_CLEAN_FAILED,	[V_IN_USE] = FSB_CLEAN_IN_USE,
		[V_KEPT] = FSB_CLEAN_KEPT,
	};

	if (d->v != V_NONE && d->v != V_UNDO)
		emit(x, what, out[d->v], path, NULL, d->why[0] ? d->why : NULL, pid);
}

static void report_left(struct ctx *x, const struct cand *k)
{
	static const enum fsb_clean_what what[] = { [FSB_CLAIM_IMAGE] = FSB_CLEAN_IMAGE,
						    [FSB_CLAIM_LOOP] = FSB_CLEAN_LOOP,
						    [FSB_CLAIM_MOUNT] = FSB_CLEAN_MOUNT };

	for (size_t i = 0; k->d && i < k->m.nclaims; i++)
		emit_verdict(x, what[k->m.claims[i].kind], &k->d[i], k->m.claims[i].path,
			     k->m.owner.pid);
	emit_verdict(x, FSB_CLEAN_DIR, &k->dir, k->path, k->m.owner.pid);
}

/* ---- carrying the decisions out ---- */

static void undo_mounts(struct ctx *x, struct cand *k)
{
	for (size_t i = 0; i < k->m.nclaims; i++) {
		const struct fsb_claim *cl = &k->m.claims[i];
		int r = 0, undone = 0;

		if (cl->kind != FSB_CLAIM_MOUNT || k->d[i].v != V_UNDO)
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
	char why[PATH_MAX + 96];
	int r;

	if (x->o->dry_run) {
		emit(x, FSB_CLEAN_LOOP, FSB_CLEAN_WOULD, cl->path, k->backing[i], NULL,
		     k->m.owner.pid);
		return true;
	}
	/* Decided again on the table after the unmounts: whatever mounts or
	 * holds the device now came meanwhile, and is someone's. */
	if (loop_busy(x, cl->path, NULL, why, sizeof(why))) {
		emit(x, FSB_CLEAN_LOOP, FSB_CLEAN_REFUSED, cl->path, NULL, why, k->m.owner.pid);
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
	int err;

	if (x->o->dry_run) {
		emit(x, FSB_CLEAN_IMAGE, FSB_CLEAN_WOULD, cl->path, NULL, NULL, k->m.owner.pid);
		return true;
	}
	/* Decided again right before: the name is removed only while it is
	 * still the file fsbench made. */
	decide_image(k, i);
	if (k->d[i].v == V_NONE)
		return true;
	if (k->d[i].v == V_REFUSE) {
		emit_verdict(x, FSB_CLEAN_IMAGE, &k->d[i], cl->path, k->m.owner.pid);
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
	char why[PATH_MAX + 128];
	bool ok = !k->failed;
	int err;

	for (size_t i = 0; i < k->m.nclaims && ok; i++)
		if (k->m.claims[i].kind == FSB_CLAIM_LOOP && k->d[i].v == V_UNDO)
			ok = undo_loop(x, k, i);
	for (size_t i = 0; i < k->m.nclaims && ok; i++)
		if (k->m.claims[i].kind == FSB_CLAIM_IMAGE && k->d[i].v == V_UNDO)
			ok = undo_image(x, k, i);
	if (!ok)
		return;
	if (x->o->dry_run) {
		emit(x, FSB_CLEAN_DIR, FSB_CLEAN_WOULD, k->path, NULL, NULL, k->m.owner.pid);
		return;
	}
	/* Decided again on the table after the unmounts: a mount inside now
	 * came meanwhile, and is someone's. */
	if (foreign_mount(x, k->real, NULL, why, sizeof(why))) {
		emit(x, FSB_CLEAN_DIR, FSB_CLEAN_REFUSED, k->path, NULL, why, k->m.owner.pid);
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

/* Scan every DIR into cs (each directory once). 0 or the first -errno. */
static int scan_all(const char *const *dirs, size_t n, struct cands *cs, struct stat **seen,
		    size_t *nseen, struct fsb_clean_counts *c)
{
	struct stat *tops = calloc(n + 1, sizeof(*tops));
	size_t ntops = 0;
	int first = 0, err;

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
		err = scan(dirs[i], cs, seen, nseen);
		if (err) {
			c->failed++;
			if (!first)
				first = err;
		}
	}
	free(tops);
	return first;
}

/* Carry the decisions out (dry run: report them), all unmounts first: a
 * directory's mount may sit on another's loop device. */
static void carry_out(struct ctx *x, struct cands *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		if (cs->v[i].dir.v == V_UNDO)
			undo_mounts(x, &cs->v[i]);
	if (!x->o->dry_run) {
		fsb_mount_tab_free(&x->tab);
		if (fsb_mount_tab_read(x->mountinfo, &x->tab)) {
			x->c->failed++;
			return;
		}
	}
	for (size_t i = 0; i < cs->n; i++)
		if (cs->v[i].dir.v == V_UNDO)
			undo_rest(x, &cs->v[i]);
}

int fsb_clean(const char *const *dirs, size_t n, const struct fsb_clean_opts *o,
	      struct fsb_clean_counts *c)
{
	struct ctx x = { .o = o, .c = c, .proc = o->proc_root ? o->proc_root : "/proc" };
	struct cands cs = { NULL, 0 };
	struct stat *seen = NULL;
	size_t nseen = 0;
	int first, err;

	memset(c, 0, sizeof(*c));
	first = scan_all(dirs, n, &cs, &seen, &nseen, c);
	c->found = (unsigned)cs.n;
	/* Reported in name order, whatever order readdir had. */
	if (cs.n)
		qsort(cs.v, cs.n, sizeof(cs.v[0]), by_path);
	/* One snapshot of the mount table for every decision: the dry run
	 * and the real run decide alike, from the same checks. */
	snprintf(x.mountinfo, sizeof(x.mountinfo), "%s/self/mountinfo", x.proc);
	err = cs.n ? fsb_mount_tab_read(x.mountinfo, &x.tab) : 0;
	if (err) {
		c->failed++;
		if (!first)
			first = err;
	}
	for (size_t i = 0; i < cs.n && !err; i++)
		decide(&x, &cs.v[i]);
	if (!err)
		settle(&x, &cs);
	for (size_t i = 0; i < cs.n && !err; i++)
		report_left(&x, &cs.v[i]);
	if (!err)
		carry_out(&x, &cs);
	fsb_mount_tab_free(&x.tab);
	for (size_t i = 0; i < cs.n; i++)
		cand_release(&cs.v[i]);
	free(cs.v);
	free(seen);
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
