// SPDX-License-Identifier: GPL-2.0
/*
 * go123_writer.c - the model's transitions written in Go's generational format
 *
 * model.c decides what happens (a goroutine starts, blocks, enters a
 * syscall ...) and says it as a transition (transition.h); for a
 * "go 1.23 trace" session, gt_w123_write() writes its generational
 * sequence.  The mapping (Documentation/model.rst):
 *
 *   M = the task (its goroutine id; a CPU's idle task has M
 *   GT_W123_IDLE_M_BASE + cpu), P = the CPU, G = the task.
 *
 *   START            [M_t] ProcStart(c, ++pseq) GoStart(g, ++gseq)
 *   PREEMPT, YIELD   [M_t] GoStop("preempted"/"yield", stk) ProcStop
 *   BLOCK            [M_t] GoBlock(reason of its class, stk) ProcStop
 *   END              [M_t] GoDestroy ProcStop
 *   SYSCALL          [M_t] GoSyscallBegin(++pseq, stk), ended by
 *                    GoSyscallEnd at the P's next event, unless
 *   SYS_BLOCK        follows: the goroutine stays in its syscall, bound
 *                    to its M, and the P stops (ProcStop)
 *   SYS_WAKE         [M_t] GoSyscallEndBlocked (in the waker's buffer)
 *   UNBLOCK          [waker's M, or the idle M] GoUnblock(g, ++gseq, stk)
 *   CREATE           [creator's M] GoCreate(g, stk, creator stk); with
 *                    no running creator, on the new task's own M with a
 *                    ProcStart/ProcStop around it
 *   P_START, PROCS   nothing of their own (the P is started with its
 *                    goroutines; Gomaxprocs is optional)
 *   P_STOP           ProcStop, if the P is still taken
 *   IRQ_NEW          [the M holding the P, or the idle M, which takes
 *                    it] GoCreateBlocked(g, its name's stack, 0)
 *   SWITCH           [the M holding the P] GoSwitch(g, ++gseq): the
 *                    goroutine it ran waits, g runs; from an idle P:
 *                    [idle M] ProcStart GoUnblock GoStart; to none:
 *                    GoBlock(no reason) ProcStop
 *   REGION_BEGIN/END [M_t] UserRegionBegin/End(0, "[work] FUNC", stk)
 *   an interrupt's goroutine runs on the M of the task it interrupted
 *   (or the idle M); every one of a CPU is stated at each generation's
 *   start, on that CPU (cpu_catch_up()), so no sweep needs them
 *   the snapshot's CREATE and WAITING: nothing; the goroutine's status
 *   is written where the generation first mentions it
 *   a task's systemd unit (units.c): after its GoStart, when its unit
 *   is not the one of its open region, [M_t] UserRegionEnd of that
 *   region, UserTaskBegin of the unit if no CPU wrote it yet, and
 *   UserRegionBegin(unit, name, comm stack); UserRegionEnd before its
 *   GoDestroy.  The unit's number is its user task id.
 *
 * Statuses: a goroutine's status (the state the trace last gave it) is
 * written before the first event of each generation that involves it,
 * every P's at the start of each generation, and at its end the sweep
 * states every living goroutine the generation did not mention, so
 * that the next one may.  Sequence numbers restart with each status,
 * and with the statuses that keep them to one byte (seq_restart()).
 *
 * Ordering: Go's reader takes each M's batches in file order.  A CPU
 * appends to its open batch only if that batch is the last one the M
 * wrote anywhere (gt_w123_task.batch); at the end of the generation the
 * CPUs' batches are merged by start time, which the model's clamp
 * (ts > the task's last event) makes agree with each M's order.
 */
#include "model_state.h"

/* The 1.23 events of annotations the 1.11 encoder has no name for. */
#define W123_NO_M			GT_E123_NO_M
/*
 * Room a transition needs at most: two batch headers and twelve events
 * (a GoStart: the GoSyscallEnd before it, ProcStop, GoStatus, ProcStart,
 * a ProcStatus that restarts the P's number, GoStart, a GoStatus that
 * restarts the goroutine's, the three events of a unit change, a lost
 * and a trigger log).
 */
#define W123_EVENT_ROOM		(2 * GT_E123_BATCH_HDR_MAX + 12 * GT_E123_EV_MAX_BYTES)
/*
 * A sequence number at this or above is restarted where it can be
 * (p_seq_restart(), g_seq_restart()); between two such places it nearly
 * always grows by 2 at most, and stays within one byte (127).
 */
#define W123_SEQ_RESTART		125

/*
 * String ids the tables give first, in this order (gt_tables_w123()), so
 * that events can name them without a lookup.
 */
const char *const gt_w123_strings[GT_W123_NR_STRINGS] = {
	[GT_W123_R_PREEMPTED] = "preempted",
	[GT_W123_R_YIELD] = "yield",
	[GT_W123_R_BLOCKED] = "blocked",
	[GT_W123_R_SLEEP] = "sleep",
	[GT_W123_R_SEND] = "chan send",
	[GT_W123_R_RECV] = "chan receive",
	[GT_W123_R_SELECT] = "select",
	[GT_W123_R_SYNC] = "sync",
	[GT_W123_R_COND] = "sync.Cond",
	[GT_W123_R_NET] = "network",
	[GT_W123_S_LOG_KEY] = "gotrace",
	[GT_W123_S_LOST] = "events lost here (gotrace status counts them)",
	[GT_W123_S_TRIGGER] = "trigger fired: scheduling latency over the threshold",
	[GT_W123_S_TRIGGER_OFFCPU] = "trigger fired: blocked longer than the threshold",
	[GT_W123_S_TRIGGER_SYSCALL] = "trigger fired: the syscall watched for",
};

static u64 reason_id(unsigned int r)
{
	return r + 1;
}

/* The reason of a block of each class (the profiles of 1.11's events). */
static const u8 block_reason[GT_BLOCK_NR] = {
	[GT_BLOCK_OTHER] = GT_W123_R_BLOCKED,
	[GT_BLOCK_SLEEP] = GT_W123_R_SLEEP,
	[GT_BLOCK_SEND] = GT_W123_R_SEND,
	[GT_BLOCK_RECV] = GT_W123_R_RECV,
	[GT_BLOCK_SELECT] = GT_W123_R_SELECT,
	[GT_BLOCK_SYNC] = GT_W123_R_SYNC,
	[GT_BLOCK_NET] = GT_W123_R_NET,
};

/*
 * The reason string of a block of @t of class @why, and where
 * the task sleeps in a syscall that syscall too ("sync: futex", "chan
 * receive: read"), which keeps the class's profile (the profiles match
 * by substring).  "network" stays exact: the net profile wants it so.
 * A plain block outside any syscall (a kernel thread, a page fault)
 * names the kernel function it waits in, from its stack @stack (an id
 * of the CPU's generation): "blocked: worker_thread".
 */
static u64 block_reason_id(struct gt_model *m, const struct gt_w123_cpu *vc,
			   const struct gt_task *t, enum gt_block_class why,
			   u64 stack)
{
	unsigned int r = block_reason[why];

	if (r == GT_W123_R_BLOCKED && t->sys_nr < 0 && stack)
		return gt_tables_kwait(m->tables, vc->gen, stack);
	if (r == GT_W123_R_NET || t->sys_nr < 0)
		return reason_id(r);
	return gt_tables_reason(m->tables, vc->gen, r, t->sys_nr,
				t->sys_compat);
}

/* The M of goroutine @goid: its task's thread, named by the same id. */
static u64 goid_m(u64 goid)
{
	return goid;
}

