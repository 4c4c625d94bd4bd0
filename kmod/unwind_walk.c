// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_walk.c - the user stack of current by the unwind tables
 *
 * With GOTRACE_OPT_UNWIND_TABLES, gt_ustack_walk() (ustack.c) hands the
 * walk to gt_unwind_walk(): one step a frame, from the registers saved
 * at current's entry to the kernel.  A step finds the PC's mapping in
 * the space's mappings the command loaded (unwind.c), the table of its
 * file, the row of the PC in the table (through the table's index: a
 * search among a few rows), and follows the row's rule
 * (include/uapi/linux/gotrace_unwind.h) to the caller's PC, stack
 * pointer and frame pointer.  Where a PC has no table (a Go binary,
 * whose frame pointers are exact; a file without .eh_frame; a process
 * or a library the command has not loaded yet), the step follows the
 * frame pointer instead, as the walk without tables does, and a walk
 * that could not go on says why (enum gt_ustack_stop).
 *
 * The reads of the user stack are one word each, with page faults
 * disabled by the caller: a word on a page that is not present ends the
 * walk (GT_USTOP_FAULT) rather than sleeping.  Every loop is bounded: a
 * step per frame kept (and one more), a search of GT_UW_PROBES slots
 * for the space, 7 halvings for the mapping, 27 for the row.
 *
 * Context: a probe or the sampling timer's hard interrupt, page faults
 * disabled; never an NMI.
 */
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "gotrace.h"
#include "unwind.h"
#include "ustack_regs.h"

/* Halvings of a search of rows: 2^27 rows, more than the array has. */
#define GT_UW_ROW_STEPS		27

/**
 * struct uw_walk - a walk's state
 * @uw:		the tables
 * @space:	current's space
 * @sp_slot:	its mappings (NULL: none loaded)
 * @seq:	their sequence count when found
 * @map:	the mapping found last (@map.end 0: none), where the next
 *		frame often is too
 * @pc:		the frame's PC
 * @sp:		its stack pointer
 * @fp:		its frame pointer, as far as it is known
 * @lr:		arm64's link register: the innermost frame's return
 *		address, until that frame saves it (0 on x86-64)
 * @stop:	why the walk ended (GT_USTOP_*)
 * @exact:	@pc is the instruction to run, no return address
 * @fp_lost:	@fp is not the frame's any more (a rule the walker does
 *		not follow restored it)
 * @missed:	a miss was reported for this walk already
 * @untabled:	a frame was stepped by its frame pointer for want of its
 *		table (GT_USTOP_NO_TABLE)
 */
struct uw_walk {
	struct gt_unwind *uw;
	u64 space;
	struct gt_uw_space *sp_slot;
	u32 seq;
	struct gotrace_unwind_map map;
	unsigned long pc, sp, fp, lr;
	unsigned int stop;
	bool exact;
	bool fp_lost;
	bool missed;
	bool untabled;
};

/* The aligned user word at @addr; false if it cannot be read now. */
static bool uw_read(unsigned long addr, unsigned long *v)
{
	const void __user *p = (const void __user *)addr;

	if (addr & (sizeof(long) - 1) || !access_ok(p, sizeof(*v)))
		return false;
	return !__copy_from_user_inatomic(v, p, sizeof(*v));
}

/*
 * One frame by its frame pointer: the record {caller's fp, return
 * address} at fp, above the stack pointer (less arm64's Go slack); the
 * caller's sp just above it.  False, with @stop set to @why or FAULT,
 * where there is none.  A frame pointer of 0 in code that keeps frame
 * pointers (@why GT_USTOP_BAD_FP) is the outermost frame, as in the walk
 * without tables: the C runtime and Go clear it at the start.
 */
static bool uw_fp_step(struct uw_walk *w, unsigned int why)
{
	unsigned long next, ret, lo = w->sp - GT_USTACK_SLACK;

	if (!w->fp && why == GT_USTOP_BAD_FP && !w->fp_lost) {
		w->stop = GT_USTOP_NONE;
		return false;
	}
	if (w->fp_lost || !w->fp || w->fp & 7 || w->fp < lo ||
	    w->fp - lo > GT_USTACK_SPAN) {
		w->stop = why;
		return false;
	}
	if (!uw_read(w->fp, &next) || !uw_read(w->fp + 8, &ret)) {
		w->stop = GT_USTOP_FAULT;
		return false;
	}
	w->sp = w->fp + 16;
	w->pc = ustack_ret(ret);
	w->fp = next;
	return true;
}

