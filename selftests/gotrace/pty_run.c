// SPDX-License-Identifier: GPL-2.0
/*
 * pty_run.c - run a command on a pseudo-terminal, as a user at a terminal
 * would (busybox has no 'script')
 *
 *   pty_run [-c TEXT] OUT COMMAND [ARGS...]
 *
 * COMMAND runs in a new session whose controlling terminal is the pty's
 * slave: its stdin, stdout and stderr are the terminal, its process group
 * is the foreground one.  What it writes to the terminal is copied into
 * OUT.  With -c TEXT, Ctrl-C is typed once TEXT has appeared: the
 * terminal sends SIGINT to the whole foreground job, as a real Ctrl-C.
 * Exits with COMMAND's status (128 + the signal if one killed it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* What is kept of the output to look for TEXT in. */
#define PTY_KEEP	(1 << 20)

static void die(const char *what)
{
	fprintf(stderr, "pty_run: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void child(const char *slave, char **argv)
{
	int fd;

	if (setsid() < 0)
		die("setsid");
	fd = open(slave, O_RDWR);
	if (fd < 0)
		die(slave);
	if (ioctl(fd, TIOCSCTTY, 0))
		die("TIOCSCTTY");
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
	execvp(argv[0], argv);
	die(argv[0]);
}

int main(int argc, char **argv)
{
	const char *text = NULL;
	char *seen, *slave;
	size_t len = 0;
	int master, out, st, arg = 1;
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		text = argv[2];
		arg = 3;
	}
	if (argc - arg < 2) {
		fprintf(stderr, "usage: pty_run [-c TEXT] OUT COMMAND [ARGS...]\n");
		return 2;
	}
	out = open(argv[arg], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		die(argv[arg]);
	seen = calloc(1, PTY_KEEP + 1);
	if (!seen)
		die("calloc");
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master))
		die("posix_openpt");
	slave = ptsname(master);
	if (!slave)
		die("ptsname");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(master);
		child(slave, argv + arg + 1);
	}
	/* Until every holder of the slave closed it: EIO (or end of file). */
	for (;;) {
		char buf[4096];
		ssize_t n = read(master, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (write(out, buf, (size_t)n) != n)
			die("write");
		if (!text)
			continue;
		if (len + (size_t)n > PTY_KEEP)
			len = 0;
		memcpy(seen + len, buf, (size_t)n);
		len += (size_t)n;
		seen[len] = '\0';
		/* The bytes may hold NULs: search what follows each. */
		for (size_t i = 0; i < len; i += strlen(seen + i) + 1) {
			if (strstr(seen + i, text)) {
				char intr = 3;	/* ^C, the default VINTR */

				if (write(master, &intr, 1) != 1)
					die("write ^C");
				text = NULL;
				break;
			}
		}
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
