/*
 * Unit tests: the command-line parsers of src/cli/ (argv -> plan or a
 * usage error, one line), the shared option table and its getopt tail,
 * the command table and the completion script made from the tables.
 * Nothing here touches the system: each parser is a pure function.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/completion.h"
#include "cli/guest.h"
#include "cli/lifecycle.h"
#include "cli/matrix.h"
#include "cli/run.h"
#include "engines/engine.h"
#include "util/error.h"
#include "util/vocab.h"

/* The message of the usage error a parse described (captured, not printed).
 * argv is static: plans borrow it (getopt permutes it, once per call site). */
static struct fsb_error said;

/* fsb_matrix_parse has no nest either. */
static int matrix_parse(int argc, char **argv, const struct fsb_cli_nest *nest,
			struct fsb_matrix_cli *out)
{
	(void)nest;
	return fsb_matrix_parse(argc, argv, out);
}

/* A command with the shared options only (compare's), through the shared tail. */
static const struct fsb_cmd_spec plain_spec = {
	.name = "compare",
	.common = FSB_OPT_BASIC | FSB_OPT_FORMAT | FSB_OPT_OUTPUT,
};

static int plain_parse(int argc, char **argv, const struct fsb_cli_nest *nest,
		       struct fsb_common *co)
{
	int first;
	int rc = fsb_cli_getopt(&plain_spec, argc, argv, nest, NULL, co, &first);

	return rc ? rc : first;
}

/* fsb_guest_parse has no nest: the same shape as the others for PARSE. */
static int guest_parse(int argc, char **argv, const struct fsb_cli_nest *nest,
		       struct fsb_guest_cli *out)
{
	(void)nest;
	return fsb_guest_parse(argc, argv, out);
}

#define PARSE(fn, nest, out, ...)                                                        \
	({                                                                               \
		static char *argv_[] = { __VA_ARGS__, NULL };                            \
		struct fsb_err_scope sc_;                                                \
		int rc_;                                                                 \
		fsb_error_clear(&said);                                                  \
		fsb_err_capture_begin(&sc_, &said, true);                                \
		rc_ = fn((int)(sizeof(argv_) / sizeof(argv_[0])) - 1, argv_, nest, out); \
		fsb_err_capture_end(&sc_, 0);                                            \
		rc_;                                                                     \
	})

/* argv fails to parse with a message containing want. */
#define USAGE(fn, nest, out, want, ...)                                              \
	do {                                                                         \
		assert_int_equal(PARSE(fn, nest, out, __VA_ARGS__), FSB_EXIT_USAGE); \
		if (!strstr(said.msg, want))                                         \
			fail_msg("said '%s', want '%s'", said.msg, want);            \
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
	/* One job, the psync engine at depth 1, 4k random blocks. */
	assert_int_equal(c.plan.cfg.jobs, 1);
	assert_false(c.plan.cfg.shared_file || c.plan.cfg.shared_dir || c.plan.cfg.stonewall);
	assert_int_equal(c.plan.cfg.deadline_ns, 0);
	assert_non_null(c.plan.cfg.engine);
	assert_string_equal(c.plan.cfg.engine->name, "psync");
	assert_int_equal(c.plan.cfg.iodepth, 1);
	assert_int_equal(c.plan.cfg.block_bytes, 4096);
}

static void run_jobs_and_engines(void **state)
{
	struct fsb_run_cli c;

	(void)state;
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "-j", "8", "--shared-file",
			       "--shared-dir", "--stonewall", "--deadline", "2.5", "--engine",
			       "io_uring", "--iodepth", "32", "--block-size", "16k", "-t",
			       "random,write"),
			 0);
	assert_int_equal(c.plan.cfg.jobs, 8);
	assert_true(c.plan.cfg.shared_file && c.plan.cfg.shared_dir && c.plan.cfg.stonewall);
	assert_int_equal(c.plan.cfg.deadline_ns, 2500000000ull);
	assert_string_equal(c.plan.cfg.engine->name, "io_uring");
	assert_int_equal(c.plan.cfg.iodepth, 32);
	assert_int_equal(c.plan.cfg.block_bytes, 16384);
	assert_int_equal(c.plan.nops, 3);
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "--jobs=1024", "--iodepth=1024",
			       "--engine=null"),
			 0);
	assert_int_equal(c.plan.cfg.jobs, 1024);
	assert_string_equal(c.plan.cfg.engine->name, "null");
	USAGE(fsb_run_parse, NULL, &c, "invalid --jobs '0': expected a whole number from 1 to 1024",
	      "run", "-j", "0");
	USAGE(fsb_run_parse, NULL, &c, "invalid --jobs '1025'", "run", "--jobs", "1025");
	USAGE(fsb_run_parse, NULL, &c, "invalid --iodepth '0'", "run", "--iodepth", "0");
	USAGE(fsb_run_parse, NULL, &c, "invalid --iodepth '2000'", "run", "--iodepth", "2000");
	USAGE(fsb_run_parse, NULL, &c, "invalid --engine 'libaio': expected psync|io_uring|null",
	      "run", "--engine", "libaio");
	USAGE(fsb_run_parse, NULL, &c, "invalid --block-size: expected a power of two", "run",
	      "--block-size", "3000");
	USAGE(fsb_run_parse, NULL, &c, "invalid --block-size: expected a power of two", "run",
	      "--block-size", "256");
	USAGE(fsb_run_parse, NULL, &c, "invalid --deadline '0'", "run", "--deadline", "0");
	USAGE(fsb_run_parse, NULL, &c, "run: --size (4096 bytes) is smaller than --block-size",
	      "run", "-s", "4k", "--chunk", "4k", "--block-size", "8k", "-t", "randread");
	/* Without a random test, --block-size has nothing to be smaller than. */
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "-s", "4k", "--chunk", "4k",
			       "--block-size", "8k", "-t", "write"),
			 0);
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
			       "never", "-q", "/mnt/x"),
			 0);
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
	assert_false(c.plan.cfg.repeat_auto);
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
			       "auto", "--size", "10000", "--chunk", "4096"),
			 0);
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
	/* --repeat auto: 3 runs at least, more while the mean is uncertain. */
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "-r", "auto"), 0);
	assert_true(c.plan.cfg.repeat_auto);
	assert_int_equal(c.plan.cfg.repeat, 3);
	assert_true(c.plan.repeat_set);
}

