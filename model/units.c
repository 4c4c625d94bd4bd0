// SPDX-License-Identifier: GPL-2.0
/*
 * units.c - the systemd unit of every task, for the generational format
 *
 * A task's unit is the nearest cgroup of the default (v2) hierarchy,
 * from its own cgroup upwards, whose name ends in ".service" or
 * ".scope": what /proc/PID/cgroup and systemctl name.  The trace wraps
 * each task's time in a user region named after its unit, in a user
 * task of the same name (go123_writer.c), which Go's viewers turn into
 * per-unit pages and profiles (/usertasks, /userregions,
 * /regionio?type=nginx.service ...).
 *
 * The unit is looked at when the trace starts a task's goroutine
 * (GoStart): the environment reads the id of the task's cgroup, a few
 * pointer loads, and only when it differs from the one the task had
 * last time (its first start, or the task was moved) does it walk the
 * cgroups upwards and read their names (gt_env_task_unit()).  The name
 * found is copied into the session's table, once per unit: its index
 * is the unit's number (from 1), which names the user task and, with
 * gt_units_string(), the region's string.  So no cgroup is pinned and
 * nothing is resolved later: a unit whose cgroup is removed keeps its
 * name in the table until the session ends.
 *
 * The table is fixed-size, allocated at the session's start; a unit
 * that does not fit (table full, or a name longer than
 * GT_UNIT_NAME_MAX) is counted in gt_model.unit_overflows and its tasks
 * show no unit.  A unit's name, once its index is published (@nr, with
 * release), never changes: the reader writes the names of every
 * generation's string table without the lock.
 *
 * Context: gt_units_init(), gt_units_free(): session start and end;
 * gt_units_track(), gt_units_begin(): hooks, interrupts off;
 * gt_units_nr(), gt_units_name(): any.
 * Locking: units->lock (raw spinlock) guards adding a unit; it nests
 * inside task bucket locks and nothing nests inside it.
 */
#include "model_state.h"

struct gt_units {
	gt_lock_t lock;
	u32 max;
	u32 nr;				/* units in @names, published */
	u32 mask;			/* of @slots */
	u32 *slots;			/* hash slots: unit number or 0 */
	u32 *hash;			/* unit number - 1 -> its hash */
	char (*names)[GT_UNIT_NAME_MAX];
	unsigned long *begun;		/* units whose user task is written */
};

/**
 * gt_units_init() - the unit table of a session
 * @m:		the model
 * @max_units:	units the session names at most
 *
 * Return: 0 or -ENOMEM.
 */
int gt_units_init(struct gt_model *m, unsigned int max_units)
{
	struct gt_units *u = gt_env_zalloc(1, sizeof(*u));

	m->units = u;
	if (!u)
		return -ENOMEM;
	u->max = max_units;
	u->mask = roundup_pow_of_two(2 * max_units) - 1;
	u->slots = gt_env_zalloc(u->mask + 1, sizeof(*u->slots));
	u->hash = gt_env_zalloc(max_units, sizeof(*u->hash));
	u->names = gt_env_zalloc(max_units, GT_UNIT_NAME_MAX);
	u->begun = gt_env_zalloc(BITS_TO_LONGS(max_units + 1), sizeof(long));
	if (!u->slots || !u->hash || !u->names || !u->begun) {
		gt_units_free(m);
		return -ENOMEM;
	}
	gt_lock_init(&u->lock);
	gt_atomic64_set(&m->unit_overflows, 0);
	return 0;
}

void gt_units_free(struct gt_model *m)
{
	struct gt_units *u = m->units;

	if (!u)
		return;
	gt_env_free(u->slots);
	gt_env_free(u->hash);
	gt_env_free(u->names);
	gt_env_free(u->begun);
	gt_env_free(u);
	m->units = NULL;
}

/* The number of unit @name (@len bytes), added if new; 0 if full. */
static u32 units_number(struct gt_model *m, const char *name, u32 len)
{
	struct gt_units *u = m->units;
	u32 h = gt_env_jhash(name, len, 0), i, n = 0;

	gt_lock(&u->lock);
	for (i = h & u->mask; u->slots[i]; i = (i + 1) & u->mask) {
		n = u->slots[i];
		if (u->hash[n - 1] == h && !u->names[n - 1][len] &&
		    !memcmp(u->names[n - 1], name, len))
			goto out;
	}
	n = 0;
	if (u->nr == u->max)
		goto out;
	memcpy(u->names[u->nr], name, len);
	u->names[u->nr][len] = '\0';
	u->hash[u->nr] = h;
	n = u->nr + 1;
	u->slots[i] = n;
	/* Pairs with gt_units_nr(): a published name is whole. */
	gt_store_release(&u->nr, n);
out:
	gt_unlock(&u->lock);
	return n;
}

/**
 * gt_units_track() - bring @t's unit up to date, before its GoStart
 * @m:	the model
 * @t:	the task's entry, its bucket lock held
 * @p:	the task, about to run on this CPU
 *
 * Sets @t->unit: the number of @p's unit, 0 if it has none or the table
 * is full.  Looks the unit up only when @p's cgroup changed.
 */
void gt_units_track(struct gt_model *m, struct gt_task *t,
		    const struct gt_in_task *p)
{
	char name[GT_UNIT_NAME_MAX];
	u64 cgrp = gt_env_task_cgroup(p);
	int len;

	if (cgrp == t->cgroup)
		return;
	t->cgroup = cgrp;
	t->unit = 0;
	len = gt_env_task_unit(p, name, sizeof(name));
	if (len < 0) {
		gt_atomic64_inc(&m->unit_overflows);
		return;
	}
	if (!len)
		return;
	t->unit = units_number(m, name, len);
	if (!t->unit)
		gt_atomic64_inc(&m->unit_overflows);
}

/*
 * Is the user task of unit @unit to be written now?  True once per unit
 * and session, to the first CPU that begins a region of it.
 */
bool gt_units_begin(struct gt_model *m, u32 unit)
{
	return !gt_test_and_set_bit(unit, m->units->begun);
}

/* Units named so far (every one below it may be read, gt_units_name()). */
u32 gt_units_nr(struct gt_model *m)
{
	return m->units ? gt_load_acquire(&m->units->nr) : 0;
}

/* The name of unit @unit, one of gt_units_nr(). */
const char *gt_units_name(struct gt_model *m, u32 unit)
{
	return m->units->names[unit - 1];
}
