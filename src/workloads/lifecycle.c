/*
 * Lifecycle phases. Measurement policy:
 *   - Only the phase's own steps are inside the clock (see the table in
 *     lifecycle.h); refills, the mkfs a mount needs, deleting the previous
 *     copy and writing the file a read needs all happen in setup.
 *   - Every timed region starts cold: setup ends with BLKFLSBUF on the
 *     device (fsbench keeps the device open, so the kernel would otherwise
 *     keep its buffer cache across umount), and with the image's host
 *     pages dropped when the loop device runs without direct I/O.
 *   - The copy's data is the --data pattern (random by default, so no
 *     compression or dedup can shorten it; workloads/pattern.h), generated
 *     before any clock starts; writes are io_bytes calls,
 *     then fsync, close and umount inside the clock, as `cp; umount` would.
 *   - The read verifies every byte against the data written; the memcmp
 *     (about 0.1 ms per MiB) is inside the clock, like the read it checks.
 */
#include "workloads/lifecycle.h"
#include "device/cache.h"
#include "device/mkfs.h"
#include "device/mount.h"
#include "device/mtd.h"
#include "util/error.h"
#include "util/io.h"
#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct lc_priv {
	int fd; /* the copy, while open in run */
	bool fd_open;
	unsigned char *buf; /* read buffer (io_bytes), allocated by setup */
};

static const struct fsb_lifecycle *lc_of(const struct fsb_ctx *ctx)
{
	return ctx->ext;
}

static uint64_t copy_work(const struct fsb_ctx *ctx)
{
	return lc_of(ctx)->copy_bytes;
}

static void file_path(const struct fsb_lifecycle *lc, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", lc->mnt, FSB_LC_FILE);
}

int fsb_lc_ubi_detach(const struct fsb_lifecycle *lc)
{
	int err;

	if (!lc->state->ubi_attached)
		return 0;
	if ((err = fsb_ubi_detach(lc->ubi_num))) {
		fsb_err_errno(err, "cannot detach UBI device %d from '%s'", lc->ubi_num,
			      lc->mtd_chr);
		return err;
	}
	lc->state->ubi_attached = false;
	return 0;
}

int fsb_lc_fill(const struct fsb_lifecycle *lc)
{
	int err;

	/* Erasing under an attached UBI would pull the flash from under it. */
	if ((err = fsb_lc_ubi_detach(lc)))
		return err;

	/* With --fill none the device holds whatever it held: unknown. */
	lc->state->has_file = false;
	lc->state->dev = FSB_LC_UNKNOWN;
	/* Flash is blanked by erasing it: the tool leaves every block 0xff
	 * (or 0xff with JFFS2 cleanmarkers, -j). */
	if (lc->erase_argv) {
		err = fsb_tool_run("erase", lc->erase_path, lc->erase_argv);
		if (!err)
			lc->state->dev = FSB_LC_BLANK;
		return err;
	}
	if (lc->fill == FSB_FILL_NONE)
		return 0;
	err = fsb_fill_fd(lc->dev_fd, lc->dev, lc->dev_bytes, lc->fill, lc->fill_seed);
	if (!err)
		lc->state->dev = FSB_LC_BLANK;
	return err;
}

/* Refill unless the device is still as the last fill left it. */
static int refill(const struct fsb_lifecycle *lc, enum fsb_lc_refill policy)
{
	if (policy == FSB_LC_REFILL_EACH && lc->state->dev != FSB_LC_BLANK)
		return fsb_lc_fill(lc);
	return 0;
}

/*
 * Untimed, right before each mkfs: its words may still name no block
 * device but lc->dev (a path in them may lead somewhere else by now).
 */
