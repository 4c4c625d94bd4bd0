// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - the files the command writes, so that none is ever
 * destroyed (see output.h for the rules)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "trace/go123_read.h"
#include "util.h"

/* Tries at a free temporary name before giving up. */
#define GT_OUTPUT_TMP_TRIES	100

/*
 * The temporary file of the output being written, for a handler that
 * ends the process (gt_output_tmp_now()); one output is written at once.
 */
static const char *volatile tmp_now;

/* The file that is written or replaced: a link's target, else @path. */
static const char *output_file(const struct gt_output *o)
{
	return o->target ? o->target : o->path;
}

/*
 * Create FILE.tmp-PID (-N if taken) exclusively, beside FILE: never a
 * file that someone else made.  Mode 0600, as perf gives perf.data: a
 * trace names every process, its commands and kernel stacks; FILE's own
 * mode if it exists and GT_OUTPUT_KEEP_MODE asks (@old: stat of FILE).
 */
static int output_create_tmp(struct gt_output *o, const struct stat *old)
{
	const char *file = output_file(o);

	for (int i = 0; i < GT_OUTPUT_TMP_TRIES; i++) {
		char *name;
		int n;

		if (i)
			n = asprintf(&name, "%s.tmp-%d-%d", file,
				     (int)getpid(), i);
		else
			n = asprintf(&name, "%s.tmp-%d", file, (int)getpid());
		if (n < 0) {
			gt_err("out of memory");
			return -1;
		}
		o->fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			     0600);
		if (o->fd >= 0) {
			o->tmp = name;
			tmp_now = name;
			if (old && (o->flags & GT_OUTPUT_KEEP_MODE))
				fchmod(o->fd, old->st_mode & 07777);
			return 0;
		}
		n = errno;
		if (n != EEXIST) {
			gt_err("cannot create %s, where the %s is written until it replaces %s: %s",
			       name, o->what, file, strerror(n));
			free(name);
			return -1;
		}
		free(name);
	}
	gt_err("cannot create %s: no free temporary name beside it", file);
	return -1;
}

/* The file behind the input @input ("-": standard input), if any. */
static bool input_stat(const char *input, struct stat *st)
{
	if (!input)
		return false;
	if (!strcmp(input, "-"))
		return !fstat(STDIN_FILENO, st);
	return !stat(input, st);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Standard output was closed when the command started. */
static bool stdout_closed;

void gt_output_hold_std(void)
{
	/* In order: each open() takes the lowest free number, @fd. */
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (fd == STDOUT_FILENO)
			stdout_closed = true;
		open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
	}
}

/* Standard output, checked before any work: open, writable, no terminal. */
static int output_stdout(struct gt_output *o, const struct stat *in)
{
	int fl = fcntl(STDOUT_FILENO, F_GETFL);
	struct stat st;

	if (stdout_closed || fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
		gt_err("standard output is %s: the %s cannot be written there; name a file",
		       stdout_closed || fl < 0 ? "closed" :
		       "open for reading only", o->what);
		return -1;
	}
	if (isatty(STDOUT_FILENO)) {
		gt_err("refusing to write a binary %s to a terminal; name a file",
		       o->what);
		return -1;
	}
	if (in && !fstat(STDOUT_FILENO, &st) && same_file(&st, in)) {
		gt_err("standard output is the input: the %s would overwrite it while it is read; name another file",
		       o->what);
		return -1;
	}
	o->fd = STDOUT_FILENO;
	return 0;
}

/*
 * A device or a FIFO, written in place.  A FIFO that nobody reads would
 * block the open silently: say that it waits.
 */
