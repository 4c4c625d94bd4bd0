// SPDX-License-Identifier: GPL-2.0
/*
 * kview.c - the off-CPU intervals of chosen threads in a gotrace trace
 *
 * One walk of every generation, in Go's reader's order (go123_walk.c,
 * go123_order.c give each event its M's goroutine and P).  The events
 * that matter, in the sequences gotrace writes (Documentation/model.rst):
 *
 *   GoStart on the task's M            it runs on the M's P (a CPU)
 *   GoStop / GoBlock on its M          runnable / blocked, reason, stack
 *   GoSyscallBegin, then ProcStop      asleep in the syscall, its stack
 *   GoSyscallEndBlocked on its M       the syscall's wakeup: runnable
 *   GoUnblock on the waker's M         the wakeup, by the M's goroutine
 *   UserLog "events lost here"         the P's events since its last
 *                                      one before were lost
 *
 * Every P's run of one goroutine is kept too, for "who ran there": a
 * trace of the whole machine has one per context switch, 24 bytes each.
 */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "go123.h"
#include "go123_order.h"
#include "go123_read.h"
#include "go123_walk.h"
#include "kview.h"

#define NONE		UINT64_MAX
#define TID(g)		((g) & 0xffffffffULL)
#define LOST_KEY	"gotrace"
#define LOST_PREFIX	"events lost here"

/* A P's run of one goroutine. */
struct prun {
	uint64_t start, end, g;
};

struct pstate {
	struct prun *runs;
	size_t n, cap;
	bool open;
	uint64_t last;			/* time of its last event */
	uint64_t *lost;			/* (from, to) pairs */
	size_t nlost, lcap;
};

/* What the walk knows of a thread asked for. */
struct tstate {
	size_t span;			/* its open span + 1, or 0 */
	size_t run;			/* its open run + 1, or 0 */
	bool in_syscall;
	uint64_t sys_stack;		/* of its last GoSyscallBegin */
	uint64_t sys_gen;		/* the generation of that stack */
};

struct ctx {
	struct gt_kview *kv;
	const struct u64map *tids;
	struct gt_go123_order order;
	struct u64map tidx;		/* G -> index into ts */
	struct tstate *ts;
	size_t nts, tcap;
	struct u64map pidx;		/* P -> index into ps */
	struct pstate *ps;
	size_t nps, pcap;
	struct u64map gname;		/* G -> name + 1 */
};

/* Index of a copy of @s[0..@n) in kv->str; GT_KV_NONE out of memory. */
static uint32_t intern(struct gt_kview *kv, const char *s, size_t n)
{
	uint64_t h = u64map_str_key(s, n), *v;
	bool added;
	char *c;

	v = u64map_get(&kv->stridx, h);
	if (v && strlen(kv->str[*v]) == n && !memcmp(kv->str[*v], s, n))
		return (uint32_t)*v;
	if (gt_grow((void **)&kv->str, &kv->strcap, kv->nstr + 1,
		    sizeof(*kv->str)))
		return GT_KV_NONE;
	c = malloc(n + 1);
	if (!c)
		return GT_KV_NONE;
	memcpy(c, s, n);
	c[n] = 0;
	kv->str[kv->nstr] = c;
	if (!v && !u64map_put(&kv->stridx, h, kv->nstr, &added))
		return GT_KV_NONE;
	return (uint32_t)kv->nstr++;
}

static uint32_t gen_string(struct gt_kview *kv, const struct gt_go123_gen *g,
			   uint64_t id)
{
	const char *s;
	size_t n;

	if (!id || !gt_go123_string(g, id, &s, &n))
		return GT_KV_NONE;
	return intern(kv, s, n);
}

