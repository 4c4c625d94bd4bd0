/* SPDX-License-Identifier: GPL-2.0 */
/*
 * command.h - the COMMAND that 'gotrace record' runs while it records
 */
#ifndef GOTRACE_COMMAND_H
#define GOTRACE_COMMAND_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct gt_command {
	pid_t pid;		/* running child, or 0 (none, or reaped) */
	int status;		/* wait status once reaped */
	bool ran;		/* exec succeeded */
	int go_fd;		/* forked, held: write a byte to let it exec */
	int err_fd;		/* errno of a failed exec */
	const char *name;
};

/*
 * fork a child that waits before it execs @argv: its pid is known (to
 * filter on it) before it runs anything.  Returns 0, or -1 after saying
 * why.  Then gt_command_exec() lets it go, or gt_command_cancel() makes
 * it exit without running anything.
 */
int gt_command_fork(struct gt_command *c, char **argv, const sigset_t *mask,
		    bool stdout_to_stderr);
int gt_command_exec(struct gt_command *c);
void gt_command_cancel(struct gt_command *c);

/*
 * fork and exec @argv with the signal mask @mask.  With @stdout_to_stderr
 * the command's stdout is gotrace's stderr (the trace is on stdout).
 * Returns 0, or -1 after printing why (the exec failed: not found...).
 */
int gt_command_start(struct gt_command *c, char **argv, const sigset_t *mask,
		     bool stdout_to_stderr);

/* Collect the exit status if the child exited (or wait for it: @block). */
void gt_command_reap(struct gt_command *c, bool block);

/* Shell-style exit code: the exit status, or 128 + signal. */
int gt_command_exit_code(const struct gt_command *c);

#endif /* GOTRACE_COMMAND_H */
