/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefile.h - strict structural check of a "go 1.11 trace" file
 *
 * Decodes every record the way Go 1.21's internal/trace readTrace and
 * parseEvents do, plus the rules that Go 1.23's reader or the web UI
 * enforce (see /work/shared/docs/go-trace-format.md, sections 1, 2, 4.9).
 * It does not replay goroutine states: that is 'go tool trace'.
 */
#ifndef GOTRACE_TRACEFILE_H
#define GOTRACE_TRACEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Event types 1..48 exist in "go 1.11 trace"; 0 and >= 49 are errors. */
#define GT_TRACE_NR_TYPES	49

struct gt_trace_info {
	uint64_t by_type[64];	/* records per type, batches included */
	uint64_t events;	/* timed events (not batch/string/stack/freq) */
	uint64_t batches;
	uint64_t ps;		/* distinct P ids of batches */
	uint64_t goroutines;	/* distinct goroutine ids */
	uint64_t strings;
	uint64_t stacks;	/* defined, non-empty */
	uint64_t frequency;	/* ticks per second */
	uint64_t min_ts;	/* first and last event time, in ticks */
	uint64_t max_ts;
	uint64_t bytes;
};

struct gt_trace_error {
	size_t off;		/* offset of the offending record */
	char msg[192];
};

/*
 * Check @len bytes at @buf.  Returns 0 and fills @info, or -1 and fills
 * @err with the first problem (and what was counted up to it in @info).
 */
int gt_trace_check(const uint8_t *buf, size_t len, struct gt_trace_info *info,
		   struct gt_trace_error *err);

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

#endif /* GOTRACE_TRACEFILE_H */
