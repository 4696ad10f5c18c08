/*
 * Writing HTML so that data can never become markup: the only way text
 * reaches an HTML page fsbench writes. Markup (tag and attribute names,
 * CSS, fixed words) comes from string literals only, which the macros
 * below enforce at compile time ("" s "" does not compile unless s is a
 * literal); every value taken from a document goes through
 * fsb_html_text / fsb_html_attr (or their printf-like forms), which escape
 * it. Numbers inside markup (coordinates, colspans) go through
 * fsb_html_markupf, which accepts numeric conversions only and writes
 * NaN and infinities as 0, so a hostile figure cannot break an SVG either.
 *
 * Errors are sticky, as in redis's rio: the first one is kept, everything
 * after it is a no-op, and fsb_html_out_finish reports it once.
 */
#ifndef FSB_REPORT_HTML_OUT_H
#define FSB_REPORT_HTML_OUT_H
#include <stddef.h>
#include <stdio.h>

struct fsb_html_out {
	FILE *f; /* borrowed */
	int err; /* 0, or the first error: -EINVAL, -ENOMEM, -EIO */
};

/* Start writing to f (borrowed; not closed by finish). */
void fsb_html_out_init(struct fsb_html_out *h, FILE *f);

/*
 * The first error: -EINVAL when a markup format held a conversion other
 * than a number (a bug in the writer, caught by any test that renders
 * the page), -ENOMEM, or -EIO when the stream reports an error; else 0.
 */
int fsb_html_out_finish(struct fsb_html_out *h);

/* Markup: a string literal, written as it is. */
#define fsb_html_lit(h, literal) fsb_html_lit_((h), "" literal "")

/*
 * Markup with numbers: fmt is a string literal whose conversions are
 * numeric only (d i o u x X with hh h l ll z j t, and f F e E g G, with
 * flags, width and precision; "%%"). Any other conversion (%s, %c, %p,
 * %n, '*') writes nothing and sets -EINVAL. Non-finite doubles print as 0.
 */
#define fsb_html_markupf(h, fmt, ...) fsb_html_markupf_((h), "" fmt "", __VA_ARGS__)

/*
 * Data as element text or as an attribute value (between the quotes a
 * literal wrote): & < > " ' become character references; control
 * characters other than tab, LF and CR, and bytes that are not valid
 * UTF-8, become U+FFFD, so the page stays well-formed whatever the
 * document held. NULL writes nothing.
 */
void fsb_html_text(struct fsb_html_out *h, const char *s);
void fsb_html_attr(struct fsb_html_out *h, const char *s);

/*
 * At most max_chars characters of s as text; a longer s ends in "…" so a
 * reader knows (put the whole string in a <title> beside it).
 */
void fsb_html_text_cut(struct fsb_html_out *h, const char *s, size_t max_chars);

/*
 * printf-like text: fmt (a string literal) is formatted with the
 * arguments, which may be anything (%s with a label is fine), and the
 * whole result is escaped as fsb_html_text does.
 */
#define fsb_html_textf(h, fmt, ...) fsb_html_textf_((h), "" fmt "", __VA_ARGS__)

/* The functions behind the macros: call the macros, not these. */
void fsb_html_lit_(struct fsb_html_out *h, const char *literal);
void fsb_html_markupf_(struct fsb_html_out *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fsb_html_textf_(struct fsb_html_out *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
