/*
 * Making filesystems: a --mkfs template ("mkfs.xfs -f -b size=1024 {dev}")
 * is split into words like a shell would split it, but nothing else a
 * shell does happens: no variables, globs, pipes, redirections or command
 * separators. ; | & $ ` > < are ordinary characters of a word. The tool is
 * then run with fork+exec (util/spawn.h: no shell, and it dies with
 * fsbench), its stderr captured so a failure can be shown under fsbench's
 * own one-line error.
 */
#ifndef FSB_DEVICE_MKFS_H
#define FSB_DEVICE_MKFS_H
#include <stddef.h>

/*
 * Split a template into words. Outside quotes, blanks (space, tab, newline)
 * separate words and a backslash makes the next character literal.
 * '...' is literal. Inside "...", a backslash escapes only " \ $ ` and
 * newline, as in POSIX sh. "" and '' give an empty word.
 * Pure. Returns the word count (>= 1) and a NULL-terminated malloc'ed
 * vector in *out (free with fsb_mkfs_argv_free), or -EINVAL with *why set
 * to a static description (unterminated quote, trailing backslash, empty).
 */
int fsb_mkfs_split(const char *tmpl, char ***out, const char **why);

/*
 * Replace placeholders in every word: {dev} = the first device, {devN} =
 * the N-th (1-based), {devs} = all of them: as separate words when it is
 * the whole word, joined with spaces inside a longer word. Other braces are
 * kept. Pure. Returns the new word count and a new vector in *out, or
 * -EINVAL with *why set (a {devN} beyond ndevs, no device given), -ENOMEM.
 */
int fsb_mkfs_expand(char *const *words, const char *const *devs, size_t ndevs, char ***out,
		    const char **why);

/*
 * A template may name only the devices fsbench made for it, through its
 * placeholders. Check every word of argv (an expanded template) and the
 * parts of it a tool could take as a path: after '=' ("--device=/dev/sda",
 * "logdev=/dev/sdb"), each of its ','-separated pieces, and after the
 * letters of a short option ("-d/dev/sda"). A part that stat(2) resolves
 * to a block device (after following symlinks: /dev/disk/by-*, /dev/mapper,
 * relative paths) must be one of devs[0..ndevs) (compared by device
 * number). Returns 0, or -EPERM with why set to "'WORD' names block device
 * 'PART', which fsbench did not make for it: name devices with {dev},
 * {devN} or {devs}".
 */
int fsb_mkfs_check_devices(char *const *argv, const char *const *devs, size_t ndevs, char *why,
			   size_t len);

/*
 * The same check on a template before any device exists: its placeholders
 * are replaced by names that resolve to nothing, so every block device it
 * names is one it may not name. A template that does not split or expand
 * passes (the caller reports that its own way); "none" passes. Returns 0
 * or -EPERM with why set as for fsb_mkfs_check_devices.
 */
int fsb_mkfs_check_template(const char *tmpl, char *why, size_t len);

/* Free a vector from fsb_mkfs_split/_expand (NULL is fine). */
void fsb_mkfs_argv_free(char **argv);

/*
 * The default template for a filesystem type, written to buf:
 * "mkfs.ext4 -q -F {dev}" for ext2/3/4, "mkfs.xfs -q -f {dev}",
 * "mkfs.btrfs -q -f {dev}", "mkfs.TYPE {dev}" otherwise. Pure.
 * Returns 0 or -ENAMETOOLONG.
 */
int fsb_mkfs_default_template(const char *fs_type, char *buf, size_t len);

/* True for the template "none": the filesystem formats itself on first
 * mount (JFFS2 on erased flash), so there is no mkfs step. */
int fsb_mkfs_is_none(const char *tmpl);

/*
 * Find an executable: prog itself when it contains '/', else the first
 * match in $PATH, then /sbin and /usr/sbin (where mkfs tools live but
 * root's PATH under sudo or cron may not reach). Writes the path to out.
 * Returns 0 or -ENOENT (not described: the caller knows the context).
 */
int fsb_mkfs_which(const char *prog, char *out, size_t len);

/*
 * Run the program at `path` with argv (argv[0] as the user wrote it),
 * stdin and stdout on /dev/null, stderr into a pipe, and wait for it.
 * On failure prints "fsbench: mkfs failed: '<argv[0]>' exited with status N"
 * followed by what the tool wrote on stderr. When a stop signal arrives
 * (util/signals.h) the tool is sent SIGTERM, reaped, and -EINTR returned
 * without a message.
 * Returns 0, -EINTR, -EIO (the tool failed) or -errno (could not start it).
 */
int fsb_mkfs_run(const char *path, char *const *argv);

#endif
