// SPDX-License-Identifier: GPL-2.0
/*
 * tracedec.c - decode a "go 1.11 trace", merge its per-P queues and replay
 * the goroutine and P state machines
 *
 * Three steps after the structural check of tracefile.c, following Go
 * 1.21's internal/trace (parser.go parseEvents, order.go order1007,
 * parser.go postProcessTrace; go-trace-format.md 4.2-4.6):
 *
 *  1. decode: every timed event gets its P (the batch's), its implicit
 *     goroutine (the P's current one, kept across batches of the P) and
 *     its absolute time;
 *  2. merge: repeatedly stage the head event of every P whose goroutine
 *     is in the state (and at the sequence number) the event needs, take
 *     the staged event with the smallest time (ties: earlier in the
 *     file), apply its transition; the result must be sorted by time;
 *     then GoSysExit events take their real timestamp and the stream is
 *     stably sorted again;
 *  3. replay: goroutine states dead/runnable/running/waiting, per-P
 *     running goroutine and started/stopped, as postProcessTrace does,
 *     plus the rules of the 1.23 views (tracedec.h).
 *
 * User regions are only checked for their mode (gotrace never writes
 * them).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracedec.h"

#define MAX_VALUES	2048

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

/* ---- step 1: decode ---- */

struct dec {
	struct gt_trace *t;
	struct gt_trace_error *err;
	size_t pos;
	uint64_t vals[MAX_VALUES];
	size_t nvals;

	struct gt_event *raw;		/* file order */
	uint8_t *orig_type;		/* before *Local are renamed */
	uint32_t *pidx;			/* index of the event's P */
	size_t nraw, cap;

	struct u64map pmap;		/* P -> index */
	uint64_t *lastg;		/* per P index: current goroutine */
	uint64_t *pid;			/* per P index: the P id */
	size_t nps, pcap;
	struct u64map timer_gs;
};

