/*
 * modules.dep resolution. modules.dep lists, for every module, all of its
 * dependencies (the closure, as depmod writes it), but the order inside a
 * line is only right for modprobe's own reverse walk; a depth-first walk
 * over the lines gives an order that is right by construction, whatever
 * order the file uses.
 */
#include "device/kmod.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	char name[64];
	char *path;  /* points into the copy of the text */
	char **deps; /* paths, into the copy */
	size_t ndeps;
	int state; /* 0 unvisited, 1 on the stack, 2 emitted */
};

struct table {
	char *text;
	struct entry *e;
	size_t n;
	char **out;
	size_t nout;
};

char *fsb_kmod_name(const char *path, char *out, size_t len)
{
	static const char *const exts[] = { ".ko.xz", ".ko.zst", ".ko.gz", ".ko" };
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t el = strlen(exts[i]);

		if (n > el && !strcmp(base + n - el, exts[i])) {
			n -= el;
			break;
		}
	}
	if (!len)
		return out;
	if (n >= len)
		n = len - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = base[i] == '-' ? '_' : base[i];
	out[n] = '\0';
	return out;
}

static struct entry *find_name(struct table *t, const char *name)
{
	char want[64];

	/* Names compare with '-' and '_' alike, as modprobe does. */
	fsb_kmod_name(name, want, sizeof(want));
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].name, want))
			return &t->e[i];
	return NULL;
}

static struct entry *find_path(struct table *t, const char *path)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].path, path))
			return &t->e[i];
	return NULL;
}

static void release(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->e[i].deps);
	free(t->e);
	free(t->text);
}

/* Split the copy of the text into entries, in place. */
static int parse(struct table *t, const char *dep_text)
{
	size_t cap = 0;
	char *line, *save = NULL;

	t->text = strdup(dep_text);
	if (!t->text)
		return -ENOMEM;
	for (line = strtok_r(t->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *dsave = NULL, *d;
		struct entry *e;

		if (!colon || colon == line)
			continue;
		*colon = '\0';
		if (t->n == cap) {
			struct entry *ne = realloc(t->e, (cap ? cap * 2 : 64) * sizeof(*ne));

			if (!ne)
				return -ENOMEM;
			t->e = ne;
			cap = cap ? cap * 2 : 64;
		}
		e = &t->e[t->n++];
		memset(e, 0, sizeof(*e));
		e->path = line;
		fsb_kmod_name(line, e->name, sizeof(e->name));
		for (d = strtok_r(colon + 1, " \t", &dsave); d; d = strtok_r(NULL, " \t", &dsave)) {
			char **nd = realloc(e->deps, (e->ndeps + 1) * sizeof(*nd));

			if (!nd)
				return -ENOMEM;
			e->deps = nd;
			e->deps[e->ndeps++] = d;
		}
	}
	return 0;
}

static int visit(struct table *t, struct entry *e, char *missing, size_t mlen)
{
	int err;

	/* A cycle (never written by depmod) is cut where it closes. */
	if (e->state)
		return 0;
	e->state = 1;
	for (size_t i = 0; i < e->ndeps; i++) {
		struct entry *d = find_path(t, e->deps[i]);

		if (!d) {
			fsb_kmod_name(e->deps[i], missing, mlen);
			return -ENOENT;
		}
		if ((err = visit(t, d, missing, mlen)))
			return err;
	}
	e->state = 2;
	t->out[t->nout] = strdup(e->path);
	if (!t->out[t->nout])
		return -ENOMEM;
	t->nout++;
	return 0;
}

int fsb_kmod_resolve(const char *dep_text, const char *const *names, size_t nnames, char ***out,
		     char *missing, size_t missing_len)
{
	struct table t = { 0 };
	int err;

	*out = NULL;
	if (missing_len)
		missing[0] = '\0';
	if ((err = parse(&t, dep_text)))
		goto out;
	t.out = calloc(t.n + 1, sizeof(*t.out));
	if (!t.out) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nnames; i++) {
		struct entry *e = find_name(&t, names[i]);

		if (!e) {
			snprintf(missing, missing_len, "%s", names[i]);
			err = -ENOENT;
			goto out;
		}
		if ((err = visit(&t, e, missing, missing_len)))
			goto out;
	}
	*out = t.out;
	t.out = NULL;
	err = (int)t.nout;
out:
	fsb_kmod_free(t.out);
	release(&t);
	return err;
}

void fsb_kmod_free(char **paths)
{
	if (!paths)
		return;
	for (size_t i = 0; paths[i]; i++)
		free(paths[i]);
	free(paths);
}
