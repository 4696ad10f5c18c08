/* --files N[:max[:min[:dirs]]] (util/filespec.c): parse; the limits hold. */
#include "fuzz.h"
#include "util/filespec.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	uint64_t files = 1, max = 2, min = 3;
	unsigned dirs = 4;
	int rc = fsb_files_spec_parse(s, &files, &max, &min, &dirs);

	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (!rc) {
		FUZZ_ASSERT(files <= 9999999 && dirs <= 99999 && min <= max);
	} else {
		/* Written only on success. */
		FUZZ_ASSERT(files == 1 && max == 2 && min == 3 && dirs == 4);
	}
	free(s);
	return 0;
}
