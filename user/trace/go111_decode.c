// SPDX-License-Identifier: GPL-2.0
/*
 * go111_decode.c - read every P's batches, merge the Ps and replay the
 * goroutine and P state machines, streaming
 *
 * Following Go 1.21's internal/trace (parser.go parseEvents, order.go
 * order1007, parser.go postProcessTrace; Documentation/trace-format.rst):
 *
 *  1. read: every P has a cursor over its batches (found by the check);
 *     every timed event gets its P, its implicit goroutine (the P's
 *     current one, kept across batches of the P) and its absolute time;
 *  2. merge: the next event of a P is staged when its goroutine is in the
 *     state (and at the sequence number) the event needs; a heap of the
 *     staged events gives the one with the smallest time (ties: earlier
 *     in the file), whose transition is applied; a P whose next event
 *     waits for a goroutine is kept on that goroutine's list and staged
 *     again only when the goroutine changes.  The result must be sorted
 *     by time.  O(events x log Ps);
 *  3. replay: each merged event, GoSysExit with its real timestamp, goes
 *     through the states of postProcessTrace (goroutines
 *     dead/runnable/running/waiting, per-P running goroutine and
 *     started/stopped) plus the rules of the 1.23 views (go111_decode.h).
 *
 * Go sorts the whole merged trace again once GoSysExit events take their
 * real time.  Here a GoSysExit whose real time is earlier than its place
 * in the merge is replayed at that place: between the two its goroutine
 * has no event (it is blocked in the syscall until the GoSysExit in the
 * merge order) and GoSysExit changes no P, so the verdict is the same.
 * One whose real time is later waits in a heap until the merge reaches
 * that time, as the sort would move it.  Neither holds the trace.
 *
 * User regions are only checked for their mode (gotrace never writes
 * them).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "go111_decode.h"

/* A timed event has at most 5 values (UserTaskCreate, UserRegion). */
#define EV_VALUES_MAX	8

enum { G_DEAD, G_RUNNABLE, G_RUNNING, G_WAITING };

static const char *const g_state_names[] = {
	"dead", "runnable", "running", "waiting",
};

#define G_UNORDERED	UINT64_MAX
#define G_GARBAGE	(UINT64_MAX - 1)

__attribute__((format(printf, 3, 4)))
static int fail(struct gt_trace_error *err, size_t off, const char *fmt, ...)
{
	va_list ap;

	err->off = off;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static const char *tname(unsigned int type)
{
	const char *n = gt_trace_type_name(type);

	return n ? n : "?";
}

/* ---- the ordering states of order.go ---- */

struct gst {
	uint64_t seq;
	int st;
};

/* What an event needs and does to the ordering state of a goroutine. */
struct trans {
	uint64_t g;
	bool any_seq;		/* init: any sequence number */
	uint64_t seq;
	int st;
	int next_seq;		/* 0: @nseq, 1: unchanged, 2: current + 1 */
	uint64_t nseq;
	int nst;
};

static void state_transition(const struct gt_event *e, unsigned int type,
			     struct trans *tr)
{
	memset(tr, 0, sizeof(*tr));
	switch (type) {
	case GOTRACE_EV_GO_CREATE:
		*tr = (struct trans){ e->args[0], false, 0, G_DEAD,
				      0, 1, G_RUNNABLE };
		break;
	case GOTRACE_EV_GO_WAITING:
	case GOTRACE_EV_GO_INSYSCALL:
		*tr = (struct trans){ e->g, false, 1, G_RUNNABLE,
				      0, 2, G_WAITING };
		break;
	case GOTRACE_EV_GO_START:
	case GOTRACE_EV_GO_START_LABEL:
		*tr = (struct trans){ e->g, false, e->args[1], G_RUNNABLE,
				      0, e->args[1] + 1, G_RUNNING };
		break;
	case GOTRACE_EV_GO_START_LOCAL:
		*tr = (struct trans){ e->g, true, 0, G_RUNNABLE,
				      2, 0, G_RUNNING };
		break;
	case GOTRACE_EV_GO_SYSBLOCK:
		*tr = (struct trans){ e->g, true, 0, G_RUNNING,
				      1, 0, G_WAITING };
		break;
	case GOTRACE_EV_GO_SCHED:
	case GOTRACE_EV_GO_PREEMPT:
		*tr = (struct trans){ e->g, true, 0, G_RUNNING,
				      1, 0, G_RUNNABLE };
		break;
	case GOTRACE_EV_GO_UNBLOCK:
	case GOTRACE_EV_GO_SYSEXIT:
		*tr = (struct trans){ e->args[0], false, e->args[1], G_WAITING,
				      0, e->args[1] + 1, G_RUNNABLE };
		break;
	case GOTRACE_EV_GO_UNBLOCK_LOCAL:
	case GOTRACE_EV_GO_SYSEXIT_LOCAL:
		*tr = (struct trans){ e->args[0], true, 0, G_WAITING,
				      2, 0, G_RUNNABLE };
		break;
	case GOTRACE_EV_GC_START:
		*tr = (struct trans){ G_GARBAGE, false, e->args[0], G_DEAD,
				      0, e->args[0] + 1, G_DEAD };
		break;
	default:
		if (gt_trace_type_is_block(type))
			*tr = (struct trans){ e->g, true, 0, G_RUNNING,
					      1, 0, G_WAITING };
		else
			tr->g = G_UNORDERED;
	}
}

/* ---- one table of goroutines for the merge and the replay ---- */

struct gdesc {			/* the replay's state of a goroutine */
	int state;
	uint8_t wait;		/* event that made it wait */
	bool started;		/* has a GoStart not yet ended */
	bool exists;
	bool assisting;		/* GCMarkAssistStart not yet done */
};

/* Everything kept per goroutine, in one place: one lookup per event. */
struct gslot {
	uint64_t seq;		/* merge: sequence number */
	uint64_t sysblock;	/* time of its last GoSysBlock/GoInSyscall */
	uint32_t waiting;	/* first P whose next event waits for it, +1 */
	uint8_t ord;		/* merge: G_* ordering state */
	struct gdesc gd;
};

struct gtab {
	struct u64map idx;	/* g -> index in s */
	struct gslot *s;
	size_t n, cap;
};

static struct gslot *gtab_get(const struct gtab *t, uint64_t g)
{
	const uint64_t *v = u64map_get(&t->idx, g);

	return v ? &t->s[*v] : NULL;
}

/* The slot of @g, zeroed when new; NULL when out of memory.  It moves. */
static struct gslot *gtab_put(struct gtab *t, uint64_t g)
{
	uint64_t *v;
	bool added;

	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 64;
		struct gslot *n = realloc(t->s, nc * sizeof(*n));

		if (!n)
			return NULL;
		t->s = n;
		t->cap = nc;
	}
	v = u64map_put(&t->idx, g, t->n, &added);
	if (!v)
		return NULL;
	if (added)
		memset(&t->s[t->n++], 0, sizeof(*t->s));
	return &t->s[*v];
}