static void run_usage_errors(void **state)
{
	struct fsb_run_cli c;

	(void)state;
	USAGE(fsb_run_parse, NULL, &c, "invalid --size '0'", "run", "-s", "0");
	USAGE(fsb_run_parse, NULL, &c, "invalid --size '12q'", "run", "--size", "12q");
	USAGE(fsb_run_parse, NULL, &c, "invalid --chunk: expected a power of two", "run", "--chunk",
	      "3k");
	USAGE(fsb_run_parse, NULL, &c, "invalid --char-size 'x'", "run", "--char-size", "x");
	USAGE(fsb_run_parse, NULL, &c, "invalid --char-io 'mmap'", "run", "--char-io", "mmap");
	USAGE(fsb_run_parse, NULL, &c, "invalid --seeks '0'", "run", "--seeks", "0");
	USAGE(fsb_run_parse, NULL, &c, "invalid --seekers '65'", "run", "--seekers", "65");
	USAGE(fsb_run_parse, NULL, &c, "invalid --files '1:2:3'", "run", "--files", "1:2:3");
	USAGE(fsb_run_parse, NULL, &c, "invalid --links 'sym'", "run", "--links", "sym");
	USAGE(fsb_run_parse, NULL, &c, "unknown test 'bogus'", "run", "-t", "bogus");
	USAGE(fsb_run_parse, NULL, &c,
	      "invalid --repeat 'Auto': expected a whole number from 1 to 1000, or auto", "run",
	      "-r", "Auto");
	USAGE(fsb_run_parse, NULL, &c, "invalid --repeat '0'", "run", "-r", "0");
	USAGE(fsb_run_parse, NULL, &c, "invalid --min-time '0'", "run", "--min-time", "0");
	/* decimal seconds only: strtod alone took 0x10 for 16 s */
	USAGE(fsb_run_parse, NULL, &c, "invalid --min-time '0x10'", "run", "--min-time", "0x10");
	USAGE(fsb_run_parse, NULL, &c, "invalid --deadline '0x1p-3'", "run", "--deadline",
	      "0x1p-3");
	USAGE(fsb_run_parse, NULL, &c, "invalid --cache 'none'", "run", "--cache", "none");
	USAGE(fsb_run_parse, NULL, &c, "invalid --seed '-1'", "run", "--seed", "-1");
	USAGE(fsb_run_parse, NULL, &c, "invalid --progress 'sometimes'", "run", "--progress",
	      "sometimes");
	USAGE(fsb_run_parse, NULL, &c, "run: --size (4096 bytes) is smaller than --chunk", "run",
	      "-s", "4k", "--chunk", "8k");
	USAGE(fsb_run_parse, NULL, &c, "run: --links makes links", "run", "--links", "hard",
	      "--files", "4:100");
	USAGE(fsb_run_parse, NULL, &c, "run: nothing to do: --files 0", "run", "--files", "0", "-t",
	      "files");
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
	static const char *const refused[] = { "format", "output",  "label", "progress",
					       "help",	 "version", NULL };
	const struct fsb_cli_nest nest = { "fsbench matrix", refused };
	struct fsb_run_cli c;

	(void)state;
	assert_int_equal(PARSE(fsb_run_parse, &nest, &c, "run", "--size", "4m", "-q"), 0);
	assert_int_equal(c.plan.cfg.size_bytes, 4 << 20);
	USAGE(fsb_run_parse, &nest, &c,
	      "option '--output' is set by fsbench matrix, not in the "
	      "file",
	      "run", "--output", "x");
	USAGE(fsb_run_parse, &nest, &c, "option '--format' is set by fsbench matrix", "run",
	      "--format=json");
	USAGE(fsb_run_parse, &nest, &c, "option '-l' is set by fsbench matrix", "run", "-ql", "x");
	USAGE(fsb_run_parse, &nest, &c, "option '--help' is set", "run", "--help");
	assert_int_equal(PARSE(fsb_run_parse, &nest, &c, "run", "/etc"), FSB_EXIT_USAGE);
	assert_string_equal(said.msg, "unexpected argument '/etc'");
	USAGE(fsb_run_parse, &nest, &c, "invalid --chunk", "run", "--chunk", "3k");
}

