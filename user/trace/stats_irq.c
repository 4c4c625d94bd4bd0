// SPDX-License-Identifier: GPL-2.0
/*
 * stats_irq.c - each CPU's time by kind (task, hard IRQ, softirq) and
 * the interrupts and work items, for 'gotrace stat'
 *
 * The readers hand over every run interval of every goroutine as its
 * task's run time grows, so a P's busy time by kind is the sum of the
 * run times of what it ran, and never counts a nanosecond twice: while
 * an interrupt runs, the task it interrupted waits (and a hard IRQ
 * nested in a softirq has the softirq wait).  Idle is the rest.
 *
 * An entry is a start of an interrupt goroutine that is no resume: when
 * a nested interrupt ends, the one it interrupted starts again on the
 * same P, which a per-P stack of the interrupted ones tells.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "stats_irq.h"

static const char *const kind_names[GT_IRQ_NKINDS] = {
	[GT_IRQ_TASK] = "task", [GT_IRQ_HARD] = "hardirq",
	[GT_IRQ_VECTOR] = "vector", [GT_IRQ_SOFT] = "softirq",
	[GT_IRQ_WORK] = "work",
};

const char *gt_irq_kind_name(int kind)
{
	return kind >= 0 && kind < GT_IRQ_NKINDS ? kind_names[kind] : "?";
}

/* Copy at most GT_IRQ_NAME - 1 bytes of @s; false if it is empty. */
static bool copy_rest(const char *s, size_t len, char *out)
{
	if (len >= GT_IRQ_NAME)
		len = GT_IRQ_NAME - 1;
	memcpy(out, s, len);
	out[len] = 0;
	return len != 0;
}

int gt_irq_classify(const char *name, int64_t *irq, char *out)
{
	static const char hard[] = "[irq ", vec[] = "[irq] ",
			  soft[] = "[softirq] ";
	char *end;
	long long n;

	*irq = -1;
	if (!strncmp(name, vec, sizeof(vec) - 1))
		return copy_rest(name + sizeof(vec) - 1,
				 strlen(name + sizeof(vec) - 1), out) ?
		       GT_IRQ_VECTOR : GT_IRQ_TASK;
	if (!strncmp(name, soft, sizeof(soft) - 1))
		return copy_rest(name + sizeof(soft) - 1,
				 strlen(name + sizeof(soft) - 1), out) ?
		       GT_IRQ_SOFT : GT_IRQ_TASK;
	if (strncmp(name, hard, sizeof(hard) - 1) ||
	    name[sizeof(hard) - 1] < '0' || name[sizeof(hard) - 1] > '9')
		return GT_IRQ_TASK;
	n = strtoll(name + sizeof(hard) - 1, &end, 10);
	if (end[0] != ']' || end[1] != ' ' ||
	    !copy_rest(end + 2, strlen(end + 2), out))
		return GT_IRQ_TASK;
	*irq = n;
	return GT_IRQ_HARD;
}

/* The source of @kind, @irq and @name: its index, or -1 out of memory. */
static long source(struct gt_stat_irqs *q, int kind, int64_t irq,
		   const char *name)
{
	uint64_t h = u64map_str_key(name, strlen(name)), *v;
	struct gt_stat_irq *r;
	bool added;

	h = (h ^ (uint64_t)kind) * 0x100000001b3ULL ^ (uint64_t)irq;
	v = u64map_get(&q->srcidx, h);
	if (v && q->srcs[*v].kind == kind && q->srcs[*v].irq == irq &&
	    !strcmp(q->srcs[*v].name, name))
		return (long)*v;
	/* A hash collision: the few sources are scanned. */
	for (size_t i = 0; v && i < q->nsrcs; i++)
		if (q->srcs[i].kind == kind && q->srcs[i].irq == irq &&
		    !strcmp(q->srcs[i].name, name))
			return (long)i;
	if ((!v && !u64map_put(&q->srcidx, h, q->nsrcs, &added)) ||
	    gt_grow((void **)&q->srcs, &q->srcs_cap, q->nsrcs + 1,
		    sizeof(*q->srcs)))
		return -1;
	r = &q->srcs[q->nsrcs];
	*r = (struct gt_stat_irq){ .kind = kind, .irq = irq,
				   .p = GT_IRQ_NO_P,
				   .src = (uint32_t)q->nsrcs };
	strcpy(r->name, name);
	return (long)q->nsrcs++;
}