static uint64_t leb(struct dec *d)
{
	const struct gt_trace *t = d->t;
	uint64_t v = 0;

	for (int i = 0; i < 10 && d->pos < t->len; i++) {
		uint8_t b = t->buf[d->pos++];

		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int nomem(struct dec *d)
{
	return fail(d->err, d->pos, "out of memory");
}

static int dec_batch(struct dec *d, uint64_t *last_ts, uint32_t *cur)
{
	uint64_t *slot;
	bool added;

	slot = u64map_put(&d->pmap, d->vals[0], d->nps, &added);
	if (!slot)
		return nomem(d);
	if (added) {
		if (d->nps == d->pcap) {
			size_t nc = d->pcap ? d->pcap * 2 : 16;
			uint64_t *n = realloc(d->lastg, nc * sizeof(*n));

			if (!n)
				return nomem(d);
			d->lastg = n;
			n = realloc(d->pid, nc * sizeof(*n));
			if (!n)
				return nomem(d);
			d->pid = n;
			d->pcap = nc;
		}
		d->pid[d->nps] = d->vals[0];
		d->lastg[d->nps++] = 0;
	}
	*cur = (uint32_t)*slot;
	*last_ts = d->vals[1];
	return 0;
}

static int dec_stack(struct dec *d)
{
	struct gt_trace *t = d->t;
	uint64_t id = d->vals[0], n = d->vals[1];
	bool added;

	if (!id || !n)
		return 0;
	if (!u64map_put(&t->stacks, id, t->nframes | n << 32, &added))
		return nomem(d);
	{
		struct gt_frame *f = realloc(t->frames,
					     (t->nframes + n) * sizeof(*f));

		if (!f)
			return nomem(d);
		t->frames = f;
	}
	for (uint64_t i = 0; i < n; i++) {
		const uint64_t *v = &d->vals[2 + 4 * i];
		struct gt_frame *f = &t->frames[t->nframes++];

		f->pc = v[0];
		f->func = v[1];
		f->file = v[2];
		f->line = v[3];
	}
	return 0;
}

static int dec_event(struct dec *d, unsigned int type, size_t off,
		     uint64_t *last_ts, uint32_t cur)
{
	unsigned int nvals;
	bool has_ts, has_stk;
	struct gt_event *e;
	size_t nargs;

	gt_trace_type_layout(type, &nvals, &has_ts, &has_stk);
	if (d->nraw == d->cap) {
		size_t nc = d->cap ? d->cap * 2 : 1024;
		struct gt_event *r = realloc(d->raw, nc * sizeof(*r));
		uint8_t *o;
		uint32_t *p;

		if (!r)
			return nomem(d);
		d->raw = r;
		o = realloc(d->orig_type, nc);
		if (!o)
			return nomem(d);
		d->orig_type = o;
		p = realloc(d->pidx, nc * sizeof(*p));
		if (!p)
			return nomem(d);
		d->pidx = p;
		d->cap = nc;
	}
	e = &d->raw[d->nraw];
	memset(e, 0, sizeof(*e));
	e->type = (uint8_t)type;
	e->off = off;
	e->p = d->pid[cur];
	e->ts = *last_ts + d->vals[0];
	*last_ts = e->ts;
	nargs = d->nvals - 1 - (has_stk ? 1 : 0);
	for (size_t i = 0; i < nargs && i < 4; i++)
		e->args[i] = d->vals[1 + i];
	if (has_stk)
		e->stk = d->vals[d->nvals - 1];
	e->g = d->lastg[cur];

	switch (type) {
	case GT_EV_GO_START:
	case GT_EV_GO_START_LOCAL:
	case GT_EV_GO_START_LABEL:
		d->lastg[cur] = e->args[0];
		e->g = e->args[0];
		break;
	case GT_EV_STW_START:
		e->g = 0;
		if (e->args[0] > 1)
			return fail(d->err, off, "unknown STW kind %" PRIu64,
				    e->args[0]);
		break;
	case GT_EV_GC_START:
	case GT_EV_GC_DONE:
	case GT_EV_STW_DONE:
		e->g = 0;
		break;
	case GT_EV_GO_END: case GT_EV_GO_STOP: case GT_EV_GO_SCHED:
	case GT_EV_GO_PREEMPT: case GT_EV_GO_SLEEP: case GT_EV_GO_BLOCK:
	case GT_EV_GO_BLOCK_SEND: case GT_EV_GO_BLOCK_RECV:
	case GT_EV_GO_BLOCK_SELECT: case GT_EV_GO_BLOCK_SYNC:
	case GT_EV_GO_BLOCK_COND: case GT_EV_GO_BLOCK_NET:
	case GT_EV_GO_SYSBLOCK: case GT_EV_GO_BLOCK_GC:
		d->lastg[cur] = 0;
		break;
	case GT_EV_GO_SYSEXIT:
	case GT_EV_GO_WAITING:
	case GT_EV_GO_INSYSCALL:
		e->g = e->args[0];
		break;
	default:
		break;
	}
	d->orig_type[d->nraw] = (uint8_t)type;
	d->pidx[d->nraw] = cur;
	d->nraw++;
	return 0;
}

static int decode(struct dec *d)
{
	struct gt_trace *t = d->t;
	uint64_t last_ts = 0;
	uint32_t cur = 0;

	d->pos = 16;
	while (d->pos < t->len) {
		size_t off = d->pos;
		uint8_t first = t->buf[d->pos++];
		unsigned int type = first & 0x3f, cnt = first >> 6;

		if (type == GT_EV_STRING) {
			uint64_t id = leb(d), n = leb(d);
			bool added;

			if (!u64map_put(&t->strings, id, d->pos | n << 40,
					&added))
				return nomem(d);
			d->pos += (size_t)n;
			continue;
		}
		d->nvals = 0;
		if (cnt < 3) {
			for (unsigned int i = 0; i <= cnt; i++)
				d->vals[d->nvals++] = leb(d);
		} else {
			uint64_t n = leb(d);
			size_t start = d->pos;

			while (d->pos - start < n && d->nvals < MAX_VALUES)
				d->vals[d->nvals++] = leb(d);
		}
		if (type == GT_EV_USER_LOG)
			d->pos += (size_t)leb(d);

		switch (type) {
		case GT_EV_BATCH:
			if (dec_batch(d, &last_ts, &cur))
				return -1;
			break;
		case GT_EV_FREQUENCY:
			t->frequency = d->vals[0];
			break;
		case GT_EV_STACK:
			if (dec_stack(d))
				return -1;
			break;
		case GT_EV_TIMER_GOROUTINE: {
			bool added;

			if (!u64map_put(&d->timer_gs, d->vals[0], 1, &added))
				return nomem(d);
			break;
		}
		default:
			if (dec_event(d, type, off, &last_ts, cur))
				return -1;
		}
	}
	return 0;
}

/* ---- step 2: merge (order.go) ---- */

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
	case GT_EV_GO_CREATE:
		*tr = (struct trans){ e->args[0], false, 0, G_DEAD,
				      0, 1, G_RUNNABLE };
		break;
	case GT_EV_GO_WAITING:
	case GT_EV_GO_INSYSCALL:
		*tr = (struct trans){ e->g, false, 1, G_RUNNABLE,
				      0, 2, G_WAITING };
		break;
	case GT_EV_GO_START:
	case GT_EV_GO_START_LABEL:
		*tr = (struct trans){ e->g, false, e->args[1], G_RUNNABLE,
				      0, e->args[1] + 1, G_RUNNING };
		break;
	case GT_EV_GO_START_LOCAL:
		*tr = (struct trans){ e->g, true, 0, G_RUNNABLE,
				      2, 0, G_RUNNING };
		break;
	case GT_EV_GO_BLOCK: case GT_EV_GO_BLOCK_SEND:
	case GT_EV_GO_BLOCK_RECV: case GT_EV_GO_BLOCK_SELECT:
	case GT_EV_GO_BLOCK_SYNC: case GT_EV_GO_BLOCK_COND:
	case GT_EV_GO_BLOCK_NET: case GT_EV_GO_SLEEP:
	case GT_EV_GO_SYSBLOCK: case GT_EV_GO_BLOCK_GC:
		*tr = (struct trans){ e->g, true, 0, G_RUNNING,
				      1, 0, G_WAITING };
		break;
	case GT_EV_GO_SCHED:
	case GT_EV_GO_PREEMPT:
		*tr = (struct trans){ e->g, true, 0, G_RUNNING,
				      1, 0, G_RUNNABLE };
		break;
	case GT_EV_GO_UNBLOCK:
	case GT_EV_GO_SYSEXIT:
		*tr = (struct trans){ e->args[0], false, e->args[1], G_WAITING,
				      0, e->args[1] + 1, G_RUNNABLE };
		break;
	case GT_EV_GO_UNBLOCK_LOCAL:
	case GT_EV_GO_SYSEXIT_LOCAL:
		*tr = (struct trans){ e->args[0], true, 0, G_WAITING,
				      2, 0, G_RUNNABLE };
		break;
	case GT_EV_GC_START:
		*tr = (struct trans){ G_GARBAGE, false, e->args[0], G_DEAD,
				      0, e->args[0] + 1, G_DEAD };
		break;
	default:
		tr->g = G_UNORDERED;
	}
}

