// SPDX-License-Identifier: GPL-2.0
/*
 * go_merge.c - add gotrace's view of a Go program's threads to the
 * program's own trace
 *
 * Two passes over the program's trace.  The first finds its threads
 * (the Ms of its batches) and where each generation begins; gotrace's
 * trace is then read for those threads only (trace/kview.c).  The
 * second copies every generation, batch by batch, except the event
 * batches of the threads that get something: those are decoded and
 * written anew with the added events among theirs, in time order.
 *
 * Where an interval goes.  An M's events are written by its thread, so
 * none falls inside an interval in which the thread was off its CPU;
 * the added events go between two of its events, and Go's reader
 * gives them the goroutine the M has there (the walk of the program's
 * trace, replaying Go's states, says which: trace/go123_order.c).  A
 * user region needs one: without a goroutine on the M (an idle thread
 * parked in the kernel, which Go's view already shows as not running)
 * nothing is added.  A region that has not ended when the thread's
 * next event comes (the clocks disagree by a little) ends there, so
 * that regions never overlap the program's own events.  Each added
 * event goes into the generation whose time it falls in: the
 * generation that begins after it would otherwise be pushed later by
 * Go's reader, which never lets time go backwards.  A region may begin
 * in one generation and end in the next: Go's reader keeps an M's
 * goroutine and a goroutine's regions across generations.
 *
 * Clocks.  Go's runtime on Linux stamps its trace with nanotime() (the
 * vDSO's CLOCK_MONOTONIC) divided by 64, and gotrace with
 * CLOCK_MONOTONIC: the same clock, offset 0.  From Go 1.25 each
 * generation holds a clock snapshot (trace time and CLOCK_MONOTONIC read
 * one after the other), which says so, up to the time between its reads.
 * The offset is then checked against the syscalls in which the
 * program's threads slept, which both traces see (align()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "go_merge_int.h"
#include "trace/base.h"
#include "trace/go123.h"
#include "trace/go123_check.h"
#include "trace/go123_walk.h"
#include "trace/leb128.h"

#define NS_PER_S	1000000000ULL
/* A kernel syscall entry this near a Go GoSyscallBegin is its own. */
#define MATCH_WINDOW_NS	1000000
/* A clock snapshot this far from CLOCK_MONOTONIC: another clock. */
#define SNAPSHOT_OTHER_CLOCK_NS	1000000

/* Kernel CLOCK_MONOTONIC @ns in the program's ticks. */
static uint64_t to_ticks(const struct merge *mg, uint64_t ns)
{
	int64_t p = (int64_t)ns + mg->delta;

	if (p <= 0)
		return 0;
	return (uint64_t)((unsigned __int128)(uint64_t)p * mg->freq / NS_PER_S);
}

/* A time of the walk (ns) in ticks, rounded down. */
static uint64_t ns_ticks(const struct merge *mg, uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * mg->freq / NS_PER_S);
}

static uint64_t ticks_ns(const struct merge *mg, uint64_t t)
{
	return (uint64_t)((unsigned __int128)t * NS_PER_S / mg->freq);
}

static struct mstate *mstate(struct merge *mg, uint64_t m)
{
	uint64_t *v = u64map_get(&mg->midx, m);

	return v ? &mg->ms[*v] : NULL;
}

/* Pass 1's walk: the program's last event, its syscalls for align(). */
static int on_pass1(void *arg, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct merge *mg = arg;
	uint64_t *v;
	bool added;

	(void)g;
	if (ns_ticks(mg, ev->ts) > mg->last_tick)
		mg->last_tick = ns_ticks(mg, ev->ts);
	switch (ev->type) {
	case GT_GO123_EV_GO_SYSCALL_BEGIN:
		v = u64map_put(&mg->open_sys, ev->m, 0, &added);
		if (!v)
			goto oom;
		*v = ev->ts + 1;
		break;
	case GT_GO123_EV_GO_SYSCALL_END:
	case GT_GO123_EV_GO_SYSCALL_END_BLOCKED:
		v = u64map_get(&mg->open_sys, ev->m);
		if (!v || !*v)
			break;
		if (gt_grow((void **)&mg->pairs, &mg->pcap, 3 * mg->npairs + 3,
			    sizeof(*mg->pairs)))
			goto oom;
		mg->pairs[3 * mg->npairs] = ev->m;
		mg->pairs[3 * mg->npairs + 1] = *v - 1;
		mg->pairs[3 * mg->npairs + 2] = ev->ts;
		mg->npairs++;
		*v = 0;
		break;
	}
	return 0;
oom:
	snprintf(err->msg, sizeof(err->msg), "out of memory");
	return -1;
}