/* The index of P @p in cpus, added if new; -1 out of memory. */
static long cpu_index(struct gt_stat_irqs *q, uint64_t p)
{
	size_t cap = q->nfast;
	uint64_t *v;
	bool added;

	if (p < q->nfast && q->fast[p])
		return (long)q->fast[p] - 1;
	v = u64map_put(&q->cpuidx, p, q->ncpus, &added);
	if (!v)
		return -1;
	if (added) {
		if (gt_grow((void **)&q->cpus, &q->cpus_cap, q->ncpus + 1,
			    sizeof(*q->cpus)))
			return -1;
		q->cpus[q->ncpus++] = (struct gt_stat_cpu){ .p = p };
	}
	if (p < GT_IRQ_FAST_P && p >= q->nfast) {
		if (gt_grow((void **)&q->fast, &cap, (size_t)p + 1,
			    sizeof(*q->fast)))
			return -1;
		memset(q->fast + q->nfast, 0,
		       (cap - q->nfast) * sizeof(*q->fast));
		q->nfast = cap;
	}
	if (p < q->nfast)
		q->fast[p] = (uint32_t)*v + 1;
	return (long)*v;
}

static struct gt_stat_cpu *cpu_of(struct gt_stat_irqs *q, uint64_t p)
{
	long i = cpu_index(q, p);

	return i < 0 ? NULL : &q->cpus[i];
}

int gt_irq_cpu(struct gt_stat_irqs *q, uint64_t p)
{
	return cpu_of(q, p) ? 0 : -1;
}

/* The index of P @p in cpus, or -1 if it has none. */
static long find_index(const struct gt_stat_irqs *q, uint64_t p)
{
	const uint64_t *v;

	if (p < q->nfast && q->fast[p])
		return (long)q->fast[p] - 1;
	v = u64map_get(&q->cpuidx, p);
	return v ? (long)*v : -1;
}

const struct gt_stat_cpu *gt_irq_cpu_row(const struct gt_stat_irqs *q,
					 uint64_t p)
{
	long i = find_index(q, p);

	return i < 0 ? NULL : &q->cpus[i];
}


/* The row of source @src on P @p, created if new; NULL out of memory. */
static struct gt_stat_irq *row_of(struct gt_stat_irqs *q, uint32_t src,
				  uint64_t p)
{
	uint64_t *v;
	bool added;

	v = u64map_put(&q->rowidx, (uint64_t)src << 32 | (p & 0xffffffffU),
		       q->nrows, &added);
	if (!v)
		return NULL;
	if (added) {
		if (gt_grow((void **)&q->rows, &q->rows_cap, q->nrows + 1,
			    sizeof(*q->rows)))
			return NULL;
		q->rows[q->nrows] = q->srcs[src];
		q->rows[q->nrows].p = p;
		q->rows[q->nrows].count = 0;
		q->rows[q->nrows].time = 0;
		q->rows[q->nrows].max = 0;
		q->nrows++;
	}
	return &q->rows[*v];
}

/* Classify @g by @name once it has one.  0, or -1 out of memory. */
static int classify(struct gt_stat_irqs *q, struct gt_irq_g *g,
		    const char *name)
{
	char rest[GT_IRQ_NAME];
	int64_t irq;
	long i;
	int kind;

	if (g->src || g->task || !name[0] || !strcmp(name, "?"))
		return 0;
	kind = gt_irq_classify(name, &irq, rest);
	if (kind == GT_IRQ_TASK) {
		g->task = true;
		return 0;
	}
	i = source(q, kind, irq, rest);
	if (i < 0)
		return -1;
	g->src = (uint32_t)i + 1;
	return 0;
}

/*
 * Interrupt @src starts on @c: a resume if it is the one the last nested
 * entry interrupted, else an entry, which interrupts the interrupt that
 * just stopped on this P, if any.
 */
