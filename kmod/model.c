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
 * accuracy, never its validity.  Linux -> Go mapping: section 8 of the
 * format reference, and Documentation/mapping.rst.
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
 *   gt_model_init(), gt_model_snapshot(), gt_model_close(),
 *   gt_model_free(): process context, under the session lock;
 *   gt_model_close() only once every probe is detached.
 * Locking:
 *   A task's entry is guarded by the raw spinlock of its hash bucket.  A
 *   probe holds at most one bucket lock at a time; chunk pool, tables and
 *   task free-list locks nest inside it.  A CPU's struct gt_cpu is touched
 *   only by that CPU with interrupts off.  The sequence number of a task
 *   is incremented in the same critical section that appends the event
 *   carrying it, which is what orders a task's events across CPUs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cgroup.h>
#include <linux/compat.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/threads.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "gotrace.h"

/*
 * sys_nr of a user task whose syscall entry the model did not see (it was
 * in a syscall when the session started): read from its registers when it
 * next blocks, the only moment they can be read safely (it is current).
 */
#define GT_SYS_UNKNOWN		(-2)

/* Events gotrace writes while a task's state changes. */
#define EV(x)			GOTRACE_EV_##x

static inline u64 gt_clock(void)
{
	return ktime_get_mono_fast_ns();
}

/* ---- Task table -------------------------------------------------------- */

int gt_model_init(struct gt_session *s, unsigned int max_tasks)
{
	unsigned int i, nbuckets;

	s->bucket_bits = ilog2(roundup_pow_of_two(max(max_tasks / 4, 64U)));
	nbuckets = 1U << s->bucket_bits;
	s->buckets = kvcalloc(nbuckets, sizeof(*s->buckets), GFP_KERNEL);
	s->tasks = kvcalloc(max_tasks, sizeof(*s->tasks), GFP_KERNEL);
	s->tid_max = PID_MAX_LIMIT;
	s->tid_seen = bitmap_zalloc(s->tid_max, GFP_KERNEL);
	if (!s->buckets || !s->tasks || !s->tid_seen) {
		gt_model_free(s);
		return -ENOMEM;
	}
	for (i = 0; i < nbuckets; i++) {
		raw_spin_lock_init(&s->buckets[i].lock);
		INIT_HLIST_HEAD(&s->buckets[i].head);
	}
	raw_spin_lock_init(&s->task_free_lock);
	INIT_HLIST_HEAD(&s->task_free);
	for (i = 0; i < max_tasks; i++)
		hlist_add_head(&s->tasks[i].node, &s->task_free);
	atomic64_set(&s->goid_gen, 0);
	return 0;
}

void gt_model_free(struct gt_session *s)
{
	kvfree(s->buckets);
	kvfree(s->tasks);
	bitmap_free(s->tid_seen);
	s->buckets = NULL;
	s->tasks = NULL;
	s->tid_seen = NULL;
}

static struct gt_task_bucket *task_bucket(struct gt_session *s,
					  const struct task_struct *p)
{
	return &s->buckets[hash_ptr(p, s->bucket_bits)];
}

/* Is @p in cgroup v2 @id or below it?  Context: any, irqs off. */
static bool task_in_cgroup(const struct task_struct *p, u64 id)
{
	struct cgroup *cgrp;
	bool in = false;

	rcu_read_lock();
	for (cgrp = task_dfl_cgroup((struct task_struct *)p); cgrp;
	     cgrp = cgroup_parent(cgrp)) {
		if (cgroup_id(cgrp) == id) {
			in = true;
			break;
		}
	}
	rcu_read_unlock();
	return in;
}

/*
 * Does @p pass the session's task filters (every one given: pids, comm,
 * cgroup)?  Decided once, when the session first sees the task.
 */
static bool task_matches(struct gt_session *s, const struct task_struct *p)
{
	const struct gotrace_options *o = &s->opts;
	unsigned int i;

	if (o->nr_pids) {
		pid_t id = o->flags & GOTRACE_OPT_TGID ? p->tgid : p->pid;

		for (i = 0; i < o->nr_pids; i++)
			if (o->pids[i] == id)
				break;
		if (i == o->nr_pids)
			return false;
	}
	if (o->comm[0] && strncmp(p->comm, o->comm, sizeof(o->comm)))
		return false;
	if (o->cgroup_id && !task_in_cgroup(p, o->cgroup_id))
		return false;
	return true;
}

