// SPDX-License-Identifier: GPL-2.0
/*
 * model_v2.c - the model's transitions written in Go's generational format
 *
 * model.c decides what happens (a goroutine starts, blocks, enters a
 * syscall ...) and describes it with the "go 1.11 trace" event it would
 * write; for a "go 1.23 trace" session, gt_v2_write() writes the
 * generational sequence of the same transition instead.  The mapping
 * (Documentation/model.rst):
 *
 *   M = the task (its goroutine id; a CPU's idle task has M
 *   GT_V2_IDLE_M_BASE + cpu), P = the CPU, G = the task.
 *
 *   GoStart          [M_t] ProcStart(c, ++pseq) GoStart(g, ++gseq)
 *   GoPreempt/Sched  [M_t] GoStop("preempted"/"yield", stk) ProcStop
 *   GoBlock*, Sleep  [M_t] GoBlock(reason, stk) ProcStop
 *   GoEnd            [M_t] GoDestroy ProcStop
 *   GoSysCall        [M_t] GoSyscallBegin(++pseq, stk), ended by
 *                    GoSyscallEnd at the P's next event, unless
 *   GoSysBlock       follows: the goroutine stays in its syscall, bound
 *                    to its M; the ProcStop after it frees the P
 *   GoSysExit        [M_t] GoSyscallEndBlocked (in the waker's buffer)
 *   GoUnblock        [waker's M, or the idle M] GoUnblock(g, ++gseq, stk)
 *   GoCreate         [creator's M] GoCreate(g, stk, creator stk); with
 *                    no running creator, on the new task's own M with a
 *                    ProcStart/ProcStop around it
 *   ProcStart, ProcStop, Gomaxprocs: nothing of their own (the P is
 *   started and stopped with its goroutines; Gomaxprocs is optional)
 *   the snapshot's GoCreate/GoWaiting: nothing; the goroutine's status
 *   is written where the generation first mentions it
 *
 * Statuses: a goroutine's status (the state the trace last gave it) is
 * written before the first event of each generation that involves it,
 * every P's at the start of each generation, and at its end the sweep
 * states every living goroutine the generation did not mention, so
 * that the next one may.  Sequence numbers restart with each status.
 *
 * Ordering: Go's reader takes each M's batches in file order.  A CPU
 * appends to its open batch only if that batch is the last one the M
 * wrote anywhere (gt_v2_task.batch); at the end of the generation the
 * CPUs' batches are merged by start time, which the model's clamp
 * (ts > the task's last event) makes agree with each M's order.
 */
#include "model_state.h"

/* The 1.23 events of annotations the 1.11 encoder has no name for. */
#define V2_NO_M			GT_E2_NO_M
/* Room a transition needs at most: two batch headers and five events. */
#define V2_EVENT_ROOM		(2 * GT_E2_BATCH_HDR_MAX + 5 * GT_E2_EV_MAX_BYTES)

/*
 * String ids the tables give first, in this order (gt_tables_v2()), so
 * that events can name them without a lookup.
 */
const char *const gt_v2_reasons[GT_V2_NR_REASONS] = {
	[GT_V2_R_PREEMPTED] = "preempted",
	[GT_V2_R_YIELD] = "yield",
	[GT_V2_R_BLOCKED] = "blocked",
	[GT_V2_R_SLEEP] = "sleep",
	[GT_V2_R_SEND] = "chan send",
	[GT_V2_R_RECV] = "chan receive",
	[GT_V2_R_SELECT] = "select",
	[GT_V2_R_SYNC] = "sync",
	[GT_V2_R_COND] = "sync.Cond",
	[GT_V2_R_NET] = "network",
};

static u64 reason_id(unsigned int r)
{
	return r + 1;
}

