// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - Linux tasks as goroutines, CPUs as Ps
 *
 * The emitter owns a model of what the trace says: for every task its
 * goroutine id, state (runnable, running, waiting, waiting in a syscall,
 * dead) and sequence number; for every CPU the goroutine the trace has
 * running on its P.  Every event is derived from the model, and the model
 * only allows transitions the Go parsers accept (a start needs a runnable
 * goroutine, a wakeup a waiting one, ...).  When Linux reports something
 * the model did not see coming (events before the start snapshot was
 * armed, a task the snapshot missed, a task_struct reused), the missing
 * transitions are written first: the trace loses a few nanoseconds of
 * accuracy, never its validity.  Linux -> Go mapping:
 * Documentation/mapping.rst.  The task table is tasks.c, the syscall
 * classification of blocks classify.c, the chunk a CPU writes to
 * chunk.c.
 *
 * Time: ns of ktime_get_mono_fast_ns(), clamped so that a P's time never
 * goes back and every event that changes a task's state is later than the
 * previous one, whatever CPU wrote it (per-CPU clocks may skew):
 *   ts = max(now, cpu->last_ts, task->last_ts + 1)
 *
 * Context:
 *   gt_model_*() probe hooks: probe context, any of task, softirq or
 *   hardirq; they disable interrupts while an event is stamped and
 *   appended, never sleep and never allocate.
 *   gt_model_snapshot(), gt_model_close(): process context, under the
 *   session lock; gt_model_close() only once every probe is detached.
 * Locking:
 *   A task's entry is guarded by the raw spinlock of its hash bucket.  A
 *   probe holds at most one bucket lock at a time; chunk pool, tables and
 *   task free-list locks nest inside it.  A CPU's struct gt_cpu is touched
 *   only by that CPU with interrupts off.  The sequence number of a task
 *   is incremented in the same critical section that appends the event
 *   carrying it, which is what orders a task's events across CPUs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/stacktrace.h>
#include <linux/timekeeping.h>
#include <asm/unistd.h>

#include "gotrace.h"

static inline u64 gt_clock(void)
{
	return ktime_get_mono_fast_ns();
}

/*
 * Stamp and append one event on the P of CPU @cpu (@c), at @when or, to
 * keep time going forward on the P and for the task, just after their
 * last event.  @t, if not NULL, is the task whose state the event changes
 * (its bucket lock held, or it runs on this P).  Returns false if nothing
 * was written: the session is then halted, and the caller leaves the
 * model as it was, so the model keeps describing the file exactly.
 */
static bool model_event_write(struct gt_session *s, struct gt_cpu *c,
			      int cpu, struct gt_task *t, unsigned int type,
			      const u64 *args, unsigned int nargs, u64 when,
			      bool closing)
{
	u64 ts = max(when, c->last_ts);

	lockdep_assert_irqs_disabled();
	if (t)
		ts = max(ts, t->last_ts + 1);
	if (READ_ONCE(s->halted) && !closing) {
		c->lost++;
		return false;
	}
	if (!gt_cpu_room(s, c, cpu, ts, GT_EV_MAX_BYTES, closing)) {
		c->lost++;
		gt_session_halt(s);
		return false;
	}
	gt_enc_event(&c->enc, type, ts, args, nargs);
	c->last_ts = ts;
	if (t)
		t->last_ts = ts;
	c->events++;
	return true;
}

/*
 * Write the P's pending GoSysCall, if any.  Its task is the one running
 * on this P (any event that takes it off the P comes through here
 * first), so its time is written without its bucket lock.
 */
static void sys_pending_write(struct gt_session *s, struct gt_cpu *c, int cpu,
			      bool closing)
{
	struct gt_sys_pending *sp = &c->sys_pending;
	struct gt_task *t = sp->task;
	u64 stack = sp->stack;

	if (!t)
		return;
	sp->task = NULL;
	if (t == c->cur)
		model_event_write(s, c, cpu, t, GOTRACE_EV_GO_SYSCALL, &stack, 1,
				  sp->ts, closing);
}

/*
 * Take back @t's pending GoSysCall of the syscall it is in, which was
 * not written yet; its time goes to @ts.  False if there is none.
 */
static bool sys_pending_take(struct gt_cpu *c, const struct gt_task *t,
			     u64 *ts)
{
	struct gt_sys_pending *sp = &c->sys_pending;

	if (sp->task != t || sp->returned)
		return false;
	*ts = sp->ts;
	sp->task = NULL;
	return true;
}

/* An event of this P: the pending GoSysCall first; see model_event_write() */
static bool model_emit_at(struct gt_session *s, struct gt_cpu *c,
			  struct gt_task *t, unsigned int type,
			  const u64 *args, unsigned int nargs, u64 when,
			  bool closing)
{
	int cpu = smp_processor_id();

	sys_pending_write(s, c, cpu, closing);
	return model_event_write(s, c, cpu, t, type, args, nargs, when,
				 closing);
}

