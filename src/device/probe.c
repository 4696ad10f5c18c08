#include "device/probe.h"
#include "device/mount.h"
#include "util/error.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MIB (1024ull * 1024)

const char *fsb_probe_rule_name(enum fsb_probe_rule rule)
{
	switch (rule) {
	case FSB_PROBE_OK:
		return "ok";
	case FSB_PROBE_NOT_BLOCKDEV:
		return "not a block device";
	case FSB_PROBE_ROOT:
		return "root device";
	case FSB_PROBE_MOUNTED:
		return "mounted";
	case FSB_PROBE_SWAP:
		return "swap";
	case FSB_PROBE_HOLDERS:
		return "holders";
	case FSB_PROBE_SIGNATURE:
		return "signature";
	case FSB_PROBE_PTABLE:
		return "partition table";
	}
	return "?";
}

enum fsb_probe_rule fsb_probe_decide(const struct fsb_probe_facts *f, bool destroy_data, char *why,
				     size_t len)
{
	/* Mounted, swap and holders are not lifted by --destroy-data: the
	 * kernel refuses the exclusive open mkfs and mount need anyway, so
	 * the only advice that works is to stop the user of the device. */
	enum fsb_probe_rule rule = FSB_PROBE_OK;
	char buf[4 * FSB_PROBE_STR];

	buf[0] = '\0';
	if (!f->is_blockdev) {
		rule = FSB_PROBE_NOT_BLOCKDEV;
		snprintf(buf, sizeof(buf),
			 "'%s' is not a block device (rule: %s; use --image for "
			 "an image file)",
			 f->dev, fsb_probe_rule_name(rule));
	} else if (f->holds_root) {
		rule = FSB_PROBE_ROOT;
		snprintf(buf, sizeof(buf),
			 "refusing '%s': it holds the root filesystem (%s) "
			 "(rule: %s; never overridden, not even by --destroy-data)",
			 f->dev, f->root_dev[0] ? f->root_dev : "/", fsb_probe_rule_name(rule));
	} else if (f->mounted) {
		rule = FSB_PROBE_MOUNTED;
		snprintf(buf, sizeof(buf),
			 "refusing '%s': '%s' is mounted on '%s' (rule: %s); "
			 "unmount it first",
			 f->dev, f->mounted_dev, f->mounted_on, fsb_probe_rule_name(rule));
	} else if (f->swap) {
		rule = FSB_PROBE_SWAP;
		snprintf(buf, sizeof(buf),
			 "refusing '%s': '%s' is in use as swap (rule: %s); "
			 "swapoff it first",
			 f->dev, f->swap_dev, fsb_probe_rule_name(rule));
	} else if (f->held) {
		rule = FSB_PROBE_HOLDERS;
		snprintf(buf, sizeof(buf),
			 "refusing '%s': '%s' is held by '%s', a RAID or "
			 "device-mapper device (rule: %s); stop that first",
			 f->dev, f->held_dev, f->holder, fsb_probe_rule_name(rule));
	} else if (destroy_data) {
		rule = FSB_PROBE_OK;
	} else if (f->signature) {
		rule = FSB_PROBE_SIGNATURE;
		snprintf(buf, sizeof(buf),
			 "refusing '%s': it carries a %s signature (%s) "
			 "(rule: %s); pass --destroy-data to overwrite it",
			 f->dev, f->sig_usage[0] ? f->sig_usage : "data",
			 f->sig_type[0] ? f->sig_type : "unknown", fsb_probe_rule_name(rule));
	} else if (f->ptable) {
		rule = FSB_PROBE_PTABLE;
		snprintf(buf, sizeof(buf),
			 "refusing '%s': it carries a partition table (%s) "
			 "(rule: %s); pass --destroy-data to overwrite it",
			 f->dev, f->pt_type[0] ? f->pt_type : "unknown", fsb_probe_rule_name(rule));
	}
	if (why && len)
		snprintf(why, len, "%s", buf);
	return rule;
}

uint64_t fsb_probe_min_size(const char *fs_type)
{
	if (!strcmp(fs_type, "xfs"))
		return 300 * MIB; /* mkfs.xfs: "Filesystem must be larger than 300MB." */
	if (!strcmp(fs_type, "btrfs"))
		return 114294784; /* mkfs.btrfs: "minimum size for each btrfs device" */
	if (!strcmp(fs_type, "ext2") || !strcmp(fs_type, "ext3") || !strcmp(fs_type, "ext4"))
		return 1 * MIB;
	return 0;
}