/* ---- lifecycle ---------------------------------------------------------- */

static void lc_defaults(void **state)
{
	struct fsb_lc_cli c;

	(void)state;
	assert_int_equal(
		PARSE(fsb_lc_parse, NULL, &c, "lifecycle", "--fs", "ext4", "--image", "/tmp/x.img"),
		0);
	assert_string_equal(c.plan.fs_type, "ext4");
	assert_string_equal(c.plan.mount_type, "ext4");
	assert_string_equal(c.plan.image, "/tmp/x.img");
	assert_null(c.plan.device);
	assert_null(c.plan.mtd);
	assert_null(c.plan.mkfs_tmpl);
	assert_string_equal(fsb_lc_plan_mkfs(&c.plan), "mkfs.ext4 -q -F {dev}");
	assert_null(c.plan.options);
	assert_int_equal(c.plan.cfg.repeat, 12);
	assert_false(c.plan.repeat_set);
	assert_int_equal(c.plan.copy_size, 16 << 20);
	assert_int_equal(c.plan.fill, FSB_FILL_FF); /* an image: erased flash */
	assert_false(c.plan.refill_set);
	assert_false(c.plan.destroy_data);
	assert_int_equal(c.plan.nops, 6);
	assert_string_equal(c.plan.ops[0]->name, "mkfs");
	assert_string_equal(c.plan.ops[5]->name, "read");
	/* A device is not filled unless asked. */
	assert_int_equal(
		PARSE(fsb_lc_parse, NULL, &c, "lifecycle", "--fs", "xfs", "--device", "/dev/sdz"),
		0);
	assert_int_equal(c.plan.fill, FSB_FILL_NONE);
	assert_string_equal(fsb_lc_plan_device(&c.plan), "/dev/sdz");
}

static void lc_each_option(void **state)
{
	struct fsb_lc_cli c;

	(void)state;
	assert_int_equal(PARSE(fsb_lc_parse, NULL, &c, "lifecycle", "--fs", "ext3", "--type",
			       "ext4", "--image", "i.img", "--image-size", "64m", "--destroy-data",
			       "--fill", "zero", "--refill", "each", "--phases", "mkfs,read",
			       "--mkfs", "mkfs.ext3 -q -F -J size=4 {dev}", "--options",
			       "data=journal", "--copy-size", "2m", "-r", "4", "-l", "L", "--seed",
			       "7", "-f", "json", "-o", "o.json", "--progress", "always", "-q"),
			 0);
	assert_string_equal(c.plan.mount_type, "ext4");
	assert_int_equal(c.plan.image_size, 64 << 20);
	assert_true(c.plan.destroy_data);
	assert_int_equal(c.plan.fill, FSB_FILL_ZERO);
	assert_true(c.plan.refill_set);
	assert_int_equal(c.plan.refill, FSB_LC_REFILL_EACH);
	assert_int_equal(c.plan.nops, 4); /* mkfs means its three timings */
	assert_string_equal(c.plan.ops[2]->name, "mkfs-umount");
	assert_string_equal(c.plan.ops[3]->name, "read");
	assert_string_equal(fsb_lc_plan_mkfs(&c.plan), "mkfs.ext3 -q -F -J size=4 {dev}");
	assert_string_equal(c.plan.options, "data=journal");
	assert_int_equal(c.plan.copy_size, 2 << 20);
	assert_int_equal(c.plan.cfg.repeat, 4);
	assert_true(c.plan.repeat_set);
	assert_string_equal(c.plan.cfg.label, "L");
	assert_int_equal(c.plan.cfg.seed, 7);
	assert_true(c.plan.seed_set);
	assert_string_equal(c.co.format, "json");
	assert_string_equal(c.co.output, "o.json");
	assert_int_equal(c.plan.progress, FSB_PROGRESS_ALWAYS);
	assert_true(c.plan.quiet);
	/* Flash: jffs2 is made by its first mount; ubifs by the UBI tools. */
	assert_int_equal(PARSE(fsb_lc_parse, NULL, &c, "lifecycle", "--fs", "jffs2", "--mtd",
			       "/dev/vda,128k", "--pre-erase"),
			 0);
	assert_string_equal(c.plan.mtd_dev, "/dev/vda");
	assert_int_equal(c.plan.mtd_erase_bytes, 128 << 10);
	assert_true(c.plan.pre_erase);
	assert_true(c.plan.destroy_data);
	assert_string_equal(fsb_lc_plan_mkfs(&c.plan), "none");
	assert_string_equal(fsb_lc_plan_device(&c.plan), "/dev/vda");
	assert_int_equal(c.plan.nops, 5); /* no mkfs step to time */
	assert_int_equal(PARSE(fsb_lc_parse, NULL, &c, "lifecycle", "--fs", "ubifs", "--mtd",
			       "/dev/vda,128k"),
			 0);
	assert_true(c.plan.ubi);
	assert_true(c.plan.refill_set);
	assert_int_equal(c.plan.refill, FSB_LC_REFILL_ONCE);
	assert_int_equal(PARSE(fsb_lc_parse, NULL, &c, "lifecycle", "--fs", "ext4", "--device",
			       "/dev/x", "--mkfs", "none", "--phases", "all"),
			 0);
	assert_int_equal(c.plan.nops, 5);
	assert_int_equal(PARSE(fsb_lc_parse, NULL, &c, "lifecycle", "--version"), 0);
	assert_int_equal(c.co.given, FSB_OPT_VERSION);
}

