// SPDX-License-Identifier: GPL-2.0
/*
 * go111_writer.c - the model's transitions as "go 1.11 trace" events
 *
 * One event a transition (two for a syscall that sleeps: GoSysBlock,
 * then ProcStop), appended to the CPU's chunk at the time model.c
 * stamped.  The mapping (Documentation/model.rst):
 *
 *   PROCS        Gomaxprocs(n)
 *   P_START      ProcStart(thread = the CPU)
 *   P_STOP       ProcStop
 *   CREATE       GoCreate(g, its stack, creator's stack)
 *   WAITING      GoWaiting(g)
 *   START        GoStart(g, seq) or GoStartLocal(g)
 *   UNBLOCK      GoUnblock(g, seq, stk) or GoUnblockLocal(g, stk)
 *   SYS_WAKE     GoSysExit(g, seq, 0)
 *   PREEMPT      GoPreempt(stk)
 *   YIELD        GoSched(stk)
 *   BLOCK        GoSleep, GoBlockSend, -Recv, -Select, -Sync, -Net or
 *                GoBlock(stk), by its class
 *   END          GoEnd
 *   SYSCALL      GoSysCall(stk)
 *   SYS_BLOCK    GoSysBlock ProcStop
 *   IRQ_NEW      GoCreate(g, its name's stack, 0) GoWaiting(g)
 *   SWITCH       GoBlock(0) of the goroutine the P ran, if any, then
 *                GoUnblock(g, seq, 0) GoStart(g, seq) of the one it
 *                runs, if any: the 1.11 format has no GoSwitch
 *   REGION_BEGIN UserRegion(0, 0, name, stk), REGION_END the same, 1
 */
#include "model_state.h"

/* One event on CPU @c's chunk; false if the pool had no chunk for it. */
static bool event(struct gt_model *m, struct gt_cpu *c, unsigned int type,
		  const u64 *args, unsigned int nargs, u64 ts, bool closing)
{
	if (!gt_cpu_room(m, c, ts, GT_EV_MAX_BYTES, closing))
		return false;
	gt_enc_event(&c->enc, type, ts, args, nargs);
	c->events++;
	return true;
}

/*
 * Does @t's GoStart or GoUnblock on this P go without its sequence
 * number (GoStartLocal, GoUnblockLocal)?  Go's 1.11 readers take one in
 * the order of its P's events, which holds every event of the goroutine
 * since the last one that carried its number was written on this same
 * P (or it was created there); so does Go's runtime.  The number takes
 * 2 or 3 of the 7 to 11 bytes of these events in a ping-pong, whose
 * goroutines never leave their P.
 */
static bool seq_local(const struct gt_cpu *c, const struct gt_task *t)
{
	return t->w111.seq_p == c->id + 1;
}

/* @t's sequence number advanced by an event of this P. */
static void seq_next(const struct gt_cpu *c, struct gt_task *t)
{
	t->w111.seq++;
	t->w111.seq_p = c->id + 1;
}

/* The block event of each class: the blocking profile it shows in. */
static const u8 block_event[GT_BLOCK_NR] = {
	[GT_BLOCK_OTHER] = GOTRACE_EV_GO_BLOCK,
	[GT_BLOCK_SLEEP] = GOTRACE_EV_GO_SLEEP,
	[GT_BLOCK_SEND] = GOTRACE_EV_GO_BLOCK_SEND,
	[GT_BLOCK_RECV] = GOTRACE_EV_GO_BLOCK_RECV,
	[GT_BLOCK_SELECT] = GOTRACE_EV_GO_BLOCK_SELECT,
	[GT_BLOCK_SYNC] = GOTRACE_EV_GO_BLOCK_SYNC,
	[GT_BLOCK_NET] = GOTRACE_EV_GO_BLOCK_NET,
};

/* GoStart, GoUnblock or GoSysExit: they carry @t's sequence number. */
static bool ordered(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		    const struct gt_tr *tr, u64 ts, bool closing)
{
	bool local = seq_local(c, t);
	u64 a[3] = { t->goid, t->w111.seq + 1, tr->stack };
	bool ok;

	switch (tr->kind) {
	case GT_TR_START:
		ok = local ? event(m, c, GOTRACE_EV_GO_START_LOCAL, a, 1, ts,
				   closing) :
			     event(m, c, GOTRACE_EV_GO_START, a, 2, ts, closing);
		break;
	case GT_TR_UNBLOCK:
		if (local) {
			a[1] = tr->stack;
			ok = event(m, c, GOTRACE_EV_GO_UNBLOCK_LOCAL, a, 2, ts,
				   closing);
		} else {
			ok = event(m, c, GOTRACE_EV_GO_UNBLOCK, a, 3, ts,
				   closing);
		}
		break;
	default:	/* GT_TR_SYS_WAKE: no real timestamp of its own */
		a[2] = 0;
		ok = event(m, c, GOTRACE_EV_GO_SYSEXIT, a, 3, ts, closing);
		break;
	}
	if (ok)
		seq_next(c, t);
	return ok;
}

/*
 * The P runs @to (NULL: nothing) instead of @from (NULL: nothing): an
 * interrupt comes or goes (Documentation/interrupts.rst).  A plain
 * GoBlock, in no profile, then GoUnblock and GoStart on this P, at the
 * same time: no latency is charged.
 */
