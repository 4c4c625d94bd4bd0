/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gotrace.h - the module's own types: the session around the model
 *
 * One recording session at a time (struct gt_session).  It owns the
 * Linux -> Go model (struct gt_model, model_state.h: chunk pool, task
 * table, stack tables), which the probes feed (probes.c), and what only
 * the module has: the reader's stream, the session's life cycle, the
 * deferred work.
 *
 * Everything a probe touches is allocated when the session starts and
 * freed when the last reference to the session goes: probes never
 * allocate.
 */
#ifndef _GT_GOTRACE_H
#define _GT_GOTRACE_H

#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/spinlock.h>
#include <linux/threads.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "../include/uapi/linux/gotrace.h"
#include "compat.h"
#include "../model/model_state.h"

/**
 * struct gt_flight_gen - one finished generation a flight-mode session keeps
 * @node:	in gt_session.fl_gens, oldest first (while kept)
 * @ref:	the window's reference and each snapshot's
 * @buf:	its bytes (vmalloc'd or kmalloc'd by the model)
 * @len:	bytes in @buf
 * @cap:	size of @buf: what it costs
 * @start_ns:	trace time it starts at (the previous one's end)
 * @end_ns:	trace time of its last event
 */
struct gt_flight_gen {
	struct list_head node;
	struct kref ref;
	u8 *buf;
	size_t len;
	size_t cap;
	u64 start_ns;
	u64 end_ns;
};

/**
 * struct gt_flight_snap - a snapshot the reader reads
 * @gens:	the generations it holds, a reference on each
 * @nr:		their number
 * @idx:	the one being read
 * @pos:	bytes of it read
 * @hdr_pos:	bytes of the header read
 */
struct gt_flight_snap {
	struct gt_flight_gen **gens;
	unsigned int nr;
	unsigned int idx;
	size_t pos;
	u32 hdr_pos;
};

/**
 * struct gt_session - one recording, from open() to the reader's close()
 *
 * Life cycle: READY -> RECORDING -> STOPPED -> DONE.  The reader's file holds the
 * only long-lived reference; control handles find the session through
 * gt_dev_session under gt_dev_lock.
 */
/*
 * What read() streams after the header, chosen once when the session
 * starts: the 1.11 format's chunks and footer, the generations of the
 * generational format as they end, or a flight recorder's snapshots.
 */
enum gt_read_path {
	GT_READ_CHUNKS,
	GT_READ_GENERATIONS,
	GT_READ_FLIGHT,
};

struct gt_session {
	/* set at creation, then read-only */
	struct pid *reader;		/* the opener's process */
	u64 start_ns;
	bool show_addrs;	/* the opener may see kernel addresses */

	/* probe side: the model (opts fixed once recording starts) */
	struct gt_model model;

	/* deferred work: probes run under the runqueue lock and may not wake */
	struct irq_work wake_work;	/* wakes the reader, queues stop_work */
	struct work_struct stop_work;	/* stops the session after an overflow */
	struct delayed_work tick_work;	/* periodic flush, duration limit */
	unsigned long deadline;		/* jiffies when duration_ms elapses, or 0 */

	/* state, guarded by lock */
	struct mutex lock;
	u32 state;			/* GOTRACE_STATE_* */
	u32 stop_reason;		/* GOTRACE_STOP_* */
	u32 stop_pending;		/* stop asked for before the start */
	int start_err;			/* why the start failed, or 0 */

	/* reader, guarded by read_lock */
	struct mutex read_lock;
	wait_queue_head_t wait;
	u8 read_path;			/* enum gt_read_path, set at the start */
	u32 header_pos;
	struct gt_chunk *rchunk;	/* chunk being copied out */
	u32 rpos;
	u8 *footer;
	size_t footer_len;
	size_t footer_pos;
	atomic64_t bytes_read;

	/*
	 * The generational format: the reader ends each generation
	 * (session_gen_advance()) and streams it from model.w123.out; guarded
	 * by read_lock, and by lock where they change the session.
	 */
	unsigned long gen_deadline;	/* jiffies when the generation is due */
	unsigned int generation_ms;
	size_t out_pos;			/* bytes of model.w123.out read */
	bool gen_last;			/* the last generation is written */
	int gen_err;			/* a generation could not be written */
	u64 generations;		/* generations written */

	/*
	 * Flight mode: finished generations kept in a window, guarded by
	 * read_lock; the reader reads snapshots of it.  The trigger's
	 * state is written by the hooks (fl_trig_lock, a raw spinlock).
	 */
	bool flight;
	u64 fl_window_ns;		/* 0: no time limit */
	u64 fl_max_bytes;
	struct list_head fl_gens;	/* struct gt_flight_gen, oldest first */
	size_t fl_bytes;		/* sum of their @cap */
	unsigned int fl_nr;
	u64 fl_last_end;		/* end of the newest kept */
	struct gt_flight_snap *snap;	/* being read, or NULL */
	bool snap_end;			/* read() returns 0 once: it ended */
	struct gotrace_snapshot snap_info; /* the last one; guarded by lock */
	struct delayed_work snap_work;	/* a trigger's snapshot, post_ms on */
	raw_spinlock_t fl_trig_lock;
	atomic64_t trig_next_ns;	/* no trigger fires before */
	atomic64_t trig_held_off;
	atomic64_t trig_fired;
	bool trig_pending;		/* snap_work to queue (wake_work) */
	u64 trig_holdoff_ns;
	u64 fl_dropped;			/* generations dropped from the window */
	struct gotrace_snapshot trig_info; /* of the last one fired */
	atomic64_t snap_missed;

