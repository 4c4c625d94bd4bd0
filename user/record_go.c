// SPDX-License-Identifier: GPL-2.0
/*
 * record_go.c - gotrace record --go URL, --go-trace FILE (record_go.h)
 *
 * The fetch runs in a child process so that the recording loop never
 * waits on the network.  It ignores SIGINT: Ctrl-C in the terminal
 * stops the recording, while the program's trace still comes whole
 * (Go's handler sends it after the seconds asked for), and the merge
 * then covers the part the recording saw.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "go_merge.h"
#include "gofetch.h"
#include "record_go.h"
#include "util.h"

#define NS_PER_S	1000000000ULL

static char *with_suffix(const char *path, const char *suffix)
{
	size_t n = strlen(path) + strlen(suffix) + 1;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s", path, suffix);
	else
		gt_err("out of memory");
	return s;
}

int gt_recgo_check(struct gt_recgo *g, const char *out, uint64_t duration_ns,
		   bool cmd, bool rotating, bool flighting, bool go111)
{
	const char *opt = g->url ? "--go" : "--go-trace";

	if (!gt_recgo_on(g))
		return 0;
	if (g->url && g->trace) {
		gt_err("--go fetches the program's trace, --go-trace names the one it writes: one of them");
		return -1;
	}
	if (rotating || flighting) {
		gt_err("%s makes one merged trace: not with --%s", opt,
		       rotating ? "rotate" : "flight");
		return -1;
	}
	if (go111) {
		gt_err("%s: a Go program's trace is merged with a recording in the default format, not --format go1.11",
		       opt);
		return -1;
	}
	if (!strcmp(out, "-")) {
		gt_err("%s writes the merged trace and the recording beside it: name a file with -o",
		       opt);
		return -1;
	}
	if (g->url) {
		if (cmd) {
			gt_err("--go fetches the trace of a program that runs already: no COMMAND (--go-trace FILE -- COMMAND for one that writes its own)");
			return -1;
		}
		if (!duration_ns) {
			gt_err("--go needs -d TIME: the program's trace is fetched for that long");
			return -1;
		}
		g->seconds = (unsigned int)((duration_ns + NS_PER_S - 1) / NS_PER_S);
		g->fetched = with_suffix(out, ".go");
		if (!g->fetched)
			return -1;
	}
	g->merged = out;
	g->kernel = with_suffix(out, ".kernel");
	return g->kernel ? 0 : -1;
}

int gt_recgo_fork(struct gt_recgo *g)
{
	int fd, go[2];
	char err[512], c;

	if (!g->url)
		return 0;
	fd = open(g->fetched, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		gt_err("--go: cannot write %s: %s", g->fetched, strerror(errno));
		return -1;
	}
	if (pipe2(go, O_CLOEXEC)) {
		gt_err("--go: pipe: %s", strerror(errno));
		close(fd);
		return -1;
	}
	g->pid = fork();
	if (g->pid < 0) {
		gt_err("--go: fork: %s", strerror(errno));
		close(fd);
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (!g->pid) {
		sigset_t none;
		ssize_t n;

		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(go[1]);
		/* Held until the recording runs; EOF: it never will. */
		do
			n = read(go[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(2);
		if (gt_gofetch(g->url, g->seconds, fd, err, sizeof(err))) {
			gt_err("--go: %s", err);
			_exit(1);
		}
		_exit(close(fd) ? 1 : 0);
	}
	close(fd);
	close(go[0]);
	g->go_fd = go[1];
	return 0;
}

int gt_recgo_start(struct gt_recgo *g)
{
	int ret = 0;

	if (g->go_fd < 0)
		return 0;
	if (write(g->go_fd, "g", 1) != 1) {
		gt_err("--go: cannot start the fetch: %s", strerror(errno));
		ret = -1;
	}
	close(g->go_fd);
	g->go_fd = -1;
	return ret;
}

static void reap(struct gt_recgo *g, bool block)
{
	pid_t p;

	if (g->pid <= 0 || g->reaped)
		return;
	do
		p = waitpid(g->pid, &g->status, block ? 0 : WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p == g->pid || (p < 0 && errno == ECHILD)) {
		g->reaped = true;
		if (p < 0)
			g->status = 1 << 8;
	}
}

bool gt_recgo_fetched(struct gt_recgo *g)
{
	reap(g, false);
	return g->reaped;
}

int gt_recgo_merge(struct gt_recgo *g, bool quiet)
{
	struct gt_merge_opts o = { 0 };
	struct gt_merge_stats st;
	const char *prog = g->url ? g->fetched : g->trace;

	if (g->url && !g->reaped) {
		if (!quiet)
			fprintf(stderr, "%s: waiting for the program's trace from %s\n",
				GT_NAME, g->url);
		reap(g, true);
	}
	if (g->url && (!WIFEXITED(g->status) || WEXITSTATUS(g->status))) {
		/* The child said why, unless a signal ended it. */
		if (!WIFEXITED(g->status))
			gt_err("--go: the fetch of the program's trace was killed");
		gt_err("no merged trace: the recording is in %s", g->kernel);
		return -1;
	}
	if (gt_merge_files(prog, g->kernel, g->merged, &o,
			   quiet ? NULL : stderr, &st)) {
		gt_err("no merged trace: the recording is in %s, the program's trace in %s",
		       g->kernel, prog);
		return -1;
	}
	if (!quiet)
		fprintf(stderr, "%s: %s: the program's trace with the kernel's view (the recording: %s)\n",
			GT_NAME, g->merged, g->kernel);
	return 0;
}

void gt_recgo_cancel(struct gt_recgo *g)
{
	if (g->go_fd >= 0) {
		close(g->go_fd);	/* the held child exits */
		g->go_fd = -1;
	}
	if (g->pid > 0 && !g->reaped) {
		kill(g->pid, SIGTERM);
		reap(g, true);
	}
}

void gt_recgo_free(struct gt_recgo *g)
{
	free(g->kernel);
	free(g->fetched);
	g->kernel = g->fetched = NULL;
}
