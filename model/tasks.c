// SPDX-License-Identifier: GPL-2.0
/*
 * tasks.c - the task table: one entry per task a session has seen
 *
 * Every task the session meets (in the snapshot, at its fork, at its
 * first event) takes an entry from a free list allocated at the start,
 * found again by its key in a hash table; the entry says whether the
 * task filters record it and, if so, which goroutine it is (model.c
 * writes the rest).  Every entry goes back to the free list at its
 * task's final switch, recorded or hidden, so the table holds the living
 * tasks only, and those the trace still needs (gone: a P runs them, or
 * a generation's sweep owes them a status).  Goroutine ids are
 * allocated here too.
 *
 * Context: gt_tasks_init() and gt_tasks_free(): session start and end;
 * the rest: hooks, interrupts off.
 * Locking: an entry is guarded by the lock of its bucket;
 * m->task_free_lock, which guards the free list, nests inside it.
 */
#include "model_state.h"

/**
 * gt_tasks_init() - the task table of a session
 * @m:		the model
 * @max_tasks:	entries (living tasks the session may see at once)
 * @tid_max:	tids are below this; larger ones get generated goroutine ids
 *
 * Return: 0 or -ENOMEM.
 */
int gt_tasks_init(struct gt_model *m, unsigned int max_tasks,
		  unsigned int tid_max)
{
	unsigned int i, nbuckets;

	m->bucket_bits = ilog2(roundup_pow_of_two(max(max_tasks / 4, 64U)));
	nbuckets = 1U << m->bucket_bits;
	m->buckets = gt_env_zalloc(nbuckets, sizeof(*m->buckets));
	m->tasks = gt_env_zalloc(max_tasks, sizeof(*m->tasks));
	m->tid_max = tid_max;
	m->tid_seen = gt_env_zalloc(BITS_TO_LONGS(m->tid_max), sizeof(long));
	if (!m->buckets || !m->tasks || !m->tid_seen) {
		gt_tasks_free(m);
		return -ENOMEM;
	}
	for (i = 0; i < nbuckets; i++) {
		gt_lock_init(&m->buckets[i].lock);
		m->buckets[i].head.first = NULL;
	}
	gt_lock_init(&m->task_free_lock);
	m->task_free.first = NULL;
	for (i = 0; i < max_tasks; i++)
		gt_hlist_add_head(&m->tasks[i].node, &m->task_free);
	gt_atomic64_set(&m->goid_gen, 0);
	/* The interrupts' goroutines, if the session records them. */
	if (gt_irqs_init(m)) {
		gt_tasks_free(m);
		return -ENOMEM;
	}
	return 0;
}

void gt_tasks_free(struct gt_model *m)
{
	gt_irqs_free(m);
	gt_env_free(m->buckets);
	gt_env_free(m->tasks);
	gt_env_free(m->tid_seen);
	m->buckets = NULL;
	m->tasks = NULL;
	m->tid_seen = NULL;
}

struct gt_task_bucket *gt_tasks_bucket(struct gt_model *m, u64 key)
{
	return &m->buckets[gt_env_hash64(key, m->bucket_bits)];
}

/*
 * Does @p pass the session's task filters (every one given: pids, comm,
 * cgroup)?  Decided when the session first sees the task, and again at
 * exec and comm changes.
 */
bool gt_tasks_match(struct gt_model *m, const struct gt_in_task *p)
{
	const struct gotrace_options *o = &m->opts;
	unsigned int i;

	if (o->nr_pids) {
		s32 id = o->flags & GOTRACE_OPT_TGID ? p->tgid : p->tid;

		for (i = 0; i < o->nr_pids; i++)
			if (o->pids[i] == id)
				break;
		if (i == o->nr_pids)
			return false;
	}
	if (o->comm[0] && strncmp(p->comm, o->comm, GT_IN_COMM_LEN))
		return false;
	if (o->cgroup_id && !gt_env_in_cgroup(p, o->cgroup_id))
		return false;
	return true;
}

static struct gt_task *tasks_of(struct gt_hnode *n)
{
	return container_of(n, struct gt_task, node);
}

