/*
 * A matrix document read back from its JSON (report/matrix.h), so that
 * `fsbench show` renders a saved matrix in every matrix view. Every
 * string goes through fsb_json_get_text, as a result's do: what the
 * writer escaped comes back as the bytes it had.
 */
#include "report/json.h"
#include "report/matrix.h"
#include "util/error.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* *field = the string at key (absent or null: NULL). 0 or -errno. */
static int text(struct json_object *o, const char *path, const char *key, char **field, char *why,
		size_t why_len)
{
	char *s = NULL;
	int rc = fsb_json_get_text(o, path, key, &s, why, why_len);

	if (rc < 0)
		return rc;
	free(*field);
	*field = s;
	return 0;
}

static int integer(struct json_object *o, const char *path, const char *key, int64_t *out,
		   char *why, size_t why_len)
{
	struct json_object *v;

	*out = 0;
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
		snprintf(why, why_len, "%s%s is not a count", path, key);
		return -EINVAL;
	}
	*out = json_object_get_int64(v);
	return 0;
}

static int read_head(struct json_object *doc, struct fsb_matrix_doc *d, char *why, size_t why_len)
{
	struct json_object *host, *ov;
	int64_t cpus, ram;
	int rc;

	/* fsb_matrix_doc_init filled in this machine: the file's replace it. */
	if ((rc = text(doc, "", "version", &d->head.version, why, why_len)))
		return rc;
	if (json_object_object_get_ex(doc, "host", &host)) {
		if ((rc = text(host, "host.", "kernel", &d->head.host.kernel, why, why_len)) ||
		    (rc = text(host, "host.", "cpu", &d->head.host.cpu, why, why_len)) ||
		    (rc = text(host, "host.", "hostname", &d->head.host.hostname, why, why_len)) ||
		    (rc = integer(host, "host.", "cpus", &cpus, why, why_len)) ||
		    (rc = integer(host, "host.", "ram_bytes", &ram, why, why_len)))
			return rc;
		d->head.host.cpus = (int)cpus;
		d->head.host.ram_bytes = (uint64_t)ram;
	}
	if (json_object_object_get_ex(doc, "overrides", &ov) &&
	    json_object_is_type(ov, json_type_array)) {
		size_t n = json_object_array_length(ov);
		const char **items = calloc(n ? n : 1, sizeof(*items));

		if (!items)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			items[i] = json_object_get_string(json_object_array_get_idx(ov, i));
		rc = fsb_matrix_doc_overrides(d, items, n);
		free(items);
	}
	return rc;
}

static int read_results(struct json_object *s, const char *path, struct fsb_matrix_entry *e,
			char *why, size_t why_len)
{
	struct json_object *results;

	if (!json_object_object_get_ex(s, "results", &results) ||
	    !json_object_is_type(results, json_type_array))
		return 0;
	for (size_t k = 0; k < json_object_array_length(results); k++) {
		struct fsb_result *r = calloc(1, sizeof(*r));
		char sub[256];
		int rc;

		if (!r)
			return -ENOMEM;
		rc = fsb_json_to_result(json_object_array_get_idx(results, k), r, sub, sizeof(sub));
		if (rc) {
			snprintf(why, why_len, "%sresults[%zu]: %s", path, k, sub);
			fsb_result_release(r);
			free(r);
			return rc;
		}
		if (r->kind && !strcmp(r->kind, "run") && !e->run_res) {
			e->run_res = r;
		} else if (r->kind && !strcmp(r->kind, "lifecycle") && !e->lc_res) {
			e->lc_res = r;
		} else {
			snprintf(why, why_len, "%sresults[%zu]: a second %s result", path, k,
				 r->kind ? r->kind : "(kindless)");
			fsb_result_release(r);
			free(r);
			return -EINVAL;
		}
	}
	return 0;
}

static int read_setup(struct json_object *s, size_t i, struct fsb_matrix_doc *d, char *why,
		      size_t why_len)
{
	struct json_object *cfg;
	struct fsb_matrix_entry *e;
	char path[64], *label = NULL, *status = NULL;
	int64_t devices = 0, image = 0;
	int rc;

	snprintf(path, sizeof(path), "setups[%zu].", i);
	if ((rc = text(s, path, "label", &label, why, why_len)))
		return rc;
	e = fsb_matrix_doc_add(d, label ? label : "");
	free(label);
	if (!e)
		return -ENOMEM;
	if (json_object_object_get_ex(s, "config", &cfg)) {
		snprintf(path, sizeof(path), "setups[%zu].config.", i);
		if ((rc = text(cfg, path, "type", &e->type, why, why_len)) ||
		    (rc = text(cfg, path, "mkfs", &e->mkfs, why, why_len)) ||
		    (rc = text(cfg, path, "options", &e->options, why, why_len)) ||
		    (rc = text(cfg, path, "fill", &e->fill, why, why_len)) ||
		    (rc = text(cfg, path, "run", &e->run, why, why_len)) ||
		    (rc = text(cfg, path, "lifecycle", &e->lifecycle, why, why_len)) ||
		    (rc = integer(cfg, path, "devices", &devices, why, why_len)) ||
		    (rc = integer(cfg, path, "image_size", &image, why, why_len)))
			return rc;
		e->devices = (unsigned)devices;
		e->image_bytes = (uint64_t)image;
	}
	snprintf(path, sizeof(path), "setups[%zu].", i);
	if ((rc = text(s, path, "status", &status, why, why_len)))
		return rc;
	e->status = !status || !strcmp(status, "ok") ? FSB_MATRIX_OK
		    : !strcmp(status, "failed")	     ? FSB_MATRIX_FAILED
						     : FSB_MATRIX_SKIPPED;
	free(status);
	if ((rc = text(s, path, "error", &e->error, why, why_len)) ||
	    (rc = text(s, path, "note", &e->note, why, why_len)))
		return rc;
	return read_results(s, path, e, why, why_len);
}

int fsb_matrix_from_json(struct json_object *doc, struct fsb_matrix_doc *d, char *why,
			 size_t why_len)
{
	struct json_object *setups;
	char *config = NULL;
	int rc;

	memset(d, 0, sizeof(*d));
	if ((rc = text(doc, "", "config_file", &config, why, why_len)))
		return rc;
	rc = fsb_matrix_doc_init(d, config ? config : "");
	free(config);
	if (rc || (rc = read_head(doc, d, why, why_len)))
		goto fail;
	if (!json_object_object_get_ex(doc, "setups", &setups) ||
	    !json_object_is_type(setups, json_type_array)) {
		snprintf(why, why_len, "a matrix document without \"setups\"");
		rc = -EINVAL;
		goto fail;
	}
	for (size_t i = 0; i < json_object_array_length(setups); i++)
		if ((rc = read_setup(json_object_array_get_idx(setups, i), i, d, why, why_len)))
			goto fail;
	return 0;
fail:
	if (rc == -ENOMEM)
		snprintf(why, why_len, "out of memory");
	fsb_matrix_doc_release(d);
	return rc;
}