/* Copy stack @id of @g into kv->frames; its first frame's index, n. */
static int copy_stack(struct gt_kview *kv, const struct gt_go123_gen *g,
		      uint64_t id, uint32_t *first, uint32_t *n)
{
	const uint64_t *pcs;
	size_t k;

	*first = (uint32_t)kv->nframes;
	*n = 0;
	if (!id || !gt_go123_stack(g, id, &pcs, &k))
		return 0;
	if (gt_grow((void **)&kv->frames, &kv->fcap, kv->nframes + k,
		    sizeof(*kv->frames)))
		return -1;
	for (size_t i = 0; i < k; i++) {
		const struct gt_go123_frame *f = gt_go123_frame(g, pcs[i]);
		struct gt_kv_frame *o = &kv->frames[kv->nframes++];

		*o = (struct gt_kv_frame){ .pc = pcs[i], .func = GT_KV_NONE,
					   .file = GT_KV_NONE };
		if (f) {
			o->func = gen_string(kv, g, f->func);
			o->file = gen_string(kv, g, f->file);
			o->line = f->line;
		}
	}
	*n = (uint32_t)k;
	return 0;
}

/* A goroutine's name: the outermost frame of a stack of its (comm). */
static int name_g(struct ctx *c, const struct gt_go123_gen *g, uint64_t gid,
		  uint64_t stack)
{
	const struct gt_go123_frame *f;
	const uint64_t *pcs;
	uint32_t name;
	bool added;
	size_t n;

	if (gid == NONE || !stack || u64map_get(&c->gname, gid) ||
	    !gt_go123_stack(g, stack, &pcs, &n) || !n)
		return 0;
	f = gt_go123_frame(g, pcs[n - 1]);
	if (!f)
		return 0;
	name = gen_string(c->kv, g, f->func);
	if (name == GT_KV_NONE)
		return -1;
	return u64map_put(&c->gname, gid, (uint64_t)name + 1, &added) ? 0 : -1;
}

static uint32_t g_name(const struct ctx *c, uint64_t gid)
{
	const uint64_t *v = u64map_get(&c->gname, gid);

	return v ? (uint32_t)(*v - 1) : GT_KV_NONE;
}

/* The state of goroutine @gid if its thread was asked for, else NULL. */
static struct tstate *target(struct ctx *c, uint64_t gid, bool *oom)
{
	uint64_t *v;
	bool added;

	*oom = false;
	if (gid == NONE || !u64map_get(c->tids, TID(gid)))
		return NULL;
	v = u64map_put(&c->tidx, gid, c->nts, &added);
	if (!v || (added && gt_grow((void **)&c->ts, &c->tcap, c->nts + 1,
				    sizeof(*c->ts)))) {
		*oom = true;
		return NULL;
	}
	if (added)
		c->nts++;
	return &c->ts[*v];
}

static struct pstate *pstate(struct ctx *c, uint64_t p)
{
	uint64_t *v;
	bool added;

	if (p == NONE)
		return NULL;
	v = u64map_put(&c->pidx, p, c->nps, &added);
	if (!v || (added && gt_grow((void **)&c->ps, &c->pcap, c->nps + 1,
				    sizeof(*c->ps))))
		return NULL;
	if (added)
		c->nps++;
	return &c->ps[*v];
}

static struct gt_kv_span *open_span(struct ctx *c, struct tstate *t,
				    uint64_t gid, enum gt_kv_kind kind,
				    uint64_t ts)
{
	struct gt_kview *kv = c->kv;
	struct gt_kv_span *s;

	if (gt_grow((void **)&kv->spans, &kv->scap, kv->nspans + 1,
		    sizeof(*kv->spans)))
		return NULL;
	s = &kv->spans[kv->nspans];
	*s = (struct gt_kv_span){ .tid = TID(gid), .start = ts, .end = ts,
				  .kind = kind, .cpu = -1,
				  .reason = GT_KV_NONE, .waker_cpu = -1,
				  .waker_name = GT_KV_NONE };
	t->span = ++kv->nspans;
	return s;
}

static struct gt_kv_span *close_span(struct ctx *c, struct tstate *t,
				     uint64_t ts)
{
	struct gt_kv_span *s;

	if (!t->span)
		return NULL;
	s = &c->kv->spans[t->span - 1];
	s->end = ts;
	t->span = 0;
	return s;
}

