/*
 * fsbench guest: argv -> plan (struct fsb_guest_plan, its inner command
 * parsed by the run or lifecycle parser) -> fsb_guest_execute -> the
 * guest's result in the chosen view.
 */
#include "cli/guest.h"
#include "cli/commands.h"
#include "report/views.h"
#include "util/error.h"
#include "util/signals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: fsbench guest [OPTIONS] -- COMMAND [ARGS...]\n"
	"\n"
	"Boot a QEMU guest from a distribution kernel and run 'fsbench COMMAND\n"
	"ARGS...' (run or lifecycle) inside it, for filesystems the host kernel\n"
	"lacks. The result comes back on the guest's second serial port, is\n"
	"checked, marked with the guest's kernel and acceleration, and rendered\n"
	"here. The guest's disks are /dev/vda, /dev/vdb, ... in --disk order.\n"
	"\n"
	"Options:\n"
	"      --kernel PATH      kernel to boot (default: /boot/vmlinuz-$(uname -r) when\n"
	"                         its modules exist, else the cache 'make guest-kernel'\n"
	"                         fills)\n"
	"      --modules DIR      its modules directory (with modules.dep)\n"
	"      --disk SIZE[,fill=0xff|zero|none]\n"
	"                         add a disk backed by a fresh image (default fill 0xff:\n"
	"                         erased flash); repeatable, at most %d\n"
	"      --memory SIZE      guest memory (default 1g)\n"
	"      --cpus N           guest CPUs (default 1: faster than 2 under TCG)\n"
	"      --accel MODE       auto (KVM when it boots, else TCG; default), kvm, tcg\n"
	"      --guest-timeout S  kill the guest after S seconds (default 600)\n"
	"      --console          copy the guest's console to stderr\n"
	"      --fs TYPE          with run: make a TYPE filesystem on the first disk\n"
	"                         (/dev/vda) and mount it; run measures it there\n"
	"      --mkfs TEMPLATE    its mkfs command, {dev} = /dev/vda (default\n"
	"                         mkfs.TYPE {dev}); split into words, no shell\n"
	"      --options OPTS     its mount options\n"
	"  -f, --format VIEW      %s (default text)\n"
	"  -o, --output FILE      write the report to FILE, not stdout: a file is replaced\n"
	"                         atomically, a device or FIFO written (see fsbench(1))\n"
	"  -h, --help             this text\n"
	"  -V, --version          the version\n"
	"\n"
	"Needs qemu-system-x86_64 (package qemu-system-x86), busybox-static, and\n"
	"the tools the command uses (mtd-utils, reiserfsprogs, ...).\n";

enum {
	OPT_KERNEL = 256,
	OPT_MODULES,
	OPT_DISK,
	OPT_MEMORY,
	OPT_CPUS,
	OPT_ACCEL,
	OPT_TIMEOUT,
	OPT_CONSOLE,
	OPT_FS,
	OPT_MKFS,
	OPT_OPTIONS
};

static const char *accel_words(void)
{
	return "auto|kvm|tcg";
}

static const struct fsb_opt guest_opts[] = {
	{ "kernel", OPT_KERNEL, FSB_VAL_FILE, NULL },
	{ "modules", OPT_MODULES, FSB_VAL_DIR, NULL },
	{ "disk", OPT_DISK, FSB_VAL_SIZE, NULL },
	{ "memory", OPT_MEMORY, FSB_VAL_SIZE, NULL },
	{ "cpus", OPT_CPUS, FSB_VAL_NUMBER, NULL },
	{ "accel", OPT_ACCEL, FSB_VAL_WORD, accel_words },
	{ "guest-timeout", OPT_TIMEOUT, FSB_VAL_SECONDS, NULL },
	{ "console", OPT_CONSOLE, FSB_VAL_NONE, NULL },
	{ "fs", OPT_FS, FSB_VAL_FSTYPE, NULL },
	{ "mkfs", OPT_MKFS, FSB_VAL_TEXT, NULL },
	{ "options", OPT_OPTIONS, FSB_VAL_TEXT, NULL },
	{ NULL, 0, FSB_VAL_NONE, NULL },
};

/* The guest runs run or lifecycle: the views of either. */
static const char *guest_formats(void)
{
	return fsb_view_names(FSB_KINDS_RESULT);
}

static void print_usage(FILE *out)
{
	fprintf(out, usage_text, FSB_QEMU_MAX_DISKS, guest_formats());
}

