#include "util/ini.h"

#include <stdlib.h>
#include <string.h>

/* A line being read into inih's buffer. */
struct line {
	char *str;
	size_t len, max; /* max: characters that fit with "\n" and NUL */
	bool leading;	 /* still in the leading blanks */
	bool too_long;
};

static void line_put(struct line *l, int c)
{
	if (l->leading && (c == ' ' || c == '\t'))
		return;
	l->leading = false;
	if (l->len < l->max)
		l->str[l->len++] = (char)c;
	else
		l->too_long = true;
}

/*
 * inih's reader: one line per call, so ld->lineno is inih's line number.
 * The line goes straight into inih's buffer (num bytes, fixed when libinih
 * was built: 200 by default), which must hold it, the newline we end it
 * with and a NUL; whatever the file holds, nothing is written past that.
 * A line ends at LF, at CR (old Mac files) or at CRLF (one end, not two).
 * Leading blanks and, on line 1, a UTF-8 byte order mark are dropped.
 * A NUL byte or another control character (tab apart) means this is not
 * a text file: refused with its line, and nothing after it is read.
 */
char *fsb_ini_read_line(char *str, int num, void *stream)
{
	static const unsigned char bom[] = { 0xef, 0xbb, 0xbf };
	struct fsb_ini_lines *ld = stream;
	char why[96];
	struct line l = { .str = str, .leading = true };
	size_t nbom; /* bytes of a byte order mark seen; 3: none expected */
	int c, bad = -1;

	if (ld->stop || num < 4 || (c = getc(ld->f)) == EOF)
		return NULL;
	l.max = (size_t)num - 3;
	nbom = ++ld->lineno == 1 ? 0 : 3;
	for (; c != EOF && c != '\n'; c = getc(ld->f)) {
		if (nbom < 3) {
			if (c == bom[nbom]) {
				nbom++;
				continue;
			}
			/* Not a byte order mark after all: its bytes are the line's. */
			for (size_t i = 0; i < nbom; i++)
				line_put(&l, bom[i]);
			nbom = 3;
		}
		if (c == '\r') {
			c = getc(ld->f);
			if (c != '\n' && c != EOF)
				ungetc(c, ld->f);
			break;
		}
		if (bad < 0 && ((c < 0x20 && c != '\t') || c == 0x7f))
			bad = c;
		line_put(&l, c);
	}
	for (size_t i = 0; nbom < 3 && i < nbom; i++)
		line_put(&l, bom[i]);
	if (bad == 0)
		snprintf(why, sizeof(why), "contains a NUL byte: not a text file");
	else if (bad > 0)
		snprintf(why, sizeof(why), "contains the control character 0x%02x: not a text file",
			 (unsigned)bad);
	else if (l.too_long)
		snprintf(why, sizeof(why), "line too long (at most %zu characters)", l.max);
	if (bad >= 0 || l.too_long) {
		/* Not the file we want: reading on would only bring more of it. */
		ld->stop = true;
		if (ld->refuse)
			ld->refuse(ld->arg, ld->lineno, why);
		return NULL;
	}
	str[l.len] = '\0';
	if (str[0] == '[') {
		char *end = strchr(str, ']');

		/* Without ']' inih reports the line as a syntax error. */
		if (end && ld->section) {
			/* A copy: the callee may trim it, inih still parses the line. */
			char *name = strndup(str + 1, (size_t)(end - str - 1));

			ld->section(ld->arg, name);
			free(name);
		}
	}
	str[l.len] = '\n';
	str[l.len + 1] = '\0';
	return str;
}
