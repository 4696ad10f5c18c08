/*
 * Terminal-safe text (see text.h). One walk over the string, one piece at
 * a time: either a character copied as it is or its escape. Every entry
 * point is built on next_piece, so what is printed, what is counted for
 * a column and what is cut into a buffer can never disagree.
 */
#include "util/text.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t fsb_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	/* Each test reads s[k] only after s[k - 1] proved a lead or
	 * continuation byte, so a NUL ends the look-ahead in time. */
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		/* No overlong forms, no UTF-16 surrogates. */
		if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f))
			return 0;
		return (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
			return 0;
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		return (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

/* What one step of the walk writes: bytes of s, or an escape. */
struct piece {
	const char *p;
	size_t n;     /* bytes to write from p */
	size_t chars; /* characters they show */
	char esc[8];
};

/* The code point of the bidirectional control at s (n bytes of UTF-8):
 * U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069; 0 for any other. */
static unsigned bidi(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned cp;

	if (n == 2 && u[0] == 0xd8 && u[1] == 0x9c)
		return 0x061c;
	if (n != 3 || u[0] != 0xe2)
		return 0;
	cp = 0x2000u | ((u[1] & 0x3fu) << 6) | (u[2] & 0x3fu);
	return cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
			       (cp >= 0x2066 && cp <= 0x2069)
		       ? cp
		       : 0;
}

/* The piece at s (not NUL); returns how many bytes of s it stands for. */
static size_t next_piece(const char *s, bool keep_nl, struct piece *pc)
{
	unsigned char c = (unsigned char)*s;
	size_t n = fsb_utf8_len(s);

	if (n == 1 && (c >= 0x20 && c != 0x7f)) {
		pc->p = s;
		pc->n = pc->chars = 1;
		return 1;
	}
	if (n == 1 && c == '\n' && keep_nl) {
		pc->p = s;
		pc->n = pc->chars = 1;
		return 1;
	}
	if (n == 2 && c == 0xc2 && (unsigned char)s[1] < 0xa0) {
		/* A C1 control in UTF-8: some terminals obey U+009B as CSI. */
		snprintf(pc->esc, sizeof(pc->esc), "\\u%04x", (unsigned char)s[1]);
	} else if (bidi(s, n)) {
		/* A bidirectional control reorders what follows it on the line
		 * (a name that reads as another: "Trojan Source"). */
		snprintf(pc->esc, sizeof(pc->esc), "\\u%04x", bidi(s, n));
	} else if (n > 1) {
		pc->p = s;
		pc->n = n;
		pc->chars = 1;
		return n;
	} else if (c == '\t') {
		strcpy(pc->esc, "\\t");
	} else if (c == '\n') {
		strcpy(pc->esc, "\\n");
	} else if (c == '\r') {
		strcpy(pc->esc, "\\r");
	} else {
		/* Other controls, DEL, and every byte that is not valid UTF-8. */
		snprintf(pc->esc, sizeof(pc->esc), "\\x%02x", c);
		n = 1;
	}
	pc->p = pc->esc;
	pc->n = pc->chars = strlen(pc->esc);
	return n ? n : 1;
}

static int put(FILE *out, const char *s, bool keep_nl)
{
	/* In chunks: stderr is unbuffered, and a byte per write(2) is slow. */
	char buf[512];
	size_t used = 0;
	struct piece pc;

	while (s && *s) {
		s += next_piece(s, keep_nl, &pc);
		if (used + pc.n > sizeof(buf)) {
			fwrite(buf, 1, used, out);
			used = 0;
		}
		memcpy(buf + used, pc.p, pc.n);
		used += pc.n;
	}
	if (used)
		fwrite(buf, 1, used, out);
	return ferror(out) ? -EIO : 0;
}

int fsb_text_put(FILE *out, const char *s)
{
	return put(out, s, false);
}

int fsb_text_put_lines(FILE *out, const char *s)
{
	return put(out, s, true);
}

size_t fsb_text_width(const char *s)
{
	struct piece pc;
	size_t w = 0;

	while (s && *s) {
		s += next_piece(s, false, &pc);
		w += pc.chars;
	}
	return w;
}

int fsb_text_pad(FILE *out, const char *s, int width)
{
	size_t w = width < 0 ? (size_t) - (long)width : (size_t)width;
	size_t n = fsb_text_width(s);

	if (width > 0)
		for (; n < w; n++)
			fputc(' ', out);
	put(out, s, false);
	if (width < 0)
		for (; n < w; n++)
			fputc(' ', out);
	return ferror(out) ? -EIO : 0;
}

static char *copy(const char *s, size_t max_chars, char *buf, size_t len, const char *more)
{
	size_t used = 0, chars = 0, keep = 0, mlen = strlen(more);
	bool cut = false;
	struct piece pc;

	if (!len)
		return buf;
	if (mlen >= len)
		mlen = 0;
	for (const char *p = s ? s : ""; *p;) {
		size_t step = next_piece(p, false, &pc);

		if ((max_chars && chars + pc.chars > max_chars) || used + pc.n > len - 1) {
			cut = true;
			break;
		}
		memcpy(buf + used, pc.p, pc.n);
		used += pc.n;
		chars += pc.chars;
		p += step;
		/* The longest prefix that still leaves room for the ellipsis. */
		if (used + mlen <= len - 1)
			keep = used;
	}
	if (cut) {
		memcpy(buf + keep, more, mlen);
		used = keep + mlen;
	}
	buf[used] = '\0';
	return buf;
}

char *fsb_text_safe(const char *s, size_t max_chars, char *buf, size_t len)
{
	return copy(s, max_chars, buf, len, "...");
}

char *fsb_text_cut(const char *s, size_t max_chars, char *buf, size_t len)
{
	return copy(s, max_chars, buf, len, "");
}

char *fsb_text_dup(const char *s)
{
	char *buf;
	FILE *mem;
	size_t len = 0;

	if (!s) {
		errno = 0;
		return NULL;
	}
	buf = NULL;
	mem = open_memstream(&buf, &len);
	if (!mem)
		return NULL;
	fsb_text_put(mem, s);
	if (fclose(mem) == EOF) {
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	return buf;
}

bool fsb_utf8_valid(const char *s)
{
	for (size_t n; s && *s; s += n)
		if (!(n = fsb_utf8_len(s)))
			return false;
	return true;
}

char *fsb_utf8_clean(const char *s)
{
	/* At most 3 bytes (U+FFFD) for each byte of s. */
	size_t len = strlen(s), used = 0;
	char *out = malloc(3 * len + 1);

	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	while (*s) {
		size_t n = fsb_utf8_len(s);

		if (n) {
			memcpy(out + used, s, n);
			used += n;
			s += n;
		} else {
			memcpy(out + used, FSB_UTF8_REPLACEMENT, 3);
			used += 3;
			s++;
		}
	}
	out[used] = '\0';
	return out;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *fsb_base64_encode(const void *data, size_t n)
{
	const unsigned char *p = data;
	char *out = n < SIZE_MAX / 2 ? malloc((n + 2) / 3 * 4 + 1) : NULL, *o = out;

	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < n; i += 3) {
		unsigned long v = (unsigned long)p[i] << 16;

		if (i + 1 < n)
			v |= (unsigned long)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? b64[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

static int b64_value(char c)
{
	const char *at = c ? strchr(b64, c) : NULL;

	return at ? (int)(at - b64) : -1;
}

int fsb_base64_decode(const char *s, char **out, size_t *n)
{
	size_t len = strlen(s), used = 0;
	char *buf;

	*out = NULL;
	*n = 0;
	if (len % 4)
		return -EINVAL;
	if (!(buf = malloc(len / 4 * 3 + 1)))
		return -ENOMEM;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;

		for (int k = 0; k < 4; k++) {
			v[k] = b64_value(s[i + k]);
			/* '=' only as the last one or two of the last group. */
			if (s[i + k] == '=' && i + 4 == len && k >= 2 &&
			    (k == 3 || s[i + 3] == '=')) {
				v[k] = 0;
				pad++;
			} else if (v[k] < 0 || pad) {
				goto bad;
			}
		}
		buf[used++] = (char)(v[0] << 2 | v[1] >> 4);
		if (pad < 2)
			buf[used++] = (char)((v[1] & 15) << 4 | v[2] >> 2);
		if (pad < 1)
			buf[used++] = (char)((v[2] & 3) << 6 | v[3]);
		/* The bits a pad leaves over are 0 in the one encoding of the bytes. */
		if ((pad == 2 && (v[1] & 15)) || (pad == 1 && (v[2] & 3)))
			goto bad;
	}
	buf[used] = '\0';
	*out = buf;
	*n = used;
	return 0;
bad:
	free(buf);
	return -EINVAL;
}
