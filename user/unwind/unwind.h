/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind.h - the unwind tables of a session: built from the files the
 * processes run, loaded where the walker reads them
 *
 * A walker of user stacks without frame pointers (the BPF program's
 * unw_step(); Documentation/unwind.rst) needs, for every PC, the table
 * of the file it is in, and the mapping that says where that file is in
 * the process.  Neither can be had where the walker runs: building a
 * table is reading a file, and the mappings are behind mmap_lock.  So
 * the command does it ahead of the walks, here:
 *
 *   - it is asked for an address space (gt_unwind_request()): at the
 *     start for every process running, then for each space whose first
 *     stack the reader sees, and again when a stack has a PC in none of
 *     the space's mappings read so far (a library mapped since);
 *   - a thread of its own reads the process's executable mappings
 *     (/proc/PID/maps), builds the table of each file it has not built
 *     yet (eh_table.h, keyed by the file's device and inode), and hands
 *     the rows, the table's place and the space's mappings to a sink
 *     (the BPF maps: user/bpf/unwind_sink.c; the module's session:
 *     user/record_unwind.c);
 *   - the rows live in one array of a fixed size (the memory limit);
 *     a table that does not fit evicts the least recently used ones.
 *     A mapping whose table was evicted (or never fitted) is walked by
 *     frame pointers, and counted (GOTRACE_USTOP_NO_TABLE).
 *
 * The reader's thread only queues: it never waits for a file to be read.
 */
#ifndef GOTRACE_UNWIND_H
#define GOTRACE_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/gotrace_unwind.h>

/* Rows the tables hold by default: 32 MiB (--unwind-memory). */
#define GT_UNWIND_MEMORY_DEFAULT	(32U << 20)

/**
 * struct gt_unwind_sink - where the tables go (called from the worker)
 * @rows:	write @n rows from index @first of the array of rows
 * @table:	set table slot @slot
 * @space:	set the mappings of address space @space, read from process
 *		@tgid (@n 0: delete it; @tgid may be gone then)
 * @arg:	their first argument
 *
 * Each returns 0 or a negative errno.  @space's -ESTALE (@tgid runs
 * another program now: its maps were read for the one before) and
 * -ESRCH (@tgid is gone) count as gone, any other error as spaces_full.
 */
struct gt_unwind_sink {
	int (*rows)(void *arg, uint32_t first,
		    const struct gotrace_unwind_row *rows, uint32_t n);
	int (*table)(void *arg, uint32_t slot,
		     const struct gotrace_unwind_table *t);
	int (*space)(void *arg, uint64_t space, int tgid,
		     const struct gotrace_unwind_map *maps, uint32_t n);
	void *arg;
};

/**
 * struct gt_unwind_params - the limits of a session's tables
 * @max_rows:	rows the sink's array holds
 * @max_tables:	table slots the sink has
 * @proc:	the proc file system ("/proc" if NULL; another for tests)
 */
struct gt_unwind_params {
	uint32_t max_rows;
	uint32_t max_tables;
	const char *proc;
};

/**
 * struct gt_unwind_stats - what the tables cost and what they missed
 * @requests:	address spaces asked for (again, for some)
 * @spaces:	address spaces whose mappings went to the sink
 * @gone:	asked for, but the process was gone (or a zombie), or
 *		running another program by the time its mappings were
 *		handed on (the sink's -ESTALE)
 * @denied:	asked for, but the process's maps could not be read
 *		(EACCES: another user's, or one with capabilities the
 *		command lacks; reading them takes CAP_SYS_PTRACE)
 * @spaces_full: the sink had no room for a space
 * @maps_cut:	spaces with more executable mappings than a walker
 *		knows (GOTRACE_UNWIND_MAPS_MAX): the rest walked by frame
 *		pointers
 * @files:	distinct executable files seen
 * @tables:	tables built with rows
 * @no_table:	files with no table: Go binaries (their frame pointers
 *		are exact), files without .eh_frame or .debug_frame, files
 *		that could not be opened or read
 * @evictions:	tables evicted for room (least recently used first)
 * @too_big:	tables larger than the whole array: never loaded
 * @rows:	slots of the array of rows in use now: the tables' rows and
 *		their indexes (four entries a slot)
 * @rows_peak:	most slots in use at once (16 bytes each)
 * @build_ns:	time spent building tables
 * @load_ns:	time spent handing rows to the sink
 */
struct gt_unwind_stats {
	uint64_t requests;
	uint64_t spaces;
	uint64_t gone;
	uint64_t denied;
	uint64_t spaces_full;
	uint64_t maps_cut;
	uint64_t files;
	uint64_t tables;
	uint64_t no_table;
	uint64_t evictions;
	uint64_t too_big;
	uint64_t rows;
	uint64_t rows_peak;
	uint64_t build_ns;
	uint64_t load_ns;
};

struct gt_unwind;

/* Start the worker.  NULL after saying why. */
struct gt_unwind *gt_unwind_new(const struct gt_unwind_params *p,
				const struct gt_unwind_sink *sink);
/*
 * Load address space @space, of thread @tid of process @tgid (either
 * may be 0): its mappings are read from /proc/TID (/proc/TGID if the
 * thread is gone).  Queued; never waits.
 */
void gt_unwind_request(struct gt_unwind *u, uint64_t space, int tid,
		       int tgid);
/* Wait until every request queued so far is done (the start, tests). */
void gt_unwind_settle(struct gt_unwind *u);
void gt_unwind_stats(struct gt_unwind *u, struct gt_unwind_stats *st);
/* Stop the worker (what is queued is dropped) and free. */
void gt_unwind_free(struct gt_unwind *u);

#endif /* GOTRACE_UNWIND_H */
