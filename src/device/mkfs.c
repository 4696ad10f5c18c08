#include "device/mkfs.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/spawn.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

/* Enough of a failing tool's stderr to explain it; the rest is dropped. */
#define STDERR_MAX (64u << 10)

/* A growable string and a growable vector of strings. */
struct buf {
	char *s;
	size_t len, cap;
};

struct vec {
	char **v;
	size_t n, cap;
};

static int buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 32;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p)
			return -ENOMEM;
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

static int vec_push(struct vec *v, char *s)
{
	if (v->n + 2 > v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		char **p = realloc(v->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		v->v = p;
		v->cap = cap;
	}
	v->v[v->n++] = s;
	v->v[v->n] = NULL;
	return 0;
}

/* Move the word being built into the vector (an empty word too). */
static int vec_take(struct vec *v, struct buf *b)
{
	char *s = b->s ? b->s : strdup("");

	if (!s || vec_push(v, s)) {
		if (s != b->s)
			free(s);
		return -ENOMEM;
	}
	memset(b, 0, sizeof(*b));
	return 0;
}

void fsb_mkfs_argv_free(char **argv)
{
	if (!argv)
		return;
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

int fsb_mkfs_split(const char *tmpl, char ***out, const char **why)
{
	struct vec v = { 0 };
	struct buf b = { 0 };
	bool in_word = false;
	const char *p = tmpl;
	int err = 0;

	*why = NULL;
	while (*p) {
		char c = *p;

		if (is_blank(c)) {
			if (in_word && (err = vec_take(&v, &b)))
				goto out;
			in_word = false;
			p++;
			continue;
		}
		in_word = true;
		if (c == '\\') {
			if (!p[1]) {
				*why = "trailing backslash";
				err = -EINVAL;
				goto out;
			}
			if ((err = buf_add(&b, p + 1, 1)))
				goto out;
			p += 2;
		} else if (c == '\'') {
			const char *end = strchr(p + 1, '\'');

			if (!end) {
				*why = "unterminated single quote";
				err = -EINVAL;
				goto out;
			}
			/* An empty '' still makes the word exist. */
			if ((err = buf_add(&b, p + 1, (size_t)(end - p - 1))))
				goto out;
			p = end + 1;
		} else if (c == '"') {
			if ((err = buf_add(&b, "", 0)))
				goto out;
			for (p++; *p != '"'; p++) {
				if (!*p) {
					*why = "unterminated double quote";
					err = -EINVAL;
					goto out;
				}
				if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1]))
					p++;
				if ((err = buf_add(&b, p, 1)))
					goto out;
			}
			p++;
		} else {
			if ((err = buf_add(&b, p, 1)))
				goto out;
			p++;
		}
	}
	if (in_word && (err = vec_take(&v, &b)))
		goto out;
	if (!v.n) {
		*why = "no program named";
		err = -EINVAL;
	}
out:
	free(b.s);
	if (err) {
		fsb_mkfs_argv_free(v.v);
		if (err == -ENOMEM)
			*why = "out of memory";
		return err;
	}
	*out = v.v;
	return (int)v.n;
}

/*
 * Length of the placeholder at s ("{dev}", "{devs}", "{devN}") and which
 * device it names: 0 = first, 1..N = N-th, -1 = all. 0 when s is not one.
 */
static size_t placeholder(const char *s, long *which)
{
	char *end;
	long n;

	if (strncmp(s, "{dev", 4))
		return 0;
	if (s[4] == '}') {
		*which = 0;
		return 5;
	}
	if (!strncmp(s + 4, "s}", 2)) {
		*which = -1;
		return 6;
	}
	if (s[4] < '1' || s[4] > '9')
		return 0;
	n = strtol(s + 4, &end, 10);
	if (*end != '}')
		return 0;
	*which = n;
	return (size_t)(end + 1 - s);
}

int fsb_mkfs_expand(char *const *words, const char *const *devs, size_t ndevs, char ***out,
		    const char **why)
{
	struct vec v = { 0 };
	struct buf b = { 0 };
	int err = 0;

	*why = NULL;
	for (size_t i = 0; words[i]; i++) {
		const char *p = words[i];
		long which;

		/* A whole-word {devs} becomes one word per device. */
		if (!strcmp(p, "{devs}")) {
			if (!ndevs)
				goto nodev;
			for (size_t d = 0; d < ndevs; d++) {
				char *s = strdup(devs[d]);
				if (!s || vec_push(&v, s)) {
					free(s);
					err = -ENOMEM;
					goto out;
				}
			}
			continue;
		}
		if ((err = buf_add(&b, "", 0)))
			goto out;
		while (*p) {
			size_t n = placeholder(p, &which);

			if (!n) {
				if ((err = buf_add(&b, p++, 1)))
					goto out;
				continue;
			}
			if (!ndevs)
				goto nodev;
			if (which > (long)ndevs) {
				*why = "a {devN} placeholder names more devices than there are";
				err = -EINVAL;
				goto out;
			}
			for (size_t d = 0; d < ndevs; d++) {
				if (which >= 0 && d != (size_t)(which ? which - 1 : 0))
					continue;
				if ((which < 0 && d && (err = buf_add(&b, " ", 1))) ||
				    (err = buf_add(&b, devs[d], strlen(devs[d]))))
					goto out;
			}
			p += n;
		}
		if ((err = vec_take(&v, &b)))
			goto out;
	}
	if (!v.n) {
		*why = "no program named";
		err = -EINVAL;
	}
	goto out;
nodev:
	*why = "no device to put in the {dev} placeholder";
	err = -EINVAL;
out:
	free(b.s);
	if (err) {
		fsb_mkfs_argv_free(v.v);
		if (err == -ENOMEM)
			*why = "out of memory";
		return err;
	}
	*out = v.v;
	return (int)v.n;
}

