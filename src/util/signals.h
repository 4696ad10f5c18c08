/*
 * Stop signals. Every fatal signal that can be caught and unwound from is
 * handled the same way: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
 * SIGALRM (while no progress timer owns it), SIGXCPU, SIGVTALRM and SIGPROF.
 * SIGXFSZ is ignored: a write over `ulimit -f` fails with EFBIG, reported. The handler only records the signal; long loops poll
 * fsb_stop_requested() and unwind through their normal cleanup, so scratch
 * files, children, mounts and loop devices are released by the same code
 * that releases them on success, and the exit status is 128 + signo.
 * SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT are left alone: after them
 * the process state cannot be trusted to unwind. SIGKILL cannot be caught:
 * what it leaves, `fsbench clean` removes (see util/marker.h).
 */
#ifndef FSB_UTIL_SIGNALS_H
#define FSB_UTIL_SIGNALS_H
#include <pthread.h>
#include <signal.h>

extern volatile sig_atomic_t fsb_stop_signal;

/* Install the handlers (no SA_RESTART: blocking calls return EINTR). */
int fsb_signals_install(void);

/* Non-zero once a stop signal arrived. */
static inline int fsb_stop_requested(void)
{
	return fsb_stop_signal != 0;
}

/* The signal that stopped us (0 if none); exit status is 128 + it. */
static inline int fsb_stop_signo(void)
{
	return (int)fsb_stop_signal;
}

/* Whether signo is one of the stop signals above. */
int fsb_signal_stops(int signo);

/*
 * Progress ticks: a SIGALRM interval timer (SA_RESTART, so it never breaks
 * a transfer) sets fsb_progress_due; the measuring loop notices it on its
 * next operation and prints outside the handler. While it runs, SIGALRM
 * is a tick, not a stop; fsb_progress_timer_stop gives SIGALRM back to
 * the stop handler.
 */
extern volatile sig_atomic_t fsb_progress_due;
int fsb_progress_timer_start(unsigned interval_ms);
void fsb_progress_timer_stop(void);

/*
 * Waking threads: a stop signal is delivered to one thread of the process,
 * and another one blocked in a system call (waitpid, an io_uring wait)
 * would not notice it. fsb_signals_wake_install() gives FSB_WAKE_SIGNAL
 * (SIGURG: ignored by default, no stop signal) a handler that does
 * nothing, without SA_RESTART, so that fsb_signals_wake(t) makes a call
 * blocked in thread t return EINTR. Both return 0 or -errno.
 */
#define FSB_WAKE_SIGNAL SIGURG
int fsb_signals_wake_install(void);
int fsb_signals_wake(pthread_t t);

/*
 * Default dispositions for every signal and an empty signal mask: for a
 * forked child before it works or execs (an ignored signal, such as our
 * SIGPIPE, would survive exec). Async-signal-safe.
 */
void fsb_signals_default(void);

#endif
