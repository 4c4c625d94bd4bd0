// SPDX-License-Identifier: GPL-2.0
/*
 * probes.c - the tracepoints gotrace attaches to
 *
 * The scheduler's and the raw syscall tracepoints are not exported to
 * modules: they are found by name with for_each_kernel_tracepoint() when
 * the module loads (it refuses to load if one is missing), attached with
 * tracepoint_probe_register() when a session starts, with the session as
 * the probe's data, and detached when it stops, followed by
 * tracepoint_synchronize_unregister() so that no probe still runs when
 * the session's memory is closed or freed.
 *
 * Every probe's prototype is checked at compile time against the
 * kernel's own declaration of the tracepoint (probes_check_types()).
 *
 * Context: each probe states its own; registration runs in process
 * context under the session lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>

#include "compat.h"
#include "gotrace.h"

/*
 * The probes translate the tracepoints' arguments into the model's input
 * events (model_input.h), on their stack: this file and env_kernel.h are
 * where the model's view of a task_struct is read.  Time and CPU are left
 * to the environment, which reads them once interrupts are off.  A
 * session not armed yet (or any more) costs one load.
 */
static __always_inline void probe_task(struct gt_in_task *t,
				       struct task_struct *p)
{
	t->key = (unsigned long)p;
	t->start_time = p->start_time;
	t->tid = p->pid;
	t->tgid = p->tgid;
	t->flags = (p->flags & PF_KTHREAD ? GT_IN_KTHREAD : 0) |
		   (p->pid ? 0 : GT_IN_IDLE);
	t->comm = p->comm;
	t->ctx = p;
}

static __always_inline bool probe_armed(struct gt_session *s)
{
	return READ_ONCE(s->model.armed);
}

/*
 * sched_switch: @prev leaves the CPU, @next runs.  In __schedule(), with
 * the runqueue lock held and interrupts off (6.1+ prototype).
 */
static void gt_probe_sched_switch(void *data, bool preempt,
				  struct task_struct *prev,
				  struct task_struct *next,
				  unsigned int prev_state)
{
	struct gt_session *s = data;
	struct gt_in_task in_prev, in_next;
	struct gt_in_switch in = {
		.ev.cur = &in_prev, .prev = &in_prev, .next = &in_next,
		.preempt = preempt,
		.prev_state = prev_state & TASK_DEAD ? GT_IN_DEAD :
			      prev_state == TASK_RUNNING ? GT_IN_RUNNABLE :
			      GT_IN_SLEEP,
	};

	if (!probe_armed(s))
		return;
	probe_task(&in_prev, prev);
	probe_task(&in_next, next);
	gt_model_switch(&s->model, &in);
}

/**
 * gt_probe_cpu_sample() - a CPU sample (sampler.c): the task the sampling
 * interrupt stopped on this CPU
 * @s:		the session
 * @missed:	samples the CPU's timer could not take since its last one
 *
 * Context: hard IRQ (the CPU's sampling timer).
 */
void gt_probe_cpu_sample(struct gt_session *s, u32 missed)
{
	struct gt_in_task cur;
	struct gt_in_sample in = { .ev.cur = &cur, .missed = missed };

	if (!probe_armed(s))
		return;
	probe_task(&cur, current);
	gt_model_cpu_sample(&s->model, &in);
}

/*
 * A wakeup's event: @p, and the task running here (the waker, for
 * sched_waking).  Inlined into each probe, so that the hook is a direct
 * call.
 */
static __always_inline void probe_wake(struct gt_session *s,
				       struct task_struct *p, bool waking)
{
	struct gt_in_task cur, task;
	struct gt_in_wake in = { .ev.cur = &cur, .task = &task };

	if (!probe_armed(s))
		return;
	probe_task(&cur, current);
	probe_task(&task, p);
	if (waking)
		gt_model_waking(&s->model, &in);
	else
		gt_model_wakeup(&s->model, &in);
}

/*
 * sched_waking: the waker (current) starts waking @p.  In
 * try_to_wake_up(), always on the waker's CPU: the one place that knows
 * who woke whom, since the wakeup itself may be completed later on @p's
 * CPU.  Usually @p's pi_lock is held and interrupts are off, but where
 * current wakes itself (@p == current) only preemption is off: no lock,
 * interrupts on.  The model disables interrupts itself (task_woken());
 * unlike sched_switch's, this probe may not count on them being off.
 */
static void gt_probe_sched_waking(void *data, struct task_struct *p)
{
	probe_wake(data, p, true);
}

