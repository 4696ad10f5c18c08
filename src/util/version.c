#include "util/version.h"

#include <stdio.h>
#include <string.h>

/* build/gen/commit.h, which the Makefile rewrites only when the commit
 * changes, so that only this file is rebuilt for a new commit. */
#include "commit.h"

#ifndef FSB_COMMIT
#define FSB_COMMIT ""
#endif

const char *fsb_version_commit(void)
{
	return FSB_COMMIT;
}

const char *fsb_version_line(void)
{
	static char line[128];
	const char *commit = FSB_COMMIT;
	size_t len = strlen(commit);
	static const char dirty[] = "-dirty";
	size_t dlen = sizeof(dirty) - 1;

	if (line[0])
		return line;
	if (!len)
		snprintf(line, sizeof(line), "fsbench %s", FSB_VERSION);
	else if (len > dlen && !strcmp(commit + len - dlen, dirty))
		/* Uncommitted changes: the commit alone does not say what was built. */
		snprintf(line, sizeof(line), "fsbench %s (git %.*s, dirty)", FSB_VERSION,
			 (int)(len - dlen), commit);
	else
		snprintf(line, sizeof(line), "fsbench %s (git %s)", FSB_VERSION, commit);
	return line;
}