/* The block reason of a 1.11 block event (same profiles as in 1.11). */
static unsigned int block_reason(unsigned int type)
{
	switch (type) {
	case GOTRACE_EV_GO_SLEEP:
		return GT_V2_R_SLEEP;
	case GOTRACE_EV_GO_BLOCK_SEND:
		return GT_V2_R_SEND;
	case GOTRACE_EV_GO_BLOCK_RECV:
		return GT_V2_R_RECV;
	case GOTRACE_EV_GO_BLOCK_SELECT:
		return GT_V2_R_SELECT;
	case GOTRACE_EV_GO_BLOCK_SYNC:
		return GT_V2_R_SYNC;
	case GOTRACE_EV_GO_BLOCK_COND:
		return GT_V2_R_COND;
	case GOTRACE_EV_GO_BLOCK_NET:
		return GT_V2_R_NET;
	default:
		return GT_V2_R_BLOCKED;
	}
}

static u64 task_m(const struct gt_task *t)
{
	return t->goid;
}

static u64 idle_m(const struct gt_cpu *c)
{
	return GT_V2_IDLE_M_BASE + c->id;
}

static struct gt_v2_cpu *v2_cpu(struct gt_model *m, const struct gt_cpu *c)
{
	return &m->v2.cpus[c->id];
}

/* Close the CPU's open batch, if any. */
static void batch_close(struct gt_v2_cpu *vc)
{
	if (vc->batch_m) {
		gt_enc2_batch_end(&vc->enc);
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
	struct gt_v2_cpu *vc = v2_cpu(m, c);
	u64 here = (u64)vc->nr_batches << 32 | (c->id + 1);
	struct gt_v2_batch *b;

	if (vc->batch_m == mid && (!t || t->v2.batch == here) &&
	    gt_enc2_room(&vc->enc) >= V2_EVENT_ROOM)
		return true;
	batch_close(vc);
	if (vc->nr_batches == vc->max_batches)
		return false;
	b = &vc->batches[vc->nr_batches];
	b->off = vc->enc.len;
	b->ts = ts;
	if (!gt_enc2_batch(&vc->enc, m->v2.gen, mid, ts))
		return false;
	vc->nr_batches++;
	vc->batch_m = mid;
	if (t)
		t->v2.batch = (u64)vc->nr_batches << 32 | (c->id + 1);
	return true;
}

/* One event on M @mid (@t its task or NULL) of this CPU's buffer. */
static bool ev(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
	       u64 mid, unsigned int type, u64 ts, const u64 *args,
	       unsigned int nargs)
{
	struct gt_v2_cpu *vc = v2_cpu(m, c);

	if (!batch_for(m, c, t, mid, ts))
		return false;
	if (!gt_enc2_event(&vc->enc, type, ts, args, nargs))
		return false;
	vc->last_ts = max(vc->last_ts, ts);
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
		return GT_E2_G_RUNNABLE;
	case GT_G_RUNNING:
		return GT_E2_G_RUNNING;
	case GT_G_WAITING:
		return GT_E2_G_WAITING;
	case GT_G_SYSWAIT:
		return GT_E2_G_SYSCALL;
	default:
		return 0;
	}
}

/*
 * Before the first event of this generation that involves @t: its
 * status, on its own M (a running or syscall status binds it there).
 */
static bool g_mention(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		      u64 ts)
{
	unsigned int st = g_status(t);

	if (t->v2.gen == m->v2.gen)
		return true;
	if (st && !ev3(m, c, t, task_m(t), GT_E2_GO_STATUS, ts, t->goid,
		       task_m(t), st))
		return false;
	t->v2.gen = m->v2.gen;
	t->v2.seq = 0;
	return true;
}

/* End the fast syscall still open on this P (its GoSyscallBegin is written). */
static bool sys_end(struct gt_model *m, struct gt_cpu *c, u64 ts)
{
	struct gt_v2_cpu *vc = v2_cpu(m, c);
	struct gt_task *t = vc->sys;

	if (!t)
		return true;
	vc->sys = NULL;
	/* The 1.11 format has no syscall exit either: the call is instant. */
	(void)ts;
	return ev0(m, c, t, task_m(t), GT_E2_GO_SYSCALL_END, vc->sys_ts);
}

