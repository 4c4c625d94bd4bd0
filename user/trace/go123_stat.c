// SPDX-License-Identifier: GPL-2.0
/*
 * go123_stat.c - replay a generational trace's goroutine states for
 * 'gotrace stat'
 *
 * Goroutine and P states are carried from one generation to the next;
 * only their ids, the current goroutine and P of every M and the
 * syscall names are kept: the tables of a generation are gone once it
 * has been walked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go123_read.h"
#include "go123_stat.h"
#include "go123_walk.h"
#include "base.h"
#include "u64map.h"

struct gstate {
	uint64_t since;		/* when it entered its state */
	uint64_t sys_since;	/* when its syscall began */
	int64_t sys;		/* that syscall's index, or -1 */
	struct gt_irq_g irq;	/* its P, what it is (stats_irq.c) */
};

struct ctx {
	struct gt_stats *s;
	struct gstate *gs;	/* parallel to s->tasks */
	size_t tcap, gcap, scap;
	struct u64map gidx;	/* g -> task index */
	struct u64map mg;	/* M -> task index + 1 of its goroutine, or 0 */
	struct u64map mp;	/* M -> P + 1 it holds, or 0 */
	struct u64map ps;	/* P -> 1 if running (or in a syscall) */
	struct u64map sysidx;	/* FNV-1a of a syscall name -> index */
	/*
	 * g -> CPU samples that hit it: given to its task at the end, for
	 * a sample may come before the first event of its goroutine.
	 */
	struct u64map gsamples;
};

/* Is frame @f gotrace's syscall frame (file "[syscall]")? */
static bool syscall_frame(const struct gt_go123_gen *g,
			  const struct gt_go123_frame *f)
{
	static const char file[] = "[syscall]";
	const char *str;
	size_t len;

	return gt_go123_string(g, f->file, &str, &len) &&
	       len == sizeof(file) - 1 && !memcmp(str, file, len);
}

/*
 * Function name of a frame of stack @stk: the outermost if @outer (the
 * task's name), else its syscall frame (below the kernel frames of a
 * syscall that began asleep) or, without one, the innermost.
 */
static void frame_name(const struct gt_go123_gen *g, uint64_t stk, bool outer,
		       char *out)
{
	const struct gt_go123_frame *f;
	const uint64_t *pcs;
	const char *str;
	size_t n, len;

	out[0] = 0;
	if (!stk || !gt_go123_stack(g, stk, &pcs, &n) || !n)
		return;
	f = gt_go123_frame(g, pcs[outer ? n - 1 : 0]);
	for (size_t i = 0; !outer && i < n; i++) {
		const struct gt_go123_frame *s = gt_go123_frame(g, pcs[i]);

		if (s && syscall_frame(g, s)) {
			f = s;
			break;
		}
	}
	if (!f || !gt_go123_string(g, f->func, &str, &len))
		return;
	if (len >= GT_STAT_NAME)
		len = GT_STAT_NAME - 1;
	memcpy(out, str, len);
	out[len] = 0;
}

/* The task of goroutine @g, created in state @state if new; NULL: OOM. */
static struct gt_stat_task *task(struct ctx *c, uint64_t g, int state,
				 uint64_t ts, bool *added)
{
	struct gt_stats *s = c->s;
	uint64_t *v = u64map_put(&c->gidx, g, s->ntasks, added);

	if (!v)
		return NULL;
	if (*added) {
		if (gt_grow((void **)&s->tasks, &c->tcap, s->ntasks + 1,
			 sizeof(*s->tasks)))
			return NULL;
		if (gt_grow((void **)&c->gs, &c->gcap, s->ntasks + 1,
			 sizeof(*c->gs)))
			return NULL;
		s->tasks[s->ntasks] = (struct gt_stat_task){ .g = g,
							     .state = state };
		c->gs[s->ntasks] = (struct gstate){ .since = ts, .sys = -1,
						    .irq = GT_IRQ_G_INIT };
		s->ntasks++;
	}
	return &s->tasks[*v];
}

static void name_task(const struct gt_go123_gen *g, struct gt_stat_task *tk,
		      uint64_t stk)
{
	if (!tk->name[0])
		frame_name(g, stk, true, tk->name);
}