static void lc_usage_errors(void **state)
{
	struct fsb_lc_cli c;

	(void)state;
	USAGE(fsb_lc_parse, NULL, &c, "lifecycle: --fs TYPE is required", "lifecycle", "--image",
	      "x");
	USAGE(fsb_lc_parse, NULL, &c, "invalid --fs '../x'", "lifecycle", "--fs", "../x", "--image",
	      "x");
	USAGE(fsb_lc_parse, NULL, &c, "give exactly one of --image PATH, --device DEV and --mtd",
	      "lifecycle", "--fs", "ext4");
	USAGE(fsb_lc_parse, NULL, &c, "give exactly one of", "lifecycle", "--fs", "ext4", "--image",
	      "x", "--device", "/dev/x");
	USAGE(fsb_lc_parse, NULL, &c, "--pre-erase goes with --mtd", "lifecycle", "--fs", "ext4",
	      "--image", "x", "--pre-erase");
	USAGE(fsb_lc_parse, NULL, &c, "invalid --mtd '/dev/vda'", "lifecycle", "--mtd", "/dev/vda");
	USAGE(fsb_lc_parse, NULL, &c, "--fill does not go with --mtd", "lifecycle", "--fs", "jffs2",
	      "--mtd", "/dev/vda,128k", "--fill", "zero");
	USAGE(fsb_lc_parse, NULL, &c, "--mkfs does not go with --fs ubifs --mtd", "lifecycle",
	      "--fs", "ubifs", "--mtd", "/dev/vda,128k", "--mkfs", "x {dev}");
	USAGE(fsb_lc_parse, NULL, &c, "--pre-erase is for jffs2", "lifecycle", "--fs", "ubifs",
	      "--mtd", "/dev/vda,128k", "--pre-erase");
	USAGE(fsb_lc_parse, NULL, &c, "--image-size goes with --image", "lifecycle", "--fs", "ext4",
	      "--device", "/dev/x", "--image-size", "1g");
	USAGE(fsb_lc_parse, NULL, &c, "--image and --device need a path", "lifecycle", "--fs",
	      "ext4", "--image", "");
	USAGE(fsb_lc_parse, NULL, &c, "invalid --image-size '0'", "lifecycle", "--image-size", "0");
	USAGE(fsb_lc_parse, NULL, &c, "invalid --fill 'ones'", "lifecycle", "--fill", "ones");
	USAGE(fsb_lc_parse, NULL, &c, "invalid --refill 'never'", "lifecycle", "--refill", "never");
	USAGE(fsb_lc_parse, NULL, &c, "invalid --copy-size '5g': expected at most 4g", "lifecycle",
	      "--copy-size", "5g");
	USAGE(fsb_lc_parse, NULL, &c, "invalid --repeat '1001'", "lifecycle", "-r", "1001");
	USAGE(fsb_lc_parse, NULL, &c, "unknown phase 'fly'", "lifecycle", "--fs", "ext4", "--image",
	      "x", "--phases", "mkfs,fly");
	USAGE(fsb_lc_parse, NULL, &c, "invalid --mkfs 'mkfs.x \'{dev}': unterminated", "lifecycle",
	      "--fs", "ext4", "--image", "x", "--mkfs", "mkfs.x '{dev}");
	USAGE(fsb_lc_parse, NULL, &c, "invalid --mkfs 'mkfs.x {dev2}'", "lifecycle", "--fs", "ext4",
	      "--image", "x", "--mkfs", "mkfs.x {dev2}");
	USAGE(fsb_lc_parse, NULL, &c, "lifecycle: unexpected argument 'x'", "lifecycle", "x");
	USAGE(fsb_lc_parse, NULL, &c, "unknown option '--size'", "lifecycle", "--size", "1g");
}

/* ---- guest --------------------------------------------------------------- */

