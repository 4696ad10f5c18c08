#include "cli/options.h"
#include "util/error.h"
#include "util/size.h"
#include "util/version.h"
#include "util/vocab.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Codes of the shared options without a letter; a command's own are below. */
enum { CODE_SEED = 0x200, CODE_PROGRESS };

/* The one table of the options every command may have. */
static const struct {
	unsigned bit;
	struct fsb_opt opt;
} shared[] = {
	{ FSB_OPT_HELP, { "help", 'h', FSB_VAL_NONE, NULL } },
	{ FSB_OPT_VERSION, { "version", 'V', FSB_VAL_NONE, NULL } },
	{ FSB_OPT_FORMAT, { "format", 'f', FSB_VAL_FORMAT, NULL } },
	{ FSB_OPT_OUTPUT, { "output", 'o', FSB_VAL_FILE, NULL } },
	{ FSB_OPT_LABEL, { "label", 'l', FSB_VAL_TEXT, NULL } },
	{ FSB_OPT_SEED, { "seed", CODE_SEED, FSB_VAL_NUMBER, NULL } },
	{ FSB_OPT_PROGRESS, { "progress", CODE_PROGRESS, FSB_VAL_WORD, fsb_progress_names } },
	{ FSB_OPT_QUIET, { "quiet", 'q', FSB_VAL_NONE, NULL } },
};
#define NSHARED (sizeof(shared) / sizeof(shared[0]))

int fsb_opt_short(const struct fsb_opt *o)
{
	return o->code > 0 && o->code < 256 && isalpha(o->code) ? o->code : 0;
}

size_t fsb_cli_options(const struct fsb_cmd_spec *spec, const struct fsb_opt **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < NSHARED && n < max; i++)
		if (spec->common & shared[i].bit)
			out[n++] = &shared[i].opt;
	for (size_t i = 0; spec->opts && spec->opts[i].name && n < max; i++)
		out[n++] = &spec->opts[i];
	return n;
}

int fsb_opt_bad(const char *opt, const char *arg, const char *want)
{
	if (arg)
		fsb_err("invalid %s '%s': expected %s", opt, arg, want);
	else
		fsb_err("invalid %s: expected %s", opt, want);
	return FSB_EXIT_USAGE;
}

int fsb_opt_size(const char *opt, const char *arg, uint64_t *out)
{
	uint64_t v;

	if (fsb_size_parse(arg, &v) || !v)
		return fsb_opt_bad(opt, arg, "a positive size such as 512m, 8k or 2g");
	*out = v;
	return 0;
}

int fsb_cli_result_files(const char *cmd, int i, int argc, char **argv)
{
	if (i >= argc) {
		fsb_err("%s: no result files (see --help)", cmd);
		return FSB_EXIT_USAGE;
	}
	for (; i < argc; i++)
		if (!argv[i][0]) {
			fsb_err("%s: an empty file name: give the path of a result file", cmd);
			return FSB_EXIT_USAGE;
		}
	return 0;
}

bool fsb_opt_is_count(const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!arg || !isdigit((unsigned char)arg[0]))
		return false;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

int fsb_opt_count(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	char want[96];

	if (fsb_opt_is_count(arg, min, max, out))
		return 0;
	snprintf(want, sizeof(want), "a whole number from %llu to %llu", (unsigned long long)min,
		 (unsigned long long)max);
	return fsb_opt_bad(opt, arg, want);
}

int fsb_opt_seconds(const char *opt, const char *arg, uint64_t *out_ns)
{
	char *end;
	double v, scale = 1e9;

	/* Decimal only: strtod would also take "0x10" (16 s) or "0x1p-3". */
	if ((!isdigit((unsigned char)arg[0]) && arg[0] != '.') || strpbrk(arg, "xX"))
		return fsb_opt_bad(opt, arg, "seconds such as 0.5, 2 or 500ms");
	errno = 0;
	v = strtod(arg, &end);
	if (!strcmp(end, "ms"))
		scale = 1e6;
	else if (*end && strcmp(end, "s"))
		return fsb_opt_bad(opt, arg, "seconds such as 0.5, 2 or 500ms");
	v *= scale;
	/* Under 1 ms a run is mostly the clock's own cost (and 1e-9 is 1 ns). */
	if (errno || !isfinite(v) || v < 1e6 || v > 86400e9)
		return fsb_opt_bad(opt, arg, "seconds between 1ms and one day");
	*out_ns = (uint64_t)v;
	return 0;
}

int fsb_opt_cache(const char *arg, enum fsb_cache_mode *out)
{
	unsigned i;

	if (fsb_opt_word("--cache", arg, fsb_cache_mode_names(), &i) ||
	    fsb_cache_mode_parse(arg, out))
		return FSB_EXIT_USAGE;
	/* The one mode that touches the rest of the machine is root's:
	 * refused here, before any work, rather than silently not done. */
	if (*out == FSB_CACHE_DROP_ALL && geteuid() != 0) {
		fsb_err("--cache drop-all: needs root (it writes /proc/sys/vm/drop_caches)");
		return FSB_EXIT_USAGE;
	}
	return 0;
}

int fsb_opt_data(const char *arg, struct fsb_data *out)
{
	if (fsb_data_parse(arg, out))
		return fsb_opt_bad("--data", arg,
				   "random, zero, compressible:PCT or dedupe:PCT (PCT 0 to 100)");
	return 0;
}

