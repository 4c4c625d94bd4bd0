// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_feed_test.c - the BPF backend's records into the model: a record
 * of a recorded task is written, or counted as lost; never dropped
 * silently.  A record of a task the filters left out is neither.
 * Interrupts and work items become the model's goroutines and regions.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/record.h"
#include "bpf/feed.h"
#include "bpf/model/gtmodel.h"
#include "tap.h"

#define KEY_KNOWN	0x1000
#define KEY_UNSAID	0x2000	/* recorded, its task record never came */
#define KEY_OTHER	0x3000	/* left out by the filters */
#define KEY_LEFT	0x4000	/* left out by the filters, and so... */
#define KEY_LEFT2	0x5000	/* ...: no record of a switch between them */

static uint64_t now = 1000;
/* The CPU's drop count the next switch record carries. */
static uint32_t cpu_drops;

static struct gtb_hdr hdr(uint16_t type, uint16_t size, uint64_t key,
			  uint8_t match)
{
	now += 10;
	return (struct gtb_hdr){ .ts = now, .key = key, .type = type,
				 .size = size, .cpu = 0, .match = match };
}

static void task_named(struct gt_bpf_feed *f, uint64_t key, int tid,
		       const char *comm)
{
	struct gtb_task r = { 0 };

	r.hdr = hdr(GTB_TASK, sizeof(r), key, GTB_MATCH_KEY);
	r.start_time = key;
	r.tid = tid;
	r.tgid = tid;
	strcpy(r.comm, comm);
	gt_bpf_feed_record(&r, sizeof(r), f);
}

static void task_record(struct gt_bpf_feed *f, uint64_t key, int tid)
{
	task_named(f, key, tid, "gt_feed");
}

static void switch_to(struct gt_bpf_feed *f, uint64_t prev, uint64_t next,
		      uint8_t match)
{
	struct gtb_switch r = { 0 };

	r.hdr = hdr(GTB_SWITCH, sizeof(r), prev, match);
	r.next = next;
	r.sys_nr = -1;
	r.drops = cpu_drops;
	gt_bpf_feed_record(&r, sizeof(r), f);
}

static void sys_enter(struct gt_bpf_feed *f, uint64_t key, uint8_t match)
{
	struct gtb_sys r = { 0 };

	r.hdr = hdr(GTB_SYS_ENTER, sizeof(r), key, match);
	r.nr = 110;	/* getppid */
	gt_bpf_feed_record(&r, sizeof(r), f);
}

static void wake_record(struct gt_bpf_feed *f, uint64_t key, uint64_t waker,
			uint8_t match)
{
	struct gtb_wake r = { 0 };

	r.hdr = hdr(GTB_WAKING, sizeof(r), key, match);
	r.waker = waker;
	gt_bpf_feed_record(&r, sizeof(r), f);
}

static void fork_record(struct gt_bpf_feed *f, uint64_t parent, uint64_t child,
			uint8_t match)
{
	struct gtb_fork r = { 0 };

	r.hdr = hdr(GTB_FORK, sizeof(r), parent, match);
	r.child = child;
	gt_bpf_feed_record(&r, sizeof(r), f);
}

static void exec_match(struct gt_bpf_feed *f, uint64_t key, uint8_t match)
{
	struct gtb_exec r = { 0 };

	r.hdr = hdr(GTB_EXEC, sizeof(r), key, match);
	r.tid = 7;
	strcpy(r.comm, "gt_exec");
	gt_bpf_feed_record(&r, sizeof(r), f);
}

static void exec_record(struct gt_bpf_feed *f, uint64_t key)
{
	exec_match(f, key, GTB_MATCH_KEY);
}

