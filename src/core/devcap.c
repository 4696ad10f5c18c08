/*
 * The raw device's capability (core/devcap.h). Measurement policy: the
 * device is opened O_DIRECT, so the page cache neither helps nor hides it;
 * each figure is the bytes (or I/Os) completed over the time from the
 * first submission to the last completion, a write's fsync inside it. A
 * sequential round stops after one pass of the data to read, so a small
 * device is measured in less than the round's time; the next round goes
 * on from where the last stopped.
 */
#include "core/devcap.h"
#include "device/fill.h"
#include "device/loop.h"
#include "device/probe.h"
#include "engines/engine.h"
#include "stats/clock.h"
#include "stats/summary.h"
#include "util/error.h"
#include "util/signals.h"
#include "util/size.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The ranges read: those that hold data. A loop device over a sparse file
 * reads its holes as zeros without any I/O, so a figure read from them is
 * the CPU's, not the device's, and it changes with what is cached. cum[i]
 * is the bytes of the ranges before range i.
 */
struct cap_data {
	const struct fsb_range *v;
	const uint64_t *cum;
	size_t n;
	uint64_t bytes;
};

/* Where a figure's next round goes on: its sequential position (range,
 * offset in it) and its random generator. */
struct cap_state {
	size_t ri;
	uint64_t rpos, rng;
};

struct cap_drive {
	const char *dev;
	enum fsb_io_op op;
	bool random;
	uint64_t block, end_ns, limit_bytes;
	const struct cap_data *data;
	struct cap_state *st;
	uint64_t issued_bytes, done_bytes, ops;
};

static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The device offset of byte b of the data (b < data->bytes). */
static uint64_t data_offset(const struct cap_data *data, uint64_t b)
{
	size_t lo = 0, hi = data->n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;

		if (data->cum[mid] <= b)
			lo = mid;
		else
			hi = mid - 1;
	}
	return data->v[lo].off + (b - data->cum[lo]);
}

static int cap_next(void *arg, struct fsb_io *io)
{
	struct cap_drive *d = arg;
	const struct cap_data *data = d->data;
	struct cap_state *st = d->st;
	uint64_t len = d->block;

	if (d->issued_bytes >= d->limit_bytes || fsb_clock_ns() >= d->end_ns)
		return FSB_ENGINE_END;
	io->op = d->op;
	if (d->random) {
		/* The ranges are whole random blocks: none straddles a hole. */
		io->off = data_offset(data,
				      next_rand(&st->rng) % (data->bytes / d->block) * d->block);
	} else {
		/* Up to a block, never past the end of a range. */
		if (st->ri >= data->n || st->rpos >= data->v[st->ri].len) {
			st->ri = st->ri + 1 < data->n ? st->ri + 1 : 0;
			st->rpos = 0;
		}
		if (len > data->v[st->ri].len - st->rpos)
			len = data->v[st->ri].len - st->rpos;
		io->off = data->v[st->ri].off + st->rpos;
		st->rpos += len;
	}
	io->len = (uint32_t)len;
	d->issued_bytes += len;
	return FSB_ENGINE_NEXT;
}

static int cap_done(void *arg, struct fsb_io *io, uint64_t lat_ns)
{
	struct cap_drive *d = arg;

	(void)lat_ns;
	if (io->res < 0) {
		fsb_err_errno((int)io->res, "device capability: cannot %s '%s' at byte %llu",
			      d->op == FSB_IO_WRITE ? "write" : "read", d->dev,
			      (unsigned long long)io->off);
		return (int)io->res;
	}
	d->done_bytes += (uint64_t)io->res;
	d->ops++;
	return 0;
}

/* The engine for a figure: ops once chosen, else io_uring, psync when
 * io_uring is refused (an old kernel, a seccomp policy), said in "how". */
static int engine_init(struct fsb_engine *e, const struct fsb_engine_ops **ops, int fd,
		       unsigned depth, void *bufs, size_t block)
{
	struct fsb_err_scope scope;
	struct fsb_error why = { 0 };
	int err;

	if (*ops)
		return fsb_engine_init(e, *ops, fd, depth, bufs, block, depth);
	fsb_err_capture_begin(&scope, &why, true);
	err = fsb_engine_init(e, fsb_engine_find("io_uring"), fd, depth, bufs, block, depth);
	fsb_err_capture_end(&scope, err);
	*ops = fsb_engine_find("io_uring");
	if (err) {
		fsb_engine_release(e);
		*ops = fsb_engine_find("psync");
		err = fsb_engine_init(e, *ops, fd, depth, bufs, block, depth);
	}
	return err;
}

