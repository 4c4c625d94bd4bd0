// SPDX-License-Identifier: GPL-2.0
/*
 * record_sym.c - the recorder names the user frames of the files it wrote
 *
 * See record_sym.h.  The background naming runs this same program,
 * "gotrace symbolize -q FILE FILE", rather than a fork of the recorder:
 * the BPF backend's recorder has threads (libbpf's), after which a
 * forked child may only exec.  It runs in a process group of its own, so
 * the Ctrl-C that stops the recording does not cut a file's naming
 * short; a naming cut short anyway leaves the file as it was, since
 * output.h replaces a file only with a whole one.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "record_sym.h"
#include "symbolize.h"
#include "util.h"

extern char **environ;

/* A pipe, a FIFO or a device cannot be rewritten: say how to name it. */
static bool rewritable(struct gt_recsym *s, const char *path)
{
	struct stat st;

	if (strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode))
		return true;
	gt_warn("the user frames of %s stay BINARY+0xOFFSET: only a file can be rewritten with their names; pipe the trace through 'gotrace symbolize - OUT'",
		strcmp(path, "-") ? path : "stdout");
	s->failed++;
	return false;
}

/* The naming of the complete file @path ended, @ok or not: counted. */
static void named(struct gt_recsym *s, const char *path, bool ok)
{
	if (ok) {
		s->named++;
		return;
	}
	gt_warn("%s is complete, its user frames not all named: 'gotrace symbolize %s %s' tries again",
		path, path, path);
	s->failed++;
}

void gt_recsym_file(struct gt_recsym *s, const char *path)
{
	if (!s->on || !rewritable(s, path))
		return;
	if (s->naming)
		s->naming(path);
	named(s, path, gt_symbolize_path(path, path, s->quiet) == GT_EXIT_OK);
}

/* Background slot @i is free again. */
static void slot_free(struct gt_recsym *s, int i)
{
	s->pid[i] = 0;
	free(s->path[i]);
	s->path[i] = NULL;
}

/* Collect the background namings that ended (all of them: @wait). */
static void reap(struct gt_recsym *s, bool wait)
{
	for (int i = 0; i < GT_RECSYM_MAX_RUNNING; i++) {
		int st;
		pid_t pid;

		if (!s->pid[i])
			continue;
		do {
			pid = waitpid(s->pid[i], &st, wait ? 0 : WNOHANG);
		} while (pid < 0 && errno == EINTR);
		if (!pid)
			continue;	/* still running */
		named(s, s->path[i],
		      pid > 0 && WIFEXITED(st) && !WEXITSTATUS(st));
		slot_free(s, i);
	}
}

/* Start naming @path (the caller's string, now the slot's) in slot @i. */
static void start(struct gt_recsym *s, int i, char *path)
{
	char *argv[] = { "gotrace", "symbolize", "-q", path, path, NULL };
	posix_spawnattr_t attr;
	int err;

	s->path[i] = path;
	err = posix_spawnattr_init(&attr);
	if (!err) {
		sigset_t none;

		/* The recorder blocks its signals: the child must not. */
		sigemptyset(&none);
		posix_spawnattr_setsigmask(&attr, &none);
		posix_spawnattr_setpgroup(&attr, 0);
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
					 POSIX_SPAWN_SETPGROUP);
		err = posix_spawn(&s->pid[i], "/proc/self/exe", NULL, &attr,
				  argv, environ);
		posix_spawnattr_destroy(&attr);
	}
	if (err) {
		gt_warn("cannot start 'gotrace symbolize' for %s: %s",
			path, strerror(err));
		slot_free(s, i);
		s->failed++;
	}
}

/* Move the oldest waiting files to the free slots. */
static void start_queued(struct gt_recsym *s)
{
	for (int i = 0; i < GT_RECSYM_MAX_RUNNING && s->queued; i++) {
		char *path;

		if (s->pid[i])
			continue;
		path = s->queue[0];
		s->queued--;
		memmove(s->queue, s->queue + 1, s->queued * sizeof(*s->queue));
		start(s, i, path);
	}
}

/* Collect the namings that ended and give their slots to waiting files. */
static void advance(struct gt_recsym *s)
{
	reap(s, false);
	start_queued(s);
}

void gt_recsym_spawn(struct gt_recsym *s, const char *path)
{
	char *copy;

	if (!s->on || !rewritable(s, path))
		return;
	/* First, so that a full queue is one with no free slot either. */
	advance(s);
	if (s->queued == GT_RECSYM_MAX_QUEUED) {
		gt_warn("%d files wait to be named already: the user frames of %s stay BINARY+0xOFFSET ('gotrace symbolize' names them)",
			GT_RECSYM_MAX_QUEUED, path);
		s->failed++;
		return;
	}
	copy = strdup(path);
	if (!copy) {
		s->failed++;
		return;
	}
	s->queue[s->queued++] = copy;
	start_queued(s);
}

void gt_recsym_poll(struct gt_recsym *s)
{
	if (s->queued)
		advance(s);
}

void gt_recsym_finish(struct gt_recsym *s)
{
	do {
		start_queued(s);
		reap(s, true);
	} while (s->queued);
	if (s->failed)
		gt_warn("%" PRIu64 " of %" PRIu64 " files keep unnamed user frames (BINARY+0xOFFSET)",
			s->failed, s->failed + s->named);
}
