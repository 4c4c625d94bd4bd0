// SPDX-License-Identifier: GPL-2.0
/*
 * stats_json.c - 'gotrace stat --json': the figures as one JSON object
 *
 * One key per line, two spaces of indent per level, so that a shell
 * script can also take a top-level number with sed.  Times are integer
 * nanoseconds (converted from the trace's ticks with its frequency);
 * names are written as the trace holds them, with JSON's escapes.
 * Documented in Documentation/gotrace.1 (the stat command).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "stats_json.h"

static const char *const state_keys[] = {
	[GT_STAT_G_DEAD] = "ended", [GT_STAT_G_RUNNABLE] = "runnable",
	[GT_STAT_G_RUNNING] = "running", [GT_STAT_G_WAITING] = "waiting",
	[GT_STAT_G_SYSCALL] = "syscall",
};

static void json_str(FILE *f, const char *s)
{
	gt_json_quote(f, s, SIZE_MAX);
}

/* A count of nanoseconds in decimal. */
struct ns_text {
	char s[40];
};

/*
 * Ticks to nanoseconds, exact (rounded down), in decimal.  A trace's
 * ticks and frequency are any u64 (a 48 Hz trace may span 10^12 ticks,
 * which Go and gotrace check accept): the nanoseconds then pass 2^64,
 * and go through a 128-bit integer, never a float cast out of range.
 * Returned by value: valid until the end of the call it is an argument
 * of.
 */
static struct ns_text ns(const struct gt_stats *s, uint64_t ticks)
{
	unsigned __int128 v = ticks;
	struct ns_text t;
	char *p = t.s + sizeof(t.s);

	if (s->frequency && s->frequency != 1000000000ULL)
		v = v * 1000000000U / s->frequency;
	*--p = 0;
	do {
		*--p = (char)('0' + (unsigned int)(v % 10));
		v /= 10;
	} while (v);
	memmove(t.s, p, (size_t)(t.s + sizeof(t.s) - p));
	return t;
}

static size_t rows(size_t n, size_t want)
{
	return want && want < n ? want : n;
}

static void tasks_json(FILE *f, const struct gt_stats *s,
		       const struct gt_stat_task *tk, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "    { \"g\": %" PRIu64 ", \"name\": ", tk[i].g);
		json_str(f, tk[i].name);
		fprintf(f, ", \"run_ns\": %s, \"starts\": %" PRIu64
			", \"latency_ns\": %s, \"max_latency_ns\": %s"
			", \"syscalls\": %" PRIu64 ", \"blocked_ns\": %s"
			", \"blocks\": %" PRIu64 ", \"unblocks\": %" PRIu64
			", \"cpu_samples\": %" PRIu64
			", \"state_at_end\": \"%s\", \"unit\": ",
			ns(s, tk[i].run).s, tk[i].starts, ns(s, tk[i].latency).s,
			ns(s, tk[i].max_latency).s, tk[i].syscalls,
			ns(s, tk[i].blocked).s, tk[i].blocks, tk[i].unblocks,
			tk[i].samples, state_keys[tk[i].state]);
		json_str(f, gt_stat_task_unit(s, &tk[i]));
		fprintf(f, " }%s\n", i + 1 < n ? "," : "");
	}
}

static void syscalls_json(FILE *f, const struct gt_stats *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct gt_stat_syscall *sc = &s->syscalls[i];

		fprintf(f, "    { \"name\": ");
		json_str(f, sc->name);
		fprintf(f, ", \"count\": %" PRIu64 ", \"blocks\": %" PRIu64
			", \"blocked_ns\": %s }%s\n", sc->count,
			sc->blocks, ns(s, sc->blocked).s, i + 1 < n ? "," : "");
	}
}

/* An interrupt row, with its "p" if @cpu (one line: sed reads it). */
static void irq_row(FILE *f, const struct gt_stats *s,
		    const struct gt_stat_irq *r, bool cpu, bool last)
{
	fprintf(f, "    { ");
	if (cpu)
		fprintf(f, "\"p\": %" PRIu64 ", ", r->p);
	fprintf(f, "\"kind\": \"%s\", \"irq\": %" PRId64 ", \"name\": ",
		gt_irq_kind_name(r->kind), r->irq);
	json_str(f, r->name);
	fprintf(f, ", \"count\": %" PRIu64 ", \"total_ns\": %s"
		", \"max_ns\": %s }%s\n", r->count, ns(s, r->time).s,
		ns(s, r->max).s, last ? "" : ",");
}

/* Per P: its time by kind and its shares of the trace's duration. */
static size_t softirq_rows(const struct gt_stat_irqs *q)
{
	size_t n = 0;

	for (size_t i = 0; i < q->nrows; i++)
		n += q->rows[i].kind == GT_IRQ_SOFT;
	return n;
}

