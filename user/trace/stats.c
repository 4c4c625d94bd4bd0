// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - per-task, per-name and per-syscall figures of a trace
 *
 * Called on every merged, checked event of go111_decode.c, following each
 * goroutine's state: runnable (created, unblocked, syscall exit,
 * sched/preempt) -> GoStart counts as scheduler latency; running ->
 * anything that stops it counts as run time; GoSysCall names the
 * syscall, GoSysBlock .. GoSysExit is its blocked time.
 *
 * Memory follows the live goroutines, not the file: a goroutine that
 * ends (GoEnd) is added to its name's figures at once and leaves the
 * table of live ones, whose slot the next new goroutine takes; its row
 * is kept only while it may be in one of the top lists (gt_stats.keep
 * rows by run time, latency or CPU samples), as the rows of the ended
 * ones are pruned to those tops whenever they pass a bound.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "base.h"

struct gaux {
	uint64_t since;		/* time the current state began */
	int64_t sys;		/* syscall of the current run, or -1 */
	int64_t sysblock;	/* syscall blocked in, or -1 */
	bool free;		/* the slot of a goroutine that ended */
	struct gt_irq_g irq;	/* its P, what it is (stats_irq.c) */
};

/*
 * Ended rows held before a pruning leaves the tops' (at most 3 x keep):
 * each pruning sorts them, and drops at least ENDED_SLACK.
 */
#define ENDED_SLACK	64

struct stat_ctx {
	const struct gt_trace *t;
	struct gt_stats *s;
	struct u64map gidx;	/* g -> task index */
	struct gaux *aux;
	size_t tcap;
	struct u64map sysidx;	/* func string id -> syscall index */
	size_t scap;
	struct u64map stkidx;	/* GoSysCall stack id -> syscall index + 1 */
	struct u64map pstate;	/* P -> 1 if started */
	size_t *free;		/* slots of s->tasks free for a new goroutine */
	size_t nfree, fcap;
	struct gt_stat_task *ended;	/* rows of ended goroutines kept */
	size_t nended, ecap;
	struct u64map nameidx;	/* hash of a name -> index in s->names */
	size_t ncap;
};

/* Function string id of the first frame of stack @stk, 0 if none. */
static uint64_t first_func(const struct gt_trace *t, uint64_t stk)
{
	const struct gt_frame *f;
	size_t n;

	f = gt_trace_stack(t, stk, &n);
	return n ? f[0].func : 0;
}

/*
 * Function string id naming the syscall of GoSysCall stack @stk: the
 * frame whose file is "[syscall]" (gotrace's syscall frame, below the
 * kernel frames of a sleep), else the first frame.
 */
static uint64_t syscall_func(const struct gt_trace *t, uint64_t stk)
{
	const struct gt_frame *f;
	char file[16];
	size_t n;

	f = gt_trace_stack(t, stk, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(gt_trace_string(t, f[i].file, file, sizeof(file)),
			    "[syscall]"))
			return f[i].func;
	return n ? f[0].func : 0;
}

static void copy_name(const struct gt_trace *t, uint64_t id, char *out)
{
	gt_trace_string(t, id, out, GT_STAT_NAME);
	if (!out[0])
		strcpy(out, "?");
}

static int64_t syscall_of(struct stat_ctx *c, uint64_t func)
{
	struct gt_stats *s = c->s;
	uint64_t *v;
	bool added;

	v = u64map_put(&c->sysidx, func, s->nsyscalls, &added);
	if (!v)
		return -1;
	if (added) {
		if (gt_grow((void **)&s->syscalls, &c->scap, s->nsyscalls + 1,
			 sizeof(*s->syscalls)))
			return -1;
		copy_name(c->t, func, s->syscalls[s->nsyscalls++].name);
	}
	return (int64_t)*v;
}

/* Syscall of a GoSysCall stack: its strings are read once per stack. */
static int64_t syscall_of_stack(struct stat_ctx *c, uint64_t stk)
{
	uint64_t *v = u64map_get(&c->stkidx, stk);
	int64_t i;
	bool added;

	if (v)
		return (int64_t)*v - 1;
	i = syscall_of(c, syscall_func(c->t, stk));
	if (i < 0 || !u64map_put(&c->stkidx, stk, (uint64_t)i + 1, &added))
		return -1;
	return i;
}

