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
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "go_merge.h"
#include "trace/base.h"
#include "trace/go123.h"
#include "trace/go123_check.h"
#include "trace/go123_order.h"
#include "trace/go123_read.h"
#include "trace/go123_walk.h"
#include "trace/kview.h"
#include "trace/leb128.h"

#define NONE		UINT64_MAX
#define NS_PER_S	1000000000ULL
/* A kernel syscall entry this near a Go GoSyscallBegin is its own. */
#define MATCH_WINDOW_NS	1000000
/* A clock snapshot this far from CLOCK_MONOTONIC: another clock. */
#define SNAPSHOT_OTHER_CLOCK_NS	1000000
/* Go's readers take batches of up to 64 KiB of data. */
#define BATCH_DATA_MAX	(60 << 10)
/* The M of the batches no thread wrote (tables): Go's "no thread". */
#define NO_M		UINT64_MAX
/* Go's readers refuse deeper stacks. */
#define STACK_MAX	128

/* Bytes being built: a batch's data, a generation's added batches. */
struct bytes {
	uint8_t *p;
	size_t len, cap;
};

struct frame {
	uint64_t pc, func, file, line;	/* func, file: string ids */
};

enum mark_what { MARK_END, MARK_BEGIN, MARK_CPU };

struct mark {
	uint64_t t;			/* program ticks */
	enum mark_what what;
	size_t span;			/* BEGIN: index in kv.spans */
	int64_t cpu;			/* CPU */
};

/* An index range of one thread's entries in an array of the view. */
struct range {
	size_t first, end;
};

/* What Go's reader gives an M: user events need both. */
struct gctx {
	uint64_t g, p;			/* NONE: none */
	uint64_t t;			/* of the event that set them, ticks */
};

/* A program thread, across generations. */
struct mstate {
	uint64_t m;
	struct range span;		/* its spans in kv.spans, */
	struct range run;		/* runs in kv.runs, */
	struct range smp;		/* CPU samples in kv.samples */
	struct gctx at;			/* Go's goroutine and P on it */
	bool open;			/* a region began and has not ended */
	enum gt_kv_kind open_kind;
	bool pend;			/* an END mark waits for a later gen */
	uint64_t pend_t;
	int64_t cpu;			/* of its last CPU log */
	/* This generation: its goroutine and P after each of its events, */
	struct gctx *after;
	size_t n, cap;
	struct gctx at0;		/* before the first */
	/* and the times (ticks) another M took its P (ProcSteal). */
	uint64_t *steals;
	size_t nsteals, stcap;
	struct mark *marks;
	size_t nmarks, mcap;
};

struct newstr {
	uint64_t id;
	char *s;
};

struct newstack {
	uint64_t id;
	size_t frames, n;		/* in merge.frames */
};

struct merge {
	const struct gt_merge_opts *o;
	struct gt_merge_stats *st;
	FILE *out;
	const struct gt_src *prog;
	struct gt_kview kv;
	struct gt_go123_order order;
	uint64_t freq;
	int64_t delta;			/* program ns - kernel ns */
	uint64_t *gen_start;		/* ticks of each generation's first batch */
	size_t ngens, gcap;
	uint64_t last_tick;		/* of the program's last event */
	struct u64map midx;		/* M -> index into ms */
	struct mstate *ms;
	size_t nms, mscap;
	/* This generation's added strings and stacks. */
	uint64_t next_string, next_stack;
	struct u64map stridx;		/* FNV-1a -> id */
	struct newstr *strs;
	size_t nstrs, strcap;
	struct u64map stackidx;		/* first frame in kv.frames -> id */
	struct newstack *stacks;
	size_t nstacks, stkcap;
	struct frame *frames;
	size_t nframes, fcap;
	/* The open batch of the thread being written anew. */
	struct bytes data;
	bool open;
	uint64_t base, last;
	/* Its batches, written after the added tables. */
	struct bytes mbuf;
	uint64_t gen;
	/* The program's syscalls: (M, begin, end) ns; those begun. */
	uint64_t *pairs;
	size_t npairs, pcap;
	struct u64map open_sys;		/* M -> begin ns + 1 */
};

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ULL;
	return h;
}

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

