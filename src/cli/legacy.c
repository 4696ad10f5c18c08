#include "cli/legacy.h"
#include "util/error.h"

int fsb_opt_progress(const char *arg, enum fsb_progress *out)
{
	if (fsb_progress_parse(arg, out))
		return fsb_opt_bad("--progress", arg, "auto, always or never");
	return 0;
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

int fsb_opt_report(int c, const char *arg, const struct fsb_report_opts *o)
{
	switch (c) {
	case 'l':
		*o->label = arg;
		return 0;
	case FSB_LEGACY_SEED:
		return fsb_opt_count("--seed", arg, 0, UINT64_MAX, o->seed);
	case 'f':
		*o->format = arg;
		return 0;
	case 'o':
		*o->output = arg;
		return 0;
	case FSB_LEGACY_PROGRESS:
		return fsb_opt_progress(arg, o->progress);
	case 'q':
		*o->quiet = true;
		return 0;
	}
	return -1;
}
