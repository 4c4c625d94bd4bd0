/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record_unwind.h - a recording's unwind tables (unwind/unwind.h) as the
 * sources use them: the summary line both backends print, and the
 * module's side (GOTRACE_IOC_UNWIND_*, Documentation/unwind.rst)
 *
 * With the module, the tables go into the session of the reader's
 * handle: the manager's sink is a few ioctls on it.  Which address
 * spaces to load, the module names by its own identity: before the
 * session starts, every process there is (GOTRACE_IOC_UNWIND_SPACE_ID
 * of each), loaded before the first read so that the first stacks
 * find them; while it records, the misses its walks report
 * (GOTRACE_IOC_UNWIND_MISSES), taken each time the reader wakes.
 */
#ifndef GOTRACE_RECORD_UNWIND_H
#define GOTRACE_RECORD_UNWIND_H

#include <stdint.h>

#include "unwind/unwind.h"

/* "gotrace: unwind tables: ..." of @u's statistics, on stderr. */
void gt_recunw_summary(struct gt_unwind *u);

/*
 * gotrace_options.unwind_rows for @bytes of tables (0: the default),
 * within the module's limits (said once if @bytes is beyond them).
 */
uint32_t gt_recunw_rows(uint64_t bytes);

struct gt_recunw;

/*
 * The tables of the session of the reader's handle @fd, whose options
 * asked for @rows slots of rows (gotrace_options.unwind_rows; 0: the
 * module's default).  NULL after saying why.
 */
struct gt_recunw *gt_recunw_new(int fd, uint32_t rows);

/*
 * Before the session starts: every process there is, loaded (waits for
 * the tables to be built).  0; -ENOTTY, said nothing: the module has no
 * unwind ioctls (an older one); -1 after saying why.
 */
int gt_recunw_start(struct gt_recunw *r);

/* Load the spaces the module's walks missed since the last call. */
void gt_recunw_misses(struct gt_recunw *r);

/* Its manager (for gt_recunw_summary()). */
struct gt_unwind *gt_recunw_tables(struct gt_recunw *r);

/* Stop the manager and free (before the handle is closed). */
void gt_recunw_free(struct gt_recunw *r);

#endif /* GOTRACE_RECORD_UNWIND_H */
