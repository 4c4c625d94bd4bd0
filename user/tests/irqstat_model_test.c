// SPDX-License-Identifier: GPL-2.0
/*
 * irqstat_model_test.c - 'gotrace stat''s interrupt figures on traces the
 * model writes (model/model.c, built for user space as model_test has it)
 *
 * Two CPUs, every interrupt kind recorded, the same input fed to a model
 * writing "go 1.11 trace" and to one writing "go 1.23 trace":
 *
 *   CPU 0: bash runs; NET_RX softirq 2000..2100 with IRQ 24
 *          (virtio0-input) nested 2050..2070; IRQ 24 again 2200..2210;
 *          bash sleeps at 3000; NET_RX on the idle CPU 3500..3540.
 *   CPU 1: a kworker runs the work item vmstat_update 2000..2100, the
 *          local timer interrupting it 2050..2055.
 *
 * Each trace must pass the checker, and stat must say: NET_RX twice on
 * CPU 0 for 120 ns (longest 80: 100 less the nested 20), IRQ 24 twice
 * for 30 (longest 20), the local timer once on CPU 1 for 5, the work
 * item once for 100; each CPU's task, hard IRQ, softirq and idle times
 * summing to the trace's duration, its task time the sum of its tasks'
 * run time, and bash's run time short of its time on the CPU by the
 * interrupts it took (150 ns).  With a directory as argument, the traces
 * are written there (irqstat-model.trace, irqstat-model.go123.trace).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "sink.h"
#include "trace/go111_decode.h"
#include "trace/go123_check.h"
#include "trace/go123_stat.h"
#include "trace/input.h"
#include "trace/stats.h"
#include "bpf/model/gtmodel.h"

#define NCPU	2
#define WORK_FN	0xffffffff81234560ULL

struct task {
	struct gt_in_task in;
	char comm[GT_IN_COMM_LEN];
};

static struct gt_model *models[2];	/* go 1.11, go 1.23 */
static struct sink {
	unsigned char *out;
	size_t len, cap;
} sinks[2];
static struct task idle[NCPU], bash, kworker;
static struct task *cur[NCPU];
static uint64_t key;

static int put(void *arg, const void *buf, size_t len)
{
	struct sink *s = arg;

	return test_sink_put(&s->out, &s->len, &s->cap, buf, len);
}

static void drain(void)
{
	for (int i = 0; i < 2; i++)
		gt_umodel_drain(models[i], put, &sinks[i]);
}

/* The kernel's symbol of the work function: the test's own table. */
static bool symbolise(void *arg, u64 pc, char *buf, size_t len)
{
	(void)arg;
	if (pc != WORK_FN)
		return false;
	snprintf(buf, len, "vmstat_update+0x0/0x40");
	return true;
}

static void task_init(struct task *t, int tid, const char *comm, u32 flags)
{
	memset(t, 0, sizeof(*t));
	t->in.key = key += 0x1000;
	t->in.start_time = key / 0x1000;
	t->in.tid = tid;
	t->in.tgid = tid;
	t->in.flags = flags;
	strncpy(t->comm, comm, sizeof(t->comm) - 1);
	t->in.comm = t->comm;
}

static struct gt_in_ev at(unsigned int cpu, uint64_t ts)
{
	return (struct gt_in_ev){ .ts = ts, .cpu = cpu, .cur = &cur[cpu]->in };
}

static void irq(unsigned int cpu, uint64_t ts, bool entry, u8 kind, u32 id,
		const char *name)
{
	struct gt_in_irq in = { .ev = at(cpu, ts), .kind = kind, .id = id,
				.name = name };

	for (int i = 0; i < 2; i++)
		(entry ? gt_model_irq_entry : gt_model_irq_exit)(models[i], &in);
	drain();
}

static void work(unsigned int cpu, uint64_t ts, bool start)
{
	struct gt_in_work in = { .ev = at(cpu, ts), .func = WORK_FN };

	for (int i = 0; i < 2; i++)
		(start ? gt_model_work_start : gt_model_work_end)(models[i], &in);
	drain();
}

static void sleep_to_idle(unsigned int cpu, uint64_t ts)
{
	struct gt_in_switch in = { .ev = at(cpu, ts), .prev = &cur[cpu]->in,
				   .next = &idle[cpu].in,
				   .prev_state = GT_IN_SLEEP };

	for (int i = 0; i < 2; i++)
		gt_model_switch(models[i], &in);
	cur[cpu] = &idle[cpu];
	drain();
}

