/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel.h - the model's environment in the module (model_env.h)
 *
 * Everything is a macro or a static inline over the kernel's own
 * primitive, so a hook costs what it cost before the model was made
 * portable: no function pointer, no extra call.  Hooks run with
 * interrupts off (gt_env_irq_save(), or the scheduler's own for
 * sched_switch) on the CPU of their event; locks are raw spinlocks,
 * which PREEMPT_RT keeps spinning, since the scheduler's tracepoints
 * fire under the runqueue lock.
 *
 * This file, probes.c, session.c, dev.c and main.c are the only ones
 * that read Linux's structures; the lazy queries of model_input.h are
 * answered here from gt_in_task.ctx, the task_struct.
 */
#ifndef _GT_ENV_KERNEL_H
#define _GT_ENV_KERNEL_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/cgroup.h>
#include <linux/compiler.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/jhash.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <asm/irq_regs.h>
#include <asm/syscall.h>

/* ---- Locks, atomics, ordering ----------------------------------------- */

#define gt_lock_t			raw_spinlock_t
#define gt_lock_init(l)			raw_spin_lock_init(l)
#define gt_lock(l)			raw_spin_lock(l)
#define gt_unlock(l)			raw_spin_unlock(l)
#define gt_lock_irqsave(l, f)		raw_spin_lock_irqsave(l, f)
#define gt_unlock_irqrestore(l, f)	raw_spin_unlock_irqrestore(l, f)
#define gt_lockdep_assert_held(l)	lockdep_assert_held(l)
#define gt_lockdep_assert_irqs_disabled() lockdep_assert_irqs_disabled()

#define gt_atomic64_t			atomic64_t
#define gt_atomic64_set(a, v)		atomic64_set(a, v)
#define gt_atomic64_read(a)		atomic64_read(a)
#define gt_atomic64_inc(a)		atomic64_inc(a)
#define gt_atomic64_add(v, a)		atomic64_add(v, a)
#define gt_atomic64_inc_return(a)	atomic64_inc_return(a)
#define gt_test_and_set_bit(nr, p)	test_and_set_bit(nr, p)
#define gt_test_bit(nr, p)		test_bit(nr, p)
#define gt_set_bit(nr, p)		set_bit(nr, p)

/*
 * Publication of the snapshot (gt_model.armed): the hooks' acquire pairs
 * with the release of gt_model_snapshot_end() and gt_model_disarm().
 */
#define gt_load_acquire(p)		smp_load_acquire(p)
/* The release side of gt_load_acquire(): see there. */
#define gt_store_release(p, v)		smp_store_release(p, v)

/* ---- Per-CPU state ---------------------------------------------------- */

#define GT_PERCPU			__percpu
#define gt_env_cpu_ptr(cpus, cpu)	per_cpu_ptr(cpus, cpu)
#define gt_env_cpu_online(m, cpu)	((void)(m), cpu_online(cpu))
#define gt_env_for_each_cpu(cpu, m)	for_each_possible_cpu(cpu)
/* The hook's CPU is this one: the probe runs on the CPU of its event. */
#define gt_env_hook_cpu(m, ev)		this_cpu_ptr((m)->cpus)
#define gt_env_irq_save(flags)		local_irq_save(flags)
#define gt_env_irq_restore(flags)	local_irq_restore(flags)

struct gt_ustack;

/*
 * What the module's model keeps of its own: the naming of user frames
 * (ustack.c), NULL unless the session records user stacks.
 */
struct gt_env_model {
	struct gt_ustack *us;
	struct gt_unwind *uw;	/* GOTRACE_OPT_UNWIND_TABLES: unwind.c */
};

/* ---- Time ------------------------------------------------------------- */

/*
 * NMI-safe, and cheap enough to read at every hook.  The probes leave an
 * event's time 0: the model reads this at the hook's first event.
 */
#define gt_env_clock()			ktime_get_mono_fast_ns()

/* ---- Memory (session start and end only) ------------------------------ */

#define gt_env_zalloc(n, size)		kvcalloc(n, size, GFP_KERNEL)
#define gt_env_alloc(size)		kvmalloc(size, GFP_KERNEL)
#define gt_env_free(p)			kvfree(p)
#define gt_env_big_alloc(size)		vmalloc(size)
#define gt_env_big_free(p)		vfree(p)

/* ---- Hashing ---------------------------------------------------------- */

#define gt_env_hash64(v, bits)		hash_64(v, bits)
#define gt_env_hash32(v, bits)		hash_32(v, bits)
#define gt_env_jhash(p, len, seed)	jhash(p, len, seed)

/* ---- Lazy queries ----------------------------------------------------- */

bool gt_probes_is_iterator(unsigned long addr);

/*
 * The kernel stack of the code that hit the tracepoint, into @pcs (at
 * most @max PCs, innermost first): this module's frames and the
 * tracepoint's iterator are dropped, so that every stack starts where
 * the kernel was (__schedule, try_to_wake_up, ...), however the compiler
 * inlined our functions.
 */