/* An event of now; see model_emit_at(). */
static bool model_emit(struct gt_session *s, struct gt_cpu *c,
		       struct gt_task *t, unsigned int type, const u64 *args,
		       unsigned int nargs, bool closing)
{
	return model_emit_at(s, c, t, type, args, nargs, gt_clock(), closing);
}

static bool model_emit0(struct gt_session *s, struct gt_cpu *c,
			struct gt_task *t, unsigned int type)
{
	return model_emit(s, c, t, type, NULL, 0, false);
}

static bool model_emit1(struct gt_session *s, struct gt_cpu *c,
			struct gt_task *t, unsigned int type, u64 a)
{
	return model_emit(s, c, t, type, &a, 1, false);
}

static bool model_emit2(struct gt_session *s, struct gt_cpu *c,
			struct gt_task *t, unsigned int type, u64 a, u64 b)
{
	u64 v[2] = { a, b };

	return model_emit(s, c, t, type, v, 2, false);
}

static bool model_emit3(struct gt_session *s, struct gt_cpu *c,
			struct gt_task *t, unsigned int type, u64 a, u64 b,
			u64 d)
{
	u64 v[3] = { a, b, d };

	return model_emit(s, c, t, type, v, 3, false);
}

/* ---- Stacks ------------------------------------------------------------ */

/*
 * Save the kernel stack of the code that hit the tracepoint into @pcs
 * (at most @max PCs, innermost first): this module's frames and the
 * tracepoint's iterator are dropped, so that every stack starts where the
 * kernel was (__schedule, try_to_wake_up, ...), however the compiler
 * inlined our functions.  None when the session was asked for none: the
 * unwinding is most of what a switch or a wakeup costs.
 */
static unsigned int stack_save(const struct gt_session *s, u64 *pcs,
			       unsigned int max)
{
	unsigned long *p = (unsigned long *)pcs;
	unsigned int n, i = 0;

	if (s->opts.flags & GOTRACE_OPT_NO_KSTACKS)
		return 0;
	n = stack_trace_save(p, max, 0);
	while (i < n && within_module(p[i], THIS_MODULE))
		i++;
	if (i < n && gt_probes_is_iterator(p[i]))
		i++;
	memmove(p, p + i, (n - i) * sizeof(*p));
	return n - i;
}

/*
 * The stack of the running kernel code (innermost first, without the
 * probe's own frames), ending with the comm frame of @comm_of when given.
 * Returns the stack id, or @fallback when the table is full.
 */
static u32 stack_here(struct gt_session *s, struct gt_cpu *c,
		      const struct task_struct *comm_of, u32 fallback)
{
	unsigned int n;
	u32 id;

	n = stack_save(s, c->pcs, GT_KSTACK_MAX);
	if (comm_of)
		c->pcs[n++] = gt_tables_comm_pc(s->tables, comm_of->comm);
	if (!n)
		return fallback;
	id = gt_tables_stack(s->tables, c->pcs, n);
	if (!id) {
		atomic64_inc(&s->stack_overflows);
		return fallback;
	}
	return id;
}

/* ---- Transitions (task's bucket lock held, irqs off) ------------------- */

/* GoCreate: @t becomes a new runnable goroutine named after @p's comm. */
static bool g_create(struct gt_session *s, struct gt_cpu *c, struct gt_task *t,
		     const struct task_struct *p, u32 creator_stack)
{
	u32 comm_stack = gt_tables_comm_stack(s->tables, p->comm);

	if (!comm_stack) {
		atomic64_inc(&s->stack_overflows);
		gt_session_halt(s);
		return false;
	}
	t->goid = gt_tasks_goid(s, p->pid);
	t->comm_stack = comm_stack;
	memcpy(t->comm, p->comm, sizeof(t->comm));
	t->seq = 0;
	if (!model_emit3(s, c, t, GOTRACE_EV_GO_CREATE, t->goid, comm_stack,
			 creator_stack))
		return false;
	t->state = GT_G_RUNNABLE;
	return true;
}

/* GoUnblock or GoSysExit: a waiting goroutine becomes runnable. */
static bool g_wake(struct gt_session *s, struct gt_cpu *c, struct gt_task *t,
		   u32 stack)
{
	bool ok;

	if (t->state == GT_G_SYSWAIT)
		ok = model_emit3(s, c, t, GOTRACE_EV_GO_SYSEXIT, t->goid, t->seq + 1, 0);
	else
		ok = model_emit3(s, c, t, GOTRACE_EV_GO_UNBLOCK, t->goid, t->seq + 1, stack);
	if (!ok)
		return false;
	t->seq++;
	t->state = GT_G_RUNNABLE;
	return true;
}

/* ProcStart, if the P is stopped.  The thread id is the CPU number. */
static bool p_start(struct gt_session *s, struct gt_cpu *c)
{
	if (c->p_started)
		return true;
	if (!model_emit1(s, c, NULL, GOTRACE_EV_PROC_START, smp_processor_id()))
		return false;
	c->p_started = true;
	return true;
}

