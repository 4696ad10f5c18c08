#include "core/error.h"
#include "util/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The last error, kept so that a caller can record what a step said. */
static char last_err[1024 + 128];

static void vmsg(const char *prefix, const char *fmt, va_list ap, int err)
{
	/* An escape ("\x1b") is at most four times the byte it stands for. */
	char line[1024], safe[4 * sizeof(line)];

	vsnprintf(line, sizeof(line), fmt, ap);
	/*
	 * Messages quote paths, labels and what tools said: someone else's
	 * text, which must not drive the terminal (nor break the one line).
	 */
	fsb_text_safe(line, 0, safe, sizeof(safe));
	/* One write: stderr is unbuffered, and lines of parallel runs must not mix. */
	if (err)
		fprintf(stderr, "fsbench: %s%s: %s\n", prefix, safe, strerror(-err));
	else
		fprintf(stderr, "fsbench: %s%s\n", prefix, safe);
	/* Warnings are caveats, not the reason something failed. */
	if (!*prefix)
		snprintf(last_err, sizeof(last_err), "%s%s%s", line, err ? ": " : "",
			 err ? strerror(-err) : "");
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
