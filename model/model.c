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
 * classification of blocks classify.c.  The model says what happens as
 * transitions of its own (transition.h); the writer of the session's
 * format says them in it: go111_writer.c or go123_writer.c.
 *
 * The model reads nothing of Linux: it is told what happened through
 * plain input events (model_input.h) and asks its environment
 * (model_env.h) for the rest, so the same file builds into the module
 * and into user space (Documentation/model.rst).
 *
 * Time: ns of the environment's clock (the module's
 * ktime_get_mono_fast_ns(), read once per hook, user space's event
 * times), clamped so that a P's time never goes back and every event
 * that changes a task's state is later than the previous one, whatever
 * CPU wrote it (per-CPU clocks may skew):
 *   ts = max(now, cpu->last_ts, task->last_ts + 1)
 *
 * Context:
 *   gt_model_*() hooks: probe context, any of task, softirq or
 *   hardirq; they disable interrupts while an event is stamped and
 *   appended (sched_switch's are off already), never sleep and never
 *   allocate.
 *   gt_model_snapshot_*(), gt_model_close(): process context, under the
 *   session lock; gt_model_close() only once every hook is done.
 * Locking:
 *   A task's entry is guarded by the raw spinlock of its hash bucket.  A
 *   probe holds at most one bucket lock at a time; chunk pool, tables and
 *   task free-list locks nest inside it.  A CPU's struct gt_cpu is touched
 *   only by that CPU with interrupts off.  The sequence number of a task
 *   is incremented in the same critical section that appends the event
 *   carrying it, which is what orders a task's events across CPUs.
 */
#include "model_state.h"

/*
 * An event of this CPU that cannot be written (no room, or a transition
 * the model missed and cannot repair here).  The 1.11 format ends the
 * trace there: its readers take no gap.  A generational session goes on
 * (gt_w123_lost()): nothing is written for it, the model keeps what the
 * trace says, and later events write the transitions that bring the
 * trace back to Linux's state.  Counted either way.
 */
static void model_lost(struct gt_model *m, struct gt_cpu *c)
{
	c->lost++;
	if (m->format == GT_FORMAT_GO123)
		gt_w123_lost(m, c);
	else
		gt_model_halt(m);
}

/*
 * Stamp and write one transition on the P of CPU @c, at @when or, to
 * keep time going forward on the P and for the task, just after their
 * last event.  @t, if not NULL, is the task whose state the transition
 * changes (its bucket lock held, or it runs on this P).  The writer is
 * the session's format's, chosen by one switch (transition.h).  Returns
 * false if nothing was written: the loss is counted (model_lost()), and
 * the caller leaves the model as it was, so the model keeps describing
 * the file exactly.
 */
static bool model_write(struct gt_model *m, struct gt_cpu *c,
			struct gt_task *t, const struct gt_tr *tr, u64 when,
			bool closing)
{
	u64 ts = max(when, c->last_ts);
	bool ok;

	gt_lockdep_assert_irqs_disabled();
	if (t)
		ts = max(ts, t->last_ts + 1);
	if (READ_ONCE(m->halted) && !closing) {
		c->lost++;
		return false;
	}
	switch (m->format) {
	case GT_FORMAT_GO123:
		/* It may write later: after another M's event. */
		ok = gt_w123_write(m, c, t, tr, &ts);
		break;
	default:
		ok = gt_w111_write(m, c, t, tr, ts, closing);
		break;
	}
	if (!ok) {
		model_lost(m, c);
		return false;
	}
	c->last_ts = ts;
	if (t)
		t->last_ts = ts;
	return true;
}

/*
 * The generation whose table a stack interned now goes to: the session's
 * (it may end before the event is written: gt_tables_w123_id()), 0 in the
 * 1.11 format.  Stack references of another generation kept from an
 * earlier hook are interned again (tables.c).
 */
static u64 model_gen(struct gt_model *m)
{
	if (m->format != GT_FORMAT_GO123)
		return 0;
	/* Pairs with the release of gt_w123_advance(). */
	return gt_load_acquire(&m->w123.gen);
}

/*
 * The comm stack of @t (its bucket lock held, or it runs on this P) in
 * the table of generation @gen; the same as ever in the 1.11 format.
 */
static u64 task_comm_stack(struct gt_model *m, struct gt_task *t, u64 gen)
{
	u64 ref;

	if (likely(t->comm_stack >> 32 == gen))
		return t->comm_stack;
	ref = gt_tables_comm_stack(m->tables, gen, t->comm);
	if (!ref)
		gt_atomic64_inc(&m->stack_overflows);
	t->comm_stack = ref;
	return ref;
}

/*
 * The stack of a pending GoSysCall, [syscall frame, comm frame], interned
 * again if it is of an earlier generation than the session's.  The user
 * frames of a stack taken at the entry are not kept for that: only the
 * syscall's frame is, and a GoSysCall pending across the end of a
 * generation is rare (one per CPU at most).
 */
static u64 sys_pending_stack(struct gt_model *m, struct gt_sys_pending *sp)
{
	u64 gen = model_gen(m), pcs[2], ref;

	if (likely(sp->stack >> 32 == gen))
		return sp->stack;
	pcs[0] = sp->pc;
	pcs[1] = gt_tables_comm_pc(m->tables, gen, sp->task->comm);
	ref = gt_tables_stack(m->tables, gen, pcs, 2);
	if (!ref) {
		gt_atomic64_inc(&m->stack_overflows);
		ref = task_comm_stack(m, sp->task, gen);
	}
	return ref;
}

/*
 * Write the P's pending GoSysCall, if any.  Its task is the one running
 * on this P (any event that takes it off the P comes through here
 * first), so its time is written without its bucket lock.
 */
static void sys_pending_write(struct gt_model *m, struct gt_cpu *c,
			      bool closing)
{
	struct gt_sys_pending *sp = &c->sys_pending;
	struct gt_tr tr = { .kind = GT_TR_SYSCALL };
	struct gt_task *t = sp->task;

	if (!t)
		return;
	tr.stack = sys_pending_stack(m, sp);
	sp->task = NULL;
	if (t == c->cur)
		model_write(m, c, t, &tr, sp->ts, closing);
	else
		c->lost++;	/* never expected: counted if it happens */
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

/*
 * The time of the hook running on this CPU (c->now, its event's), or
 * where the event has none (the module's probes), the clock read at the
 * hook's first event: the two or three events of a switch share it, as
 * a syscall's entry and its GoSysCall do, and model_write() keeps
 * them in order.  A hook that writes nothing reads no clock.
 */
static u64 model_now(struct gt_cpu *c)
{
	if (!c->now)
		c->now = gt_env_clock();
	return c->now;
}

/* A transition of this P: the pending GoSysCall first; see model_write() */
static bool model_emit_at(struct gt_model *m, struct gt_cpu *c,
			  struct gt_task *t, const struct gt_tr *tr, u64 when,
			  bool closing)
{
	sys_pending_write(m, c, closing);
	return model_write(m, c, t, tr, when, closing);
}

/* A transition of now, at @stack (0: none); see model_emit_at(). */
static bool model_emit(struct gt_model *m, struct gt_cpu *c,
		       struct gt_task *t, enum gt_tr_kind kind, u64 stack)
{
	struct gt_tr tr = { .kind = kind, .stack = stack };

	return model_emit_at(m, c, t, &tr, model_now(c), false);
}

/* A transition of this P's own, numbering @n (a P, Ps). */
static bool model_emit_p(struct gt_model *m, struct gt_cpu *c,
			 enum gt_tr_kind kind, u32 n)
{
	struct gt_tr tr = { .kind = kind, .n = n };

	return model_emit_at(m, c, NULL, &tr, model_now(c), false);
}

/*
 * Room on CPU @c, from now on, for @nr_events events that the format
 * must not split (sys_block()), asked of the session's writer by the
 * same switch as model_write().  Returns false if there is none: nothing
 * was written, and the caller counts the loss (model_lost()).
 */
static bool model_reserve(struct gt_model *m, struct gt_cpu *c,
			  unsigned int nr_events)
{
	switch (m->format) {
	case GT_FORMAT_GO123:
		return gt_w123_reserve();
	default:
		return gt_w111_reserve(m, c, max(model_now(c), c->last_ts),
				       nr_events, false);
	}
}

/* ---- Stacks ------------------------------------------------------------ */

/*
 * The kernel stack of the code that hit the tracepoint into @pcs (at
 * most @max PCs, innermost first; the environment leaves out its own
 * frames).  None when the session was asked for none, or for none at
 * wakeups (@wake: a wakeup's or a creation's): the unwinding is most of
 * what a switch or a wakeup costs.
 */
static unsigned int stack_save(const struct gt_model *m, struct gt_cpu *c,
			       unsigned int max, bool wake)
{
	if (m->opts.flags & GOTRACE_OPT_NO_KSTACKS ||
	    (wake && m->opts.flags & GOTRACE_OPT_NO_WAKE_KSTACKS))
		return 0;
	return gt_env_kstack(c, c->pcs, max);
}

/* @t is named after @comm from now on. */
static void task_set_comm(struct gt_task *t, const char *comm)
{
	memcpy(t->comm, comm, sizeof(t->comm));
	t->comm_pc = 0;
}

static bool comm_changed(const struct gt_task *t, const struct gt_in_task *p)
{
	return memcmp(t->comm, p->comm, sizeof(t->comm)) != 0;
}

/*
 * The comm PC of @t (its bucket lock held, or it runs on this P) in the
 * table of generation @gen, cached in @t, so that a switch does not hash
 * the comm under the tables' lock every time.
 */
static u64 task_comm_pc(struct gt_model *m, struct gt_task *t, u64 gen)
{
	if (unlikely(!t->comm_pc || t->comm_pc_gen != gen)) {
		t->comm_pc = gt_tables_comm_pc(m->tables, gen, t->comm);
		t->comm_pc_gen = gen;
	}
	return t->comm_pc;
}

/*
 * The comm PC of @p, whose entry is @t: @t's cached one while @p's comm
 * is the one @t is named after, looked up when it changed (a rename not
 * done yet).
 */
static u64 comm_pc_of(struct gt_model *m, struct gt_task *t,
		      const struct gt_in_task *p, u64 gen)
{
	if (unlikely(comm_changed(t, p)))
		return gt_tables_comm_pc(m->tables, gen, p->comm);
	return task_comm_pc(m, t, gen);
}

/*
 * The user frames of the task running here (GOTRACE_OPT_USER_STACKS),
 * appended to the stack being built in c->pcs at @at: the space marker,
 * the raw user PCs the environment's walk gave, and a truncation marker
 * if the walk stopped early (tables.c names them when the stack is
 * written).  The walk gets the room the frames before it leave within
 * GT_STACK_MAX_FRAMES, with a truncation frame, a syscall frame and a
 * comm frame still to come.  Only for a task the trace shows running
 * here, in task context: an interrupt's wakeup is no work of the task
 * it interrupted.  Returns the PCs appended (0: none).
 */
static unsigned int ustack_save(struct gt_model *m, struct gt_cpu *c,
				unsigned int at)
{
	unsigned int max, n, stop = GT_USTOP_NONE;
	bool exact = false;
	u64 space = 0;

	BUILD_BUG_ON(GT_USTACK_MAX > GT_USPACE_NR_MAX);
	if (!(m->opts.flags & GOTRACE_OPT_USER_STACKS) ||
	    at + 3 >= GT_STACK_MAX_FRAMES)
		return 0;
	max = min_t(unsigned int, GT_USTACK_MAX, GT_STACK_MAX_FRAMES - at - 3);
	n = gt_env_ustack(m, c, &c->pcs[at + 1], max, &space, &stop, &exact);
	if (!n)
		return 0;
	gt_atomic64_inc(&m->ustack_walks);
	c->pcs[at] = gt_ustack_marker(space, n, exact);
	if (stop > GT_USTOP_NONE && stop < GT_USTOP_NR) {
		gt_atomic64_inc(&m->ustack_stops[stop]);
		c->pcs[at + 1 + n++] = gt_utrunc_marker(stop);
	}
	return n + 1;
}

/*
 * Intern the @n PCs of c->pcs, whose user frames (if any) start with
 * the space marker at @uat (-1: none).  A stack new to the table hands
 * its raw user PCs to the environment, which names them before the
 * table is written (gt_env_ustack_queue()); one found again was handed
 * over when it was added.  Returns the reference, 0 if the table is full.
 */
static u64 stack_intern(struct gt_model *m, struct gt_cpu *c, u64 gen,
			unsigned int n, int uat)
{
	bool added = false;
	u64 id;

	if (uat < 0)
		return gt_tables_stack(m->tables, gen, c->pcs, n);
	id = gt_tables_stack_new(m->tables, gen, c->pcs, n, &added);
	if (added)
		gt_env_ustack_queue(m, c->pcs[uat] & GT_USPACE_MASK,
				    &c->pcs[uat + 1],
				    gt_ustack_marker_nr(c->pcs[uat]));
	return id;
}

/*
 * The stack whose kernel frames are the @n PCs in c->pcs (the hook's
 * code, or the code a CPU sample interrupted), then, given @comm_of,
 * the user frames of the task running here and the comm frame of
 * @comm_of (whose entry is @t).  Returns the stack reference, or
 * @fallback when there is no frame or the table is full.
 */
static u64 stack_of(struct gt_model *m, struct gt_cpu *c, unsigned int n,
		    struct gt_task *t, const struct gt_in_task *comm_of,
		    u64 fallback)
{
	u64 gen = model_gen(m), id;
	unsigned int nu;
	int uat = -1;

	if (comm_of) {
		nu = ustack_save(m, c, n);
		if (nu)
			uat = n;
		n += nu;
		c->pcs[n++] = comm_pc_of(m, t, comm_of, gen);
	}
	if (!n)
		return fallback;
	id = stack_intern(m, c, gen, n, uat);
	if (!id) {
		gt_atomic64_inc(&m->stack_overflows);
		return fallback;
	}
	return id;
}

/*
 * The stack of the running kernel code (innermost first, without the
 * probe's own frames), then its task's user frames (ustack_save()), and
 * the comm frame of @comm_of (whose entry is @t), when given: the user
 * frames are only of a task that names itself.  @wake: of a wakeup or a
 * creation.  Returns the stack reference, or @fallback when the table is
 * full.
 */
static u64 stack_here(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		      const struct gt_in_task *comm_of, u64 fallback,
		      bool wake)
{
	return stack_of(m, c, stack_save(m, c, GT_KSTACK_MAX, wake), t,
			comm_of, fallback);
}

/* ---- Transitions (task's bucket lock held, irqs off) ------------------- */

/* GoCreate: @t becomes a new runnable goroutine named after @p's comm. */
static bool g_create(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		     const struct gt_in_task *p, u64 creator_stack)
{
	u64 comm_stack = gt_tables_comm_stack(m->tables, model_gen(m), p->comm);
	struct gt_tr tr = { .kind = GT_TR_CREATE };

	if (!comm_stack) {
		gt_atomic64_inc(&m->stack_overflows);
		/*
		 * A generation's table is emptied with the generation: the
		 * next one names the goroutine (its statuses carry its comm
		 * stack, go123_writer.c).  The 1.11 format's table never is.
		 */
		if (m->format != GT_FORMAT_GO123) {
			gt_model_halt(m);
			return false;
		}
	}
	t->goid = gt_tasks_goid(m, p->tid);
	t->comm_stack = comm_stack;
	task_set_comm(t, p->comm);
	tr.stack = creator_stack;
	tr.stack2 = comm_stack;
	if (!model_emit_at(m, c, t, &tr, model_now(c), false))
		return false;
	t->state = GT_G_RUNNABLE;
	return true;
}

/* GoUnblock or GoSysExit: a waiting goroutine becomes runnable. */
static bool g_wake(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		   u64 stack)
{
	if (t->state == GT_G_SYSWAIT ?
	    !model_emit(m, c, t, GT_TR_SYS_WAKE, 0) :
	    !model_emit(m, c, t, GT_TR_UNBLOCK, stack))
		return false;
	t->state = GT_G_RUNNABLE;
	return true;
}

/* ProcStart, if the P is stopped.  The thread id is the CPU number. */
static bool p_start(struct gt_model *m, struct gt_cpu *c)
{
	if (c->p_started)
		return true;
	if (!model_emit_p(m, c, GT_TR_P_START, c->id))
		return false;
	c->p_started = true;
	return true;
}

/* ---- Interrupts (Documentation/interrupts.rst) -------------------------- */

/* The names of the vectors' and softirqs' goroutines, by id. */
static const char *const irq_vec_names[GT_IN_VEC_NR] = {
	[GT_IN_VEC_LOCAL_TIMER] = "[irq] local timer",
	[GT_IN_VEC_RESCHEDULE] = "[irq] reschedule IPI",
	[GT_IN_VEC_CALL_FUNCTION] = "[irq] function call IPI",
	[GT_IN_VEC_CALL_FUNCTION_SINGLE] = "[irq] single function call IPI",
	[GT_IN_VEC_IRQ_WORK] = "[irq] IRQ work",
	[GT_IN_VEC_TIMER_BROADCAST] = "[irq] timer broadcast IPI",
	[GT_IN_VEC_CPU_STOP] = "[irq] CPU stop IPI",
	[GT_IN_VEC_PLATFORM] = "[irq] platform",
	[GT_IN_VEC_OTHER] = "[irq] other IPI",
};

/* As /proc/softirqs names them. */
static const char *const irq_softirq_names[GT_IN_SOFTIRQ_NR] = {
	[GT_IN_SOFTIRQ_HI] = "[softirq] HI",
	[GT_IN_SOFTIRQ_TIMER] = "[softirq] TIMER",
	[GT_IN_SOFTIRQ_NET_TX] = "[softirq] NET_TX",
	[GT_IN_SOFTIRQ_NET_RX] = "[softirq] NET_RX",
	[GT_IN_SOFTIRQ_BLOCK] = "[softirq] BLOCK",
	[GT_IN_SOFTIRQ_IRQ_POLL] = "[softirq] IRQ_POLL",
	[GT_IN_SOFTIRQ_TASKLET] = "[softirq] TASKLET",
	[GT_IN_SOFTIRQ_SCHED] = "[softirq] SCHED",
	[GT_IN_SOFTIRQ_HRTIMER] = "[softirq] HRTIMER",
	[GT_IN_SOFTIRQ_RCU] = "[softirq] RCU",
};

/* The PC of the frame that names @g. */
static u64 irq_pc(const struct gt_irq_g *g)
{
	return GT_IRQ_PC_BASE + (u64)g->name * GT_IRQ_PC_STEP;
}

/**
 * gt_irq_frame_name() - the name of an interrupt's frame
 * @m:		the model
 * @pc:		a PC of a stack
 * @buf:	set to the name ("[softirq] NET_RX"), if @pc is such a frame
 * @len:	size of @buf
 *
 * Context: the tables' writer (tables.c).
 * Return: whether @pc names an interrupt.
 */
bool gt_irq_frame_name(const struct gt_model *m, u64 pc, char *buf,
		       size_t len)
{
	u64 idx = (pc - GT_IRQ_PC_BASE) / GT_IRQ_PC_STEP;
	const struct gt_irqs *q = m->irqs;

	if (!q || pc < GT_IRQ_PC_BASE || (pc - GT_IRQ_PC_BASE) % GT_IRQ_PC_STEP ||
	    idx >= GT_IRQ_FIXED_NAMES + GT_IRQ_NAMES)
		return false;
	if (idx < GT_IN_VEC_NR)
		snprintf(buf, len, "%s", irq_vec_names[idx]);
	else if (idx < GT_IRQ_FIXED_NAMES)
		snprintf(buf, len, "%s", irq_softirq_names[idx - GT_IN_VEC_NR]);
	else if (idx - GT_IRQ_FIXED_NAMES < READ_ONCE(q->nr_names))
		snprintf(buf, len, "%s", q->names[idx - GT_IRQ_FIXED_NAMES]);
	else
		return false;
	return true;
}

/*
 * The index of the name "[irq @id] @action" in the session's names,
 * added if new; 0 if the table is full.  Once per goroutine made.
 */
static u32 irq_name_intern(struct gt_model *m, u32 id, const char *action)
{
	struct gt_irqs *q = m->irqs;
	char name[GT_IRQ_NAME_LEN];
	unsigned long flags = 0;
	u32 i, idx = 0;

	snprintf(name, sizeof(name), "[irq %u] %.*s", id,
		 GT_IN_IRQ_NAME_LEN - 1, action ? action : "");
	gt_lock_irqsave(&q->lock, flags);
	for (i = 0; i < q->nr_names; i++) {
		if (!strcmp(q->names[i], name)) {
			idx = GT_IRQ_FIXED_NAMES + i;
			break;
		}
	}
	if (!idx && q->nr_names < GT_IRQ_NAMES) {
		memcpy(q->names[q->nr_names], name, sizeof(name));
		/* Read by gt_irq_frame_name() without the lock. */
		gt_store_release(&q->nr_names, q->nr_names + 1);
		idx = GT_IRQ_FIXED_NAMES + q->nr_names - 1;
	}
	gt_unlock_irqrestore(&q->lock, flags);
	return idx;
}

/* Does the session record the interrupts of kind @kind? */
static bool irq_recorded(const struct gt_model *m, unsigned int kind)
{
	if (!m->irqs || kind >= GT_IN_IRQ_KINDS)
		return false;
	return m->opts.flags & (kind == GT_IN_SOFTIRQ ? GOTRACE_OPT_SOFTIRQS :
						      GOTRACE_OPT_HARDIRQS);
}

/* Is @in's id one of its kind's? */
static bool irq_valid(const struct gt_in_irq *in)
{
	return (in->kind != GT_IN_VECTOR || in->id < GT_IN_VEC_NR) &&
	       (in->kind != GT_IN_SOFTIRQ || in->id < GT_IN_SOFTIRQ_NR);
}

/*
 * Set up slot @slot of CPU @c's goroutines for @in; false if it cannot
 * be named (the names are full).
 */
static bool irq_g_init(struct gt_model *m, struct gt_cpu *c,
		       struct gt_irq_g *g, u32 slot, const struct gt_in_irq *in)
{
	u32 name = in->kind == GT_IN_VECTOR ? in->id :
		   in->kind == GT_IN_SOFTIRQ ? GT_IN_VEC_NR + in->id :
		   irq_name_intern(m, in->id, in->name);

	if (!name && in->kind == GT_IN_HARDIRQ)
		return false;
	memset(g, 0, sizeof(*g));
	g->t.goid = GT_IRQ_GOID_BASE + (u64)c->id * GT_IRQ_SLOTS + slot;
	g->t.key = ~0ULL;
	g->t.sys_nr = -1;
	g->t.irq = 1;
	if (in->name)
		memcpy(g->action, in->name,
		       strnlen(in->name, sizeof(g->action) - 1));
	g->kind = in->kind;
	g->id = in->id;
	g->name = name;
	g->used = true;
	return true;
}

/*
 * The goroutine of interrupt @in on CPU @c: the vectors and softirqs
 * have a slot each; a hard IRQ (number and action: a shared line has
 * several) the first slot of its hash that is free or its own, set up
 * when first met.  NULL if every slot is taken.  Bounded: GT_IRQ_HARD
 * slots at most.
 */
static struct gt_irq_g *irq_g_of(struct gt_model *m, struct gt_cpu *c,
				 const struct gt_in_irq *in)
{
	struct gt_irq_cpu *ic = c->irq;
	const char *action = in->name ? in->name : "";
	struct gt_irq_g *g;
	u32 i, slot;

	if (in->kind != GT_IN_HARDIRQ) {
		slot = in->kind == GT_IN_VECTOR ? in->id : GT_IN_VEC_NR + in->id;
		g = &ic->gs[slot];
		if (!g->used && !irq_g_init(m, c, g, slot, in))
			return NULL;
		return g;
	}
	for (i = 0; i < GT_IRQ_HARD; i++) {
		slot = GT_IRQ_FIXED_NAMES + (in->id + i) % GT_IRQ_HARD;
		g = &ic->gs[slot];
		if (!g->used)
			return irq_g_init(m, c, g, slot, in) ? g : NULL;
		if (g->id == in->id &&
		    !strncmp(g->action, action, sizeof(g->action) - 1))
			return g;
	}
	return NULL;
}

/*
 * The one-frame stack naming @t, an interrupt's goroutine, in the table
 * of generation @gen: 0 if the table is full.
 */
u64 gt_irq_name_stack(struct gt_model *m, u64 gen, const struct gt_task *t)
{
	const struct gt_irq_g *g = container_of(t, struct gt_irq_g, t);
	u64 pc = irq_pc(g), ref;

	ref = gt_tables_name_stack(m->tables, gen, pc);
	if (!ref)
		gt_atomic64_inc(&m->stack_overflows);
	return ref;
}

/*
 * The stack of the @n kernel PCs in c->pcs (an interrupt's code), then
 * the frame naming the interrupt @g, in place of a task's user and comm
 * frames: its wakeups and CPU samples are its own.  0 if the table is
 * full.
 */
static u64 irq_stack_of(struct gt_model *m, struct gt_cpu *c, unsigned int n,
			const struct gt_irq_g *g)
{
	u64 ref;

	c->pcs[n++] = irq_pc(g);
	ref = gt_tables_stack(m->tables, model_gen(m), c->pcs, n);
	if (!ref)
		gt_atomic64_inc(&m->stack_overflows);
	return ref;
}

/*
 * The P of CPU @c runs @to_g's goroutine (NULL: the task it runs, or
 * nothing) instead of @from_g's (NULL: the same): an interrupt comes or
 * goes.  A goroutine new to the trace is made first, waiting.  Returns
 * false if nothing could be written (counted): the trace still runs
 * @from_g's, and the next hook that syncs tries again.
 */
static bool irq_switch(struct gt_model *m, struct gt_cpu *c,
		       struct gt_irq_g *from_g, struct gt_irq_g *to_g,
		       bool closing)
{
	struct gt_task *base = c->cur;
	struct gt_task *from = from_g ? &from_g->t : base;
	struct gt_task *to = to_g ? &to_g->t : base;
	struct gt_tr tr = { .kind = GT_TR_SWITCH, .from = from };
	u64 now = model_now(c);

	if (from == to)
		return true;
	/* The 1.11 format: the events of a switch are not split. */
	if (!READ_ONCE(m->halted) && !closing && !model_reserve(m, c, 5)) {
		model_lost(m, c);
		return false;
	}
	if (!from && !p_start(m, c))
		return false;
	if (to_g && to_g->t.state == GT_G_NONE) {
		struct gt_tr nt = { .kind = GT_TR_IRQ_NEW };

		nt.stack2 = gt_irq_name_stack(m, model_gen(m), to);
		/*
		 * The 1.11 format's goroutines need their name, and its table
		 * is never emptied: not shown (the 1.11 format's readers
		 * want a stack; a generation's table names it next time).
		 */
		if (!nt.stack2 && m->format != GT_FORMAT_GO123)
			return false;
		if (!model_emit_at(m, c, to, &nt, now, closing))
			return false;
		to->state = GT_G_WAITING;
	}
	if (!model_emit_at(m, c, to, &tr, now, closing))
		return false;
	if (from_g)
		from->state = GT_G_WAITING;
	else if (from)
		from->irq_wait = 1;
	if (to_g)
		to->state = GT_G_RUNNING;
	else if (to)
		to->irq_wait = 0;
	c->irq->run = to_g;
	return true;
}

/*
 * Make the trace run what CPU @c's frames say: the goroutine of the
 * innermost interrupt the trace shows, or the task (or nothing) when
 * none.  Returns false if that could not be written.
 */
static bool irq_sync(struct gt_model *m, struct gt_cpu *c, bool closing)
{
	struct gt_irq_cpu *ic = c->irq;
	struct gt_irq_g *want = NULL;
	u32 i;

	for (i = ic->nr; i-- > 0;) {
		if (ic->frames[i].g) {
			want = ic->frames[i].g;
			break;
		}
	}
	if (want == ic->run)
		return true;
	return irq_switch(m, c, ic->run, want, closing);
}

/*
 * The task running on CPU @c does something only a task does (it
 * switches, enters a syscall, execs): the interrupts it is in are over,
 * their exits lost (or, on PREEMPT_RT, a softirq running in the task's
 * context lets it sleep).  Close them: the task runs again in the
 * trace; their later exits are unmatched.  False if the trace still
 * runs an interrupt here (the switch back could not be written): the
 * caller writes nothing of the task, whose next hook tries again.
 */
static bool irq_close(struct gt_model *m, struct gt_cpu *c)
{
	struct gt_irq_cpu *ic = c->irq;

	if (likely(!ic) || (!ic->nr && !ic->run && !ic->over))
		return true;
	ic->closed += ic->nr + ic->over;
	ic->nr = 0;
	ic->over = 0;
	return irq_sync(m, c, false);
}

/*
 * The interrupt's goroutine running on CPU @c's P waits, and so does
 * @base, the task it interrupted (NULL: none), which the P no longer
 * runs; @base's bucket lock held.
 */
static void irq_close_p_write(struct gt_model *m, struct gt_cpu *c,
			      struct gt_task *base)
{
	struct gt_irq_cpu *ic = c->irq;
	struct gt_tr tr = { .kind = GT_TR_SWITCH, .from = &ic->run->t };

	if (!model_emit_at(m, c, NULL, &tr, model_now(c), true))
		return;
	ic->run->t.state = GT_G_WAITING;
	ic->run = NULL;
	if (base) {
		/* The trace has it waiting: its next event wakes it. */
		base->irq_wait = 0;
		base->state = GT_G_WAITING;
		c->cur = NULL;
	}
}

/*
 * The P of CPU @c closes (the session's end, the CPU going offline) with
 * an interrupt's goroutine running: it waits, and so does the task it
 * interrupted, which the P no longer runs.  Every frame is closed.
 */
static void irq_close_p(struct gt_model *m, struct gt_cpu *c)
{
	struct gt_irq_cpu *ic = c->irq;
	struct gt_task *base = c->cur;
	struct gt_task_bucket *b;

	if (likely(!ic))
		return;
	ic->closed += ic->nr + ic->over;
	ic->nr = 0;
	ic->over = 0;
	if (!ic->run)
		return;
	if (!base) {
		irq_close_p_write(m, c, NULL);
		return;
	}
	/* The task's entry is its bucket's: hooks of other CPUs may run. */
	b = gt_tasks_bucket(m, base->key);
	gt_lock(&b->lock);
	irq_close_p_write(m, c, base);
	gt_unlock(&b->lock);
}

/* GoStart of a runnable goroutine on this CPU's P. */
static bool g_start(struct gt_model *m, struct gt_cpu *c, struct gt_task *t)
{
	struct gt_task *old = c->cur;

	if (!p_start(m, c))
		return false;
	/*
	 * hook_enter() took any goroutine Linux does not run off this P, and
	 * every path that takes a goroutine off it clears c->cur: another
	 * one here means a missed transition.  The caller holds @t's bucket
	 * lock and may not wait for a second one: lost (model_lost()); a
	 * generational trace takes @old off at this P's next hook.
	 */
	if (old && old != t) {
		model_lost(m, c);
		return false;
	}
	if (!model_emit(m, c, t, GT_TR_START, 0))
		return false;
	t->state = GT_G_RUNNING;
	c->cur = t;
	return true;
}

/*
 * @t runs on another P for the model, but Linux runs it here: its switch
 * away from that P was lost (the BPF backend's ring was full).  Where one
 * thread feeds every CPU (user space), take it off that P, preempted at
 * that P's last event, as cpu_put_stale() does on its own P.  In the
 * module each P is written by its own CPU only: false, and the caller
 * ends the trace.
 */
static bool g_take_from_other_p(struct gt_model *m, struct gt_cpu *c,
				struct gt_task *t)
{
	struct gt_cpu *o;
	int cpu;

	if (!gt_env_may_write_other_p())
		return false;
	gt_env_for_each_cpu(cpu, m) {
		o = gt_env_cpu_ptr(m->cpus, cpu);
		if (o == c || o->cur != t)
			continue;
		if (!irq_close(m, o) ||
		    !model_emit(m, o, t, GT_TR_PREEMPT,
				task_comm_stack(m, t, model_gen(m))))
			return false;
		t->state = GT_G_RUNNABLE;
		o->cur = NULL;
		return true;
	}
	return false;
}

/* Does @p's comm (maybe not NUL-terminated) equal @want's? */
static bool comm_is(const struct gt_in_task *p, const char *want)
{
	unsigned int i;

	for (i = 0; i < GT_IN_COMM_LEN; i++) {
		if (p->comm[i] != want[i])
			return false;
		if (!want[i])
			return true;
	}
	return true;
}

/*
 * The session's trigger fires for task @p (@t), having measured @v at
 * @now, if @p matches its filters and the hold-off allows.  O(1); @t's
 * bucket lock held, or @t runs on this P.  @t's next GoStart is marked.
 */
static void trigger_fire(struct gt_model *m, struct gt_task *t,
			 const struct gt_in_task *p, u64 v, u64 now)
{
	const struct gotrace_trigger *tr = &m->trig;

	if (tr->pid &&
	    (tr->flags & GOTRACE_TRIG_TGID ? p->tgid : p->tid) != tr->pid)
		return;
	if (tr->comm[0] && !comm_is(p, tr->comm))
		return;
	if (gt_env_trigger(m, tr->type, p, v, now))
		t->trig_mark = tr->type;
}

/*
 * The session's threshold trigger for task @p (@t), in its state since
 * @since: the scheduling latency when it is about to run after being
 * runnable, the time off CPU when it is woken.
 */
static void trigger_check(struct gt_model *m, struct gt_cpu *c,
			  struct gt_task *t, const struct gt_in_task *p,
			  u64 since)
{
	u64 now = model_now(c);

	if (now > since && now - since > m->trig.threshold_ns)
		trigger_fire(m, t, p, now - since, now);
}

/*
 * Bring @t to "running on this P", writing whatever transitions the model
 * missed.  A task the model has running on another P means events were
 * lost there: where that P cannot be written from here, the trace cannot
 * go on consistently, so it ends.
 */
static bool g_ensure_running(struct gt_model *m, struct gt_cpu *c,
			     struct gt_task *t, const struct gt_in_task *p)
{
	if (c->cur == t)
		return true;
	if (unlikely(m->trig.type == GOTRACE_TRIGGER_SCHED_LATENCY) &&
	    t->state == GT_G_RUNNABLE)
		trigger_check(m, c, t, p, t->last_ts);
	switch (t->state) {
	case GT_G_NONE:
	case GT_G_DEAD:
		if (!g_create(m, c, t, p, 0))
			return false;
		break;
	case GT_G_WAITING:
	case GT_G_SYSWAIT:
		if (!g_wake(m, c, t, 0))
			return false;
		break;
	case GT_G_RUNNING:
		if (g_take_from_other_p(m, c, t))
			break;
		/* A generational trace goes on: that P's next hook repairs. */
		model_lost(m, c);
		return false;
	}
	/* Its region (go123_writer.c) follows its unit, which a move changes. */
	if (m->units)
		gt_units_track(m, t, p);
	return g_start(m, c, t);
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
/*
 * May @in->prev's comm be read now?  Not when it is preempted: it may be
 * in the middle of writing it (exec, prctl; on PREEMPT_RT task_lock()
 * does not keep it from being preempted there), and a torn name such as
 * "workloadest" (device_test becoming workload) would become a
 * goroutine.  Its next sleep, exec or syscall exit reads it again.
 */
static bool comm_stable(const struct gt_in_switch *in)
{
	return !in->preempt && in->prev_state != GT_IN_RUNNABLE;
}

static bool g_rename(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		     const struct gt_in_task *p)
{
	if (!model_emit(m, c, t, GT_TR_END, 0))
		return false;
	t->state = GT_G_DEAD;
	c->cur = NULL;
	return g_create(m, c, t, p, 0) && g_start(m, c, t);
}

/*
 * @p, running on this CPU as @t, executed a program or changed its comm:
 * the filters decide again.  A hidden task that now matches becomes a
 * goroutine, running here; a recorded one that no longer matches ends
 * (GoEnd) and is hidden from now on; one that still matches is renamed
 * if its comm changed.  Children adopted by the session stay recorded.
 * Returns true if @t is in the trace and running here.
 */
static bool g_refilter(struct gt_model *m, struct gt_cpu *c,
		       struct gt_task *t, const struct gt_in_task *p)
{
	bool match = t->adopted || gt_tasks_match(m, p);

	if (t->hidden) {
		task_set_comm(t, p->comm);
		if (!match)
			return false;
		t->hidden = false;
		t->state = GT_G_NONE;
		/* What it did while hidden was not seen. */
		t->sys_nr = GT_SYS_UNKNOWN;
		return g_ensure_running(m, c, t, p);
	}
	if (!g_ensure_running(m, c, t, p))
		return false;
	if (match)
		return !comm_changed(t, p) || g_rename(m, c, t, p);
	if (!model_emit(m, c, t, GT_TR_END, 0))
		return false;
	t->state = GT_G_DEAD;
	t->hidden = true;
	c->cur = NULL;
	task_set_comm(t, p->comm);
	return false;
}

/* ---- Syscalls --------------------------------------------------------- */

/* Is @t's current syscall one the session records? */
static bool sys_recorded(struct gt_model *m, const struct gt_task *t)
{
	return t->sys_nr >= 0 && m->opts.syscalls != GOTRACE_SYSCALLS_NONE &&
	       gt_syscall_selected(&m->opts, t->sys_nr, t->sys_compat);
}

/*
 * The stack of a syscall entry: the syscall's frame and @t's comm frame,
 * from this CPU's cache, so that entering a syscall walks no stack and
 * mostly takes no lock.
 */
static u64 sys_stack(struct gt_model *m, struct gt_cpu *c, struct gt_task *t)
{
	u32 key = ((u32)t->sys_nr & 0xffff) + ((u32)t->sys_compat << 16) + 1;
	u64 gen = model_gen(m), comm = task_comm_stack(m, t, gen);
	struct gt_sys_cache *e;
	u64 pcs[2], id;

	e = &c->sys_cache[gt_env_hash32((u32)comm * 31 + key,
					GT_SYS_CACHE_BITS)];
	/* Of this generation: a comm stack of another is another key. */
	if (e->key == key && e->comm_stack == comm && e->id >> 32 == gen)
		return e->id;
	pcs[0] = gt_syscall_pc(t->sys_nr, t->sys_compat);
	pcs[1] = task_comm_pc(m, t, gen);
	id = gt_tables_stack(m->tables, gen, pcs, 2);
	if (!id) {
		gt_atomic64_inc(&m->stack_overflows);
		return comm;
	}
	e->key = key;
	e->comm_stack = comm;
	e->id = id;
	return id;
}

/*
 * The stack of a syscall entry with the user frames of @t, current
 * (GOTRACE_OPT_USER_STACKS): [user frames, syscall frame, comm frame],
 * walked at every entry (no cache: the user frames are the point), or
 * sys_stack()'s without them when there are none.
 */
static u64 sys_ustack(struct gt_model *m, struct gt_cpu *c, struct gt_task *t)
{
	u64 gen = model_gen(m), id;
	unsigned int n;

	n = ustack_save(m, c, 0);
	if (!n)
		return sys_stack(m, c, t);
	c->pcs[n++] = gt_syscall_pc(t->sys_nr, t->sys_compat);
	c->pcs[n++] = task_comm_pc(m, t, gen);
	id = stack_intern(m, c, gen, n, 0);
	if (!id) {
		gt_atomic64_inc(&m->stack_overflows);
		return sys_stack(m, c, t);
	}
	return id;
}

/*
 * GoSysCall at the entry of a syscall, kept pending: written before the
 * P's next event, or replaced by the block of this syscall.
 */
static void sys_enter_event(struct gt_model *m, struct gt_cpu *c,
			    struct gt_task *t)
{
	struct gt_sys_pending *sp = &c->sys_pending;

	sys_pending_write(m, c, false);
	if (READ_ONCE(m->halted)) {
		c->lost++;
		return;
	}
	sp->stack = m->opts.flags & GOTRACE_OPT_USER_STACKS ?
		    sys_ustack(m, c, t) : sys_stack(m, c, t);
	sp->pc = gt_syscall_pc(t->sys_nr, t->sys_compat);
	sp->ts = t->sys_enter_ts;
	sp->returned = false;
	sp->task = t;
}

/*
 * @t, leaving the CPU, sleeps in a syscall that has no block event of its
 * own: GoSysCall with the stack of the sleep, GoSysBlock, ProcStop, back
 * to back as Go 1.23 requires (in the generational format the GoSysBlock
 * transition stops the P itself).  The GoSysCall of the entry, when it is
 * still the last record, is replaced by this one (same time, better
 * stack); otherwise the sleep is a syscall of its own, starting now.  The
 * wakeup writes GoSysExit; another sleep in the same syscall is another
 * blocking syscall.
 */
static void sys_block(struct gt_model *m, struct gt_cpu *c,
		      struct gt_task *t, const struct gt_in_task *p)
{
	struct gt_tr tr = { .kind = GT_TR_SYSCALL };
	unsigned int n, nu;
	u64 when, gen;
	int uat;
	u64 id;

	/* Room for the three events, so no chunk boundary splits them. */
	if (!READ_ONCE(m->halted) && !model_reserve(m, c, 3)) {
		model_lost(m, c);
		return;
	}
	/*
	 * Without its pending entry event, the syscall's GoSysCall is in the
	 * trace already, unless only blocking syscalls are recorded.
	 */
	if (!sys_pending_take(c, t, &when))
		when = m->opts.syscalls == GOTRACE_SYSCALLS_ALL ?
			model_now(c) : t->sys_enter_ts;

	gen = model_gen(m);
	n = stack_save(m, c, GT_KSTACK_MAX, false);
	nu = ustack_save(m, c, n);
	uat = nu ? (int)n : -1;
	n += nu;
	c->pcs[n++] = gt_syscall_pc(t->sys_nr, t->sys_compat);
	c->pcs[n++] = comm_pc_of(m, t, p, gen);
	id = stack_intern(m, c, gen, n, uat);
	if (!id) {
		gt_atomic64_inc(&m->stack_overflows);
		id = sys_stack(m, c, t);
	}

	tr.stack = id;
	if (!model_emit_at(m, c, t, &tr, when, false) ||
	    !model_emit(m, c, t, GT_TR_SYS_BLOCK, 0))
		return;
	t->state = GT_G_SYSWAIT;
	c->cur = NULL;
	c->p_started = false;
}

/* ---- Per-CPU start ----------------------------------------------------- */

static bool is_idle(const struct gt_in_task *p)
{
	return p->flags & GT_IN_IDLE;
}

/*
 * A CPU that was offline when the session started, numbered at or above
 * its Ps, is starting its P: Gomaxprocs grows first.  Its first events
 * come before the hotplug callback of gt_model_cpu_online() (the idle
 * task runs before the CPU is fully online), so this is decided here.
 * m->procs only grows; two CPUs growing it at once may write their counts
 * in either order.
 */
static void cpu_grow_procs(struct gt_model *m, struct gt_cpu *c)
{
	unsigned int procs;

	gt_lock(&m->close_lock);
	procs = max(m->procs, c->id + 1);
	WRITE_ONCE(m->procs, procs);
	gt_unlock(&m->close_lock);
	model_emit_p(m, c, GT_TR_PROCS, procs);
}

/*
 * A CPU's first event after the snapshot: ProcStart, then GoStart of the
 * task it is running (if not idle), so that its goroutine is running in
 * the trace before the event being handled.
 */
static void cpu_start(struct gt_model *m, struct gt_cpu *c)
{
	const struct gt_in_task *p = c->ev->cur;
	struct gt_task_bucket *b;
	struct gt_task *t;

	c->started = true;
	if (unlikely(c->id >= READ_ONCE(m->procs)))
		cpu_grow_procs(m, c);
	if (!p_start(m, c) || is_idle(p))
		return;
	b = gt_tasks_bucket(m, p->key);
	gt_lock(&b->lock);
	t = gt_tasks_get(m, b, p);
	if (t)
		g_ensure_running(m, c, t, p);
	gt_unlock(&b->lock);
}

/*
 * Take @t, the goroutine on this P, off it (its bucket lock held, or
 * every hook done): ended if its task died and the GoEnd of its final
 * switch could not be written then (task_exited()), else preempted.  An
 * entry given back meanwhile (task_exited(), or gt_tasks_find() for a
 * task that died unseen: gone) goes back to the free list once neither
 * a P nor a sweep needs it.  Returns false if nothing could be written:
 * @t stays on the P.
 */
static bool cpu_take_off(struct gt_model *m, struct gt_cpu *c,
			 struct gt_task *t, bool closing)
{
	struct gt_tr tr = { .kind = GT_TR_END };

	if (t->exited) {
		if (!model_emit_at(m, c, t, &tr, model_now(c), closing))
			return false;
		t->state = GT_G_DEAD;
	} else {
		tr.kind = GT_TR_PREEMPT;
		tr.stack = task_comm_stack(m, t, model_gen(m));
		if (!model_emit_at(m, c, t, &tr, model_now(c), closing))
			return false;
		t->state = GT_G_RUNNABLE;
	}
	c->cur = NULL;
	if (t->gone)
		gt_tasks_release(m, t);
	return true;
}

/*
 * The trace has another goroutine on this P than Linux runs: a switch
 * was not seen, or its task's death could not be written.  Take it off
 * the P, as Go's parsers demand, under its bucket lock, before the hook
 * takes any other.
 */
static void cpu_put_stale(struct gt_model *m, struct gt_cpu *c)
{
	struct gt_task *t = c->cur;
	struct gt_task_bucket *b = gt_tasks_bucket(m, t->key);

	gt_lock(&b->lock);
	cpu_take_off(m, c, t, false);
	gt_unlock(&b->lock);
}

/* Is @t, on this P, another task than @cur (a reused key included)? */
static bool cpu_cur_stale(const struct gt_task *t, const struct gt_in_task *cur)
{
	return t->key != cur->key || t->start_time != cur->start_time;
}

/*
 * Common entry of every hook: the state of the event's CPU, with
 * interrupts disabled, or NULL if the hook has nothing to do (snapshot
 * not armed, CPU offline).  The event is the CPU's until hook_exit(): its
 * time is the clock of user space (the module's: none yet, model_now()),
 * its current task the one Linux runs.  @flags keeps the interrupt state
 * to restore; NULL where the caller has interrupts off already
 * (sched_switch), which saves disabling them again and lockdep checks.
 */
static struct gt_cpu *hook_enter(struct gt_model *m, const struct gt_in_ev *ev,
				 unsigned long *flags)
{
	struct gt_cpu *c;

	/*
	 * Pairs with gt_store_release() in gt_model_snapshot_end(): a hook
	 * that sees the session armed also sees the snapshot's tasks and
	 * every CPU's last_ts.
	 */
	if (!gt_load_acquire(&m->armed))
		return NULL;
	if (flags)
		gt_env_irq_save(*flags);
	else
		gt_lockdep_assert_irqs_disabled();
	c = gt_env_hook_cpu(m, ev);
	if (unlikely(!c || c->offline)) {
		if (flags)
			gt_env_irq_restore(*flags);
		return NULL;
	}
	c->ev = ev;
	c->now = ev->ts;
	if (unlikely(!c->started)) {
		cpu_start(m, c);
	} else if (unlikely(c->cur && cpu_cur_stale(c->cur, ev->cur))) {
		/* Its interrupts first: the task runs again, then goes. */
		if (irq_close(m, c))
			cpu_put_stale(m, c);
	}
	return c;
}

/* The end of a hook; @flags as hook_enter() was given them. */
static void hook_exit(struct gt_cpu *c, const unsigned long *flags)
{
	c->ev = NULL;
	if (flags)
		gt_env_irq_restore(*flags);
}

/* ---- sched_switch ------------------------------------------------------ */

/*
 * @t's task died; its bucket lock is held.  Its entry goes back to the
 * free list whatever the trace could say of its end: a generational
 * session goes on after a loss, and a dead task has no later event that
 * would end its goroutine (every later generation would state a dead
 * thread, and the entry stay taken until its key is reused).  A P the
 * trace still has it running on (its GoEnd found no room, or it runs on
 * another P whose switch away was lost) holds the entry, gone, until
 * that P's next hook ends the goroutine (cpu_put_stale()).
 */
static void task_exited(struct gt_model *m, struct gt_task *t)
{
	if (t->state == GT_G_RUNNING)
		t->exited = true;
	gt_tasks_release(m, t);
}

/*
 * @t, running here (@running: the trace has it so), dies: GoEnd, and the
 * entry goes back in any case.
 */
static void switch_out_dead(struct gt_model *m, struct gt_cpu *c,
			    struct gt_task *t, bool running)
{
	if (running && model_emit(m, c, t, GT_TR_END, 0)) {
		t->state = GT_G_DEAD;
		c->cur = NULL;
	}
	task_exited(m, t);
}

/* @prev leaves the CPU; its bucket lock is held. */
static void switch_out(struct gt_model *m, struct gt_cpu *c,
		       struct gt_task *t, const struct gt_in_switch *in,
		       bool preempt)
{
	const struct gt_in_task *prev = in->prev;
	struct gt_tr tr = { .kind = GT_TR_BLOCK };
	bool running;
	u64 when;

	running = g_ensure_running(m, c, t, prev) &&
		  (!comm_stable(in) || !comm_changed(t, prev) ||
		   g_refilter(m, c, t, prev));
	if (in->prev_state == GT_IN_DEAD) {
		switch_out_dead(m, c, t, running);
		return;
	}
	if (!running)
		return;

	if (preempt || in->prev_state == GT_IN_RUNNABLE) {
		tr.kind = gt_is_sched_yield(t) ? GT_TR_YIELD : GT_TR_PREEMPT;
		tr.stack = stack_here(m, c, t, prev,
				      task_comm_stack(m, t, model_gen(m)),
				      false);
		if (!model_emit_at(m, c, t, &tr, model_now(c), false))
			return;
		t->state = GT_G_RUNNABLE;
	} else {
		tr.why = gt_block_reason(t, in);
		if (tr.why == GT_BLOCK_OTHER && sys_recorded(m, t)) {
			sys_block(m, c, t, prev);
			return;
		}
		/*
		 * The block event is the syscall: its pending entry event is
		 * not written, so that a sleep shows only as a sleep (Go 1.23
		 * would count it in the syscall profile too).
		 */
		sys_pending_take(c, t, &when);
		tr.stack = stack_here(m, c, t, prev,
				      task_comm_stack(m, t, model_gen(m)),
				      false);
		if (!model_emit_at(m, c, t, &tr, model_now(c), false))
			return;
		t->state = GT_G_WAITING;
	}
	c->cur = NULL;
}

/*
 * @prev, hidden by the filters, leaves the CPU; its bucket lock is held.
 * Its final switch gives its entry back; a new comm may make it match.
 */
static void hidden_switch_out(struct gt_model *m, struct gt_cpu *c,
			      struct gt_task *t, const struct gt_in_switch *in)
{
	if (in->prev_state == GT_IN_DEAD) {
		gt_tasks_release(m, t);
		return;
	}
	if (m->opts.comm[0] && comm_stable(in) && comm_changed(t, in->prev) &&
	    g_refilter(m, c, t, in->prev))
		switch_out(m, c, t, in, false);
}

/*
 * A switch not written: the trace still runs an interrupt on this P
 * (its switch back to the task found no room).  The next hook of this
 * P takes the task off (hook_enter()); a task that died gives its entry
 * back now, kept until then (task_exited()).
 */
static void switch_lost(struct gt_model *m, const struct gt_in_switch *in)
{
	struct gt_task_bucket *b;
	struct gt_task *t;

	if (is_idle(in->prev) || in->prev_state != GT_IN_DEAD)
		return;
	b = gt_tasks_bucket(m, in->prev->key);
	gt_lock(&b->lock);
	t = gt_tasks_find(m, b, in->prev);
	if (t)
		task_exited(m, t);
	gt_unlock(&b->lock);
}

/**
 * gt_model_switch() - sched_switch: @in->prev leaves the CPU, @in->next runs
 * @m:		the model
 * @in:		the switch
 *
 * Context: the scheduler, runqueue lock held, irqs off: __schedule()
 * disables them before it takes the lock, on every kernel gotrace
 * supports, PREEMPT_RT included (its runqueue lock is a raw spinlock).
 */
void gt_model_switch(struct gt_model *m, const struct gt_in_switch *in)
{
	struct gt_task_bucket *b;
	struct gt_cpu *c;
	struct gt_task *t;

	c = hook_enter(m, &in->ev, NULL);
	if (!c)
		return;
	if (unlikely(!irq_close(m, c))) {
		switch_lost(m, in);
		hook_exit(c, NULL);
		return;
	}

	if (!is_idle(in->prev)) {
		b = gt_tasks_bucket(m, in->prev->key);
		gt_lock(&b->lock);
		t = gt_tasks_entry(m, b, in->prev, false);
		if (t && t->hidden)
			hidden_switch_out(m, c, t, in);
		else if (t)
			switch_out(m, c, t, in, in->preempt);
		gt_unlock(&b->lock);
	}

	if (!is_idle(in->next)) {
		b = gt_tasks_bucket(m, in->next->key);
		gt_lock(&b->lock);
		t = gt_tasks_get(m, b, in->next);
		if (t)
			g_ensure_running(m, c, t, in->next);
		gt_unlock(&b->lock);
	}
	hook_exit(c, NULL);
}

/* ---- Wakeups, fork, exec, exit ----------------------------------------- */

/*
 * The stack of whoever wakes or creates a task on this CPU: the kernel
 * frames and, if the trace shows the task running here, its comm frame
 * (not for the idle task, nor for a task the filters leave out).
 */
static u64 waker_stack(struct gt_model *m, struct gt_cpu *c)
{
	const struct gt_in_task *p = c->ev->cur;

	/* An interrupt wakes it: named by the interrupt, not the task. */
	if (unlikely(c->irq && c->irq->run))
		return irq_stack_of(m, c, stack_save(m, c, GT_KSTACK_MAX, true),
				    c->irq->run);

	/* Only a task the trace shows names itself: the one running here. */
	return stack_here(m, c, c->cur,
			  c->cur && c->cur->key == p->key ? p : NULL, 0, true);
}

/*
 * @p is being woken: a goroutine the trace has blocked becomes runnable,
 * unblocked by whatever runs here.  With @may_create, a task the trace
 * has not seen, or has seen end, is created instead; with @fork too, and
 * it is recorded whatever the filters say if its parent (current) is and
 * the session follows children.
 */
static void task_woken(struct gt_model *m, const struct gt_in_ev *ev,
		       const struct gt_in_task *p, bool may_create, bool fork)
{
	bool adopt;
	struct gt_task_bucket *b;
	unsigned long flags = 0;
	struct gt_cpu *c;
	struct gt_task *t;

	if (is_idle(p))
		return;
	/*
	 * Saves and disables interrupts: try_to_wake_up() of current runs
	 * with them on, unlike __schedule().
	 */
	c = hook_enter(m, ev, &flags);
	if (!c)
		return;
	adopt = fork && m->opts.flags & GOTRACE_OPT_CHILDREN &&
		c->cur && c->cur->key == ev->cur->key;
	b = gt_tasks_bucket(m, p->key);
	gt_lock(&b->lock);
	t = may_create ? gt_tasks_entry(m, b, p, adopt) : gt_tasks_find(m, b, p);
	if (t && !t->hidden) {
		switch (t->state) {
		case GT_G_NONE:
		case GT_G_DEAD:
			if (may_create)
				g_create(m, c, t, p, waker_stack(m, c));
			break;
		case GT_G_WAITING:
		case GT_G_SYSWAIT:
			if (unlikely(m->trig.type == GOTRACE_TRIGGER_OFFCPU))
				trigger_check(m, c, t, p, t->last_ts);
			g_wake(m, c, t, waker_stack(m, c));
			break;
		default:
			/* Runnable or running: a wakeup that changed nothing. */
			break;
		}
	}
	gt_unlock(&b->lock);
	hook_exit(c, &flags);
}

/**
 * gt_model_wakeup() - sched_wakeup(_new): @in->task was made runnable
 * @m:	the model
 * @in:	the wakeup
 *
 * Context: try_to_wake_up(), on the waking CPU, or for queued wakeups on
 * the task's CPU, runqueue lock held, irqs off; also wake_up_new_task(),
 * the same.  Where current wakes itself, try_to_wake_up() holds no lock
 * and has only preemption off: irqs may be on, and task_woken() disables
 * them (never assume them off here, as gt_model_switch() does).
 */
void gt_model_wakeup(struct gt_model *m, const struct gt_in_wake *in)
{
	task_woken(m, &in->ev, in->task, true, false);
}

/**
 * gt_model_waking() - sched_waking: the current task starts waking another
 * @m:	the model
 * @in:	the wakeup; @in->ev.cur is the waker
 *
 * If the trace has the task blocked, it is unblocked here, on the
 * waker's P and with the waker's stack, so the trace shows who woke whom
 * even when the kernel completes the wakeup on the task's CPU.  If the
 * trace still has it running (it is on its way to sleep on another CPU),
 * nothing is written: if it has left its CPU by sched_wakeup, that
 * unblocks it; if it has not (ttwu_runnable()), it never blocks and
 * nothing is written at all.
 *
 * Context: try_to_wake_up(), the task's pi_lock held, irqs off; but where
 * current wakes itself, no lock and only preemption off: irqs may be on,
 * and task_woken() disables them.
 */
void gt_model_waking(struct gt_model *m, const struct gt_in_wake *in)
{
	task_woken(m, &in->ev, in->task, false, false);
}

/**
 * gt_model_fork() - sched_process_fork: @in->child is a new task
 * @m:	the model
 * @in:	the fork; @in->ev.cur is the parent
 *
 * Context: process context of the parent; may be preemptible.
 */
void gt_model_fork(struct gt_model *m, const struct gt_in_fork *in)
{
	/* Created with the parent's stack, as a wakeup creates an unseen task. */
	task_woken(m, &in->ev, in->child, true, true);
}

/*
 * An exec by a thread other than its process's leader (de_thread()): the
 * thread, running here, took the leader's tid and start time, which the
 * entry that the trace runs on this P must take too, before hook_enter()
 * would take the thread for another task on the same key (a task_struct
 * freed and reused) and every later event of it for a task never seen,
 * which a pid or --children filter then leaves out.  The key is the
 * same task_struct, running: no other task can hold it now.
 */
static void exec_rekey(struct gt_model *m, const struct gt_in_ev *ev)
{
	const struct gt_in_task *p = ev->cur;
	struct gt_task_bucket *b;
	unsigned long flags;
	struct gt_cpu *c;
	struct gt_task *t;

	if (!gt_load_acquire(&m->armed))
		return;
	gt_env_irq_save(flags);
	c = gt_env_hook_cpu(m, ev);
	t = c && !c->offline ? c->cur : NULL;
	if (t && t->key == p->key && t->start_time != p->start_time) {
		b = gt_tasks_bucket(m, p->key);
		gt_lock(&b->lock);
		t->start_time = p->start_time;
		gt_unlock(&b->lock);
	}
	gt_env_irq_restore(flags);
}

/**
 * gt_model_exec() - sched_process_exec: the current task runs a new program
 * @m:	the model
 * @in:	the exec; @in->ev.cur already carries the new comm
 *
 * A goroutine's name is fixed when it is created, so the old goroutine
 * ends and a new one, named after the new comm, starts in its place:
 * the rename of the exec.  exec sets the comm before this tracepoint, so
 * a switch in between may have done the rename already; an exec that
 * keeps the name keeps the goroutine.
 *
 * Context: process context of the task.
 */
void gt_model_exec(struct gt_model *m, const struct gt_in_exec *in)
{
	const struct gt_in_task *p = in->ev.cur;
	struct gt_task_bucket *b;
	unsigned long flags = 0;
	struct gt_cpu *c;
	struct gt_task *t;

	if (unlikely(in->old_tid != p->tid))
		exec_rekey(m, &in->ev);
	c = hook_enter(m, &in->ev, &flags);
	if (!c)
		return;
	if (unlikely(!irq_close(m, c)))
		goto out;
	b = gt_tasks_bucket(m, p->key);
	gt_lock(&b->lock);
	t = gt_tasks_entry(m, b, p, false);
	if (t)
		g_refilter(m, c, t, p);
	gt_unlock(&b->lock);
out:
	hook_exit(c, &flags);
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

	return t && t->key == c->ev->cur->key ? t : NULL;
}

/**
 * gt_model_sys_enter() - sys_enter: the current task enters a syscall
 * @m:	the model
 * @in:	the syscall's number and ABI
 *
 * Context: process context of the task; preemptible from Linux 6.13.
 */
void gt_model_sys_enter(struct gt_model *m, const struct gt_in_sys_enter *in)
{
	unsigned long flags = 0;
	struct gt_cpu *c;
	struct gt_task *t;

	c = hook_enter(m, &in->ev, &flags);
	if (!c)
		return;
	/* Its interrupts are over: none enters a syscall. */
	t = irq_close(m, c) ? current_entry(c) : NULL;
	if (t) {
		t->sys_nr = in->nr;
		t->sys_compat = in->compat;
		t->sys_enter_ts = model_now(c);
		if (unlikely(m->trig.type == GOTRACE_TRIGGER_SYSCALL) &&
		    in->nr == m->trig.syscall && !in->compat)
			trigger_fire(m, t, c->ev->cur, (u64)in->nr,
				     t->sys_enter_ts);
		if (m->opts.syscalls == GOTRACE_SYSCALLS_ALL &&
		    gt_syscall_selected(&m->opts, in->nr, t->sys_compat))
			sys_enter_event(m, c, t);
	}
	hook_exit(c, &flags);
}

/* Filters decide again for current, hidden until now.  Irqs off. */
static void sys_exit_unhidden(struct gt_model *m, struct gt_cpu *c)
{
	const struct gt_in_task *p = c->ev->cur;
	struct gt_task_bucket *b = gt_tasks_bucket(m, p->key);
	struct gt_task *t;

	gt_lock(&b->lock);
	t = gt_tasks_find(m, b, p);
	if (t && t->hidden && comm_changed(t, p) && g_refilter(m, c, t, p))
		t->sys_nr = -1;
	gt_unlock(&b->lock);
}

/**
 * gt_model_sys_exit() - sys_exit: the current task left its syscall
 * @m:	the model
 * @in:	the exit
 *
 * Context: as gt_model_sys_enter().
 */
void gt_model_sys_exit(struct gt_model *m, const struct gt_in_sys_exit *in)
{
	const struct gt_in_task *p = in->ev.cur;
	unsigned long flags = 0;
	struct gt_cpu *c;
	struct gt_task *t;

	c = hook_enter(m, &in->ev, &flags);
	if (!c)
		return;
	if (unlikely(!irq_close(m, c)))
		goto out;
	t = current_entry(c);
	if (t) {
		t->sys_nr = -1;
		if (c->sys_pending.task == t)
			c->sys_pending.returned = true;
		/* prctl(PR_SET_NAME) shows at once, not at the next switch. */
		if (unlikely(comm_changed(t, p))) {
			struct gt_task_bucket *b = gt_tasks_bucket(m, p->key);

			gt_lock(&b->lock);
			g_refilter(m, c, t, p);
			gt_unlock(&b->lock);
		}
	} else if (unlikely(m->opts.comm[0] &&
			    !strncmp(p->comm, m->opts.comm, GT_IN_COMM_LEN) &&
			    !is_idle(p))) {
		/*
		 * A task the trace does not record that has just taken the
		 * name the session filters on (prctl(PR_SET_NAME)): recorded
		 * from now on, not from its next switch.
		 */
		sys_exit_unhidden(m, c);
	}
out:
	hook_exit(c, &flags);
}

/* ---- CPU samples -------------------------------------------------------- */

/*
 * The stack a CPU sample caught on this CPU, whose running goroutine is
 * @t (task @p): the kernel code interrupted, if any, then @t's user
 * frames and its comm frame (stack_of(), as for a hook's own code).  0
 * if the table is full.
 */
static u64 sample_stack(struct gt_model *m, struct gt_cpu *c,
			struct gt_task *t, const struct gt_in_task *p)
{
	unsigned int n = 0;
	u64 id;

	if (!(m->opts.flags & GOTRACE_OPT_NO_KSTACKS))
		n = gt_env_sample_kstack(c, c->pcs, GT_STACK_PCS,
					 GT_KSTACK_MAX);
	c->sampling = true;
	id = stack_of(m, c, n, t, p, 0);
	c->sampling = false;
	return id;
}

/*
 * The interrupt goroutine a CPU sample is of, NULL: the task's.  Both
 * backends sample from a timer (the module's hrtimer, perf's cpu-clock),
 * whose callback runs in the CPU's timer interrupt: the innermost hard
 * interrupt at a sample is the sampler's own (x86's local timer vector,
 * arm64's arch_timer IRQ), and the sample is of what it interrupted,
 * the frame below it.  A softirq there is one the timer interrupted.
 */
static struct gt_irq_g *sampled_irq(const struct gt_cpu *c)
{
	const struct gt_irq_cpu *ic = c->irq;
	u32 n;

	if (likely(!ic) || !ic->run)
		return NULL;
	n = min_t(u32, ic->nr, GT_IRQ_DEPTH);
	if (n && ic->frames[n - 1].kind != GT_IN_SOFTIRQ)
		n--;
	return n ? ic->frames[n - 1].g : NULL;
}

/**
 * gt_model_cpu_sample() - a CPU sample: the sampler interrupted this CPU
 * @m:	the model, writing the generational format (the only one with
 *	CPU samples)
 * @in:	the task it interrupted
 *
 * A sample of the goroutine the trace runs on this P is written with the
 * stack it caught; one that found the CPU idle, or running a task the
 * filters leave out, is only counted, as is one the CPU's buffer had no
 * room for.  A sample changes no state: nothing is lost with it.
 *
 * Context: the sampler's interrupt on that CPU (the module: a hard-IRQ
 * timer, which cannot come while a hook of this CPU writes, since hooks
 * run with interrupts off); user space: in time order with the events.
 */
void gt_model_cpu_sample(struct gt_model *m, const struct gt_in_sample *in)
{
	const struct gt_in_task *p = in->ev.cur;
	struct gt_irq_g *g;
	unsigned long flags = 0;
	struct gt_cpu *c;
	struct gt_task *t;
	u64 ref;

	if (m->format != GT_FORMAT_GO123)
		return;
	c = hook_enter(m, &in->ev, &flags);
	if (!c)
		return;
	c->samples_lost += in->missed;
	t = current_entry(c);
	g = sampled_irq(c);
	if (unlikely(g)) {
		/*
		 * The interrupt's time, not the task's: its goroutine's,
		 * also on an idle CPU (the trace shows its interrupts).
		 */
		ref = irq_stack_of(m, c, (m->opts.flags & GOTRACE_OPT_NO_KSTACKS) ?
				   0 : gt_env_sample_kstack(c, c->pcs, GT_STACK_PCS,
							    GT_KSTACK_MAX),
				   g);
		if (gt_w123_sample(m, c, &g->t, model_now(c), ref))
			c->samples++;
		else
			c->samples_lost++;
	} else if (is_idle(p)) {
		c->samples_idle++;
	} else if (!t || t->hidden) {
		c->samples_hidden++;
	} else {
		ref = sample_stack(m, c, t, p);
		if (gt_w123_sample(m, c, t, model_now(c), ref))
			c->samples++;
		else
			c->samples_lost++;
	}
	hook_exit(c, &flags);
}

/* ---- Generations ------------------------------------------------------- */

/**
 * gt_model_catch_up() - this CPU moves to the session's generation now
 * @m:	the model, writing the generational format, armed
 * @ev:	this CPU, and the task Linux runs on it
 *
 * What a hook does first, and the generation's start (gt_w123_cpu_catch_up())
 * for a CPU that has had no event since the generation began: an idle
 * CPU's P is stated, and a goroutine the trace still has on it that
 * Linux does not run (its switch away was lost) is taken off.
 *
 * Context: the reader's IPI, interrupts off.
 */
void gt_model_catch_up(struct gt_model *m, const struct gt_in_ev *ev)
{
	unsigned long flags = 0;
	struct gt_cpu *c = hook_enter(m, ev, &flags);

	if (c) {
		gt_w123_cpu_catch_up(m, c);
		hook_exit(c, &flags);
		return;
	}
	/* Offline (no hook writes there), or the session is stopping. */
	c = gt_env_hook_cpu(m, ev);
	if (c)
		gt_w123_cpu_catch_up(m, c);
}

/* ---- Start and stop ---------------------------------------------------- */

/**
 * gt_model_init() - a model whose CPUs are allocated: number them, reset
 * the counters
 * @m:	the model; its close_lock is initialised already (the environment
 *	may close CPUs of a session that has not started)
 *
 * Return: 0.
 */
int gt_model_init(struct gt_model *m)
{
	int cpu;

	gt_env_for_each_cpu(cpu, m)
		gt_env_cpu_ptr(m->cpus, cpu)->id = cpu;
	gt_atomic64_set(&m->task_overflows, 0);
	gt_atomic64_set(&m->chunk_overflows, 0);
	gt_atomic64_set(&m->stack_overflows, 0);
	m->halted = false;
	m->armed = false;
	return 0;
}

/*
 * Called when an event cannot be recorded: from now on the hooks write
 * nothing and the environment stops the session as soon as it can.  The
 * trace stays valid up to this point.
 */
void gt_model_halt(struct gt_model *m)
{
	if (READ_ONCE(m->halted))
		return;
	WRITE_ONCE(m->halted, true);
	gt_env_halted(m);
}

/**
 * gt_model_snapshot_begin() - the start of the trace: Gomaxprocs
 * @m:	the model, hooks not armed
 * @ev:	its CPU is the P the snapshot is written on (the module: this
 *	CPU, migration disabled until the last gt_model_snapshot_task());
 *	its time the snapshot's
 *
 * Gomaxprocs is the unique earliest event, which the Go 1.23 converter
 * needs first.  Until the session is armed no hook and no hotplug
 * callback touches its CPUs' state, so nothing else writes to this CPU's
 * chunk meanwhile.
 *
 * Return: 0, or -ENOSPC.
 */
int gt_model_snapshot_begin(struct gt_model *m, const struct gt_in_ev *ev)
{
	unsigned long flags = 0;
	struct gt_cpu *c;
	int ret = 0;

	gt_env_irq_save(flags);
	c = gt_env_hook_cpu(m, ev);
	if (c) {
		c->now = ev->ts;
		m->procs = m->nr_ps;
		if (!model_emit_p(m, c, GT_TR_PROCS, m->nr_ps))
			ret = -ENOSPC;
	} else {
		ret = -EINVAL;
	}
	m->snap_cpu = c;
	gt_env_irq_restore(flags);
	return ret;
}

/**
 * gt_model_snapshot_task() - one task that exists when the session starts
 * @m:		the model, between gt_model_snapshot_begin() and _end()
 * @snap:	the task; the filters decide whether it is recorded
 *
 * GoCreate, and GoWaiting for a sleeping one.  Runnable and running ones
 * stay runnable: each CPU's first hook starts the goroutine it runs.
 * Interrupts are disabled only while one task is written: a host with
 * tens of thousands of threads must not run milliseconds with them off.
 *
 * Return: 0, or -ENOSPC if the pools are too small for the tasks.
 */
int gt_model_snapshot_task(struct gt_model *m,
			   const struct gt_in_snap_task *snap)
{
	struct gt_cpu *c = m->snap_cpu;
	struct gt_task_bucket *b;
	unsigned long flags = 0;
	struct gt_task *t;

	if (!c)
		return -EINVAL;
	if (is_idle(snap->task))
		return 0;
	b = gt_tasks_bucket(m, snap->task->key);
	gt_lock_irqsave(&b->lock, flags);
	t = gt_tasks_get(m, b, snap->task);
	if (t && t->state == GT_G_NONE && g_create(m, c, t, snap->task, 0) &&
	    snap->sleeping) {
		if (model_emit(m, c, t, GT_TR_WAITING, 0))
			t->state = GT_G_WAITING;
	}
	gt_unlock_irqrestore(&b->lock, flags);
	return READ_ONCE(m->halted) ? -ENOSPC : 0;
}

/**
 * gt_model_snapshot_end() - arm the hooks
 * @m:	the model, its snapshot written
 *
 * Return: 0, or -ENOSPC if the snapshot did not fit (the hooks stay
 * disarmed).
 */
int gt_model_snapshot_end(struct gt_model *m)
{
	struct gt_cpu *c = m->snap_cpu;
	u64 now;
	int cpu;

	if (!c)
		return -EINVAL;
	m->snap_cpu = NULL;
	if (READ_ONCE(m->halted))
		return -ENOSPC;
	/* Every P's first event comes after the snapshot. */
	now = c->last_ts + 1;
	gt_env_for_each_cpu(cpu, m)
		gt_env_cpu_ptr(m->cpus, cpu)->last_ts = now;
	/* The generational format states every P at a generation's start. */
	if (m->format == GT_FORMAT_GO123)
		gt_w123_gen_start(m);
	/*
	 * Publish the snapshot; pairs with gt_load_acquire() in hook_enter():
	 * a hook that sees the session armed also sees the writes above.
	 */
	gt_store_release(&m->armed, true);
	return 0;
}

/**
 * gt_model_disarm() - make every hook return at once from now on
 * @m:	the model, about to be closed
 *
 * Hooks already past the check finish their event; the module waits for
 * them with tracepoint_synchronize_unregister() before closing the Ps.
 */
void gt_model_disarm(struct gt_model *m)
{
	/* Pairs with gt_load_acquire() in hook_enter(). */
	gt_store_release(&m->armed, false);
}

/*
 * Write the closing events of one CPU, on behalf of that CPU: the
 * goroutine still running is preempted, or ended if its task died (the
 * Go 1.21 viewer crashes on a slice that never ends), the P stops, and
 * the last chunk is queued.
 */
static void close_cpu(struct gt_model *m, struct gt_cpu *c)
{
	struct gt_tr stop = { .kind = GT_TR_P_STOP };
	struct gt_task_bucket *b;
	struct gt_task *t;

	irq_close_p(m, c);
	t = c->cur;
	/* The goroutine's entry is its bucket's, hooks may be running. */
	if (t) {
		b = gt_tasks_bucket(m, t->key);
		gt_lock(&b->lock);
		cpu_take_off(m, c, t, true);
		gt_unlock(&b->lock);
	} else {
		sys_pending_write(m, c, true);
	}
	if (c->p_started && !c->cur &&
	    model_write(m, c, NULL, &stop, model_now(c), true))
		c->p_started = false;
	if (c->chunk)
		gt_cpu_handover(m, c, false);
}

/**
 * gt_model_cpu_offline() - a CPU goes offline: close its P
 * @m:	the model
 * @ev:	the CPU (the module: this one) and the time
 *
 * The goroutine it runs is preempted, the P stopped and its chunk handed
 * to the reader (who is not woken: the caller does it); until the CPU
 * comes back, its hooks write nothing.  m->close_lock keeps this apart
 * from the stop, which closes every CPU.
 *
 * Context: the CPU hotplug thread of the CPU going down.
 */
void gt_model_cpu_offline(struct gt_model *m, const struct gt_in_ev *ev)
{
	unsigned long flags = 0;
	struct gt_cpu *c;

	gt_lock_irqsave(&m->close_lock, flags);
	/* Pairs with the release of the snapshot: m->cpus is set up. */
	if (gt_load_acquire(&m->armed)) {
		c = gt_env_hook_cpu(m, ev);
		if (c) {
			c->now = ev->ts;
			close_cpu(m, c);
			c->started = false;
			c->offline = true;
		}
	}
	gt_unlock_irqrestore(&m->close_lock, flags);
}

/**
 * gt_model_cpu_online() - a CPU is back: its next event starts its P
 * @m:	the model
 * @ev:	the CPU (the module: this one)
 *
 * A CPU that was not online when the session started also grows the
 * reserve of chunks kept for closing the trace (its P and Gomaxprocs
 * grow at its first event, cpu_grow_procs()).  The chunks themselves do
 * not grow: this runs where nothing may be allocated, and the new P
 * shares the pool.
 *
 * Context: the CPU hotplug thread of the CPU coming up.
 */
void gt_model_cpu_online(struct gt_model *m, const struct gt_in_ev *ev)
{
	unsigned long flags = 0;
	struct gt_cpu *c;

	gt_lock_irqsave(&m->close_lock, flags);
	/* Pairs with the release of the snapshot: m->cpus is set up. */
	if (gt_load_acquire(&m->armed)) {
		c = gt_env_hook_cpu(m, ev);
		if (c) {
			c->offline = false;
			/* A CPU new to the session: one more chunk for its end. */
			if (!c->in_pool) {
				c->in_pool = true;
				gt_pool_reserve_more(&m->pool);
			}
		}
	}
	gt_unlock_irqrestore(&m->close_lock, flags);
}

/* The counters of CPU @st->cpu.  Context: any. */
void gt_model_cpu_status(struct gt_model *m, struct gotrace_cpu_status *st)
{
	struct gt_cpu *c = gt_env_cpu_ptr(m->cpus, st->cpu);

	st->running = READ_ONCE(c->p_started);
	st->events = READ_ONCE(c->events);
	st->lost_events = READ_ONCE(c->lost);
	st->chunk_overflows = READ_ONCE(c->chunk_overflows);
	st->cpu_samples = READ_ONCE(c->samples);
	st->cpu_samples_idle = READ_ONCE(c->samples_idle);
	st->cpu_samples_hidden = READ_ONCE(c->samples_hidden);
	st->cpu_samples_lost = READ_ONCE(c->samples_lost);
}

/**
 * gt_model_close() - close every P; the trace is complete but its footer
 * @m:	the model, whose hooks are all done
 * @ts:	the time of the close (user space; the module reads the clock)
 *
 * Context: process context.
 */
void gt_model_close(struct gt_model *m, u64 ts)
{
	unsigned long flags = 0;
	struct gt_cpu *c;
	int cpu;

	gt_lock_irqsave(&m->close_lock, flags);
	gt_env_for_each_cpu(cpu, m) {
		c = gt_env_cpu_ptr(m->cpus, cpu);
		c->now = ts;
		close_cpu(m, c);
	}
	gt_unlock_irqrestore(&m->close_lock, flags);
}

/*
 * Sum of the CPUs' event (or lost event) counters: the events of the
 * file, as its readers count them, with those of the go 1.23 sweeps.
 */
u64 gt_model_count(struct gt_model *m, bool lost)
{
	u64 sum = 0;
	int cpu;

	if (!lost && m->format == GT_FORMAT_GO123)
		sum = READ_ONCE(m->w123.sweep_events);

	gt_env_for_each_cpu(cpu, m) {
		struct gt_cpu *c = gt_env_cpu_ptr(m->cpus, cpu);

		sum += lost ? READ_ONCE(c->lost) : READ_ONCE(c->events);
	}
	return sum;
}

/* The CPU samples' counters of every CPU, into @st. */
void gt_model_samples(struct gt_model *m, struct gotrace_status *st)
{
	int cpu;

	gt_env_for_each_cpu(cpu, m) {
		struct gt_cpu *c = gt_env_cpu_ptr(m->cpus, cpu);

		st->cpu_samples += READ_ONCE(c->samples);
		st->cpu_samples_idle += READ_ONCE(c->samples_idle);
		st->cpu_samples_hidden += READ_ONCE(c->samples_hidden);
		st->cpu_samples_lost += READ_ONCE(c->samples_lost);
	}
}

/* The last timestamp of any P: the footer's batch must not be earlier. */
u64 gt_model_last_ts(struct gt_model *m)
{
	u64 ts = 0;
	int cpu;

	gt_env_for_each_cpu(cpu, m)
		ts = max(ts, gt_env_cpu_ptr(m->cpus, cpu)->last_ts);
	return ts;
}

/* ---- Interrupts and work items: the hooks ------------------------------ */

/*
 * Does the trace show the interrupts of CPU @c now?  Those of a task it
 * records; those of an idle CPU (or of a task the filters hide, which
 * the trace shows as idle time) only when the session filters no task.
 */
static bool irq_shown(const struct gt_model *m, const struct gt_cpu *c)
{
	const struct gotrace_options *o = &m->opts;

	return c->cur || (!o->nr_pids && !o->comm[0] && !o->cgroup_id);
}

/**
 * gt_model_irq_entry() - an interrupt's handler begins on @in->ev.cpu
 * @m:	the model
 * @in:	the interrupt; @in->ev.cur the task it interrupts
 *
 * Its goroutine takes the P from the goroutine that ran (the task, or
 * the interrupt this one nests in), which waits meanwhile; on an idle
 * CPU the P starts for it.  An entry past GT_IRQ_DEPTH is counted and
 * not written, and so is its exit.
 *
 * Context: the interrupt (hard IRQ, softirq: any), or on PREEMPT_RT a
 * softirq in task context.  O(GT_IRQ_HARD) at most.
 */
void gt_model_irq_entry(struct gt_model *m, const struct gt_in_irq *in)
{
	struct gt_irq_frame *f;
	struct gt_irq_cpu *ic;
	unsigned long flags = 0;
	struct gt_cpu *c;

	if (!irq_recorded(m, in->kind) || !irq_valid(in))
		return;
	c = hook_enter(m, &in->ev, &flags);
	if (!c)
		return;
	ic = c->irq;
	if (ic->nr == GT_IRQ_DEPTH) {
		ic->over++;
		ic->too_deep++;
	} else {
		f = &ic->frames[ic->nr++];
		f->kind = in->kind;
		f->id = in->id;
		f->g = irq_shown(m, c) ? irq_g_of(m, c, in) : NULL;
		irq_sync(m, c, false);
	}
	hook_exit(c, &flags);
}

/**
 * gt_model_irq_exit() - an interrupt's handler ends on @in->ev.cpu
 * @m:	the model
 * @in:	the interrupt
 *
 * The innermost frame of the same kind and number ends, and the frames
 * above it, whose exits were lost (counted); the goroutine below it (the
 * task, or nothing) runs again.  An exit that matches no frame (its
 * entry came before the session, or was lost, or a switch of the task
 * closed it) is counted and changes nothing.
 *
 * Context: as gt_model_irq_entry().  O(GT_IRQ_DEPTH).
 */
void gt_model_irq_exit(struct gt_model *m, const struct gt_in_irq *in)
{
	struct gt_irq_cpu *ic;
	unsigned long flags = 0;
	struct gt_cpu *c;
	u32 i;

	if (!irq_recorded(m, in->kind) || !irq_valid(in))
		return;
	c = hook_enter(m, &in->ev, &flags);
	if (!c)
		return;
	ic = c->irq;
	if (ic->over) {
		/* The innermost entries were not kept: theirs come first. */
		ic->over--;
		goto out;
	}
	for (i = ic->nr; i-- > 0;)
		if (ic->frames[i].kind == in->kind && ic->frames[i].id == in->id)
			break;
	if (i >= ic->nr) {
		ic->unmatched++;
		goto out;
	}
	ic->closed += ic->nr - 1 - i;
	ic->nr = i;
	irq_sync(m, c, false);
out:
	hook_exit(c, &flags);
}

/*
 * The index of work function @func in the session's table, added if
 * new; -1 if the table is full.  The table only grows: an index names
 * the same function for the whole session, and the tables name it when
 * they are written (gt_work_name()).
 */
static int work_intern(struct gt_model *m, u64 func)
{
	struct gt_irqs *q = m->irqs;
	u32 mask = ARRAY_SIZE(q->work_slots) - 1;
	u32 i = gt_env_hash64(func, ilog2(ARRAY_SIZE(q->work_slots)));
	unsigned long flags = 0;
	int idx = -1;
	u32 n;

	gt_lock_irqsave(&q->lock, flags);
	/* At most half full: the probe ends at an empty slot. */
	for (n = 0; n <= mask; n++, i = (i + 1) & mask) {
		u32 slot = q->work_slots[i];

		if (slot && q->works[slot - 1] == func) {
			idx = slot - 1;
			break;
		}
		if (!slot) {
			if (q->nr_works < GT_WORK_FUNCS) {
				q->works[q->nr_works] = func;
				idx = q->nr_works;
				/* Read by the tables without the lock. */
				gt_store_release(&q->nr_works, q->nr_works + 1);
				q->work_slots[i] = idx + 1;
			}
			break;
		}
	}
	gt_unlock_irqrestore(&q->lock, flags);
	if (idx < 0)
		gt_atomic64_inc(&q->work_full);
	return idx;
}

/*
 * The kworker running on CPU @c, recorded and running in the trace, as
 * the work hooks need it; NULL if the trace does not show it.
 */
static struct gt_task *work_task(struct gt_model *m, struct gt_cpu *c)
{
	struct gt_task *t = current_entry(c);

	if (!t || t->hidden)
		return NULL;
	/* Task context: an interrupt still open lost its exit. */
	irq_close(m, c);
	return c->cur == t && !t->irq_wait ? t : NULL;
}

/* End @t's work region, if one is open. */
static void work_region_end(struct gt_model *m, struct gt_cpu *c,
			    struct gt_task *t)
{
	struct gt_tr tr = { .kind = GT_TR_REGION_END };

	if (!t->work)
		return;
	tr.n = t->work - 1;
	tr.stack = task_comm_stack(m, t, model_gen(m));
	if (model_emit_at(m, c, t, &tr, model_now(c), false))
		t->work = 0;
}

/**
 * gt_model_work_start() - a kworker begins a work item
 * @m:	the model
 * @in:	the work item; @in->ev.cur the kworker
 *
 * A user region named after the work's function opens on the kworker's
 * goroutine (task 0, background), until gt_model_work_end(); one still
 * open (its end was lost) ends first.
 *
 * Context: the kworker, process context.
 */
void gt_model_work_start(struct gt_model *m, const struct gt_in_work *in)
{
	struct gt_tr tr = { .kind = GT_TR_REGION_BEGIN };
	unsigned long flags = 0;
	struct gt_cpu *c;
	struct gt_task *t;
	int idx;

	if (!m->irqs || !(m->opts.flags & GOTRACE_OPT_WORKQUEUE))
		return;
	c = hook_enter(m, &in->ev, &flags);
	if (!c)
		return;
	t = work_task(m, c);
	if (t) {
		work_region_end(m, c, t);
		idx = work_intern(m, in->func);
		if (idx >= 0 && !t->work) {
			tr.n = idx;
			tr.stack = task_comm_stack(m, t, model_gen(m));
			if (model_emit_at(m, c, t, &tr, model_now(c), false))
				t->work = idx + 1;
		}
	}
	hook_exit(c, &flags);
}

/**
 * gt_model_work_end() - the kworker's work item ends
 * @m:	the model
 * @in:	the work item
 *
 * Ends the region its start opened; an end with none open (the work
 * began before the session, or its start was not written) is ignored.
 *
 * Context: as gt_model_work_start().
 */
void gt_model_work_end(struct gt_model *m, const struct gt_in_work *in)
{
	unsigned long flags = 0;
	struct gt_cpu *c;
	struct gt_task *t;

	if (!m->irqs || !(m->opts.flags & GOTRACE_OPT_WORKQUEUE))
		return;
	c = hook_enter(m, &in->ev, &flags);
	if (!c)
		return;
	t = work_task(m, c);
	if (t)
		work_region_end(m, c, t);
	hook_exit(c, &flags);
}

/**
 * gt_irqs_init() - the interrupts' state of a session that records any
 * @m:	the model, its CPUs allocated and its options set
 *
 * Context: session start (gt_tasks_init()).
 * Return: 0 or -ENOMEM.
 */
int gt_irqs_init(struct gt_model *m)
{
	struct gt_irqs *q;
	unsigned int n = 0;
	int cpu;

	if (!(m->opts.flags & (GOTRACE_OPT_HARDIRQS | GOTRACE_OPT_SOFTIRQS |
			       GOTRACE_OPT_WORKQUEUE)))
		return 0;
	gt_env_for_each_cpu(cpu, m)
		n = max(n, (unsigned int)cpu + 1);
	q = gt_env_zalloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->cpus = gt_env_zalloc(n, sizeof(*q->cpus));
	if (!q->cpus) {
		gt_env_free(q);
		return -ENOMEM;
	}
	q->nr_cpus = n;
	gt_lock_init(&q->lock);
	gt_atomic64_set(&q->work_full, 0);
	gt_env_for_each_cpu(cpu, m)
		gt_env_cpu_ptr(m->cpus, cpu)->irq = &q->cpus[cpu];
	m->irqs = q;
	return 0;
}

void gt_irqs_free(struct gt_model *m)
{
	int cpu;

	if (!m->irqs)
		return;
	if (m->cpus)
		gt_env_for_each_cpu(cpu, m)
			gt_env_cpu_ptr(m->cpus, cpu)->irq = NULL;
	gt_env_free(m->irqs->cpus);
	gt_env_free(m->irqs);
	m->irqs = NULL;
}

/**
 * gt_model_irq_status() - the interrupts' counters, into @st
 * @m:	the model
 * @st:	its irq_unmatched, irq_too_deep, irq_closed and work_unnamed
 *	are set
 *
 * Context: any (the counters are read without their CPUs' lock).
 */
void gt_model_irq_status(struct gt_model *m, struct gotrace_status *st)
{
	struct gt_irqs *q = m->irqs;
	unsigned int cpu;

	st->irq_unmatched = 0;
	st->irq_too_deep = 0;
	st->irq_closed = 0;
	st->work_unnamed = 0;
	if (!q)
		return;
	for (cpu = 0; cpu < q->nr_cpus; cpu++) {
		st->irq_unmatched += READ_ONCE(q->cpus[cpu].unmatched);
		st->irq_too_deep += READ_ONCE(q->cpus[cpu].too_deep);
		st->irq_closed += READ_ONCE(q->cpus[cpu].closed);
	}
	st->work_unnamed = gt_atomic64_read(&q->work_full);
}