static int start_run(struct ctx *c, struct tstate *t, uint64_t gid, uint64_t p,
		     uint64_t ts)
{
	struct gt_kview *kv = c->kv;

	if (gt_grow((void **)&kv->runs, &kv->rcap, kv->nruns + 1,
		    sizeof(*kv->runs)))
		return -1;
	kv->runs[kv->nruns] = (struct gt_kv_run){ .tid = TID(gid), .start = ts,
		.end = ts, .cpu = p == NONE ? -1 : (int64_t)p };
	t->run = ++kv->nruns;
	return 0;
}

static void stop_run(struct ctx *c, struct tstate *t, uint64_t ts)
{
	if (t->run)
		c->kv->runs[t->run - 1].end = ts;
	t->run = 0;
}

/* P @p starts running goroutine @gid, or (@gid NONE) stops. */
static int p_switch(struct ctx *c, uint64_t p, uint64_t gid, uint64_t ts)
{
	struct pstate *ps = pstate(c, p);

	if (!ps)
		return p == NONE ? 0 : -1;
	if (ps->open) {
		ps->runs[ps->n - 1].end = ts;
		ps->open = false;
	}
	if (gid == NONE)
		return 0;
	if (gt_grow((void **)&ps->runs, &ps->cap, ps->n + 1, sizeof(*ps->runs)))
		return -1;
	ps->runs[ps->n++] = (struct prun){ ts, ts, gid };
	ps->open = true;
	return 0;
}

/* A "events lost here" log on P @p: lost since the P's last event. */
static int lost_log(struct ctx *c, const struct gt_go123_gen *g, uint64_t p,
		    const struct gt_go123_event *ev)
{
	struct pstate *ps = pstate(c, p);
	const char *key, *val;
	size_t kn, vn;

	if (!ps || !gt_go123_string(g, ev->args[2], &key, &kn) ||
	    !gt_go123_string(g, ev->args[3], &val, &vn) ||
	    kn != strlen(LOST_KEY) || memcmp(key, LOST_KEY, kn) ||
	    vn < strlen(LOST_PREFIX) || memcmp(val, LOST_PREFIX,
						strlen(LOST_PREFIX)))
		return 0;
	if (gt_grow((void **)&ps->lost, &ps->lcap, ps->nlost + 2,
		    sizeof(*ps->lost)))
		return -1;
	ps->lost[ps->nlost++] = ps->last;
	ps->lost[ps->nlost++] = ev->ts;
	c->kv->lost_windows++;
	return 0;
}

/* A CPU sample (the walk's: M, then P, G, stack), if its G is asked for. */
static int sample(struct ctx *c, const struct gt_go123_gen *g,
		  const struct gt_go123_event *ev)
{
	struct gt_kview *kv = c->kv;
	struct gt_kv_sample *sm;
	uint64_t gid = ev->args[2];

	if (!gid || gid == NONE || !u64map_get(c->tids, TID(gid)))
		return 0;
	if (gt_grow((void **)&kv->samples, &kv->smcap, kv->nsamples + 1,
		    sizeof(*kv->samples)))
		return -1;
	sm = &kv->samples[kv->nsamples];
	*sm = (struct gt_kv_sample){ .tid = TID(gid), .ts = ev->ts,
		.cpu = ev->args[1] == NONE ? -1 : (int64_t)ev->args[1] };
	if (copy_stack(kv, g, ev->args[3], &sm->frames, &sm->nframes))
		return -1;
	kv->nsamples++;
	return 0;
}

