/* Sizes (util/size.c): parse; what parses formats back to the same value. */
#include "fuzz.h"
#include "util/size.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), buf[64];
	uint64_t v = 0, again = 0;
	int rc = fsb_size_parse(s, &v);

	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (!rc) {
		/* The exact form ("512M") is what bonnie++ CSV and headers show. */
		fsb_size_format_exact(v, buf, sizeof(buf));
		FUZZ_ASSERT(fsb_size_parse(buf, &again) == 0 && again == v);
		fsb_size_format_human(v, buf, sizeof(buf));
		FUZZ_ASSERT(strlen(buf) < sizeof(buf));
	}
	free(s);
	return 0;
}
