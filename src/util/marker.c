#include "util/marker.h"
#include "util/io.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MARKER_MAGIC "fsbench-owner 1"
/* A line holds at most an escaped path (4 bytes per byte) and numbers. */
#define LINE_MAX_BYTES (4 * PATH_MAX + 128)

/* ---- the owner ---- */

/* Read a small /proc-like file (their st_size is 0, so no fsb_read_file). */
static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = fsb_read_full(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return 0;
}

/*
 * Field 22 (starttime) of /proc/PID/stat. The command name (field 2) is in
 * parentheses and may itself hold blanks and ')', so counting starts after
 * the last ')'; the state letter (field 3) comes back in *state.
 */
static int parse_stat(const char *text, unsigned long long *start, char *state)
{
	const char *p = strrchr(text, ')');
	char *end;

	if (!p)
		return -EINVAL;
	p++;
	for (int field = 3; field < 22; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -EINVAL;
		if (field == 3)
			*state = *p;
		p += strcspn(p, " ");
	}
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	*start = strtoull(p, &end, 10);
	if (errno || (*end && *end != ' ' && *end != '\n'))
		return -EINVAL;
	return 0;
}

static int read_boot_id(const char *proc_root, char *out, size_t len)
{
	char path[PATH_MAX], text[64];
	size_t n;
	int err;

	snprintf(path, sizeof(path), "%s/sys/kernel/random/boot_id", proc_root);
	if ((err = read_small(path, text, sizeof(text))))
		return err;
	n = strcspn(text, "\n");
	if (!n || n >= len || strspn(text, "0123456789abcdef-") != n)
		return -EINVAL;
	memcpy(out, text, n);
	out[n] = '\0';
	return 0;
}

static int read_start(const char *proc_root, pid_t pid, unsigned long long *start, char *state)
{
	char path[PATH_MAX], text[1024];
	int err;

	snprintf(path, sizeof(path), "%s/%ld/stat", proc_root, (long)pid);
	err = read_small(path, text, sizeof(text));
	/* ESRCH: the process went between open and read. */
	if (err == -ENOENT || err == -ESRCH)
		return -ESRCH;
	if (err)
		return err;
	return parse_stat(text, start, state);
}

int fsb_owner_read(const char *proc_root, pid_t pid, struct fsb_owner *o)
{
	char state;
	int err;

	memset(o, 0, sizeof(*o));
	o->pid = pid;
	if ((err = read_start(proc_root, pid, &o->start, &state)))
		return err;
	return read_boot_id(proc_root, o->boot_id, sizeof(o->boot_id));
}

int fsb_owner_state(const struct fsb_owner *o, const char *proc_root)
{
	char boot[sizeof(o->boot_id)], state;
	unsigned long long start;
	int err;

	if ((err = read_boot_id(proc_root, boot, sizeof(boot))))
		return err;
	if (strcmp(boot, o->boot_id))
		return FSB_OWNER_OTHER_BOOT;
	err = read_start(proc_root, o->pid, &start, &state);
	if (err == -ESRCH)
		return FSB_OWNER_DEAD;
	if (err)
		return err;
	/* Same PID, other start time: the PID was reused, ours is gone. */
	return start == o->start ? FSB_OWNER_ALIVE : FSB_OWNER_DEAD;
}

/* ---- writing ---- */

int fsb_marker_escape(const char *path, char *out, size_t len)
{
	size_t k = 0;

	for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
		bool esc = *s <= ' ' || *s == '\\' || *s == 0x7f;

		if (k + (esc ? 4 : 1) >= len)
			return -ENAMETOOLONG;
		if (esc)
			k += (size_t)snprintf(out + k, len - k, "\\%03o", *s);
		else
			out[k++] = (char)*s;
	}
	if (k >= len)
		return -ENAMETOOLONG;
	out[k] = '\0';
	return 0;
}

static int marker_path(const char *dir, char *out, size_t len)
{
	if ((size_t)snprintf(out, len, "%s/%s", dir, FSB_MARKER_NAME) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Append one line in one write(2): a kill leaves it whole or absent. */
static int append(const char *dir, const char *line, size_t n)
{
	char path[PATH_MAX];
	int fd, err;

	if ((err = marker_path(dir, path, sizeof(path))))
		return err;
	fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fsb_write_full(fd, line, n);
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

int fsb_marker_create(const char *dir)
{
	struct fsb_owner o;
	char path[PATH_MAX], text[256];
	int fd, n, err;

	if ((err = fsb_owner_read("/proc", getpid(), &o)))
		return err;
	if ((err = marker_path(dir, path, sizeof(path))))
		return err;
	n = snprintf(text, sizeof(text), MARKER_MAGIC "\npid=%ld\nstart=%llu\nboot=%s\n",
		     (long)o.pid, o.start, o.boot_id);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = fsb_write_full(fd, text, (size_t)n);
	if (close(fd) < 0 && !err)
		err = -errno;
	if (err)
		fsb_cleanup_unlinkat(AT_FDCWD, path, 0);
	return err;
}

int fsb_marker_add_image(const char *dir, const char *path, int fd, bool created)
{
	char real[PATH_MAX], esc[4 * PATH_MAX], line[LINE_MAX_BYTES];
	struct stat st;
	int n, err;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!realpath(path, real))
		return -errno;
	if ((err = fsb_marker_escape(real, esc, sizeof(esc))))
		return err;
	n = snprintf(line, sizeof(line), "image=%s %ju:%ju created=%d\n", esc, (uintmax_t)st.st_dev,
		     (uintmax_t)st.st_ino, created ? 1 : 0);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -ENAMETOOLONG;
	return append(dir, line, (size_t)n);
}

int fsb_marker_add_loop(const char *dir, const char *dev)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "loop=%s\n", dev);

	if (n < 0 || (size_t)n >= sizeof(line) || strncmp(dev, "/dev/loop", 9))
		return -EINVAL;
	return append(dir, line, (size_t)n);
}