/* GoStart of a runnable goroutine on this CPU's P. */
static bool g_start(struct gt_session *s, struct gt_cpu *c, struct gt_task *t)
{
	struct gt_task *old = c->cur;

	if (!p_start(s, c))
		return false;
	/*
	 * hook_enter() took any goroutine Linux does not run off this P, and
	 * every path that takes a goroutine off it clears c->cur: another
	 * one here means a missed transition.  The caller holds @t's bucket
	 * lock and may not wait for a second one, so the trace ends.
	 */
	if (old && old != t) {
		gt_session_halt(s);
		return false;
	}
	if (!model_emit2(s, c, t, GOTRACE_EV_GO_START, t->goid, t->seq + 1))
		return false;
	t->seq++;
	t->state = GT_G_RUNNING;
	c->cur = t;
	return true;
}

/*
 * Bring @t to "running on this P", writing whatever transitions the model
 * missed.  A task the model has running on another P means events were
 * lost there: the trace cannot go on consistently, so it ends.
 */
static bool g_ensure_running(struct gt_session *s, struct gt_cpu *c,
			     struct gt_task *t, const struct task_struct *p)
{
	if (c->cur == t)
		return true;
	switch (t->state) {
	case GT_G_NONE:
	case GT_G_DEAD:
		if (!g_create(s, c, t, p, 0))
			return false;
		break;
	case GT_G_WAITING:
	case GT_G_SYSWAIT:
		if (!g_wake(s, c, t, 0))
			return false;
		break;
	case GT_G_RUNNING:
		gt_session_halt(s);
		return false;
	}
	return g_start(s, c, t);
}

/*
 * A goroutine's name is fixed when it is created, but a task can rename
 * itself (prctl(PR_SET_NAME), pthread_setname_np(), a write to
 * /proc/<pid>/comm, busybox applets) or be renamed.  When @p, running on
 * this P as @t, no longer has the comm @t was named after, @t ends and a
 * goroutine of the new name takes its place, as on exec.  The comm is
 * read without task_lock(), which may sleep on PREEMPT_RT: a rename torn
 * by a concurrent writer is fixed at the next check.
 */
static bool comm_changed(const struct gt_task *t, const struct task_struct *p)
{
	return memcmp(t->comm, p->comm, sizeof(t->comm)) != 0;
}

static bool g_rename(struct gt_session *s, struct gt_cpu *c, struct gt_task *t,
		     const struct task_struct *p)
{
	if (!model_emit0(s, c, t, GOTRACE_EV_GO_END))
		return false;
	t->state = GT_G_DEAD;
	c->cur = NULL;
	return g_create(s, c, t, p, 0) && g_start(s, c, t);
}

/*
 * @p, running on this CPU as @t, executed a program or changed its comm:
 * the filters decide again.  A hidden task that now matches becomes a
 * goroutine, running here; a recorded one that no longer matches ends
 * (GoEnd) and is hidden from now on; one that still matches is renamed
 * if its comm changed.  Children adopted by the session stay recorded.
 * Returns true if @t is in the trace and running here.
 */
static bool g_refilter(struct gt_session *s, struct gt_cpu *c,
		       struct gt_task *t, const struct task_struct *p)
{
	bool match = t->adopted || gt_tasks_match(s, p);

	if (t->hidden) {
		memcpy(t->comm, p->comm, sizeof(t->comm));
		if (!match)
			return false;
		t->hidden = false;
		t->state = GT_G_NONE;
		/* What it did while hidden was not seen. */
		t->sys_nr = GT_SYS_UNKNOWN;
		return g_ensure_running(s, c, t, p);
	}
	if (!g_ensure_running(s, c, t, p))
		return false;
	if (match)
		return !comm_changed(t, p) || g_rename(s, c, t, p);
	if (!model_emit0(s, c, t, GOTRACE_EV_GO_END))
		return false;
	t->state = GT_G_DEAD;
	t->hidden = true;
	c->cur = NULL;
	memcpy(t->comm, p->comm, sizeof(t->comm));
	return false;
}

/* ---- Syscalls --------------------------------------------------------- */

/* Is @t's current syscall one the session records? */
static bool sys_recorded(struct gt_session *s, const struct gt_task *t)
{
	return t->sys_nr >= 0 && s->opts.syscalls != GOTRACE_SYSCALLS_NONE &&
	       gt_syscall_selected(&s->opts, t->sys_nr, t->sys_compat);
}

/*
 * The stack of a syscall entry: the syscall's frame and @t's comm frame,
 * from this CPU's cache, so that entering a syscall walks no stack and
 * mostly takes no lock.
 */
static u32 sys_stack(struct gt_session *s, struct gt_cpu *c,
		     const struct gt_task *t)
{
	u32 key = ((u32)t->sys_nr & 0xffff) + ((u32)t->sys_compat << 16) + 1;
	struct gt_sys_cache *e;
	u64 pcs[2];
	u32 id;

	e = &c->sys_cache[hash_32(t->comm_stack * 31 + key,
				  ilog2(GT_SYS_CACHE))];
	if (e->key == key && e->comm_stack == t->comm_stack)
		return e->id;
	pcs[0] = gt_syscall_pc(t->sys_nr, t->sys_compat);
	pcs[1] = gt_tables_comm_pc(s->tables, t->comm);
	id = gt_tables_stack(s->tables, pcs, 2);
	if (!id) {
		atomic64_inc(&s->stack_overflows);
		return t->comm_stack;
	}
	e->key = key;
	e->comm_stack = t->comm_stack;
	e->id = id;
	return id;
}

