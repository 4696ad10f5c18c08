/*
 * fsbench guest: run one fsbench command inside a QEMU guest booted from a
 * distribution kernel, for filesystems the host kernel lacks (JFFS2 and
 * UBIFS on emulated flash, reiserfs).
 *
 * Order of business, so that nothing boots before every check passed:
 *   1. options (malformed: exit 2);
 *   2. qemu, kernel, modules.dep, every module and tool the command needs
 *      (missing: one line naming the package or module, exit 1);
 *   3. the initramfs, from the cache or built into it;
 *   4. a scratch dir: this boot's initrd (cached archive + the command),
 *      the result file, the disk images;
 *   5. the boot, watched: timeout, panic, SIGINT end it;
 *   6. the guest's result checked, marked as a guest's and rendered;
 *   7. always: QEMU reaped, scratch dir removed.
 */
#include "cli/commands.h"
#include "cli/legacy.h"
#include "util/error.h"
#include "core/guest.h"
#include "device/fill.h"
#include "device/image.h"
#include "device/initramfs.h"
#include "device/kmod.h"
#include "device/mkfs.h"
#include "util/spawn.h"
#include "device/qemu.h"
#include "report/json.h"
#include "report/result.h"
#include "report/writer.h"
#include "util/io.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/text.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NS_PER_S 1000000000ull
/* KVM that works reaches init in about a second; one that does not hangs
 * in the decompressor or dies at once (docs: shared/notes/guest-lab.md). */
#define KVM_PROBE_NS (20 * NS_PER_S)

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

enum { OPT_KERNEL = 256, OPT_MODULES, OPT_DISK, OPT_MEMORY, OPT_CPUS, OPT_ACCEL, OPT_TIMEOUT,
       OPT_CONSOLE, OPT_FS, OPT_MKFS, OPT_OPTIONS };

