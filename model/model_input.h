/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model_input.h - what the Linux -> Go model is told: plain input events
 *
 * The model (model.c and the files it uses) never looks at a kernel
 * type.  A capture backend translates what Linux reports into the events
 * below and hands them to the gt_model_*() hooks (model.h):
 *
 *   - the module: kmod/probes.c, from the tracepoint arguments, in the
 *     probe itself (the event lives on the probe's stack);
 *   - user space (the BPF backend's reader, the host tests): from its
 *     records, merged in timestamp order, one event at a time.
 *
 * Every event has a header (struct gt_in_ev): the CPU it happened on, its
 * time, the task running there (current) and, in user space, the kernel
 * stack of the code that hit the tracepoint.  What the model needs from
 * Linux only sometimes (the stack, whether a task is in the filtered
 * cgroup, what kind of file a sleeping read waits on) is a lazy query of
 * the environment (model_env.h): the module answers it from @ctx, the
 * live task_struct, only when the model asks; user space answers it from
 * the eager fields below, which its backend filled in.
 *
 * Nothing here is kept by the model after the hook returns: pointers in
 * an event need only live as long as the call.
 */
#ifndef _GT_MODEL_INPUT_H
#define _GT_MODEL_INPUT_H

#include "model_types.h"

/* Bytes of a task's comm, as Linux's TASK_COMM_LEN. */
#define GT_IN_COMM_LEN		16

/* struct gt_in_task.flags */
#define GT_IN_KTHREAD		0x1	/* a kernel thread (PF_KTHREAD) */
#define GT_IN_IDLE		0x2	/* a CPU's idle task (pid 0) */
/*
 * User space only: the task is in the session's cgroup (or below it).
 * The backend decides it, as the module decides it from the task's
 * css_set; without a cgroup filter it is ignored.
 */
#define GT_IN_IN_CGROUP		0x4

/**
 * struct gt_in_task - a task as the model sees it
 * @key:	identity of the task while it lives: the task_struct's
 *		address (the module; the BPF backend reads the same
 *		address).  Compared only, never dereferenced.
 * @start_time:	task->start_time (ns since boot): tells a reused @key (a
 *		freed and reallocated task_struct) from the task it held
 * @tid:	task->pid (thread id); 0 for the idle tasks
 * @tgid:	task->tgid (process id)
 * @flags:	GT_IN_*
 * @comm:	the task's comm: GT_IN_COMM_LEN bytes, NUL-padded, maybe not
 *		NUL-terminated (the module points at task->comm itself,
 *		which a rename may change while it is read: the model
 *		notices at the next event)
 * @ctx:	the backend's handle for lazy queries: the task_struct in
 *		the module; NULL in user space
 * @cgroup:	user space: the id of the task's cgroup v2 (0: unknown);
 *		the module reads it when the model asks
 * @unit:	user space: the task's systemd unit, or NULL (units.c);
 *		the module finds it when the model asks
 */
struct gt_in_task {
	u64 key;
	u64 start_time;
	s32 tid;
	s32 tgid;
	u32 flags;
	const char *comm;
	const void *ctx;
	u64 cgroup;
	const char *unit;
};

/**
 * struct gt_in_ev - what every input event has
 * @ts:		when it happened, ns of the session's clock
 *		(CLOCK_MONOTONIC; the module's ktime_get_mono_fast_ns()).
 *		The module leaves it 0: the environment reads the clock
 *		when the model stamps an event.  Timestamps of different
 *		CPUs may be out of order; the model clamps them.
 * @cpu:	the CPU it happened on, below the session's CPU count.  The
 *		module leaves it to the environment (the probe may still
 *		migrate on kernels whose syscall tracepoints are
 *		preemptible).
 * @cur:	the task running on @cpu (current): the waker of a wakeup,
 *		the parent of a fork, the task of an exec or a syscall,
 *		@prev of a switch.  Never NULL: the idle task has
 *		GT_IN_IDLE.
 * @pcs:	user space: the kernel stack of the code that hit the
 *		tracepoint, innermost first, without the tracer's own
 *		frames; NULL (the module captures it when asked)
 * @nr_pcs:	PCs in @pcs
 * @upcs:	user space: the user stack of @cur, raw addresses innermost
 *		first, as a frame pointer walk gives them (its PC, then
 *		the return addresses); NULL: none (the module walks it
 *		when asked, GOTRACE_OPT_USER_STACKS)
 * @nr_upcs:	PCs in @upcs
 * @ustop:	why the walk of @upcs stopped early: enum gt_ustack_stop
 * @uexact:	@upcs[0] is exact, the instruction an interrupt or a fault
 *		stopped, not a return address (gt_env_ustack())
 * @uspace:	the address space @upcs are addresses of (its identity, as
 *		gt_env_ustack() gives it; only compared)
 */
struct gt_in_ev {
	u64 ts;
	u32 cpu;
	u32 nr_pcs;
	const struct gt_in_task *cur;
	const u64 *pcs;
	const u64 *upcs;
	u32 nr_upcs;
	u16 ustop;
	bool uexact;
	u64 uspace;
};

/*
 * User frames a stack keeps at most (GOTRACE_OPT_USER_STACKS).  A stack
 * of Go 1.23's 1.11 reader must fit in 2 KiB (GT_STACK_MAX_FRAMES, 50
 * frames with the kernel's): 32 user frames go past most programs' depth
 * at a block (main, an event loop, a library call or two), and a deeper
 * kernel stack gives the user frames less room (model.c).  Go 1.27
 * refuses stacks of more than 128 frames; the walk's cost grows with
 * the depth, one read of user memory a frame.
 */
#define GT_USTACK_MAX		32

/* Why a walk of a user stack stopped before its outermost frame. */
enum gt_ustack_stop {
	GT_USTOP_NONE,		/* it did not: the stack is whole */
	GT_USTOP_BAD_FP,	/* a frame pointer off the stack, not above
				 * the previous one, or misaligned: code
				 * built without frame pointers
				 */
	GT_USTOP_FAULT,		/* a frame could not be read without
				 * sleeping (not present, not mapped)
				 */
	GT_USTOP_DEPTH,		/* more frames than the stack keeps */
	GT_USTOP_NO_TABLE,	/* a PC whose unwind table was not loaded
				 * (its process or library new to the
				 * command, its table evicted), and no frame
				 * pointer to follow instead
				 */
	GT_USTOP_NO_RULE,	/* a PC its table has no rule for (outside
				 * every FDE, or a rule the walker does not
				 * follow), and no frame pointer either
				 */
	GT_USTOP_SIGNAL,	/* a signal handler's frame: the interrupted
				 * code's registers are not followed
				 */
	GT_USTOP_BAD_CFA,	/* a rule that leads nowhere: a frame not
				 * above the last, a return address outside
				 * user space
				 */
	GT_USTOP_NR,
};

/* struct gt_in_switch.prev_state: how @prev leaves its CPU. */
enum gt_in_prev_state {
	GT_IN_RUNNABLE,		/* preempted or yielding: still runnable */
	GT_IN_SLEEP,		/* going to sleep (any sleep state) */
	GT_IN_DEAD,		/* its final switch (TASK_DEAD) */
};

/*
 * struct gt_in_switch.fd_kind: for a task going to sleep inside a read
 * or write family syscall, the kind of file its first argument names.
 */
enum gt_in_fd_kind {
	GT_IN_FD_UNKNOWN,	/* not looked at, or no such fd */
	GT_IN_FD_OTHER,		/* a regular file, a tty, ... */
	GT_IN_FD_PIPE,		/* a FIFO (S_ISFIFO) */
	GT_IN_FD_SOCKET,	/* a socket (S_ISSOCK) */
};

/**
 * struct gt_in_switch - sched_switch: @prev leaves the CPU, @next runs
 * @ev:		header; @ev.cur is @prev
 * @prev:	the task leaving (may be an idle task)
 * @next:	the task coming in (may be an idle task)
 * @preempt:	@prev was preempted (even if it had set a sleep state)
 * @prev_state:	enum gt_in_prev_state
 * @fd_kind:	user space, when @prev_state is GT_IN_SLEEP: the kind of
 *		file behind the first argument of the syscall @prev sleeps
 *		in (enum gt_in_fd_kind); the module reads it from the
 *		task's registers when the model asks
 */
struct gt_in_switch {
	struct gt_in_ev ev;
	const struct gt_in_task *prev;
	const struct gt_in_task *next;
	u8 preempt;
	u8 prev_state;
	u8 fd_kind;
};

/**
 * struct gt_in_wake - sched_waking, sched_wakeup, sched_wakeup_new
 * @ev:		header; @ev.cur is the waker on sched_waking, whatever runs
 *		on @ev.cpu otherwise
 * @task:	the task woken
 */
struct gt_in_wake {
	struct gt_in_ev ev;
	const struct gt_in_task *task;
};

/**
 * struct gt_in_fork - sched_process_fork: @child exists, not yet running
 * @ev:		header; @ev.cur is the parent
 * @child:	the new task
 */
struct gt_in_fork {
	struct gt_in_ev ev;
	const struct gt_in_task *child;
};

/**
 * struct gt_in_exec - sched_process_exec: @ev.cur runs a new program
 * @ev:		header; @ev.cur already carries the new comm
 * @old_tid:	the task's tid before the exec.  Another than @ev.cur's
 *		when a thread other than its process's leader exec'd: it
 *		took the leader's tid and start time (Linux's de_thread()),
 *		and is still the same task.
 */
struct gt_in_exec {
	struct gt_in_ev ev;
	s32 old_tid;
};

/**
 * struct gt_in_sys_enter - sys_enter: @ev.cur enters syscall @nr
 * @ev:		header
 * @nr:		syscall number of the task's ABI
 * @compat:	the syscall is of the 32-bit ABI (in_compat_syscall())
 */
struct gt_in_sys_enter {
	struct gt_in_ev ev;
	s32 nr;
	u8 compat;
};

/**
 * struct gt_in_sys_exit - sys_exit: @ev.cur leaves its syscall
 * @ev:		header
 */
struct gt_in_sys_exit {
	struct gt_in_ev ev;
};

/**
 * struct gt_in_sample - a CPU sample: the sampler interrupted @ev.cpu
 * @ev:		header; @ev.cur is the task it interrupted (the idle task:
 *		the CPU was idle).  In user space @ev.pcs is the kernel
 *		stack of the code interrupted (none if it was user code)
 *		and @ev.upcs the user stack of @ev.cur; the module reads
 *		both from the interrupt's registers when the model asks.
 * @missed:	samples this CPU's sampler could not take since its last
 *		one (its timer ran late by more than a period)
 */
struct gt_in_sample {
	struct gt_in_ev ev;
	u32 missed;
};

/* struct gt_in_irq.kind: what interrupted the task. */
enum gt_in_irq_kind {
	GT_IN_HARDIRQ,		/* irq:irq_handler_entry/exit: @id the IRQ
				 * number, @name its action's name
				 */
	GT_IN_VECTOR,		/* an architecture's own interrupt: x86's
				 * irq_vectors (local timer, IPIs, IRQ
				 * work...), arm64's ipi_entry/exit: @id an
				 * enum gt_in_vector
				 */
	GT_IN_SOFTIRQ,		/* irq:softirq_entry/exit: @id the softirq's
				 * number (Linux's HI_SOFTIRQ ... RCU_SOFTIRQ,
				 * enum gt_in_softirq)
				 */
	GT_IN_IRQ_KINDS,
};

/* struct gt_in_irq.id of a GT_IN_VECTOR: the interrupts Linux traces. */
enum gt_in_vector {
	GT_IN_VEC_LOCAL_TIMER,		/* the CPU's own timer */
	GT_IN_VEC_RESCHEDULE,		/* IPI: reschedule */
	GT_IN_VEC_CALL_FUNCTION,	/* IPI: function call */
	GT_IN_VEC_CALL_FUNCTION_SINGLE,	/* IPI: function call, one CPU */
	GT_IN_VEC_IRQ_WORK,		/* IRQ work (a self-IPI) */
	GT_IN_VEC_TIMER_BROADCAST,	/* IPI: timer broadcast (arm64) */
	GT_IN_VEC_CPU_STOP,		/* IPI: CPU stop, crash stop (arm64) */
	GT_IN_VEC_PLATFORM,		/* x86: platform IPI, thermal,
					 * threshold, deferred error, error and
					 * spurious APIC interrupts
					 */
	GT_IN_VEC_OTHER,		/* an IPI of a reason not listed */
	GT_IN_VEC_NR,
};

/* struct gt_in_irq.id of a GT_IN_SOFTIRQ: Linux's numbers, stable since 2.6. */
enum gt_in_softirq {
	GT_IN_SOFTIRQ_HI,
	GT_IN_SOFTIRQ_TIMER,
	GT_IN_SOFTIRQ_NET_TX,
	GT_IN_SOFTIRQ_NET_RX,
	GT_IN_SOFTIRQ_BLOCK,
	GT_IN_SOFTIRQ_IRQ_POLL,
	GT_IN_SOFTIRQ_TASKLET,
	GT_IN_SOFTIRQ_SCHED,
	GT_IN_SOFTIRQ_HRTIMER,
	GT_IN_SOFTIRQ_RCU,
	GT_IN_SOFTIRQ_NR,
};

/* Bytes of a hard IRQ's name kept, with its NUL. */
#define GT_IN_IRQ_NAME_LEN	32

/**
 * struct gt_in_irq - an interrupt's handler begins or ends on @ev.cpu
 * @ev:		header; @ev.cur is the task it interrupted (the idle task:
 *		the CPU was idle), the same at the entry and at the exit
 * @kind:	enum gt_in_irq_kind
 * @id:		the IRQ number, enum gt_in_vector or enum gt_in_softirq
 * @name:	GT_IN_HARDIRQ: the handler's name (action->name), NUL-
 *		terminated, at most GT_IN_IRQ_NAME_LEN bytes with its NUL;
 *		NULL otherwise.  Only read during the call.
 *
 * Entries and exits nest (a hard IRQ inside a softirq inside a task) and
 * may be unmatched: an exit of an interrupt whose entry came before the
 * session, an entry whose exit a backend lost.
 */
struct gt_in_irq {
	struct gt_in_ev ev;
	u8 kind;
	u32 id;
	const char *name;
};

/**
 * struct gt_in_work - workqueue_execute_start/end: @ev.cur, a kworker,
 *		       runs a work item
 * @ev:		header
 * @func:	the work item's function (work->func): a kernel address,
 *		named when the trace's tables are written, as a kernel
 *		stack's PCs are
 */
struct gt_in_work {
	struct gt_in_ev ev;
	u64 func;
};

/**
 * struct gt_in_snap_task - one existing task, told at the session's start
 * @task:	the task
 * @sleeping:	it is not runnable (the trace shows it waiting)
 *
 * The snapshot is not an event of a CPU: gt_model_snapshot_task() writes
 * it on the P the snapshot started on.
 */
struct gt_in_snap_task {
	const struct gt_in_task *task;
	u8 sleeping;
};

#endif /* _GT_MODEL_INPUT_H */
