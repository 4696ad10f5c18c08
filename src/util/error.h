/*
 * One-line error messages: "fsbench: <what>: <why>" on stderr, described
 * once, where the failure happens. A caller that needs the failure as a
 * value (the matrix recording why a setup failed, a parser whose message
 * gets a file and line in front) opens a capture scope around the call:
 * the first error described inside it is kept in a struct fsb_error.
 */
#ifndef FSB_UTIL_ERROR_H
#define FSB_UTIL_ERROR_H
#include <stdbool.h>
#include <sys/types.h>

/* Print "fsbench: " + formatted message + newline to stderr. */
void fsb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Same, with ": strerror(-err)" appended (err is a negative errno). */
void fsb_err_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A warning: "fsbench: warning: ..." (measurement caveats, not failures). */
/* strerror(-err), but EFBIG under a finite `ulimit -f` names the limit. */
const char *fsb_err_reason(int err);

void fsb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --quiet: warnings are not printed (errors always are). */
void fsb_warn_set_quiet(int quiet);

/*
 * A line left open on stderr (the progress line, redrawn with '\r' and no
 * newline): end(arg) is called before any error or warning is printed, to
 * erase it, so that every message starts at column 0 on a line of its own
 * instead of being glued to the progress. NULL end: no line is open. The
 * owner of the line sets it while the line is drawn and clears it when it
 * erases the line itself.
 */
void fsb_err_set_open_line(void (*end)(void *), void *arg);

/*
 * A failure as a value: the -errno a call returned, the step it failed in
 * (set by whoever knows the steps, e.g. the matrix: "mkfs"), and the first
 * error described during the call, without the "fsbench: " prefix and
 * already made terminal-safe. All zero/empty: no failure.
 */
struct fsb_error {
	int code;
	char step[64];
	char msg[512];
};

/*
 * A capture scope: between fsb_err_capture_begin() and _end(), the first
 * error that fsb_err/fsb_err_errno describe is copied into e (when e has
 * no message yet). Scopes nest: every open scope sees the error, so an
 * outer one also gets the first error of the calls inside it. quiet: the
 * errors are only captured, not printed (while any open scope is quiet).
 * Warnings are never captured. Only the process that opened a scope
 * captures: a child forked meanwhile prints its errors as usual. Scopes
 * are per thread: a thread sees only the scopes it opened (a job thread
 * opens its own: the runner's job group). The scope lives on the caller's
 * stack; end it before it goes out of scope.
 */
struct fsb_err_scope {
	struct fsb_error *e; /* may be NULL: nothing is kept */
	bool quiet;
	struct fsb_err_scope *outer;
	pid_t pid;
	char *line; /* fsb_err_capture_line's buffer, else NULL */
	size_t line_size;
	bool own; /* fsb_err_capture_own: outer scopes do not see its errors */
};

void fsb_err_capture_begin(struct fsb_err_scope *s, struct fsb_error *e, bool quiet);

/*
 * Also keep the first error's whole text (not cut to e->msg's size, the
 * size a long path needs: FSB_ERR_LINE_MAX) in line, "" until one is
 * described; call it right after fsb_err_capture_begin.
 */
enum { FSB_ERR_LINE_MAX = 4400 };
void fsb_err_capture_line(struct fsb_err_scope *s, char *line, size_t size);

/*
 * Keep the errors described in scope s from the scopes outside it, for a
 * step whose failure the caller forgives (says as a warning, or in the
 * result): an outer scope that keeps its first error would otherwise
 * name that forgiven step as the reason of a later, unrelated failure.
 * Call it right after fsb_err_capture_begin.
 */
void fsb_err_capture_own(struct fsb_err_scope *s);

/*
 * End the scope (the innermost one: scopes end in reverse order) with the
 * result rc of the call. When rc < 0 and e has no code yet, e->code = rc;
 * when nothing was described, e->msg says strerror(-rc). Returns rc.
 */
int fsb_err_capture_end(struct fsb_err_scope *s, int rc);

/* Clear e (no failure). */
void fsb_error_clear(struct fsb_error *e);

/* Record step in e (printf format), for the caller that knows the steps. */
void fsb_error_step(struct fsb_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Hold errors instead of printing them, for a step whose failure the caller
 * may still forgive (the runner's grown attempt that runs out of space):
 * between fsb_err_hold() and fsb_err_release(), fsb_err/fsb_err_errno keep
 * their lines (in order, up to a few KiB); fsb_err_release(print) ends the
 * hold and describes them now (print != 0: printed and captured by the open
 * scopes, as if they had just happened) or drops them. Only the process
 * that called fsb_err_hold() holds: a child forked meanwhile prints its own
 * errors, which would otherwise be lost with it. Holding is per thread, as
 * the scopes are. Warnings are never held.
 */
void fsb_err_hold(void);
void fsb_err_release(int print);

/* Exit statuses (only main.c exits). */
enum { FSB_EXIT_OK = 0, FSB_EXIT_FAIL = 1, FSB_EXIT_USAGE = 2 };

/*
 * Write a reason into why (len bytes, NUL-terminated; nothing when why is
 * NULL or len 0) and return -EINVAL: the readers' "not a usable document,
 * because ..." in one call (report/json.c, report/import_fio.c).
 */
int fsb_why(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
