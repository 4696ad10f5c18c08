/*
 * The raw device's capability (core/devcap.h). Measurement policy: the
 * device is opened O_DIRECT, so the page cache neither helps nor hides it;
 * each figure is the bytes (or I/Os) completed over the time from the
 * first submission to the last completion, a write's fsync inside it. A
 * sequential figure stops after one pass of the device, so a small device
 * is measured in less than the figure's time.
 */
#include "core/devcap.h"
#include "device/fill.h"
#include "device/probe.h"
#include "engines/engine.h"
#include "stats/clock.h"
#include "util/error.h"
#include "util/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cap_drive {
	const char *dev;
	enum fsb_io_op op;
	bool random;
	uint64_t block, dev_bytes, end_ns, limit_bytes;
	uint64_t pos, issued_bytes, done_bytes, ops, rng;
};

static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cap_next(void *arg, struct fsb_io *io)
{
	struct cap_drive *d = arg;

	if (d->issued_bytes >= d->limit_bytes || fsb_clock_ns() >= d->end_ns)
		return FSB_ENGINE_END;
	io->op = d->op;
	io->len = (uint32_t)d->block;
	if (d->random) {
		io->off = next_rand(&d->rng) % (d->dev_bytes / d->block) * d->block;
	} else {
		if (d->pos + d->block > d->dev_bytes)
			d->pos = 0;
		io->off = d->pos;
		d->pos += d->block;
	}
	d->issued_bytes += d->block;
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

/* One figure: bytes/s (sequential) or I/Os per second (random). */
static int figure(int fd, const char *dev, uint64_t dev_bytes, enum fsb_io_op op, bool random,
		  const struct fsb_engine_ops **ops, unsigned *depth_used, double *out)
{
	unsigned depth = random ? FSB_DEVCAP_RAND_DEPTH : FSB_DEVCAP_SEQ_DEPTH;
	size_t block = random ? FSB_DEVCAP_RAND_BLOCK : FSB_DEVCAP_SEQ_BLOCK;
	struct cap_drive d = {
		.dev = dev,
		.op = op,
		.random = random,
		.block = block,
		.dev_bytes = dev_bytes,
		.limit_bytes = random ? UINT64_MAX : dev_bytes / block * block,
		/* "devcap!"; the reads another order than the writes before
		 * them, so that no read finds a block a write just cached. */
		.rng = (0x64657663617021ull ^ dev_bytes) +
		       (op == FSB_IO_READ ? 0x9e3779b97f4a7c15ull : 0),
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
	if (*ops) {
		err = fsb_engine_init(&e, *ops, fd, depth, bufs, block, depth);
	} else {
		struct fsb_err_scope scope;
		struct fsb_error why = { 0 };

		/* io_uring refused (an old kernel, a seccomp policy): psync,
		 * one I/O in flight, said in "how". */
		fsb_err_capture_begin(&scope, &why, true);
		err = fsb_engine_init(&e, fsb_engine_find("io_uring"), fd, depth, bufs, block,
				      depth);
		fsb_err_capture_end(&scope, err);
		*ops = fsb_engine_find("io_uring");
		if (err) {
			fsb_engine_release(&e);
			*ops = fsb_engine_find("psync");
			err = fsb_engine_init(&e, *ops, fd, depth, bufs, block, depth);
		}
	}
	if (err)
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
	if (!err)
		*out = (random ? (double)d.ops : (double)d.done_bytes) / ((double)(t1 - t0) / 1e9);
out:
	fsb_engine_release(&e);
	free(bufs);
	return err;
}

int fsb_devcap_measure(const char *dev, bool write, struct fsb_devcap *out)
{
	const struct fsb_engine_ops *ops = NULL;
	unsigned seq_depth = 0, rand_depth = 0;
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
	/* Writes first, where allowed: the reads then find data, not the
	 * holes of a fresh image that a loop device reads for free. */
	if (write && ((err = figure(fd, dev, bytes, FSB_IO_WRITE, false, &ops, &seq_depth,
				    &out->seq_write_Bps)) ||
		      (err = figure(fd, dev, bytes, FSB_IO_WRITE, true, &ops, &rand_depth,
				    &out->rand_write_iops))))
		goto out;
	if ((err = figure(fd, dev, bytes, FSB_IO_READ, false, &ops, &seq_depth,
			  &out->seq_read_Bps)) ||
	    (err = figure(fd, dev, bytes, FSB_IO_READ, true, &ops, &rand_depth,
			  &out->rand_read_iops)))
		goto out;
	if (fsb_strset(&out->device, dev) || fsb_strset(&out->engine, ops->name)) {
		fsb_err("device capability: out of memory");
		err = -ENOMEM;
		goto out;
	}
	out->seq_depth = seq_depth;
	out->rand_depth = rand_depth;
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
	struct fsb_devcap *d = &r->devcap;

	/* Not measured (said why in param): nothing to copy. */
	if (!cap->present)
		return fsb_result_param_str(r, "device_capability", param) ? -ENOMEM : 0;
	free(d->device);
	free(d->engine);
	*d = *cap;
	d->device = d->engine = NULL;
	if (fsb_strset(&d->device, cap->device) || fsb_strset(&d->engine, cap->engine) ||
	    fsb_result_param_str(r, "device_capability", param))
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
	err = fsb_devcap_measure(dev, write, &cap);
	fsb_err_capture_end(&scope, err);
	if (err == -EINTR || err == -ENOMEM) {
		if (err == -ENOMEM)
			fsb_err("device capability: out of memory");
		free(cap.device);
		free(cap.engine);
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
		free(cap.device);
		free(cap.engine);
		return fsb_result_param_str(r, "device_capability", param) ? -ENOMEM : 0;
	}
	err = fsb_devcap_copy(r, &cap, write ? "on" : "on, read-only");
	free(cap.device);
	free(cap.engine);
	return err;
}