/*
 * sched_wakeup: @p is runnable again.  In try_to_wake_up() or, for a
 * queued wakeup, in an interrupt on @p's CPU, runqueue lock held and
 * interrupts off; but where current wakes itself (@p == current),
 * try_to_wake_up() holds no lock and only preemption is off, as for
 * sched_waking.  @p has left its CPU, except in the ttwu_runnable() path
 * and that one: woken after it set its sleep state but before it switched
 * out, it is still running there, and no block or wakeup happens at all.
 */
static void gt_probe_sched_wakeup(void *data, struct task_struct *p)
{
	probe_wake(data, p, false);
}

/*
 * sched_wakeup_new: @p, just forked, is runnable for the first time.  In
 * wake_up_new_task(), runqueue lock held, interrupts off.  The fork probe
 * made it runnable already; a task created before the snapshot's walk saw
 * it is created here.
 */
static void gt_probe_sched_wakeup_new(void *data, struct task_struct *p)
{
	gt_probe_sched_wakeup(data, p);
}

/* sched_process_fork: @child exists, not yet running.  Process context. */
static void gt_probe_sched_process_fork(void *data, struct task_struct *parent,
					struct task_struct *child)
{
	struct gt_session *s = data;
	struct gt_in_task cur, task;
	struct gt_in_fork in = { .ev.cur = &cur, .child = &task };

	if (!probe_armed(s))
		return;
	probe_task(&cur, parent);
	probe_task(&task, child);
	gt_model_fork(&s->model, &in);
	gt_unwind_fork(s->model.env.uw, parent, child);
}

/* sched_process_exec: @p (current) runs a new program.  Process context. */
static void gt_probe_sched_process_exec(void *data, struct task_struct *p,
					pid_t old_pid,
					struct linux_binprm *bprm)
{
	struct gt_session *s = data;
	struct gt_in_task cur;
	struct gt_in_exec in = { .ev.cur = &cur, .old_tid = old_pid };

	if (!probe_armed(s))
		return;
	probe_task(&cur, p);
	gt_model_exec(&s->model, &in);
	gt_unwind_exec(s->model.env.uw, p);
}

/*
 * sys_enter / sys_exit: current enters or leaves syscall @id.  Process
 * context; preemptible from Linux 6.13 (the model disables interrupts
 * itself).
 */
static void gt_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct gt_session *s = data;
	struct gt_in_task cur;
	struct gt_in_sys_enter in = {
		.ev.cur = &cur, .nr = id, .compat = in_compat_syscall(),
	};

	if (!probe_armed(s))
		return;
	probe_task(&cur, current);
	gt_model_sys_enter(&s->model, &in);
}

static void gt_probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct gt_session *s = data;
	struct gt_in_task cur;
	struct gt_in_sys_exit in = { .ev.cur = &cur };

	if (!probe_armed(s))
		return;
	probe_task(&cur, current);
	gt_model_sys_exit(&s->model, &in);
}

/*
 * The reader's IPI at the end of a generation: this CPU moves to the next
 * one now, as its next event would move it (gt_model_catch_up()).
 */
void gt_probes_catch_up(struct gt_session *s)
{
	struct gt_in_task cur;
	struct gt_in_ev ev = { .cur = &cur };

	probe_task(&cur, current);
	gt_model_catch_up(&s->model, &ev);
}

struct gt_probe {
	const char *name;
	void *func;
	struct tracepoint *tp;
	bool on;
};

static struct gt_probe gt_probes[] = {
	{ "sched_switch",	gt_probe_sched_switch },
	{ "sched_waking",	gt_probe_sched_waking },
	{ "sched_wakeup",	gt_probe_sched_wakeup },
	{ "sched_wakeup_new",	gt_probe_sched_wakeup_new },
	{ "sched_process_fork",	gt_probe_sched_process_fork },
	{ "sched_process_exec",	gt_probe_sched_process_exec },
	{ "sys_enter",		gt_probe_sys_enter },
	{ "sys_exit",		gt_probe_sys_exit },
};

#define PROBE_CHECK_TYPE(name) GT_PROBE_FITS(name, gt_probe_##name)

/*
 * Never called: makes the compiler check each probe against the
 * register_trace_<name>() the kernel declares for its tracepoint
 * (compat.h).  Nothing refers to the unexported tracepoints.
 */
static void __maybe_unused probes_check_types(void)
{
	PROBE_CHECK_TYPE(sched_switch);
	PROBE_CHECK_TYPE(sched_waking);
	PROBE_CHECK_TYPE(sched_wakeup);
	PROBE_CHECK_TYPE(sched_wakeup_new);
	PROBE_CHECK_TYPE(sched_process_fork);
	PROBE_CHECK_TYPE(sched_process_exec);
	PROBE_CHECK_TYPE(sys_enter);
	PROBE_CHECK_TYPE(sys_exit);
}