/* One round of a figure: bytes/s (sequential) or I/Os per second (random);
 * the bytes it transferred are added to *moved. */
static int figure(int fd, const char *dev, const struct cap_data *data, enum fsb_io_op op,
		  bool random, struct cap_state *st, const struct fsb_engine_ops **ops,
		  unsigned *depth_used, double *out, uint64_t *moved)
{
	unsigned depth = random ? FSB_DEVCAP_RAND_DEPTH : FSB_DEVCAP_SEQ_DEPTH;
	size_t block = random ? FSB_DEVCAP_RAND_BLOCK : FSB_DEVCAP_SEQ_BLOCK;
	struct cap_drive d = {
		.dev = dev,
		.op = op,
		.random = random,
		.block = block,
		.data = data,
		.st = st,
		/* A sequential round stops after one pass of the data. */
		.limit_bytes = random ? UINT64_MAX : data->bytes,
	};
	struct fsb_engine e = { 0 };
	uint64_t seed = 0x636170ull, t0, t1;
	void *bufs = NULL;
	int err;

	if ((err = posix_memalign(&bufs, 4096, block * depth))) {
		fsb_err("device capability: out of memory for %u buffers of %zu bytes", depth,
			block);
		return -err;
	}
	/* Written data is random: a device that compresses or dedupes gets
	 * nothing for free. */
	fsb_fill_random(bufs, block * depth, &seed);
	if ((err = engine_init(&e, ops, fd, depth, bufs, block)))
		goto out;
	*depth_used = ((*ops)->flags & FSB_ENGINE_SYNC) ? 1 : depth;
	t0 = fsb_clock_ns();
	d.end_ns = t0 + (uint64_t)(FSB_DEVCAP_SECONDS * 1e9);
	err = fsb_engine_drive(&e, cap_next, cap_done, &d);
	if (!err && op == FSB_IO_WRITE && (err = fsb_engine_fsync(&e)) && err != -EINTR)
		fsb_err_errno(err, "device capability: cannot fsync '%s'", dev);
	t1 = fsb_clock_ns();
	if (!err && (!d.ops || t1 <= t0)) {
		fsb_err("device capability: no I/O completed on '%s'", dev);
		err = -EIO;
	}
	if (!err) {
		*out = (random ? (double)d.ops : (double)d.done_bytes) / ((double)(t1 - t0) / 1e9);
		*moved += d.done_bytes;
	}
out:
	fsb_engine_release(&e);
	free(bufs);
	return err;
}

/* Figure k in its rounds, its median into the figure. */
static int figure_rounds(int fd, const char *dev, const struct cap_data *data,
			 enum fsb_devcap_fig k, const struct fsb_engine_ops **ops,
			 unsigned *depth_used, struct fsb_devcap *out, uint64_t *moved)
{
	bool random = k == FSB_DEVCAP_RAND_READ || k == FSB_DEVCAP_RAND_WRITE;
	enum fsb_io_op op = k == FSB_DEVCAP_SEQ_WRITE || k == FSB_DEVCAP_RAND_WRITE ? FSB_IO_WRITE
										    : FSB_IO_READ;
	/* "devcap!"; the reads another order than the writes before them,
	 * so that no read finds a block a write just cached. */
	struct cap_state st = { .rng = (0x64657663617021ull ^ data->bytes) +
				       (op == FSB_IO_READ ? 0x9e3779b97f4a7c15ull : 0) };
	struct fsb_summary sum;
	int err;

	for (unsigned i = 0; i < FSB_DEVCAP_ROUNDS; i++)
		if ((err = figure(fd, dev, data, op, random, &st, ops, depth_used,
				  &out->rounds[k][i], moved)))
			return err;
	out->nrounds[k] = FSB_DEVCAP_ROUNDS;
	if ((err = fsb_summary_compute(out->rounds[k], FSB_DEVCAP_ROUNDS, &sum)))
		return err;
	switch (k) {
	case FSB_DEVCAP_SEQ_READ:
		out->seq_read_Bps = sum.median;
		break;
	case FSB_DEVCAP_SEQ_WRITE:
		out->seq_write_Bps = sum.median;
		break;
	case FSB_DEVCAP_RAND_READ:
		out->rand_read_iops = sum.median;
		break;
	default:
		out->rand_write_iops = sum.median;
		break;
	}
	return 0;
}

