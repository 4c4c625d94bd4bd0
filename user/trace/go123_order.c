// SPDX-License-Identifier: GPL-2.0
/*
 * go123_order.c - the goroutine, P and M state machine of Go's reader
 *
 * Each handler decides one event type: "not yet" where Go's reader
 * waits for another M's events, an error where it gives up.  GC, STW,
 * coroutine-free annotations and experimental events are not written by
 * gotrace; they get the context checks Go gives them and change no state.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go123_order.h"

#define NONE	UINT64_MAX	/* no G, no P, no M (Go's -1) */

/* Go statuses (GoStatus): 0 here means the goroutine does not exist. */
enum { G_GONE = 0, G_RUNNABLE = 1, G_RUNNING = 2, G_SYSCALL = 3,
       G_WAITING = 4 };
/* P statuses (ProcStatus). */
enum { P_RUNNING = 1, P_IDLE = 2, P_SYSCALL = 3, P_ABANDONED = 4 };

struct gt_go123_gstate {
	uint8_t status;
	uint64_t gen, seq;	/* the sequence counter and its generation */
};

struct gt_go123_pstate {
	uint8_t status;
	uint64_t gen, seq;
};

struct gt_go123_mstate {
	uint64_t g, p;
};

static const char *const g_names[] = { "Bad", "Runnable", "Running",
				       "Syscall", "Waiting" };
static const char *const p_names[] = { "Bad", "Running", "Idle", "Syscall",
				       "SyscallAbandoned" };

