// SPDX-License-Identifier: GPL-2.0
/*
 * feed.c - BPF records into the model's hooks (feed.h)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "record.h"
#include "feed.h"
#include "cgunits.h"
#include "umaps.h"
#include "model/gtmodel.h"
#include "../trace/u64map.h"

/* A task of the table: what its task record said, kept up to date. */
struct ftask {
	struct gt_in_task in;
	char comm[GT_IN_COMM_LEN];
};

/* The tasks of a CPU's gaps kept until they are decided (more: counted). */
#define GAP_KEEP	4
/* The distinct tasks of unreported switches named in the summary. */
#define NAMES_KEEP	4

/* A task the switch records left on a CPU, and that another's record found gone. */
struct gap_task {
	uint64_t key;
	int tid;		/* 0: not in the table (left out by the filters) */
	char comm[GT_IN_COMM_LEN];
};

/*
 * What the switch records of one CPU said: the task they put on it, and
 * the CPU's drop count in the last of them (record.h), against which the
 * gaps found since are decided at its next switch record.
 */
struct cpu_seen {
	uint64_t task;		/* 0: none known yet */
	uint32_t drops;
	uint32_t gaps;		/* found since that record, undecided */
	struct gap_task gap[GAP_KEEP];
	/*
	 * The last hard IRQ that began on the CPU and its name, for its
	 * exit, whose record has none: hard IRQs do not nest in one
	 * another, so the exit of a hard IRQ is that of the last entry,
	 * unless the entry was lost (then the name is "").
	 */
	uint32_t irq;
	bool irq_named;
	char irq_name[GTB_IRQ_NAME];
};

/* The records' numbers are the model's (record.h). */
_Static_assert(GTB_IRQ_HARD == GT_IN_HARDIRQ &&
	       GTB_IRQ_VECTOR == GT_IN_VECTOR &&
	       GTB_IRQ_SOFT == GT_IN_SOFTIRQ, "gtb_irq.kind");
_Static_assert(GTB_VEC_LOCAL_TIMER == GT_IN_VEC_LOCAL_TIMER &&
	       GTB_VEC_RESCHEDULE == GT_IN_VEC_RESCHEDULE &&
	       GTB_VEC_CALL_FUNCTION == GT_IN_VEC_CALL_FUNCTION &&
	       GTB_VEC_CALL_FUNCTION_SINGLE == GT_IN_VEC_CALL_FUNCTION_SINGLE &&
	       GTB_VEC_IRQ_WORK == GT_IN_VEC_IRQ_WORK &&
	       GTB_VEC_TIMER_BROADCAST == GT_IN_VEC_TIMER_BROADCAST &&
	       GTB_VEC_CPU_STOP == GT_IN_VEC_CPU_STOP &&
	       GTB_VEC_PLATFORM == GT_IN_VEC_PLATFORM &&
	       GTB_VEC_OTHER == GT_IN_VEC_OTHER, "gtb_irq.id of a vector");
_Static_assert(GTB_IRQ_NAME == GT_IN_IRQ_NAME_LEN, "a hard IRQ's name");

