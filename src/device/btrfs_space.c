#include "device/btrfs_space.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Space info slots asked for: data, metadata, system, the global reserve,
 * and room for mixed or changing profiles. */
#define SPACE_SLOTS 16

/* Devices a chunk of a profile needs, and whether both copies are on one. */
static unsigned profile_copies(uint64_t flags, bool *dup)
{
	*dup = false;
	if (flags & BTRFS_BLOCK_GROUP_RAID1C4)
		return 4;
	if (flags & (BTRFS_BLOCK_GROUP_RAID1C3 | BTRFS_BLOCK_GROUP_RAID6))
		return 3;
	/* RAID-10 and RAID-5 hold each byte twice (a copy or parity) on
	 * distinct devices: counted as RAID-1, which never overstates. */
	if (flags & (BTRFS_BLOCK_GROUP_RAID1 | BTRFS_BLOCK_GROUP_RAID10 | BTRFS_BLOCK_GROUP_RAID5))
		return 2;
	if (flags & BTRFS_BLOCK_GROUP_DUP) {
		*dup = true;
		return 2;
	}
	return 1;
}

uint64_t fsb_btrfs_chunk_room(const uint64_t *unalloc, unsigned ndevs, unsigned copies, bool dup)
{
	uint64_t lo = 0, hi = 0, sum = 0;

	if (!copies)
		return 0;
	for (unsigned i = 0; i < ndevs; i++) {
		if (dup)
			sum += unalloc[i] / 2;
		else
			sum += unalloc[i];
	}
	if (dup || copies == 1)
		return sum;
	/* The largest L that `copies` distinct devices can hold: bisect. */
	hi = sum / copies;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2, have = 0;

		for (unsigned i = 0; i < ndevs; i++)
			have += unalloc[i] < mid ? unalloc[i] : mid;
		if (have / copies >= mid)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

uint64_t fsb_btrfs_meta_room(const struct fsb_btrfs_meta *m)
{
	uint64_t free = m->total > m->used ? m->total - m->used : 0;
	uint64_t room = free + m->chunk_room;

	return room > m->reserve ? room - m->reserve : 0;
}

/* The devices' ids (1..max_id, with holes where a device was removed). */
static int fs_info(int fd, struct btrfs_ioctl_fs_info_args *fi)
{
	memset(fi, 0, sizeof(*fi));
	return ioctl(fd, BTRFS_IOC_FS_INFO, fi) < 0 ? -errno : 0;
}

static int read_devs(int fd, struct fsb_btrfs_meta *out)
{
	struct btrfs_ioctl_fs_info_args fi;
	struct btrfs_ioctl_dev_info_args *di = malloc(sizeof(*di));
	int err = di ? fs_info(fd, &fi) : -ENOMEM;

	for (uint64_t id = 1; !err && id <= fi.max_id && out->ndevs < FSB_BTRFS_MAX_DEVS; id++) {
		memset(di, 0, sizeof(*di));
		di->devid = id;
		if (ioctl(fd, BTRFS_IOC_DEV_INFO, di) < 0) {
			if (errno != ENODEV)
				err = -errno;
			continue;
		}
		out->unallocated[out->ndevs++] = di->total_bytes > di->bytes_used
							 ? di->total_bytes - di->bytes_used
							 : 0;
	}
	free(di);
	return err;
}

static int read_space(int fd, struct fsb_btrfs_meta *out)
{
	struct btrfs_ioctl_space_args *sa = calloc(
		1, sizeof(*sa) + SPACE_SLOTS * sizeof(struct btrfs_ioctl_space_info));
	uint64_t profile = 0;
	bool dup;

	if (!sa)
		return -ENOMEM;
	sa->space_slots = SPACE_SLOTS;
	if (ioctl(fd, BTRFS_IOC_SPACE_INFO, sa) < 0) {
		int err = -errno;

		free(sa);
		return err;
	}
	for (uint64_t i = 0; i < sa->total_spaces && i < SPACE_SLOTS; i++) {
		const struct btrfs_ioctl_space_info *s = &sa->spaces[i];

		if (s->flags & BTRFS_SPACE_INFO_GLOBAL_RSV) {
			out->reserve = s->total_bytes;
		} else if (s->flags & BTRFS_BLOCK_GROUP_METADATA) {
			/* Mixed block groups (data and metadata) count too. */
			out->total += s->total_bytes;
			out->used += s->used_bytes;
			profile |= s->flags;
		}
	}
	free(sa);
	out->copies = profile_copies(profile, &dup);
	out->chunk_room = fsb_btrfs_chunk_room(out->unallocated, out->ndevs, out->copies, dup);
	return 0;
}

int fsb_btrfs_meta_read(const char *path, struct fsb_btrfs_meta *out)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return -errno;
	err = read_devs(fd, out);
	if (!err)
		err = read_space(fd, out);
	close(fd);
	return err == -EINVAL || err == -ENOTTY ? -ENOTTY : err;
}

int fsb_btrfs_dev_errors(const char *path, uint64_t *sum)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;
	struct btrfs_ioctl_fs_info_args fi;
	struct btrfs_ioctl_get_dev_stats ds;

	*sum = 0;
	if (fd < 0)
		return -errno;
	err = fs_info(fd, &fi);
	for (uint64_t id = 1; !err && id <= fi.max_id; id++) {
		memset(&ds, 0, sizeof(ds));
		ds.devid = id;
		ds.nr_items = BTRFS_DEV_STAT_VALUES_MAX;
		if (ioctl(fd, BTRFS_IOC_GET_DEV_STATS, &ds) < 0) {
			if (errno != ENODEV)
				err = -errno;
			continue;
		}
		for (uint64_t k = 0; k < ds.nr_items && k < BTRFS_DEV_STAT_VALUES_MAX; k++)
			*sum += ds.values[k];
	}
	close(fd);
	return err == -EINVAL || err == -ENOTTY ? -ENOTTY : err;
}
