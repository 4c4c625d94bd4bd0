// SPDX-License-Identifier: GPL-2.0
/*
 * go123_pprof.c - replay a generational trace's goroutine transitions
 * into a time-in-state profile
 *
 * Go's reader turns events into goroutine state transitions (from, to,
 * reason, stack); its profile starts timing a goroutine at the first
 * transition into the profile's state for a reason the profile wants,
 * and adds the time, under the stack of that first event, at the
 * transition out.  Go's order (go123_order.c) decides which event comes
 * next and which goroutine runs on each M, so that the transitions are
 * the ones Go's reader sees.
 *
 * Go then keeps only the part of each time that overlaps the goroutine's
 * life as its summary gives it: from its first start (or from the
 * beginning of the trace if it never ran) to its end.  A time that ends
 * before the goroutine ever ran therefore counts only if it never runs;
 * such a time waits in the goroutine's pending list until that is
 * known, and so does one of a goroutine whose name or unit the filters
 * need and the trace has not said yet.  A pending list holds a stack at
 * most once for each thing it waits for.
 *
 * With --unit the window is the unit's user regions instead, as in Go's
 * region profiles (/regionKIND?type=UNIT of its web UI): gotrace's
 * recorders end and begin a task's region only while it runs, so a time
 * lies in the unit when the task's region at its end is the unit's; a
 * region whose begin the trace did not see (its first region event is
 * an end) counts from the start of the trace.
 *
 * Go keys its summary of goroutines by id, so a reused id's earlier
 * lives are clipped to its last one; here each life is its own
 * (Documentation/gotrace.rst, "Profiles: gotrace pprof").
 *
 * The CPU profile counts the samples Go's reader gives between the
 * events (go123_walk.c), each under its own stack.  Its filters are the
 * same: the sample's goroutine by id, its name, and its unit's region
 * at the sample's time; a sample of a goroutine whose name or unit is
 * not known yet waits in its pending list as a time does.  A sample
 * taken while no goroutine ran (G 0) matches no filter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "go123.h"
#include "go123_order.h"
#include "go123_pprof.h"
#include "go123_read.h"
#include "go123_walk.h"

#define NONE	UINT64_MAX

/* Go's goroutine states: the statuses of GoStatus, and two more. */
enum { S_GONE = 0, S_RUNNABLE = GT_GO123_G_RUNNABLE,
       S_RUNNING = GT_GO123_G_RUNNING, S_SYSCALL = GT_GO123_G_SYSCALL,
       S_WAITING = GT_GO123_G_WAITING, S_UNDETERMINED = 5 };

/* What a pending time waits for. */
enum { NEED_RUN = 1, NEED_NAME = 2, NEED_UNIT = 4 };

struct pend {
	uint32_t stack;
	uint8_t need;
	uint64_t count, ns;
};

struct gstate {
	bool tracking;		/* in the profile's state, timed */
	uint64_t t0;		/* since then */
	uint32_t stack;		/* the stack of the event that began it */
	bool ran;		/* has run in this life (Go's StartTime) */
	/*
	 * Made by a CPU sample, no transition seen yet: a first status
	 * ("undetermined") continues this life.
	 */
	bool fresh;
	int8_t name;		/* matches --comm: 1, 0, -1 not known yet */
	int8_t unit;		/* in --unit's region: 1, 0, -1 not known */
	struct pend *pend;
	size_t npend, pcap;
};

struct ctx {
	const struct gt_pprof_opts *o;
	struct gt_prof *p;
	int want;			/* the profile's state (-1: cpu) */
	struct gt_pprof_seen seen;
	uint64_t first;			/* the earliest event's time */
	struct gt_go123_order order;
	struct u64map gidx;		/* goroutine -> index into gs */
	struct gstate *gs;
	size_t ngs, gcap;
	uint64_t last;			/* the time of Go's last event */
	uint32_t locs[GT_PROF_MAX_DEPTH];
};