static bool w111_switch(struct gt_model *m, struct gt_cpu *c,
			struct gt_task *from, struct gt_task *to, u64 ts,
			bool closing)
{
	struct gt_tr unblock = { .kind = GT_TR_UNBLOCK };
	struct gt_tr start = { .kind = GT_TR_START };
	u64 none = 0;

	if (from && !event(m, c, GOTRACE_EV_GO_BLOCK, &none, 1, ts, closing))
		return false;
	return !to || (ordered(m, c, to, &unblock, ts, closing) &&
		       ordered(m, c, to, &start, ts, closing));
}

/* A work item's region of @t (task 0: background) begins or ends. */
static bool w111_region(struct gt_model *m, struct gt_cpu *c,
			const struct gt_tr *tr, u64 ts, bool closing)
{
	u64 a[4] = { 0, tr->kind == GT_TR_REGION_END, gt_work_string(m, tr->n),
		     tr->stack };

	return event(m, c, GOTRACE_EV_USER_REGION, a, 4, ts, closing);
}

/**
 * gt_w111_reserve() - room for @nr_events events on CPU @c's chunk
 * @m:		the model
 * @c:		this CPU, interrupts off
 * @ts:		the time of the first of them
 * @nr_events:	how many must not be split by a chunk's end
 * @closing:	the stop's events: the close reserve may be used
 *
 * Return: false if the pool had no chunk for them.
 */
bool gt_w111_reserve(struct gt_model *m, struct gt_cpu *c, u64 ts,
		     unsigned int nr_events, bool closing)
{
	return gt_cpu_room(m, c, ts, nr_events * GT_EV_MAX_BYTES, closing);
}

/**
 * gt_w111_write() - write one transition of the model as 1.11 events
 * @m:		the model, writing GT_FORMAT_GO111
 * @c:		the CPU (P) it happens on, interrupts off
 * @t:		the goroutine it changes, NULL for the P's own transitions
 * @tr:		the transition
 * @ts:		its time, clamped by the caller
 * @closing:	written by the stop: the close reserve may be used
 *
 * Return: false if the pool had no chunk for it: nothing of it was
 * written but, for GT_TR_SYS_BLOCK, maybe its GoSysBlock (the caller
 * ends the trace there; sys_block() in model.c made room for both).
 */
bool gt_w111_write(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		   const struct gt_tr *tr, u64 ts, bool closing)
{
	u64 a[3];

	switch (tr->kind) {
	case GT_TR_PROCS:
		a[0] = tr->n;
		a[1] = 0;
		return event(m, c, GOTRACE_EV_GOMAXPROCS, a, 2, ts, closing);
	case GT_TR_P_START:
		a[0] = tr->n;
		return event(m, c, GOTRACE_EV_PROC_START, a, 1, ts, closing);
	case GT_TR_P_STOP:
		return event(m, c, GOTRACE_EV_PROC_STOP, NULL, 0, ts, closing);
	case GT_TR_CREATE:
		a[0] = t->goid;
		a[1] = tr->stack2;
		a[2] = tr->stack;
		if (!event(m, c, GOTRACE_EV_GO_CREATE, a, 3, ts, closing))
			return false;
		t->w111.seq = 0;
		t->w111.seq_p = c->id + 1;
		return true;
	case GT_TR_WAITING:
		a[0] = t->goid;
		if (!event(m, c, GOTRACE_EV_GO_WAITING, a, 1, ts, closing))
			return false;
		t->w111.seq = 1;
		return true;
	case GT_TR_START:
	case GT_TR_UNBLOCK:
	case GT_TR_SYS_WAKE:
		return ordered(m, c, t, tr, ts, closing);
	case GT_TR_PREEMPT:
		return event(m, c, GOTRACE_EV_GO_PREEMPT, &tr->stack, 1, ts,
			     closing);
	case GT_TR_YIELD:
		return event(m, c, GOTRACE_EV_GO_SCHED, &tr->stack, 1, ts,
			     closing);
	case GT_TR_BLOCK:
		return event(m, c, block_event[tr->why], &tr->stack, 1, ts,
			     closing);
	case GT_TR_END:
		/* A work item's region ends with it: Go's readers allow it. */
		if (!event(m, c, GOTRACE_EV_GO_END, NULL, 0, ts, closing))
			return false;
		t->work = 0;
		return true;
	case GT_TR_SYSCALL:
		return event(m, c, GOTRACE_EV_GO_SYSCALL, &tr->stack, 1, ts,
			     closing);
	case GT_TR_SYS_BLOCK:
		return event(m, c, GOTRACE_EV_GO_SYSBLOCK, NULL, 0, ts,
			     closing) &&
		       event(m, c, GOTRACE_EV_PROC_STOP, NULL, 0, ts, closing);
	case GT_TR_IRQ_NEW:
		a[0] = t->goid;
		a[1] = tr->stack2;
		a[2] = 0;
		if (!event(m, c, GOTRACE_EV_GO_CREATE, a, 3, ts, closing) ||
		    !event(m, c, GOTRACE_EV_GO_WAITING, a, 1, ts, closing))
			return false;
		t->w111.seq = 1;
		t->w111.seq_p = c->id + 1;
		return true;
	case GT_TR_SWITCH:
		return w111_switch(m, c, tr->from, t, ts, closing);
	case GT_TR_REGION_BEGIN:
	case GT_TR_REGION_END:
		return w111_region(m, c, tr, ts, closing);
	}
	return false;
}
