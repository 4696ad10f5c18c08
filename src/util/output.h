/*
 * Where a report goes (-o/--output of every command), decided at startup,
 * before any work, and written at the end.
 *
 *   (none), "-"                      standard output
 *   /dev/stdout, /dev/stderr,        the descriptor N the process already
 *   /dev/stdin, /dev/fd/N,           has (whatever it points to: a pipe, a
 *   /proc/self/fd/N                  terminal, a redirected regular file);
 *                                    it must be open for writing
 *   an existing character device     written in place (-o /dev/null)
 *   or FIFO
 *   a regular file, or a new name    replaced atomically: temporary file
 *                                    in the same directory, then rename;
 *                                    an existing file keeps its mode and,
 *                                    as root, its owner and group; a new
 *                                    one gets 0666 & ~umask
 *
 * Refused at startup (one line; the command exits 2): a symbolic link (the
 * message names what it points to, for whoever means it), one of the
 * command's own inputs (same device and inode), a directory, a block
 * device, a socket, a missing parent directory, or one fsbench cannot
 * create files in: a uniquely named file is created there (O_EXCL) and
 * removed at once, which sees what access(2) does not (a read-only
 * filesystem, /proc and /sys, where root passes every access check).
 *
 * What the name is gets decided once, with fstat on a descriptor opened
 * O_PATH|O_NOFOLLOW (no side effects: a FIFO does not block, a device is
 * not opened), and that descriptor is held to the end, so a device or
 * FIFO is reopened for writing through /proc/self/fd, never by name.
 *
 * When the final write fails (disk full, directory gone), the report is
 * kept in a file of its own, "$TMPDIR/fsbench-result.PID.EXT" (else /tmp;
 * created O_EXCL|O_NOFOLLOW, mode 0600), or failing that on standard
 * output when that is not what failed, and the one-line error says where.
 */
#ifndef FSB_UTIL_OUTPUT_H
#define FSB_UTIL_OUTPUT_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

enum fsb_output_target {
	FSB_OUTPUT_FD,	    /* a descriptor of ours: 1 for standard output */
	FSB_OUTPUT_DIRECT,  /* an existing character device or FIFO */
	FSB_OUTPUT_REPLACE, /* a regular file, existing or new */
};

struct fsb_output {
	bool opened; /* fsb_output_open succeeded; release pending */
	enum fsb_output_target target;
	char *path;	/* the name given; NULL for standard output */
	int fd;		/* FD: the descriptor written (not ours to close) */
	int obj_fd;	/* O_PATH of the existing object, or -1 */
	int dir_fd;	/* REPLACE: O_PATH of the directory holding it */
	char *base;	/* REPLACE: its name in that directory */
	bool exists;	/* the object existed at startup (st is valid) */
	struct stat st; /* the object at startup */
	/*
	 * Extension of the fallback file: whoever renders sets it from the
	 * format ("json", "csv", "html", "txt"); fsb_output_open sets it from
	 * the path's own extension, else "txt".
	 */
	const char *ext;
	char ext_buf[12];
};

/*
 * Decide where the report for path goes (NULL: standard output) and check
 * that it can go there, refusing the cases above with one line
 * ("fsbench: will not write 'x': ..." or "fsbench: cannot write 'x': ...").
 * inputs (ninputs entries, NULL entries skipped) are the files and devices
 * the command reads or works on; an input that does not exist yet (an
 * image to be created) is refused when it names the same new file.
 * Returns 0 (release o later) or -errno (o is released; the caller exits
 * with status 2, as for any usage error).
 */
int fsb_output_open(struct fsb_output *o, const char *path, const char *const *inputs,
		    size_t ninputs);

/*
 * Write the len bytes of buf, the whole report, where o says. On failure
 * the report is kept in a fallback file (see above) and one line says what
 * failed and where the report is. Returns 0 or -errno. buf stays the
 * caller's.
 */
int fsb_output_commit(struct fsb_output *o, const void *buf, size_t len);

/* Close what o holds. Safe on a zeroed o and after a failed open. */
void fsb_output_release(struct fsb_output *o);

#endif