static u64 task_m(const struct gt_task *t)
{
	return goid_m(t->goid);
}

static u64 idle_m(const struct gt_cpu *c)
{
	return GT_W123_IDLE_M_BASE + c->id;
}

static struct gt_w123_cpu *w123_cpu(struct gt_model *m, const struct gt_cpu *c)
{
	return &m->w123.cpus[c->id];
}

/* The buffer of the generation the CPU writes. */
static struct gt_w123_set *w123_set(struct gt_w123_cpu *vc)
{
	return &vc->set[vc->gen & 1];
}

/* Close the CPU's open batch, if any. */
static void batch_close(struct gt_w123_cpu *vc)
{
	if (vc->batch_m) {
		gt_enc123_batch_end(&w123_set(vc)->enc);
		vc->batch_m = 0;
	}
}

/*
 * Make the CPU's open batch one of M @mid (@t: its task, NULL for the
 * idle M), opening one at @ts if the open batch is another M's, or is
 * not the last batch of this M, or is full.  Room was checked.
 */
static bool batch_for(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		      u64 mid, u64 ts)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);
	struct gt_w123_set *set = w123_set(vc);
	u64 here = (u64)set->nr_batches << 32 | (c->id + 1);
	struct gt_w123_batch *b;

	if (vc->batch_m == mid && (!t || t->w123.batch == here) &&
	    gt_enc123_room(&set->enc) >= W123_EVENT_ROOM)
		return true;
	batch_close(vc);
	if (set->nr_batches == vc->max_batches)
		return false;
	b = &set->batches[set->nr_batches];
	b->off = set->enc.len;
	b->ts = ts;
	if (!gt_enc123_batch(&set->enc, vc->gen, mid, ts))
		return false;
	set->nr_batches++;
	vc->batch_m = mid;
	if (t)
		t->w123.batch = (u64)set->nr_batches << 32 | (c->id + 1);
	return true;
}

/* One event on M @mid (@t its task or NULL) of this CPU's buffer. */
/*
 * A CPU's events never go back in time, and one of another M than the
 * event before it comes strictly later: an event often needs the one
 * before it on the CPU (a ProcStart the ProcStop, an unblock the status
 * of its goroutine), and Go's readers, when an event needs another M's
 * event of the same time, may pass over that one and take a later one
 * first (internal/trace/reader.go sorts the Ms it tries, not stably,
 * and skips the first), which squashes the times of all in between.
 */
static bool ev(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
	       u64 mid, unsigned int type, u64 ts, const u64 *args,
	       unsigned int nargs)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);
	struct gt_w123_set *set = w123_set(vc);

	if (ts < vc->ev_ts || (ts == vc->ev_ts && mid != vc->ev_m))
		ts = vc->ev_ts + (mid != vc->ev_m);
	if (!batch_for(m, c, t, mid, ts))
		return false;
	if (!gt_enc123_event(&set->enc, type, ts, args, nargs))
		return false;
	set->last_ts = max(set->last_ts, ts);
	vc->ev_ts = ts;
	vc->ev_m = mid;
	c->events++;
	return true;
}

static bool ev0(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		u64 mid, unsigned int type, u64 ts)
{
	return ev(m, c, t, mid, type, ts, NULL, 0);
}

static bool ev2(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		u64 mid, unsigned int type, u64 ts, u64 a, u64 b)
{
	u64 v[2] = { a, b };

	return ev(m, c, t, mid, type, ts, v, 2);
}

static bool ev3(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		u64 mid, unsigned int type, u64 ts, u64 a, u64 b, u64 d)
{
	u64 v[3] = { a, b, d };

	return ev(m, c, t, mid, type, ts, v, 3);
}

/* The GoStatus of the state the trace last gave @t; 0 if none. */
static unsigned int g_status(const struct gt_task *t)
{
	switch (t->state) {
	case GT_G_RUNNABLE:
		return GT_E123_G_RUNNABLE;
	case GT_G_RUNNING:
		/* An interrupt runs in its stead on its P (model.c). */
		return t->irq_wait ? GT_E123_G_WAITING : GT_E123_G_RUNNING;
	case GT_G_WAITING:
		return GT_E123_G_WAITING;
	case GT_G_SYSWAIT:
		return GT_E123_G_SYSCALL;
	default:
		return 0;
	}
}

/*
 * The id of @t's comm stack in generation @gen's table, 0 if it is full
 * (counted): @t's comm, not a cached stack, which may be of another
 * generation.  The task's bucket lock is held, or it runs on this P, or
 * it is the sweep's.
 */
static u64 comm_stack_id(struct gt_model *m, u64 gen, const struct gt_task *t)
{
	u64 ref;

	/* An interrupt's goroutine is named by its own frame. */
	if (unlikely(t->irq))
		return (u32)gt_irq_name_stack(m, gen, t);
	ref = gt_tables_comm_stack(m->tables, gen, t->comm);
	if (!ref)
		gt_atomic64_inc(&m->stack_overflows);
	return (u32)ref;
}

/*
 * @t is mentioned in generation @gen, where its status is @st.  Only the
 * first mention there says how the generation before left the task, for
 * that generation's sweep, which may come later: a second one (the new
 * goroutine of a rename, created after the old one's last events) must
 * not replace it, or the sweep would not state the old goroutine, which
 * @gen mentions, and a file that starts with the generation before
 * would name it first in @gen.
 */
static void g_mentioned(struct gt_task *t, u64 gen, unsigned int st)
{
	if (t->w123.gen != gen) {
		t->w123.prev_gen = t->w123.gen;
		t->w123.gen = gen;
		t->w123.gen_status = st;
		t->w123.gen_goid = t->goid;
	}
	t->w123.seq = 0;
}

/*
 * Before the first event of this CPU's generation that involves @t: its
 * status, on M @mid (whose task is @who, NULL for an idle M): a task's
 * own M (a running or syscall status binds it there), the M an
 * interrupt's goroutine runs on; with the stack that names the task
 * (GoStatusStack): a task the trace did not see created (it existed at
 * the start) is named by it.  The task's bucket lock is held, or it runs
 * on this P.
 */
static bool g_mention_m(struct gt_model *m, struct gt_cpu *c,
			struct gt_task *t, struct gt_task *who, u64 mid, u64 ts)
{
	u64 gen = w123_cpu(m, c)->gen;
	unsigned int st = g_status(t);
	u64 v[4] = { t->goid, mid, st, 0 };

	if (t->w123.gen == gen)
		return true;
	if (st) {
		v[3] = comm_stack_id(m, gen, t);
		if (!ev(m, c, who, mid, GT_E123_GO_STATUS_STACK, ts, v, 4))
			return false;
	}
	g_mentioned(t, gen, st);
	return true;
}

static bool g_mention(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		      u64 ts)
{
	return g_mention_m(m, c, t, t, task_m(t), ts);
}

/* End the fast syscall still open on this P (its GoSyscallBegin is written). */
static bool sys_end(struct gt_model *m, struct gt_cpu *c, u64 ts)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);
	struct gt_task *t = vc->sys;

	if (!t)
		return true;
	vc->sys = NULL;
	/* The 1.11 format has no syscall exit either: the call is instant. */
	(void)ts;
	return ev0(m, c, t, task_m(t), GT_E123_GO_SYSCALL_END, vc->sys_ts);
}

