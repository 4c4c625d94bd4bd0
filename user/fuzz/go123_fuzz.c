// SPDX-License-Identifier: GPL-2.0
/*
 * go123_fuzz.c - fuzz target: a generational trace ("go 1.22" to "go
 * 1.26 trace") through every reader of the command
 *
 * check (and what --repair would keep), stat and stat --json, each
 * pprof kind (CPU also with filters) and its encoding, and symbolize;
 * fuzz.h says what is checked beyond the sanitizers.  An input without
 * a generational header is no input of this target.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../trace/go123_check.h"
#include "../trace/go123_pprof.h"
#include "../trace/go123_read.h"
#include "../trace/go123_stat.h"
#include "../trace/go123_sym.h"
#include "../trace/pprof_enc.h"
#include "../trace/stats_json.h"
#include "../trace/usym.h"

static int discard(void *ctx, const void *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return 0;
}

static void pprof(const struct gt_src *src, const struct gt_pprof_opts *o)
{
	struct gt_trace_error err;
	struct gt_pprof_seen seen;
	struct gt_prof p;

	if (gt_prof_init(&p, o->kind == GT_PPROF_CPU ? GT_PROF_CPU :
			 GT_PROF_TIME))
		return;
	if (!gt_go123_pprof(src, o, &p, &seen, &err))
		gt_pprof_encode(&p, discard, NULL);
	gt_prof_free(&p);
}

/* gt_go123_check() as the shared symbolize pass calls a checker. */
static int check(const struct gt_src *src, struct gt_trace_error *err)
{
	struct gt_go123_info in;

	return gt_go123_check(src, &in, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum gt_pprof_kind kinds[] = {
		GT_PPROF_SCHED, GT_PPROF_SYNC, GT_PPROF_SYSCALL, GT_PPROF_NET,
		GT_PPROF_CPU,
	};
	struct gt_trace_error err;
	struct gt_pprof_opts o = { 0 };
	struct gt_go123_info in;
	struct gt_stats s;
	struct gt_src src;
	bool valid;

	if (size < 16 || !gt_go123_header(data, 16))
		return -1;	/* not added to the corpus */
	gt_src_mem(&src, data, size);

	valid = !gt_go123_check(&src, &in, &err);
	if (!valid && in.good_generations) {
		struct gt_src kept;
		struct gt_go123_info again;

		gt_src_mem(&kept, data, (size_t)in.good_end);
		if (gt_go123_check(&kept, &again, &err))
			fuzz_fail("the repair's %llu bytes do not check: offset %zu: %s",
				  (unsigned long long)in.good_end, err.off,
				  err.msg);
	}

	if (!gt_go123_stats(&src, &s, &err)) {
		gt_stat_json(fuzz_null(), "fuzz", size, &s, 0);
		gt_stats_free(&s);
	}

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		o.kind = kinds[i];
		pprof(&src, &o);
	}
	/* The filters: a unit, a name and a thread that the corpus has. */
	o = (struct gt_pprof_opts){ .kind = GT_PPROF_CPU, .unit = "init.scope",
				    .comm = "burn", .by_tid = true, .tid = 1 };
	pprof(&src, &o);
	o.kind = GT_PPROF_SCHED;
	o.unit = NULL;
	o.by_tid = false;
	pprof(&src, &o);

	fuzz_symbolize(&src, valid, gt_go123_symbolize, check);
	return 0;
}