/*
 * GoSysCall at the entry of a syscall, kept pending: written before the
 * P's next event, or replaced by the block of this syscall.
 */
static void sys_enter_event(struct gt_session *s, struct gt_cpu *c,
			    struct gt_task *t)
{
	struct gt_sys_pending *sp = &c->sys_pending;

	sys_pending_write(s, c, smp_processor_id(), false);
	if (READ_ONCE(s->halted)) {
		c->lost++;
		return;
	}
	sp->stack = sys_stack(s, c, t);
	sp->ts = t->sys_enter_ts;
	sp->returned = false;
	sp->task = t;
}

/*
 * @t, leaving the CPU, sleeps in a syscall that has no block event of its
 * own: GoSysCall with the stack of the sleep, GoSysBlock, ProcStop, back
 * to back as Go 1.23 requires.  The GoSysCall of the entry, when it is
 * still the last record, is replaced by this one (same time, better
 * stack); otherwise the sleep is a syscall of its own, starting now.  The
 * wakeup writes GoSysExit; another sleep in the same syscall is another
 * blocking syscall.
 */
static void sys_block(struct gt_session *s, struct gt_cpu *c,
		      struct gt_task *t, const struct task_struct *p)
{
	u64 when;
	unsigned int n;
	u64 id;

	/* Room for the three events, so no chunk boundary splits them. */
	if (!READ_ONCE(s->halted) &&
	    !gt_cpu_room(s, c, smp_processor_id(), max(gt_clock(), c->last_ts),
		      3 * GT_EV_MAX_BYTES, false)) {
		c->lost++;
		gt_session_halt(s);
		return;
	}
	/*
	 * Without its pending entry event, the syscall's GoSysCall is in the
	 * trace already, unless only blocking syscalls are recorded.
	 */
	if (!sys_pending_take(c, t, &when))
		when = s->opts.syscalls == GOTRACE_SYSCALLS_ALL ?
			gt_clock() : t->sys_enter_ts;

	n = stack_save(s, c->pcs, GT_KSTACK_MAX);
	c->pcs[n++] = gt_syscall_pc(t->sys_nr, t->sys_compat);
	c->pcs[n++] = gt_tables_comm_pc(s->tables, p->comm);
	id = gt_tables_stack(s->tables, c->pcs, n);
	if (!id) {
		atomic64_inc(&s->stack_overflows);
		id = sys_stack(s, c, t);
	}

	if (!model_emit_at(s, c, t, GOTRACE_EV_GO_SYSCALL, &id, 1, when, false) ||
	    !model_emit0(s, c, t, GOTRACE_EV_GO_SYSBLOCK))
		return;
	t->state = GT_G_SYSWAIT;
	c->cur = NULL;
	if (model_emit0(s, c, NULL, GOTRACE_EV_PROC_STOP))
		c->p_started = false;
}

/* ---- Per-CPU start ----------------------------------------------------- */

static bool is_idle(const struct task_struct *p)
{
	return p->pid == 0;
}

/*
 * A CPU's first event after the snapshot: ProcStart, then GoStart of the
 * task it is running (if not idle), so that its goroutine is running in
 * the trace before the event being handled.
 */
static void cpu_start(struct gt_session *s, struct gt_cpu *c)
{
	struct task_struct *p = current;
	struct gt_task_bucket *b;
	struct gt_task *t;

	c->started = true;
	if (!p_start(s, c) || is_idle(p))
		return;
	b = gt_tasks_bucket(s, p);
	raw_spin_lock(&b->lock);
	t = gt_tasks_get(s, b, p);
	if (t)
		g_ensure_running(s, c, t, p);
	raw_spin_unlock(&b->lock);
}

/*
 * The trace has another goroutine on this P than Linux runs: a switch
 * was not seen.  Take it off the P, as Go's parsers demand, under its
 * bucket lock, before the hook takes any other.
 */
static void cpu_put_stale(struct gt_session *s, struct gt_cpu *c)
{
	struct gt_task *t = c->cur;
	struct gt_task_bucket *b = gt_tasks_bucket(s, t->key);

	raw_spin_lock(&b->lock);
	if (model_emit1(s, c, t, GOTRACE_EV_GO_PREEMPT, t->comm_stack)) {
		t->state = GT_G_RUNNABLE;
		c->cur = NULL;
	}
	raw_spin_unlock(&b->lock);
}

/*
 * Common entry of every probe hook: the CPU's state, with interrupts
 * disabled, or NULL if the hook has nothing to do (snapshot not armed).
 */
static struct gt_cpu *hook_enter(struct gt_session *s, unsigned long *flags)
{
	struct gt_cpu *c;

