// SPDX-License-Identifier: GPL-2.0
/*
 * tasks.c - the task table: one entry per task a session has seen
 *
 * Every task the session meets (in the snapshot, at its fork, at its
 * first event) takes an entry from a free list allocated at the start,
 * found again by its task_struct in a hash table; the entry says whether
 * the task filters record it and, if so, which goroutine it is (model.c
 * writes the rest).  Every entry goes back to the free list at its
 * task's final switch, recorded or hidden, so the table holds the living
 * tasks only.  Goroutine ids are allocated here too.
 *
 * Context: gt_tasks_init() and gt_tasks_free(): process context; the
 * rest: probe context, interrupts off.
 * Locking: an entry is guarded by the raw spinlock of its bucket;
 * s->task_free_lock, which guards the free list, nests inside it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/threads.h>

#include "gotrace.h"

int gt_tasks_init(struct gt_session *s, unsigned int max_tasks)
{
	unsigned int i, nbuckets;

	s->bucket_bits = ilog2(roundup_pow_of_two(max(max_tasks / 4, 64U)));
	nbuckets = 1U << s->bucket_bits;
	s->buckets = kvcalloc(nbuckets, sizeof(*s->buckets), GFP_KERNEL);
	s->tasks = kvcalloc(max_tasks, sizeof(*s->tasks), GFP_KERNEL);
	/*
	 * pid_max is not exported to modules: the bitmap covers every tid
	 * possible (512 KiB on 64-bit), so it is allocated with kvzalloc.
	 */
	s->tid_max = PID_MAX_LIMIT;
	s->tid_seen = kvcalloc(BITS_TO_LONGS(s->tid_max), sizeof(long),
			       GFP_KERNEL);
	if (!s->buckets || !s->tasks || !s->tid_seen) {
		gt_tasks_free(s);
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

void gt_tasks_free(struct gt_session *s)
{
	kvfree(s->buckets);
	kvfree(s->tasks);
	kvfree(s->tid_seen);
	s->buckets = NULL;
	s->tasks = NULL;
	s->tid_seen = NULL;
}

struct gt_task_bucket *gt_tasks_bucket(struct gt_session *s,
				       const struct task_struct *p)
{
	return &s->buckets[hash_ptr(p, s->bucket_bits)];
}

/* Is @p in cgroup v2 @id or below it?  Context: any, irqs off. */
static bool tasks_in_cgroup(const struct task_struct *p, u64 id)
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
bool gt_tasks_match(struct gt_session *s, const struct task_struct *p)
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
	if (o->cgroup_id && !tasks_in_cgroup(p, o->cgroup_id))
		return false;
	return true;
}

/*
 * The entry of @p, or NULL.  An entry for the same task_struct but
 * another start_time belongs to a task that died while the model was not
 * looking (before the snapshot was armed): its goroutine is left to the
 * trace as it was, and the entry goes back to the free list, unless the
 * trace has it running, where a P still points at it (then it is only
 * unlinked).
 */
struct gt_task *gt_tasks_find(struct gt_session *s, struct gt_task_bucket *b,
			      const struct task_struct *p)
{
	struct gt_task *t;

	lockdep_assert_held(&b->lock);
	hlist_for_each_entry(t, &b->head, node) {
		if (t->key != p)
			continue;
		if (t->start_time == p->start_time)
			return t;
		if (t->state == GT_G_RUNNING)
			hlist_del_init(&t->node);
		else
			gt_tasks_release(s, t);
		return NULL;
	}
	return NULL;
}

/* A new entry for @p in bucket @b, not yet in the trace; NULL when full. */
static struct gt_task *tasks_add(struct gt_session *s, struct gt_task_bucket *b,
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
	t->adopted = adopt;
	t->hidden = !adopt && !gt_tasks_match(s, p);
	memcpy(t->comm, p->comm, sizeof(t->comm));
	hlist_add_head(&t->node, &b->head);
	return t;
}

/*
 * The entry of @p, recorded or hidden, added if new (@adopt: recorded
 * whatever the filters say); NULL if the table is full.
 */
struct gt_task *gt_tasks_entry(struct gt_session *s, struct gt_task_bucket *b,
			       const struct task_struct *p, bool adopt)
{
	struct gt_task *t = gt_tasks_find(s, b, p);

	return t ? t : tasks_add(s, b, p, adopt);
}

/* The entry of @p if the trace records it, added if new; else NULL. */
struct gt_task *gt_tasks_get(struct gt_session *s, struct gt_task_bucket *b,
			     const struct task_struct *p)
{
	struct gt_task *t = gt_tasks_entry(s, b, p, false);

	return t && !t->hidden ? t : NULL;
}

/*
 * An entry goes back to the free list: its task died, or died unseen.
 * Its bucket's lock held.
 */
void gt_tasks_release(struct gt_session *s, struct gt_task *t)
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
u64 gt_tasks_goid(struct gt_session *s, pid_t tid)
{
	if ((unsigned int)tid < s->tid_max && !test_and_set_bit(tid, s->tid_seen))
		return tid;
	return (u64)atomic64_inc_return(&s->goid_gen) << 32 | (u32)tid;
}