/*
 * The entry of @p, or NULL.  An entry for the same task_struct but
 * another start_time belongs to a task that died while the model was not
 * looking (before the snapshot was armed): it is unlinked and left to the
 * trace as it was, never reused in this session, since a CPU may still
 * point at it.
 */
static struct gt_task *task_find(struct gt_task_bucket *b,
				 const struct task_struct *p)
{
	struct gt_task *t;

	lockdep_assert_held(&b->lock);
	hlist_for_each_entry(t, &b->head, node) {
		if (t->key != p)
			continue;
		if (t->start_time == p->start_time)
			return t;
		hlist_del_init(&t->node);
		return NULL;
	}
	return NULL;
}

/* A new entry for @p in bucket @b, not yet in the trace; NULL when full. */
static struct gt_task *task_add(struct gt_session *s, struct gt_task_bucket *b,
				const struct task_struct *p, bool adopt)
{
	struct gt_task *t = NULL;

	lockdep_assert_held(&b->lock);
	raw_spin_lock(&s->task_free_lock);
	if (!hlist_empty(&s->task_free)) {
		t = hlist_entry(s->task_free.first, struct gt_task, node);
		hlist_del(&t->node);
	}
	raw_spin_unlock(&s->task_free_lock);
	if (!t) {
		atomic64_inc(&s->task_overflows);
		gt_session_halt(s);
		return NULL;
	}
	memset(t, 0, sizeof(*t));
	t->key = p;
	t->start_time = p->start_time;
	t->state = GT_G_NONE;
	t->sys_nr = p->flags & PF_KTHREAD ? -1 : GT_SYS_UNKNOWN;
	t->hidden = !adopt && !task_matches(s, p);
	hlist_add_head(&t->node, &b->head);
	return t;
}

/*
 * The entry of @p, added if new (@adopt: recorded whatever the filters
 * say); NULL if the table is full or the filters leave @p out.
 */
static struct gt_task *task_get_as(struct gt_session *s,
				   struct gt_task_bucket *b,
				   const struct task_struct *p, bool adopt)
{
	struct gt_task *t = task_find(b, p);

	if (!t)
		t = task_add(s, b, p, adopt);
	return t && !t->hidden ? t : NULL;
}

static struct gt_task *task_get(struct gt_session *s, struct gt_task_bucket *b,
				const struct task_struct *p)
{
	return task_get_as(s, b, p, false);
}

/* A dead goroutine's entry goes back to the free list. */
static void task_release(struct gt_session *s, struct gt_task *t)
{
	hlist_del(&t->node);
	raw_spin_lock(&s->task_free_lock);
	hlist_add_head(&t->node, &s->task_free);
	raw_spin_unlock(&s->task_free_lock);
}

/*
 * Goroutine ids are never reused in a trace (the parsers reject a second
 * GoCreate of an id).  The first goroutine of a tid gets the tid itself,
 * later ones (tid reuse, exec) a fresh generation in the high 32 bits.
 */
static u64 task_goid(struct gt_session *s, pid_t tid)
{
	if ((unsigned int)tid < s->tid_max && !test_and_set_bit(tid, s->tid_seen))
		return tid;
	return (u64)atomic64_inc_return(&s->goid_gen) << 32 | (u32)tid;
}

/* ---- Emitting ---------------------------------------------------------- */

/*
 * Hand the CPU's chunk to the reader; @wake: and wake it (deferred, for
 * probes; the stop and hotplug paths wake it themselves).
 */
static void cpu_handover(struct gt_session *s, struct gt_cpu *c, bool wake)
{
	c->chunk->len = c->enc.len;
	atomic64_add(c->chunk->len, &s->bytes_produced);
	gt_pool_queue(&s->pool, c->chunk);
	c->chunk = NULL;
	if (wake)
		gt_session_chunk_queued(s);
}

/*
 * Make sure the CPU's chunk has @need bytes free (plus the close reserve
 * unless @closing), starting a new chunk and batch when needed; a chunk
 * started before the last periodic flush request is handed over first,
 * so a reader sees a quiet CPU's events within flush_ms.
 */
