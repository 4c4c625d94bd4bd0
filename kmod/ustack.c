// SPDX-License-Identifier: GPL-2.0
/*
 * ustack.c - the user frames of a stack: walked in the probe, named later
 *
 * With GOTRACE_OPT_USER_STACKS a stack holds the user frames of the task
 * running where it was taken (Documentation/user-stacks.rst): its raw
 * return addresses, found by following its frame pointers, after a
 * marker that names its address space (model_state.h).  Writing a frame
 * as a file and an offset needs the mapping the address is in, and that
 * cannot be looked up in a probe: the VMA tree is guarded by mmap_lock,
 * a sleeping lock, and a probe runs under the runqueue lock with
 * interrupts off (on PREEMPT_RT even a trylock of it is illegal there).
 * So the work is split:
 *
 *   the walk (gt_ustack_walk()), in the probe: the saved user registers
 *   of current, then one record {next frame pointer, return address} per
 *   frame, read with page faults disabled, so that the read neither
 *   faults nor sleeps (a page that is not present makes it fail: the
 *   walk stops);
 *
 *   the queue (gt_ustack_queue()), in the probe, only when the stack is
 *   new to its table: the address space and the raw PCs go to this
 *   CPU's bounded queue with the mm pinned (mmget_not_zero(), an atomic
 *   increment), and an irq_work kicks the work item (queue_work() may
 *   not be called under the runqueue lock);
 *
 *   the naming (ustack_drain()), in the work item, in process context
 *   (never in the reader, so that every path is the worker's d_path()):
 *   per entry, mmap_read_trylock() (never a wait on another process's
 *   lock: ustack_name()), the VMA of each PC, its file and the offset
 *   in it, then mmput().  A file is known by its inode (device,
 *   inode number) and numbered in the session's file table, with its
 *   absolute path (d_path()); each (space, raw PC) goes to the session's
 *   resolution map as (file, offset) or "no file".  A process that exits
 *   right after its stack was taken is named all the same: its mm stays
 *   whole while pinned.
 *
 *   the tables (tables.c) ask the map when a generation or the footer is
 *   written, after gt_ustack_sync(), which names whatever is queued.
 *
 * A full queue, map or file table, or an address space whose mmap_lock
 * is busy, is counted (gotrace_status), and the frames it leaves unnamed
 * are written "[unknown]+0x...": never silent.
 *
 * Context:
 *   gt_ustack_walk(), gt_ustack_queue(): a probe, or the sampling
 *   timer's hard interrupt (sampler.c), interrupts off; never an NMI
 *   (gt_ustack_queue()).
 *   gt_ustack_sync(), gt_ustack_resolve(), gt_ustack_file(): process
 *   context (the reader writing a generation, the stop).
 *   gt_ustack_init(), gt_ustack_free(): session start and end.
 * Locking:
 *   q->lock (raw spinlock) guards a CPU's queue: the probe appends with
 *   interrupts off, the worker removes with them off; nothing nests
 *   inside it.  us->lock (mutex) guards the file table and the map and
 *   serialises the naming: the work item and gt_ustack_sync() drain
 *   under it, the tables read under it.  mmap_lock nests inside it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/jhash.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <asm/syscall.h>

#include "gotrace.h"
#include "ustack_regs.h"

/*
 * Entries of a CPU's queue.  An entry is queued once per new stack of a
 * table, a few per generation and process in a steady state; a burst of
 * new stacks (a program starting) past what the worker drains between
 * two kicks is counted and written "[unknown]".
 */
#define GT_UQ_LEN		128

/*
 * The resolution map: (space, raw PC) slots, at most three quarters
 * used (then counted as full).  Distinct return addresses of the
 * processes that block are few: 2^16 slots (2 MiB) name tens of
 * thousands, for the whole session (the map is not emptied per
 * generation: an address named once is named for every later one).
 */
#define GT_UMAP_BITS		16
#define GT_UMAP_SLOTS		BIT(GT_UMAP_BITS)

