/* SPDX-License-Identifier: GPL-2.0 */
/*
 * transition.h - what the model writes, in its own words
 *
 * The model (model.c) decides what Linux's events mean for the trace's
 * goroutines and Ps, and says each change as one transition of this
 * list, whatever the format.  A writer says it in its format and owns
 * its buffers, tables and the state its format needs: go111_writer.c
 * (events into go111_chunk.c's chunks, sequence numbers) for "go 1.11 trace",
 * go123_writer.c (generation buffers, statuses, sweeps) for the
 * generational format.  model.c picks the writer with one switch on the
 * session's format: no indirect call on the hot path.  Dropping a
 * format is deleting its writer (Documentation/model.rst).
 *
 * Every transition but GT_TR_PROCS, GT_TR_P_START and GT_TR_P_STOP is of
 * one goroutine, the task the writer is given; GT_TR_SWITCH of two, the
 * one it gives the P to (the task, NULL for none) and @from.  An
 * interrupt's goroutine (struct gt_irq_g) runs on the M of the task it
 * interrupted, or on the CPU's idle M (Documentation/interrupts.rst).  A new goroutine's
 * GT_TR_CREATE happens at @stack, where it was made (0: not known).
 */
#ifndef _GT_TRANSITION_H
#define _GT_TRANSITION_H

#include "model_types.h"

enum gt_tr_kind {
	GT_TR_PROCS,		/* the trace's Ps are now @n */
	GT_TR_P_START,		/* this CPU's P, number @n, starts */
	GT_TR_P_STOP,		/* it stops */
	GT_TR_CREATE,		/* new, runnable, named by @stack2 */
	GT_TR_WAITING,		/* it waited before the trace began */
	GT_TR_START,		/* it starts running on this P */
	GT_TR_UNBLOCK,		/* it stops waiting; @stack: the waker's */
	GT_TR_SYS_WAKE,		/* its blocked syscall returns: runnable */
	GT_TR_PREEMPT,		/* it is taken off the P at @stack */
	GT_TR_YIELD,		/* it gives the P up (sched_yield) at @stack */
	GT_TR_BLOCK,		/* it waits, for @why, at @stack */
	GT_TR_END,		/* it ends */
	GT_TR_SYSCALL,		/* it enters a syscall at @stack */
	GT_TR_SYS_BLOCK,	/* its syscall sleeps; its P stops */
	GT_TR_IRQ_NEW,		/* an interrupt's goroutine, new and
				 * waiting, named by @stack2
				 */
	GT_TR_SWITCH,		/* the P runs it (NULL: nothing) instead of
				 * @from (NULL: nothing, the P was idle),
				 * which waits; at the same time, no
				 * latency: an interrupt comes or goes
				 */
	GT_TR_REGION_BEGIN,	/* it runs work item @n (an index of the
				 * session's work functions)
				 */
	GT_TR_REGION_END,	/* the work item ends */
};

/*
 * What a goroutine waits for (GT_TR_BLOCK), from the syscall it sleeps
 * in (classify.c): the class of Go's blocking profiles it falls in.
 */
enum gt_block_class {
	GT_BLOCK_OTHER,		/* anything else: a plain block */
	GT_BLOCK_SLEEP,		/* time (nanosleep) */
	GT_BLOCK_SEND,		/* room in a pipe */
	GT_BLOCK_RECV,		/* data in a pipe, a child's end */
	GT_BLOCK_SELECT,	/* one of several files (poll, select) */
	GT_BLOCK_SYNC,		/* a futex */
	GT_BLOCK_NET,		/* a socket, epoll */
	GT_BLOCK_NR
};

/**
 * struct gt_tr - one transition
 * @kind:	enum gt_tr_kind
 * @why:	enum gt_block_class, of GT_TR_BLOCK
 * @n:		GT_TR_PROCS: the number of Ps; GT_TR_P_START: the P
 * @stack:	the stack the transition happens at (a reference of
 *		tables.c), 0 if none
 * @stack2:	GT_TR_CREATE, GT_TR_IRQ_NEW: the new goroutine's own stack
 * @from:	GT_TR_SWITCH: the goroutine the P ran, NULL if none
 */
struct gt_task;
struct gt_tr {
	u8 kind;
	u8 why;
	u32 n;
	u64 stack;
	u64 stack2;
	struct gt_task *from;
};

#endif /* _GT_TRANSITION_H */
