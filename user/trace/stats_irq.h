/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats_irq.h - where each CPU's time went, for 'gotrace stat': tasks,
 * hard IRQs, softirqs and idle, and the work items of the kworkers
 *
 * gotrace writes an interrupt as a goroutine of its own that the CPU's P
 * runs while the interrupted task waits, named by a synthetic frame:
 * "[irq N] NAME" (IRQ N, its action's name), "[irq] NAME" (one of the
 * architecture's vectors: "local timer", "reschedule IPI", ...) and
 * "[softirq] KIND" (the names of /proc/softirqs); and a kworker's work
 * item as a user region "[work] FUNC" on the kworker's goroutine.  Both
 * readers (stats.c, go123_stat.c) hand their goroutines' run intervals
 * and those regions here; what is not named so is a task.
 *
 * Times are the trace's ticks, as in stats.h.
 */
#ifndef GOTRACE_STATS_IRQ_H
#define GOTRACE_STATS_IRQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

/* What a goroutine or a region stands for. */
enum gt_irq_kind {
	GT_IRQ_TASK,		/* no interrupt: a task */
	GT_IRQ_HARD,		/* "[irq N] NAME" */
	GT_IRQ_VECTOR,		/* "[irq] NAME" */
	GT_IRQ_SOFT,		/* "[softirq] KIND" */
	GT_IRQ_WORK,		/* a "[work] FUNC" region */
	GT_IRQ_NKINDS
};

/* Longest NAME kept (the goroutine names are cut at 63 bytes anyway). */
#define GT_IRQ_NAME	64

/*
 * One interrupt source (or work function), on one CPU or summed over
 * all of them.
 */
struct gt_stat_irq {
	char name[GT_IRQ_NAME];	/* NAME, KIND or FUNC, without the tag */
	int kind;		/* GT_IRQ_* */
	int64_t irq;		/* N of "[irq N]"; -1 for the others */
	uint64_t p;		/* the CPU (P), in the per-CPU rows */
	uint32_t src;		/* index of the source in gt_stat_irqs.srcs */
	uint64_t count;		/* entries (resumes after a nested one: none) */
	uint64_t time;		/* time it ran */
	uint64_t max;		/* longest entry, its own time only */
	uint64_t cur;		/* per-CPU rows: own time of the entry now */
};

/*
 * Interrupts nested on one CPU that are followed: the model writes 4 at
 * most (task, softirq, hard IRQ, ...); a resume beyond would count as an
 * entry.
 */
#define GT_IRQ_DEPTH	8

/* Time one P spent running each kind (GT_IRQ_TASK: tasks). */
struct gt_stat_cpu {
	uint64_t p;
	uint64_t busy[GT_IRQ_WORK];
	/*
	 * An interrupt goroutine is one per source and CPU, so a source
	 * names it on its P: 1 + the source of the interrupt that stopped
	 * last on this P (0: none, or something ran since), and the
	 * interrupts a nested one interrupted, innermost last, whose next
	 * start is a resume, not an entry.
	 */
	uint32_t last;
	uint32_t stack[GT_IRQ_DEPTH];
	unsigned int depth;
	/*
	 * The run charged to this CPU when it stops: its goroutine's run
	 * number, its source (0: a task) and its start.
	 */
	bool open;
	uint64_t open_run;
	uint32_t open_src;
	uint64_t open_since;
};

/*
 * A goroutine's interrupt state, kept by the reader with its task: what
 * it is (classified once its name is known), the P of its current run
 * and its open work region.
 */
struct gt_irq_g {
	uint32_t src;		/* 0: not classified yet; 1 + its source */
	bool task;		/* classified: a task */
	uint64_t p;		/* P of its current run; GT_IRQ_NO_P: none */
	uint32_t cpu;		/* that P's index in cpus + 1, 0 for none */
	uint64_t run;		/* the number of its current run */
	uint32_t work;		/* 1 + source of its open [work] region */
	uint64_t work_since;
};

#define GT_IRQ_NO_P	UINT64_MAX
/* A new goroutine's: not running, not classified. */
#define GT_IRQ_G_INIT	((struct gt_irq_g){ .p = GT_IRQ_NO_P })

struct gt_stat_irqs {
	struct gt_stat_irq *srcs;	/* the sources, whole-trace sums */
	size_t nsrcs, srcs_cap;
	struct gt_stat_irq *rows;	/* per (P, source) */
	size_t nrows, rows_cap;
	struct gt_stat_cpu *cpus;	/* per P, in the order first seen */
	size_t ncpus, cpus_cap;
	struct u64map srcidx;	/* FNV-1a of kind and name -> source */
	struct u64map rowidx;	/* source << 32 | P -> row */
	struct u64map cpuidx;	/* P -> cpu */
	/*
	 * The same for the Ps below GT_IRQ_FAST_P (CPU numbers), as index
	 * + 1: a goroutine starts at every other event of a trace.
	 */
	uint32_t *fast;
	size_t nfast;
	uint64_t runs;		/* runs begun, to number them */
};

#define GT_IRQ_FAST_P	4096

/* Did the trace have any interrupt goroutine or work region? */
static inline bool gt_irq_any(const struct gt_stat_irqs *q)
{
	return q->nsrcs != 0;
}

/*
 * Kind of the goroutine named @name ("[irq 24] virtio0-input" ...):
 * GT_IRQ_TASK if none; else the kind, *@irq and @out (GT_IRQ_NAME bytes)
 * the number and the NAME.
 */
int gt_irq_classify(const char *name, int64_t *irq, char *out);

/* P @p is known (a row in cpus), even if it never runs anything. 0/-1. */
int gt_irq_cpu(struct gt_stat_irqs *q, uint64_t p);
/*
 * P @p started or stopped at @ts: nothing that ran there before nests,
 * and a goroutine still in a syscall there no longer runs on its CPU.
 * 0, or -1 out of memory.
 */
int gt_irq_proc(struct gt_stat_irqs *q, uint64_t p, uint64_t ts);

/*
 * Goroutine @g named @name starts running on P @p (GT_IRQ_NO_P if its M
 * holds none) at @ts.  0, or -1 out of memory.
 */
int gt_irq_start(struct gt_stat_irqs *q, struct gt_irq_g *g,
		 const char *name, uint64_t p, uint64_t ts);
/*
 * Goroutine @g was running on P @p at @ts, when the trace began: its time counts
 * there, as no entry.  0, or -1 out of memory.
 */
int gt_irq_running(struct gt_stat_irqs *q, struct gt_irq_g *g, uint64_t p,
		   uint64_t ts);
/*
 * Goroutine @g stops running after @d ticks of run (the time the reader
 * added to its task's run time), charged to its CPU unless another
 * goroutine took the CPU meanwhile (gt_irq_start(), gt_irq_proc()).
 * 0, or -1 out of memory.
 */
int gt_irq_stop(struct gt_stat_irqs *q, struct gt_irq_g *g, uint64_t d);

/*
 * User region @name (@len bytes) begins (@begin) or ends on goroutine
 * @g at @ts.  True if it is a "[work] FUNC" region (then no unit's).
 * Sets *@err on out of memory.
 */
bool gt_irq_region(struct gt_stat_irqs *q, struct gt_irq_g *g,
		   const char *name, size_t len, bool begin, uint64_t ts,
		   bool *err);

/*
 * The rows ordered for printing: rows by P, kind, count (largest
 * first), name; srcs by total time (largest first), name.
 */
void gt_irq_sort(struct gt_stat_irqs *q);
/* P @p's busy time of every kind but idle, 0 if none. */
const struct gt_stat_cpu *gt_irq_cpu_row(const struct gt_stat_irqs *q,
					 uint64_t p);
void gt_irq_free(struct gt_stat_irqs *q);

/*
 * One P's time by kind over @wall ticks (the trace's duration): task,
 * hard IRQ (IRQs and vectors), softirq, and idle the rest, so that the
 * four sum to @den, the denominator of their shares: @wall, or their
 * busy sum if that is more (it cannot be, but a share above 100% would
 * be worse than one of a slightly longer time).
 */
struct gt_irq_share {
	uint64_t task, hard, soft, idle, den;
};
void gt_irq_share(const struct gt_stat_cpu *c, uint64_t wall,
		  struct gt_irq_share *out);
/* 100 * @x / @den, 0 if @den is. */
double gt_irq_pct(uint64_t x, uint64_t den);

/* Name of a kind in the JSON and the text: "hardirq", "vector", ... */
const char *gt_irq_kind_name(int kind);

#endif /* GOTRACE_STATS_IRQ_H */
