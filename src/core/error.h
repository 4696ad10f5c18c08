/* One-line error messages: "fsbench: <what>: <why>" on stderr. */
#ifndef FSB_CORE_ERROR_H
#define FSB_CORE_ERROR_H

/* Print "fsbench: " + formatted message + newline to stderr. */
void fsb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Same, with ": strerror(-err)" appended (err is a negative errno). */
void fsb_err_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A warning: "fsbench: warning: ..." (measurement caveats, not failures). */
void fsb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Exit statuses (only main.c exits). */
enum { FSB_EXIT_OK = 0, FSB_EXIT_FAIL = 1, FSB_EXIT_USAGE = 2 };

#endif