struct gt_bpf_feed {
	struct gt_model *m;
	const struct gt_ksyms *ksyms;
	struct gt_cgunits *units;	/* NULL: tasks in no unit */
	struct gt_umaps *umaps;		/* NULL: user frames unnamed */
	struct u64map tasks;		/* key -> struct ftask *, 0: none */
	struct gt_in_task unknown_task[2];	/* tasks named by key only */
	/*
	 * CPU samples of tasks the filters leave out: given to the model
	 * as samples of an idle task, as their other events are (the model
	 * in user space knows no filter but the comm, and would start a
	 * goroutine of any other task that a CPU's first event names), so
	 * it counts them idle; the summary moves them to filtered out.
	 */
	uint64_t samples_hidden;
	struct ftask **snap;		/* the snapshot, in order */
	unsigned char *snap_sleeping;
	size_t nr_snap, snap_cap;
	uint64_t start;			/* records before: table only */
	uint64_t end;			/* records after: none (0: not yet) */
	bool started;
	/*
	 * Events of recorded tasks the table does not know: a task record
	 * the reader could not keep (no memory), or one that never came
	 * before its task's first record.  The model is told of them as of
	 * an idle task, so they are lost: counted, never silent.
	 */
	uint64_t unknown;
	/*
	 * Per CPU, what its switch records said (struct cpu_seen); and the
	 * times a record of a recorded task current on its CPU (a syscall,
	 * a switch-out, a wakeup, a fork, an exec) came from a CPU that no
	 * switch record had given it: a gap, counted once per CPU and
	 * switch (see Documentation/bpf-backend.rst).  Each gap is then
	 * decided: @gaps_dropped if a record of that CPU was dropped
	 * meanwhile (the drop is counted, and lost, already), @unreported
	 * if none was, the kernel never having run the switch program.
	 */
	struct cpu_seen *cpus;
	unsigned int nr_cpus;
	uint64_t unswitched;
	uint64_t gaps_dropped;
	uint64_t unreported;
	/* The distinct tasks of @unreported, by key; the first few named. */
	struct u64map unreported_keys;
	size_t nr_unreported_tasks;
	struct gap_task names[NAMES_KEEP];
	size_t nr_names;
};

/* sched_switch's prev_state: TASK_DEAD. */
#define STATE_DEAD	0x80

struct gt_bpf_feed *gt_bpf_feed_new(struct gt_model *m,
				    const struct gt_ksyms *ksyms)
{
	struct gt_bpf_feed *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->m = m;
	f->ksyms = ksyms;
	for (int i = 0; i < 2; i++) {
		f->unknown_task[i].flags = GT_IN_IDLE;
		f->unknown_task[i].comm = "";
	}
	return f;
}

void gt_bpf_feed_units(struct gt_bpf_feed *f, struct gt_cgunits *units)
{
	f->units = units;
}

void gt_bpf_feed_umaps(struct gt_bpf_feed *f, struct gt_umaps *umaps)
{
	f->umaps = umaps;
}

/* The bytes of a record of @type before its stack (0: it has none). */
static size_t stack_at(unsigned int type)
{
	switch (type) {
	case GTB_SWITCH:
		return offsetof(struct gtb_switch, stack);
	case GTB_WAKING:
	case GTB_WAKEUP:
	case GTB_WAKEUP_NEW:
		return offsetof(struct gtb_wake, stack);
	case GTB_FORK:
		return offsetof(struct gtb_fork, stack);
	case GTB_SYS_ENTER:
		return offsetof(struct gtb_sys, stack);
	case GTB_SAMPLE:
		return offsetof(struct gtb_sample, stack);
	}
	return 0;
}

/*
 * The user stack of record @h, NULL if it has none (record.h: its size
 * goes past its kernel frames), or one that does not fit its size.
 */
const struct gtb_ustack *gt_bpf_rec_ustack(const struct gtb_hdr *h)
{
	size_t at = stack_at(h->type), k;
	const struct gtb_ustack *us;

	if (!at)
		return NULL;
	k = at + (size_t)h->nr_frames * 8;
	if (h->size < k + sizeof(*us))
		return NULL;
	us = (const struct gtb_ustack *)((const char *)h + k);
	if (!us->nr || us->nr > GTB_MAX_UFRAMES ||
	    h->size < k + sizeof(*us) + (size_t)us->nr * 8)
		return NULL;
	return us;
}

static void ustack_see(struct gt_bpf_feed *f, const struct gtb_ustack *us)
{
	struct gt_umaps_who w = {
		.space = us->space, .exe_ino = us->exe_ino,
		.tid = us->tid, .tgid = us->tgid,
	};

	gt_umaps_see(f->umaps, &w, (const uint64_t *)us->pcs, us->nr);
}