/* ---- fact gathering ---- */

#define MAX_DEVS 256

struct devset {
	dev_t dev[MAX_DEVS];
	char name[MAX_DEVS][FSB_PROBE_STR];
	size_t n;
};

static void set_add(struct devset *s, dev_t d, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->dev[i] == d)
			return;
	if (s->n == MAX_DEVS)
		return;
	s->dev[s->n] = d;
	if ((size_t)snprintf(s->name[s->n], sizeof(s->name[0]), "%s", name) >= sizeof(s->name[0]))
		s->name[s->n][sizeof(s->name[0]) - 1] = '\0';
	s->n++;
}

static int set_find(const struct devset *s, dev_t d)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->dev[i] == d)
			return (int)i;
	return -1;
}

/* Parse a sysfs "dev" file ("8:17\n"). 0 or -errno. */
static int read_devno(const char *path, dev_t *out)
{
	unsigned ma, mi;
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return -errno;
	n = fscanf(f, "%u:%u", &ma, &mi);
	fclose(f);
	if (n != 2)
		return -EINVAL;
	*out = makedev(ma, mi);
	return 0;
}

static void sysdir(dev_t d, char *out, size_t len)
{
	snprintf(out, len, "/sys/dev/block/%u:%u", major(d), minor(d));
}

/* The kernel name of d ("sdb1") from its sysfs link; "" when unknown. */
static void kname(dev_t d, char *out, size_t len)
{
	char dir[64], target[PATH_MAX];
	ssize_t n;

	sysdir(d, dir, sizeof(dir));
	out[0] = '\0';
	n = readlink(dir, target, sizeof(target) - 1);
	if (n < 0)
		return;
	target[n] = '\0';
	if ((size_t)snprintf(out, len, "/dev/%s",
			     strrchr(target, '/') ? strrchr(target, '/') + 1 : target) >= len)
		out[0] = '\0';
}

/* Add d's partitions (sysfs subdirectories with a "partition" file). */
static void add_partitions(struct devset *s, dev_t d)
{
	char dir[64], path[PATH_MAX];
	struct dirent *de;
	DIR *dp;

	sysdir(d, dir, sizeof(dir));
	dp = opendir(dir);
	if (!dp)
		return;
	while ((de = readdir(dp))) {
		dev_t p;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/partition", dir, de->d_name);
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev", dir, de->d_name);
		if (!read_devno(path, &p)) {
			char name[300];
			snprintf(name, sizeof(name), "/dev/%s", de->d_name);
			set_add(s, p, name);
		}
	}
	closedir(dp);
}

/* Add d, the whole disk d is a partition of, and (recursively) the
 * devices under d: what "holding /" means for a partition, RAID or LVM. */
static void add_root_chain(struct devset *s, dev_t d, int depth)
{
	char dir[64], path[PATH_MAX], name[300];
	struct dirent *de;
	dev_t parent;
	DIR *dp;

	if (depth > 8 || set_find(s, d) >= 0)
		return;
	kname(d, name, sizeof(name));
	set_add(s, d, name);
	sysdir(d, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/partition", dir);
	if (!access(path, F_OK)) {
		snprintf(path, sizeof(path), "%s/../dev", dir);
		if (!read_devno(path, &parent))
			add_root_chain(s, parent, depth + 1);
	}
	snprintf(path, sizeof(path), "%s/slaves", dir);
	dp = opendir(path);
	if (!dp)
		return;
	while ((de = readdir(dp))) {
		char dev[PATH_MAX];
		dev_t sl;

		if (de->d_name[0] == '.')
			continue;
		snprintf(dev, sizeof(dev), "%s/slaves/%s/dev", dir, de->d_name);
		if (!read_devno(dev, &sl))
			add_root_chain(s, sl, depth + 1);
	}
	closedir(dp);
}

static int gather_mounts(struct fsb_probe_facts *f, const struct devset *mine, struct devset *root)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs, *rootfs;
	int err = 0;

	if (!tb || !it) {
		err = errno ? -errno : -ENOMEM;
		fsb_err_errno(err, "cannot read /proc/self/mountinfo");
		goto out;
	}
	rootfs = mnt_table_find_target(tb, "/", MNT_ITER_BACKWARD);
	if (rootfs && fsb_mount_fs_devno(rootfs)) {
		const char *src = mnt_fs_get_srcpath(rootfs);
		snprintf(f->root_dev, sizeof(f->root_dev), "%s on /", src ? src : "?");
		add_root_chain(root, fsb_mount_fs_devno(rootfs), 0);
	}
	while (!f->mounted && mnt_table_next_fs(tb, it, &fs) == 0) {
		int i = set_find(mine, fsb_mount_fs_devno(fs));

		if (!fsb_mount_fs_devno(fs) || i < 0)
			continue;
		f->mounted = true;
		snprintf(f->mounted_dev, sizeof(f->mounted_dev), "%s", mine->name[i]);
		snprintf(f->mounted_on, sizeof(f->mounted_on), "%s", mnt_fs_get_target(fs));
	}
out:
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return err;
}

