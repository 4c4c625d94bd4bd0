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
 * The interrupts' and work items' tracepoints (GOTRACE_OPT_HARDIRQS,
 * _SOFTIRQS, _WORKQUEUE) are optional: each pair of them (entry and
 * exit) is attached only for a session whose options ask for its kind,
 * and only where the kernel has both; one that is missing (an
 * architecture's vector a configuration left out) is said once, when the
 * module loads, and its interrupts are not recorded.
 *
 * Context: each probe states its own; registration runs in process
 * context under the session lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/hardirq.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>
#include <trace/events/workqueue.h>
#ifdef CONFIG_X86
#include <asm/trace/irq_vectors.h>
#endif
#ifdef CONFIG_ARM64
#include <trace/events/ipi.h>
#endif

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
 * An interrupt's handler begins (@entry) or ends on this CPU, interrupting
 * current (the idle task: the CPU was idle).  Inlined into each probe, so
 * that the hook is a direct call.
 *
 * Not in an NMI: a hook owns its CPU's state from its start to its end
 * with interrupts off (model.c), which an NMI, such as arm64's pseudo-NMI
 * IPIs and handlers of NMI-delivered IRQs, would still interrupt.  Those
 * are left out.
 */
static __always_inline void probe_irq(struct gt_session *s, u8 kind, u32 id,
				      const char *name, bool entry)
{
	struct gt_in_task cur;
	struct gt_in_irq in = {
		.ev.cur = &cur, .kind = kind, .id = id, .name = name,
	};

	if (!probe_armed(s) || in_nmi())
		return;
	probe_task(&cur, current);
	if (entry)
		gt_model_irq_entry(&s->model, &in);
	else
		gt_model_irq_exit(&s->model, &in);
}

/*
 * A hard IRQ's handler, named after its action as /proc/interrupts names
 * it, cut to the bytes the model keeps.  An action without a name (none
 * that request_irq() makes) is "".
 */
static __always_inline void probe_hardirq(struct gt_session *s, int irq,
					  struct irqaction *action, bool entry)
{
	char name[GT_IN_IRQ_NAME_LEN];

	if (!probe_armed(s))
		return;
	strscpy(name, action->name ?: "", sizeof(name));
	probe_irq(s, GT_IN_HARDIRQ, irq, name, entry);
}

/*
 * irq_handler_entry / irq_handler_exit: @action's handler of IRQ @irq
 * runs: hard IRQ context, interrupts off (a shared IRQ runs each of its
 * actions in turn; PREEMPT_RT threads the handlers, and traces only the
 * primary handler, which wakes the thread, here).  One per handler, per
 * kstat count of /proc/interrupts for a line with one action.
 */
static void gt_probe_irq_handler_entry(void *data, int irq,
				       struct irqaction *action)
{
	probe_hardirq(data, irq, action, true);
}

static void gt_probe_irq_handler_exit(void *data, int irq,
				      struct irqaction *action, int ret)
{
	probe_hardirq(data, irq, action, false);
}

/*
 * Linux's softirq numbers are the model's (enum gt_in_softirq); a kernel
 * that renumbers them stops the build here.  Two enums: compared as ints.
 */
#define GT_SOFTIRQ_IS(name)						\
	static_assert((int)name##_SOFTIRQ == (int)GT_IN_SOFTIRQ_##name,	\
		      "Linux's " #name "_SOFTIRQ is not GT_IN_SOFTIRQ_" #name)
GT_SOFTIRQ_IS(HI);
GT_SOFTIRQ_IS(TIMER);
GT_SOFTIRQ_IS(NET_TX);
GT_SOFTIRQ_IS(NET_RX);
GT_SOFTIRQ_IS(BLOCK);
GT_SOFTIRQ_IS(IRQ_POLL);
GT_SOFTIRQ_IS(TASKLET);
GT_SOFTIRQ_IS(SCHED);
GT_SOFTIRQ_IS(HRTIMER);
GT_SOFTIRQ_IS(RCU);
#undef GT_SOFTIRQ_IS

/*
 * softirq_entry / softirq_exit: softirq @vec_nr's action runs, in
 * __do_softirq() with interrupts on and bottom halves off: on the way
 * out of a hard IRQ, in ksoftirqd, or where a task enables bottom halves
 * again (PREEMPT_RT: always the latter two, preemptible task context).
 * A number beyond the model's (a softirq a later Linux adds) is left out.
 */
static void gt_probe_softirq_entry(void *data, unsigned int vec_nr)
{
	if (vec_nr < GT_IN_SOFTIRQ_NR)
		probe_irq(data, GT_IN_SOFTIRQ, vec_nr, NULL, true);
}

static void gt_probe_softirq_exit(void *data, unsigned int vec_nr)
{
	if (vec_nr < GT_IN_SOFTIRQ_NR)
		probe_irq(data, GT_IN_SOFTIRQ, vec_nr, NULL, false);
}

#ifdef CONFIG_X86
/*
 * x86's system vectors (irq_vectors:<vector>_entry/_exit): hard IRQ
 * context, interrupts off, the handler between them.  Their argument is
 * the vector's number, which only the spurious interrupt's varies: each
 * tracepoint has a probe of its own that knows its vector's kind.
 */
#define GT_VECTOR_PROBES(name, vec)					\
static const u32 gt_vec_##name = vec;					\
static void gt_probe_##name##_entry(void *data, int vector)		\
{									\
	probe_irq(data, GT_IN_VECTOR, gt_vec_##name, NULL, true);	\
}									\
static void gt_probe_##name##_exit(void *data, int vector)		\
{									\
	probe_irq(data, GT_IN_VECTOR, gt_vec_##name, NULL, false);	\
}

GT_VECTOR_PROBES(local_timer, GT_IN_VEC_LOCAL_TIMER)
GT_VECTOR_PROBES(reschedule, GT_IN_VEC_RESCHEDULE)
GT_VECTOR_PROBES(call_function, GT_IN_VEC_CALL_FUNCTION)
GT_VECTOR_PROBES(call_function_single, GT_IN_VEC_CALL_FUNCTION_SINGLE)
GT_VECTOR_PROBES(irq_work, GT_IN_VEC_IRQ_WORK)
GT_VECTOR_PROBES(x86_platform_ipi, GT_IN_VEC_PLATFORM)
GT_VECTOR_PROBES(thermal_apic, GT_IN_VEC_PLATFORM)
GT_VECTOR_PROBES(threshold_apic, GT_IN_VEC_PLATFORM)
GT_VECTOR_PROBES(deferred_error_apic, GT_IN_VEC_PLATFORM)
GT_VECTOR_PROBES(error_apic, GT_IN_VEC_PLATFORM)
GT_VECTOR_PROBES(spurious_apic, GT_IN_VEC_PLATFORM)

#undef GT_VECTOR_PROBES
#endif /* CONFIG_X86 */

#ifdef CONFIG_ARM64
/*
 * arm64's IPIs, by the reason string of ipi_entry/ipi_exit: the names
 * /proc/interrupts gives its IPI rows (arch/arm64/kernel/smp.c).  "CPU
 * stop" covers the plain stop, the crash dump's and the NMI's.
 */
static const struct {
	const char *prefix;
	u8 vec;
} gt_ipi_reasons[] = {
	{ "Rescheduling interrupts",	GT_IN_VEC_RESCHEDULE },
	{ "Function call interrupts",	GT_IN_VEC_CALL_FUNCTION },
	{ "Timer broadcast interrupts",	GT_IN_VEC_TIMER_BROADCAST },
	{ "IRQ work interrupts",	GT_IN_VEC_IRQ_WORK },
	{ "CPU stop",			GT_IN_VEC_CPU_STOP },
};

/* @reason's enum gt_in_vector: a few short compares, bounded. */
static u32 probe_ipi_vector(const char *reason)
{
	unsigned int i;

	if (!reason)
		return GT_IN_VEC_OTHER;
	for (i = 0; i < ARRAY_SIZE(gt_ipi_reasons); i++)
		if (str_has_prefix(reason, gt_ipi_reasons[i].prefix))
			return gt_ipi_reasons[i].vec;
	return GT_IN_VEC_OTHER;
}

/*
 * ipi_entry / ipi_exit: the IPI of @reason is handled, in do_handle_IPI(),
 * inside the hard IRQ of arm64's IPI (whose irq_handler_entry comes
 * first: the IPI nests in it, as it does in Linux); in an NMI for the
 * pseudo-NMI ones, which probe_irq() leaves out.
 */
static void gt_probe_ipi_entry(void *data, const char *reason)
{
	if (probe_armed(data))
		probe_irq(data, GT_IN_VECTOR, probe_ipi_vector(reason), NULL,
			  true);
}

static void gt_probe_ipi_exit(void *data, const char *reason)
{
	if (probe_armed(data))
		probe_irq(data, GT_IN_VECTOR, probe_ipi_vector(reason), NULL,
			  false);
}
#endif /* CONFIG_ARM64 */

/*
 * A work item's function begins or ends on a kworker (current).  Process
 * context, preemptible (the hooks disable interrupts themselves).
 */
static __always_inline void probe_work(struct gt_session *s, work_func_t func,
				       bool start)
{
	struct gt_in_task cur;
	struct gt_in_work in = { .ev.cur = &cur, .func = (unsigned long)func };

	if (!probe_armed(s))
		return;
	probe_task(&cur, current);
	if (start)
		gt_model_work_start(&s->model, &in);
	else
		gt_model_work_end(&s->model, &in);
}

/* workqueue_execute_start: the kworker runs @work, whose function is set. */
static void gt_probe_workqueue_execute_start(void *data,
					     struct work_struct *work)
{
	probe_work(data, work->func, true);
}

/*
 * workqueue_execute_end: @function returned.  @work may be freed by now
 * (a work item may free itself): only @function is read.
 */
static void gt_probe_workqueue_execute_end(void *data,
					   struct work_struct *work,
					   work_func_t function)
{
	probe_work(data, function, false);
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

/*
 * @opt: 0 for a tracepoint the module cannot do without (it refuses to
 * load where one is missing), else the GOTRACE_OPT_* that asks for it;
 * such a one comes as a pair, an entry and its exit (@pair set on the
 * entry, the exit next in the table), attached both or neither: an entry
 * whose exit never comes would leave every interrupt open.
 */
struct gt_probe {
	const char *name;
	void *func;
	u32 opt;
	bool pair;
	struct tracepoint *tp;
	bool on;
};

/* An optional tracepoint's entry: @pair on the first of a pair. */
#define GT_PROBE_OPT(name, opt, pair)	{ #name, gt_probe_##name, opt, pair }

static struct gt_probe gt_probes[] = {
	{ "sched_switch",	gt_probe_sched_switch },
	{ "sched_waking",	gt_probe_sched_waking },
	{ "sched_wakeup",	gt_probe_sched_wakeup },
	{ "sched_wakeup_new",	gt_probe_sched_wakeup_new },
	{ "sched_process_fork",	gt_probe_sched_process_fork },
	{ "sched_process_exec",	gt_probe_sched_process_exec },
	{ "sys_enter",		gt_probe_sys_enter },
	{ "sys_exit",		gt_probe_sys_exit },
	GT_PROBE_OPT(irq_handler_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(irq_handler_exit, GOTRACE_OPT_HARDIRQS, false),
#ifdef CONFIG_X86
	GT_PROBE_OPT(local_timer_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(local_timer_exit, GOTRACE_OPT_HARDIRQS, false),
	GT_PROBE_OPT(reschedule_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(reschedule_exit, GOTRACE_OPT_HARDIRQS, false),
	GT_PROBE_OPT(call_function_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(call_function_exit, GOTRACE_OPT_HARDIRQS, false),
	GT_PROBE_OPT(call_function_single_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(call_function_single_exit, GOTRACE_OPT_HARDIRQS, false),
	GT_PROBE_OPT(irq_work_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(irq_work_exit, GOTRACE_OPT_HARDIRQS, false),
	GT_PROBE_OPT(x86_platform_ipi_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(x86_platform_ipi_exit, GOTRACE_OPT_HARDIRQS, false),
	GT_PROBE_OPT(thermal_apic_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(thermal_apic_exit, GOTRACE_OPT_HARDIRQS, false),
	GT_PROBE_OPT(threshold_apic_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(threshold_apic_exit, GOTRACE_OPT_HARDIRQS, false),
	GT_PROBE_OPT(deferred_error_apic_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(deferred_error_apic_exit, GOTRACE_OPT_HARDIRQS, false),
	GT_PROBE_OPT(error_apic_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(error_apic_exit, GOTRACE_OPT_HARDIRQS, false),
	GT_PROBE_OPT(spurious_apic_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(spurious_apic_exit, GOTRACE_OPT_HARDIRQS, false),
#endif
#ifdef CONFIG_ARM64
	GT_PROBE_OPT(ipi_entry, GOTRACE_OPT_HARDIRQS, true),
	GT_PROBE_OPT(ipi_exit, GOTRACE_OPT_HARDIRQS, false),
#endif
	GT_PROBE_OPT(softirq_entry, GOTRACE_OPT_SOFTIRQS, true),
	GT_PROBE_OPT(softirq_exit, GOTRACE_OPT_SOFTIRQS, false),
	GT_PROBE_OPT(workqueue_execute_start, GOTRACE_OPT_WORKQUEUE, true),
	GT_PROBE_OPT(workqueue_execute_end, GOTRACE_OPT_WORKQUEUE, false),
};

#undef GT_PROBE_OPT

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
	PROBE_CHECK_TYPE(irq_handler_entry);
	PROBE_CHECK_TYPE(irq_handler_exit);
	PROBE_CHECK_TYPE(softirq_entry);
	PROBE_CHECK_TYPE(softirq_exit);
	PROBE_CHECK_TYPE(workqueue_execute_start);
	PROBE_CHECK_TYPE(workqueue_execute_end);
#ifdef CONFIG_X86
	/* Declared where the kernel's configuration has the vector. */
	PROBE_CHECK_TYPE(local_timer_entry);
	PROBE_CHECK_TYPE(local_timer_exit);
	PROBE_CHECK_TYPE(x86_platform_ipi_entry);
	PROBE_CHECK_TYPE(x86_platform_ipi_exit);
	PROBE_CHECK_TYPE(error_apic_entry);
	PROBE_CHECK_TYPE(error_apic_exit);
	PROBE_CHECK_TYPE(spurious_apic_entry);
	PROBE_CHECK_TYPE(spurious_apic_exit);
#ifdef CONFIG_IRQ_WORK
	PROBE_CHECK_TYPE(irq_work_entry);
	PROBE_CHECK_TYPE(irq_work_exit);
#endif
#ifdef CONFIG_SMP
	PROBE_CHECK_TYPE(reschedule_entry);
	PROBE_CHECK_TYPE(reschedule_exit);
	PROBE_CHECK_TYPE(call_function_entry);
	PROBE_CHECK_TYPE(call_function_exit);
	PROBE_CHECK_TYPE(call_function_single_entry);
	PROBE_CHECK_TYPE(call_function_single_exit);
#endif
#ifdef CONFIG_X86_MCE_THRESHOLD
	PROBE_CHECK_TYPE(threshold_apic_entry);
	PROBE_CHECK_TYPE(threshold_apic_exit);
#endif
#ifdef CONFIG_X86_MCE_AMD
	PROBE_CHECK_TYPE(deferred_error_apic_entry);
	PROBE_CHECK_TYPE(deferred_error_apic_exit);
#endif
#ifdef CONFIG_X86_THERMAL_VECTOR
	PROBE_CHECK_TYPE(thermal_apic_entry);
	PROBE_CHECK_TYPE(thermal_apic_exit);
#endif
#endif /* CONFIG_X86 */
#ifdef CONFIG_ARM64
	PROBE_CHECK_TYPE(ipi_entry);
	PROBE_CHECK_TYPE(ipi_exit);
#endif
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
		if (gt_probes[i].tp &&
		    addr - (unsigned long)gt_probes[i].tp->iterator < 256)
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

/* What an option's tracepoints record, for the message of a missing one. */
static const char *probes_opt_name(u32 opt)
{
	switch (opt) {
	case GOTRACE_OPT_HARDIRQS:
		return "hard IRQs";
	case GOTRACE_OPT_SOFTIRQS:
		return "softirqs";
	default:
		return "work items";
	}
}

/**
 * gt_probes_check() - find every tracepoint gotrace needs, and the
 * optional ones the kernel has
 *
 * An optional pair with a tracepoint missing is dropped whole, and said
 * here, once.
 *
 * Context: module init.
 * Return: 0, or -ENOENT (logged per missing tracepoint).
 */
int gt_probes_check(void)
{
	struct gt_probe *p;
	unsigned int i;
	int ret = 0;

	for_each_kernel_tracepoint(probes_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(gt_probes); i++) {
		p = &gt_probes[i];
		if (!p->opt) {
			if (!p->tp) {
				pr_err("tracepoint %s not found\n", p->name);
				ret = -ENOENT;
			}
			continue;
		}
		if (!p->pair)
			continue;
		/* The table's pairs are whole: its exit is the next one. */
		if (p->tp && p[1].tp)
			continue;
		pr_info("tracepoint %s not found: its %s are not recorded\n",
			p->tp ? p[1].name : p->name, probes_opt_name(p->opt));
		p->tp = NULL;
		p[1].tp = NULL;
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
 * gt_probes_register() - attach every probe the session's options ask
 * for, with @s as data
 * @s:	the session; its probes are not armed yet, so they return at once
 *	until the snapshot is written
 *
 * The optional ones the kernel lacks (gt_probes_check()) are left out.
 *
 * Context: process context, may sleep; one session at a time.
 * Return: 0, or the error of the first registration that failed (the
 * ones before it are detached again).
 */
int gt_probes_register(struct gt_session *s)
{
	u32 flags = s->model.opts.flags;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(gt_probes); i++) {
		if (gt_probes[i].opt &&
		    (!gt_probes[i].tp || !(flags & gt_probes[i].opt)))
			continue;
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