/* P c to M @mid: ProcStart, the P being idle in the trace. */
static bool p_take(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		   u64 mid, u64 ts)
{
	struct gt_v2_cpu *vc = v2_cpu(m, c);

	if (vc->p_m == mid)
		return true;
	if (vc->p_m) {
		/* Only a running goroutine's M holds a P; never here. */
		return false;
	}
	if (!ev2(m, c, t, mid, GT_E2_PROC_START, ts, c->id, vc->p_seq + 1))
		return false;
	vc->p_seq++;
	vc->p_m = mid;
	return true;
}

static bool p_drop(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		   u64 ts)
{
	struct gt_v2_cpu *vc = v2_cpu(m, c);

	if (!vc->p_m)
		return true;
	if (!ev0(m, c, t, vc->p_m, GT_E2_PROC_STOP, ts))
		return false;
	vc->p_m = 0;
	return true;
}

/* The M that does what the task running on this P does: it, or idle. */
static u64 here_m(const struct gt_cpu *c, struct gt_task **who)
{
	*who = c->cur;
	return c->cur ? task_m(c->cur) : idle_m(c);
}

static bool v2_create(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		      const u64 *args, u64 ts)
{
	struct gt_task *w = c->cur;
	u64 v[3] = { t->goid, args[1], args[2] };

	/* The snapshot: the first mention in the generation states it. */
	if (!m->armed) {
		t->v2.gen = 0;
		return true;
	}
	t->v2.gen = m->v2.gen;
	t->v2.seq = 0;
	if (w && w != t)
		return ev(m, c, w, task_m(w), GT_E2_GO_CREATE, ts, v, 3);
	/* No goroutine runs here: the new one's M creates it. */
	return p_take(m, c, t, task_m(t), ts) &&
	       ev(m, c, t, task_m(t), GT_E2_GO_CREATE, ts, v, 3) &&
	       p_drop(m, c, t, ts);
}

static bool v2_start(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		     u64 ts)
{
	struct gt_v2_cpu *vc = v2_cpu(m, c);

	if (vc->p_m && vc->p_m != task_m(t) && !p_drop(m, c, NULL, ts))
		return false;
	if (!g_mention(m, c, t, ts) || !p_take(m, c, t, task_m(t), ts) ||
	    !ev2(m, c, t, task_m(t), GT_E2_GO_START, ts, t->goid,
		 t->v2.seq + 1))
		return false;
	t->v2.seq++;
	return true;
}

/* GoStop or GoBlock with @reason, or GoDestroy; then the P is free. */
static bool v2_leave(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		     unsigned int type, unsigned int reason, u64 stack, u64 ts)
{
	if (!g_mention(m, c, t, ts))
		return false;
	if (type == GT_E2_GO_DESTROY) {
		if (!ev0(m, c, t, task_m(t), type, ts))
			return false;
	} else if (!ev2(m, c, t, task_m(t), type, ts, reason_id(reason),
			stack)) {
		return false;
	}
	return p_drop(m, c, t, ts);
}

static bool v2_unblock(struct gt_model *m, struct gt_cpu *c,
		       struct gt_task *t, u64 stack, u64 ts)
{
	struct gt_task *w;
	u64 mid = here_m(c, &w);

	if (!g_mention(m, c, t, ts) ||
	    !ev3(m, c, w, mid, GT_E2_GO_UNBLOCK, ts, t->goid, t->v2.seq + 1,
		 stack))
		return false;
	t->v2.seq++;
	return true;
}

