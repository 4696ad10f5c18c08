/*
 * What every plan has. A plan is a plain struct that says what a command
 * will do (src/cli/ turns argv or a matrix line into one, purely); its
 * executor in src/core/ does it. These are the pieces all plans share.
 */
#ifndef FSB_CORE_PLAN_H
#define FSB_CORE_PLAN_H
#include <stdbool.h>
#include <stdint.h>

/* --progress: progress on stderr (json: one JSON object per line). */
enum fsb_progress {
	FSB_PROGRESS_AUTO,
	FSB_PROGRESS_ALWAYS,
	FSB_PROGRESS_NEVER,
	FSB_PROGRESS_JSON,
};

/* "auto", "always", "never", "json". */
const char *fsb_progress_name(enum fsb_progress p);

/* The setting called name. 0, or -EINVAL. Pure. */
int fsb_progress_parse(const char *name, enum fsb_progress *p);

/* "auto|always|never|json" (util/vocab.h). Static. */
const char *fsb_progress_names(void);

/* Whether to show progress for this setting (auto: stderr is a terminal;
 * json: always). */
bool fsb_progress_enabled(enum fsb_progress p);

/* A seed for runs without --seed (time and pid; recorded in the result). */
uint64_t fsb_default_seed(void);

#endif
