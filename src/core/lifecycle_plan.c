/*
 * The lifecycle plan (core/lifecycle.h): defaults and the checks across
 * options, all before anything is touched.
 */
#include "core/lifecycle.h"
#include "core/registry.h"
#include "device/mkfs.h"
#include "device/mtd.h"
#include "util/spawn.h"
#include "util/vocab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const lc_families[] = { "lifecycle", NULL };
static const char *const phase_names[] = {
	"mkfs", "mkfs-mount", "mkfs-umount", "mount-umount", "write", "read", "all",
};

const char *fsb_lc_phase_names(void)
{
	static char names[128];

	if (!names[0])
		fsb_vocab_join(phase_names, sizeof(phase_names) / sizeof(phase_names[0]), names,
			       sizeof(names));
	return names;
}

void fsb_lc_plan_init(struct fsb_lc_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->cfg = (struct fsb_config){
		.repeat = 12,
		.min_time_ns = 0,
		.cache = FSB_CACHE_DROP,
		.chunk_bytes = FSB_LC_IO_BYTES,
	};
	p->copy_size = 16u << 20;
}

const char *fsb_lc_plan_mkfs(const struct fsb_lc_plan *p)
{
	return p->mkfs_tmpl ? p->mkfs_tmpl : p->mkfs_default;
}

const char *fsb_lc_plan_device(const struct fsb_lc_plan *p)
{
	return p->mtd ? p->mtd_dev : p->device;
}

static int bad(const char *opt, const char *arg, const char *want)
{
	if (arg)
		fsb_err("invalid %s '%s': expected %s", opt, arg, want);
	else
		fsb_err("invalid %s: expected %s", opt, want);
	return -EINVAL;
}

static bool known_phase(const char *name)
{
	/* "lifecycle", the family's name, means all too. */
	return fsb_vocab_find(fsb_lc_phase_names(), name) >= 0 || !strcmp(name, "lifecycle");
}

/*
 * --phases resolved to workloads in report order. "mkfs" means its three
 * timings (mkfs, mkfs-mount, mkfs-umount); "all" every phase. With --mkfs
 * none there is no mkfs step to time.
 */
static int select_phases(struct fsb_lc_plan *p)
{
	char expanded[512] = "", *copy, *save = NULL, *item;
	size_t len = 0;
	int n;

	copy = strdup(p->phases ? p->phases : "lifecycle");
	if (!copy) {
		fsb_err("lifecycle: out of memory");
		return -ENOMEM;
	}
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		const char *add = item;

		if (!known_phase(item)) {
			fsb_err("invalid --phases '%s': unknown phase '%s' (phases: mkfs, "
				"mkfs-mount, mkfs-umount, mount-umount, write, read)",
				p->phases, item);
			free(copy);
			return -EINVAL;
		}
		if (!strcmp(item, "mkfs"))
			add = "mkfs,mkfs-mount,mkfs-umount";
		else if (!strcmp(item, "all"))
			add = "lifecycle";
		len += (size_t)snprintf(expanded + len, sizeof(expanded) - len, "%s%s",
					len ? "," : "", add);
		if (len >= sizeof(expanded)) {
			free(copy);
			return bad("--phases", p->phases, "a shorter list");
		}
	}
	free(copy);
	if (!len)
		return bad("--phases", p->phases, "a comma-separated list of phases");
	n = fsb_registry_select(expanded, lc_families, p->ops, FSB_LC_MAX_PHASES);
	if (n < 0)
		return -EINVAL;
	p->nops = (size_t)n;
	if (fsb_mkfs_is_none(fsb_lc_plan_mkfs(p))) {
		size_t k = 0;

		for (size_t i = 0; i < p->nops; i++)
			if (strcmp(p->ops[i]->name, "mkfs"))
				p->ops[k++] = p->ops[i];
		p->nops = k;
		if (!k) {
			fsb_err("lifecycle: nothing to do: --mkfs none has no mkfs step to time "
				"(mkfs-mount and mkfs-umount still time the first mount)");
			return -EINVAL;
		}
	}
	return 0;
}

