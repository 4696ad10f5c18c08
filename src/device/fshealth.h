/*
 * Whether a filesystem is still whole: read-only or not (statvfs
 * ST_RDONLY) and its error counters (ext4's errors_count in
 * /sys/fs/ext4/DEV/, the btrfs devices' error stats). Read before the
 * tests and after each, a change says a test harmed the filesystem.
 */
#ifndef FSB_DEVICE_FSHEALTH_H
#define FSB_DEVICE_FSHEALTH_H
#include <stdbool.h>
#include <stdint.h>

struct fsb_fshealth {
	bool rdonly;
	bool have_errors; /* the filesystem keeps error counters and they were read */
	uint64_t errors;  /* their sum */
	char what[48];	  /* where they come from: "ext4 errors_count", "btrfs device stats" */
};

/* Read the health of the filesystem holding dir. Returns 0 or -errno
 * (statvfs failed); counters that cannot be read leave have_errors false. */
int fsb_fshealth_read(const char *dir, struct fsb_fshealth *out);

#endif