	/*
	 * Pairs with smp_store_release() in gt_model_snapshot(): a probe that
	 * sees the session armed also sees the snapshot's tasks and every
	 * CPU's last_ts.
	 */
	if (!smp_load_acquire(&s->armed))
		return NULL;
	local_irq_save(*flags);
	c = this_cpu_ptr(s->cpus);
	if (unlikely(c->offline)) {
		local_irq_restore(*flags);
		return NULL;
	}
	if (unlikely(!c->started))
		cpu_start(s, c);
	else if (unlikely(c->cur && c->cur->key != current))
		cpu_put_stale(s, c);
	return c;
}

static void hook_exit(unsigned long flags)
{
	local_irq_restore(flags);
}

/* ---- sched_switch ------------------------------------------------------ */

/* @prev leaves the CPU; its bucket lock is held. */
static void switch_out(struct gt_session *s, struct gt_cpu *c,
		       struct gt_task *t, struct task_struct *prev,
		       bool preempt, unsigned int prev_state)
{
	unsigned int type;
	u64 when;
	u32 stack;

	if (!g_ensure_running(s, c, t, prev))
		return;
	if (comm_changed(t, prev) && !g_refilter(s, c, t, prev))
		return;

	if (prev_state & TASK_DEAD) {
		if (!model_emit0(s, c, t, GOTRACE_EV_GO_END))
			return;
		t->state = GT_G_DEAD;
		c->cur = NULL;
		gt_tasks_release(s, t);
		return;
	}

	if (preempt || prev_state == TASK_RUNNING) {
		type = t->sys_nr == __NR_sched_yield && !t->sys_compat ?
			GOTRACE_EV_GO_SCHED : GOTRACE_EV_GO_PREEMPT;
		stack = stack_here(s, c, prev, t->comm_stack);
		if (!model_emit1(s, c, t, type, stack))
			return;
		t->state = GT_G_RUNNABLE;
	} else {
		type = gt_block_reason(t);
		if (type == GOTRACE_EV_GO_BLOCK && sys_recorded(s, t)) {
			sys_block(s, c, t, prev);
			return;
		}
		/*
		 * The block event is the syscall: its pending entry event is
		 * not written, so that a sleep shows only as a sleep (Go 1.23
		 * would count it in the syscall profile too).
		 */
		sys_pending_take(c, t, &when);
		stack = stack_here(s, c, prev, t->comm_stack);
		if (!model_emit1(s, c, t, type, stack))
			return;
		t->state = GT_G_WAITING;
	}
	c->cur = NULL;
}

/*
 * @prev, hidden by the filters, leaves the CPU; its bucket lock is held.
 * Its final switch gives its entry back; a new comm may make it match.
 */
static void hidden_switch_out(struct gt_session *s, struct gt_cpu *c,
			      struct gt_task *t, struct task_struct *prev,
			      unsigned int prev_state)
{
	if (prev_state & TASK_DEAD) {
		gt_tasks_release(s, t);
		return;
	}
	if (s->opts.comm[0] && comm_changed(t, prev) &&
	    g_refilter(s, c, t, prev))
		switch_out(s, c, t, prev, false, prev_state);
}

/**
 * gt_model_switch() - sched_switch: @prev leaves the CPU, @next runs
 * @s:		session
 * @preempt:	@prev was preempted
 * @prev:	task leaving (current)
 * @next:	task coming in
 * @prev_state:	@prev's state: 0 (runnable), a sleep state, or TASK_DEAD
 *
 * Context: the scheduler, runqueue lock held, irqs off.
 */
void gt_model_switch(struct gt_session *s, bool preempt,
		     struct task_struct *prev, struct task_struct *next,
		     unsigned int prev_state)
{
	struct gt_task_bucket *b;
	unsigned long flags;
	struct gt_cpu *c;
	struct gt_task *t;

	c = hook_enter(s, &flags);
	if (!c)
		return;

	if (!is_idle(prev)) {
		b = gt_tasks_bucket(s, prev);
		raw_spin_lock(&b->lock);
		t = gt_tasks_entry(s, b, prev, false);
		if (t && t->hidden)
			hidden_switch_out(s, c, t, prev, prev_state);
		else if (t)
			switch_out(s, c, t, prev, preempt, prev_state);
		raw_spin_unlock(&b->lock);
	}

	if (!is_idle(next)) {
		b = gt_tasks_bucket(s, next);
		raw_spin_lock(&b->lock);
		t = gt_tasks_get(s, b, next);
		if (t)
			g_ensure_running(s, c, t, next);
		raw_spin_unlock(&b->lock);
	}
	hook_exit(flags);
}

/* ---- Wakeups, fork, exec, exit ----------------------------------------- */

/*
 * The stack of whoever wakes or creates a task on this CPU: the kernel
 * frames and, if the trace shows the task running here, its comm frame
 * (not for the idle task, nor for a task the filters leave out).
 */
static u32 waker_stack(struct gt_session *s, struct gt_cpu *c)
{
	struct task_struct *p = current;

	/* Only a task the trace shows names itself: the one running here. */
	return stack_here(s, c, c->cur && c->cur->key == p ? p : NULL, 0);
}