static int guest_option(void *ctx, int c, const char *arg)
{
	struct fsb_guest_plan *p = ctx;
	uint64_t v;
	unsigned i;

	switch (c) {
	case OPT_KERNEL:
		p->kernel = arg;
		return 0;
	case OPT_MODULES:
		p->modules = arg;
		return 0;
	case OPT_DISK:
		if (p->ndisks == FSB_QEMU_MAX_DISKS)
			return fsb_opt_bad("--disk", arg, "at most 8 disks");
		if (fsb_guest_disk_parse(arg, &p->disk_bytes[p->ndisks], &p->disk_fill[p->ndisks]))
			return fsb_opt_bad("--disk", arg, "SIZE[,fill=0xff|zero|none], SIZE >= 1m");
		p->ndisks++;
		return 0;
	case OPT_MEMORY:
		if (fsb_opt_size("--memory", arg, &p->memory_bytes))
			return FSB_EXIT_USAGE;
		if (p->memory_bytes < (128u << 20) || p->memory_bytes > (64ull << 30))
			return fsb_opt_bad("--memory", arg, "between 128m and 64g");
		return 0;
	case OPT_CPUS:
		if (fsb_opt_count("--cpus", arg, 1, 64, &v))
			return FSB_EXIT_USAGE;
		p->cpus = (unsigned)v;
		return 0;
	case OPT_ACCEL:
		if (fsb_opt_word("--accel", arg, accel_words(), &i))
			return FSB_EXIT_USAGE;
		p->accel = arg;
		return 0;
	case OPT_TIMEOUT:
		return fsb_opt_seconds("--guest-timeout", arg, &p->timeout_ns);
	case OPT_CONSOLE:
		p->console = true;
		return 0;
	case OPT_FS:
		p->fs = arg;
		return 0;
	case OPT_MKFS:
		p->mkfs = arg;
		return 0;
	case OPT_OPTIONS:
		p->options = arg;
		return 0;
	}
	return FSB_EXIT_USAGE;
}

const struct fsb_cmd_spec fsb_guest_spec = {
	.name = "guest",
	.common = FSB_OPT_BASIC | FSB_OPT_FORMAT | FSB_OPT_OUTPUT,
	.opts = guest_opts,
	/* The command word ends the guest's options: what follows is its. */
	.stop_at_operand = true,
	.operands = FSB_VAL_COMMAND,
	.operand_words = fsb_guest_commands,
	.formats = guest_formats,
	.own = guest_option,
};

/* Options the host owns: the guest's result is always JSON to a file. */
static bool host_owned(const char *a)
{
	return !strcmp(a, "-f") || !strcmp(a, "-o") || !strncmp(a, "--format", 8) ||
	       !strncmp(a, "--output", 8) || (a[0] == '-' && (a[1] == 'f' || a[1] == 'o'));
}

/*
 * The inner command, parsed by its own parser on a copy of its words (the
 * guest runs them as given): a bad one is a usage error before any boot.
 */
static int parse_inner(struct fsb_guest_cli *out)
{
	const struct fsb_guest_plan *p = &out->plan;
	int n = p->cmd_argc < FSB_GUEST_MAX_WORDS ? p->cmd_argc : FSB_GUEST_MAX_WORDS;
	int rc;

	for (int i = 1; i < p->cmd_argc; i++) {
		if (!strcmp(p->cmd_argv[i], "--"))
			break;
		if (host_owned(p->cmd_argv[i])) {
			fsb_err("guest: '%s' belongs before '--': the guest's result comes back "
				"as JSON and is rendered here",
				p->cmd_argv[i]);
			return FSB_EXIT_USAGE;
		}
	}
	if (p->cmd_argc > FSB_GUEST_MAX_WORDS) {
		fsb_err("guest: the command has more than %d words", FSB_GUEST_MAX_WORDS);
		return FSB_EXIT_USAGE;
	}
	memcpy(out->inner_words, p->cmd_argv, (size_t)n * sizeof(*out->inner_words));
	out->inner_words[n] = NULL;
	if (!strcmp(p->cmd_argv[0], "run"))
		rc = fsb_run_parse(n, out->inner_words, NULL, &out->inner_run);
	else
		rc = fsb_lc_parse(n, out->inner_words, NULL, &out->inner_lc);
	return rc;
}

int fsb_guest_parse(int argc, char **argv, struct fsb_guest_cli *out)
{
	struct fsb_guest_plan *p = &out->plan;
	int rc, i;

	memset(out, 0, sizeof(*out));
	fsb_guest_plan_init(p);
	rc = fsb_cli_getopt(&fsb_guest_spec, argc, argv, NULL, p, &out->co, &i);
	if (rc || (out->co.given & FSB_OPT_BASIC))
		return rc;
	p->cmd_argc = argc - i;
	p->cmd_argv = argv + i;
	if (fsb_guest_plan_check(p))
		return FSB_EXIT_USAGE;
	return parse_inner(out);
}

int fsb_cmd_guest(int argc, char **argv)
{
	struct fsb_guest_cli *cli = calloc(1, sizeof(*cli));
	struct fsb_result res = { 0 };
	struct fsb_output out = { 0 };
	const struct fsb_view *w;
	const char *inputs[2];
	int rc, err;

	if (!cli) {
		fsb_err("guest: out of memory");
		return FSB_EXIT_FAIL;
	}
	rc = fsb_guest_parse(argc, argv, cli);
	if (rc || fsb_cli_answered(&cli->co, print_usage))
		goto out;
	/* The guest's command decides what kind of result comes back. */
	w = fsb_view_select(cli->co.format ? cli->co.format : "text", cli->plan.cmd_argv[0]);
	inputs[0] = cli->plan.kernel;
	inputs[1] = cli->plan.modules;
	if (!w || fsb_output_open(&out, cli->co.output, inputs, 2)) {
		rc = FSB_EXIT_USAGE;
		goto out;
	}
	err = fsb_guest_execute(&cli->plan, NULL, &res, NULL);
	if (fsb_stop_requested())
		rc = 128 + fsb_stop_signo();
	else if (err || fsb_view_output_result(w, &res, &out))
		rc = FSB_EXIT_FAIL;
out:
	fsb_output_release(&out);
	fsb_result_release(&res);
	free(cli);
	return rc;
}
