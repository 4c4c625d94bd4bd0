/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record_sym.h - the recorder names the user frames of the files it wrote
 *
 * A recorder writes a user frame as the binary it lies in and the offset
 * in that file (Documentation/user-stacks.rst): names cost ELF and DWARF
 * reading, which stays off the event path.  Once a file is complete,
 * this rewrites it with its frames named, as 'gotrace symbolize FILE
 * FILE' does, while the binaries of the processes it saw are still on
 * disk.  The last file of a recording is named before the recorder
 * exits; the files that rotation and the flight recorder complete while
 * the recording runs are named by a 'gotrace symbolize' process of their
 * own, so the reader never stops to read ELF files while the module's
 * buffers fill.  A trace written to a pipe or a device cannot be
 * rewritten: the recorder says so, and the user pipes it through
 * 'gotrace symbolize - OUT'.
 */
#ifndef GOTRACE_RECORD_SYM_H
#define GOTRACE_RECORD_SYM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Files named at once in the background; a file beyond waits for a free
 * slot, up to GT_RECSYM_MAX_QUEUED of them, and is left as is beyond
 * those (a recording that completes files faster than they can be named
 * for long).
 */
#define GT_RECSYM_MAX_RUNNING	4
#ifndef GT_RECSYM_MAX_QUEUED		/* tests/recsym_test.c's is smaller */
#define GT_RECSYM_MAX_QUEUED	64
#endif

/**
 * struct gt_recsym - the naming of a recording's files
 * @on:		user stacks were recorded and --no-symbolize was not given
 * @quiet:	-q: say nothing unless something failed
 * @pid:	the background processes running, 0 in a free slot
 * @path:	the file each is naming
 * @queue:	files waiting for a free slot, the oldest first
 * @queued:	how many
 * @named:	files named
 * @failed:	files whose naming failed or was not started (they hold
 *		BINARY+0xOFFSET frames, complete and valid)
 * @naming:	called before a file is named in this process
 *		(gt_recsym_file()): the recorder's signals then end the
 *		naming, not the recording (recsig.h); may be NULL
 */
struct gt_recsym {
	bool on;
	bool quiet;
	pid_t pid[GT_RECSYM_MAX_RUNNING];
	char *path[GT_RECSYM_MAX_RUNNING];
	char *queue[GT_RECSYM_MAX_QUEUED];
	unsigned int queued;
	uint64_t named;
	uint64_t failed;
	void (*naming)(const char *path);
};

/* Name the frames of the complete file @path now, in this process. */
void gt_recsym_file(struct gt_recsym *s, const char *path);

/*
 * Name the complete file @path in the background, at once or when a slot
 * frees; a gt_rotate_cfg or flight commit hook.
 */
void gt_recsym_spawn(struct gt_recsym *s, const char *path);

/* Start the waiting files that have a free slot now: the recording loop. */
void gt_recsym_poll(struct gt_recsym *s);

/* Name the waiting files, wait for all and say what was left unnamed. */
void gt_recsym_finish(struct gt_recsym *s);

#endif /* GOTRACE_RECORD_SYM_H */
