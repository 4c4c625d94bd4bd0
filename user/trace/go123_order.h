/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go123_order.h - replay the scheduler states a generational trace
 * describes, as Go's reader does, to give its verdict
 *
 * Go's reader does not trust the order of the file: it keeps the state
 * of every goroutine (status, sequence number), every P (status,
 * sequence number) and every M (its G and P), and applies the events of
 * a generation in time order where they fit.  An event that does not fit
 * yet (a sequence number not reached, a P still held) waits while the
 * other Ms' events are tried; an event that can never fit (a G event on
 * an M without a G, a status that contradicts the state) is an error at
 * once.  gt_go123_order_event() is that decision for one event, with Go's
 * words for each error; Documentation/trace-format.rst lists the rules.
 *
 * The state carries over from one generation to the next; its memory is
 * one entry per goroutine, P and M id ever seen.
 */
#ifndef GOTRACE_GO123_ORDER_H
#define GOTRACE_GO123_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "go111_check.h"
#include "go123_walk.h"
#include "u64map.h"

struct gt_go123_order {
	uint64_t initial_gen;	/* the first generation read: any status */
	struct u64map gs, ps, ms;	/* id -> index into the arrays */
	struct gt_go123_gstate *g;
	size_t ng, gcap;
	struct gt_go123_pstate *p;
	size_t np, pcap;
	struct gt_go123_mstate *m;
	size_t nm, mcap;
};

/*
 * Apply @ev of generation @g.  0: applied; 1: not applicable yet (try the
 * other Ms first); -1: the trace is broken, @err says how.
 */
int gt_go123_order_event(struct gt_go123_order *o, const struct gt_go123_gen *g,
			 const struct gt_go123_event *ev, struct gt_trace_error *err);
void gt_go123_order_free(struct gt_go123_order *o);

/*
 * What the state says before an event is applied, for readers that
 * replay Go's transitions (go123_pprof.c): the G running or in a syscall
 * on M @m and the P it holds (UINT64_MAX: none), and whether G @g exists.
 */
void gt_go123_order_m(const struct gt_go123_order *o, uint64_t m, uint64_t *g,
		      uint64_t *p);
bool gt_go123_order_g_exists(const struct gt_go123_order *o, uint64_t g);

#endif /* GOTRACE_GO123_ORDER_H */
