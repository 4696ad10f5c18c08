/* One-line error messages: "fsbench: <what>: <why>" on stderr. */
#ifndef FSB_UTIL_ERROR_H
#define FSB_UTIL_ERROR_H

/* Print "fsbench: " + formatted message + newline to stderr. */
void fsb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Same, with ": strerror(-err)" appended (err is a negative errno). */
void fsb_err_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A warning: "fsbench: warning: ..." (measurement caveats, not failures). */
void fsb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --quiet: warnings are not printed (errors always are). */
void fsb_warn_set_quiet(int quiet);

/*
 * The text of the last error fsb_err/fsb_err_errno printed, without the
 * "fsbench: " prefix ("" before the first one): for callers that record why
 * a step failed after the step described it (a matrix setup's "error").
 * A static buffer, overwritten by the next error.
 */
const char *fsb_err_last(void);

/*
 * Hold errors instead of printing them, for a step whose failure the caller
 * may still forgive (the runner's grown attempt that runs out of space):
 * between fsb_err_hold() and fsb_err_release(), fsb_err/fsb_err_errno keep
 * their lines (in order, up to a few KiB); fsb_err_release(print) ends the
 * hold and prints them (print != 0, fsb_err_last() then says the last one)
 * or drops them. Only the process that called fsb_err_hold() holds: a child
 * forked meanwhile prints its own errors, which would otherwise be lost
 * with it. Warnings are never held.
 */
void fsb_err_hold(void);
void fsb_err_release(int print);

/* Exit statuses (only main.c exits). */
enum { FSB_EXIT_OK = 0, FSB_EXIT_FAIL = 1, FSB_EXIT_USAGE = 2 };

#endif
