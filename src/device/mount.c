#include "device/mount.h"
#include "util/error.h"

#include <errno.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

bool fsb_mount_fs_listed(const char *text, const char *type)
{
	const char *line = text;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *name = line, *tab = memchr(line, '\t', len);

		/* "nodev\tproc" or "\text4": the name follows the tab. */
		if (tab)
			name = tab + 1;
		while (name < line + len && (*name == ' ' || *name == '\t'))
			name++;
		if ((size_t)(line + len - name) == strlen(type) &&
		    !strncmp(name, type, strlen(type)))
			return true;
		line = end ? end + 1 : NULL;
	}
	return false;
}

/* The kernel asks modprobe for "fs-TYPE" when a mount names an unknown
 * type (fs/filesystems.c); a module declaring that alias would answer. */
static bool module_alias(const char *type)
{
	char path[512], line[512], want[128];
	struct utsname u;
	bool found = false;
	FILE *f;

	if (uname(&u) < 0)
		return false;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.alias", u.release);
	snprintf(want, sizeof(want), "alias fs-%s ", type);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, want, strlen(want));
	fclose(f);
	return found;
}

int fsb_mount_fs_supported(const char *type)
{
	char text[8192];
	size_t len;
	bool ok;
	FILE *f;
	int err;

	/* stdio, not fsb_read_file: /proc files report a size of 0. */
	f = fopen("/proc/filesystems", "re");
	if (!f) {
		err = -errno;
		fsb_err_errno(err, "cannot read /proc/filesystems");
		return err;
	}
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	ok = fsb_mount_fs_listed(text, type) || module_alias(type);
	if (!ok) {
		fsb_err("filesystem type '%s' is not supported by the kernel "
			"(not in /proc/filesystems, no module for it)",
			type);
		return -ENODEV;
	}
	return 0;
}

/* The errno the mount(2)/umount(2) call failed with, else libmount's. */
static int context_errno(struct libmnt_context *cxt, int rc)
{
	if (mnt_context_syscall_called(cxt) && mnt_context_get_syscall_errno(cxt))
		return -mnt_context_get_syscall_errno(cxt);
	return rc < 0 ? rc : -EINVAL;
}

/* libmount's explanation of a failure, or strerror when it has none. */
static void explain(struct libmnt_context *cxt, int rc, int err, char *buf, size_t len)
{
	buf[0] = '\0';
	(void)mnt_context_get_excode(cxt, rc, buf, len);
	if (!buf[0])
		snprintf(buf, len, "%s", strerror(-err));
}

static struct libmnt_context *new_context(void)
{
	struct libmnt_context *cxt = mnt_new_context();

	if (!cxt)
		return NULL;
	/* No /sbin/mount.TYPE helper (that would fork) and no utab write:
	 * the mount exists for fsbench alone and is gone before it exits. */
	if (mnt_context_disable_helpers(cxt, 1) || mnt_context_disable_mtab(cxt, 1)) {
		mnt_free_context(cxt);
		return NULL;
	}
	return cxt;
}

int fsb_mount(const char *dev, const char *dir, const char *type, const char *options)
{
	struct libmnt_context *cxt = new_context();
	char why[512];
	int rc, err = 0;

	if (!cxt) {
		fsb_err("cannot mount '%s' on '%s': out of memory", dev, dir);
		return -ENOMEM;
	}
	if (mnt_context_set_source(cxt, dev) || mnt_context_set_target(cxt, dir) ||
	    mnt_context_set_fstype(cxt, type) ||
	    (options && *options && mnt_context_set_options(cxt, options))) {
		err = -ENOMEM;
		fsb_err("cannot mount '%s' on '%s': out of memory", dev, dir);
		goto out;
	}
	rc = mnt_context_mount(cxt);
	if (rc) {
		err = context_errno(cxt, rc);
		explain(cxt, rc, err, why, sizeof(why));
		fsb_err("cannot mount '%s' on '%s': %s", dev, dir, why);
	}
out:
	mnt_free_context(cxt);
	return err;
}

