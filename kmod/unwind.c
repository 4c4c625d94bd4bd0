// SPDX-License-Identifier: GPL-2.0
/*
 * unwind.c - a session's unwind tables: their memory, the ioctls that
 * load them, the lookups of the walk, the misses reported to the command
 *
 * The command builds a table from each file's .eh_frame, reads the
 * mappings of each process, and loads both here (GOTRACE_IOC_UNWIND_*);
 * the probes walk user stacks with them (unwind_walk.c).  unwind.h says
 * how the probes read what the ioctls write without a lock.
 *
 * A space is the module's identity of an address space (gt_uspace_of():
 * a process and its exec count), the one user stacks are named by.  A
 * walk that finds no mappings for its space, or a PC in none of them,
 * queues a miss: the command takes the misses and loads those processes
 * (the processes started, or that mapped a library, since it read them).
 *
 * Context: the ioctls, process context, serialised by the caller
 * (gt_session.uw_lock); the lookups and gt_uw_miss(), a probe or the
 * sampling interrupt, never an NMI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "gotrace.h"
#include "unwind.h"

/*
 * Each CPU's last miss: its walks of one process come in runs (the
 * entry of a syscall, then its block), and the command needs one report
 * to load a process, not one a walk.  A space missed again after a
 * quarter of a second is reported again (the command may have found it
 * gone, or not loaded the library yet).  A throttle only: shared by the
 * sessions.
 */
struct gt_uw_memo {
	u64 space;
	unsigned long when;
};

static DEFINE_PER_CPU(struct gt_uw_memo, gt_uw_memo);

/* ---- Lookups of the walk, lock-free ------------------------------------ */

static u32 uw_hash(const struct gt_unwind *uw, u64 space)
{
	return hash_64(space, 32) & uw->key_mask;
}

/**
 * gt_uw_space_find() - the mappings of a space
 * @uw:		the tables
 * @space:	the space
 * @seq:	set to their sequence count, for gt_uw_map_of()
 *
 * Return: the space's slot, or NULL if the command has not loaded it
 * (or is rewriting it: counted).
 */
struct gt_uw_space *gt_uw_space_find(struct gt_unwind *uw, u64 space,
				     u32 *seq)
{
	struct gt_uw_space *sp;
	u32 i = uw_hash(uw, space), n, idx;
	u64 key;

	for (n = 0; n < GT_UW_PROBES; n++, i = (i + 1) & uw->key_mask) {
		key = READ_ONCE(uw->keys[i].key);
		if (key == GT_UW_EMPTY)
			return NULL;
		if (key != space)
			continue;
		/*
		 * The slot's index was written before its key: pairs with
		 * the smp_wmb() of uw_space_put().
		 */
		smp_rmb();
		idx = READ_ONCE(uw->keys[i].idx);
		if (idx >= uw->nr_spaces)
			return NULL;
		sp = &uw->spaces[idx];
		/* Even: the contents after it are whole (uw_space_write()). */
		*seq = smp_load_acquire(&sp->seq);
		if (*seq & 1) {
			atomic64_inc(&uw->races);
			return NULL;
		}
		return sp;
	}
	return NULL;
}

/**
 * gt_uw_map_of() - the mapping of a PC in a space
 * @uw:		the tables
 * @sp:		the space's slot (gt_uw_space_find())
 * @seq:	its sequence count then
 * @space:	the space
 * @pc:		the PC
 * @map:	set to the mapping
 *
 * A binary search of the mappings (at most GOTRACE_UNWIND_MAPS_MAX: 7
 * steps), then a check that the slot was neither rewritten nor given to
 * another space meanwhile.
 *
 * Return: true if found; false if the PC is in none of them, or if the
 * slot changed (counted).
 */
bool gt_uw_map_of(struct gt_unwind *uw, struct gt_uw_space *sp, u32 seq,
		  u64 space, unsigned long pc, struct gotrace_unwind_map *map)
{
	u32 lo = 0, n = min_t(u32, READ_ONCE(sp->nr), GOTRACE_UNWIND_MAPS_MAX);
	u32 half;

	if (!n)
		return false;
	/* The last mapping that starts at or below @pc. */
	while (n > 1) {
		half = n / 2;
		if (READ_ONCE(sp->maps[lo + half].start) <= pc)
			lo += half;
		n -= half;
	}
	*map = sp->maps[lo];
	/* The mapping before the count: pairs with uw_space_write(). */
	smp_rmb();
	if (READ_ONCE(sp->seq) != seq || READ_ONCE(sp->key) != space) {
		atomic64_inc(&uw->races);
		return false;
	}
	return pc >= map->start && pc < map->end;
}