/* A CPU sample of @key, with two kernel frames if it is recorded. */
static void sample_record(struct gt_bpf_feed *f, uint64_t key, uint8_t match,
			  bool idle, uint32_t missed)
{
	/* Room for the record's flexible stack[] (ISO C: no struct around it). */
	union {
		struct gtb_sample r;
		uint8_t room[sizeof(struct gtb_sample) + 2 * sizeof(uint64_t)];
	} s = { 0 };
	uint16_t size = sizeof(s.r);

	if (match) {
		s.r.stack[0] = 0xffffffff81000010ULL;
		s.r.stack[1] = 0xffffffff81000020ULL;
		size = sizeof(s.room);
	}
	s.r.hdr = hdr(GTB_SAMPLE, size, key, match);
	s.r.hdr.nr_frames = match ? 2 : 0;
	s.r.idle = idle;
	s.r.missed = missed;
	gt_bpf_feed_record(&s, size, f);
}

static uint64_t events(struct gt_model *m)
{
	struct gt_umodel_stats st;

	gt_umodel_stats(m, &st);
	return st.events;
}

/* What the recorder counts lost of the feed and the model (bpf_record.c). */
static uint64_t lost(struct gt_model *m, struct gt_bpf_feed *f)
{
	struct gt_umodel_stats st;

	gt_umodel_stats(m, &st);
	return st.lost + gt_bpf_feed_unknown(f);
}

/*
 * A switch missing from the records is decided by the drop counts of the
 * CPU's switch records around it: none dropped meanwhile, the kernel never
 * reported it (not lost); one dropped, the drop, counted once.
 */
static void gaps_test(struct gt_umodel_config *cfg)
{
	struct gt_model *m = gt_umodel_create(cfg);
	struct gt_bpf_feed *f = m ? gt_bpf_feed_new(m, NULL) : NULL;
	char who[64];
	uint64_t drops[1], before;

	if (!ok(f != NULL, "a model and its feed for the gaps"))
		return;
	cpu_drops = 0;
	task_named(f, KEY_KNOWN, 68, "tokio-rt-worker");
	task_record(f, KEY_UNSAID, 6);
	ok(gt_bpf_feed_start(f, now, 0) == 0, "the trace starts");

	diag("a gap, the drop count unchanged: a switch the kernel never reported");
	switch_to(f, 1, KEY_KNOWN, GTB_MATCH_OTHER);
	/* KEY_KNOWN -> KEY_UNSAID: no switch program ran. */
	sys_enter(f, KEY_UNSAID, GTB_MATCH_KEY);
	sys_enter(f, KEY_UNSAID, GTB_MATCH_KEY);
	ok(gt_bpf_feed_unswitched(f) == 1, "the gap is found once (%llu)",
	   (unsigned long long)gt_bpf_feed_unswitched(f));
	switch_to(f, KEY_UNSAID, 1, GTB_MATCH_KEY);
	ok(gt_bpf_feed_unreported(f) == 1,
	   "decided at the next switch record: unreported (%llu)",
	   (unsigned long long)gt_bpf_feed_unreported(f));
	ok(gt_bpf_feed_gaps_dropped(f) == 0 && lost(m, f) == 0,
	   "not lost (%llu), not taken for a drop (%llu)",
	   (unsigned long long)lost(m, f),
	   (unsigned long long)gt_bpf_feed_gaps_dropped(f));
	ok(gt_bpf_feed_unreported_tasks(f, who, sizeof(who)) == 1 &&
	   !strcmp(who, "tokio-rt-worker 68"),
	   "the task never shown leaving is named: %s", who);

	diag("a gap, a record of the CPU dropped meanwhile: the drop, once");
	switch_to(f, 1, KEY_KNOWN, GTB_MATCH_OTHER);
	cpu_drops++;	/* KEY_KNOWN -> KEY_UNSAID found the ring full */
	switch_to(f, KEY_UNSAID, 1, GTB_MATCH_KEY);
	ok(gt_bpf_feed_unswitched(f) == 2, "the gap is found (%llu)",
	   (unsigned long long)gt_bpf_feed_unswitched(f));
	ok(gt_bpf_feed_gaps_dropped(f) == 1 && gt_bpf_feed_unreported(f) == 1,
	   "taken for the drop (%llu), not unreported (%llu)",
	   (unsigned long long)gt_bpf_feed_gaps_dropped(f),
	   (unsigned long long)gt_bpf_feed_unreported(f));
	ok(lost(m, f) == 0,
	   "not counted lost again: the drop count has it (%llu)",
	   (unsigned long long)lost(m, f));

	diag("a gap after the CPU's last switch record: the final count decides");
	switch_to(f, 1, KEY_KNOWN, GTB_MATCH_OTHER);
	sys_enter(f, KEY_UNSAID, GTB_MATCH_KEY);
	drops[0] = cpu_drops;
	gt_bpf_feed_settle(f, drops, 1);
	ok(gt_bpf_feed_unreported(f) == 2 && gt_bpf_feed_gaps_dropped(f) == 1,
	   "the count unchanged at the end: unreported (%llu)",
	   (unsigned long long)gt_bpf_feed_unreported(f));
	switch_to(f, KEY_UNSAID, KEY_KNOWN, GTB_MATCH_KEY | GTB_MATCH_OTHER);
	sys_enter(f, KEY_UNSAID, GTB_MATCH_KEY);
	drops[0] = cpu_drops + 1;
	gt_bpf_feed_settle(f, drops, 1);
	ok(gt_bpf_feed_unreported(f) == 2 && gt_bpf_feed_gaps_dropped(f) == 2,
	   "changed: taken for the drop (%llu)",
	   (unsigned long long)gt_bpf_feed_gaps_dropped(f));
	ok(gt_bpf_feed_unreported_tasks(f, who, sizeof(who)) == 1,
	   "one task in all: %s", who);

	diag("a task recorded from its exec on (a comm filter matched there)");
	switch_to(f, KEY_UNSAID, KEY_LEFT, GTB_MATCH_KEY);
	/* KEY_LEFT -> KEY_LEFT2, both left out: no record. */
	task_record(f, KEY_LEFT2, 9);
	before = events(m);
	exec_match(f, KEY_LEFT2, GTB_MATCH_KEY | GTB_MATCH_NEW);
	sys_enter(f, KEY_LEFT2, GTB_MATCH_KEY);
	ok(gt_bpf_feed_unswitched(f) == 4,
	   "its switch in, unrecorded, is no gap (%llu)",
	   (unsigned long long)gt_bpf_feed_unswitched(f));
	ok(events(m) > before, "it is shown running: its exec and syscall are written");
	gt_bpf_feed_free(f);
	gt_umodel_destroy(m);
}