/* Pass 1: the threads, where generations begin, the last event. */
static int first_pass(struct merge *mg, struct gt_trace_error *err)
{
	struct gt_go123_reader r;
	struct gt_go123_gen g = { 0 };
	int ret;

	gt_go123_open(&r, mg->prog);
	mg->st->version = r.version;
	while ((ret = gt_go123_next(&r, &g, err)) > 0) {
		uint64_t start = NONE;

		if (!mg->freq) {
			mg->freq = g.freq;
			mg->st->snapshot = g.snapshot;
			if (g.snapshot)
				mg->st->snapshot_off_ns =
					(int64_t)gt_go123_ticks_ns(g.freq, g.snap[0]) -
					(int64_t)g.snap[1];
			/*
			 * The snapshot's two clocks are one on Linux: what
			 * it measures is the time between its two reads
			 * (tens of ns; us under emulation).  Only a
			 * snapshot that says the trace clock is another
			 * clock sets the offset.
			 */
			if (llabs(mg->st->snapshot_off_ns) > SNAPSHOT_OTHER_CLOCK_NS)
				mg->delta = mg->st->snapshot_off_ns;
		}
		for (size_t i = 0; i < g.nbatches; i++) {
			const struct gt_go123_batch *b = &g.batches[i];
			bool added;

			if (b->time < start)
				start = b->time;
			if (b->m == NONE)
				continue;
			if (!u64map_put(&mg->midx, b->m, mg->nms, &added) ||
			    (added && gt_grow((void **)&mg->ms, &mg->mscap,
					      mg->nms + 1, sizeof(*mg->ms))))
				goto oom;
			if (added)
				mg->ms[mg->nms++] = (struct mstate){ .m = b->m,
					.at = { NONE, NONE }, .cpu = -1 };
		}
		if (gt_grow((void **)&mg->gen_start, &mg->gcap, mg->ngens + 1,
			    sizeof(*mg->gen_start)))
			goto oom;
		mg->gen_start[mg->ngens++] = start == NONE ? 0 : start;
		if (gt_go123_walk(&g, on_pass1, mg, err)) {
			ret = -1;
			break;
		}
	}
	gt_go123_gen_free(&g);
	return ret;
oom:
	gt_go123_gen_free(&g);
	snprintf(err->msg, sizeof(err->msg), "out of memory");
	return -1;
}

/*
 * Set each thread's range of the @n entries of @size bytes at @arr,
 * sorted by thread: every kind of entry of the view (span, run, CPU
 * sample) begins with its tid.  @at: where the range is in a thread's
 * struct mstate.
 */
static void index_by_tid(struct merge *mg, const void *arr, size_t n,
			 size_t size, size_t at)
{
	const char *a = arr;

	for (size_t i = 0; i < n;) {
		uint64_t tid = *(const uint64_t *)(a + i * size);
		size_t j = i;
		struct mstate *s;

		while (j < n && *(const uint64_t *)(a + j * size) == tid)
			j++;
		s = mstate(mg, tid);
		if (s)
			*(struct range *)((char *)s + at) = (struct range){ i, j };
		i = j;
	}
}

/* Where each thread's entries are in the kernel's view. */
static void index_view(struct merge *mg)
{
	struct gt_kview *kv = &mg->kv;

	index_by_tid(mg, kv->spans, kv->nspans, sizeof(*kv->spans),
		     offsetof(struct mstate, span));
	index_by_tid(mg, kv->samples, kv->nsamples, sizeof(*kv->samples),
		     offsetof(struct mstate, smp));
	index_by_tid(mg, kv->runs, kv->nruns, sizeof(*kv->runs),
		     offsetof(struct mstate, run));
}