/*
 * A process's mmap_lock is busy for microseconds at a time in the
 * ordinary course (its own mmap(), brk(), page faults, its exec and
 * exit): the naming tries it this many times, 50 to 100 us apart, some
 * 2 ms in all, before it leaves an entry unnamed (ustack_name()).
 */
#define GT_UMM_TRIES		20

/* Files of the session: the binaries and libraries its stacks run in. */
#define GT_UFILE_BITS		13
#define GT_UFILE_SLOTS		BIT(GT_UFILE_BITS)
#define GT_UFILES_MAX		(GT_UFILE_SLOTS / 2)

struct gt_uq_ent {
	struct mm_struct *mm;	/* pinned: mmget_not_zero() */
	u64 space;
	u32 n;
	u64 pcs[GT_USTACK_MAX];
};

/* One CPU's queue: the probe appends at @tail, the worker takes @head. */
struct gt_uq {
	raw_spinlock_t lock;
	u32 head;
	u32 tail;
	struct gt_uq_ent ent[GT_UQ_LEN];
};

/* A slot of the map: @key 0 is empty. */
struct gt_umap_ent {
	u64 key;		/* the space | 1 << 63, never 0 */
	u64 pc;
	u64 off;
	u32 file;		/* index + 1 in the file table, 0: no file */
};

/* A slot of the file table's hash, by inode; @path NULL: empty. */
struct gt_ufile {
	dev_t dev;
	unsigned long ino;
	const char *path;
	u32 idx;		/* its index + 1 */
};

struct gt_ustack {
	struct gt_model *m;
	struct gt_uq *q;		/* nr_cpu_ids queues */
	struct irq_work kick;
	struct work_struct work;
	struct mutex lock;		/* the map, the files, the naming */
	struct gt_umap_ent *map;
	u32 map_used;
	struct gt_ufile *fslots;	/* hash of the files, by inode */
	struct gt_ufile **files;	/* index -> its slot */
	u32 nr_files;
	char *pathbuf;			/* PATH_MAX, for d_path() */
};

/* ---- The walk, in the probe ------------------------------------------- */

/*
 * Tasks whose saved user registers are not theirs to walk: kernel
 * threads, and the io_uring and vhost workers, which carry a copy of
 * the registers of whoever made them.
 */
#ifdef PF_USER_WORKER
#define GT_USTACK_NOT_USER	(PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER)
#else
#define GT_USTACK_NOT_USER	(PF_KTHREAD | PF_IO_WORKER)
#endif

/* What names an address space (ustack_space()), and its hash. */
struct gt_uspace_id {
	u64 start;
	u64 exec_id;
	u32 tgid;
	u32 zero;
};

struct gt_uspace_memo {
	struct gt_uspace_id id;
	u64 space;
};

/*
 * Each CPU's last address space: its task walks again at once (a
 * syscall's entry, then its block or the wakeup it makes), so the two
 * hashes are mostly not made again.  Keyed by the whole identity, never
 * stale; a cache of a pure function, shared by the sessions.  Read and
 * written by the walk only, interrupts off.
 */
static DEFINE_PER_CPU(struct gt_uspace_memo, gt_uspace_memo);

/*
 * The identity of current's address space, 48 bits of a hash of it:
 * the process (tgid), its leader's start time (a tgid reused later is
 * another process) and the exec count (an exec keeps both but maps
 * another program).  Not the mm's address, which a later process may
 * get once this one is freed.
 */
static u64 uspace_hash(const struct gt_uspace_id *id)
{
	/* Never 0, which says the memo is empty. */
	return ((u64)jhash(id, sizeof(*id), 1) << 32 |
		jhash(id, sizeof(*id), 2)) & GT_USPACE_MASK ?: 1;
}

static void uspace_id(struct task_struct *p, struct gt_uspace_id *id)
{
	*id = (struct gt_uspace_id){
		.start = READ_ONCE(p->group_leader)->start_time,
		.exec_id = READ_ONCE(p->self_exec_id),
		.tgid = p->tgid,
	};
}

