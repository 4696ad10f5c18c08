/*
 * The owner marker: a small file ".fsbench-owner" inside every directory
 * fsbench creates (a run's scratch dir, lifecycle's dir that holds its
 * mountpoint, matrix's work dir). It names the process that made the
 * directory (PID, its start time from /proc/PID/stat field 22, the boot
 * id), and, appended one line at a time as they are acquired, what that
 * process made outside plain files: images, loop devices, mounts. After a
 * SIGKILL it is what lets `fsbench clean` prove that a leftover is
 * fsbench's and that its owner is gone (the start time makes a reused PID
 * harmless; the boot id a reboot).
 *
 *   fsbench-owner 1
 *   pid=1234
 *   start=5678901
 *   boot=0d6c2b1e-3c55-4f2a-9a1e-7c4bd0a1f2e3
 *   image=/var/tmp/ext4.img 2049:1311 created=1
 *   loop=/dev/loop7
 *   mount=/tmp/fsbench.1234.Xy12Ab/mnt
 *   kept=1
 *
 * Paths are absolute and escaped as in /proc/self/mountinfo: a blank,
 * control character or backslash is "\ooo" (octal). "image" carries the
 * file's st_dev:st_ino (decimal) and whether fsbench created it; "kept"
 * says the directory was left on purpose (matrix --keep-images).
 * Each line is appended with one write(2), so a killed writer leaves whole
 * lines. Pure file I/O: nothing here mounts, detaches or removes.
 */
#ifndef FSB_UTIL_MARKER_H
#define FSB_UTIL_MARKER_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define FSB_MARKER_NAME ".fsbench-owner"
#define FSB_MARKER_MAX_BYTES (1u << 20)

/* Who made a directory. */
struct fsb_owner {
	pid_t pid;
	unsigned long long start; /* clock ticks after boot (/proc/PID/stat field 22) */
	char boot_id[40];	  /* /proc/sys/kernel/random/boot_id */
};

enum fsb_claim_kind { FSB_CLAIM_IMAGE, FSB_CLAIM_LOOP, FSB_CLAIM_MOUNT };

/* One resource a marker lists. */
struct fsb_claim {
	enum fsb_claim_kind kind;
	char *path;   /* image file, /dev/loopN, or mount target */
	dev_t dev;    /* image: st_dev */
	ino_t ino;    /* image: st_ino */
	bool created; /* image: made by fsbench (so fsbench may remove it) */
};

/* A parsed marker; release with fsb_marker_release. */
struct fsb_marker {
	struct fsb_owner owner;
	struct fsb_claim *claims; /* in file order */
	size_t nclaims;
	bool kept;
};

enum fsb_owner_state { FSB_OWNER_ALIVE, FSB_OWNER_DEAD, FSB_OWNER_OTHER_BOOT };

/*
 * Read pid's identity under proc_root ("/proc", or a fake tree in tests):
 * its start time from PROC/PID/stat and the boot id from
 * PROC/sys/kernel/random/boot_id. Returns 0, -ESRCH when there is no such
 * process, -EINVAL when a file cannot be parsed, or -errno. Not described.
 */
int fsb_owner_read(const char *proc_root, pid_t pid, struct fsb_owner *o);

/*
 * Whether the owner still runs: ALIVE when proc_root's boot id is the
 * owner's and PROC/PID/stat exists with the same start time (a zombie
 * counts as alive: it may be a leader whose threads still run); DEAD when
 * the process is gone or the PID now names another process; OTHER_BOOT
 * when the marker comes from an earlier boot. Returns one of those, or
 * -errno when this boot's id cannot be read (nothing can be proven then).
 */
int fsb_owner_state(const struct fsb_owner *o, const char *proc_root);

/*
 * Create dir/.fsbench-owner (O_EXCL, O_NOFOLLOW, mode 0600) naming this
 * process. Returns 0 or -errno (not described: the caller names the dir).
 */
int fsb_marker_create(const char *dir);

/*
 * Append a claim to dir's marker, in one write. image: the real path of
 * `path` and the st_dev:st_ino of fd (open on it), with created. loop:
 * "/dev/loopN". mount: an absolute target path, written as given.
 * Returns 0 or -errno (not described).
 */
int fsb_marker_add_image(const char *dir, const char *path, int fd, bool created);
int fsb_marker_add_loop(const char *dir, const char *dev);
int fsb_marker_add_mount(const char *dir, const char *target);

/* Append "kept=1": the directory stays on purpose, clean leaves it alone. */
int fsb_marker_add_kept(const char *dir);

/*
 * Parse a marker's text (len bytes, which need not be NUL-terminated).
 * Pure. Every line must be complete (end in '\n'), the first must be
 * "fsbench-owner 1", pid, start and boot must each appear once, and every
 * other line must be a well-formed image, loop, mount or kept line:
 * anything else makes the marker unparsable, since a leftover that cannot
 * be read cannot be proven fsbench's. Returns 0 with *m filled (release
 * it), or -EINVAL with *why set to a static description, or -ENOMEM.
 */
int fsb_marker_parse(const char *text, size_t len, struct fsb_marker *m, const char **why);

/*
 * Read and parse the marker of the directory open on dirfd. The marker
 * must be a regular file (not followed if a symlink) owned by this
 * process's effective uid and writable by nobody else, or it proves
 * nothing. Returns 0, -ENOENT (no marker), -EPERM (wrong owner or mode,
 * *why set), -EINVAL (unparsable, *why set) or -errno. Not described.
 */
int fsb_marker_read_at(int dirfd, struct fsb_marker *m, const char **why);

/* Free what a parse allocated; *m is zeroed. */
void fsb_marker_release(struct fsb_marker *m);

/*
 * Escape a path the way the marker (and mountinfo) does, into out.
 * Pure. Returns 0 or -ENAMETOOLONG.
 */
int fsb_marker_escape(const char *path, char *out, size_t len);

#endif