/* The last syscall entry of thread @m in [@from, @to] ns, or 0. */
static uint64_t entry_before(const struct gt_kview *kv, uint64_t m,
			     uint64_t from, uint64_t to)
{
	const uint64_t *e = kv->enters;
	size_t lo = 0, hi = kv->nenters / 2;

	while (lo < hi) {		/* the first entry after @to */
		size_t mid = lo + (hi - lo) / 2;

		if (e[2 * mid] < m || (e[2 * mid] == m && e[2 * mid + 1] <= to))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || e[2 * (lo - 1)] != m || e[2 * (lo - 1) + 1] < from)
		return 0;
	return e[2 * (lo - 1) + 1];
}

/*
 * The clocks' offset: program ns = kernel ns + delta.  Each syscall in
 * which the thread slept is seen by both traces: Go's GoSyscallBegin
 * (@b) comes before the kernel's entry (k), and Go's end of the
 * syscall (@e) after the kernel woke the thread (w).  So b <= k +
 * delta and w + delta <= e: delta lies in [max(b - k), min(e - w)].
 * The offset taken (0, the clocks being one, or the snapshot's) is
 * moved into that interval if it lies outside, and the interval
 * reported: it is how far the alignment can be wrong.
 */
static void align(struct merge *mg)
{
	struct gt_merge_stats *st = mg->st;
	const struct gt_kview *kv = &mg->kv;
	int64_t lo = INT64_MIN, hi = INT64_MAX;

	for (size_t i = 0; i < mg->npairs; i++) {
		const uint64_t *pr = &mg->pairs[3 * i];
		const struct mstate *s = mstate(mg, pr[0]);
		int64_t b = (int64_t)pr[1] - mg->delta;
		int64_t e = (int64_t)pr[2] - mg->delta;

		uint64_t first = 0, wake = 0, entry;

		/*
		 * Times here: kernel ns, by the offset taken so far.  Its
		 * sleeps are those between Go's begin and end (one syscall
		 * may sleep several times): its entry came before the
		 * first, its wakeup ended the last.
		 */
		for (size_t k = s ? s->span.first : 0; s && k < s->span.end; k++) {
			const struct gt_kv_span *sp = &kv->spans[k];

			if ((int64_t)sp->start > e)
				break;
			if (sp->kind != GT_KV_SYSCALL || sp->open ||
			    (int64_t)sp->start < b)
				continue;
			if (!first)
				first = sp->start;
			wake = sp->end;
		}
		if (!first)
			continue;
		entry = entry_before(kv, pr[0], (uint64_t)(b - MATCH_WINDOW_NS),
				     first);
		if (!entry)
			continue;
		if ((int64_t)pr[1] - (int64_t)entry > lo)
			lo = (int64_t)pr[1] - (int64_t)entry;
		if ((int64_t)pr[2] - (int64_t)wake < hi)
			hi = (int64_t)pr[2] - (int64_t)wake;
		st->matched++;
	}
	st->bound_lo_ns = lo;
	st->bound_hi_ns = hi;
	st->offset_ns = mg->delta;
	if (!st->matched || lo > hi)
		return;
	if (mg->delta < lo)
		mg->delta = lo;
	else if (mg->delta > hi)
		mg->delta = hi;
	st->offset_ns = mg->delta;
}

/*
 * Pass 2's walk: Go's goroutine and P on each M after each of its
 * events, and when another M's ProcSteal took the P of one.
 */
static int on_event(void *arg, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct merge *mg = arg;
	struct mstate *s = mstate(mg, ev->m), *v;
	struct gctx c;
	int ret;

	ret = gt_go123_order_event(&mg->order, g, ev, err);
	if (ret)
		return ret;
	if (ev->type == GT_GO123_EV_PROC_STEAL && ev->args[3] != ev->m &&
	    (v = mstate(mg, ev->args[3]))) {
		if (gt_grow((void **)&v->steals, &v->stcap, v->nsteals + 1,
			    sizeof(*v->steals)))
			goto oom;
		v->steals[v->nsteals++] = ns_ticks(mg, ev->ts);
	}
	if (!s)
		return 0;
	gt_go123_order_m(&mg->order, ev->m, &c.g, &c.p);
	c.t = ns_ticks(mg, ev->ts);
	if (gt_grow((void **)&s->after, &s->cap, s->n + 1, sizeof(*s->after)))
		goto oom;
	s->after[s->n++] = c;
	return 0;
oom:
	snprintf(err->msg, sizeof(err->msg), "out of memory");
	return -1;
}