static u64 ustack_space(struct task_struct *p)
{
	struct gt_uspace_memo *memo = this_cpu_ptr(&gt_uspace_memo);
	struct gt_uspace_id id;

	uspace_id(p, &id);
	if (memo->space && memo->id.tgid == id.tgid &&
	    memo->id.start == id.start && memo->id.exec_id == id.exec_id)
		return memo->space;
	memo->id = id;
	memo->space = uspace_hash(&id);
	return memo->space;
}

/**
 * gt_uspace_before_exec() - the space a process had before its exec
 * @p:	the process, which has just executed a program (its exec count
 *	bumped)
 *
 * Context: any.
 */
u64 gt_uspace_before_exec(struct task_struct *p)
{
	struct gt_uspace_id id;

	uspace_id(p, &id);
	id.exec_id--;
	return uspace_hash(&id);
}

/**
 * gt_uspace_of() - the identity of a task's address space
 * @p:	the task, pinned by the caller (RCU, a reference)
 *
 * What a walk of @p's stack names its space (the marker of its user
 * frames, the unwind tables' key: unwind.c), from outside the probe.
 *
 * Context: any.
 */
u64 gt_uspace_of(struct task_struct *p)
{
	struct gt_uspace_id id;

	uspace_id(p, &id);
	return uspace_hash(&id);
}

/**
 * gt_ustack_walk() - the user frames of current
 * @uw:		the session's unwind tables (GOTRACE_OPT_UNWIND_TABLES): the
 *		walk is gt_unwind_walk()'s; NULL: by frame pointers
 * @pcs:	set to the raw addresses, innermost first: the user PC, then
 *		one return address per frame
 * @max:	at most this many
 * @space:	set to the identity of the address space
 * @stop:	set to why the walk stopped before the outermost frame
 *		(enum gt_ustack_stop), GT_USTOP_NONE if it did not
 * @exact:	set if the user PC is exact (below)
 * @sample:	for a CPU sample: current is the task the sampling
 *		interrupt caught, and its user stack is the sample's
 *
 * None for a kernel thread or a user worker, a task without an mm (one
 * exiting), a 32-bit task, or outside task context but for a sample (an
 * interrupt's wakeup is no work of the task it interrupted).  The user
 * registers are the ones saved at the task's last entry to the kernel:
 * the interrupt's own if it came from user mode.
 *
 * The user PC is exact, the instruction to run next, where the task
 * entered the kernel by an interrupt or a fault: a symboliser looks it
 * up as it is.  After a syscall it is the instruction after the
 * syscall's, a return address in all but name: a symboliser looks up
 * the byte before it, as for the others, so that a syscall at the end
 * of a function is not named after the next one.  A syscall entry
 * saves its number in the registers; an interrupt or a fault saves -1
 * there (syscall_get_nr()).
 *
 * Context: any, interrupts off (a probe, the sampling interrupt): page
 * faults are disabled, so a page that is not present fails the read
 * instead of sleeping.  The mm is current's even in the interrupt: the
 * scheduler switches mm and current with interrupts off.
 * Return: the frames, 0 for none.
 */