/**
 * gt_uw_miss() - tell the command a walk of current lacked mappings
 * @uw:		the tables
 * @space:	current's space
 * @why:	GOTRACE_UNW_MISS_*
 *
 * Context: a probe or the sampling interrupt (a raw spinlock, with
 * interrupts saved: a probe may run with them on).
 */
void gt_uw_miss(struct gt_unwind *uw, u64 space, u32 why)
{
	struct gt_uw_memo *memo = this_cpu_ptr(&gt_uw_memo);
	unsigned long flags;

	atomic64_inc(&uw->nr_misses);
	if (memo->space == space && time_before(jiffies, memo->when + HZ / 4))
		return;
	memo->space = space;
	memo->when = jiffies;
	raw_spin_lock_irqsave(&uw->miss_lock, flags);
	if (uw->miss_tail - uw->miss_head >= GT_UW_MISSES) {
		atomic64_inc(&uw->misses_lost);
	} else {
		uw->misses[uw->miss_tail % GT_UW_MISSES] = (struct gt_uw_miss){
			.space = space,
			.tgid = current->tgid,
			.why = why,
		};
		uw->miss_tail++;
	}
	raw_spin_unlock_irqrestore(&uw->miss_lock, flags);
}

/* ---- The ioctls ---------------------------------------------------------- */

/* GOTRACE_IOC_UNWIND_ROWS: rows into the array, where no walk reads. */
static long uw_ioc_rows(struct gt_unwind *uw, void __user *arg)
{
	struct gotrace_unwind_rows a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.first > uw->nr_rows || a.nr > uw->nr_rows - a.first)
		return -EINVAL;
	if (copy_from_user(&uw->rows[a.first], u64_to_user_ptr(a.rows),
			   array_size(a.nr, sizeof(*uw->rows))))
		return -EFAULT;
	return 0;
}

/*
 * GOTRACE_IOC_UNWIND_TABLE: a table's slot.  Its generation is made odd
 * first, then the fields, then the new one: a walk that read the old
 * generation sees it change, one that reads the new one the new fields.
 */
static long uw_ioc_table(struct gt_unwind *uw, void __user *arg)
{
	struct gotrace_unwind_set_table a;
	struct gotrace_unwind_table *t;
	u32 gen;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	gen = a.table.gen;
	if (a.slot >= GOTRACE_UNWIND_TABLES_MAX || a.pad || a.table.pad)
		return -EINVAL;
	if (!(gen & 1) &&
	    (a.table.first > uw->nr_rows ||
	     a.table.nr > uw->nr_rows - a.table.first ||
	     a.table.index > uw->nr_rows ||
	     DIV_ROUND_UP(a.table.nr_pages, 4) > uw->nr_rows - a.table.index))
		return -EINVAL;
	t = &uw->tables[a.slot];
	WRITE_ONCE(t->gen, gen | 1);
	/* Odd before the fields: pairs with uw_row_of()'s smp_rmb(). */
	smp_wmb();
	WRITE_ONCE(t->first, a.table.first);
	WRITE_ONCE(t->nr, a.table.nr);
	WRITE_ONCE(t->index, a.table.index);
	WRITE_ONCE(t->nr_pages, a.table.nr_pages);
	/* The fields before the new generation: uw_row_of()'s acquire. */
	smp_wmb();
	WRITE_ONCE(t->gen, gen);
	return 0;
}

/*
 * The key slot of @space (*@found set), or the slot to add it at (the
 * first dropped or free one on its way); NULL if neither is within
 * GT_UW_PROBES slots.  uw->lock held.
 */
static struct gt_uw_key *uw_key_slot(struct gt_unwind *uw, u64 space,
				     bool *found)
{
	struct gt_uw_key *k, *room = NULL;
	u32 i = uw_hash(uw, space), n;

	lockdep_assert_held(&uw->lock);
	*found = false;
	for (n = 0; n < GT_UW_PROBES; n++, i = (i + 1) & uw->key_mask) {
		k = &uw->keys[i];
		if (k->key == space) {
			*found = true;
			return k;
		}
		if (k->key == GT_UW_GONE && !room)
			room = k;
		if (k->key == GT_UW_EMPTY)
			return room ?: k;
	}
	return room;
}

