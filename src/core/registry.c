#include "core/registry.h"
#include "util/error.h"
#include "util/vocab.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Each workload file exports its ops; list them here in report order. */
extern const struct fsb_workload_ops fsb_wl_putc, fsb_wl_write, fsb_wl_rewrite, fsb_wl_getc,
	fsb_wl_read, fsb_wl_seeks, fsb_wl_null;
extern const struct fsb_workload_ops fsb_wl_randread, fsb_wl_randwrite;
extern const struct fsb_workload_ops fsb_wl_seq_create, fsb_wl_seq_stat, fsb_wl_seq_delete,
	fsb_wl_rand_create, fsb_wl_rand_stat, fsb_wl_rand_delete;
/* Lifecycle phases (src/workloads/lifecycle.c); ids "write" and "read" are
 * shared with the throughput suite: names are unique within a family. */
extern const struct fsb_workload_ops fsb_wl_lc_mkfs, fsb_wl_lc_mkfs_mount, fsb_wl_lc_mkfs_umount,
	fsb_wl_lc_mount_umount, fsb_wl_lc_write, fsb_wl_lc_read;

static const struct fsb_workload_ops *const registry[] = {
	&fsb_wl_putc,		&fsb_wl_write,
	&fsb_wl_rewrite,	&fsb_wl_getc,
	&fsb_wl_read,		&fsb_wl_seeks,
	&fsb_wl_randread,	&fsb_wl_randwrite,
	&fsb_wl_seq_create,	&fsb_wl_seq_stat,
	&fsb_wl_seq_delete,	&fsb_wl_rand_create,
	&fsb_wl_rand_stat,	&fsb_wl_rand_delete,
	&fsb_wl_lc_mkfs,	&fsb_wl_lc_mkfs_mount,
	&fsb_wl_lc_mkfs_umount, &fsb_wl_lc_mount_umount,
	&fsb_wl_lc_write,	&fsb_wl_lc_read,
	&fsb_wl_null,		NULL,
};

const struct fsb_workload_ops *const *fsb_registry_all(void)
{
	return registry;
}

const struct fsb_workload_ops *fsb_registry_find(const char *name)
{
	for (size_t i = 0; registry[i]; i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

int fsb_registry_check(void)
{
	for (size_t i = 0; registry[i]; i++) {
		const struct fsb_workload_ops *w = registry[i];

		if (!w->name || !w->family || !w->run || !w->title) {
			fsb_err("workload %zu: incomplete definition", i);
			return -EINVAL;
		}
		if (w->work_unit != FSB_WORK_TIME && !w->initial_work) {
			fsb_err("workload '%s': growable work needs initial_work", w->name);
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(registry[j]->name, w->name) &&
			    !strcmp(registry[j]->family, w->family)) {
				fsb_err("workload '%s': registered twice", w->name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static bool in_families(const struct fsb_workload_ops *w, const char *const *families)
{
	for (size_t i = 0; families[i]; i++)
		if (!strcmp(w->family, families[i]))
			return true;
	return false;
}

char *fsb_registry_names(const char *const *families, char *buf, size_t len)
{
	const char *names[2 * (sizeof(registry) / sizeof(registry[0]))];
	size_t n = 0;

	/* Ids first, then the families (fsb_vocab_join drops the repeats). */
	for (size_t i = 0; registry[i]; i++)
		if (in_families(registry[i], families))
			names[n++] = registry[i]->name;
	for (size_t i = 0; registry[i]; i++)
		if (in_families(registry[i], families))
			names[n++] = registry[i]->family;
	return fsb_vocab_join(names, n, buf, len);
}

int fsb_registry_select(const char *list, const char *const *families,
			const struct fsb_workload_ops **out, size_t max)
{
	bool want[sizeof(registry) / sizeof(registry[0])] = { false };
	char *copy = strdup(list), *save = NULL, *item;
	size_t n = 0;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		bool found = false;

		for (size_t i = 0; registry[i]; i++) {
			const struct fsb_workload_ops *w = registry[i];

			if (!in_families(w, families))
				continue;
			if (!strcmp(w->name, item) || !strcmp(w->family, item)) {
				want[i] = true;
				found = true;
			}
		}
		if (!found) {
			fsb_err("unknown test '%s' (see 'fsbench run --help')", item);
			err = -EINVAL;
			goto out;
		}
	}
	for (size_t i = 0; registry[i]; i++) {
		if (!want[i])
			continue;
		if (n == max) {
			err = -E2BIG;
			goto out;
		}
		out[n++] = registry[i];
	}
	if (!n) {
		fsb_err("no test selected");
		err = -EINVAL;
	}
out:
	free(copy);
	return err ? err : (int)n;
}
