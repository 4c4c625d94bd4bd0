// SPDX-License-Identifier: GPL-2.0
/*
 * recsig.c - the signals of a recording (recsig.h)
 *
 * The handler only sets flags, passes a stop signal on to COMMAND, and on
 * the second stop signal writes a message prepared in advance and exits:
 * all async-signal-safe.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "recsig.h"
#include "util.h"

static volatile sig_atomic_t nstops;	/* SIGINT, SIGTERM, SIGHUP seen */
static volatile sig_atomic_t stop_asked;	/* SIGUSR2: gotrace stop */
static volatile sig_atomic_t snap_asked;	/* SIGUSR1 */
static volatile sig_atomic_t sigchld;
static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t quiet;
static volatile sig_atomic_t tty;		/* a progress line may show */
static volatile sig_atomic_t naming;	/* the trace is complete */
static char naming_msg[PATH_MAX + 128];		/* set before naming */
static size_t naming_len;
static char abort_msg[PATH_MAX + 128];		/* set before any signal */
static size_t abort_len;

static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1,
			       GT_STOP_SIGNAL };
#define NR_SIGNALS	(sizeof(signals) / sizeof(signals[0]))

static void say(const char *msg, size_t len)
{
	ssize_t n;

	if (tty)
		n = write(STDERR_FILENO, "\r\033[K", 4);
	n = write(STDERR_FILENO, msg, len);
	(void)n;
}

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	static const char stopping[] = GT_NAME
		": stopping, reading the end of the trace (again to abort)\n";
	int saved_errno = errno;

	(void)ctx;
	if (sig == SIGCHLD)
		sigchld = 1;
	else if (sig == SIGUSR1)
		snap_asked = 1;
	else if (sig == GT_STOP_SIGNAL)
		stop_asked = 1;
	if (sig == SIGCHLD || sig == SIGUSR1 || sig == GT_STOP_SIGNAL)
		return;
	/* si_code <= 0: SI_USER, SI_QUEUE, SI_TKILL, sent by a process. */
	if (child_pid > 0 && si->si_code <= 0)
		kill((pid_t)child_pid, sig);
	if (++nstops < 2) {
		if (!quiet && naming)
			say(naming_msg, naming_len);
		else if (!quiet)
			say(stopping, sizeof(stopping) - 1);
		errno = saved_errno;
		return;
	}
	/* The naming's copy of the complete trace, not the trace. */
	if (naming) {
		const char *tmp = gt_output_tmp_now();

		if (tmp)
			unlink(tmp);
	}
	say(abort_msg, abort_len);
	_exit(128 + sig);
}

void gt_recsig_install(bool block, sigset_t *old)
{
	/* The handler blocks none: two that arrive together both count. */
	struct sigaction sa = { .sa_sigaction = on_signal,
				.sa_flags = SA_SIGINFO };
	sigset_t set;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	for (size_t i = 0; i < NR_SIGNALS; i++)
		sigaddset(&set, signals[i]);
	sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, old);
	for (size_t i = 0; i < NR_SIGNALS; i++)
		sigaction(signals[i], &sa, NULL);
	/* A closed pipe on stdout is a write error (EPIPE), not a kill. */
	signal(SIGPIPE, SIG_IGN);
}

void gt_recsig_restore(const sigset_t *old)
{
	for (size_t i = 0; i < NR_SIGNALS; i++)
		signal(signals[i], signals[i] == SIGUSR1 ? SIG_IGN : SIG_DFL);
	if (old)
		sigprocmask(SIG_SETMASK, old, NULL);
}

void gt_recsig_abort_msg(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(abort_msg, sizeof(abort_msg), fmt, ap);
	va_end(ap);
	abort_len = n > 0 && (size_t)n < sizeof(abort_msg) ? (size_t)n :
		    strlen(abort_msg);
}

void gt_recsig_abort_output(const struct gt_output *o)
{
	if (o->tmp)
		gt_recsig_abort_msg("%s: aborted: the incomplete trace stays in %s\n",
				    GT_NAME, o->tmp);
	else
		gt_recsig_abort_msg("%s: aborted: the trace on %s is incomplete\n",
				    GT_NAME, gt_output_name(o));
}

void gt_recsig_naming(const char *path)
{
	sigset_t set;
	int n;

	n = snprintf(naming_msg, sizeof(naming_msg),
		     "%s: the trace in %s is complete; naming its user frames (again to stop, leaving them unnamed)\n",
		     GT_NAME, path);
	naming_len = n > 0 && (size_t)n < sizeof(naming_msg) ? (size_t)n :
		     strlen(naming_msg);
	gt_recsig_abort_msg("%s: stopped naming the user frames: the trace in %s is complete, its user frames unnamed ('gotrace symbolize %s %s' names them)\n",
			    GT_NAME, path, path, path);
	naming = 1;
	sigemptyset(&set);
	for (size_t i = 0; i < NR_SIGNALS; i++)
		sigaddset(&set, signals[i]);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

void gt_recsig_say(bool q, bool t)
{
	quiet = q;
	tty = t;
}

void gt_recsig_child(pid_t pid)
{
	child_pid = pid;
}

bool gt_recsig_stopping(void)
{
	return nstops || stop_asked;
}

const char *gt_recsig_why(void)
{
	return stop_asked && !nstops ? "gotrace stop" : "interrupted";
}

bool gt_recsig_take_snapshot(void)
{
	bool asked = snap_asked;

	snap_asked = 0;
	return asked;
}

bool gt_recsig_take_sigchld(void)
{
	bool seen = sigchld;

	sigchld = 0;
	return seen;
}
