/* The workload registry: every test fsbench knows, in report order. */
#ifndef FSB_CORE_REGISTRY_H
#define FSB_CORE_REGISTRY_H
#include <stddef.h>

#include "workloads/workload.h"

/* All workloads, NULL-terminated, in the order suites run them. */
const struct fsb_workload_ops *const *fsb_registry_all(void);

/* The workload with this test id, or NULL. */
const struct fsb_workload_ops *fsb_registry_find(const char *name);

/*
 * Check every registered workload once at start-up: a name, a family, the
 * run hook, an initial_work hook for growable units, unique names.
 * Returns 0, or -EINVAL after describing the first defect.
 */
int fsb_registry_check(void);

/*
 * Resolve a comma-separated --tests list into workloads, in registry order
 * whatever the order given. An item is a test id or a family name
 * ("throughput", "files"). Only workloads of the given families are
 * accepted (NULL-terminated list). Returns the count (>= 1) and fills
 * out[0..max), or -EINVAL after describing the unknown name.
 */
int fsb_registry_select(const char *list, const char *const *families,
			const struct fsb_workload_ops **out, size_t max);

/*
 * What a --tests list of those families may name, for usage and
 * completion: every test id, then the family names, '|'-separated
 * (util/vocab.h), into buf (len bytes; a name that does not fit is left
 * out). Returns buf.
 */
char *fsb_registry_names(const char *const *families, char *buf, size_t len);

#endif