static void cpus_json(FILE *f, const struct gt_stats *s)
{
	const struct gt_stat_irqs *q = &s->irqs;
	size_t nsoft = softirq_rows(q);
	struct gt_irq_share h;

	fprintf(f, "    \"cpus\": [\n");
	for (size_t i = 0; i < q->ncpus; i++) {
		gt_irq_share(&q->cpus[i], s->end - s->start, &h);
		fprintf(f, "      { \"p\": %" PRIu64 ", \"wall_ns\": %s"
			", \"task_ns\": %s, \"hardirq_ns\": %s"
			", \"softirq_ns\": %s, \"idle_ns\": %s",
			q->cpus[i].p, ns(s, s->end - s->start).s, ns(s, h.task).s,
			ns(s, h.hard).s, ns(s, h.soft).s, ns(s, h.idle).s);
		fprintf(f, ", \"task_pct\": %.3f, \"hardirq_pct\": %.3f"
			", \"softirq_pct\": %.3f, \"idle_pct\": %.3f }%s\n",
			gt_irq_pct(h.task, h.den), gt_irq_pct(h.hard, h.den),
			gt_irq_pct(h.soft, h.den), gt_irq_pct(h.idle, h.den),
			i + 1 < q->ncpus ? "," : "");
	}
	fprintf(f, "    ],\n    \"softirq_pct\": [\n");
	for (size_t i = 0, k = 0; i < q->nrows; i++) {
		const struct gt_stat_irq *r = &q->rows[i];
		const struct gt_stat_cpu *c = gt_irq_cpu_row(q, r->p);

		if (r->kind != GT_IRQ_SOFT || !c)
			continue;
		gt_irq_share(c, s->end - s->start, &h);
		fprintf(f, "      { \"p\": %" PRIu64 ", \"name\": ", r->p);
		json_str(f, r->name);
		fprintf(f, ", \"ns\": %s, \"pct\": %.3f }%s\n",
			ns(s, r->time).s, gt_irq_pct(r->time, h.den),
			++k < nsoft ? "," : "");
	}
	fprintf(f, "    ],\n");
}

/* The sources of the kinds in @kinds (a bit each), @want rows at most. */
static void top_json(FILE *f, const struct gt_stats *s, const char *key,
		     unsigned int kinds, size_t want, bool last)
{
	const struct gt_stat_irqs *q = &s->irqs;
	size_t n = 0, k = 0;

	for (size_t i = 0; i < q->nsrcs; i++)
		n += (kinds >> q->srcs[i].kind) & 1;
	n = rows(n, want);
	fprintf(f, "    \"%s\": [\n", key);
	for (size_t i = 0; i < q->nsrcs && k < n; i++)
		if ((kinds >> q->srcs[i].kind) & 1) {
			fprintf(f, "  ");
			irq_row(f, s, &q->srcs[i], false, ++k == n);
		}
	fprintf(f, "    ]%s\n", last ? "" : ",");
}

/* The "interrupts" object (gotrace(1), stat): only if there are any. */
static void irqs_json(FILE *f, const struct gt_stats *s, size_t want)
{
	const struct gt_stat_irqs *q = &s->irqs;

	fprintf(f, ",\n  \"interrupts\": {\n");
	cpus_json(f, s);
	fprintf(f, "    \"by_cpu\": [\n");
	for (size_t i = 0; i < q->nrows; i++) {
		fprintf(f, "  ");
		irq_row(f, s, &q->rows[i], true, i + 1 == q->nrows);
	}
	fprintf(f, "    ],\n");
	top_json(f, s, "top_hardirqs",
		 1U << GT_IRQ_HARD | 1U << GT_IRQ_VECTOR, want, false);
	top_json(f, s, "top_softirqs", 1U << GT_IRQ_SOFT, want, false);
	top_json(f, s, "top_work", 1U << GT_IRQ_WORK, want, true);
	fprintf(f, "  }");
}

void gt_stat_json(FILE *f, const char *path, uint64_t bytes,
		  struct gt_stats *s, size_t want)
{
	uint64_t tasks = 0, span = s->end - s->start;
	size_t n, k;

	/* Goroutine 0 (what runs outside any task) is no task. */
	for (size_t i = 0, j = 0; i < s->ntasks; i++)
		if (s->tasks[i].g) {
			s->tasks[j++] = s->tasks[i];
			tasks++;
		}
	s->ntasks = (size_t)tasks;

