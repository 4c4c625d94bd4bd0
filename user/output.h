/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output.h - the files the command writes (a recording's trace, a
 * symbolised copy, a profile), so that none is ever destroyed
 *
 * A regular file (or a name that does not exist yet) is written under a
 * temporary name in the same directory, FILE.tmp-PID, mode 0600; only a
 * complete output replaces FILE, by rename() once it is on disk
 * (fsync()), and with GT_OUTPUT_KEEP_OLD the previous FILE is then kept
 * as FILE.old (replacing an older FILE.old), as perf keeps
 * perf.data.old.  An incomplete output (aborted, output error) stays
 * under its temporary name if asked; an empty one is removed.  "-" is
 * standard output, refused on a terminal or when closed.  An existing
 * device or FIFO is written in place: a file renamed over it would
 * replace the device itself, and as root over /dev/null that breaks the
 * whole machine.  A FIFO that no process reads yet is waited for, saying
 * so.  A symbolic link is followed: its target is written as FILE would
 * be, and the link stays; one to nothing is refused.  A directory is
 * refused.
 *
 * The output may not be the input it is made of (the same file, however
 * named): a profile written over its trace destroys it, and a file
 * written in place while it is read is garbage.  Only a copy of the same
 * trace (check --repair, symbolize) may replace its input, and then only
 * through the temporary file.
 */
#ifndef GOTRACE_OUTPUT_H
#define GOTRACE_OUTPUT_H

#include <stdbool.h>

/*
 * First thing in main(): a closed standard input, output or error gets
 * /dev/null, so that no file the command opens takes its number and is
 * then written as standard output; "-" is then refused as closed.
 */
void gt_output_hold_std(void);

/* gt_output_open()'s flags. */
enum {
	GT_OUTPUT_KEEP_OLD = 1 << 0,	/* a replaced FILE stays as FILE.old */
	GT_OUTPUT_KEEP_MODE = 1 << 1,	/* FILE's mode, not 0600, on the new one */
	GT_OUTPUT_MAY_BE_INPUT = 1 << 2, /* the same trace: may replace the input */
};

struct gt_output {
	const char *path;	/* as given: "-", a file, a device */
	const char *what;	/* what is written, for messages: "trace" */
	char *target;		/* a symbolic link's target: what is replaced */
	char *tmp;		/* what is written until the rename, or NULL */
	char *old;		/* path.old, once the previous file moved */
	unsigned int flags;
	int fd;
};

/*
 * Open @path for writing @what ("trace", "profile": the messages name
 * it) before any work is done: refuses a terminal on standard output, a
 * directory, a directory that cannot hold the temporary file.  Returns
 * 0, or -1 after saying why.
 */
int gt_output_open(struct gt_output *o, const char *path, const char *what,
		   unsigned int flags);

/*
 * gt_output_open() of the output made from the input @input ("-" =
 * standard input): refuses an output that is that file (the same device
 * and inode) unless GT_OUTPUT_MAY_BE_INPUT says it may replace it.
 */
int gt_output_open_from(struct gt_output *o, const char *path,
			const char *what, unsigned int flags, const char *input);

/* Where the bytes go now: the temporary file, @path, or "stdout". */
const char *gt_output_name(const struct gt_output *o);

/*
 * The output is complete: sync and close it, keep the previous @path as
 * @path.old (GT_OUTPUT_KEEP_OLD), rename the temporary file to @path.
 * Returns 0, or -1 after saying why and where the output is.
 */
int gt_output_commit(struct gt_output *o);

/*
 * The output is incomplete or empty: close; with @keep the temporary file
 * stays (its name is gt_output_name()) unless it is empty, without it is
 * removed.  @path itself is never touched.  Returns true if a temporary
 * file stays.
 */
bool gt_output_abandon(struct gt_output *o, bool keep);

/*
 * Say where the incomplete trace that gt_output_abandon() kept is, and,
 * if it is a generational trace, how to keep its complete generations
 * (gotrace check --repair).
 */
void gt_output_say_kept(const struct gt_output *o);

/*
 * The temporary file being written now (NULL: none), for a signal handler
 * that ends the process and must not leave it behind (recsig.c).
 */
const char *gt_output_tmp_now(void);

/* Free the names; the file itself was committed or abandoned. */
void gt_output_free(struct gt_output *o);

#endif /* GOTRACE_OUTPUT_H */
