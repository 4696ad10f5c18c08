/* Unit tests: size parsing and formatting, scratch directories. */
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

/* "needs A, only B free": the two never read the same unless equal. */
static void size_format_pair(void **state)
{
	char a[64], b[64];
	(void)state;
	fsb_size_format_pair(21 << 20, 8 << 20, a, b, sizeof(a));
	assert_string_equal(a, "21.0 MiB");
	assert_string_equal(b, "8.0 MiB");
	/* 20.0 MiB and 20.0 MiB: exact bytes say which is more */
	fsb_size_format_pair(20979712, 20971520, a, b, sizeof(a));
	assert_string_equal(a, "20.0 MiB (20979712 bytes)");
	assert_string_equal(b, "20.0 MiB (20971520 bytes)");
	fsb_size_format_pair(20 << 20, 20 << 20, a, b, sizeof(a));
	assert_string_equal(a, "20.0 MiB");
	assert_string_equal(b, "20.0 MiB");
	/* bytes are exact already */
	fsb_size_format_pair(17, 16, a, b, sizeof(a));
	assert_string_equal(a, "17 B");
	assert_string_equal(b, "16 B");
	/* short buffers still end in NUL */
	fsb_size_format_pair(20979712, 20971520, a, b, 8);
	assert_int_equal(strlen(a), 7);
	assert_int_equal(strlen(b), 7);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(size_parse_good),
		cmocka_unit_test(size_parse_bad),
		cmocka_unit_test(size_format),
		cmocka_unit_test(size_format_pair),
		cmocka_unit_test(scratch_lifecycle),
		cmocka_unit_test(atomic_write_and_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
