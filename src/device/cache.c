#include "device/cache.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int fsb_cache_drop_fd(int fd)
{
	int err;

	if (fsync(fd) < 0)
		return -errno;
	/* posix_fadvise returns the error number instead of setting errno. */
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return err ? -err : 0;
}

int fsb_cache_drop_global(void)
{
	int fd, err;

	if (geteuid() != 0)
		return 0;
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == EACCES || errno == EROFS || errno == ENOENT ? 0 : -errno;
	err = fsb_write_full(fd, "3\n", 2);
	close(fd);
	/* In a container the file exists but refuses writes: not our failure. */
	return err == -EACCES || err == -EPERM || err == -EROFS ? 0 : err;
}

int fsb_cache_sync_fs(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (syncfs(fd) < 0)
		err = -errno;
	close(fd);
	return err;
}
