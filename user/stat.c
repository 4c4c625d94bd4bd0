// SPDX-License-Identifier: GPL-2.0
/*
 * stat.c - gotrace stat: what a trace file contains
 *
 * Checks the file (trace/go111_check.c), computes the figures while replaying
 * it (trace/go111_decode.c, trace/stats.c) and prints, as text or as JSON
 * (trace/stats_json.c): duration, Ps, tasks and their names, events by type,
 * run time, latency and blocking per systemd unit, the top tasks by run
 * time and by scheduler latency, the top
 * syscalls by count and by blocked time, and what the end of the file
 * says about how the recording ended; in a trace with interrupts, each
 * CPU's time by kind, its interrupts, and the top IRQs, softirqs and
 * work functions (trace/stats_irq.c).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "subcommands.h"
#include "trace/stats_json.h"
#include "trace/go123.h"
#include "trace/stats.h"
#include "trace/go123_read.h"
#include "trace/go123_stat.h"
#include "util.h"

static void stat_usage(FILE *f)
{
	fprintf(f, "usage: gotrace stat [-j] [-n N] FILE\n\n"
		"Summarize the trace FILE (- = stdin): duration, CPUs (Ps), tasks\n"
		"(goroutines) and their names, events by type, the top tasks by\n"
		"run time and by scheduler latency (runnable -> running), the top\n"
		"syscalls by count and by blocked time; in a go1.23 trace, run time,\n"
		"latency and blocking per systemd unit; in a trace with interrupts,\n"
		"each CPU's shares of task, hard IRQ, softirq and idle time, its\n"
		"interrupts, and the top IRQs, softirqs and work functions.  FILE\n"
		"must pass 'gotrace check'.\n\n"
		"  -j, --json    one JSON object instead of text (see gotrace(1))\n"
		"  -n, --top N   rows of each top list (default 10, 0 = all)\n");
}

static double secs(const struct gt_stats *s, uint64_t ticks)
{
	return s->frequency ? (double)ticks / (double)s->frequency : 0;
}

/* "12.345 ms" with a unit that fits. */
static const char *fmt_time(const struct gt_stats *s, uint64_t ticks,
			    char *buf, size_t size)
{
	double t = secs(s, ticks);

	if (t >= 1)
		snprintf(buf, size, "%.3f s", t);
	else if (t >= 1e-3)
		snprintf(buf, size, "%.3f ms", t * 1e3);
	else
		snprintf(buf, size, "%.3f us", t * 1e6);
	return buf;
}

static size_t top(size_t n, size_t want)
{
	return want && want < n ? want : n;
}

static void print_tasks(const struct gt_stats *s, struct gt_stat_task *tk,
			size_t n, size_t want)
{
	char b1[32], b2[32], b3[32];
	uint64_t span = s->end - s->start;

	printf("\ntop tasks by run time:\n");
	printf("  %14s  %-20s %14s %7s %8s\n", "G", "NAME", "RUN", "%", "STARTS");
	if (n)
		qsort(tk, n, sizeof(*tk), gt_stat_task_by_run);
	for (size_t i = 0; i < top(n, want) && tk[i].run; i++)
		printf("  %14" PRIu64 "  %-20s %14s %6.2f%% %8" PRIu64 "\n",
		       tk[i].g, tk[i].name,
		       fmt_time(s, tk[i].run, b1, sizeof(b1)),
		       span ? 100.0 * (double)tk[i].run / (double)span : 0.0,
		       tk[i].starts);

	printf("\ntop tasks by scheduler latency (runnable -> running):\n");
	printf("  %14s  %-20s %14s %8s %14s %14s\n", "G", "NAME", "LATENCY",
	       "STARTS", "AVERAGE", "MAX");
	if (n)
		qsort(tk, n, sizeof(*tk), gt_stat_task_by_latency);
	for (size_t i = 0; i < top(n, want) && tk[i].latency; i++)
		printf("  %14" PRIu64 "  %-20s %14s %8" PRIu64 " %14s %14s\n",
		       tk[i].g, tk[i].name,
		       fmt_time(s, tk[i].latency, b1, sizeof(b1)), tk[i].starts,
		       fmt_time(s, tk[i].starts ? tk[i].latency / tk[i].starts : 0,
				b2, sizeof(b2)),
		       fmt_time(s, tk[i].max_latency, b3, sizeof(b3)));

	if (!s->samples)
		return;
	printf("\ntop tasks by CPU samples:\n");
	printf("  %14s  %-20s %8s %7s\n", "G", "NAME", "SAMPLES", "%");
	qsort(tk, n, sizeof(*tk), gt_stat_task_by_samples);
	for (size_t i = 0; i < top(n, want) && tk[i].samples; i++)
		printf("  %14" PRIu64 "  %-20s %8" PRIu64 " %6.2f%%\n",
		       tk[i].g, tk[i].name, tk[i].samples,
		       100.0 * (double)tk[i].samples / (double)s->samples);
}