int fsb_marker_add_mount(const char *dir, const char *target)
{
	char esc[4 * PATH_MAX], line[LINE_MAX_BYTES];
	int n, err;

	if (target[0] != '/')
		return -EINVAL;
	if ((err = fsb_marker_escape(target, esc, sizeof(esc))))
		return err;
	n = snprintf(line, sizeof(line), "mount=%s\n", esc);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -ENAMETOOLONG;
	return append(dir, line, (size_t)n);
}

int fsb_marker_add_kept(const char *dir)
{
	return append(dir, "kept=1\n", 7);
}

/* ---- reading ---- */

/* Decode an escaped path of n bytes; malloc'ed, or NULL (errno set). */
static char *unescape(const char *s, size_t n)
{
	char *out = malloc(n + 1);
	size_t k = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			/* An unescaped blank or control byte is no path of ours. */
			if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
				goto bad;
			out[k++] = s[i];
			continue;
		}
		if (i + 3 >= n)
			goto bad;
		{
			unsigned v = 0;

			for (int j = 1; j <= 3; j++) {
				if (s[i + j] < '0' || s[i + j] > '7')
					goto bad;
				v = v * 8 + (unsigned)(s[i + j] - '0');
			}
			if (!v || v > 0xff)
				goto bad;
			out[k++] = (char)v;
			i += 3;
		}
	}
	out[k] = '\0';
	return out;
bad:
	free(out);
	errno = EINVAL;
	return NULL;
}