static void guest_defaults_and_options(void **state)
{
	struct fsb_guest_cli *c = calloc(1, sizeof(*c));

	(void)state;
	assert_non_null(c);
	assert_int_equal(PARSE(guest_parse, NULL, c, "guest", "--", "run"), 0);
	assert_string_equal(c->plan.accel, "auto");
	assert_int_equal(c->plan.memory_bytes, 1 << 30);
	assert_int_equal(c->plan.cpus, 1);
	assert_int_equal(c->plan.timeout_ns, 600000000000ull);
	assert_int_equal(c->plan.ndisks, 0);
	assert_false(c->plan.console);
	assert_null(c->plan.kernel);
	assert_null(c->plan.fs);
	assert_int_equal(c->plan.cmd_argc, 1);
	assert_string_equal(c->plan.cmd_argv[0], "run");
	/* The inner command went through run's own parser. */
	assert_int_equal(c->inner_run.plan.nops, 12);

	assert_int_equal(PARSE(guest_parse, NULL, c, "guest", "--kernel", "/k", "--modules", "/m",
			       "--disk", "64m", "--disk", "1g,fill=zero", "--memory", "2g",
			       "--cpus", "2", "--accel", "tcg", "--guest-timeout", "30",
			       "--console", "-f", "json", "-o", "r.json", "--", "lifecycle", "--fs",
			       "jffs2", "--mtd", "/dev/vda,128k", "--repeat", "1"),
			 0);
	assert_string_equal(c->plan.kernel, "/k");
	assert_string_equal(c->plan.modules, "/m");
	assert_int_equal(c->plan.ndisks, 2);
	assert_int_equal(c->plan.disk_bytes[0], 64 << 20);
	assert_int_equal(c->plan.disk_fill[0], FSB_FILL_FF);
	assert_int_equal(c->plan.disk_bytes[1], 1 << 30);
	assert_int_equal(c->plan.disk_fill[1], FSB_FILL_ZERO);
	assert_int_equal(c->plan.memory_bytes, 2ull << 30);
	assert_int_equal(c->plan.cpus, 2);
	assert_string_equal(c->plan.accel, "tcg");
	assert_int_equal(c->plan.timeout_ns, 30000000000ull);
	assert_true(c->plan.console);
	assert_string_equal(c->co.format, "json");
	assert_string_equal(c->co.output, "r.json");
	/* The guest runs the words as given; the host parsed a copy. */
	assert_int_equal(c->plan.cmd_argc, 7);
	assert_string_equal(c->plan.cmd_argv[1], "--fs");
	assert_string_equal(c->inner_lc.plan.fs_type, "jffs2");
	assert_int_equal(c->inner_lc.plan.cfg.repeat, 1);
	free(c);
}

/* --fs, --mkfs, --options: the filesystem run measures in the guest. */
static void guest_fs_mkfs_options(void **state)
{
	struct fsb_guest_cli *c = calloc(1, sizeof(*c));

	(void)state;
	assert_non_null(c);
	assert_int_equal(PARSE(guest_parse, NULL, c, "guest", "--disk", "256m", "--fs", "reiserfs",
			       "--", "run", "--size", "16m"),
			 0);
	assert_string_equal(c->plan.fs, "reiserfs");
	assert_null(c->plan.mkfs); /* the type's default */
	assert_string_equal(c->plan.mkfs_default, "mkfs.reiserfs {dev}");
	assert_null(c->plan.options);
	assert_int_equal(c->inner_run.plan.cfg.size_bytes, 16 << 20);
	assert_int_equal(PARSE(guest_parse, NULL, c, "guest", "--disk", "256m,fill=zero", "--fs",
			       "reiserfs", "--mkfs", "mkreiserfs -q -f -f {dev}", "--options",
			       "notail", "--", "run"),
			 0);
	assert_string_equal(c->plan.mkfs, "mkreiserfs -q -f -f {dev}");
	assert_string_equal(c->plan.options, "notail");
	assert_int_equal(PARSE(guest_parse, NULL, c, "guest", "--disk", "64m", "--fs", "ext4",
			       "--mkfs", "mkfs.ext4 -q -F {dev}", "--", "run"),
			 0);
	USAGE(guest_parse, NULL, c, "guest: --fs goes with run", "guest", "--disk", "64m", "--fs",
	      "ext4", "--", "lifecycle", "--fs", "ext4", "--device", "/dev/vda");
	USAGE(guest_parse, NULL, c, "guest: --fs needs a disk", "guest", "--fs", "ext4", "--",
	      "run");
	USAGE(guest_parse, NULL, c, "guest: --mkfs and --options go with --fs", "guest", "--disk",
	      "64m", "--mkfs", "mkfs.ext4 {dev}", "--", "run");
	USAGE(guest_parse, NULL, c, "guest: --mkfs and --options go with --fs", "guest", "--disk",
	      "64m", "--options", "noatime", "--", "run");
	USAGE(guest_parse, NULL, c, "invalid --fs 'a/b'", "guest", "--disk", "64m", "--fs", "a/b",
	      "--", "run");
	USAGE(guest_parse, NULL, c, "invalid --mkfs 'mkfs.x {dev2}'", "guest", "--disk", "64m",
	      "--fs", "ext4", "--mkfs", "mkfs.x {dev2}", "--", "run");
	USAGE(guest_parse, NULL, c, "invalid --mkfs 'mkfs.x \"{dev}'", "guest", "--disk", "64m",
	      "--fs", "ext4", "--mkfs", "mkfs.x \"{dev}", "--", "run");
	free(c);
}

