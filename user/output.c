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
 * Create @o->path.tmp-PID (-N if taken) exclusively: never a file that
 * someone else made.  Mode 0600, as perf gives perf.data: a trace names
 * every process, its commands and kernel stacks.
 */
static int output_create_tmp(struct gt_output *o)
{
	for (int i = 0; i < GT_OUTPUT_TMP_TRIES; i++) {
		char *name;
		int n;

		if (i)
			n = asprintf(&name, "%s.tmp-%d-%d", o->path,
				     (int)getpid(), i);
		else
			n = asprintf(&name, "%s.tmp-%d", o->path,
				     (int)getpid());
		if (n < 0) {
			gt_err("out of memory");
			return -1;
		}
		o->fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			     0600);
		if (o->fd >= 0) {
			o->tmp = name;
			return 0;
		}
		n = errno;
		if (n != EEXIST) {
			gt_err("cannot create %s, where the %s is written until it replaces %s: %s",
			       name, o->what, o->path, strerror(n));
			free(name);
			return -1;
		}
		free(name);
	}
	gt_err("cannot create %s: no free temporary name beside it",
	       o->path);
	return -1;
}

int gt_output_open(struct gt_output *o, const char *path, const char *what,
		   unsigned int flags)
{
	struct stat st;

	*o = (struct gt_output){ .path = path, .what = what, .flags = flags,
				 .fd = -1 };
	if (!strcmp(path, "-")) {
		if (isatty(STDOUT_FILENO)) {
			gt_err("refusing to write a binary %s to a terminal; name a file",
			       what);
			return -1;
		}
		o->fd = STDOUT_FILENO;
		return 0;
	}
	if (stat(path, &st)) {
		if (errno != ENOENT) {
			gt_err("cannot use %s: %s", path, strerror(errno));
			return -1;
		}
	} else if (S_ISDIR(st.st_mode)) {
		gt_err("%s is a directory: the %s needs a file name", path,
		       what);
		return -1;
	} else if (!S_ISREG(st.st_mode)) {
		/* A device or a FIFO: nothing to keep, nothing to rename. */
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0) {
			gt_err("cannot open %s: %s", path, strerror(errno));
			return -1;
		}
		return 0;
	}
	return output_create_tmp(o);
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
	if ((o->flags & GT_OUTPUT_KEEP_OLD) && !lstat(o->path, &st)) {
		if (asprintf(&o->old, "%s.old", o->path) < 0) {
			o->old = NULL;
			gt_err("out of memory: the %s is in %s", o->what,
			       o->tmp);
			return -1;
		}
		if (rename(o->path, o->old)) {
			gt_err("cannot keep the previous %s as %s: %s; the new %s is in %s",
			       o->path, o->old, strerror(errno), o->what,
			       o->tmp);
			free(o->old);
			o->old = NULL;
			return -1;
		}
	}
	if (rename(o->tmp, o->path)) {
		gt_err("cannot rename %s to %s: %s", o->tmp, o->path,
		       strerror(errno));
		return -1;
	}
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
	return keep;
}

/* Whether the file at @path starts as a generational trace. */
static bool output_generational(const char *path)
{
	uint8_t hdr[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool v2;

	if (fd < 0)
		return false;
	v2 = read(fd, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr) &&
	     gt_v2_header(hdr, sizeof(hdr));
	close(fd);
	return v2;
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

void gt_output_free(struct gt_output *o)
{
	free(o->tmp);
	free(o->old);
	o->tmp = o->old = NULL;
}
