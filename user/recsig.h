/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recsig.h - the signals of a recording, the same for both backends
 *
 * The first SIGINT, SIGTERM or SIGHUP stops the recording: the trace
 * still gets its end.  A second one aborts at once, from the handler,
 * saying where the incomplete output stays (exit 128 + the signal).
 * Once the trace is complete and its user frames are being named, the
 * second one ends the naming instead, and the complete trace stays.  A
 * stop signal another process sent (kill, not the terminal, which
 * signals the whole foreground job) is passed on to COMMAND, so that
 * 'kill -INT' of gotrace does what Ctrl-C does.  SIGUSR2 ('gotrace stop'
 * of a BPF session) stops the recording as the module's stop does: it
 * is not passed on and never aborts.  SIGUSR1 asks for a --flight
 * snapshot, and is otherwise ignored: it never kills a recording.
 */
#ifndef GOTRACE_RECSIG_H
#define GOTRACE_RECSIG_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* The signal 'gotrace stop' sends a BPF recorder. */
#define GT_STOP_SIGNAL	SIGUSR2

/*
 * Handle the recording's signals; with @block, keep them blocked but
 * where the caller opens them (the mask before in *@old, for ppoll()).
 */
void gt_recsig_install(bool block, sigset_t *old);
/* From now on the default actions again, the mask @old (NULL: none). */
void gt_recsig_restore(const sigset_t *old);
/* What a second stop signal prints, before it is sent. */
void gt_recsig_abort_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
struct gt_output;
/* The abort message of a recording into @o (output.h). */
void gt_recsig_abort_output(const struct gt_output *o);
/*
 * The trace @path is complete and its user frames are named now, in this
 * process (record_sym.h): a stop signal says so, instead of stopping the
 * reading that has ended, and the second one ends the naming, removing
 * its temporary file (gt_output_tmp_now()): @path stays, complete, its
 * frames unnamed.  Unblocks the signals, which the module's recorder
 * opens only in its ppoll().
 */
void gt_recsig_naming(const char *path);
/* Nothing printed with @quiet; a progress line to erase with @tty. */
void gt_recsig_say(bool quiet, bool tty);
/* The COMMAND to pass stop signals on to (0: none). */
void gt_recsig_child(pid_t pid);

/* A stop was asked for (a stop signal or SIGUSR2). */
bool gt_recsig_stopping(void);
/* Why, for the summary: "gotrace stop" (SIGUSR2 alone) or "interrupted". */
const char *gt_recsig_why(void);
/* Whether a SIGUSR1 (a SIGCHLD) came since the last call. */
bool gt_recsig_take_snapshot(void);
bool gt_recsig_take_sigchld(void);

#endif /* GOTRACE_RECSIG_H */
