/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack_regs.h - where a walk of a user stack starts, per architecture
 *
 * Both walks of a user stack (ustack.c by frame pointers, unwind_walk.c
 * by unwind tables) start from the user registers saved at the task's
 * entry to the kernel: the PC (instruction_pointer()), the stack pointer
 * (user_stack_pointer()), the frame pointer (rbp on x86-64, x29 on
 * arm64) and, on arm64, the link register x30, which holds the
 * innermost frame's return address until that frame saves it.  On both,
 * the record a frame pointer points at is {the caller's frame pointer,
 * the return address into the caller}.  A 32-bit task (ia32, aarch32)
 * has other records: no walk.  On arm64 a return address saved on the
 * stack may carry a pointer authentication code in its top bits (code
 * built with -mbranch-protection): gt_user_ret() strips it.
 */
#ifndef _GT_USTACK_REGS_H
#define _GT_USTACK_REGS_H

#include <linux/ptrace.h>

#include "compat.h"

/*
 * A frame is more than this above the previous one: it is not on the
 * stack (a thread's stack is 8 MiB by default, and a frame is never as
 * large), so the register followed was no frame pointer, or the rule
 * followed led off the stack.
 */
#define GT_USTACK_SPAN		(8UL << 20)

#if defined(CONFIG_X86_64)
/* The first frame record is at or above the stack pointer. */
#define GT_USTACK_SLACK		0UL

static inline bool ustack_native(struct pt_regs *regs)
{
	return user_64bit_mode(regs);
}

static inline unsigned long ustack_fp(const struct pt_regs *regs)
{
	return regs->bp;
}

static inline unsigned long ustack_lr(const struct pt_regs *regs)
{
	return 0;
}

static inline unsigned long ustack_ret(unsigned long ret)
{
	return ret;
}
#elif defined(CONFIG_ARM64)
/*
 * Go's arm64 functions keep their frame record 8 bytes below their stack
 * pointer (the return address at 0(RSP), the caller's frame pointer at
 * -8(RSP), x29 = RSP - 8): a record may be there, one below sp.
 */
#define GT_USTACK_SLACK		8UL

static inline bool ustack_native(struct pt_regs *regs)
{
	return !compat_user_mode(regs);
}

static inline unsigned long ustack_fp(const struct pt_regs *regs)
{
	return regs->regs[29];
}

static inline unsigned long ustack_ret(unsigned long ret)
{
	return gt_user_ret(ret);
}

static inline unsigned long ustack_lr(const struct pt_regs *regs)
{
	return gt_user_ret(regs->regs[30]);
}
#endif

#endif /* _GT_USTACK_REGS_H */
