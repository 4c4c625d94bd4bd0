/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go111_events.h - what the "go 1.11 trace" format says about each event type
 *
 * The numbers are Go's (enum gotrace_event in model/go_trace.h); this adds the name, the layout of the
 * values and the classes the checker and the replay need.  See
 * Documentation/trace-format.rst.
 */
#ifndef GOTRACE_GO111_EVENTS_H
#define GOTRACE_GO111_EVENTS_H

#include <stdbool.h>

#include "../../model/go_trace.h"

/* Event types 1..48 exist; 0 and GOTRACE_EV_COUNT on are errors. */
#define GT_TRACE_NR_TYPES	GOTRACE_EV_COUNT

/*
 * Layout of a type: *@nvals values after the type byte, the first a
 * timestamp delta if *@ts, the last a stack id if *@stk.  Returns false
 * for a type the format does not know (Stack and String have their own
 * layouts: nvals 0).
 */
bool gt_trace_type_layout(unsigned int type, unsigned int *nvals, bool *ts,
			  bool *stk);

/* "GoStart" ...; NULL for a type the format does not know. */
const char *gt_trace_type_name(unsigned int type);

/*
 * A goroutine blocks by itself (GoBlock*, GoSleep): it stops running,
 * waits, and a GoUnblock makes it runnable again.  GoSysBlock is not one:
 * only GoSysExit ends it.
 */
bool gt_trace_type_is_block(unsigned int type);

#endif /* GOTRACE_GO111_EVENTS_H */