	fprintf(f, "{\n  \"file\": ");
	json_str(f, path);
	fprintf(f, ",\n  \"bytes\": %" PRIu64 ",\n", bytes);
	fprintf(f, "  \"frequency\": %" PRIu64 ",\n", s->trace_frequency);
	fprintf(f, "  \"duration_ns\": %s,\n", ns(s, span).s);
	/*
	 * Where it begins on the trace's clock: what Go's readers of a go
	 * 1.11 trace show as time 0 (they count from its first event),
	 * and the clock's time in the generational format (which they show
	 * as it is).
	 */
	fprintf(f, "  \"start_ns\": %s,\n", ns(s, s->start).s);
	fprintf(f, "  \"ps\": %" PRIu64 ",\n", s->ps);
	fprintf(f, "  \"ps_started_at_end\": %" PRIu64 ",\n",
		s->ps_running_at_end);
	/* With the ended tasks no top list holds (stats.c). */
	fprintf(f, "  \"tasks\": %" PRIu64 ",\n", tasks + s->tasks_dropped);
	fprintf(f, "  \"names\": %zu,\n", s->nnames);
	fprintf(f, "  \"events\": %" PRIu64 ",\n", s->events);
	fprintf(f, "  \"cpu_samples\": %" PRIu64 ",\n", s->samples);
	/* 0: the trace does not say (Go's own traces). */
	fprintf(f, "  \"cpu_sample_hz\": %" PRIu64 ",\n", s->sample_hz);
	fprintf(f, "  \"tasks_at_end\": {\n");
	for (int i = 0; i < 5; i++)
		fprintf(f, "    \"%s\": %" PRIu64 "%s\n", state_keys[i],
			s->at_end[i], i < 4 ? "," : "");
	fprintf(f, "  },\n  \"events_by_type\": {\n");
	k = 0;
	for (unsigned int i = 1; i < s->nr_types; i++)
		k += s->by_type[i] != 0;
	for (unsigned int i = 1; i < s->nr_types; i++)
		if (s->by_type[i])
			fprintf(f, "    \"%s\": %" PRIu64 "%s\n",
				s->type_name(i), s->by_type[i],
				--k ? "," : "");

	fprintf(f, "  },\n  \"names_by_run\": [\n");
	if (s->nnames)
		qsort(s->names, s->nnames, sizeof(*s->names),
		      gt_stat_name_by_run);
	n = rows(s->nnames, want);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "    { \"name\": ");
		json_str(f, s->names[i].name);
		fprintf(f, ", \"tasks\": %" PRIu64 ", \"run_ns\": %s"
			", \"latency_ns\": %s, \"starts\": %" PRIu64
			" }%s\n", s->names[i].tasks, ns(s, s->names[i].run).s,
			ns(s, s->names[i].latency).s, s->names[i].starts,
			i + 1 < n ? "," : "");
	}

	fprintf(f, "  ],\n  \"units_by_run\": [\n");
	if (s->nunits)
		qsort(s->units, s->nunits, sizeof(*s->units),
		      gt_stat_unit_by_run);
	n = rows(s->nunits, want);
	for (size_t i = 0; i < n; i++) {
		const struct gt_stat_unit *u = &s->units[i];

		fprintf(f, "    { \"unit\": ");
		json_str(f, u->name);
		fprintf(f, ", \"tasks\": %" PRIu64 ", \"run_ns\": %s"
			", \"latency_ns\": %s"
			", \"max_latency_ns\": %s"
			", \"starts\": %" PRIu64 ", \"blocked_ns\": %s"
			", \"blocks\": %" PRIu64 " }%s\n", u->tasks,
			ns(s, u->run).s, ns(s, u->latency).s, ns(s, u->max_latency).s,
			u->starts, ns(s, u->blocked).s, u->blocks,
			i + 1 < n ? "," : "");
	}

	fprintf(f, "  ],\n  \"tasks_by_run\": [\n");
	if (s->ntasks)
		qsort(s->tasks, s->ntasks, sizeof(*s->tasks),
		      gt_stat_task_by_run);
	tasks_json(f, s, s->tasks, rows(s->ntasks, want));
	fprintf(f, "  ],\n  \"tasks_by_latency\": [\n");
	if (s->ntasks)
		qsort(s->tasks, s->ntasks, sizeof(*s->tasks),
		      gt_stat_task_by_latency);
	tasks_json(f, s, s->tasks, rows(s->ntasks, want));

	fprintf(f, "  ],\n  \"syscalls_by_count\": [\n");
	if (s->nsyscalls)
		qsort(s->syscalls, s->nsyscalls, sizeof(*s->syscalls),
		      gt_stat_sys_by_count);
	syscalls_json(f, s, rows(s->nsyscalls, want));
	fprintf(f, "  ],\n  \"syscalls_by_blocked\": [\n");
	if (s->nsyscalls)
		qsort(s->syscalls, s->nsyscalls, sizeof(*s->syscalls),
		      gt_stat_sys_by_blocked);
	syscalls_json(f, s, rows(s->nsyscalls, want));
	fprintf(f, "  ]");
	if (gt_irq_any(&s->irqs))
		irqs_json(f, s, want);
	fprintf(f, "\n}\n");
}
