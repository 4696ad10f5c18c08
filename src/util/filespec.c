#include "util/filespec.h"
#include "util/size.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

/* Mirrors FSB_NAMES_MAX_FILES and FSB_NAMES_MAX_DIRS (workloads/names.h);
 * util/ sits below workloads/ and does not include it. */
#define MAX_FILES 9999999ull
#define MAX_DIRS 99999ull

/* Decimal digits then an optional k or m multiplier; [p, end) only. */
static int parse_count(const char *p, const char *end, uint64_t max, int suffixes, uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;

	if (p == end || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; p < end && isdigit((unsigned char)*p); p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		/* Checked every digit, so v never overflows before max does. */
		if (v > max)
			return -ERANGE;
	}
	if (p < end && suffixes) {
		switch (tolower((unsigned char)*p)) {
		case 'k':
			shift = 10;
			p++;
			break;
		case 'm':
			shift = 20;
			p++;
			break;
		default:
			return -EINVAL;
		}
	}
	if (p != end)
		return -EINVAL;
	if (shift && v > (max >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

/* fsb_size_parse on [p, end): the field is copied to be NUL-terminated. */
static int parse_size(const char *p, const char *end, uint64_t *out)
{
	char buf[64];
	size_t n = (size_t)(end - p);

	if (!n)
		return -EINVAL;
	if (n >= sizeof(buf))
		return -ERANGE;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return fsb_size_parse(buf, out);
}

int fsb_files_spec_parse(const char *s, uint64_t *files, uint64_t *max_bytes, uint64_t *min_bytes,
			 unsigned *dirs)
{
	const char *field[4], *end[4];
	uint64_t n = 0, max = 0, min = 0, d = 0;
	size_t nf = 0;
	int err;

	if (!s)
		return -EINVAL;
	/* Split on ':' without copying: at most four fields. */
	field[nf] = s;
	for (const char *p = s;; p++) {
		if (*p == ':' || *p == '\0') {
			end[nf++] = p;
			if (*p == '\0')
				break;
			if (nf == 4)
				return -EINVAL;
			field[nf] = p + 1;
		}
	}
	err = parse_count(field[0], end[0], MAX_FILES, 1, &n);
	if (!err && nf > 1)
		err = parse_size(field[1], end[1], &max);
	if (!err && nf > 2)
		err = parse_size(field[2], end[2], &min);
	if (!err && nf > 3)
		err = parse_count(field[3], end[3], MAX_DIRS, 0, &d);
	if (err)
		return err;
	if (min > max)
		return -EINVAL;
	*files = n;
	*max_bytes = max;
	*min_bytes = min;
	*dirs = (unsigned)d;
	return 0;
}