/*
 * Whether the n bytes at part resolve to a block device that is none of
 * allowed[0..nallowed); its device number in *rdev. stat(2) follows
 * symlinks and resolves relative paths from the current directory, as the
 * tool will when it opens the word.
 */
static bool foreign_blockdev(const char *part, size_t n, const dev_t *allowed, size_t nallowed,
			     dev_t *rdev)
{
	char path[PATH_MAX];
	struct stat st;

	if (!n || n >= sizeof(path))
		return false;
	memcpy(path, part, n);
	path[n] = '\0';
	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
		return false;
	for (size_t i = 0; i < nallowed; i++)
		if (allowed[i] == st.st_rdev)
			return false;
	*rdev = st.st_rdev;
	return true;
}

/*
 * Check one word and its parts (see mkfs.h); messages show it as `shown`
 * (the template's word, before expansion). 0 or -EPERM with why set.
 */
static int check_word(const char *w, const char *shown, const dev_t *allowed, size_t nallowed,
		      char *why, size_t len)
{
	size_t wlen = strlen(w), letters = 0;
	dev_t rdev;

	/* A short option's letters ("-qd/dev/sda"): its value may follow any. */
	if (w[0] == '-' && w[1] != '-')
		while (w[1 + letters] && isalnum((unsigned char)w[1 + letters]))
			letters++;
	for (size_t start = 0; start <= wlen; start++) {
		bool at_start = !start || strchr("=,", w[start - 1]) ||
				(start >= 2 && start <= 1 + letters);
		size_t piece, n = 0;

		if (!at_start)
			continue;
		/* To the end of the word, and to the next ',' (suboptions). */
		piece = strcspn(w + start, ",");
		if (foreign_blockdev(w + start, wlen - start, allowed, nallowed, &rdev))
			n = wlen - start;
		else if (piece < wlen - start &&
			 foreign_blockdev(w + start, piece, allowed, nallowed, &rdev))
			n = piece;
		if (n) {
			if (!start && n == wlen)
				snprintf(why, len, "'%s' is block device %u:%u, which fsbench did not "
					 "make for it: name devices with {dev}, {devN} or {devs}", shown,
					 major(rdev), minor(rdev));
			else
				snprintf(why, len, "'%s' names block device '%.*s' (%u:%u), which "
					 "fsbench did not make for it: name devices with {dev}, {devN} "
					 "or {devs}", shown, (int)n, w + start, major(rdev), minor(rdev));
			return -EPERM;
		}
	}
	return 0;
}

int fsb_mkfs_check_devices(char *const *argv, const char *const *devs, size_t ndevs, char *why,
			   size_t len)
{
	dev_t *allowed = calloc(ndevs ? ndevs : 1, sizeof(*allowed));
	size_t nallowed = 0;
	struct stat st;
	int err = 0;

	if (!allowed) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < ndevs; i++)
		if (!stat(devs[i], &st) && S_ISBLK(st.st_mode))
			allowed[nallowed++] = st.st_rdev;
	for (size_t i = 0; argv[i] && !err; i++)
		err = check_word(argv[i], argv[i], allowed, nallowed, why, len);
	free(allowed);
	return err;
}

int fsb_mkfs_check_template(const char *tmpl, char *why, size_t len)
{
	/* Stand-ins no path resolves to; as many as any {devN} may ask for. */
	enum { NSTAND = 64 };
	char names[NSTAND][32];
	const char *devs[NSTAND];
	char **words = NULL, **argv = NULL;
	const char *bad;
	int err = 0;

	if (fsb_mkfs_is_none(tmpl))
		return 0;
	for (size_t i = 0; i < NSTAND; i++) {
		snprintf(names[i], sizeof(names[i]), "\x01" "fsbench-dev%zu\x01", i + 1);
		devs[i] = names[i];
	}
	if (fsb_mkfs_split(tmpl, &words, &bad) < 0)
		return 0;
	/* Word by word, so a refusal quotes the word as it was written. */
	for (size_t i = 0; words[i] && !err; i++) {
		char *one[2] = { words[i], NULL };

		if (fsb_mkfs_expand(one, devs, NSTAND, &argv, &bad) < 0)
			continue;
		for (size_t j = 0; argv[j] && !err; j++)
			err = check_word(argv[j], words[i], NULL, 0, why, len);
		fsb_mkfs_argv_free(argv);
		argv = NULL;
	}
	fsb_mkfs_argv_free(words);
	return err;
}

