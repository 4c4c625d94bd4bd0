// SPDX-License-Identifier: GPL-2.0
/*
 * child.c - the child process that runs the COMMAND of 'gotrace record'
 *
 * The child reports a failed exec through a close-on-exec pipe, so
 * "command not found" is an error of gotrace before any waiting, not an
 * exit status 127 found later.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "util.h"

/*
 * The child: wait for the go-ahead on @go (EOF: give up silently), then
 * exec; on failure send errno on @errfd.
 */
__attribute__((noreturn))
static void child_run(char **argv, const sigset_t *mask, bool stdout_to_stderr,
		      int go, int errfd)
{
	ssize_t n;
	char b;
	int err;

	/* gotrace's handlers are not COMMAND's: the defaults until exec. */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	do {
		n = read(go, &b, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);
	if (stdout_to_stderr)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	execvp(argv[0], argv);
	err = errno;
	n = write(errfd, &err, sizeof(err));
	(void)n;
	_exit(127);
}

int gt_child_fork(struct gt_child *c, char **argv, const sigset_t *mask,
		    bool stdout_to_stderr)
{
	int go[2], efd[2];

	*c = (struct gt_child){ .go_fd = -1, .err_fd = -1 };
	if (pipe2(go, O_CLOEXEC)) {
		gt_err("pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(efd, O_CLOEXEC)) {
		gt_err("pipe: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		gt_err("fork: %s", strerror(errno));
		c->pid = 0;
		close(go[0]);
		close(go[1]);
		close(efd[0]);
		close(efd[1]);
		return -1;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(efd[0]);
		child_run(argv, mask, stdout_to_stderr, go[0], efd[1]);
	}
	close(go[0]);
	close(efd[1]);
	c->go_fd = go[1];
	c->err_fd = efd[0];
	c->name = argv[0];
	return 0;
}

int gt_child_exec(struct gt_child *c)
{
	ssize_t n;
	int err = 0;

	do {
		n = write(c->go_fd, "x", 1);
	} while (n < 0 && errno == EINTR);
	close(c->go_fd);
	c->go_fd = -1;
	do {
		n = read(c->err_fd, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == sizeof(err)) {
		gt_err("cannot run '%s': %s", c->name, strerror(err));
		gt_child_reap(c, true);
		return -1;
	}
	c->ran = true;
	return 0;
}

void gt_child_cancel(struct gt_child *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	gt_child_reap(c, true);
}

int gt_child_start(struct gt_child *c, char **argv, const sigset_t *mask,
		     bool stdout_to_stderr)
{
	if (gt_child_fork(c, argv, mask, stdout_to_stderr))
		return -1;
	return gt_child_exec(c);
}

void gt_child_reap(struct gt_child *c, bool block)
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

int gt_child_exit_code(const struct gt_child *c)
{
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return GT_EXIT_FAIL;
}

bool gt_child_findable(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(cmd, '/'))
		return !access(cmd, X_OK);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		struct stat st;

		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path,
			     cmd) < (int)sizeof(buf) &&
		    !stat(buf, &st) && S_ISREG(st.st_mode) &&
		    !access(buf, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}