unsigned int gt_ustack_walk(struct gt_unwind *uw, u64 *pcs, unsigned int max,
			    u64 *space, unsigned int *stop, bool *exact,
			    bool sample)
{
	struct task_struct *p = current;
	struct {
		unsigned long next;
		unsigned long ret;
	} rec;
	unsigned long fp, lo;
	struct pt_regs *regs;
	unsigned int n = 0;

	*stop = GT_USTOP_NONE;
	if (!max || (!in_task() && !sample) || !p->mm ||
	    p->flags & GT_USTACK_NOT_USER)
		return 0;
	regs = task_pt_regs(p);
	if (!ustack_native(regs))
		return 0;
	*space = ustack_space(p);
	*exact = syscall_get_nr(p, regs) < 0;
	pcs[n++] = instruction_pointer(regs);
	if (uw) {
		pagefault_disable();
		n = gt_unwind_walk(uw, regs, *space, pcs, max, stop, *exact);
		pagefault_enable();
		return n;
	}
	/*
	 * Each frame's record, at its frame pointer, holds the caller's
	 * frame pointer and the return address into the caller.  Records
	 * lie above the stack pointer, each above the previous one, within
	 * a stack's size of it: anything else is a register used for
	 * something else (code built without frame pointers).  A frame
	 * pointer of 0, or a return address of 0, is the outermost frame
	 * (the C runtime clears it at the start).
	 */
	fp = ustack_fp(regs);
	lo = user_stack_pointer(regs) - GT_USTACK_SLACK;
	/*
	 * Page faults are disabled for the whole walk, as perf's frame
	 * pointer call chains do: a record on a page that is not present
	 * fails its read instead of sleeping.  Each record is then one
	 * __copy_from_user_inatomic() after its own access_ok(), not a
	 * copy_from_user_nofault(), which disables faults again per record.
	 * Its nmi_uaccess_okay() is for NMIs, which may come while the
	 * loaded mm is not current's (in the middle of a switch).  A walk
	 * runs in a probe (task context) or in the sampling timer's hard
	 * interrupt (sampler.c), never in an NMI: the scheduler switches
	 * the mm and current with interrupts off, so a hard interrupt
	 * always finds current's mm loaded.  A walk from an NMI (a sampler
	 * on a hardware perf event) would need that check, and more:
	 * gt_ustack_queue() and the model would be unsafe there.
	 */
	pagefault_disable();
	while (fp) {
		const void __user *ufp = (const void __user *)fp;

		if (fp & (sizeof(long) - 1) || fp < lo ||
		    fp - lo > GT_USTACK_SPAN) {
			*stop = GT_USTOP_BAD_FP;
			break;
		}
		if (!access_ok(ufp, sizeof(rec)) ||
		    __copy_from_user_inatomic(&rec, ufp, sizeof(rec))) {
			*stop = GT_USTOP_FAULT;
			break;
		}
		rec.ret = ustack_ret(rec.ret);
		if (!rec.ret)
			break;
		if (rec.ret >= TASK_SIZE_MAX) {
			*stop = GT_USTOP_BAD_FP;
			break;
		}
		if (n == max) {
			*stop = GT_USTOP_DEPTH;
			break;
		}
		pcs[n++] = rec.ret;
		lo = fp + sizeof(rec);
		fp = rec.next;
	}
	pagefault_enable();
	return n;
}

/**
 * gt_ustack_queue() - name these user PCs of current before the tables
 * @m:		the model
 * @space:	their address space, current's (gt_ustack_walk())
 * @pcs:	raw user PCs
 * @n:		how many, at most GT_USTACK_MAX
 *
 * Context: a probe or the sampling timer's hard interrupt, interrupts
 * off, right after the walk of @pcs.  Never from an NMI: an NMI can come
 * while a hook of this CPU holds q->lock, a raw spinlock, which it would
 * then wait for forever; irq_work_queue() is NMI-safe, the lock is not.
 */
void gt_ustack_queue(struct gt_model *m, u64 space, const u64 *pcs,
		     unsigned int n)
{
	struct gt_ustack *us = m->env.us;
	struct mm_struct *mm = current->mm;
	struct gt_uq_ent *e;
	struct gt_uq *q;

	if (!us || !mm || !n)
		return;
	q = &us->q[raw_smp_processor_id()];
	raw_spin_lock(&q->lock);
	if (q->tail - q->head >= GT_UQ_LEN) {
		raw_spin_unlock(&q->lock);
		atomic64_inc(&m->ustack_queue_full);
		return;
	}
	/* An mm whose last user left is being torn down: nothing to name. */
	if (!mmget_not_zero(mm)) {
		raw_spin_unlock(&q->lock);
		return;
	}
	e = &q->ent[q->tail % GT_UQ_LEN];
	e->mm = mm;
	e->space = space;
	e->n = min_t(unsigned int, n, GT_USTACK_MAX);
	memcpy(e->pcs, pcs, e->n * sizeof(u64));
	q->tail++;
	raw_spin_unlock(&q->lock);
	/* The work item is queued from the irq_work, off the rq lock. */
	irq_work_queue(&us->kick);
}