static int check_mkfs(const struct fsb_lifecycle *lc)
{
	const char *devs[1] = { lc->dev };
	char why[PATH_MAX + 256];

	if (!lc->mkfs_path || !lc->mkfs_argv)
		return 0;
	if (fsb_mkfs_check_devices(lc->mkfs_argv, devs, 1, why, sizeof(why))) {
		fsb_err("refusing to run mkfs: %s", why);
		return -EPERM;
	}
	return 0;
}

static int do_mkfs(const struct fsb_lifecycle *lc)
{
	int err = 0;

	lc->state->dev = FSB_LC_UNKNOWN;
	lc->state->has_file = false;
	/* --mkfs none: the first mount formats the device. */
	if (lc->mkfs_path)
		err = fsb_mkfs_run(lc->mkfs_path, lc->mkfs_argv);
	/* UBIFS: format the flash for UBI (keeping erase counters), attach
	 * it, make one volume of all the space; the mount then formats it. */
	if (lc->ubi_paths[0] && !(err = fsb_lc_ubi_detach(lc))) {
		for (size_t i = 0; i < 3 && !err; i++) {
			err = fsb_mkfs_run(lc->ubi_paths[i], lc->ubi_argv[i]);
			if (!err && i == 1)
				lc->state->ubi_attached = true;
		}
	}
	if (!err)
		lc->state->dev = FSB_LC_FRESH;
	return err;
}

static int do_mount(const struct fsb_lifecycle *lc)
{
	int err = fsb_mount(lc->mount_src ? lc->mount_src : lc->dev, lc->mnt, lc->mount_type,
			    lc->options);

	if (!err) {
		lc->state->mounted = true;
		lc->state->dev = FSB_LC_USED;
	}
	return err;
}

static int do_umount(const struct fsb_lifecycle *lc)
{
	int err = fsb_umount(lc->mnt);

	if (!err)
		lc->state->mounted = false;
	return err;
}

int fsb_lc_unmount(const struct fsb_lifecycle *lc)
{
	if (!lc->state->mounted)
		return 0;
	return do_umount(lc);
}

/* Empty the device's caches so the timed region starts cold. */
static int make_cold(const struct fsb_lifecycle *lc)
{
	int err = 0;

	if ((err = fsb_cache_drop_blockdev(lc->dev_fd))) {
		fsb_err_errno(err, "cannot flush the cache of '%s'", lc->dev);
		return err;
	}
	if (lc->lower_fd >= 0 && (err = fsb_cache_drop_blockdev(lc->lower_fd))) {
		fsb_err_errno(err, "cannot flush the cache of the disk under '%s'", lc->dev);
		return err;
	}
	if (lc->image_fd >= 0) {
		if ((err = fsb_cache_drop_fd(lc->image_fd)))
			fsb_err_errno(err, "cannot drop the host cache of the image of '%s'",
				      lc->dev);
	}
	return err;
}

/* A filesystem is on the device (made here, mounted or not). */
static bool formatted(const struct fsb_lifecycle *lc)
{
	return lc->state->dev == FSB_LC_FRESH || lc->state->dev == FSB_LC_USED;
}

/* A fresh filesystem on a (re)filled device: what mkfs-* phases time. */
static int ensure_fresh(const struct fsb_lifecycle *lc)
{
	int err;

	if (lc->state->dev == FSB_LC_FRESH)
		return 0;
	if ((err = refill(lc, lc->refill_mkfs)) || (err = check_mkfs(lc)))
		return err;
	return do_mkfs(lc);
}

/* Some filesystem made by this run; with --refill=each a new one. */
static int ensure_fs(const struct fsb_lifecycle *lc)
{
	int err;

	if (formatted(lc) && lc->refill_other == FSB_LC_REFILL_ONCE)
		return 0;
	if ((err = refill(lc, lc->refill_other)) || (err = check_mkfs(lc)))
		return err;
	return do_mkfs(lc);
}

static void close_copy(struct lc_priv *p)
{
	if (p->fd_open) {
		close(p->fd);
		p->fd_open = false;
	}
}