static void gtab_free(struct gtab *t)
{
	u64map_free(&t->idx);
	free(t->s);
}

static struct gst get_gst(const struct gtab *gs, uint64_t g)
{
	const struct gslot *s = gtab_get(gs, g);

	if (!s)
		return (struct gst){ 0, G_DEAD };
	return (struct gst){ s->seq, s->ord };
}

static bool ready(const struct gtab *gs, const struct trans *tr)
{
	struct gst cur;

	if (tr->g == G_UNORDERED)
		return true;
	cur = get_gst(gs, tr->g);
	return (tr->any_seq || tr->seq == cur.seq) && tr->st == cur.st;
}

static int apply(struct gtab *gs, const struct trans *tr)
{
	struct gst cur = get_gst(gs, tr->g);
	uint64_t seq = tr->next_seq == 0 ? tr->nseq :
		       tr->next_seq == 1 ? cur.seq : cur.seq + 1;
	struct gslot *s;

	if (tr->g == G_UNORDERED)
		return 0;
	s = gtab_put(gs, tr->g);
	if (!s)
		return -1;
	s->seq = seq;
	s->ord = (uint8_t)tr->nst;
	return 0;
}

static uint8_t plain_type(uint8_t type)
{
	switch (type) {
	case GOTRACE_EV_GO_START_LOCAL:
		return GOTRACE_EV_GO_START;
	case GOTRACE_EV_GO_UNBLOCK_LOCAL:
		return GOTRACE_EV_GO_UNBLOCK;
	case GOTRACE_EV_GO_SYSEXIT_LOCAL:
		return GOTRACE_EV_GO_SYSEXIT;
	default:
		return type;
	}
}

/* ---- the states of postProcessTrace ---- */

struct pdesc {
	bool running;
	uint64_t g;
	size_t start_off;	/* of the GoStart of g */
	size_t sysblock_off;	/* +1: a GoSysBlock waits for ProcStop */
	uint64_t sysblock_g;
	bool sweeping;		/* GCSweepStart not yet done */
};

/* A user region begun and not ended, in its goroutine's stack of them. */
struct region {
	uint64_t task, name;	/* name: a string id */
	size_t below;		/* the region under it + 1, or 0 */
};

struct replay {
	struct gt_trace *t;
	struct gt_trace_error *err;
	struct gtab *gs;	/* shared with the merge */
	struct u64map pidx;	/* P -> index in pd */
	struct pdesc *pd;
	size_t npd, pcap;
	struct u64map tasks;	/* user task id -> 1 while it lives */
	/* Go 1.21 matches region ends with starts per goroutine. */
	struct u64map region_top;	/* g -> its innermost region + 1 */
	struct region *regions;	/* a pool; free ones chained by below */
	size_t nregions, rcap, rfree;
};

static struct gdesc *gdesc_of(struct replay *r, uint64_t g)
{
	struct gslot *s = gtab_put(r->gs, g);

	return s ? &s->gd : NULL;
}

static struct pdesc *pdesc_of(struct replay *r, uint64_t p)
{
	uint64_t *v;
	bool added;

	v = u64map_put(&r->pidx, p, r->npd, &added);
	if (!v)
		return NULL;
	if (added) {
		if (r->npd == r->pcap) {
			size_t nc = r->pcap ? r->pcap * 2 : 16;
			struct pdesc *n = realloc(r->pd, nc * sizeof(*n));

			if (!n)
				return NULL;
			r->pd = n;
			r->pcap = nc;
		}
		memset(&r->pd[r->npd++], 0, sizeof(*r->pd));
	}
	return &r->pd[*v];
}

/* Whether string ids @a and @b name the same bytes, as Go compares. */
static bool same_string(struct replay *r, uint64_t a, uint64_t b)
{
	char sa[256], sb[256];

	if (a == b)
		return true;
	return !strcmp(gt_trace_string(r->t, a, sa, sizeof(sa)),
		       gt_trace_string(r->t, b, sb, sizeof(sb)));
}

