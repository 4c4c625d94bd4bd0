/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model_env.h - what the model needs from where it runs
 *
 * The portable files (every .c file of model/) include this header and
 * nothing of Linux or libc beyond it.  It picks the environment at
 * compile time: env/kernel.h in the module, env/user.h in user space
 * (the BPF backend, the tests).  Every function is static inline there,
 * so the kernel's hot path calls no function pointer and costs what it
 * cost before the split.
 *
 * An environment provides:
 *
 * Types and locking
 *   gt_lock_t                  a raw spinlock (kernel) / nothing (user
 *                              space: one thread feeds the model)
 *   gt_lock_init(l), gt_lock(l), gt_unlock(l)
 *                              for callers with interrupts off
 *   gt_lock_irqsave(l, flags), gt_unlock_irqrestore(l, flags)
 *   gt_lockdep_assert_held(l), gt_lockdep_assert_irqs_disabled()
 *   gt_atomic64_t, gt_atomic64_set/read/inc/add/inc_return()
 *   gt_test_and_set_bit(), gt_test_bit(), gt_set_bit()
 *                              atomic in the kernel
 *   GT_READ_ONCE(x), GT_WRITE_ONCE(x, v)
 *   gt_load_acquire(p), gt_store_release(p, v)
 *   GT_PERCPU                  the __percpu address space (sparse)
 *
 * Per-CPU state (the session allocates m->cpus: alloc_percpu() in the
 * module, an array in user space)
 *   gt_env_cpu_ptr(p, cpu)     CPU @cpu's element of per-CPU @p
 *   gt_env_for_each_cpu(cpu, m)
 *                              every CPU a session may have
 *   gt_env_cpu_online(m, cpu)  online now (user space: when the session
 *                              began, as its maker says)
 *   gt_env_hook_cpu(m, ev)     the struct gt_cpu of @ev's CPU (the
 *                              kernel: this CPU's, whatever @ev says;
 *                              user space: @ev->cpu's, NULL if out of
 *                              range)
 *   gt_env_irq_save(flags), gt_env_irq_restore(flags)
 *                              interrupts off around a hook (user
 *                              space: nothing)
 *
 * Time
 *   gt_env_clock()             the time of a hook whose event has none
 *                              (ts 0), read at its first event: the
 *                              kernel's ktime_get_mono_fast_ns() (the
 *                              probes give none); user space: 0 (an
 *                              event's time is its ts)
 *
 * Memory (session start and end only, never in a hook)
 *   gt_env_zalloc(n, size), gt_env_alloc(size), gt_env_free(p),
 *   gt_env_big_alloc(size), gt_env_big_free(p)
 *   struct gt_env_model        what the environment keeps in the model
 *                              (m->env): the module's user-stack naming,
 *                              user space's callbacks and counters
 *
 * Hashing
 *   gt_env_hash64(v, bits), gt_env_hash32(v, bits),
 *   gt_env_jhash(p, len, seed)
 *
 * Lazy queries about Linux (model_input.h)
 *   gt_env_kstack(c, pcs, max)      kernel stack of the code that hit the
 *                                   tracepoint (innermost first)
 *   gt_env_sample_kstack(c, pcs, room, max)
 *                                   kernel stack of the code a CPU sample
 *                                   interrupted (none: user code)
 *   gt_env_in_cgroup(task, id)      task in cgroup @id or below it
 *   gt_env_task_cgroup(task)        the id of its cgroup v2 (0: none)
 *   gt_env_task_unit(task, buf, size)
 *                                   its systemd unit's name into @buf:
 *                                   the length, 0 for none, negative if
 *                                   longer than @size - 1
 *   gt_env_fd_kind(in)              enum gt_in_fd_kind of the file the
 *                                   read or write that @in's task sleeps
 *                                   in waits on
 *   gt_env_symbolise(m, pc, buf)    "func+0xoff/0xsize [mod]" of a kernel
 *                                   PC into @buf (GT_ENV_SYM_LEN bytes),
 *                                   for the footer
 *   gt_env_strtoul(s, base, &res)   kstrtoul(): 0, or -EINVAL
 *
 * User stacks (GOTRACE_OPT_USER_STACKS, Documentation/user-stacks.rst)
 *   gt_env_ustack(m, c, pcs, max, &space, &stop, &exact)
 *                              the user frames of the task running here
 *                              (raw addresses, innermost first, at most
 *                              @max), its address space's identity into
 *                              @space, why the walk stopped early into
 *                              @stop (enum gt_ustack_stop), whether the
 *                              first PC is exact into @exact (the task
 *                              entered the kernel by an interrupt or a
 *                              fault, not a syscall); 0 frames for
 *                              a kernel thread, a 32-bit task, an
 *                              interrupt other than a CPU sample's
 *                              (c->sampling) (user space: the event's
 *                              eager fields)
 *   gt_env_ustack_queue(m, space, pcs, n)
 *                              a stack new to its table holds these user
 *                              PCs: name them before the table is
 *                              written (the module: queued, resolved by
 *                              a work item; user space: nothing)
 *   gt_env_ustack_sync(m)      every PC queued so far is named (before a
 *                              generation's tables or the footer)
 *   gt_env_ustack_resolve(m, space, pc, &file, &off)
 *                              the file index and file offset of a user
 *                              PC; false: in no file, or not named
 *   gt_env_ustack_file(m, file) the absolute path of a file index
 *
 * Session
 *   gt_env_halted(m)           the model ran out of space: the session is
 *                              to stop (the kernel defers it: hooks run
 *                              under the runqueue lock)
 *   gt_env_chunk_queued(m)     a chunk is ready for the reader
 *   gt_env_w123_written(m)       a go 1.23 transition was written (user
 *                              space: a test's hook; the kernel: none)
 *   gt_env_w123_sweep_step(m)    the sweep of a generation read one bucket
 *                              and holds no lock: hooks may run on other
 *                              CPUs here (user space: a test's hook, the
 *                              model checker's; the kernel: none)
 *   gt_env_trigger(m, type, p, value, now)
 *                              a trigger's condition held for task @p:
 *                              whether it fires (the kernel: unless held
 *                              off; user space: never)
 *   gt_env_may_write_other_p() whether a hook may write another CPU's P
 *                              (user space: one thread feeds them all)
 */
#ifndef _GT_MODEL_ENV_H
#define _GT_MODEL_ENV_H

#include "model_input.h"

#ifdef __KERNEL__
#include "env/kernel.h"
#else
#include "env/user.h"
#endif

#endif /* _GT_MODEL_ENV_H */