void gt_bpf_feed_early(const void *rec, size_t len, void *arg)
{
	const struct gtb_hdr *h = rec;
	const struct gtb_ustack *us;
	struct gt_bpf_feed *f = arg;

	if (!f->umaps || len < sizeof(*h) || len < h->size)
		return;
	us = gt_bpf_rec_ustack(h);
	if (us)
		ustack_see(f, us);
}

void gt_bpf_feed_free(struct gt_bpf_feed *f)
{
	size_t i = 0;
	uint64_t key, val;

	if (!f)
		return;
	while (u64map_next(&f->tasks, &i, &key, &val))
		free((struct ftask *)(uintptr_t)val);
	u64map_free(&f->tasks);
	free(f->snap);
	free(f->snap_sleeping);
	free(f->cpus);
	u64map_free(&f->unreported_keys);
	free(f);
}

/* The table's task for a task record: new, or the key's reuse. */
static struct ftask *task_update(struct gt_bpf_feed *f,
				 const struct gtb_task *r)
{
	uint64_t *slot;
	struct ftask *t;
	bool added;

	slot = u64map_put(&f->tasks, r->hdr.key, 0, &added);
	if (!slot)
		return NULL;
	/* 0: added, or left so by a calloc() that failed. */
	if (!*slot) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		*slot = (uintptr_t)t;
	}
	t = (struct ftask *)(uintptr_t)*slot;
	t->in.key = r->hdr.key;
	t->in.start_time = r->start_time;
	t->in.tid = r->tid;
	t->in.tgid = r->tgid;
	t->in.flags = r->flags & 0x00200000 /* PF_KTHREAD */ ? GT_IN_KTHREAD : 0;
	memcpy(t->comm, r->comm, sizeof(t->comm));
	t->in.comm = t->comm;
	return t;
}

/*
 * The task of @key, or an idle stand-in (slot @i of two): for a task the
 * filters left out (!@recorded), and, counted as a loss, for a recorded
 * one the table does not know.
 */
static const struct gt_in_task *task_of(struct gt_bpf_feed *f, uint64_t key,
					bool recorded, int i)
{
	uint64_t *slot = recorded ? u64map_get(&f->tasks, key) : NULL;

	if (slot && *slot)
		return &((struct ftask *)(uintptr_t)*slot)->in;
	if (recorded)
		f->unknown++;
	f->unknown_task[i].key = key;
	return &f->unknown_task[i];
}

void gt_bpf_feed_end(struct gt_bpf_feed *f, uint64_t ts)
{
	f->end = ts;
}

uint64_t gt_bpf_feed_unknown(const struct gt_bpf_feed *f)
{
	return f->unknown;
}

uint64_t gt_bpf_feed_unswitched(const struct gt_bpf_feed *f)
{
	return f->unswitched;
}

uint64_t gt_bpf_feed_gaps_dropped(const struct gt_bpf_feed *f)
{
	return f->gaps_dropped;
}

uint64_t gt_bpf_feed_unreported(const struct gt_bpf_feed *f)
{
	return f->unreported;
}

size_t gt_bpf_feed_unreported_tasks(const struct gt_bpf_feed *f, char *buf,
				    size_t len)
{
	size_t at = 0;
	int n;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < f->nr_names && at < len; i++) {
		n = snprintf(buf + at, len - at, "%s%.16s %d", i ? ", " : "",
			     f->names[i].comm, f->names[i].tid);
		if (n > 0)
			at += (size_t)n;
	}
	/* Those left out by the filters, and those past the first few. */
	if (f->nr_unreported_tasks > f->nr_names && at < len)
		snprintf(buf + at, len - at, "%s%zu more", at ? ", " : "",
			 f->nr_unreported_tasks - f->nr_names);
	return f->nr_unreported_tasks;
}