/* ---- The naming, in process context ------------------------------------ */

static u32 umap_slot(u64 space, u64 pc)
{
	return hash_64(pc ^ (space * 0x9e3779b97f4a7c15ULL), GT_UMAP_BITS);
}

/* The map's slot of (@space, @pc): its own, or the empty one for it. */
static struct gt_umap_ent *umap_find(struct gt_ustack *us, u64 space, u64 pc)
{
	u64 key = space | 1ULL << 63;
	u32 i = umap_slot(space, pc);
	struct gt_umap_ent *e;

	lockdep_assert_held(&us->lock);
	for (;;) {
		e = &us->map[i];
		if (!e->key || (e->key == key && e->pc == pc))
			return e;
		i = (i + 1) & (GT_UMAP_SLOTS - 1);
	}
}

/*
 * The index + 1 of the file mapped by @vma in the session's table,
 * added with its path if new; 0 if the table is full or the path cannot
 * be had.  us->lock and the mm's mmap_lock held.
 *
 * d_path() writes the path as seen from the calling task's root.  The
 * caller is always the work item (gt_ustack_sync() waits for it rather
 * than naming in the reader), whose root is init's: a path is absolute
 * in the initial mount namespace, whatever root or namespace the traced
 * process or the reader has.  A reader in a chroot or a container may
 * not be able to open it: gotrace symbolize then names the frames where
 * the path is the one it has.
 */
static u32 ufile_index(struct gt_ustack *us, struct vm_area_struct *vma)
{
	struct file *file = vma->vm_file;
	struct inode *inode = file_inode(file);
	dev_t dev = inode->i_sb->s_dev;
	unsigned long ino = inode->i_ino;
	struct gt_ufile *f;
	char *path;
	u32 i;

	i = hash_64((u64)dev << 32 ^ ino, GT_UFILE_BITS);
	for (;;) {
		f = &us->fslots[i];
		if (!f->path)
			break;
		if (f->dev == dev && f->ino == ino)
			return f->idx;
		i = (i + 1) & (GT_UFILE_SLOTS - 1);
	}
	if (us->nr_files >= GT_UFILES_MAX)
		return 0;
	path = d_path(&file->f_path, us->pathbuf, PATH_MAX);
	if (IS_ERR(path))
		return 0;
	path = kstrdup(path, GFP_KERNEL);
	if (!path)
		return 0;
	f->dev = dev;
	f->ino = ino;
	f->path = path;
	us->files[us->nr_files++] = f;
	f->idx = us->nr_files;
	return f->idx;
}

/*
 * Name the user PCs of @e, whose mm is pinned, into the map.  us->lock
 * held; tries the mm's mmap_lock (reading).
 *
 * Only tries: the mm is another process's, and its lock can be held for
 * as long as that process likes.  A fault on a FUSE or NFS file, or one
 * made through /proc/PID/mem or ptrace, holds it for reading until the
 * file system answers; a writer then queued (an mmap(), a munmap())
 * makes every later reader wait too.  Waiting here would hold us->lock,
 * and the reader writing a generation (gt_ustack_sync()) would wait for
 * it: no generation, every CPU losing events once its buffers fill, and
 * the stop hanging in cancel_work_sync().  So a lock still busy after
 * GT_UMM_TRIES tries (a process's own brief holds pass by then) leaves
 * the PCs of @e out of the map, counted (ustack_mm_busy): their frames
 * are written unnamed, "[unknown]+0x...", and a later stack with the
 * same PCs (the next generation's, whose tables queue it again) tries
 * again.  *@busy is the mm found busy last in this drain: its other
 * entries are not waited for again.
 */
