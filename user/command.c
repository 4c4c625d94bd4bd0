// SPDX-License-Identifier: GPL-2.0
/*
 * command.c - the COMMAND that 'gotrace record' runs while it records
 *
 * The child reports a failed exec through a close-on-exec pipe, so
 * "command not found" is an error of gotrace before any waiting, not an
 * exit status 127 found later.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command.h"
#include "util.h"

int gt_command_start(struct gt_command *c, char **argv, const sigset_t *mask,
		     bool stdout_to_stderr)
{
	int pfd[2], err = 0;
	ssize_t n;

	*c = (struct gt_command){ 0 };
	if (pipe2(pfd, O_CLOEXEC)) {
		gt_err("pipe: %s", strerror(errno));
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		gt_err("fork: %s", strerror(errno));
		c->pid = 0;
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (c->pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, mask, NULL);
		if (stdout_to_stderr)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(argv[0], argv);
		err = errno;
		n = write(pfd[1], &err, sizeof(err));
		(void)n;
		_exit(127);
	}
	close(pfd[1]);
	do {
		n = read(pfd[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == sizeof(err)) {
		gt_err("cannot run '%s': %s", argv[0], strerror(err));
		gt_command_reap(c, true);
		return -1;
	}
	c->ran = true;
	return 0;
}

void gt_command_reap(struct gt_command *c, bool block)
{
	pid_t pid;
	int st;

	if (!c->pid)
		return;
	do {
		pid = waitpid(c->pid, &st, block ? 0 : WNOHANG);
	} while (pid < 0 && errno == EINTR);
	if (pid == c->pid) {
		c->pid = 0;
		c->status = st;
	}
}

int gt_command_exit_code(const struct gt_command *c)
{
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return GT_EXIT_FAIL;
}