static void guest_usage_errors(void **state)
{
	struct fsb_guest_cli *c = calloc(1, sizeof(*c));

	(void)state;
	assert_non_null(c);
	USAGE(guest_parse, NULL, c, "guest: no command", "guest");
	USAGE(guest_parse, NULL, c, "guest: no command", "guest", "--disk", "64m", "--");
	USAGE(guest_parse, NULL, c, "cannot run 'compare' in a guest", "guest", "--", "compare",
	      "x.json");
	USAGE(guest_parse, NULL, c, "invalid --disk '100k'", "guest", "--disk", "100k", "--",
	      "run");
	USAGE(guest_parse, NULL, c, "invalid --memory '64m'", "guest", "--memory", "64m", "--",
	      "run");
	USAGE(guest_parse, NULL, c, "invalid --cpus '0'", "guest", "--cpus", "0", "--", "run");
	USAGE(guest_parse, NULL, c, "invalid --accel 'xen'", "guest", "--accel", "xen", "--",
	      "run");
	USAGE(guest_parse, NULL, c, "invalid --guest-timeout 'x'", "guest", "--guest-timeout", "x",
	      "--", "run");
	USAGE(guest_parse, NULL, c, "'-f' belongs before '--'", "guest", "--", "lifecycle", "-f",
	      "json");
	USAGE(guest_parse, NULL, c, "'--output=x' belongs before '--'", "guest", "--", "run",
	      "--output=x");
	/* The inner command's own parser says what is wrong, before any boot. */
	USAGE(guest_parse, NULL, c, "unknown option '--bogus'", "guest", "--", "run", "--bogus");
	USAGE(guest_parse, NULL, c, "invalid --size '0'", "guest", "--", "run", "--size", "0");
	USAGE(guest_parse, NULL, c, "lifecycle: --fs TYPE is required", "guest", "--disk", "64m",
	      "--", "lifecycle", "--device", "/dev/vda");
	/* --version of the inner command is the guest's to print. */
	assert_int_equal(PARSE(guest_parse, NULL, c, "guest", "--", "run", "--version"), 0);
	assert_int_equal(c->co.given, 0);
	assert_int_equal(PARSE(guest_parse, NULL, c, "guest", "-h"), 0);
	assert_int_equal(c->co.given, FSB_OPT_HELP);
	free(c);
}

/* ---- matrix -------------------------------------------------------------- */

static void matrix_options(void **state)
{
	struct fsb_matrix_cli *c = calloc(1, sizeof(*c));

	(void)state;
	assert_non_null(c);
	assert_int_equal(PARSE(matrix_parse, NULL, c, "matrix", "m.ini"), 0);
	assert_string_equal(c->config, "m.ini");
	assert_string_equal(c->view->name, "text");
	assert_false(c->plan.fail_fast);
	assert_false(c->plan.keep_images);
	assert_null(c->only);
	assert_int_equal(c->plan.progress, FSB_PROGRESS_AUTO);
	assert_int_equal(PARSE(matrix_parse, NULL, c, "matrix", "--fail-fast", "--keep-images",
			       "--only", "a,b", "--progress", "never", "-f", "csv", "-o", "x.csv",
			       "m.ini"),
			 0);
	assert_true(c->plan.fail_fast);
	assert_true(c->plan.keep_images);
	assert_string_equal(c->only, "a,b");
	assert_int_equal(c->plan.progress, FSB_PROGRESS_NEVER);
	assert_string_equal(c->view->name, "csv");
	assert_string_equal(c->co.output, "x.csv");
	assert_int_equal(PARSE(matrix_parse, NULL, c, "matrix", "--fail-fast", "--keep-going",
			       "--format=json", "m.ini"),
			 0);
	assert_false(c->plan.fail_fast);
	assert_string_equal(c->view->name, "json");
	USAGE(matrix_parse, NULL, c, "matrix: a configuration file is required", "matrix");
	USAGE(matrix_parse, NULL, c, "matrix: unexpected argument 'b.ini' (one CONFIG.ini only)",
	      "matrix", "a.ini", "b.ini");
	USAGE(matrix_parse, NULL, c, "invalid --format 'bonnie': expected text, csv or json",
	      "matrix", "-f", "bonnie", "m.ini");
	USAGE(matrix_parse, NULL, c, "invalid --progress 'sometimes'", "matrix", "--progress",
	      "sometimes", "m.ini");
	/* Not the matrix's: --label, --seed, --quiet belong to run and lifecycle. */
	USAGE(matrix_parse, NULL, c, "unknown option '--label'", "matrix", "--label", "x", "m.ini");
	USAGE(matrix_parse, NULL, c, "unknown option '-q'", "matrix", "-q", "m.ini");
	free(c);
}