/* The cumulative bytes of data's ranges; 0 or -ENOMEM. */
static int data_index(struct cap_data *data, uint64_t **cum)
{
	if (!(*cum = malloc((data->n ? data->n : 1) * sizeof(**cum))))
		return -ENOMEM;
	data->bytes = 0;
	for (size_t i = 0; i < data->n; i++) {
		(*cum)[i] = data->bytes;
		data->bytes += data->v[i].len;
	}
	data->cum = *cum;
	return 0;
}

/*
 * The ranges of dev (open on fd, bytes long) that hold data, for the reads:
 * a loop device's backing file's data, else the whole device. Records
 * where they came from, their bytes, and a short_reason when they are too
 * few to say much. 0, or -errno after describing the failure.
 */
static int find_data(int fd, const char *dev, uint64_t bytes, struct cap_data *data,
		     struct fsb_range **v, uint64_t **cum, struct fsb_devcap *out)
{
	char file[4096], from[4200], a[32], b[32], why[256];
	size_t n = 0;
	int rc = fsb_loopdev_data_ranges(fd, bytes, FSB_DEVCAP_RAND_BLOCK, FSB_DEVCAP_MAX_RANGES, v,
					 &n, file, sizeof(file));

	if (rc < 0) {
		fsb_err_errno(rc,
			      "device capability: cannot find where the backing file of "
			      "'%s' holds data",
			      dev);
		return rc;
	}
	if (rc == 0) {
		/* A plain block device: every byte of it is read from it. */
		if (!(*v = malloc(sizeof(**v))))
			return -ENOMEM;
		(*v)[0] = (struct fsb_range){ 0, bytes / FSB_DEVCAP_RAND_BLOCK *
							 FSB_DEVCAP_RAND_BLOCK };
		n = 1;
		snprintf(from, sizeof(from), "the whole device");
	} else {
		snprintf(from, sizeof(from), "the backing file's data (%s)", file);
	}
	data->v = *v;
	data->n = n;
	if (data_index(data, cum) || fsb_strset(&out->data_from, from))
		return -ENOMEM;
	out->data_bytes = data->bytes;
	out->data_ranges = n;
	if (data->bytes < FSB_DEVCAP_RAND_BLOCK) {
		fsb_err("device capability: '%s' holds no data to read (its backing file '%s' "
			"is all holes)",
			dev, file);
		return -ENODATA;
	}
	if (data->bytes >= FSB_DEVCAP_MIN_BYTES)
		return 0;
	snprintf(why, sizeof(why),
		 "only %s of the device's %s hold data, under %s: too little to read for "
		 "a figure",
		 fsb_size_format_human(data->bytes, a, sizeof(a)),
		 fsb_size_format_human(bytes, b, sizeof(b)),
		 fsb_size_format_human(FSB_DEVCAP_MIN_BYTES, file, sizeof(file)));
	return fsb_strset(&out->short_reason, why) ? -ENOMEM : 0;
}

/* The figures of dev, open on fd (bytes long): the writes first where
 * allowed, then the reads of the ranges that hold data. */
static int measure_fd(int fd, const char *dev, uint64_t bytes, bool write,
		      const struct fsb_engine_ops **ops, struct fsb_devcap *out)
{
	struct fsb_range whole = { 0, bytes / FSB_DEVCAP_RAND_BLOCK * FSB_DEVCAP_RAND_BLOCK };
	uint64_t zero = 0, moved = 0, *cum = NULL;
	struct cap_data data = { .v = &whole, .cum = &zero, .n = 1, .bytes = whole.len };
	struct fsb_range *v = NULL;
	int err;

	/* Writes first, where allowed: the reads then find data, not the
	 * holes of a fresh image. */
	if (write && ((err = figure_rounds(fd, dev, &data, FSB_DEVCAP_SEQ_WRITE, ops,
					   &out->seq_depth, out, &moved)) ||
		      (err = figure_rounds(fd, dev, &data, FSB_DEVCAP_RAND_WRITE, ops,
					   &out->rand_depth, out, &moved))))
		return err;
	moved = 0;
	if (!(err = find_data(fd, dev, bytes, &data, &v, &cum, out)) &&
	    !(err = figure_rounds(fd, dev, &data, FSB_DEVCAP_SEQ_READ, ops, &out->seq_depth, out,
				  &moved)))
		err = figure_rounds(fd, dev, &data, FSB_DEVCAP_RAND_READ, ops, &out->rand_depth,
				    out, &moved);
	out->read_bytes = moved;
	free(v);
	free(cum);
	return err;
}

