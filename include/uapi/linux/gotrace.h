/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gotrace.h - the ABI of /dev/gotrace, shared by the module and userspace
 *
 * /dev/gotrace serves the whole machine's scheduling as a Go execution
 * trace.  In the "go 1.23 trace" format (the default), read() returns the
 * 16-byte header, then one complete generation after another (every
 * generation_ms, or sooner when a CPU's buffer is half full), the last one
 * once the session stopped, then end of file.  In flight mode
 * (gotrace_options.flight_ms, .flight_bytes) the session keeps its
 * finished generations in a window instead, and read() returns nothing
 * until GOTRACE_IOC_SNAPSHOT (or a trigger): then the header and the
 * window's generations, a complete trace, then 0 once; at the stop the
 * last window, then end of file.  In the "go 1.11 trace" format
 * (GOTRACE_FORMAT_GO111, for readers older than Go 1.23), read()
 * returns the header, then per-CPU batches of events as they fill, then,
 * once the session stopped, the footer (frequency, strings, stacks) and
 * end of file.
 *
 * Opening for reading starts a session (one reader at a time).  Opening
 * for writing only gives a control handle: it never starts a session and
 * may be used while another process reads.  See
 * Documentation/gotrace.rst for the full contract.
 *
 * Structures that grow: every structure starts with its __u32 @size, set
 * by the caller to the size it was built with (sizeof), at least the
 * structure's GOTRACE_*_SIZE_VER0.  The module reads a smaller structure
 * as if the fields it lacks were zero, and a larger one if the fields it
 * does not know are zero (-E2BIG otherwise).  It writes at most @size
 * bytes, zeroes what the caller has beyond the module's own structure,
 * and sets @size to the bytes it wrote: a field lies within them, or the
 * module is older than it.
 *
 * Pids: the pids a caller passes (gotrace_options.pids,
 * gotrace_trigger.pid) are in the caller's pid namespace, translated
 * when the ioctl is made (a task that ends and whose number is reused
 * afterwards is not followed: pass live tasks), and the pids the module
 * returns (gotrace_status.reader_pid, gotrace_snapshot.tid and .tgid)
 * are in the pid namespace of the caller that reads them, 0 where that
 * namespace cannot see the task.  The trace itself describes the whole
 * machine: its goroutine and thread ids are the initial pid namespace's.
 */
#ifndef _UAPI_LINUX_GOTRACE_H
#define _UAPI_LINUX_GOTRACE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#include "gotrace_unwind.h"

#define GOTRACE_DEVICE_NAME	"gotrace"
#define GOTRACE_DEVICE_PATH	"/dev/gotrace"

/*
 * Bumped on every incompatible change of the ABI.  Version 2: the ioctl
 * type GOTRACE_IOC_MAGIC, structures that grow by their @size.
 */
#define GOTRACE_ABI_VERSION	2

/*
 * Trace formats (struct gotrace_options.format).  0 is the module's
 * "format" parameter, go1.23 unless the administrator set go1.11: a
 * session opened without options, or with options from a caller older
 * than the field (it was reserved, so zero), gets it.  Such a caller
 * copies the stream as it is, so its file is valid in either format, but
 * its own tools may read only go1.11: set the parameter for it.
 */
#define GOTRACE_FORMAT_DEFAULT	0	/* the module's format parameter */
#define GOTRACE_FORMAT_GO111	1	/* "go 1.11 trace": one generation */
#define GOTRACE_FORMAT_GO123	2	/* "go 1.23 trace": generations, read
					 * by Go 1.23 and later
					 */

/* Session states, as reported by GOTRACE_IOC_GET_STATUS. */
#define GOTRACE_STATE_IDLE	0	/* no session */
#define GOTRACE_STATE_RECORDING	1	/* probes attached, events flowing */
#define GOTRACE_STATE_STOPPED	2	/* probes detached, reader drains */
#define GOTRACE_STATE_DONE	3	/* footer read, next read is EOF */
#define GOTRACE_STATE_READY	4	/* opened; recording starts at the
					 * reader's first read() or poll()
					 */

/* Why a session stopped (gotrace_status.stop_reason). */
#define GOTRACE_STOP_NONE	0	/* still recording */
#define GOTRACE_STOP_USER	1	/* "stop" written or GOTRACE_IOC_STOP */
#define GOTRACE_STOP_DURATION	2	/* the duration_ms limit elapsed */
#define GOTRACE_STOP_OVERFLOW	3	/* a pool ran out: trace ends cleanly */
#define GOTRACE_STOP_ABORT	4	/* reader closed before end of file */

/**
 * struct gotrace_status - what a session is doing
 * @size:		set by the caller (sizeof); on return the bytes written
 * @version:		GOTRACE_ABI_VERSION
 * @state:		GOTRACE_STATE_*
 * @stop_reason:	GOTRACE_STOP_*
 * @nr_cpus:		number of Ps in the trace (the highest CPU online when
 *			the session started, plus one; before: as if now)
 * @reader_pid:		pid of the process that opened the session, in the
 *			caller's pid namespace; 0: none, or not visible
 * @start_ns:		CLOCK_MONOTONIC time the session started, in ns
 * @events:		events written so far, as the trace's readers count them
 * @bytes_produced:	bytes of trace produced so far (header included)
 * @bytes_read:		bytes of trace returned by read() so far
 * @chunks_total:	chunks in the session's pool
 * @chunks_in_use:	chunks held by CPUs, queued, or being read
 * @lost_events:	events that could not be recorded (each one ends
 *			the session: the trace stays valid up to that point)
 * @chunk_overflows:	times a CPU found the chunk pool empty
 * @task_overflows:	times the task table was full
 * @stack_overflows:	times the stack table was full
 * @format:		GOTRACE_FORMAT_GO111 or _GO123 (0 before the start)
 * @generations:	generations written so far (format GO123)
 * @flight_bytes:	flight mode: memory the window's generations hold
 * @flight_generations: flight mode: generations in the window
 * @unit_overflows:	systemd units the trace could not name (the
 *			session's table of units was full, or a name too
 *			long): their tasks show no unit
 * @ustack_walks:	GOTRACE_OPT_USER_STACKS: user stacks walked
 * @ustack_bad_fp:	walks ended early by a bad frame pointer (code
 *			without frame pointers)
 * @ustack_faults:	walks ended early by a frame that could not be
 *			read without sleeping
 * @ustack_depth:	walks ended early by the depth limit
 * @ustack_queue_full:	new stacks whose user frames could not be queued
 *			to be named (the queue was full): "[unknown]"
 * @ustack_map_full:	user PCs not named for want of room in the
 *			session's maps (of addresses or of files)
 * @cpu_samples:	@cpu_hz: CPU samples written
 * @cpu_samples_idle:	samples that found their CPU idle: counted, not
 *			written
 * @cpu_samples_hidden:	samples of tasks the session's filters leave out:
 *			counted, not written
 * @cpu_samples_lost:	samples not taken (a timer that ran late by more
 *			than a period) or not written (no room)
 * @ustack_mm_busy:	new stacks whose user frames were not named: the
 *			mmap_lock of their address space was held (a fault
 *			waiting for FUSE, NFS...), and the naming does not
 *			wait for another process; "[unknown]", named at a
 *			later stack of the same frames
 * @ustack_no_table:	walks ended early at a PC whose unwind table the
 *			command had not loaded (GOTRACE_OPT_UNWIND_TABLES:
 *			a process or library new to it, a table evicted),
 *			where no frame pointer led on either
 * @ustack_no_rule:	walks ended early at a PC its table has no rule for
 *			(code outside every FDE, or a rule the walker does
 *			not follow), where no frame pointer led on either
 * @ustack_signal:	walks ended at a signal handler's frame
 * @ustack_bad_cfa:	walks ended early by a table's rule that led
 *			nowhere (a frame not above the last, a return
 *			address outside user space)
 * @unwind_misses:	GOTRACE_OPT_UNWIND_TABLES: walks that found no
 *			mappings of their address space, or a PC in none
 *			of them, reported to the command
 *			(GOTRACE_IOC_UNWIND_MISSES) to load them
 * @unwind_misses_lost:	of those, reports dropped: the queue was full
 *			(the command loads such a process when it sees it
 *			otherwise, or not at all)
 * @unwind_space_races:	walks that found their space's mappings being
 *			rewritten (GOTRACE_IOC_UNWIND_SPACE) and went on by
 *			frame pointers
 */
struct gotrace_status {
	__u32 size;
	__u32 version;
	__u32 state;
	__u32 stop_reason;
	__u32 nr_cpus;
	__u32 reader_pid;
	__u64 start_ns;
	__u64 events;
	__u64 bytes_produced;
	__u64 bytes_read;
	__u64 chunks_total;
	__u64 chunks_in_use;
	__u64 lost_events;
	__u64 chunk_overflows;
	__u64 task_overflows;
	__u64 stack_overflows;
	__u32 format;
	__u32 reserved32;
	__u64 generations;
	__u64 flight_bytes;
	__u64 flight_generations;
	__u64 unit_overflows;
	__u64 ustack_walks;
	__u64 ustack_bad_fp;
	__u64 ustack_faults;
	__u64 ustack_depth;
	__u64 ustack_queue_full;
	__u64 ustack_map_full;
	__u64 cpu_samples;
	__u64 cpu_samples_idle;
	__u64 cpu_samples_hidden;
	__u64 cpu_samples_lost;
	__u64 ustack_mm_busy;
	__u64 ustack_no_table;
	__u64 ustack_no_rule;
	__u64 ustack_signal;
	__u64 ustack_bad_cfa;
	__u64 unwind_misses;
	__u64 unwind_misses_lost;
	__u64 unwind_space_races;
	/*
	 * Interrupts (GOTRACE_OPT_HARDIRQS, _SOFTIRQS, _WORKQUEUE;
	 * Documentation/interrupts.rst): exits that matched no interrupt
	 * the CPU was in (ignored), entries nested past the depth kept
	 * (not written, nor their exits), interrupts closed without their
	 * exit (a deeper exit, a switch of the task they interrupted), and
	 * work items not written for want of room for their function.
	 */
	__u64 irq_unmatched;
	__u64 irq_too_deep;
	__u64 irq_closed;
	__u64 work_unnamed;
};

/* Syscall recording modes (struct gotrace_options.syscalls). */
#define GOTRACE_SYSCALLS_ALL		0	/* GoSysCall at every entry */
#define GOTRACE_SYSCALLS_BLOCKING	1	/* only syscalls that sleep */
#define GOTRACE_SYSCALLS_NONE		2	/* none: a sleep in a syscall the
						 * model does not classify is a
						 * plain GoBlock
						 */

/* How struct gotrace_options.syscall_set applies. */
#define GOTRACE_SET_OFF		0	/* every syscall */
#define GOTRACE_SET_INCLUDE	1	/* only the syscalls in the set */
#define GOTRACE_SET_EXCLUDE	2	/* all but the syscalls in the set */

/*
 * Bits of syscall_set: the native syscall numbers of the kernel's
 * architecture (x86-64's, arm64's); a compat (ia32, aarch32) syscall
 * counts as the native one of the same name.
 */
#define GOTRACE_SYSCALL_MAX	1024

/* struct gotrace_options.flags */
#define GOTRACE_OPT_TGID	(1U << 0)	/* pids are processes: all their
						 * threads match
						 */
#define GOTRACE_OPT_CHILDREN	(1U << 1)	/* tasks created by a matching
						 * task match too
						 */
#define GOTRACE_OPT_NO_KSTACKS	(1U << 2)	/* no kernel stacks: events
						 * carry the [comm] and
						 * [syscall] frames only
						 */
#define GOTRACE_OPT_NO_WAKE_KSTACKS (1U << 3)	/* no kernel stack at
						 * wakeups and creations:
						 * the waker's [comm]
						 * frame only; blocks keep
						 * theirs
						 */
#define GOTRACE_OPT_NO_UNITS	(1U << 4)	/* no user regions naming
						 * each task's systemd unit
						 * (written in the go1.23
						 * format only)
						 */
#define GOTRACE_OPT_USER_STACKS	(1U << 5)	/* the user frames of the
						 * running task (frame
						 * pointers) in the stacks
						 * of blocks, syscalls,
						 * preemptions, wakeups
						 * and creations, as files
						 * and offsets
						 * (Documentation/
						 * user-stacks.rst)
						 */
#define GOTRACE_OPT_CPU_ISOLATED (1U << 6)	/* with @cpu_hz, sample the
						 * isolated CPUs too
						 * (isolcpus=, nohz_full=):
						 * by default only the
						 * housekeeping ones are
						 * (Documentation/
						 * cpu-samples.rst)
						 */
#define GOTRACE_OPT_UNWIND_TABLES (1U << 7)	/* with
						 * GOTRACE_OPT_USER_STACKS,
						 * walk by the unwind
						 * tables the command
						 * loaded
						 * (gotrace_unwind.h,
						 * GOTRACE_IOC_UNWIND_*),
						 * by frame pointers
						 * where there is none
						 * (Documentation/
						 * unwind.rst)
						 */
#define GOTRACE_OPT_HARDIRQS	(1U << 8)	/* hard interrupts as
						 * goroutines of their own
						 * that the CPU's P runs
						 * while the task they
						 * interrupt waits:
						 * handlers and the
						 * architecture's vectors
						 * (local timer, IPIs)
						 * (Documentation/
						 * interrupts.rst)
						 */
#define GOTRACE_OPT_SOFTIRQS	(1U << 9)	/* softirqs the same way,
						 * one goroutine per kind
						 * and CPU
						 */
#define GOTRACE_OPT_WORKQUEUE	(1U << 10)	/* a kworker's time split
						 * into regions named
						 * after each work item's
						 * function
						 */

#define GOTRACE_MAX_PIDS	64

/**
 * struct gotrace_options - what a session records
 * @size:		sizeof(struct gotrace_options) as the caller knows it
 * @flags:		GOTRACE_OPT_*
 * @chunks:		64 KiB buffers for the session (0: the module's default)
 * @syscalls:		GOTRACE_SYSCALLS_*
 * @syscall_set_mode:	GOTRACE_SET_*
 * @nr_pids:		entries of @pids in use (0: no pid filter)
 * @pids:		thread ids, or process ids with GOTRACE_OPT_TGID, in
 *			the caller's pid namespace
 * @comm:		only tasks with this command name ("": no filter)
 * @cgroup_id:		only tasks in this cgroup v2 or below it (0: no
 *			filter); the id is the inode number of the cgroup's
 *			directory
 * @syscall_set:	bitmap of the native syscall numbers of the kernel's
 *			architecture, for @syscall_set_mode
 * @format:		GOTRACE_FORMAT_* (0: the module's format parameter,
 *			go1.23 by default)
 * @generation_ms:	with GOTRACE_FORMAT_GO123, how long a generation
 *			lasts at most (0: the module's generation_ms)
 * @flight_ms:		flight mode: keep the finished generations that
 *			cover the last @flight_ms in kernel memory, drop
 *			older ones, and give the reader only snapshots
 *			(GOTRACE_IOC_SNAPSHOT); 0: no time window
 * @cpu_hz:		with GOTRACE_FORMAT_GO123, sample every online
 *			housekeeping CPU (every online CPU with
 *			GOTRACE_OPT_CPU_ISOLATED) this many times a second
 *			(1 to GOTRACE_CPU_HZ_MAX):
 *			each sample is the task running, its kernel stack
 *			and, with GOTRACE_OPT_USER_STACKS, its user stack
 *			(0: the module's cpu_hz parameter, none by
 *			default); the go1.11 format has no CPU samples
 *			(-EINVAL)
 * @flight_bytes:	flight mode: keep at most this many bytes of
 *			generations (0 with @flight_ms set:
 *			GOTRACE_FLIGHT_BYTES_DEFAULT); flight mode is on when
 *			@flight_ms or @flight_bytes is set, and needs
 *			GOTRACE_FORMAT_GO123 (GOTRACE_FORMAT_DEFAULT becomes
 *			it)
 * @unwind_rows:	GOTRACE_OPT_UNWIND_TABLES: slots of the session's
 *			array of unwind rows (16 bytes each), from
 *			GOTRACE_UNWIND_ROWS_MIN to GOTRACE_UNWIND_ROWS_MAX
 *			(0: GOTRACE_UNWIND_ROWS_DEFAULT); kernel memory,
 *			allocated by GOTRACE_IOC_SET_OPTIONS
 * @unwind_spaces:	GOTRACE_OPT_UNWIND_TABLES: address spaces whose
 *			mappings the session holds at once, 4 KiB each,
 *			from GOTRACE_UNWIND_SPACES_MIN to
 *			GOTRACE_UNWIND_SPACES_MAX (0:
 *			GOTRACE_UNWIND_SPACES_DEFAULT)
 *
 * A task is recorded when it matches every filter given (pids, comm,
 * cgroup), decided when the session first sees it.  Tasks not recorded
 * leave their CPU looking idle.  All zero: everything, every syscall.
 */
struct gotrace_options {
	__u32 size;
	__u32 flags;
	__u32 chunks;
	__u32 syscalls;
	__u32 syscall_set_mode;
	__u32 nr_pids;
	__s32 pids[GOTRACE_MAX_PIDS];
	char comm[16];
	__u64 cgroup_id;
	__u64 syscall_set[GOTRACE_SYSCALL_MAX / 64];
	__u32 format;
	__u32 generation_ms;
	__u32 flight_ms;
	__u32 cpu_hz;
	__u64 flight_bytes;
	__u32 unwind_rows;
	__u32 unwind_spaces;
};

/*
 * The PCs of user frames in a trace's stacks (GOTRACE_OPT_USER_STACKS;
 * Documentation/user-stacks.rst): the top byte is a tag, the rest says
 * which frame.  FILE and FILE_EXACT: the file's index << 32 | the offset
 * in it, the frame named "<basename>+0x<offset>" in the file's absolute
 * path; a return address for FILE, named by the byte before it (its
 * call), and the exact instruction for FILE_EXACT (the PC of a task an
 * interrupt or a fault stopped), named by its own byte.  UNKNOWN: an
 * address in no file.  TRUNC: the frame that ends a truncated walk.
 */
#define GOTRACE_UPC_TAG_SHIFT	56
#define GOTRACE_UPC_FILE	0x01
#define GOTRACE_UPC_UNKNOWN	0x02
#define GOTRACE_UPC_TRUNC	0x03
#define GOTRACE_UPC_FILE_EXACT	0x04

/*
 * The buffers of a session (struct gotrace_options.chunks): their size,
 * the least a session takes per online CPU (fewer are raised to it), and
 * the most (1 GiB).
 */
#define GOTRACE_CHUNK_BYTES		(64 * 1024)
#define GOTRACE_CHUNKS_PER_CPU_MIN	2U
#define GOTRACE_CHUNKS_MAX		16384U

/* Most CPU samples a second (struct gotrace_options.cpu_hz). */
#define GOTRACE_CPU_HZ_MAX		999U

/* Bounds of the flight window (struct gotrace_options). */
#define GOTRACE_FLIGHT_MS_MAX		3600000U	/* one hour */
#define GOTRACE_FLIGHT_BYTES_MIN	(1ULL << 20)	/* 1 MiB */
#define GOTRACE_FLIGHT_BYTES_MAX	(4ULL << 30)	/* 4 GiB */
#define GOTRACE_FLIGHT_BYTES_DEFAULT	(256ULL << 20)	/* 256 MiB */

/* Why a snapshot was taken (struct gotrace_snapshot.reason). */
#define GOTRACE_SNAP_NONE	0	/* no snapshot yet */
#define GOTRACE_SNAP_USER	1	/* GOTRACE_IOC_SNAPSHOT, "snapshot" */
#define GOTRACE_SNAP_TRIGGER	2	/* a trigger fired (@trigger) */
#define GOTRACE_SNAP_STOP	3	/* the session stopped: the last
					 * window, then end of file
					 */

/* Triggers (struct gotrace_trigger.type). */
#define GOTRACE_TRIGGER_NONE		0
#define GOTRACE_TRIGGER_SCHED_LATENCY	1	/* a task runnable longer than
						 * @threshold_ns before it ran
						 */
#define GOTRACE_TRIGGER_OFFCPU		2	/* a task blocked longer than
						 * @threshold_ns before it was
						 * woken; needs @pid or @comm
						 */
#define GOTRACE_TRIGGER_SYSCALL		3	/* a task enters the native
						 * syscall @syscall
						 */

/* struct gotrace_trigger.flags */
#define GOTRACE_TRIG_TGID	(1U << 0)	/* @pid is a process: all its
						 * threads match
						 */

/**
 * struct gotrace_trigger - when a flight-mode session takes a snapshot
 * by itself
 * @size:		sizeof(struct gotrace_trigger) as the caller knows it
 * @type:		GOTRACE_TRIGGER_* (NONE: no trigger)
 * @threshold_ns:	fires when the measured value exceeds it (at least
 *			GOTRACE_TRIGGER_MIN_NS); not for SYSCALL
 * @pid:		only this thread (process with GOTRACE_TRIG_TGID), in
 *			the caller's pid namespace;
 *			0: every recorded task
 * @flags:		GOTRACE_TRIG_*
 * @comm:		only tasks of this command name ("": any)
 * @post_ms:		the snapshot is taken this long after the trigger
 *			fired (0: at once), so the window shows what
 *			followed
 * @holdoff_ms:		after a trigger fired, others do not fire for this
 *			long (0: GOTRACE_TRIGGER_HOLDOFF_DEFAULT_MS; never
 *			less than @post_ms): a storm gives one snapshot
 * @syscall:		for SYSCALL: its number, native to the kernel's
 *			architecture (native ABI only)
 * @reserved32:		zero
 *
 * Evaluated in the scheduler's hooks, in O(1), as the event happens: the
 * trace marks the goroutine it fired for with a user log ("gotrace"
 * category) where it starts running next.
 */
struct gotrace_trigger {
	__u32 size;
	__u32 type;
	__u64 threshold_ns;
	__s32 pid;
	__u32 flags;
	char comm[16];
	__u32 post_ms;
	__u32 holdoff_ms;
	__s32 syscall;
	__u32 reserved32;
};

#define GOTRACE_TRIGGER_MIN_NS			10000ULL	/* 10 us */
#define GOTRACE_TRIGGER_DELAY_MS_MAX		600000U		/* 10 min */
#define GOTRACE_TRIGGER_HOLDOFF_DEFAULT_MS	10000U

/**
 * struct gotrace_snapshot - the last snapshot of a flight-mode session
 * @size:		set by the caller (sizeof); on return the bytes written
 * @reason:		GOTRACE_SNAP_*
 * @seq:		its number, from 1 (0: none taken yet)
 * @time_ns:		CLOCK_MONOTONIC time it was taken
 * @start_ns:		trace time (CLOCK_MONOTONIC ns) its first generation
 *			starts at
 * @end_ns:		trace time its last event is at, at most
 * @bytes:		its size, header included
 * @generations:	the generations it holds
 * @trigger:		GOTRACE_TRIGGER_* that fired (@reason TRIGGER)
 * @tid:		the thread it fired for, in the caller's pid namespace
 *			(0: not visible there)
 * @tgid:		its process, likewise
 * @value_ns:		what was measured (the latency, the time blocked;
 *			for SYSCALL, the syscall's number)
 * @trigger_ns:		trace time it fired at
 * @comm:		the thread's command name
 * @triggers:		triggers fired so far in the session
 * @held_off:		triggers that did not fire for the hold-off
 * @missed:		snapshots asked for (or triggered) while one was
 *			still being read: not taken
 * @dropped:		generations dropped from the window so far
 */
struct gotrace_snapshot {
	__u32 size;
	__u32 reason;
	__u64 seq;
	__u64 time_ns;
	__u64 start_ns;
	__u64 end_ns;
	__u64 bytes;
	__u32 generations;
	__u32 trigger;
	__s32 tid;
	__s32 tgid;
	__u64 value_ns;
	__u64 trigger_ns;
	char comm[16];
	__u64 triggers;
	__u64 held_off;
	__u64 missed;
	__u64 dropped;
};

/**
 * struct gotrace_cpu_status - one CPU of a session
 * @size:		set by the caller (sizeof); on return the bytes written
 * @cpu:		the CPU asked about (set by the caller)
 * @online:		1 if the CPU is online
 * @running:		1 if its P is started in the trace
 * @events:		events this CPU wrote
 * @lost_events:	events it could not write
 * @chunk_overflows:	times it found the chunk pool empty
 * @cpu_samples:	CPU samples it wrote
 * @cpu_samples_idle:	samples that found it idle
 * @cpu_samples_hidden:	samples of tasks the filters leave out
 * @cpu_samples_lost:	samples not taken or not written
 */
struct gotrace_cpu_status {
	__u32 size;
	__u32 cpu;
	__u32 online;
	__u32 running;
	__u64 events;
	__u64 lost_events;
	__u64 chunk_overflows;
	__u64 cpu_samples;
	__u64 cpu_samples_idle;
	__u64 cpu_samples_hidden;
	__u64 cpu_samples_lost;
};

/*
 * The size of each structure's first version: a caller may pass any
 * @size from it on (see "Structures that grow" above).
 */
#define GOTRACE_STATUS_SIZE_VER0	104	/* up to @stack_overflows */
#define GOTRACE_STATUS_SIZE_VER1	144	/* + @format ... @unit_overflows */
#define GOTRACE_STATUS_SIZE_VER2	192	/* + @ustack_walks ...
						 * @ustack_map_full
						 */
#define GOTRACE_STATUS_SIZE_VER3	224	/* + @cpu_samples ...
						 * @cpu_samples_lost
						 */
#define GOTRACE_STATUS_SIZE_VER4	232	/* + @ustack_mm_busy */
#define GOTRACE_STATUS_SIZE_VER5	264	/* + @ustack_no_table ...
						 * @ustack_bad_cfa
						 */
#define GOTRACE_STATUS_SIZE_VER6	288	/* + @unwind_misses ...
						 * @unwind_space_races
						 */
#define GOTRACE_STATUS_SIZE_VER7	320	/* + @irq_unmatched ...
						 * @work_unnamed
						 */
#define GOTRACE_OPTIONS_SIZE_VER0	432	/* up to @syscall_set */
#define GOTRACE_OPTIONS_SIZE_VER1	456	/* + @format ... @flight_bytes */
#define GOTRACE_OPTIONS_SIZE_VER2	464	/* + @unwind_rows, @unwind_spaces */
#define GOTRACE_CPU_STATUS_SIZE_VER0	40
#define GOTRACE_CPU_STATUS_SIZE_VER1	72	/* + @cpu_samples ...
						 * @cpu_samples_lost
						 */
#define GOTRACE_SNAPSHOT_SIZE_VER0	128
#define GOTRACE_TRIGGER_SIZE_VER0	56

/*
 * 0xB9: no other ioctl of the kernel has this type (0xB7, used before,
 * is nsfs's and remoteproc's).  The kernel matches a command by its
 * direction, type and number only: the size field of the command is
 * the structure's size when the caller was built, and the structure's
 * own @size says how much of it there is.
 */
#define GOTRACE_IOC_MAGIC	0xB9

/*
 * GOTRACE_IOC_STOP - stop the current session
 *
 * The reader then receives what is still buffered, the footer and EOF.
 * Errors: -ENOENT when no reader has the device open.
 */
#define GOTRACE_IOC_STOP	_IO(GOTRACE_IOC_MAGIC, 1)

/*
 * GOTRACE_IOC_GET_STATUS - copy struct gotrace_status to the argument
 *
 * The caller sets @size.  Works on any open handle, with or without a
 * session.  Errors: -EINVAL for a size below GOTRACE_STATUS_SIZE_VER0,
 * -E2BIG for one above a page, -EFAULT for a bad pointer.
 */
#define GOTRACE_IOC_GET_STATUS	_IOWR(GOTRACE_IOC_MAGIC, 2, struct gotrace_status)

/*
 * GOTRACE_IOC_SET_OPTIONS - set what the reader's session records
 *
 * Only on the reader's handle, before its first read() or poll(), which
 * starts the recording.  The pids are the caller's (see "Pids" above).
 * Errors: -EBADF on a control handle, -EBUSY once recording started,
 * -EINVAL for an unknown flag or mode, a size below
 * GOTRACE_OPTIONS_SIZE_VER0, non-zero reserved fields or more than
 * GOTRACE_MAX_PIDS pids, -E2BIG for a larger structure whose fields
 * beyond the module's are not zero, -ESRCH for a pid the caller's pid
 * namespace has no task of, -EFAULT for a bad pointer.
 */
#define GOTRACE_IOC_SET_OPTIONS	_IOW(GOTRACE_IOC_MAGIC, 3, struct gotrace_options)

/*
 * GOTRACE_IOC_GET_CPU_STATUS - the counters of one CPU of the session
 *
 * The caller sets @size and @cpu.  Works on any open handle; without a
 * recording session the counters are zero.
 * Errors: -EINVAL for a size below GOTRACE_CPU_STATUS_SIZE_VER0 or a
 * CPU beyond nr_cpus, -E2BIG for a size above a page, -EFAULT.
 */
#define GOTRACE_IOC_GET_CPU_STATUS _IOWR(GOTRACE_IOC_MAGIC, 4, struct gotrace_cpu_status)

/*
 * GOTRACE_IOC_SNAPSHOT - a flight-mode session writes its window
 *
 * Works on any handle.  The current generation ends now; the reader's
 * read() then returns a complete trace: the header and the generations
 * kept (the window), then 0 once (the end of the snapshot), while the
 * session goes on recording.  Writing "snapshot" to the device does the
 * same.  Errors: -ENOENT when no session records, -EINVAL when it is not
 * in flight mode, -EBUSY while the reader has not read the previous
 * snapshot to its end (counted in gotrace_snapshot.missed), -ENOMEM.
 */
#define GOTRACE_IOC_SNAPSHOT	_IO(GOTRACE_IOC_MAGIC, 5)

/*
 * GOTRACE_IOC_GET_SNAPSHOT - struct gotrace_snapshot of the last snapshot
 *
 * The caller sets @size.  Works on any handle; without a flight-mode
 * session everything is zero.  @tid and @tgid are in the caller's pid
 * namespace (0: not visible there).  Errors: -EINVAL for a size below
 * GOTRACE_SNAPSHOT_SIZE_VER0, -E2BIG for one above a page, -EFAULT.
 */
#define GOTRACE_IOC_GET_SNAPSHOT _IOWR(GOTRACE_IOC_MAGIC, 6, struct gotrace_snapshot)

/*
 * GOTRACE_IOC_SET_TRIGGER - when a flight-mode session snapshots by itself
 *
 * Only on the reader's handle, after GOTRACE_IOC_SET_OPTIONS asked for
 * flight mode and before the recording starts; a second call replaces
 * the trigger.  @pid is the caller's (see "Pids" above).  Errors: -EBADF
 * on a control handle, -EBUSY once recording started, -EINVAL for an
 * unknown type or flag, a size below GOTRACE_TRIGGER_SIZE_VER0, a
 * threshold below GOTRACE_TRIGGER_MIN_NS, delays above
 * GOTRACE_TRIGGER_DELAY_MS_MAX, non-zero reserved fields, or a session
 * not in flight mode; -E2BIG for a larger structure whose fields beyond
 * the module's are not zero; -ESRCH for a pid the caller's pid namespace
 * has no task of; -EFAULT.
 */
#define GOTRACE_IOC_SET_TRIGGER	_IOW(GOTRACE_IOC_MAGIC, 7, struct gotrace_trigger)

/*
 * The unwind tables (GOTRACE_OPT_UNWIND_TABLES; gotrace_unwind.h,
 * Documentation/unwind.rst): only on the reader's handle, once
 * GOTRACE_IOC_SET_OPTIONS asked for them, before the start and while
 * the session records.  The walks in the probes read what these write
 * without a lock: a table's slot is marked (an odd generation) while
 * its rows are rewritten, a space's mappings change under a sequence
 * count.  Errors common to all: -EBADF on a control handle, -EINVAL
 * without GOTRACE_OPT_UNWIND_TABLES, -EFAULT.
 *
 * GOTRACE_IOC_UNWIND_ROWS - copy rows into the session's array.
 * -EINVAL past its end (gotrace_options.unwind_rows).
 *
 * GOTRACE_IOC_UNWIND_TABLE - set a table's slot.  -EINVAL for a slot
 * past GOTRACE_UNWIND_TABLES_MAX, or an even generation whose rows or
 * index lie past the array's end.
 *
 * GOTRACE_IOC_UNWIND_SPACE - set (or with @nr 0 forget) the mappings of
 * a space.  -ESRCH: no process @tgid; -ESTALE: @tgid's space is not
 * @space any more (it executed a program, or its id was reused: read
 * its maps again); -ENOSPC: the session holds as many spaces as it can
 * (gotrace_options.unwind_spaces); -EINVAL: mappings not sorted, empty
 * or overlapping, more than GOTRACE_UNWIND_MAPS_MAX.
 *
 * GOTRACE_IOC_UNWIND_SPACE_ID - the space of process @tgid now, into
 * @space.  -ESRCH: no such process, or one without user memory.
 *
 * GOTRACE_IOC_UNWIND_MISSES - take the processes whose walks lacked
 * mappings since the last call (each space reported at most a few
 * times a second), oldest first.
 */
#define GOTRACE_IOC_UNWIND_ROWS	_IOW(GOTRACE_IOC_MAGIC, 8, struct gotrace_unwind_rows)
#define GOTRACE_IOC_UNWIND_TABLE _IOW(GOTRACE_IOC_MAGIC, 9, struct gotrace_unwind_set_table)
#define GOTRACE_IOC_UNWIND_SPACE _IOW(GOTRACE_IOC_MAGIC, 10, struct gotrace_unwind_space)
#define GOTRACE_IOC_UNWIND_SPACE_ID _IOWR(GOTRACE_IOC_MAGIC, 11, struct gotrace_unwind_space)
#define GOTRACE_IOC_UNWIND_MISSES _IOWR(GOTRACE_IOC_MAGIC, 12, struct gotrace_unwind_misses)

#endif /* _UAPI_LINUX_GOTRACE_H */