/* Write a space's slot: odd, its key and mappings, even. */
static void uw_space_write(struct gt_uw_space *sp, u64 key,
			   const struct gotrace_unwind_map *maps, u32 nr)
{
	WRITE_ONCE(sp->seq, sp->seq + 1);
	/* Odd before the contents: pairs with gt_uw_map_of()'s smp_rmb(). */
	smp_wmb();
	WRITE_ONCE(sp->key, key);
	if (nr)
		memcpy(sp->maps, maps, array_size(nr, sizeof(*maps)));
	WRITE_ONCE(sp->nr, nr);
	/* The contents before even: gt_uw_space_find()'s acquire. */
	smp_wmb();
	WRITE_ONCE(sp->seq, sp->seq + 1);
}

/*
 * Add @space with its mappings at key slot @k (uw_key_slot()'s room for
 * it): a free slot of spaces, written, then published under the key.
 * -ENOSPC if there is no room.  uw->lock held.
 */
static int uw_space_add(struct gt_unwind *uw, struct gt_uw_key *k, u64 space,
			const struct gotrace_unwind_map *maps, u32 nr)
{
	u32 idx;

	lockdep_assert_held(&uw->lock);
	if (!k || !uw->nr_free)
		return -ENOSPC;
	idx = uw->free[--uw->nr_free];
	uw_space_write(&uw->spaces[idx], space, maps, nr);
	WRITE_ONCE(k->idx, idx);
	/* The index before the key: gt_uw_space_find()'s smp_rmb(). */
	smp_wmb();
	WRITE_ONCE(k->key, space);
	return 0;
}

static int uw_space_put(struct gt_unwind *uw, u64 space,
			const struct gotrace_unwind_map *maps, u32 nr)
{
	struct gt_uw_key *k;
	unsigned long flags;
	bool found;
	int ret = 0;

	raw_spin_lock_irqsave(&uw->lock, flags);
	k = uw_key_slot(uw, space, &found);
	if (found)
		uw_space_write(&uw->spaces[k->idx], space, maps, nr);
	else
		ret = uw_space_add(uw, k, space, maps, nr);
	raw_spin_unlock_irqrestore(&uw->lock, flags);
	return ret;
}

static void uw_space_drop(struct gt_unwind *uw, u64 space)
{
	struct gt_uw_key *k;
	unsigned long flags;
	bool found;

	raw_spin_lock_irqsave(&uw->lock, flags);
	k = uw_key_slot(uw, space, &found);
	if (found) {
		WRITE_ONCE(k->key, GT_UW_GONE);
		uw_space_write(&uw->spaces[k->idx], GT_UW_EMPTY, NULL, 0);
		uw->free[uw->nr_free++] = k->idx;
	}
	raw_spin_unlock_irqrestore(&uw->lock, flags);
}

/**
 * gt_unwind_fork() - a new process starts with its parent's mappings
 * @uw:		the session's tables, or NULL
 * @parent:	the task that forked
 * @child:	the new task
 *
 * Until it executes another program, a new process (not a thread) maps
 * what its parent did: the parent's space, copied under the child's,
 * walks the child's first stacks by tables before the command has read
 * its maps (most children of a server, a shell's until their exec).
 * Nothing if the parent's is not loaded or there is no room.
 *
 * Context: the fork probe (preemption off).
 */
void gt_unwind_fork(struct gt_unwind *uw, struct task_struct *parent,
		    struct task_struct *child)
{
	struct gt_uw_key *from, *to;
	struct gt_uw_space *sp;
	u64 src, dst;
	unsigned long flags;
	bool found;

	if (!uw || child->tgid == parent->tgid || !child->mm ||
	    child->flags & PF_KTHREAD)
		return;
	src = gt_uspace_of(parent);
	dst = gt_uspace_of(child);
	raw_spin_lock_irqsave(&uw->lock, flags);
	from = uw_key_slot(uw, src, &found);
	if (!found)
		goto out;
	to = uw_key_slot(uw, dst, &found);
	sp = &uw->spaces[from->idx];
	if (!found)
		uw_space_add(uw, to, dst, sp->maps, sp->nr);
out:
	raw_spin_unlock_irqrestore(&uw->lock, flags);
}

/**
 * gt_unwind_exec() - a process leaves its space for another program's
 * @uw:		the session's tables, or NULL
 * @p:		the process, which has just executed a program
 *
 * Its old space can be walked no more: dropped now, so that the room
 * holds the spaces of live programs (the command also drops, every few
 * seconds, those of the processes gone).
 *
 * Context: the exec probe (preemption off).
 */
