/*
 * fio's JSON output (report/import.h) from a buffer: parsed strictly,
 * read into a result checked against what the reader promises, then put
 * through compare's views and the HTML report beside itself, checked as
 * fuzz.h says.
 */
#include "fuzz.h"
#include "report/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fsb_compare_set set = { 0 };
	struct json_object *doc;
	struct fsb_result r;
	char why[256];
	int rc;

	fsb_warn_set_quiet(1);
	doc = fsb_json_parse((const char *)data, size, why, sizeof(why));
	if (!doc)
		return 0;
	rc = fsb_import_fio(doc, "fuzz.json", &r, why, sizeof(why));
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (!rc) {
		FUZZ_ASSERT(fsb_import_is_fio(doc));
		fuzz_check_imported(&r, true);
		fsb_result_release(&r);
	} else {
		FUZZ_ASSERT(!r.ntests && !r.tool && !r.source);
	}
	/* As compare loads it, twice: the second one relabelled. */
	for (int i = 0; i < 2; i++) {
		rc = fsb_compare_set_add_json(&set, doc, "fuzz.json", why, sizeof(why));
		FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ENOMEM || rc == -E2BIG);
	}
	json_object_put(doc);
	fuzz_compare_views(&set);
	fsb_compare_set_release(&set);
	return 0;
}
