/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go_trace.h - Go's execution-trace formats as the module writes them and
 * gotrace reads them: the stream's headers, its clock, the event types
 * of the "go 1.11 trace" format
 *
 * They are Go's (runtime/trace.go, internal/trace), not the device's:
 * Go defines them, and /dev/gotrace only serves a stream in them, so they
 * stay out of include/uapi/linux/gotrace.h (Documentation/gotrace.rst,
 * "The uapi header").  Plain C with no kernel types: the module includes
 * it through model_state.h and go111_encode.h, the command through
 * user/trace/go111_events.h.
 */
#ifndef _GT_GO_TRACE_H
#define _GT_GO_TRACE_H

/* The stream starts with these 16 bytes (13 characters, 3 NULs). */
#define GOTRACE_HEADER		"go 1.11 trace\0\0"
#define GOTRACE_HEADER_GO123	"go 1.23 trace\0\0"
#define GOTRACE_HEADER_LEN	16

/* Timestamps are nanoseconds; the footer's EvFrequency says so. */
#define GOTRACE_FREQUENCY	1000000000ULL

/*
 * Event types of the "go 1.11 trace" format, numbered as in Go's
 * runtime/trace.go.  The values listed in brackets follow the type byte;
 * "d" is the timestamp delta, "stk" a stack id, "str" a string id.
 * gotrace writes only some of them; the others (GC, user annotations,
 * *Local variants) are listed for the readers of the format (gotrace
 * check and stat).
 */
enum gotrace_event {
	GOTRACE_EV_BATCH	= 1,	/* [P, base timestamp] */
	GOTRACE_EV_FREQUENCY	= 2,	/* [ticks per second] */
	GOTRACE_EV_STACK	= 3,	/* [id, n, n x (pc, func, file, line)] */
	GOTRACE_EV_GOMAXPROCS	= 4,	/* [d, procs, stk] */
	GOTRACE_EV_PROC_START	= 5,	/* [d, thread id] */
	GOTRACE_EV_PROC_STOP	= 6,	/* [d] */
	GOTRACE_EV_GC_START	= 7,	/* [d, seq, stk]; never written */
	GOTRACE_EV_GC_DONE	= 8,	/* [d]; never written */
	GOTRACE_EV_STW_START	= 9,	/* [d, kind]; never written */
	GOTRACE_EV_STW_DONE	= 10,	/* [d]; never written */
	GOTRACE_EV_GC_SWEEP_START = 11,	/* [d, stk]; never written */
	GOTRACE_EV_GC_SWEEP_DONE = 12,	/* [d, swept, reclaimed]; never written */
	GOTRACE_EV_GO_CREATE	= 13,	/* [d, g, new stk, stk] */
	GOTRACE_EV_GO_START	= 14,	/* [d, g, seq] */
	GOTRACE_EV_GO_END	= 15,	/* [d] */
	GOTRACE_EV_GO_STOP	= 16,	/* [d, stk]; never written */
	GOTRACE_EV_GO_SCHED	= 17,	/* [d, stk] */
	GOTRACE_EV_GO_PREEMPT	= 18,	/* [d, stk] */
	GOTRACE_EV_GO_SLEEP	= 19,	/* [d, stk] */
	GOTRACE_EV_GO_BLOCK	= 20,	/* [d, stk] */
	GOTRACE_EV_GO_UNBLOCK	= 21,	/* [d, g, seq, stk] */
	GOTRACE_EV_GO_BLOCK_SEND = 22,	/* [d, stk] */
	GOTRACE_EV_GO_BLOCK_RECV = 23,	/* [d, stk] */
	GOTRACE_EV_GO_BLOCK_SELECT = 24, /* [d, stk] */
	GOTRACE_EV_GO_BLOCK_SYNC = 25,	/* [d, stk] */
	GOTRACE_EV_GO_BLOCK_COND = 26,	/* [d, stk] */
	GOTRACE_EV_GO_BLOCK_NET	= 27,	/* [d, stk] */
	GOTRACE_EV_GO_SYSCALL	= 28,	/* [d, stk] */
	GOTRACE_EV_GO_SYSEXIT	= 29,	/* [d, g, seq, real timestamp] */
	GOTRACE_EV_GO_SYSBLOCK	= 30,	/* [d] */
	GOTRACE_EV_GO_WAITING	= 31,	/* [d, g] */
	GOTRACE_EV_GO_INSYSCALL = 32,	/* [d, g]; never written */
	GOTRACE_EV_HEAP_ALLOC	= 33,	/* [d, bytes]; never written */
	GOTRACE_EV_HEAP_GOAL	= 34,	/* [d, bytes]; never written */
	GOTRACE_EV_TIMER_GOROUTINE = 35, /* [g]; never written */
	GOTRACE_EV_FUTILE_WAKEUP = 36,	/* [d]; never written */
	GOTRACE_EV_STRING	= 37,	/* [id, length, bytes...] */
	GOTRACE_EV_GO_START_LOCAL = 38, /* [d, g] */
	GOTRACE_EV_GO_UNBLOCK_LOCAL = 39, /* [d, g, stk] */
	GOTRACE_EV_GO_SYSEXIT_LOCAL = 40, /* [d, g, real timestamp]; never written */
	GOTRACE_EV_GO_START_LABEL = 41,	/* [d, g, seq, label string] */
	GOTRACE_EV_GO_BLOCK_GC	= 42,	/* [d, stk]; never written */
	GOTRACE_EV_GC_MARK_ASSIST_START = 43, /* [d, stk]; never written */
	GOTRACE_EV_GC_MARK_ASSIST_DONE = 44, /* [d]; never written */
	GOTRACE_EV_USER_TASK_CREATE = 45, /* [d, id, parent, str, stk]; never written */
	GOTRACE_EV_USER_TASK_END = 46,	/* [d, id, stk]; never written */
	GOTRACE_EV_USER_REGION	= 47,	/* [d, task, mode, str, stk] */
	GOTRACE_EV_USER_LOG	= 48,	/* [d, task, str, stk] length, bytes; never written */
	GOTRACE_EV_COUNT	= 49,	/* first number the format does not know */
};

#endif /* _GT_GO_TRACE_H */