static int64_t syscall_index(struct ctx *c, const char *name)
{
	struct gt_stats *s = c->s;
	uint64_t h = u64map_str_key(name, strlen(name)), *v;
	bool added;

	v = u64map_get(&c->sysidx, h);
	if (v && !strcmp(s->syscalls[*v].name, name))
		return (int64_t)*v;
	for (size_t i = 0; v && i < s->nsyscalls; i++)
		if (!strcmp(s->syscalls[i].name, name))
			return (int64_t)i;
	if (!u64map_put(&c->sysidx, h, s->nsyscalls, &added) ||
	    gt_grow((void **)&s->syscalls, &c->scap, s->nsyscalls + 1,
		 sizeof(*s->syscalls)))
		return -1;
	strcpy(s->syscalls[s->nsyscalls].name, name);
	return (int64_t)s->nsyscalls++;
}

static int bind(struct u64map *m, uint64_t key, uint64_t val)
{
	bool added;
	uint64_t *v = u64map_put(m, key, val, &added);

	if (!v)
		return -1;
	*v = val;
	return 0;
}

/* The task index of the goroutine on M @m, or -1. */
static int64_t on_m(struct ctx *c, uint64_t m)
{
	uint64_t *v = u64map_get(&c->mg, m);

	return v && *v ? (int64_t)*v - 1 : -1;
}

/* The P M @m holds, or GT_IRQ_NO_P. */
static uint64_t p_of(struct ctx *c, uint64_t m)
{
	const uint64_t *v = u64map_get(&c->mp, m);

	return v && *v ? *v - 1 : GT_IRQ_NO_P;
}

/* The goroutine on @m stops running at @ts and enters @state. */
static int leave(struct ctx *c, uint64_t m, uint64_t ts, int state)
{
	int64_t i = on_m(c, m);
	struct gt_stat_task *tk;
	uint64_t d = 0;

	if (i < 0)
		return 0;
	tk = &c->s->tasks[i];
	if (tk->state == GT_STAT_G_RUNNING || tk->state == GT_STAT_G_SYSCALL)
		d = ts - c->gs[i].since;
	tk->run += d;
	if (gt_irq_stop(&c->s->irqs, &c->gs[i].irq, d))
		return -1;
	tk->state = state;
	c->gs[i].since = ts;
	c->gs[i].sys = -1;
	return bind(&c->mg, m, 0);
}

static int start(struct ctx *c, uint64_t m, uint64_t g, uint64_t ts)
{
	struct gt_stat_task *tk;
	struct gstate *gs;
	bool added;

	tk = task(c, g, GT_STAT_G_RUNNABLE, ts, &added);
	if (!tk)
		return -1;
	gs = &c->gs[tk - c->s->tasks];
	if (tk->state == GT_STAT_G_RUNNABLE && ts >= gs->since) {
		tk->latency += ts - gs->since;
		if (ts - gs->since > tk->max_latency)
			tk->max_latency = ts - gs->since;
	}
	tk->starts++;
	tk->state = GT_STAT_G_RUNNING;
	gs->since = ts;
	if (gt_irq_start(&c->s->irqs, &gs->irq, tk->name, p_of(c, m), ts))
		return -1;
	return bind(&c->mg, m, (uint64_t)(tk - c->s->tasks) + 1);
}

static const int of_status[] = { GT_STAT_G_DEAD, GT_STAT_G_RUNNABLE,
				 GT_STAT_G_RUNNING, GT_STAT_G_SYSCALL,
				 GT_STAT_G_WAITING };

static int status(struct ctx *c, const struct gt_go123_gen *g,
		  const struct gt_go123_event *ev)
{
	uint64_t st = ev->args[3];
	struct gt_stat_task *tk;
	bool added;
	int state = st < 5 ? of_status[st] : GT_STAT_G_WAITING;

	tk = task(c, ev->args[1], state, ev->ts, &added);
	if (!tk)
		return -1;
	if (ev->type == GT_GO123_EV_GO_STATUS_STACK)
		name_task(g, tk, ev->args[4]);
	if (!added)
		return 0;	/* a new generation repeats the state */
	/* Running when the trace began: its time counts on its P, no entry. */
	if (st == GT_GO123_G_RUNNING &&
	    gt_irq_running(&c->s->irqs, &c->gs[tk - c->s->tasks].irq,
			   p_of(c, ev->m), ev->ts))
		return -1;
	if (st == GT_GO123_G_RUNNING)
		return bind(&c->mg, ev->m, (uint64_t)(tk - c->s->tasks) + 1);
	if (st == GT_GO123_G_SYSCALL) {
		c->gs[tk - c->s->tasks].sys_since = ev->ts;
		return bind(&c->mg, ev->args[2], (uint64_t)(tk - c->s->tasks) + 1);
	}
	return 0;
}

