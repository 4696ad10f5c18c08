#include "cli/options.h"
#include "util/error.h"
#include "util/size.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

int fsb_opt_count(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;
	char want[96];

	snprintf(want, sizeof(want), "a whole number from %llu to %llu",
		 (unsigned long long)min, (unsigned long long)max);
	if (!isdigit((unsigned char)arg[0]))
		return fsb_opt_bad(opt, arg, want);
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || *end || v < min || v > max)
		return fsb_opt_bad(opt, arg, want);
	*out = v;
	return 0;
}

int fsb_opt_seconds(const char *opt, const char *arg, uint64_t *out_ns)
{
	char *end;
	double v, scale = 1e9;

	if (!isdigit((unsigned char)arg[0]) && arg[0] != '.')
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
	if (fsb_cache_mode_parse(arg, out))
		return fsb_opt_bad("--cache", arg, "drop, direct or keep");
	return 0;
}

int fsb_opt_progress(const char *arg, enum fsb_progress *out)
{
	if (!strcmp(arg, "auto"))
		*out = FSB_PROGRESS_AUTO;
	else if (!strcmp(arg, "always"))
		*out = FSB_PROGRESS_ALWAYS;
	else if (!strcmp(arg, "never"))
		*out = FSB_PROGRESS_NEVER;
	else
		return fsb_opt_bad("--progress", arg, "auto, always or never");
	return 0;
}

bool fsb_progress_enabled(enum fsb_progress p)
{
	return p == FSB_PROGRESS_ALWAYS || (p == FSB_PROGRESS_AUTO && isatty(STDERR_FILENO));
}

int fsb_opt_unknown(int argc, char **argv, int c)
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

uint64_t fsb_default_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 16) &
	       0xffffffffu;
}

int fsb_opt_report(int c, const char *arg, const struct fsb_report_opts *o)
{
	switch (c) {
	case 'l':
		*o->label = arg;
		return 0;
	case FSB_OPT_SEED:
		return fsb_opt_count("--seed", arg, 0, UINT64_MAX, o->seed);
	case 'f':
		*o->format = arg;
		return 0;
	case 'o':
		*o->output = arg;
		return 0;
	case FSB_OPT_PROGRESS:
		return fsb_opt_progress(arg, o->progress);
	case 'q':
		*o->quiet = true;
		return 0;
	}
	return -1;
}