/* The task of goroutine @g, created on first sight. */
static struct gt_stat_task *task_of(struct stat_ctx *c, uint64_t g,
				    struct gaux **aux)
{
	struct gt_stats *s = c->s;
	uint64_t *v;
	bool added;

	v = u64map_put(&c->gidx, g, c->nfree ? c->free[c->nfree - 1] :
			s->ntasks, &added);
	if (!v)
		return NULL;
	if (added) {
		size_t cap = c->tcap;

		if (c->nfree) {
			c->nfree--;
		} else {
			if (gt_grow((void **)&s->tasks, &cap, s->ntasks + 1,
				 sizeof(*s->tasks)) ||
			    gt_grow((void **)&c->aux, &c->tcap, s->ntasks + 1,
				 sizeof(*c->aux)))
				return NULL;
			s->ntasks++;
		}
		s->tasks[*v] = (struct gt_stat_task){ .g = g };
		strcpy(s->tasks[*v].name, "?");
		c->aux[*v] = (struct gaux){ 0, -1, -1, false, GT_IRQ_G_INIT };
	}
	*aux = &c->aux[*v];
	return &s->tasks[*v];
}

/* 0, or -1 out of memory. */
static int stop_running(struct stat_ctx *c, struct gt_stat_task *k,
			struct gaux *a, uint64_t ts, int state)
{
	uint64_t d = k->state == GT_STAT_G_RUNNING ? ts - a->since : 0;

	k->run += d;
	k->state = state;
	a->since = ts;
	return gt_irq_stop(&c->s->irqs, &a->irq, d);
}

/*
 * EvUserRegion @e (task, mode, name): a kworker's "[work] FUNC" region
 * is a work item; the others are no concern of stat's here.
 */
static int region(struct stat_ctx *c, struct gaux *a,
		  const struct gt_event *e)
{
	char name[GT_STAT_UNIT];
	bool err = false;

	gt_trace_string(c->t, e->args[2], name, sizeof(name));
	gt_irq_region(&c->s->irqs, &a->irq, name, strlen(name),
		      e->args[1] == 0, e->ts, &err);
	return err ? -1 : 0;
}

static void make_runnable(struct gt_stat_task *k, struct gaux *a, uint64_t ts)
{
	if (k->state == GT_STAT_G_WAITING || k->state == GT_STAT_G_SYSCALL)
		k->blocked += ts - a->since;
	k->state = GT_STAT_G_RUNNABLE;
	a->since = ts;
}

/*
 * Task @tk added to the figures of its name in s->names, found by
 * @nameidx (FNV-1a of the name -> index), whose capacity is *@ncap.
 * 0, or -1 out of memory.
 */
static int name_add(struct gt_stats *s, struct u64map *nameidx, size_t *ncap,
		    const struct gt_stat_task *tk)
{
	uint64_t h = u64map_str_key(tk->name, strlen(tk->name)), *slot;
	struct gt_stat_name *n = NULL;
	bool added;

	slot = u64map_get(nameidx, h);
	if (slot && !strcmp(s->names[*slot].name, tk->name))
		n = &s->names[*slot];
	for (size_t j = 0; !n && slot && j < s->nnames; j++)
		if (!strcmp(s->names[j].name, tk->name))
			n = &s->names[j];
	if (!n) {
		if (!u64map_put(nameidx, h, s->nnames, &added) ||
		    gt_grow((void **)&s->names, ncap, s->nnames + 1,
			    sizeof(*s->names)))
			return -1;
		n = &s->names[s->nnames++];
		memset(n, 0, sizeof(*n));
		strcpy(n->name, tk->name);
	}
	n->tasks++;
	n->run += tk->run;
	n->latency += tk->latency;
	n->starts += tk->starts;
	return 0;
}

/*
 * Keep of the ended rows those in the first s->keep of a top list (by
 * run time, latency or CPU samples, the orders the lists print): one
 * dropped now has s->keep rows before it in each, which stay (or rows
 * before those), so it is in no top list of the whole trace either.
 */