static bool cpu_room(struct gt_session *s, struct gt_cpu *c, int cpu, u64 ts,
		     u32 need, bool closing)
{
	unsigned long flush = READ_ONCE(s->flush_seq);
	u32 reserve = closing ? 0 : GT_CLOSE_RESERVE;

	if (c->chunk) {
		bool has_events = c->enc.len > c->chunk_hdr;

		if (gt_enc_room(&c->enc) >= need + reserve &&
		    (c->flush_seq == flush || !has_events)) {
			c->flush_seq = flush;
			return true;
		}
		if (!has_events && gt_enc_room(&c->enc) >= need)
			return true;
		cpu_handover(s, c, true);
	}
	c->chunk = gt_pool_get(&s->pool, closing);
	if (!c->chunk) {
		atomic64_inc(&s->chunk_overflows);
		c->chunk_overflows++;
		return false;
	}
	gt_enc_init(&c->enc, c->chunk->data, GT_CHUNK_SIZE);
	gt_enc_batch(&c->enc, cpu, ts);
	c->chunk_hdr = c->enc.len;
	c->flush_seq = flush;
	return true;
}

/*
 * Stamp and append one event on this CPU's P, at @when or, to keep time
 * going forward on the P and for the task, just after their last event.
 * @t, if not NULL, is the task whose state the event changes (its bucket
 * lock held).  Returns false if nothing was written: the session is then
 * halted, and the caller leaves the model as it was, so the model keeps
 * describing the file exactly.
 */