static int proc(struct ctx *c, const struct gt_go123_event *ev)
{
	struct gt_stats *s = c->s;
	uint64_t *held;
	bool added;
	int ret = 0;

	switch (ev->type) {
	case GT_GO123_EV_PROC_STATUS:
		if (!u64map_get(&c->ps, ev->args[1]))
			s->ps++;
		if (gt_irq_cpu(&s->irqs, ev->args[1]))
			return -1;
		ret = bind(&c->ps, ev->args[1], ev->args[2] == 1 || ev->args[2] == 3);
		if (!ret && (ev->args[2] == 1 || ev->args[2] == 3))
			ret = bind(&c->mp, ev->m, ev->args[1] + 1);
		break;
	case GT_GO123_EV_PROC_START:
		if (!u64map_get(&c->ps, ev->args[1]))
			s->ps++;
		if (gt_irq_cpu(&s->irqs, ev->args[1]) ||
		    gt_irq_proc(&s->irqs, ev->args[1], ev->ts))
			return -1;
		ret = bind(&c->ps, ev->args[1], 1);
		if (!ret)
			ret = bind(&c->mp, ev->m, ev->args[1] + 1);
		break;
	case GT_GO123_EV_PROC_STOP:
		held = u64map_get(&c->mp, ev->m);
		if (held && *held)
			ret = gt_irq_proc(&s->irqs, *held - 1, ev->ts);
		if (!ret && held && *held)
			ret = bind(&c->ps, *held - 1, 0);
		if (!ret)
			ret = bind(&c->mp, ev->m, 0);
		break;
	case GT_GO123_EV_PROC_STEAL:
		/* The syscall's goroutine is off its CPU from here. */
		ret = bind(&c->ps, ev->args[1], 0);
		if (!ret)
			ret = gt_irq_proc(&s->irqs, ev->args[1], ev->ts);
		held = u64map_put(&c->mp, ev->args[3], 0, &added);
		if (!held)
			ret = -1;
		else if (*held == ev->args[1] + 1)
			*held = 0;
		break;
	}
	return ret;
}

static int syscall_begin(struct ctx *c, const struct gt_go123_gen *g,
			 const struct gt_go123_event *ev)
{
	int64_t i = on_m(c, ev->m), k;
	char name[GT_STAT_NAME];
	struct gt_stat_task *tk;

	if (i < 0)
		return 0;
	tk = &c->s->tasks[i];
	name_task(g, tk, ev->args[2]);
	frame_name(g, ev->args[2], false, name);
	k = syscall_index(c, name[0] ? name : "?");
	if (k < 0)
		return -1;
	tk->syscalls++;
	c->s->syscalls[k].count++;
	tk->state = GT_STAT_G_SYSCALL;
	c->gs[i].sys = k;
	c->gs[i].sys_since = ev->ts;
	return 0;
}

/* The syscall of the goroutine on M @m blocked, and it is runnable. */
static int syscall_blocked(struct ctx *c, uint64_t m, uint64_t ts)
{
	int64_t i = on_m(c, m);
	struct gt_stat_task *tk;
	struct gstate *gs;

	if (i < 0)
		return 0;
	tk = &c->s->tasks[i];
	gs = &c->gs[i];
	if (gs->sys_since >= gs->since &&
	    gt_irq_stop(&c->s->irqs, &gs->irq, gs->sys_since - gs->since))
		return -1;
	if (gs->sys_since >= gs->since)
		tk->run += gs->sys_since - gs->since;
	tk->blocked += ts - gs->sys_since;
	if (gs->sys >= 0) {
		c->s->syscalls[gs->sys].blocks++;
		c->s->syscalls[gs->sys].blocked += ts - gs->sys_since;
	}
	tk->state = GT_STAT_G_RUNNABLE;
	gs->since = ts;
	gs->sys = -1;
	return bind(&c->mg, m, 0);
}

