/* SPDX-License-Identifier: GPL-2.0 */
/*
 * child.h - the child process that runs the COMMAND of 'gotrace record'
 * (the subcommands themselves are declared in subcommands.h)
 */
#ifndef GOTRACE_CHILD_H
#define GOTRACE_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct gt_child {
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
 * why.  Then gt_child_exec() lets it go, or gt_child_cancel() makes
 * it exit without running anything.
 */
int gt_child_fork(struct gt_child *c, char **argv, const sigset_t *mask,
		    bool stdout_to_stderr);
int gt_child_exec(struct gt_child *c);
void gt_child_cancel(struct gt_child *c);

/*
 * fork and exec @argv with the signal mask @mask.  With @stdout_to_stderr
 * the command's stdout is gotrace's stderr (the trace is on stdout).
 * Returns 0, or -1 after printing why (the exec failed: not found...).
 */
int gt_child_start(struct gt_child *c, char **argv, const sigset_t *mask,
		     bool stdout_to_stderr);

/*
 * Whether @cmd names a program that exec would find: a path to an
 * executable file, or one in $PATH.
 */
bool gt_child_findable(const char *cmd);

/* Collect the exit status if the child exited (or wait for it: @block). */
void gt_child_reap(struct gt_child *c, bool block);

/* Shell-style exit code: the exit status, or 128 + signal. */
int gt_child_exit_code(const struct gt_child *c);

#endif /* GOTRACE_CHILD_H */
