/* Environment probes (device/env.h). */
#include "device/env.h"
#include "device/cache.h"
#include "device/loop.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* The first line of root/rel into buf, trailing blanks cut; false if none. */
static bool read_line(const char *root, const char *rel, char *buf, size_t len)
{
	char path[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", strcmp(root, "/") ? root : "", rel);
	if (!(f = fopen(path, "re")))
		return false;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return false;
	}
	fclose(f);
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return n > 0;
}

bool fsb_env_cpuid_vendor(char *out, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	char v[13];

	/* Leaf 1, ECX bit 31: running under a hypervisor. */
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return false;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(v, &b, 4);
	memcpy(v + 4, &c, 4);
	memcpy(v + 8, &d, 4);
	v[12] = '\0';
	snprintf(out, len, "%s", v);
	return true;
#else
	(void)out;
	(void)len;
	return false;
#endif
}

struct vendor {
	const char *prefix, *name;
};

/* systemd's tables (src/basic/virt.c), the VM part. */
static const struct vendor cpuid_vendors[] = {
	{ "XenVMMXenVMM", "xen" },
	{ "KVMKVMKVM", "kvm" },
	{ "Linux KVM Hv", "kvm" },
	{ "TCGTCGTCGTCG", "qemu" },
	{ "VMwareVMware", "vmware" },
	{ "Microsoft Hv", "microsoft" },
	{ "bhyve bhyve", "bhyve" },
	{ "QNXQVMBSQG", "qnx" },
	{ "ACRNACRNACRN", "acrn" },
	{ "SRESRESRESRE", "sre" },
	{ NULL, NULL },
};

static const struct vendor dmi_vendors[] = {
	{ "KVM", "kvm" },
	{ "OpenStack", "kvm" },
	{ "KubeVirt", "kvm" },
	{ "Amazon EC2", "amazon" },
	{ "QEMU", "qemu" },
	{ "VMware", "vmware" },
	{ "VMW", "vmware" },
	{ "innotek GmbH", "oracle" },
	{ "VirtualBox", "oracle" },
	{ "Oracle Corporation", "oracle" },
	{ "Xen", "xen" },
	{ "Bochs", "bochs" },
	{ "Parallels", "parallels" },
	{ "BHYVE", "bhyve" },
	{ "Hyper-V", "microsoft" },
	{ "Apple Virtualization", "apple" },
	{ "Google Compute Engine", "google" },
	{ NULL, NULL },
};

static const char *match(const struct vendor *t, const char *s)
{
	for (; t->prefix; t++)
		if (!strncmp(s, t->prefix, strlen(t->prefix)))
			return t->name;
	return NULL;
}

void fsb_env_virt(const char *root, const char *cpuid_vendor, char *out, size_t len)
{
	static const char *const dmi[] = { "sys/class/dmi/id/product_name",
					   "sys/class/dmi/id/sys_vendor",
					   "sys/class/dmi/id/board_vendor",
					   "sys/class/dmi/id/bios_vendor", NULL };
	const char *name;
	char buf[256], product[256] = "";
	FILE *f;
	bool flag = false;

	if (cpuid_vendor && (name = match(cpuid_vendors, cpuid_vendor))) {
		snprintf(out, len, "%s", name);
		return;
	}
	read_line(root, dmi[0], product, sizeof(product));
	for (size_t i = 0; dmi[i]; i++) {
		if (!read_line(root, dmi[i], buf, sizeof(buf)))
			continue;
		/* Hyper-V says "Microsoft Corporation" and "Virtual Machine". */
		if (!strcmp(buf, "Microsoft Corporation") && !strcmp(product, "Virtual Machine")) {
			snprintf(out, len, "microsoft");
			return;
		}
		if ((name = match(dmi_vendors, buf))) {
			snprintf(out, len, "%s", name);
			return;
		}
	}
	if (read_line(root, "sys/hypervisor/type", buf, sizeof(buf))) {
		snprintf(out, len, "%s", buf);
		return;
	}
	snprintf(buf, sizeof(buf), "%s/proc/cpuinfo", strcmp(root, "/") ? root : "");
	if ((f = fopen(buf, "re"))) {
		char line[4096];

		while (!flag && fgets(line, sizeof(line), f))
			if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor"))
				flag = true;
		fclose(f);
	}
	/* cpuid_vendor given but unknown: a hypervisor all the same. */
	snprintf(out, len, "%s", flag || cpuid_vendor ? "vm" : "none");
}