/*
 * @p is being woken: a goroutine the trace has blocked becomes runnable,
 * unblocked by whatever runs here.  With @may_create, a task the trace
 * has not seen, or has seen end, is created instead; with @fork too, and
 * it is recorded whatever the filters say if its parent (current) is and
 * the session follows children.
 */
static void task_woken(struct gt_session *s, struct task_struct *p,
		       bool may_create, bool fork)
{
	bool adopt;
	struct gt_task_bucket *b;
	unsigned long flags;
	struct gt_cpu *c;
	struct gt_task *t;

	if (is_idle(p))
		return;
	c = hook_enter(s, &flags);
	if (!c)
		return;
	adopt = fork && s->opts.flags & GOTRACE_OPT_CHILDREN &&
		c->cur && c->cur->key == current;
	b = gt_tasks_bucket(s, p);
	raw_spin_lock(&b->lock);
	t = may_create ? gt_tasks_entry(s, b, p, adopt) : gt_tasks_find(s, b, p);
	if (t && !t->hidden) {
		switch (t->state) {
		case GT_G_NONE:
		case GT_G_DEAD:
			if (may_create)
				g_create(s, c, t, p, waker_stack(s, c));
			break;
		case GT_G_WAITING:
		case GT_G_SYSWAIT:
			g_wake(s, c, t, waker_stack(s, c));
			break;
		default:
			/* Runnable or running: a wakeup that changed nothing. */
			break;
		}
	}
	raw_spin_unlock(&b->lock);
	hook_exit(flags);
}

/**
 * gt_model_wakeup() - sched_wakeup: @p was made runnable
 * @s:	session
 * @p:	the woken task
 *
 * Context: try_to_wake_up(), @p's pi_lock and runqueue lock held, irqs
 * off; on the waking CPU or, for queued wakeups, on @p's CPU.
 */
void gt_model_wakeup(struct gt_session *s, struct task_struct *p)
{
	task_woken(s, p, true, false);
}

/**
 * gt_model_waking() - sched_waking: current starts waking @p
 * @s:	session
 * @p:	the task being woken
 *
 * If the trace has @p blocked, it is unblocked here, on the waker's P and
 * with the waker's stack, so the trace shows who woke whom even when the
 * kernel completes the wakeup on @p's CPU.  If the trace still has @p
 * running (it is on its way to sleep on another CPU), nothing is written:
 * if @p has left its CPU by sched_wakeup, that unblocks it; if it has
 * not (ttwu_runnable()), it never blocks and nothing is written at all.
 *
 * Context: try_to_wake_up(), @p's pi_lock held, irqs off.
 */
void gt_model_waking(struct gt_session *s, struct task_struct *p)
{
	task_woken(s, p, false, false);
}

/**
 * gt_model_fork() - sched_process_fork: @child is a new task
 * @s:		session
 * @parent:	the forking task (current)
 * @child:	the new task, not yet running
 *
 * Context: process context of @parent; may be preemptible.
 */
void gt_model_fork(struct gt_session *s, struct task_struct *parent,
		   struct task_struct *child)
{
	/* Created with the parent's stack, as a wakeup creates an unseen task. */
	task_woken(s, child, true, true);
}

/**
 * gt_model_exec() - sched_process_exec: @p runs a new program
 * @s:	session
 * @p:	the task (current), already carrying its new comm
 *
 * A goroutine's name is fixed when it is created, so the old goroutine
 * ends and a new one, named after the new comm, starts in its place:
 * the rename of the exec.  exec sets the comm before this tracepoint, so
 * a switch in between may have done the rename already; an exec that
 * keeps the name keeps the goroutine.
 *
 * Context: process context of @p.
 */
void gt_model_exec(struct gt_session *s, struct task_struct *p)
{
	struct gt_task_bucket *b;
	unsigned long flags;
	struct gt_cpu *c;
	struct gt_task *t;

	c = hook_enter(s, &flags);
	if (!c)
		return;
	b = gt_tasks_bucket(s, p);
	raw_spin_lock(&b->lock);
	t = gt_tasks_entry(s, b, p, false);
	if (t)
		g_refilter(s, c, t, p);
	raw_spin_unlock(&b->lock);
	hook_exit(flags);
}

/* ---- Syscalls ---------------------------------------------------------- */

/*
 * The entry of the task running on this CPU, if the trace has it running
 * here.  Its syscall fields are only written by the CPU it runs on, so
 * they need no lock.
 */
static struct gt_task *current_entry(struct gt_cpu *c)
{
	struct gt_task *t = c->cur;

	return t && t->key == current ? t : NULL;
}

/**
 * gt_model_sys_enter() - sys_enter: current enters syscall @nr
 * @s:	session
 * @nr:	syscall number (of the task's ABI)
 *
 * Context: process context of current; preemptible from Linux 6.13.
 */
