// SPDX-License-Identifier: GPL-2.0
/*
 * sampler.c - CPU samples: a timer per CPU interrupts it cpu_hz times a
 * second, and the model writes what it caught (gt_model_cpu_sample())
 *
 * Each online housekeeping CPU has a pinned hrtimer in hard-IRQ mode (on
 * PREEMPT_RT too, where timers otherwise run in a thread and would
 * sample that thread): its callback runs in the interrupt that stopped
 * the task, on that CPU, and the interrupt's saved registers say where
 * the task was (env_kernel.h).  The model's hooks run with interrupts
 * off, so the callback never comes in the middle of one writing this
 * CPU's buffers: no other exclusion is needed.  A timer late by more
 * than a period (a long interrupts-off section) counts the samples it
 * could not take.
 *
 * The callback is a hard interrupt, never an NMI: the model's per-CPU
 * state, its raw spinlocks (the stack table's, the user-stack queue's)
 * and its buffer writes are safe there only because a hook runs with
 * interrupts off.  A sampler moved to a perf event (an NMI on x86) would
 * interrupt hooks and take those locks inside them: a deadlock, or a
 * buffer written twice at once.
 *
 * An isolated CPU (isolcpus=, nohz_full=: not a housekeeping CPU for
 * the tick or the scheduler domains) gets no timer unless the session
 * asks for it (GOTRACE_OPT_CPU_ISOLATED, the sample_isolated parameter):
 * a timer of up to 999 Hz with a kernel unwind, a user walk and the
 * interning, interrupts off, is the tick nohz_full= stops, the hard-IRQ
 * latency PREEMPT_RT users isolate a CPU against, and it wakes an idle
 * CPU.  Documentation/cpu-samples.rst.
 *
 * A CPU's timer starts when the session is armed, or when the CPU comes
 * online, and stops when it goes offline (else the hotplug code would
 * move it to another CPU) or when the session stops, before the model is
 * closed: hrtimer_cancel() waits for a callback that is running.
 *
 * Context: start and stop in process context with cpus_read_lock()
 * held; the hotplug callbacks in the CPU's own hotplug thread.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/isolation.h>
#include <linux/smp.h>

#include "gotrace.h"

/**
 * struct gt_sampler - one CPU's sampling timer
 * @timer:	pinned to the CPU, hard-IRQ mode
 * @s:		the session it samples for
 * @period:	NSEC_PER_SEC / cpu_hz
 */
struct gt_sampler {
	struct hrtimer timer;
	struct gt_session *s;
	ktime_t period;
};

static enum hrtimer_restart sampler_fire(struct hrtimer *timer)
{
	struct gt_sampler *sp = container_of(timer, struct gt_sampler, timer);
	u64 overruns = hrtimer_forward_now(timer, sp->period);

	gt_probe_cpu_sample(sp->s, overruns > 1 ?
			    (u32)min_t(u64, overruns - 1, U32_MAX) : 0);
	return HRTIMER_RESTART;
}

/*
 * Is @cpu sampled?  A housekeeping CPU always; an isolated one only if
 * the session asks.  Read at the start and as a CPU comes online: the
 * boot's isolation does not change, and a cpuset partition made
 * isolated later keeps the timer it had.
 */
static bool sampler_wants(const struct gt_session *s, int cpu)
{
	bool hk;

	if (s->model.opts.flags & GOTRACE_OPT_CPU_ISOLATED)
		return true;
	/* The newest kernels change HK_TYPE_DOMAIN's mask under RCU. */
	rcu_read_lock();
	hk = cpumask_test_cpu(cpu, housekeeping_cpumask(GT_HK_NOISE)) &&
	     cpumask_test_cpu(cpu, housekeeping_cpumask(HK_TYPE_DOMAIN));
	rcu_read_unlock();
	return hk;
}

/* On the CPU to sample (an IPI, or its hotplug thread): start its timer. */
static void sampler_start_here(void *arg)
{
	struct gt_sampler *sp = arg;

	hrtimer_start(&sp->timer, sp->period, HRTIMER_MODE_REL_PINNED_HARD);
}

/**
 * gt_sampler_init() - the session's timers, not started
 * @s:	the session, its options fixed, cpu_hz set
 *
 * Return: 0 or -ENOMEM.
 */
int gt_sampler_init(struct gt_session *s)
{
	ktime_t period = ns_to_ktime(NSEC_PER_SEC / s->model.opts.cpu_hz);
	int cpu;

	s->samplers = alloc_percpu(struct gt_sampler);
	if (!s->samplers)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct gt_sampler *sp = per_cpu_ptr(s->samplers, cpu);

#ifdef GT_HAVE_HRTIMER_SETUP
		hrtimer_setup(&sp->timer, sampler_fire, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
#else
		hrtimer_init(&sp->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		sp->timer.function = sampler_fire;
#endif
		sp->s = s;
		sp->period = period;
	}
	return 0;
}

/**
 * gt_sampler_start() - start the timer of every online CPU sampled
 * @s:	the session, armed
 *
 * Context: process context, cpus_read_lock() held.
 */
void gt_sampler_start(struct gt_session *s)
{
	int cpu;

	if (!s->samplers)
		return;
	s->sampling = true;
	for_each_online_cpu(cpu)
		if (sampler_wants(s, cpu))
			smp_call_function_single(cpu, sampler_start_here,
						 per_cpu_ptr(s->samplers, cpu),
						 1);
}

/**
 * gt_sampler_stop() - stop every timer and wait for their callbacks
 * @s:	the session
 *
 * Context: process context, cpus_read_lock() held.
 */
void gt_sampler_stop(struct gt_session *s)
{
	int cpu;

	if (!s->samplers)
		return;
	s->sampling = false;
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(s->samplers, cpu)->timer);
}

/* Free the timers; every one is stopped. */
void gt_sampler_free(struct gt_session *s)
{
	free_percpu(s->samplers);
	s->samplers = NULL;
}

/*
 * The calling CPU comes online (its hotplug thread): its timer starts if
 * the session samples it and is not stopping.
 */
void gt_sampler_cpu_online(struct gt_session *s)
{
	if (s->samplers && s->sampling &&
	    sampler_wants(s, smp_processor_id()))
		sampler_start_here(this_cpu_ptr(s->samplers));
}

/*
 * The calling CPU goes offline (its hotplug thread): its timer stops
 * here, so that the hotplug code does not move it to another CPU.  The
 * callback cannot be running: it runs on this CPU only, and this thread
 * runs there.
 */
void gt_sampler_cpu_offline(struct gt_session *s)
{
	if (s->samplers)
		hrtimer_cancel(&this_cpu_ptr(s->samplers)->timer);
}
