#include "device/btrfs_space.h"

#include "util/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Space info slots asked for: data, metadata, system, the global reserve,
 * and room for mixed or changing profiles. */
#define SPACE_SLOTS 16

/* The first MiB of every device is never allocated (the kernel's
 * BTRFS_DEVICE_RANGE_RESERVED), yet DEV_INFO counts it unused. */
#define DEV_RESERVED (1u << 20)

/* The kernel's chunk sizes where sysfs does not say (calc_chunk_size):
 * metadata 256 MiB, 1 GiB over 50 GiB of devices; data 10 GiB. */
#define META_CHUNK_SMALL (256ull << 20)
#define META_CHUNK_LARGE (1ull << 30)
#define META_CHUNK_LARGE_FROM (50ull << 30)
#define DATA_CHUNK_DEFAULT (10ull << 30)

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

uint64_t fsb_btrfs_chunk_size(uint64_t chunk_size, uint64_t devs_total)
{
	uint64_t tenth = devs_total / 10, c = chunk_size < tenth ? chunk_size : tenth;
	const uint64_t align = 16ull << 20;

	/* One stripe is at most 1 GiB (max_stripe_size). */
	c = (c + align - 1) / align * align;
	return c > (1ull << 30) ? 1ull << 30 : c;
}

uint64_t fsb_btrfs_data_room(const struct fsb_btrfs_meta *m)
{
	uint64_t keep = m->meta_chunk + m->reserve, avail[FSB_BTRFS_MAX_DEVS], room, fresh;
	unsigned n = m->ndevs < FSB_BTRFS_MAX_DEVS ? m->ndevs : FSB_BTRFS_MAX_DEVS;

	if (m->mixed) {
		/* Data and metadata in the same block groups: what data
		 * takes, metadata lacks; both leave a chunk and the reserve. */
		room = (m->total > m->used ? m->total - m->used : 0) + m->chunk_room;
		return room > keep ? room - keep : 0;
	}
	if (m->dup)
		keep *= 2;
	for (unsigned i = 0; i < n; i++)
		avail[i] = m->unallocated[i] > keep ? m->unallocated[i] - keep : 0;
	fresh = fsb_btrfs_chunk_room(avail, n, m->data_copies, m->data_dup);
	/* A data chunk is allocated whole where the space holds one. */
	if (m->data_chunk)
		fresh = fresh / m->data_chunk * m->data_chunk;
	room = m->data_total > m->data_used ? m->data_total - m->data_used : 0;
	return room + fresh;
}

uint64_t fsb_btrfs_scratch_space(const char *dir, uint64_t reuse)
{
	uint64_t plain = fsb_scratch_space(dir, reuse), room, margin;
	struct fsb_btrfs_meta m;

	if (fsb_btrfs_meta_read(dir, &m))
		return plain;
	/* The margin fsb_scratch_space keeps, on the room data has. */
	room = fsb_btrfs_data_room(&m) + reuse;
	margin = room / 20 + (4u << 20);
	room = room > margin ? room - margin : 0;
	return room < plain ? room : plain;
}

/* The devices' ids (1..max_id, with holes where a device was removed). */
static int fs_info(int fd, struct btrfs_ioctl_fs_info_args *fi)
{
	memset(fi, 0, sizeof(*fi));
	return ioctl(fd, BTRFS_IOC_FS_INFO, fi) < 0 ? -errno : 0;
}

static int read_devs(int fd, struct fsb_btrfs_meta *out, struct btrfs_ioctl_fs_info_args *fi,
		     uint64_t *devs_total)
{
	struct btrfs_ioctl_dev_info_args *di = malloc(sizeof(*di));
	int err = di ? fs_info(fd, fi) : -ENOMEM;

	*devs_total = 0;
	for (uint64_t id = 1; !err && id <= fi->max_id && out->ndevs < FSB_BTRFS_MAX_DEVS; id++) {
		uint64_t used;

		memset(di, 0, sizeof(*di));
		di->devid = id;
		if (ioctl(fd, BTRFS_IOC_DEV_INFO, di) < 0) {
			if (errno != ENODEV)
				err = -errno;
			continue;
		}
		used = di->bytes_used + DEV_RESERVED;
		*devs_total += di->total_bytes;
		out->unallocated[out->ndevs++] = di->total_bytes > used ? di->total_bytes - used
									: 0;
	}
	free(di);
	return err;
}