/*
 * A user region begins or ends on the goroutine of M @ev->m: gotrace
 * names each task's region after its systemd unit.  A begin says the
 * task's unit from now on; an end with no begin seen (the trace starts
 * after it, a flight snapshot) says the unit it was in until then.
 * A kworker's "[work] FUNC" region is a work item, no unit.
 */
static int region(struct ctx *c, const struct gt_go123_gen *g,
		  const struct gt_go123_event *ev)
{
	int64_t i = on_m(c, ev->m);
	struct gt_stat_task *tk;
	const char *name;
	bool err = false;
	uint32_t id;
	size_t len;

	if (i < 0 || !gt_go123_string(g, ev->args[2], &name, &len) || !len)
		return 0;
	if (gt_irq_region(&c->s->irqs, &c->gs[i].irq, name, len,
			  ev->type == GT_GO123_EV_USER_REGION_BEGIN, ev->ts,
			  &err))
		return err ? -1 : 0;
	/* No unit's name: too long, or with a NUL the names cannot hold. */
	if (len >= GT_STAT_UNIT || memchr(name, 0, len))
		return 0;
	tk = &c->s->tasks[i];
	if (ev->type == GT_GO123_EV_USER_REGION_END && tk->unit)
		return 0;
	id = gt_stats_unit_id(c->s, name, len);
	if (!id)
		return -1;
	tk->unit = id;
	return 0;
}

static int stat_event(void *arg, const struct gt_go123_gen *g,
		      const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct ctx *c = arg;
	struct gt_stats *s = c->s;
	struct gt_stat_task *tk;
	int64_t i;
	bool added;
	int ret = 0;

	if (ev->type == GT_GO123_EV_CPU_SAMPLE) {
		/* Counted, and on the task it hit; not an event. */
		uint64_t *v = u64map_put(&c->gsamples, ev->args[2], 0, &added);

		s->samples++;
		if (v)
			++*v;
		else
			ret = -1;
		goto out;
	}
	s->events++;
	s->by_type[ev->type]++;
	if (!s->start || ev->ts < s->start)
		s->start = ev->ts;
	if (ev->ts > s->end)
		s->end = ev->ts;
	switch (ev->type) {
	case GT_GO123_EV_PROC_STATUS:
	case GT_GO123_EV_PROC_START:
	case GT_GO123_EV_PROC_STOP:
	case GT_GO123_EV_PROC_STEAL:
		ret = proc(c, ev);
		break;
	case GT_GO123_EV_GO_STATUS:
	case GT_GO123_EV_GO_STATUS_STACK:
		ret = status(c, g, ev);
		break;
	case GT_GO123_EV_GO_CREATE:
	case GT_GO123_EV_GO_CREATE_BLOCKED:
		tk = task(c, ev->args[1], ev->type == GT_GO123_EV_GO_CREATE ?
			  GT_STAT_G_RUNNABLE : GT_STAT_G_WAITING, ev->ts, &added);
		if (!tk)
			ret = -1;
		else
			name_task(g, tk, ev->args[2]);
		break;
	case GT_GO123_EV_GO_CREATE_SYSCALL:
		tk = task(c, ev->args[1], GT_STAT_G_SYSCALL, ev->ts, &added);
		if (!tk)
			ret = -1;
		else
			ret = bind(&c->mg, ev->m, (uint64_t)(tk - s->tasks) + 1);
		break;
	case GT_GO123_EV_GO_START:
		ret = start(c, ev->m, ev->args[1], ev->ts);
		break;
	case GT_GO123_EV_GO_STOP:
	case GT_GO123_EV_GO_BLOCK:
		i = on_m(c, ev->m);
		if (i >= 0)
			name_task(g, &s->tasks[i], ev->args[2]);
		if (i >= 0 && ev->type == GT_GO123_EV_GO_BLOCK)
			s->tasks[i].blocks++;
		ret = leave(c, ev->m, ev->ts, ev->type == GT_GO123_EV_GO_STOP ?
			    GT_STAT_G_RUNNABLE : GT_STAT_G_WAITING);
		break;
	case GT_GO123_EV_GO_DESTROY:
	case GT_GO123_EV_GO_DESTROY_SYSCALL:
		ret = leave(c, ev->m, ev->ts, GT_STAT_G_DEAD);
		break;
	case GT_GO123_EV_GO_UNBLOCK:
		tk = task(c, ev->args[1], GT_STAT_G_WAITING, ev->ts, &added);
		if (!tk) {
			ret = -1;
			break;
		}
		i = tk - s->tasks;
		tk->unblocks++;
		if (tk->state == GT_STAT_G_WAITING && ev->ts >= c->gs[i].since)
			tk->blocked += ev->ts - c->gs[i].since;
		tk->state = GT_STAT_G_RUNNABLE;
		c->gs[i].since = ev->ts;
		break;
	case GT_GO123_EV_GO_SYSCALL_BEGIN:
		ret = syscall_begin(c, g, ev);
		break;
	case GT_GO123_EV_GO_SYSCALL_END:
		i = on_m(c, ev->m);
		if (i >= 0) {
			s->tasks[i].state = GT_STAT_G_RUNNING;
			c->gs[i].sys = -1;
		}
		break;
	case GT_GO123_EV_GO_SYSCALL_END_BLOCKED:
		ret = syscall_blocked(c, ev->m, ev->ts);
		break;
	case GT_GO123_EV_USER_REGION_BEGIN:
	case GT_GO123_EV_USER_REGION_END:
		ret = region(c, g, ev);
		break;
	case GT_GO123_EV_GO_SWITCH:
	case GT_GO123_EV_GO_SWITCH_DESTROY:
		/* A coroutine switch: the current goroutine yields to g. */
		ret = leave(c, ev->m, ev->ts, ev->type == GT_GO123_EV_GO_SWITCH ?
			    GT_STAT_G_WAITING : GT_STAT_G_DEAD);
		if (!ret)
			ret = start(c, ev->m, ev->args[1], ev->ts);
		break;
	}
out:
	if (ret) {
		err->off = (size_t)ev->off;
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	}
	return ret;
}

