/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracedec.h - decode a "go 1.11 trace" and replay its scheduler states
 *
 * gt_trace_load() runs the structural check of tracefile.c, decodes every
 * event (P, implicit goroutine, absolute time, arguments, stack), merges
 * the per-P queues as Go 1.21's internal/trace order.go does (sequence
 * numbers decide, then time), applies GoSysExit real timestamps, and
 * replays the goroutine and P state machine of postProcessTrace
 * (go-trace-format.md 4.3-4.6), plus the rules the 1.23 views need
 * (5.4): GoSysBlock followed by ProcStop on its P, GoStart only on a
 * started P, GoSysExit only after GoSysBlock (or GoInSyscall/GoWaiting),
 * GoUnblock never of a goroutine blocked in a syscall.
 *
 * Shared by 'gotrace check', 'gotrace stat' and the unit tests.
 */
#ifndef GOTRACE_TRACEDEC_H
#define GOTRACE_TRACEDEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracefile.h"
#include "u64map.h"

/* Event types used by the decoder (Go's runtime/trace.go numbers). */
enum {
	GT_EV_BATCH = 1, GT_EV_FREQUENCY = 2, GT_EV_STACK = 3,
	GT_EV_GOMAXPROCS = 4, GT_EV_PROC_START = 5, GT_EV_PROC_STOP = 6,
	GT_EV_GC_START = 7, GT_EV_GC_DONE = 8, GT_EV_STW_START = 9,
	GT_EV_STW_DONE = 10, GT_EV_GC_SWEEP_START = 11,
	GT_EV_GC_SWEEP_DONE = 12, GT_EV_GO_CREATE = 13, GT_EV_GO_START = 14,
	GT_EV_GO_END = 15, GT_EV_GO_STOP = 16, GT_EV_GO_SCHED = 17,
	GT_EV_GO_PREEMPT = 18, GT_EV_GO_SLEEP = 19, GT_EV_GO_BLOCK = 20,
	GT_EV_GO_UNBLOCK = 21, GT_EV_GO_BLOCK_SEND = 22,
	GT_EV_GO_BLOCK_RECV = 23, GT_EV_GO_BLOCK_SELECT = 24,
	GT_EV_GO_BLOCK_SYNC = 25, GT_EV_GO_BLOCK_COND = 26,
	GT_EV_GO_BLOCK_NET = 27, GT_EV_GO_SYSCALL = 28, GT_EV_GO_SYSEXIT = 29,
	GT_EV_GO_SYSBLOCK = 30, GT_EV_GO_WAITING = 31, GT_EV_GO_INSYSCALL = 32,
	GT_EV_TIMER_GOROUTINE = 35, GT_EV_STRING = 37,
	GT_EV_GO_START_LOCAL = 38, GT_EV_GO_UNBLOCK_LOCAL = 39,
	GT_EV_GO_SYSEXIT_LOCAL = 40, GT_EV_GO_START_LABEL = 41,
	GT_EV_GO_BLOCK_GC = 42, GT_EV_GC_MARK_ASSIST_START = 43,
	GT_EV_GC_MARK_ASSIST_DONE = 44, GT_EV_USER_TASK_CREATE = 45,
	GT_EV_USER_TASK_END = 46, GT_EV_USER_REGION = 47, GT_EV_USER_LOG = 48,
};

/* gt_event.p of a GoUnblock by a timer goroutine (Go's TimerP). */
#define GT_TIMER_P	(UINT64_MAX - 2)

struct gt_frame {
	uint64_t pc;
	uint64_t func;		/* string ids */
	uint64_t file;
	uint64_t line;
};

struct gt_event {
	uint64_t ts;		/* ticks; GoSysExit: its real time if given */
	uint64_t p;		/* P of its batch */
	uint64_t g;		/* the goroutine it belongs to (format doc 4.2) */
	uint64_t args[4];	/* values after the delta, stack id excluded */
	uint64_t stk;		/* stack id, 0 if none */
	size_t off;		/* offset in the file */
	uint8_t type;		/* *Local variants are turned into the plain ones */
};

struct gt_trace {
	const uint8_t *buf;	/* the file, not owned */
	size_t len;
	struct gt_event *ev;	/* every timed event, in time order */
	size_t nev;
	struct gt_frame *frames;
	size_t nframes;
	struct u64map strings;	/* id -> position | length << 40 */
	struct u64map stacks;	/* id -> first frame | frames << 32 */
	uint64_t frequency;	/* ticks per second */
	struct gt_trace_info info;
};

/*
 * Decode, order and replay @len bytes at @buf (which must outlive @t).
 * Returns 0, or -1 with the first violation in @err (@t is then freed).
 */
int gt_trace_load(const uint8_t *buf, size_t len, struct gt_trace *t,
		  struct gt_trace_error *err);
void gt_trace_free(struct gt_trace *t);

/* Copy string @id into @out (NUL-terminated, cut to @size); "" if absent. */
const char *gt_trace_string(const struct gt_trace *t, uint64_t id, char *out,
			    size_t size);
/* Frames of stack @id (innermost first), NULL and *@n = 0 if absent. */
const struct gt_frame *gt_trace_stack(const struct gt_trace *t, uint64_t id,
				      size_t *n);

#endif /* GOTRACE_TRACEDEC_H */