/*
 * Go's reader gives every event it returns a time after the last one's,
 * moving it to the last + 1 ns where it is not: two events of the same
 * time (a syscall that began and ended within a tick) are 1 ns apart,
 * which the profiles count.
 */
static uint64_t tick(struct ctx *c, uint64_t ts)
{
	c->last = ts > c->last ? ts : c->last + 1;
	return c->last;
}

static bool has(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(s + i, word, n))
			return true;
	return false;
}

/* Does a transition for @reason start the profile's time? */
static bool wanted(const struct ctx *c, const char *reason, size_t len)
{
	switch (c->o->kind) {
	case GT_PPROF_SYNC:
		return has(reason, len, "chan") || has(reason, len, "sync") ||
		       has(reason, len, "select");
	case GT_PPROF_NET:
		return len == 7 && !memcmp(reason, "network", 7);
	default:
		return true;
	}
}

/* Are the @len bytes at @s the string @want? */
static bool mem_is(const char *s, size_t len, const char *want)
{
	return len == strlen(want) && !memcmp(s, want, len);
}

static bool str_is(const struct gt_go123_gen *g, uint64_t id, const char *want)
{
	const char *s;
	size_t len;

	if (!gt_go123_string(g, id, &s, &len))
		len = 0;
	return mem_is(s, len, want);
}

/* Stack @stk of @g in the profile (0: the empty stack); -1 out of memory. */
static int64_t intern(struct ctx *c, const struct gt_go123_gen *g, uint64_t stk)
{
	const uint64_t *pcs = NULL;
	size_t n = 0;

	if (stk && !gt_go123_stack(g, stk, &pcs, &n))
		n = 0;
	if (n > GT_PROF_MAX_DEPTH)
		n = GT_PROF_MAX_DEPTH;
	for (size_t i = 0; i < n; i++) {
		const struct gt_go123_frame *f = gt_go123_frame(g, pcs[i]);
		const char *fn = "", *file = "";
		size_t fnlen = 0, filelen = 0;
		int64_t sfn, sfile, func, loc;

		if (f && !gt_go123_string(g, f->func, &fn, &fnlen))
			fnlen = 0;
		if (f && !gt_go123_string(g, f->file, &file, &filelen))
			filelen = 0;
		sfn = gt_prof_string(c->p, fn, fnlen);
		sfile = gt_prof_string(c->p, file, filelen);
		if (sfn < 0 || sfile < 0)
			return -1;
		func = gt_prof_func(c->p, (uint32_t)sfn, (uint32_t)sfile);
		if (func < 0)
			return -1;
		loc = gt_prof_loc(c->p, pcs[i], (uint32_t)func,
				  f ? (int64_t)f->line : 0);
		if (loc < 0)
			return -1;
		c->locs[i] = (uint32_t)loc;
	}
	return gt_prof_stack(c->p, c->locs, n);
}

static void add(struct ctx *c, uint32_t stack, uint64_t count, uint64_t ns)
{
	c->p->stacks[stack].count += count;
	c->p->stacks[stack].ns += ns;
}

/* Settle what waits for @need: kept (@keep) or dropped. */
static void resolve(struct ctx *c, struct gstate *s, uint8_t need, bool keep)
{
	size_t n = 0;

	for (size_t i = 0; i < s->npend; i++) {
		struct pend *pd = &s->pend[i];

		if (pd->need & need) {
			if (!keep)
				continue;
			pd->need &= (uint8_t)~need;
		}
		if (!pd->need)
			add(c, pd->stack, pd->count, pd->ns);
		else
			s->pend[n++] = *pd;
	}
	s->npend = n;
}

/*
 * The goroutine's life ends (or the trace does): it never ran, so what
 * waited for that counts; a name or unit never said matches no filter.
 */
static void settle(struct ctx *c, struct gstate *s)
{
	resolve(c, s, NEED_NAME | NEED_UNIT, false);
	resolve(c, s, NEED_RUN, true);
}

