/*
 * fsbench guest's executor (core/guest.h). Order of business, so that
 * nothing boots before every check passed:
 *   1. qemu, kernel, modules.dep, every module and tool the command needs
 *      (missing: one line naming the package or module);
 *   2. the initramfs, from the cache or built into it;
 *   3. a scratch dir: this boot's initrd (cached archive + the command),
 *      the result file, the disk images;
 *   4. the boot, watched: timeout, panic, SIGINT end it;
 *   5. the guest's result checked and marked as a guest's;
 *   6. always: QEMU reaped, scratch dir removed.
 */
#include "core/guest.h"
#include "device/fill.h"
#include "device/image.h"
#include "device/initramfs.h"
#include "device/kmod.h"
#include "device/mkfs.h"
#include "device/qemu.h"
#include "report/json.h"
#include "util/io.h"
#include "util/scratch.h"
#include "util/signals.h"
#include "util/spawn.h"
#include "util/text.h"
#include "util/vocab.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NS_PER_S 1000000000ull
/* KVM that works reaches init in about a second; one that does not hangs
 * in the decompressor or dies at once. */
#define KVM_PROBE_NS (20 * NS_PER_S)

/*
 * --fs: the guest makes and mounts the filesystem run is to measure (run
 * needs a mounted directory; the guest's disks are bare).
 */
#define GUEST_MNT "/mnt/fsbench"

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
	char **mkfs_argv; /* --fs: the template expanded for /dev/vda */
};

void fsb_guest_plan_init(struct fsb_guest_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->accel = "auto";
	p->memory_bytes = 1ull << 30;
	p->cpus = 1;
	p->timeout_ns = 600 * NS_PER_S;
}

/* --fs's template: --mkfs, else the type's default. */
static const char *mkfs_of(const struct fsb_guest_plan *p)
{
	return p->mkfs ? p->mkfs : p->mkfs_default;
}

/* The template split and expanded for /dev/vda into *argv. */
static int mkfs_argv_for(const char *tmpl, char ***argv)
{
	static const char *const vda[] = { "/dev/vda" };
	char **words = NULL;
	const char *why;

	*argv = NULL;
	if (fsb_words_split(tmpl, &words, &why) < 0 ||
	    fsb_mkfs_expand(words, vda, 1, argv, &why) < 0) {
		fsb_words_free(words);
		fsb_err("invalid --mkfs '%s': %s", tmpl, why);
		return -EINVAL;
	}
	fsb_words_free(words);
	return 0;
}

const char *fsb_guest_commands(void)
{
	return "run|lifecycle";
}