static bool entry(struct gt_stat_cpu *c, uint32_t src)
{
	if (c->depth && c->stack[c->depth - 1] == src) {
		c->depth--;
		c->last = 0;
		return false;
	}
	if (c->last && c->last - 1 != src && c->depth < GT_IRQ_DEPTH)
		c->stack[c->depth++] = c->last - 1;
	c->last = 0;
	return true;
}

/*
 * @d ticks of the run of source @src (0: a task) on @c (P @p): to the
 * CPU's kind, and to the interrupt's row, its current entry and its sum.
 * 0, or -1 out of memory.
 */
static int charge(struct gt_stat_irqs *q, struct gt_stat_cpu *c,
		  uint32_t src, uint64_t d)
{
	struct gt_stat_irq *r, *s;

	c->busy[src ? q->srcs[src - 1].kind : GT_IRQ_TASK] += d;
	if (!src)
		return 0;
	r = row_of(q, src - 1, c->p);
	if (!r)
		return -1;
	s = &q->srcs[src - 1];
	r->time += d;
	r->cur += d;
	if (r->cur > r->max)
		r->max = r->cur;
	s->time += d;
	if (r->max > s->max)
		s->max = r->max;
	return 0;
}

/*
 * The run open on @c ends at @ts, as its P goes to another goroutine or
 * starts or stops: a goroutine in a syscall keeps its run open while its
 * CPU runs others (Go's reader counts it running until the syscall
 * ends, which stat's run time follows), but the CPU is theirs from then
 * on.  Its stop charges nothing more.  0, or -1 out of memory.
 */
static int cut(struct gt_stat_irqs *q, struct gt_stat_cpu *c, uint64_t ts)
{
	if (!c->open)
		return 0;
	c->open = false;
	return charge(q, c, c->open_src, ts > c->open_since ?
		      ts - c->open_since : 0);
}

/* A run of @g on P @p begins at @ts: the CPU's own open run. */
static int open_run(struct gt_stat_irqs *q, struct gt_irq_g *g, uint64_t p,
		    uint64_t ts, struct gt_stat_cpu **out)
{
	long i;

	g->p = p;
	g->cpu = 0;
	if (p == GT_IRQ_NO_P)
		return 0;
	i = cpu_index(q, p);
	if (i < 0 || cut(q, &q->cpus[i], ts))
		return -1;
	*out = &q->cpus[i];
	g->cpu = (uint32_t)i + 1;
	g->run = ++q->runs;
	(*out)->open = true;
	(*out)->open_run = g->run;
	(*out)->open_src = g->src;
	(*out)->open_since = ts;
	return 0;
}

/*
 * A P that starts, stops or is taken runs nothing: what stopped there
 * last was no interrupt's nesting, the nested ones whose exits were lost
 * are over (their next start is an entry), and a goroutine still in a
 * syscall there is off the CPU.
 */
int gt_irq_proc(struct gt_stat_irqs *q, uint64_t p, uint64_t ts)
{
	long i = find_index(q, p);

	if (i < 0)
		return 0;
	q->cpus[i].last = 0;
	q->cpus[i].depth = 0;
	return cut(q, &q->cpus[i], ts);
}

int gt_irq_start(struct gt_stat_irqs *q, struct gt_irq_g *g,
		 const char *name, uint64_t p, uint64_t ts)
{
	struct gt_stat_cpu *c = NULL;
	struct gt_stat_irq *r;

	if (!g->src && !g->task && classify(q, g, name))
		return -1;
	if (open_run(q, g, p, ts, &c))
		return -1;
	if (!c)
		return 0;
	if (!g->src) {
		/* The task runs: whatever was nested on this CPU is over. */
		c->last = 0;
		c->depth = 0;
		return 0;
	}
	r = row_of(q, g->src - 1, p);
	if (!r)
		return -1;
	if (entry(c, g->src - 1)) {
		r->count++;
		r->cur = 0;
		q->srcs[g->src - 1].count++;
	}
	return 0;
}

