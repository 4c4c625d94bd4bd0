/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go123_stat.h - 'gotrace stat' figures of a generational trace
 *
 * The same struct gt_stats as for a "go 1.11 trace", filled while the
 * events of each generation are walked in time order (go123_walk.c).
 * Times are nanoseconds (frequency 1000000000), whatever the trace's
 * tick.  A task's name is the function of the outermost frame of the
 * first stack that names it: its creation stack, else the stack of its
 * status, stop, block or syscall; a syscall's is the function of the
 * innermost frame of its GoSyscallBegin stack.
 */
#ifndef GOTRACE_GO123_STAT_H
#define GOTRACE_GO123_STAT_H

#include "go111_check.h"
#include "input.h"
#include "stats.h"

/* 0, or -1 with the first problem in @err (then @s is freed). */
int gt_go123_stats(const struct gt_src *src, struct gt_stats *s,
		   struct gt_trace_error *err);

#endif /* GOTRACE_GO123_STAT_H */