int fsb_guest_plan_check(struct fsb_guest_plan *p)
{
	char **argv = NULL;
	int err;

	if (p->cmd_argc < 1) {
		fsb_err("guest: no command: give '-- COMMAND ARGS...' (see --help)");
		return -EINVAL;
	}
	if (fsb_vocab_find(fsb_guest_commands(), p->cmd_argv[0]) < 0) {
		fsb_err("guest: cannot run '%s' in a guest: the command is run or lifecycle",
			p->cmd_argv[0]);
		return -EINVAL;
	}
	if (!p->fs) {
		if (p->mkfs || p->options) {
			fsb_err("guest: --mkfs and --options go with --fs TYPE");
			return -EINVAL;
		}
		return 0;
	}
	if (!*p->fs || strpbrk(p->fs, "/ \t") ||
	    (!p->mkfs &&
	     fsb_mkfs_default_template(p->fs, p->mkfs_default, sizeof(p->mkfs_default)))) {
		fsb_err("invalid --fs '%s': expected a filesystem type name", p->fs);
		return -EINVAL;
	}
	if (strcmp(p->cmd_argv[0], "run")) {
		fsb_err("guest: --fs goes with run (lifecycle makes its own filesystems)");
		return -EINVAL;
	}
	if (!p->ndisks) {
		fsb_err("guest: --fs needs a disk to make it on: give --disk SIZE");
		return -EINVAL;
	}
	err = mkfs_argv_for(mkfs_of(p), &argv);
	fsb_words_free(argv);
	return err;
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
	for (p = out + 1;; p++) {
		if (*p == '/' || !*p) {
			char keep = *p;

			*p = '\0';
			if (mkdir(out, 0755) < 0 && errno != EEXIST) {
				int err = -errno;

				fsb_err_errno(err, "guest: cannot create cache directory '%s'",
					      out);
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
static int prepare(const struct fsb_guest_plan *p, struct guest_run *run,
		   struct fsb_guest_kernel *k, char *qemu, size_t qlen, char *cached, size_t clen,
		   bool *built)
{
	struct fsb_guest_needs needs;
	struct fsb_guest_inputs in = { .with_libs = true };
	char busybox[PATH_MAX], self[PATH_MAX], dep_path[PATH_MAX + 16], missing[64],
		cache[PATH_MAX];
	char *dep = NULL;
	size_t dep_len;
	ssize_t n;
	int err;

	if ((err = find_program("qemu-system-x86_64", qemu, qlen)))
		return err;
	if ((err = fsb_guest_find_kernel(p->kernel, p->modules, k)))
		return err;
	if ((err = fsb_guest_needs_for(p->cmd_argc, p->cmd_argv, &needs)) ||
	    (p->fs && (err = fsb_guest_needs_add_fs(&needs, p->fs, mkfs_of(p))))) {
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
static char *fs_script(const struct fsb_guest_plan *p, char *const *mkfs_argv, char *cmd,
		       char **prep, char **fs, char **all)
{
	const char *mnt_words[] = { p->fs, p->options ? p->options : "" };
	size_t nmkfs = 0, len;

	while (mkfs_argv[nmkfs])
		nmkfs++;
	*prep = fsb_guest_cmd_script((int)nmkfs, mkfs_argv);
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
static int make_initrd(const struct fsb_guest_plan *p, struct guest_run *run, const char *cached)
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
	if (script && p->fs && !(script = fs_script(p, run->mkfs_argv, script, &prep, &fs, &all)))
		err = -ENOMEM;
	if (!script ||
	    (err = fsb_irfs_add_data(&cmd, "/guest/cmd.sh", script, strlen(script), 0644)) ||
	    (err = fsb_irfs_finish(&cmd))) {
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

static int make_disks(const struct fsb_guest_plan *p, struct guest_run *run, struct fsb_qemu_cfg *q)
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

static int boot(const struct fsb_guest_plan *p, struct guest_run *run, struct fsb_qemu_cfg *q,
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

static int judge(const struct fsb_guest_plan *p, const struct fsb_qemu_outcome *o)
{
	switch (o->end) {
	case FSB_QEMU_EXITED:
		if (o->guest_status == 0)
			return 0;
		fsb_err("guest: 'fsbench %s' failed in the guest (exit status %d)", p->cmd_argv[0],
			o->guest_status);
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
static int take_result(const struct fsb_guest_plan *p, const struct guest_run *run,
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
	fsb_words_free(run->mkfs_argv);
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

static int execute(const struct fsb_guest_plan *p, const char *dir, struct guest_run *run,
		   struct fsb_result *res)
{
	struct fsb_guest_kernel k;
	struct fsb_qemu_cfg q = { 0 };
	struct fsb_qemu_outcome o;
	char qemu[PATH_MAX], cached[PATH_MAX + 64], append[256];
	bool built;
	int err;

	if (p->fs && (err = mkfs_argv_for(mkfs_of(p), &run->mkfs_argv)))
		return err;
	if ((err = prepare(p, run, &k, qemu, sizeof(qemu), cached, sizeof(cached), &built)))
		return err;
	if (fsb_stop_requested())
		return -EINTR;
	if ((err = fsb_scratch_create(dir, run->scratch, sizeof(run->scratch)))) {
		fsb_err_errno(err, "guest: cannot create a scratch directory");
		return err;
	}
	run->scratch_made = true;
	snprintf(run->result, sizeof(run->result), "%s/result.json", run->scratch);
	if ((err = make_initrd(p, run, cached)) || (err = make_disks(p, run, &q)))
		return err;
	snprintf(append, sizeof(append), "console=ttyS0 quiet loglevel=2 panic=-1 rdinit=/init");
	q.qemu = qemu;
	q.kernel = k.kernel;
	q.initrd = run->initrd;
	q.append = append;
	q.memory_mb = (unsigned)(p->memory_bytes >> 20);
	q.cpus = p->cpus;
	q.result_path = run->result;
	if ((err = boot(p, run, &q, &k, &o)) || (err = judge(p, &o)))
		return err;
	return take_result(p, run, &q, &o, &k, res);
}

int fsb_guest_execute(const struct fsb_guest_plan *p, const char *dir, struct fsb_result *res,
		      struct fsb_error *e)
{
	struct fsb_err_scope scope;
	const char *tmp = getenv("TMPDIR");
	struct guest_run *run = calloc(1, sizeof(*run));
	int err;

	fsb_err_capture_begin(&scope, e, false);
	if (!run) {
		fsb_err("guest: out of memory");
		return fsb_err_capture_end(&scope, -ENOMEM);
	}
	if (!dir)
		dir = tmp && *tmp ? tmp : "/tmp";
	fsb_irfs_init(&run->fs);
	err = execute(p, dir, run, res);
	if (!err && fsb_stop_requested())
		err = -EINTR;
	release(run);
	free(run);
	return fsb_err_capture_end(&scope, err);
}