static int add_mark(struct mstate *s, uint64_t t, enum mark_what what,
		    size_t span, int64_t cpu)
{
	if (gt_grow((void **)&s->marks, &s->mcap, s->nmarks + 1,
		    sizeof(*s->marks)))
		return -1;
	s->marks[s->nmarks++] = (struct mark){ t, what, span, cpu };
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (int)x->what - (int)y->what;
}

/* The marks of thread @s in [@lo, @hi) ticks, by time. */
static int marks_of(struct merge *mg, struct mstate *s, uint64_t lo,
		    uint64_t hi)
{
	const struct gt_kview *kv = &mg->kv;

	s->nmarks = 0;
	if (s->pend && s->pend_t < hi) {
		if (add_mark(s, s->pend_t, MARK_END, 0, 0))
			return -1;
		s->pend = false;
	}
	for (; s->span.first < s->span.end; s->span.first++) {
		const struct gt_kv_span *sp = &kv->spans[s->span.first];
		uint64_t a = to_ticks(mg, sp->start), b = to_ticks(mg, sp->end);

		if (a >= hi)
			break;
		/* Not past the program's last event: no region left open. */
		if (b > mg->last_tick)
			b = mg->last_tick;
		if (a < lo || b <= a || sp->end - sp->start < mg->o->min_ns ||
		    s->pend)
			continue;
		if (add_mark(s, a, MARK_BEGIN, s->span.first, 0))
			return -1;
		if (b < hi) {
			if (add_mark(s, b, MARK_END, 0, 0))
				return -1;
		} else {
			s->pend = true;
			s->pend_t = b;
		}
	}
	for (; s->run.first < s->run.end; s->run.first++) {
		const struct gt_kv_run *r = &kv->runs[s->run.first];
		uint64_t a = to_ticks(mg, r->start);

		if (a >= hi)
			break;
		if (a < lo || r->cpu < 0 || r->cpu == s->cpu)
			continue;
		if (add_mark(s, a, MARK_CPU, 0, r->cpu))
			return -1;
		s->cpu = r->cpu;
	}
	if (s->nmarks > 1)
		qsort(s->marks, s->nmarks, sizeof(*s->marks), by_time);
	return 0;
}

/*
 * A user log of category "kernel" saying @text on thread @s at @t, with
 * the stack of @nframes frames at @frames of the view (none: 0): every
 * log the merge adds.
 */
static int put_log(struct merge *mg, struct mstate *s, uint64_t t,
		   const char *text, uint32_t frames, uint32_t nframes)
{
	uint64_t v[4] = { 0 };
	bool oom;

	/* In this order: a generation's ids are given as strings come. */
	v[1] = gtm_string_id(mg, "kernel");
	v[3] = gtm_stack_id(mg, frames, nframes, &oom);
	v[2] = gtm_string_id(mg, text);
	mg->st->added_logs++;
	return v[1] && v[2] && !oom ?
	       gtm_put_event(mg, s->m, GT_GO123_EV_USER_LOG, t, v, 4) : -1;
}

/*
 * A wait of thread @s for a CPU while Go had no goroutine on it (Go's
 * view: a goroutine runnable, its locked or woken thread parked): said
 * at @t, where Go has one on it again, as a log of that goroutine.
 */
static int pay_owed(struct merge *mg, struct mstate *s, uint64_t t,
		    struct gctx at)
{
	char text[512];

	if (!s->owed || at.g == NONE || at.p == NONE)
		return 0;
	gtm_describe(mg, &mg->kv.spans[s->owed - 1], true, text, sizeof(text));
	s->owed = 0;
	mg->st->after_logs++;
	return put_log(mg, s, t, text, 0, 0);
}

/* Mark @mk of thread @s at its time, given Go's goroutine there. */
static int put_mark(struct merge *mg, struct mstate *s, const struct mark *mk,
		    struct gctx at)
{
	bool go = at.g != NONE && at.p != NONE;
	const struct gt_kv_span *sp;
	uint64_t v[3] = { 0 };
	char text[512];