static inline unsigned int gt_env_kstack(const void *c, u64 *pcs,
					 unsigned int max)
{
	unsigned long *p = (unsigned long *)pcs;
	unsigned int n, i = 0;

	BUILD_BUG_ON(sizeof(unsigned long) != sizeof(u64));
	n = stack_trace_save(p, max, 0);
	while (i < n && within_module(p[i], THIS_MODULE))
		i++;
	if (i < n && gt_probes_is_iterator(p[i]))
		i++;
	memmove(p, p + i, (n - i) * sizeof(*p));
	return n - i;
}

/*
 * The kernel stack of the code a CPU sample interrupted, into @pcs (at
 * most @max PCs, innermost first), from the sampling interrupt: none if
 * it interrupted user mode.  The unwinder walks through the interrupt's
 * own frames (the timer's, the entry code's) and its regs frame, where
 * it reports the interrupted instruction: the stack starts there.  An
 * unwinder that does not report it leaves that instruction alone.
 * @room: the size of @pcs, which the interrupt's frames use too.
 */
static inline unsigned int gt_env_sample_kstack(const void *c, u64 *pcs,
						unsigned int room,
						unsigned int max)
{
	struct pt_regs *regs = get_irq_regs();
	unsigned long *p = (unsigned long *)pcs;
	unsigned long ip;
	unsigned int n, i;

	if (!regs || user_mode(regs) || !max)
		return 0;
	ip = instruction_pointer(regs);
	n = stack_trace_save(p, room, 0);
	for (i = 0; i < n && p[i] != ip; i++)
		;
	if (i == n) {
		p[0] = ip;
		return 1;
	}
	n = min(n - i, max);
	memmove(p, p + i, n * sizeof(*p));
	return n;
}

/* Is the task in cgroup v2 @id or below it?  Context: any, irqs off. */
static inline bool gt_env_in_cgroup(const struct gt_in_task *p, u64 id)
{
	struct task_struct *task = (struct task_struct *)p->ctx;
	struct cgroup *cgrp;
	bool in = false;

	rcu_read_lock();
	for (cgrp = task_dfl_cgroup(task); cgrp; cgrp = cgroup_parent(cgrp)) {
		if (cgroup_id(cgrp) == id) {
			in = true;
			break;
		}
	}
	rcu_read_unlock();
	return in;
}

/*
 * The id of the task's cgroup of the default hierarchy: cheap, so the
 * model compares it at every GoStart to notice a move between units.
 * Context: any, irqs off.
 */
static inline u64 gt_env_task_cgroup(const struct gt_in_task *p)
{
	struct task_struct *task = (struct task_struct *)p->ctx;
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(task));
	rcu_read_unlock();
	return id;
}

/* Does the cgroup name @s (@len bytes) end in @suffix? */
static inline bool gt_env_name_ends(const char *s, size_t len,
				    const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && !memcmp(s + len - n, suffix, n);
}

/*
 * The systemd unit of the task into @buf (@size bytes, NUL-terminated):
 * the name of the nearest cgroup of the default hierarchy, from the
 * task's own upwards, that ends in ".service" or ".scope" (the root is
 * none).  Returns its length, 0 if there is none, -ENAMETOOLONG if it
 * does not fit.
 *
 * The names are read from the kernfs nodes directly, not with
 * cgroup_name(): that takes kernfs_rename_lock, which sleeps on
 * PREEMPT_RT, and this runs under the runqueue lock.  Reading them
 * under RCU is safe: the default hierarchy has no rename (cgroup v2's
 * kernfs operations have none), a node outlives its cgroup's RCU grace
 * period, and from 6.15 the name is an RCU pointer that renames
 * elsewhere free after a grace period; the __force cast reads it as
 * either kind.  Context: any, irqs off.
 */
static inline int gt_env_task_unit(const struct gt_in_task *p, char *buf,
				   unsigned int size)
{
	struct task_struct *task = (struct task_struct *)p->ctx;
	struct cgroup *cgrp;
	const char *name;
	int ret = 0;
	size_t len;

	rcu_read_lock();
	for (cgrp = task_dfl_cgroup(task); cgrp && cgroup_parent(cgrp);
	     cgrp = cgroup_parent(cgrp)) {
		name = (const char __force *)READ_ONCE(cgrp->kn->name);
		if (!name)
			continue;
		len = strlen(name);
		if (!gt_env_name_ends(name, len, ".service") &&
		    !gt_env_name_ends(name, len, ".scope"))
			continue;
		if (len >= size) {
			ret = -ENAMETOOLONG;
			break;
		}
		memcpy(buf, name, len);
		buf[len] = '\0';
		ret = len;
		break;
	}
	rcu_read_unlock();
	return ret;
}