static void print_syscalls(const struct gt_stats *s, size_t want)
{
	struct gt_stat_syscall *sc = s->syscalls;
	size_t n = s->nsyscalls;
	char b1[32], b2[32];

	printf("\ntop syscalls by count:\n");
	if (!n)
		printf("  (no GoSysCall events: recorded with --syscalls none?)\n");
	else
		printf("  %-24s %10s %10s %14s\n", "SYSCALL", "COUNT", "BLOCKED",
		       "BLOCKED TIME");
	if (n)
		qsort(sc, n, sizeof(*sc), gt_stat_sys_by_count);
	for (size_t i = 0; i < top(n, want); i++)
		printf("  %-24s %10" PRIu64 " %10" PRIu64 " %14s\n", sc[i].name,
		       sc[i].count, sc[i].blocks,
		       fmt_time(s, sc[i].blocked, b1, sizeof(b1)));

	printf("\ntop syscalls by blocked time:\n");
	printf("  %-24s %14s %10s %14s\n", "SYSCALL", "BLOCKED TIME", "BLOCKED",
	       "AVERAGE");
	if (n)
		qsort(sc, n, sizeof(*sc), gt_stat_sys_by_blocked);
	for (size_t i = 0; i < top(n, want) && sc[i].blocked; i++)
		printf("  %-24s %14s %10" PRIu64 " %14s\n", sc[i].name,
		       fmt_time(s, sc[i].blocked, b1, sizeof(b1)), sc[i].blocks,
		       fmt_time(s, sc[i].blocks ? sc[i].blocked / sc[i].blocks : 0,
				b2, sizeof(b2)));
}

/*
 * Tasks grouped by systemd unit (the user region gotrace names after
 * each task's unit, go1.23 traces only); a task counts in the unit it
 * was last in.
 */
static void print_units(struct gt_stats *s, size_t want)
{
	char b1[32], b2[32], b3[32], b4[32];
	const struct gt_stat_unit *u;
	size_t w = 32;

	if (s->version < 22)
		return;
	printf("\nunits by run time:\n");
	if (!s->nunits) {
		printf("  (no task in a systemd unit: none on this machine, or"
		       " recorded with --no-units)\n");
		return;
	}
	qsort(s->units, s->nunits, sizeof(*s->units), gt_stat_unit_by_run);
	/* As wide as the longest name shown (unit names go to 255). */
	for (size_t i = 0; i < top(s->nunits, want); i++)
		if (strlen(s->units[i].name) > w)
			w = strlen(s->units[i].name);
	printf("  %-*s %6s %14s %14s %14s %14s %8s\n", (int)w, "UNIT", "TASKS",
	       "RUN", "LATENCY", "MAX LATENCY", "BLOCKED", "BLOCKS");
	for (size_t i = 0; i < top(s->nunits, want); i++) {
		u = &s->units[i];
		printf("  %-*s %6" PRIu64 " %14s %14s %14s %14s %8" PRIu64 "\n",
		       (int)w, u->name, u->tasks,
		       fmt_time(s, u->run, b1, sizeof(b1)),
		       fmt_time(s, u->latency, b2, sizeof(b2)),
		       fmt_time(s, u->max_latency, b3, sizeof(b3)),
		       fmt_time(s, u->blocked, b4, sizeof(b4)), u->blocks);
	}
}

/*
 * Each CPU's time by kind (tasks, hard IRQs and vectors, softirqs,
 * idle) as shares of the trace's duration, and its softirqs by kind.
 */
