/*
 * Writing HTML (see html_out.h): the one place where text meets markup.
 */
#include "report/html_out.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

void fsb_html_out_init(struct fsb_html_out *h, FILE *f)
{
	h->f = f;
	h->err = 0;
}

int fsb_html_out_finish(struct fsb_html_out *h)
{
	if (!h->err && ferror(h->f))
		h->err = -EIO;
	return h->err;
}

void fsb_html_lit_(struct fsb_html_out *h, const char *literal)
{
	if (!h->err)
		fputs(literal, h->f);
}

/* ---- escaping -------------------------------------------------------- */

/*
 * Escape at most max characters of s; when s is longer, end with "…".
 * Text and attribute values share the rule: both quotes are escaped, so
 * a value is safe in either place.
 */
static void escape_n(struct fsb_html_out *h, const char *str, size_t max)
{
	const char *s = str;
	size_t chars = 0;

	if (h->err || !s)
		return;
	for (; *s; chars++) {
		unsigned char c = (unsigned char)*s;
		size_t n = fsb_utf8_len(s);

		if (chars + 1 == max && s[n ? n : 1]) {
			fputs("…", h->f);
			return;
		}
		if (!n) {
			fputs(REPLACEMENT, h->f);
			s++;
			continue;
		}
		if (n == 1) {
			switch (c) {
			case '&':
				fputs("&amp;", h->f);
				break;
			case '<':
				fputs("&lt;", h->f);
				break;
			case '>':
				fputs("&gt;", h->f);
				break;
			case '"':
				fputs("&quot;", h->f);
				break;
			case '\'':
				fputs("&#39;", h->f);
				break;
			case '\t':
			case '\n':
			case '\r':
				fputc(c, h->f);
				break;
			default:
				/* Controls are parse errors in HTML: show U+FFFD instead. */
				if (c < 0x20 || c == 0x7f)
					fputs(REPLACEMENT, h->f);
				else
					fputc(c, h->f);
			}
		} else if (n == 2 && c == 0xc2 && (unsigned char)s[1] < 0xa0) {
			/* C1 controls (U+0080-U+009F). */
			fputs(REPLACEMENT, h->f);
		} else {
			fwrite(s, 1, n, h->f);
		}
		s += n;
	}
}

void fsb_html_text(struct fsb_html_out *h, const char *s)
{
	escape_n(h, s, SIZE_MAX);
}

void fsb_html_attr(struct fsb_html_out *h, const char *s)
{
	escape_n(h, s, SIZE_MAX);
}

void fsb_html_text_cut(struct fsb_html_out *h, const char *s, size_t max_chars)
{
	escape_n(h, s, max_chars);
}

void fsb_html_textf_(struct fsb_html_out *h, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	if (h->err)
		return;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		h->err = -ENOMEM;
		return;
	}
	escape_n(h, s, SIZE_MAX);
	free(s);
}

/* ---- numbers in markup -------------------------------------------------- */

/*
 * Length of the conversion spec at p ("%-8.1f"), or 0 when it is not a
 * numeric one. *conv and *mod get its conversion letter and length
 * modifier ("", "hh", "h", "l", "ll", "z", "j", "t").
 */
static size_t numeric_spec(const char *p, char *conv, char mod[3])
{
	const char *q = p + 1;
	size_t m = 0;

	q += strspn(q, "-+ #0");
	q += strspn(q, "0123456789");
	if (*q == '.') {
		q++;
		q += strspn(q, "0123456789");
	}
	mod[0] = mod[1] = mod[2] = '\0';
	if ((q[0] == 'h' && q[1] == 'h') || (q[0] == 'l' && q[1] == 'l')) {
		mod[m++] = *q++;
		mod[m++] = *q++;
	} else if (*q && strchr("hlzjt", *q)) {
		mod[m++] = *q++;
	}
	if (!*q || !strchr("diouxXfFeEgG", *q))
		return 0;
	/* Floating conversions take no length modifier here (no long double). */
	if (strchr("fFeEgG", *q) && m)
		return 0;
	*conv = *q;
	return (size_t)(q - p) + 1;
}

/* Whether every conversion of fmt is numeric: checked before writing. */
static bool markup_format_ok(const char *fmt)
{
	char conv, mod[3];

	for (const char *p = strchr(fmt, '%'); p; p = strchr(p, '%')) {
		size_t n;

		if (p[1] == '%') {
			p += 2;
			continue;
		}
		n = numeric_spec(p, &conv, mod);
		if (!n || n > 24)
			return false;
		p += n;
	}
	return true;
}

static void put_signed(FILE *f, const char *spec, const char *mod, va_list *ap)
{
	if (!strcmp(mod, "l"))
		fprintf(f, spec, va_arg(*ap, long));
	else if (!strcmp(mod, "ll"))
		fprintf(f, spec, va_arg(*ap, long long));
	else if (!strcmp(mod, "z"))
		fprintf(f, spec, va_arg(*ap, ssize_t));
	else if (!strcmp(mod, "j"))
		fprintf(f, spec, va_arg(*ap, intmax_t));
	else if (!strcmp(mod, "t"))
		fprintf(f, spec, va_arg(*ap, ptrdiff_t));
	else
		fprintf(f, spec, va_arg(*ap, int)); /* hh and h are promoted */
}

static void put_unsigned(FILE *f, const char *spec, const char *mod, va_list *ap)
{
	if (!strcmp(mod, "l"))
		fprintf(f, spec, va_arg(*ap, unsigned long));
	else if (!strcmp(mod, "ll"))
		fprintf(f, spec, va_arg(*ap, unsigned long long));
	else if (!strcmp(mod, "z"))
		fprintf(f, spec, va_arg(*ap, size_t));
	else if (!strcmp(mod, "j"))
		fprintf(f, spec, va_arg(*ap, uintmax_t));
	else if (!strcmp(mod, "t"))
		fprintf(f, spec, va_arg(*ap, ptrdiff_t));
	else
		fprintf(f, spec, va_arg(*ap, unsigned));
}

void fsb_html_markupf_(struct fsb_html_out *h, const char *fmt, ...)
{
	va_list ap;
	const char *p = fmt;

	if (h->err)
		return;
	if (!markup_format_ok(fmt)) {
		h->err = -EINVAL;
		return;
	}
	va_start(ap, fmt);
	while (*p) {
		const char *pct = strchr(p, '%');
		char spec[32], conv, mod[3];
		size_t n;

		if (!pct) {
			fputs(p, h->f);
			break;
		}
		fwrite(p, 1, (size_t)(pct - p), h->f);
		if (pct[1] == '%') {
			fputc('%', h->f);
			p = pct + 2;
			continue;
		}
		n = numeric_spec(pct, &conv, mod);
		memcpy(spec, pct, n);
		spec[n] = '\0';
		if (strchr("di", conv)) {
			put_signed(h->f, spec, mod, &ap);
		} else if (strchr("ouxX", conv)) {
			put_unsigned(h->f, spec, mod, &ap);
		} else {
			double v = va_arg(ap, double);

			/* "nan" in a coordinate breaks the drawing: draw at 0. */
			fprintf(h->f, spec, isfinite(v) ? v : 0.0);
		}
		p = pct + n;
	}
	va_end(ap);
}
