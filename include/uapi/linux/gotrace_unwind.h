/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gotrace_unwind.h - unwind tables: how to find a frame's caller without
 * frame pointers
 *
 * Most of a Debian system (its C library, most of its packages) is built
 * without frame pointers, so a walk of frame pointers stops at the first
 * such function.  Every one of those binaries has, for its exception
 * handling, an .eh_frame section: for each range of instructions, where
 * the frame's canonical frame address (CFA: the stack pointer before the
 * call that made the frame) is, and where its caller's registers are
 * saved.  The command turns that section (read with elfutils) into the
 * compact rows below, sorted by address, one table per file; the walker
 * (the BPF program, the module) looks up the row of each PC of a stack
 * and finds its caller's PC, stack pointer and frame pointer from it
 * (Documentation/unwind.rst).
 *
 * What the rows say, for a PC from @pc up to the next row's:
 *
 *	cfa	= (@cfa_reg == SP ? sp : fp) + @cfa_off
 *	ra	= *(cfa + @ra_off)		(@ra_off 0: the link register,
 *						 arm64's x30, only valid in the
 *						 innermost frame)
 *	fp	= @fp_off ? *(cfa + @fp_off) : fp	(unchanged)
 *	sp	= cfa
 *
 * "fp" is rbp on x86-64, x29 on arm64; "sp" is rsp, sp.  A row's @pc is
 * relative to its table's base (an address of the file, as its program
 * headers place it); a walker knows a PC's table, and the base, from the
 * mappings of the process (struct gotrace_unwind_map).
 */
#ifndef _UAPI_LINUX_GOTRACE_UNWIND_H
#define _UAPI_LINUX_GOTRACE_UNWIND_H

/* The BPF programs include it after vmlinux.h, which has the types. */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* struct gotrace_unwind_row.cfa_reg: how the row's CFA is found. */
#define GOTRACE_UNW_CFA_SP	0	/* sp + cfa_off */
#define GOTRACE_UNW_CFA_FP	1	/* fp + cfa_off */
#define GOTRACE_UNW_CFA_PLT	2	/* x86-64 PLT entries, whose CFA steps
					 * by 8 after the push of each entry:
					 * sp + cfa_off + ((pc & 15) >= plt_at ?
					 * 8 : 0)
					 */
#define GOTRACE_UNW_END		3	/* the return address is undefined: the
					 * outermost frame (_start, a thread's
					 * start): the stack is whole
					 */
#define GOTRACE_UNW_NONE	4	/* no rule for these PCs: outside every
					 * FDE, or code the walker cannot
					 * follow (the CFA or the return
					 * address given by an expression)
					 */
#define GOTRACE_UNW_SIGNAL	5	/* a signal frame (sigreturn's
					 * trampoline): the interrupted
					 * registers are in a sigcontext
					 */

/* struct gotrace_unwind_row.flags */
#define GOTRACE_UNW_FP_LOST	(1U << 0)	/* the caller's fp cannot be
						 * found (an expression): not
						 * followed past this frame
						 */

/**
 * struct gotrace_unwind_row - one row of an unwind table
 * @pc:		the first PC the row applies to, minus the table's base
 * @cfa_off:	added to the register @cfa_reg names
 * @fp_off:	the caller's fp is saved at cfa + @fp_off; 0: not saved
 *		(the frame leaves it alone)
 * @ra_off:	the return address is saved at cfa + @ra_off; 0: it is in
 *		the link register (arm64, before a frame saves it)
 * @cfa_reg:	GOTRACE_UNW_*
 * @flags:	GOTRACE_UNW_FP_LOST
 * @plt_at:	GOTRACE_UNW_CFA_PLT: the offset in a 16-byte PLT entry
 *		from which its push is done (11 for the lazy PLT, 9 for
 *		the one binutils makes for IBT, -z ibtplt)
 * @pad:	0
 */
struct gotrace_unwind_row {
	__u32 pc;
	__s32 cfa_off;
	__s16 fp_off;
	__s16 ra_off;
	__u8 cfa_reg;
	__u8 flags;
	__u8 plt_at;
	__u8 pad;
};

/*
 * Executable mappings of a process a walker knows (the BPF program's
 * map of processes): beyond them, a process's PCs are walked by frame
 * pointers, and counted.
 */
#define GOTRACE_UNWIND_MAPS_MAX	128

/**
 * struct gotrace_unwind_map - one executable mapping of a process
 * @start:	its first address
 * @end:	the address after its last
 * @bias:	subtracted from a PC of the mapping gives the PC of its
 *		table's rows (the load bias plus the table's base)
 * @table:	the file's table, an index + 1; 0: the file has none (a Go
 *		binary, whose frame pointers are exact; a file without
 *		.eh_frame): walked by frame pointers
 * @gen:	the table's generation when the mapping was set: a table
 *		evicted and its slot reused has another, and the mapping
 *		then counts as having none
 */
struct gotrace_unwind_map {
	__u64 start;
	__u64 end;
	__u64 bias;
	__u32 table;
	__u32 gen;
};