static void prune(struct stat_ctx *c)
{
	static int (*const order[])(const void *, const void *) = {
		gt_stat_task_by_run, gt_stat_task_by_latency,
		gt_stat_task_by_samples,
	};
	/* The state of an ended row, borrowed as the mark of one kept. */
	enum { KEEP = -1 };
	struct gt_stats *s = c->s;
	size_t n = c->nended, kept = 0;

	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		qsort(c->ended, n, sizeof(*c->ended), order[o]);
		for (size_t i = 0; i < s->keep && i < n; i++)
			c->ended[i].state = KEEP;
	}
	for (size_t i = 0; i < n; i++) {
		if (c->ended[i].state != KEEP) {
			s->tasks_dropped++;
			continue;
		}
		c->ended[i].state = GT_STAT_G_DEAD;
		c->ended[kept++] = c->ended[i];
	}
	c->nended = kept;
}

/*
 * Goroutine @g ended: its figures go to its name, its row to the ended
 * ones, its slot to the next new goroutine.  0, or -1 out of memory.
 */
static int task_end(struct stat_ctx *c, uint64_t g)
{
	struct gt_stats *s = c->s;
	uint64_t *v = u64map_get(&c->gidx, g);
	struct gt_stat_task *tk;
	size_t i;

	if (!v || !g)
		return 0;
	i = (size_t)*v;
	tk = &s->tasks[i];
	if (name_add(s, &c->nameidx, &c->ncap, tk) ||
	    gt_grow((void **)&c->ended, &c->ecap, c->nended + 1,
		    sizeof(*c->ended)) ||
	    gt_grow((void **)&c->free, &c->fcap, c->nfree + 1,
		    sizeof(*c->free)))
		return -1;
	tk->folded = true;
	c->ended[c->nended++] = *tk;
	u64map_del(&c->gidx, g);
	c->free[c->nfree++] = i;
	c->aux[i].free = true;
	if (s->keep && c->nended >= 3 * s->keep + ENDED_SLACK)
		prune(c);
	return 0;
}

static int stat_event(struct stat_ctx *c, const struct gt_event *e)
{
	struct gt_stats *s = c->s;
	struct gt_stat_task *k;
	struct gaux *a;
	int64_t i;
	uint64_t *v;
	bool added;

	switch (e->type) {
	case GOTRACE_EV_PROC_START:
	case GOTRACE_EV_PROC_STOP:
		v = u64map_put(&c->pstate, e->p, 0, &added);
		if (!v || gt_irq_cpu(&s->irqs, e->p) ||
		    gt_irq_proc(&s->irqs, e->p, e->ts))
			return -1;
		*v = e->type == GOTRACE_EV_PROC_START;
		return 0;
	case GOTRACE_EV_GO_CREATE:
		k = task_of(c, e->args[0], &a);
		if (!k)
			return -1;
		copy_name(c->t, first_func(c->t, e->args[1]), k->name);
		k->state = GT_STAT_G_RUNNABLE;
		a->since = e->ts;
		return 0;
	case GOTRACE_EV_GO_UNBLOCK:
		k = task_of(c, e->args[0], &a);
		if (!k)
			return -1;
		k->unblocks++;
		make_runnable(k, a, e->ts);
		return 0;
	default:
		break;
	}

	k = task_of(c, e->g, &a);
	if (!k)
		return -1;
	switch (e->type) {
	case GOTRACE_EV_GO_START:
	case GOTRACE_EV_GO_START_LABEL:
		if (k->state == GT_STAT_G_RUNNABLE) {
			uint64_t lat = e->ts - a->since;

			k->latency += lat;
			if (lat > k->max_latency)
				k->max_latency = lat;
		}
		k->starts++;
		k->state = GT_STAT_G_RUNNING;
		a->since = e->ts;
		a->sys = -1;
		return gt_irq_start(&s->irqs, &a->irq, k->name, e->p, e->ts);
	case GOTRACE_EV_GO_END:
		if (stop_running(c, k, a, e->ts, GT_STAT_G_DEAD))
			return -1;
		return task_end(c, e->g);
	case GOTRACE_EV_GO_STOP:
		return stop_running(c, k, a, e->ts, GT_STAT_G_DEAD);
	case GOTRACE_EV_GO_SCHED:
	case GOTRACE_EV_GO_PREEMPT:
		return stop_running(c, k, a, e->ts, GT_STAT_G_RUNNABLE);
	case GOTRACE_EV_USER_REGION:
		return region(c, a, e);
	case GOTRACE_EV_GO_WAITING:
		k->state = GT_STAT_G_WAITING;
		a->since = e->ts;
		break;
	case GOTRACE_EV_GO_INSYSCALL:
		k->state = GT_STAT_G_SYSCALL;
		a->since = e->ts;
		a->sysblock = -1;
		break;
	case GOTRACE_EV_GO_SYSCALL:
		i = syscall_of_stack(c, e->stk);
		if (i < 0)
			return -1;
		s->syscalls[i].count++;
		k->syscalls++;
		a->sys = i;
		break;
	case GOTRACE_EV_GO_SYSBLOCK:
		a->sysblock = a->sys;
		a->sys = -1;
		return stop_running(c, k, a, e->ts, GT_STAT_G_SYSCALL);
	case GOTRACE_EV_GO_SYSEXIT:
		if (k->state == GT_STAT_G_SYSCALL && a->sysblock >= 0) {
			s->syscalls[a->sysblock].blocks++;
			s->syscalls[a->sysblock].blocked += e->ts - a->since;
		}
		a->sysblock = -1;
		make_runnable(k, a, e->ts);
		break;
	default:
		if (gt_trace_type_is_block(e->type)) {
			k->blocks++;
			return stop_running(c, k, a, e->ts, GT_STAT_G_WAITING);
		}
		break;
	}
	return 0;
}

