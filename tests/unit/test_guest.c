/*
 * Unit tests of the guest lab's pure parts: modules.dep resolution (load
 * order, dependencies shared, a missing module or dependency), what a
 * command needs in the guest, the initramfs file list for a setup and its
 * cpio bytes, ldd output, the command script's quoting, --disk and --mtd
 * values, the QEMU command line and the console scanner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/guest.h"
#include "device/initramfs.h"
#include "device/kmod.h"
#include "device/mtd.h"
#include "device/qemu.h"

static const char dep[] =
	"kernel/fs/jffs2/jffs2.ko: kernel/drivers/mtd/mtd.ko\n"
	"kernel/drivers/mtd/mtdblock.ko: kernel/drivers/mtd/mtd_blkdevs.ko kernel/drivers/mtd/mtd.ko\n"
	"kernel/drivers/mtd/mtd_blkdevs.ko: kernel/drivers/mtd/mtd.ko\n"
	"kernel/drivers/mtd/mtd.ko:\n"
	"kernel/drivers/mtd/devices/block2mtd.ko: kernel/drivers/mtd/mtd.ko\n"
	"kernel/drivers/virtio/virtio_pci.ko: kernel/drivers/virtio/virtio_pci_legacy_dev.ko "
	"kernel/drivers/virtio/virtio_pci_modern_dev.ko kernel/drivers/virtio/virtio.ko "
	"kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/drivers/virtio/virtio_pci_legacy_dev.ko:\n"
	"kernel/drivers/virtio/virtio_pci_modern_dev.ko:\n"
	"kernel/drivers/virtio/virtio.ko: kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/drivers/virtio/virtio_ring.ko:\n"
	"kernel/fs/broken/broken.ko: kernel/fs/gone/gone.ko\n";

static int index_of(char **v, const char *suffix)
{
	for (int i = 0; v[i]; i++) {
		size_t a = strlen(v[i]), b = strlen(suffix);

		if (a >= b && !strcmp(v[i] + a - b, suffix))
			return i;
	}
	return -1;
}

static void test_kmod_name(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(fsb_kmod_name("kernel/drivers/mtd/mtd_blkdevs.ko", buf, sizeof(buf)),
			    "mtd_blkdevs");
	assert_string_equal(fsb_kmod_name("a/crc32c-generic.ko.xz", buf, sizeof(buf)),
			    "crc32c_generic");
	assert_string_equal(fsb_kmod_name("zstd", buf, sizeof(buf)), "zstd");
}

static void test_kmod_order(void **state)
{
	const char *names[] = { "mtdblock", "jffs2", "block2mtd", "virtio-pci" };
	char **v = NULL, missing[64];
	int n;

	(void)state;
	n = fsb_kmod_resolve(dep, names, 4, &v, missing, sizeof(missing));
	assert_int_equal(n, 10);
	/* Dependencies first, each once. */
	assert_int_equal(index_of(v, "/mtd.ko"), 0);
	assert_true(index_of(v, "/mtd_blkdevs.ko") < index_of(v, "/mtdblock.ko"));
	assert_true(index_of(v, "/mtd.ko") < index_of(v, "/jffs2.ko"));
	assert_true(index_of(v, "/virtio_ring.ko") < index_of(v, "/virtio.ko"));
	assert_true(index_of(v, "/virtio.ko") < index_of(v, "/virtio_pci.ko"));
	assert_true(index_of(v, "/virtio_pci_modern_dev.ko") < index_of(v, "/virtio_pci.ko"));
	assert_null(v[n]);
	fsb_kmod_free(v);
}

static void test_kmod_missing(void **state)
{
	const char *absent[] = { "jffs2", "logfs" };
	const char *brokendep[] = { "broken" };
	char **v = NULL, missing[64];

	(void)state;
	assert_int_equal(fsb_kmod_resolve(dep, absent, 2, &v, missing, sizeof(missing)), -ENOENT);
	assert_string_equal(missing, "logfs");
	assert_null(v);
	assert_int_equal(fsb_kmod_resolve(dep, brokendep, 1, &v, missing, sizeof(missing)),
			 -ENOENT);
	assert_string_equal(missing, "gone");
	assert_null(v);
}

