/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - the Linux -> Go model's hooks: input events in, trace out
 *
 * One struct gt_model per recording session (its state: model_state.h).
 * A capture backend tells it what happened through the hooks below, with
 * the input events of model_input.h; the model writes the Go trace's
 * events into per-CPU chunks (go111_chunk.c), which the backend's reader takes
 * in order.  The same hooks serve the module (kmod/probes.c, one call per
 * tracepoint hit, on the CPU of the event, interrupts disabled by the
 * model) and user space (user/bpf/model/: one thread feeding events in
 * timestamp order, taking chunks between events).
 *
 * Order of calls:
 *   gt_model_snapshot_begin(), gt_model_snapshot_task() per existing
 *   task, gt_model_snapshot_end() (arms the hooks: before it, every hook
 *   returns at once); then any hooks; gt_model_disarm(); gt_model_close()
 *   (every P closed, every chunk queued); the footer (gt_tables_footer()).
 */
#ifndef _GT_MODEL_H
#define _GT_MODEL_H

#include "model_input.h"

struct gt_model;

/* Start-up: Gomaxprocs, then every existing task, then arm the hooks. */
int gt_model_snapshot_begin(struct gt_model *m, const struct gt_in_ev *ev);
int gt_model_snapshot_task(struct gt_model *m,
			   const struct gt_in_snap_task *snap);
int gt_model_snapshot_end(struct gt_model *m);
void gt_model_disarm(struct gt_model *m);

/* The hooks: one per input event. */
void gt_model_switch(struct gt_model *m, const struct gt_in_switch *in);
void gt_model_waking(struct gt_model *m, const struct gt_in_wake *in);
void gt_model_wakeup(struct gt_model *m, const struct gt_in_wake *in);
void gt_model_fork(struct gt_model *m, const struct gt_in_fork *in);
void gt_model_exec(struct gt_model *m, const struct gt_in_exec *in);
void gt_model_sys_enter(struct gt_model *m, const struct gt_in_sys_enter *in);
void gt_model_sys_exit(struct gt_model *m, const struct gt_in_sys_exit *in);
void gt_model_cpu_sample(struct gt_model *m, const struct gt_in_sample *in);
void gt_model_irq_entry(struct gt_model *m, const struct gt_in_irq *in);
void gt_model_irq_exit(struct gt_model *m, const struct gt_in_irq *in);
void gt_model_work_start(struct gt_model *m, const struct gt_in_work *in);
void gt_model_work_end(struct gt_model *m, const struct gt_in_work *in);

/* CPU hotplug: @ev.cpu goes offline (its P is closed) or comes back. */
void gt_model_cpu_offline(struct gt_model *m, const struct gt_in_ev *ev);
void gt_model_cpu_online(struct gt_model *m, const struct gt_in_ev *ev);

/* The generational format: @ev.cpu moves to the next generation now. */
void gt_model_catch_up(struct gt_model *m, const struct gt_in_ev *ev);

/*
 * The end: every P closed at @ts (the module passes 0: now), every CPU's
 * last chunk queued for the reader.  Only once no hook runs any more.
 */
void gt_model_close(struct gt_model *m, u64 ts);

/* Counters. */
u64 gt_model_count(struct gt_model *m, bool lost);
u64 gt_model_last_ts(struct gt_model *m);

#endif /* _GT_MODEL_H */