static int stat_cb(void *arg, const struct gt_event *e)
{
	return stat_event(arg, e);
}

/* The tasks not folded yet (the goroutine 0 pseudo task aside). */
static int by_name(struct gt_stats *s, struct u64map *nameidx, size_t *ncap)
{
	for (size_t i = 0; i < s->ntasks; i++)
		if (s->tasks[i].g && !s->tasks[i].folded &&
		    name_add(s, nameidx, ncap, &s->tasks[i]))
			return -1;
	return 0;
}

/* Tasks grouped by name into s->names (the goroutine 0 pseudo task aside). */
int gt_stats_by_name(struct gt_stats *s)
{
	struct u64map nameidx = { 0 };
	size_t ncap = 0;
	int ret = by_name(s, &nameidx, &ncap);

	u64map_free(&nameidx);
	return ret;
}

/*
 * s->tasks made the live rows and the ended ones kept, in that order.
 * 0, or -1 out of memory.
 */
static int tasks_join(struct stat_ctx *c)
{
	struct gt_stats *s = c->s;
	size_t n = 0, cap = c->tcap;

	for (size_t i = 0; i < s->ntasks; i++)
		if (!c->aux[i].free) {
			c->aux[n] = c->aux[i];
			s->tasks[n++] = s->tasks[i];
		}
	if (c->nended && gt_grow((void **)&s->tasks, &cap, n + c->nended,
				 sizeof(*s->tasks)))
		return -1;
	if (c->nended)
		memcpy(&s->tasks[n], c->ended, c->nended * sizeof(*c->ended));
	s->ntasks = n + c->nended;
	return 0;
}

int gt_stats_compute(struct gt_trace *t, struct gt_stats *s, size_t keep,
		     struct gt_trace_error *err)
{
	struct stat_ctx c = { .t = t, .s = s };
	uint64_t k, v;
	size_t it = 0;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	s->keep = keep;
	s->frequency = t->frequency;
	s->trace_frequency = t->frequency;
	s->version = 11;
	s->nr_types = GT_TRACE_NR_TYPES;
	s->type_name = gt_trace_type_name;
	s->ps = t->info.ps;
	memcpy(s->by_type, t->info.by_type, sizeof(s->by_type));
	if (gt_trace_replay(t, stat_cb, &c, err))
		goto out;
	if (tasks_join(&c))
		goto oom;
	s->at_end[GT_STAT_G_DEAD] += s->tasks_dropped;
	s->events = t->nev;
	s->start = t->start;
	s->end = t->end;