	/*
	 * CPU samples (sampler.c): a timer per CPU, NULL without cpu_hz;
	 * @sampling (timers run, online CPUs start theirs) is guarded by
	 * the CPU hotplug lock.
	 */
	struct gt_sampler __percpu *samplers;
	bool sampling;

	/*
	 * Unwind tables (GOTRACE_OPT_UNWIND_TABLES): model.env.uw, set
	 * with the options, freed with the session; @uw_lock serialises
	 * the ioctls that load them and guards the pointer's change.
	 */
	struct mutex uw_lock;
};

/* ustack.c: user stacks' naming (env_kernel.h has the probes' side) */
int gt_ustack_init(struct gt_model *m);
void gt_ustack_free(struct gt_model *m);
u64 gt_uspace_of(struct task_struct *p);
u64 gt_uspace_before_exec(struct task_struct *p);

/* unwind.c, unwind_walk.c: the unwind tables (GOTRACE_OPT_UNWIND_TABLES) */
struct gt_unwind;
struct gt_unwind *gt_unwind_alloc(u32 rows, u32 spaces);
void gt_unwind_free(struct gt_unwind *uw);
long gt_unwind_ioctl(struct gt_unwind *uw, unsigned int cmd,
		     void __user *arg);
void gt_unwind_status(struct gt_unwind *uw, struct gotrace_status *st);
void gt_unwind_fork(struct gt_unwind *uw, struct task_struct *parent,
		    struct task_struct *child);
void gt_unwind_exec(struct gt_unwind *uw, struct task_struct *p);
unsigned int gt_unwind_walk(struct gt_unwind *uw, struct pt_regs *regs,
			    u64 space, u64 *pcs, unsigned int max,
			    unsigned int *stop, bool exact);

/* probes.c */
int gt_probes_register(struct gt_session *s);
void gt_probes_unregister(struct gt_session *s);
int gt_probes_check(void);
int gt_probes_snapshot(struct gt_session *s);
void gt_probes_catch_up(struct gt_session *s);
void gt_probe_cpu_sample(struct gt_session *s, u32 missed);

/* sampler.c */
struct gt_sampler;
int gt_sampler_init(struct gt_session *s);
void gt_sampler_start(struct gt_session *s);
void gt_sampler_stop(struct gt_session *s);
void gt_sampler_free(struct gt_session *s);
void gt_sampler_cpu_online(struct gt_session *s);
void gt_sampler_cpu_offline(struct gt_session *s);

/* session.c */
int gt_session_create(struct gt_session **sp);
int gt_session_start(struct gt_session *s);
int gt_session_set_options(struct gt_session *s,
			   const struct gotrace_options *opts);
int gt_session_set_trigger(struct gt_session *s,
			   const struct gotrace_trigger *tr);
long gt_session_unwind_ioctl(struct gt_session *s, unsigned int cmd,
			     void __user *arg);
int gt_session_snapshot(struct gt_session *s);
void gt_session_snapshot_info(struct gt_session *s,
			      struct gotrace_snapshot *info);
void gt_session_stop(struct gt_session *s, u32 reason);
void gt_session_destroy(struct gt_session *s);
ssize_t gt_session_read(struct gt_session *s, char __user *buf, size_t count,
			bool nonblock);
__poll_t gt_session_poll(struct gt_session *s, struct file *file,
			 poll_table *wait);
void gt_session_cpu_offline(struct gt_session *s);
void gt_session_cpu_online(struct gt_session *s);
int gt_session_cpu_status(struct gt_session *s, struct gotrace_cpu_status *st);
void gt_session_status(struct gt_session *s, struct gotrace_status *st);
unsigned int gt_session_online_ps(void);

/* main.c: module parameters */
extern unsigned int gt_param_duration_ms;
extern unsigned int gt_param_chunks;
extern unsigned int gt_param_max_tasks;
extern unsigned int gt_param_syscalls;
extern bool gt_param_kstacks;
extern bool gt_param_wake_kstacks;
extern bool gt_param_user_stacks;
extern bool gt_param_sample_isolated;
extern unsigned int gt_param_max_stacks;
extern unsigned int gt_param_flush_ms;
extern unsigned int gt_param_format;
extern unsigned int gt_param_generation_ms;
extern unsigned int gt_param_cpu_hz;

/*
 * Most chunks a session has, from its options (dev.c) or the chunks
 * parameter: 1 GiB of buffers.
 */
#define GT_CHUNKS_MAX		GOTRACE_CHUNKS_MAX
/*
 * Most tasks the max_tasks parameter gives a session: as many as there
 * can be pids.  Their entries (kvcalloc()) stay within INT_MAX bytes.
 */
#define GT_TASKS_MAX		((unsigned int)PID_MAX_LIMIT)

/* Bounds of generation_ms, the parameter and the session option. */
#define GT_GENERATION_MS_MIN	10U
/*
 * Each buffer of a go 1.23 session's CPU that was not online when it
 * started (session_w123_init()): with their batch indexes, as large,
 * 64 such CPUs take 4 MiB.
 */
#define GT_W123_SPARE_BYTES	(16 * 1024)
#define GT_GENERATION_MS_MAX	60000U

/* dev.c */
pid_t gt_pid_from_init_ns(pid_t nr);
int gt_dev_init(void);
void gt_dev_exit(void);

#endif /* _GT_GOTRACE_H */
