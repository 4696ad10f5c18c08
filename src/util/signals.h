/*
 * SIGINT/SIGTERM handling. The handler only records the signal; long loops
 * poll fsb_stop_requested() and unwind through their normal cleanup, so
 * scratch files, children, mounts and loop devices are released by the
 * same code that releases them on success.
 */
#ifndef FSB_UTIL_SIGNALS_H
#define FSB_UTIL_SIGNALS_H
#include <signal.h>

extern volatile sig_atomic_t fsb_stop_signal;

/* Install the handlers (no SA_RESTART: blocking calls return EINTR). */
int fsb_signals_install(void);

/* Non-zero once SIGINT or SIGTERM arrived. */
static inline int fsb_stop_requested(void) { return fsb_stop_signal != 0; }

/* The signal that stopped us (0 if none); exit status is 128 + it. */
static inline int fsb_stop_signo(void) { return (int)fsb_stop_signal; }

/*
 * Progress ticks: a SIGALRM interval timer (SA_RESTART, so it never breaks
 * a transfer) sets fsb_progress_due; the measuring loop notices it on its
 * next operation and prints outside the handler.
 */
extern volatile sig_atomic_t fsb_progress_due;
int fsb_progress_timer_start(unsigned interval_ms);
void fsb_progress_timer_stop(void);

/* Restore default dispositions (in forked children before they work). */
void fsb_signals_default(void);

#endif