/* One frame by its row @r.  False, with @stop set, where the walk ends. */
static bool uw_row_step(struct uw_walk *w, const struct gotrace_unwind_row *r,
			bool innermost)
{
	unsigned long cfa, ra, fp = w->fp;

	switch (r->cfa_reg) {
	case GOTRACE_UNW_CFA_SP:
		cfa = w->sp + (long)r->cfa_off;
		break;
	case GOTRACE_UNW_CFA_FP:
		if (w->fp_lost) {
			w->stop = GT_USTOP_NO_RULE;
			return false;
		}
		cfa = w->fp + (long)r->cfa_off;
		break;
	case GOTRACE_UNW_CFA_PLT:
		cfa = w->sp + (long)r->cfa_off +
		      ((w->pc & 15) >= r->plt_at ? 8 : 0);
		break;
	case GOTRACE_UNW_END:
		w->stop = GT_USTOP_NONE;
		return false;
	case GOTRACE_UNW_SIGNAL:
		w->stop = GT_USTOP_SIGNAL;
		return false;
	default:
		return uw_fp_step(w, GT_USTOP_NO_RULE);
	}
	/*
	 * A frame's CFA is above its stack pointer, but for arm64's
	 * innermost frame that has not moved it yet (cfa == sp, the return
	 * address still in the link register): each step goes up the
	 * stack, so a walk ends.
	 */
	if (cfa < w->sp || cfa - w->sp > GT_USTACK_SPAN ||
	    (cfa == w->sp && (r->ra_off || !innermost))) {
		w->stop = GT_USTOP_BAD_CFA;
		return false;
	}
	if (!r->ra_off) {
		if (!innermost || !w->lr) {
			w->stop = GT_USTOP_BAD_CFA;
			return false;
		}
		ra = w->lr;
	} else if (!uw_read(cfa + (long)r->ra_off, &ra)) {
		w->stop = GT_USTOP_FAULT;
		return false;
	}
	if (r->fp_off && !uw_read(cfa + (long)r->fp_off, &fp)) {
		w->stop = GT_USTOP_FAULT;
		return false;
	}
	w->fp_lost = r->flags & GOTRACE_UNW_FP_LOST;
	w->fp = fp;
	w->sp = cfa;
	w->pc = ustack_ret(ra);
	return true;
}

/* Report current's space to the command once a walk. */
static void uw_report(struct uw_walk *w, u32 why)
{
	if (!w->missed) {
		w->missed = true;
		gt_uw_miss(w->uw, w->space, why);
	}
}

/* The mapping of the walk's PC into @map; false if none is loaded. */
static bool uw_map_find(struct uw_walk *w)
{
	if (w->map.end && w->pc >= w->map.start && w->pc < w->map.end)
		return true;
	if (!w->sp_slot) {
		uw_report(w, GOTRACE_UNW_MISS_SPACE);
		return false;
	}
	if (!gt_uw_map_of(w->uw, w->sp_slot, w->seq, w->space, w->pc,
			  &w->map)) {
		w->map.end = 0;
		uw_report(w, GOTRACE_UNW_MISS_MAP);
		return false;
	}
	return true;
}

/* Entry @i of the index at slot @index of the array of rows. */
static u32 uw_index_at(const struct gt_unwind *uw, u32 index, u32 i)
{
	const u32 *e = (const u32 *)&uw->rows[index + i / 4];

	return READ_ONCE(e[i & 3]);
}

enum uw_row_found {
	UW_ROW,
	UW_NO_TABLE,
	UW_NO_RULE,
};

/*
 * The row of the walk's PC in its mapping's table, into @row: the last
 * row whose pc is not above the PC's table position, found between the
 * index entries of its page and the next.  The row of a return address
 * is the call's: the byte before it.  UW_NO_TABLE where the table's slot
 * is not the mapping's table any more (evicted, being rewritten).
 */
static enum uw_row_found uw_row_of(struct uw_walk *w,
				   struct gotrace_unwind_row *row)
{
	const struct gt_unwind *uw = w->uw;
	const struct gotrace_unwind_table *t;
	u32 gen, first, nr, index, pages, page, lo, n, half, a, b;
	u64 rel;

