// SPDX-License-Identifier: GPL-2.0
/*
 * go123_check.c - check a generational trace and count what is in it
 *
 * Every event goes through Go's state machine (go123_order.c) in the
 * order Go's reader would apply it, so that gotrace check and Go agree
 * on which traces are broken.  CPU samples are counted; the reader has
 * checked their layout and stacks (go123_read.c).
 */
#include <stdio.h>
#include <string.h>

#include "go123_check.h"
#include "go123_read.h"
#include "go123_order.h"
#include "go123_walk.h"
#include "u64map.h"

struct ids {
	struct gt_go123_info *info;
	struct gt_go123_order order;	/* Go's states, across generations */
	struct u64map gs, ps, ms;
};

static int seen(struct u64map *m, uint64_t id, uint64_t *count)
{
	bool added;

	if (!u64map_put(m, id, 0, &added))
		return -1;
	*count += added;
	return 0;
}

static int count_event(void *ctx, const struct gt_go123_gen *g,
		       const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct ids *x = ctx;
	struct gt_go123_info *in = x->info;
	int ret;

	/* A CPU sample: no state of Go's reader to fit, only its stack. */
	if (ev->type == GT_GO123_EV_CPU_SAMPLE) {
		in->samples++;
		return 0;
	}
	ret = gt_go123_order_event(&x->order, g, ev, err);
	if (ret)	/* not yet (1), or broken */
		return ret;
	in->events++;
	in->by_type[ev->type]++;
	if (!in->min_ts || ev->ts < in->min_ts)
		in->min_ts = ev->ts;
	if (ev->ts > in->max_ts)
		in->max_ts = ev->ts;
	ret |= seen(&x->ms, ev->m, &in->ms);
	switch (ev->type) {
	case GT_GO123_EV_PROC_START:
	case GT_GO123_EV_PROC_STEAL:
	case GT_GO123_EV_PROC_STATUS:
		ret |= seen(&x->ps, ev->args[1], &in->ps);
		break;
	case GT_GO123_EV_GO_CREATE:
	case GT_GO123_EV_GO_CREATE_SYSCALL:
	case GT_GO123_EV_GO_CREATE_BLOCKED:
	case GT_GO123_EV_GO_STATUS:
	case GT_GO123_EV_GO_STATUS_STACK:
	case GT_GO123_EV_GO_START:
		ret |= seen(&x->gs, ev->args[1], &in->goroutines);
		break;
	}
	if (ret) {
		err->off = (size_t)ev->off;
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	}
	return ret;
}

int gt_go123_check(const struct gt_src *src, struct gt_go123_info *info,
		   struct gt_trace_error *err)
{
	struct ids x = { .info = info };
	struct gt_go123_reader r;
	struct gt_go123_gen g = { 0 };
	int ret;

	memset(info, 0, sizeof(*info));
	gt_go123_open(&r, src);
	info->version = r.version;
	info->bytes = src->len;
	info->good_end = 16;
	while ((ret = gt_go123_next(&r, &g, err)) > 0) {
		info->batches += g.nbatches_all;
		info->strings += g.strings.len;
		info->stacks += g.stacks.len;
		ret = gt_go123_walk_samples(&g, count_event, &x, err,
					    &info->ties);
		if (ret)
			break;
		info->generations++;
		if (g.complete) {
			info->good_end = g.end;
			info->good_generations = info->generations;
		}
	}
	gt_go123_gen_free(&g);
	u64map_free(&x.gs);
	u64map_free(&x.ps);
	u64map_free(&x.ms);
	gt_go123_order_free(&x.order);
	return ret < 0 ? -1 : 0;
}
