/*
 * Unit tests of the seeks workload's failures: whatever the seekers meet
 * (the file cut short under them, data that is not fsbench's), the parent
 * says it in exactly one line naming the step, and passes the error up.
 * Found by the fault-injection sweep (t9100): an I/O error in a seeker
 * was printed by nobody (exit 1, no message), and several failing seekers
 * printed one line each. An explicit --seeks larger than a run can do
 * (every chunk once) was cut to that without a word.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/registry.h"
#include "core/runner.h"
#include "report/result.h"
#include "util/scratch.h"
#include "workloads/blockfile.h"

struct env {
	char parent[64];
	char dir[4096];
	struct fsb_config cfg;
	struct fsb_ctx ctx;
	const struct fsb_workload_ops *ops;
	void *priv;
};

static int env_setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	snprintf(e->parent, sizeof(e->parent), "/tmp/fsb-seeks-XXXXXX");
	assert_non_null(mkdtemp(e->parent));
	assert_int_equal(fsb_scratch_create(e->parent, e->dir, sizeof(e->dir)), 0);
	e->cfg = (struct fsb_config){
		.repeat = 1,
		.cache = FSB_CACHE_KEEP,
		.seed = 7,
		.size_bytes = 256 << 10,
		.chunk_bytes = 8192,
		.seeks = 300,
		.seekers = 3,
	};
	e->ctx = (struct fsb_ctx){ .cfg = &e->cfg, .dir = e->dir, .work = 300 };
	e->ops = fsb_registry_find("seeks");
	assert_non_null(e->ops);
	e->priv = calloc(1, e->ops->priv_size);
	assert_non_null(e->priv);
	*state = e;
	return 0;
}

static int env_teardown(void **state)
{
	struct env *e = *state;

	e->ops->teardown(&e->ctx, e->priv);
	free(e->priv);
	assert_int_equal(fsb_scratch_remove(e->dir), 0);
	rmdir(e->parent);
	free(e);
	return 0;
}

/* stderr from capture_begin to capture_end, into a temporary file. */
struct capture {
	FILE *f;
	int saved;
};

static void capture_begin(struct capture *c)
{
	c->f = tmpfile();
	assert_non_null(c->f);
	fflush(stderr);
	c->saved = dup(STDERR_FILENO);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->f), STDERR_FILENO) >= 0);
}

/* What was captured, into buf (and the test log). */
static void capture_end(struct capture *c, char *buf, size_t len)
{
	size_t n;

	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	rewind(c->f);
	n = fread(buf, 1, len - 1, c->f);
	buf[n] = '\0';
	fclose(c->f);
	fputs(buf, stderr);
}

/* Run setup, spoil the file with spoil(), run; stderr of the run in buf. */
static int run_spoiled(struct env *e, void (*spoil)(const char *path), char *buf, size_t len)
{
	struct fsb_hist hist;
	struct fsb_sink sink = { .hist = &hist };
	struct capture c;
	char path[4096];
	int err;

	assert_int_equal(e->ops->setup(&e->ctx, e->priv), 0);
	assert_int_equal(fsb_scratch_path(e->ctx.dir, FSB_BLOCKFILE_NAME, path, sizeof(path)), 0);
	spoil(path);
	fsb_hist_init(&hist);
	capture_begin(&c);
	err = e->ops->run(&e->ctx, e->priv, &sink);
	capture_end(&c, buf, len);
	return err;
}

static void cut_short(const char *path)
{
	assert_int_equal(truncate(path, 0), 0);
}

static void zeroed(const char *path)
{
	int fd = open(path, O_WRONLY);
	static char zero[256 << 10];

	assert_true(fd >= 0);
	assert_int_equal(write(fd, zero, sizeof(zero)), (ssize_t)sizeof(zero));
	close(fd);
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void file_cut_short_is_one_line(void **state)
{
	struct env *e = *state;
	char err[4096];

	assert_int_equal(run_spoiled(e, cut_short, err, sizeof(err)), -EIO);
	assert_int_equal(lines(err), 1);
	assert_non_null(strstr(err, "fsbench: seeks: seeker "));
	assert_non_null(strstr(err, " cannot read '"));
	assert_non_null(strstr(err, " (and 2 other seekers): unexpected end of file\n"));
}

static void foreign_data_is_one_line(void **state)
{
	struct env *e = *state;
	char err[4096];

	assert_int_equal(run_spoiled(e, zeroed, err, sizeof(err)), -EIO);
	assert_int_equal(lines(err), 1);
	assert_non_null(strstr(err, "fsbench: seeks: seeker "));
	assert_non_null(strstr(err, " found a data mismatch in '"));
	assert_non_null(
		strstr(err, "(and 2 other seekers): not fsbench data (zeroed or foreign)\n"));
}

/* Measure the seeks test through the runner; its stderr in buf, the
 * work of its runs returned. */
static uint64_t measure(struct env *e, char *buf, size_t len)
{
	struct fsb_runner rn = { .cfg = &e->cfg, .dir = e->dir };
	const struct fsb_test_result *t;
	struct fsb_result res;
	struct capture c;
	uint64_t work;
	int err;

	assert_int_equal(fsb_result_init(&res, "run"), 0);
	capture_begin(&c);
	err = fsb_runner_measure(&rn, e->ops, &res);
	capture_end(&c, buf, len);
	assert_int_equal(err, 0);
	t = fsb_result_find(&res, "seeks");
	assert_non_null(t);
	work = t->work;
	fsb_result_release(&res);
	return work;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/* 256 KiB of 8 KiB chunks by 3 seekers: 30 seeks a run at most. */
static void explicit_seeks_cut_is_said_once(void **state)
{
	struct env *e = *state;
	char err[4096];

	e->cfg.seeks = 100000;
	e->cfg.seeks_given = true;
	e->cfg.min_time_ns = 1000000;
	assert_int_equal(measure(e, err, sizeof(err)), 30);
	assert_int_equal(count(err, "fsbench: warning: seeks: --seeks 100000 is more than a run "
				    "can do: 30 seeks a run, every chunk of the 256.0 KiB block "
				    "file once"),
			 1);
}

/* The default --seeks cut to the file is no news: nothing said. */
static void default_seeks_cut_is_silent(void **state)
{
	struct env *e = *state;
	char err[4096];

	e->cfg.seeks = 8192;
	e->cfg.min_time_ns = 1000000;
	assert_int_equal(measure(e, err, sizeof(err)), 30);
	assert_null(strstr(err, "--seeks"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(file_cut_short_is_one_line, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(foreign_data_is_one_line, env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(explicit_seeks_cut_is_said_once, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(default_seeks_cut_is_silent, env_setup,
						env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