static bool emit_at(struct gt_session *s, struct gt_cpu *c, struct gt_task *t,
		    unsigned int type, const u64 *args, unsigned int nargs,
		    u64 when, bool closing)
{
	int cpu = smp_processor_id();
	u64 ts = max(when, c->last_ts);

	lockdep_assert_irqs_disabled();
	if (t)
		ts = max(ts, t->last_ts + 1);
	if (READ_ONCE(s->halted) && !closing) {
		c->lost++;
		return false;
	}
	if (!cpu_room(s, c, cpu, ts, GT_EV_MAX_BYTES, closing)) {
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

/* An event of now; see emit_at(). */
static bool emit(struct gt_session *s, struct gt_cpu *c, struct gt_task *t,
		 unsigned int type, const u64 *args, unsigned int nargs,
		 bool closing)
{
	return emit_at(s, c, t, type, args, nargs, gt_clock(), closing);
}

static bool emit0(struct gt_session *s, struct gt_cpu *c, struct gt_task *t,
		  unsigned int type)
{
	return emit(s, c, t, type, NULL, 0, false);
}

static bool emit1(struct gt_session *s, struct gt_cpu *c, struct gt_task *t,
		  unsigned int type, u64 a)
{
	return emit(s, c, t, type, &a, 1, false);
}

static bool emit2(struct gt_session *s, struct gt_cpu *c, struct gt_task *t,
		  unsigned int type, u64 a, u64 b)
{
	u64 v[2] = { a, b };

	return emit(s, c, t, type, v, 2, false);
}

static bool emit3(struct gt_session *s, struct gt_cpu *c, struct gt_task *t,
		  unsigned int type, u64 a, u64 b, u64 d)
{
	u64 v[3] = { a, b, d };

	return emit(s, c, t, type, v, 3, false);
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
	t->goid = task_goid(s, p->pid);
	t->comm_stack = comm_stack;
	memcpy(t->comm, p->comm, sizeof(t->comm));
	t->seq = 0;
	if (!emit3(s, c, t, EV(GO_CREATE), t->goid, comm_stack, creator_stack))
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
		ok = emit3(s, c, t, EV(GO_SYSEXIT), t->goid, t->seq + 1, 0);
	else
		ok = emit3(s, c, t, EV(GO_UNBLOCK), t->goid, t->seq + 1, stack);
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
	if (!emit1(s, c, NULL, EV(PROC_START), smp_processor_id()))
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
	 * The trace has another goroutine on this P than Linux: a switch
	 * was not seen.  Take it off the P first, as Go's parsers demand.
	 * Only this CPU changes the state of the goroutine it runs.
	 */
	if (old && old != t) {
		if (!emit1(s, c, old, EV(GO_PREEMPT), old->comm_stack))
			return false;
		old->state = GT_G_RUNNABLE;
		c->cur = NULL;
	}
	if (!emit2(s, c, t, EV(GO_START), t->goid, t->seq + 1))
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
	if (!emit0(s, c, t, EV(GO_END)))
		return false;
	t->state = GT_G_DEAD;
	c->cur = NULL;
	return g_create(s, c, t, p, 0) && g_start(s, c, t);
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

/* GoSysCall at the entry of a syscall, remembered so it can be undone. */
static void sys_enter_event(struct gt_session *s, struct gt_cpu *c,
			    struct gt_task *t)
{
	u64 stack = sys_stack(s, c, t);
	struct gt_sys_undo u = {
		.task = t,
		.chunk = c->chunk,
		.start = c->enc.len,
		.enc_ts = c->enc.last_ts,
		.cpu_ts = c->last_ts,
		.task_ts = t->last_ts,
	};

	c->sys_undo.task = NULL;
	if (!emit_at(s, c, t, EV(GO_SYSCALL), &stack, 1, t->sys_enter_ts,
		     false))
		return;
	/* Only undone within the chunk it was written to. */
	if (c->chunk != u.chunk)
		return;
	u.end = c->enc.len;
	c->sys_undo = u;
}

/*
 * Take back @t's GoSysCall of its syscall entry if nothing was written on
 * this P since: the chunk, the P and the task are as they were before it.
 */
static bool sys_undo(struct gt_cpu *c, struct gt_task *t)
{
	struct gt_sys_undo *u = &c->sys_undo;

	if (u->task != t || u->chunk != c->chunk || u->end != c->enc.len)
		return false;
	c->enc.len = u->start;
	c->enc.last_ts = u->enc_ts;
	c->last_ts = u->cpu_ts;
	t->last_ts = u->task_ts;
	c->events--;
	u->task = NULL;
	return true;
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
	u64 when = t->sys_enter_ts;
	unsigned int n;
	u64 id;

	/* Room for the three events, so no chunk boundary splits them. */
	if (!READ_ONCE(s->halted) &&
	    !cpu_room(s, c, smp_processor_id(), max(gt_clock(), c->last_ts),
		      3 * GT_EV_MAX_BYTES, false)) {
		c->lost++;
		gt_session_halt(s);
		return;
	}
	if (!sys_undo(c, t) && s->opts.syscalls == GOTRACE_SYSCALLS_ALL)
		when = gt_clock();

	n = stack_save(s, c->pcs, GT_KSTACK_MAX);
	c->pcs[n++] = gt_syscall_pc(t->sys_nr, t->sys_compat);
	c->pcs[n++] = gt_tables_comm_pc(s->tables, p->comm);
	id = gt_tables_stack(s->tables, c->pcs, n);
	if (!id) {
		atomic64_inc(&s->stack_overflows);
		id = sys_stack(s, c, t);
	}

	if (!emit_at(s, c, t, EV(GO_SYSCALL), &id, 1, when, false) ||
	    !emit0(s, c, t, EV(GO_SYSBLOCK)))
		return;
	t->state = GT_G_SYSWAIT;
	c->cur = NULL;
	if (emit0(s, c, NULL, EV(PROC_STOP)))
		c->p_started = false;
}

/* ---- Blocking reasons -------------------------------------------------- */

/* The file behind @fd of the current task, or NULL; RCU read lock held. */
static struct file *fd_file_rcu(unsigned long fd)
{
	struct files_struct *files = current->files;

	if (!files || fd > INT_MAX)
		return NULL;
	return files_lookup_fd_raw(files, fd);
}

/* What a read or write that sleeps waits for: a pipe, a socket, other. */
static unsigned int block_on_fd(unsigned long fd, bool write)
{
	unsigned int type = EV(GO_BLOCK);
	struct file *f;
	umode_t mode;

	rcu_read_lock();
	f = fd_file_rcu(fd);
	if (f) {
		mode = file_inode(f)->i_mode;
		if (S_ISFIFO(mode))
			type = write ? EV(GO_BLOCK_SEND) : EV(GO_BLOCK_RECV);
		else if (S_ISSOCK(mode))
			type = EV(GO_BLOCK_NET);
	}
	rcu_read_unlock();
	return type;
}

/*
 * The first argument of the syscall of current, of either ABI.
 * syscall_get_arguments() always writes all six arguments.
 */
static unsigned long syscall_arg0(struct pt_regs *regs)
{
	unsigned long args[6];

	syscall_get_arguments(current, regs, args);
	return args[0];
}

/*
 * The block event for a task that sleeps in syscall @nr (x86-64 numbers),
 * chosen so that go tool trace's profiles mean something: futexes are
 * sync, socket and epoll waits network, poll/select select, pipes and
 * wait4 channel operations, sleeps are sleeps.  Anything else is a plain
 * GoBlock.  A task asleep in a syscall still has its arguments in its
 * saved user registers: they are read here, not at every syscall entry.
 *
 * Context: switch_out() of current.
 */
static unsigned int block_reason(struct gt_task *t)
{
	struct pt_regs *regs;

	regs = task_pt_regs(current);
	if (t->sys_nr == GT_SYS_UNKNOWN) {
		t->sys_nr = syscall_get_nr(current, regs);
		t->sys_compat = in_compat_syscall();
	}
	if (t->sys_compat)
		return EV(GO_BLOCK);
	switch (t->sys_nr) {
	case __NR_futex:
	case __NR_futex_waitv:
		return EV(GO_BLOCK_SYNC);
	case __NR_nanosleep:
	case __NR_clock_nanosleep:
		return EV(GO_SLEEP);
	case __NR_poll:
	case __NR_ppoll:
	case __NR_select:
	case __NR_pselect6:
		return EV(GO_BLOCK_SELECT);
	case __NR_epoll_wait:
	case __NR_epoll_pwait:
	case __NR_epoll_pwait2:
	case __NR_accept:
	case __NR_accept4:
	case __NR_connect:
	case __NR_recvfrom:
	case __NR_recvmsg:
	case __NR_recvmmsg:
	case __NR_sendto:
	case __NR_sendmsg:
	case __NR_sendmmsg:
		return EV(GO_BLOCK_NET);
	case __NR_wait4:
	case __NR_waitid:
		return EV(GO_BLOCK_RECV);
	case __NR_read:
	case __NR_readv:
	case __NR_pread64:
	case __NR_preadv:
	case __NR_preadv2:
		return block_on_fd(syscall_arg0(regs), false);
	case __NR_write:
	case __NR_writev:
	case __NR_pwrite64:
	case __NR_pwritev:
	case __NR_pwritev2:
		return block_on_fd(syscall_arg0(regs), true);
	default:
		return EV(GO_BLOCK);
	}
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
	b = task_bucket(s, p);
	raw_spin_lock(&b->lock);
	t = task_get(s, b, p);
	if (t)
		g_ensure_running(s, c, t, p);
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
	u32 stack;

	if (!g_ensure_running(s, c, t, prev))
		return;
	if (comm_changed(t, prev) && !g_rename(s, c, t, prev))
		return;

	if (prev_state & TASK_DEAD) {
		if (!emit0(s, c, t, EV(GO_END)))
			return;
		t->state = GT_G_DEAD;
		c->cur = NULL;
		task_release(s, t);
		return;
	}

	if (preempt || prev_state == TASK_RUNNING) {
		type = t->sys_nr == __NR_sched_yield && !t->sys_compat ?
			EV(GO_SCHED) : EV(GO_PREEMPT);
		stack = stack_here(s, c, prev, t->comm_stack);
		if (!emit1(s, c, t, type, stack))
			return;
		t->state = GT_G_RUNNABLE;
	} else {
		type = block_reason(t);
		if (type == EV(GO_BLOCK) && sys_recorded(s, t)) {
			sys_block(s, c, t, prev);
			return;
		}
		/*
		 * The block event is the syscall: its entry event, if still
		 * the last record, goes, so that a sleep shows only as a
		 * sleep (Go 1.23 would count it in the syscall profile too).
		 */
		sys_undo(c, t);
		stack = stack_here(s, c, prev, t->comm_stack);
		if (!emit1(s, c, t, type, stack))
			return;
		t->state = GT_G_WAITING;
	}
	c->cur = NULL;
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

	/* The trace has another goroutine on this P than Linux: close it. */
	if (c->cur && c->cur->key != prev) {
		t = c->cur;
		if (emit1(s, c, t, EV(GO_PREEMPT), t->comm_stack)) {
			t->state = GT_G_RUNNABLE;
			c->cur = NULL;
		}
	}

	if (!is_idle(prev)) {
		b = task_bucket(s, prev);
		raw_spin_lock(&b->lock);
		t = task_get(s, b, prev);
		if (t)
			switch_out(s, c, t, prev, preempt, prev_state);
		raw_spin_unlock(&b->lock);
	}

	if (!is_idle(next)) {
		b = task_bucket(s, next);
		raw_spin_lock(&b->lock);
		t = task_get(s, b, next);
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
	b = task_bucket(s, p);
	raw_spin_lock(&b->lock);
	t = may_create ? task_get_as(s, b, p, adopt) : task_find(b, p);
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
 * sched_wakeup, which comes after @p has left its CPU, unblocks it.
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
	b = task_bucket(s, p);
	raw_spin_lock(&b->lock);
	t = task_get(s, b, p);
	if (t && g_ensure_running(s, c, t, p) && comm_changed(t, p))
		g_rename(s, c, t, p);
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
		/* prctl(PR_SET_NAME) shows at once, not at the next switch. */
		if (unlikely(comm_changed(t, current))) {
			struct gt_task_bucket *b = task_bucket(s, current);

			raw_spin_lock(&b->lock);
			g_rename(s, c, t, current);
			raw_spin_unlock(&b->lock);
		}
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
 * Context: process context; disables interrupts while it writes.
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

	local_irq_save(flags);
	c = this_cpu_ptr(s->cpus);
	if (!emit2(s, c, NULL, EV(GOMAXPROCS), s->nr_cpus, 0)) {
		ret = -ENOSPC;
		goto out;
	}

	rcu_read_lock();
	for_each_process_thread(g, p) {
		b = task_bucket(s, p);
		raw_spin_lock(&b->lock);
		t = task_get(s, b, p);
		if (t && t->state == GT_G_NONE && g_create(s, c, t, p, 0) &&
		    !task_is_running(p)) {
			if (emit1(s, c, t, EV(GO_WAITING), t->goid)) {
				t->seq = 1;
				t->state = GT_G_WAITING;
			}
		}
		raw_spin_unlock(&b->lock);
		if (READ_ONCE(s->halted)) {
			ret = -ENOSPC;
			break;
		}
	}
	rcu_read_unlock();
out:
	/* Every P's first event comes after the snapshot. */
	now = c->last_ts + 1;
	for_each_possible_cpu(cpu)
		per_cpu_ptr(s->cpus, cpu)->last_ts = now;
	local_irq_restore(flags);
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
	u64 ts = max(gt_clock(), c->last_ts);
	u64 v;

	if (t) {
		ts = max(ts, t->last_ts + 1);
		v = t->comm_stack;
		if (cpu_room(s, c, cpu, ts, GT_EV_MAX_BYTES, true)) {
			gt_enc_event(&c->enc, EV(GO_PREEMPT), ts, &v, 1);
			t->state = GT_G_RUNNABLE;
			c->cur = NULL;
			c->last_ts = ts;
			c->events++;
		}
	}
	if (c->p_started && !c->cur &&
	    cpu_room(s, c, cpu, ts, GT_EV_MAX_BYTES, true)) {
		gt_enc_event(&c->enc, EV(PROC_STOP), ts, NULL, 0);
		c->p_started = false;
		c->last_ts = ts;
		c->events++;
	}
	if (c->chunk)
		cpu_handover(s, c, false);
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
 * Context: the CPU hotplug thread of the CPU coming up.
 */
void gt_model_cpu_online(struct gt_session *s)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&s->close_lock, flags);
	/* Pairs with the release of the snapshot: s->cpus is set up. */
	if (smp_load_acquire(&s->armed))
		this_cpu_ptr(s->cpus)->offline = false;
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