static void start(void)
{
	struct gt_umodel_config cfg = { .nr_cpus = NCPU,
					.symbolise = symbolise };
	struct gt_in_ev e;

	cfg.opts.size = sizeof(cfg.opts);
	cfg.opts.flags = GOTRACE_OPT_HARDIRQS | GOTRACE_OPT_SOFTIRQS |
			 GOTRACE_OPT_WORKQUEUE;
	models[0] = gt_umodel_create(&cfg);
	cfg.format = GOTRACE_FORMAT_GO123;
	models[1] = gt_umodel_create(&cfg);
	if (!models[0] || !models[1])
		abort();
	for (unsigned int i = 0; i < NCPU; i++)
		task_init(&idle[i], 0, "swapper", GT_IN_IDLE | GT_IN_KTHREAD);
	task_init(&bash, 100, "bash", 0);
	task_init(&kworker, 200, "kworker/1:0", GT_IN_KTHREAD);
	cur[0] = &bash;
	cur[1] = &kworker;
	e = at(0, 1000);
	for (int i = 0; i < 2; i++) {
		struct gt_in_snap_task a = { .task = &bash.in },
				       b = { .task = &kworker.in };

		gt_model_snapshot_begin(models[i], &e);
		gt_model_snapshot_task(models[i], &a);
		gt_model_snapshot_task(models[i], &b);
		gt_model_snapshot_end(models[i]);
	}
	drain();
}

static void machine(void)
{
	start();
	irq(0, 2000, true, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL);
	work(1, 2000, true);
	irq(0, 2050, true, GT_IN_HARDIRQ, 24, "virtio0-input");
	irq(1, 2050, true, GT_IN_VECTOR, GT_IN_VEC_LOCAL_TIMER, NULL);
	irq(1, 2055, false, GT_IN_VECTOR, GT_IN_VEC_LOCAL_TIMER, NULL);
	irq(0, 2070, false, GT_IN_HARDIRQ, 24, "virtio0-input");
	irq(0, 2100, false, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL);
	work(1, 2100, false);
	irq(0, 2200, true, GT_IN_HARDIRQ, 24, "virtio0-input");
	irq(0, 2210, false, GT_IN_HARDIRQ, 24, "virtio0-input");
	sleep_to_idle(0, 3000);
	irq(0, 3500, true, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL);
	irq(0, 3540, false, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL);
	for (int i = 0; i < 2; i++) {
		gt_umodel_finish(models[i], 4000, put, &sinks[i]);
		gt_umodel_destroy(models[i]);
	}
}

static const struct gt_stat_irq *row(const struct gt_stats *s, uint64_t p,
				     const char *name)
{
	for (size_t i = 0; i < s->irqs.nrows; i++)
		if (s->irqs.rows[i].p == p && !strcmp(s->irqs.rows[i].name, name))
			return &s->irqs.rows[i];
	return NULL;
}

static const struct gt_stat_irq *src(const struct gt_stats *s,
				     const char *name)
{
	for (size_t i = 0; i < s->irqs.nsrcs; i++)
		if (!strcmp(s->irqs.srcs[i].name, name))
			return &s->irqs.srcs[i];
	return NULL;
}

/* @x is @want, or up to @slack ns short of it. */
static bool near(uint64_t x, uint64_t want, uint64_t slack)
{
	return x <= want && x + slack >= want;
}

/*
 * The model creates an interrupt's goroutine at the time of its first
 * entry and switches to it 1 ns later (a goroutine's events keep their
 * order by time): that entry is up to 1 ns short.
 */
static bool is(const struct gt_stat_irq *r, int kind, int64_t irq_nr,
	       uint64_t count, uint64_t time, uint64_t max)
{
	bool good = r && r->kind == kind && r->irq == irq_nr &&
		    r->count == count && near(r->time, time, 1) &&
		    near(r->max, max, 1);

	if (r && !good)
		diag("%s: kind %d irq %lld count %llu time %llu max %llu",
		     r->name, r->kind, (long long)r->irq,
		     (unsigned long long)r->count, (unsigned long long)r->time,
		     (unsigned long long)r->max);
	return good;
}

/* Each CPU: its kinds sum to the duration; its task time is its tasks'. */
static void cpus(const struct gt_stats *s, const char *fmt)
{
	uint64_t task_run = 0, cpu_task = 0;
	size_t bad = 0;

	for (size_t i = 0; i < s->ntasks; i++)
		if (gt_irq_classify(s->tasks[i].name, &(int64_t){ 0 },
				    (char[GT_IRQ_NAME]){ 0 }) == GT_IRQ_TASK)
			task_run += s->tasks[i].run;
	for (size_t i = 0; i < s->irqs.ncpus; i++) {
		struct gt_irq_share h;
		double sum;

		gt_irq_share(&s->irqs.cpus[i], s->end - s->start, &h);
		sum = gt_irq_pct(h.task, h.den) + gt_irq_pct(h.hard, h.den) +
		      gt_irq_pct(h.soft, h.den) + gt_irq_pct(h.idle, h.den);
		cpu_task += h.task;
		if (h.den != s->end - s->start ||
		    h.task + h.hard + h.soft + h.idle != h.den ||
		    sum < 100.0 - 1e-9 || sum > 100.0 + 1e-9)
			bad++;
	}
	ok(s->irqs.ncpus == NCPU && !bad,
	   "%s: each CPU's task, hard IRQ, softirq and idle time sum to the"
	   " duration, their shares to 100%%", fmt);
	ok(cpu_task == task_run,
	   "%s: the CPUs' task time is the tasks' run time (%llu ns)", fmt,
	   (unsigned long long)task_run);
}

