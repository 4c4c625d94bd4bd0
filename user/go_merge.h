/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go_merge.h - a Go program's own trace, with the kernel's view of its
 * threads added (gotrace merge, record --go)
 *
 * The output is the program's trace: every event of it, in its format
 * version, so that the Go that reads the program's trace reads the
 * merged one.  Where one of the program's threads (a Go trace's M is
 * the thread's Linux tid) was off its CPU in gotrace's trace while Go
 * has a goroutine on it (running, or in a syscall), the goroutine gets
 * a user region named after why, and at its start a user log that
 * says who ran instead or what woke it, with the kernel's stack.
 * Documentation/go-merge.rst shows it in Go's viewer.
 */
#ifndef GOTRACE_GO_MERGE_H
#define GOTRACE_GO_MERGE_H

#include <stdint.h>
#include <stdio.h>

#include "trace/input.h"

struct gt_kview;
struct u64map;
struct gt_trace_error;

struct gt_merge_opts {
	uint64_t min_ns;		/* shorter intervals are left out */
	/*
	 * Where the kernel's view comes from, if not from gotrace's trace
	 * (NULL): the merge's checker (tests/merge_check.c) makes views of
	 * its own for the threads @tids over [@first, @last] ns.  0, or -1
	 * with @err.
	 */
	int (*view)(void *arg, struct gt_kview *kv, const struct u64map *tids,
		    uint64_t first, uint64_t last, struct gt_trace_error *err);
	void *view_arg;
};

/* What the merge did and how well the clocks agreed, for its report. */
struct gt_merge_stats {
	int version;			/* the program trace's N of "go 1.N" */
	uint64_t generations;
	uint64_t threads;		/* the program's threads (Ms) */
	uint64_t threads_seen;		/* of them, in gotrace's trace */
	uint64_t regions[4];		/* added, by enum gt_kv_kind */
	uint64_t region_ns[4];
	uint64_t skipped;		/* intervals with no goroutine on the M */
	uint64_t clamped;		/* ended early at the thread's next event */
	uint64_t cpu_logs;
	uint64_t after_logs;		/* waits said once a goroutine came */
	/* Events added: RegionBegin, RegionEnd, UserLog. */
	uint64_t added_begins, added_ends, added_logs;
	uint64_t added_samples;		/* the recording's CPU samples */
	uint64_t lost_windows;		/* "events lost here" in gotrace's trace */
	/* Clocks: a snapshot's offset from ticks * period, in ns. */
	int snapshot;			/* 1: the program trace had one */
	int64_t snapshot_off_ns;
	/*
	 * The syscalls in which a thread slept, seen by both traces, bound
	 * the offset (program ns - kernel ns) to [bound_lo, bound_hi];
	 * offset_ns is the one taken.
	 */
	uint64_t matched;
	int64_t bound_lo_ns, bound_hi_ns, offset_ns;
	uint64_t prog_first_ns, prog_last_ns;	/* CLOCK_MONOTONIC */
	uint64_t sys_first_ns, sys_last_ns;
};

/*
 * Merge @sys (a gotrace trace, generational format; unused with
 * o->view) into @prog (a Go 1.22+ program's trace), written to @out.
 * 0, or -1 after saying why.
 */
int gt_go_merge(const struct gt_src *prog, const struct gt_src *sys, FILE *out,
		const struct gt_merge_opts *o, struct gt_merge_stats *st);

/*
 * gt_go_merge() of the files @prog_path and @sys_path into the trace
 * file @out_path (output.h), and its report to @report (NULL: none).
 * 0, or -1 after saying why.
 */
int gt_merge_files(const char *prog_path, const char *sys_path,
		   const char *out_path, const struct gt_merge_opts *o,
		   FILE *report, struct gt_merge_stats *st);

/*
 * Whether the merged trace at @path is one Go's reader takes (as gotrace
 * check replays it) and holds @prog's events, every one, and the ones
 * @st says were added, no other.  0, or -1 after saying why.
 */
int gt_go_merge_verify(const struct gt_src *prog, const char *path,
		       const struct gt_merge_stats *st);

/* The report of @st, a few lines for a terminal. */
void gt_go_merge_report(FILE *f, const struct gt_merge_stats *st);

#endif /* GOTRACE_GO_MERGE_H */
