/* SPDX-License-Identifier: GPL-2.0 */
/*
 * merge.h - put the BPF backend's per-CPU records in time order
 *
 * Each CPU's ring buffer is nearly in time order: a program interrupted
 * between taking its timestamp and reserving its record (a wakeup from
 * an interrupt inside a syscall probe) puts two records out of order.
 * Records are queued per CPU, sorted there from the tail, and handed on
 * in global time order (ties: lower CPU first, then arrival) once no
 * record can still arrive before them: the caller gives that limit,
 * "now minus the reorder window" after draining every ring.
 */
#ifndef GOTRACE_BPF_MERGE_H
#define GOTRACE_BPF_MERGE_H

#include <stddef.h>
#include <stdint.h>

struct gt_merge;

/* Called for each record in time order; @rec starts with gtb_hdr. */
typedef void (*gt_merge_fn)(const void *rec, size_t len, void *arg);

struct gt_merge_stats {
	uint64_t queued;	/* records now waiting */
	uint64_t emitted;	/* records handed on */
	uint64_t late;		/* records older than one already handed on */
};

struct gt_merge *gt_merge_new(unsigned int nr_cpus);
void gt_merge_free(struct gt_merge *m);
/*
 * Copy @rec (@len bytes, at least a struct gtb_hdr) into its CPU's
 * queue.  0, or -1 when memory ran out or the CPU is out of range.
 */
int gt_merge_push(struct gt_merge *m, const void *rec, size_t len);
/* Hand on every queued record with a timestamp <= @limit, in order. */
void gt_merge_emit(struct gt_merge *m, uint64_t limit, gt_merge_fn fn,
		   void *arg);
void gt_merge_stats(const struct gt_merge *m, struct gt_merge_stats *s);

#endif /* GOTRACE_BPF_MERGE_H */