/*
 * A table's index: for every GOTRACE_UNWIND_PAGE bytes of its code (of
 * table positions), the row that applies at the start of those bytes,
 * relative to the table's first row; the row of a position then lies
 * between the index entries of its page and the next, a search of a
 * few rows close together rather than one across the whole table (a
 * C library's has tens of thousands: a cache miss a step).  The entries
 * are __u32, four to a slot of the array of rows.
 */
#define GOTRACE_UNWIND_PAGE_SHIFT	8
#define GOTRACE_UNWIND_PAGE		(1U << GOTRACE_UNWIND_PAGE_SHIFT)

/**
 * struct gotrace_unwind_table - where a table's rows are
 * @first:	its first row's index in the session's array of rows
 * @nr:		its rows
 * @index:	the slot of the array of rows where its index begins
 * @nr_pages:	the entries of its index
 * @gen:	bumped each time the slot gets another file's table; odd
 *		while it is being written (a walker then does not use it)
 * @pad:	0
 */
struct gotrace_unwind_table {
	__u32 first;
	__u32 nr;
	__u32 index;
	__u32 nr_pages;
	__u32 gen;
	__u32 pad;
};

/*
 * The module's limits (struct gotrace_options.unwind_rows,
 * .unwind_spaces; the BPF backend's maps have the same): the array of
 * rows from 1 MiB to 512 MiB, 32 MiB by default; the tables' slots; the
 * address spaces held at once, each GOTRACE_UNWIND_MAPS_MAX mappings.
 */
#define GOTRACE_UNWIND_ROWS_MIN		(1U << 16)
#define GOTRACE_UNWIND_ROWS_MAX		(1U << 25)
#define GOTRACE_UNWIND_ROWS_DEFAULT	(1U << 21)
#define GOTRACE_UNWIND_TABLES_MAX	4096
#define GOTRACE_UNWIND_SPACES_MIN	16
#define GOTRACE_UNWIND_SPACES_MAX	16384
#define GOTRACE_UNWIND_SPACES_DEFAULT	1024

/**
 * struct gotrace_unwind_rows - GOTRACE_IOC_UNWIND_ROWS: write rows
 * @first:	the first slot of the array of rows to write
 * @nr:		slots to write
 * @rows:	a user pointer to @nr struct gotrace_unwind_row (or, for a
 *		table's index, four __u32 entries a slot)
 */
struct gotrace_unwind_rows {
	__u32 first;
	__u32 nr;
	__u64 rows;
};

/**
 * struct gotrace_unwind_set_table - GOTRACE_IOC_UNWIND_TABLE: set a slot
 * @slot:	the table's slot, below GOTRACE_UNWIND_TABLES_MAX
 * @pad:	0
 * @table:	where its rows are; an odd @table.gen says the slot is
 *		being rewritten (its rows and index next), and walkers
 *		leave it alone until it is set again with an even one
 */
struct gotrace_unwind_set_table {
	__u32 slot;
	__u32 pad;
	struct gotrace_unwind_table table;
};

/**
 * struct gotrace_unwind_space - GOTRACE_IOC_UNWIND_SPACE, _SPACE_ID
 * @space:	the address space's identity, as the module names it (the
 *		one GOTRACE_IOC_UNWIND_SPACE_ID gives, or a miss reports)
 * @tgid:	a process in that space, in the caller's pid namespace
 * @nr:		entries at @maps, at most GOTRACE_UNWIND_MAPS_MAX, sorted
 *		by their start and apart; 0: forget @space
 * @maps:	a user pointer to @nr struct gotrace_unwind_map
 *
 * A process's space changes when it executes another program, and a
 * process id may be reused by another process: the module sets the
 * mappings only if @tgid's space is still @space, so that mappings read
 * from /proc before an exec never describe the program after it.
 */
struct gotrace_unwind_space {
	__u64 space;
	__s32 tgid;
	__u32 nr;
	__u64 maps;
};

/* struct gotrace_unwind_miss.why */
#define GOTRACE_UNW_MISS_SPACE	1	/* no mappings of the space loaded */
#define GOTRACE_UNW_MISS_MAP	2	/* a PC in none of its mappings: a
					 * file mapped since they were read
					 */

/**
 * struct gotrace_unwind_miss - a process whose mappings a walk lacked
 * @space:	its address space
 * @tgid:	the process, in the caller's pid namespace (0: not seen
 *		from there)
 * @why:	GOTRACE_UNW_MISS_*
 */
struct gotrace_unwind_miss {
	__u64 space;
	__s32 tgid;
	__u32 why;
};

/**
 * struct gotrace_unwind_misses - GOTRACE_IOC_UNWIND_MISSES: take misses
 * @nr:		in: room at @misses; out: misses written
 * @pad:	0
 * @misses:	a user pointer to @nr struct gotrace_unwind_miss
 */
struct gotrace_unwind_misses {
	__u32 nr;
	__u32 pad;
	__u64 misses;
};

#endif /* _UAPI_LINUX_GOTRACE_UNWIND_H */