int fsb_devcap_measure(const char *dev, bool write, struct fsb_devcap *out)
{
	const struct fsb_engine_ops *ops = NULL;
	uint64_t bytes;
	struct stat st;
	int fd, err;

	/* Not O_EXCL: the io_uring ring holds the file after close until its
	 * deferred exit, so the exclusive claim would outlive this function
	 * and make the mkfs that follows fail with EBUSY. The callers hold
	 * the device (lifecycle's lock, matrix's own loop device). */
	fd = open(dev, (write ? O_RDWR : O_RDONLY) | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		fsb_err_errno(err, "device capability: cannot open '%s'", dev);
		return err;
	}
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		fsb_err("device capability: '%s' is not a block device", dev);
		err = -ENOTBLK;
		goto out;
	}
	if ((err = fsb_blockdev_size(fd, &bytes))) {
		fsb_err_errno(err, "device capability: cannot get the size of '%s'", dev);
		goto out;
	}
	if (bytes < FSB_DEVCAP_MIN_BYTES) {
		fsb_err("device capability: '%s' is too small to measure (%llu bytes, under %llu)",
			dev, (unsigned long long)bytes, (unsigned long long)FSB_DEVCAP_MIN_BYTES);
		err = -ENOSPC;
		goto out;
	}
	if ((err = measure_fd(fd, dev, bytes, write, &ops, out)))
		goto out;
	if (fsb_strset(&out->device, dev) || fsb_strset(&out->engine, ops->name)) {
		fsb_err("device capability: out of memory");
		err = -ENOMEM;
		goto out;
	}
	out->seq_block_bytes = FSB_DEVCAP_SEQ_BLOCK;
	out->rand_block_bytes = FSB_DEVCAP_RAND_BLOCK;
	out->seconds = FSB_DEVCAP_SECONDS;
	out->present = true;
out:
	close(fd);
	return err;
}

int fsb_devcap_copy(struct fsb_result *r, const struct fsb_devcap *cap, const char *param)
{
	/* Not measured (said why in param): nothing to copy. */
	if (!cap->present)
		return fsb_result_param_str(r, "device_capability", param) ? -ENOMEM : 0;
	if (fsb_devcap_dup(&r->devcap, cap) || fsb_result_param_str(r, "device_capability", param))
		return -ENOMEM;
	return 0;
}

int fsb_devcap_record(struct fsb_result *r, const char *dev, bool write, const char *off)
{
	struct fsb_devcap cap = { 0 };
	struct fsb_err_scope scope;
	struct fsb_error why = { 0 };
	char param[600];
	int err;

	if (off)
		return fsb_result_param_str(r, "device_capability", off) ? -ENOMEM : 0;
	fsb_err_capture_begin(&scope, &why, true);
	fsb_err_capture_own(&scope); /* forgiven below: not the run's reason */
	err = fsb_devcap_measure(dev, write, &cap);
	fsb_err_capture_end(&scope, err);
	if (err == -EINTR || err == -ENOMEM) {
		if (err == -ENOMEM)
			fsb_err("device capability: out of memory");
		fsb_devcap_release(&cap);
		return err;
	}
	if (err) {
		/* The device's figures are an aid to reading the others: their
		 * absence is said, not made the run's failure. */
		const char *msg = why.msg;

		if (!strncmp(msg, "device capability: ", 19))
			msg += 19;
		fsb_warn("device capability not measured: %s", msg);
		snprintf(param, sizeof(param), "off: %s", msg);
		fsb_devcap_release(&cap);
		return fsb_result_param_str(r, "device_capability", param) ? -ENOMEM : 0;
	}
	err = fsb_devcap_copy(r, &cap, write ? "on" : "on, read-only");
	fsb_devcap_release(&cap);
	return err;
}
