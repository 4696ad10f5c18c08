/*
 * mkfs templates (device/mkfs.c): split into words, expand the device
 * placeholders, count the devices a template names. Pure functions: the
 * tool is never run here.
 */
#include "device/mkfs.h"
#include "fuzz.h"
#include "util/spawn.h"

#include <errno.h>

static const char *const devs[] = { "/dev/loop7", "/dev/loop8", "/dev/loop9" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), **words = NULL, **argv = NULL;
	const char *why = NULL;
	int n = fsb_words_split(s, &words, &why);

	if (n < 0) {
		FUZZ_ASSERT(n == -EINVAL && why && !words);
	} else {
		size_t count = 0;

		FUZZ_ASSERT(n >= 1 && words);
		while (words[count])
			count++;
		FUZZ_ASSERT(count == (size_t)n);
		for (size_t k = 1; k <= 3; k++) {
			int m = fsb_mkfs_expand(words, devs, k, &argv, &why);

			FUZZ_ASSERT(m >= 0 || m == -EINVAL || m == -ENOMEM);
			if (m >= 0) {
				FUZZ_ASSERT(argv && argv[m] == NULL);
				fsb_words_free(argv);
			}
			argv = NULL;
			m = fsb_mkfs_template_devices(s, k, &why);
			FUZZ_ASSERT(m <= (int)k);
		}
	}
	fsb_words_free(words);
	free(s);
	return 0;
}