/* What the records said of @cpu, or NULL when it cannot be had. */
static struct cpu_seen *cpu_seen(struct gt_bpf_feed *f, unsigned int cpu)
{
	if (cpu >= f->nr_cpus) {
		unsigned int n = cpu + 64;
		struct cpu_seen *v = realloc(f->cpus, n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + f->nr_cpus, 0, (n - f->nr_cpus) * sizeof(*v));
		f->cpus = v;
		f->nr_cpus = n;
	}
	return &f->cpus[cpu];
}

/* An unreported switch away from @t: its task counted once, named if among the first. */
static void unreported_task(struct gt_bpf_feed *f, const struct gap_task *t)
{
	bool added = false;

	if (!u64map_put(&f->unreported_keys, t->key, 1, &added) || !added)
		return;
	f->nr_unreported_tasks++;
	if (t->tid && f->nr_names < NAMES_KEEP)
		f->names[f->nr_names++] = *t;
}

/*
 * Decide @c's gaps found since its last switch record, whose drop count
 * was c->drops, now that the CPU's count is @drops (a later switch
 * record's, or the session's last).
 *
 * Exact when the count did not change: the switch programs of a CPU run
 * one after the other with interrupts off, so a switch between the two
 * records whose record found the ring full would have moved the count
 * before the later one read it; and the switch program cannot be
 * skipped for recursion there (it would be counted in its misses, and
 * lost, all the same).  So the kernel never ran it: the switch was not
 * reported, nothing was lost.
 *
 * When it changed, a record of that CPU was dropped meanwhile, though
 * not necessarily the switch's (a syscall's, a wakeup's): the gap is
 * taken for that drop, which the drop count has already made a loss, so
 * it is not counted again.  An unreported switch may hide there, left
 * out of the note then; the lost total stays exact.
 *
 * The records the reader itself could not keep (out of memory merging,
 * which it reports) are in no CPU's count: a switch among them is lost,
 * counted with the drops, and its gap taken for an unreported one.
 */
static void gaps_decide(struct gt_bpf_feed *f, struct cpu_seen *c,
			uint32_t drops)
{
	if (c->gaps && drops == c->drops) {
		f->unreported += c->gaps;
		for (uint32_t i = 0; i < c->gaps && i < GAP_KEEP; i++)
			unreported_task(f, &c->gap[i]);
	} else {
		f->gaps_dropped += c->gaps;
	}
	c->gaps = 0;
	c->drops = drops;
}

void gt_bpf_feed_settle(struct gt_bpf_feed *f, const uint64_t *drops,
			unsigned int nr)
{
	for (unsigned int i = 0; i < f->nr_cpus; i++) {
		/* No count for this CPU: a drop cannot be ruled out. */
		uint32_t now = i < nr && drops ? (uint32_t)drops[i] :
			       f->cpus[i].drops + 1;

		gaps_decide(f, &f->cpus[i], now);
	}
}

void gt_bpf_feed_snap_task(const void *rec, size_t len, void *arg)
{
	const struct gtb_task *r = rec;
	struct gt_bpf_feed *f = arg;
	struct ftask *t;

	if (len < sizeof(*r) || r->hdr.type != GTB_TASK)
		return;
	t = task_update(f, r);
	if (!t)
		return;
	if (f->nr_snap == f->snap_cap) {
		size_t cap = f->snap_cap ? 2 * f->snap_cap : 1024;
		struct ftask **v = realloc(f->snap, cap * sizeof(*v));
		unsigned char *s = realloc(f->snap_sleeping, cap);

		if (v)
			f->snap = v;
		if (s)
			f->snap_sleeping = s;
		if (!v || !s)
			return;
		f->snap_cap = cap;
	}
	f->snap[f->nr_snap] = t;
	f->snap_sleeping[f->nr_snap++] = r->state != 0;
}