void gt_model_sys_enter(struct gt_session *s, long nr)
{
	unsigned long flags;
	struct gt_cpu *c;
	struct gt_task *t;

	c = hook_enter(s, &flags);
	if (!c)
		return;
	t = current_entry(c);
	if (t) {
		t->sys_nr = nr;
		t->sys_compat = in_compat_syscall();
		t->sys_enter_ts = gt_clock();
		if (s->opts.syscalls == GOTRACE_SYSCALLS_ALL &&
		    gt_syscall_selected(&s->opts, nr, t->sys_compat))
			sys_enter_event(s, c, t);
	}
	hook_exit(flags);
}

/* Filters decide again for current, hidden until now.  Irqs off. */
static void sys_exit_unhidden(struct gt_session *s, struct gt_cpu *c)
{
	struct gt_task_bucket *b = gt_tasks_bucket(s, current);
	struct gt_task *t;

	raw_spin_lock(&b->lock);
	t = gt_tasks_find(s, b, current);
	if (t && t->hidden && comm_changed(t, current) &&
	    g_refilter(s, c, t, current))
		t->sys_nr = -1;
	raw_spin_unlock(&b->lock);
}

/* sys_exit: current left its syscall.  Context: as gt_model_sys_enter(). */
void gt_model_sys_exit(struct gt_session *s)
{
	unsigned long flags;
	struct gt_cpu *c;
	struct gt_task *t;

	c = hook_enter(s, &flags);
	if (!c)
		return;
	t = current_entry(c);
	if (t) {
		t->sys_nr = -1;
		if (c->sys_pending.task == t)
			c->sys_pending.returned = true;
		/* prctl(PR_SET_NAME) shows at once, not at the next switch. */
		if (unlikely(comm_changed(t, current))) {
			struct gt_task_bucket *b = gt_tasks_bucket(s, current);

			raw_spin_lock(&b->lock);
			g_refilter(s, c, t, current);
			raw_spin_unlock(&b->lock);
		}
	} else if (unlikely(s->opts.comm[0] &&
			    !strncmp(current->comm, s->opts.comm,
				     sizeof(s->opts.comm)) &&
			    !is_idle(current))) {
		/*
		 * A task the trace does not record that has just taken the
		 * name the session filters on (prctl(PR_SET_NAME)): recorded
		 * from now on, not from its next switch.
		 */
		sys_exit_unhidden(s, c);
	}
	hook_exit(flags);
}

/* ---- Start and stop ---------------------------------------------------- */

/**
 * gt_model_snapshot() - describe every existing task, then arm the probes
 * @s:	session, probes registered but not armed
 *
 * Writes, on this CPU: Gomaxprocs (the unique earliest event, which the
 * Go 1.23 converter needs first), then GoCreate for every task and
 * GoWaiting for the sleeping ones.  Runnable and running ones stay
 * runnable: each CPU's first probe starts the goroutine it runs.
 *
 * The walk stays on one CPU (migration disabled) but disables interrupts
 * only while it writes one task: a host with tens of thousands of
 * threads must not run milliseconds with interrupts off.  Until the
 * session is armed no probe and no hotplug callback touches its CPUs'
 * state, so nothing else writes to this CPU's chunk meanwhile.
 *
 * Context: process context.
 * Return: 0, or -ENOSPC if the pools are too small for the tasks.
 */
int gt_model_snapshot(struct gt_session *s)
{
	struct task_struct *g, *p;
	struct gt_task_bucket *b;
	unsigned long flags;
	struct gt_cpu *c;
	struct gt_task *t;
	int cpu, ret = 0;
	u64 now;

	migrate_disable();
	c = this_cpu_ptr(s->cpus);
	local_irq_save(flags);
	if (!model_emit2(s, c, NULL, GOTRACE_EV_GOMAXPROCS, s->nr_ps, 0))
		ret = -ENOSPC;
	local_irq_restore(flags);

	rcu_read_lock();
	for_each_process_thread(g, p) {
		if (ret)
			break;
		b = gt_tasks_bucket(s, p);
		raw_spin_lock_irqsave(&b->lock, flags);
		t = gt_tasks_get(s, b, p);
		if (t && t->state == GT_G_NONE && g_create(s, c, t, p, 0) &&
		    !task_is_running(p)) {
			if (model_emit1(s, c, t, GOTRACE_EV_GO_WAITING, t->goid)) {
				t->seq = 1;
				t->state = GT_G_WAITING;
			}
		}
		raw_spin_unlock_irqrestore(&b->lock, flags);
		if (READ_ONCE(s->halted))
			ret = -ENOSPC;
	}
	rcu_read_unlock();

	/* Every P's first event comes after the snapshot. */
	now = c->last_ts + 1;
	for_each_possible_cpu(cpu)
		per_cpu_ptr(s->cpus, cpu)->last_ts = now;
	migrate_enable();
	if (!ret) {
		/*
		 * Publish the snapshot; pairs with smp_load_acquire() in
		 * hook_enter(): a probe that sees the session armed also sees
		 * the writes above.
		 */
		smp_store_release(&s->armed, true);
	}
	return ret;
}

/**
 * gt_model_disarm() - make every probe return at once from now on
 * @s:	session about to detach its probes
 *
 * Probes already past the check finish their event; the caller waits for
 * them with tracepoint_synchronize_unregister() before closing the Ps.
 */