__attribute__((format(printf, 4, 5)))
static int broken(struct gt_trace_error *err, const struct gt_go123_gen *g,
		  const struct gt_go123_event *ev, const char *fmt, ...)
{
	va_list ap;
	int n;

	err->off = (size_t)ev->off;
	n = snprintf(err->msg, sizeof(err->msg), "generation %llu: M %lld: %s: ",
		     (unsigned long long)g->gen, (long long)ev->m,
		     gt_go123_type_name(ev->type));
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int oom(struct gt_trace_error *err, const struct gt_go123_gen *g,
	       const struct gt_go123_event *ev)
{
	return broken(err, g, ev, "out of memory");
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t nc = *cap ? *cap * 2 : 64;
	void *n;

	if (need <= *cap)
		return 0;
	n = realloc(*p, nc * size);
	if (!n)
		return -1;
	*p = n;
	*cap = nc;
	return 0;
}

/* The state of G @id, or NULL if it does not exist. */
static struct gt_go123_gstate *gget(struct gt_go123_order *o, uint64_t id)
{
	const uint64_t *i = u64map_get(&o->gs, id);

	return i && o->g[*i].status != G_GONE ? &o->g[*i] : NULL;
}

/* G @id's state slot, made if needed (status G_GONE if new). */
static struct gt_go123_gstate *gmake(struct gt_go123_order *o, uint64_t id)
{
	uint64_t *i;
	bool added;

	if (grow((void **)&o->g, &o->gcap, o->ng + 1, sizeof(*o->g)))
		return NULL;
	i = u64map_put(&o->gs, id, o->ng, &added);
	if (!i)
		return NULL;
	if (added)
		o->g[o->ng++] = (struct gt_go123_gstate){ 0 };
	return &o->g[*i];
}

static struct gt_go123_pstate *pget(struct gt_go123_order *o, uint64_t id)
{
	const uint64_t *i = u64map_get(&o->ps, id);

	return i ? &o->p[*i] : NULL;
}

static struct gt_go123_pstate *pmake(struct gt_go123_order *o, uint64_t id)
{
	uint64_t *i;
	bool added;

	if (grow((void **)&o->p, &o->pcap, o->np + 1, sizeof(*o->p)))
		return NULL;
	i = u64map_put(&o->ps, id, o->np, &added);
	if (!i)
		return NULL;
	if (added)
		o->p[o->np++] = (struct gt_go123_pstate){ 0 };
	return &o->p[*i];
}

static struct gt_go123_mstate *mget(struct gt_go123_order *o, uint64_t id)
{
	const uint64_t *i = u64map_get(&o->ms, id);

	return i ? &o->m[*i] : NULL;
}

static struct gt_go123_mstate *mmake(struct gt_go123_order *o, uint64_t id)
{
	uint64_t *i;
	bool added;

	if (grow((void **)&o->m, &o->mcap, o->nm + 1, sizeof(*o->m)))
		return NULL;
	i = u64map_put(&o->ms, id, o->nm, &added);
	if (!i)
		return NULL;
	if (added)
		o->m[o->nm++] = (struct gt_go123_mstate){ .g = NONE, .p = NONE };
	return &o->m[*i];
}

/* Does (@gen, @seq) come right after the counter (@cgen, @cseq)? */
static bool succeeds(uint64_t gen, uint64_t seq, uint64_t cgen, uint64_t cseq)
{
	return gen == cgen && seq == cseq + 1;
}

/* What an event needs of its M: a thread, a P, a G. */
enum need { MAY, MUST, MUST_NOT };

struct ctx {
	uint64_t m, p, g;
};

static int need(struct gt_trace_error *err, const struct gt_go123_gen *g,
		const struct gt_go123_event *ev, const struct ctx *c,
		enum need m, enum need p, enum need gr)
{
	if (m == MUST && c->m == NONE)
		return broken(err, g, ev, "expected a thread but didn't have one");
	if (p == MUST && c->p == NONE)
		return broken(err, g, ev, "expected a proc but didn't have one");
	if (p == MUST_NOT && c->p != NONE)
		return broken(err, g, ev, "expected no proc but had one");
	if (gr == MUST && c->g == NONE)
		return broken(err, g, ev, "expected a goroutine but didn't have one");
	if (gr == MUST_NOT && c->g != NONE)
		return broken(err, g, ev, "expected no goroutine but had one");
	return 0;
}

/* The running G of @c, which an event on it needs. */
static int cur_g(struct gt_go123_order *o, struct gt_trace_error *err,
		 const struct gt_go123_gen *g, const struct gt_go123_event *ev,
		 const struct ctx *c, uint8_t want, struct gt_go123_gstate **out)
{
	*out = gget(o, c->g);
	if (!*out)
		return broken(err, g, ev, "event for goroutine (%llu) that doesn't exist",
			      (unsigned long long)c->g);
	if ((*out)->status != want)
		return broken(err, g, ev, "event for goroutine that's not %s",
			      g_names[want]);
	return 0;
}

static int proc_status(struct gt_go123_order *o, const struct gt_go123_gen *g,
		       const struct gt_go123_event *ev, struct ctx *c,
		       struct gt_trace_error *err)
{
	uint64_t pid = ev->args[1], st = ev->args[2];
	struct gt_go123_pstate *s = pget(o, pid);
	/* Only these statuses bind the P, an abandoned one never. */
	bool bind = st == P_RUNNING || st == P_SYSCALL;

	if (st > P_ABANDONED)
		return broken(err, g, ev, "invalid status for proc %llu: %llu",
			      (unsigned long long)pid, (unsigned long long)st);
	if (s) {
		if (st == P_ABANDONED && s->status == P_SYSCALL) {
			/* The P is about to be stolen: is some M holding it? */
			bool found = false;

			for (size_t i = 0; i < o->nm; i++)
				found |= o->m[i].p == pid;
			if (!found)
				return broken(err, g, ev,
					      "failed to find sched context for proc %llu that's about to be stolen",
					      (unsigned long long)pid);
			st = P_SYSCALL;
		} else if (!(st == P_ABANDONED && s->status == P_ABANDONED) &&
			   s->status != st) {
			return broken(err, g, ev,
				      "inconsistent status for proc %llu: old %s vs. new %s",
				      (unsigned long long)pid, p_names[s->status],
				      p_names[st]);
		}
	} else {
		s = pmake(o, pid);
		if (!s)
			return oom(err, g, ev);
		s->status = (uint8_t)st;
	}
	s->gen = g->gen;
	s->seq = 0;
	if (bind)
		c->p = pid;
	return 0;
}

static int go_status(struct gt_go123_order *o, const struct gt_go123_gen *g,
		     const struct gt_go123_event *ev, struct ctx *c,
		     struct gt_trace_error *err)
{
	uint64_t gid = ev->args[1], mid = ev->args[2], st = ev->args[3];
	struct gt_go123_gstate *s = gget(o, gid);
	struct gt_go123_mstate *ms;

	if (st > G_WAITING)
		return broken(err, g, ev, "invalid status for goroutine %llu: %llu",
			      (unsigned long long)gid, (unsigned long long)st);
	if (s) {
		if (s->status != st)
			return broken(err, g, ev,
				      "inconsistent status for goroutine %llu: old %s vs. new %s",
				      (unsigned long long)gid, g_names[s->status],
				      g_names[st]);
	} else if (g->gen == o->initial_gen) {
		s = gmake(o, gid);
		if (!s)
			return oom(err, g, ev);
		s->status = (uint8_t)st;
	} else {
		return broken(err, g, ev,
			      "found goroutine status for new goroutine after the first generation: id=%llu status=%s",
			      (unsigned long long)gid, g_names[st]);
	}
	s->gen = g->gen;
	s->seq = 0;
	if (st == G_RUNNING) {
		c->g = gid;
	} else if (st == G_SYSCALL) {
		if (mid == NONE)
			return broken(err, g, ev, "found goroutine %llu in syscall without a thread",
				      (unsigned long long)gid);
		if (mid == c->m) {
			if (g->gen != o->initial_gen && c->g != gid)
				return broken(err, g, ev,
					      "inconsistent thread for syscalling goroutine %llu: thread has goroutine %lld",
					      (unsigned long long)gid, (long long)c->g);
			c->g = gid;
			return 0;
		}
		/* A G in a syscall on another M all generation long. */
		ms = mget(o, mid);
		if (ms && ms->g != gid)
			return broken(err, g, ev,
				      "inconsistent thread for syscalling goroutine %llu: thread has goroutine %lld",
				      (unsigned long long)gid, (long long)ms->g);
		if (!ms) {
			ms = mmake(o, mid);
			if (!ms)
				return oom(err, g, ev);
			ms->g = gid;
		}
	}
	return 0;
}

static int go_create(struct gt_go123_order *o, const struct gt_go123_gen *g,
		     const struct gt_go123_event *ev, struct ctx *c,
		     struct gt_trace_error *err)
{
	struct gt_go123_gstate *s = gget(o, c->g);
	uint64_t gid = ev->args[1];
	bool sys = ev->type == GT_GO123_EV_GO_CREATE_SYSCALL;

	if (sys ? need(err, g, ev, c, MUST, MAY, MUST_NOT) :
		  need(err, g, ev, c, MUST, MUST, MAY))
		return -1;
	if (!sys && s && s->status != G_RUNNING)
		return broken(err, g, ev, "event for goroutine that's not Running");
	if (gget(o, gid))
		return broken(err, g, ev, "tried to create goroutine (%llu) that already exists",
			      (unsigned long long)gid);
	s = gmake(o, gid);
	if (!s)
		return oom(err, g, ev);
	s->status = ev->type == GT_GO123_EV_GO_CREATE_BLOCKED ? G_WAITING :
		    sys ? G_SYSCALL : G_RUNNABLE;
	s->gen = g->gen;
	s->seq = 0;
	if (sys)
		c->g = gid;
	return 0;
}

/* Apply @ev to the context @c of its M; 0, 1 (not yet) or -1. */
static int apply(struct gt_go123_order *o, const struct gt_go123_gen *g,
		 const struct gt_go123_event *ev, struct ctx *c,
		 struct gt_trace_error *err)
{
	struct gt_go123_gstate *gs;
	struct gt_go123_pstate *ps;
	struct gt_go123_mstate *ms;
	uint64_t id = ev->args[1], seq = ev->args[2];

	switch (ev->type) {
	case GT_GO123_EV_PROC_STATUS:
		return proc_status(o, g, ev, c, err);
	case GT_GO123_EV_GO_STATUS:
	case GT_GO123_EV_GO_STATUS_STACK:
		return go_status(o, g, ev, c, err);
	case GT_GO123_EV_PROC_START:
		ps = pget(o, id);
		if (!ps || ps->status != P_IDLE ||
		    !succeeds(g->gen, seq, ps->gen, ps->seq) || c->p != NONE)
			return 1;
		if (need(err, g, ev, c, MUST, MUST_NOT, MAY))
			return -1;
		ps->status = P_RUNNING;
		ps->seq = seq;
		c->p = id;
		return 0;
	case GT_GO123_EV_PROC_STOP:
		ps = c->p == NONE ? NULL : pget(o, c->p);
		if (!ps)
			return broken(err, g, ev, "event for proc (%lld) that doesn't exist",
				      (long long)c->p);
		if (ps->status != P_RUNNING && ps->status != P_SYSCALL)
			return broken(err, g, ev, "event for proc that's not Running or Syscall");
		if (need(err, g, ev, c, MUST, MUST, MAY))
			return -1;
		ps->status = P_IDLE;
		c->p = NONE;
		return 0;
	case GT_GO123_EV_PROC_STEAL: {
		uint64_t from = ev->args[3];
		uint8_t old;

		ps = pget(o, id);
		if (!ps || (ps->status != P_SYSCALL && ps->status != P_ABANDONED) ||
		    !succeeds(g->gen, seq, ps->gen, ps->seq))
			return 1;
		if (need(err, g, ev, c, MUST, MAY, MAY))
			return -1;
		old = ps->status;
		ps->status = P_IDLE;
		ps->seq = seq;
		if (old == P_ABANDONED)
			return 0;
		if (from == c->m) {
			if (c->p != id)
				return broken(err, g, ev,
					      "tried to self-steal proc %llu (thread %llu), but got proc %lld instead",
					      (unsigned long long)id,
					      (unsigned long long)from, (long long)c->p);
			c->p = NONE;
			return 0;
		}
		ms = mget(o, from);
		if (!ms)
			return broken(err, g, ev, "stole proc from non-existent thread %llu",
				      (unsigned long long)from);
		if (ms->p != id)
			return broken(err, g, ev,
				      "tried to steal proc %llu from thread %llu, but got proc %lld instead",
				      (unsigned long long)id, (unsigned long long)from,
				      (long long)ms->p);
		ms->p = NONE;
		return 0;
	}
	case GT_GO123_EV_GO_CREATE:
	case GT_GO123_EV_GO_CREATE_BLOCKED:
	case GT_GO123_EV_GO_CREATE_SYSCALL:
		return go_create(o, g, ev, c, err);
	case GT_GO123_EV_GO_START:
		gs = gget(o, id);
		if (!gs || gs->status != G_RUNNABLE ||
		    !succeeds(g->gen, seq, gs->gen, gs->seq))
			return 1;
		if (need(err, g, ev, c, MUST, MUST, MUST_NOT))
			return -1;
		gs->status = G_RUNNING;
		gs->seq = seq;
		c->g = id;
		return 0;
	case GT_GO123_EV_GO_STOP:
	case GT_GO123_EV_GO_BLOCK:
	case GT_GO123_EV_GO_DESTROY:
		if (need(err, g, ev, c, MUST, MUST, MUST) ||
		    cur_g(o, err, g, ev, c, G_RUNNING, &gs))
			return -1;
		gs->status = ev->type == GT_GO123_EV_GO_STOP ? G_RUNNABLE :
			     ev->type == GT_GO123_EV_GO_BLOCK ? G_WAITING : G_GONE;
		c->g = NONE;
		return 0;
	case GT_GO123_EV_GO_UNBLOCK:
		gs = gget(o, id);
		if (!gs || gs->status != G_WAITING ||
		    !succeeds(g->gen, seq, gs->gen, gs->seq))
			return 1;
		gs->status = G_RUNNABLE;
		gs->seq = seq;
		return 0;
	case GT_GO123_EV_GO_SWITCH:
	case GT_GO123_EV_GO_SWITCH_DESTROY: {
		struct gt_go123_gstate *next;

		if (need(err, g, ev, c, MUST, MUST, MUST) ||
		    cur_g(o, err, g, ev, c, G_RUNNING, &gs))
			return -1;
		next = gget(o, id);
		if (!next || next->status != G_WAITING ||
		    !succeeds(g->gen, seq, next->gen, next->seq))
			return 1;
		gs->status = ev->type == GT_GO123_EV_GO_SWITCH ? G_WAITING : G_GONE;
		next->status = G_RUNNING;
		next->seq = seq;
		c->g = id;
		return 0;
	}
	case GT_GO123_EV_GO_SYSCALL_BEGIN:
		if (need(err, g, ev, c, MUST, MUST, MUST) ||
		    cur_g(o, err, g, ev, c, G_RUNNING, &gs))
			return -1;
		gs->status = G_SYSCALL;
		ps = pget(o, c->p);
		if (!ps)
			return broken(err, g, ev, "uninitialized proc %llu",
				      (unsigned long long)c->p);
		ps->status = P_SYSCALL;
		if (!succeeds(g->gen, id, ps->gen, ps->seq))
			return broken(err, g, ev,
				      "failed to advance: can't make sequence: %llu (gen=%llu) -> %llu (gen=%llu)",
				      (unsigned long long)ps->seq,
				      (unsigned long long)ps->gen,
				      (unsigned long long)id,
				      (unsigned long long)g->gen);
		ps->seq = id;
		return 0;
	case GT_GO123_EV_GO_SYSCALL_END:
		if (need(err, g, ev, c, MUST, MUST, MUST) ||
		    cur_g(o, err, g, ev, c, G_SYSCALL, &gs))
			return -1;
		gs->status = G_RUNNING;
		ps = pget(o, c->p);
		if (!ps)
			return broken(err, g, ev, "uninitialized proc %llu",
				      (unsigned long long)c->p);
		if (ps->status != P_SYSCALL)
			return broken(err, g, ev, "expected proc %llu in state Syscall, but got %s instead",
				      (unsigned long long)c->p, p_names[ps->status]);
		ps->status = P_RUNNING;
		return 0;
	case GT_GO123_EV_GO_SYSCALL_END_BLOCKED:
		if (c->p != NONE) {
			ps = pget(o, c->p);
			if (!ps)
				return broken(err, g, ev, "uninitialized proc %llu",
					      (unsigned long long)c->p);
			if (ps->status == P_SYSCALL)
				return 1;
		}
		if (need(err, g, ev, c, MUST, MAY, MUST) ||
		    cur_g(o, err, g, ev, c, G_SYSCALL, &gs))
			return -1;
		gs->status = G_RUNNABLE;
		c->g = NONE;
		return 0;
	case GT_GO123_EV_GO_DESTROY_SYSCALL:
		if (need(err, g, ev, c, MUST, MAY, MUST) ||
		    cur_g(o, err, g, ev, c, G_SYSCALL, &gs))
			return -1;
		gs->status = G_GONE;
		c->g = NONE;
		/* A P left in its syscall is lost with the thread. */
		if (c->p != NONE) {
			ps = pget(o, c->p);
			if (ps && ps->status == P_SYSCALL) {
				ps->status = P_ABANDONED;
				c->p = NONE;
			}
		}
		return 0;
	default:
		/* Annotations and GC events: they need a P; most a G. */
		return need(err, g, ev, c, MUST, MUST,
			    ev->type >= 28 && ev->type <= 38 ? MAY : MUST) ? -1 : 0;
	}
}

int gt_go123_order_event(struct gt_go123_order *o, const struct gt_go123_gen *g,
			 const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct gt_go123_mstate *ms = NULL;
	struct ctx c = { .m = ev->m, .p = NONE, .g = NONE };
	int ret;

	if (!o->initial_gen)
		o->initial_gen = g->gen;
	if (ev->m != NONE) {
		ms = mmake(o, ev->m);
		if (!ms)
			return oom(err, g, ev);
		c.p = ms->p;
		c.g = ms->g;
	}
	ret = apply(o, g, ev, &c, err);
	/* mmake() may have moved the array: look the M up again. */
	if (!ret && ev->m != NONE) {
		ms = mget(o, ev->m);
		ms->p = c.p;
		ms->g = c.g;
	}
	return ret;
}

void gt_go123_order_free(struct gt_go123_order *o)
{
	u64map_free(&o->gs);
	u64map_free(&o->ps);
	u64map_free(&o->ms);
	free(o->g);
	free(o->p);
	free(o->m);
	memset(o, 0, sizeof(*o));
}

void gt_go123_order_m(const struct gt_go123_order *o, uint64_t m, uint64_t *g,
		      uint64_t *p)
{
	const uint64_t *i = u64map_get(&o->ms, m);

	*g = i ? o->m[*i].g : NONE;
	*p = i ? o->m[*i].p : NONE;
}

bool gt_go123_order_g_exists(const struct gt_go123_order *o, uint64_t g)
{
	const uint64_t *i = u64map_get(&o->gs, g);

	return i && o->g[*i].status != G_GONE;
}
