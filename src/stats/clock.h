/* Clocks: wall time from CLOCK_MONOTONIC, CPU time from getrusage. */
#ifndef FSB_STATS_CLOCK_H
#define FSB_STATS_CLOCK_H
#include <stdint.h>
#include <time.h>

/* Monotonic wall clock in nanoseconds (vDSO, ~20 ns per call). */
static inline uint64_t fsb_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * CPU time (user + system) of this process plus every child it has reaped,
 * in nanoseconds. The difference across a measured region is the CPU the
 * test used, children (seekers) included once they have been waited for.
 */
uint64_t fsb_cpu_ns(void);

/* CPU time (user + system) of the calling thread alone, in nanoseconds
 * (CLOCK_THREAD_CPUTIME_ID): one job's own CPU when jobs are threads. */
static inline uint64_t fsb_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Resolution of CLOCK_MONOTONIC in nanoseconds (clock_getres). */
uint64_t fsb_clock_res_ns(void);

#endif
