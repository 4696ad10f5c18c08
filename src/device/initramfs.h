/*
 * An initramfs for a guest: a list of entries (host files, generated
 * files, directories, device nodes) written as a "newc" cpio archive,
 * the format the kernel unpacks into its rootfs. Uncompressed on purpose:
 * the kernel unpacks it faster than it would decompress it, and the cache
 * keeps it on the host's disk only once.
 */
#ifndef FSB_DEVICE_INITRAMFS_H
#define FSB_DEVICE_INITRAMFS_H
#include <stddef.h>
#include <stdint.h>

struct fsb_irfs_entry {
	char *path;    /* in the archive, absolute ("/bin/fsbench") */
	unsigned mode; /* S_IF* | permissions */
	char *src;     /* host file whose content it gets, or NULL */
	char *data;    /* generated content (src == NULL) */
	size_t len;
	unsigned rdev_major, rdev_minor; /* device nodes */
};

struct fsb_irfs {
	struct fsb_irfs_entry *e;
	size_t n, cap;
};

void fsb_irfs_init(struct fsb_irfs *fs);
void fsb_irfs_release(struct fsb_irfs *fs);

/*
 * Add entries; the strings are copied. A path already in the list keeps
 * its first entry (so a library two tools need is stored once). Parents
 * need not be added: fsb_irfs_finish adds them. Each returns 0, -EINVAL
 * for a path that is not absolute or contains "..", or -ENOMEM.
 */
int fsb_irfs_add_file(struct fsb_irfs *fs, const char *path, const char *src, unsigned perm);
int fsb_irfs_add_data(struct fsb_irfs *fs, const char *path, const void *data, size_t len,
		      unsigned perm);
int fsb_irfs_add_dir(struct fsb_irfs *fs, const char *path);
int fsb_irfs_add_chardev(struct fsb_irfs *fs, const char *path, unsigned major, unsigned minor);

/*
 * The absolute paths `ldd` printed for an executable (its libraries and its
 * program interpreter, in the order printed), from ldd's output text;
 * "not a dynamic executable" gives none. Pure. Returns the count and a
 * NULL-terminated vector in *out (free each and the vector), or -ENOMEM.
 */
int fsb_irfs_ldd_parse(const char *ldd_text, char ***out);

/*
 * Add the executable host_path at path, and every library ldd names for it
 * at the library's own path. Returns 0, -ENOENT (host_path missing,
 * described), or -errno.
 */
int fsb_irfs_add_program(struct fsb_irfs *fs, const char *path, const char *host_path);

/*
 * Add every missing parent directory and sort the entries so that each
 * directory comes before what it holds. Returns 0 or -ENOMEM.
 */
int fsb_irfs_finish(struct fsb_irfs *fs);

/*
 * A 64-bit FNV-1a hash of everything that decides the archive's bytes:
 * paths, modes, generated content, and for host files their path, size,
 * mtime and inode (so a rebuilt fsbench or an upgraded tool changes it
 * without reading every file). A host file that cannot be stat'ed hashes
 * as such (fsb_irfs_write will then fail). Call after fsb_irfs_finish.
 */
uint64_t fsb_irfs_hash(const struct fsb_irfs *fs);

/*
 * Write the archive to fd, from its current offset (an archive appended to
 * another is unpacked after it by the kernel, overriding same-named files).
 * Returns 0 or -errno (described, naming the host file that failed).
 */
int fsb_irfs_write(const struct fsb_irfs *fs, int fd);

#endif
