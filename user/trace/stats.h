/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - what 'gotrace stat' computes while replaying a trace
 *
 * Times are in ticks of the trace (nanoseconds for gotrace's traces).
 * A task is a goroutine; its name is the function of the first frame of
 * its creation stack (gotrace puts the Linux comm there).  A syscall is
 * named by the frame of its GoSysCall stack whose file is "[syscall]",
 * else by the function of the first frame.
 */
#ifndef GOTRACE_STATS_H
#define GOTRACE_STATS_H

#include <stdint.h>

#include "go111_decode.h"
#include "base.h"
#include "stats_irq.h"

#define GT_STAT_NAME	64
/* A systemd unit's name with its NUL, as systemd's UNIT_NAME_MAX. */
#define GT_STAT_UNIT	256

struct gt_stat_task {
	uint64_t g;
	char name[GT_STAT_NAME];
	uint64_t run;		/* time running (open runs end at the end) */
	uint64_t starts;	/* GoStart events */
	uint64_t latency;	/* time runnable before a GoStart */
	uint64_t max_latency;	/* longest such wait */
	uint64_t syscalls;	/* GoSysCall events */
	uint64_t blocked;	/* time waiting (block or syscall) */
	uint64_t blocks;	/* block events (sleeps too; not syscalls') */
	uint64_t unblocks;	/* GoUnblock events of this goroutine */
	uint64_t samples;	/* CPU samples that hit it */
	int state;		/* at the end: GT_STAT_G_* */
	/*
	 * Its systemd unit: the user region it was last in (gotrace names
	 * each task's region after its unit), as 1 + its index in
	 * gt_stats.unit_names; 0 for none.  An index, not the name: a
	 * trace has hundreds of thousands of tasks and a few hundred units
	 * (gt_stat_task_unit() gives the name).
	 */
	uint32_t unit;
	bool folded;		/* ended, already in the names (stats.c) */
};

enum { GT_STAT_G_DEAD, GT_STAT_G_RUNNABLE, GT_STAT_G_RUNNING,
       GT_STAT_G_WAITING, GT_STAT_G_SYSCALL };

struct gt_stat_name {		/* tasks grouped by name */
	char name[GT_STAT_NAME];
	uint64_t tasks;
	uint64_t run;
	uint64_t latency;
	uint64_t starts;
};

struct gt_stat_unit {		/* tasks grouped by systemd unit */
	char name[GT_STAT_UNIT];
	uint64_t tasks;
	uint64_t run;
	uint64_t latency;
	uint64_t max_latency;
	uint64_t starts;
	uint64_t blocked;
	uint64_t blocks;
};

struct gt_stat_syscall {
	char name[GT_STAT_NAME];
	uint64_t count;		/* GoSysCall events */
	uint64_t blocks;	/* of which blocked (GoSysBlock..GoSysExit) */
	uint64_t blocked;	/* time blocked */
};

struct gt_stats {
	int version;		/* N of the header "go 1.N trace" */
	/* Event types: by_type[1..nr_types - 1], named by type_name(). */
	unsigned int nr_types;
	const char *(*type_name)(unsigned int type);
	uint64_t frequency;	/* of the times below: ticks per second */
	uint64_t trace_frequency;	/* what the file says (its first) */
	uint64_t start, end;	/* first and last event time */
	uint64_t ps;		/* Ps with events */
	uint64_t ps_running_at_end;	/* ProcStart without ProcStop */
	uint64_t events;
	uint64_t by_type[64];
	uint64_t samples;	/* CPU samples (go1.23 traces) */
	uint64_t sample_hz;	/* their rate, if the trace says it; else 0 */
	/*
	 * The live tasks, and of the ended ones those that may be in a top
	 * list of @keep rows; the others are only counted in @tasks_dropped,
	 * the names and at_end[GT_STAT_G_DEAD] (a trace of many short-lived
	 * goroutines would hold a row per goroutine ever created).
	 */
	struct gt_stat_task *tasks;
	size_t ntasks;
	size_t keep;		/* rows of each top list; 0: all */
	uint64_t tasks_dropped;
	struct gt_stat_name *names;	/* by name */
	size_t nnames;
	struct gt_stat_syscall *syscalls;	/* by name */
	size_t nsyscalls;
	struct gt_stat_unit *units;	/* by unit, tasks in none left out */
	size_t nunits;
	struct gt_names unit_names;	/* those tasks were seen in */
	uint64_t at_end[5];	/* tasks in each GT_STAT_G_* at the end */
	/* Each CPU's time by kind, the interrupts and work items. */
	struct gt_stat_irqs irqs;
};

/*
 * Replay the opened trace @t (gt_trace_replay()) into @s, keeping the
 * ended tasks that may be in the first @keep rows of a top list (0: all
 * of them).  0, or -1 with the first violation (or "out of memory") in
 * @err.
 */
int gt_stats_compute(struct gt_trace *t, struct gt_stats *s, size_t keep,
		     struct gt_trace_error *err);
void gt_stats_free(struct gt_stats *s);
/*
 * Fill s->names from s->tasks (an empty s->names; the folded tasks are
 * in it already).  0, or -1 when out of memory.
 */
int gt_stats_by_name(struct gt_stats *s);
/*
 * Fill s->units from s->tasks: a task counts, whole, in the unit it was
 * last in.  0, or -1 when out of memory.
 */
int gt_stats_by_unit(struct gt_stats *s);

/*
 * A task's unit field for unit @name (@len bytes, no NUL, below
 * GT_STAT_UNIT): 1 + its index in s->unit_names, added if not there yet.
 * 0 when out of memory.
 */
uint32_t gt_stats_unit_id(struct gt_stats *s, const char *name, size_t len);
/* The name of @tk's systemd unit, "" for none. */
const char *gt_stat_task_unit(const struct gt_stats *s,
			      const struct gt_stat_task *tk);

/* qsort() orders, largest first; ties by goroutine id or by name. */
int gt_stat_task_by_run(const void *a, const void *b);
int gt_stat_task_by_latency(const void *a, const void *b);
int gt_stat_task_by_samples(const void *a, const void *b);
int gt_stat_name_by_run(const void *a, const void *b);
int gt_stat_unit_by_run(const void *a, const void *b);
int gt_stat_sys_by_count(const void *a, const void *b);
int gt_stat_sys_by_blocked(const void *a, const void *b);

#endif /* GOTRACE_STATS_H */