int gt_bpf_feed_start(struct gt_bpf_feed *f, uint64_t ts, unsigned int cpu)
{
	struct gt_in_task cur = { .flags = GT_IN_IDLE, .comm = "" };
	struct gt_in_ev ev = { .ts = ts, .cpu = cpu, .cur = &cur };
	int ret;

	ret = gt_model_snapshot_begin(f->m, &ev);
	for (size_t i = 0; !ret && i < f->nr_snap; i++) {
		struct gt_in_snap_task snap = {
			.task = &f->snap[i]->in,
			.sleeping = f->snap_sleeping[i],
		};

		ret = gt_model_snapshot_task(f->m, &snap);
	}
	if (!ret)
		ret = gt_model_snapshot_end(f->m);
	f->start = ts;
	f->started = true;
	return ret;
}

/* The user stack @h carries, if any, into @ev. */
static void ev_ustack(struct gt_bpf_feed *f, const struct gtb_hdr *h,
		      struct gt_in_ev *ev)
{
	const struct gtb_ustack *us = gt_bpf_rec_ustack(h);

	if (!us)
		return;
	/* Seen early already (gt_bpf_feed_early()), unless not polled so. */
	ustack_see(f, us);
	ev->upcs = (const u64 *)us->pcs;
	ev->nr_upcs = us->nr;
	ev->ustop = us->stop;
	ev->uexact = us->flags & GTB_USTACK_EXACT;
	ev->uspace = us->space;
}

/* The header every input event has; @pcs: the record's stack, or NULL. */
static struct gt_in_ev in_ev(struct gt_bpf_feed *f, const struct gtb_hdr *h,
			     const struct gt_in_task *cur, const __u64 *pcs)
{
	struct gt_in_ev ev = { .ts = h->ts, .cpu = h->cpu, .cur = cur };
	unsigned int n = h->nr_frames, skip;

	if (pcs && n) {
		skip = f->ksyms ? gt_ksyms_tracing_frames(f->ksyms,
				(const uint64_t *)pcs, n) : 0;
		ev.pcs = (const u64 *)pcs + skip;
		ev.nr_pcs = n - skip;
	}
	if (pcs)
		ev_ustack(f, h, &ev);
	return ev;
}

/*
 * A record of @cur, current on a CPU where the switch records left
 * @was: the switch between them never reached the reader.  It is kept
 * to be decided at that CPU's next switch record (gaps_decide()), and
 * written as a preemption at the record's time, so that the
 * record and those that follow are @cur's.  Otherwise the model drops
 * a syscall of a task it does not show running, writes a switch-out as
 * of a task that ran for no time, and takes a wakeup or a fork for one
 * by a task it does not show (--children then leaves the child out).
 */
static void switch_missed(struct gt_bpf_feed *f, const struct gtb_hdr *h,
			  struct cpu_seen *c, const struct gt_in_task *cur)
{
	uint64_t was = c->task, *known = u64map_get(&f->tasks, was);
	struct gt_in_switch in = { 0 };

	/*
	 * Newly recorded (GTB_MATCH_NEW): its switch in was one between
	 * tasks the filters left out, which has no record.  Written, not
	 * a gap.
	 */
	if (h->match & GTB_MATCH_NEW)
		goto write;
	f->unswitched++;
	/* Its name now: the task may exit, its key be reused, before. */
	if (c->gaps < GAP_KEEP) {
		struct gap_task *g = &c->gap[c->gaps];
		const struct ftask *t = known && *known ?
			(const struct ftask *)(uintptr_t)*known : NULL;

		g->key = was;
		g->tid = t ? t->in.tid : 0;
		memcpy(g->comm, t ? t->comm : "", t ? sizeof(g->comm) : 1);
	}
	c->gaps++;
write:
	in.prev = task_of(f, was, known && *known, 1);
	in.next = cur;
	in.ev = in_ev(f, h, in.prev, NULL);
	in.preempt = true;
	in.prev_state = GT_IN_RUNNABLE;
	in.fd_kind = GT_IN_FD_UNKNOWN;
	gt_model_switch(f->m, &in);
}

