/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output.h - the file 'gotrace record' writes, so that no trace is ever
 * destroyed
 *
 * A regular file (or a name that does not exist yet) is written under a
 * temporary name in the same directory, FILE.tmp-PID; only a complete
 * trace replaces FILE, by rename(), and the previous FILE is then kept as
 * FILE.old (replacing an older FILE.old), as perf keeps perf.data.old.
 * An incomplete trace (aborted, output error) stays under its temporary
 * name; an empty one, or a run that recorded nothing (COMMAND could not
 * run), removes it.  "-" is
 * standard output; an existing device or FIFO is written in place.
 */
#ifndef GOTRACE_OUTPUT_H
#define GOTRACE_OUTPUT_H

#include <stdbool.h>

struct gt_output {
	const char *path;	/* as given: "-", a file, a device */
	char *tmp;		/* what is written until the rename, or NULL */
	char *old;		/* path.old, once the previous file moved */
	int fd;
};

/*
 * Open @path for writing before anything is recorded: refuses a
 * terminal on standard output, a directory, a directory that cannot
 * hold the temporary file.  Returns 0, or -1 after saying why.
 */
int gt_output_open(struct gt_output *o, const char *path);

/* Where the bytes go now: the temporary file, @path, or "stdout". */
const char *gt_output_name(const struct gt_output *o);

/*
 * The trace is complete: close, keep the previous @path as @path.old,
 * rename the temporary file to @path.  Returns 0, or -1 after saying
 * why and where the trace is.
 */
int gt_output_commit(struct gt_output *o);

/*
 * The trace is incomplete or empty: close; with @keep the temporary file
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

/* Free the names; the file itself was committed or abandoned. */
void gt_output_free(struct gt_output *o);

#endif /* GOTRACE_OUTPUT_H */