/* Common teardown: close the copy, unmount what the run left mounted. */
static void lc_teardown(struct fsb_ctx *ctx, void *priv)
{
	struct lc_priv *p = priv;

	if (p) {
		close_copy(p);
		free(p->buf);
		p->buf = NULL;
	}
	(void)fsb_lc_unmount(lc_of(ctx));
}

static int stopped(void)
{
	return fsb_stop_requested() ? -EINTR : 0;
}

/* Write the copy: create, io_bytes writes, fsync, close. The caller has
 * the filesystem mounted; `out` (may be NULL) gets one op per write. */
static int write_copy(const struct fsb_lifecycle *lc, struct lc_priv *p, struct fsb_sink *out)
{
	char path[PATH_MAX];
	uint64_t off = 0;
	int err = 0;

	file_path(lc, path, sizeof(path));
	p->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (p->fd < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot create '%s'", path);
		return err;
	}
	p->fd_open = true;
	lc->state->has_file = false;
	while (off < lc->copy_bytes) {
		size_t n = lc->copy_bytes - off < lc->io_bytes ? (size_t)(lc->copy_bytes - off)
							       : lc->io_bytes;
		uint64_t t0 = fsb_clock_ns();

		err = fsb_write_full(p->fd, lc->data + off, n);
		if (err) {
			if (err != -EINTR)
				fsb_err_errno(err, "cannot write '%s'", path);
			return err;
		}
		off += n;
		if (out && fsb_sink_op(out, n, fsb_clock_ns() - t0))
			return -EINTR;
		if (!out && (err = stopped()))
			return err;
	}
	if (fsync(p->fd) < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot fsync '%s'", path);
		return err;
	}
	close_copy(p);
	lc->state->has_file = true;
	return 0;
}

/* Remove the previous copy (untimed) so every write starts alike. */
static int remove_copy(const struct fsb_lifecycle *lc)
{
	char path[PATH_MAX];
	int err, umount_err;

	if ((err = do_mount(lc)))
		return err;
	file_path(lc, path, sizeof(path));
	if (unlink(path) < 0 && errno != ENOENT) {
		err = -errno;
		fsb_err_errno(err, "cannot remove '%s'", path);
	}
	lc->state->has_file = false;
	umount_err = do_umount(lc);
	return err ? err : umount_err;
}

/* ---- mkfs ---- */

static int mkfs_setup(struct fsb_ctx *ctx, void *priv)
{
	const struct fsb_lifecycle *lc = lc_of(ctx);
	int err;

	(void)priv;
	if ((err = refill(lc, lc->refill_mkfs)) || (err = check_mkfs(lc)))
		return err;
	return make_cold(lc);
}

static int mkfs_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	uint64_t t0 = fsb_clock_ns();
	int err;

	(void)priv;
	/* ---- timed: fork/exec of mkfs.TYPE until it has exited ---- */
	err = do_mkfs(lc_of(ctx));
	if (!err && fsb_sink_op(out, 0, fsb_clock_ns() - t0))
		err = -EINTR;
	return err;
}

/* ---- mkfs-mount: the first mount of a new filesystem ---- */

static int mkfs_mount_setup(struct fsb_ctx *ctx, void *priv)
{
	const struct fsb_lifecycle *lc = lc_of(ctx);
	int err;

	(void)priv;
	if ((err = ensure_fresh(lc)))
		return err;
	return make_cold(lc);
}

static int mkfs_mount_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	uint64_t t0 = fsb_clock_ns();
	int err;

	(void)priv;
	/* ---- timed: mount(2) via libmount; the umount is in teardown ---- */
	err = do_mount(lc_of(ctx));
	if (!err && fsb_sink_op(out, 0, fsb_clock_ns() - t0))
		err = -EINTR;
	return err;
}

/* ---- mkfs-umount: the umount after that first mount ---- */