/* P c to M @mid: ProcStart, the P being idle in the trace. */
static bool p_take(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		   u64 mid, u64 ts)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);

	if (vc->p_m == mid)
		return true;
	if (vc->p_m) {
		/* Only a running goroutine's M holds a P; never here. */
		return false;
	}
	if (!ev2(m, c, t, mid, GT_E123_PROC_START, ts, c->id, vc->p_seq + 1))
		return false;
	vc->p_seq++;
	vc->p_m = mid;
	return true;
}

static bool p_drop(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		   u64 ts)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);

	if (!vc->p_m)
		return true;
	if (!ev0(m, c, t, vc->p_m, GT_E123_PROC_STOP, ts))
		return false;
	vc->p_m = 0;
	return true;
}

/*
 * Keep sequence numbers to one byte.  Every ProcStart and GoSyscallBegin
 * carries the P's next number, every GoStart and GoUnblock the
 * goroutine's, and Go's readers restart a number at any status of the
 * state they already have, not only at a generation's first.  Left to
 * grow, a loop of syscalls writes its P's number in 3 bytes of the 7 of
 * each GoSyscallBegin within a generation.  So a number at
 * W123_SEQ_RESTART or above is restarted with a status (4 to 9 bytes for
 * 125 numbers written) where that status is certain in the
 * readers' order: while the P or the goroutine runs on the M that
 * writes it, whose own batches hold every event of it since it started
 * there.  A status of a P or goroutine another M may touch meanwhile (an
 * idle P, a waiting goroutine) could be taken before that M's event and
 * contradict it.
 */
static bool p_seq_restart(struct gt_model *m, struct gt_cpu *c,
			  struct gt_task *t, u64 ts)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);

	/*
	 * Only a P running @t's M is "running"; one whose goroutine is in
	 * a syscall (vc->sys) has the status Syscall.  The callers come
	 * after sys_end(), but the status written must be the P's.
	 */
	if (vc->p_seq < W123_SEQ_RESTART || vc->p_m != task_m(t) ||
	    vc->sys == t)
		return true;
	if (!ev2(m, c, t, task_m(t), GT_E123_PROC_STATUS, ts, c->id,
		 GT_E123_P_RUNNING))
		return false;
	vc->p_seq = 0;
	return true;
}

/* The same for goroutine @t, just started on this P (see above). */
static bool g_seq_restart(struct gt_model *m, struct gt_cpu *c,
			  struct gt_task *t, u64 ts)
{
	if (t->w123.seq < W123_SEQ_RESTART)
		return true;
	if (!ev3(m, c, t, task_m(t), GT_E123_GO_STATUS, ts, t->goid, task_m(t),
		 GT_E123_G_RUNNING))
		return false;
	t->w123.seq = 0;
	return true;
}

/* The M that does what the task running on this P does: it, or idle. */
static u64 here_m(const struct gt_cpu *c, struct gt_task **who)
{
	*who = c->cur;
	return c->cur ? task_m(c->cur) : idle_m(c);
}

/* GoCreate of @t, named by stack @own, made at stack @at. */
static bool w123_create(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
			u64 own, u64 at, u64 ts)
{
	struct gt_task *w = c->cur;
	u64 v[3] = { t->goid, own, at };

	/*
	 * The start-up snapshot: the first mention in the generation states
	 * it.  Not a hook that creates a task as the session stops: the
	 * hooks are disarmed then, but one that passed the armed check
	 * still writes, and its goroutine needs its GoCreate.
	 */
	if (m->snap_cpu) {
		t->w123.gen = 0;
		t->w123.prev_gen = 0;
		return true;
	}
	/* New in this generation: no status, the sweep before has none. */
	g_mentioned(t, w123_cpu(m, c)->gen, 0);
	if (w && w != t)
		return ev(m, c, w, task_m(w), GT_E123_GO_CREATE, ts, v, 3);
	/* An interrupt on the idle M (which holds the P) creates it. */
	if (!w && w123_cpu(m, c)->p_m)
		return ev(m, c, NULL, w123_cpu(m, c)->p_m, GT_E123_GO_CREATE,
			  ts, v, 3);
	/* No goroutine runs here: the new one's M creates it. */
	return p_take(m, c, t, task_m(t), ts) &&
	       ev(m, c, t, task_m(t), GT_E123_GO_CREATE, ts, v, 3) &&
	       p_drop(m, c, t, ts);
}

/*
 * The region of @t's work item @idx begins (or ends): the name is the
 * work function's, which the generation's tables name (tables.c).
 */
static bool work_region(struct gt_model *m, struct gt_cpu *c,
			struct gt_task *t, u32 idx, bool begin, u64 ts)
{
	u64 gen = w123_cpu(m, c)->gen;
	unsigned long *used = m->irqs->work_used[gen & 1];

	if (!gt_test_bit(idx, used))
		gt_set_bit(idx, used);
	return ev3(m, c, t, task_m(t), begin ? GT_E123_USER_REGION_BEGIN :
		   GT_E123_USER_REGION_END, ts, 0, gt_work_string(m, idx),
		   comm_stack_id(m, gen, t));
}

/*
 * End @t's user region, running on this P (Go's readers need a running
 * goroutine for it): before its GoDestroy, or when its unit changed.
 */
static bool region_end(struct gt_model *m, struct gt_cpu *c,
		       struct gt_task *t, u64 ts)
{
	u32 unit = t->w123.region;

	if (!unit)
		return true;
	if (!ev3(m, c, t, task_m(t), GT_E123_USER_REGION_END, ts, unit,
		 gt_tables_unit(m->tables, unit),
		 comm_stack_id(m, w123_cpu(m, c)->gen, t)))
		return false;
	t->w123.region = 0;
	return true;
}

/*
 * @t, just started on this P: its time from here is in the region of its
 * unit (units.c), if it is not already.  A region whose begin is in a
 * generation a flight snapshot dropped still ends where it did: Go's
 * readers take an end with no begin as a region from the trace's start.
 */
static bool region_follow(struct gt_model *m, struct gt_cpu *c,
			  struct gt_task *t, u64 ts)
{
	u32 unit = t->unit;
	u64 stk, name;

	if (t->w123.region == unit)
		return true;
	/* A work item's region is inside the unit's: ended, begun again. */
	if (t->work && !work_region(m, c, t, t->work - 1, false, ts))
		return false;
	if (!region_end(m, c, t, ts))
		return false;
	if (!unit)
		return !t->work || work_region(m, c, t, t->work - 1, true, ts);
	stk = comm_stack_id(m, w123_cpu(m, c)->gen, t);
	name = gt_tables_unit(m->tables, unit);
	if (gt_units_begin(m, unit)) {
		u64 v[4] = { unit, 0, name, 0 };

		if (!ev(m, c, t, task_m(t), GT_E123_USER_TASK_BEGIN, ts, v, 4))
			return false;
	}
	if (!ev3(m, c, t, task_m(t), GT_E123_USER_REGION_BEGIN, ts, unit, name,
		 stk))
		return false;
	t->w123.region = unit;
	return !t->work || work_region(m, c, t, t->work - 1, true, ts);
}

static bool w123_start(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		       u64 ts)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);

	if (vc->p_m && vc->p_m != task_m(t) && !p_drop(m, c, NULL, ts))
		return false;
	if (!g_mention(m, c, t, ts) || !p_take(m, c, t, task_m(t), ts) ||
	    !p_seq_restart(m, c, t, ts) ||
	    !ev2(m, c, t, task_m(t), GT_E123_GO_START, ts, t->goid,
		 t->w123.seq + 1))
		return false;
	t->w123.seq++;
	if (!g_seq_restart(m, c, t, ts))
		return false;
	return !m->units || region_follow(m, c, t, ts);
}

