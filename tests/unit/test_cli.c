/*
 * Unit tests: the command-line parsers of src/cli/ (argv -> plan or a
 * usage error, one line), the shared option table and its getopt tail.
 * Nothing here touches the system: each parser is a pure function.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"
#include "util/error.h"

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
#define ARGC(v) ((int)(sizeof(v) / sizeof(v[0])) - 1)

/* The message of the usage error a parse described (captured, not printed). */
static struct fsb_error said;

#define PARSE(fn, nest, out, ...)                                                   \
	({                                                                          \
		char *argv_[] = { __VA_ARGS__, NULL };                              \
		struct fsb_err_scope sc_;                                           \
		int rc_;                                                            \
		fsb_error_clear(&said);                                             \
		fsb_err_capture_begin(&sc_, &said, true);                           \
		rc_ = fn((int)(sizeof(argv_) / sizeof(argv_[0])) - 1, argv_, nest, out); \
		fsb_err_capture_end(&sc_, 0);                                       \
		rc_;                                                                \
	})

/* argv fails to parse with a message containing want. */
#define USAGE(fn, nest, out, want, ...)                                             \
	do {                                                                        \
		assert_int_equal(PARSE(fn, nest, out, __VA_ARGS__), FSB_EXIT_USAGE); \
		if (!strstr(said.msg, want))                                        \
			fail_msg("said '%s', want '%s'", said.msg, want);           \
	} while (0)

/* ---- run ---------------------------------------------------------------- */

static void run_defaults(void **state)
{
	struct fsb_run_cli c;

	(void)state;
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run"), 0);
	assert_string_equal(c.dir, ".");
	assert_null(c.co.format);
	assert_null(c.co.output);
	assert_int_equal(c.co.given, 0);
	assert_int_equal(c.plan.cfg.size_bytes, 1ull << 30);
	assert_int_equal(c.plan.cfg.chunk_bytes, 8192);
	assert_int_equal(c.plan.cfg.char_size_bytes, 0);
	assert_int_equal(c.plan.cfg.char_io, FSB_CHAR_STDIO);
	assert_int_equal(c.plan.cfg.seeks, 8192);
	assert_int_equal(c.plan.cfg.seekers, 3);
	assert_int_equal(c.plan.cfg.files, 16384);
	assert_int_equal(c.plan.cfg.repeat, 3);
	assert_int_equal(c.plan.cfg.min_time_ns, 500000000);
	assert_int_equal(c.plan.cfg.cache, FSB_CACHE_DROP);
	assert_false(c.plan.seed_set);
	assert_false(c.plan.repeat_set);
	assert_null(c.plan.cfg.label);
	assert_int_equal(c.plan.progress, FSB_PROGRESS_AUTO);
	assert_false(c.plan.quiet);
	/* Every test of the throughput and files families, in registry order. */
	assert_int_equal(c.plan.nops, 12);
	assert_string_equal(c.plan.ops[0]->name, "putc");
	assert_string_equal(c.plan.ops[11]->name, "rand-delete");
}

static void run_each_option(void **state)
{
	struct fsb_run_cli c;

	(void)state;
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "-s", "64m", "--chunk", "4k",
			       "--char-size", "1m", "--char-io", "syscall", "--seeks", "100",
			       "--seekers", "5", "-n", "2k:100:10:4", "--sync", "-t", "write,read",
			       "-r", "7", "--min-time", "250ms", "--cache", "direct", "-l", "lab",
			       "--seed", "42", "-f", "json", "-o", "out.json", "--progress",
			       "never", "-q", "/mnt/x"), 0);
	assert_string_equal(c.dir, "/mnt/x");
	assert_int_equal(c.plan.cfg.size_bytes, 64 << 20);
	assert_int_equal(c.plan.cfg.chunk_bytes, 4096);
	assert_int_equal(c.plan.cfg.char_size_bytes, 1 << 20);
	assert_int_equal(c.plan.cfg.char_io, FSB_CHAR_SYSCALL);
	assert_int_equal(c.plan.cfg.seeks, 100);
	assert_int_equal(c.plan.cfg.seekers, 5);
	assert_int_equal(c.plan.cfg.files, 2048);
	assert_int_equal(c.plan.cfg.file_max_bytes, 100);
	assert_int_equal(c.plan.cfg.file_min_bytes, 10);
	assert_int_equal(c.plan.cfg.file_dirs, 4);
	assert_true(c.plan.cfg.sync);
	assert_int_equal(c.plan.nops, 2);
	assert_string_equal(c.plan.ops[0]->name, "write");
	assert_string_equal(c.plan.ops[1]->name, "read");
	assert_int_equal(c.plan.cfg.repeat, 7);
	assert_true(c.plan.repeat_set);
	assert_int_equal(c.plan.cfg.min_time_ns, 250000000);
	assert_int_equal(c.plan.cfg.cache, FSB_CACHE_DIRECT);
	assert_string_equal(c.plan.cfg.label, "lab");
	assert_int_equal(c.plan.cfg.seed, 42);
	assert_true(c.plan.seed_set);
	assert_string_equal(c.co.format, "json");
	assert_string_equal(c.co.output, "out.json");
	assert_int_equal(c.plan.progress, FSB_PROGRESS_NEVER);
	assert_true(c.plan.quiet);
	/* --links; --char-size auto; --size rounded down to whole chunks. */
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "--links", "soft", "--char-size",
			       "auto", "--size", "10000", "--chunk", "4096"), 0);
	assert_int_equal(c.plan.cfg.links, FSB_LINKS_SOFT);
	assert_int_equal(c.plan.cfg.char_size_bytes, 0);
	assert_int_equal(c.plan.cfg.size_bytes, 8192);
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "--links=hard"), 0);
	assert_int_equal(c.plan.cfg.links, FSB_LINKS_HARD);
	/* --files 0 drops the metadata suite. */
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "--files", "0"), 0);
	assert_int_equal(c.plan.nops, 6);
	assert_string_equal(c.plan.ops[5]->name, "seeks");
	/* --help and --version stop the parse; the command prints. */
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "--help", "--bogus"), 0);
	assert_int_equal(c.co.given, FSB_OPT_HELP);
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "-V"), 0);
	assert_int_equal(c.co.given, FSB_OPT_VERSION);
}