/* The shared option table and tail, for a command with no options of its own. */
static void shared_tail(void **state)
{
	struct fsb_common co;

	(void)state;
	/* The first operand's index comes back; shared values are kept. */
	assert_int_equal(PARSE(plain_parse, NULL, &co, "compare", "-f", "csv", "--output=o",
			       "a.json", "b.json"),
			 4);
	assert_string_equal(co.format, "csv");
	assert_string_equal(co.output, "o");
	assert_int_equal(co.given, FSB_OPT_FORMAT | FSB_OPT_OUTPUT);
	assert_int_equal(PARSE(plain_parse, NULL, &co, "compare", "--version", "--frob"), 2);
	assert_int_equal(co.given, FSB_OPT_VERSION);
	/* Only the shared options the command takes. */
	USAGE(plain_parse, NULL, &co, "unknown option '--seed'", "compare", "--seed", "1",
	      "a.json");
	USAGE(plain_parse, NULL, &co, "unknown option '-l'", "compare", "-l", "x", "a.json");
	USAGE(plain_parse, NULL, &co, "option '--format' needs a value", "compare", "--format");
	USAGE(plain_parse, NULL, &co, "option '-o' needs a value", "compare", "a.json", "-o");
	USAGE(plain_parse, NULL, &co, "unknown option '--verbose'", "compare", "--verbose");
	/* An outer command's options are refused, as are operands. */
	{
		static const char *const refused[] = { "output", NULL };
		const struct fsb_cli_nest nest = { "fsbench matrix", refused };

		USAGE(plain_parse, &nest, &co, "option '--output' is set by fsbench matrix",
		      "compare", "--output", "x");
		USAGE(plain_parse, &nest, &co, "unexpected argument 'a.json'", "compare", "a.json");
		assert_int_equal(PARSE(plain_parse, &nest, &co, "compare", "-f", "json"), 3);
	}
}

/* ---- the tables --------------------------------------------------------- */

/* Every command's table: what completion and the parser both rely on. */
static void tables_are_whole(void **state)
{
	size_t ncmds = 0, nhidden = 0;

	(void)state;
	for (const struct fsb_command *c = fsb_commands; c->spec; c++) {
		const struct fsb_opt *o[FSB_CLI_MAX_OPTS];
		size_t n = fsb_cli_options(c->spec, o, FSB_CLI_MAX_OPTS);

		ncmds++;
		nhidden += !c->summary;
		assert_non_null(c->fn);
		assert_ptr_equal(fsb_command_find(c->spec->name), c);
		assert_true(n < FSB_CLI_MAX_OPTS);
		/* --help and --version everywhere. */
		assert_true(n >= 2 && !strcmp(o[0]->name, "help") &&
			    !strcmp(o[1]->name, "version"));
		for (size_t i = 0; i < n; i++) {
			const char *words = NULL;

			assert_true(o[i]->value <= FSB_VAL_SECTIONS);
			assert_true(o[i]->code > 0 && o[i]->code < 1024);
			if (o[i]->value == FSB_VAL_WORD || o[i]->value == FSB_VAL_LIST) {
				assert_non_null(o[i]->words);
				words = o[i]->words();
			} else if (o[i]->value == FSB_VAL_FORMAT) {
				assert_non_null(c->spec->formats);
				words = c->spec->formats();
			} else {
				assert_null(o[i]->words);
			}
			if (words)
				assert_true(words[0] && !strchr(words, ' ') && !strchr(words, ','));
			/* Names and codes unique within the command. */
			for (size_t j = 0; j < i; j++) {
				if (!strcmp(o[i]->name, o[j]->name) || o[i]->code == o[j]->code)
					fail_msg("%s: --%s and --%s clash", c->spec->name,
						 o[j]->name, o[i]->name);
			}
		}
		if (c->spec->operands == FSB_VAL_COMMAND) {
			const char *w = c->spec->operand_words();

			/* Each inner command is a command of the table. */
			for (const char *p = w; *p;) {
				char name[32];
				size_t len = strcspn(p, "|");

				snprintf(name, sizeof(name), "%.*s", (int)len, p);
				assert_non_null(fsb_command_find(name));
				p += len + (p[len] == '|');
			}
		}
	}
	assert_int_equal(ncmds, 9);
	assert_int_equal(nhidden, 1);
	assert_null(fsb_command_find("nope"));
}

/* A letter code is the short option: -s is --size, -n --files, -r --repeat. */
static void short_forms_from_codes(void **state)
{
	struct fsb_run_cli c;
	struct fsb_lc_cli l;

	(void)state;
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "-s", "2m", "-r", "2", "-t", "write",
			       "-n", "0", "-q", "-l", "x", "-f", "json"),
			 0);
	assert_int_equal(c.plan.cfg.size_bytes, 2u << 20);
	assert_int_equal(c.plan.cfg.repeat, 2);
	assert_string_equal(c.plan.tests, "write");
	assert_true(c.co.quiet);
	/* A flag takes no value; a code past 255 has no letter. */
	USAGE(fsb_run_parse, NULL, &c, "unknown option '-y'", "run", "-y");
	assert_int_equal(PARSE(fsb_lc_parse, NULL, &l, "lifecycle", "--fs", "ext4", "--image",
			       "x.img", "-r", "4"),
			 0);
	assert_int_equal(l.plan.cfg.repeat, 4);
	USAGE(fsb_lc_parse, NULL, &l, "unknown option '-s'", "lifecycle", "-s", "1m");
}