void gt_unwind_exec(struct gt_unwind *uw, struct task_struct *p)
{
	if (uw)
		uw_space_drop(uw, gt_uspace_before_exec(p));
}

/* Mappings a walker can search: sorted, apart, in user space. */
static bool uw_maps_valid(const struct gotrace_unwind_map *maps, u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++) {
		if (maps[i].start >= maps[i].end || maps[i].end >> 63 ||
		    maps[i].table > GOTRACE_UNWIND_TABLES_MAX ||
		    (i && maps[i - 1].end > maps[i].start))
			return false;
	}
	return true;
}

/*
 * The space of process @tgid (the caller's pid namespace): -ESRCH if
 * there is none, or it has no user memory (a kernel thread, a zombie).
 */
static int uw_space_of_tgid(pid_t tgid, u64 *space)
{
	struct task_struct *p;
	int ret = -ESRCH;

	if (tgid <= 0)
		return -ESRCH;
	rcu_read_lock();
	p = pid_task(find_vpid(tgid), PIDTYPE_TGID);
	if (p && READ_ONCE(p->mm) && !(p->flags & PF_KTHREAD)) {
		*space = gt_uspace_of(p);
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

/* GOTRACE_IOC_UNWIND_SPACE */
static long uw_ioc_space(struct gt_unwind *uw, void __user *arg)
{
	struct gotrace_unwind_map *maps;
	struct gotrace_unwind_space a;
	u64 now;
	int ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (!a.space || a.space & ~GT_USPACE_MASK ||
	    a.nr > GOTRACE_UNWIND_MAPS_MAX)
		return -EINVAL;
	if (!a.nr) {
		uw_space_drop(uw, a.space);
		return 0;
	}
	maps = kvmalloc_array(a.nr, sizeof(*maps), GFP_KERNEL);
	if (!maps)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(maps, u64_to_user_ptr(a.maps),
			   array_size(a.nr, sizeof(*maps))))
		goto out;
	ret = -EINVAL;
	if (!uw_maps_valid(maps, a.nr))
		goto out;
	/*
	 * Only under the space the process has now: the command asked
	 * for @space (a miss, GOTRACE_IOC_UNWIND_SPACE_ID), then read the
	 * maps; a process that executed another program since, or a
	 * process id given to another, has another space, whose maps the
	 * command reads again when a walk of it misses.
	 */
	ret = uw_space_of_tgid(a.tgid, &now);
	if (!ret && now != a.space)
		ret = -ESTALE;
	if (!ret)
		ret = uw_space_put(uw, a.space, maps, a.nr);
out:
	kvfree(maps);
	return ret;
}

/* GOTRACE_IOC_UNWIND_SPACE_ID */
static long uw_ioc_space_id(void __user *arg)
{
	struct gotrace_unwind_space a;
	int ret;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	ret = uw_space_of_tgid(a.tgid, &a.space);
	if (ret)
		return ret;
	return copy_to_user(arg, &a, sizeof(a)) ? -EFAULT : 0;
}

/* GOTRACE_IOC_UNWIND_MISSES: the oldest first, each taken once. */
static long uw_ioc_misses(struct gt_unwind *uw, void __user *arg)
{
	struct gotrace_unwind_miss *out;
	struct gotrace_unwind_misses a;
	u32 n = 0, room;
	long ret = 0;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.pad)
		return -EINVAL;
	room = min_t(u32, a.nr, GT_UW_MISSES);
	out = kcalloc(GT_UW_MISSES, sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	raw_spin_lock_irq(&uw->miss_lock);
	for (; n < room && uw->miss_head != uw->miss_tail; n++) {
		const struct gt_uw_miss *m =
			&uw->misses[uw->miss_head++ % GT_UW_MISSES];

		out[n].space = m->space;
		out[n].tgid = m->tgid;
		out[n].why = m->why;
	}
	raw_spin_unlock_irq(&uw->miss_lock);
	/* In the caller's pid namespace, out of the lock. */
	for (room = 0; room < n; room++)
		out[room].tgid = gt_pid_from_init_ns(out[room].tgid);
	a.nr = n;
	if (copy_to_user(u64_to_user_ptr(a.misses), out,
			 array_size(n, sizeof(*out))) ||
	    copy_to_user(arg, &a, sizeof(a)))
		ret = -EFAULT;
	kfree(out);
	return ret;
}

/**
 * gt_unwind_ioctl() - one of GOTRACE_IOC_UNWIND_*
 * @uw:		the session's tables
 * @cmd:	the command
 * @arg:	its argument
 *
 * Context: process context; the caller serialises the calls.
 * Return: 0 or a negative errno (gotrace.h says which).
 */
long gt_unwind_ioctl(struct gt_unwind *uw, unsigned int cmd,
		     void __user *arg)
{
	switch (cmd) {
	case GOTRACE_IOC_UNWIND_ROWS:
		return uw_ioc_rows(uw, arg);
	case GOTRACE_IOC_UNWIND_TABLE:
		return uw_ioc_table(uw, arg);
	case GOTRACE_IOC_UNWIND_SPACE:
		return uw_ioc_space(uw, arg);
	case GOTRACE_IOC_UNWIND_SPACE_ID:
		return uw_ioc_space_id(arg);
	case GOTRACE_IOC_UNWIND_MISSES:
		return uw_ioc_misses(uw, arg);
	default:
		return -ENOTTY;
	}
}

/* ---- Life ---------------------------------------------------------------- */

/*
 * Large arrays, zeroed, charged to the memory cgroup of the command
 * that asked for them; a size the machine cannot give fails the options
 * (-ENOMEM), without a warning in the log.
 */
static void *uw_vzalloc(size_t size)
{
	return __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN);
}