#undef PROBE_CHECK_TYPE

/**
 * gt_probes_is_iterator() - is @addr in a tracepoint's iterator?
 * @addr:	a return address of a captured stack
 *
 * With several probes on a tracepoint, it calls them from its iterator,
 * __traceiter_<name>(), whose frame then sits between the probe and the
 * code that hit the tracepoint.  The iterators are a few dozen bytes long.
 *
 * Context: any.
 */
bool gt_probes_is_iterator(unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gt_probes); i++)
		if (addr - (unsigned long)gt_probes[i].tp->iterator < 256)
			return true;
	return false;
}

static void probes_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gt_probes); i++)
		if (!strcmp(tp->name, gt_probes[i].name))
			gt_probes[i].tp = tp;
}

/**
 * gt_probes_check() - find every tracepoint gotrace needs
 *
 * Context: module init.
 * Return: 0, or -ENOENT (logged per missing tracepoint).
 */
int gt_probes_check(void)
{
	unsigned int i;
	int ret = 0;

	for_each_kernel_tracepoint(probes_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(gt_probes); i++) {
		if (!gt_probes[i].tp) {
			pr_err("tracepoint %s not found\n", gt_probes[i].name);
			ret = -ENOENT;
		}
	}
	return ret;
}

/**
 * gt_probes_unregister() - detach every attached probe and wait until
 * none runs any more
 * @s:	the session the probes were attached for
 *
 * Context: process context, may sleep.
 */
void gt_probes_unregister(struct gt_session *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gt_probes); i++) {
		if (!gt_probes[i].on)
			continue;
		tracepoint_probe_unregister(gt_probes[i].tp, gt_probes[i].func,
					    s);
		gt_probes[i].on = false;
	}
	tracepoint_synchronize_unregister();
}

/**
 * gt_probes_register() - attach every probe, with @s as data
 * @s:	the session; its probes are not armed yet, so they return at once
 *	until the snapshot is written
 *
 * Context: process context, may sleep; one session at a time.
 * Return: 0, or the error of the first registration that failed (the
 * ones before it are detached again).
 */
int gt_probes_register(struct gt_session *s)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(gt_probes); i++) {
		ret = tracepoint_probe_register(gt_probes[i].tp,
						gt_probes[i].func, s);
		if (ret) {
			pr_err("cannot attach to %s: %d\n", gt_probes[i].name,
			       ret);
			gt_probes_unregister(s);
			return ret;
		}
		gt_probes[i].on = true;
	}
	return 0;
}

/**
 * gt_probes_snapshot() - tell the model every existing task, then arm it
 * @s:	session, probes registered but not armed
 *
 * Every task that has not exited: zombies are left out.
 *
 * The walk stays on one CPU (migration disabled), where the model writes
 * the snapshot; the model disables interrupts only while it writes one
 * task.  The hooks are armed after the walk.
 *
 * Context: process context.
 * Return: 0, or -ENOSPC if the pools are too small for the tasks.
 */
int gt_probes_snapshot(struct gt_session *s)
{
	struct gt_in_snap_task snap;
	struct task_struct *g, *p;
	struct gt_in_task task;
	struct gt_in_ev ev = { .cur = &task };
	int ret;

	migrate_disable();
	probe_task(&task, current);
	ret = gt_model_snapshot_begin(&s->model, &ev);
	snap.task = &task;
	rcu_read_lock();
	for_each_process_thread(g, p) {
		if (ret)
			break;
		/*
		 * A task that has exited (a zombie its parent has not reaped,
		 * or one past exit_notify() on its way to its last switch)
		 * never runs again: as a goroutine it would wait forever,
		 * stated in every generation, its entries held.  One still on
		 * its CPU ends in its last switch, as a task never seen.
		 */
		if (READ_ONCE(p->exit_state))
			continue;
		probe_task(&task, p);
		snap.sleeping = !task_is_running(p);
		ret = gt_model_snapshot_task(&s->model, &snap);
	}
	rcu_read_unlock();
	/*
	 * Armed only once the walk may migrate again, as before the model
	 * was split out: armed earlier, on 6.12 and 7.x the smallest pool
	 * (flush_reserve_test.sh) ran out at its first flush, every time.
	 */
	migrate_enable();
	if (!ret)
		ret = gt_model_snapshot_end(&s->model);
	return ret;
}
