/*
 * bonnie++ CSV (report/import.h) from a buffer: read into results, each
 * checked against what the reader promises, then the whole input loaded
 * as `fsbench compare` loads a file (judged by its content, so any kind of
 * input takes its path) and put through compare's views and the HTML
 * report, checked as fuzz.h says.
 */
#include "fuzz.h"
#include "report/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fsb_compare_set set = { 0 };
	struct fsb_import_list l;
	char why[256];
	size_t at;
	int rc;

	fsb_warn_set_quiet(1);
	rc = fsb_import_bonnie((const char *)data, size, "fuzz.csv", &l, why, sizeof(why));
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	FUZZ_ASSERT(!rc || (!l.n && !l.docs));
	FUZZ_ASSERT(rc || (l.n > 0 && l.n <= FSB_IMPORT_MAX_LINES));
	FUZZ_ASSERT(strlen(why) < sizeof(why));
	for (size_t i = 0; i < l.n; i++) {
		fuzz_check_imported(&l.docs[i], false);
		FUZZ_ASSERT(l.docs[i].setup.label);
	}
	fsb_import_list_release(&l);
	/* Sniffing is pure and total: any bytes are some kind. */
	(void)fsb_import_sniff((const char *)data, size, &at);
	FUZZ_ASSERT(at <= size);
	rc = fsb_compare_set_add_buffer(&set, (const char *)data, size, "fuzz.csv", why,
					sizeof(why));
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ENOMEM || rc == -E2BIG);
	FUZZ_ASSERT(!rc || !set.n);
	fuzz_compare_views(&set);
	fsb_compare_set_release(&set);
	return 0;
}