/*
 * One sample (@ns, a time or 0 for a CPU sample) of @s under @stack,
 * counted now or, if it waits for what @need says, pending.  0, or -1
 * out of memory.
 */
static int count(struct ctx *c, struct gstate *s, uint32_t stack,
		 uint8_t need, uint64_t ns)
{
	if (!s->name || !s->unit)
		return 0;
	need |= s->name < 0 ? NEED_NAME : 0;
	need |= s->unit < 0 ? NEED_UNIT : 0;
	if (!need) {
		add(c, stack, 1, ns);
		return 0;
	}
	for (size_t i = 0; i < s->npend; i++)
		if (s->pend[i].stack == stack && s->pend[i].need == need) {
			s->pend[i].count++;
			s->pend[i].ns += ns;
			return 0;
		}
	if (gt_grow((void **)&s->pend, &s->pcap, s->npend + 1,
		    sizeof(*s->pend)))
		return -1;
	s->pend[s->npend++] = (struct pend){ .stack = stack, .need = need,
					     .count = 1, .ns = ns };
	return 0;
}

/* @ns in the state, under @stack; 0, or -1 out of memory. */
static int sample(struct ctx *c, struct gstate *s, uint32_t stack,
		  uint64_t ns)
{
	/*
	 * With --unit the window is the unit's regions, as in Go's
	 * /regionKIND?type=UNIT, not the task's life: a region the trace
	 * did not see begin counts from the start of the trace, first run
	 * or not.
	 */
	uint8_t need = s->ran || c->o->unit ? 0 : NEED_RUN;

	if (!ns)
		return 0;	/* Go keeps only times longer than 0 */
	return count(c, s, stack, need, ns);
}

/* Goroutine @gid's state, made if new (NULL: out of memory). */
static struct gstate *gstate(struct ctx *c, uint64_t gid, bool *added)
{
	uint64_t *i = u64map_put(&c->gidx, gid, c->ngs, added);

	if (!i)
		return NULL;
	if (*added) {
		if (gt_grow((void **)&c->gs, &c->gcap, c->ngs + 1,
			    sizeof(*c->gs)))
			return NULL;
		c->ngs++;
	}
	return &c->gs[*i];
}

/* A new life of @s: from nothing (created) or from before the trace. */
static void born(struct ctx *c, struct gstate *s, int from)
{
	settle(c, s);
	s->tracking = false;
	s->ran = false;
	s->name = c->o->comm ? -1 : 1;
	s->unit = !c->o->unit ? 1 : from == S_UNDETERMINED ? -1 : 0;
}

/*
 * Go's name of a goroutine: the function of the outermost frame of the
 * first of its transitions' stacks that names one.  A frame without a
 * function (Go's runtime writes some stacks as one frame of PC 0) leaves
 * the goroutine unnamed, as Go's summary does, until a later stack.
 */
static void name(struct ctx *c, const struct gt_go123_gen *g, struct gstate *s,
		 uint64_t stk)
{
	const struct gt_go123_frame *f;
	const uint64_t *pcs;
	const char *fn;
	size_t n, len;
	bool match;

	if (s->name >= 0 || !stk || !gt_go123_stack(g, stk, &pcs, &n) || !n)
		return;
	f = gt_go123_frame(g, pcs[n - 1]);
	if (!f || !gt_go123_string(g, f->func, &fn, &len) || !len)
		return;
	match = mem_is(fn, len, c->o->comm);
	s->name = match;
	resolve(c, s, NEED_NAME, match);
}

struct trans {
	uint64_t ts;		/* as Go's reader gives it (tick()) */
	uint64_t g;
	int from, to;
	uint64_t reason;	/* string id, 0: none */
	uint64_t stack;		/* the event's stack: the profile's key */
	uint64_t st_stack;	/* the goroutine's own: names it */
};

