#include "device/mkfs.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/spawn.h"
#include "util/strbuf.h"
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
	struct fsb_strvec v = { 0 };
	struct fsb_strbuf b = { 0 };
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
				if (!s || fsb_strvec_push(&v, s)) {
					free(s);
					err = -ENOMEM;
					goto out;
				}
			}
			continue;
		}
		if ((err = fsb_strbuf_add(&b, "", 0)))
			goto out;
		while (*p) {
			size_t n = placeholder(p, &which);

			if (!n) {
				if ((err = fsb_strbuf_add(&b, p++, 1)))
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
				if ((which < 0 && d && (err = fsb_strbuf_add(&b, " ", 1))) ||
				    (err = fsb_strbuf_add(&b, devs[d], strlen(devs[d]))))
					goto out;
			}
			p += n;
		}
		if ((err = fsb_strvec_take(&v, &b)))
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
		fsb_words_free(v.v);
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
				snprintf(why, len,
					 "'%s' is block device %u:%u, which fsbench did not "
					 "make for it: name devices with {dev}, {devN} or {devs}",
					 shown, major(rdev), minor(rdev));
			else
				snprintf(
					why, len,
					"'%s' names block device '%.*s' (%u:%u), which "
					"fsbench did not make for it: name devices with {dev}, {devN} "
					"or {devs}",
					shown, (int)n, w + start, major(rdev), minor(rdev));
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
		snprintf(names[i], sizeof(names[i]),
			 "\x01"
			 "fsbench-dev%zu\x01",
			 i + 1);
		devs[i] = names[i];
	}
	if (fsb_words_split(tmpl, &words, &bad) < 0)
		return 0;
	/* Word by word, so a refusal quotes the word as it was written. */
	for (size_t i = 0; words[i] && !err; i++) {
		char *one[2] = { words[i], NULL };

		if (fsb_mkfs_expand(one, devs, NSTAND, &argv, &bad) < 0)
			continue;
		for (size_t j = 0; argv[j] && !err; j++)
			err = check_word(argv[j], words[i], NULL, 0, why, len);
		fsb_words_free(argv);
		argv = NULL;
	}
	fsb_words_free(words);
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

int fsb_mkfs_template_devices(const char *tmpl, size_t n, const char **why)
{
	/* Stand-ins no template contains by accident. */
	char names[FSB_MKFS_MAX_DEVICES][24];
	const char *devs[FSB_MKFS_MAX_DEVICES];
	char **words = NULL, **argv = NULL;
	int rc, used = 0;

	if (n < 1 || n > FSB_MKFS_MAX_DEVICES) {
		*why = "the number of devices is out of range";
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]),
			 "\x01"
			 "fsbench-dev%zu\x01",
			 i + 1);
		devs[i] = names[i];
	}
	rc = fsb_words_split(tmpl, &words, why);
	if (rc < 0)
		return rc;
	rc = fsb_mkfs_expand(words, devs, n, &argv, why);
	fsb_words_free(words);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		for (size_t w = 0; argv[w]; w++) {
			if (strstr(argv[w], names[i])) {
				used++;
				break;
			}
		}
	}
	fsb_words_free(argv);
	return used;
}

int fsb_mkfs_run(const char *path, char *const *argv)
{
	return fsb_tool_run("mkfs", path, argv);
}
