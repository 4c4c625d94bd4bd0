/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go111_writer.h - the model's transitions as "go 1.11 trace" events
 *
 * The writer of the 1.11 format: each transition (transition.h) becomes
 * one or two events appended to the CPU's chunk (go111_chunk.c, encoded by
 * go111_encode.c), and the footer's tables are tables.c's of generation 0.
 * Go's 1.11 readers order a goroutine's events across Ps by a sequence
 * number its GoStart, GoUnblock and GoSysExit carry: the writer keeps it
 * per task.
 *
 * Context: gt_w111_write() as model_write() in model.c: the task's bucket
 * lock held (or it runs on this P), interrupts off.
 */
#ifndef _GT_GO111_WRITER_H
#define _GT_GO111_WRITER_H

#include "transition.h"

struct gt_model;
struct gt_cpu;
struct gt_task;

/**
 * struct gt_w111_task - what the 1.11 writer keeps of a goroutine
 * @seq:	the sequence number of its last ordered event
 * @seq_p:	P + 1 of the last event that carried @seq, 0 if none: an
 *		event of that P may go without it (GoStartLocal)
 */
struct gt_w111_task {
	u64 seq;
	u32 seq_p;
};

bool gt_w111_reserve(struct gt_model *m, struct gt_cpu *c, u64 ts,
		     unsigned int nr_events, bool closing);
bool gt_w111_write(struct gt_model *m, struct gt_cpu *c, struct gt_task *t,
		   const struct gt_tr *tr, u64 ts, bool closing);

#endif /* _GT_GO111_WRITER_H */