static void figures(struct gt_stats *s, const char *fmt)
{
	const struct gt_stat_cpu *c0 = gt_irq_cpu_row(&s->irqs, 0);
	const struct gt_stat_task *b = NULL;

	for (size_t i = 0; i < s->ntasks; i++)
		if (!strcmp(s->tasks[i].name, "bash"))
			b = &s->tasks[i];
	ok(is(row(s, 0, "NET_RX"), GT_IRQ_SOFT, -1, 2, 120, 80),
	   "%s: CPU 0 NET_RX: 2 entries, 120 ns, longest 80", fmt);
	ok(is(row(s, 0, "virtio0-input"), GT_IRQ_HARD, 24, 2, 30, 20),
	   "%s: CPU 0 IRQ 24 virtio0-input: 2 entries, 30 ns, longest 20", fmt);
	ok(is(row(s, 1, "local timer"), GT_IRQ_VECTOR, -1, 1, 5, 5) &&
	   s->irqs.nrows == 3, "%s: CPU 1 local timer once, 5 ns; 3 rows", fmt);
	ok(is(src(s, "vmstat_update"), GT_IRQ_WORK, -1, 1, 100, 100),
	   "%s: work vmstat_update once, 100 ns", fmt);
	ok(c0 && near(c0->busy[GT_IRQ_HARD], 30, 1) &&
	   near(c0->busy[GT_IRQ_SOFT], 120, 1),
	   "%s: CPU 0: 30 ns of hard IRQ, 120 of softirq", fmt);
	/*
	 * The model starts a running task's goroutine at its CPU's first
	 * event (2000): bash held CPU 0 from there to its sleep at 3000,
	 * its run time and the interrupts it took (all but the idle CPU's
	 * NET_RX, 40 ns) making those 1000 ns.
	 */
	ok(b && c0 && b->run == c0->busy[GT_IRQ_TASK] &&
	   b->run + c0->busy[GT_IRQ_HARD] + c0->busy[GT_IRQ_SOFT] - 40 == 1000,
	   "%s: bash's run time (%llu ns) is CPU 0's task time, and its"
	   " 1000 ns on the CPU less its interrupts", fmt,
	   b ? (unsigned long long)b->run : 0ULL);
	cpus(s, fmt);
}

static void save(const char *dir, const char *name, const struct sink *k)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(k->out, 1, k->len, f) != k->len)
		diag("cannot write %s", path);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	struct gt_go123_info info = { 0 };
	struct gt_trace_error err;
	struct gt_trace tr;
	struct gt_stats s;
	struct gt_src in;

	machine();
	if (argc > 1) {
		save(argv[1], "irqstat-model.trace", &sinks[0]);
		save(argv[1], "irqstat-model.go123.trace", &sinks[1]);
	}
	if (!ok(gt_trace_open_mem(&tr, sinks[0].out, sinks[0].len, &err) == 0,
		"go 1.11: the model's trace passes the checker")) {
		diag("offset %zu: %s", err.off, err.msg);
	} else {
		if (!ok(gt_stats_compute(&tr, &s, 0, &err) == 0,
			"go 1.11: stats computed")) {
			diag("%s", err.msg);
		} else {
			figures(&s, "go 1.11");
			gt_stats_free(&s);
		}
		gt_trace_close(&tr);
	}

	gt_src_mem(&in, sinks[1].out, sinks[1].len);
	if (!ok(gt_go123_check(&in, &info, &err) == 0,
		"go 1.23: the model's trace passes the checker"))
		diag("offset %zu: %s", err.off, err.msg);
	gt_src_mem(&in, sinks[1].out, sinks[1].len);
	if (!ok(gt_go123_stats(&in, &s, &err) == 0, "go 1.23: stats computed"))
		diag("%s", err.msg);
	else {
		figures(&s, "go 1.23");
		gt_stats_free(&s);
	}
	for (int i = 0; i < 2; i++)
		free(sinks[i].out);
	return tap_done();
}
