/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go123_walk.h - the events of one generation, in time order
 *
 * Every event batch is decoded with the layout of its event types, and
 * every stack and string id an event names must be in the generation's
 * tables, as Go's reader requires.  The batches of each M are read in
 * file order (the order the format gives them) and the Ms are merged by
 * event time, as Go's reader tries them; the callback decides whether an
 * event fits (go123_order.c replays Go's states).
 */
#ifndef GOTRACE_GO123_WALK_H
#define GOTRACE_GO123_WALK_H

#include "go123.h"
#include "go123_read.h"

struct gt_go123_event {
	unsigned int type;
	uint64_t m;
	uint64_t ts;			/* nanoseconds */
	uint64_t args[GT_GO123_ARGS_MAX];	/* [0] the delta, then the values */
	uint64_t off;			/* file offset of its batch */
};

/*
 * Called for the next event in time order.  0: it is taken; -1: stop the
 * walk with @err; 1: it does not fit yet, as Go's reader says of an event
 * whose sequence number or state is not reached: the walk offers the
 * other Ms' next events, in time order, and fails if none is taken.
 */
typedef int (*gt_go123_event_fn)(void *ctx, const struct gt_go123_gen *g,
				 const struct gt_go123_event *ev,
				 struct gt_trace_error *err);

/* 0, or -1 with the first problem in @err.  @fn may be NULL. */
int gt_go123_walk(const struct gt_go123_gen *g, gt_go123_event_fn fn, void *ctx,
		  struct gt_trace_error *err);

/*
 * gt_go123_walk(), counting in *@ties the events that did not fit until
 * another M's event of the same time was taken.  Go's readers may take
 * a later event there instead (they sort the Ms they try, not stably,
 * and skip the first), which squashes the times of what lies between:
 * a writer should give the event that fits first an earlier time.
 */
int gt_go123_walk_ties(const struct gt_go123_gen *g, gt_go123_event_fn fn,
		       void *ctx, struct gt_trace_error *err,
		       uint64_t *ties);

/*
 * gt_go123_walk_ties() with the generation's CPU samples too, as events of
 * type GT_GO123_EV_CPU_SAMPLE (m: the sample's M, args[1] its P, args[2]
 * its G, args[3] its stack), in Go's reader's order: a sample comes
 * before the next event tried when it is earlier than the earliest of
 * the Ms' next events.  @fn's return for a sample: 0, or -1 to stop.
 */
int gt_go123_walk_samples(const struct gt_go123_gen *g, gt_go123_event_fn fn,
			  void *ctx, struct gt_trace_error *err, uint64_t *ties);

#endif /* GOTRACE_GO123_WALK_H */
