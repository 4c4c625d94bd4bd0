/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind.h - a session's unwind tables, as the module keeps them
 *
 * With GOTRACE_OPT_UNWIND_TABLES the command loads, through the ioctls
 * of unwind.c, the unwind tables of the files its processes run and, per
 * address space, the executable mappings and the table of each
 * (include/uapi/linux/gotrace_unwind.h, Documentation/unwind.rst); the
 * walk of unwind_walk.c reads them in the probes.  Everything is
 * allocated when the options are set, before the probes run: the ioctls
 * write into it, the probes only read, without a lock:
 *
 *   a table's slot carries a generation, odd while the command rewrites
 *   it (and its rows, which only that table's walks read); a walk takes
 *   the generation before it reads the rows and checks it after;
 *
 *   a space's mappings carry a sequence count, odd while they are
 *   rewritten or the space is dropped; a walk reads it before and
 *   after it reads a mapping, and a space's key is checked within that.
 *
 * Every index a walk reads from that memory is checked against the
 * array's size before it is used, whatever the race: a race can give
 * a wrong frame (as a reused frame pointer can), never a read outside
 * the session's memory.
 */
#ifndef _GT_UNWIND_H
#define _GT_UNWIND_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "../include/uapi/linux/gotrace.h"

/* A key slot never used, and one whose space was dropped. */
#define GT_UW_EMPTY		0ULL
#define GT_UW_GONE		(~0ULL)

/*
 * Slots a lookup of a space tries from its hash before it gives up: a
 * walk's bound.  The key table has twice the slots of the spaces, so
 * that a run this long is rare; an insertion that finds none free this
 * close is refused as if the table were full (-ENOSPC, counted by the
 * command).
 */
#define GT_UW_PROBES		32

/* Misses (GOTRACE_IOC_UNWIND_MISSES) queued for the command at most. */
#define GT_UW_MISSES		256

/**
 * struct gt_uw_space - the mappings of one address space
 * @seq:	odd while they are being written
 * @nr:		entries of @maps in use
 * @key:	the space, GT_UW_EMPTY while the slot is free
 * @maps:	sorted by their start, apart
 */
struct gt_uw_space {
	u32 seq;
	u32 nr;
	u64 key;
	struct gotrace_unwind_map maps[GOTRACE_UNWIND_MAPS_MAX];
};

/* A slot of the hash of spaces: @key's mappings are spaces[@idx]. */
struct gt_uw_key {
	u64 key;
	u32 idx;
	u32 pad;
};

/* A miss queued for the command, in the initial pid namespace. */
struct gt_uw_miss {
	u64 space;
	u32 tgid;
	u32 why;
};

/**
 * struct gt_unwind - a session's unwind tables
 * @rows:	the array of rows (and of the tables' indexes), @nr_rows
 * @tables:	GOTRACE_UNWIND_TABLES_MAX slots
 * @spaces:	@nr_spaces mappings' slots
 * @keys:	the hash of the spaces: @key_mask + 1 slots
 * @free:	the free slots of @spaces, @nr_free of them (a stack)
 * @lock:	serialises the writers of @spaces, @keys, @free (raw: it
 *		may be taken where a probe runs)
 * @miss_lock:	guards the queue of misses (raw: taken in the probes)
 * @misses:	the queue, @miss_head to @miss_tail
 * @nr_misses:	walks that lacked their space's mappings
 * @misses_lost: reports dropped, the queue full
 * @races:	walks that met a space being rewritten
 */
struct gt_unwind {
	struct gotrace_unwind_row *rows;
	u32 nr_rows;
	struct gotrace_unwind_table *tables;
	struct gt_uw_space *spaces;
	u32 nr_spaces;
	struct gt_uw_key *keys;
	u32 key_mask;
	u32 *free;
	u32 nr_free;
	raw_spinlock_t lock;

	raw_spinlock_t miss_lock;
	u32 miss_head;
	u32 miss_tail;
	struct gt_uw_miss misses[GT_UW_MISSES];

	atomic64_t nr_misses;
	atomic64_t misses_lost;
	atomic64_t races;
};

/* unwind.c: lookups of the walk, lock-free. */
struct gt_uw_space *gt_uw_space_find(struct gt_unwind *uw, u64 space,
				     u32 *seq);
bool gt_uw_map_of(struct gt_unwind *uw, struct gt_uw_space *sp, u32 seq,
		  u64 space, unsigned long pc, struct gotrace_unwind_map *map);
void gt_uw_miss(struct gt_unwind *uw, u64 space, u32 why);

#endif /* _GT_UNWIND_H */
