/*
 * The queue depth a device reaches: the reads and writes in flight at it
 * (/sys/block/NAME/inflight, beside the stat file the runner already
 * reads), sampled by a thread about every 10 ms while a test runs. The
 * sampling is untimed work beside the test: a read of a small sysfs file.
 */
#ifndef FSB_DEVICE_INFLIGHT_H
#define FSB_DEVICE_INFLIGHT_H
#include <stddef.h>
#include <stdint.h>

#define FSB_INFLIGHT_PERIOD_NS 10000000ull

/* Parse the text of an inflight file ("reads writes"): their sum. Pure.
 * 0 or -EINVAL. */
int fsb_inflight_parse(const char *text, uint64_t *in_flight);

/* The inflight file beside a device's stat file (".../stat"). 0 or
 * -EINVAL (no stat file name) or -ENAMETOOLONG. Pure. */
int fsb_inflight_path(const char *stat_path, char *out, size_t len);

/* What the samples showed. */
struct fsb_inflight_summary {
	uint64_t samples;
	uint64_t max;
	double mean;
};

struct fsb_inflight;

/*
 * Start sampling the inflight file path in a thread. Returns the sampler,
 * or NULL (errno set) when the file cannot be read or the thread made: the
 * test runs without it.
 */
struct fsb_inflight *fsb_inflight_start(const char *path);

/* Stop the sampler, fill out and free it. A NULL
 * sampler gives samples = 0. */
void fsb_inflight_stop(struct fsb_inflight *s, struct fsb_inflight_summary *out);

#endif