/*
 * CPU samples: a filtered-out task's goes in as an idle task's, even as
 * its CPU's first event (which starts a goroutine of any task not idle:
 * the model here knows none of the filters), and the feed counts it; a
 * recorded task's is written, a missed switch to it written first.
 */
static void samples_test(struct gt_umodel_config *cfg)
{
	struct gt_umodel_stats st;
	struct gt_model *m;
	struct gt_bpf_feed *f;
	uint64_t before;

	cfg->format = GOTRACE_FORMAT_GO123;
	cfg->opts.cpu_hz = 999;
	m = gt_umodel_create(cfg);
	f = m ? gt_bpf_feed_new(m, NULL) : NULL;
	if (!ok(f != NULL, "a model with CPU samples and its feed"))
		return;
	task_record(f, KEY_KNOWN, 5);
	ok(gt_bpf_feed_start(f, now, 0) == 0, "the trace starts");
	before = events(m);
	sample_record(f, KEY_OTHER, 0, false, 0);
	sample_record(f, 0x9000, 0, true, 0);
	gt_umodel_stats(m, &st);
	ok(gt_bpf_feed_samples_hidden(f) == 1 && st.cpu_samples_idle == 2 &&
	   !st.cpu_samples && events(m) == before,
	   "a filtered-out task's sample, the CPU's first event, and an idle one: counted (%llu as filtered out), nothing written",
	   (unsigned long long)gt_bpf_feed_samples_hidden(f));
	switch_to(f, 1, KEY_KNOWN, GTB_MATCH_OTHER);
	sample_record(f, KEY_KNOWN, GTB_MATCH_KEY, false, 3);
	gt_umodel_stats(m, &st);
	ok(st.cpu_samples == 1 && st.cpu_samples_lost == 3,
	   "a recorded task's sample is written (%llu), the 3 not taken before it lost (%llu)",
	   (unsigned long long)st.cpu_samples,
	   (unsigned long long)st.cpu_samples_lost);
	switch_to(f, KEY_KNOWN, KEY_LEFT, GTB_MATCH_KEY);
	/* KEY_LEFT -> KEY_KNOWN never reached the reader. */
	sample_record(f, KEY_KNOWN, GTB_MATCH_KEY, false, 0);
	gt_umodel_stats(m, &st);
	ok(st.cpu_samples == 2 && gt_bpf_feed_unswitched(f) == 1,
	   "a sample of a task the switches did not put there: the gap is found (%llu), the sample written (%llu)",
	   (unsigned long long)gt_bpf_feed_unswitched(f),
	   (unsigned long long)st.cpu_samples);
	gt_bpf_feed_free(f);
	gt_umodel_destroy(m);
	cfg->format = GOTRACE_FORMAT_GO111;
	cfg->opts.cpu_hz = 0;
}