static struct gst get_gst(const struct u64map *gs, uint64_t g)
{
	const uint64_t *v = u64map_get(gs, g);

	if (!v)
		return (struct gst){ 0, G_DEAD };
	return (struct gst){ *v >> 2, (int)(*v & 3) };
}

static bool ready(const struct u64map *gs, const struct trans *tr)
{
	struct gst cur;

	if (tr->g == G_UNORDERED)
		return true;
	cur = get_gst(gs, tr->g);
	return (tr->any_seq || tr->seq == cur.seq) && tr->st == cur.st;
}

static int apply(struct u64map *gs, const struct trans *tr)
{
	struct gst cur = get_gst(gs, tr->g);
	uint64_t seq = tr->next_seq == 0 ? tr->nseq :
		       tr->next_seq == 1 ? cur.seq : cur.seq + 1;
	uint64_t *v;
	bool added;

	if (tr->g == G_UNORDERED)
		return 0;
	v = u64map_put(gs, tr->g, 0, &added);
	if (!v)
		return -1;
	*v = seq << 2 | (uint64_t)tr->nst;
	return 0;
}

/* No P can go on: describe the earliest blocked head event. */
static int no_order(struct dec *d, const struct u64map *gs,
		    const size_t *byp, const size_t *head, const size_t *end)
{
	size_t best = SIZE_MAX;
	const struct gt_event *e;
	struct trans tr;
	struct gst cur;

	for (size_t p = 0; p < d->nps; p++) {
		size_t i;

		if (head[p] >= end[p])
			continue;
		i = byp[head[p]];
		if (best == SIZE_MAX || d->raw[i].ts < d->raw[best].ts ||
		    (d->raw[i].ts == d->raw[best].ts &&
		     d->raw[i].off < d->raw[best].off))
			best = i;
	}
	e = &d->raw[best];
	state_transition(e, d->orig_type[best], &tr);
	if (tr.g == G_GARBAGE)
		return fail(d->err, e->off,
			    "no consistent ordering of events possible: GCStart %" PRIu64
			    " out of sequence", e->args[0]);
	cur = get_gst(gs, tr.g);
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

static uint8_t plain_type(uint8_t type)
{
	switch (type) {
	case GT_EV_GO_START_LOCAL:
		return GT_EV_GO_START;
	case GT_EV_GO_UNBLOCK_LOCAL:
		return GT_EV_GO_UNBLOCK;
	case GT_EV_GO_SYSEXIT_LOCAL:
		return GT_EV_GO_SYSEXIT;
	default:
		return type;
	}
}

struct sortkey {
	uint64_t ts;
	size_t i;
};

static int cmp_key(const void *a, const void *b)
{
	const struct sortkey *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int merge(struct dec *d)
{
	struct gt_trace *t = d->t;
	size_t n = d->nraw, np = d->nps, nf = 0;
	size_t *byp = NULL, *head = NULL, *end = NULL, *front = NULL;
	struct gt_event *out = NULL;
	struct sortkey *keys = NULL;
	struct u64map gs = { 0 }, sysblock = { 0 };
	bool *staged = NULL;
	int ret = -1;

	byp = malloc((n + 1) * sizeof(*byp));
	head = calloc(np + 1, sizeof(*head));
	end = calloc(np + 1, sizeof(*end));
	front = malloc((np + 1) * sizeof(*front));
	staged = calloc(np + 1, sizeof(*staged));
	out = malloc((n + 1) * sizeof(*out));
	if (!byp || !head || !end || !front || !staged || !out) {
		nomem(d);
		goto out;
	}
	/* Queues of the Ps: counting sort of the events by P, stable. */
	for (size_t i = 0; i < n; i++)
		end[d->pidx[i]]++;
	for (size_t p = 0, s = 0; p < np; p++) {
		head[p] = s;
		s += end[p];
		end[p] = head[p];
	}
	for (size_t i = 0; i < n; i++)
		byp[end[d->pidx[i]]++] = i;

	for (size_t k = 0; k < n; k++) {
		size_t best = 0, i;
		struct trans tr;

		for (size_t p = 0; p < np; p++) {
			if (staged[p] || head[p] >= end[p])
				continue;
			i = byp[head[p]];
			state_transition(&d->raw[i], d->orig_type[i], &tr);
			if (!ready(&gs, &tr))
				continue;
			staged[p] = true;
			front[nf++] = p;
		}
		if (!nf) {
			no_order(d, &gs, byp, head, end);
			goto out;
		}
		for (size_t f = 1; f < nf; f++) {
			const struct gt_event *a = &d->raw[byp[head[front[f]]]];
			const struct gt_event *b = &d->raw[byp[head[front[best]]]];

			if (a->ts < b->ts || (a->ts == b->ts && a->off < b->off))
				best = f;
		}
		{
			size_t p = front[best];

			i = byp[head[p]];
			front[best] = front[--nf];
			staged[p] = false;
			head[p]++;
		}
		state_transition(&d->raw[i], d->orig_type[i], &tr);
		if (!ready(&gs, &tr)) {
			fail(d->err, d->raw[i].off,
			     "event sequences are broken: %s of g %" PRIu64
			     " was ready when staged, not when taken",
			     tname(d->raw[i].type), tr.g);
			goto out;
		}
		if (apply(&gs, &tr)) {
			nomem(d);
			goto out;
		}
		out[k] = d->raw[i];
		out[k].type = plain_type(out[k].type);
		/* Unblocks by a timer goroutine belong to no P (Go's TimerP). */
		if (out[k].type == GT_EV_GO_UNBLOCK &&
		    u64map_get(&d->timer_gs, out[k].g))
			out[k].p = GT_TIMER_P;
	}

	for (size_t k = 1; k < n; k++)
		if (out[k].ts < out[k - 1].ts) {
			fail(d->err, out[k].off,
			     "time stamps out of order: %s at %" PRIu64
			     " comes after %s (offset 0x%zx) at %" PRIu64
			     " in the only consistent order",
			     tname(out[k].type), out[k].ts,
			     tname(out[k - 1].type), out[k - 1].off,
			     out[k - 1].ts);
			goto out;
		}

	/* GoSysExit real timestamps, then a stable sort by time. */
	for (size_t k = 0; k < n; k++) {
		struct gt_event *e = &out[k];
		uint64_t *v;
		bool added;

		switch (e->type) {
		case GT_EV_GO_SYSBLOCK:
		case GT_EV_GO_INSYSCALL:
			v = u64map_put(&sysblock, e->g, e->ts, &added);
			if (!v) {
				nomem(d);
				goto out;
			}
			*v = e->ts;
			break;
		case GT_EV_GO_SYSEXIT:
			if (!e->args[2])
				break;
			v = u64map_get(&sysblock, e->g);
			if (!v || !*v) {
				fail(d->err, e->off,
				     "stray syscall exit: g %" PRIu64
				     " has no earlier GoSysBlock or GoInSyscall",
				     e->g);
				goto out;
			}
			if (e->args[2] < *v) {
				fail(d->err, e->off,
				     "time stamps out of order: GoSysExit of g %" PRIu64
				     " at %" PRIu64 " is before its GoSysBlock at %" PRIu64,
				     e->g, e->args[2], *v);
				goto out;
			}
			e->ts = e->args[2];
			break;
		default:
			break;
		}
	}
	keys = malloc((n + 1) * sizeof(*keys));
	t->ev = malloc((n + 1) * sizeof(*t->ev));
	if (!keys || !t->ev) {
		nomem(d);
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		keys[k] = (struct sortkey){ out[k].ts, k };
	qsort(keys, n, sizeof(*keys), cmp_key);
	for (size_t k = 0; k < n; k++)
		t->ev[k] = out[keys[k].i];
	t->nev = n;
	ret = 0;
out:
	free(byp);
	free(head);
	free(end);
	free(front);
	free(staged);
	free(out);
	free(keys);
	u64map_free(&gs);
	u64map_free(&sysblock);
	return ret;
}

/* ---- step 3: replay (postProcessTrace) ---- */

struct gdesc {
	int state;
	uint8_t wait;		/* event that made it wait */
	bool started;		/* has a GoStart not yet ended */
	bool exists;
};

struct pdesc {
	bool running;
	uint64_t g;
	size_t start_off;	/* of the GoStart of g */
	size_t sysblock_off;	/* +1: a GoSysBlock waits for ProcStop */
	uint64_t sysblock_g;
};

struct replay {
	struct gt_trace *t;
	struct gt_trace_error *err;
	struct u64map gidx;	/* g -> index in gd */
	struct gdesc *gd;
	size_t ngd, gcap;
	struct u64map pidx;	/* P -> index in pd */
	struct pdesc *pd;
	size_t npd, pcap;
};

static struct gdesc *gdesc_of(struct replay *r, uint64_t g)
{
	uint64_t *v;
	bool added;

	v = u64map_put(&r->gidx, g, r->ngd, &added);
	if (!v)
		return NULL;
	if (added) {
		if (r->ngd == r->gcap) {
			size_t nc = r->gcap ? r->gcap * 2 : 64;
			struct gdesc *n = realloc(r->gd, nc * sizeof(*n));

			if (!n)
				return NULL;
			r->gd = n;
			r->gcap = nc;
		}
		memset(&r->gd[r->ngd++], 0, sizeof(*r->gd));
	}
	return &r->gd[*v];
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

static bool is_block(unsigned int type)
{
	switch (type) {
	case GT_EV_GO_SLEEP: case GT_EV_GO_BLOCK: case GT_EV_GO_BLOCK_SEND:
	case GT_EV_GO_BLOCK_RECV: case GT_EV_GO_BLOCK_SELECT:
	case GT_EV_GO_BLOCK_SYNC: case GT_EV_GO_BLOCK_COND:
	case GT_EV_GO_BLOCK_NET: case GT_EV_GO_BLOCK_GC:
		return true;
	default:
		return false;
	}
}

static bool in_syscall_wait(uint8_t wait)
{
	return wait == GT_EV_GO_SYSBLOCK || wait == GT_EV_GO_INSYSCALL;
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
	bool own_p = e->type != GT_EV_GO_SYSEXIT && e->p != GT_TIMER_P;

	gp = gdesc_of(r, e->g);
	pp = own_p ? pdesc_of(r, e->p) : &syscall_p;
	if (!gp || !pp)
		return fail(r->err, e->off, "out of memory");
	g = *gp;
	p = *pp;

	/* 5.4: GoSysBlock, then ProcStop on that P, back to back. */
	if (own_p && p.sysblock_off && e->type != GT_EV_PROC_STOP)
		return fail(r->err, p.sysblock_off - 1,
			    "GoSysBlock of g %" PRIu64 " on p %" PRId64
			    " is not followed by ProcStop on that P (next: %s at offset 0x%zx)",
			    p.sysblock_g, (int64_t)e->p, tname(e->type),
			    e->off);

	switch (e->type) {
	case GT_EV_PROC_START:
		if (p.running)
			return fail(r->err, e->off,
				    "p %" PRId64 " is running before start",
				    (int64_t)e->p);
		p.running = true;
		break;
	case GT_EV_PROC_STOP:
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
	case GT_EV_GC_START:
		if (*gc)
			return fail(r->err, e->off,
				    "previous GC is not ended before a new one");
		*gc = true;
		break;
	case GT_EV_GC_DONE:
		if (!*gc)
			return fail(r->err, e->off, "bogus GC end");
		*gc = false;
		break;
	case GT_EV_STW_START:
		if (*stw)
			return fail(r->err, e->off,
				    "previous STW is not ended before a new one");
		*stw = true;
		break;
	case GT_EV_STW_DONE:
		if (!*stw)
			return fail(r->err, e->off, "bogus STW end");
		*stw = false;
		break;
	case GT_EV_GO_WAITING:
	case GT_EV_GO_INSYSCALL:
		if (g.state != G_RUNNABLE)
			return fail(r->err, e->off,
				    "g %" PRIu64 " is not runnable before Ev%s (it is %s)",
				    e->g, tname(e->type), g_state_names[g.state]);
		g.state = G_WAITING;
		g.wait = e->type;
		break;
	case GT_EV_GO_CREATE: {
		const uint64_t *idx;

		if (check_running(r, e, &g, &p, true))
			return -1;
		idx = u64map_get(&r->gidx, e->args[0]);
		if (idx && r->gd[*idx].exists)
			return fail(r->err, e->off,
				    "g %" PRIu64 " already exists", e->args[0]);
		g1p = gdesc_of(r, e->args[0]);
		if (!g1p)
			return fail(r->err, e->off, "out of memory");
		gp = &r->gd[*u64map_get(&r->gidx, e->g)];	/* moved */
		*g1p = (struct gdesc){ .state = G_RUNNABLE, .exists = true };
		break;
	}
	case GT_EV_GO_START:
	case GT_EV_GO_START_LABEL:
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
	case GT_EV_GO_END:
	case GT_EV_GO_STOP:
		if (check_running(r, e, &g, &p, false))
			return -1;
		g.state = G_DEAD;
		g.started = false;
		p.g = 0;
		break;
	case GT_EV_GO_SCHED:
	case GT_EV_GO_PREEMPT:
		if (check_running(r, e, &g, &p, false))
			return -1;
		g.state = G_RUNNABLE;
		g.started = false;
		p.g = 0;
		break;
	case GT_EV_GO_UNBLOCK: {
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
		gp = &r->gd[*u64map_get(&r->gidx, e->g)];	/* moved */
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
	case GT_EV_GO_SYSCALL:
		if (check_running(r, e, &g, &p, false))
			return -1;
		break;
	case GT_EV_GO_SYSBLOCK:
		if (check_running(r, e, &g, &p, false))
			return -1;
		g.state = G_WAITING;
		g.wait = GT_EV_GO_SYSBLOCK;
		g.started = false;
		p.g = 0;
		p.sysblock_off = e->off + 1;
		p.sysblock_g = e->g;
		break;
	case GT_EV_GO_SYSEXIT:
		if (g.state != G_WAITING)
			return fail(r->err, e->off,
				    "g %" PRIu64 " is not waiting during syscall exit (it is %s)",
				    e->g, g_state_names[g.state]);
		if (g.wait && !in_syscall_wait(g.wait) &&
		    g.wait != GT_EV_GO_WAITING)
			return fail(r->err, e->off,
				    "g %" PRIu64 " exits a syscall but it blocked with %s, not GoSysBlock",
				    e->g, tname(g.wait));
		g.state = G_RUNNABLE;
		g.wait = 0;
		break;
	case GT_EV_USER_REGION:
		if (e->args[1] > 1)
			return fail(r->err, e->off, "invalid user region mode %" PRIu64,
				    e->args[1]);
		break;
	default:
		if (is_block(e->type)) {
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

static int replay(struct gt_trace *t, struct gt_trace_error *err)
{
	struct replay r = { .t = t, .err = err };
	bool gc = false, stw = false;
	struct gdesc *g0;
	int ret = -1;

	g0 = gdesc_of(&r, 0);
	if (!g0) {
		fail(err, 0, "out of memory");
		goto out;
	}
	*g0 = (struct gdesc){ .state = G_RUNNING, .exists = true };
	for (size_t i = 0; i < t->nev; i++)
		if (replay_event(&r, &t->ev[i], &gc, &stw))
			goto out;
	if (unended_start(&r))
		goto out;
	for (size_t i = 0; i < r.npd; i++)
		if (r.pd[i].sysblock_off) {
			fail(err, r.pd[i].sysblock_off - 1,
			     "GoSysBlock of g %" PRIu64
			     " is not followed by ProcStop on its P: the trace ends first",
			     r.pd[i].sysblock_g);
			goto out;
		}
	ret = 0;
out:
	u64map_free(&r.gidx);
	u64map_free(&r.pidx);
	free(r.gd);
	free(r.pd);
	return ret;
}

/* ---- API ---- */

void gt_trace_free(struct gt_trace *t)
{
	free(t->ev);
	free(t->frames);
	u64map_free(&t->strings);
	u64map_free(&t->stacks);
	memset(t, 0, sizeof(*t));
}

int gt_trace_load(const uint8_t *buf, size_t len, struct gt_trace *t,
		  struct gt_trace_error *err)
{
	struct dec *d;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	if (gt_trace_check(buf, len, &t->info, err))
		return -1;
	t->buf = buf;
	t->len = len;
	d = calloc(1, sizeof(*d));
	if (!d) {
		fail(err, 0, "out of memory");
		return -1;
	}
	d->t = t;
	d->err = err;
	if (decode(d) || merge(d) || replay(t, err))
		goto out;
	ret = 0;
out:
	free(d->raw);
	free(d->orig_type);
	free(d->pidx);
	free(d->lastg);
	free(d->pid);
	u64map_free(&d->pmap);
	u64map_free(&d->timer_gs);
	free(d);
	if (ret)
		gt_trace_free(t);
	return ret;
}

const char *gt_trace_string(const struct gt_trace *t, uint64_t id, char *out,
			    size_t size)
{
	const uint64_t *v = u64map_get(&t->strings, id);
	size_t pos, n;

	if (!size)
		return out;
	out[0] = 0;
	if (!v)
		return out;
	pos = (size_t)(*v & ((1ULL << 40) - 1));
	n = (size_t)(*v >> 40);
	if (n >= size)
		n = size - 1;
	memcpy(out, t->buf + pos, n);
	out[n] = 0;
	return out;
}

const struct gt_frame *gt_trace_stack(const struct gt_trace *t, uint64_t id,
				      size_t *n)
{
	const uint64_t *v = u64map_get(&t->stacks, id);

	*n = 0;
	if (!v)
		return NULL;
	*n = (size_t)(*v >> 32);
	return &t->frames[*v & 0xffffffffULL];
}
