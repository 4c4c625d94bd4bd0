/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go123_writer.h - the model's output in Go's generational format
 *
 * The model (model.c) says what happens as transitions of its own
 * (transition.h) and hands each to model_write(); for a session writing
 * "go 1.23 trace" it goes to gt_w123_write(): this file and go123_writer.c are
 * the writer of the generational format, as go111_writer.c is the 1.11
 * format's (Documentation/model.rst, "The generational format").
 *
 * The trace's threads (Ms) are the tasks, its Ps the CPUs, as in 1.11.
 * Every CPU writes batches into its own buffer for its generation, one
 * of two by the generation's parity.  A generation ends in two steps:
 * gt_w123_advance() advances the session's generation, and each CPU, at its
 * next event or when asked (gt_w123_cpu_catch_up()), closes its batches
 * of the old one and restates its P and its running goroutine in the
 * new one; once every CPU has, gt_w123_gen_write() merges the old
 * generation's batches by their start time and appends the status
 * sweep, the frequency and the tables.  gt_w123_gen_end() does both at
 * once, for a caller between hooks (user space).
 *
 * Context: gt_w123_write() and gt_w123_cpu_catch_up() as model_write(),
 * on the CPU's own state; the rest by the reader (user space: the thread
 * that feeds the model), process context in the module.
 */
#ifndef _GT_GO123_WRITER_H
#define _GT_GO123_WRITER_H

#include "go123_encode.h"

struct gt_model;
struct gt_cpu;
struct gt_task;

/* Trace formats a session may write. */
enum gt_format {
	GT_FORMAT_GO111,	/* "go 1.11 trace": one generation, chunks */
	GT_FORMAT_GO123,	/* "go 1.23 trace": generations */
};

/*
 * Strings every generation has, its first string ids: the reasons of
 * GoStop and GoBlock, and the user log that marks lost events.
 */
enum gt_w123_string {
	GT_W123_R_PREEMPTED,
	GT_W123_R_YIELD,
	GT_W123_R_BLOCKED,
	GT_W123_R_SLEEP,
	GT_W123_R_SEND,
	GT_W123_R_RECV,
	GT_W123_R_SELECT,
	GT_W123_R_SYNC,
	GT_W123_R_COND,
	GT_W123_R_NET,
	GT_W123_S_LOG_KEY,
	GT_W123_S_LOST,
	GT_W123_S_TRIGGER,
	GT_W123_S_TRIGGER_OFFCPU,
	GT_W123_S_TRIGGER_SYSCALL,
	GT_W123_NR_STRINGS
};

extern const char *const gt_w123_strings[GT_W123_NR_STRINGS];

/*
 * Block reasons that name the syscall too, "<reason>: <syscall>": the
 * string ids after those of gt_w123_strings, one per reason before
 * "network" and syscall slot (native numbers, then the 32-bit ABI's),
 * written in the tables of the generations that use them.
 */
#define GT_W123_SYS_SLOTS		(2 * GOTRACE_SYSCALL_MAX)
#define GT_W123_NR_SYS_REASONS	(GT_W123_R_NET * GT_W123_SYS_SLOTS)

/* The M of CPU c's idle task: above every Linux tid (PID_MAX_LIMIT). */
#define GT_W123_IDLE_M_BASE	(4U * 1024 * 1024)

/**
 * struct gt_w123_task - what the generational trace says of one task
 * @gen:	the last generation that mentioned it (its status and @seq
 *		belong to it; 0: none yet)
 * @prev_gen:	the generation that mentioned it before @gen
 * @gen_status:	the status written where @gen first mentioned it (0: none,
 *		it was created there); the sweep of the generation before
 *		@gen states it with that status, when it did not mention it
 * @gen_goid:	its goroutine where @gen first mentioned it (a rename there
 *		ends it and creates another): the one that sweep states
 * @seq:	its goroutine sequence number in @gen
 * @batch:	1 + the CPU and (<< 32) the batch number of the last batch
 *		of its M, anywhere: its M may append only to that batch
 * @region:	the unit (units.c) whose user region the goroutine is in,
 *		0: none
 */
struct gt_w123_task {
	u64 gen;
	u64 prev_gen;
	u64 seq;
	u64 batch;
	u64 gen_goid;
	u32 region;
	u8 gen_status;
};

/**
 * struct gt_w123_batch - where one batch of a CPU's buffer starts
 * @off:	offset in the buffer
 * @ts:		its base time (the merge key)
 */
struct gt_w123_batch {
	u32 off;
	u64 ts;
};

/**
 * struct gt_w123_set - one CPU's buffer for one generation
 * @enc:	the events; the open batch is the last one
 * @batches:	where each batch starts
 * @nr_batches:	batches in @enc
 * @last_ts:	time of its last event
 * @smp:	its CPU samples (a session with cpu_hz): batches of no M,
 *		apart from @enc, since a sample may come between any two
 *		events and joins no M's batch
 */
struct gt_w123_set {
	struct gt_enc123 enc;
	struct gt_enc123 smp;
	struct gt_w123_batch *batches;
	u32 nr_batches;
	u64 last_ts;
};