/* VIRTIO_BALLOON_F_REPORTING (include/uapi/linux/virtio_balloon.h). */
#define BALLOON_F_REPORTING 5

void fsb_env_balloon(const char *root, bool *has, bool *reporting)
{
	char path[4096], feat[512];
	struct dirent *de;
	DIR *d;

	*has = *reporting = false;
	snprintf(path, sizeof(path), "%s/sys/bus/virtio/drivers/virtio_balloon",
		 strcmp(root, "/") ? root : "");
	if (!(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "virtio", 6) || !isdigit((unsigned char)de->d_name[6]))
			continue;
		*has = true;
		snprintf(path, sizeof(path), "sys/bus/virtio/drivers/virtio_balloon/%s/features",
			 de->d_name);
		if (read_line(root, path, feat, sizeof(feat)) &&
		    strlen(feat) > BALLOON_F_REPORTING && feat[BALLOON_F_REPORTING] == '1')
			*reporting = true;
	}
	closedir(d);
}

bool fsb_env_ram_backed(const char *root, const char *fs_type, const char *devname, char *out,
			size_t len)
{
	char backing[4096];
	struct statfs sf;

	if (fs_type && (!strcmp(fs_type, "tmpfs") || !strcmp(fs_type, "ramfs"))) {
		snprintf(out, len, "%s", fs_type);
		return true;
	}
	if (!devname || !*devname || strchr(devname, '/'))
		return false;
	if (!strncmp(devname, "zram", 4) ||
	    (!strncmp(devname, "ram", 3) && isdigit((unsigned char)devname[3]))) {
		snprintf(out, len, "%s (%s)", devname, devname[1] == 'r' ? "zram" : "brd");
		return true;
	}
	if (strncmp(devname, "loop", 4))
		return false;
	if (fsb_loopdev_backing_file(root, devname, backing, sizeof(backing), NULL, NULL) != 1)
		return false; /* no proven name: no filesystem to say */
	/* The backing file's filesystem: real only on this machine. */
	if (strcmp(root, "/") || statfs(backing, &sf) < 0)
		return false;
	if (fsb_cache_ram_fs((unsigned long)sf.f_type)) {
		snprintf(out, len, "%s over a file on %s", devname,
			 sf.f_type == TMPFS_MAGIC ? "tmpfs" : "ramfs");
		return true;
	}
	return false;
}

bool fsb_env_loop(const char *root, const char *devname, char *name, size_t name_len, char *backing,
		  size_t len, bool *dio)
{
	char rel[512], flag[16];
	size_t n;
	int rc;

	*dio = false;
	if (!devname || strncmp(devname, "loop", 4) || !isdigit((unsigned char)devname[4]))
		return false;
	/* A partition (loop3p1) is its whole device's: only that has loop/. */
	n = 4 + strspn(devname + 4, "0123456789");
	if (devname[n] && (devname[n] != 'p' || !devname[n + 1] ||
			   devname[n + 1 + strspn(devname + n + 1, "0123456789")]))
		return false;
	if (n >= name_len || n > 32)
		return false;
	snprintf(name, name_len, "%.*s", (int)n, devname);
	/* Bound, but its backing file's name unproven: backing "" (unknown). */
	rc = fsb_loopdev_backing_file(root, name, backing, len, NULL, NULL);
	if (rc != 1 && rc != -ESTALE)
		return false;
	/* No dio file (kernels before 4.4): no direct I/O either. */
	snprintf(rel, sizeof(rel), "sys/block/%s/loop/dio", name);
	*dio = read_line(root, rel, flag, sizeof(flag)) && !strcmp(flag, "1");
	return true;
}