int gt_go123_stats(const struct gt_src *src, struct gt_stats *s,
		   struct gt_trace_error *err)
{
	struct ctx c = { .s = s };
	struct gt_go123_reader r;
	struct gt_go123_gen g = { 0 };
	uint64_t k, v;
	size_t it = 0;
	int ret;

	memset(s, 0, sizeof(*s));
	gt_go123_open(&r, src);
	s->version = r.version;
	s->nr_types = GT_GO123_NR_TYPES;
	s->type_name = gt_go123_type_name;
	s->frequency = 1000000000;
	while ((ret = gt_go123_next(&r, &g, err)) > 0) {
		/* The walk turns every generation's ticks into ns. */
		if (!s->trace_frequency)
			s->trace_frequency = g.freq;
		if (!s->sample_hz)
			s->sample_hz = gt_go123_cpu_hz(&g);
		if (gt_go123_walk_samples(&g, stat_event, &c, err, NULL)) {
			ret = -1;
			break;
		}
	}
	gt_go123_gen_free(&g);
	if (!ret) {
		/* What is still going on at the end. */
		for (size_t i = 0; i < s->ntasks; i++) {
			struct gt_stat_task *tk = &s->tasks[i];

			if (tk->state == GT_STAT_G_RUNNING ||
			    tk->state == GT_STAT_G_SYSCALL) {
				tk->run += s->end - c.gs[i].since;
				if (gt_irq_stop(&s->irqs, &c.gs[i].irq,
						s->end - c.gs[i].since))
					ret = -1;
			}
			if (!tk->name[0])
				strcpy(tk->name, "?");
			s->at_end[tk->state]++;
		}
		while (u64map_next(&c.ps, &it, &k, &v))
			s->ps_running_at_end += v;
		it = 0;
		while (u64map_next(&c.gsamples, &it, &k, &v)) {
			const uint64_t *t = k ? u64map_get(&c.gidx, k) : NULL;

			if (t)
				s->tasks[*t].samples += v;
		}
		gt_irq_sort(&s->irqs);
		if (ret || gt_stats_by_name(s) || gt_stats_by_unit(s)) {
			err->off = 0;
			snprintf(err->msg, sizeof(err->msg), "out of memory");
			ret = -1;
		}
	}
	free(c.gs);
	u64map_free(&c.gidx);
	u64map_free(&c.mg);
	u64map_free(&c.mp);
	u64map_free(&c.ps);
	u64map_free(&c.sysidx);
	u64map_free(&c.gsamples);
	if (ret)
		gt_stats_free(s);
	return ret ? -1 : 0;
}