/* The M holding this CPU's P for an interrupt: the task's, or idle. */
static u64 irq_m(const struct gt_cpu *c, struct gt_task **who)
{
	return here_m(c, who);
}

/*
 * @t, an interrupt's goroutine (or a task it gives the P back to), has
 * just started on M @mid (@who's) of this P: its sequence number, and
 * the P's, restarted where they grew past one byte (p_seq_restart()):
 * the goroutine runs on @mid, which holds the P, and no other M touches
 * either meanwhile.
 */
static bool irq_seq_restart(struct gt_model *m, struct gt_cpu *c,
			    struct gt_task *t, struct gt_task *who, u64 mid,
			    u64 ts)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);

	if (t->w123.seq >= W123_SEQ_RESTART) {
		if (!ev3(m, c, who, mid, GT_E123_GO_STATUS, ts, t->goid, mid,
			 GT_E123_G_RUNNING))
			return false;
		t->w123.seq = 0;
	}
	if (vc->p_seq >= W123_SEQ_RESTART && vc->p_m == mid && !vc->sys) {
		if (!ev2(m, c, who, mid, GT_E123_PROC_STATUS, ts, c->id,
			 GT_E123_P_RUNNING))
			return false;
		vc->p_seq = 0;
	}
	return true;
}

/*
 * GoCreateBlocked of @t, an interrupt's goroutine named by stack @own,
 * on the M holding the P; an idle P is taken by the CPU's idle M, for
 * the switch that follows.
 */
static bool w123_irq_new(struct gt_model *m, struct gt_cpu *c,
			 struct gt_task *t, u64 own, u64 ts)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);
	struct gt_task *who;
	u64 mid = irq_m(c, &who);
	u64 v[3] = { t->goid, own, 0 };

	if (!p_take(m, c, who, mid, ts))
		return false;
	g_mentioned(t, vc->gen, 0);
	return ev(m, c, who, mid, GT_E123_GO_CREATE_BLOCKED, ts, v, 3);
}

/* GoUnblock and GoStart of @to on M @mid, which holds the P. */
static bool irq_unblock_start(struct gt_model *m, struct gt_cpu *c,
			      struct gt_task *who, u64 mid,
			      struct gt_task *to, u64 ts)
{
	if (!ev3(m, c, who, mid, GT_E123_GO_UNBLOCK, ts, to->goid,
		 to->w123.seq + 1, 0))
		return false;
	to->w123.seq++;
	return ev2(m, c, who, mid, GT_E123_GO_START, ts, to->goid,
		   to->w123.seq + 1);
}

/*
 * The P runs @to (NULL: nothing) instead of @from (NULL: nothing, the P
 * was idle), which waits: an interrupt comes or goes.  GoSwitch, which
 * Go's readers take as the running goroutine's GoBlock and @to's
 * GoUnblock and GoStart, at once; an idle P is started by the CPU's idle
 * M for the interrupt, and stopped after it.
 */
static bool w123_switch(struct gt_model *m, struct gt_cpu *c,
			struct gt_task *from, struct gt_task *to, u64 ts)
{
	struct gt_task *who;
	u64 mid = irq_m(c, &who);

	if (!from) {
		if (!to || !p_take(m, c, who, mid, ts) ||
		    !g_mention_m(m, c, to, who, mid, ts) ||
		    !irq_unblock_start(m, c, who, mid, to, ts))
			return false;
		to->w123.seq++;
		return irq_seq_restart(m, c, to, who, mid, ts);
	}
	if (!g_mention_m(m, c, from, who, mid, ts))
		return false;
	/*
	 * No reason, as the block GoSwitch implies: an interrupt's time
	 * between two runs is one kind of wait in Go's goroutine analysis.
	 */
	if (!to)
		return ev2(m, c, who, mid, GT_E123_GO_BLOCK, ts, 0, 0) &&
		       p_drop(m, c, who, ts);
	if (!g_mention_m(m, c, to, who, mid, ts))
		return false;
	if (unlikely(m->w123.irq_no_switch)) {
		/* The alternative measured: the P stays with the M. */
		if (!ev2(m, c, who, mid, GT_E123_GO_BLOCK, ts,
			 reason_id(GT_W123_R_BLOCKED), 0) ||
		    !irq_unblock_start(m, c, who, mid, to, ts))
			return false;
	} else if (!ev2(m, c, who, mid, GT_E123_GO_SWITCH, ts, to->goid,
			to->w123.seq + 1)) {
		return false;
	}
	to->w123.seq++;
	return irq_seq_restart(m, c, to, who, mid, ts);
}

/*
 * At the start of this CPU's generation, after its P's status: the
 * status of every interrupt goroutine of the CPU not stated yet, so
 * that the generation knows them all whatever its events say (no sweep
 * looks for them).  Waiting ones; the running one was stated with the
 * P.  On the M holding the P, or the idle M.
 */
static void irq_gs_state(struct gt_model *m, struct gt_cpu *c, u64 ts)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);
	struct gt_task *who = vc->p_m ? c->cur : NULL;
	u64 mid = vc->p_m ? vc->p_m : idle_m(c);
	unsigned int i;

	if (likely(!c->irq))
		return;
	for (i = 0; i < GT_IRQ_SLOTS; i++) {
		struct gt_irq_g *g = &c->irq->gs[i];

		if (g->used && g->t.state != GT_G_NONE)
			g_mention_m(m, c, &g->t, who, mid, ts);
	}
}

/* GoStop or GoBlock with @reason, or GoDestroy; then the P is free. */
static bool w123_leave(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		       unsigned int type, u64 reason, u64 stack, u64 ts)
{
	if (!g_mention(m, c, t, ts))
		return false;
	if (type == GT_E123_GO_DESTROY) {
		/* Its regions end with it, innermost first. */
		if ((t->work && !work_region(m, c, t, t->work - 1, false, ts)) ||
		    !region_end(m, c, t, ts) ||
		    !ev0(m, c, t, task_m(t), type, ts))
			return false;
		t->work = 0;
	} else if (!ev2(m, c, t, task_m(t), type, ts, reason, stack)) {
		return false;
	}
	return p_drop(m, c, t, ts);
}

static bool w123_unblock(struct gt_model *m, struct gt_cpu *c,
			 struct gt_task *t, u64 stack, u64 ts)
{
	struct gt_task *w;
	u64 mid = here_m(c, &w);

	if (!g_mention(m, c, t, ts) ||
	    !ev3(m, c, w, mid, GT_E123_GO_UNBLOCK, ts, t->goid, t->w123.seq + 1,
		 stack))
		return false;
	t->w123.seq++;
	return true;
}

/*
 * Where events were lost on this P, the next goroutine started here says
 * so: a user log, which the viewers show as an instant on the P's row.
 */
static void w123_lost_log(struct gt_model *m, struct gt_cpu *c,
			  struct gt_task *t, u64 ts)
{
	u64 v[4] = { 0, reason_id(GT_W123_S_LOG_KEY), reason_id(GT_W123_S_LOST),
		     0 };

	if (ev(m, c, t, task_m(t), GT_E123_USER_LOG, ts, v, 4))
		w123_cpu(m, c)->lost = false;
}

/*
 * A trigger fired for the goroutine started here: a user log on it,
 * which the viewers show where the goroutine starts running.
 */