/*
 * Is goroutine @gid one of the task of thread id @o->tid?  gotrace makes
 * a task's goroutine id its tid, and gives a renamed task (exec, prctl),
 * or a task that reuses an earlier one's tid, a new goroutine with the
 * tid in its low 32 bits (model/tasks.c): every life of that thread id.
 */
static bool tid_match(const struct gt_pprof_opts *o, uint64_t gid)
{
	return !o->by_tid || (gid & 0xffffffffULL) == o->tid;
}

static int transition(struct ctx *c, const struct gt_go123_gen *g,
		      const struct trans *t)
{
	const char *reason = "";
	struct gstate *s;
	size_t rlen = 0;
	bool added;
	int64_t stk;

	if (t->g == NONE || !tid_match(c->o, t->g))
		return 0;
	s = gstate(c, t->g, &added);
	if (!s)
		return -1;
	if (added)
		*s = (struct gstate){ 0 };
	if (added || t->from == S_GONE ||
	    (t->from == S_UNDETERMINED && !s->fresh))
		born(c, s, added && t->from != S_GONE ? S_UNDETERMINED :
			   t->from);
	s->fresh = false;
	if (t->reason && !gt_go123_string(g, t->reason, &reason, &rlen))
		rlen = 0;
	/* The profile: time in the state, from the first event into it. */
	if (s->tracking) {
		if (t->to != c->want) {
			s->tracking = false;
			if (sample(c, s, s->stack, t->ts - s->t0))
				return -1;
		}
	} else if (t->to == c->want && wanted(c, reason, rlen)) {
		stk = intern(c, g, t->stack);
		if (stk < 0)
			return -1;
		s->tracking = true;
		s->t0 = t->ts;
		s->stack = (uint32_t)stk;
	}
	/* The summary: a state repeated at a new generation says nothing. */
	if (t->from == t->to)
		return 0;
	if (t->to == S_RUNNING && !s->ran) {
		s->ran = true;
		resolve(c, s, NEED_RUN, false);
	}
	name(c, g, s, t->st_stack);
	if (t->to == S_GONE)
		settle(c, s);
	return 0;
}

/* A user region on goroutine @gid: gotrace's are its systemd units. */
static void region(struct ctx *c, const struct gt_go123_gen *g, uint64_t gid,
		   const struct gt_go123_event *ev)
{
	const uint64_t *i;
	struct gstate *s;
	bool match;

	if (!c->o->unit || gid == NONE || !(i = u64map_get(&c->gidx, gid)))
		return;
	s = &c->gs[*i];
	match = str_is(g, ev->args[2], c->o->unit);
	/* The first region event of a task the trace did not see begin. */
	if (s->unit < 0)
		resolve(c, s, NEED_UNIT,
			ev->type == GT_GO123_EV_USER_REGION_END && match);
	s->unit = ev->type == GT_GO123_EV_USER_REGION_BEGIN && match;
}

/* A CPU sample (go123_walk.h): counted under its stack if it matches. */
static int cpu_sample(struct ctx *c, const struct gt_go123_gen *g,
		      const struct gt_go123_event *ev)
{
	const struct gt_pprof_opts *o = c->o;
	uint64_t gid = ev->args[2];
	struct gstate *s;
	int64_t stk;
	bool added;

	if (!tid_match(o, gid) || ((o->comm || o->unit) && !gid))
		return 0;
	stk = intern(c, g, ev->args[3]);
	if (stk < 0)
		return -1;
	if (!o->comm && !o->unit) {
		add(c, (uint32_t)stk, 1, 0);
		return 0;
	}
	s = gstate(c, gid, &added);
	if (!s)
		return -1;
	if (added) {
		/* A goroutine the trace has not named yet. */
		*s = (struct gstate){ 0 };
		born(c, s, S_UNDETERMINED);
		s->fresh = true;
	}
	return count(c, s, (uint32_t)stk, 0, 0);
}