int gt_irq_running(struct gt_stat_irqs *q, struct gt_irq_g *g, uint64_t p,
		   uint64_t ts)
{
	struct gt_stat_cpu *c = NULL;

	return open_run(q, g, p, ts, &c);
}

int gt_irq_stop(struct gt_stat_irqs *q, struct gt_irq_g *g, uint64_t d)
{
	struct gt_stat_cpu *c;

	if (!g->cpu)
		return 0;
	c = &q->cpus[g->cpu - 1];
	g->cpu = 0;
	g->p = GT_IRQ_NO_P;
	/* Cut short: its CPU went to another goroutine meanwhile. */
	if (!c->open || c->open_run != g->run)
		return 0;
	c->open = false;
	if (g->src)
		c->last = g->src;
	return charge(q, c, g->src, d);
}

bool gt_irq_region(struct gt_stat_irqs *q, struct gt_irq_g *g,
		   const char *name, size_t len, bool begin, uint64_t ts,
		   bool *err)
{
	static const char tag[] = "[work] ";
	char func[GT_IRQ_NAME];
	struct gt_stat_irq *s;
	long i;

	if (len <= sizeof(tag) - 1 || memcmp(name, tag, sizeof(tag) - 1))
		return false;
	copy_rest(name + sizeof(tag) - 1, len - (sizeof(tag) - 1), func);
	i = source(q, GT_IRQ_WORK, -1, func);
	if (i < 0) {
		*err = true;
		return true;
	}
	if (begin) {
		g->work = (uint32_t)i + 1;
		g->work_since = ts;
		return true;
	}
	/* An end without its begin: the item began before the trace. */
	if (g->work != (uint32_t)i + 1 || ts < g->work_since)
		return true;
	s = &q->srcs[i];
	s->count++;
	s->time += ts - g->work_since;
	if (ts - g->work_since > s->max)
		s->max = ts - g->work_since;
	g->work = 0;
	return true;
}

static int row_order(const void *a, const void *b)
{
	const struct gt_stat_irq *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int src_order(const void *a, const void *b)
{
	const struct gt_stat_irq *x = a, *y = b;

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	if (x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cpu_order(const void *a, const void *b)
{
	const struct gt_stat_cpu *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p;
}

void gt_irq_sort(struct gt_stat_irqs *q)
{
	/* The indexes would point at the old places: dropped. */
	if (q->nrows)
		qsort(q->rows, q->nrows, sizeof(*q->rows), row_order);
	if (q->nsrcs)
		qsort(q->srcs, q->nsrcs, sizeof(*q->srcs), src_order);
	if (q->ncpus)
		qsort(q->cpus, q->ncpus, sizeof(*q->cpus), cpu_order);
	u64map_free(&q->srcidx);
	u64map_free(&q->rowidx);
	/* The CPUs' index stays right for gt_irq_cpu_row(). */
	for (size_t i = 0; i < q->ncpus; i++) {
		uint64_t *slot = u64map_get(&q->cpuidx, q->cpus[i].p);

		if (slot)
			*slot = i;
		if (q->cpus[i].p < q->nfast)
			q->fast[q->cpus[i].p] = (uint32_t)i + 1;
	}
}

void gt_irq_share(const struct gt_stat_cpu *c, uint64_t wall,
		  struct gt_irq_share *out)
{
	uint64_t busy;

	out->task = c->busy[GT_IRQ_TASK];
	out->hard = c->busy[GT_IRQ_HARD] + c->busy[GT_IRQ_VECTOR];
	out->soft = c->busy[GT_IRQ_SOFT];
	busy = out->task + out->hard + out->soft;
	out->idle = wall > busy ? wall - busy : 0;
	out->den = wall > busy ? wall : busy;
}

double gt_irq_pct(uint64_t x, uint64_t den)
{
	return den ? 100.0 * (double)x / (double)den : 0.0;
}

void gt_irq_free(struct gt_stat_irqs *q)
{
	free(q->srcs);
	free(q->rows);
	free(q->cpus);
	u64map_free(&q->srcidx);
	u64map_free(&q->rowidx);
	u64map_free(&q->cpuidx);
	free(q->fast);
	memset(q, 0, sizeof(*q));
}