	if (pay_owed(mg, s, mk->t, at))
		return -1;
	switch (mk->what) {
	case MARK_END:
		if (!s->open)
			return 0;
		s->open = false;
		v[1] = gtm_string_id(mg, gtm_region_name(s->open_kind));
		mg->st->added_ends++;
		return v[1] ? gtm_put_event(mg, s->m, GT_GO123_EV_USER_REGION_END,
					mk->t, v, 3) : -1;
	case MARK_BEGIN:
		sp = &mg->kv.spans[mk->span];
		if (s->open || !go) {
			mg->st->skipped++;
			if (!s->open && sp->kind == GT_KV_RUNNABLE &&
			    sp->end - sp->start >= OWED_MIN_NS)
				s->owed = mk->span + 1;
			return 0;
		}
		v[1] = gtm_string_id(mg, gtm_region_name(sp->kind));
		/*
		 * No stack on the region: Go's regions page keys a region
		 * by its type and its stack's outermost frame, and the
		 * kernel's stacks end in the task's name (its [comm]
		 * frame); one row per type.  The log carries the stack.
		 */
		if (!v[1] ||
		    gtm_put_event(mg, s->m, GT_GO123_EV_USER_REGION_BEGIN, mk->t, v, 3))
			return -1;
		gtm_describe(mg, sp, false, text, sizeof(text));
		if (put_log(mg, s, mk->t, text, sp->frames, sp->nframes))
			return -1;
		s->open = true;
		s->open_kind = sp->kind;
		mg->st->regions[sp->kind]++;
		mg->st->added_begins++;
		mg->st->region_ns[sp->kind] += sp->end - sp->start;
		return 0;
	case MARK_CPU:
		if (!go)
			return 0;
		snprintf(text, sizeof(text), "running on CPU %lld",
			 (long long)mk->cpu);
		mg->st->cpu_logs++;
		return put_log(mg, s, mk->t, text, 0, 0);
	}
	return 0;
}

/* The next event of thread @s in @g's batches after *@bi, *@at. */
static bool next_own(const struct gt_go123_gen *g, const struct mstate *s,
		     size_t *bi, size_t *at, uint64_t *t, unsigned int *type,
		     uint64_t *v)
{
	for (; *bi < g->nbatches; (*bi)++, *at = 0) {
		const struct gt_go123_batch *b = &g->batches[*bi];
		const uint8_t *p = g->data + b->data + *at, *end;
		const struct gt_go123_spec *sp;

		if (b->m != s->m || *at == b->size)
			continue;
		if (!*at)
			*t = b->time;
		end = g->data + b->data + b->size;
		*type = *p++;
		sp = gt_go123_spec(*type);
		for (unsigned int a = 0; a < sp->nargs; a++)
			p += gt_leb_get(p, (size_t)(end - p), &v[a]);
		*t += v[0];
		*at = (size_t)(p - (g->data + b->data));
		return true;
	}
	return false;
}

/*
 * Thread @s's events of generation @g with its marks among them, into
 * mbuf, in time order: its events in the order of its batches (the
 * order the walk took them in: s->after), a mark before an event of a
 * later time, and a ProcSteal of its P (another M's) before both, as
 * Go's reader orders them.  A region open when its thread runs again
 * or loses its P ends there.
 */
static int rewrite_m(struct merge *mg, const struct gt_go123_gen *g,
		     struct mstate *s, uint64_t hi)
{
	struct gctx at = s->at0;
	uint64_t t = 0, v[GT_GO123_ARGS_MAX] = { 0 };
	size_t k = 0, i = 0, st = 0, bi = 0, off = 0;
	unsigned int type = 0;
	bool have = next_own(g, s, &bi, &off, &t, &type, v);

