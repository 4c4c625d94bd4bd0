/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracev2_walk.h - the events of one generation, in time order
 *
 * Every event batch is decoded with the layout of its event types, and
 * every stack and string id an event names must be in the generation's
 * tables, as Go's reader requires.  The batches of each M are read in
 * file order (the order the format gives them) and the Ms are merged by
 * event time, as Go's reader tries them.  The partial order (sequence
 * numbers, goroutine and P states) is not replayed: see
 * Documentation/trace-format.rst.
 */
#ifndef GOTRACE_TRACEV2_WALK_H
#define GOTRACE_TRACEV2_WALK_H

#include "tracev2.h"
#include "tracev2_in.h"

struct gt_v2_event {
	unsigned int type;
	uint64_t m;
	uint64_t ts;			/* nanoseconds */
	uint64_t args[GT_V2_ARGS_MAX];	/* [0] the delta, then the values */
	uint64_t off;			/* file offset of its batch */
};

/* Called for every event; a non-zero return stops the walk with it. */
typedef int (*gt_v2_event_fn)(void *ctx, const struct gt_v2_gen *g,
			      const struct gt_v2_event *ev,
			      struct gt_trace_error *err);

/* 0, or -1 with the first problem in @err.  @fn may be NULL. */
int gt_v2_walk(const struct gt_v2_gen *g, gt_v2_event_fn fn, void *ctx,
	       struct gt_trace_error *err);

#endif /* GOTRACE_TRACEV2_WALK_H */