int fsb_opt_word(const char *opt, const char *arg, const char *words, unsigned *index)
{
	char want[256];
	int i = fsb_vocab_find(words, arg);

	if (i < 0)
		return fsb_opt_bad(opt, arg, fsb_vocab_describe(words, want, sizeof(want)));
	*index = (unsigned)i;
	return 0;
}

/* getopt's '?' or ':' for argv: one line; FSB_EXIT_USAGE. */
static int unknown(int argc, char **argv, int c)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";

	if (c == ':')
		fsb_err("option '%s' needs a value (see --help)", arg);
	else if (optopt)
		fsb_err("unknown option '-%c' (see --help)", optopt);
	else
		fsb_err("unknown option '%s' (see --help)", arg);
	return FSB_EXIT_USAGE;
}

static int shared_option(int c, const char *arg, struct fsb_common *co)
{
	uint64_t v;
	unsigned i;

	switch (c) {
	case 'h':
		co->given |= FSB_OPT_HELP;
		return 0;
	case 'V':
		co->given |= FSB_OPT_VERSION;
		return 0;
	case 'f':
		co->format = arg;
		co->given |= FSB_OPT_FORMAT;
		return 0;
	case 'o':
		co->output = arg;
		co->given |= FSB_OPT_OUTPUT;
		return 0;
	case 'l':
		co->label = arg;
		co->given |= FSB_OPT_LABEL;
		return 0;
	case CODE_SEED:
		if (fsb_opt_count("--seed", arg, 0, UINT64_MAX, &v))
			return FSB_EXIT_USAGE;
		co->seed = v;
		co->given |= FSB_OPT_SEED;
		return 0;
	case CODE_PROGRESS:
		if (fsb_opt_word("--progress", arg, fsb_progress_names(), &i) ||
		    fsb_progress_parse(arg, &co->progress))
			return FSB_EXIT_USAGE;
		co->given |= FSB_OPT_PROGRESS;
		return 0;
	case 'q':
		co->quiet = true;
		co->given |= FSB_OPT_QUIET;
		return 0;
	}
	return -1;
}

/* The long name of option code c in opts, or NULL. */
static const char *name_of(const struct option *opts, int c)
{
	for (size_t i = 0; opts[i].name; i++)
		if (opts[i].val == c)
			return opts[i].name;
	return NULL;
}

/* Whether the option called name is one the outer command sets. */
static bool refused(const struct fsb_cli_nest *nest, const char *name)
{
	for (size_t i = 0; nest && nest->refused && name && nest->refused[i]; i++)
		if (!strcmp(nest->refused[i], name))
			return true;
	return false;
}

int fsb_cli_getopt(const struct fsb_cmd_spec *spec, int argc, char **argv,
		   const struct fsb_cli_nest *nest, void *ctx, struct fsb_common *co,
		   int *first_operand)
{
	const struct fsb_opt *table[FSB_CLI_MAX_OPTS];
	struct option opts[FSB_CLI_MAX_OPTS + 1];
	char shorts[3 * FSB_CLI_MAX_OPTS + 3] = ":";
	size_t n = fsb_cli_options(spec, table, FSB_CLI_MAX_OPTS), len;
	int c, rc, li;

	memset(co, 0, sizeof(*co));
	if (spec->stop_at_operand)
		snprintf(shorts, sizeof(shorts), "+:");
	/* getopt's tables from ours: a letter code is also the short option. */
	for (size_t i = 0; i < n; i++) {
		const struct fsb_opt *o = table[i];
		bool arg = o->value != FSB_VAL_NONE;

		opts[i] = (struct option){ o->name, arg ? required_argument : no_argument, NULL,
					   o->code };
		if (fsb_opt_short(o)) {
			len = strlen(shorts);
			shorts[len++] = (char)o->code;
			if (arg)
				shorts[len++] = ':';
			shorts[len] = '\0';
		}
	}
	memset(&opts[n], 0, sizeof(opts[n]));
	/* optind = 0: glibc starts afresh, whatever an earlier parse left. */
	optind = 0;
	opterr = 0;
	for (li = -1; (c = getopt_long(argc, argv, shorts, opts, &li)) != -1; li = -1) {
		if (c == '?' || c == ':')
			return unknown(argc, argv, c);
		if (nest && refused(nest, name_of(opts, c))) {
			/* As written: "--output", or its letter "-o". */
			if (li >= 0)
				fsb_err("option '--%s' is set by %s, not in the file",
					opts[li].name, nest->owner);
			else
				fsb_err("option '-%c' is set by %s, not in the file", c,
					nest->owner);
			return FSB_EXIT_USAGE;
		}
		rc = shared_option(c, optarg, co);
		if (rc < 0)
			rc = spec->own ? spec->own(ctx, c, optarg) : unknown(argc, argv, '?');
		if (rc)
			return rc;
		if (co->given & FSB_OPT_BASIC)
			break;
	}
	*first_operand = optind;
	if (nest && !(co->given & FSB_OPT_BASIC) && optind < argc) {
		fsb_err("unexpected argument '%s'", argv[optind]);
		return FSB_EXIT_USAGE;
	}
	return 0;
}

bool fsb_cli_answered(const struct fsb_common *co, void (*usage)(FILE *out))
{
	if (co->given & FSB_OPT_HELP) {
		usage(stdout);
		return true;
	}
	if (co->given & FSB_OPT_VERSION) {
		printf("%s\n", fsb_version_line());
		return true;
	}
	return false;
}
