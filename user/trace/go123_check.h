/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go123_check.h - 'gotrace check' of a generational trace
 *
 * Reads the trace one generation at a time (go123_read.c), decodes every
 * event (go123_walk.c) and counts what it saw.  Memory is bounded by
 * the largest generation, plus one entry per goroutine, P and M id.
 */
#ifndef GOTRACE_GO123_CHECK_H
#define GOTRACE_GO123_CHECK_H

#include <stdint.h>

#include "go111_check.h"
#include "input.h"
#include "go123.h"

struct gt_go123_info {
	int version;		/* N of "go 1.N trace" */
	uint64_t bytes;
	uint64_t generations;	/* read and checked */
	uint64_t batches;	/* of every kind */
	uint64_t events;	/* CPU samples not among them */
	uint64_t samples;	/* CPU samples */
	uint64_t by_type[GT_GO123_NR_TYPES];
	uint64_t goroutines, ps, ms;	/* distinct ids */
	uint64_t strings, stacks;	/* summed over the generations */
	uint64_t min_ts, max_ts;	/* nanoseconds */
	/* Events that fit only after another M's event of the same time. */
	uint64_t ties;
	/*
	 * End of the last generation whose end is certain and that was
	 * read and checked whole: what --repair keeps.
	 */
	uint64_t good_end;
	uint64_t good_generations;
};

/* 0, or -1 with the first problem in @err (@info: what came before). */
int gt_go123_check(const struct gt_src *src, struct gt_go123_info *info,
		   struct gt_trace_error *err);

#endif /* GOTRACE_GO123_CHECK_H */