static void w123_trigger_log(struct gt_model *m, struct gt_cpu *c,
			     struct gt_task *t, u64 ts)
{
	unsigned int s = t->trig_mark == GOTRACE_TRIGGER_OFFCPU ?
			 GT_W123_S_TRIGGER_OFFCPU :
			 t->trig_mark == GOTRACE_TRIGGER_SYSCALL ?
			 GT_W123_S_TRIGGER_SYSCALL : GT_W123_S_TRIGGER;
	u64 v[4] = { 0, reason_id(GT_W123_S_LOG_KEY), reason_id(s), 0 };

	if (ev(m, c, t, task_m(t), GT_E123_USER_LOG, ts, v, 4))
		t->trig_mark = 0;
}

/*
 * The id in the CPU's generation of a stack reference the model interned
 * during this hook (model.c): of this generation, or copied from the one
 * before if the reader ended it meanwhile (tables.c).  0 if the table is
 * full, counted.
 */
static u64 stack_id(struct gt_model *m, struct gt_cpu *c, u64 ref)
{
	u32 id = gt_tables_w123_id(m->tables, w123_cpu(m, c)->gen, ref, c->pcs);

	if (ref && !id)
		gt_atomic64_inc(&m->stack_overflows);
	return id;
}

/*
 * The stacks of transition @tr as ids of the CPU's generation: @stk its
 * stack, @stk2 a new goroutine's own (interned first: the ids are given
 * in that order).
 */
static void stacks_named(struct gt_model *m, struct gt_cpu *c,
			 const struct gt_tr *tr, u64 *stk, u64 *stk2)
{
	switch (tr->kind) {
	case GT_TR_CREATE:
		*stk2 = stack_id(m, c, tr->stack2);
		*stk = stack_id(m, c, tr->stack);
		return;
	case GT_TR_IRQ_NEW:
		*stk2 = stack_id(m, c, tr->stack2);
		return;
	case GT_TR_UNBLOCK:
	case GT_TR_PREEMPT:
	case GT_TR_YIELD:
	case GT_TR_BLOCK:
	case GT_TR_SYSCALL:
		*stk = stack_id(m, c, tr->stack);
		return;
	default:
		return;
	}
}

/* The transition in the generational format; see the top of this file. */
static bool w123_transition(struct gt_model *m, struct gt_cpu *c,
			    struct gt_task *t, const struct gt_tr *tr, u64 ts)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);
	u64 stk = 0, stk2 = 0;

	stacks_named(m, c, tr, &stk, &stk2);
	switch (tr->kind) {
	case GT_TR_PROCS:
	case GT_TR_P_START:
		return true;
	case GT_TR_P_STOP:
		return p_drop(m, c, NULL, ts);
	case GT_TR_CREATE:
		return w123_create(m, c, t, stk2, stk, ts);
	case GT_TR_WAITING:
		return true;
	case GT_TR_START:
		if (!w123_start(m, c, t, ts))
			return false;
		if (vc->lost)
			w123_lost_log(m, c, t, ts);
		if (t->trig_mark)
			w123_trigger_log(m, c, t, ts);
		return true;
	case GT_TR_UNBLOCK:
		return w123_unblock(m, c, t, stk, ts);
	case GT_TR_SYS_WAKE:
		return g_mention(m, c, t, ts) &&
		       ev0(m, c, t, task_m(t), GT_E123_GO_SYSCALL_END_BLOCKED, ts);
	case GT_TR_PREEMPT:
		return w123_leave(m, c, t, GT_E123_GO_STOP,
				reason_id(GT_W123_R_PREEMPTED), stk, ts);
	case GT_TR_YIELD:
		return w123_leave(m, c, t, GT_E123_GO_STOP, reason_id(GT_W123_R_YIELD),
				stk, ts);
	case GT_TR_END:
		return w123_leave(m, c, t, GT_E123_GO_DESTROY, 0, 0, ts);
	case GT_TR_SYSCALL:
		if (!g_mention(m, c, t, ts) || !p_seq_restart(m, c, t, ts) ||
		    !ev2(m, c, t, task_m(t), GT_E123_GO_SYSCALL_BEGIN, ts,
			 vc->p_seq + 1, stk))
			return false;
		vc->p_seq++;
		vc->sys = t;
		vc->sys_ts = ts;
		return true;
	case GT_TR_SYS_BLOCK:
		/*
		 * The goroutine stays in its syscall and its P stops, here,
		 * in the same write: were the ProcStop a transition of its
		 * own, the reader could end the generation between the two,
		 * which would leave the P in the syscall there and the next
		 * generation's ProcStatus would say it idle (model_test
		 * block_advance).  Its GoSyscallBegin was written by the same
		 * hook (sys_block() in model.c) but, if the reader ended the
		 * generation between the two writes, the catch-up ended it
		 * there: the goroutine is running in this generation, and
		 * enters the syscall again here, or its GoSyscallEndBlocked
		 * would find it running (seen in a boot trace on 6.12).
		 */
		if (vc->sys != t) {
			if (!g_mention(m, c, t, ts) ||
			    !p_seq_restart(m, c, t, ts) ||
			    !ev2(m, c, t, task_m(t), GT_E123_GO_SYSCALL_BEGIN, ts,
				 vc->p_seq + 1, comm_stack_id(m, vc->gen, t)))
				return false;
			vc->p_seq++;
		}
		vc->sys = NULL;
		return p_drop(m, c, t, ts);
	case GT_TR_BLOCK:
		return w123_leave(m, c, t, GT_E123_GO_BLOCK,
				block_reason_id(m, vc, t, tr->why, stk),
				stk, ts);
	case GT_TR_IRQ_NEW:
		return w123_irq_new(m, c, t, stk2, ts);
	case GT_TR_SWITCH:
		return w123_switch(m, c, tr->from, t, ts);
	case GT_TR_REGION_BEGIN:
	case GT_TR_REGION_END:
		return work_region(m, c, t, tr->n,
				   tr->kind == GT_TR_REGION_BEGIN, ts);
	}
	return false;
}

/*
 * The status of CPU @c's P, once per generation, before anything else
 * involves it: running, on the M of the goroutine it runs, with that
 * goroutine's status; or idle.  A CPU that is no P of the trace (yet:
 * it came online after the start, and its first event grows Gomaxprocs)
 * states nothing, nor does an offline one, unless the trace still runs
 * a goroutine there: its close could not take it off (no room), and the
 * next close (the stop's, or a later offline) ends it on this P.
 */
static void p_state(struct gt_model *m, struct gt_cpu *c, u64 ts)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);
	struct gt_task *t = c->cur;
	struct gt_irq_g *r = c->irq ? c->irq->run : NULL;

	if (vc->p_stated || c->id >= READ_ONCE(m->procs) ||
	    (c->offline && !t)) {
		if (!vc->p_stated)
			vc->p_m = 0;
		return;
	}
	vc->p_stated = true;
	ts = max(ts, c->last_ts);
	c->last_ts = ts;
	if (vc->p_m && (r || vc->p_m == idle_m(c))) {
		/*
		 * An interrupt runs on the M of the task it interrupted (or
		 * the idle M, which took the P for it, maybe not running it
		 * yet): it is running there, the task waiting.
		 */
		ev2(m, c, t, vc->p_m, GT_E123_PROC_STATUS, ts, c->id,
		    GT_E123_P_RUNNING);
		if (t) {
			g_mention(m, c, t, ts);
			t->last_ts = max(t->last_ts, ts);
		}
		if (r)
			g_mention_m(m, c, &r->t, t, vc->p_m, ts);
	} else if (vc->p_m && t) {
		ev2(m, c, t, task_m(t), GT_E123_PROC_STATUS, ts, c->id,
		    GT_E123_P_RUNNING);
		g_mention(m, c, t, ts);
		t->last_ts = max(t->last_ts, ts);
	} else {
		vc->p_m = 0;
		ev2(m, c, NULL, idle_m(c), GT_E123_PROC_STATUS, ts, c->id,
		    GT_E123_P_IDLE);
	}
}