static int on_event(void *arg, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct ctx *c = arg;
	struct gt_kview *kv = c->kv;
	uint64_t cur, curp, a1 = ev->args[1], ts = ev->ts;
	struct gt_kv_span *s;
	struct pstate *ps;
	struct tstate *t;
	bool oom = false;
	int ret;

	if (ev->type == GT_GO123_EV_CPU_SAMPLE) {
		if (!sample(c, g, ev))
			return 0;
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -1;
	}
	gt_go123_order_m(&c->order, ev->m, &cur, &curp);
	ret = gt_go123_order_event(&c->order, g, ev, err);
	if (ret)
		return ret;
	if (!kv->first || ts < kv->first)
		kv->first = ts;
	if (ts > kv->last)
		kv->last = ts;
	ps = pstate(c, curp);
	if (ps)
		ps->last = ts;
	switch (ev->type) {
	case GT_GO123_EV_GO_START:
		if (p_switch(c, curp, a1, ts))
			goto oom;
		t = target(c, a1, &oom);
		if (!t)
			break;
		s = close_span(c, t, ts);
		if (s && s->kind == GT_KV_RUNNABLE)
			s->cpu = curp == NONE ? -1 : (int64_t)curp;
		if (start_run(c, t, a1, curp, ts))
			goto oom;
		break;
	case GT_GO123_EV_GO_STOP:
	case GT_GO123_EV_GO_BLOCK:
		if (name_g(c, g, cur, ev->args[2]) || p_switch(c, curp, NONE, ts))
			goto oom;
		t = target(c, cur, &oom);
		if (!t)
			break;
		stop_run(c, t, ts);
		close_span(c, t, ts);
		s = open_span(c, t, cur, ev->type == GT_GO123_EV_GO_STOP ?
			      GT_KV_RUNNABLE : GT_KV_BLOCKED, ts);
		if (!s)
			goto oom;
		s->reason = gen_string(kv, g, a1);
		if (ev->type == GT_GO123_EV_GO_BLOCK &&
		    copy_stack(kv, g, ev->args[2], &s->frames, &s->nframes))
			goto oom;
		break;
	case GT_GO123_EV_GO_SYSCALL_BEGIN:
		if (name_g(c, g, cur, ev->args[2]))
			goto oom;
		t = target(c, cur, &oom);
		if (t) {
			t->in_syscall = true;
			t->sys_stack = ev->args[2];
			/* Copied only if it sleeps: most syscalls do not. */
			t->sys_gen = g->gen;
		}
		break;
	case GT_GO123_EV_PROC_STOP:
		if (p_switch(c, curp, NONE, ts))
			goto oom;
		t = target(c, cur, &oom);
		if (!t || !t->in_syscall || t->span)
			break;
		stop_run(c, t, ts);
		s = open_span(c, t, cur, GT_KV_SYSCALL, ts);
		if (!s || (t->sys_gen == g->gen &&
			   copy_stack(kv, g, t->sys_stack, &s->frames,
				      &s->nframes)))
			goto oom;
		break;
	case GT_GO123_EV_GO_SYSCALL_END:
		t = target(c, cur, &oom);
		if (t)
			t->in_syscall = false;
		break;
	case GT_GO123_EV_GO_SYSCALL_END_BLOCKED:
		t = target(c, cur, &oom);
		if (!t)
			break;
		t->in_syscall = false;
		stop_run(c, t, ts);
		close_span(c, t, ts);
		if (!open_span(c, t, cur, GT_KV_RUNNABLE, ts))
			goto oom;
		break;
	case GT_GO123_EV_GO_UNBLOCK:
		if (name_g(c, g, cur, ev->args[3]))
			goto oom;
		t = target(c, a1, &oom);
		if (!t)
			break;
		s = close_span(c, t, ts);
		if (s && s->kind == GT_KV_BLOCKED) {
			s->waker = cur == NONE ? 0 : TID(cur);
			s->waker_cpu = curp == NONE ? -1 : (int64_t)curp;
			s->waker_name = g_name(c, cur);
		}
		if (!open_span(c, t, a1, GT_KV_RUNNABLE, ts))
			goto oom;
		break;
	case GT_GO123_EV_GO_DESTROY:
	case GT_GO123_EV_GO_DESTROY_SYSCALL:
		if (ev->type == GT_GO123_EV_GO_DESTROY &&
		    p_switch(c, curp, NONE, ts))
			goto oom;
		t = target(c, cur, &oom);
		if (t) {
			stop_run(c, t, ts);
			close_span(c, t, ts);
		}
		break;
	case GT_GO123_EV_GO_CREATE:
	case GT_GO123_EV_GO_CREATE_BLOCKED:
		if (name_g(c, g, a1, ev->args[3]) ||
		    name_g(c, g, cur, ev->args[2]))
			goto oom;
		break;
	case GT_GO123_EV_GO_STATUS_STACK:
		if (name_g(c, g, a1, ev->args[4]))
			goto oom;
		/* fall through */
	case GT_GO123_EV_GO_STATUS:
		t = target(c, a1, &oom);
		if (!t || t->span || t->run)
			break;
		/* First seen not running: since the trace's start. */
		if (ev->args[3] == GT_GO123_G_RUNNABLE ||
		    ev->args[3] == GT_GO123_G_WAITING) {
			s = open_span(c, t, a1, ev->args[3] == GT_GO123_G_RUNNABLE ?
				      GT_KV_RUNNABLE : GT_KV_BLOCKED, ts);
			if (!s)
				goto oom;
		}
		break;
	case GT_GO123_EV_USER_LOG:
		if (lost_log(c, g, curp, ev))
			goto oom;
		break;
	}
	if (oom)
		goto oom;
	if (ev->type == GT_GO123_EV_GO_SYSCALL_BEGIN && cur != NONE &&
	    u64map_get(c->tids, TID(cur))) {
		if (gt_grow((void **)&kv->enters, &kv->ecap, kv->nenters + 2,
			    sizeof(*kv->enters)))
			goto oom;
		kv->enters[kv->nenters++] = TID(cur);
		kv->enters[kv->nenters++] = ts;
	}
	return 0;
oom:
	err->off = (size_t)ev->off;
	snprintf(err->msg, sizeof(err->msg), "out of memory");
	return -1;
}