/* UserRegion: a start pushed, an end matched with g's innermost start. */
static int user_region(struct replay *r, const struct gt_event *e)
{
	uint64_t *top;
	struct region *rg;
	size_t i;
	bool added;

	if (e->args[1] > 1)
		return fail(r->err, e->off, "invalid user region mode %" PRIu64,
			    e->args[1]);
	top = u64map_put(&r->region_top, e->g, 0, &added);
	if (!top)
		return fail(r->err, e->off, "out of memory");
	if (e->args[1] == 1) {
		/* An end without a start: the region began before the trace. */
		if (!*top)
			return 0;
		i = (size_t)*top - 1;
		rg = &r->regions[i];
		if (rg->task != e->args[0] || !same_string(r, rg->name, e->args[2]))
			return fail(r->err, e->off,
				    "misuse of region in goroutine %" PRIu64
				    ": its end (task %" PRIu64 ") is not that of its innermost region (task %" PRIu64 ")",
				    e->g, e->args[0], rg->task);
		*top = rg->below;
		rg->below = r->rfree;
		r->rfree = i + 1;
		return 0;
	}
	if (r->rfree) {
		i = r->rfree - 1;
		r->rfree = r->regions[i].below;
	} else {
		if (gt_grow((void **)&r->regions, &r->rcap, r->nregions + 1,
			    sizeof(*r->regions)))
			return fail(r->err, e->off, "out of memory");
		i = r->nregions++;
	}
	r->regions[i] = (struct region){ e->args[0], e->args[2], (size_t)*top };
	*top = i + 1;
	return 0;
}

/* GoEnd: Go forgets the goroutine's open regions. */
static void end_regions(struct replay *r, uint64_t g)
{
	uint64_t *top = u64map_get(&r->region_top, g);

	while (top && *top) {
		size_t i = (size_t)*top - 1;

		*top = r->regions[i].below;
		r->regions[i].below = r->rfree;
		r->rfree = i + 1;
	}
}

static bool in_syscall_wait(uint8_t wait)
{
	return wait == GOTRACE_EV_GO_SYSBLOCK || wait == GOTRACE_EV_GO_INSYSCALL;
}

static int check_running(struct replay *r, const struct gt_event *e,
			 const struct gdesc *g, const struct pdesc *p,
			 bool allow_g0)
{
	if (g->state != G_RUNNING)
		return fail(r->err, e->off,
			    "g %" PRIu64 " is not running while %s (it is %s)",
			    e->g, tname(e->type), g_state_names[g->state]);
	if (p->g != e->g)
		return fail(r->err, e->off,
			    "p %" PRId64 " is not running g %" PRIu64
			    " while %s (it runs g %" PRIu64 ")",
			    (int64_t)e->p, e->g, tname(e->type), p->g);
	if (!allow_g0 && e->g == 0)
		return fail(r->err, e->off, "g 0 did %s", tname(e->type));
	return 0;
}