/*
 * gt_w123_cpu_catch_up(), from a write at @now: the time of the first
 * status of a CPU that has written nothing yet (the snapshot's CPU), not
 * the start of the clock.
 */
static void cpu_catch_up(struct gt_model *m, struct gt_cpu *c, u64 now)
{
	/*
	 * Pairs with the release of gt_w123_advance(): the new generation's set
	 * was emptied by the gt_w123_gen_write() before it.
	 */
	u64 gen = gt_load_acquire(&m->w123.gen);
	struct gt_w123_cpu *vc = w123_cpu(m, c);
	u64 ts;

	if (likely(vc->gen == gen))
		return;
	ts = max(w123_set(vc)->last_ts, c->last_ts) + 1;
	if (ts == 1)
		ts = max(now, ts);
	if (vc->gen) {
		sys_end(m, c, ts);
		batch_close(vc);
	}
	vc->gen = gen;
	vc->p_seq = 0;
	vc->p_stated = false;
	vc->asked = false;
	p_state(m, c, ts);
	irq_gs_state(m, c, ts);
}

/*
 * This CPU asks the reader to end its generation, once per generation: a
 * buffer of it is half full.
 */
static void ask_gen_end(struct gt_model *m, struct gt_w123_cpu *vc)
{
	vc->asked = true;
	WRITE_ONCE(m->w123.due, true);
	gt_env_chunk_queued(m);
}

/* Does CPU @c's set need the reader: half full, in bytes or batches? */
static bool set_half_full(const struct gt_w123_cpu *vc, const struct gt_w123_set *set)
{
	return set->enc.len > set->enc.cap / 2 ||
	       set->nr_batches > vc->max_batches / 2;
}

/**
 * gt_w123_write() - write one transition of the model in the generational
 * format
 * @m:		the model, writing GT_FORMAT_GO123
 * @c:		the CPU (P) it happens on
 * @t:		the task whose state it changes, or NULL
 * @tr:		the transition
 * @tsp:	its time, clamped by the caller; set to the time written,
 *		later where ev() put events of another M first
 *
 * The CPU first catches up with the session's generation, read here,
 * inside the critical section that orders the task's events (its bucket
 * lock, or its running on this P): a task's events reach the trace in
 * the order of its generations.
 *
 * Return: false if the CPU's buffer had no room: nothing was written
 * (the caller counts the loss: model_lost() in model.c).
 */
bool gt_w123_write(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		   const struct gt_tr *tr, u64 *tsp)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);
	u64 ts = *tsp;
	struct gt_w123_set *set;
	u64 batch_m;
	u32 len, nr;

	cpu_catch_up(m, c, ts);
	/* A P new to the trace since the catch-up (Gomaxprocs grew). */
	if (unlikely(!vc->p_stated))
		p_state(m, c, ts);
	set = w123_set(vc);
	len = set->enc.len;
	nr = set->nr_batches;
	batch_m = vc->batch_m;
	/*
	 * Keep room for one more transition: the catch-up that closes this
	 * generation on this CPU (a syscall's end) must always fit.
	 */
	if (set->enc.cap - set->enc.len < 2 * W123_EVENT_ROOM ||
	    set->nr_batches + 4 > vc->max_batches)
		return false;
	/* A fast syscall ends at the P's next event, but its own block. */
	if (tr->kind != GT_TR_SYS_BLOCK && !sys_end(m, c, ts))
		goto undo;
	if (!w123_transition(m, c, t, tr, ts))
		goto undo;
	/* The time written: later where another M's event came first. */
	*tsp = max(ts, vc->ev_ts);
	gt_env_w123_written(m);
	if (unlikely(!vc->asked && (set_half_full(vc, set) ||
				    gt_tables_due(m->tables, vc->gen))))
		ask_gen_end(m, vc);
	return true;
undo:
	/* Unreachable with the room checked above; keep the buffer whole. */
	set->enc.len = len;
	set->nr_batches = nr;
	vc->batch_m = batch_m;
	return false;
}

/**
 * gt_w123_lost() - an event of CPU @c was not written
 * @m:	the model
 * @c:	this CPU, interrupts off
 *
 * The session goes on: the model keeps what the trace says, and later
 * events write the transitions that bring it back to Linux's state.  The
 * next goroutine started on this P marks the place.
 */
void gt_w123_lost(struct gt_model *m, struct gt_cpu *c)
{
	w123_cpu(m, c)->lost = true;
}

/* Does the CPU's samples buffer need the reader: half full? */
static bool smp_half_full(const struct gt_enc123 *e)
{
	return e->len > e->cap / 2;
}

/**
 * gt_w123_sample() - write a CPU sample of @t, running on CPU @c
 * @m:		the model, writing GT_FORMAT_GO123 with CPU samples
 * @c:		this CPU, interrupts off
 * @t:		the goroutine the trace runs on @c's P
 * @ts:		the sample's time
 * @ref:	the stack it caught (a reference of model.c; 0: none)
 *
 * The CPU catches up with the session's generation first, as for an
 * event: a sample belongs to the generation its CPU writes.  Samples
 * batch in the CPU's samples buffer of that generation, which the reader
 * appends to the generation (gt_w123_gen_write()).
 *
 * Return: false if the buffer had no room (the caller counts it).
 */
bool gt_w123_sample(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		    u64 ts, u64 ref)
{
	struct gt_w123_cpu *vc = w123_cpu(m, c);
	struct gt_enc123 *e;

	cpu_catch_up(m, c, ts);
	e = &w123_set(vc)->smp;
	if (!e->buf)
		return false;
	if (e->size_at && gt_enc123_room(e) < GT_E123_SAMPLE_MAX_BYTES)
		gt_enc123_batch_end(e);
	if (!e->size_at &&
	    (e->cap - e->len < GT_E123_BATCH_HDR_MAX + 1 + GT_E123_SAMPLE_MAX_BYTES ||
	     !gt_enc123_cpu_samples(e, vc->gen, ts)))
		return false;
	/* An interrupt's goroutine runs on the M of the P (model.c). */
	if (!gt_enc123_cpu_sample(e, ts, t->irq ? vc->p_m : task_m(t), c->id,
				  t->goid, stack_id(m, c, ref)))
		return false;
	if (unlikely(!vc->asked && smp_half_full(e)))
		ask_gen_end(m, vc);
	return true;
}

/* ---- Generations ------------------------------------------------------- */

/**
 * gt_w123_init() - the generational state of a model writing go 1.23
 * @m:		the model, its CPUs allocated and m->nr_cpus set
 * @cpu_bytes:	size of each buffer of a CPU online now, for one
 *		generation (a CPU has two: the one it writes, the one the
 *		reader writes out)
 * @spare_bytes: the same for a CPU that is not online now but may come
 *		online during the session: a machine may have many more
 *		possible CPUs than it ever runs, and buffers of @cpu_bytes
 *		for each would take their memory for nothing
 *
 * Return: 0 or -ENOMEM.
 */