/* The translation; see the table at the top of this file. */
static bool v2_transition(struct gt_model *m, struct gt_cpu *c,
			  struct gt_task *t, unsigned int type,
			  const u64 *args, u64 ts)
{
	struct gt_v2_cpu *vc = v2_cpu(m, c);

	switch (type) {
	case GOTRACE_EV_GOMAXPROCS:
	case GOTRACE_EV_PROC_START:
		return true;
	case GOTRACE_EV_PROC_STOP:
		return p_drop(m, c, NULL, ts);
	case GOTRACE_EV_GO_CREATE:
		return v2_create(m, c, t, args, ts);
	case GOTRACE_EV_GO_WAITING:
		return true;
	case GOTRACE_EV_GO_START:
		return v2_start(m, c, t, ts);
	case GOTRACE_EV_GO_UNBLOCK:
		return v2_unblock(m, c, t, args[2], ts);
	case GOTRACE_EV_GO_SYSEXIT:
		return g_mention(m, c, t, ts) &&
		       ev0(m, c, t, task_m(t), GT_E2_GO_SYSCALL_END_BLOCKED, ts);
	case GOTRACE_EV_GO_PREEMPT:
		return v2_leave(m, c, t, GT_E2_GO_STOP, GT_V2_R_PREEMPTED,
				args[0], ts);
	case GOTRACE_EV_GO_SCHED:
		return v2_leave(m, c, t, GT_E2_GO_STOP, GT_V2_R_YIELD,
				args[0], ts);
	case GOTRACE_EV_GO_END:
		return v2_leave(m, c, t, GT_E2_GO_DESTROY, 0, 0, ts);
	case GOTRACE_EV_GO_SYSCALL:
		if (!g_mention(m, c, t, ts) ||
		    !ev2(m, c, t, task_m(t), GT_E2_GO_SYSCALL_BEGIN, ts,
			 vc->p_seq + 1, args[0]))
			return false;
		vc->p_seq++;
		vc->sys = t;
		vc->sys_ts = ts;
		return true;
	case GOTRACE_EV_GO_SYSBLOCK:
		/* The goroutine stays in its syscall; ProcStop follows. */
		vc->sys = NULL;
		return true;
	default:
		return v2_leave(m, c, t, GT_E2_GO_BLOCK, block_reason(type),
				args[0], ts);
	}
}

/**
 * gt_v2_write() - write one transition of the model in the generational
 * format
 * @m:		the model, writing GT_FORMAT_GO123
 * @c:		the CPU (P) it happens on
 * @t:		the task whose state it changes, or NULL
 * @type:	the GOTRACE_EV_* event the 1.11 format writes for it
 * @args:	its arguments
 * @nargs:	their number
 * @ts:		its time, clamped by the caller
 *
 * Return: false if the CPU's buffer had no room: nothing was written
 * (the caller counts the loss and halts, as for a full 1.11 chunk).
 */
bool gt_v2_write(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		 unsigned int type, const u64 *args, unsigned int nargs,
		 u64 ts)
{
	struct gt_v2_cpu *vc = v2_cpu(m, c);
	u32 len = vc->enc.len, nr = vc->nr_batches;
	u64 batch_m = vc->batch_m;

	(void)nargs;
	if (vc->enc.cap - vc->enc.len < 2 * V2_EVENT_ROOM ||
	    vc->nr_batches + 4 > vc->max_batches)
		return false;
	/* A fast syscall ends at the P's next event, but its own block. */
	if (type != GOTRACE_EV_GO_SYSBLOCK && !sys_end(m, c, ts))
		goto undo;
	if (v2_transition(m, c, t, type, args, ts))
		return true;
undo:
	/* Unreachable with the room checked above; keep the buffer whole. */
	vc->enc.len = len;
	vc->nr_batches = nr;
	vc->batch_m = batch_m;
	return false;
}

/* ---- Generations ------------------------------------------------------- */

/**
 * gt_v2_init() - the generational state of a model writing go 1.23
 * @m:		the model, its CPUs allocated
 * @cpu_bytes:	size of each CPU's buffer for one generation
 *
 * Return: 0 or -ENOMEM.
 */
int gt_v2_init(struct gt_model *m, u32 cpu_bytes)
{
	struct gt_v2 *v = &m->v2;
	unsigned int cpu;

	v->cpu_bytes = cpu_bytes;
	v->cpus = gt_env_zalloc(m->nr_cpus, sizeof(*v->cpus));
	if (!v->cpus)
		return -ENOMEM;
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct gt_v2_cpu *vc = &v->cpus[cpu];
		void *buf = gt_env_big_alloc(cpu_bytes);

		/* A batch takes at least a header and one event. */
		vc->max_batches = cpu_bytes / 8;
		vc->batches = gt_env_zalloc(vc->max_batches,
					    sizeof(*vc->batches));
		if (!buf || !vc->batches) {
			gt_env_big_free(buf);
			return -ENOMEM;
		}
		gt_enc2_init(&vc->enc, buf, cpu_bytes);
	}
	v->gen = 1;
	return 0;
}

