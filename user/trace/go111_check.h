/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go111_check.h - strict structural check of a "go 1.11 trace" file
 *
 * One pass over the file decodes every record the way Go 1.21's
 * internal/trace readTrace and parseEvents do, plus the rules that Go
 * 1.23's reader or the web UI enforce (Documentation/trace-format.rst).
 * It does not replay goroutine states: that is go111_decode.c, which reads
 * what this pass indexes (the batches of every P, strings, stacks).
 */
#ifndef GOTRACE_GO111_CHECK_H
#define GOTRACE_GO111_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "go111_events.h"
#include "input.h"
#include "u64map.h"

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

struct gt_frame {
	uint64_t pc;
	uint64_t func;		/* string ids */
	uint64_t file;
	uint64_t line;
};

/* A batch: its P and where its EvBatch record is (it ends at the next). */
struct gt_batch_ref {
	uint64_t p;
	uint64_t off;
};

/* What the replay and 'gotrace stat' need again, kept by the check. */
struct gt_trace_index {
	struct gt_batch_ref *batches;	/* in file order */
	size_t nbatches, bcap;
	struct u64map strings;	/* id -> offset of its bytes | length << 40 */
	struct u64map stacks;	/* id -> first frame | frames << 32 */
	struct gt_frame *frames;
	size_t nframes, fcap;
	struct u64map timer_gs;	/* goroutines of EvTimerGoroutine */
};

/*
 * Check the trace of @src.  Returns 0 and fills @info and @ix, or -1 and
 * fills @err with the first problem (and what was counted up to it in
 * @info).  @ix must be freed with gt_trace_index_free() either way.
 */
int gt_trace_scan(const struct gt_src *src, struct gt_trace_info *info,
		  struct gt_trace_index *ix, struct gt_trace_error *err);
void gt_trace_index_free(struct gt_trace_index *ix);

/* gt_trace_scan() of @len bytes at @buf, keeping no index. */
int gt_trace_check(const uint8_t *buf, size_t len, struct gt_trace_info *info,
		   struct gt_trace_error *err);

#endif /* GOTRACE_GO111_CHECK_H */