static int mkfs_umount_setup(struct fsb_ctx *ctx, void *priv)
{
	const struct fsb_lifecycle *lc = lc_of(ctx);
	int err;

	(void)priv;
	if ((err = ensure_fresh(lc)) || (err = make_cold(lc)))
		return err;
	return do_mount(lc);
}

/*
 * Wait until JFFS2 has erased every block of the flash. Its garbage
 * collector thread erases one block per pass and sleeps 50 ms between
 * passes, so on blank flash this runs for tens of seconds (the reference's
 * 2.5-minute umount); an umount before the end kills the thread and leaves
 * blocks unerased. A block is done when it starts with a JFFS2 node (the
 * cleanmarker written after its erase): the flash is read through its MTD
 * character device, only the blocks not yet seen done, every poll. Free
 * space (statvfs) is no proof: it stalled for seconds mid-erase under TCG.
 * *done_ns is when the last block was seen done. 0, -EINTR or -errno.
 */
#define ERASE_POLL_US 50000
/* No block finished for this long: the erase is stuck, not slow. */
#define ERASE_STALL_NS (120ull * 1000 * 1000 * 1000)
#define JFFS2_MAGIC_BITMASK 0x1985

static int block_erased(int fd, const struct fsb_lifecycle *lc, uint64_t b, bool *done)
{
	unsigned char hdr[4];
	ssize_t n = pread(fd, hdr, sizeof(hdr), (off_t)(b * lc->erase_bytes));
	int err;

	if (n != (ssize_t)sizeof(hdr)) {
		err = n < 0 ? -errno : -EIO;
		fsb_err_errno(err, "cannot read erase block %llu of '%s'", (unsigned long long)b,
			      lc->mtd_chr);
		return err;
	}
	/* JFFS2 writes nodes in the CPU's byte order. */
	*done = (uint16_t)(hdr[0] | hdr[1] << 8) == JFFS2_MAGIC_BITMASK ||
		(uint16_t)(hdr[1] | hdr[0] << 8) == JFFS2_MAGIC_BITMASK;
	return 0;
}

static int open_mtd(const struct fsb_lifecycle *lc)
{
	int fd = open(lc->mtd_chr, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fd = -errno;
		fsb_err_errno(fd, "cannot open '%s' to follow its erase", lc->mtd_chr);
	}
	return fd;
}

static int wait_erase(const struct fsb_lifecycle *lc, uint64_t t0, uint64_t *done_ns)
{
	uint64_t blocks = lc->dev_bytes / lc->erase_bytes, left = blocks, last = t0;
	bool *seen = calloc(blocks ? blocks : 1, sizeof(*seen));
	int fd, err = 0;

	*done_ns = t0;
	if (!seen)
		return -ENOMEM;
	fd = open_mtd(lc);
	if (fd < 0) {
		free(seen);
		return fd;
	}
	for (;;) {
		for (uint64_t b = 0; b < blocks && !err; b++) {
			if (seen[b])
				continue;
			if (!(err = block_erased(fd, lc, b, &seen[b])) && seen[b]) {
				left--;
				last = fsb_clock_ns();
			}
		}
		if (err || !left)
			break;
		if ((err = stopped()))
			break;
		if (fsb_clock_ns() - last > ERASE_STALL_NS) {
			err = -ETIMEDOUT;
			fsb_err("JFFS2's erase of '%s' stalled: %llu of %llu erase blocks left",
				lc->mtd_chr, (unsigned long long)left, (unsigned long long)blocks);
			break;
		}
		usleep(ERASE_POLL_US);
	}
	*done_ns = last;
	close(fd);
	free(seen);
	return err;
}

/*
 * After the umount (untimed): every erase block must still start with a
 * JFFS2 node, i.e. no erase was left for the umount to cut short.
 * Records the count of blocks left (worst over repetitions); fails when
 * there is any. 0 or -errno.
 */
