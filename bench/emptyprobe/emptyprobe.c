// SPDX-License-Identifier: GPL-2.0
/*
 * emptyprobe.c - the floor of any tracepoint-based tracer
 *
 * Attaches, when loaded, a probe that only counts (a per-CPU increment)
 * to each tracepoint gotrace uses, found the way kmod/probes.c finds
 * them (for_each_kernel_tracepoint), registered the way it registers
 * them (tracepoint_probe_register, which also sets the syscall-tracepoint
 * flag on every task for sys_enter/sys_exit); detaches them when
 * unloaded and logs "emptyprobe: N hits".  What a workload loses with
 * this module loaded is the price of the tracepoints themselves, before
 * any tracer does anything.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>

static DEFINE_PER_CPU(unsigned long, ep_hits);

static inline void ep_hit(void)
{
	this_cpu_inc(ep_hits);
}

static void ep_probe_sched_switch(void *data, bool preempt,
				  struct task_struct *prev,
				  struct task_struct *next,
				  unsigned int prev_state)
{
	ep_hit();
}

static void ep_probe_sched_waking(void *data, struct task_struct *p)
{
	ep_hit();
}

static void ep_probe_sched_wakeup(void *data, struct task_struct *p)
{
	ep_hit();
}

static void ep_probe_sched_wakeup_new(void *data, struct task_struct *p)
{
	ep_hit();
}

static void ep_probe_sched_process_fork(void *data, struct task_struct *parent,
					struct task_struct *child)
{
	ep_hit();
}

static void ep_probe_sched_process_exec(void *data, struct task_struct *p,
					pid_t old_pid,
					struct linux_binprm *bprm)
{
	ep_hit();
}

static void ep_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	ep_hit();
}

static void ep_probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	ep_hit();
}

struct ep_probe {
	const char *name;
	void *func;
	struct tracepoint *tp;
	bool on;
};

static struct ep_probe ep_probes[] = {
	{ "sched_switch",	ep_probe_sched_switch },
	{ "sched_waking",	ep_probe_sched_waking },
	{ "sched_wakeup",	ep_probe_sched_wakeup },
	{ "sched_wakeup_new",	ep_probe_sched_wakeup_new },
	{ "sched_process_fork",	ep_probe_sched_process_fork },
	{ "sched_process_exec",	ep_probe_sched_process_exec },
	{ "sys_enter",		ep_probe_sys_enter },
	{ "sys_exit",		ep_probe_sys_exit },
};

#define PROBE_CHECK_TYPE(name) \
	BUILD_BUG_ON(sizeof(register_trace_##name(ep_probe_##name, NULL)) == 0)

/* Never called: checks each probe's prototype against the kernel's. */
static void __maybe_unused ep_check_types(void)
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

static void ep_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ep_probes); i++)
		if (!strcmp(tp->name, ep_probes[i].name))
			ep_probes[i].tp = tp;
}

static void ep_detach(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ep_probes); i++) {
		if (!ep_probes[i].on)
			continue;
		tracepoint_probe_unregister(ep_probes[i].tp,
					    ep_probes[i].func, NULL);
		ep_probes[i].on = false;
	}
	tracepoint_synchronize_unregister();
}

static int __init ep_init(void)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(ep_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(ep_probes); i++) {
		if (!ep_probes[i].tp) {
			pr_err("tracepoint %s not found\n", ep_probes[i].name);
			ep_detach();
			return -ENOENT;
		}
		ret = tracepoint_probe_register(ep_probes[i].tp,
						ep_probes[i].func, NULL);
		if (ret) {
			pr_err("cannot attach to %s: %d\n",
			       ep_probes[i].name, ret);
			ep_detach();
			return ret;
		}
		ep_probes[i].on = true;
	}
	return 0;
}

static void __exit ep_exit(void)
{
	unsigned long hits = 0;
	int cpu;

	ep_detach();
	for_each_possible_cpu(cpu)
		hits += per_cpu(ep_hits, cpu);
	pr_info("%lu hits\n", hits);
}

module_init(ep_init);
module_exit(ep_exit);
MODULE_DESCRIPTION("Empty probes on gotrace's tracepoints (benchmark floor)");
MODULE_LICENSE("GPL");
