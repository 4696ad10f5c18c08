/*
 * What killed fsbench processes left behind, found and removed: scratch
 * directories "fsbench.<pid>.XXXXXX" whose owner marker (util/marker.h)
 * names a process that is gone, and what the marker lists: mounts inside
 * the directory, loop devices bound to a listed image, images fsbench
 * created. Nothing is touched that cannot be proven fsbench's:
 *
 *   - no marker, an unparsable one, or one another user could have
 *     written: the directory is refused;
 *   - a marker whose process still runs (same PID and start time on this
 *     boot): left alone, in use;
 *   - a mount listed outside the directory, an image whose dev:ino is not
 *     the one recorded: refused, and the whole directory is left as it is
 *     (a directory goes only when every claim in it is proven and undone);
 *   - a loop device now bound to a file that is no listed image (its
 *     number was reused after fsbench released it): left alone, noted;
 *   - mounts and loop devices of a marker from an earlier boot: gone with
 *     the reboot, not acted on, noted; the directory itself can go;
 *   - a listed loop device in use (it or a partition mounted where clean
 *     does not unmount, held, swap), a mount on or below the directory
 *     that its marker does not list: refused, the directory left as it is
 *     (and its listed mounts stay, so a loop device mounted on one of
 *     them is in use too: decided until no decision changes).
 *
 * Everything is decided first, from one snapshot of the mount table and
 * without touching anything; the dry run reports those decisions, the
 * real run reports the refusals alike and carries out the rest, checking
 * each step again right before it. Order: every unmount of every
 * directory first (a lifecycle dir may hold a mount of a matrix dir's
 * loop device), then per directory: detach its loop devices, remove the
 * images it created, remove the directory.
 */
#ifndef FSB_CORE_CLEAN_H
#define FSB_CORE_CLEAN_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum fsb_clean_what { FSB_CLEAN_DIR, FSB_CLEAN_MOUNT, FSB_CLEAN_LOOP, FSB_CLEAN_IMAGE };

enum fsb_clean_outcome {
	FSB_CLEAN_DONE,	   /* unmounted, detached or removed */
	FSB_CLEAN_WOULD,   /* dry run: would be */
	FSB_CLEAN_REFUSED, /* cannot be proven fsbench's: left alone (why) */
	FSB_CLEAN_FAILED,  /* tried, failed (described on stderr) */
	FSB_CLEAN_IN_USE,  /* the owner still runs: left alone */
	FSB_CLEAN_KEPT,	   /* kept on purpose (matrix --keep-images): left alone */
	FSB_CLEAN_NOTE,	   /* not fsbench's any more, or from an earlier boot: left alone (why) */
};

/* One thing found, for the caller to print. Strings live for the call. */
struct fsb_clean_event {
	enum fsb_clean_what what;
	enum fsb_clean_outcome outcome;
	const char *path;  /* the directory, mount target, /dev/loopN or image */
	const char *extra; /* loop: its backing file; else NULL */
	const char *why;   /* REFUSED, NOTE: the reason; else NULL */
	pid_t pid;	   /* the directory's owner, 0 when unknown */
};

struct fsb_clean_opts {
	bool dry_run;	       /* list only */
	const char *proc_root; /* "/proc" (its self/mountinfo too); NULL is "/proc" */
	void (*report)(const struct fsb_clean_event *ev, void *arg);
	void *arg;
};

struct fsb_clean_counts {
	unsigned found; /* fsbench.* directories looked at */
	unsigned done;	/* things removed (or, dry run, to remove) */
	unsigned refused;
	unsigned failed;
};

/*
 * Clean the scratch directories directly under each of dirs[0..n) (a
 * directory named twice, or by two names, is looked at once); report
 * every finding through o->report and count them in *c. A DIR that cannot
 * be read is described and counted as failed. Returns 0, or the first
 * -errno of a DIR that could not be read (the others are still cleaned)
 * or of the mount table (then nothing is decided, nothing touched).
 * Nothing was left that could be removed iff c->refused + c->failed == 0.
 */
int fsb_clean(const char *const *dirs, size_t n, const struct fsb_clean_opts *o,
	      struct fsb_clean_counts *c);

/*
 * For `run`: warn (fsb_warn) about every scratch directory under dir whose
 * owner is gone, naming `fsbench clean DIR`. Silent about anything else.
 * Returns how many were found.
 */
unsigned fsb_clean_warn_stale(const char *dir);

/* The directories `fsbench clean` looks in when given none. */
#define FSB_CLEAN_MAX_DEFAULTS 3

/*
 * Of ".", $TMPDIR (else /tmp), where lifecycle and guest keep their
 * scratch directories, and /var/tmp, matrix's default workdir: those that
 * exist (a missing one holds nothing of ours), into dirs. Returns how many.
 */
size_t fsb_clean_default_dirs(const char *dirs[FSB_CLEAN_MAX_DEFAULTS]);

#endif