static void print_cpu_shares(const struct gt_stats *s)
{
	const struct gt_stat_irqs *q = &s->irqs;
	struct gt_irq_share h;

	printf("\nCPU time by kind (share of the trace's duration):\n");
	printf("  %6s %9s %9s %9s %9s  %s\n", "CPU", "TASK", "HARDIRQ",
	       "SOFTIRQ", "IDLE", "SOFTIRQ BY KIND");
	for (size_t i = 0; i < q->ncpus; i++) {
		const char *sep = "  ";

		gt_irq_share(&q->cpus[i], s->end - s->start, &h);
		printf("  %6" PRIu64 " %8.2f%% %8.2f%% %8.2f%% %8.2f%%",
		       q->cpus[i].p, gt_irq_pct(h.task, h.den),
		       gt_irq_pct(h.hard, h.den), gt_irq_pct(h.soft, h.den),
		       gt_irq_pct(h.idle, h.den));
		for (size_t j = 0; j < q->nrows; j++) {
			const struct gt_stat_irq *r = &q->rows[j];

			if (r->p != q->cpus[i].p || r->kind != GT_IRQ_SOFT)
				continue;
			printf("%s%s %.2f%%", sep, r->name,
			       gt_irq_pct(r->time, h.den));
			sep = ", ";
		}
		printf("\n");
	}
}

/* One interrupt row: its CPU if @cpu, kind, number, name and figures. */
static void print_irq_row(const struct gt_stats *s,
			  const struct gt_stat_irq *r, bool cpu)
{
	char b1[32], b2[32], irq[24] = "-";

	if (r->irq >= 0)
		snprintf(irq, sizeof(irq), "%" PRId64, r->irq);
	if (cpu)
		printf("  %6" PRIu64, r->p);
	printf("  %-8s %5s  %-28s %10" PRIu64 " %14s %14s\n",
	       gt_irq_kind_name(r->kind), irq, r->name, r->count,
	       fmt_time(s, r->time, b1, sizeof(b1)),
	       fmt_time(s, r->max, b2, sizeof(b2)));
}

static void print_irq_top(const struct gt_stats *s, const char *title,
			  unsigned int kinds, size_t want)
{
	const struct gt_stat_irqs *q = &s->irqs;
	size_t k = 0;

	printf("\n%s:\n", title);
	printf("  %-8s %5s  %-28s %10s %14s %14s\n", "KIND", "IRQ", "NAME",
	       "COUNT", "TIME", "MAX");
	for (size_t i = 0; i < q->nsrcs && k < top(q->nsrcs, want); i++)
		if ((kinds >> q->srcs[i].kind) & 1) {
			print_irq_row(s, &q->srcs[i], false);
			k++;
		}
	if (!k)
		printf("  (none)\n");
}

/*
 * Interrupts and work items (gotrace writes each interrupt as a
 * goroutine named "[irq N] NAME", "[irq] NAME" or "[softirq] KIND", and
 * a work item as a region "[work] FUNC"): only in a trace that has them.
 */
static void print_irqs(const struct gt_stats *s, size_t want)
{
	const struct gt_stat_irqs *q = &s->irqs;

	if (!gt_irq_any(q))
		return;
	print_cpu_shares(s);
	printf("\ninterrupts by CPU:\n");
	printf("  %6s  %-8s %5s  %-28s %10s %14s %14s\n", "CPU", "KIND", "IRQ",
	       "NAME", "COUNT", "TIME", "MAX");
	for (size_t i = 0; i < q->nrows; i++)
		print_irq_row(s, &q->rows[i], true);
	if (!q->nrows)
		printf("  (none)\n");
	print_irq_top(s, "top hard IRQs by time",
		      1U << GT_IRQ_HARD | 1U << GT_IRQ_VECTOR, want);
	print_irq_top(s, "top softirqs by time", 1U << GT_IRQ_SOFT, want);
	print_irq_top(s, "top work functions by time", 1U << GT_IRQ_WORK,
		      want);
}

static void print_stats(const char *path, uint64_t bytes,
			struct gt_stats *s, size_t want)
{
	uint64_t span = s->end - s->start, tasks = s->tasks_dropped;
	char b[32];

