/*
 * Lines of an INI file for libinih, read so that nothing in the file can
 * do harm and every error can name its line.
 *
 * libinih calls its handler per key without the line number and never for
 * a section without keys, so the lines reach inih through this reader,
 * which counts them, reports each section header (an empty [xfs] is a
 * section too) and strips leading blanks: with inih's multi-line values,
 * an indented `key = value` would otherwise be glued to the key above it.
 * It is the one place that sees the file's bytes: it ends lines at LF, CR
 * or CRLF, never writes past inih's buffer, and refuses binary content.
 */
#ifndef FSB_UTIL_INI_H
#define FSB_UTIL_INI_H
#include <stdbool.h>
#include <stdio.h>

struct fsb_ini_lines {
	FILE *f;	 /* borrowed */
	unsigned lineno; /* the line last read: inih's line number */
	bool stop;	 /* refused content: no more lines */
	/* Each "[name]" line's name (what lies between '[' and the first ']';
	 * NULL when out of memory), before inih parses the line. May be NULL. */
	void (*section)(void *arg, char *name);
	/* What ended the reading, once: "contains a NUL byte: not a text
	 * file", "line too long (at most N characters)". May be NULL. */
	void (*refuse)(void *arg, unsigned line, const char *why);
	void *arg;
};

/*
 * inih's reader (ini_parse_stream(fsb_ini_read_line, &lines, ...)): the
 * next line into str (num bytes, fixed when libinih was built: 200 by
 * default), which holds it, the newline it is ended with and a NUL;
 * whatever the file holds, nothing is written past that. Leading blanks
 * and, on line 1, a UTF-8 byte order mark are dropped. A NUL byte or
 * another control character (tab apart), or a line longer than str holds,
 * means this is not the file wanted: refused with its line (refuse), and
 * nothing after it is read. Returns str, or NULL at the end.
 */
char *fsb_ini_read_line(char *str, int num, void *stream);

#endif