/*
 * Spans, runs, CPU samples and syscall entries alike: by thread, then
 * time, the two u64s each begins with (kview.h).
 */
static int by_tid_time(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Who ran on P @ps during @s: the goroutine of most time there. */
static void who_ran(struct ctx *c, struct pstate *ps, struct gt_kv_span *s)
{
	size_t lo = 0, hi = ps->n;
	struct u64map acc = { 0 };
	uint64_t k, v;
	size_t i;

	while (lo < hi) {		/* the first run ending after start */
		size_t mid = lo + (hi - lo) / 2;

		if (ps->runs[mid].end <= s->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < ps->n && ps->runs[i].start < s->end; i++) {
		const struct prun *r = &ps->runs[i];
		uint64_t from = r->start > s->start ? r->start : s->start;
		uint64_t to = r->end < s->end ? r->end : s->end;
		uint64_t *sum;
		bool added;

		if (to <= from || TID(r->g) == s->tid)
			continue;
		sum = u64map_put(&acc, r->g, 0, &added);
		if (!sum)
			break;
		*sum += to - from;
		s->ran_all_ns += to - from;
	}
	/* The GT_KV_RAN longest, longest first: an insertion. */
	for (i = 0; u64map_next(&acc, &i, &k, &v);) {
		int j = GT_KV_RAN;

		while (j > 0 && v > s->ran[j - 1].ns)
			j--;
		if (j == GT_KV_RAN)
			continue;
		memmove(&s->ran[j + 1], &s->ran[j],
			(GT_KV_RAN - 1 - (size_t)j) * sizeof(s->ran[0]));
		s->ran[j] = (struct gt_kv_ran){ TID(k), v, g_name(c, k) };
	}
	u64map_free(&acc);
}

/* Whether P @p lost events in [@from, @to). */
static bool lost_in(struct ctx *c, int64_t p, uint64_t from, uint64_t to)
{
	const uint64_t *v = p < 0 ? NULL : u64map_get(&c->pidx, (uint64_t)p);
	const struct pstate *ps;

	if (!v)
		return false;
	ps = &c->ps[*v];
	for (size_t i = 0; i < ps->nlost; i += 2)
		if (ps->lost[i] < to && ps->lost[i + 1] >= from)
			return true;
	return false;
}

/* The CPU @tid last ran on before @ts, or -1 (kv->runs sorted). */
static int64_t cpu_before(const struct gt_kview *kv, uint64_t tid, uint64_t ts)
{
	size_t lo = 0, hi = kv->nruns;

	while (lo < hi) {		/* the first run of @tid from @ts on */
		size_t mid = lo + (hi - lo) / 2;
		const struct gt_kv_run *r = &kv->runs[mid];

		if (r->tid < tid || (r->tid == tid && r->start < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && kv->runs[lo - 1].tid == tid ? kv->runs[lo - 1].cpu : -1;
}

static void finish(struct ctx *c)
{
	struct gt_kview *kv = c->kv;
	uint64_t *v;

	for (size_t i = 0; i < c->nts; i++) {
		struct tstate *t = &c->ts[i];

		if (t->span) {
			kv->spans[t->span - 1].end = kv->last;
			kv->spans[t->span - 1].open = true;
		}
		stop_run(c, t, kv->last);
	}
	for (size_t i = 0; i < c->nps; i++)
		if (c->ps[i].open)
			c->ps[i].runs[c->ps[i].n - 1].end = kv->last;
	if (kv->nruns > 1)
		qsort(kv->runs, kv->nruns, sizeof(*kv->runs), by_tid_time);
	for (size_t i = 0; i < kv->nspans; i++) {
		struct gt_kv_span *s = &kv->spans[i];
		int64_t before = cpu_before(kv, s->tid, s->start);

		if (lost_in(c, before, s->start, s->end) ||
		    lost_in(c, s->cpu, s->start, s->end)) {
			s->kind = GT_KV_UNKNOWN;
			continue;
		}
		if (s->kind != GT_KV_RUNNABLE || s->cpu < 0)
			continue;
		v = u64map_get(&c->pidx, (uint64_t)s->cpu);
		if (v)
			who_ran(c, &c->ps[*v], s);
	}
	if (kv->nspans > 1)
		qsort(kv->spans, kv->nspans, sizeof(*kv->spans), by_tid_time);
	if (kv->nsamples > 1)
		qsort(kv->samples, kv->nsamples, sizeof(*kv->samples),
		      by_tid_time);
	if (kv->nenters > 2)
		qsort(kv->enters, kv->nenters / 2, 2 * sizeof(*kv->enters),
		      by_tid_time);
	kv->ntids_seen = 0;
	for (size_t i = 0; i < kv->nruns; i++)
		if (!i || kv->runs[i].tid != kv->runs[i - 1].tid)
			kv->ntids_seen++;
}

int gt_kview_read(struct gt_kview *kv, const struct gt_src *src,
		  const struct u64map *tids, struct gt_trace_error *err)
{
	struct ctx c = { .kv = kv, .tids = tids };
	struct gt_go123_reader r;
	struct gt_go123_gen g = { 0 };
	int ret;

	memset(kv, 0, sizeof(*kv));
	gt_go123_open(&r, src);
	if (!r.version) {
		snprintf(err->msg, sizeof(err->msg),
			 "not a trace in the generational format (record it with gotrace's default format)");
		err->off = 0;
		return -1;
	}
	while ((ret = gt_go123_next(&r, &g, err)) > 0)
		if (gt_go123_walk_samples(&g, on_event, &c, err, NULL)) {
			ret = -1;
			break;
		}
	if (!ret)
		finish(&c);
	gt_go123_gen_free(&g);
	gt_go123_order_free(&c.order);
	u64map_free(&c.tidx);
	free(c.ts);
	for (size_t i = 0; i < c.nps; i++) {
		free(c.ps[i].runs);
		free(c.ps[i].lost);
	}
	free(c.ps);
	u64map_free(&c.pidx);
	u64map_free(&c.gname);
	return ret ? -1 : 0;
}

void gt_kview_free(struct gt_kview *kv)
{
	for (size_t i = 0; i < kv->nstr; i++)
		free(kv->str[i]);
	free(kv->str);
	u64map_free(&kv->stridx);
	free(kv->spans);
	free(kv->runs);
	free(kv->samples);
	free(kv->frames);
	free(kv->enters);
	memset(kv, 0, sizeof(*kv));
}