static bool has(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static void test_needs(void **state)
{
	char *jffs2[] = { "lifecycle", "--fs", "jffs2", "--mtd", "/dev/vda,128k", "--repeat", "1" };
	char *ubifs[] = { "lifecycle", "--fs=ubifs", "--mtd=/dev/vda,128k" };
	char *ext3[] = { "run", "--type", "ext3", "--mkfs", "mkfs.ext3 -q {dev}" };
	struct fsb_guest_needs n;

	(void)state;
	assert_int_equal(fsb_guest_needs_for(7, jffs2, &n), 0);
	assert_true(has(n.modules, n.nmodules, "virtio_blk"));
	assert_true(has(n.modules, n.nmodules, "jffs2"));
	assert_true(has(n.modules, n.nmodules, "block2mtd"));
	assert_true(has(n.modules, n.nmodules, "mtdblock"));
	assert_true(has(n.tools, n.ntools, "flash_erase"));
	assert_int_equal(fsb_guest_needs_for(3, ubifs, &n), 0);
	assert_true(has(n.modules, n.nmodules, "ubifs"));
	assert_true(has(n.modules, n.nmodules, "zstd"));
	assert_true(has(n.tools, n.ntools, "ubiformat"));
	assert_int_equal(fsb_guest_needs_for(5, ext3, &n), 0);
	assert_true(has(n.modules, n.nmodules, "ext4"));
	assert_true(has(n.modules, n.nmodules, "crc32c_generic"));
	assert_true(has(n.tools, n.ntools, "mkfs.ext3"));
	assert_false(has(n.modules, n.nmodules, "block2mtd"));
	assert_string_equal(fsb_guest_tool_package("/usr/sbin/flash_erase"), "mtd-utils");
	assert_string_equal(fsb_guest_tool_package("mkreiserfs"), "reiserfsprogs");
}

static void test_cmd_script(void **state)
{
	char *argv[] = { "lifecycle", "--label", "it's a \"test\" $HOME", "" };
	char *s;

	(void)state;
	s = fsb_guest_cmd_script(4, argv);
	assert_non_null(s);
	assert_string_equal(s, "set -- 'lifecycle' '--label' 'it'\\''s a \"test\" $HOME' ''\n");
	free(s);
}

static void test_ldd_parse(void **state)
{
	const char *text = "\tlinux-vdso.so.1 (0x00007ffd)\n"
			   "\tlibmount.so.1 => /lib/x86_64-linux-gnu/libmount.so.1 (0x00007f)\n"
			   "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)\n"
			   "\t/lib64/ld-linux-x86-64.so.2 (0x00007f)\n";
	char **v = NULL;

	(void)state;
	assert_int_equal(fsb_irfs_ldd_parse(text, &v), 3);
	assert_string_equal(v[0], "/lib/x86_64-linux-gnu/libmount.so.1");
	assert_string_equal(v[2], "/lib64/ld-linux-x86-64.so.2");
	for (int i = 0; v[i]; i++)
		free(v[i]);
	free(v);
	assert_int_equal(fsb_irfs_ldd_parse("\tnot a dynamic executable\n", &v), 0);
	free(v);
}

static const struct fsb_irfs_entry *entry(const struct fsb_irfs *fs, const char *path)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->e[i].path, path))
			return &fs->e[i];
	return NULL;
}