	for (;;) {
		uint64_t tm = k < s->nmarks && s->marks[k].t < hi ?
			      s->marks[k].t : NONE;
		uint64_t te = have ? t : NONE;

		if (st < s->nsteals && s->steals[st] <= tm &&
		    s->steals[st] <= te) {
			struct mark e = { .t = s->steals[st] ? s->steals[st] - 1 : 0,
					  .what = MARK_END };

			if (s->open) {
				mg->st->clamped++;
				if (put_mark(mg, s, &e, at))
					return -1;
			}
			at.p = NONE;
			st++;
			continue;
		}
		if (tm != NONE && tm < te) {
			if (put_mark(mg, s, &s->marks[k++], at))
				return -1;
			continue;
		}
		if (!have)
			break;
		if (s->open) {
			/* The thread ran: the kernel's interval ended. */
			struct mark e = { .t = t, .what = MARK_END };

			mg->st->clamped++;
			if (put_mark(mg, s, &e, at))
				return -1;
		}
		if (gtm_put_event(mg, s->m, type, t, v + 1,
			      gt_go123_spec(type)->nargs - 1))
			return -1;
		if (i < s->n)
			at = s->after[i++];
		if (pay_owed(mg, s, t, at))
			return -1;
		have = next_own(g, s, &bi, &off, &t, &type, v);
	}
	s->at = at;
	return gtm_close_batch(mg, s->m);
}

/*
 * Go's goroutine and P on thread @s at @t (ticks) of this generation:
 * after its last event before @t, unless another M took the P since.
 */
static struct gctx ctx_at(const struct mstate *s, uint64_t t)
{
	struct gctx at = s->at0;
	size_t lo = 0, hi = s->n;

