/*
 * The guest's contents. Everything that can be decided from strings is
 * pure here (needs, scripts); the rest touches only the host's files and
 * the cache directory.
 */
#include "core/guest.h"
#include "util/error.h"
#include "util/size.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

int fsb_guest_need_module(struct fsb_guest_needs *n, const char *name)
{
	for (size_t i = 0; i < n->nmodules; i++)
		if (!strcmp(n->modules[i], name))
			return 0;
	if (n->nmodules == FSB_GUEST_MAX_NEEDS)
		return -E2BIG;
	n->modules[n->nmodules++] = name;
	return 0;
}

int fsb_guest_need_tool(struct fsb_guest_needs *n, const char *name, bool optional)
{
	for (size_t i = 0; i < n->ntools; i++)
		if (!strcmp(n->tools[i], name))
			return 0;
	if (n->ntools == FSB_GUEST_MAX_NEEDS)
		return -E2BIG;
	n->optional[n->ntools] = optional;
	n->tools[n->ntools++] = name;
	return 0;
}

/*
 * Per filesystem type: its modules (soft dependencies that modules.dep does
 * not list included, from docs/notes: ext4 wants crc32c_generic, ubifs
 * cannot start its zstd compressor without crypto/zstd - loaded first, as
 * ubifs's insmod fails when its compressor is missing) and its tools.
 */
static const struct fs_need {
	const char *type;
	const char *modules[4];
	const char *tools[4];
} fs_needs[] = {
	{ "ext2", { "ext4", "crc32c_generic" }, { "mke2fs", "mkfs.ext2" } },
	{ "ext3", { "ext4", "crc32c_generic" }, { "mke2fs", "mkfs.ext3" } },
	{ "ext4", { "ext4", "crc32c_generic" }, { "mke2fs", "mkfs.ext4" } },
	{ "jffs2", { "jffs2" }, { NULL } },
	{ "ubifs", { "zstd", "ubi", "ubifs" }, { "ubiformat", "ubiattach", "ubimkvol" } },
	{ "reiserfs", { "reiserfs" }, { "mkreiserfs", "mkfs.reiserfs" } },
	{ "xfs", { "xfs" }, { "mkfs.xfs" } },
	{ "btrfs", { "btrfs" }, { "mkfs.btrfs" } },
	{ "f2fs", { "f2fs" }, { "mkfs.f2fs" } },
	{ "nilfs2", { "nilfs2" }, { "mkfs.nilfs2" } },
};

static const struct {
	const char *tool, *package;
} packages[] = {
	{ "flash_erase", "mtd-utils" },
	{ "ubiformat", "mtd-utils" },
	{ "ubiattach", "mtd-utils" },
	{ "ubimkvol", "mtd-utils" },
	{ "ubidetach", "mtd-utils" },
	{ "mkreiserfs", "reiserfsprogs" },
	{ "mkfs.reiserfs", "reiserfsprogs" },
	{ "mke2fs", "e2fsprogs" },
	{ "mkfs.ext2", "e2fsprogs" },
	{ "mkfs.ext3", "e2fsprogs" },
	{ "mkfs.ext4", "e2fsprogs" },
	{ "mkfs.xfs", "xfsprogs" },
	{ "mkfs.btrfs", "btrfs-progs" },
	{ "mkfs.f2fs", "f2fs-tools" },
	{ "mkfs.nilfs2", "nilfs-tools" },
	{ "busybox", "busybox-static" },
	{ "qemu-system-x86_64", "qemu-system-x86" },
};

const char *fsb_guest_tool_package(const char *tool)
{
	const char *base = strrchr(tool, '/');

	base = base ? base + 1 : tool;
	for (size_t i = 0; i < sizeof(packages) / sizeof(packages[0]); i++)
		if (!strcmp(packages[i].tool, base))
			return packages[i].package;
	return NULL;
}

static int need_fs(struct fsb_guest_needs *n, const char *type)
{
	int err = 0;

	for (size_t i = 0; i < sizeof(fs_needs) / sizeof(fs_needs[0]); i++) {
		const struct fs_need *f = &fs_needs[i];

		if (strcmp(f->type, type))
			continue;
		for (size_t j = 0; j < 4 && f->modules[j] && !err; j++)
			err = fsb_guest_need_module(n, f->modules[j]);
		/* The type's tools are required; its mkfs.TYPE aliases are
		 * carried when the host has them. */
		for (size_t j = 0; j < 4 && f->tools[j] && !err; j++)
			err = fsb_guest_need_tool(n, f->tools[j],
						  j > 0 && !strncmp(f->tools[j], "mkfs.", 5));
		return err;
	}
	/* An unknown type: its module is likely named after it. */
	return fsb_guest_need_module(n, type);
}