	for (size_t i = 0; i < s->ntasks; i++)
		tasks += s->tasks[i].g != 0;
	printf("%s: go 1.%d trace, %s (%zu bytes)\n", path, s->version,
	       gt_fmt_bytes(bytes, b, sizeof(b)), (size_t)bytes);
	printf("  duration    %.6f s (frequency %" PRIu64 " Hz)\n",
	       secs(s, span), s->trace_frequency);
	printf("  CPUs (Ps)   %" PRIu64 "\n", s->ps);
	printf("  tasks       %" PRIu64 " (goroutines), %zu names\n", tasks,
	       s->nnames);
	printf("  events      %" PRIu64 " (%.0f/s)\n", s->events,
	       span ? (double)s->events / secs(s, span) : 0.0);
	if (s->version >= 22 && !s->samples)
		printf("  CPU samples 0\n");
	else if (s->version >= 22)
		printf("  CPU samples %" PRIu64 " (%.0f/s; %s%" PRIu64 " Hz%s)\n",
		       s->samples,
		       span ? (double)s->samples / secs(s, span) : 0.0,
		       s->sample_hz ? "" : "rate not in the trace: Go's ",
		       s->sample_hz ? s->sample_hz : GT_GO123_GO_CPU_HZ,
		       s->sample_hz ? ", as the trace says" : " assumed");
	printf("  at the end  %" PRIu64 " running, %" PRIu64 " runnable, %"
	       PRIu64 " waiting, %" PRIu64 " in a syscall, %" PRIu64
	       " ended; %" PRIu64 " of %" PRIu64 " Ps started\n",
	       s->at_end[GT_STAT_G_RUNNING], s->at_end[GT_STAT_G_RUNNABLE],
	       s->at_end[GT_STAT_G_WAITING], s->at_end[GT_STAT_G_SYSCALL],
	       s->at_end[GT_STAT_G_DEAD], s->ps_running_at_end, s->ps);
	printf("  lost        unknown from the file: a recording that ran out of\n"
	       "              buffers ends early but cleanly; 'gotrace record'\n"
	       "              and 'gotrace status' report lost events and overflows\n");

	printf("\nevents by type:\n");
	for (unsigned int i = 1; i < s->nr_types; i++)
		if (s->by_type[i])
			printf("  %-18s %10" PRIu64 "\n", s->type_name(i),
			       s->by_type[i]);

	printf("\ntask names by run time:\n");
	printf("  %-20s %8s %14s %14s %8s\n", "NAME", "TASKS", "RUN", "LATENCY",
	       "STARTS");
	if (s->nnames)
		qsort(s->names, s->nnames, sizeof(*s->names), gt_stat_name_by_run);
	for (size_t i = 0; i < top(s->nnames, want); i++) {
		char b2[32];

		printf("  %-20s %8" PRIu64 " %14s %14s %8" PRIu64 "\n",
		       s->names[i].name, s->names[i].tasks,
		       fmt_time(s, s->names[i].run, b, sizeof(b)),
		       fmt_time(s, s->names[i].latency, b2, sizeof(b2)),
		       s->names[i].starts);
	}
	print_units(s, want);
	print_tasks(s, s->tasks, s->ntasks, want);
	print_syscalls(s, want);
	print_irqs(s, want);
}

int cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help",	no_argument,		NULL, 'h' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "top",	required_argument,	NULL, 'n' },
		{ NULL, 0, NULL, 0 }
	};
	struct gt_trace_error err;
	struct gt_stats s;
	uint8_t hdr[16] = { 0 };
	struct gt_trace t;
	struct gt_src src;
	uint64_t bytes;
	size_t want = 10;
	bool json = false;
	const char *path;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+hjn:", opts, NULL)) != -1) {
		char *end;
		unsigned long v;

		switch (c) {
		case 'h':
			stat_usage(stdout);
			return GT_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'n':
			v = strtoul(optarg, &end, 10);
			if (!*optarg || *end || optarg[0] == '-') {
				gt_err("invalid number '%s' for -n", optarg);
				return GT_EXIT_USAGE;
			}
			want = v;
			break;
		default:
			gt_usage_hint("stat");
			return GT_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		gt_err("stat takes one FILE");
		gt_usage_hint("stat");
		return GT_EXIT_USAGE;
	}
	path = argv[optind];
	ret = gt_src_open(&src, path);
	if (ret) {
		gt_err_input(path, src.spool_dir, -ret);
		return GT_EXIT_FAIL;
	}
	bytes = src.len;
	gt_src_read(&src, 0, hdr, sizeof(hdr));
	if (gt_go123_header(hdr, sizeof(hdr))) {
		ret = gt_go123_stats(&src, &s, &err);
		gt_src_close(&src);
	} else {
		/* The trace owns the source from here on. */
		ret = gt_trace_open(&t, &src, &err);
		if (!ret && gt_stats_compute(&t, &s, want, &err))
			ret = -1;
		gt_trace_close(&t);
	}
	if (ret) {
		gt_err("%s: offset %zu (0x%zx): %s", path, err.off, err.off,
		       err.msg);
		return GT_EXIT_FAIL;
	}
	if (json)
		gt_stat_json(stdout, path, bytes, &s, want);
	else
		print_stats(path, bytes, &s, want);
	gt_stats_free(&s);
	return GT_EXIT_OK;
}
