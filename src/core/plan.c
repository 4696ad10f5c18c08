#include "core/plan.h"
#include "util/vocab.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const progress_names[] = {
	[FSB_PROGRESS_AUTO] = "auto",
	[FSB_PROGRESS_ALWAYS] = "always",
	[FSB_PROGRESS_NEVER] = "never",
	[FSB_PROGRESS_JSON] = "json",
};
#define NPROGRESS (sizeof(progress_names) / sizeof(progress_names[0]))

const char *fsb_progress_name(enum fsb_progress p)
{
	return (unsigned)p < NPROGRESS ? progress_names[p] : "?";
}

int fsb_progress_parse(const char *name, enum fsb_progress *p)
{
	for (unsigned i = 0; name && i < NPROGRESS; i++) {
		if (!strcmp(name, progress_names[i])) {
			*p = (enum fsb_progress)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *fsb_progress_names(void)
{
	static char names[32];

	if (!names[0])
		fsb_vocab_join(progress_names, NPROGRESS, names, sizeof(names));
	return names;
}

bool fsb_progress_enabled(enum fsb_progress p)
{
	return p == FSB_PROGRESS_ALWAYS || p == FSB_PROGRESS_JSON ||
	       (p == FSB_PROGRESS_AUTO && isatty(STDERR_FILENO));
}

uint64_t fsb_default_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 16) &
	       0xffffffffu;
}