/**
 * struct gt_w123_cpu - one CPU's part of the trace
 * @set:	its buffers, by the parity of the generation they hold: the
 *		CPU writes set[@gen & 1] while the reader writes out the
 *		other one, the previous generation
 * @gen:	the generation this CPU writes (0: none yet)
 * @max_batches: room of each set's @batches
 * @batch_m:	the M of the open batch (0: none open)
 * @p_m:	the M that holds this CPU's P in the trace (0: the P is idle)
 * @p_seq:	the P's sequence number in @gen
 * @sys:	the task whose GoSyscallBegin has no end yet (fast syscalls
 *		end at the P's next event, unless the syscall blocks)
 * @sys_ts:	the time of that GoSyscallBegin, which its end repeats
 * @ev_ts:	the time of this CPU's last event (ev())
 * @ev_m:	its M
 * @p_stated:	the P's status is written in @gen
 * @lost:	events were lost here since the last user log saying so
 * @asked:	this CPU asked for the end of @gen (its set is half full, or
 *		the tables of @gen three quarters)
 */
struct gt_w123_cpu {
	struct gt_w123_set set[2];
	u64 gen;
	u32 max_batches;
	u64 batch_m;
	u64 p_m;
	u64 p_seq;
	struct gt_task *sys;
	u64 sys_ts;
	u64 ev_ts;
	u64 ev_m;
	bool p_stated;
	bool lost;
	bool asked;
};

/**
 * struct gt_w123 - the generational state of a session
 * @gen:	the current generation, from 1: the one CPUs switch to at
 *		their next event (gt_w123_advance() advances it)
 * @due:	a CPU's set is half full, or the generation's tables three
 *		quarters (gt_tables_due()): end the generation soon
 * @swept:	the last generation whose sweep is done (0: none yet)
 * @cpus:	per CPU, nr_cpus of them
 * @sweep:	the generation's M-less batch of statuses
 * @sweep_events: statuses the sweeps wrote, for the session's event count
 * @out:	the generations written so far, for the reader
 * @out_len:	bytes in @out
 * @out_cap:	its size
 * @gen_start:	trace time the current generation started at
 * @cpu_bytes:	size of each buffer of a CPU online at the start
 * @show_addrs:	the tables show real kernel addresses
 * @irq_no_switch: interrupts as GoBlock, GoUnblock and GoStart rather than
 *		GoSwitch: the representation measured against it
 *		(Documentation/interrupts.rst); only tests set it
 *
 * @gen is written by the reader and read by every hook; @out, @sweep
 * and the sets of generations before @gen are the reader's.
 */
struct gt_w123 {
	u64 gen;
	bool due;
	u64 swept;
	struct gt_w123_cpu *cpus;
	struct gt_enc123 sweep;
	u64 sweep_events;
	u8 *out;
	size_t out_len;
	size_t out_cap;
	u64 gen_start;
	u32 cpu_bytes;
	bool show_addrs;
	bool irq_no_switch;
};

/*
 * Bytes of each CPU's samples buffer, per generation: some 3000 samples,
 * 3 s at the highest rate; half full, it asks for the generation's end.
 */
#define GT_W123_SAMPLE_BYTES	(64 * 1024)

/*
 * The string every generation of a session with CPU samples holds, which
 * says their rate: Go's own traces do not say it (its runtime samples at
 * 100 Hz), and a profile of the samples needs it (user/trace/go123.h).
 */
#define GT_W123_CPU_HZ_FMT	"gotrace: CPU samples at %u Hz"

int gt_w123_init(struct gt_model *m, u32 cpu_bytes, u32 spare_bytes);
void gt_w123_free(struct gt_model *m);
bool gt_w123_write(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		   const struct gt_tr *tr, u64 *ts);
void gt_w123_gen_start(struct gt_model *m);
void gt_w123_advance(struct gt_model *m);
void gt_w123_cpu_catch_up(struct gt_model *m, struct gt_cpu *c);
void gt_w123_lost(struct gt_model *m, struct gt_cpu *c);
bool gt_w123_sample(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		    u64 ts, u64 ref);
int gt_w123_gen_write(struct gt_model *m, bool last);
bool gt_w123_sweep_owes(const struct gt_model *m, const struct gt_task *t);
int gt_w123_gen_end(struct gt_model *m, bool last);
bool gt_w123_gen_due(struct gt_model *m, u64 now, u64 period_ns);

/*
 * Room for events that must not be split (the 1.11 writer's
 * gt_w111_reserve(), for sys_block() in model.c): the generational
 * writer has nothing to reserve, and says yes.  Each transition makes
 * its own room (gt_w123_write() keeps one more transition's), the
 * ProcStop of a GT_TR_SYS_BLOCK is in the same write as its block, and
 * a transition with no room is lost alone: the session goes on
 * (gt_w123_lost()).
 */
static inline bool gt_w123_reserve(void)
{
	return true;
}

#endif /* _GT_GO123_WRITER_H */
