/*
 * Other tools' results read into the result model, so that `compare` and
 * `report` put them beside fsbench's: bonnie++ CSV lines (the 1.03 layout
 * and the 1.9x layouts, 1.96/1.97 and the 1.98 one bonnie++ 2.00a
 * writes) and fio's `--output-format=json` output. What a file is, is
 * decided by its content, never by its name.
 *
 * The readers are as strict as report/json.c's: the files come from
 * anyone, every field is checked (types, numbers, sizes), and what does
 * not fit is refused with a reason naming the place ("line 3: field 11
 * (write K/sec) is not a number: '12x'", "jobs[1].read.iops is not a
 * number"). They print nothing (apart from fsb_warn for what they leave
 * out on purpose), touch no file and allocate in proportion to the input.
 *
 * An imported result is a "run" document whose tool names the other tool
 * ("bonnie++ 2.00a", "fio 3.33"), whose source says where it came from
 * ("bonnie++ 1.03 CSV, line 3 of old.csv"), and whose tests have one run
 * each (no spread: compare never calls a difference against it
 * significant). bonnie++'s "+++++" is a test with not_measured set, never
 * a zero; an empty bonnie++ field is a test that did not run (absent).
 */
#ifndef FSB_REPORT_IMPORT_H
#define FSB_REPORT_IMPORT_H
#include <stdbool.h>
#include <stddef.h>

#include "report/result.h"

struct json_object;

/* Far more result lines than anyone keeps in one file; bounds the cost. */
#define FSB_IMPORT_MAX_LINES 1024
/* The longest bonnie++ line read: 50 fields of a few bytes and a name. */
#define FSB_IMPORT_MAX_LINE 4096

/* What a file holds, judged by its content. */
enum fsb_import_kind {
	FSB_IMPORT_UNKNOWN, /* none of the below */
	FSB_IMPORT_JSON,    /* a JSON document: fsbench's own or fio's */
	FSB_IMPORT_FIO,	    /* fio's JSON after lines of text (fio's "note: ..." lines) */
	FSB_IMPORT_BONNIE,  /* bonnie++ CSV lines */
};

/*
 * Judge len bytes of buf: JSON when the first non-blank byte starts a
 * JSON value ('{', '[', a digit, '-', '"', true, false, null); bonnie++
 * CSV when the first line that is not blank, a '#' comment or a bonnie++
 * header line has a bonnie++ shape (27 fields; 48 fields starting
 * "1.96," or "1.97,"; 50 starting "1.98,"; or starts with one of those
 * format tags, so that a broken line is refused as bonnie++'s, naming
 * what is wrong) or when such a header line is there; fio when text lines
 * are followed by a line starting with '{' (*json_at is then the offset
 * of that '{'; fio's own output in JSON mode begins with such notes).
 * *json_at is 0 otherwise. Pure.
 */
enum fsb_import_kind fsb_import_sniff(const char *buf, size_t len, size_t *json_at);

/* The length of a UTF-8 byte order mark an editor may have put first in
 * buf (3), or 0. Pure. */
size_t fsb_import_bom(const char *buf, size_t len);

/*
 * A short description of why buf is no result fsbench reads, for the
 * "cannot read 'F': ..." line: "not JSON (fsbench or fio) nor bonnie++
 * CSV: line 1 has 2 comma-separated fields (bonnie++ lines have 27, 48 or
 * 50)". Always NUL-terminates.
 */
void fsb_import_unknown_why(const char *buf, size_t len, char *why, size_t why_len);

/* Results read from one file: docs[0..n), owned. */
struct fsb_import_list {
	struct fsb_result *docs;
	size_t n;
};

/* Free every result and the array. Safe on a zeroed list. */
void fsb_import_list_release(struct fsb_import_list *l);

/*
 * Read bonnie++ CSV: each line one result, labelled with its name field
 * ("NAME (line N)" when several lines of the file share a name; "line N"
 * when the name is empty). Blank lines, '#' comments and bonnie++ header
 * lines ("format_version,bonnie_version,..." or "name,...") are skipped.
 * path names the file in each result's source. Figures: K/sec x 1024 ->
 * B/s, seeks and file tests /s -> ops/s, %CPU, latencies ("19351us",
 * "467ms", "2s") -> the test's latency max in microseconds; params from
 * the size, chunk, seeks, seekers and file fields, and char_io by version
 * ("stdio": 1.03's putc/getc; "syscall": 1.9x's and 2.00a's one-byte
 * write(2)/read(2)). On success out holds at
 * least one result (the caller owns them). Returns 0, -EINVAL with the
 * reason in why (naming the line and field), or -ENOMEM; out is empty on
 * failure.
 */
int fsb_import_bonnie(const char *buf, size_t len, const char *path, struct fsb_import_list *out,
		      char *why, size_t why_len);

/* True when doc is fio's JSON output: an object with a "fio version" key. */
bool fsb_import_is_fio(struct json_object *doc);

/*
 * Read fio's JSON output (fio 3.x) into one result: each job's read,
 * write or trim direction becomes a test. A sequential write job
 * (rw=write) is "write" and a sequential read job "read" (bandwidth,
 * B/s); randread and randwrite are "randread" and "randwrite" (IOPS,
 * ops/s), the ids of fsbench's own tests; any other job (randrw, rw,
 * trim, ...) gives rows "fio:JOB:read", "fio:JOB:write", "fio:JOB:trim"
 * (ops/s for random jobs, B/s otherwise), as does a job whose id an
 * earlier job of other work took (said with fsb_warn). Jobs alike in rw,
 * bs, iodepth, direct, numjobs, ioengine and size (a warm-up job and its
 * repeats) are one row whose runs are the jobs' figures in order, %CPU
 * and time their mean, latency and work the first job's; copies of one
 * job that ran at once (numjobs > 1, one entry each) are never runs. Latency: clat_ns's p50, p99,
 * p99.9 and max; %CPU: usr_cpu + sys_cpu. A job with a non-zero error, or
 * that moved no data, is left out (fsb_warn). Params: the jobs' bs,
 * iodepth, numjobs, ioengine, direct and size (one value when they agree,
 * else "JOB=value" for each), and the list of jobs. path names the file
 * in the source. Returns 0, -EINVAL with the reason in why, or -ENOMEM;
 * out is empty on failure, the caller's on success.
 */
int fsb_import_fio(struct json_object *doc, const char *path, struct fsb_result *out, char *why,
		   size_t why_len);

#endif