static void ustack_name(struct gt_ustack *us, struct gt_uq_ent *e,
			struct mm_struct **busy)
{
	struct vm_area_struct *vma;
	struct gt_umap_ent *slot;
	unsigned int tries = 0;
	u64 pc;
	u32 i;

	while (!mmap_read_trylock(e->mm)) {
		if (e->mm == *busy || ++tries == GT_UMM_TRIES) {
			*busy = e->mm;
			atomic64_inc(&us->m->ustack_mm_busy);
			return;
		}
		usleep_range(50, 100);
	}
	for (i = 0; i < e->n; i++) {
		pc = e->pcs[i];
		slot = umap_find(us, e->space, pc);
		if (slot->key)
			continue;	/* named already */
		if (us->map_used >= GT_UMAP_SLOTS / 4 * 3) {
			atomic64_inc(&us->m->ustack_map_full);
			continue;
		}
		slot->pc = pc;
		slot->file = 0;
		slot->off = 0;
		vma = vma_lookup(e->mm, pc);
		if (vma && vma->vm_file) {
			slot->file = ufile_index(us, vma);
			if (!slot->file)
				atomic64_inc(&us->m->ustack_map_full);
			slot->off = pc - vma->vm_start +
				    ((u64)vma->vm_pgoff << PAGE_SHIFT);
		}
		slot->key = e->space | 1ULL << 63;
		us->map_used++;
	}
	mmap_read_unlock(e->mm);
}

/*
 * Name every entry queued on every CPU (unless !@name: the session is
 * over), and put their mms; us->lock held.  An entry is named in place:
 * the probe writes only at the tail, and the head moves on once the
 * entry is done.  (An mm is pinned until its entry is done: the one in
 * @busy is no other's while an entry holds it; a stale one matches
 * nothing but a new mm at the same address, which then has one try.)
 */
static void ustack_drain(struct gt_ustack *us, bool name)
{
	struct mm_struct *busy = NULL;
	struct gt_uq_ent *e;
	struct gt_uq *q;
	unsigned int cpu;
	bool empty;

	lockdep_assert_held(&us->lock);
	for_each_possible_cpu(cpu) {
		q = &us->q[cpu];
		for (;;) {
			raw_spin_lock_irq(&q->lock);
			empty = q->head == q->tail;
			e = &q->ent[q->head % GT_UQ_LEN];
			raw_spin_unlock_irq(&q->lock);
			if (empty)
				break;
			if (name)
				ustack_name(us, e, &busy);
			mmput(e->mm);
			e->mm = NULL;
			raw_spin_lock_irq(&q->lock);
			q->head++;
			raw_spin_unlock_irq(&q->lock);
			cond_resched();
		}
	}
}

static void ustack_work(struct work_struct *w)
{
	struct gt_ustack *us = container_of(w, struct gt_ustack, work);

	mutex_lock(&us->lock);
	ustack_drain(us, true);
	mutex_unlock(&us->lock);
}

static void ustack_kick(struct irq_work *w)
{
	struct gt_ustack *us = container_of(w, struct gt_ustack, kick);

	schedule_work(&us->work);
}

/**
 * gt_ustack_sync() - name every user PC queued so far
 * @m:	the model
 *
 * The naming is the work item's, here too: queued again (or still
 * queued), and waited for, it drains whatever is queued now.  So every
 * path comes from the same task's d_path(), the worker's, relative to
 * its root: the initial one, init's (see ufile_index()).
 *
 * Context: process context, may sleep; not us->lock.
 */
void gt_ustack_sync(struct gt_model *m)
{
	struct gt_ustack *us = m->env.us;

	if (!us)
		return;
	schedule_work(&us->work);
	flush_work(&us->work);
}