static void run_usage_errors(void **state)
{
	struct fsb_run_cli c;

	(void)state;
	USAGE(fsb_run_parse, NULL, &c, "invalid --size '0'", "run", "-s", "0");
	USAGE(fsb_run_parse, NULL, &c, "invalid --size '12q'", "run", "--size", "12q");
	USAGE(fsb_run_parse, NULL, &c, "invalid --chunk: expected a power of two", "run",
	      "--chunk", "3k");
	USAGE(fsb_run_parse, NULL, &c, "invalid --char-size 'x'", "run", "--char-size", "x");
	USAGE(fsb_run_parse, NULL, &c, "invalid --char-io 'mmap'", "run", "--char-io", "mmap");
	USAGE(fsb_run_parse, NULL, &c, "invalid --seeks '0'", "run", "--seeks", "0");
	USAGE(fsb_run_parse, NULL, &c, "invalid --seekers '65'", "run", "--seekers", "65");
	USAGE(fsb_run_parse, NULL, &c, "invalid --files '1:2:3'", "run", "--files", "1:2:3");
	USAGE(fsb_run_parse, NULL, &c, "invalid --links 'sym'", "run", "--links", "sym");
	USAGE(fsb_run_parse, NULL, &c, "unknown test 'bogus'", "run", "-t", "bogus");
	USAGE(fsb_run_parse, NULL, &c, "invalid --repeat '0'", "run", "-r", "0");
	USAGE(fsb_run_parse, NULL, &c, "invalid --min-time '0'", "run", "--min-time", "0");
	USAGE(fsb_run_parse, NULL, &c, "invalid --cache 'none'", "run", "--cache", "none");
	USAGE(fsb_run_parse, NULL, &c, "invalid --seed '-1'", "run", "--seed", "-1");
	USAGE(fsb_run_parse, NULL, &c, "invalid --progress 'sometimes'", "run", "--progress",
	      "sometimes");
	USAGE(fsb_run_parse, NULL, &c, "run: --size (4096 bytes) is smaller than --chunk", "run",
	      "-s", "4k", "--chunk", "8k");
	USAGE(fsb_run_parse, NULL, &c, "run: --links makes links", "run", "--links", "hard",
	      "--files", "4:100");
	USAGE(fsb_run_parse, NULL, &c, "run: nothing to do: --files 0", "run", "--files", "0",
	      "-t", "files");
	USAGE(fsb_run_parse, NULL, &c, "run: unexpected argument 'b' (one DIR only)", "run", "a",
	      "b");
	/* The shared tail: unknown options, missing values. */
	USAGE(fsb_run_parse, NULL, &c, "unknown option '--frob' (see --help)", "run", "--frob");
	USAGE(fsb_run_parse, NULL, &c, "unknown option '-z' (see --help)", "run", "-z");
	USAGE(fsb_run_parse, NULL, &c, "option '--size' needs a value", "run", "--size");
	USAGE(fsb_run_parse, NULL, &c, "option '-s' needs a value", "run", "-s");
}

/* A matrix line: the options the matrix sets are refused, and so is DIR. */
static void run_nested(void **state)
{
	static const char *const refused[] = { "format", "output", "label", "progress", "help",
					       "version", NULL };
	const struct fsb_cli_nest nest = { "fsbench matrix", refused };
	struct fsb_run_cli c;

	(void)state;
	assert_int_equal(PARSE(fsb_run_parse, &nest, &c, "run", "--size", "4m", "-q"), 0);
	assert_int_equal(c.plan.cfg.size_bytes, 4 << 20);
	USAGE(fsb_run_parse, &nest, &c, "option '--output' is set by fsbench matrix, not in the "
	      "file", "run", "--output", "x");
	USAGE(fsb_run_parse, &nest, &c, "option '--format' is set by fsbench matrix", "run",
	      "--format=json");
	USAGE(fsb_run_parse, &nest, &c, "option '-l' is set by fsbench matrix", "run", "-ql", "x");
	USAGE(fsb_run_parse, &nest, &c, "option '--help' is set", "run", "--help");
	assert_int_equal(PARSE(fsb_run_parse, &nest, &c, "run", "/etc"), FSB_EXIT_USAGE);
	assert_string_equal(said.msg, "unexpected argument '/etc'");
	USAGE(fsb_run_parse, &nest, &c, "invalid --chunk", "run", "--chunk", "3k");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(run_defaults),
		cmocka_unit_test(run_each_option),
		cmocka_unit_test(run_usage_errors),
		cmocka_unit_test(run_nested),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
