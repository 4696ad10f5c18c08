#include "util/error.h"
#include "util/text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/*
 * The open capture scopes, innermost first, and the held errors: per
 * thread, so that the jobs of a run (threads of the job group) each keep
 * their own first error and the runner can name the job that failed.
 */
/* EFBIG under a finite RLIMIT_FSIZE is the user's `ulimit -f`, which
 * strerror's "File too large" does not name. */
const char *fsb_err_reason(int err)
{
	struct rlimit rl;

	if (err == -EFBIG && !getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		return "file size limit reached (ulimit -f)";
	return strerror(-err);
}

static _Thread_local struct fsb_err_scope *scopes;

/* Errors held by fsb_err_hold(): whole texts, each ending in '\n'. */
static _Thread_local struct {
	pid_t pid; /* the holding process; 0 = not holding */
	char text[4096];
	size_t len;
} held;

void fsb_error_clear(struct fsb_error *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}

void fsb_error_step(struct fsb_error *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(e->step, sizeof(e->step), fmt, ap);
	va_end(ap);
}

void fsb_err_capture_begin(struct fsb_err_scope *s, struct fsb_error *e, bool quiet)
{
	s->e = e;
	s->quiet = quiet;
	s->pid = getpid();
	s->outer = scopes;
	s->line = NULL;
	s->line_size = 0;
	s->own = false;
	scopes = s;
}

void fsb_err_capture_own(struct fsb_err_scope *s)
{
	s->own = true;
}

void fsb_err_capture_line(struct fsb_err_scope *s, char *line, size_t size)
{
	s->line = size ? line : NULL;
	s->line_size = size;
	if (size)
		line[0] = '\0';
}

int fsb_err_capture_end(struct fsb_err_scope *s, int rc)
{
	/* Scopes end in reverse order; a scope ended out of turn takes the
	 * ones opened inside it with it. */
	for (struct fsb_err_scope *c = scopes; c; c = c->outer) {
		if (c == s) {
			scopes = s->outer;
			break;
		}
	}
	if (s->e && rc < 0 && !s->e->code) {
		s->e->code = rc;
		if (!s->e->msg[0])
			snprintf(s->e->msg, sizeof(s->e->msg), "%s", fsb_err_reason(rc));
	}
	return rc;
}

/* An error that happens now: kept by the open scopes, printed unless one
 * of them is quiet. text is terminal-safe already. */
/* The line open on stderr (fsb_err_set_open_line), ended before a message. */
static void (*open_line_end)(void *);
static void *open_line_arg;

void fsb_err_set_open_line(void (*end)(void *), void *arg)
{
	open_line_end = end;
	open_line_arg = arg;
}

static void end_open_line(void)
{
	void (*end)(void *) = open_line_end;

	if (end)
		end(open_line_arg);
}

static void emit(const char *text)
{
	bool quiet = false;
	pid_t me = getpid();

	for (struct fsb_err_scope *c = scopes; c; c = c->outer) {
		if (c->pid != me)
			continue;
		if (c->e && !c->e->msg[0])
			snprintf(c->e->msg, sizeof(c->e->msg), "%s", text);
		if (c->line && !c->line[0])
			snprintf(c->line, c->line_size, "%s", text);
		quiet |= c->quiet;
		if (c->own)
			break;
	}
	/* One write: stderr is unbuffered, and lines of parallel runs must not mix. */
	if (!quiet) {
		end_open_line();
		fprintf(stderr, "fsbench: %s\n", text);
	}
}

static void hold_line(const char *text)
{
	size_t n = strlen(text);

	/* The first lines say why; when full, later ones are dropped whole. */
	if (held.len + n + 2 < sizeof(held.text))
		held.len += (size_t)snprintf(held.text + held.len, sizeof(held.text) - held.len,
					     "%s\n", text);
}

static void vmsg(const char *prefix, const char *fmt, va_list ap, int err)
{
	/* An escape ("\x1b") is at most four times the byte it stands for. */
	char line[1024], safe[4 * sizeof(line)], text[sizeof(safe) + 256];
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	/*
	 * A message longer than the line (a 4000-character path) keeps its
	 * start and its end, where the reason is: "cannot use '/aaa...aaa':
	 * why" rather than a cut that loses the why.
	 */
	if (n >= (int)sizeof(line)) {
		char *big = malloc((size_t)n + 1);

		if (big) {
			vsnprintf(big, (size_t)n + 1, fmt, again);
			snprintf(line, sizeof(line), "%.300s...%s", big, big + n - 700);
			free(big);
		}
	}
	va_end(again);
	/*
	 * Messages quote paths, labels and what tools said: someone else's
	 * text, which must not drive the terminal (nor break the one line).
	 */
	fsb_text_safe(line, 0, safe, sizeof(safe));
	snprintf(text, sizeof(text), "%s%s%s", safe, err ? ": " : "",
		 err ? fsb_err_reason(err) : "");
	if (*prefix) {
		/* Warnings are caveats, not the reason something failed. */
		end_open_line();
		fprintf(stderr, "fsbench: %s%s\n", prefix, text);
		return;
	}
	if (held.pid && held.pid == getpid()) {
		hold_line(text);
		return;
	}
	emit(text);
}

void fsb_err_hold(void)
{
	held.pid = getpid();
	held.len = 0;
}

void fsb_err_release(int print)
{
	char *line, *next;

	held.pid = 0;
	if (print && held.len) {
		for (line = held.text; *line; line = next) {
			next = strchr(line, '\n');
			*next++ = '\0';
			emit(line);
		}
	}
	held.len = 0;
	held.text[0] = '\0';
}

void fsb_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap, 0);
	va_end(ap);
}

void fsb_err_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap, err);
	va_end(ap);
}

static int quiet_warnings;

void fsb_warn_set_quiet(int q)
{
	quiet_warnings = q;
}

void fsb_warn(const char *fmt, ...)
{
	va_list ap;

	if (quiet_warnings)
		return;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap, 0);
	va_end(ap);
}

int fsb_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}