static int replay_event(struct replay *r, const struct gt_event *e,
			bool *gc, bool *stw)
{
	struct gdesc g, *gp, *g1p;
	struct pdesc p, *pp, syscall_p = { 0 };
	bool added;
	bool own_p = e->type != GOTRACE_EV_GO_SYSEXIT && e->p != GT_TIMER_P;

	gp = gdesc_of(r, e->g);
	pp = own_p ? pdesc_of(r, e->p) : &syscall_p;
	if (!gp || !pp)
		return fail(r->err, e->off, "out of memory");
	g = *gp;
	p = *pp;

	/* 5.4: GoSysBlock, then ProcStop on that P, back to back. */
	if (own_p && p.sysblock_off && e->type != GOTRACE_EV_PROC_STOP)
		return fail(r->err, p.sysblock_off - 1,
			    "GoSysBlock of g %" PRIu64 " on p %" PRId64
			    " is not followed by ProcStop on that P (next: %s at offset 0x%zx)",
			    p.sysblock_g, (int64_t)e->p, tname(e->type),
			    e->off);

	switch (e->type) {
	case GOTRACE_EV_PROC_START:
		if (p.running)
			return fail(r->err, e->off,
				    "p %" PRId64 " is running before start",
				    (int64_t)e->p);
		p.running = true;
		break;
	case GOTRACE_EV_PROC_STOP:
		if (!p.running)
			return fail(r->err, e->off,
				    "p %" PRId64 " is not running before stop",
				    (int64_t)e->p);
		if (p.g)
			return fail(r->err, e->off,
				    "p %" PRId64 " is running a goroutine %" PRIu64
				    " during stop", (int64_t)e->p, p.g);
		p.running = false;
		p.sysblock_off = 0;
		break;
	case GOTRACE_EV_GC_START:
		if (*gc)
			return fail(r->err, e->off,
				    "previous GC is not ended before a new one");
		*gc = true;
		break;
	case GOTRACE_EV_GC_DONE:
		if (!*gc)
			return fail(r->err, e->off, "bogus GC end");
		*gc = false;
		break;
	case GOTRACE_EV_STW_START:
		if (*stw)
			return fail(r->err, e->off,
				    "previous STW is not ended before a new one");
		*stw = true;
		break;
	case GOTRACE_EV_STW_DONE:
		if (!*stw)
			return fail(r->err, e->off, "bogus STW end");
		*stw = false;
		break;
	/* Go 1.21's parser pairs these per P and per goroutine. */
	case GOTRACE_EV_GC_SWEEP_START:
		if (p.sweeping)
			return fail(r->err, e->off,
				    "previous sweeping is not ended before a new one");
		p.sweeping = true;
		break;
	case GOTRACE_EV_GC_SWEEP_DONE:
		if (!p.sweeping)
			return fail(r->err, e->off, "bogus sweeping end");
		p.sweeping = false;
		break;
	case GOTRACE_EV_GC_MARK_ASSIST_START:
		if (g.assisting)
			return fail(r->err, e->off,
				    "previous mark assist is not ended before a new one");
		g.assisting = true;
		break;
	case GOTRACE_EV_GC_MARK_ASSIST_DONE:
		/* Go: an assist may have begun before the trace did. */
		g.assisting = false;
		break;
	case GOTRACE_EV_GO_WAITING:
	case GOTRACE_EV_GO_INSYSCALL:
		if (g.state != G_RUNNABLE)
			return fail(r->err, e->off,
				    "g %" PRIu64 " is not runnable before Ev%s (it is %s)",
				    e->g, tname(e->type), g_state_names[g.state]);
		g.state = G_WAITING;
		g.wait = e->type;
		break;
	case GOTRACE_EV_GO_CREATE: {
		const struct gslot *s;

		if (check_running(r, e, &g, &p, true))
			return -1;
		s = gtab_get(r->gs, e->args[0]);
		if (s && s->gd.exists)
			return fail(r->err, e->off,
				    "g %" PRIu64 " already exists", e->args[0]);
		g1p = gdesc_of(r, e->args[0]);
		if (!g1p)
			return fail(r->err, e->off, "out of memory");
		gp = &gtab_get(r->gs, e->g)->gd;	/* moved */
		*g1p = (struct gdesc){ .state = G_RUNNABLE, .exists = true };
		break;
	}
	case GOTRACE_EV_GO_START:
	case GOTRACE_EV_GO_START_LABEL:
		if (g.state != G_RUNNABLE)
			return fail(r->err, e->off,
				    "g %" PRIu64 " is not runnable before start (it is %s)",
				    e->g, g_state_names[g.state]);
		if (p.g)
			return fail(r->err, e->off,
				    "p %" PRId64 " is already running g %" PRIu64
				    " while start g %" PRIu64,
				    (int64_t)e->p, p.g, e->g);
		if (!p.running)
			return fail(r->err, e->off,
				    "p %" PRId64 " is not started (no ProcStart) while start g %" PRIu64,
				    (int64_t)e->p, e->g);
		g.state = G_RUNNING;
		g.started = true;
		p.g = e->g;
		p.start_off = e->off;
		break;
	case GOTRACE_EV_GO_END:
	case GOTRACE_EV_GO_STOP:
		if (check_running(r, e, &g, &p, false))
			return -1;
		if (e->type == GOTRACE_EV_GO_END)
			end_regions(r, e->g);
		g.state = G_DEAD;
		g.started = false;
		p.g = 0;
		break;
	case GOTRACE_EV_GO_SCHED:
	case GOTRACE_EV_GO_PREEMPT:
		if (check_running(r, e, &g, &p, false))
			return -1;
		g.state = G_RUNNABLE;
		g.started = false;
		p.g = 0;
		break;
	case GOTRACE_EV_GO_UNBLOCK: {
		if (g.state != G_RUNNING)
			return fail(r->err, e->off,
				    "g %" PRIu64 " is not running while unpark",
				    e->g);
		if (own_p && p.g != e->g)
			return fail(r->err, e->off,
				    "p %" PRId64 " is not running g %" PRIu64
				    " while unpark", (int64_t)e->p, e->g);
		g1p = gdesc_of(r, e->args[0]);
		if (!g1p)
			return fail(r->err, e->off, "out of memory");
		gp = &gtab_get(r->gs, e->g)->gd;	/* moved */
		if (g1p->state != G_WAITING)
			return fail(r->err, e->off,
				    "g %" PRIu64 " is not waiting before unpark (it is %s)",
				    e->args[0], g_state_names[g1p->state]);
		if (in_syscall_wait(g1p->wait))
			return fail(r->err, e->off,
				    "g %" PRIu64 " is blocked in a syscall (%s): it must end with GoSysExit, not GoUnblock",
				    e->args[0], tname(g1p->wait));
		g1p->state = G_RUNNABLE;
		g1p->wait = 0;
		g1p->exists = true;
		if (e->args[0] == e->g)
			g = *g1p;
		break;
	}
	case GOTRACE_EV_GO_SYSCALL:
		if (check_running(r, e, &g, &p, false))
			return -1;
		break;
	case GOTRACE_EV_GO_SYSBLOCK:
		if (check_running(r, e, &g, &p, false))
			return -1;
		g.state = G_WAITING;
		g.wait = GOTRACE_EV_GO_SYSBLOCK;
		g.started = false;
		p.g = 0;
		p.sysblock_off = e->off + 1;
		p.sysblock_g = e->g;
		break;
	case GOTRACE_EV_GO_SYSEXIT:
		if (g.state != G_WAITING)
			return fail(r->err, e->off,
				    "g %" PRIu64 " is not waiting during syscall exit (it is %s)",
				    e->g, g_state_names[g.state]);
		if (g.wait && !in_syscall_wait(g.wait) &&
		    g.wait != GOTRACE_EV_GO_WAITING)
			return fail(r->err, e->off,
				    "g %" PRIu64 " exits a syscall but it blocked with %s, not GoSysBlock",
				    e->g, tname(g.wait));
		g.state = G_RUNNABLE;
		g.wait = 0;
		break;
	case GOTRACE_EV_USER_REGION:
		if (user_region(r, e))
			return -1;
		break;
	case GOTRACE_EV_USER_TASK_CREATE: {
		uint64_t *v = u64map_put(&r->tasks, e->args[0], 0, &added);

		if (!v)
			return fail(r->err, e->off, "out of memory");
		if (*v)
			return fail(r->err, e->off, "task id conflicts (id %" PRIu64 ")",
				    e->args[0]);
		*v = 1;
		break;
	}
	case GOTRACE_EV_USER_TASK_END: {
		uint64_t *v = u64map_get(&r->tasks, e->args[0]);

		if (v)
			*v = 0;
		break;
	}
	default:
		if (gt_trace_type_is_block(e->type)) {
			if (check_running(r, e, &g, &p, false))
				return -1;
			g.state = G_WAITING;
			g.wait = e->type;
			g.started = false;
			p.g = 0;
		}
		break;
	}
	g.exists = true;
	*gp = g;
	if (own_p)
		*pp = p;
	return 0;
}