/* The value of --NAME VALUE or --NAME=VALUE at argv[*i], else NULL. */
static const char *opt_value(int argc, char *const *argv, int *i, const char *name)
{
	size_t len = strlen(name);

	if (strncmp(argv[*i], name, len))
		return NULL;
	if (argv[*i][len] == '=')
		return argv[*i] + len + 1;
	if (argv[*i][len] == '\0' && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

/* The first word of a --mkfs template (quotes are not expected there). */
static int need_mkfs_tool(struct fsb_guest_needs *n, const char *tmpl)
{
	static char words[FSB_GUEST_MAX_NEEDS][256];
	static size_t nwords;
	size_t len = strcspn(tmpl + strspn(tmpl, " \t"), " \t");
	const char *w = tmpl + strspn(tmpl, " \t");

	if (!len || (len == 4 && !strncmp(w, "none", 4)))
		return 0;
	if (nwords == FSB_GUEST_MAX_NEEDS || len >= sizeof(words[0]))
		return -E2BIG;
	memcpy(words[nwords], w, len);
	words[nwords][len] = '\0';
	return fsb_guest_need_tool(n, words[nwords++], false);
}

int fsb_guest_needs_add_fs(struct fsb_guest_needs *n, const char *type, const char *mkfs)
{
	int err = need_fs(n, type);

	return err ? err : need_mkfs_tool(n, mkfs);
}

int fsb_guest_needs_for(int argc, char *const *argv, struct fsb_guest_needs *n)
{
	int err;

	memset(n, 0, sizeof(*n));
	if ((err = fsb_guest_need_module(n, "virtio_pci")) ||
	    (err = fsb_guest_need_module(n, "virtio_blk")))
		return err;
	for (int i = 1; i < argc; i++) {
		const char *v;

		if ((v = opt_value(argc, argv, &i, "--fs")) ||
		    (v = opt_value(argc, argv, &i, "--type"))) {
			err = need_fs(n, v);
		} else if ((v = opt_value(argc, argv, &i, "--mtd"))) {
			if (!(err = fsb_guest_need_module(n, "mtd")) &&
			    !(err = fsb_guest_need_module(n, "block2mtd")) &&
			    !(err = fsb_guest_need_module(n, "mtdblock")))
				err = fsb_guest_need_tool(n, "flash_erase", false);
		} else if ((v = opt_value(argc, argv, &i, "--mkfs"))) {
			err = need_mkfs_tool(n, v);
		} else if (!strcmp(argv[i], "--")) {
			break;
		}
		if (err)
			return err;
	}
	return 0;
}

char *fsb_guest_cmd_script(int argc, char *const *argv)
{
	size_t len = 16;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		for (const char *c = argv[i]; *c; c++)
			len += *c == '\'' ? 4 : 1;
	len += (size_t)argc * 3;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s + sprintf(s, "set --");
	for (int i = 0; i < argc; i++) {
		*p++ = ' ';
		*p++ = '\'';
		/* Inside single quotes nothing is special but the quote itself:
		 * close, an escaped quote, reopen. */
		for (const char *c = argv[i]; *c; c++) {
			if (*c == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *c;
			}
		}
		*p++ = '\'';
	}
	*p++ = '\n';
	*p = '\0';
	return s;
}

/*
 * The guest's init. Markers on the console tell the host how far it got;
 * the result goes to ttyS1 (raw, so no \r is added) and nowhere else.
 * PATH puts the real tools before busybox's applets: busybox's mke2fs
 * rejects -t.
 */
static const char init_script[] =
	"#!/bin/busybox sh\n"
	"export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp\n"
	"/bin/busybox mount -t proc proc /proc\n"
	"/bin/busybox mount -t sysfs sysfs /sys\n"
	"/bin/busybox mount -t devtmpfs devtmpfs /dev\n"
	"/bin/busybox --install -s /bin\n"
	"echo \""
	"fsbench-guest: ready"
	"\"\n"
	"while read m; do\n"
	"\tinsmod \"/lib/modules/$m\" || echo \"fsbench-guest: cannot load $m\"\n"
	"done < /guest/modules\n"
	"stty -F /dev/ttyS1 raw -echo\n"
	". /guest/cmd.sh\n"
	"cd /tmp\n"
	"/bin/fsbench \"$@\"\n"
	"rc=$?\n"
	"[ -s /tmp/result.json ] && cat /tmp/result.json > /dev/ttyS1\n"
	"sync\n"
	"echo\n"
	"echo \""
	"fsbench-guest: exit "
	"$rc\"\n"
	"poweroff -f\n";

const char *fsb_guest_init_script(void)
{
	return init_script;
}

int fsb_guest_kernel_cache(char *out, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && *xdg)
		n = snprintf(out, len, "%s/fsbench/kernel", xdg);
	else
		n = snprintf(out, len, "%s/.cache/fsbench/kernel", home && *home ? home : "/root");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool has_dep(const char *moddir)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/modules.dep", moddir);
	return is_file(p);
}

/* The newest vmlinuz-* in dir/boot (by name: versions sort that way within
 * one ABI series, which is what a cache holds). */
static int newest_in_cache(const char *dir, char *release, size_t len)
{
	char boot[4200];
	struct dirent *d;
	DIR *dp;

	snprintf(boot, sizeof(boot), "%s/boot", dir);
	release[0] = '\0';
	dp = opendir(boot);
	if (!dp)
		return -ENOENT;
	while ((d = readdir(dp)))
		if (!strncmp(d->d_name, "vmlinuz-", 8) && strcmp(d->d_name + 8, release) > 0)
			snprintf(release, len, "%s", d->d_name + 8);
	closedir(dp);
	return release[0] ? 0 : -ENOENT;
}

int fsb_guest_find_kernel(const char *kernel_opt, const char *modules_opt,
			  struct fsb_guest_kernel *k)
{
	char cache[2048];
	struct utsname u;
	const char *base;

	memset(k, 0, sizeof(*k));
	if (fsb_guest_kernel_cache(cache, sizeof(cache)))
		return -ENAMETOOLONG;
	if (kernel_opt) {
		snprintf(k->kernel, sizeof(k->kernel), "%s", kernel_opt);
		base = strrchr(kernel_opt, '/');
		base = base ? base + 1 : kernel_opt;
		if (!strncmp(base, "vmlinuz-", 8) || !strncmp(base, "vmlinux-", 8))
			snprintf(k->release, sizeof(k->release), "%s", base + 8);
	} else if (uname(&u) == 0 && !modules_opt &&
		   (snprintf(k->kernel, sizeof(k->kernel), "/boot/vmlinuz-%s", u.release),
		    snprintf(k->moddir, sizeof(k->moddir), "/lib/modules/%s", u.release),
		    is_file(k->kernel) && has_dep(k->moddir))) {
		snprintf(k->release, sizeof(k->release), "%s", u.release);
		return 0;
	} else if (newest_in_cache(cache, k->release, sizeof(k->release)) == 0) {
		snprintf(k->kernel, sizeof(k->kernel), "%s/boot/vmlinuz-%s", cache, k->release);
	} else {
		fsb_err("guest: no kernel to boot: no /boot/vmlinuz-%s with its modules and "
			"nothing in '%s' (run 'make guest-kernel', which needs the packages "
			"kmod and linux-image-amd64 in apt's lists, or give --kernel)",
			uname(&u) == 0 ? u.release : "?", cache);
		return -ENOENT;
	}
	if (!is_file(k->kernel)) {
		fsb_err("guest: kernel '%s' does not exist", k->kernel);
		return -ENOENT;
	}
	if (modules_opt) {
		snprintf(k->moddir, sizeof(k->moddir), "%s", modules_opt);
		if (!k->release[0]) {
			base = strrchr(modules_opt, '/');
			snprintf(k->release, sizeof(k->release), "%s",
				 base && base[1] ? base + 1 : modules_opt);
		}
	} else if (k->release[0]) {
		/* A cached kernel's modules sit beside it: DIR/boot, DIR/lib/modules. */
		char dir[2048], *slash;

		if ((size_t)snprintf(dir, sizeof(dir), "%s", k->kernel) >= sizeof(dir))
			return -ENAMETOOLONG;
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		snprintf(k->moddir, sizeof(k->moddir), "%s/../lib/modules/%s", dir, k->release);
		if (!has_dep(k->moddir))
			snprintf(k->moddir, sizeof(k->moddir), "/lib/modules/%s", k->release);
	} else {
		fsb_err("guest: cannot tell the release of kernel '%s': give --modules DIR",
			k->kernel);
		return -ENOENT;
	}
	if (!has_dep(k->moddir)) {
		fsb_err("guest: no modules.dep in '%s' (give --modules DIR, or run "
			"'depmod -b ROOT %s', package kmod)",
			k->moddir, k->release);
		return -ENOENT;
	}
	return 0;
}

int fsb_guest_irfs_fill(struct fsb_irfs *fs, const struct fsb_guest_inputs *in)
{
	static const char *const dirs[] = { "/proc", "/sys", "/dev", "/tmp", "/mnt", "/run" };
	const char *init = fsb_guest_init_script();
	char *list = NULL, path[4200], src[8400];
	size_t len = 0;
	int err = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !err; i++)
		err = fsb_irfs_add_dir(fs, dirs[i]);
	/* The kernel opens /dev/console for init before devtmpfs is mounted. */
	if (!err)
		err = fsb_irfs_add_chardev(fs, "/dev/console", 5, 1);
	if (!err)
		err = fsb_irfs_add_data(fs, "/init", init, strlen(init), 0755);
	if (!err)
		err = in->with_libs ? fsb_irfs_add_program(fs, "/bin/busybox", in->busybox)
				    : fsb_irfs_add_file(fs, "/bin/busybox", in->busybox, 0755);
	if (!err)
		err = in->with_libs ? fsb_irfs_add_program(fs, "/bin/fsbench", in->fsbench)
				    : fsb_irfs_add_file(fs, "/bin/fsbench", in->fsbench, 0755);
	for (size_t i = 0; i < in->ntools && !err; i++)
		err = in->with_libs ? fsb_irfs_add_program(fs, in->tools[i], in->tools[i])
				    : fsb_irfs_add_file(fs, in->tools[i], in->tools[i], 0755);
	for (size_t i = 0; i < in->nmodules && !err; i++) {
		char *nl;

		snprintf(path, sizeof(path), "/lib/modules/%s", in->modules[i]);
		snprintf(src, sizeof(src), "%s/%s", in->moddir, in->modules[i]);
		err = fsb_irfs_add_file(fs, path, src, 0644);
		if (err)
			break;
		nl = realloc(list, len + strlen(in->modules[i]) + 2);
		if (!nl) {
			err = -ENOMEM;
			break;
		}
		list = nl;
		len += (size_t)sprintf(list + len, "%s\n", in->modules[i]);
	}
	if (!err)
		err = fsb_irfs_add_data(fs, "/guest/modules", list ? list : "", len, 0644);
	if (!err)
		err = fsb_irfs_finish(fs);
	free(list);
	if (err && err != -ENOENT && err != -EACCES)
		fsb_err_errno(err, "guest: cannot list the initramfs");
	return err;
}

