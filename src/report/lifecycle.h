/*
 * The "lifecycle" view: the layout of the flash lifecycle report (LogFS
 * against JFFS2, docs/references.md). Per phase and setup, a
 * heading ("Mount ext4", "Copy 16MiB file to ext4"), then the highest,
 * median and lowest wall time as `time` prints them ("real\t0m0.179s"),
 * then two lines the reference lacks: bytes read and written at the device
 * and, for the write phase, the write amplification.
 */
#ifndef FSB_REPORT_LIFECYCLE_H
#define FSB_REPORT_LIFECYCLE_H
#include <stddef.h>
#include <stdio.h>

#include "report/result.h"

/*
 * Render one lifecycle result. Returns 0, -EIO when the stream reports an
 * error, or -EINVAL (described) when r holds no lifecycle phase.
 */
int fsb_write_lifecycle(FILE *out, const struct fsb_result *r);

/*
 * Render several results one after another in the reference's order:
 * phase by phase, each phase with one block per result that has it
 * ("Mount LogFS", "Mount JFFS2", then "Umount LogFS", ...), a blank line
 * between phases. Results without lifecycle phases are skipped; -EINVAL
 * (described) when none has any. The results stay the caller's.
 * Returns 0, -EIO or -EINVAL.
 */
int fsb_write_lifecycle_many(FILE *out, const struct fsb_result *const *rs, size_t n);

/*
 * A wall time the way `time` prints it: "0m0.179s", "2m31.043s";
 * under 10 ms with microseconds ("0m0.001234s") so that short phases are
 * never rounded to zero. Pure. Returns buf.
 */
char *fsb_lifecycle_fmt_real(double seconds, char *buf, size_t len);

#endif
