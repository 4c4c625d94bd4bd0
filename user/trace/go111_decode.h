/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go111_decode.h - decode a "go 1.11 trace" and replay its scheduler states,
 * in bounded memory
 *
 * gt_trace_open() runs the structural check of go111_check.c, which
 * indexes the batches of every P, the strings and the stacks.
 * gt_trace_replay() then reads every P's batches with a cursor of its
 * own, gives each timed event its P, implicit goroutine, absolute time,
 * arguments and stack, merges the Ps as Go 1.21's internal/trace order.go
 * does (sequence numbers decide, then time) with a heap over the Ps' next
 * events, applies GoSysExit real timestamps, and replays the goroutine and
 * P state machine of postProcessTrace, plus the rules the 1.23 views need:
 * GoSysBlock followed by ProcStop on its P, GoStart only on a started P,
 * GoSysExit only after GoSysBlock (or GoInSyscall/GoWaiting), GoUnblock
 * never of a goroutine blocked in a syscall, no GoStart left unended.
 * Documentation/trace-format.rst says what these rules are.
 *
 * Memory: a window per P, the index (a few words per batch, stack and
 * string) and a few words per goroutine; never the events.
 *
 * Shared by 'gotrace check', 'gotrace stat' and the unit tests.
 */
#ifndef GOTRACE_GO111_DECODE_H
#define GOTRACE_GO111_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "go111_check.h"

/* gt_event.p of a GoUnblock by a timer goroutine (Go's TimerP). */
#define GT_TIMER_P	(UINT64_MAX - 2)

struct gt_event {
	uint64_t ts;		/* ticks; GoSysExit: its real time if given */
	uint64_t p;		/* P of its batch */
	uint64_t g;		/* the goroutine it belongs to */
	uint64_t args[4];	/* values after the delta, stack id excluded */
	uint64_t stk;		/* stack id, 0 if none */
	size_t off;		/* offset in the file */
	uint8_t type;		/* *Local variants are turned into the plain ones */
};

struct gt_trace {
	struct gt_src src;
	struct gt_trace_info info;
	struct gt_trace_index ix;
	uint64_t frequency;	/* ticks per second */
	/* Set by gt_trace_replay(): */
	uint64_t nev;		/* timed events */
	uint64_t start, end;	/* first and last event time */
};

/*
 * Check the trace of @src, which @t then owns (gt_trace_close() closes
 * it).  Returns 0, or -1 with the first violation in @err; @t is then
 * closed.
 */
int gt_trace_open(struct gt_trace *t, const struct gt_src *src,
		  struct gt_trace_error *err);
/*
 * Open and check @path ("-" = stdin): 0, -1 with the first violation in
 * @err, or a positive errno when the file cannot be read.
 */
int gt_trace_open_path(struct gt_trace *t, const char *path,
		       struct gt_trace_error *err);
/* The same for @len bytes at @buf, which must outlive @t. */
int gt_trace_open_mem(struct gt_trace *t, const uint8_t *buf, size_t len,
		      struct gt_trace_error *err);
void gt_trace_close(struct gt_trace *t);

/* Called with every event in replay order: 0, or -1 to stop (no memory). */
typedef int (*gt_trace_event_fn)(void *arg, const struct gt_event *e);

/*
 * Merge and replay the opened trace @t, calling @fn (if not NULL) on each
 * event once its transition was checked, in time order but for GoSysExit
 * events with an earlier real time, which come where the merge puts them
 * (their goroutine has no event in between).  Returns 0, or -1 with the
 * first violation in the order the merge meets them in @err.
 */
int gt_trace_replay(struct gt_trace *t, gt_trace_event_fn fn, void *arg,
		    struct gt_trace_error *err);

/* gt_trace_open_mem() and gt_trace_replay() without a callback, closed. */
int gt_trace_verify(const uint8_t *buf, size_t len,
		    struct gt_trace_error *err);

/* Copy string @id into @out (NUL-terminated, cut to @size); "" if absent. */
const char *gt_trace_string(const struct gt_trace *t, uint64_t id, char *out,
			    size_t size);
/* Frames of stack @id (innermost first), NULL and *@n = 0 if absent. */
const struct gt_frame *gt_trace_stack(const struct gt_trace *t, uint64_t id,
				      size_t *n);

#endif /* GOTRACE_GO111_DECODE_H */