static int gather_swaps(struct fsb_probe_facts *f, const struct devset *mine)
{
	char line[PATH_MAX + 128], path[PATH_MAX];
	FILE *sw = fopen("/proc/swaps", "re");

	if (!sw)
		return errno == ENOENT ? 0 : -errno; /* no swap support: no swap */
	if (!fgets(line, sizeof(line), sw)) {	     /* header */
		fclose(sw);
		return 0;
	}
	while (!f->swap && fgets(line, sizeof(line), sw)) {
		struct stat st;
		int i;

		if (sscanf(line, "%4095s", path) != 1 || stat(path, &st) || !S_ISBLK(st.st_mode))
			continue;
		if ((i = set_find(mine, st.st_rdev)) >= 0) {
			f->swap = true;
			snprintf(f->swap_dev, sizeof(f->swap_dev), "%s", mine->name[i]);
		}
	}
	fclose(sw);
	return 0;
}

static void gather_holders(struct fsb_probe_facts *f, const struct devset *mine)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < mine->n && !f->held; i++) {
		struct dirent *de;
		DIR *dp;

		sysdir(mine->dev[i], path, sizeof(path));
		strncat(path, "/holders", sizeof(path) - strlen(path) - 1);
		dp = opendir(path);
		if (!dp)
			continue;
		while ((de = readdir(dp))) {
			if (de->d_name[0] == '.')
				continue;
			f->held = true;
			snprintf(f->held_dev, sizeof(f->held_dev), "%s", mine->name[i]);
			snprintf(f->holder, sizeof(f->holder), "%s", de->d_name);
			break;
		}
		closedir(dp);
	}
}

size_t fsb_blockdev_family(dev_t d, dev_t *out, size_t max)
{
	struct devset *s = calloc(1, sizeof(*s));
	size_t n = 0;

	if (!s)
		return 0;
	set_add(s, d, "");
	add_partitions(s, d);
	for (; n < s->n && n < max; n++)
		out[n] = s->dev[n];
	free(s);
	return n;
}

/*
 * A process other than this one with one of mine open (a descriptor in
 * /proc/PID/fd on the block device): its pid, or 0. Detaching a loop
 * device held open only marks it to go when the holder closes it, and the
 * holder still reads and writes through it.
 */
static pid_t open_by(const struct devset *mine)
{
	DIR *proc = opendir("/proc"), *fds;
	struct dirent *p, *e;
	char path[PATH_MAX];
	pid_t self = getpid(), who = 0;
	struct stat st;

	if (!proc)
		return 0;
	while (!who && (p = readdir(proc))) {
		pid_t pid = (pid_t)atoi(p->d_name);

		if (pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
		if (!(fds = opendir(path)))
			continue;
		while (!who && (e = readdir(fds))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)pid, e->d_name);
			if (!stat(path, &st) && S_ISBLK(st.st_mode) &&
			    set_find(mine, st.st_rdev) >= 0)
				who = pid;
		}
		closedir(fds);
	}
	closedir(proc);
	return who;
}