static int on_event(void *arg, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct ctx *c = arg;
	uint64_t a1 = ev->args[1], a2 = ev->args[2], a3 = ev->args[3];
	struct trans t[3] = { { .g = NONE } };
	uint64_t cur, curp, ts;
	bool existed = false;
	int ret, n = 1;

	if (!c->first || ev->ts < c->first)
		c->first = ev->ts;
	if (ev->type == GT_GO123_EV_CPU_SAMPLE) {
		/* Go's reader moves a sample's time as any event's. */
		tick(c, ev->ts);
		c->seen.samples++;
		if (c->want < 0 && cpu_sample(c, g, ev))
			goto oom;
		return 0;
	}
	if (ev->type == GT_GO123_EV_GO_STATUS ||
	    ev->type == GT_GO123_EV_GO_STATUS_STACK)
		existed = gt_go123_order_g_exists(&c->order, a1);
	gt_go123_order_m(&c->order, ev->m, &cur, &curp);
	ret = gt_go123_order_event(&c->order, g, ev, err);
	if (ret)
		return ret;
	ts = tick(c, ev->ts);
	switch (ev->type) {
	case GT_GO123_EV_GO_CREATE:
	case GT_GO123_EV_GO_CREATE_BLOCKED:
		t[0] = (struct trans){ 0, a1, S_GONE,
			ev->type == GT_GO123_EV_GO_CREATE ? S_RUNNABLE : S_WAITING,
			0, a3, a2 };
		break;
	case GT_GO123_EV_GO_CREATE_SYSCALL:
		t[0] = (struct trans){ 0, a1, S_GONE, S_SYSCALL, 0, 0, 0 };
		break;
	case GT_GO123_EV_GO_START:
		t[0] = (struct trans){ 0, a1, S_RUNNABLE, S_RUNNING, 0, 0, 0 };
		break;
	case GT_GO123_EV_GO_DESTROY:
		t[0] = (struct trans){ 0, cur, S_RUNNING, S_GONE, 0, 0, 0 };
		break;
	case GT_GO123_EV_GO_DESTROY_SYSCALL:
		/* Go gives the P it leaves a ProcSteal of its own first. */
		t[0] = (struct trans){ curp != NONE ? tick(c, ev->ts) : 0,
			cur, S_SYSCALL, S_GONE, 0, 0, 0 };
		break;
	case GT_GO123_EV_GO_STOP:
	case GT_GO123_EV_GO_BLOCK:
		t[0] = (struct trans){ 0, cur, S_RUNNING,
			ev->type == GT_GO123_EV_GO_STOP ? S_RUNNABLE : S_WAITING,
			a1, a2, a2 };
		break;
	case GT_GO123_EV_GO_UNBLOCK:
		t[0] = (struct trans){ 0, a1, S_WAITING, S_RUNNABLE, 0, a3, 0 };
		break;
	case GT_GO123_EV_GO_SWITCH:
	case GT_GO123_EV_GO_SWITCH_DESTROY:
		/* Go splits a switch: unblock, block or end, start. */
		t[0] = (struct trans){ 0, a1, S_WAITING, S_RUNNABLE, 0, 0, 0 };
		t[1] = (struct trans){ 0, cur, S_RUNNING,
			ev->type == GT_GO123_EV_GO_SWITCH ? S_WAITING : S_GONE,
			0, 0, 0 };
		t[2] = (struct trans){ 0, a1, S_RUNNABLE, S_RUNNING, 0, 0, 0 };
		n = 3;
		t[1].ts = tick(c, ev->ts);
		t[2].ts = tick(c, ev->ts);
		break;
	case GT_GO123_EV_GO_SYSCALL_BEGIN:
		t[0] = (struct trans){ 0, cur, S_RUNNING, S_SYSCALL, 0, a2, a2 };
		break;
	case GT_GO123_EV_GO_SYSCALL_END:
		t[0] = (struct trans){ 0, cur, S_SYSCALL, S_RUNNING, 0, 0, 0 };
		break;
	case GT_GO123_EV_GO_SYSCALL_END_BLOCKED:
		t[0] = (struct trans){ 0, cur, S_SYSCALL, S_RUNNABLE, 0, 0, 0 };
		break;
	case GT_GO123_EV_GO_STATUS:
	case GT_GO123_EV_GO_STATUS_STACK:
		if (a3 < S_RUNNABLE || a3 > S_WAITING)
			break;
		t[0] = (struct trans){ 0, a1, existed ? (int)a3 : S_UNDETERMINED,
			(int)a3, 0, 0, 0 };
		if (ev->type == GT_GO123_EV_GO_STATUS_STACK)
			t[0].stack = t[0].st_stack = ev->args[4];
		break;
	case GT_GO123_EV_USER_REGION_BEGIN:
	case GT_GO123_EV_USER_REGION_END:
		region(c, g, cur, ev);
		break;
	}
	if (!t[0].ts)
		t[0].ts = ts;
	for (int i = 0; i < n; i++)
		if (transition(c, g, &t[i]))
			goto oom;
	return 0;
oom:
	err->off = (size_t)ev->off;
	snprintf(err->msg, sizeof(err->msg), "out of memory");
	return -1;
}