/* Pass 1's walk: the program's syscalls, for align(). */
static int on_syscall(void *arg, const struct gt_go123_gen *g,
		      const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct merge *mg = arg;
	uint64_t *v;
	bool added;

	(void)g;
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
		if (gt_go123_walk(&g, on_syscall, mg, err)) {
			ret = -1;
			break;
		}
		for (size_t i = 0; i < g.nbatches; i++) {
			const struct gt_go123_batch *b = &g.batches[i];
			const uint8_t *p = g.data + b->data, *end = p + b->size;
			uint64_t t = b->time;

			/* The walk checked every event: sum the deltas. */
			while (p < end) {
				const struct gt_go123_spec *sp = gt_go123_spec(*p++);
				uint64_t v = 0;

				for (unsigned int k = 0; k < sp->nargs; k++) {
					p += gt_leb_get(p, (size_t)(end - p), &v);
					if (!k)
						t += v;
				}
			}
			if (t > mg->last_tick)
				mg->last_tick = t;
		}
	}
	gt_go123_gen_free(&g);
	return ret;
oom:
	gt_go123_gen_free(&g);
	snprintf(err->msg, sizeof(err->msg), "out of memory");
	return -1;
}

static int by_tid_ns(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Where each thread's spans and runs are in the kernel's view. */
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
	if (kv->nenters / 2 > 1)
		qsort(kv->enters, kv->nenters / 2, 2 * sizeof(uint64_t), by_tid_ns);
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
		if (a < lo || b <= a || sp->end - sp->start < mg->o->min_ns ||
		    s->pend)
			continue;
		if (b > mg->last_tick)
			b = mg->last_tick;
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

/* The id of added string @str in this generation's table. */
static uint64_t string_id(struct merge *mg, const char *str)
{
	size_t n = strlen(str);
	uint64_t h = fnv(str, n), *v;
	bool added;

	v = u64map_get(&mg->stridx, h);
	if (v && !strcmp(mg->strs[*v].s, str))
		return mg->strs[*v].id;
	if (gt_grow((void **)&mg->strs, &mg->strcap, mg->nstrs + 1,
		    sizeof(*mg->strs)))
		return 0;
	mg->strs[mg->nstrs].s = strdup(str);
	if (!mg->strs[mg->nstrs].s)
		return 0;
	mg->strs[mg->nstrs].id = mg->next_string++;
	if (!v && !u64map_put(&mg->stridx, h, mg->nstrs, &added))
		return 0;
	return mg->strs[mg->nstrs++].id;
}

/*
 * The id of the stack of @nframes frames at @first of kv.frames (a
 * span's, a sample's) in this generation's table.
 */
static uint64_t stack_id(struct merge *mg, uint32_t first, uint32_t nframes,
			 bool *oom)
{
	const struct gt_kview *kv = &mg->kv;
	uint64_t *v;
	bool added;
	size_t n = nframes < STACK_MAX ? nframes : STACK_MAX;

	*oom = false;
	if (!n)
		return 0;
	v = u64map_get(&mg->stackidx, first);
	if (v)
		return *v;
	if (gt_grow((void **)&mg->stacks, &mg->stkcap, mg->nstacks + 1,
		    sizeof(*mg->stacks)) ||
	    gt_grow((void **)&mg->frames, &mg->fcap, mg->nframes + n,
		    sizeof(*mg->frames)))
		goto oom;
	for (size_t i = 0; i < n; i++) {
		const struct gt_kv_frame *f = &kv->frames[first + i];
		const char *func = gt_kview_str(kv, f->func);
		const char *file = gt_kview_str(kv, f->file);
		struct frame *o = &mg->frames[mg->nframes + i];

		o->pc = f->pc;
		o->func = string_id(mg, *func ? func : "?");
		o->file = string_id(mg, *file ? file : "?");
		o->line = f->line;
		if (!o->func || !o->file)
			goto oom;
	}
	mg->stacks[mg->nstacks] = (struct newstack){ mg->next_stack++,
						     mg->nframes, n };
	mg->nframes += n;
	if (!u64map_put(&mg->stackidx, first, mg->stacks[mg->nstacks].id,
			&added))
		goto oom;
	return mg->stacks[mg->nstacks++].id;
oom:
	*oom = true;
	return 0;
}

static const char *const region_name[GT_KV_NR_KINDS] = {
	[GT_KV_RUNNABLE] = "kernel: runnable, waiting for a CPU",
	[GT_KV_BLOCKED] = "kernel: blocked",
	[GT_KV_SYSCALL] = "kernel: asleep in a syscall",
	[GT_KV_UNKNOWN] = "kernel: unknown (events lost)",
};

static void fmt_ns(char *buf, size_t n, uint64_t ns)
{
	if (ns >= 1000000)
		snprintf(buf, n, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.1f us", (double)ns / 1e3);
}

/*
 * Where the span's kernel stack slept: its innermost function that is
 * not the scheduler's own (__schedule, schedule, schedule_timeout...,
 * which every sleep goes through), or "?".
 */
static const char *innermost(const struct gt_kview *kv,
			     const struct gt_kv_span *sp)
{
	for (uint32_t i = 0; i < sp->nframes; i++) {
		const char *f = gt_kview_str(kv, kv->frames[sp->frames + i].func);

		if (strncmp(f, "__schedule", 10) && strncmp(f, "schedule", 8) &&
		    strncmp(f, "preempt_schedule", 16))
			return f;
	}
	return "?";
}

/* The syscall of the span's stack: gotrace's frame of file "[syscall]". */
static const char *syscall_of(const struct gt_kview *kv,
			      const struct gt_kv_span *sp)
{
	for (uint32_t i = 0; i < sp->nframes; i++) {
		const struct gt_kv_frame *f = &kv->frames[sp->frames + i];

		if (!strcmp(gt_kview_str(kv, f->file), "[syscall]"))
			return gt_kview_str(kv, f->func);
	}
	return NULL;
}

/* The log at a region's start: what the kernel says of the interval. */
static void describe(const struct merge *mg, const struct gt_kv_span *sp,
		     char *buf, size_t n)
{
	const struct gt_kview *kv = &mg->kv;
	char d[32], r[32];
	int k;

	fmt_ns(d, sizeof(d), sp->end - sp->start);
	switch (sp->kind) {
	case GT_KV_RUNNABLE:
		k = snprintf(buf, n, "runnable %s (%s)", d,
			     sp->reason != GT_KV_NONE ?
			     gt_kview_str(kv, sp->reason) : "woken");
		if (sp->cpu < 0)
			break;
		if (!sp->ran_all_ns) {
			snprintf(buf + k, n - (size_t)k,
				 ": CPU %lld ran no task meanwhile",
				 (long long)sp->cpu);
			break;
		}
		fmt_ns(r, sizeof(r), sp->ran_ns);
		k += snprintf(buf + k, n - (size_t)k, ": CPU %lld ran %s (tid %llu) for %s",
			      (long long)sp->cpu,
			      sp->ran_name != GT_KV_NONE ?
			      gt_kview_str(kv, sp->ran_name) : "?",
			      (unsigned long long)sp->ran_tid, r);
		if (sp->ran_all_ns > sp->ran_ns) {
			fmt_ns(r, sizeof(r), sp->ran_all_ns - sp->ran_ns);
			snprintf(buf + k, n - (size_t)k, ", other tasks for %s", r);
		}
		break;
	case GT_KV_BLOCKED:
		k = snprintf(buf, n, "blocked %s (%s) in %s", d,
			     sp->reason != GT_KV_NONE ?
			     gt_kview_str(kv, sp->reason) : "?",
			     innermost(kv, sp));
		if (sp->open)
			snprintf(buf + k, n - (size_t)k,
				 "; not woken before gotrace's trace ended");
		else if (sp->waker)
			snprintf(buf + k, n - (size_t)k,
				 "; woken by %s (tid %llu) on CPU %lld",
				 sp->waker_name != GT_KV_NONE ?
				 gt_kview_str(kv, sp->waker_name) : "?",
				 (unsigned long long)sp->waker,
				 (long long)sp->waker_cpu);
		else if (sp->waker_cpu >= 0)
			snprintf(buf + k, n - (size_t)k,
				 "; woken on CPU %lld with no task running (an interrupt)",
				 (long long)sp->waker_cpu);
		break;
	case GT_KV_SYSCALL:
		snprintf(buf, n, "asleep %s in the syscall %s, in %s", d,
			 syscall_of(kv, sp) ? syscall_of(kv, sp) : "?",
			 innermost(kv, sp));
		break;
	default:
		snprintf(buf, n, "%s: events of its CPU were lost (gotrace status counts them): off CPU or running, the trace cannot say",
			 d);
		break;
	}
}

static int put_byte(struct bytes *b, uint8_t v)
{
	if (gt_grow((void **)&b->p, &b->cap, b->len + 1, 1))
		return -1;
	b->p[b->len++] = v;
	return 0;
}

static int put_leb(struct bytes *b, uint64_t v)
{
	do {
		if (put_byte(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0))))
			return -1;
		v >>= 7;
	} while (v);
	return 0;
}