/*
 * @h is a record of @key, a recorded task that is current on h->cpu (a
 * switch's prev, a waker, a parent, a task in exec or a syscall): if the
 * switch records put another task there, the switch to @key was missed
 * (see switch_missed()).  Only recorded tasks are checked: a switch
 * between two tasks the filters leave out has no record.
 */
static void current_check(struct gt_bpf_feed *f, const struct gtb_hdr *h,
			  uint64_t key, const struct gt_in_task *cur)
{
	struct cpu_seen *c = cpu_seen(f, h->cpu);

	if (!c || c->task == key)
		return;
	if (c->task)
		switch_missed(f, h, c, cur);
	c->task = key;
}

/*
 * @key's task, recorded and about to run, is in cgroup @cgroup: its unit
 * for the model (which looks at it when the cgroup changed).
 */
static void task_cgroup(struct gt_bpf_feed *f, uint64_t key, uint64_t cgroup)
{
	uint64_t *slot = u64map_get(&f->tasks, key);
	struct ftask *t;

	if (!f->units || !cgroup || !slot || !*slot)
		return;
	t = (struct ftask *)(uintptr_t)*slot;
	if (t->in.cgroup == cgroup)
		return;
	t->in.cgroup = cgroup;
	t->in.unit = gt_cgunits_of(f->units, cgroup);
}

/* The drop count of a switch record the model is not given. */
static void switch_count(struct gt_bpf_feed *f, const struct gtb_switch *r)
{
	struct cpu_seen *c = cpu_seen(f, r->hdr.cpu);

	if (c)
		gaps_decide(f, c, r->drops);
}

static void feed_switch(struct gt_bpf_feed *f, const struct gtb_switch *r)
{
	const struct gt_in_task *prev, *next;
	struct gt_in_switch in = { 0 };
	struct cpu_seen *c;

	prev = task_of(f, r->hdr.key, r->hdr.match & GTB_MATCH_KEY, 0);
	if (r->hdr.match & GTB_MATCH_KEY)
		current_check(f, &r->hdr, r->hdr.key, prev);
	if (r->hdr.match & GTB_MATCH_OTHER)
		task_cgroup(f, r->next, r->next_cgroup);
	next = task_of(f, r->next, r->hdr.match & GTB_MATCH_OTHER, 1);
	in.ev = in_ev(f, &r->hdr, prev, r->stack);
	in.prev = prev;
	in.next = next;
	in.preempt = r->preempt;
	in.prev_state = r->prev_state & STATE_DEAD ? GT_IN_DEAD :
			r->prev_state ? GT_IN_SLEEP : GT_IN_RUNNABLE;
	c = cpu_seen(f, r->hdr.cpu);
	if (c) {
		c->task = r->next;
		/* Its count decides the gaps since the last one, its own too. */
		gaps_decide(f, c, r->drops);
	}
	in.fd_kind = r->fd_kind == GTB_FD_PIPE ? GT_IN_FD_PIPE :
		     r->fd_kind == GTB_FD_SOCKET ? GT_IN_FD_SOCKET :
		     r->fd_kind == GTB_FD_OTHER ? GT_IN_FD_OTHER :
		     GT_IN_FD_UNKNOWN;
	gt_model_switch(f->m, &in);
}

static void feed_wake(struct gt_bpf_feed *f, const struct gtb_wake *r)
{
	const struct gt_in_task *cur;
	struct gt_in_wake in;

	cur = task_of(f, r->waker, r->hdr.match & GTB_MATCH_OTHER, 0);
	if (r->hdr.match & GTB_MATCH_OTHER)
		current_check(f, &r->hdr, r->waker, cur);
	in.ev = in_ev(f, &r->hdr, cur, r->stack);
	in.task = task_of(f, r->hdr.key, true, 1);
	if (r->hdr.type == GTB_WAKING)
		gt_model_waking(f->m, &in);
	else
		gt_model_wakeup(f->m, &in);
}

