/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gtmodel.h - the module's Linux -> Go model as a user-space library
 *
 * The same model/ that the module runs (the model and its two writers),
 * built for user space (model/env/user.h).
 * A backend (the host tests, the BPF backend's reader) creates a model,
 * feeds it input events (model/model_input.h) in timestamp order through
 * the hooks of model/model.h, takes the trace as it comes and ends it:
 *
 *	m = gt_umodel_create(&cfg);
 *	gt_model_snapshot_begin(m, &ev);
 *	gt_model_snapshot_task(m, &snap);	(per existing task)
 *	gt_model_snapshot_end(m);
 *	gt_model_switch(m, &sw); ...		(the events)
 *	gt_umodel_drain(m, write, arg);		(whenever convenient)
 *	gt_umodel_finish(m, ts, write, arg);	(close, footer)
 *	gt_umodel_destroy(m);
 *
 * One thread at a time: nothing here locks.  The trace written is a
 * whole Go 1.11 trace file (header, the Ps' batches, the footer) or,
 * with GOTRACE_FORMAT_GO123, a "go 1.23 trace" of generations: each drain
 * ends the current generation when it is due and writes it.
 */
#ifndef _GT_GTMODEL_H
#define _GT_GTMODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "../../../include/uapi/linux/gotrace.h"
#include "../../../model/model.h"

/**
 * struct gt_umodel_config - what a session is
 * @opts:	the options as the module takes them (filters, syscall
 *		mode and set, GOTRACE_OPT_* flags); the cgroup filter is
 *		decided by the backend (GT_IN_IN_CGROUP)
 * @nr_cpus:	CPUs (Ps); events of a CPU >= @nr_cpus are dropped
 * @chunks:	chunks of 64 KiB in the pool (0: 4 per CPU, at least 32)
 * @max_tasks:	task table entries (0: the module's default)
 * @max_stacks:	distinct stacks (0: the module's default)
 * @show_addrs:	the footer shows real kernel addresses
 * @symbolise:	names a kernel PC as "func+0xoff/0xsize [mod]" (as
 *		sprint_symbol()); NULL or a false return: "0x<pc>"
 * @arg:	passed to @symbolise
 * @format:	the ABI's GOTRACE_FORMAT_GO111 ("go 1.11 trace", also
 *		for 0) or GOTRACE_FORMAT_GO123 ("go 1.23 trace":
 *		generations)
 * @generation_ms: GOTRACE_FORMAT_GO123: trace time a generation covers at
 *		most (0: 1000); one also ends when a CPU's buffer is half
 *		full
 * @cpu_bytes:	GOTRACE_FORMAT_GO123: each CPU's buffer for one generation
 *		(0: 4 MiB)
 * @online:	the CPUs online as the session begins, @nr_cpus of them
 *		(NULL: all): the others get buffers of 64 KiB (umodel.c)
 * @uresolve:	GOTRACE_OPT_USER_STACKS: the file (an index for @ufile)
 *		and the offset in it of user address @pc of address space
 *		@space (gt_in_ev.uspace); false: in no file.  NULL: every
 *		user frame is "[unknown]".  Asked when tables are written.
 * @ufile:	the absolute path of file index @file of @uresolve
 * @uarg:	passed to @uresolve and @ufile (NULL: @arg)
 */
struct gt_umodel_config {
	struct gotrace_options opts;
	unsigned int nr_cpus;
	unsigned int chunks;
	unsigned int max_tasks;
	unsigned int max_stacks;
	bool show_addrs;
	bool (*symbolise)(void *arg, u64 pc, char *buf, size_t len);
	void *arg;
	unsigned int format;
	unsigned int generation_ms;
	unsigned int cpu_bytes;
	const bool *online;
	bool (*uresolve)(void *arg, u64 space, u64 pc, u32 *file, u64 *off);
	const char *(*ufile)(void *arg, u32 file);
	void *uarg;
};

/* Where the trace goes: returns 0, or an error that stops the drain. */
typedef int (*gt_umodel_write_fn)(void *arg, const void *buf, size_t len);

struct gt_model *gt_umodel_create(const struct gt_umodel_config *cfg);
void gt_umodel_destroy(struct gt_model *m);

/*
 * Write the trace header (first call) and every chunk ready so far; in
 * the generational format, every generation ended so far (the current
 * one is ended first if it is due).
 */
int gt_umodel_drain(struct gt_model *m, gt_umodel_write_fn write, void *arg);

/* Close every P at @ts, write what is left and the footer. */
int gt_umodel_finish(struct gt_model *m, u64 ts, gt_umodel_write_fn write,
		     void *arg);

/**
 * struct gt_umodel_stats - what a session counted
 * @events:	events written
 * @lost:	events not written (pool empty, or after the model halted)
 * @task_overflows: tasks not recorded because the task table was full
 * @chunk_overflows: times a CPU found the pool empty
 * @stack_overflows: stacks not kept because the stack table was full
 * @unit_overflows: systemd units not named: the unit table was full
 * @generations: generations written (the generational format)
 * @gen_events_max: bytes of the CPUs' buffers of its largest generation
 * @gen_events_avg: the same, on average over the generations
 * @halted:	the model ran out of space and writes nothing more
 * @table_stacks_max: the generational format: the most stacks one
 *		generation's table held (of the generations written)
 * @table_pcs_max: the same, PCs
 * @table_comms_max: the same, comms
 * @ustack_walks: GOTRACE_OPT_USER_STACKS: user stacks taken
 * @ustack_queued: user PCs handed over to be named (once per stack new
 *		to its table)
 * @ustack_syncs: times the tables asked for them to be named first
 */
struct gt_umodel_stats {
	u64 events;
	u64 lost;
	u64 task_overflows;
	u64 chunk_overflows;
	u64 stack_overflows;
	u64 unit_overflows;
	u64 generations;
	u64 gen_events_max;
	u64 gen_events_avg;
	bool halted;
	u32 table_stacks_max;
	u32 table_pcs_max;
	u32 table_comms_max;
	u64 ustack_walks;	/* stacks written with user frames */
	u64 ustack_bad_fp;	/* of them, truncated: enum gt_ustack_stop */
	u64 ustack_faults;
	u64 ustack_depth;
	u64 ustack_no_table;
	u64 ustack_no_rule;
	u64 ustack_signal;
	u64 ustack_bad_cfa;
	u64 ustack_queued;
	u64 ustack_syncs;
	u64 cpu_samples;	/* CPU samples written (cpu-samples.rst) */
	u64 cpu_samples_idle;	/* of idle CPUs: counted, not written */
	u64 cpu_samples_hidden;	/* of tasks the filters leave out */
	u64 cpu_samples_lost;	/* not taken, or no room */
	/* Interrupts (Documentation/interrupts.rst): as struct gotrace_status */
	u64 irq_unmatched;	/* exits that matched no interrupt */
	u64 irq_too_deep;	/* entries past the depth kept */
	u64 irq_closed;		/* interrupts closed without their exit */
	u64 work_unnamed;	/* work items with no room for their name */
	u64 cpu_buffer_bytes;	/* go 1.23: the CPUs' event buffers */
};

void gt_umodel_stats(struct gt_model *m, struct gt_umodel_stats *st);

/* The generational format: end a generation every @ns of trace time. */
void gt_umodel_set_generation_ns(struct gt_model *m, u64 ns);

/*
 * The module's periodic flush (its session timer): each CPU hands its
 * chunk, partly written, to the reader at its next event, if a spare
 * chunk can take its place (model/go111_chunk.c).
 */
void gt_umodel_flush(struct gt_model *m);

/*
 * Tests only: called after each transition of the generational format
 * (a reader that ends the generation inside a hook, as the module's may).
 */
extern void (*gt_umodel_written_hook)(struct gt_model *m);

/*
 * Tests only: called by a generation's sweep after each bucket of the
 * task table, with no lock held (hooks of other CPUs that run while the
 * module's reader sweeps).
 */
extern void (*gt_umodel_sweep_hook)(struct gt_model *m);

/*
 * Measurements only: write interrupts as GoBlock, GoUnblock and GoStart
 * rather than GoSwitch in the generational format, the representation
 * Documentation/interrupts.rst compares with the model's.
 */
void gt_umodel_irq_no_switch(struct gt_model *m, bool on);

/*
 * Whether the model halted: it ran out of space (a task already running
 * on another P, a lost switch record, is taken off that P here, not
 * halted on), and writes nothing more.  Cheap, for the reader's loop.
 */
bool gt_umodel_halted(struct gt_model *m);

#endif /* _GT_GTMODEL_H */