int gt_w123_init(struct gt_model *m, u32 cpu_bytes, u32 spare_bytes)
{
	struct gt_w123 *v = &m->w123;
	unsigned int cpu, i;

	v->cpu_bytes = cpu_bytes;
	v->cpus = gt_env_zalloc(m->nr_cpus, sizeof(*v->cpus));
	if (!v->cpus)
		return -ENOMEM;
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct gt_w123_cpu *vc = &v->cpus[cpu];
		u32 bytes = gt_env_cpu_online(m, cpu) ? cpu_bytes : spare_bytes;

		/*
		 * A batch takes a header (6 bytes at least) and an event; the
		 * index is then as large as the buffer.  A CPU that uses half
		 * of it asks for the generation's end, as for half the bytes.
		 */
		vc->max_batches = bytes / 16;
		for (i = 0; i < 2; i++) {
			struct gt_w123_set *set = &vc->set[i];
			void *buf = gt_env_big_alloc(bytes);

			set->batches = gt_env_zalloc(vc->max_batches,
						     sizeof(*set->batches));
			if (!buf || !set->batches) {
				gt_env_big_free(buf);
				return -ENOMEM;
			}
			gt_enc123_init(&set->enc, buf, bytes);
			if (!m->opts.cpu_hz)
				continue;
			buf = gt_env_big_alloc(GT_W123_SAMPLE_BYTES);
			if (!buf)
				return -ENOMEM;
			gt_enc123_init(&set->smp, buf, GT_W123_SAMPLE_BYTES);
		}
	}
	v->gen = 1;
	return 0;
}

void gt_w123_free(struct gt_model *m)
{
	struct gt_w123 *v = &m->w123;
	unsigned int cpu, i;

	if (v->cpus) {
		for (cpu = 0; cpu < m->nr_cpus; cpu++) {
			for (i = 0; i < 2; i++) {
				gt_env_big_free(v->cpus[cpu].set[i].enc.buf);
				gt_env_big_free(v->cpus[cpu].set[i].smp.buf);
				gt_env_free(v->cpus[cpu].set[i].batches);
			}
		}
	}
	gt_env_free(v->cpus);
	gt_env_free(v->sweep.buf);
	gt_env_free(v->out);
	v->cpus = NULL;
	v->sweep.buf = NULL;
	v->out = NULL;
}

/* Append @n bytes to the generations written for the reader. */
static int out_put(struct gt_w123 *v, const void *p, size_t n)
{
	size_t cap;
	u8 *buf;

	if (v->out_cap - v->out_len < n) {
		/* A generation's bytes: over 1 GiB where CPUs are many. */
		cap = gt_grow_cap(v->out_cap, v->out_len + n);
		if (!cap)
			return -ENOMEM;
		buf = gt_env_alloc(cap);
		if (!buf)
			return -ENOMEM;
		if (v->out_len)
			memcpy(buf, v->out, v->out_len);
		gt_env_free(v->out);
		v->out = buf;
		v->out_cap = cap;
	}
	memcpy(v->out + v->out_len, p, n);
	v->out_len += n;
	return 0;
}

/**
 * gt_w123_cpu_catch_up() - move CPU @c to the session's generation
 * @m:	the model
 * @c:	the CPU: this one with interrupts off, or one on which no hook can
 *	run (user space; the module's offline CPUs, hotplug held off)
 *
 * If the session's generation has moved on, the CPU ends its part of the
 * old one (the open fast syscall, the open batch) and starts the new
 * one: its P's status (p_state()) and its P sequence restarted.  The
 * running goroutine is this CPU's: its entry needs no lock here.
 */
void gt_w123_cpu_catch_up(struct gt_model *m, struct gt_cpu *c)
{
	cpu_catch_up(m, c, 0);
}

/*
 * The start of the trace's first generation: every P's status, written
 * on behalf of its CPU before any hook is armed.
 */
void gt_w123_gen_start(struct gt_model *m)
{
	unsigned int cpu;

	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		gt_w123_cpu_catch_up(m, gt_env_cpu_ptr(m->cpus, cpu));
}

/**
 * gt_w123_advance() - start the next generation
 * @m:	the model; the generation before the current one is written out
 *
 * CPUs switch to it at their next event; the caller makes the others
 * catch up (gt_w123_cpu_catch_up()) before it writes the old one out.
 */
void gt_w123_advance(struct gt_model *m)
{
	WRITE_ONCE(m->w123.due, false);
	/* Pairs with the acquire of gt_w123_cpu_catch_up(). */
	gt_store_release(&m->w123.gen, m->w123.gen + 1);
}

/*
 * The status the sweep of generation @gen gives @t (0: none), an entry
 * of the task table.  One that the next generation mentions already
 * had, at the end of @gen, the status written there, whatever became of
 * the task since (hidden by the filters, dead: gone); one that no
 * generation since its last mention did, its state now, if the trace
 * shows it.  The task's bucket lock is held.
 */
static unsigned int sweep_status(const struct gt_task *t, u64 gen)
{
	if (t->w123.gen > gen)
		return t->w123.prev_gen == gen ? 0 : t->w123.gen_status;
	if (t->hidden || t->gone || t->w123.gen == gen)
		return 0;
	return g_status(t);
}

/**
 * gt_w123_sweep_owes() - does a generation's sweep still owe @t a status?
 * @m:	the model
 * @t:	an entry its task no longer needs; its bucket lock held
 *
 * The reader advances to generation G + 1, then writes G out and sweeps
 * it last, while hooks of G + 1 run.  A goroutine that G did not mention
 * and that existed before G + 1 named it (its first status there is not
 * 0) must be stated by G's sweep, or G + 1 names a goroutine G did not
 * know, which every Go reader refuses.  Until that sweep is done, its
 * entry must stay where the sweep looks (gone, in its bucket), even if
 * the task died or the filters hid it meanwhile.
 *
 * Return: true while that sweep has not run.
 */
bool gt_w123_sweep_owes(const struct gt_model *m, const struct gt_task *t)
{
	return m->format == GT_FORMAT_GO123 && t->w123.gen_status &&
	       t->w123.prev_gen + 1 != t->w123.gen &&
	       READ_ONCE(m->w123.swept) + 1 < t->w123.gen;
}

/* @t was stated by the sweep of generation @gen. */
static void sweep_mark(struct gt_task *t, u64 gen)
{
	if (t->w123.gen > gen)
		t->w123.prev_gen = gen;
	else
		g_mentioned(t, gen, g_status(t));
}

/*
 * Add one status, with its naming stack, to the sweep batch; false if
 * full.  The goroutine is the one the next generation first mentioned,
 * where it did: the task may have been renamed since, a new goroutine on
 * an M of its own; the status is the old one's, on the old one's M (a
 * goroutine in a syscall is bound to it).  Its name is the task's comm
 * of now.
 */
static bool sweep_put(struct gt_model *m, u64 gen, const struct gt_task *t,
		      unsigned int st, u64 ts)
{
	struct gt_w123 *v = &m->w123;
	u64 g = t->w123.gen > gen ? t->w123.gen_goid : t->goid;
	u64 a[4] = { g, goid_m(g), st, 0 };

	if (!v->sweep.size_at && !gt_enc123_batch(&v->sweep, gen, W123_NO_M, ts))
		return false;
	/* No hook adds to @gen's table any more: the sweep may. */
	a[3] = comm_stack_id(m, gen, t);
	if (!gt_enc123_event(&v->sweep, GT_E123_GO_STATUS_STACK, ts, a, 4))
		return false;
	/* Only the reader writes it; the status reads it at any time. */
	WRITE_ONCE(v->sweep_events, v->sweep_events + 1);
	return true;
}