/*
 * A GoStart must be ended (GoPreempt, a block, GoSysBlock, GoEnd...)
 * before the trace ends: the parsers accept it, but 1.21's web UI links
 * every GoStart to its end and crashes on one without.  Reports the first.
 */
static int unended_start(struct replay *r)
{
	const struct pdesc *first = NULL;

	for (size_t i = 0; i < r->npd; i++)
		if (r->pd[i].g &&
		    (!first || r->pd[i].start_off < first->start_off))
			first = &r->pd[i];
	if (!first)
		return 0;
	return fail(r->err, first->start_off,
		    "g %" PRIu64 " is still running at the end of the trace: its GoStart is never ended (the 1.21 web UI fails on it)",
		    first->g);
}


/* ---- reading: one cursor per P ---- */

struct pq {
	uint64_t id;
	size_t first, nb, next;	/* its batches: border[first..first+nb) */
	struct gt_cur cur;
	uint64_t last_ts;	/* time of the last event read */
	uint64_t lastg;		/* its running goroutine, across batches */
	bool have;		/* head holds its next event */
	uint8_t orig;		/* head's type before *Local are renamed */
	struct gt_event head;
	size_t waiter;		/* next P waiting for the same goroutine, +1 */
};

/* A GoSysExit waiting for its real time, @n-th in the merge. */
struct late {
	struct gt_event e;
	uint64_t n;
};

struct dec {
	struct gt_trace *t;
	struct gt_trace_error *err;
	struct pq *ps;
	size_t nps;
	size_t *border;		/* batch indices grouped by P, file order */
	size_t *heap;		/* staged Ps, by time of their head */
	size_t nheap;
	struct gtab gs;		/* every goroutine: merge and replay states */
	struct replay r;
	bool gc, stw;
	struct late *late;	/* heap of GoSysExit events due later */
	size_t nlate, late_cap;
	uint64_t nmerged;
	uint64_t prev_ts;	/* the last merged event */
	size_t prev_off;
	uint8_t prev_type;
	gt_trace_event_fn fn;
	void *arg;
};

static int nomem(struct dec *d, size_t off)
{
	return fail(d->err, off, "out of memory");
}

/* The check read these bytes: they can only be missing now if changed. */
static int changed(struct dec *d, size_t off)
{
	return fail(d->err, off, "%s while reading the record here (was the file changed?)",
		    d->ps && d->ps->cur.ioerr ? "read error" : "unexpected bytes");
}

static bool rd_leb(struct gt_cur *c, uint64_t *v)
{
	return gt_cur_leb(c, v) > 0;
}

/* Open the next batch of @q; false if it has none left. */
static bool next_batch(struct dec *d, struct pq *q)
{
	const struct gt_trace_index *ix = &d->t->ix;
	size_t b;

	if (q->next == q->nb)
		return false;
	b = d->border[q->first + q->next++];
	gt_cur_seek(&q->cur, ix->batches[b].off,
		    b + 1 < ix->nbatches ? ix->batches[b + 1].off :
					   d->t->src.len);
	return true;
}

/* Fill q->head as parseEvents does; the values are in @v[@n]. */
static int set_head(struct dec *d, struct pq *q, unsigned int type,
		    size_t off, const uint64_t *v, size_t n)
{
	struct gt_event *e = &q->head;
	unsigned int nvals;
	bool has_ts, has_stk;
	size_t nargs;

	gt_trace_type_layout(type, &nvals, &has_ts, &has_stk);
	memset(e, 0, sizeof(*e));
	e->type = (uint8_t)type;
	e->off = off;
	e->p = q->id;
	e->ts = q->last_ts + v[0];
	q->last_ts = e->ts;
	nargs = n - 1 - (has_stk ? 1 : 0);
	for (size_t i = 0; i < nargs && i < 4; i++)
		e->args[i] = v[1 + i];
	if (has_stk)
		e->stk = v[n - 1];
	e->g = q->lastg;
	q->orig = (uint8_t)type;
	q->have = true;

	switch (type) {
	case GOTRACE_EV_GO_START:
	case GOTRACE_EV_GO_START_LOCAL:
	case GOTRACE_EV_GO_START_LABEL:
		q->lastg = e->args[0];
		e->g = e->args[0];
		break;
	case GOTRACE_EV_STW_START:
		e->g = 0;
		if (e->args[0] > 1)
			return fail(d->err, off, "unknown STW kind %" PRIu64,
				    e->args[0]);
		break;
	case GOTRACE_EV_GC_START:
	case GOTRACE_EV_GC_DONE:
	case GOTRACE_EV_STW_DONE:
		e->g = 0;
		break;
	case GOTRACE_EV_GO_END:
	case GOTRACE_EV_GO_STOP:
	case GOTRACE_EV_GO_SCHED:
	case GOTRACE_EV_GO_PREEMPT:
	case GOTRACE_EV_GO_SYSBLOCK:
		q->lastg = 0;
		break;
	case GOTRACE_EV_GO_SYSEXIT:
	case GOTRACE_EV_GO_WAITING:
	case GOTRACE_EV_GO_INSYSCALL:
		e->g = e->args[0];
		break;
	default:
		if (gt_trace_type_is_block(type))
			q->lastg = 0;
		break;
	}
	return 0;
}