int fsb_blockdev_user(const dev_t *devs, size_t n, char *why, size_t len)
{
	struct fsb_probe_facts *f = calloc(1, sizeof(*f));
	struct devset *s = calloc(1, sizeof(*s));
	pid_t holder = 0;
	int used = 0;

	if (f && s) {
		for (size_t i = 0; i < n; i++)
			set_add(s, devs[i], "");
		gather_holders(f, s);
		if (f->held)
			snprintf(why, len, "held by '%s'", f->holder);
		else if (!gather_swaps(f, s) && f->swap)
			snprintf(why, len, "in use as swap");
		else if ((holder = open_by(s)))
			snprintf(why, len, "held open by process %d", (int)holder);
		used = f->held || f->swap || holder;
	}
	free(f);
	free(s);
	return used;
}

int fsb_probe_signature_fd(int fd, const char *name, struct fsb_probe_facts *f)
{
	blkid_probe pr = blkid_new_probe();
	const char *v;
	int rc, err = 0;

	f->signature = f->ptable = false;
	f->sig_type[0] = f->sig_usage[0] = f->pt_type[0] = '\0';
	if (!pr) {
		err = -ENOMEM;
		fsb_err_errno(err, "cannot probe '%s' for signatures", name);
		return err;
	}
	/* On the descriptor already open: what is probed is what was
	 * checked, whatever the name points to by now. */
	if (blkid_probe_set_device(pr, fd, 0, 0)) {
		err = -EIO;
		fsb_err("cannot probe '%s' for signatures: libblkid failed", name);
		goto out;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	rc = blkid_do_safeprobe(pr);
	if (rc == -2) {
		/* Several signatures at once: a device with data on it. */
		f->signature = true;
		snprintf(f->sig_type, sizeof(f->sig_type), "%s", "ambivalent (several)");
	} else if (rc == 0) {
		if (!blkid_probe_lookup_value(pr, "TYPE", &v, NULL)) {
			f->signature = true;
			snprintf(f->sig_type, sizeof(f->sig_type), "%s", v);
			if (!blkid_probe_lookup_value(pr, "USAGE", &v, NULL))
				snprintf(f->sig_usage, sizeof(f->sig_usage), "%s", v);
		}
		if (!blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL)) {
			f->ptable = true;
			snprintf(f->pt_type, sizeof(f->pt_type), "%s", v);
		}
	} else if (rc < 0) {
		err = -EIO;
		fsb_err("cannot probe '%s' for signatures: libblkid failed", name);
	}
out:
	blkid_free_probe(pr);
	return err;
}

int fsb_probe_gather(const char *dev, struct fsb_probe_facts *f)
{
	struct devset *mine = NULL, *root = NULL;
	struct stat st;
	int fd, err = 0;

	memset(f, 0, sizeof(*f));
	snprintf(f->dev, sizeof(f->dev), "%s", dev);
	if (stat(dev, &st) < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot use device '%s'", dev);
		return err;
	}
	f->is_blockdev = S_ISBLK(st.st_mode);
	if (!f->is_blockdev)
		return 0;
	mine = calloc(1, sizeof(*mine));
	root = calloc(1, sizeof(*root));
	if (!mine || !root) {
		err = -ENOMEM;
		goto out;
	}
	set_add(mine, st.st_rdev, dev);
	add_partitions(mine, st.st_rdev);
	if ((err = gather_mounts(f, mine, root)))
		goto out;
	/* The root rule needs nothing more, and is never overridden. */
	f->holds_root = set_find(root, st.st_rdev) >= 0;
	if (f->holds_root)
		goto out;
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot open device '%s'", dev);
		goto out;
	}
	if (fsb_blockdev_size(fd, &f->size_bytes))
		f->size_bytes = 0;
	if ((err = gather_swaps(f, mine)))
		fsb_err_errno(err, "cannot read /proc/swaps");
	if (!err)
		gather_holders(f, mine);
	if (!err)
		err = fsb_probe_signature_fd(fd, dev, f);
	close(fd);
out:
	free(mine);
	free(root);
	return err;
}

int fsb_probe_claim(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC), err;

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	err = -errno;
	if (err == -EBUSY)
		fsb_err("refusing '%s': it is held by another process (the kernel refuses an "
			"exclusive open: a mount, swap, RAID, device mapper or a tool such as mkfs "
			"has it) (rule: held); stop that first",
			dev);
	else
		fsb_err_errno(err, "cannot claim '%s' exclusively", dev);
	return err;
}

int fsb_blockdev_size(int fd, uint64_t *bytes)
{
	return ioctl(fd, BLKGETSIZE64, bytes) < 0 ? -errno : 0;
}