static int check_erased(const struct fsb_lifecycle *lc)
{
	uint64_t blocks = lc->dev_bytes / lc->erase_bytes, left = 0;
	bool done;
	int fd, err = 0;

	if ((fd = open_mtd(lc)) < 0)
		return fd;
	for (uint64_t b = 0; b < blocks && !err; b++)
		if (!(err = block_erased(fd, lc, b, &done)) && !done)
			left++;
	close(fd);
	if (err)
		return err;
	lc->state->erase_checked = true;
	lc->state->erase_blocks = blocks;
	if (left > lc->state->erase_unfinished)
		lc->state->erase_unfinished = left;
	if (left) {
		fsb_err("mkfs-umount is not the whole erase: %llu of %llu erase blocks of '%s' "
			"were not erased when the umount returned",
			(unsigned long long)left, (unsigned long long)blocks, lc->mtd_chr);
		return -EIO;
	}
	return 0;
}

static int mkfs_umount_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	const struct fsb_lifecycle *lc = lc_of(ctx);
	uint64_t t0 = fsb_clock_ns(), t_erased = t0, t1;
	int err;

	(void)priv;
	/* ---- timed: [the background erase, until its last block is seen
	 * done] + umount(2), which writes back what the mount dirtied. The
	 * reads that follow the erase are the clock's resolution (50 ms). ---- */
	if (lc->wait_erase && (err = wait_erase(lc, t0, &t_erased)))
		return err;
	t1 = fsb_clock_ns();
	err = do_umount(lc);
	if (!err && fsb_sink_op(out, 0, (t_erased - t0) + (fsb_clock_ns() - t1)))
		err = -EINTR;
	/* Untimed: the figure is only the reference's if no erase was left. */
	if (!err && lc->wait_erase && lc->mtd_chr)
		err = check_erased(lc);
	return err;
}

/* ---- mount-umount ---- */

static int mount_umount_setup(struct fsb_ctx *ctx, void *priv)
{
	const struct fsb_lifecycle *lc = lc_of(ctx);
	int err;

	(void)priv;
	if ((err = ensure_fs(lc)))
		return err;
	return make_cold(lc);
}

static int mount_umount_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	const struct fsb_lifecycle *lc = lc_of(ctx);
	uint64_t t0 = fsb_clock_ns(), t1;
	int err;

	(void)priv;
	/* ---- timed: mount + umount ---- */
	if ((err = do_mount(lc)))
		return err;
	t1 = fsb_clock_ns();
	if (fsb_sink_op(out, 0, t1 - t0))
		return -EINTR;
	if ((err = do_umount(lc)))
		return err;
	return fsb_sink_op(out, 0, fsb_clock_ns() - t1) ? -EINTR : 0;
}

/* ---- write: mount, copy, fsync, umount ---- */

static int write_setup(struct fsb_ctx *ctx, void *priv)
{
	const struct fsb_lifecycle *lc = lc_of(ctx);
	int err;

	(void)priv;
	if (!formatted(lc) || lc->refill_other == FSB_LC_REFILL_EACH) {
		if ((err = ensure_fs(lc)))
			return err;
	} else if (lc->state->has_file) {
		/* Every write starts without the previous copy (anything else
		 * under that name is truncated by the timed open). */
		if ((err = remove_copy(lc)))
			return err;
	}
	return make_cold(lc);
}

static int write_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	const struct fsb_lifecycle *lc = lc_of(ctx);
	int err;

	/* ---- timed: mount + create + writes + fsync + close + umount ---- */
	if ((err = do_mount(lc)) || (err = stopped()))
		return err;
	if ((err = write_copy(lc, priv, out)))
		return err;
	return do_umount(lc);
}

/* ---- read: mount, read back and verify, umount ---- */

