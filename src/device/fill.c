#include "device/fill.h"
#include "util/error.h"
#include "util/io.h"
#include "util/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes of 4 MiB: large enough that the syscall cost vanishes, small
 * enough that SIGINT is noticed within milliseconds. */
#define FILL_CHUNK (4u << 20)

/* splitmix64 (Steele, Lea, Flood 2014): fast, and every seed is good. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void fsb_fill_random(void *buf, uint64_t n, uint64_t *state)
{
	unsigned char *p = buf;
	uint64_t v;

	for (; n >= 8; n -= 8, p += 8) {
		v = splitmix64(state);
		memcpy(p, &v, 8);
	}
	if (n) {
		v = splitmix64(state);
		memcpy(p, &v, n);
	}
}

int fsb_fill_fd(int fd, const char *what, uint64_t size_bytes, enum fsb_fill fill, uint64_t seed)
{
	unsigned char *buf = NULL;
	uint64_t off = 0, state = seed;
	int err = 0;

	if (fill == FSB_FILL_NONE)
		return 0;
	buf = malloc(FILL_CHUNK);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	memset(buf, fill == FSB_FILL_FF ? 0xff : 0, FILL_CHUNK);
	while (off < size_bytes) {
		size_t n = size_bytes - off < FILL_CHUNK ? (size_t)(size_bytes - off) : FILL_CHUNK;

		if (fsb_stop_requested()) {
			err = -EINTR;
			goto out;
		}
		if (fill == FSB_FILL_RANDOM)
			fsb_fill_random(buf, n, &state);
		err = fsb_pwrite_full(fd, buf, n, (off_t)off);
		if (err)
			goto out;
		off += n;
	}
	if (fsync(fd) < 0)
		err = -errno;
out:
	if (err && err != -EINTR)
		fsb_err_errno(err, "cannot fill '%s' with %s", what, fsb_fill_name(fill));
	free(buf);
	return err;
}