/*
 * The entry of @p, or NULL.  An entry for the same key but another
 * start_time belongs to a task that died while the model was not
 * looking (before the snapshot was armed): its goroutine is left to the
 * trace as it was, and the entry goes back (gt_tasks_release(): gone,
 * while the trace still needs it).  Gone entries are no task's.
 */
struct gt_task *gt_tasks_find(struct gt_model *m, struct gt_task_bucket *b,
			      const struct gt_in_task *p)
{
	struct gt_hnode *n;
	struct gt_task *t;

	gt_lockdep_assert_held(&b->lock);
	for (n = b->head.first; n; n = n->next) {
		t = tasks_of(n);
		if (t->key != p->key || t->gone)
			continue;
		if (t->start_time == p->start_time)
			return t;
		gt_tasks_release(m, t);
		return NULL;
	}
	return NULL;
}

/* A new entry for @p in bucket @b, not yet in the trace; NULL when full. */
static struct gt_task *tasks_add(struct gt_model *m, struct gt_task_bucket *b,
				 const struct gt_in_task *p, bool adopt)
{
	struct gt_task *t = NULL;

	gt_lockdep_assert_held(&b->lock);
	gt_lock(&m->task_free_lock);
	if (m->task_free.first) {
		t = tasks_of(m->task_free.first);
		gt_hlist_del(&t->node);
	}
	gt_unlock(&m->task_free_lock);
	if (!t) {
		gt_atomic64_inc(&m->task_overflows);
		gt_model_halt(m);
		return NULL;
	}
	memset(t, 0, sizeof(*t));
	t->key = p->key;
	t->start_time = p->start_time;
	t->state = GT_G_NONE;
	t->sys_nr = p->flags & GT_IN_KTHREAD ? -1 : GT_SYS_UNKNOWN;
	t->adopted = adopt;
	t->hidden = !adopt && !gt_tasks_match(m, p);
	memcpy(t->comm, p->comm, sizeof(t->comm));
	gt_hlist_add_head(&t->node, &b->head);
	return t;
}

/*
 * The entry of @p, recorded or hidden, added if new (@adopt: recorded
 * whatever the filters say); NULL if the table is full.
 */
struct gt_task *gt_tasks_entry(struct gt_model *m, struct gt_task_bucket *b,
			       const struct gt_in_task *p, bool adopt)
{
	struct gt_task *t = gt_tasks_find(m, b, p);

	return t ? t : tasks_add(m, b, p, adopt);
}

/* The entry of @p if the trace records it, added if new; else NULL. */
struct gt_task *gt_tasks_get(struct gt_model *m, struct gt_task_bucket *b,
			     const struct gt_in_task *p)
{
	struct gt_task *t = gt_tasks_entry(m, b, p, false);

	return t && !t->hidden ? t : NULL;
}

/*
 * An entry goes back to the free list: its task died, or died unseen.
 * Its bucket's lock held.  Where the trace still needs it, it stays in
 * its bucket, gone, and whoever needs it last gives it back: the P that
 * the trace has its goroutine running on (cpu_take_off() in model.c),
 * or the sweep that owes it a status (gt_w123_sweep_owes()).
 */
void gt_tasks_release(struct gt_model *m, struct gt_task *t)
{
	if (t->state == GT_G_RUNNING || gt_w123_sweep_owes(m, t)) {
		t->gone = true;
		return;
	}
	if (t->node.pprev)
		gt_hlist_del(&t->node);
	gt_lock(&m->task_free_lock);
	gt_hlist_add_head(&t->node, &m->task_free);
	gt_unlock(&m->task_free_lock);
}

/*
 * Goroutine ids are never reused in a trace (the parsers reject a second
 * GoCreate of an id).  The first goroutine of a tid gets the tid itself,
 * later ones (tid reuse, exec) a fresh generation in the high 32 bits.
 */
u64 gt_tasks_goid(struct gt_model *m, s32 tid)
{
	if ((u32)tid < m->tid_max &&
	    !gt_test_and_set_bit(tid, m->tid_seen))
		return tid;
	return (u64)gt_atomic64_inc_return(&m->goid_gen) << 32 | (u32)tid;
}
