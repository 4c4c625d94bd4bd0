// SPDX-License-Identifier: GPL-2.0
/*
 * eh_walk.c - one step of a stack walk by an unwind table (eh_walk.h)
 *
 * The formulas are linux/gotrace_unwind.h's, and nothing more: a walker
 * in the kernel that agrees with this one on a stack agrees with the
 * tables.  No check that the stack grows, or that a return address is
 * code: the walkers add those (they stop a walk), this one shows what
 * the rows say.
 */
#include <elf.h>
#include <stddef.h>

#include "eh_walk.h"

/*
 * Where a signal handler's return finds the interrupted registers, from
 * the stack pointer at the trampoline (the kernel's rt_sigframe; the
 * offsets of glibc's ucontext_t, which match the kernel's).
 */
#define X86_64_SIG_RBP	120	/* uc_mcontext.gregs[REG_RBP] */
#define X86_64_SIG_RSP	160	/* ...[REG_RSP] */
#define X86_64_SIG_RIP	168	/* ...[REG_RIP] */
#define ARM64_SIG_UC	128	/* after the siginfo */
#define ARM64_SIG_X29	(ARM64_SIG_UC + 416)	/* uc_mcontext.regs[29] */
#define ARM64_SIG_X30	(ARM64_SIG_UC + 424)
#define ARM64_SIG_SP	(ARM64_SIG_UC + 432)
#define ARM64_SIG_PC	(ARM64_SIG_UC + 440)

const char *gt_eh_step_name(enum gt_eh_step s)
{
	static const char *const names[] = {
		[GT_EH_STEP_OK] = "ok", [GT_EH_STEP_END] = "end",
		[GT_EH_STEP_NO_RULE] = "no rule", [GT_EH_STEP_NO_FP] = "no fp",
		[GT_EH_STEP_NO_LR] = "no lr", [GT_EH_STEP_FAULT] = "fault",
	};

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ?
	       names[s] : "?";
}

static enum gt_eh_step signal_step(const struct gt_eh_table *t,
				   struct gt_eh_regs *regs, gt_eh_read_fn read,
				   void *arg)
{
	struct gt_eh_regs c = { .innermost = true };
	uint64_t sp = regs->sp;

	if (t->machine == EM_X86_64) {
		if (read(arg, sp + X86_64_SIG_RIP, &c.pc) ||
		    read(arg, sp + X86_64_SIG_RSP, &c.sp) ||
		    read(arg, sp + X86_64_SIG_RBP, &c.fp))
			return GT_EH_STEP_FAULT;
	} else {
		if (read(arg, sp + ARM64_SIG_PC, &c.pc) ||
		    read(arg, sp + ARM64_SIG_SP, &c.sp) ||
		    read(arg, sp + ARM64_SIG_X29, &c.fp) ||
		    read(arg, sp + ARM64_SIG_X30, &c.lr))
			return GT_EH_STEP_FAULT;
	}
	*regs = c;
	return GT_EH_STEP_OK;
}

enum gt_eh_step gt_eh_step(const struct gt_eh_table *t, uint64_t bias,
			   struct gt_eh_regs *regs, gt_eh_read_fn read,
			   void *arg)
{
	uint64_t look = regs->pc - bias - !regs->innermost;
	const struct gotrace_unwind_row *row = gt_eh_table_find(t, look);
	struct gt_eh_regs c = { 0 };
	uint64_t cfa;

	if (!row || look >= t->end)
		return GT_EH_STEP_NO_RULE;
	switch (row->cfa_reg) {
	case GOTRACE_UNW_END:
		return GT_EH_STEP_END;
	case GOTRACE_UNW_SIGNAL:
		return signal_step(t, regs, read, arg);
	case GOTRACE_UNW_CFA_SP:
		cfa = regs->sp + (int64_t)row->cfa_off;
		break;
	case GOTRACE_UNW_CFA_FP:
		if (regs->fp_lost)
			return GT_EH_STEP_NO_FP;
		cfa = regs->fp + (int64_t)row->cfa_off;
		break;
	case GOTRACE_UNW_CFA_PLT:
		cfa = regs->sp + (int64_t)row->cfa_off +
		      ((regs->pc & 15) >= row->plt_at ? 8 : 0);
		break;
	default:
		return GT_EH_STEP_NO_RULE;
	}
	if (row->ra_off) {
		if (read(arg, cfa + (int64_t)row->ra_off, &c.pc))
			return GT_EH_STEP_FAULT;
	} else {
		if (!regs->innermost || t->machine != EM_AARCH64)
			return GT_EH_STEP_NO_LR;
		c.pc = regs->lr;
	}
	if (row->flags & GOTRACE_UNW_FP_LOST) {
		c.fp_lost = true;
	} else if (row->fp_off) {
		if (read(arg, cfa + (int64_t)row->fp_off, &c.fp))
			return GT_EH_STEP_FAULT;
	} else {
		c.fp = regs->fp;
		c.fp_lost = regs->fp_lost;
	}
	c.sp = cfa;
	*regs = c;
	return GT_EH_STEP_OK;
}