/**
 * gt_unwind_free() - free the tables
 * @uw:	the tables, or NULL; no probe reads them any more
 */
void gt_unwind_free(struct gt_unwind *uw)
{
	if (!uw)
		return;
	vfree(uw->rows);
	vfree(uw->tables);
	vfree(uw->spaces);
	vfree(uw->keys);
	vfree(uw->free);
	kfree(uw);
}

/**
 * gt_unwind_alloc() - the memory of a session's tables
 * @rows:	slots of the array of rows (checked by the caller; 0: the
 *		default)
 * @spaces:	address spaces held at once (checked; 0: the default)
 *
 * Context: process context, setting the options.
 * Return: the tables, or NULL for want of memory.
 */
struct gt_unwind *gt_unwind_alloc(u32 rows, u32 spaces)
{
	struct gt_unwind *uw;
	u32 i;

	uw = kzalloc(sizeof(*uw), GFP_KERNEL_ACCOUNT);
	if (!uw)
		return NULL;
	raw_spin_lock_init(&uw->lock);
	raw_spin_lock_init(&uw->miss_lock);
	uw->nr_rows = rows ?: GOTRACE_UNWIND_ROWS_DEFAULT;
	uw->nr_spaces = spaces ?: GOTRACE_UNWIND_SPACES_DEFAULT;
	uw->key_mask = roundup_pow_of_two(2 * uw->nr_spaces) - 1;
	uw->rows = uw_vzalloc(array_size(uw->nr_rows, sizeof(*uw->rows)));
	uw->tables = uw_vzalloc(array_size(GOTRACE_UNWIND_TABLES_MAX,
					   sizeof(*uw->tables)));
	uw->spaces = uw_vzalloc(array_size(uw->nr_spaces,
					   sizeof(*uw->spaces)));
	uw->keys = uw_vzalloc(array_size(uw->key_mask + 1,
					 sizeof(*uw->keys)));
	uw->free = uw_vzalloc(array_size(uw->nr_spaces, sizeof(*uw->free)));
	if (!uw->rows || !uw->tables || !uw->spaces || !uw->keys ||
	    !uw->free) {
		gt_unwind_free(uw);
		return NULL;
	}
	/* Every table slot starts odd: no walk uses one not set yet. */
	for (i = 0; i < GOTRACE_UNWIND_TABLES_MAX; i++)
		uw->tables[i].gen = 1;
	for (i = 0; i < uw->nr_spaces; i++)
		uw->free[i] = uw->nr_spaces - 1 - i;
	uw->nr_free = uw->nr_spaces;
	return uw;
}

/**
 * gt_unwind_status() - the tables' counters into a status
 * @uw:	the tables, or NULL
 * @st:	the status
 */
void gt_unwind_status(struct gt_unwind *uw, struct gotrace_status *st)
{
	if (!uw)
		return;
	st->unwind_misses = atomic64_read(&uw->nr_misses);
	st->unwind_misses_lost = atomic64_read(&uw->misses_lost);
	st->unwind_space_races = atomic64_read(&uw->races);
}
