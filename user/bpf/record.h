/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - what the BPF capture programs write into their ring buffers
 *
 * Shared by the BPF programs (gotrace.bpf.c, whose vmlinux.h has the
 * kernel's types) and the reader in user space (<linux/types.h>).
 *
 * Every record starts with struct gtb_hdr.  A task is named by its key,
 * the address of its task_struct: unique while it lives, and the same
 * key the module's model uses.  The first record about a task is
 * preceded by a GTB_TASK record that gives its identity, so the other
 * records carry only keys.  Records that carry a kernel stack end with
 * hdr.nr_frames return addresses.
 *
 * With GOTRACE_OPT_USER_STACKS, the records of a switch, a wakeup, a
 * fork, a syscall entry and a CPU sample may carry the user stack of the
 * task running (current): a struct gtb_ustack right after the kernel
 * frames.  A record has one when hdr.size goes past its kernel frames.
 *
 * The snapshot of the tasks that exist when a session starts is not in
 * the rings: the task iterator program writes one struct gtb_task per
 * recorded task to its own file (bpf_iter), with @state set.
 */
#ifndef GOTRACE_BPF_RECORD_H
#define GOTRACE_BPF_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include <linux/gotrace_unwind.h>

/* Deepest kernel stack a record carries: the module's cap too. */
#define GTB_MAX_FRAMES		32
/* Deepest user stack a record carries: GT_USTACK_MAX, the module's. */
#define GTB_MAX_UFRAMES		32
/*
 * Room for the largest record, a switch with full kernel and user stacks
 * (gotrace.bpf.c checks): the size of the programs' scratch slots.
 */
#define GTB_MAX_RECORD		1024

enum gtb_type {
	GTB_TASK = 1,		/* struct gtb_task: who hdr.key is */
	GTB_SWITCH,		/* struct gtb_switch, stack of prev */
	GTB_WAKING,		/* struct gtb_wake, stack of the waker */
	GTB_WAKEUP,		/* struct gtb_wake, no stack */
	GTB_WAKEUP_NEW,		/* struct gtb_wake, stack of the creator */
	GTB_FORK,		/* struct gtb_fork, stack of the parent */
	GTB_EXEC,		/* struct gtb_exec */
	GTB_EXIT,		/* struct gtb_hdr only */
	GTB_SYS_ENTER,		/* struct gtb_sys: nr, arg0 */
	GTB_SYS_EXIT,		/* struct gtb_sys: nr, return value */
	GTB_SAMPLE,		/* struct gtb_sample, stack of the code
				 * interrupted (none: it was user code) */
	GTB_IRQ_ENTRY,		/* struct gtb_irq: an interrupt begins */
	GTB_IRQ_EXIT,		/* struct gtb_irq: it ends */
	GTB_WORK_START,		/* struct gtb_work: a work item begins */
	GTB_WORK_END,		/* struct gtb_work: it ends */
	GTB_TYPE_COUNT,
};

/* hdr.match: which task of the record the filters select. */
#define GTB_MATCH_KEY		(1U << 0)	/* hdr.key's task */
#define GTB_MATCH_OTHER		(1U << 1)	/* next / child / waker */
/*
 * hdr.key's task is recorded from this record on (a comm filter matched
 * at exec or prctl): it is current, and was switched in while the
 * filters left it out, so no switch record may have put it there.
 */
#define GTB_MATCH_NEW		(1U << 2)

/* struct gtb_switch.fd_kind: what a sleeping read or write waits on. */
#define GTB_FD_NONE		0	/* not asleep in a read or write */
#define GTB_FD_OTHER		1	/* a file that is neither below */
#define GTB_FD_PIPE		2	/* S_IFIFO */
#define GTB_FD_SOCKET		3	/* S_IFSOCK */

/**
 * struct gtb_hdr - the start of every record
 * @ts:		bpf_ktime_get_ns(): CLOCK_MONOTONIC, ns
 * @key:	the task the record is about (see each type)
 * @type:	enum gtb_type
 * @size:	bytes of the whole record, stack included
 * @cpu:	the CPU that wrote it
 * @match:	GTB_MATCH_*
 * @nr_frames:	return addresses after the fixed part
 */
struct gtb_hdr {
	__u64 ts;
	__u64 key;
	__u16 type;
	__u16 size;
	__u16 cpu;
	__u8 match;
	__u8 nr_frames;
};

/* GTB_TASK: @hdr.key's identity, before the first record naming it. */
struct gtb_task {
	struct gtb_hdr hdr;
	__u64 start_time;	/* task->start_time, ns */
	__s32 tid;
	__s32 tgid;
	__u32 flags;		/* task->flags (PF_KTHREAD...) */
	char comm[16];
	__u32 state;		/* snapshot: task->__state (0: runnable) */
	__u32 pad;
	__u64 space;		/* snapshot: its address space, as
				 * gtb_ustack.space (0: none, a kernel
				 * thread): the reader loads the unwind
				 * tables of the processes running at the
				 * start (unwind.rst)
				 */
};

/* GTB_SWITCH: hdr.key is prev; GTB_MATCH_OTHER is next. */
struct gtb_switch {
	struct gtb_hdr hdr;
	__u64 next;
	__u32 prev_state;	/* 0: preempted, else the sleep state */
	__s32 sys_nr;		/* prev's syscall (orig_ax), -1: none */
	__u8 preempt;
	__u8 fd_kind;		/* GTB_FD_* for a sleeping read/write */
	__u8 pad[2];
	/*
	 * The low 32 bits of the writing CPU's count of records dropped
	 * (a full ring), once this record had its room: a switch the
	 * reader finds missing between two switch records of a CPU with
	 * the same count was never written, rather than dropped.
	 */
	__u32 drops;
	__u64 next_cgroup;	/* id of next's cgroup v2 (0: --no-units) */
	__u64 stack[];
};

/*
 * GTB_WAKING, GTB_WAKEUP, GTB_WAKEUP_NEW: hdr.key is the woken task;
 * GTB_MATCH_OTHER is the waker.
 */
struct gtb_wake {
	struct gtb_hdr hdr;
	__u64 waker;		/* current, the waker (may be idle) */
	__s32 target_cpu;
	__u32 pad;
	__u64 stack[];
};

/* GTB_FORK: hdr.key is the parent; GTB_MATCH_OTHER is the child. */
struct gtb_fork {
	struct gtb_hdr hdr;
	__u64 child;
	__u64 stack[];
};

/* GTB_EXEC: hdr.key's new program. */
struct gtb_exec {
	struct gtb_hdr hdr;
	__s32 old_tid;		/* a non-leader thread's tid before exec */
	__s32 tid;		/* its tid after exec (the leader's) */
	char comm[16];
};

/* GTB_SYS_ENTER, GTB_SYS_EXIT: hdr.key is current. */
struct gtb_sys {
	struct gtb_hdr hdr;
	__s64 val;		/* enter: arg0; exit: the return value */
	__s32 nr;
	__u32 compat;		/* a 32-bit syscall (TS_COMPAT) */
	__u64 stack[];		/* enter: no kernel frames, maybe a user stack */
};

/*
 * GTB_SAMPLE: a CPU sample (--cpu-hz), taken by a perf event's interrupt
 * on hdr.cpu; hdr.key is the task it interrupted (GTB_MATCH_KEY: a
 * recorded one, the only ones with stacks).  Samples of the idle task
 * and of the tasks the filters leave out are written too, without
 * stacks, so that the model counts them as the module's does.
 */
struct gtb_sample {
	struct gtb_hdr hdr;
	__u32 missed;		/* samples of this CPU not taken since its
				 * last one (its timer late, or the program
				 * not run): the module's missed */
	__u8 idle;		/* hdr.key is the CPU's idle task */
	__u8 user;		/* it interrupted user mode: no kernel frames */
	__u8 pad[2];
	__u64 stack[];
};

/* gtb_irq.kind: enum gt_in_irq_kind of model/model_input.h. */
#define GTB_IRQ_HARD		0	/* irq:irq_handler_entry/exit */
#define GTB_IRQ_VECTOR		1	/* x86's irq_vectors, arm64's ipi */
#define GTB_IRQ_SOFT		2	/* irq:softirq_entry/exit */

/* gtb_irq.id of a GTB_IRQ_VECTOR: enum gt_in_vector. */
#define GTB_VEC_LOCAL_TIMER		0
#define GTB_VEC_RESCHEDULE		1
#define GTB_VEC_CALL_FUNCTION		2
#define GTB_VEC_CALL_FUNCTION_SINGLE	3
#define GTB_VEC_IRQ_WORK		4
#define GTB_VEC_TIMER_BROADCAST		5
#define GTB_VEC_CPU_STOP		6
#define GTB_VEC_PLATFORM		7
#define GTB_VEC_OTHER			8

/* Bytes of a hard IRQ's name a record keeps: GT_IN_IRQ_NAME_LEN. */
#define GTB_IRQ_NAME		32

/*
 * GTB_IRQ_ENTRY, GTB_IRQ_EXIT: an interrupt's handler on hdr.cpu begins
 * or ends.  hdr.key is current, the task it interrupted (the CPU's idle
 * task: it was idle); GTB_MATCH_KEY if that task is recorded.  Written
 * when the task interrupted is recorded, and, when the session has no
 * task filter, when the CPU was idle.  No stack.
 */
struct gtb_irq {
	struct gtb_hdr hdr;
	__u32 id;		/* the IRQ number, GTB_VEC_* or the softirq's
				 * number (HI_SOFTIRQ 0 ... RCU_SOFTIRQ 9) */
	__u8 kind;		/* GTB_IRQ_* */
	__u8 pad[3];
};

/*
 * GTB_IRQ_ENTRY of a GTB_IRQ_HARD (hdr.size says): with its action's
 * name, the row of /proc/interrupts.  Its exit goes without: the reader
 * knows the entry's.
 */
struct gtb_irq_named {
	struct gtb_irq irq;
	char name[GTB_IRQ_NAME];	/* NUL-terminated */
};

/*
 * GTB_WORK_START, GTB_WORK_END: workqueue_execute_start/end, current
 * (hdr.key, a kworker, recorded) runs a work item.
 */
struct gtb_work {
	struct gtb_hdr hdr;
	__u64 func;		/* work->func, a kernel address */
};

/*
 * The user stack of current, walked by its frame pointers as the
 * module's kmod/ustack.c walks it (Documentation/user-stacks.rst):
 * @pcs[0] is the user PC, then one return address per frame.  Raw
 * addresses: the reader names them as a file and an offset from the
 * process's mappings, off the event path.
 */
struct gtb_ustack {
	__u64 space;		/* the address space: 48 bits of a hash of
				 * (tgid, its leader's start time, the exec
				 * count), as the module's */
	__u64 exe_ino;		/* the inode of its program (mm->exe_file):
				 * the reader reads the maps of a process
				 * still running that program only */
	__s32 tid;		/* current's: whose /proc/TID/maps names them */
	__s32 tgid;		/* its process's, when the thread is gone */
	__u16 nr;		/* PCs in @pcs, 1 to GTB_MAX_UFRAMES */
	__u16 stop;		/* why the walk stopped early: GTB_USTOP_* */
	__u32 flags;		/* GTB_USTACK_* */
	__u64 pcs[];
};

/*
 * gtb_ustack.flags.  EXACT: pcs[0] is the instruction an interrupt or a
 * fault stopped, not the return address a syscall leaves (the module's
 * gt_ustack_walk()).
 */
#define GTB_USTACK_EXACT	(1U << 0)

/* gtb_ustack.stop: enum gt_ustack_stop of model/model_input.h. */
#define GTB_USTOP_NONE		0
#define GTB_USTOP_BAD_FP	1
#define GTB_USTOP_FAULT		2
#define GTB_USTOP_DEPTH		3
#define GTB_USTOP_NO_TABLE	4
#define GTB_USTOP_NO_RULE	5
#define GTB_USTOP_SIGNAL	6
#define GTB_USTOP_BAD_CFA	7

/*
 * Unwind tables (GOTRACE_OPT_UNWIND_TABLES, gotrace_unwind.h): the
 * tables a session holds at most, and the address spaces whose
 * executable mappings it knows at once.
 */
#define GTB_UNWIND_TABLES	4096
#define GTB_UNWIND_SPACES	16384

/* One address space's executable mappings, sorted by start. */
struct gtb_unwind_space {
	__u32 nr;
	__u32 pad;
	struct gotrace_unwind_map maps[GOTRACE_UNWIND_MAPS_MAX];
};

/**
 * struct gtb_config - what one session records, set before loading
 *
 * The BPF side of struct gotrace_options (include/uapi/linux/gotrace.h).
 */
struct gtb_config {
	__u32 flags;		/* GOTRACE_OPT_* */
	__u32 syscalls;		/* GOTRACE_SYSCALLS_* */
	__u32 syscall_set_mode;	/* GOTRACE_SET_* */
	__u32 nr_pids;
	__s32 pids[64];
	char comm[16];
	__u64 cgroup_id;
	__u64 syscall_set[16];
	__u64 sample_ns;	/* --cpu-hz: the samples' period, 0: none */
};

#endif /* GOTRACE_BPF_RECORD_H */