/* A space info's chunk_size in sysfs (/sys/fs/btrfs/FSID/allocation/
 * KIND/chunk_size, since Linux 6.0), or 0. */
static uint64_t sysfs_chunk_size(const uint8_t *fsid, const char *kind)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;
	int n;

	n = snprintf(path, sizeof(path), "/sys/fs/btrfs/");
	for (int i = 0; i < BTRFS_FSID_SIZE; i++)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x%s", fsid[i],
			      i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
	snprintf(path + n, sizeof(path) - (size_t)n, "/allocation/%s/chunk_size", kind);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static int read_space(int fd, struct fsb_btrfs_meta *out, const uint8_t *fsid, uint64_t devs_total)
{
	struct btrfs_ioctl_space_args *sa = calloc(
		1, sizeof(*sa) + SPACE_SLOTS * sizeof(struct btrfs_ioctl_space_info));
	uint64_t profile = 0, dprofile = 0, meta_cs, data_cs;

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
			if (s->flags & BTRFS_BLOCK_GROUP_DATA)
				out->mixed = true;
		} else if (s->flags & BTRFS_BLOCK_GROUP_DATA) {
			out->data_total += s->total_bytes;
			out->data_used += s->used_bytes;
			dprofile |= s->flags;
		}
	}
	free(sa);
	out->copies = profile_copies(profile, &out->dup);
	out->data_copies = profile_copies(out->mixed ? profile : dprofile, &out->data_dup);
	out->chunk_room = fsb_btrfs_chunk_room(out->unallocated, out->ndevs, out->copies, out->dup);
	meta_cs = sysfs_chunk_size(fsid, out->mixed ? "mixed" : "metadata");
	if (!meta_cs)
		meta_cs = devs_total > META_CHUNK_LARGE_FROM ? META_CHUNK_LARGE : META_CHUNK_SMALL;
	data_cs = out->mixed ? meta_cs : sysfs_chunk_size(fsid, "data");
	out->meta_chunk = fsb_btrfs_chunk_size(meta_cs, devs_total);
	out->data_chunk = fsb_btrfs_chunk_size(data_cs ? data_cs : DATA_CHUNK_DEFAULT, devs_total);
	return 0;
}

int fsb_btrfs_meta_read(const char *path, struct fsb_btrfs_meta *out)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;
	struct btrfs_ioctl_fs_info_args fi;
	uint64_t devs_total = 0;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return -errno;
	err = read_devs(fd, out, &fi, &devs_total);
	if (!err)
		err = read_space(fd, out, fi.fsid, devs_total);
	close(fd);
	return err == -EINVAL || err == -ENOTTY ? -ENOTTY : err;
}

/* Whether every device holds a metadata chunk and the reserve. */
static bool has_headroom(const struct fsb_btrfs_meta *m)
{
	uint64_t keep = (m->meta_chunk + m->reserve) * (m->dup ? 2 : 1);
	unsigned have = 0;

	for (unsigned i = 0; i < m->ndevs; i++)
		have += m->unallocated[i] >= keep;
	return have >= (m->copies > m->ndevs ? m->ndevs : m->copies);
}

int fsb_btrfs_wait_headroom(const char *dir, unsigned max_ms)
{
	struct fsb_btrfs_meta m;
	unsigned waited = 0;
	int fd;

	for (;;) {
		if (fsb_btrfs_meta_read(dir, &m) || m.mixed || has_headroom(&m))
			return 0;
		/* Nothing empty to give back, or no more time. */
		if (m.data_total <= m.data_used + m.data_chunk || waited >= max_ms)
			return -ENOSPC;
		/* A commit settles the empty groups and the cleaner's deletes. */
		if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
			syncfs(fd);
			close(fd);
		}
		usleep(250 * 1000);
		waited += 250;
	}
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