static void feed_fork(struct gt_bpf_feed *f, const struct gtb_fork *r)
{
	const struct gt_in_task *parent;
	struct gt_in_fork in;

	parent = task_of(f, r->hdr.key, r->hdr.match & GTB_MATCH_KEY, 0);
	if (r->hdr.match & GTB_MATCH_KEY)
		current_check(f, &r->hdr, r->hdr.key, parent);
	in.ev = in_ev(f, &r->hdr, parent, r->stack);
	in.child = task_of(f, r->child, r->hdr.match & GTB_MATCH_OTHER, 1);
	gt_model_fork(f->m, &in);
}

static void feed_exec(struct gt_bpf_feed *f, const struct gtb_exec *r)
{
	uint64_t *slot = u64map_get(&f->tasks, r->hdr.key);
	struct ftask *t;
	struct gt_in_exec in;

	if (!slot || !*slot) {
		f->unknown++;
		return;
	}
	t = (struct ftask *)(uintptr_t)*slot;
	/* A switch to it that was missed happened under its old comm. */
	current_check(f, &r->hdr, r->hdr.key, &t->in);
	/* The model reads the new comm (and tid) from ev.cur. */
	memcpy(t->comm, r->comm, sizeof(t->comm));
	t->in.tid = r->tid;
	in.ev = in_ev(f, &r->hdr, &t->in, NULL);
	/* The task keeps the start time it was first told with. */
	in.old_tid = r->old_tid;
	gt_model_exec(f->m, &in);
}

static void feed_sys(struct gt_bpf_feed *f, const struct gtb_sys *r)
{
	const struct gt_in_task *cur = task_of(f, r->hdr.key, true, 0);

	/* Only current makes syscalls: was a switch to it missed? */
	current_check(f, &r->hdr, r->hdr.key, cur);
	if (r->hdr.type == GTB_SYS_ENTER) {
		struct gt_in_sys_enter in = {
			.ev = in_ev(f, &r->hdr, cur, r->stack),
			.nr = r->nr,
			.compat = r->compat,
		};

		gt_model_sys_enter(f->m, &in);
	} else {
		struct gt_in_sys_exit in = {
			.ev = in_ev(f, &r->hdr, cur, NULL),
		};

		gt_model_sys_exit(f->m, &in);
	}
}

uint64_t gt_bpf_feed_samples_hidden(const struct gt_bpf_feed *f)
{
	return f->samples_hidden;
}

/*
 * A CPU sample: of the idle task or of a task the filters leave out
 * (counted by the model, the latter also here: see samples_hidden), or
 * of a recorded task, current on its CPU (was a switch to it missed?),
 * with its stacks.  Its kernel stack starts at the code interrupted,
 * with no tracing frame to drop.
 */
static void feed_sample(struct gt_bpf_feed *f, const struct gtb_sample *r)
{
	struct gt_in_sample in = { .missed = r->missed };
	const struct gt_in_task *cur;

	if (!(r->hdr.match & GTB_MATCH_KEY)) {
		if (!r->idle)
			f->samples_hidden++;
		cur = task_of(f, r->hdr.key, false, 0);
	} else {
		cur = task_of(f, r->hdr.key, true, 0);
		current_check(f, &r->hdr, r->hdr.key, cur);
	}
	in.ev = in_ev(f, &r->hdr, cur, NULL);
	if (r->hdr.match & GTB_MATCH_KEY) {
		in.ev.pcs = (const u64 *)r->stack;
		/* (No more frames than the record holds.) */
		if (offsetof(struct gtb_sample, stack) +
		    (size_t)r->hdr.nr_frames * 8 <= r->hdr.size)
			in.ev.nr_pcs = r->hdr.nr_frames;
		ev_ustack(f, &r->hdr, &in.ev);
	}
	gt_model_cpu_sample(f->m, &in);
}

/*
 * An interrupt begins or ends, on an idle CPU or interrupting the task
 * of hdr.key (current: was a switch to it missed?).  A hard IRQ's name
 * comes with its entry, and is kept for its exit.
 */
