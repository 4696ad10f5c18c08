/* Unit tests: size parsing and formatting, scratch directories, terminal-safe text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/io.h"
#include "util/scratch.h"
#include "util/size.h"
#include "util/text.h"

static void size_parse_good(void **state)
{
	uint64_t v;
	(void)state;
	assert_int_equal(fsb_size_parse("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(fsb_size_parse("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(fsb_size_parse("8k", &v), 0);
	assert_int_equal(v, 8192);
	assert_int_equal(fsb_size_parse("8K", &v), 0);
	assert_int_equal(v, 8192);
	assert_int_equal(fsb_size_parse("512m", &v), 0);
	assert_int_equal(v, 512ull << 20);
	assert_int_equal(fsb_size_parse("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(fsb_size_parse("1t", &v), 0);
	assert_int_equal(v, 1ull << 40);
	assert_int_equal(fsb_size_parse("4KiB", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(fsb_size_parse("4kb", &v), 0);
	assert_int_equal(v, 4096);
}

static void size_parse_bad(void **state)
{
	uint64_t v = 77;
	(void)state;
	assert_int_equal(fsb_size_parse("12q", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("-1", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("+1", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("", &v), -EINVAL);
	assert_int_equal(fsb_size_parse(" 1", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("1 k", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("k", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("1.5g", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("1kk", &v), -EINVAL);
	assert_int_equal(fsb_size_parse("99999999999999999999", &v), -ERANGE);
	assert_int_equal(fsb_size_parse("17179869184g", &v), -ERANGE);
	assert_int_equal(fsb_size_parse(NULL, &v), -EINVAL);
	assert_int_equal(v, 77); /* untouched on failure */
}

static void size_format(void **state)
{
	char b[32];
	(void)state;
	assert_string_equal(fsb_size_format_exact(512ull << 20, b, sizeof(b)), "512M");
	assert_string_equal(fsb_size_format_exact(2ull << 30, b, sizeof(b)), "2G");
	assert_string_equal(fsb_size_format_exact(1536ull << 10, b, sizeof(b)), "1536K");
	assert_string_equal(fsb_size_format_exact(100, b, sizeof(b)), "100");
	assert_string_equal(fsb_size_format_exact(0, b, sizeof(b)), "0");
	assert_string_equal(fsb_size_format_human(17, b, sizeof(b)), "17 B");
	assert_string_equal(fsb_size_format_human(1536ull << 20, b, sizeof(b)), "1.5 GiB");
	assert_true(fsb_is_pow2(8192));
	assert_false(fsb_is_pow2(3));
	assert_false(fsb_is_pow2(0));
}

static void scratch_lifecycle(void **state)
{
	char parent[] = "/tmp/fsb-unit.XXXXXX", a[4096], b[4096], f[4200];
	struct stat st;
	FILE *fp;
	(void)state;

	assert_non_null(mkdtemp(parent));
	assert_int_equal(fsb_scratch_create(parent, a, sizeof(a)), 0);
	assert_int_equal(fsb_scratch_create(parent, b, sizeof(b)), 0);
	assert_string_not_equal(a, b); /* two runs never collide */
	snprintf(f, sizeof(f), "%s/sub", a);
	assert_int_equal(mkdir(f, 0700), 0);
	snprintf(f, sizeof(f), "%s/sub/file", a);
	fp = fopen(f, "w");
	assert_non_null(fp);
	fputs("x", fp);
	fclose(fp);
	assert_int_equal(fsb_scratch_remove(a), 0);
	assert_int_equal(stat(a, &st), -1);
	assert_int_equal(fsb_scratch_remove(b), 0);
	assert_int_equal(rmdir(parent), 0);
	assert_int_equal(fsb_scratch_create("/nonexistent/dir", a, sizeof(a)), -ENOENT);
}

static void atomic_write_and_read(void **state)
{
	char dir[] = "/tmp/fsb-unit.XXXXXX", path[4096], *text = NULL;
	size_t len = 0;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	assert_int_equal(fsb_write_file_atomic(path, "hello\n", 6), 0);
	assert_int_equal(fsb_read_file(path, 100, &text, &len), 0);
	assert_int_equal(len, 6);
	assert_string_equal(text, "hello\n");
	free(text);
	assert_int_equal(fsb_read_file(path, 3, &text, &len), -EFBIG);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0); /* no temp file left beside it */
}

