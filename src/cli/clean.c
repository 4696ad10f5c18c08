/*
 * fsbench clean: list and remove what fsbench processes that did not finish
 * (SIGKILL, a crash, a power cut) left behind. The finding, proving and
 * removing is src/core/clean.c; here are the options and the listing.
 */
#include "core/clean.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: fsbench clean [OPTIONS] [DIR...]\n"
	"\n"
	"Remove what fsbench runs that were killed left behind: scratch directories\n"
	"fsbench.<pid>.XXXXXX directly under each DIR whose marker names a process\n"
	"that is gone, the mounts inside them, the loop devices bound to the images\n"
	"they list, and the images fsbench created. Anything that cannot be proven\n"
	"fsbench's (no marker, another user's, a process still running, a mount\n"
	"outside the directory, an image that is not the file fsbench made) or\n"
	"would not come undone (a loop device mounted elsewhere, held or swap; a\n"
	"mount inside that the marker does not list) is reported and left alone.\n"
	"\n"
	"Default DIRs: . and $TMPDIR (or /tmp), where lifecycle keeps its mountpoint,\n"
	"and /var/tmp, matrix's default workdir.\n"
	"\n"
	"Options:\n"
	"  -n, --dry-run      list what would be removed or refused, and why;\n"
	"                     remove nothing\n"
	"  -h, --help         this text\n"
	"  -V, --version      the version\n"
	"\n"
	"Exit status: 0 when nothing was left or all was removed, 1 when something\n"
	"was refused or could not be removed (directories of running processes do\n"
	"not count).\n";

static const struct fsb_opt clean_opts[] = {
	{ "dry-run", 'n', FSB_VAL_NONE, NULL },
	{ NULL, 0, FSB_VAL_NONE, NULL },
};

static void print_usage(FILE *out)
{
	fputs(usage_text, out);
}

static int clean_option(void *ctx, int c, const char *arg)
{
	(void)arg;
	if (c != 'n')
		return FSB_EXIT_USAGE;
	((struct fsb_clean_opts *)ctx)->dry_run = true;
	return 0;
}

const struct fsb_cmd_spec fsb_clean_spec = {
	.name = "clean",
	.common = FSB_OPT_BASIC,
	.opts = clean_opts,
	.operands = FSB_VAL_DIR,
	.own = clean_option,
};

static const char *const what_name[] = {
	[FSB_CLEAN_DIR] = "directory",
	[FSB_CLEAN_MOUNT] = "mount",
	[FSB_CLEAN_LOOP] = "loop device",
	[FSB_CLEAN_IMAGE] = "image",
};

static void print_event(const struct fsb_clean_event *ev, void *arg)
{
	static const char *const done[] = { "removed", "unmounted", "detached", "removed" };
	static const char *const verbs[] = { "remove", "unmount", "detach", "remove" };
	const char *what = what_name[ev->what];
	/* Paths and reasons come from the disk: made terminal-safe (util/text.h). */
	char *path = fsb_text_dup(ev->path), *extra = fsb_text_dup(ev->extra);
	char *why = fsb_text_dup(ev->why);
	const char *p = path ? path : "?";
	/* A dry run's refusal is a decision like its "would remove". */
	bool dry = ((const struct fsb_clean_opts *)arg)->dry_run;

	switch (ev->outcome) {
	case FSB_CLEAN_DONE:
	case FSB_CLEAN_WOULD:
		if (ev->outcome == FSB_CLEAN_WOULD)
			printf("would %s %s '%s'", verbs[ev->what], what, p);
		else
			printf("%s %s '%s'", done[ev->what], what, p);
		if (extra)
			printf(" (backing '%s')", extra);
		if (ev->what == FSB_CLEAN_DIR)
			printf(" (left by pid %ld)", (long)ev->pid);
		putchar('\n');
		break;
	case FSB_CLEAN_REFUSED:
		printf("%s %s '%s': %s\n", dry ? "would refuse" : "refused", what, p,
		       why ? why : "?");
		break;
	case FSB_CLEAN_FAILED:
		printf("failed %s '%s'\n", what, p);
		break;
	case FSB_CLEAN_IN_USE:
		printf("in use %s '%s': pid %ld still runs\n", what, p, (long)ev->pid);
		break;
	case FSB_CLEAN_KEPT:
		printf("kept %s '%s': kept on purpose (matrix --keep-images)\n", what, p);
		break;
	case FSB_CLEAN_NOTE:
		printf("left %s '%s': %s\n", what, p, why ? why : "?");
		break;
	}
	free(path);
	free(extra);
	free(why);
}

int fsb_cmd_clean(int argc, char **argv)
{
	struct fsb_clean_opts o = { .report = print_event };
	struct fsb_clean_counts c;
	struct fsb_common co;
	const char *defaults[FSB_CLEAN_MAX_DEFAULTS];
	const char *const *dirs = defaults;
	size_t n;
	int i, rc;

	o.arg = &o;
	rc = fsb_cli_getopt(&fsb_clean_spec, argc, argv, NULL, &o, &co, &i);

	if (rc || fsb_cli_answered(&co, print_usage))
		return rc;
	if (i < argc) {
		dirs = (const char *const *)argv + i;
		n = (size_t)(argc - i);
	} else {
		n = fsb_clean_default_dirs(defaults);
	}
	(void)fsb_clean(dirs, n, &o, &c);
	if (!c.found && !c.failed)
		printf("nothing to clean\n");
	if (fsb_stop_requested())
		return 128 + fsb_stop_signo();
	return c.refused || c.failed ? FSB_EXIT_FAIL : FSB_EXIT_OK;
}