/*
 * Go's Sync event that begins a generation, at its minTs (go123_read.h):
 * not the earliest event batch, but Go's rule over every batch, under
 * which a table batch of time 0 written last makes it 0.
 */
static uint64_t sync_time(const struct gt_go123_gen *g)
{
	return gt_go123_ticks_ns(g->freq, g->min_ts);
}

/*
 * The CPU profile's values: each sample's nanoseconds are the period of
 * the rate the trace states, else of runtime/pprof's 100 Hz, as Go's
 * runtime/pprof makes them (1e9 / hz, an integer); its duration the
 * trace's span.
 */
static void cpu_values(struct ctx *c)
{
	uint64_t hz = c->seen.hz ? c->seen.hz : GT_GO123_GO_CPU_HZ;
	struct gt_prof *p = c->p;

	p->period = 1000000000 / hz;
	p->duration_ns = c->last > c->first ? c->last - c->first : 0;
	for (size_t i = 0; i < p->nstacks; i++)
		p->stacks[i].ns = p->stacks[i].count * p->period;
}

int gt_go123_pprof(const struct gt_src *src, const struct gt_pprof_opts *o,
		   struct gt_prof *p, struct gt_pprof_seen *seen,
		   struct gt_trace_error *err)
{
	static const int want[] = {
		[GT_PPROF_SCHED] = S_RUNNABLE, [GT_PPROF_SYNC] = S_WAITING,
		[GT_PPROF_SYSCALL] = S_SYSCALL, [GT_PPROF_NET] = S_WAITING,
		[GT_PPROF_CPU] = -1,
	};
	struct ctx c = { .o = o, .p = p, .want = want[o->kind] };
	struct gt_go123_reader r;
	struct gt_go123_gen g = { 0 };
	int ret;

	gt_go123_open(&r, src);
	while ((ret = gt_go123_next(&r, &g, err)) > 0) {
		if (!c.seen.hz)
			c.seen.hz = gt_go123_cpu_hz(&g);
		tick(&c, sync_time(&g));
		if (gt_go123_walk_samples(&g, on_event, &c, err, NULL)) {
			ret = -1;
			break;
		}
	}
	gt_go123_gen_free(&g);
	for (size_t i = 0; i < c.ngs; i++) {
		/* Times still running at the end are not Go's samples. */
		if (!ret)
			settle(&c, &c.gs[i]);
		free(c.gs[i].pend);
	}
	free(c.gs);
	u64map_free(&c.gidx);
	gt_go123_order_free(&c.order);
	if (!ret && o->kind == GT_PPROF_CPU)
		cpu_values(&c);
	if (seen)
		*seen = c.seen;
	return ret ? -1 : 0;
}