/* The trace written, whole, for irq_test(). */
static char trace_buf[1 << 20];
static size_t trace_len;

static int trace_write(void *arg, const void *buf, size_t len)
{
	(void)arg;
	if (trace_len + len > sizeof(trace_buf))
		return -1;
	memcpy(trace_buf + trace_len, buf, len);
	trace_len += len;
	return 0;
}

static bool trace_has(const char *s)
{
	return memmem(trace_buf, trace_len, s, strlen(s)) != NULL;
}

#define WORK_FUNC	0xffffffff81234560ULL

/* The kernel's symbols, as /proc/kallsyms would name them. */
static bool fake_symbolise(void *arg, u64 pc, char *buf, size_t len)
{
	(void)arg;
	if (pc < WORK_FUNC || pc >= WORK_FUNC + 0x100)
		return false;
	snprintf(buf, len, "wb_workfn+0x%llx", (unsigned long long)(pc - WORK_FUNC));
	return true;
}

static void irq_record(struct gt_bpf_feed *f, uint16_t type, uint64_t key,
		       uint8_t match, uint8_t kind, uint32_t id,
		       const char *name)
{
	struct gtb_irq_named r = { 0 };
	uint16_t size = name ? sizeof(r) : sizeof(r.irq);

	r.irq.hdr = hdr(type, size, key, match);
	r.irq.kind = kind;
	r.irq.id = id;
	if (name)
		strncpy(r.name, name, sizeof(r.name) - 1);
	gt_bpf_feed_record(&r, size, f);
}

static void work_record(struct gt_bpf_feed *f, uint16_t type, uint64_t key,
			uint64_t func)
{
	struct gtb_work r = { 0 };

	r.hdr = hdr(type, sizeof(r), key, GTB_MATCH_KEY);
	r.func = func;
	gt_bpf_feed_record(&r, sizeof(r), f);
}

/*
 * Interrupts and work items: given to the model as its goroutines and
 * regions (a hard IRQ's exit under its entry's name), an interrupt of a
 * task the switches did not put on the CPU a gap, one of an idle CPU no
 * loss.
 */