static const struct option long_opts[] = {
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "modules", required_argument, NULL, OPT_MODULES },
	{ "disk", required_argument, NULL, OPT_DISK },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "accel", required_argument, NULL, OPT_ACCEL },
	{ "guest-timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "console", no_argument, NULL, OPT_CONSOLE },
	{ "fs", required_argument, NULL, OPT_FS },
	{ "mkfs", required_argument, NULL, OPT_MKFS },
	{ "options", required_argument, NULL, OPT_OPTIONS },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

struct guest_plan {
	const char *kernel_opt, *modules_opt, *accel;
	uint64_t disk_bytes[FSB_QEMU_MAX_DISKS];
	enum fsb_fill disk_fill[FSB_QEMU_MAX_DISKS];
	size_t ndisks;
	uint64_t memory_bytes, timeout_ns;
	unsigned cpus;
	bool console;
	const char *format, *output;
	const struct fsb_writer *writer;
	struct fsb_output out;      /* -o, checked before anything boots */
	int cmd_argc;
	char **cmd_argv;
	/* --fs: the filesystem made and mounted in the guest before run. */
	const char *fs, *mkfs, *options;
	char mkfs_default[256];
	char **mkfs_argv;           /* the template expanded for /dev/vda */
};

/* What the run holds, released in reverse order. */
struct guest_run {
	char scratch[PATH_MAX];
	bool scratch_made;
	char initrd[PATH_MAX + 32], result[PATH_MAX + 32];
	char disks[FSB_QEMU_MAX_DISKS][PATH_MAX + 32];
	struct fsb_irfs fs;
	char **modules;
	char *tools[FSB_GUEST_MAX_NEEDS];
	size_t ntools;
};

static void print_usage(FILE *out)
{
	fprintf(out, usage_text, FSB_QEMU_MAX_DISKS, fsb_writer_names());
}

/* Options the host owns: the guest's result is always JSON to a file. */
static bool host_owned(const char *a)
{
	return !strcmp(a, "-f") || !strcmp(a, "-o") || !strncmp(a, "--format", 8) ||
	       !strncmp(a, "--output", 8) || (a[0] == '-' && (a[1] == 'f' || a[1] == 'o'));
}

/*
 * --fs/--mkfs/--options: the guest makes and mounts the filesystem run is
 * to measure (run needs a mounted directory; the guest's disks are bare).
 * Checked and expanded here, so a bad template is a usage error.
 */
#define GUEST_MNT "/mnt/fsbench"

static int parse_fs(struct guest_plan *p)
{
	static const char *const vda[] = { "/dev/vda" };
	char **words = NULL;
	const char *why;

	if (!p->fs) {
		if (p->mkfs || p->options) {
			fsb_err("guest: --mkfs and --options go with --fs TYPE");
			return FSB_EXIT_USAGE;
		}
		return 0;
	}
	if (!*p->fs || strpbrk(p->fs, "/ \t"))
		return fsb_opt_bad("--fs", p->fs, "a filesystem type name");
	if (strcmp(p->cmd_argv[0], "run")) {
		fsb_err("guest: --fs goes with run (lifecycle makes its own filesystems)");
		return FSB_EXIT_USAGE;
	}
	if (!p->ndisks) {
		fsb_err("guest: --fs needs a disk to make it on: give --disk SIZE");
		return FSB_EXIT_USAGE;
	}
	if (!p->mkfs) {
		if (fsb_mkfs_default_template(p->fs, p->mkfs_default, sizeof(p->mkfs_default)))
			return fsb_opt_bad("--fs", p->fs, "a filesystem type name");
		p->mkfs = p->mkfs_default;
	}
	if (fsb_words_split(p->mkfs, &words, &why) < 0 ||
	    fsb_mkfs_expand(words, vda, 1, &p->mkfs_argv, &why) < 0) {
		fsb_words_free(words);
		fsb_err("invalid --mkfs '%s': %s", p->mkfs, why);
		return FSB_EXIT_USAGE;
	}
	fsb_words_free(words);
	return 0;
}

/* Returns 0, an exit status, or -1 for "done: exit 0". */
static int parse(int argc, char **argv, struct guest_plan *p)
{
	uint64_t v;
	int c, rc;

	p->accel = "auto";
	p->memory_bytes = 1ull << 30;
	p->cpus = 1;
	p->timeout_ns = 600 * NS_PER_S;
	p->format = "text";
	optind = 1;
	opterr = 0;
	/* '+': stop at the command word; what follows belongs to it. */
	while ((c = getopt_long(argc, argv, "+:f:o:hV", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_KERNEL:
			p->kernel_opt = optarg;
			break;
		case OPT_MODULES:
			p->modules_opt = optarg;
			break;
		case OPT_DISK:
			if (p->ndisks == FSB_QEMU_MAX_DISKS)
				return fsb_opt_bad("--disk", optarg, "at most 8 disks");
			if (fsb_guest_disk_parse(optarg, &p->disk_bytes[p->ndisks],
						 &p->disk_fill[p->ndisks]))
				return fsb_opt_bad("--disk", optarg,
						   "SIZE[,fill=0xff|zero|none], SIZE >= 1m");
			p->ndisks++;
			break;
		case OPT_MEMORY:
			if (fsb_opt_size("--memory", optarg, &p->memory_bytes))
				return FSB_EXIT_USAGE;
			if (p->memory_bytes < (128u << 20) || p->memory_bytes > (64ull << 30))
				return fsb_opt_bad("--memory", optarg, "between 128m and 64g");
			break;
		case OPT_CPUS:
			if (fsb_opt_count("--cpus", optarg, 1, 64, &v))
				return FSB_EXIT_USAGE;
			p->cpus = (unsigned)v;
			break;
		case OPT_ACCEL:
			if (strcmp(optarg, "auto") && strcmp(optarg, "kvm") && strcmp(optarg, "tcg"))
				return fsb_opt_bad("--accel", optarg, "auto, kvm or tcg");
			p->accel = optarg;
			break;
		case OPT_TIMEOUT:
			if (fsb_opt_seconds("--guest-timeout", optarg, &p->timeout_ns))
				return FSB_EXIT_USAGE;
			break;
		case OPT_CONSOLE:
			p->console = true;
			break;
		case OPT_FS:
			p->fs = optarg;
			break;
		case OPT_MKFS:
			p->mkfs = optarg;
			break;
		case OPT_OPTIONS:
			p->options = optarg;
			break;
		case 'f':
			p->format = optarg;
			break;
		case 'o':
			p->output = optarg;
			break;
		case 'h':
			print_usage(stdout);
			return -1;
		case 'V':
			printf("fsbench %s\n", FSB_VERSION);
			return -1;
		default:
			return fsb_opt_unknown(argc, argv, c);
		}
	}
	if (optind >= argc) {
		fsb_err("guest: no command: give '-- COMMAND ARGS...' (see --help)");
		return FSB_EXIT_USAGE;
	}
	p->cmd_argc = argc - optind;
	p->cmd_argv = argv + optind;
	if (strcmp(p->cmd_argv[0], "run") && strcmp(p->cmd_argv[0], "lifecycle")) {
		fsb_err("guest: cannot run '%s' in a guest: the command is run or lifecycle",
			p->cmd_argv[0]);
		return FSB_EXIT_USAGE;
	}
	for (int i = 1; i < p->cmd_argc; i++) {
		if (!strcmp(p->cmd_argv[i], "--"))
			break;
		if (host_owned(p->cmd_argv[i])) {
			fsb_err("guest: '%s' belongs before '--': the guest's result comes back "
				"as JSON and is rendered here", p->cmd_argv[i]);
			return FSB_EXIT_USAGE;
		}
	}
	/* The guest's command decides what kind of result comes back. */
	p->writer = fsb_writer_select(p->format, p->cmd_argv[0]);
	if (!p->writer)
		return FSB_EXIT_USAGE;
	if ((rc = parse_fs(p)))
		return rc;
	{
		const char *inputs[] = { p->kernel_opt, p->modules_opt };

		if (fsb_output_open(&p->out, p->output, inputs, 2))
			return FSB_EXIT_USAGE;
	}
	return 0;
}

/* $XDG_CACHE_HOME/fsbench (or ~/.cache/fsbench), made when missing. */
static int cache_dir(char *out, size_t len)
{
	char kdir[PATH_MAX], *p;

	if (fsb_guest_kernel_cache(kdir, sizeof(kdir)))
		return -ENAMETOOLONG;
	/* .../fsbench/kernel -> .../fsbench */
	*strrchr(kdir, '/') = '\0';
	snprintf(out, len, "%s", kdir);
	for (p = out + 1; ; p++) {
		if (*p == '/' || !*p) {
			char keep = *p;

			*p = '\0';
			if (mkdir(out, 0755) < 0 && errno != EEXIST) {
				int err = -errno;

				fsb_err_errno(err, "guest: cannot create cache directory '%s'", out);
				return err;
			}
			*p = keep;
			if (!keep)
				break;
		}
	}
	return 0;
}

static int find_program(const char *name, char *out, size_t len)
{
	const char *pkg = fsb_guest_tool_package(name);

	if (!fsb_which(name, out, len))
		return 0;
	if (pkg)
		fsb_err("guest: '%s' not found: install the package %s", name, pkg);
	else
		fsb_err("guest: '%s' not found (in PATH, /sbin, /usr/sbin)", name);
	return -ENOENT;
}

/* Steps 2 and 3: everything resolved, the cached initramfs in place. */
static int prepare(const struct guest_plan *p, struct guest_run *run, struct fsb_guest_kernel *k,
		   char *qemu, size_t qlen, char *cached, size_t clen, bool *built)
{
	struct fsb_guest_needs needs;
	struct fsb_guest_inputs in = { .with_libs = true };
	char busybox[PATH_MAX], self[PATH_MAX], dep_path[PATH_MAX + 16], missing[64], cache[PATH_MAX];
	char *dep = NULL;
	size_t dep_len;
	ssize_t n;
	int err;

	if ((err = find_program("qemu-system-x86_64", qemu, qlen)))
		return err;
	if ((err = fsb_guest_find_kernel(p->kernel_opt, p->modules_opt, k)))
		return err;
	if ((err = fsb_guest_needs_for(p->cmd_argc, p->cmd_argv, &needs)) ||
	    (p->fs && (err = fsb_guest_needs_add_fs(&needs, p->fs, p->mkfs)))) {
		fsb_err("guest: the command needs too many modules and tools");
		return err;
	}
	if ((err = find_program("busybox", busybox, sizeof(busybox))))
		return err;
	for (size_t i = 0; i < needs.ntools; i++) {
		char path[PATH_MAX];

		if (fsb_which(needs.tools[i], path, sizeof(path))) {
			if (needs.optional[i])
				continue;
			return find_program(needs.tools[i], path, sizeof(path));
		}
		run->tools[run->ntools] = strdup(path);
		if (!run->tools[run->ntools])
			return -ENOMEM;
		run->ntools++;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		err = -errno;
		fsb_err_errno(err, "guest: cannot find this program's own file");
		return err;
	}
	self[n] = '\0';
	snprintf(dep_path, sizeof(dep_path), "%s/modules.dep", k->moddir);
	if ((err = fsb_read_file(dep_path, 16u << 20, &dep, &dep_len))) {
		fsb_err_errno(err, "guest: cannot read '%s'", dep_path);
		return err;
	}
	err = fsb_kmod_resolve(dep, needs.modules, needs.nmodules, &run->modules, missing,
			       sizeof(missing));
	free(dep);
	if (err == -ENOENT) {
		fsb_err("guest: module '%s' is not in kernel %s ('%s')", missing, k->release,
			dep_path);
		return err;
	}
	if (err < 0) {
		fsb_err_errno(err, "guest: cannot resolve modules");
		return err;
	}
	in.busybox = busybox;
	in.fsbench = self;
	in.tools = (const char *const *)run->tools;
	in.ntools = run->ntools;
	in.moddir = k->moddir;
	in.modules = run->modules;
	in.nmodules = (size_t)err;
	if ((err = fsb_guest_irfs_fill(&run->fs, &in)))
		return err;
	if ((err = cache_dir(cache, sizeof(cache))))
		return err;
	return fsb_guest_irfs_cached(&run->fs, cache, cached, clen, built);
}

/*
 * --fs: cmd.sh first makes the filesystem on /dev/vda and mounts it, each
 * step's words quoted by fsb_guest_cmd_script (set -- ...; "$@"); a
 * failure ends the boot with the exit marker the host reads, and the
 * tool's output on the console, so the host's error shows why. Returns
 * the whole script (in *all), or NULL when out of memory; cmd is freed
 * by the caller.
 */
static char *fs_script(const struct guest_plan *p, char *cmd, char **prep, char **fs,
		       char **all)
{
	const char *mnt_words[] = { p->fs, p->options ? p->options : "" };
	size_t nmkfs = 0, len;

	while (p->mkfs_argv[nmkfs])
		nmkfs++;
	*prep = fsb_guest_cmd_script((int)nmkfs, p->mkfs_argv);
	*fs = fsb_guest_cmd_script(2, (char *const *)mnt_words);
	len = strlen(cmd) + 512 + (*prep ? strlen(*prep) : 0) + (*fs ? strlen(*fs) : 0);
	*all = *prep && *fs ? malloc(len) : NULL;
	if (*all)
		snprintf(*all, len,
			 "%s\"$@\" </dev/null || { echo \"fsbench: guest: mkfs failed\"; "
			 "echo \"fsbench-guest: exit 1\"; poweroff -f; }\n"
			 "%smkdir -p " GUEST_MNT "\n"
			 "mount -t \"$1\" ${2:+-o \"$2\"} /dev/vda " GUEST_MNT
			 " || { echo \"fsbench: guest: mount failed\"; "
			 "echo \"fsbench-guest: exit 1\"; poweroff -f; }\n%s",
			 *prep, *fs, cmd);
	free(cmd);
	return *all;
}

/* This boot's initrd: the cached archive, then one holding the command. */
static int make_initrd(const struct guest_plan *p, struct guest_run *run, const char *cached)
{
	struct fsb_irfs cmd;
	char **args = NULL, *script = NULL, *prep = NULL, *fs = NULL, *all = NULL;
	int in = -1, out = -1, err = 0, n = p->cmd_argc + 6 + !!p->fs;
	char buf[1 << 16];
	ssize_t r;

	fsb_irfs_init(&cmd);
	snprintf(run->initrd, sizeof(run->initrd), "%s/initrd.cpio", run->scratch);
	args = calloc((size_t)n + 1, sizeof(*args));
	if (!args) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < p->cmd_argc; i++)
		args[i] = p->cmd_argv[i];
	args[p->cmd_argc] = "--format";
	args[p->cmd_argc + 1] = "json";
	args[p->cmd_argc + 2] = "-o";
	args[p->cmd_argc + 3] = "/tmp/result.json";
	/* The console is a terminal: progress lines would only slow it. */
	args[p->cmd_argc + 4] = "--progress";
	args[p->cmd_argc + 5] = "never";
	/* run takes the mounted filesystem as its target (getopt permutes). */
	if (p->fs)
		args[p->cmd_argc + 6] = GUEST_MNT;
	script = fsb_guest_cmd_script(n, args);
	if (script && p->fs && !(script = fs_script(p, script, &prep, &fs, &all)))
		err = -ENOMEM;
	if (!script || (err = fsb_irfs_add_data(&cmd, "/guest/cmd.sh", script, strlen(script),
						 0644)) || (err = fsb_irfs_finish(&cmd))) {
		err = err ? err : -ENOMEM;
		goto out;
	}
	in = open(cached, O_RDONLY | O_CLOEXEC);
	out = open(run->initrd, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (in < 0 || out < 0) {
		err = -errno;
		goto out;
	}
	while ((r = fsb_read_full(in, buf, sizeof(buf))) > 0)
		if ((err = fsb_write_full(out, buf, (size_t)r)))
			goto out;
	if (r < 0) {
		err = (int)r;
		goto out;
	}
	err = fsb_irfs_write(&cmd, out);
out:
	if (err)
		fsb_err_errno(err, "guest: cannot make the initrd '%s'", run->initrd);
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	if (script != all)
		free(script);
	free(all);
	free(prep);
	free(fs);
	free(args);
	fsb_irfs_release(&cmd);
	return err;
}

static int make_disks(const struct guest_plan *p, struct guest_run *run, struct fsb_qemu_cfg *q)
{
	for (size_t i = 0; i < p->ndisks; i++) {
		struct fsb_image img;
		int err;

		snprintf(run->disks[i], sizeof(run->disks[i]), "%s/disk%zu.img", run->scratch, i);
		/* New in the scratch dir, which removes it. */
		if ((err = fsb_image_create(&img, run->disks[i], p->disk_bytes[i])))
			return err;
		err = fsb_fill_fd(img.fd, run->disks[i], p->disk_bytes[i], p->disk_fill[i], 1);
		fsb_image_close(&img, false);
		if (err)
			return err;
		q->disks[i] = run->disks[i];
		/* A fresh image per boot is pristine already: no overlay needed. */
		q->snapshot[i] = false;
	}
	q->ndisks = p->ndisks;
	return 0;
}

static void show_tail(const struct fsb_qemu_outcome *o)
{
	fflush(stdout);
	fprintf(stderr, "fsbench: guest: last console lines:\n");
	for (size_t i = 0; i < o->ntail; i++) {
		char line[4 * sizeof(o->tail[i])];

		/* A guest's console may print anything: keep our terminal ours. */
		fprintf(stderr, "  | %s\n", fsb_text_safe(o->tail[i], 0, line, sizeof(line)));
	}
}

/* The KVM verdict for this kernel, remembered so a broken KVM is probed once. */
static void verdict_path(const struct fsb_guest_kernel *k, char *out, size_t len)
{
	char dir[PATH_MAX];
	struct stat st;
	unsigned long long h = 0xcbf29ce484222325ull;

	if (cache_dir(dir, sizeof(dir)) || stat(k->kernel, &st) < 0) {
		out[0] = '\0';
		return;
	}
	for (const char *c = k->kernel; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	h = (h ^ (unsigned long long)st.st_size) * 0x100000001b3ull;
	h = (h ^ (unsigned long long)st.st_mtime) * 0x100000001b3ull;
	snprintf(out, len, "%s/kvm-broken-%016llx", dir, h);
}

static int boot(const struct guest_plan *p, struct guest_run *run, struct fsb_qemu_cfg *q,
		const struct fsb_guest_kernel *k, struct fsb_qemu_outcome *o)
{
	char verdict[PATH_MAX + 64];
	int err, fd;

	q->accel = !strcmp(p->accel, "auto") ? "kvm" : p->accel;
	verdict_path(k, verdict, sizeof(verdict));
	if (!strcmp(p->accel, "auto") &&
	    (access("/dev/kvm", R_OK | W_OK) < 0 || (verdict[0] && access(verdict, F_OK) == 0)))
		q->accel = "tcg";
	for (;;) {
		bool probing = !strcmp(p->accel, "auto") && !strcmp(q->accel, "kvm");

		/* The result file starts empty at every boot. */
		fd = open(run->result, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0) {
			err = -errno;
			fsb_err_errno(err, "guest: cannot create '%s'", run->result);
			return err;
		}
		close(fd);
		err = fsb_qemu_run(q, p->timeout_ns, probing ? KVM_PROBE_NS : 0, p->console, o);
		if (err || !probing || o->ready_ns || o->end == FSB_QEMU_STOPPED)
			return err;
		/* KVM accepted but the kernel never reached init: use TCG, now
		 * and for the next runs with this kernel. */
		fsb_warn("guest: KVM did not boot kernel %s; falling back to TCG", k->release);
		if (verdict[0]) {
			fd = open(verdict, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			if (fd >= 0)
				close(fd);
		}
		q->accel = "tcg";
	}
}

static int judge(const struct guest_plan *p, const struct fsb_qemu_outcome *o)
{
	switch (o->end) {
	case FSB_QEMU_EXITED:
		if (o->guest_status == 0)
			return 0;
		fsb_err("guest: 'fsbench %s' failed in the guest (exit status %d)",
			p->cmd_argv[0], o->guest_status);
		break;
	case FSB_QEMU_PANIC:
		fsb_err("guest: the guest kernel panicked");
		break;
	case FSB_QEMU_TIMEOUT:
		fsb_err("guest: killed after --guest-timeout %.0f s",
			(double)p->timeout_ns / NS_PER_S);
		break;
	case FSB_QEMU_NOT_READY:
		fsb_err("guest: the kernel did not reach init");
		break;
	case FSB_QEMU_STOPPED:
		return -EINTR;
	case FSB_QEMU_NO_MARKER:
		fsb_err("guest: QEMU stopped before the command finished (status %d)",
			o->qemu_status);
		break;
	}
	show_tail(o);
	return -EIO;
}

/* The guest's result, checked and marked as a guest's. */
static int take_result(const struct guest_plan *p, const struct guest_run *run,
		       const struct fsb_qemu_cfg *q, const struct fsb_qemu_outcome *o,
		       const struct fsb_guest_kernel *k, struct fsb_result *res)
{
	char mark[512];
	int err;

	if ((err = fsb_json_load(run->result, res)))
		return err;
	if (!res->kind || strcmp(res->kind, p->cmd_argv[0])) {
		fsb_err("guest: the guest sent a '%s' result for a '%s' command",
			res->kind ? res->kind : "?", p->cmd_argv[0]);
		return -EINVAL;
	}
	snprintf(mark, sizeof(mark), "%s (guest, %s)",
		 res->host.kernel ? res->host.kernel : k->release, q->accel);
	err |= fsb_strset(&res->host.kernel, mark);
	err |= fsb_result_param_str(res, "guest_accel", q->accel);
	err |= fsb_result_param_str(res, "guest_kernel", k->kernel);
	err |= fsb_result_param_u64(res, "guest_memory_bytes", p->memory_bytes);
	err |= fsb_result_param_u64(res, "guest_cpus", p->cpus);
	err |= fsb_result_param_double(res, "guest_wall_s", (double)o->wall_ns / NS_PER_S);
	if (err) {
		fsb_err("guest: out of memory");
		return -ENOMEM;
	}
	return 0;
}

static void release(struct guest_run *run)
{
	fsb_irfs_release(&run->fs);
	fsb_kmod_free(run->modules);
	for (size_t i = 0; i < run->ntools; i++)
		free(run->tools[i]);
	if (run->scratch_made) {
		int err = fsb_scratch_remove(run->scratch);

		if (err)
			fsb_err_errno(err, "guest: cannot remove scratch directory '%s'",
				      run->scratch);
	}
}

int fsb_cmd_guest(int argc, char **argv)
{
	struct guest_plan plan = { 0 };
	struct guest_run run;
	struct fsb_guest_kernel k;
	struct fsb_qemu_cfg q = { 0 };
	struct fsb_qemu_outcome o;
	struct fsb_result res = { 0 };
	char qemu[PATH_MAX], cached[PATH_MAX + 64], append[256];
	const char *tmp = getenv("TMPDIR");
	bool built;
	int rc, err;

	memset(&run, 0, sizeof(run));
	fsb_irfs_init(&run.fs);
	rc = parse(argc, argv, &plan);
	if (rc) {
		fsb_words_free(plan.mkfs_argv);
		return rc < 0 ? FSB_EXIT_OK : rc;
	}
	rc = FSB_EXIT_FAIL;
	if (prepare(&plan, &run, &k, qemu, sizeof(qemu), cached, sizeof(cached), &built))
		goto out;
	if (fsb_stop_requested())
		goto out;
	if ((err = fsb_scratch_create(tmp && *tmp ? tmp : "/tmp", run.scratch,
				      sizeof(run.scratch)))) {
		fsb_err_errno(err, "guest: cannot create a scratch directory");
		goto out;
	}
	run.scratch_made = true;
	snprintf(run.result, sizeof(run.result), "%s/result.json", run.scratch);
	if (make_initrd(&plan, &run, cached) || make_disks(&plan, &run, &q))
		goto out;
	snprintf(append, sizeof(append), "console=ttyS0 quiet loglevel=2 panic=-1 rdinit=/init");
	q.qemu = qemu;
	q.kernel = k.kernel;
	q.initrd = run.initrd;
	q.append = append;
	q.memory_mb = (unsigned)(plan.memory_bytes >> 20);
	q.cpus = plan.cpus;
	q.result_path = run.result;
	if (boot(&plan, &run, &q, &k, &o) || judge(&plan, &o))
		goto out;
	if (take_result(&plan, &run, &q, &o, &k, &res))
		goto out;
	rc = fsb_writer_output(plan.writer, &res, &plan.out) ? FSB_EXIT_FAIL : FSB_EXIT_OK;
out:
	release(&run);
	fsb_output_release(&plan.out);
	fsb_words_free(plan.mkfs_argv);
	fsb_result_release(&res);
	if (fsb_stop_requested())
		rc = 128 + fsb_stop_signo();
	return rc;
}