/*
 * What the read or write that @in->prev (current) sleeps in waits for:
 * the file behind its first argument, still in its saved user registers.
 * syscall_get_arguments() always writes all six arguments.
 */
static inline unsigned int gt_env_fd_kind(const struct gt_in_switch *in)
{
	struct task_struct *p = (struct task_struct *)in->prev->ctx;
	unsigned int kind = GT_IN_FD_UNKNOWN;
	unsigned long args[6];
	struct inode *inode;
	struct file *f;
	umode_t mode;

	syscall_get_arguments(p, task_pt_regs(p), args);
	if (!p->files || args[0] > INT_MAX)
		return kind;
	/*
	 * No reference is taken: another thread may close the fd meanwhile,
	 * and struct file is SLAB_TYPESAFE_BY_RCU (6.7+), so the memory may
	 * already hold a file being set up.  Its inode pointer is read once
	 * and may be NULL; inodes themselves are freed after a grace period.
	 * A wrong guess only misnames one block.
	 */
	rcu_read_lock();
	f = files_lookup_fd_raw(p->files, args[0]);
	inode = f ? READ_ONCE(f->f_inode) : NULL;
	if (inode) {
		mode = READ_ONCE(inode->i_mode);
		kind = S_ISFIFO(mode) ? GT_IN_FD_PIPE :
		       S_ISSOCK(mode) ? GT_IN_FD_SOCKET : GT_IN_FD_OTHER;
	}
	rcu_read_unlock();
	return kind;
}

/*
 * User stacks (GOTRACE_OPT_USER_STACKS), ustack.c.  The walk, in the
 * probe: current's frame pointers (or, with GOTRACE_OPT_UNWIND_TABLES,
 * the unwind tables the command loaded: unwind_walk.c), from its saved
 * user registers, read
 * with page faults disabled (no fault, no sleep: legal under the
 * runqueue lock with interrupts off, on PREEMPT_RT too).  A stack new to
 * its table is queued with its mm pinned; a work item names its frames
 * in process context (mmap_lock sleeps: not in a probe); the tables are
 * written once the work is done (gt_env_ustack_sync()).
 */
struct gt_model;
struct gt_unwind;
unsigned int gt_ustack_walk(struct gt_unwind *uw, u64 *pcs, unsigned int max,
			    u64 *space, unsigned int *stop, bool *exact,
			    bool sample);
void gt_ustack_queue(struct gt_model *m, u64 space, const u64 *pcs,
		     unsigned int n);
void gt_ustack_sync(struct gt_model *m);
bool gt_ustack_resolve(struct gt_model *m, u64 space, u64 pc, u32 *file,
		       u64 *off);
const char *gt_ustack_file(struct gt_model *m, u32 file);
#define gt_env_ustack(m, c, pcs, max, space, stop, exact) \
	gt_ustack_walk((m)->env.uw, pcs, max, space, stop, exact, \
		       (c)->sampling)
#define gt_env_ustack_queue(m, space, pcs, n)	gt_ustack_queue(m, space, pcs, n)
#define gt_env_ustack_sync(m)			gt_ustack_sync(m)
#define gt_env_ustack_resolve(m, space, pc, file, off) \
	gt_ustack_resolve(m, space, pc, file, off)
#define gt_env_ustack_file(m, file)		gt_ustack_file(m, file)

/* "func+0x1c/0x80 [mod]" of a kernel PC; process context. */
#define GT_ENV_SYM_LEN			KSYM_SYMBOL_LEN
#define gt_env_symbolise(m, pc, buf)	sprint_symbol(buf, (unsigned long)(pc))
#define gt_env_strtoul(s, base, res)	kstrtoul(s, base, res)

/* ---- The session ------------------------------------------------------ */

struct gt_model;
/* session.c: stop the session soon (deferred: hooks hold the rq lock). */
void gt_session_model_halted(struct gt_model *m);
/* session.c: a chunk is queued; wake the reader (deferred). */
void gt_session_model_chunk_queued(struct gt_model *m);
#define gt_env_halted(m)		gt_session_model_halted(m)
/* Each CPU's hook writes its own P only, under the runqueue lock. */
#define gt_env_may_write_other_p()	false
#define gt_env_chunk_queued(m)		gt_session_model_chunk_queued(m)
#define gt_env_w123_written(m)		((void)(m))
#define gt_env_w123_sweep_step(m)		((void)(m))
/*
 * session.c: trigger @type fired for @p, measuring @value at @now; false
 * if the hold-off kept it from firing.  Any context, O(1).
 */
bool gt_session_model_trigger(struct gt_model *m, u32 type,
			      const struct gt_in_task *p, u64 value, u64 now);
#define gt_env_trigger(m, type, p, value, now) \
	gt_session_model_trigger(m, type, p, value, now)

#endif /* _GT_ENV_KERNEL_H */