/* Split the template now: a malformed one is a usage error. */
static int check_mkfs_template(struct fsb_lc_plan *p)
{
	static const char *const probe_dev[] = { "/dev/loop0" };
	const char *tmpl, *why;
	char **words = NULL, **trial = NULL, refusal[PATH_MAX + 256];

	if (p->ubi)
		return 0;
	if (!p->mkfs_tmpl &&
	    fsb_mkfs_default_template(p->fs_type, p->mkfs_default, sizeof(p->mkfs_default)))
		return bad("--fs", p->fs_type, "a filesystem type name");
	tmpl = fsb_lc_plan_mkfs(p);
	if (fsb_mkfs_is_none(tmpl))
		return 0;
	if (fsb_words_split(tmpl, &words, &why) < 0) {
		fsb_err("invalid --mkfs '%s': %s", tmpl, why);
		return -EINVAL;
	}
	if (fsb_mkfs_check_template(tmpl, refusal, sizeof(refusal))) {
		fsb_err("invalid --mkfs '%s': %s", tmpl, refusal);
		fsb_words_free(words);
		return -EINVAL;
	}
	/* Placeholders are checked with a stand-in device. */
	if (fsb_mkfs_expand(words, probe_dev, 1, &trial, &why) < 0) {
		fsb_err("invalid --mkfs '%s': %s", tmpl, why);
		fsb_words_free(words);
		return -EINVAL;
	}
	fsb_words_free(trial);
	fsb_words_free(words);
	return 0;
}

int fsb_lc_plan_mtd(struct fsb_lc_plan *p, const char *spec)
{
	if (fsb_mtd_parse(spec, p->mtd_dev, sizeof(p->mtd_dev), &p->mtd_erase_bytes))
		return -EINVAL;
	p->mtd = spec;
	return 0;
}

/* On flash: no fill (it is erased), jffs2 formats on mount, ubifs via UBI. */
static int check_mtd(struct fsb_lc_plan *p)
{
	if (fsb_lc_plan_mtd(p, p->mtd))
		return bad("--mtd", p->mtd, "DEV,ERASESIZE (/dev/vda,128k)");
	if (p->fill_set) {
		fsb_err("lifecycle: --fill does not go with --mtd (flash is erased)");
		return -EINVAL;
	}
	/* JFFS2 formats blank flash on its first mount: the reference's
	 * "mkfs" is that mount. */
	if (!p->mkfs_tmpl && !strcmp(p->fs_type, "jffs2"))
		p->mkfs_tmpl = "none";
	/* UBIFS lives on a UBI volume: formatting the flash for UBI,
	 * attaching it and making the volume is its mkfs. */
	if (!strcmp(p->fs_type, "ubifs")) {
		if (p->mkfs_tmpl) {
			fsb_err("lifecycle: --mkfs does not go with --fs ubifs --mtd (its mkfs "
				"is ubiformat, ubiattach, ubimkvol)");
			return -EINVAL;
		}
		if (p->pre_erase) {
			fsb_err("lifecycle: --pre-erase is for jffs2 (ubiformat erases)");
			return -EINVAL;
		}
		p->ubi = true;
		p->mkfs_tmpl = "ubiformat -y -q {mtd}; ubiattach -m N -d N; "
			       "ubimkvol /dev/ubiN -N fsbench -m";
		/* ubiformat erases every block itself (keeping erase
		 * counters, as on real flash): no erase before each mkfs. */
		if (!p->refill_set) {
			p->refill = FSB_LC_REFILL_ONCE;
			p->refill_set = true;
		}
	}
	/* The checks of --device apply to the disk under the flash. */
	p->destroy_data = true;
	return 0;
}

int fsb_lc_plan_check(struct fsb_lc_plan *p)
{
	int err;

	if (!p->fs_type) {
		fsb_err("lifecycle: --fs TYPE is required (ext4, xfs, btrfs, ...)");
		return -EINVAL;
	}
	/* The type names mkfs.TYPE and goes to mount(2): a name, not a path. */
	if (!*p->fs_type || strpbrk(p->fs_type, "/ \t\n"))
		return bad("--fs", p->fs_type, "a filesystem type name (ext4, xfs, btrfs, ...)");
	if (!p->mount_type)
		p->mount_type = p->fs_type;
	if (!!p->image + !!(p->device || p->device_later) + !!p->mtd != 1) {
		fsb_err("lifecycle: give exactly one of --image PATH, --device DEV and --mtd DEV,SIZE");
		return -EINVAL;
	}
	if (p->pre_erase && !p->mtd) {
		fsb_err("lifecycle: --pre-erase goes with --mtd");
		return -EINVAL;
	}
	if (p->mtd && (err = check_mtd(p)))
		return err;
	if (p->image_size && !p->image) {
		fsb_err("lifecycle: --image-size goes with --image (a device has its own size)");
		return -EINVAL;
	}
	if (!p->fill_set)
		p->fill = p->image ? FSB_FILL_FF : FSB_FILL_NONE;
	if ((p->image && !*p->image) || (p->device && !*p->device)) {
		fsb_err("lifecycle: --image and --device need a path");
		return -EINVAL;
	}
	if ((err = check_mkfs_template(p)) || (err = select_phases(p)))
		return err;
	return 0;
}
