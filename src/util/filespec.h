/* The metadata suite's --files argument: N[:max[:min[:dirs]]]. */
#ifndef FSB_UTIL_FILESPEC_H
#define FSB_UTIL_FILESPEC_H
#include <stdint.h>

/*
 * Parse "N[:max[:min[:dirs]]]":
 *   N     number of files, decimal, optionally times 1024 with `k` or
 *         1048576 with `m` ("16k" = 16384 files; unlike bonnie++'s -n, N
 *         counts files, not units of 1024). "0" skips the suite.
 *   max   largest file size, with k/m/g/t suffixes (fsb_size_parse);
 *         default 0 (empty files).
 *   min   smallest file size, same syntax; default 0; must be <= max.
 *   dirs  number of subdirectories the files are spread over, decimal,
 *         0 (default) = all files in one directory.
 * Missing fields are set to 0. The outputs are written only on success.
 * Returns 0; -EINVAL for garbage, an empty field, a sign, min > max or too
 * many fields; -ERANGE for N over 9999999 (names have 7 digits), dirs over
 * 99999, or a size that overflows.
 */
int fsb_files_spec_parse(const char *s, uint64_t *files, uint64_t *max_bytes, uint64_t *min_bytes,
			 unsigned *dirs);

#endif
