/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the one place for the differences between the kernels
 * gotrace builds for
 *
 * gotrace is built by DKMS or by hand against kernels nobody tested it
 * on, including distribution kernels that backport API changes into an
 * older version number.  So differences are found by testing the
 * kernel's own declarations and configuration (feature tests), never by
 * comparing LINUX_VERSION_CODE, and a kernel that lacks something gotrace
 * needs stops the build here with a message saying what is missing,
 * rather than somewhere in the middle with a compiler error.
 *
 * Two kinds of test, in order of preference:
 *   - the kernel's configuration (CONFIG_*), for what it must provide;
 *   - the kernel's declarations, inspected by the compiler with typeof()
 *     and __builtin_types_compatible_p(), for prototypes that change:
 *     a probe that does not fit its tracepoint fails with a message
 *     naming the tracepoint (GT_PROBE_FITS).  Should two prototypes ever
 *     need supporting side by side, __builtin_choose_expr() on the same
 *     test picks the probe, still without a version number.
 * A difference the compiler cannot see from a declaration gets a test
 * in kmod/Kbuild, which defines GT_HAVE_<feature>:
 * GT_HAVE_HRTIMER_SETUP, whether the kernel's <linux/hrtimer.h> declares
 * hrtimer_setup() (6.13), which replaced hrtimer_init() (gone in 6.15);
 * the preprocessor cannot see a function's declaration, and both
 * kernels must build (kmod/sampler.c); and GT_HAVE_HK_KERNEL_NOISE,
 * whether <linux/sched/isolation.h> has HK_TYPE_KERNEL_NOISE (below),
 * an enumerator, which the preprocessor cannot see either.
 *
 * Known differences that need no code, and why:
 *   - From 6.13 sys_enter/sys_exit are "faultable" tracepoints: their
 *     probes run preemptible and may migrate.  Every model hook disables
 *     interrupts before it looks at its CPU (hook_enter() in model.c).
 *   - 6.16 gave sched_process_exit a second argument; gotrace does not
 *     attach to it (the task's final switch ends its goroutine).
 *   - 6.16 renamed tracepoints declared with DECLARE_TRACE alone to
 *     <name>_tp; the ones gotrace uses are TRACE_EVENTs and kept theirs.
 *
 * Tested on Debian's 6.1, 6.12, 6.12-rt and newest (7.x, -amd64 and -rt)
 * kernels, and on a 6.12 built with lockdep and KASAN
 * (Documentation/testing.rst); built for Debian's arm64 kernels of the
 * same series.
 */
#ifndef _GT_COMPAT_H
#define _GT_COMPAT_H

#include <linux/build_bug.h>
#include <linux/compiler.h>

/* ---- What the kernel must provide -------------------------------------- */

/*
 * The architectures whose syscall tables gen_syscall_names.sh knows and
 * whose user stacks ustack.c walks.
 */
#if !defined(CONFIG_X86_64) && !defined(CONFIG_ARM64)
#error "gotrace supports x86-64 and arm64 kernels only"
#endif

#ifndef CONFIG_TRACEPOINTS
#error "gotrace needs CONFIG_TRACEPOINTS: the scheduler's tracepoints"
#endif

#ifndef CONFIG_HAVE_SYSCALL_TRACEPOINTS
#error "gotrace needs CONFIG_HAVE_SYSCALL_TRACEPOINTS: sys_enter/sys_exit"
#endif

#ifndef CONFIG_STACKTRACE
#error "gotrace needs CONFIG_STACKTRACE: stack_trace_save() for kernel stacks"
#endif

#ifndef CONFIG_CGROUPS
#error "gotrace needs CONFIG_CGROUPS: recording by cgroup"
#endif

/* ---- Architectures ---------------------------------------------------- */

#ifdef CONFIG_ARM64
#include <asm/pointer_auth.h>

/*
 * gt_user_ret(ret) - a return address read from a user frame record,
 * without the pointer authentication code its top bits may carry.
 * 6.4 split ptrauth_strip_insn_pac() by the kind of address; the user
 * one is a macro, seen by the preprocessor.  Both are no-ops without
 * CONFIG_ARM64_PTR_AUTH.
 */
#ifdef ptrauth_strip_user_insn_pac
#define gt_user_ret(ret)	ptrauth_strip_user_insn_pac(ret)
#else
#define gt_user_ret(ret)	ptrauth_strip_insn_pac(ret)
#endif
#endif /* CONFIG_ARM64 */

/* ---- CPU isolation ---------------------------------------------------- */

#include <linux/sched/isolation.h>

/*
 * GT_HK_NOISE - the housekeeping type that nohz_full= and isolcpus=nohz
 * take CPUs out of: HK_TYPE_TICK up to 6.14; from 6.15 the types set by
 * nohz_full= are one, HK_TYPE_KERNEL_NOISE (the old names stay as
 * aliases for a while).  HK_TYPE_DOMAIN (isolcpus=, isolcpus=domain; on
 * the newest kernels also cpuset's isolated partitions) is the same
 * name on every kernel gotrace builds for.  housekeeping_cpumask(), an
 * exported function on all of them, gives each type's CPUs: every
 * possible CPU without CONFIG_CPU_ISOLATION or isolation.
 */
#ifdef GT_HAVE_HK_KERNEL_NOISE
#define GT_HK_NOISE	HK_TYPE_KERNEL_NOISE
#else
#define GT_HK_NOISE	HK_TYPE_TICK
#endif

/* ---- Prototypes that change ------------------------------------------- */

/*
 * GT_PROBE_FITS(name, probe) - @probe has the prototype the kernel's
 * tracepoint @name calls its probes with, checked against the kernel's
 * own register_trace_<name>().  Nothing is evaluated.
 */
#define GT_PROBE_FITS(name, probe)					\
	static_assert(__builtin_types_compatible_p(			\
		typeof(register_trace_##name),				\
		int (typeof(probe) *, void *)),			\
		"the kernel's " #name " tracepoint passes arguments "	\
		#probe "() does not take (GT_PROBE_FITS)")

#endif /* _GT_COMPAT_H */
