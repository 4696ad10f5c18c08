/*
 * The raw device's own capability: sequential read and write at 1 MiB and
 * queue depth 16, 4 KiB random read (and write) at queue depth 32, each in
 * a few short rounds (the median kept, every round recorded: one round
 * alone is no baseline) through the io_uring engine with O_DIRECT (psync
 * when io_uring is refused), so that each filesystem figure can be read as
 * a fraction of what the device under it does. The reads go only where
 * the device holds data: on a loop device, its backing file's data (lseek
 * SEEK_DATA/SEEK_HOLE), since a hole is read without any I/O; on any other
 * device, all of it.
 */
#ifndef FSB_CORE_DEVCAP_H
#define FSB_CORE_DEVCAP_H
#include <stdbool.h>
#include <stddef.h>

#include "report/result.h"

/* Each round's time (s), the rounds of each figure, and the I/O shapes. */
#define FSB_DEVCAP_SECONDS 0.25
#define FSB_DEVCAP_ROUNDS 3
#define FSB_DEVCAP_SEQ_BLOCK (1u << 20)
#define FSB_DEVCAP_SEQ_DEPTH 16
#define FSB_DEVCAP_RAND_BLOCK 4096u
#define FSB_DEVCAP_RAND_DEPTH 32
/* The data ranges of a backing file looked at, at most (a fragmented
 * file's first ones are enough to read from). */
#define FSB_DEVCAP_MAX_RANGES ((size_t)1 << 20)
/* Smaller devices are not measured, and less data than this to read
 * makes the figures short (short_reason): a few MiB say nothing of a
 * device. */
#define FSB_DEVCAP_MIN_BYTES (16ull << 20)

/*
 * Measure the block device dev into out (zeroed by the caller, released
 * with the result it belongs to). write: the device may be written (one
 * fsbench made, or was given with --destroy-data, before its fill): the
 * writes come first and their data is left on the device; otherwise the
 * device is opened O_RDONLY and never written. A loop device whose
 * backing file holds no data, or cannot be looked at, is not measured.
 * Returns 0, -EINTR on a stop request, or -errno after describing the
 * failure in one line.
 */
int fsb_devcap_measure(const char *dev, bool write, struct fsb_devcap *out);

/*
 * Measure dev as fsb_devcap_measure and record the outcome in r: the
 * figures in r->devcap and the param "device_capability" ("on", "on,
 * read-only" or "off: why"). A failure is not the run's: it is warned
 * about and recorded, and 0 returned; only -EINTR (a stop request) and
 * -ENOMEM are returned. off: a reason not to measure (NULL: measure).
 */
int fsb_devcap_record(struct fsb_result *r, const char *dev, bool write, const char *off);

/* Copy a capability (from the matrix, measured before the fill) into r,
 * with its param; one not measured (present false) sets only the param.
 * 0 or -ENOMEM. */
int fsb_devcap_copy(struct fsb_result *r, const struct fsb_devcap *cap, const char *param);

#endif