/* A decimal number of n bytes with no sign, blank or excess; 0 or -EINVAL. */
static int parse_u64(const char *s, size_t n, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;

	if (!n || n > 20)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		if (v > (max - (unsigned)(s[i] - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return 0;
}

static bool is_absolute_clean(const char *p)
{
	/* "/a/b": no empty, "." or ".." component, so a lexical prefix test
	 * against a real directory path means what it says. */
	if (p[0] != '/' || !p[1])
		return false;
	for (const char *c = p + 1; *c;) {
		size_t n = strcspn(c, "/");

		if (!n || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += n;
		if (*c == '/' && !*++c)
			return false;
	}
	return true;
}

static int add_claim(struct fsb_marker *m, const struct fsb_claim *c)
{
	struct fsb_claim *v = realloc(m->claims, (m->nclaims + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	m->claims = v;
	m->claims[m->nclaims++] = *c;
	return 0;
}

/* "PATH DEV:INO created=0|1" */
static int parse_image(const char *v, size_t n, struct fsb_claim *c, const char **why)
{
	const char *sp = memchr(v, ' ', n), *colon, *sp2;
	unsigned long long dev, ino;

	*why = "malformed image line";
	if (!sp)
		return -EINVAL;
	colon = memchr(sp + 1, ':', (size_t)(v + n - sp - 1));
	sp2 = memchr(sp + 1, ' ', (size_t)(v + n - sp - 1));
	if (!colon || !sp2 || colon > sp2)
		return -EINVAL;
	if (parse_u64(sp + 1, (size_t)(colon - sp - 1), UINT64_MAX, &dev) ||
	    parse_u64(colon + 1, (size_t)(sp2 - colon - 1), UINT64_MAX, &ino))
		return -EINVAL;
	if ((size_t)(v + n - sp2 - 1) != 9 || strncmp(sp2 + 1, "created=", 8) ||
	    (sp2[9] != '0' && sp2[9] != '1'))
		return -EINVAL;
	c->kind = FSB_CLAIM_IMAGE;
	c->dev = (dev_t)dev;
	c->ino = (ino_t)ino;
	c->created = sp2[9] == '1';
	c->path = unescape(v, (size_t)(sp - v));
	if (!c->path)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	if (!is_absolute_clean(c->path)) {
		free(c->path);
		c->path = NULL;
		*why = "image path is not absolute";
		return -EINVAL;
	}
	return 0;
}

static int parse_line(const char *s, size_t n, struct fsb_marker *m, unsigned *seen,
		      const char **why)
{
	const char *eq = memchr(s, '=', n), *v;
	size_t kn, vn;
	struct fsb_claim c = { 0 };
	unsigned long long num;
	int err;

	if (!eq) {
		*why = "a line is not key=value";
		return -EINVAL;
	}
	kn = (size_t)(eq - s);
	v = eq + 1;
	vn = n - kn - 1;
#define KEY(k) (kn == sizeof(k) - 1 && !memcmp(s, k, kn))
	if (KEY("pid") || KEY("start") || KEY("boot")) {
		unsigned bit = KEY("pid") ? 1 : KEY("start") ? 2 : 4;

		*why = "owner line repeated or malformed";
		if (*seen & bit)
			return -EINVAL;
		*seen |= bit;
		if (bit == 1) {
			if (parse_u64(v, vn, INT_MAX, &num) || !num)
				return -EINVAL;
			m->owner.pid = (pid_t)num;
		} else if (bit == 2) {
			if (parse_u64(v, vn, UINT64_MAX, &num))
				return -EINVAL;
			m->owner.start = num;
		} else {
			if (!vn || vn >= sizeof(m->owner.boot_id) ||
			    strspn(v, "0123456789abcdef-") < vn)
				return -EINVAL;
			memcpy(m->owner.boot_id, v, vn);
			m->owner.boot_id[vn] = '\0';
		}
		return 0;
	}
	if (KEY("image")) {
		if ((err = parse_image(v, vn, &c, why)))
			return err;
	} else if (KEY("loop")) {
		*why = "malformed loop line";
		if (vn <= 9 || memcmp(v, "/dev/loop", 9) || parse_u64(v + 9, vn - 9, INT_MAX, &num))
			return -EINVAL;
		c.kind = FSB_CLAIM_LOOP;
		if (!(c.path = strndup(v, vn)))
			return -ENOMEM;
	} else if (KEY("mount")) {
		c.kind = FSB_CLAIM_MOUNT;
		c.path = unescape(v, vn);
		if (!c.path) {
			*why = "malformed mount line";
			return errno == ENOMEM ? -ENOMEM : -EINVAL;
		}
		if (!is_absolute_clean(c.path)) {
			free(c.path);
			*why = "mount path is not absolute";
			return -EINVAL;
		}
	} else if (KEY("kept")) {
		*why = "malformed kept line";
		if (vn != 1 || v[0] != '1')
			return -EINVAL;
		m->kept = true;
		return 0;
	} else {
		*why = "unknown line";
		return -EINVAL;
	}
#undef KEY
	if ((err = add_claim(m, &c))) {
		free(c.path);
		return err;
	}
	return 0;
}

int fsb_marker_parse(const char *text, size_t len, struct fsb_marker *m, const char **why)
{
	const char *p = text, *end = text + len;
	unsigned seen = 0;
	bool first = true;
	int err;

	memset(m, 0, sizeof(*m));
	*why = "";
	if (memchr(text, '\0', len)) {
		*why = "binary content";
		return -EINVAL;
	}
	if (!len || text[len - 1] != '\n') {
		*why = "incomplete last line";
		return -EINVAL;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)(nl - p);

		if (first) {
			if (n != sizeof(MARKER_MAGIC) - 1 || memcmp(p, MARKER_MAGIC, n)) {
				*why = "not an fsbench marker (first line)";
				err = -EINVAL;
				goto fail;
			}
			first = false;
		} else if ((err = parse_line(p, n, m, &seen, why))) {
			goto fail;
		}
		p = nl + 1;
	}
	if (seen != 7) {
		*why = "owner pid, start or boot missing";
		err = -EINVAL;
		goto fail;
	}
	return 0;
fail:
	fsb_marker_release(m);
	if (err == -ENOMEM)
		*why = "out of memory";
	return err;
}

int fsb_marker_read_at(int dirfd, struct fsb_marker *m, const char **why)
{
	struct stat st;
	char *text = NULL;
	ssize_t n;
	int fd, err;

	memset(m, 0, sizeof(*m));
	*why = "";
	fd = openat(dirfd, FSB_MARKER_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP) {
		*why = "marker is a symbolic link";
		return -EPERM;
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	/* What a marker lets clean do, it does as this user: only a marker
	 * this user wrote, and nobody else could have, proves anything. */
	err = -EPERM;
	if (!S_ISREG(st.st_mode)) {
		*why = "marker is not a regular file";
		goto out;
	}
	if (st.st_uid != geteuid()) {
		*why = "marker belongs to another user";
		goto out;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		*why = "marker is writable by others";
		goto out;
	}
	if (st.st_size > (off_t)FSB_MARKER_MAX_BYTES) {
		*why = "marker is too large";
		err = -EINVAL;
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		err = -ENOMEM;
		goto out;
	}
	n = fsb_read_full(fd, text, (size_t)st.st_size);
	if (n < 0) {
		err = (int)n;
		goto out;
	}
	err = fsb_marker_parse(text, (size_t)n, m, why);
out:
	free(text);
	close(fd);
	return err;
}

void fsb_marker_release(struct fsb_marker *m)
{
	for (size_t i = 0; i < m->nclaims; i++)
		free(m->claims[i].path);
	free(m->claims);
	memset(m, 0, sizeof(*m));
}
