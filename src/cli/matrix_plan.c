/*
 * A matrix file's `run =` and `lifecycle =` lines turned into plans: split
 * into words, parsed by the run and lifecycle commands' own parsers (the
 * options the matrix sets refused), the setup's fields set over them, the
 * plan checked. Every refusal is one line naming the file and the line,
 * before anything is made.
 */
#include "cli/lifecycle.h"
#include "cli/matrix_ini.h"
#include "cli/run.h"
#include "core/runner.h"
#include "util/error.h"
#include "util/spawn.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the matrix sets in every line: refused there. */
static const char *const run_refused[] = {
	"format", "output", "label", "progress", "help", "version", NULL,
};
static const char *const lc_refused[] = {
	"format", "output",  "label",	   "progress",	   "help", "version",
	"device", "image",   "image-size", "destroy-data", "fs",   "type",
	"mkfs",	  "options", "fill",	   "mtd",	   NULL,
};

/* cmd followed by the words of value, as a command's parser takes them. */
static int line_words(const char *cmd, const char *value, char ***out)
{
	char **words = NULL, **all;
	const char *why;
	int n = fsb_words_split(value, &words, &why);

	if (n < 0)
		return n; /* the loader refused it already, naming its line */
	all = calloc((size_t)n + 2, sizeof(*all));
	if (!all || !(all[0] = strdup(cmd))) {
		free(all);
		fsb_words_free(words);
		return -ENOMEM;
	}
	memcpy(all + 1, words, (size_t)n * sizeof(*words));
	free(words);
	*out = all;
	return n + 1;
}

/* "FILE:LINE: CMD: why" (or "FILE: --set 'ITEM': ..."), the parser's own
 * "CMD: " not said twice. */
static int refuse(const struct fsb_matrix_config *cfg, unsigned line, const char *cmd,
		  const struct fsb_error *why)
{
	const char *msg = why->msg;
	size_t n = strlen(cmd);
	char where[PATH_MAX + 64];

	if (!strncmp(msg, cmd, n) && !strncmp(msg + n, ": ", 2))
		msg += n + 2;
	fsb_err("%s: %s: %s", fsb_matrix_config_where(cfg, line, where, sizeof(where)), cmd, msg);
	return FSB_EXIT_USAGE;
}

static int run_plan(const struct fsb_matrix_config *cfg, struct fsb_matrix_setup *s)
{
	const struct fsb_cli_nest nest = { "fsbench matrix", run_refused };
	struct fsb_run_cli *c = calloc(1, sizeof(*c));
	struct fsb_error why;
	struct fsb_err_scope scope;
	int n, rc;

	if (!c || (n = line_words("run", s->run, &s->run_words)) < 0) {
		free(c);
		fsb_err("matrix: out of memory");
		return FSB_EXIT_FAIL;
	}
	fsb_error_clear(&why);
	fsb_err_capture_begin(&scope, &why, true);
	rc = fsb_run_parse(n, s->run_words, &nest, c);
	fsb_err_capture_end(&scope, 0);
	if (rc) {
		free(c);
		return refuse(cfg, s->run_line, "run", &why);
	}
	s->run_plan = malloc(sizeof(*s->run_plan));
	if (!s->run_plan) {
		free(c);
		fsb_err("matrix: out of memory");
		return FSB_EXIT_FAIL;
	}
	*s->run_plan = c->plan;
	s->run_plan->cfg.label = s->label;
	/* [global] repeat, unless the line says otherwise. */
	if (!s->run_plan->repeat_set && cfg->repeat_auto) {
		fsb_runner_repeat_auto(&s->run_plan->cfg);
		s->run_plan->repeat_set = true;
	} else if (!s->run_plan->repeat_set && cfg->repeat) {
		s->run_plan->cfg.repeat = cfg->repeat;
		s->run_plan->repeat_set = true;
	}
	free(c);
	return 0;
}

/*
 * The lifecycle's target and filesystem are the setup's: its first loop
 * device (given at execution), or a guest's /dev/vda, or the flash over it.
 */
static int lc_plan(const struct fsb_matrix_config *cfg, struct fsb_matrix_setup *s)
{
	const struct fsb_cli_nest nest = { "fsbench matrix", lc_refused };
	struct fsb_lc_cli *c = calloc(1, sizeof(*c));
	struct fsb_lc_plan *p;
	struct fsb_error why;
	struct fsb_err_scope scope;
	int n, rc;

	if (!c || (n = line_words("lifecycle", s->lifecycle, &s->lc_words)) < 0) {
		free(c);
		fsb_err("matrix: out of memory");
		return FSB_EXIT_FAIL;
	}
	fsb_error_clear(&why);
	fsb_err_capture_begin(&scope, &why, true);
	rc = fsb_lc_parse(n, s->lc_words, &nest, c);
	p = &c->plan;
	if (!rc) {
		p->fs_type = s->type;
		p->cfg.label = s->label;
		p->options = *s->options ? s->options : NULL;
		p->destroy_data = true;
		if (s->mtd_erase_bytes) {
			/* On flash the lifecycle knows how each type is made. */
			snprintf(s->mtd_spec, sizeof(s->mtd_spec), "/dev/vda,%llu",
				 (unsigned long long)s->mtd_erase_bytes);
			fsb_lc_plan_mtd(p, s->mtd_spec);
			if (fsb_matrix_mkfs_none(s->mkfs))
				p->mkfs_tmpl = "none";
		} else {
			p->mkfs_tmpl = s->mkfs;
			if (s->guest) {
				p->device = "/dev/vda";
			} else {
				p->device_later = true;
				p->fill = s->fill;
				p->fill_set = true;
			}
		}
		if (!p->repeat_set && cfg->repeat) {
			p->cfg.repeat = cfg->repeat;
			p->repeat_set = true;
		}
		rc = fsb_lc_plan_check(p) ? FSB_EXIT_USAGE : 0;
	}
	fsb_err_capture_end(&scope, 0);
	if (rc) {
		free(c);
		return refuse(cfg, s->lifecycle_line, "lifecycle", &why);
	}
	s->lc_plan = malloc(sizeof(*s->lc_plan));
	if (s->lc_plan)
		*s->lc_plan = *p;
	free(c);
	if (!s->lc_plan) {
		fsb_err("matrix: out of memory");
		return FSB_EXIT_FAIL;
	}
	return 0;
}

int fsb_matrix_lines_to_plans(struct fsb_matrix_config *cfg)
{
	int rc;

	for (size_t i = 0; i < cfg->nsetups; i++) {
		struct fsb_matrix_setup *s = &cfg->setups[i];

		if (!s->selected)
			continue;
		if (s->run && (rc = run_plan(cfg, s)))
			return rc;
		if (s->lifecycle && (rc = lc_plan(cfg, s)))
			return rc;
	}
	return 0;
}