/* The next timed event of @q into q->head, or q->have = false. */
static int read_head(struct dec *d, struct pq *q)
{
	struct gt_cur *c = &q->cur;
	uint64_t v[EV_VALUES_MAX], len, id;

	q->have = false;
	for (;;) {
		size_t off = (size_t)c->pos, n = 0;
		unsigned int type, cnt;
		uint8_t first;

		if (c->pos >= c->end) {
			if (!next_batch(d, q))
				return 0;
			continue;
		}
		if (!gt_cur_byte(c, &first))
			return changed(d, off);
		type = first & 0x3f;
		cnt = first >> 6;
		if (type == GOTRACE_EV_STRING) {
			if (!rd_leb(c, &id) || !rd_leb(c, &len) ||
			    !gt_cur_skip(c, len))
				return changed(d, off);
			continue;
		}
		if (cnt < 3) {
			for (unsigned int i = 0; i <= cnt; i++)
				if (!rd_leb(c, &v[n++]))
					return changed(d, off);
		} else {
			uint64_t start;

			if (!rd_leb(c, &len))
				return changed(d, off);
			if (type == GOTRACE_EV_STACK) {
				if (!gt_cur_skip(c, len))
					return changed(d, off);
				continue;
			}
			start = c->pos;
			while (c->pos - start < len)
				if (n == EV_VALUES_MAX || !rd_leb(c, &v[n++]))
					return changed(d, off);
		}
		if (type == GOTRACE_EV_USER_LOG &&
		    (!rd_leb(c, &len) || !gt_cur_skip(c, len)))
			return changed(d, off);

		switch (type) {
		case GOTRACE_EV_BATCH:
			q->last_ts = v[1];
			continue;
		case GOTRACE_EV_FREQUENCY:
		case GOTRACE_EV_STACK:
		case GOTRACE_EV_TIMER_GOROUTINE:
			continue;
		default:
			if (!n)
				return changed(d, off);
			return set_head(d, q, type, off, v, n);
		}
	}
}

/* ---- merge: a heap of the staged Ps ---- */

static bool before(const struct dec *d, size_t a, size_t b)
{
	const struct gt_event *x = &d->ps[a].head, *y = &d->ps[b].head;

	return x->ts < y->ts || (x->ts == y->ts && x->off < y->off);
}

