/*
 * Images and their content before a lifecycle run: the state the device is
 * in when mkfs or the first mount sees it (0xff = erased flash, as in the
 * reference report; zero; random; none = leave it as it is).
 */
#ifndef FSB_DEVICE_FILL_H
#define FSB_DEVICE_FILL_H
#include <stdbool.h>
#include <stdint.h>

#include "util/modes.h"

/*
 * Write the fill pattern over the first size_bytes of fd (an image file or
 * a block device; `what` names it in messages) with large buffered writes,
 * then fsync. Random content comes from a generator seeded with seed. A
 * no-op for FSB_FILL_NONE. Stops with -EINTR when SIGINT/SIGTERM arrives.
 * Returns 0 or -errno after describing the error.
 */
int fsb_fill_fd(int fd, const char *what, uint64_t size_bytes, enum fsb_fill fill, uint64_t seed);

/*
 * Fill buf with n pseudo-random bytes from the splitmix64 sequence that
 * starts at *state (advanced). Pure; the same seed gives the same bytes.
 */
void fsb_fill_random(void *buf, uint64_t n, uint64_t *state);

#endif