static int umount_with(const char *dir, bool lazy)
{
	struct libmnt_context *cxt = new_context();
	char why[512];
	int rc, err = 0;

	if (!cxt) {
		fsb_err("cannot unmount '%s': out of memory", dir);
		return -ENOMEM;
	}
	if (mnt_context_set_target(cxt, dir) || (lazy && mnt_context_enable_lazy(cxt, 1))) {
		err = -ENOMEM;
		fsb_err("cannot unmount '%s': out of memory", dir);
		goto out;
	}
	rc = mnt_context_umount(cxt);
	if (rc) {
		err = context_errno(cxt, rc);
		explain(cxt, rc, err, why, sizeof(why));
		fsb_err("cannot unmount '%s'%s: %s", dir, lazy ? " (lazily)" : "", why);
	}
out:
	mnt_free_context(cxt);
	return err;
}

int fsb_umount(const char *dir)
{
	return umount_with(dir, false);
}

int fsb_umount_lazy(const char *dir)
{
	return umount_with(dir, true);
}

/* Walk /proc/self/mountinfo: the last entry on target (want_dev == 0) or
 * the first of device want_dev. 1 found, 0 not, -errno (described). */
static int find_mount(const char *target, dev_t want_dev, dev_t *devno, char *where, size_t len)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int found = 0;

	if (!tb || !it) {
		int err = tb ? -ENOMEM : (errno ? -errno : -ENOMEM);

		fsb_err_errno(err, "cannot read /proc/self/mountinfo");
		mnt_free_iter(it);
		mnt_unref_table(tb);
		return err;
	}
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *t = mnt_fs_get_target(fs);

		if (!t)
			continue;
		if (target && !strcmp(t, target)) {
			/* Later entries are mounted on top: keep the last. */
			if (devno)
				*devno = mnt_fs_get_devno(fs);
			found = 1;
		} else if (!target && mnt_fs_get_devno(fs) == want_dev) {
			snprintf(where, len, "%s", t);
			found = 1;
			break;
		}
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return found;
}

int fsb_mount_at(const char *target, dev_t *devno)
{
	return find_mount(target, 0, devno, NULL, 0);
}

int fsb_mount_of_dev(dev_t devno, char *where, size_t len)
{
	return find_mount(NULL, devno, NULL, where, len);
}

dev_t fsb_mount_fs_devno(struct libmnt_fs *fs)
{
	const char *src = mnt_fs_get_srcpath(fs);
	struct stat st;
	dev_t d = mnt_fs_get_devno(fs);

	if (src && !strncmp(src, "/dev/", 5) && !stat(src, &st) && S_ISBLK(st.st_mode))
		return st.st_rdev;
	return major(d) ? d : 0;
}

int fsb_mount_tab_read(const char *path, struct fsb_mount_tab *t)
{
	const char *file = path ? path : "/proc/self/mountinfo";
	struct libmnt_table *tb = mnt_new_table_from_file(file);
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int err = 0;

	t->v = NULL;
	t->n = 0;
	if (!tb || !it) {
		err = tb ? -ENOMEM : (errno ? -errno : -ENOMEM);
		fsb_err_errno(err, "cannot read %s", file);
	}
	while (!err && mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *tg = mnt_fs_get_target(fs);
		struct fsb_mount_ent *v;

		if (!tg)
			continue;
		v = realloc(t->v, (t->n + 1) * sizeof(*v));
		if (v)
			t->v = v;
		if (!v || !(v[t->n].target = strdup(tg))) {
			err = -ENOMEM;
			fsb_err("cannot read %s: out of memory", file);
			break;
		}
		v[t->n++].dev = fsb_mount_fs_devno(fs);
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	if (err)
		fsb_mount_tab_free(t);
	return err;
}

void fsb_mount_tab_free(struct fsb_mount_tab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].target);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}