	while (lo < hi) {		/* the first event after @t */
		size_t mid = lo + (hi - lo) / 2;

		if (s->after[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		at = s->after[lo - 1];
	for (size_t i = 0; i < s->nsteals; i++)
		if (s->steals[i] > (lo ? at.t : 0) && s->steals[i] <= t)
			at.p = NONE;
	return at;
}

/*
 * The recording's CPU samples of the program's threads in [@lo, @hi)
 * ticks, as a CPU samples batch of Go's: each with the thread, Go's P
 * and goroutine on it then (none: Go's ~0 and 0), the recording's
 * stack.  Go's viewer draws them on the goroutine's timeline.
 */
static int write_samples(struct merge *mg, uint64_t lo, uint64_t hi)
{
	struct bytes d = { 0 };
	int ret = -1;

	if (gtm_put_byte(&d, GT_GO123_EV_CPU_SAMPLES))
		goto out;
	for (size_t i = 0; i < mg->nms; i++) {
		struct mstate *s = &mg->ms[i];

		for (; s->smp.first < s->smp.end; s->smp.first++) {
			const struct gt_kv_sample *sm = &mg->kv.samples[s->smp.first];
			uint64_t t = to_ticks(mg, sm->ts), stack;
			struct gctx at;
			bool oom;

			if (t >= hi)
				break;
			if (t < lo)
				continue;
			at = ctx_at(s, t);
			stack = gtm_stack_id(mg, sm->frames, sm->nframes, &oom);
			if (oom || gtm_put_byte(&d, GT_GO123_EV_CPU_SAMPLE) ||
			    gtm_put_leb(&d, t) || gtm_put_leb(&d, s->m) ||
			    gtm_put_leb(&d, at.p) ||
			    gtm_put_leb(&d, at.g == NONE ? 0 : at.g) ||
			    gtm_put_leb(&d, stack))
				goto out;
			mg->st->added_samples++;
			if (d.len > BATCH_DATA_MAX) {
				if (gtm_put_batch(mg, &mg->mbuf, NO_M, 0, &d))
					goto out;
				d.len = 0;
				if (gtm_put_byte(&d, GT_GO123_EV_CPU_SAMPLES))
					goto out;
			}
		}
	}
	ret = d.len > 1 ? gtm_put_batch(mg, &mg->mbuf, NO_M, 0, &d) : 0;
out:
	free(d.p);
	return ret;
}

static int merge_gen(struct merge *mg, const struct gt_go123_gen *g,
		     size_t idx, struct gt_trace_error *err)
{
	uint64_t lo = mg->gen_start[idx];
	uint64_t hi = idx + 1 < mg->ngens ? mg->gen_start[idx + 1] :
		      mg->last_tick + 1;
	struct u64map skip = { 0 };
	bool added, eog;
	int ret = -1;

	mg->gen = g->gen;
	for (size_t i = 0; i < mg->nms; i++) {
		mg->ms[i].n = mg->ms[i].nsteals = 0;
		mg->ms[i].at0 = mg->ms[i].at;
	}
	if (gt_go123_walk(g, on_event, mg, err))
		return -1;
	gtm_reset_tables(mg);
	gtm_next_ids(mg, g);
	for (size_t i = 0; i < mg->nms; i++) {
		struct mstate *s = &mg->ms[i];

		if (marks_of(mg, s, lo, hi))
			goto oom;
		if (!s->nmarks && !(s->open && (s->n || s->nsteals))) {
			s->at = s->n ? s->after[s->n - 1] : s->at0;
			if (s->nsteals && s->steals[s->nsteals - 1] >= s->at.t)
				s->at.p = NONE;
			continue;
		}
		if (!u64map_put(&skip, s->m, 1, &added) ||
		    rewrite_m(mg, g, s, hi))
			goto oom;
	}
	/* The samples' stacks go into the tables: before them. */
	if (write_samples(mg, lo, hi))
		goto oom;
	if (gtm_write_tables(mg) || gtm_write_bytes(mg, mg->mbuf.p, mg->mbuf.len) ||
	    gtm_copy_batches(mg, g, &skip, &eog) ||
	    (eog && fputc(GT_GO123_EV_END_OF_GENERATION, mg->out) == EOF)) {
		snprintf(err->msg, sizeof(err->msg), "cannot write: %s",
			 strerror(errno));
		goto out;
	}
	ret = 0;
	goto out;
oom:
	snprintf(err->msg, sizeof(err->msg), "out of memory");
out:
	u64map_free(&skip);
	return ret;
}

static void merge_free(struct merge *mg)
{
	gtm_reset_tables(mg);
	free(mg->strs);
	free(mg->stacks);
	free(mg->frames);
	free(mg->mbuf.p);
	free(mg->data.p);
	for (size_t i = 0; i < mg->nms; i++) {
		free(mg->ms[i].after);
		free(mg->ms[i].steals);
		free(mg->ms[i].marks);
	}
	free(mg->ms);
	u64map_free(&mg->midx);
	free(mg->gen_start);
	free(mg->pairs);
	u64map_free(&mg->open_sys);
	gt_go123_order_free(&mg->order);
	gt_kview_free(&mg->kv);
}

int gt_go_merge(const struct gt_src *prog, const struct gt_src *sys, FILE *out,
		const struct gt_merge_opts *o, struct gt_merge_stats *st)
{
	struct merge *mg = calloc(1, sizeof(*mg));
	struct gt_trace_error err = { 0 };
	struct gt_go123_reader r;
	struct gt_go123_gen g = { 0 };
	uint8_t hdr[16];
	size_t idx = 0;
	int ret = -1;

	if (!mg) {
		gt_err("out of memory");
		return -1;
	}
	memset(st, 0, sizeof(*st));
	*mg = (struct merge){ .o = o, .st = st, .out = out, .prog = prog };
	if (gt_src_read(prog, 0, hdr, sizeof(hdr)) ||
	    gt_go123_header(hdr, sizeof(hdr)) < GT_GO123_GO122) {
		gt_err("the program's trace is not in Go's generational format: it needs a program built with Go 1.22 or newer");
		goto out;
	}
	if (first_pass(mg, &err)) {
		gt_err("the program's trace, at byte %zu: %s", err.off, err.msg);
		goto out;
	}
	st->generations = mg->ngens;
	st->threads = mg->nms;
	if (!mg->ngens || !mg->freq) {
		gt_err("the program's trace holds no generation");
		goto out;
	}
	{
		struct u64map tids = { 0 };
		bool added;
		int k = 0;

		for (size_t i = 0; i < mg->nms && !k; i++)
			k = !u64map_put(&tids, mg->ms[i].m, 1, &added);
		if (!k && o->view)
			k = o->view(o->view_arg, &mg->kv, &tids,
				    ticks_ns(mg, mg->gen_start[0]),
				    ticks_ns(mg, mg->last_tick), &err);
		else if (!k)
			k = gt_kview_read(&mg->kv, sys, &tids, &err);
		u64map_free(&tids);
		if (k) {
			gt_err("gotrace's trace, at byte %zu: %s", err.off,
			       err.msg[0] ? err.msg : "out of memory");
			goto out;
		}
	}
	st->threads_seen = mg->kv.ntids_seen;
	st->lost_windows = mg->kv.lost_windows;
	st->sys_first_ns = mg->kv.first;
	st->sys_last_ns = mg->kv.last;
	st->prog_first_ns = ticks_ns(mg, mg->gen_start[0]) - (uint64_t)mg->delta;
	st->prog_last_ns = ticks_ns(mg, mg->last_tick) - (uint64_t)mg->delta;
	if (st->sys_last_ns < st->prog_first_ns ||
	    st->sys_first_ns > st->prog_last_ns) {
		gt_err("the traces do not overlap: the program's covers %.3f to %.3f s, gotrace's %.3f to %.3f s of CLOCK_MONOTONIC (recorded on two machines, or at two times?)",
		       (double)st->prog_first_ns / 1e9,
		       (double)st->prog_last_ns / 1e9,
		       (double)st->sys_first_ns / 1e9,
		       (double)st->sys_last_ns / 1e9);
		goto out;
	}
	if (!st->threads_seen) {
		gt_err("none of the program's %llu threads is in gotrace's trace: was it recorded with a filter that left them out, or is the program in another PID namespace?",
		       (unsigned long long)st->threads);
		goto out;
	}
	index_view(mg);
	align(mg);
	if (gtm_write_bytes(mg, hdr, sizeof(hdr)))
		goto wfail;
	gt_go123_open(&r, prog);
	while ((ret = gt_go123_next(&r, &g, &err)) > 0) {
		if (idx >= mg->ngens || merge_gen(mg, &g, idx++, &err)) {
			ret = -1;
			break;
		}
	}
	gt_go123_gen_free(&g);
	if (ret) {
		gt_err("the program's trace, generation %zu: %s", idx, err.msg);
		ret = -1;
		goto out;
	}
	if (fflush(out))
		goto wfail;
	ret = 0;
	goto out;
wfail:
	gt_err("cannot write the merged trace: %s", strerror(errno));
	ret = -1;
out:
	merge_free(mg);
	free(mg);
	return ret;
}

/*
 * A merge that broke either would be a trace Go refuses or a program's
 * trace changed: gotrace merge never writes it (merge.c).
 */
int gt_go_merge_verify(const struct gt_src *prog, const char *path,
		       const struct gt_merge_stats *st)
{
	struct gt_go123_info pi = { 0 }, mi = { 0 };
	struct gt_trace_error err = { 0 };
	struct gt_src m;
	int ret;

	ret = gt_src_open(&m, path);
	if (ret) {
		gt_err("merge: cannot read back %s: %s", path, strerror(-ret));
		return -1;
	}
	ret = gt_go123_check(&m, &mi, &err);
	gt_src_close(&m);
	if (ret) {
		gt_err("merge: the merged trace would be refused by Go's reader (byte %zu: %s): not written; please report it with both input files",
		       err.off, err.msg);
		return -1;
	}
	if (gt_go123_check(prog, &pi, &err)) {
		gt_err("merge: the program's trace, byte %zu: %s", err.off, err.msg);
		return -1;
	}
	pi.by_type[GT_GO123_EV_USER_REGION_BEGIN] += st->added_begins;
	pi.by_type[GT_GO123_EV_USER_REGION_END] += st->added_ends;
	pi.by_type[GT_GO123_EV_USER_LOG] += st->added_logs;
	if (pi.samples + st->added_samples != mi.samples) {
		gt_err("merge: the merged trace has %llu CPU samples, the program's and the added ones are %llu: not written; please report it with both input files",
		       (unsigned long long)mi.samples,
		       (unsigned long long)(pi.samples + st->added_samples));
		return -1;
	}
	for (unsigned int t = 0; t < GT_GO123_NR_TYPES; t++)
		if (pi.by_type[t] != mi.by_type[t]) {
			gt_err("merge: the merged trace has %llu %s events where the program's and the added ones are %llu: not written; please report it with both input files",
			       (unsigned long long)mi.by_type[t],
			       gt_go123_type_name(t),
			       (unsigned long long)pi.by_type[t]);
			return -1;
		}
	return 0;
}