int fsb_mkfs_default_template(const char *fs_type, char *buf, size_t len)
{
	const char *force = NULL;
	int n;

	if (!strcmp(fs_type, "ext2") || !strcmp(fs_type, "ext3") || !strcmp(fs_type, "ext4"))
		force = "-q -F";
	else if (!strcmp(fs_type, "xfs") || !strcmp(fs_type, "btrfs"))
		force = "-q -f";
	if (force)
		n = snprintf(buf, len, "mkfs.%s %s {dev}", fs_type, force);
	else
		n = snprintf(buf, len, "mkfs.%s {dev}", fs_type);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int fsb_mkfs_is_none(const char *tmpl)
{
	return tmpl && !strcmp(tmpl, "none");
}

static int try_dir(const char *dir, size_t dlen, const char *prog, char *out, size_t len)
{
	int n;

	if (!dlen) /* an empty PATH entry means the current directory */
		n = snprintf(out, len, "./%s", prog);
	else
		n = snprintf(out, len, "%.*s/%s", (int)dlen, dir, prog);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return access(out, X_OK) == 0 ? 0 : -ENOENT;
}

int fsb_mkfs_which(const char *prog, char *out, size_t len)
{
	const char *path = getenv("PATH");
	const char *extra = "/sbin:/usr/sbin";

	if (!*prog)
		return -ENOENT;
	if (strchr(prog, '/')) {
		if ((size_t)snprintf(out, len, "%s", prog) >= len)
			return -ENAMETOOLONG;
		return access(out, X_OK) == 0 ? 0 : -ENOENT;
	}
	for (int pass = 0; pass < 2; pass++) {
		const char *p = pass ? extra : path;

		while (p && *p) {
			size_t dlen = strcspn(p, ":");

			if (!try_dir(p, dlen, prog, out, len))
				return 0;
			p += dlen;
			if (*p == ':')
				p++;
		}
	}
	return -ENOENT;
}

/* Read the child's stderr to EOF (keeping the first STDERR_MAX bytes). On
 * a stop request, ask the child to go and keep draining until it has. */
static void drain(int fd, pid_t pid, struct buf *err_text)
{
	char chunk[4096];
	bool killed = false;

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (fsb_stop_requested() && !killed) {
			kill(pid, SIGTERM);
			killed = true;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (err_text->len < STDERR_MAX) {
			size_t keep = STDERR_MAX - err_text->len;
			(void)buf_add(err_text, chunk, (size_t)n < keep ? (size_t)n : keep);
		}
	}
}

int fsb_mkfs_run(const char *path, char *const *argv)
{
	struct buf err_text = { 0 };
	int pipefd[2] = { -1, -1 }, status = 0, err;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		err = -errno;
		fsb_err_errno(err, "cannot run '%s': pipe", argv[0]);
		return err;
	}
	/* stdin and stdout on /dev/null, stderr into the pipe; the tool gets
	 * default dispositions (fsbench ignores SIGPIPE, and an ignored signal
	 * survives exec) and dies with fsbench if fsbench is killed. */
	pid = fsb_spawn(path, argv, (const int[3]){ -1, -1, pipefd[1] }, 0);
	err = pid < 0 ? (int)pid : 0;
	close(pipefd[1]);
	if (err) {
		fsb_err_errno(err, "cannot run '%s'", argv[0]);
		goto out;
	}
	drain(pipefd[0], pid, &err_text);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err = -errno;
			fsb_err_errno(err, "cannot wait for '%s'", argv[0]);
			goto out;
		}
		if (fsb_stop_requested())
			kill(pid, SIGTERM);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		goto out;
	/* Killed with us by the terminal's SIGINT, or by our SIGTERM. */
	if (fsb_stop_requested()) {
		err = -EINTR;
		goto out;
	}
	err = -EIO;
	if (WIFEXITED(status))
		fsb_err("mkfs failed: '%s' exited with status %d", argv[0], WEXITSTATUS(status));
	else
		fsb_err("mkfs failed: '%s' was killed by signal %d", argv[0], WTERMSIG(status));
	if (err_text.len) {
		fflush(stdout);
		/* What the tool said, line by line, without its control bytes. */
		fsb_text_put_lines(stderr, err_text.s);
		if (err_text.s[err_text.len - 1] != '\n')
			fputc('\n', stderr);
	}
out:
	close(pipefd[0]);
	free(err_text.s);
	return err;
}
