#include "util/signals.h"

#include <errno.h>
#include <string.h>
#include <sys/time.h>

volatile sig_atomic_t fsb_stop_signal;
volatile sig_atomic_t fsb_progress_due;

static const int stop_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF,
};
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

int fsb_signal_stops(int signo)
{
	for (size_t i = 0; i < NSTOP; i++)
		if (stop_signals[i] == signo)
			return 1;
	return 0;
}

static void on_tick(int signo);
static void on_wake(int signo);

static void on_stop(int signo)
{
	if (!fsb_stop_signal)
		fsb_stop_signal = signo;
}

static int install_stop(int signo)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	/* Block the other stop signals while one is handled, so that two sent
	 * together are handled in order and the first one decides the exit. */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	return sigaction(signo, &sa, NULL) < 0 ? -errno : 0;
}

int fsb_signals_install(void)
{
	int err;

	for (size_t i = 0; i < NSTOP; i++)
		if ((err = install_stop(stop_signals[i])))
			return err;
	/* A closed output pipe is a write error we report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	/* A file over `ulimit -f` is a write error (EFBIG) we name in one line,
	 * not a death by SIGXFSZ with no word and scratch left behind. */
	signal(SIGXFSZ, SIG_IGN);
	return 0;
}

void fsb_signals_default(void)
{
	struct sigaction sa, old;
	sigset_t none;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	/* Every signal we catch or ignore; handlers others installed (a
	 * sanitizer's SIGSEGV report) stay. Numbers the C library reserves
	 * just answer EINVAL. */
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &old) < 0)
			continue;
		if (old.sa_handler == SIG_IGN || old.sa_handler == on_stop ||
		    old.sa_handler == on_tick || old.sa_handler == on_wake)
			(void)sigaction(sig, &sa, NULL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static void on_tick(int signo)
{
	(void)signo;
	fsb_progress_due = 1;
}

int fsb_progress_timer_start(unsigned interval_ms)
{
	struct sigaction sa;
	struct itimerval it;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0)
		return -errno;
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_sec = interval_ms / 1000;
	it.it_interval.tv_usec = (interval_ms % 1000) * 1000;
	it.it_value = it.it_interval;
	if (setitimer(ITIMER_REAL, &it, NULL) < 0)
		return -errno;
	return 0;
}

void fsb_progress_timer_stop(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	/* A tick still pending must not be taken for a stop: ignoring
	 * SIGALRM discards it, then the stop handler comes back. */
	signal(SIGALRM, SIG_IGN);
	install_stop(SIGALRM);
	fsb_progress_due = 0;
}

static void on_wake(int signo)
{
	/* Nothing: being delivered is the point (EINTR in the thread). */
	(void)signo;
}

int fsb_signals_wake_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wake;
	sigemptyset(&sa.sa_mask);
	return sigaction(FSB_WAKE_SIGNAL, &sa, NULL) < 0 ? -errno : 0;
}

int fsb_signals_wake(pthread_t t)
{
	return -pthread_kill(t, FSB_WAKE_SIGNAL);
}