static void feed_irq(struct gt_bpf_feed *f, const struct gtb_irq *r)
{
	struct cpu_seen *c = cpu_seen(f, r->hdr.cpu);
	const struct gt_in_task *cur;
	struct gt_in_irq in = { .kind = r->kind, .id = r->id };

	if (r->kind >= GT_IN_IRQ_KINDS)
		return;
	cur = task_of(f, r->hdr.key, r->hdr.match & GTB_MATCH_KEY, 0);
	if (r->hdr.match & GTB_MATCH_KEY)
		current_check(f, &r->hdr, r->hdr.key, cur);
	in.ev = in_ev(f, &r->hdr, cur, NULL);
	if (r->kind == GTB_IRQ_HARD) {
		const struct gtb_irq_named *n = (const void *)r;

		if (c && r->hdr.type == GTB_IRQ_ENTRY &&
		    r->hdr.size >= sizeof(*n)) {
			memcpy(c->irq_name, n->name, sizeof(c->irq_name));
			c->irq_name[sizeof(c->irq_name) - 1] = '\0';
			c->irq = r->id;
			c->irq_named = true;
		}
		in.name = c && c->irq_named && c->irq == r->id ?
			  c->irq_name : "";
	}
	if (r->hdr.type == GTB_IRQ_ENTRY)
		gt_model_irq_entry(f->m, &in);
	else
		gt_model_irq_exit(f->m, &in);
}

/* A work item of hdr.key, a kworker, current on its CPU. */
static void feed_work(struct gt_bpf_feed *f, const struct gtb_work *r)
{
	const struct gt_in_task *cur = task_of(f, r->hdr.key, true, 0);
	struct gt_in_work in;

	current_check(f, &r->hdr, r->hdr.key, cur);
	in.ev = in_ev(f, &r->hdr, cur, NULL);
	in.func = r->func;
	if (r->hdr.type == GTB_WORK_START)
		gt_model_work_start(f->m, &in);
	else
		gt_model_work_end(f->m, &in);
}

void gt_bpf_feed_record(const void *rec, size_t len, void *arg)
{
	const struct gtb_hdr *h = rec;
	struct gt_bpf_feed *f = arg;

	if (len < sizeof(*h) || len < h->size)
		return;
	if (h->type == GTB_TASK) {
		if (len >= sizeof(struct gtb_task))
			task_update(f, rec);
		return;
	}
	if (!f->started || h->ts < f->start || (f->end && h->ts > f->end)) {
		/*
		 * A switch record outside the session is still the CPU's
		 * drop count at that time: from it a gap inside is decided
		 * as exactly as from one inside.
		 */
		if (h->type == GTB_SWITCH && len >= sizeof(struct gtb_switch))
			switch_count(f, rec);
		return;
	}
	switch (h->type) {
	case GTB_SWITCH:
		feed_switch(f, rec);
		break;
	case GTB_WAKING:
	case GTB_WAKEUP:
	case GTB_WAKEUP_NEW:
		feed_wake(f, rec);
		break;
	case GTB_FORK:
		feed_fork(f, rec);
		break;
	case GTB_EXEC:
		feed_exec(f, rec);
		break;
	case GTB_SYS_ENTER:
	case GTB_SYS_EXIT:
		feed_sys(f, rec);
		break;
	case GTB_SAMPLE:
		if (len >= sizeof(struct gtb_sample))
			feed_sample(f, rec);
		break;
	case GTB_IRQ_ENTRY:
	case GTB_IRQ_EXIT:
		if (len >= sizeof(struct gtb_irq))
			feed_irq(f, rec);
		break;
	case GTB_WORK_START:
	case GTB_WORK_END:
		if (len >= sizeof(struct gtb_work))
			feed_work(f, rec);
		break;
	default:
		break;		/* GTB_EXIT: the final switch says it */
	}
}
