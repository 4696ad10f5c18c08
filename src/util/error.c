#include "util/error.h"
#include "util/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The last error, kept so that a caller can record what a step said. */
static char last_err[1024 + 128];

/* Errors held by fsb_err_hold(): whole lines, each ending in '\n'. */
static struct {
	pid_t pid;             /* the holding process; 0 = not holding */
	char text[4096];
	size_t len;
	char last[sizeof(last_err)];
} held;

static void hold_line(const char *text)
{
	size_t n = strlen(text);

	/* The first lines say why; when full, later ones are dropped whole. */
	if (held.len + n + 10 < sizeof(held.text)) {
		held.len += (size_t)snprintf(held.text + held.len, sizeof(held.text) - held.len,
					     "fsbench: %s\n", text);
	}
	snprintf(held.last, sizeof(held.last), "%s", text);
}

static void vmsg(const char *prefix, const char *fmt, va_list ap, int err)
{
	/* An escape ("\x1b") is at most four times the byte it stands for. */
	char line[1024], safe[4 * sizeof(line)], text[sizeof(safe) + 256];

	vsnprintf(line, sizeof(line), fmt, ap);
	/*
	 * Messages quote paths, labels and what tools said: someone else's
	 * text, which must not drive the terminal (nor break the one line).
	 */
	fsb_text_safe(line, 0, safe, sizeof(safe));
	snprintf(text, sizeof(text), "%s%s%s", safe, err ? ": " : "", err ? strerror(-err) : "");
	if (!*prefix && held.pid && held.pid == getpid()) {
		hold_line(text);
		return;
	}
	/* One write: stderr is unbuffered, and lines of parallel runs must not mix. */
	fprintf(stderr, "fsbench: %s%s\n", prefix, text);
	/* Warnings are caveats, not the reason something failed. */
	if (!*prefix)
		snprintf(last_err, sizeof(last_err), "%s", text);
}

void fsb_err_hold(void)
{
	held.pid = getpid();
	held.len = 0;
	held.last[0] = '\0';
}

void fsb_err_release(int print)
{
	if (print && held.len) {
		fputs(held.text, stderr);
		snprintf(last_err, sizeof(last_err), "%s", held.last);
	}
	held.pid = 0;
	held.len = 0;
	held.last[0] = '\0';
}

const char *fsb_err_last(void)
{
	return last_err;
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

static int quiet;

void fsb_warn_set_quiet(int q)
{
	quiet = q;
}

void fsb_warn(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap, 0);
	va_end(ap);
}
