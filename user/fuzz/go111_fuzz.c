// SPDX-License-Identifier: GPL-2.0
/*
 * go111_fuzz.c - fuzz target: a "go 1.11 trace" through every reader of
 * the command
 *
 * check (the record scan and the replay of the states), stat and stat
 * --json, and symbolize; fuzz.h says what is checked beyond the
 * sanitizers.  The commands read any file without a generational header
 * as a "go 1.11 trace", and so does this target.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "../trace/go111_decode.h"
#include "../trace/go111_sym.h"
#include "../trace/go123_read.h"
#include "../trace/stats.h"
#include "../trace/stats_json.h"
#include "../trace/usym.h"

/* What gotrace check does: 0 if the trace checks. */
static int check(const struct gt_src *src, struct gt_trace_error *err)
{
	struct gt_trace t;
	int ret;

	ret = gt_trace_open(&t, src, err);
	if (!ret)
		ret = gt_trace_replay(&t, NULL, NULL, err);
	gt_trace_close(&t);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gt_trace_error err;
	struct gt_stats s;
	struct gt_trace t;
	struct gt_src src;
	bool valid;

	if (size >= 16 && gt_go123_header(data, 16))
		return -1;	/* the other target's */
	gt_src_mem(&src, data, size);

	valid = !check(&src, &err);

	/* As gotrace stat: the trace owns the source once opened. */
	if (!gt_trace_open(&t, &src, &err)) {
		if (!gt_stats_compute(&t, &s, 0, &err)) {
			gt_stat_json(fuzz_null(), "fuzz", size, &s, 0);
			gt_stats_free(&s);
		}
		gt_trace_close(&t);
	}

	fuzz_symbolize(&src, valid, gt_v1_symbolize, check);
	return 0;
}
