#include "device/mtd.h"
#include "util/error.h"
#include "util/io.h"
#include "util/size.h"

#include <errno.h>
#include <fcntl.h>
#include <mtd/ubi-user.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK2MTD_PARAM "/sys/module/block2mtd/parameters/block2mtd"
/* devtmpfs makes the nodes from a kernel thread: give it a moment. */
#define NODE_WAIT_MS 3000

int fsb_mtd_parse(const char *spec, char *dev, size_t dev_len, uint64_t *erase_bytes)
{
	const char *comma = strrchr(spec, ',');
	size_t n;

	if (!comma || comma == spec || spec[0] != '/')
		return -EINVAL;
	n = (size_t)(comma - spec);
	if (n >= dev_len)
		return -EINVAL;
	memcpy(dev, spec, n);
	dev[n] = '\0';
	if (fsb_size_parse(comma + 1, erase_bytes) || *erase_bytes < 4096 ||
	    *erase_bytes > (16u << 20) || (*erase_bytes & (*erase_bytes - 1)))
		return -EINVAL;
	return 0;
}

int fsb_mtd_find(const char *proc_mtd, const char *dev)
{
	char want[512];
	const char *line = proc_mtd;

	snprintf(want, sizeof(want), "\"block2mtd: %s\"", dev);
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		unsigned idx;
		int used = 0;

		if (sscanf(line, "mtd%u:%n", &idx, &used) == 1 && used && len >= strlen(want) &&
		    !strncmp(line + len - strlen(want), want, strlen(want)))
			return (int)idx;
		line = end ? end + 1 : NULL;
	}
	return -ENOENT;
}

static int read_proc_mtd(char **text)
{
	size_t len;
	int err = fsb_read_file("/proc/mtd", 1u << 20, text, &len);

	if (err)
		fsb_err_errno(err, "cannot read '/proc/mtd' (is the mtd module loaded?)");
	return err;
}

static int wait_node(const char *path)
{
	struct stat st;

	for (int ms = 0; ms < NODE_WAIT_MS; ms += 10) {
		if (stat(path, &st) == 0)
			return 0;
		usleep(10000);
	}
	fsb_err("'%s' did not appear (is the mtdblock module loaded?)", path);
	return -ENOENT;
}

int fsb_mtd_attach(const char *dev, uint64_t erase_bytes, char *chr, size_t chr_len, char *blk,
		   size_t blk_len)
{
	char param[600], *text = NULL;
	int fd, idx, err;

	if (access(BLOCK2MTD_PARAM, W_OK) < 0) {
		fsb_err("cannot make an MTD device over '%s': module block2mtd is not loaded", dev);
		return -ENODEV;
	}
	if ((err = read_proc_mtd(&text)))
		return err;
	idx = fsb_mtd_find(text, dev);
	free(text);
	text = NULL;
	if (idx >= 0) {
		fsb_err("cannot make an MTD device over '%s': it backs mtd%d already", dev, idx);
		return -EBUSY;
	}
	snprintf(param, sizeof(param), "%s,%llu", dev, (unsigned long long)erase_bytes);
	fd = open(BLOCK2MTD_PARAM, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || fsb_write_full(fd, param, strlen(param))) {
		err = fd < 0 ? -errno : -EIO;
		fsb_err_errno(err, "cannot make an MTD device over '%s' (block2mtd=%s)", dev,
			      param);
		if (fd >= 0)
			close(fd);
		return err;
	}
	close(fd);
	if ((err = read_proc_mtd(&text)))
		return err;
	idx = fsb_mtd_find(text, dev);
	free(text);
	if (idx < 0) {
		fsb_err("block2mtd accepted '%s' but made no MTD device", param);
		return -ENODEV;
	}
	snprintf(chr, chr_len, "/dev/mtd%d", idx);
	snprintf(blk, blk_len, "/dev/mtdblock%d", idx);
	if ((err = wait_node(chr)) || (err = wait_node(blk)))
		return err;
	return 0;
}

int fsb_ubi_detach(int ubi_num)
{
	int32_t num = ubi_num;
	int fd = open("/dev/ubi_ctrl", O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0 || ioctl(fd, UBI_IOCDET, &num) < 0)
		err = -errno;
	if (fd >= 0)
		close(fd);
	return err;
}
