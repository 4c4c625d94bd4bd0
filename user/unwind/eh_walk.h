/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eh_walk.h - one step of a user stack walk by an unwind table: the
 * reference the walkers in the kernel and in BPF are held to
 *
 * Applies a row exactly as linux/gotrace_unwind.h defines it, over
 * registers and memory the caller provides (a test's image of a stack,
 * or the process itself), so that a table can be proven against a
 * known stack before any walker in the kernel uses it.
 */
#ifndef GOTRACE_UNWIND_EH_WALK_H
#define GOTRACE_UNWIND_EH_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "eh_table.h"

/**
 * struct gt_eh_regs - a frame's registers, as a walk knows them
 * @pc:		its PC: exact in the innermost frame, else a return address
 * @sp:		its stack pointer (rsp, sp)
 * @fp:		its frame pointer (rbp, x29), if not @fp_lost
 * @lr:		arm64's link register (x30), valid only in the innermost
 *		frame (and one a signal interrupted)
 * @innermost:	the frame was interrupted (a sample, a signal), not a
 *		caller: @pc is exact and @lr holds
 * @fp_lost:	a row with GOTRACE_UNW_FP_LOST was applied: @fp is unknown
 */
struct gt_eh_regs {
	uint64_t pc, sp, fp, lr;
	bool innermost;
	bool fp_lost;
};

/* Read the 8 bytes at @addr into *@val; 0, or -1 if they are not mapped. */
typedef int (*gt_eh_read_fn)(void *arg, uint64_t addr, uint64_t *val);

/* What a step did: GT_EH_STEP_OK, or why the walk stops there. */
enum gt_eh_step {
	GT_EH_STEP_OK,		/* @regs are the caller's */
	GT_EH_STEP_END,		/* the outermost frame: the stack is whole */
	GT_EH_STEP_NO_RULE,	/* no row for the PC, or a NONE row */
	GT_EH_STEP_NO_FP,	/* the CFA needs the fp, which was lost */
	GT_EH_STEP_NO_LR,	/* the return address is in the link register,
				 * which only the innermost frame has */
	GT_EH_STEP_FAULT,	/* a read failed */
};

/*
 * The caller of the frame @regs in place, by the row of @t for its PC
 * (@regs->pc - @bias is an address of the table's file: @bias is the
 * load bias; a return address is looked up one byte before, in the call
 * that made it), reading the stack through @read.  A signal frame's
 * caller is the interrupted state, read from the sigcontext of the
 * kernel's rt_sigframe at sp (x86-64: the ucontext at sp; arm64: the
 * siginfo, then the ucontext): innermost again.  @regs is unchanged
 * unless GT_EH_STEP_OK.
 */
enum gt_eh_step gt_eh_step(const struct gt_eh_table *t, uint64_t bias,
			   struct gt_eh_regs *regs, gt_eh_read_fn read,
			   void *arg);

/* "ok", "end", "no rule", ...: a step's result, for messages. */
const char *gt_eh_step_name(enum gt_eh_step s);

#endif /* GOTRACE_UNWIND_EH_WALK_H */