/**
 * gt_ustack_resolve() - the file and offset of a user PC
 * @m:		the model
 * @space:	its address space
 * @pc:		the raw address
 * @file:	set to the file's index (gt_ustack_file())
 * @off:	set to the offset in the file
 *
 * Context: process context, may sleep.
 * Return: true if named; false if in no file, or left unnamed.
 */
bool gt_ustack_resolve(struct gt_model *m, u64 space, u64 pc, u32 *file,
		       u64 *off)
{
	struct gt_ustack *us = m->env.us;
	struct gt_umap_ent *e;
	bool named = false;

	if (!us)
		return false;
	mutex_lock(&us->lock);
	e = umap_find(us, space, pc);
	if (e->key && e->file) {
		*file = e->file - 1;
		*off = e->off;
		named = true;
	}
	mutex_unlock(&us->lock);
	return named;
}

/**
 * gt_ustack_file() - the absolute path of file index @file
 * @m:		the model
 * @file:	an index gt_ustack_resolve() gave
 *
 * Context: process context.  The path lives as long as the session.
 * Return: the path, or NULL.
 */
const char *gt_ustack_file(struct gt_model *m, u32 file)
{
	struct gt_ustack *us = m->env.us;
	const char *path = NULL;

	if (!us)
		return NULL;
	mutex_lock(&us->lock);
	if (file < us->nr_files)
		path = us->files[file]->path;
	mutex_unlock(&us->lock);
	return path;
}

/* Free @us and its tables, any of which may not be there yet. */
static void ustack_release(struct gt_ustack *us)
{
	vfree(us->q);
	vfree(us->map);
	vfree(us->fslots);
	vfree(us->files);
	kfree(us->pathbuf);
	kfree(us);
}

/**
 * gt_ustack_init() - what a session recording user stacks needs
 * @m:	the model, its options set
 *
 * Nothing unless the options ask for user stacks.
 *
 * Context: session start, process context.
 * Return: 0 or -ENOMEM (nothing is left allocated).
 */
int gt_ustack_init(struct gt_model *m)
{
	struct gt_ustack *us;
	unsigned int cpu;

	if (!(m->opts.flags & GOTRACE_OPT_USER_STACKS))
		return 0;
	us = kzalloc(sizeof(*us), GFP_KERNEL);
	if (!us)
		return -ENOMEM;
	us->m = m;
	mutex_init(&us->lock);
	init_irq_work(&us->kick, ustack_kick);
	INIT_WORK(&us->work, ustack_work);
	us->q = vzalloc(array_size(nr_cpu_ids, sizeof(*us->q)));
	us->map = vzalloc(array_size(GT_UMAP_SLOTS, sizeof(*us->map)));
	us->fslots = vzalloc(array_size(GT_UFILE_SLOTS, sizeof(*us->fslots)));
	us->files = vzalloc(array_size(GT_UFILES_MAX, sizeof(*us->files)));
	us->pathbuf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!us->q || !us->map || !us->fslots || !us->files || !us->pathbuf)
		goto err;
	for_each_possible_cpu(cpu)
		raw_spin_lock_init(&us->q[cpu].lock);
	m->env.us = us;
	return 0;
err:
	ustack_release(us);
	return -ENOMEM;
}

/**
 * gt_ustack_free() - stop the naming, put every pinned mm, free
 * @m:	the model; no probe runs any more
 *
 * Context: session end, process context, may sleep.
 */
void gt_ustack_free(struct gt_model *m)
{
	struct gt_ustack *us = m->env.us;
	u32 i;

	if (!us)
		return;
	/* No probe queues now: after the kick and the work, nothing does. */
	irq_work_sync(&us->kick);
	cancel_work_sync(&us->work);
	/* What they left queued: named for nobody, but its mm put. */
	mutex_lock(&us->lock);
	ustack_drain(us, false);
	mutex_unlock(&us->lock);
	m->env.us = NULL;
	for (i = 0; i < us->nr_files; i++)
		kfree(us->files[i]->path);
	ustack_release(us);
}