static int put_raw(struct bytes *b, const void *p, size_t n)
{
	if (gt_grow((void **)&b->p, &b->cap, b->len + n, 1))
		return -1;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

/* A batch of generation mg->gen: its header, then @data, into @out. */
static int put_batch(struct merge *mg, struct bytes *out, uint64_t m,
		     uint64_t time, const struct bytes *data)
{
	return put_byte(out, GT_GO123_EV_BATCH) || put_leb(out, mg->gen) ||
	       put_leb(out, m) || put_leb(out, time) ||
	       put_leb(out, data->len) || put_raw(out, data->p, data->len);
}

/* Close the open event batch of M @m into mbuf. */
static int close_batch(struct merge *mg, uint64_t m)
{
	if (!mg->open)
		return 0;
	mg->open = false;
	if (put_batch(mg, &mg->mbuf, m, mg->base, &mg->data))
		return -1;
	mg->data.len = 0;
	return 0;
}

/*
 * One event of M @m into its batches anew: type, the delta from the
 * event before (time never goes back in a batch), @nv values.
 */
static int put_event(struct merge *mg, uint64_t m, unsigned int type,
		     uint64_t t, const uint64_t *v, unsigned int nv)
{
	if (mg->open && mg->data.len > BATCH_DATA_MAX && close_batch(mg, m))
		return -1;
	if (!mg->open) {
		mg->open = true;
		mg->base = mg->last = t;
	}
	if (t < mg->last)
		t = mg->last;
	if (put_byte(&mg->data, (uint8_t)type) || put_leb(&mg->data, t - mg->last))
		return -1;
	mg->last = t;
	for (unsigned int i = 0; i < nv; i++)
		if (put_leb(&mg->data, v[i]))
			return -1;
	return 0;
}

/* Mark @mk of thread @s at its time, given Go's goroutine there. */
static int put_mark(struct merge *mg, struct mstate *s, const struct mark *mk,
		    struct gctx at)
{
	bool go = at.g != NONE && at.p != NONE;

	const struct gt_kv_span *sp;
	uint64_t v[4] = { 0 };
	char text[512];
	bool oom;

	switch (mk->what) {
	case MARK_END:
		if (!s->open)
			return 0;
		s->open = false;
		v[1] = string_id(mg, region_name[s->open_kind]);
		mg->st->added_ends++;
		return v[1] ? put_event(mg, s->m, GT_GO123_EV_USER_REGION_END,
					mk->t, v, 3) : -1;
	case MARK_BEGIN:
		sp = &mg->kv.spans[mk->span];
		if (s->open || !go) {
			mg->st->skipped++;
			return 0;
		}
		v[1] = string_id(mg, region_name[sp->kind]);
		/*
		 * No stack on the region: Go's regions page keys a region
		 * by its type and its stack's outermost frame, and the
		 * kernel's stacks end in the task's name (its [comm]
		 * frame); one row per type.  The log carries the stack.
		 */
		if (!v[1] ||
		    put_event(mg, s->m, GT_GO123_EV_USER_REGION_BEGIN, mk->t, v, 3))
			return -1;
		describe(mg, sp, text, sizeof(text));
		v[1] = string_id(mg, "kernel");
		v[3] = stack_id(mg, sp->frames, sp->nframes, &oom);
		v[2] = string_id(mg, text);
		if (oom)
			return -1;
		if (!v[1] || !v[2] ||
		    put_event(mg, s->m, GT_GO123_EV_USER_LOG, mk->t, v, 4))
			return -1;
		s->open = true;
		s->open_kind = sp->kind;
		mg->st->regions[sp->kind]++;
		mg->st->added_begins++;
		mg->st->added_logs++;
		mg->st->region_ns[sp->kind] += sp->end - sp->start;
		return 0;
	case MARK_CPU:
		if (!go)
			return 0;
		snprintf(text, sizeof(text), "running on CPU %lld",
			 (long long)mk->cpu);
		v[1] = string_id(mg, "kernel");
		v[2] = string_id(mg, text);
		mg->st->cpu_logs++;
		mg->st->added_logs++;
		return v[1] && v[2] ? put_event(mg, s->m, GT_GO123_EV_USER_LOG,
						mk->t, v, 4) : -1;
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
		if (put_event(mg, s->m, type, t, v + 1,
			      gt_go123_spec(type)->nargs - 1))
			return -1;
		if (i < s->n)
			at = s->after[i++];
		have = next_own(g, s, &bi, &off, &t, &type, v);
	}
	s->at = at;
	return close_batch(mg, s->m);
}

/* The largest string and stack ids of @g: new ones come after. */
static void next_ids(struct merge *mg, const struct gt_go123_gen *g)
{
	uint64_t k, v;
	size_t i;

	mg->next_string = mg->next_stack = 1;
	for (i = 0; u64map_next(&g->strings, &i, &k, &v);)
		if (k >= mg->next_string)
			mg->next_string = k + 1;
	for (i = 0; u64map_next(&g->stacks, &i, &k, &v);)
		if (k >= mg->next_stack)
			mg->next_stack = k + 1;
}

static void reset_tables(struct merge *mg)
{
	for (size_t i = 0; i < mg->nstrs; i++)
		free(mg->strs[i].s);
	mg->nstrs = mg->nstacks = mg->nframes = 0;
	u64map_free(&mg->stridx);
	u64map_free(&mg->stackidx);
	mg->mbuf.len = 0;
}

static int write_bytes(struct merge *mg, const void *p, size_t n)
{
	return n && fwrite(p, 1, n, mg->out) != n ? -1 : 0;
}

/* A table batch (@kind: strings or stacks) of @data, when it is due. */
static int table_batch(struct merge *mg, struct bytes *data, uint8_t kind,
		       bool last)
{
	int ret;

	if (data->len == 1 || (!last && data->len < BATCH_DATA_MAX))
		return 0;
	ret = put_batch(mg, &mg->mbuf, NO_M, 0, data);
	data->len = 0;
	return ret || put_byte(data, kind);
}

/*
 * The added strings and stacks, in table batches of their own, into
 * mbuf before the event batches.
 */
static int write_tables(struct merge *mg)
{
	struct bytes d = { 0 };
	size_t i;
	int ret = -1;

	if (put_byte(&d, GT_GO123_EV_STRINGS))
		goto out;
	for (i = 0; i < mg->nstrs; i++) {
		size_t n = strlen(mg->strs[i].s);

		if (put_byte(&d, GT_GO123_EV_STRING) ||
		    put_leb(&d, mg->strs[i].id) || put_leb(&d, n) ||
		    put_raw(&d, mg->strs[i].s, n) ||
		    table_batch(mg, &d, GT_GO123_EV_STRINGS, i + 1 == mg->nstrs))
			goto out;
	}
	d.len = 0;
	if (put_byte(&d, GT_GO123_EV_STACKS))
		goto out;
	for (i = 0; i < mg->nstacks; i++) {
		const struct newstack *s = &mg->stacks[i];

		if (put_byte(&d, GT_GO123_EV_STACK) || put_leb(&d, s->id) ||
		    put_leb(&d, s->n))
			goto out;
		for (size_t k = 0; k < s->n; k++) {
			const struct frame *f = &mg->frames[s->frames + k];

			if (put_leb(&d, f->pc) || put_leb(&d, f->func) ||
			    put_leb(&d, f->file) || put_leb(&d, f->line))
				goto out;
		}
		if (table_batch(mg, &d, GT_GO123_EV_STACKS, i + 1 == mg->nstacks))
			goto out;
	}
	ret = 0;
out:
	free(d.p);
	return ret;
}

/*
 * Copy generation @g's batches unchanged, but for the event batches of
 * the threads written anew (@skip: M -> 1), and its end-of-generation
 * byte, which the caller writes last.
 */
static int copy_batches(struct merge *mg, const struct gt_go123_gen *g,
			const struct u64map *skip, bool *eog)
{
	struct u64map at = { 0 };
	uint8_t hdr[GT_GO123_BATCH_HDR_MAX];
	uint64_t pos = g->off;
	bool added;
	int ret = -1;

	*eog = false;
	for (size_t i = 0; i < g->nbatches; i++)
		if (u64map_get(skip, g->batches[i].m) &&
		    !u64map_put(&at, g->batches[i].off, 1, &added))
			goto out;
	while (pos < g->end) {
		size_t n = g->end - pos < sizeof(hdr) ? (size_t)(g->end - pos) :
			   sizeof(hdr);
		int64_t len;

		if (gt_src_read(mg->prog, pos, hdr, n))
			goto out;
		len = gt_go123_batch_len(hdr, n);
		if (len <= 0 || (uint64_t)len > g->end - pos)
			goto out;
		if (hdr[0] == GT_GO123_EV_END_OF_GENERATION)
			*eog = true;
		else if (!u64map_get(&at, pos) &&
			 gt_src_copy(mg->prog, pos, pos + (uint64_t)len, mg->out))
			goto out;
		pos += (uint64_t)len;
	}
	ret = 0;
out:
	u64map_free(&at);
	return ret;
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

	if (put_byte(&d, GT_GO123_EV_CPU_SAMPLES))
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
			stack = stack_id(mg, sm->frames, sm->nframes, &oom);
			if (oom || put_byte(&d, GT_GO123_EV_CPU_SAMPLE) ||
			    put_leb(&d, t) || put_leb(&d, s->m) ||
			    put_leb(&d, at.p) ||
			    put_leb(&d, at.g == NONE ? 0 : at.g) ||
			    put_leb(&d, stack))
				goto out;
			mg->st->added_samples++;
			if (d.len > BATCH_DATA_MAX) {
				if (put_batch(mg, &mg->mbuf, NO_M, 0, &d))
					goto out;
				d.len = 0;
				if (put_byte(&d, GT_GO123_EV_CPU_SAMPLES))
					goto out;
			}
		}
	}
	ret = d.len > 1 ? put_batch(mg, &mg->mbuf, NO_M, 0, &d) : 0;
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
	reset_tables(mg);
	next_ids(mg, g);
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
	if (write_tables(mg) || write_bytes(mg, mg->mbuf.p, mg->mbuf.len) ||
	    copy_batches(mg, g, &skip, &eog) ||
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
	reset_tables(mg);
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
	if (write_bytes(mg, hdr, sizeof(hdr)))
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

void gt_go_merge_report(FILE *f, const struct gt_merge_stats *st)
{
	static const char *const what[GT_KV_NR_KINDS] = {
		"runnable", "blocked", "asleep in a syscall", "unknown" };

	fprintf(f, "merged: go 1.%d trace, %llu generations, %llu threads (%llu in gotrace's trace)\n",
		st->version, (unsigned long long)st->generations,
		(unsigned long long)st->threads,
		(unsigned long long)st->threads_seen);
	for (int k = 0; k < GT_KV_NR_KINDS; k++)
		fprintf(f, "  kernel: %-20s %6llu intervals, %.3f s\n", what[k],
			(unsigned long long)st->regions[k],
			(double)st->region_ns[k] / 1e9);
	fprintf(f, "  %llu intervals with no goroutine on the thread left out, %llu ended early (the thread ran, or Go took its P), %llu CPU changes, %llu CPU samples\n",
		(unsigned long long)st->skipped,
		(unsigned long long)st->clamped,
		(unsigned long long)st->cpu_logs,
		(unsigned long long)st->added_samples);
	if (st->lost_windows)
		fprintf(f, "  gotrace's trace lost events %llu times: those intervals are \"unknown\"\n",
			(unsigned long long)st->lost_windows);
	if (st->snapshot)
		fprintf(f, "  clock: the program's clock snapshot is %lld ns from CLOCK_MONOTONIC\n",
			(long long)st->snapshot_off_ns);
	else
		fprintf(f, "  clock: Go's trace clock taken as CLOCK_MONOTONIC (no clock snapshot before Go 1.25)\n");
	if (st->matched && st->bound_lo_ns <= st->bound_hi_ns)
		fprintf(f, "  clock: %llu syscalls seen by both bound the offset to [%lld, %lld] ns: %lld ns taken\n",
			(unsigned long long)st->matched,
			(long long)st->bound_lo_ns, (long long)st->bound_hi_ns,
			(long long)st->offset_ns);
	else if (st->matched)
		fprintf(f, "  clock: %llu syscalls seen by both disagree (offset at least %lld ns, at most %lld ns): %lld ns taken\n",
			(unsigned long long)st->matched,
			(long long)st->bound_lo_ns, (long long)st->bound_hi_ns,
			(long long)st->offset_ns);
	else
		fprintf(f, "  clock: no syscall in which a thread slept is in both traces: the offset is not checked\n");
}
