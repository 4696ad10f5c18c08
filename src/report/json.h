/*
 * JSON, the canonical file format of a result (DESIGN.md, "Results model").
 * Written and read with json-c only; never printed by hand.
 */
#ifndef FSB_REPORT_JSON_H
#define FSB_REPORT_JSON_H
#include <stddef.h>
#include <stdio.h>

#include "report/result.h"

struct json_object;

/* Largest file fsb_json_load reads; a result is a few kilobytes. */
#define FSB_JSON_MAX_BYTES ((size_t)64 << 20)

/*
 * Build the JSON document of r. NULL strings are left out, non-finite
 * numbers are written as 0 (JSON has no NaN). Returns a new object the
 * caller releases with json_object_put, or NULL with errno = ENOMEM.
 */
struct json_object *fsb_json_from_result(const struct fsb_result *r);

/*
 * Read a document that may come from anyone: checks every type, refuses a
 * missing format_version/tool/kind/tests, tool other than "fsbench", a
 * format_version newer than this build reads, negative or non-finite
 * numbers and absurdly large arrays. Keys it does not know are ignored so
 * newer files with added keys still load. Values are taken as stored
 * (median, min, max, cv are not recomputed); "noisy" is derived from cv.
 * Figures that disagree are refused, naming the key: a test's min above
 * its max, its median or a run outside them, a latency p50 above its p99
 * or p99 above its p999, a run's start_ns after its end_ns, a second
 * test with one id, a negative count among fsbench's own params
 * ("tests[1].min is greater than tests[1].max", "tests[2].id \"write\" is
 * also tests[0].id").
 * out is overwritten: on success the caller owns it (fsb_result_release);
 * on failure it is left empty. Returns 0, -EINVAL with a short reason in
 * why ("tests[2].runs is not an array"; a document that is no object:
 * "not an fsbench result: the document is a number"), or -ENOMEM.
 * Prints nothing.
 */
int fsb_json_to_result(struct json_object *o, struct fsb_result *out, char *why, size_t why_len);

/*
 * Read and parse a JSON file strictly (one document, nothing after it; a
 * cut-short file is "truncated JSON"), at most FSB_JSON_MAX_BYTES. Returns
 * the document (caller puts it), or NULL with errno set after describing
 * the failure once, naming the file. It does not check that the document
 * is an fsbench result: fsb_json_to_result does.
 */
struct json_object *fsb_json_read(const char *path);

/*
 * Parse len bytes of buf as fsb_json_read parses a file's content: one
 * document, strictly, nothing after it. Returns the document (caller
 * puts it), or NULL with a short reason in why ("truncated JSON", "not
 * valid JSON (... at byte N)", and for the valid document null, which
 * json-c cannot return as an object, "not an fsbench result: the document
 * is null"). A number or literal ending the input is complete ("42" is a
 * number, not "truncated JSON"). An integer json-c would clamp, outside
 * INT64_MIN..UINT64_MAX, is refused naming its key ("host.ram_bytes is out
 * of range (an integer above 2^64-1)"); so is a key given twice in one
 * object of a document whose tool is "fsbench" ("tests[0].min appears
 * twice"; json-c would keep the last value). Prints nothing, touches no
 * file.
 */
struct json_object *fsb_json_parse(const char *buf, size_t len, char *why, size_t why_len);

/*
 * Make every string value in doc valid UTF-8, as every document fsbench
 * writes must be: a string holding bytes that are not part of valid UTF-8
 * gets U+FFFD for each of them (fsb_utf8_clean), and its exact bytes go
 * in base64 beside it, at its key plus "_bytes" in the same object
 * ("label" gets "label_bytes"), replacing what that key held. A string
 * in an array is only mended (no key to keep its bytes at; fsbench
 * writes none). Keys are left as they are: fsbench's own are ASCII and
 * the reader refuses another writer's that are not valid UTF-8. A valid
 * document is not changed. 0 or -ENOMEM.
 */
int fsb_json_utf8(struct json_object *doc);

/*
 * The string at key in obj as the writer had it: the bytes its
 * "<key>_bytes" holds when there is one (fsb_json_utf8), which must be
 * base64 of bytes without a NUL that give the string once mended; else
 * the string. 1 with *out (the caller frees), 0 when absent (or null),
 * -EINVAL with the reason in why naming path + key ("setups[0].label is
 * not a string", "setups[0].label_bytes is not the bytes of
 * setups[0].label"), or -ENOMEM. fsb_json_to_result reads every string
 * of a result so.
 */
int fsb_json_get_text(struct json_object *obj, const char *path, const char *key, char **out,
		      char *why, size_t why_len);

/* Print a document pretty, without escaped slashes, plus a newline, after
 * fsb_json_utf8. 0, -ENOMEM or -EIO. */
int fsb_json_print(FILE *out, struct json_object *doc);

/*
 * Load a result file (at most FSB_JSON_MAX_BYTES). On failure says once
 * "cannot read '<path>': <why>" with fsb_err and returns -EINVAL (not a
 * valid result) or -errno (cannot read the file). out as above.
 */
int fsb_json_load(const char *path, struct fsb_result *out);

/* The "json" view: the document pretty-printed plus a newline. 0 or -errno. */
int fsb_json_write(FILE *out, const struct fsb_result *r);

#endif
