/*
 * Text for terminals, whatever a file or a command line held. A label, a
 * path or a unit read from a result file is someone else's text: printed
 * raw, "\e]0;...\a" retitles the window and "\e[2J" clears the screen.
 * Every view that writes to a terminal passes such strings through here.
 *
 * What is escaped, so the reader still sees that something was there:
 *  - C0 controls and DEL: "\t", "\n", "\r" and "\xHH" for the rest
 *    (ESC is "\x1b");
 *  - C1 controls U+0080..U+009F written as UTF-8 (C2 80..C2 9F): "\u009b";
 *  - bytes that are not part of valid UTF-8 (a raw 0x9b, which some
 *    terminals take as CSI, a lone continuation byte, an overlong form, a
 *    surrogate, a sequence cut short): "\xHH" each.
 * Everything else, valid UTF-8 text such as "ü" or "µs", is kept as is.
 * The result holds no control character and is valid UTF-8, so escaping
 * it again changes nothing. A backslash is kept as it is (a path with one
 * reads as before); an escape is a hint for a person, not a round trip.
 */
#ifndef FSB_UTIL_TEXT_H
#define FSB_UTIL_TEXT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* U+FFFD REPLACEMENT CHARACTER in UTF-8. */
#define FSB_UTF8_REPLACEMENT "\xef\xbf\xbd"

/*
 * Length of the valid UTF-8 sequence at s (1 to 4 bytes), or 0 when the
 * bytes at s are not one: a stray continuation byte, an overlong form, a
 * UTF-16 surrogate, a code point above U+10FFFF or a sequence cut short by
 * the terminating NUL. *s must not be NUL. Pure.
 */
size_t fsb_utf8_len(const char *s);

/*
 * Write s to out with every control and invalid byte escaped (see above).
 * NULL writes nothing. Returns 0, or -EIO when the stream reports an error.
 */
int fsb_text_put(FILE *out, const char *s);

/*
 * The same for multi-line text (what a tool wrote on its stderr): '\n'
 * is kept, everything else is escaped as fsb_text_put does.
 */
int fsb_text_put_lines(FILE *out, const char *s);

/*
 * The number of characters fsb_text_put writes for s (code points, not
 * bytes: "µ" counts one), for lining up columns. NULL is 0.
 */
size_t fsb_text_width(const char *s);

/*
 * fsb_text_put padded with blanks to |width| characters, as printf's "%*s"
 * does: on the left when width > 0 (right-aligned), on the right when
 * width < 0. A longer text is written whole. Returns 0 or -EIO.
 */
int fsb_text_pad(FILE *out, const char *s, int width);

/*
 * s made safe into buf (len bytes, len >= 4), at most max_chars characters
 * (0: as many as buf holds). A longer text ends in "..." within the limit
 * (fsb_text_safe) or is simply cut (fsb_text_cut); an escape is never cut
 * in half. NULL gives "". Always NUL-terminates; returns buf.
 */
char *fsb_text_safe(const char *s, size_t max_chars, char *buf, size_t len);
char *fsb_text_cut(const char *s, size_t max_chars, char *buf, size_t len);

/*
 * s made safe in a new string the caller frees, or NULL with errno =
 * ENOMEM. NULL gives NULL with errno = 0.
 */
char *fsb_text_dup(const char *s);

/* Whether every byte of s is part of valid UTF-8 (fsb_utf8_len). NULL
 * and "" are. Pure. */
bool fsb_utf8_valid(const char *s);

/*
 * s as valid UTF-8 for a JSON file, in a new string the caller frees
 * (NULL with errno = ENOMEM): every byte that is not part of valid UTF-8
 * becomes U+FFFD, one each; everything else, controls too, is kept (the
 * JSON writer escapes those). A valid s comes back unchanged.
 */
char *fsb_utf8_clean(const char *s);

/*
 * Standard base64 (RFC 4648, "+/", "=" padding) of n bytes, in a new
 * string the caller frees, or NULL with errno = ENOMEM.
 */
char *fsb_base64_encode(const void *data, size_t n);

/*
 * Decode s, which must be the one encoding fsb_base64_encode gives of
 * some bytes (no blanks, no missing or extra padding, no stray bits):
 * 0 with *out (NUL-terminated, the caller frees) and *n bytes, -EINVAL,
 * or -ENOMEM. *out is NULL on failure.
 */
int fsb_base64_decode(const char *s, char **out, size_t *n);

#endif
