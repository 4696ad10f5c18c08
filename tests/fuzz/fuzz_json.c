/*
 * The JSON result reader (report/json.c) from a buffer: parse strictly,
 * read into a result, write that result back as JSON (as the writer
 * prints it: strings made valid UTF-8, their bytes kept beside) and read
 * it again. The writer's text must be valid UTF-8 and the reader must
 * accept whatever the writer writes.
 */
#include "fuzz.h"
#include "report/json.h"
#include "report/result.h"
#include "util/text.h"

#include <errno.h>
#include <json-c/json.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *doc, *back, *again;
	struct fsb_result r, r2;
	char why[256];
	const char *text;
	int rc;

	doc = fsb_json_parse((const char *)data, size, why, sizeof(why));
	if (!doc)
		return 0;
	rc = fsb_json_to_result(doc, &r, why, sizeof(why));
	json_object_put(doc);
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (rc)
		return 0;
	back = fsb_json_from_result(&r);
	FUZZ_ASSERT(back);
	FUZZ_ASSERT(fsb_json_utf8(back) == 0);
	text = json_object_to_json_string_ext(back, JSON_C_TO_STRING_PLAIN);
	FUZZ_ASSERT(text && fsb_utf8_valid(text));
	again = fsb_json_parse(text, strlen(text), why, sizeof(why));
	FUZZ_ASSERT(again);
	rc = fsb_json_to_result(again, &r2, why, sizeof(why));
	if (rc)
		fprintf(stderr, "re-read refused: %s\n", why);
	FUZZ_ASSERT(rc == 0);
	FUZZ_ASSERT(r2.ntests == r.ntests && r2.nparams == r.nparams);
	fsb_result_release(&r2);
	json_object_put(again);
	json_object_put(back);
	fsb_result_release(&r);
	return 0;
}
