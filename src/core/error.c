#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The last error, kept so that a caller can record what a step said. */
static char last_err[1024 + 128];

static void vmsg(const char *prefix, const char *fmt, va_list ap, int err)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (err)
		fprintf(stderr, "fsbench: %s%s: %s\n", prefix, line, strerror(-err));
	else
		fprintf(stderr, "fsbench: %s%s\n", prefix, line);
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