static int output_in_place(struct gt_output *o, const struct stat *st)
{
	const char *file = output_file(o);

	if (S_ISFIFO(st->st_mode)) {
		o->fd = open(file, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (o->fd >= 0) {
			fcntl(o->fd, F_SETFL,
			      fcntl(o->fd, F_GETFL) & ~O_NONBLOCK);
			return 0;
		}
		if (errno == ENXIO) {
			fprintf(stderr, "%s: waiting for a reader of the FIFO %s\n",
				GT_NAME, o->path);
			o->fd = open(file, O_WRONLY | O_CLOEXEC);
		}
	} else {
		o->fd = open(file, O_WRONLY | O_CLOEXEC);
	}
	if (o->fd < 0) {
		gt_err("cannot open %s: %s", o->path, strerror(errno));
		return -1;
	}
	return 0;
}

int gt_output_open_from(struct gt_output *o, const char *path,
			const char *what, unsigned int flags, const char *input)
{
	struct stat st, in_st;
	const struct stat *in = NULL;

	*o = (struct gt_output){ .path = path, .what = what, .flags = flags,
				 .fd = -1 };
	if (input_stat(input, &in_st))
		in = &in_st;
	if (!strcmp(path, "-"))
		return output_stdout(o, in);
	/* A link's target is replaced, not the link. */
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		o->target = realpath(path, NULL);
		if (!o->target) {
			gt_err("cannot follow the symbolic link %s: %s; name a file",
			       path, strerror(errno));
			return -1;
		}
	}
	if (stat(output_file(o), &st)) {
		if (errno != ENOENT) {
			gt_err("cannot use %s: %s", path, strerror(errno));
			return -1;
		}
		return output_create_tmp(o, NULL);
	}
	if (S_ISDIR(st.st_mode)) {
		gt_err("%s is a directory: the %s needs a file name", path,
		       what);
		return -1;
	}
	/* Written in place, or another kind of file made of it: refused. */
	if (in && same_file(&st, in) &&
	    (!S_ISREG(st.st_mode) || !(flags & GT_OUTPUT_MAY_BE_INPUT))) {
		gt_err("%s is the input %s: the %s would %s it; name another file",
		       path, input, what, S_ISREG(st.st_mode) ? "replace" :
		       "overwrite");
		return -1;
	}
	/* A device or a FIFO: nothing to keep, nothing to rename. */
	if (!S_ISREG(st.st_mode))
		return output_in_place(o, &st);
	return output_create_tmp(o, &st);
}

int gt_output_open(struct gt_output *o, const char *path, const char *what,
		   unsigned int flags)
{
	return gt_output_open_from(o, path, what, flags, NULL);
}

const char *gt_output_name(const struct gt_output *o)
{
	if (o->tmp)
		return o->tmp;
	return strcmp(o->path, "-") ? o->path : "stdout";
}

/* Close the file; -1 (after saying so) if the last writes failed. */
static int output_close(struct gt_output *o)
{
	int ret = 0;

	if (o->fd > STDERR_FILENO && close(o->fd)) {
		gt_err("writing %s: %s", gt_output_name(o), strerror(errno));
		ret = -1;
	}
	o->fd = -1;
	return ret;
}

int gt_output_commit(struct gt_output *o)
{
	struct stat st;

	/* On disk before it replaces @path: a crash leaves the old file. */
	if (o->tmp && fsync(o->fd)) {
		gt_err("writing %s: %s", o->tmp, strerror(errno));
		output_close(o);
		return -1;
	}
	if (output_close(o))
		return -1;
	if (!o->tmp)
		return 0;
	if ((o->flags & GT_OUTPUT_KEEP_OLD) && !lstat(output_file(o), &st)) {
		if (asprintf(&o->old, "%s.old", output_file(o)) < 0) {
			o->old = NULL;
			gt_err("out of memory: the %s is in %s", o->what,
			       o->tmp);
			return -1;
		}
		if (rename(output_file(o), o->old)) {
			gt_err("cannot keep the previous %s as %s: %s; the new %s is in %s",
			       o->path, o->old, strerror(errno), o->what,
			       o->tmp);
			free(o->old);
			o->old = NULL;
			return -1;
		}
	}
	if (rename(o->tmp, output_file(o))) {
		gt_err("cannot rename %s to %s: %s", o->tmp, output_file(o),
		       strerror(errno));
		tmp_now = NULL;
		return -1;
	}
	tmp_now = NULL;
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

bool gt_output_abandon(struct gt_output *o, bool keep)
{
	struct stat st;

	/* An empty file holds nothing worth keeping. */
	if (keep && o->fd >= 0 && !fstat(o->fd, &st) && !st.st_size)
		keep = false;
	output_close(o);
	if (!o->tmp)
		return false;
	if (!keep)
		unlink(o->tmp);
	tmp_now = NULL;
	return keep;
}

/* Whether the file at @path starts as a generational trace. */
static bool output_generational(const char *path)
{
	uint8_t hdr[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool gens;

	if (fd < 0)
		return false;
	gens = read(fd, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr) &&
	       gt_go123_header(hdr, sizeof(hdr));
	close(fd);
	return gens;
}

void gt_output_say_kept(const struct gt_output *o)
{
	if (output_generational(o->tmp))
		gt_err("the incomplete trace stays in %s; %s is unchanged; 'gotrace check --repair -o %s %s' keeps its complete generations",
		       o->tmp, o->path, o->path, o->tmp);
	else
		gt_err("the incomplete trace stays in %s; %s is unchanged",
		       o->tmp, o->path);
}

const char *gt_output_tmp_now(void)
{
	return tmp_now;
}

void gt_output_free(struct gt_output *o)
{
	if (o->tmp && tmp_now == o->tmp)
		tmp_now = NULL;
	free(o->tmp);
	free(o->old);
	free(o->target);
	o->tmp = o->old = o->target = NULL;
}