void gt_model_disarm(struct gt_session *s)
{
	/* Pairs with smp_load_acquire() in hook_enter(). */
	smp_store_release(&s->armed, false);
}

/*
 * Write the closing events of one CPU, on behalf of that CPU: the
 * goroutine still running is preempted (the Go 1.21 viewer crashes on a
 * slice that never ends), the P stops, and the last chunk is queued.
 */
static void close_cpu(struct gt_session *s, struct gt_cpu *c, int cpu)
{
	struct gt_task *t = c->cur;
	struct gt_task_bucket *b;
	u64 v;

	/* The goroutine's entry is its bucket's, probes may be running. */
	if (t) {
		b = gt_tasks_bucket(s, t->key);
		raw_spin_lock(&b->lock);
		sys_pending_write(s, c, cpu, true);
		v = t->comm_stack;
		if (model_event_write(s, c, cpu, t, GOTRACE_EV_GO_PREEMPT, &v, 1,
				      gt_clock(), true)) {
			t->state = GT_G_RUNNABLE;
			c->cur = NULL;
		}
		raw_spin_unlock(&b->lock);
	} else {
		sys_pending_write(s, c, cpu, true);
	}
	if (c->p_started && !c->cur &&
	    model_event_write(s, c, cpu, NULL, GOTRACE_EV_PROC_STOP, NULL, 0,
			      gt_clock(), true))
		c->p_started = false;
	if (c->chunk)
		gt_cpu_handover(s, c, false);
}

/**
 * gt_model_cpu_offline() - this CPU goes offline: close its P
 * @s:	session
 *
 * The goroutine it runs is preempted, the P stopped and its chunk handed
 * to the reader (who is not woken: the caller does it); until the CPU
 * comes back, its probes write nothing.  s->close_lock keeps this apart
 * from the stop, which closes every CPU.
 *
 * Context: the CPU hotplug thread of the CPU going down.
 */
void gt_model_cpu_offline(struct gt_session *s)
{
	unsigned long flags;
	struct gt_cpu *c;

	raw_spin_lock_irqsave(&s->close_lock, flags);
	/* Pairs with the release of the snapshot: s->cpus is set up. */
	if (smp_load_acquire(&s->armed)) {
		c = this_cpu_ptr(s->cpus);
		close_cpu(s, c, smp_processor_id());
		c->started = false;
		c->offline = true;
	}
	raw_spin_unlock_irqrestore(&s->close_lock, flags);
}

/**
 * gt_model_cpu_online() - this CPU is back: its next event starts its P
 * @s:	session
 *
 * A CPU that was not online when the session started also grows the
 * reserve of chunks kept for closing the trace.
 *
 * Context: the CPU hotplug thread of the CPU coming up.
 */
void gt_model_cpu_online(struct gt_session *s)
{
	unsigned long flags;

	struct gt_cpu *c;

	raw_spin_lock_irqsave(&s->close_lock, flags);
	/* Pairs with the release of the snapshot: s->cpus is set up. */
	if (smp_load_acquire(&s->armed)) {
		c = this_cpu_ptr(s->cpus);
		c->offline = false;
		/* A CPU new to the session: one more chunk kept for its end. */
		if (!c->in_pool) {
			c->in_pool = true;
			gt_pool_reserve_more(&s->pool);
		}
	}
	raw_spin_unlock_irqrestore(&s->close_lock, flags);
}

/* The counters of CPU @st->cpu.  Context: any. */
void gt_model_cpu_status(struct gt_session *s, struct gotrace_cpu_status *st)
{
	struct gt_cpu *c = per_cpu_ptr(s->cpus, st->cpu);

	st->running = READ_ONCE(c->p_started);
	st->events = READ_ONCE(c->events);
	st->lost_events = READ_ONCE(c->lost);
	st->chunk_overflows = READ_ONCE(c->chunk_overflows);
}

/**
 * gt_model_close() - close every P; the trace is complete but its footer
 * @s:	session whose probes are all detached
 *
 * Context: process context.
 */
void gt_model_close(struct gt_session *s)
{
	unsigned long flags;
	int cpu;

	raw_spin_lock_irqsave(&s->close_lock, flags);
	for_each_possible_cpu(cpu)
		close_cpu(s, per_cpu_ptr(s->cpus, cpu), cpu);
	raw_spin_unlock_irqrestore(&s->close_lock, flags);
}

/* Sum of the CPUs' event (or lost event) counters. */
u64 gt_model_count(struct gt_session *s, bool lost)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct gt_cpu *c = per_cpu_ptr(s->cpus, cpu);

		sum += lost ? READ_ONCE(c->lost) : READ_ONCE(c->events);
	}
	return sum;
}

/* The last timestamp of any P: the footer's batch must not be earlier. */
u64 gt_model_last_ts(struct gt_session *s)
{
	u64 ts = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		ts = max(ts, per_cpu_ptr(s->cpus, cpu)->last_ts);
	return ts;
}