/* A word option says what it expects, from the vocabulary it is checked with. */
static void word_options(void **state)
{
	struct fsb_run_cli c;
	struct fsb_lc_cli l;

	(void)state;
	USAGE(fsb_run_parse, NULL, &c, "invalid --char-io 'x': expected stdio or syscall", "run",
	      "--char-io", "x");
	USAGE(fsb_run_parse, NULL, &c, "invalid --links 'x': expected hard or soft", "run",
	      "--links", "x");
	USAGE(fsb_run_parse, NULL, &c,
	      "invalid --cache 'x': expected drop, direct, keep or drop-all", "run", "--cache",
	      "x");
	USAGE(fsb_run_parse, NULL, &c,
	      "invalid --progress 'x': expected auto, always, never or json", "run", "--progress",
	      "x");
	USAGE(fsb_lc_parse, NULL, &l, "invalid --refill 'x': expected each or once", "lifecycle",
	      "--refill", "x");
	USAGE(fsb_lc_parse, NULL, &l, "invalid --fill 'x': expected 0xff, zero, random or none",
	      "lifecycle", "--fill", "x");
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "--char-io", "syscall", "--links",
			       "soft", "--files", "4", "--cache", "keep"),
			 0);
	assert_int_equal(c.plan.cfg.char_io, FSB_CHAR_SYSCALL);
	assert_int_equal(c.plan.cfg.links, FSB_LINKS_SOFT);
	assert_int_equal(c.plan.cfg.cache, FSB_CACHE_KEEP);
	assert_int_equal(PARSE(fsb_run_parse, NULL, &c, "run", "--char-io", "stdio", "--links",
			       "hard", "--files", "4"),
			 0);
	assert_int_equal(c.plan.cfg.char_io, FSB_CHAR_STDIO);
	assert_int_equal(c.plan.cfg.links, FSB_LINKS_HARD);
	assert_int_equal(PARSE(fsb_lc_parse, NULL, &l, "lifecycle", "--fs", "ext4", "--image",
			       "x.img", "--refill", "once", "--fill", "ff"),
			 0);
	assert_int_equal(l.plan.refill, FSB_LC_REFILL_ONCE);
	/* The fill's aliases are accepted, only the canonical names offered. */
	assert_int_equal(l.plan.fill, FSB_FILL_FF);
	assert_int_equal(fsb_vocab_find(fsb_fill_names(), "ff"), -1);
}

/* The completion script names every option of every command, with its kind. */
static void completion_from_tables(void **state)
{
	char *text = NULL, line[256];
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	(void)state;
	assert_non_null(mem);
	assert_int_equal(fsb_completion_write(mem, "bash"), 0);
	assert_int_equal(fsb_completion_write(mem, "zsh"), -EINVAL);
	assert_int_equal(fclose(mem), 0);
	/* The visible commands only. */
	assert_non_null(strstr(
		text,
		"\n_fsbench_commands='run lifecycle matrix compare report show guest clean'\n"));
	for (const struct fsb_command *c = fsb_commands; c->spec; c++) {
		const struct fsb_opt *o[FSB_CLI_MAX_OPTS];
		size_t n = fsb_cli_options(c->spec, o, FSB_CLI_MAX_OPTS);

		for (size_t i = 0; i < n; i++) {
			/* In the command's option list ... */
			snprintf(line, sizeof(line), "--%s", o[i]->name);
			assert_non_null(strstr(text, line));
			if (o[i]->value == FSB_VAL_NONE)
				continue;
			/* ... and, taking a value, in the table of values. */
			snprintf(line, sizeof(line), "\t%s:--%s", c->spec->name, o[i]->name);
			if (!strstr(text, line))
				fail_msg("no '%s' in the script", line);
		}
	}
	assert_non_null(strstr(text, "\trun:--tests | run:-t) _fsb_kind=list _fsb_words='putc "));
	assert_non_null(strstr(text, "\tmatrix:--only) _fsb_kind=sections ;;\n"));
	assert_non_null(
		strstr(text, "\tlifecycle:--format | lifecycle:-f) _fsb_kind=word _fsb_words='text "
			     "lifecycle json markdown' ;;\n"));
	assert_non_null(
		strstr(text, "\t\t_fsb_operands=command _fsb_operand_words='run lifecycle'\n"));
	assert_non_null(strstr(text, "\ncomplete -F _fsbench fsbench\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(run_defaults),
		cmocka_unit_test(run_each_option),
		cmocka_unit_test(run_jobs_and_engines),
		cmocka_unit_test(run_usage_errors),
		cmocka_unit_test(run_nested),
		cmocka_unit_test(lc_defaults),
		cmocka_unit_test(lc_each_option),
		cmocka_unit_test(lc_usage_errors),
		cmocka_unit_test(guest_defaults_and_options),
		cmocka_unit_test(guest_fs_mkfs_options),
		cmocka_unit_test(guest_usage_errors),
		cmocka_unit_test(matrix_options),
		cmocka_unit_test(shared_tail),
		cmocka_unit_test(tables_are_whole),
		cmocka_unit_test(short_forms_from_codes),
		cmocka_unit_test(word_options),
		cmocka_unit_test(completion_from_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