/* The initramfs of a jffs2 setup: every file at its place, parents first. */
static void test_irfs_list(void **state)
{
	char *mods[] = { "kernel/drivers/mtd/mtd.ko", "kernel/fs/jffs2/jffs2.ko", NULL };
	const char *tools[] = { "/usr/sbin/flash_erase" };
	struct fsb_guest_inputs in = {
		.busybox = "/bin/busybox",
		.fsbench = "/usr/local/bin/fsbench",
		.tools = tools,
		.ntools = 1,
		.moddir = "/k/lib/modules/6.1",
		.modules = mods,
		.nmodules = 2,
		.with_libs = false,
	};
	const struct fsb_irfs_entry *e;
	struct fsb_irfs fs;
	uint64_t h1, h2;

	(void)state;
	fsb_irfs_init(&fs);
	assert_int_equal(fsb_guest_irfs_fill(&fs, &in), 0);
	assert_non_null(e = entry(&fs, "/init"));
	assert_true(S_ISREG(e->mode) && (e->mode & 0111));
	assert_non_null(strstr(e->data, "fsbench-guest: exit"));
	assert_non_null(e = entry(&fs, "/bin/fsbench"));
	assert_string_equal(e->src, "/usr/local/bin/fsbench");
	assert_non_null(entry(&fs, "/usr/sbin/flash_erase"));
	assert_non_null(e = entry(&fs, "/lib/modules/kernel/fs/jffs2/jffs2.ko"));
	assert_string_equal(e->src, "/k/lib/modules/6.1/kernel/fs/jffs2/jffs2.ko");
	assert_non_null(e = entry(&fs, "/guest/modules"));
	assert_memory_equal(e->data, "kernel/drivers/mtd/mtd.ko\nkernel/fs/jffs2/jffs2.ko\n",
			    e->len);
	assert_non_null(e = entry(&fs, "/dev/console"));
	assert_true(S_ISCHR(e->mode));
	assert_non_null(e = entry(&fs, "/lib/modules/kernel/fs"));
	assert_true(S_ISDIR(e->mode));
	for (size_t i = 1; i < fs.n; i++)
		assert_true(strcmp(fs.e[i - 1].path, fs.e[i].path) < 0);
	h1 = fsb_irfs_hash(&fs);
	fsb_irfs_release(&fs);
	/* Another module set is another archive. */
	in.nmodules = 1;
	mods[1] = NULL;
	fsb_irfs_init(&fs);
	assert_int_equal(fsb_guest_irfs_fill(&fs, &in), 0);
	h2 = fsb_irfs_hash(&fs);
	assert_true(h1 != h2);
	fsb_irfs_release(&fs);
}