int fsb_guest_irfs_cached(const struct fsb_irfs *fs, const char *cache_dir, char *out, size_t len,
			  bool *built)
{
	char tmp[4200];
	int fd, err;

	*built = false;
	if ((size_t)snprintf(out, len, "%s/initramfs-%016llx.cpio", cache_dir,
			     (unsigned long long)fsb_irfs_hash(fs)) >= len)
		return -ENAMETOOLONG;
	if (is_file(out))
		return 0;
	snprintf(tmp, sizeof(tmp), "%s/.initramfs.XXXXXX", cache_dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		fsb_err_errno(err, "guest: cannot write the initramfs cache in '%s'", cache_dir);
		return err;
	}
	err = fsb_irfs_write(fs, fd);
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	/* Rename last: a reader never sees half an archive under the final name. */
	if (!err && rename(tmp, out) < 0)
		err = -errno;
	if (err) {
		fsb_err_errno(err, "guest: cannot write the initramfs '%s'", out);
		unlink(tmp);
		return err;
	}
	*built = true;
	return 0;
}

int fsb_guest_disk_parse(const char *spec, uint64_t *size_bytes, enum fsb_fill *fill)
{
	char buf[64], *comma;

	*fill = FSB_FILL_FF;
	if ((size_t)snprintf(buf, sizeof(buf), "%s", spec) >= sizeof(buf))
		return -EINVAL;
	comma = strchr(buf, ',');
	if (comma) {
		*comma++ = '\0';
		if (strncmp(comma, "fill=", 5) || fsb_fill_parse(comma + 5, fill) ||
		    *fill == FSB_FILL_RANDOM)
			return -EINVAL;
	}
	if (fsb_size_parse(buf, size_bytes) || *size_bytes < (1u << 20) || *size_bytes % 512)
		return -EINVAL;
	return 0;
}