/* fsb_text_put into a string. */
static char *put_str(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fsb_text_put(f, s), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* in escapes to want, which shows width characters. */
static void expect_put(const char *in, const char *want, size_t width)
{
	char *got = put_str(in), buf[256], *dup = fsb_text_dup(in);

	assert_string_equal(got, want);
	assert_int_equal(fsb_text_width(in), width);
	assert_string_equal(fsb_text_safe(in, 0, buf, sizeof(buf)), want);
	assert_non_null(dup);
	assert_string_equal(dup, want);
	/* Escaping what is already safe changes nothing. */
	free(dup);
	dup = put_str(got);
	assert_string_equal(dup, want);
	free(dup);
	free(got);
}

static void text_escapes_terminal_controls(void **state)
{
	(void)state;
	/* OSC: retitle the window, ended by BEL. */
	expect_put("a\x1b]0;pwned\x07z", "a\\x1b]0;pwned\\x07z", 18);
	/* CSI: clear the screen. */
	expect_put("\x1b[2Jlabel", "\\x1b[2Jlabel", 12);
	/* A raw 0x9b byte (8-bit CSI), not valid UTF-8 on its own. */
	expect_put("x\x9b" "2Jy", "x\\x9b2Jy", 8);
	/* U+009B as UTF-8 (C2 9B), and U+0085 (NEL). */
	expect_put("x\xc2\x9b" "2J\xc2\x85", "x\\u009b2J\\u0085", 15);
	/* Valid UTF-8 text is kept: U+00A0 and above are not controls. */
	expect_put("m\xc3\xbcller 5 \xc2\xb5s", "m\xc3\xbcller 5 \xc2\xb5s", 11);
	/* Invalid bytes: lone continuation, overlong '<', surrogate, cut short. */
	expect_put("\x80\xc0\xbc\xed\xa0\x80\xe2\x82", "\\x80\\xc0\\xbc\\xed\\xa0\\x80\\xe2\\x82", 32);
	/* Newline, tab, CR, DEL. */
	expect_put("a\nb\tc\rd\x7f", "a\\nb\\tc\\rd\\x7f", 14);
	expect_put("", "", 0);
	assert_int_equal(fsb_text_width(NULL), 0);
}

static void text_lines_keep_newlines(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	(void)state;

	assert_non_null(f);
	assert_int_equal(fsb_text_put_lines(f, "one\x1b[31m\ntwo\r\n"), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "one\\x1b[31m\ntwo\\r\n");
	free(buf);
}

static void text_cut_and_pad(void **state)
{
	char buf[64], small[8], *out = NULL;
	size_t len = 0;
	FILE *f;
	(void)state;

	/* At most max characters, then "..."; an escape is never split. */
	assert_string_equal(fsb_text_safe("abcdef", 4, buf, sizeof(buf)), "abcd...");
	assert_string_equal(fsb_text_safe("abcd", 4, buf, sizeof(buf)), "abcd");
	assert_string_equal(fsb_text_safe("ab\x1bz", 4, buf, sizeof(buf)), "ab...");
	assert_string_equal(fsb_text_cut("ab\x1bz", 4, buf, sizeof(buf)), "ab");
	assert_string_equal(fsb_text_cut("\xc3\xbc\xc3\xbc\xc3\xbc", 2, buf, sizeof(buf)),
			    "\xc3\xbc\xc3\xbc");
	/* A buffer too small: cut to fit, ellipsis included, NUL-terminated. */
	assert_string_equal(fsb_text_safe("abcdefghij", 0, small, sizeof(small)), "abcd...");
	assert_string_equal(fsb_text_safe("\x1b\x1b", 0, small, sizeof(small)), "\\x1b...");
	assert_string_equal(fsb_text_safe(NULL, 0, small, sizeof(small)), "");

	f = open_memstream(&out, &len);
	assert_non_null(f);
	fsb_text_pad(f, "\xc2\xb5s", 4);
	fputc('|', f);
	fsb_text_pad(f, "\x1b", -6);
	fputc('|', f);
	fsb_text_pad(f, "long", 2);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(out, "  \xc2\xb5s|\\x1b  |long");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(size_parse_good),
		cmocka_unit_test(size_parse_bad),
		cmocka_unit_test(size_format),
		cmocka_unit_test(scratch_lifecycle),
		cmocka_unit_test(atomic_write_and_read),
		cmocka_unit_test(text_escapes_terminal_controls),
		cmocka_unit_test(text_lines_keep_newlines),
		cmocka_unit_test(text_cut_and_pad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