static void irq_test(struct gt_umodel_config *cfg)
{
	struct gt_model *m;
	struct gt_bpf_feed *f;
	uint64_t before;

	cfg->format = GOTRACE_FORMAT_GO123;
	cfg->opts.flags = GOTRACE_OPT_HARDIRQS | GOTRACE_OPT_SOFTIRQS |
			  GOTRACE_OPT_WORKQUEUE;
	cfg->symbolise = fake_symbolise;
	cfg->show_addrs = true;
	m = gt_umodel_create(cfg);
	f = m ? gt_bpf_feed_new(m, NULL) : NULL;
	if (!ok(f != NULL, "a model with interrupts and its feed"))
		return;
	task_record(f, KEY_KNOWN, 5);
	task_named(f, KEY_OTHER, 9, "kworker/0:1");
	ok(gt_bpf_feed_start(f, now, 0) == 0, "the trace starts");
	switch_to(f, 1, KEY_KNOWN, GTB_MATCH_OTHER);
	before = events(m);
	irq_record(f, GTB_IRQ_ENTRY, KEY_KNOWN, GTB_MATCH_KEY, GTB_IRQ_SOFT,
		   3, NULL);
	irq_record(f, GTB_IRQ_ENTRY, KEY_KNOWN, GTB_MATCH_KEY, GTB_IRQ_HARD,
		   24, "virtio0-input");
	irq_record(f, GTB_IRQ_EXIT, KEY_KNOWN, GTB_MATCH_KEY, GTB_IRQ_HARD,
		   24, NULL);
	irq_record(f, GTB_IRQ_EXIT, KEY_KNOWN, GTB_MATCH_KEY, GTB_IRQ_SOFT,
		   3, NULL);
	ok(events(m) > before && gt_bpf_feed_unknown(f) == 0 &&
	   gt_bpf_feed_unswitched(f) == 0,
	   "a hard IRQ in a softirq in a recorded task: written (%llu events), nothing lost, no gap",
	   (unsigned long long)(events(m) - before));
	/* The CPU goes idle: an interrupt there is the idle task's. */
	switch_to(f, KEY_KNOWN, 0x9000, GTB_MATCH_KEY);
	irq_record(f, GTB_IRQ_ENTRY, 0x9000, 0, GTB_IRQ_VECTOR,
		   GTB_VEC_LOCAL_TIMER, NULL);
	irq_record(f, GTB_IRQ_EXIT, 0x9000, 0, GTB_IRQ_VECTOR,
		   GTB_VEC_LOCAL_TIMER, NULL);
	ok(gt_bpf_feed_unknown(f) == 0 && gt_bpf_feed_unswitched(f) == 0,
	   "an idle CPU's local timer: no loss, no gap");
	/* KEY_KNOWN runs again, and no switch record said so. */
	irq_record(f, GTB_IRQ_ENTRY, KEY_KNOWN, GTB_MATCH_KEY, GTB_IRQ_SOFT,
		   9, NULL);
	irq_record(f, GTB_IRQ_EXIT, KEY_KNOWN, GTB_MATCH_KEY, GTB_IRQ_SOFT,
		   9, NULL);
	ok(gt_bpf_feed_unswitched(f) == 1,
	   "an interrupt of a recorded task the switches did not put there: the gap is found (%llu)",
	   (unsigned long long)gt_bpf_feed_unswitched(f));
	switch_to(f, KEY_KNOWN, KEY_OTHER, GTB_MATCH_KEY | GTB_MATCH_OTHER);
	work_record(f, GTB_WORK_START, KEY_OTHER, WORK_FUNC);
	work_record(f, GTB_WORK_END, KEY_OTHER, WORK_FUNC);
	switch_to(f, KEY_OTHER, KEY_KNOWN, GTB_MATCH_KEY | GTB_MATCH_OTHER);
	trace_len = 0;
	ok(!gt_umodel_finish(m, now + 10, trace_write, NULL) && trace_len,
	   "the trace ends");
	ok(trace_has("[softirq] NET_RX") && trace_has("[softirq] RCU"),
	   "the softirqs' goroutines: [softirq] NET_RX, [softirq] RCU");
	ok(trace_has("[irq 24] virtio0-input"),
	   "the hard IRQ's, named after its entry's action: [irq 24] virtio0-input");
	ok(trace_has("[irq] local timer"), "the local timer's: [irq] local timer");
	ok(trace_has("[work] wb_workfn") && !trace_has("[work] wb_workfn+"),
	   "the work item's region, named after its function: [work] wb_workfn");
	gt_bpf_feed_free(f);
	gt_umodel_destroy(m);
	cfg->format = GOTRACE_FORMAT_GO111;
	cfg->opts.flags = 0;
	cfg->symbolise = NULL;
	cfg->show_addrs = false;
}