	/* What is still going on at the end. */
	for (size_t i = 0; i < s->ntasks; i++) {
		struct gt_stat_task *tk = &s->tasks[i];

		if (tk->g == 0)
			continue;
		if (tk->state == GT_STAT_G_RUNNING) {
			tk->run += s->end - c.aux[i].since;
			if (gt_irq_stop(&s->irqs, &c.aux[i].irq,
					s->end - c.aux[i].since))
				goto oom;
		}
		s->at_end[tk->state]++;
	}
	gt_irq_sort(&s->irqs);
	while (u64map_next(&c.pstate, &it, &k, &v))
		s->ps_running_at_end += v;

	if (by_name(s, &c.nameidx, &c.ncap))
		goto out;
	ret = 0;
	goto out;
oom:
	err->off = 0;
	snprintf(err->msg, sizeof(err->msg), "out of memory");
out:
	u64map_free(&c.nameidx);
	free(c.free);
	free(c.ended);
	u64map_free(&c.gidx);
	u64map_free(&c.sysidx);
	u64map_free(&c.stkidx);
	u64map_free(&c.pstate);
	free(c.aux);
	if (ret)
		gt_stats_free(s);
	return ret;
}

uint32_t gt_stats_unit_id(struct gt_stats *s, const char *name, size_t len)
{
	long i;

	if (s->unit_names.n >= UINT32_MAX - 1)
		return 0;
	i = gt_names_index(&s->unit_names, name, len);
	return i < 0 ? 0 : (uint32_t)i + 1;
}

const char *gt_stat_task_unit(const struct gt_stats *s,
			      const struct gt_stat_task *tk)
{
	return tk->unit ? s->unit_names.v[tk->unit - 1] : "";
}

int gt_stats_by_unit(struct gt_stats *s)
{
	size_t n = 0;

	if (!s->unit_names.n)
		return 0;
	/* One row per name, then the names no task ended in left out. */
	s->units = calloc(s->unit_names.n, sizeof(*s->units));
	if (!s->units)
		return -1;
	for (size_t i = 0; i < s->ntasks; i++) {
		const struct gt_stat_task *tk = &s->tasks[i];
		struct gt_stat_unit *u;

		if (!tk->unit)
			continue;
		u = &s->units[tk->unit - 1];
		u->tasks++;
		u->run += tk->run;
		u->latency += tk->latency;
		if (tk->max_latency > u->max_latency)
			u->max_latency = tk->max_latency;
		u->starts += tk->starts;
		u->blocked += tk->blocked;
		u->blocks += tk->blocks;
	}
	for (size_t j = 0; j < s->unit_names.n; j++) {
		if (!s->units[j].tasks)
			continue;
		s->units[n] = s->units[j];
		strcpy(s->units[n++].name, s->unit_names.v[j]);
	}
	s->nunits = n;
	return 0;
}

void gt_stats_free(struct gt_stats *s)
{
	free(s->tasks);
	free(s->names);
	free(s->units);
	gt_names_free(&s->unit_names);
	free(s->syscalls);
	gt_irq_free(&s->irqs);
	memset(s, 0, sizeof(*s));
}

/* qsort() orders of the tables, largest first, ties by id or name. */
int gt_stat_task_by_run(const void *a, const void *b)
{
	const struct gt_stat_task *x = a, *y = b;

	if (x->run != y->run)
		return x->run > y->run ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

int gt_stat_task_by_latency(const void *a, const void *b)
{
	const struct gt_stat_task *x = a, *y = b;

	if (x->latency != y->latency)
		return x->latency > y->latency ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

int gt_stat_task_by_samples(const void *a, const void *b)
{
	const struct gt_stat_task *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

int gt_stat_name_by_run(const void *a, const void *b)
{
	const struct gt_stat_name *x = a, *y = b;

	if (x->run != y->run)
		return x->run > y->run ? -1 : 1;
	return strcmp(x->name, y->name);
}

int gt_stat_unit_by_run(const void *a, const void *b)
{
	const struct gt_stat_unit *x = a, *y = b;

	if (x->run != y->run)
		return x->run > y->run ? -1 : 1;
	return strcmp(x->name, y->name);
}

int gt_stat_sys_by_count(const void *a, const void *b)
{
	const struct gt_stat_syscall *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

int gt_stat_sys_by_blocked(const void *a, const void *b)
{
	const struct gt_stat_syscall *x = a, *y = b;

	if (x->blocked != y->blocked)
		return x->blocked > y->blocked ? -1 : 1;
	return strcmp(x->name, y->name);
}