	if (w->map.table > GOTRACE_UNWIND_TABLES_MAX)
		return UW_NO_TABLE;
	t = &uw->tables[w->map.table - 1];
	/* The fields after it: pairs with the table ioctl's smp_wmb(). */
	gen = smp_load_acquire(&t->gen);
	if (gen & 1 || gen != w->map.gen)
		return UW_NO_TABLE;
	first = READ_ONCE(t->first);
	nr = READ_ONCE(t->nr);
	index = READ_ONCE(t->index);
	pages = READ_ONCE(t->nr_pages);
	/* Checked at the ioctl; again here, whatever a race left. */
	if (!nr || !pages || first > uw->nr_rows || nr > uw->nr_rows - first ||
	    index > uw->nr_rows ||
	    DIV_ROUND_UP(pages, 4) > uw->nr_rows - index)
		return UW_NO_TABLE;
	rel = w->pc - w->map.bias - !w->exact;
	if (rel >> 32)
		return UW_NO_RULE;
	page = min_t(u32, rel >> GOTRACE_UNWIND_PAGE_SHIFT, pages - 1);
	a = uw_index_at(uw, index, page);
	b = page + 1 < pages ? uw_index_at(uw, index, page + 1) : nr - 1;
	if (b < a || b >= nr)
		return UW_NO_RULE;
	lo = a;
	n = b - a + 1;
	for (half = 0; half < GT_UW_ROW_STEPS && n > 1; half++) {
		u32 h = n / 2;

		if (READ_ONCE(uw->rows[first + lo + h].pc) <= rel)
			lo += h;
		n -= h;
	}
	*row = uw->rows[first + lo];
	/*
	 * The row before the generation again (pairs with the smp_wmb()s of
	 * the table's ioctl): changed, the command rewrote the slot
	 * meanwhile, and the row may be another table's.
	 */
	smp_rmb();
	if (READ_ONCE(t->gen) != gen)
		return UW_NO_TABLE;
	return row->pc <= rel ? UW_ROW : UW_NO_RULE;
}

/*
 * The step from the walk's frame to its caller.  False where the walk
 * ends, with @stop set.
 */
static bool uw_step(struct uw_walk *w, bool innermost)
{
	struct gotrace_unwind_row row;
	bool ok, tabled = false;

	if (!uw_map_find(w)) {
		ok = uw_fp_step(w, GT_USTOP_NO_TABLE);
		w->untabled = true;
	} else if (!w->map.table) {
		ok = uw_fp_step(w, GT_USTOP_BAD_FP);
	} else {
		switch (uw_row_of(w, &row)) {
		case UW_ROW:
			tabled = true;
			ok = uw_row_step(w, &row, innermost);
			break;
		case UW_NO_TABLE:
			ok = uw_fp_step(w, GT_USTOP_NO_TABLE);
			w->untabled = true;
			break;
		default:
			ok = uw_fp_step(w, GT_USTOP_NO_RULE);
			break;
		}
	}
	w->exact = false;
	if (!ok)
		return false;
	if (!w->pc) {
		w->stop = GT_USTOP_NONE;
		return false;
	}
	if (w->pc >= TASK_SIZE_MAX) {
		w->stop = tabled ? GT_USTOP_BAD_CFA : GT_USTOP_BAD_FP;
		return false;
	}
	return true;
}

/**
 * gt_unwind_walk() - the user frames of current by the unwind tables
 * @uw:		the session's tables
 * @regs:	current's saved user registers (a native task's)
 * @space:	current's space
 * @pcs:	the frames: pcs[0], the user PC, set by the caller
 * @max:	at most this many frames in all (1 or more)
 * @stop:	set to why the walk ended before the outermost frame
 *		(GT_USTOP_NONE if it did not)
 * @exact:	pcs[0] is the instruction to run (gt_ustack_walk())
 *
 * The loop runs one step more than the frames it may keep, so that a
 * stack of exactly @max frames ends whole.
 *
 * Context: see the file's comment; page faults disabled.
 * Return: the frames in @pcs.
 */
unsigned int gt_unwind_walk(struct gt_unwind *uw, struct pt_regs *regs,
			    u64 space, u64 *pcs, unsigned int max,
			    unsigned int *stop, bool exact)
{
	struct uw_walk w = {
		.uw = uw,
		.space = space,
		.pc = pcs[0],
		.sp = user_stack_pointer(regs),
		.fp = ustack_fp(regs),
		.lr = ustack_lr(regs),
		.stop = GT_USTOP_DEPTH,
		.exact = exact,
	};
	unsigned int n = 1, i;

	w.sp_slot = gt_uw_space_find(uw, space, &w.seq);
	for (i = 0; i < max; i++) {
		if (!uw_step(&w, i == 0))
			break;
		if (n == max) {
			w.stop = GT_USTOP_DEPTH;
			break;
		}
		pcs[n++] = w.pc;
	}
	/*
	 * Frame pointers that led to the end through code without its
	 * table may have skipped frames (arm64's C library keeps frame
	 * records, the program's functions between them do not): not
	 * whole, as far as the walker knows.
	 */
	if (w.stop == GT_USTOP_NONE && w.untabled)
		w.stop = GT_USTOP_NO_TABLE;
	*stop = w.stop;
	return n;
}