void gt_v2_free(struct gt_model *m)
{
	struct gt_v2 *v = &m->v2;
	unsigned int cpu;

	if (v->cpus) {
		for (cpu = 0; cpu < m->nr_cpus; cpu++) {
			gt_env_big_free(v->cpus[cpu].enc.buf);
			gt_env_free(v->cpus[cpu].batches);
		}
	}
	gt_env_free(v->cpus);
	gt_env_free(v->sweep.buf);
	gt_env_free(v->out);
	v->cpus = NULL;
	v->out = NULL;
}

/* Append @n bytes to the generations written for the reader. */
static int out_put(struct gt_v2 *v, const void *p, size_t n)
{
	size_t cap = v->out_cap ? v->out_cap : 64 * 1024;
	u8 *buf;

	if (v->out_cap - v->out_len < n) {
		while (cap - v->out_len < n)
			cap *= 2;
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

/*
 * The start of generation m->v2.gen: every P's status, and the running
 * goroutine of every busy P on its M (its status binds them).  The
 * sequence numbers of Ps start again.
 */
void gt_v2_gen_start(struct gt_model *m)
{
	unsigned int cpu;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct gt_cpu *c = gt_env_cpu_ptr(m->cpus, cpu);
		struct gt_v2_cpu *vc = v2_cpu(m, c);
		struct gt_task *t = c->cur;
		u64 ts = max(vc->last_ts, c->last_ts) + 1;

		c->last_ts = ts;
		vc->p_seq = 0;
		if (vc->p_m && t) {
			ev2(m, c, t, task_m(t), GT_E2_PROC_STATUS, ts, c->id,
			    GT_E2_P_RUNNING);
			g_mention(m, c, t, ts);
			t->last_ts = max(t->last_ts, ts);
		} else {
			vc->p_m = 0;
			ev2(m, c, NULL, idle_m(c), GT_E2_PROC_STATUS, ts, c->id,
			    GT_E2_P_IDLE);
		}
	}
}

/*
 * The sweep of the ending generation: the status of every goroutine the
 * trace has alive that it did not mention, so that the next generation
 * may mention it (Go's reader knows only goroutines it was told of).
 */
static int sweep(struct gt_model *m, u64 ts)
{
	struct gt_v2 *v = &m->v2;
	unsigned int i, nb = 1U << m->bucket_bits, st;
	struct gt_hnode *n;
	u32 cap = 64 * 1024;
	u32 start;

	if (!v->sweep.buf) {
		void *buf = gt_env_alloc(cap);

		if (!buf)
			return -ENOMEM;
		gt_enc2_init(&v->sweep, buf, cap);
	}
	v->sweep.len = 0;
	start = 0;
	for (i = 0; i < nb; i++) {
		for (n = m->buckets[i].head.first; n; n = n->next) {
			struct gt_task *t = container_of(n, struct gt_task,
							 node);

			st = g_status(t);
			if (t->hidden || !st || t->v2.gen == v->gen)
				continue;
			if (!v->sweep.size_at &&
			    !gt_enc2_batch(&v->sweep, v->gen, V2_NO_M, ts))
				return -ENOMEM;
			if (!gt_enc2_ev3(&v->sweep, GT_E2_GO_STATUS, ts,
					 t->goid, task_m(t), st)) {
				/* Full batch: write it, start another. */
				gt_enc2_batch_end(&v->sweep);
				if (out_put(v, v->sweep.buf, v->sweep.len))
					return -ENOMEM;
				v->sweep.len = start;
				if (!gt_enc2_batch(&v->sweep, v->gen, V2_NO_M,
						   ts) ||
				    !gt_enc2_ev3(&v->sweep, GT_E2_GO_STATUS, ts,
						 t->goid, task_m(t), st))
					return -ENOMEM;
			}
			t->v2.gen = v->gen;
		}
	}
	if (v->sweep.size_at) {
		gt_enc2_batch_end(&v->sweep);
		if (out_put(v, v->sweep.buf, v->sweep.len))
			return -ENOMEM;
	}
	return 0;
}

/* Every CPU's batches, merged by start time (each CPU's are in order). */
static int merge(struct gt_model *m)
{
	struct gt_v2 *v = &m->v2;
	unsigned int cpu, best;
	u32 *next;
	int ret = 0;

	next = gt_env_zalloc(m->nr_cpus, sizeof(*next));
	if (!next)
		return -ENOMEM;
	for (;;) {
		struct gt_v2_cpu *vc, *bc = NULL;
		u32 end;

		best = 0;
		for (cpu = 0; cpu < m->nr_cpus; cpu++) {
			vc = &v->cpus[cpu];
			if (next[cpu] == vc->nr_batches)
				continue;
			if (!bc || vc->batches[next[cpu]].ts <
				   bc->batches[next[best]].ts) {
				bc = vc;
				best = cpu;
			}
		}
		if (!bc)
			break;
		end = next[best] + 1 < bc->nr_batches ?
			bc->batches[next[best] + 1].off : bc->enc.len;
		ret = out_put(v, bc->enc.buf + bc->batches[next[best]].off,
			      end - bc->batches[next[best]].off);
		if (ret)
			break;
		next[best]++;
	}
	gt_env_free(next);
	return ret;
}

/**
 * gt_v2_gen_end() - write the current generation out and start the next
 * @m:		the model, between hooks
 * @last:	the trace ends: no next generation
 *
 * The generation's bytes are appended to m->v2.out: the CPUs' batches
 * merged, the sweep, the frequency, the tables.  Go's readers take the
 * frequency and the tables after the events, which is what makes a cut
 * generation detectable (they are missing).
 *
 * Return: 0, or -ENOMEM (the trace ends there).
 */
int gt_v2_gen_end(struct gt_model *m, bool last)
{
	struct gt_v2 *v = &m->v2;
	u8 sync[GT_E2_BATCH_HDR_MAX + 1 + GT_LEB_MAX];
	struct gt_enc2 e;
	unsigned int cpu;
	u64 ts = 1;
	size_t len;
	u8 *tables;
	int ret;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct gt_cpu *c = gt_env_cpu_ptr(m->cpus, cpu);

		sys_end(m, c, max(v->cpus[cpu].last_ts, c->last_ts));
		batch_close(&v->cpus[cpu]);
		ts = max(ts, max(v->cpus[cpu].last_ts, c->last_ts));
	}
	ret = merge(m);
	if (!ret)
		ret = sweep(m, ts);
	if (ret)
		return ret;
	gt_enc2_init(&e, sync, sizeof(sync));
	gt_enc2_sync(&e, GT_E2_GO123, v->gen, GOTRACE_FREQUENCY, NULL);
	ret = out_put(v, e.buf, e.len);
	if (ret)
		return ret;
	ret = gt_tables_v2(m, v->gen, v->show_addrs, &tables, &len);
	if (ret)
		return ret;
	ret = out_put(v, tables, len);
	gt_env_free(tables);
	if (ret)
		return ret;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct gt_v2_cpu *vc = &v->cpus[cpu];

		vc->enc.len = 0;
		vc->nr_batches = 0;
	}
	v->gen++;
	v->gen_start = ts;
	if (!last)
		gt_v2_gen_start(m);
	return 0;
}

/*
 * Is it time to end the generation: @period_ns of trace time since it
 * started, or a CPU's buffer half full?
 */
bool gt_v2_gen_due(struct gt_model *m, u64 now, u64 period_ns)
{
	struct gt_v2 *v = &m->v2;
	unsigned int cpu;

	if (period_ns && now >= v->gen_start + period_ns)
		return true;
	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		if (v->cpus[cpu].enc.len > v->cpu_bytes / 2 ||
		    v->cpus[cpu].nr_batches > v->cpus[cpu].max_batches / 2)
			return true;
	return false;
}
