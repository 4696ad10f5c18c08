#include "device/inflight.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct fsb_inflight {
	int fd;
	pthread_t thread;
	atomic_bool stop;
	uint64_t samples, max, sum;
};

int fsb_inflight_parse(const char *text, uint64_t *in_flight)
{
	unsigned long long r, w;

	if (sscanf(text, "%llu %llu", &r, &w) != 2)
		return -EINVAL;
	*in_flight = r + w;
	return 0;
}

int fsb_inflight_path(const char *stat_path, char *out, size_t len)
{
	size_t n = strlen(stat_path);

	if (n < 5 || strcmp(stat_path + n - 5, "/stat"))
		return -EINVAL;
	if ((size_t)snprintf(out, len, "%.*s/inflight", (int)(n - 5), stat_path) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* One sample: sysfs gives the current value at each read from offset 0. */
static void sample(struct fsb_inflight *s)
{
	char buf[64];
	ssize_t n = pread(s->fd, buf, sizeof(buf) - 1, 0);
	uint64_t v;

	if (n <= 0)
		return;
	buf[n] = '\0';
	if (fsb_inflight_parse(buf, &v))
		return;
	s->samples++;
	s->sum += v;
	if (v > s->max)
		s->max = v;
}

static void *sampler(void *arg)
{
	struct fsb_inflight *s = arg;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&s->stop)) {
		sample(s);
		/* Absolute deadlines: the period does not drift with the work. */
		next.tv_nsec += (long)FSB_INFLIGHT_PERIOD_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR &&
		       !atomic_load(&s->stop))
			;
	}
	return NULL;
}

struct fsb_inflight *fsb_inflight_start(const char *path)
{
	struct fsb_inflight *s = calloc(1, sizeof(*s));
	sigset_t all, old;
	int err;

	if (!s)
		return NULL;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		free(s);
		return NULL;
	}
	atomic_init(&s->stop, false);
	/* The stop signals are for the threads that do the work: the
	 * sampler blocks them all. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&s->thread, NULL, sampler, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(s->fd);
		free(s);
		errno = err;
		return NULL;
	}
	return s;
}

void fsb_inflight_stop(struct fsb_inflight *s, struct fsb_inflight_summary *out)
{
	memset(out, 0, sizeof(*out));
	if (!s)
		return;
	atomic_store(&s->stop, true);
	pthread_join(s->thread, NULL);
	/* No last sample: the device has drained by now, and a zero taken
	 * after the test would only lower the mean. */
	close(s->fd);
	out->samples = s->samples;
	out->max = s->max;
	out->mean = s->samples ? (double)s->sum / (double)s->samples : 0;
	free(s);
}