static int read_setup(struct fsb_ctx *ctx, void *priv)
{
	const struct fsb_lifecycle *lc = lc_of(ctx);
	struct lc_priv *p = priv;
	int err;

	p->buf = malloc(lc->io_bytes);
	if (!p->buf)
		return -ENOMEM;
	if (!lc->state->has_file || lc->refill_other == FSB_LC_REFILL_EACH) {
		/* The file a read needs, written untimed. */
		if ((err = ensure_fs(lc)) || (err = do_mount(lc)))
			return err;
		if ((err = write_copy(lc, priv, NULL)))
			return err;
		if ((err = do_umount(lc)))
			return err;
	}
	return make_cold(lc);
}

static int read_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	const struct fsb_lifecycle *lc = lc_of(ctx);
	struct lc_priv *p = priv;
	unsigned char *buf = p->buf;
	char path[PATH_MAX];
	uint64_t off = 0;
	int err;

	/* ---- timed: mount + open + reads + verify + close + umount ---- */
	if ((err = do_mount(lc)) || (err = stopped()))
		return err;
	file_path(lc, path, sizeof(path));
	p->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot open '%s'", path);
		return err;
	}
	p->fd_open = true;
	while (off < lc->copy_bytes) {
		size_t want = lc->copy_bytes - off < lc->io_bytes ? (size_t)(lc->copy_bytes - off)
								  : lc->io_bytes;
		uint64_t t0 = fsb_clock_ns();
		ssize_t n = fsb_read_full(p->fd, buf, want);

		if (n < 0) {
			err = (int)n;
			if (err != -EINTR)
				fsb_err_errno(err, "cannot read '%s'", path);
			return err;
		}
		if ((size_t)n < want) {
			err = -EIO;
			fsb_err("cannot verify '%s': it holds %llu bytes, %llu were written", path,
				(unsigned long long)(off + (uint64_t)n),
				(unsigned long long)lc->copy_bytes);
			return err;
		}
		if (memcmp(buf, lc->data + off, want)) {
			err = -EIO;
			fsb_err("cannot verify '%s': data read back differs from data written "
				"in the %llu bytes at offset %llu",
				path, (unsigned long long)want, (unsigned long long)off);
			return err;
		}
		off += want;
		if (fsb_sink_op(out, want, fsb_clock_ns() - t0))
			return -EINTR;
	}
	close_copy(p);
	return do_umount(lc);
}

#define LC_PHASE(id, title_, set, fn, ...)                                                \
	{                                                                                 \
		.name = id, .family = "lifecycle", .title = title_,                       \
		.needs = FSB_NEEDS_ROOT | FSB_NEEDS_BLOCKDEV, .work_unit = FSB_WORK_TIME, \
		.priv_size = sizeof(struct lc_priv), .setup = set, .run = fn,             \
		.teardown = lc_teardown, __VA_ARGS__                                      \
	}

const struct fsb_workload_ops fsb_wl_lc_mkfs = LC_PHASE(
	"mkfs", "make the filesystem (mkfs.TYPE, fork/exec)", mkfs_setup, mkfs_run);
const struct fsb_workload_ops fsb_wl_lc_mkfs_mount = LC_PHASE(
	"mkfs-mount", "first mount of a new filesystem", mkfs_mount_setup, mkfs_mount_run);
const struct fsb_workload_ops fsb_wl_lc_mkfs_umount = LC_PHASE(
	"mkfs-umount", "umount after that first mount", mkfs_umount_setup, mkfs_umount_run);
const struct fsb_workload_ops fsb_wl_lc_mount_umount = LC_PHASE(
	"mount-umount", "mount and umount", mount_umount_setup, mount_umount_run);
const struct fsb_workload_ops fsb_wl_lc_write = LC_PHASE(
	"write", "mount, copy --copy-size of --data, fsync, umount", write_setup, write_run,
	.flags = FSB_WL_WRITES, .initial_work = copy_work);
const struct fsb_workload_ops fsb_wl_lc_read = LC_PHASE(
	"read", "mount, read the copy back and verify it, umount", read_setup, read_run,
	.initial_work = copy_work);
