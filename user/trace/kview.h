/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kview.h - the kernel's view of chosen threads, from a gotrace trace
 *
 * gotrace merge (go_merge.c) explains a Go program's trace with what
 * gotrace recorded of the same threads: every interval in which a
 * thread was off its CPU, and why.  A gotrace trace in the generational
 * format names a task's goroutine by its thread id (the low 32 bits of
 * the goroutine id; the high bits count reuse) and a CPU by its P
 * (Documentation/mapping.rst), and stamps its events with
 * CLOCK_MONOTONIC nanoseconds.  From its transitions this reader keeps,
 * for the threads asked for:
 *
 *   runnable  from a preemption or a wakeup until the task ran again,
 *             with the CPU it then ran on and who ran on that CPU
 *             meanwhile (the task that ran longest there, and the total);
 *   blocked   from a block (its reason and kernel stack) until the
 *             wakeup, with the waker;
 *   syscall   asleep in a syscall (the stack where it slept) until the
 *             syscall's wakeup;
 *   unknown   events of the CPU it ran on were lost meanwhile (the
 *             trace's "events lost here" logs): the trace cannot say.
 *
 * and the CPU of each stretch it ran, its CPU samples (--cpu-hz), its
 * syscall entries (to measure how well two traces' clocks agree) and the
 * time the trace covers.
 */
#ifndef GOTRACE_KVIEW_H
#define GOTRACE_KVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "go111_check.h"
#include "input.h"
#include "u64map.h"

enum gt_kv_kind { GT_KV_RUNNABLE, GT_KV_BLOCKED, GT_KV_SYSCALL, GT_KV_UNKNOWN,
		  GT_KV_NR_KINDS };

/* A frame of a kernel stack: strings are indexes into kv->str. */
struct gt_kv_frame {
	uint64_t pc, line;
	uint32_t func, file;
};

#define GT_KV_NONE	UINT32_MAX	/* no string */

/* A task that ran on a CPU while a thread waited for it (ns: 0, none). */
struct gt_kv_ran {
	uint64_t tid, ns;
	uint32_t name;
};

/* How many a span names: the longest ones (a hog, and a busy neighbour). */
#define GT_KV_RAN	3

/*
 * A span, a run and a CPU sample each begin with the thread and a time:
 * the view sorts them, and the merge finds a thread's, by those two.
 */
struct gt_kv_span {
	uint64_t tid;
	uint64_t start, end;		/* CLOCK_MONOTONIC ns */
	enum gt_kv_kind kind;
	bool open;			/* the trace ended first */
	int64_t cpu;			/* runnable: where it ran next; -1 */
	uint32_t reason;		/* block reason (string), or NONE */
	uint32_t frames, nframes;	/* the stack: kv->frames[frames...] */
	uint64_t waker;			/* blocked: the waker's tid, 0 none */
	int64_t waker_cpu;		/* blocked: where the wakeup ran */
	uint32_t waker_name;
	/* runnable: who ran on @cpu meanwhile, longest first, and in all */
	struct gt_kv_ran ran[GT_KV_RAN];
	uint64_t ran_all_ns;
};

/* A CPU sample of a thread: where the CPU was when it looked. */
struct gt_kv_sample {
	uint64_t tid, ts;
	int64_t cpu;
	uint32_t frames, nframes;	/* kv->frames */
};

/* A stretch a thread ran on one CPU. */
struct gt_kv_run {
	uint64_t tid, start, end;
	int64_t cpu;
};

struct gt_kview {
	struct gt_kv_span *spans;	/* by tid, then start */
	size_t nspans, scap;
	struct gt_kv_run *runs;		/* by tid, then start */
	size_t nruns, rcap;
	struct gt_kv_sample *samples;	/* by tid, then time */
	size_t nsamples, smcap;
	struct gt_kv_frame *frames;
	size_t nframes, fcap;
	uint64_t *enters;		/* (tid, ns) pairs: syscall entries, sorted */
	size_t nenters, ecap;
	char **str;			/* interned strings */
	size_t nstr, strcap;
	struct u64map stridx;		/* FNV-1a -> index (first one) */
	uint64_t first, last;		/* the times the trace covers */
	uint64_t lost_windows;		/* "events lost here" logs seen */
	size_t ntids_seen;		/* of the tids asked for */
};

/*
 * Read the gotrace trace @src (generational) and keep what it says of
 * the threads in @tids (keys: thread ids).  0, or -1 with @err.
 */
int gt_kview_read(struct gt_kview *kv, const struct gt_src *src,
		  const struct u64map *tids, struct gt_trace_error *err);
void gt_kview_free(struct gt_kview *kv);

/* String @i of @kv ("" for GT_KV_NONE). */
static inline const char *gt_kview_str(const struct gt_kview *kv, uint32_t i)
{
	return i < kv->nstr ? kv->str[i] : "";
}

#endif /* GOTRACE_KVIEW_H */