static void test_irfs_cpio(void **state)
{
	char path[] = "/tmp/fsbench-test-cpio.XXXXXX", buf[1024];
	struct fsb_irfs fs;
	ssize_t n;
	int fd;

	(void)state;
	fsb_irfs_init(&fs);
	assert_int_equal(fsb_irfs_add_data(&fs, "/guest/cmd.sh", "set --\n", 7, 0644), 0);
	assert_int_equal(fsb_irfs_add_data(&fs, "/guest/cmd.sh", "x", 1, 0644), 0);
	assert_int_equal(fsb_irfs_add_dir(&fs, "relative"), -EINVAL);
	assert_int_equal(fsb_irfs_finish(&fs), 0);
	assert_int_equal(fs.n, 2);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(fsb_irfs_write(&fs, fd), 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	unlink(path);
	assert_true(n > 0);
	buf[n] = '\0';
	/* newc: "070701", then the dir "guest", then the file, then the trailer;
	 * every header starts on a 4-byte boundary. */
	assert_memory_equal(buf, "070701", 6);
	assert_string_equal(buf + 110, "guest");
	assert_memory_equal(buf + 116, "070701", 6);
	assert_string_equal(buf + 116 + 110, "guest/cmd.sh");
	assert_memory_equal(buf + 116 + 124, "set --\n", 7);
	assert_memory_equal(buf + 116 + 124 + 8, "070701", 6);
	assert_int_equal(n % 4, 0);
	assert_non_null(memmem(buf, (size_t)n, "TRAILER!!!", 10));
	fsb_irfs_release(&fs);
}

static void test_disk_parse(void **state)
{
	enum fsb_fill fill;
	uint64_t size;

	(void)state;
	assert_int_equal(fsb_guest_disk_parse("64m", &size, &fill), 0);
	assert_int_equal(size, 64u << 20);
	assert_int_equal(fill, FSB_FILL_FF);
	assert_int_equal(fsb_guest_disk_parse("512m,fill=zero", &size, &fill), 0);
	assert_int_equal(fill, FSB_FILL_ZERO);
	assert_int_equal(fsb_guest_disk_parse("1g,fill=none", &size, &fill), 0);
	assert_int_equal(fill, FSB_FILL_NONE);
	assert_int_equal(fsb_guest_disk_parse("64m,fill=random", &size, &fill), -EINVAL);
	assert_int_equal(fsb_guest_disk_parse("64m,zero", &size, &fill), -EINVAL);
	assert_int_equal(fsb_guest_disk_parse("100k", &size, &fill), -EINVAL);
	assert_int_equal(fsb_guest_disk_parse("lots", &size, &fill), -EINVAL);
}

static void test_mtd_parse(void **state)
{
	const char *proc = "dev:    size   erasesize  name\n"
			   "mtd0: 04000000 00020000 \"block2mtd: /dev/vdb\"\n"
			   "mtd1: 04000000 00020000 \"block2mtd: /dev/vda\"\n";
	char dev[64];
	uint64_t erase;

	(void)state;
	assert_int_equal(fsb_mtd_parse("/dev/vda,128k", dev, sizeof(dev), &erase), 0);
	assert_string_equal(dev, "/dev/vda");
	assert_int_equal(erase, 128u << 10);
	assert_int_equal(fsb_mtd_parse("/dev/vda,100k", dev, sizeof(dev), &erase), -EINVAL);
	assert_int_equal(fsb_mtd_parse("/dev/vda", dev, sizeof(dev), &erase), -EINVAL);
	assert_int_equal(fsb_mtd_parse("vda,128k", dev, sizeof(dev), &erase), -EINVAL);
	assert_int_equal(fsb_mtd_find(proc, "/dev/vda"), 1);
	assert_int_equal(fsb_mtd_find(proc, "/dev/vdb"), 0);
	assert_int_equal(fsb_mtd_find(proc, "/dev/vd"), -ENOENT);
}

static void test_qemu_argv(void **state)
{
	struct fsb_qemu_cfg c = {
		.qemu = "/usr/bin/qemu-system-x86_64",
		.accel = "tcg",
		.kernel = "/k/vmlinuz",
		.initrd = "/t/initrd.cpio",
		.append = "console=ttyS0",
		.memory_mb = 1024,
		.cpus = 1,
		.result_path = "/t/result.json",
		.disks = { "/t/disk0.img" },
		.snapshot = { true },
		.ndisks = 1,
	};
	char **v = NULL;
	int n, i;
	bool saw_result = false, saw_disk = false, saw_cpu = false;

	(void)state;
	n = fsb_qemu_argv(&c, &v);
	assert_true(n > 10);
	for (i = 0; v[i]; i++) {
		saw_result |= !strcmp(v[i], "file:/t/result.json");
		saw_disk |= !strcmp(v[i], "file=/t/disk0.img,format=raw,if=virtio,snapshot=on");
		saw_cpu |= !strcmp(v[i], "-cpu");
	}
	assert_int_equal(i, n);
	assert_true(saw_result && saw_disk && !saw_cpu);
	fsb_qemu_argv_free(v);
	c.disks[0] = "/t/a,b.img";
	assert_int_equal(fsb_qemu_argv(&c, &v), -EINVAL);
}

static void test_qemu_scan(void **state)
{
	struct fsb_qemu_scan s;
	const char *con = "[    0.1] booting\r\nfsbench-guest: ready\r\nwrite run 1/1\r"
			  "\nfsbench-guest: exit 3\r\n[    2.1] reboot: Power down\r\n";

	(void)state;
	fsb_qemu_scan_init(&s);
	/* Fed in pieces: markers split across reads still count. */
	for (size_t i = 0; i < strlen(con); i += 7)
		fsb_qemu_scan_feed(&s, con + i, strlen(con) - i < 7 ? strlen(con) - i : 7);
	assert_true(s.ready);
	assert_false(s.panic);
	assert_int_equal(s.exit_status, 3);
	assert_int_equal(s.ntail, 5);
	fsb_qemu_scan_feed(&s, "Kernel panic - not syncing: x\n", 30);
	assert_true(s.panic);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kmod_name),    cmocka_unit_test(test_kmod_order),
		cmocka_unit_test(test_kmod_missing), cmocka_unit_test(test_needs),
		cmocka_unit_test(test_cmd_script),   cmocka_unit_test(test_ldd_parse),
		cmocka_unit_test(test_irfs_list),    cmocka_unit_test(test_irfs_cpio),
		cmocka_unit_test(test_disk_parse),   cmocka_unit_test(test_mtd_parse),
		cmocka_unit_test(test_qemu_argv),    cmocka_unit_test(test_qemu_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