static void heap_push(struct dec *d, size_t p)
{
	size_t i = d->nheap++;

	while (i && before(d, p, d->heap[(i - 1) / 2])) {
		d->heap[i] = d->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	d->heap[i] = p;
}

static size_t heap_pop(struct dec *d)
{
	size_t top = d->heap[0], last = d->heap[--d->nheap], i = 0;

	for (;;) {
		size_t k = 2 * i + 1;

		if (k >= d->nheap)
			break;
		if (k + 1 < d->nheap && before(d, d->heap[k + 1], d->heap[k]))
			k++;
		if (!before(d, d->heap[k], last))
			break;
		d->heap[i] = d->heap[k];
		i = k;
	}
	if (d->nheap)
		d->heap[i] = last;
	return top;
}

/* Stage P @p's head if its goroutine is ready, else wait for it. */
static int stage(struct dec *d, size_t p)
{
	struct pq *q = &d->ps[p];
	struct gslot *gs;
	struct trans tr;

	state_transition(&q->head, q->orig, &tr);
	if (ready(&d->gs, &tr)) {
		heap_push(d, p);
		return 0;
	}
	gs = gtab_put(&d->gs, tr.g);
	if (!gs)
		return nomem(d, q->head.off);
	q->waiter = gs->waiting;
	gs->waiting = (uint32_t)(p + 1);
	return 0;
}

/* Goroutine @g changed: look again at the Ps that waited for it. */
static int wake(struct dec *d, uint64_t g)
{
	struct gslot *gs = gtab_get(&d->gs, g);
	size_t p;

	if (!gs || !gs->waiting)
		return 0;
	p = gs->waiting;
	gs->waiting = 0;
	while (p) {
		struct pq *q = &d->ps[p - 1];
		size_t next = q->waiter;

		q->waiter = 0;
		if (stage(d, p - 1))
			return -1;
		p = next;
	}
	return 0;
}

/* No P can go on: describe the earliest blocked head event. */
static int no_order(struct dec *d)
{
	const struct pq *best = NULL;
	const struct gt_event *e;
	struct trans tr;
	struct gst cur;

	for (size_t p = 0; p < d->nps; p++)
		if (d->ps[p].have && (!best || before(d, p, (size_t)(best - d->ps))))
			best = &d->ps[p];
	e = &best->head;
	state_transition(e, best->orig, &tr);
	if (tr.g == G_GARBAGE)
		return fail(d->err, e->off,
			    "no consistent ordering of events possible: GCStart %" PRIu64
			    " out of sequence", e->args[0]);
	cur = get_gst(&d->gs, tr.g);
	if (tr.any_seq)
		return fail(d->err, e->off,
			    "no consistent ordering of events possible: %s of g %" PRIu64
			    " needs it %s, it is %s (seq %" PRIu64 ")",
			    tname(e->type), tr.g, g_state_names[tr.st],
			    g_state_names[cur.st], cur.seq);
	return fail(d->err, e->off,
		    "no consistent ordering of events possible: %s of g %" PRIu64
		    " needs it %s with seq %" PRIu64 ", it is %s with seq %" PRIu64,
		    tname(e->type), tr.g, g_state_names[tr.st], tr.seq,
		    g_state_names[cur.st], cur.seq);
}

/* GoSysExit takes its real time, after the block it ends. */
static int sysexit_time(struct dec *d, struct gt_event *e)
{
	struct gslot *gs;

	switch (e->type) {
	case GOTRACE_EV_GO_SYSBLOCK:
	case GOTRACE_EV_GO_INSYSCALL:
		gs = gtab_put(&d->gs, e->g);
		if (!gs)
			return nomem(d, e->off);
		gs->sysblock = e->ts;
		return 0;
	case GOTRACE_EV_GO_SYSEXIT:
		if (!e->args[2])
			return 0;
		gs = gtab_get(&d->gs, e->g);
		if (!gs || !gs->sysblock)
			return fail(d->err, e->off,
				    "stray syscall exit: g %" PRIu64
				    " has no earlier GoSysBlock or GoInSyscall",
				    e->g);
		if (e->args[2] < gs->sysblock)
			return fail(d->err, e->off,
				    "time stamps out of order: GoSysExit of g %" PRIu64
				    " at %" PRIu64 " is before its GoSysBlock at %" PRIu64,
				    e->g, e->args[2], gs->sysblock);
		e->ts = e->args[2];
		return 0;
	default:
		return 0;
	}
}

/* Replay @e and hand it on. */
static int deliver(struct dec *d, const struct gt_event *e)
{
	struct gt_trace *t = d->t;

	if (replay_event(&d->r, e, &d->gc, &d->stw))
		return -1;
	if (d->fn && d->fn(d->arg, e))
		return nomem(d, e->off);
	if (!t->nev++ || e->ts < t->start)
		t->start = e->ts;
	if (e->ts > t->end)
		t->end = e->ts;
	return 0;
}

static bool late_before(const struct late *a, const struct late *b)
{
	return a->e.ts < b->e.ts || (a->e.ts == b->e.ts && a->n < b->n);
}

/* A GoSysExit whose real time is after its place in the merge waits. */
static int late_push(struct dec *d, const struct gt_event *e)
{
	size_t i;

	if (d->nlate == d->late_cap) {
		size_t cap = d->late_cap ? d->late_cap * 2 : 16;
		struct late *n = realloc(d->late, cap * sizeof(*n));

		if (!n)
			return nomem(d, e->off);
		d->late = n;
		d->late_cap = cap;
	}
	i = d->nlate++;
	d->late[i] = (struct late){ *e, d->nmerged };
	while (i && late_before(&d->late[i], &d->late[(i - 1) / 2])) {
		struct late tmp = d->late[i];

		d->late[i] = d->late[(i - 1) / 2];
		d->late[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
	return 0;
}

/* Replay the waiting GoSysExit events whose time is at most @ts. */
static int late_flush(struct dec *d, uint64_t ts)
{
	while (d->nlate && d->late[0].e.ts <= ts) {
		struct gt_event e = d->late[0].e;
		size_t i = 0;

		d->late[0] = d->late[--d->nlate];
		for (;;) {
			size_t k = 2 * i + 1;
			struct late tmp;

			if (k >= d->nlate)
				break;
			if (k + 1 < d->nlate &&
			    late_before(&d->late[k + 1], &d->late[k]))
				k++;
			if (!late_before(&d->late[k], &d->late[i]))
				break;
			tmp = d->late[i];
			d->late[i] = d->late[k];
			d->late[k] = tmp;
			i = k;
		}
		if (deliver(d, &e))
			return -1;
	}
	return 0;
}

/*
 * The next event in the merged order: check its time, give GoSysExit its
 * real time, replay it where Go's sort by time would put it.
 */
static int emit(struct dec *d, struct gt_event *e)
{
	struct gt_trace *t = d->t;
	uint64_t merged_ts;

	e->type = plain_type(e->type);
	if (d->nmerged && e->ts < d->prev_ts)
		return fail(d->err, e->off,
			    "time stamps out of order: %s at %" PRIu64
			    " comes after %s (offset 0x%zx) at %" PRIu64
			    " in the only consistent order",
			    tname(e->type), e->ts, tname(d->prev_type),
			    d->prev_off, d->prev_ts);
	d->nmerged++;
	d->prev_ts = e->ts;
	d->prev_off = e->off;
	d->prev_type = e->type;
	/* Unblocks by a timer goroutine belong to no P (Go's TimerP). */
	if (e->type == GOTRACE_EV_GO_UNBLOCK &&
	    u64map_get(&t->ix.timer_gs, e->g))
		e->p = GT_TIMER_P;
	merged_ts = e->ts;
	if (sysexit_time(d, e))
		return -1;
	/*
	 * Earlier than its place: nothing of its goroutine is in between
	 * (go111_decode.h).  Later: events up to its time come first.
	 */
	if (e->ts > merged_ts)
		return late_push(d, e);
	return late_flush(d, e->ts) || deliver(d, e);
}

static int merge(struct dec *d)
{
	for (size_t p = 0; p < d->nps; p++)
		if (read_head(d, &d->ps[p]) ||
		    (d->ps[p].have && stage(d, p)))
			return -1;
	while (d->nheap) {
		size_t p = heap_pop(d);
		struct pq *q = &d->ps[p];
		struct gt_event e = q->head;
		struct trans tr;

		state_transition(&e, q->orig, &tr);
		if (!ready(&d->gs, &tr))
			return fail(d->err, e.off,
				    "event sequences are broken: %s of g %" PRIu64
				    " was ready when staged, not when taken",
				    tname(e.type), tr.g);
		if (apply(&d->gs, &tr))
			return nomem(d, e.off);
		if (tr.g != G_UNORDERED && wake(d, tr.g))
			return -1;
		if (emit(d, &e) || read_head(d, q) || (q->have && stage(d, p)))
			return -1;
	}
	for (size_t p = 0; p < d->nps; p++)
		if (d->ps[p].have)
			return no_order(d);
	return late_flush(d, UINT64_MAX);
}

/* A queue per P, its batches in file order (a counting sort). */
static int setup(struct dec *d)
{
	const struct gt_trace_index *ix = &d->t->ix;
	struct u64map pmap = { 0 };
	size_t *slot = NULL;
	int ret = -1;

	d->border = malloc((ix->nbatches + 1) * sizeof(*d->border));
	slot = malloc((ix->nbatches + 1) * sizeof(*slot));
	d->ps = calloc(ix->nbatches + 1, sizeof(*d->ps));
	if (!d->border || !slot || !d->ps)
		goto out;
	for (size_t b = 0; b < ix->nbatches; b++) {
		bool added;
		uint64_t *v = u64map_put(&pmap, ix->batches[b].p, d->nps,
					 &added);

		if (!v)
			goto out;
		if (added)
			d->ps[d->nps++].id = ix->batches[b].p;
		slot[b] = (size_t)*v;
		d->ps[*v].nb++;
	}
	for (size_t p = 0, s = 0; p < d->nps; p++) {
		d->ps[p].first = s;
		s += d->ps[p].nb;
	}
	for (size_t b = 0; b < ix->nbatches; b++) {
		struct pq *q = &d->ps[slot[b]];

		d->border[q->first + q->next++] = b;
	}
	d->heap = malloc((d->nps + 1) * sizeof(*d->heap));
	if (!d->heap)
		goto out;
	for (size_t p = 0; p < d->nps; p++) {
		d->ps[p].next = 0;
		if (gt_cur_init(&d->ps[p].cur, &d->t->src))
			goto out;
	}
	ret = 0;
out:
	free(slot);
	u64map_free(&pmap);
	return ret ? nomem(d, 0) : 0;
}

static int replay_end(struct replay *r)
{
	if (unended_start(r))
		return -1;
	for (size_t i = 0; i < r->npd; i++)
		if (r->pd[i].sysblock_off)
			return fail(r->err, r->pd[i].sysblock_off - 1,
				    "GoSysBlock of g %" PRIu64
				    " is not followed by ProcStop on its P: the trace ends first",
				    r->pd[i].sysblock_g);
	return 0;
}

int gt_trace_replay(struct gt_trace *t, gt_trace_event_fn fn, void *arg,
		    struct gt_trace_error *err)
{
	struct dec *d;
	struct gdesc *g0;
	int ret = -1;

	memset(err, 0, sizeof(*err));
	t->nev = t->start = t->end = 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return fail(err, 0, "out of memory");
	*d = (struct dec){ .t = t, .err = err, .fn = fn, .arg = arg };
	d->r = (struct replay){ .t = t, .err = err, .gs = &d->gs };
	g0 = gdesc_of(&d->r, 0);
	if (!g0) {
		fail(err, 0, "out of memory");
		goto out;
	}
	*g0 = (struct gdesc){ .state = G_RUNNING, .exists = true };
	if (setup(d) || merge(d) || replay_end(&d->r))
		goto out;
	ret = 0;
out:
	for (size_t p = 0; d->ps && p < d->nps; p++)
		gt_cur_free(&d->ps[p].cur);
	free(d->ps);
	free(d->border);
	free(d->heap);
	gtab_free(&d->gs);
	free(d->late);
	u64map_free(&d->r.pidx);
	free(d->r.pd);
	u64map_free(&d->r.tasks);
	u64map_free(&d->r.region_top);
	free(d->r.regions);
	free(d);
	return ret;
}

/* ---- API ---- */

void gt_trace_close(struct gt_trace *t)
{
	gt_trace_index_free(&t->ix);
	gt_src_close(&t->src);
	memset(t, 0, sizeof(*t));
	t->src.fd = -1;
}

int gt_trace_open(struct gt_trace *t, const struct gt_src *src,
		  struct gt_trace_error *err)
{
	memset(t, 0, sizeof(*t));
	t->src = *src;
	if (gt_trace_scan(&t->src, &t->info, &t->ix, err)) {
		gt_trace_close(t);
		return -1;
	}
	t->frequency = t->info.frequency;
	return 0;
}

int gt_trace_open_path(struct gt_trace *t, const char *path,
		       struct gt_trace_error *err)
{
	struct gt_src src;
	int ret = gt_src_open(&src, path);

	if (ret) {
		memset(t, 0, sizeof(*t));
		t->src.fd = -1;
		return -ret;
	}
	return gt_trace_open(t, &src, err);
}

int gt_trace_open_mem(struct gt_trace *t, const uint8_t *buf, size_t len,
		      struct gt_trace_error *err)
{
	struct gt_src src;

	gt_src_mem(&src, buf, len);
	return gt_trace_open(t, &src, err);
}

int gt_trace_verify(const uint8_t *buf, size_t len,
		    struct gt_trace_error *err)
{
	struct gt_trace t;
	int ret;

	if (gt_trace_open_mem(&t, buf, len, err))
		return -1;
	ret = gt_trace_replay(&t, NULL, NULL, err);
	gt_trace_close(&t);
	return ret;
}

const char *gt_trace_string(const struct gt_trace *t, uint64_t id, char *out,
			    size_t size)
{
	const uint64_t *v = u64map_get(&t->ix.strings, id);
	uint64_t pos;
	size_t n;

	if (!size)
		return out;
	out[0] = 0;
	if (!v)
		return out;
	pos = *v & ((1ULL << 40) - 1);
	n = (size_t)(*v >> 40);
	if (n >= size)
		n = size - 1;
	if (gt_src_read(&t->src, pos, out, n))
		n = 0;
	out[n] = 0;
	return out;
}

const struct gt_frame *gt_trace_stack(const struct gt_trace *t, uint64_t id,
				      size_t *n)
{
	const uint64_t *v = u64map_get(&t->ix.stacks, id);

	*n = 0;
	if (!v)
		return NULL;
	*n = (size_t)(*v >> 32);
	return &t->ix.frames[*v & 0xffffffffULL];
}
