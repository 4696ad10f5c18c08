#include "util/signals.h"

#include <errno.h>
#include <string.h>
#include <sys/time.h>

volatile sig_atomic_t fsb_stop_signal;
volatile sig_atomic_t fsb_progress_due;

static void on_stop(int signo)
{
	if (!fsb_stop_signal)
		fsb_stop_signal = signo;
}

int fsb_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	/* Block the other stop signals while one is handled, so that two sent
	 * together are handled in order and the first one decides the exit. */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0 ||
	    sigaction(SIGHUP, &sa, NULL) < 0)
		return -errno;
	/* A closed output pipe is a write error we report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

void fsb_signals_default(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGALRM, SIG_IGN);
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
	signal(SIGALRM, SIG_IGN);
	fsb_progress_due = 0;
}
