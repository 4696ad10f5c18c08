/*
 * Environment probes: facts about the machine and the storage that change
 * how a figure must be read (a virtual machine, a balloon that takes freed
 * memory back, storage that is memory). Recorded in the result; the
 * caveats are derived from them in report/caveats.h. Every probe reads
 * under a root directory ("/" normally) so tests can give it fake /sys and
 * /proc trees.
 */
#ifndef FSB_DEVICE_ENV_H
#define FSB_DEVICE_ENV_H
#include <stdbool.h>
#include <stddef.h>

/*
 * The hypervisor, as systemd-detect-virt's VM checks find it (by hand):
 * the CPUID hypervisor leaf's vendor when the CPU has the hypervisor bit
 * ("KVMKVMKVM" kvm, "TCGTCGTCGTCG" qemu: emulation, "VMwareVMware"
 * vmware, "Microsoft Hv" microsoft, "XenVMMXenVMM" xen, ...), else the
 * DMI vendor and product (/sys/class/dmi/id/sys_vendor, product_name,
 * board_vendor, bios_vendor), else /sys/hypervisor/type, else the
 * "hypervisor" flag of /proc/cpuinfo alone ("vm"), else "none".
 * cpuid_vendor: the CPUID vendor, or NULL to skip it (tests, other
 * architectures). Writes the name into out. Never fails.
 */
void fsb_env_virt(const char *root, const char *cpuid_vendor, char *out, size_t len);

/* The CPUID hypervisor vendor of this CPU into out (12 characters); false
 * when the CPU has no hypervisor bit or is not x86. */
bool fsb_env_cpuid_vendor(char *out, size_t len);

/*
 * Whether memory is balloon-managed: *has when a virtio_balloon device is
 * bound (root/sys/bus/virtio/drivers/virtio_balloon/virtioN), *reporting
 * when it negotiated free page reporting (feature bit 5 in its features
 * file, a string of '0'/'1' by bit).
 */
void fsb_env_balloon(const char *root, bool *has, bool *reporting);

/*
 * Whether the storage behind a filesystem is memory: fs_type tmpfs or
 * ramfs; or its device (a name in /sys/block, e.g. "loop3", "zram0",
 * "ram0": may be NULL) is zram, brd ("ram"N) or a loop device whose
 * backing file lives on tmpfs or ramfs. Writes why into out ("tmpfs",
 * "zram0", "loop3 over a file on tmpfs") and returns true, else false.
 */
bool fsb_env_ram_backed(const char *root, const char *fs_type, const char *devname, char *out,
			size_t len);

/*
 * Whether devname (a name in /sys/block, "loop3", or a partition of one,
 * "loop3p1"; may be NULL) is a bound loop device: true with the whole
 * device's name in name ("loop3"), its backing file's name in backing
 * when it is proven the device's (fsb_loopdev_backing_file), else "", and in *dio
 * whether it does direct I/O (loop/dio is "1"; kernels without that file
 * have none). A buffered loop device (dio 0) reads and writes its backing
 * file through the page cache: O_DIRECT on it stops at it.
 */
bool fsb_env_loop(const char *root, const char *devname, char *name, size_t name_len, char *backing,
		  size_t len, bool *dio);

#endif