int main(void)
{
	struct gt_umodel_config cfg = { 0 };
	struct gt_bpf_feed *f;
	struct gt_model *m;
	uint64_t before;

	cfg.nr_cpus = 1;
	cfg.opts.size = sizeof(cfg.opts);
	cfg.opts.syscalls = GOTRACE_SYSCALLS_ALL;
	m = gt_umodel_create(&cfg);
	f = m ? gt_bpf_feed_new(m, NULL) : NULL;
	if (!ok(f != NULL, "a model and its BPF feed"))
		return tap_done();
	task_record(f, KEY_KNOWN, 5);
	ok(gt_bpf_feed_start(f, now, 0) == 0, "the trace starts");

	diag("a recorded task whose task record came first");
	before = events(m);
	switch_to(f, 1, KEY_KNOWN, GTB_MATCH_OTHER);
	ok(events(m) > before, "the switch to it is written");
	before = events(m);
	/* A syscall is written at the CPU's next event (with its end). */
	sys_enter(f, KEY_KNOWN, GTB_MATCH_KEY);
	sys_enter(f, KEY_KNOWN, GTB_MATCH_KEY);
	ok(events(m) > before, "its syscall is written (%llu events more)",
	   (unsigned long long)(events(m) - before));
	ok(gt_bpf_feed_unknown(f) == 0, "nothing counted lost");

	diag("a task the filters left out (BPF writes none of its records)");
	switch_to(f, KEY_KNOWN, KEY_OTHER, GTB_MATCH_KEY);
	ok(gt_bpf_feed_unknown(f) == 0,
	   "the switch to it is not counted lost: it is not recorded");

	diag("a recorded task whose task record never came");
	switch_to(f, KEY_OTHER, KEY_UNSAID, GTB_MATCH_OTHER);
	ok(gt_bpf_feed_unknown(f) == 1,
	   "the switch to it is counted lost (%llu)",
	   (unsigned long long)gt_bpf_feed_unknown(f));
	sys_enter(f, KEY_UNSAID, GTB_MATCH_KEY);
	ok(gt_bpf_feed_unknown(f) == 2, "so is its syscall (%llu)",
	   (unsigned long long)gt_bpf_feed_unknown(f));
	exec_record(f, KEY_UNSAID);
	ok(gt_bpf_feed_unknown(f) == 3, "and its exec (%llu)",
	   (unsigned long long)gt_bpf_feed_unknown(f));

	diag("its task record arrives late: from then on, it is known");
	task_record(f, KEY_UNSAID, 6);
	sys_enter(f, KEY_UNSAID, GTB_MATCH_KEY);
	ok(gt_bpf_feed_unknown(f) == 3, "no more counted lost (%llu)",
	   (unsigned long long)gt_bpf_feed_unknown(f));

	diag("a syscall of a task no switch record put on the CPU");
	switch_to(f, KEY_UNSAID, KEY_KNOWN, GTB_MATCH_KEY | GTB_MATCH_OTHER);
	task_record(f, KEY_OTHER, 8);
	ok(gt_bpf_feed_unswitched(f) == 0, "none missed while the switches agree");
	before = events(m);
	sys_enter(f, KEY_OTHER, GTB_MATCH_KEY);
	sys_enter(f, KEY_OTHER, GTB_MATCH_KEY);
	ok(gt_bpf_feed_unswitched(f) == 1,
	   "the missed switch is counted once (%llu)",
	   (unsigned long long)gt_bpf_feed_unswitched(f));
	ok(events(m) >= before + 3,
	   "written as a preemption and a start, and the syscall is written (%llu events)",
	   (unsigned long long)(events(m) - before));

	diag("a current task's other records check the switches too");
	/* KEY_OTHER's syscalls put it on the CPU. */
	switch_to(f, KEY_KNOWN, 1, GTB_MATCH_KEY);
	ok(gt_bpf_feed_unswitched(f) == 2,
	   "its switch-out: the switch to it is counted (%llu)",
	   (unsigned long long)gt_bpf_feed_unswitched(f));
	wake_record(f, KEY_UNSAID, KEY_KNOWN, GTB_MATCH_KEY | GTB_MATCH_OTHER);
	ok(gt_bpf_feed_unswitched(f) == 3, "its wakeup of another (%llu)",
	   (unsigned long long)gt_bpf_feed_unswitched(f));
	switch_to(f, KEY_KNOWN, KEY_LEFT, GTB_MATCH_KEY);
	wake_record(f, KEY_UNSAID, KEY_LEFT2, GTB_MATCH_KEY);
	ok(gt_bpf_feed_unswitched(f) == 3,
	   "not a wakeup by a task the filters left out: its switch has no record");
	exec_record(f, KEY_UNSAID);
	ok(gt_bpf_feed_unswitched(f) == 4, "its exec (%llu)",
	   (unsigned long long)gt_bpf_feed_unswitched(f));
	fork_record(f, KEY_KNOWN, KEY_OTHER, GTB_MATCH_KEY);
	ok(gt_bpf_feed_unswitched(f) == 5, "its fork (%llu)",
	   (unsigned long long)gt_bpf_feed_unswitched(f));
	ok(gt_bpf_feed_unknown(f) == 3, "nothing else counted lost");

	gt_bpf_feed_free(f);
	gt_umodel_destroy(m);

	/*
	 * -c gt_feed --children: the model adopts a child whose parent it
	 * shows running.  A missed switch to the parent must not lose it.
	 */
	diag("--children: a fork right after a missed switch to the parent");
	strcpy(cfg.opts.comm, "gt_feed");
	cfg.opts.flags = GOTRACE_OPT_CHILDREN;
	m = gt_umodel_create(&cfg);
	f = m ? gt_bpf_feed_new(m, NULL) : NULL;
	if (!ok(f != NULL, "a model with a comm filter and its feed"))
		return tap_done();
	task_record(f, KEY_KNOWN, 5);
	ok(gt_bpf_feed_start(f, now, 0) == 0, "the trace starts");
	switch_to(f, 1, KEY_KNOWN, GTB_MATCH_OTHER);
	switch_to(f, KEY_KNOWN, KEY_LEFT, GTB_MATCH_KEY);
	/* KEY_LEFT -> KEY_KNOWN never reached the reader. */
	task_named(f, KEY_UNSAID, 6, "gt_child");
	fork_record(f, KEY_KNOWN, KEY_UNSAID, GTB_MATCH_KEY | GTB_MATCH_OTHER);
	switch_to(f, KEY_KNOWN, KEY_UNSAID, GTB_MATCH_KEY | GTB_MATCH_OTHER);
	before = events(m);
	sys_enter(f, KEY_UNSAID, GTB_MATCH_KEY);
	sys_enter(f, KEY_UNSAID, GTB_MATCH_KEY);
	ok(events(m) > before, "the child is recorded: its syscall is written");
	ok(gt_bpf_feed_unswitched(f) == 1, "the missed switch is counted (%llu)",
	   (unsigned long long)gt_bpf_feed_unswitched(f));

	gt_bpf_feed_free(f);
	gt_umodel_destroy(m);

	strcpy(cfg.opts.comm, "");
	cfg.opts.flags = 0;
	gaps_test(&cfg);
	samples_test(&cfg);
	irq_test(&cfg);
	return tap_done();
}
