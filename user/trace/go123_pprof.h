/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go123_pprof.h - the profiles of 'gotrace pprof' from a generational
 * trace
 *
 * The same profiles as Go's 'go tool trace -pprof=KIND': the time
 * goroutines (gotrace's tasks) spend in one state, keyed by the stack of
 * the event that put them there, with Go's quirks (Documentation/
 * gotrace.rst, "gotrace pprof"):
 *
 *   sched    runnable, whatever the reason (scheduling latency)
 *   sync     waiting for a reason naming chan, sync or select
 *   syscall  in a syscall
 *   net      waiting for the reason "network"
 *
 * and a CPU profile, which Go's trace tool does not make, from the
 * trace's CPU samples: each a count of one under its stack, and the
 * nanoseconds of its sampling period (the rate the trace states, else
 * runtime/pprof's 100 Hz), as Go's runtime/pprof writes CPU profiles.
 *
 * The trace is read one generation at a time; what is kept across them
 * is the profile, Go's scheduler state (go123_order.c) and a few words
 * per goroutine.
 */
#ifndef GOTRACE_GO123_PPROF_H
#define GOTRACE_GO123_PPROF_H

#include <stdbool.h>
#include <stdint.h>

#include "go111_check.h"
#include "input.h"
#include "profile.h"

enum gt_pprof_kind { GT_PPROF_SCHED, GT_PPROF_SYNC, GT_PPROF_SYSCALL,
		     GT_PPROF_NET, GT_PPROF_CPU };

struct gt_pprof_opts {
	enum gt_pprof_kind kind;
	/* Only the goroutines that match all the filters given (not NULL). */
	const char *unit;	/* in this systemd unit (its user region) */
	const char *comm;	/* of this name (the task's outermost frame) */
	bool by_tid;
	uint64_t tid;		/* goroutines of this thread id (low 32 bits) */
};

/* What the trace held, for the caller's messages. */
struct gt_pprof_seen {
	uint64_t samples;	/* CPU samples, before the filters */
	uint64_t hz;		/* their rate as the trace states it, or 0 */
};

/*
 * The profile of @src into @p (gt_prof_init() first, GT_PROF_CPU for
 * GT_PPROF_CPU).  0, or -1 and @err.  @seen may be NULL.
 */
int gt_go123_pprof(const struct gt_src *src, const struct gt_pprof_opts *o,
		   struct gt_prof *p, struct gt_pprof_seen *seen,
		   struct gt_trace_error *err);

#endif /* GOTRACE_GO123_PPROF_H */
