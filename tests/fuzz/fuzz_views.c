/*
 * Every view of parsed results, in memory: a JSON document (a run or
 * lifecycle result, or a matrix of them) is read as `fsbench compare` and
 * `fsbench report` read a file, then rendered by each writer and by the
 * HTML report into open_memstream buffers. Asserted:
 *  - HTML: every '<' starts a tag of the writer's own fixed list, and no
 *    tag has an attribute outside quotes beginning with "on" (so no data
 *    became markup);
 *  - text views: no control character but '\n' (and '\t', which the
 *    lifecycle view uses), no C1 control, and valid UTF-8.
 */
#include "fuzz.h"
#include "core/error.h"
#include "report/compare.h"
#include "report/html.h"
#include "report/json.h"
#include "report/writer.h"
#include "util/text.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>

static const char *const tags[] = {
	"!DOCTYPE", "html", "head", "meta", "title", "style", "body", "main", "header",
	"h1", "h2", "h3", "p", "strong", "em", "code", "dl", "dt", "dd", "div", "table",
	"thead", "tbody", "tr", "th", "td", "span", "section", "figure", "svg", "g",
	"text", "tspan", "line", "rect", "path", "ul", "li", "footer", NULL,
};

static bool known_tag(const char *p, size_t n)
{
	for (size_t i = 0; tags[i]; i++)
		if (strlen(tags[i]) == n && !strncmp(tags[i], p, n))
			return true;
	return false;
}

static void check_html(const char *page, size_t len)
{
	FUZZ_ASSERT(strlen(page) == len);   /* no NUL in the page */
	for (const char *lt = strchr(page, '<'); lt; lt = strchr(lt + 1, '<')) {
		const char *name = lt + 1 + (lt[1] == '/'), *gt;
		size_t n = strspn(name, "!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					"0123456789");
		bool quoted = false;

		FUZZ_ASSERT(known_tag(name, n));
		gt = strchr(name, '>');
		FUZZ_ASSERT(gt);
		for (const char *p = name + n; p < gt; p++) {
			if (*p == '"')
				quoted = !quoted;
			FUZZ_ASSERT(*p != '<');
			if (!quoted && (p[0] == ' ' && (p[1] == 'o' || p[1] == 'O') &&
					(p[2] == 'n' || p[2] == 'N')))
				FUZZ_ASSERT(!"an attribute starting with 'on'");
		}
		FUZZ_ASSERT(!quoted);
	}
}

static void check_text(const char *out, size_t len, const char *view)
{
	/* A view may print a NUL nowhere: each byte up to len is looked at. */
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)out[i];
		size_t n;

		if (c == '\n' || c == '\t') {
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(stderr, "view %s: control byte 0x%02x at %zu\n", view, c, i);
			abort();
		}
		n = fsb_utf8_len(out + i);
		if (!n || (n == 2 && c == 0xc2 && (unsigned char)out[i + 1] < 0xa0)) {
			fprintf(stderr, "view %s: invalid UTF-8 or C1 at %zu\n", view, i);
			abort();
		}
		i += n;
	}
}

/* Render with fn into memory; returns the buffer (caller frees). */
static char *render(int (*fn)(FILE *, const struct fsb_result *), const struct fsb_result *r,
		    size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int rc;

	FUZZ_ASSERT(f);
	rc = fn(f, r);
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	FUZZ_ASSERT(fclose(f) == 0);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const views[] = { "text", "bonnie", "bonnie++", "lifecycle", "csv" };
	struct fsb_compare_set set = { 0 };
	struct json_object *doc;
	char why[256], *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	fsb_warn_set_quiet(1);
	doc = fsb_json_parse((const char *)data, size, why, sizeof(why));
	if (!doc)
		return 0;
	rc = fsb_compare_set_add_json(&set, doc, "fuzz.json", why, sizeof(why));
	json_object_put(doc);
	if (rc) {
		fsb_compare_set_release(&set);
		return 0;
	}
	for (size_t i = 0; i < set.n; i++) {
		for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
			const struct fsb_writer *w = fsb_writer_find(views[v]);

			FUZZ_ASSERT(w);
			buf = render(w->write, set.docs[i], &len);
			check_text(buf, len, views[v]);
			free(buf);
		}
	}
	f = open_memstream(&buf, &len);
	FUZZ_ASSERT(f);
	rc = fsb_html_write(f, fsb_compare_set_docs(&set), fsb_compare_set_labels(&set), set.n);
	FUZZ_ASSERT(fclose(f) == 0);
	/* -EINVAL only for more distinct tests than a table takes (a markup
	 * format that is not numeric would be a bug in the writer). */
	FUZZ_ASSERT(rc == 0 || rc == -ENOMEM ||
		    (rc == -EINVAL && strstr(fsb_err_last(), "distinct tests")));
	if (!rc)
		check_html(buf, len);
	free(buf);
	fsb_compare_set_release(&set);
	return 0;
}