/* Write the sweep batch out and start an empty one. */
static int sweep_flush(struct gt_w123 *v)
{
	int ret = 0;

	if (v->sweep.size_at) {
		gt_enc123_batch_end(&v->sweep);
		ret = out_put(v, v->sweep.buf, v->sweep.len);
	}
	gt_enc123_init(&v->sweep, v->sweep.buf, v->sweep.cap);
	return ret;
}

/*
 * The sweep of generation @gen, whose events are all written: the status
 * of every goroutine alive that it did not mention, so that the next
 * generation may mention it (Go's readers know only goroutines they were
 * told of).  Hooks may be running: each bucket is read under its lock,
 * and the batch is written out with no lock held, the bucket then read
 * again (what it stated is marked and not stated twice).  The entries
 * kept for it (gone: their tasks died or the filters hid them after the
 * next generation named them) go back to the free list once stated.
 */
static int sweep(struct gt_model *m, u64 gen, u64 ts)
{
	struct gt_w123 *v = &m->w123;
	unsigned int i, nb = 1U << m->bucket_bits, st;
	unsigned long flags = 0;
	u32 cap = 64 * 1024;
	int ret;

	if (!v->sweep.buf) {
		void *buf = gt_env_alloc(cap);

		if (!buf)
			return -ENOMEM;
		gt_enc123_init(&v->sweep, buf, cap);
	}
	gt_enc123_init(&v->sweep, v->sweep.buf, v->sweep.cap);
	for (i = 0; i < nb; i++) {
		struct gt_task_bucket *b = &m->buckets[i];
		struct gt_hnode *n, *next;
		bool full = false;

		gt_lock_irqsave(&b->lock, flags);
		for (n = b->head.first; n; n = next) {
			struct gt_task *t = container_of(n, struct gt_task,
							 node);

			next = n->next;
			st = sweep_status(t, gen);
			if (st) {
				if (!sweep_put(m, gen, t, st, ts)) {
					full = true;
					break;
				}
				sweep_mark(t, gen);
			}
			if (t->gone)
				gt_tasks_release(m, t);
		}
		gt_unlock_irqrestore(&b->lock, flags);
		gt_env_w123_sweep_step(m);
		if (full) {
			/* An empty batch holds a status: this ends. */
			if (!v->sweep.size_at)
				return -ENOMEM;
			ret = sweep_flush(v);
			if (ret)
				return ret;
			i--;
		}
	}
	ret = sweep_flush(v);
	/* What the sweep owed, it stated: gt_w123_sweep_owes() of every entry. */
	if (!ret)
		WRITE_ONCE(v->swept, gen);
	return ret;
}

/* Every CPU's batches of set @par, merged by start time. */
static int merge(struct gt_model *m, unsigned int par)
{
	struct gt_w123 *v = &m->w123;
	unsigned int cpu, best;
	u32 *next;
	int ret = 0;

	next = gt_env_zalloc(m->nr_cpus, sizeof(*next));
	if (!next)
		return -ENOMEM;
	for (;;) {
		struct gt_w123_set *set, *bs = NULL;
		u32 end, off;

		best = 0;
		for (cpu = 0; cpu < m->nr_cpus; cpu++) {
			set = &v->cpus[cpu].set[par];
			if (next[cpu] == set->nr_batches)
				continue;
			if (!bs || set->batches[next[cpu]].ts <
				   bs->batches[next[best]].ts) {
				bs = set;
				best = cpu;
			}
		}
		if (!bs)
			break;
		off = bs->batches[next[best]].off;
		end = next[best] + 1 < bs->nr_batches ?
			bs->batches[next[best] + 1].off : bs->enc.len;
		ret = out_put(v, bs->enc.buf + off, end - off);
		if (ret)
			break;
		next[best]++;
	}
	gt_env_free(next);
	return ret;
}

/* Every CPU's samples of set @par, which no CPU writes any more. */
static int samples_put(struct gt_model *m, unsigned int par)
{
	struct gt_w123 *v = &m->w123;
	unsigned int cpu;
	int ret;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct gt_enc123 *e = &v->cpus[cpu].set[par].smp;

		if (!e->len)
			continue;
		gt_enc123_batch_end(e);
		ret = out_put(v, e->buf, e->len);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * gt_w123_gen_write() - write a generation out for the reader
 * @m:		the model
 * @last:	the trace ends: write the current generation (every hook is
 *		done and every P closed); else the one before it, which
 *		every CPU has left (gt_w123_cpu_catch_up())
 *
 * The generation's bytes are appended to m->w123.out: the CPUs' batches
 * merged, their CPU samples, the sweep, the frequency, the tables; then
 * its buffers are emptied for the generation after the current one.
 * Go's readers take the frequency and the tables after the events, which
 * is what makes a cut generation detectable (they are missing).
 *
 * Context: the reader; process context in the module.
 * Return: 0, or -ENOMEM (the trace ends there).
 */
int gt_w123_gen_write(struct gt_model *m, bool last)
{
	struct gt_w123 *v = &m->w123;
	u64 gen = last ? v->gen : v->gen - 1;
	u8 sync[GT_E123_BATCH_HDR_MAX + 1 + GT_LEB_MAX];
	unsigned int cpu, par = gen & 1;
	struct gt_enc123 e;
	u64 ts = 1;
	size_t len;
	u8 *tables;
	int ret;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct gt_w123_cpu *vc = &v->cpus[cpu];

		if (last && vc->gen == gen) {
			sys_end(m, gt_env_cpu_ptr(m->cpus, cpu), 0);
			batch_close(vc);
		}
		ts = max(ts, vc->set[par].last_ts);
	}
	ret = merge(m, par);
	if (!ret)
		ret = samples_put(m, par);
	if (!ret)
		ret = sweep(m, gen, ts);
	if (ret)
		return ret;
	gt_enc123_init(&e, sync, sizeof(sync));
	gt_enc123_sync(&e, GT_E123_GO123, gen, GOTRACE_FREQUENCY, NULL);
	ret = out_put(v, e.buf, e.len);
	if (ret)
		return ret;
	ret = gt_tables_w123(m, gen, v->show_addrs, &tables, &len);
	if (ret)
		return ret;
	ret = out_put(v, tables, len);
	gt_env_free(tables);
	if (ret)
		return ret;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct gt_w123_set *set = &v->cpus[cpu].set[par];

		set->enc.len = 0;
		gt_enc123_init(&set->smp, set->smp.buf, set->smp.cap);
		set->nr_batches = 0;
		set->last_ts = 0;
	}
	v->gen_start = ts;
	return 0;
}

/**
 * gt_w123_gen_end() - end the current generation and write it out
 * @m:		the model, between hooks (user space)
 * @last:	the trace ends: no next generation
 *
 * Return: 0, or -ENOMEM (the trace ends there).
 */
int gt_w123_gen_end(struct gt_model *m, bool last)
{
	unsigned int cpu;

	if (!last) {
		gt_w123_advance(m);
		for (cpu = 0; cpu < m->nr_cpus; cpu++)
			gt_w123_cpu_catch_up(m, gt_env_cpu_ptr(m->cpus, cpu));
	}
	return gt_w123_gen_write(m, last);
}

/*
 * Is it time to end the generation: @period_ns of trace time since it
 * started, or a CPU's buffer half full?
 */
bool gt_w123_gen_due(struct gt_model *m, u64 now, u64 period_ns)
{
	struct gt_w123 *v = &m->w123;

	if (period_ns && now >= v->gen_start + period_ns)
		return true;
	return READ_ONCE(v->due);
}
