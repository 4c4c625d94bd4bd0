// SPDX-License-Identifier: GPL-2.0
/*
 * model_test.c - the module's Linux -> Go model, fed from user space
 *
 * Each case feeds a sequence of input events (model/model_input.h) to the
 * model built for user space (user/bpf/model/), takes the trace it writes,
 * checks it with the replay of 'gotrace check' (trace/go111_decode.c) and
 * asserts what the decoded trace says: which goroutines exist and under which
 * name, how they blocked, who unblocked whom, which syscall events there
 * are.  With a directory as argument, every case's trace is also written
 * there as CASE.trace, for Go's own parsers (model_go_test.sh); with case
 * names after it (test_NAME), only those cases run (pprof_test.sh).
 *
 * The cases cover what the guest tests cover, and what a VM can hardly
 * produce: a wakeup before the switch-out, an exec inside a syscall, a
 * reused tid or task key, full tables, timestamps out of order across
 * CPUs, a P with no events.
 *
 * Every case is fed twice, to a model writing "go 1.11 trace" (whose
 * trace the assertions read) and to one writing "go 1.23 trace", whose
 * trace 'gotrace check' must accept (and Go, model_go_test.sh: it is
 * written as CASE.go123.trace); the second one's generations last 1 ms of
 * the simulated time, so that long cases span several.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <asm/unistd_64.h>

#include "tap.h"
#include "sink.h"
#include "trace/go111_decode.h"
#include "trace/input.h"
#include "trace/go123_check.h"
#include "trace/stats.h"
#include "trace/go123_read.h"
#include "trace/go123_stat.h"
#include "trace/go123_split.h"
#include "trace/go123_walk.h"
#include "bpf/model/gtmodel.h"
/* The hash of the tables (model/tables.c) in user space. */
#include "../model/env/user.h"

#define MAX_CPUS	64
#define MAX_EVENTS	200000
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- A simulated machine ---------------------------------------------- */

struct task {
	struct gt_in_task in;
	char comm[GT_IN_COMM_LEN];
};

static struct sim {
	const char *name;
	struct gt_model *m;
	struct gt_umodel_config cfg;
	unsigned int ncpu;
	u64 ts;
	struct task idle[MAX_CPUS];
	struct task *cur[MAX_CPUS];	/* what Linux runs on each CPU */
	u8 *out;
	size_t len, cap;
	bool drain;			/* drain after every event */
	struct gt_model *m2;		/* the same, writing go 1.23 */
	u8 *out2;
	size_t len2, cap2;
} S;

/* Feed one input event to both models. */
#define FEED(hook, in) do {			\
		hook(S.m, in);			\
		if (S.m2)			\
			hook(S.m2, in);		\
	} while (0)

static const char *trace_dir;
/* Task keys are never given twice, as task_struct addresses of the living. */
static u64 next_key;

static int sink2(void *arg, const void *buf, size_t len)
{
	(void)arg;
	return test_sink_put(&S.out2, &S.len2, &S.cap2, buf, len);
}

static int sink(void *arg, const void *buf, size_t len)
{
	(void)arg;
	return test_sink_put(&S.out, &S.len, &S.cap, buf, len);
}

static void task_init(struct task *t, int tid, int tgid, const char *comm,
		      u32 flags)
{
	memset(t, 0, sizeof(*t));
	t->in.key = next_key += 0x1000;
	t->in.start_time = next_key / 0x1000;
	t->in.tid = tid;
	t->in.tgid = tgid;
	t->in.flags = flags;
	strncpy(t->comm, comm, sizeof(t->comm) - 1);
	t->in.comm = t->comm;
}

/* The tasks of one case; sim_setup() forgets them. */
static struct task arena[128];
static unsigned int arena_used;

static struct task *task_new(int tid, int tgid, const char *comm)
{
	struct task *t;

	if (arena_used == ARRAY_SIZE(arena))
		abort();
	t = &arena[arena_used++];
	task_init(t, tid, tgid, comm, 0);
	return t;
}

static void sim_setup(const char *name, unsigned int ncpu)
{
	free(S.out);
	free(S.out2);
	memset(&S, 0, sizeof(S));
	S.name = name;
	S.ncpu = ncpu;
	S.ts = 1000;
	S.drain = true;
	S.cfg.nr_cpus = ncpu;
	S.cfg.opts.size = sizeof(S.cfg.opts);
	S.cfg.opts.syscalls = GOTRACE_SYSCALLS_ALL;
	for (unsigned int i = 0; i < ncpu; i++) {
		task_init(&S.idle[i], 0, 0, "swapper", GT_IN_IDLE | GT_IN_KTHREAD);
		S.cur[i] = &S.idle[i];
	}
}

static struct gt_in_ev ev(unsigned int cpu)
{
	S.ts += 10;
	return (struct gt_in_ev){ .ts = S.ts, .cpu = cpu,
				  .cur = &S.cur[cpu]->in };
}

static void drain(void)
{
	if (S.drain) {
		gt_umodel_drain(S.m, sink, NULL);
		if (S.m2)
			gt_umodel_drain(S.m2, sink2, NULL);
	}
}

/* Start: the snapshot of @n tasks (sleeping unless running somewhere). */
static void sim_start(struct task **tasks, unsigned int n)
{
	struct gt_in_ev e = ev(0);

	struct gt_umodel_config cfg2 = S.cfg;

	S.m = gt_umodel_create(&S.cfg);
	cfg2.format = GOTRACE_FORMAT_GO123;
	cfg2.generation_ms = 0;
	S.m2 = gt_umodel_create(&cfg2);
	if (!S.m || !S.m2)
		abort();
	/* Generations of 1 ms of simulated time (events are 10 ns apart). */
	gt_umodel_set_generation_ns(S.m2, 1000000);
	FEED(gt_model_snapshot_begin, &e);
	for (unsigned int i = 0; i < n; i++) {
		bool running = false;

		for (unsigned int c = 0; c < S.ncpu; c++)
			running |= S.cur[c] == tasks[i];
		struct gt_in_snap_task snap = { .task = &tasks[i]->in,
						.sleeping = !running };
		FEED(gt_model_snapshot_task, &snap);
	}
	gt_model_snapshot_end(S.m);
	gt_model_snapshot_end(S.m2);
	drain();
}

static void sw_fd(unsigned int cpu, struct task *next, u8 state, bool preempt,
		  u8 fd_kind)
{
	struct gt_in_switch in = { .ev = ev(cpu), .prev = &S.cur[cpu]->in,
				   .next = &next->in, .preempt = preempt,
				   .prev_state = state, .fd_kind = fd_kind };

	FEED(gt_model_switch, &in);
	S.cur[cpu] = next;
	drain();
}

static void sw(unsigned int cpu, struct task *next, u8 state)
{
	sw_fd(cpu, next, state, false, GT_IN_FD_UNKNOWN);
}

/* @t, running on CPU 0, goes to sleep there with kernel stack @pcs. */
static void sleep_with_stack(struct task *t, const u64 *pcs, unsigned int n)
{
	struct gt_in_switch in = { .ev = ev(0), .prev = &t->in,
				   .next = &S.idle[0].in,
				   .prev_state = GT_IN_SLEEP };

	in.ev.pcs = pcs;
	in.ev.nr_pcs = n;
	FEED(gt_model_switch, &in);
	S.cur[0] = &S.idle[0];
	drain();
}

static void waking(unsigned int cpu, struct task *t)
{
	struct gt_in_wake in = { .ev = ev(cpu), .task = &t->in };

	FEED(gt_model_waking, &in);
	drain();
}

static void wakeup(unsigned int cpu, struct task *t)
{
	struct gt_in_wake in = { .ev = ev(cpu), .task = &t->in };

	FEED(gt_model_wakeup, &in);
	drain();
}

/* A wakeup as Linux reports it: sched_waking by the waker, then sched_wakeup. */
static void wake(unsigned int cpu, struct task *t)
{
	waking(cpu, t);
	wakeup(cpu, t);
}

static void fork_task(unsigned int cpu, struct task *child)
{
	struct gt_in_fork in = { .ev = ev(cpu), .child = &child->in };

	FEED(gt_model_fork, &in);
	drain();
	wakeup(cpu, child);
}

static void sys_enter(unsigned int cpu, int nr)
{
	struct gt_in_sys_enter in = { .ev = ev(cpu), .nr = nr };

	FEED(gt_model_sys_enter, &in);
	drain();
}

static void sys_exit(unsigned int cpu)
{
	struct gt_in_sys_exit in = { .ev = ev(cpu) };

	FEED(gt_model_sys_exit, &in);
	drain();
}

static void rename_task(struct task *t, const char *comm)
{
	memset(t->comm, 0, sizeof(t->comm));
	strncpy(t->comm, comm, sizeof(t->comm) - 1);
}

static void exec_task(unsigned int cpu, const char *comm)
{
	struct gt_in_exec in = { .ev = ev(cpu), .old_tid = S.cur[cpu]->in.tid };

	rename_task(S.cur[cpu], comm);
	FEED(gt_model_exec, &in);
	drain();
}

/* A syscall that returns without sleeping. */
static void syscall_quick(unsigned int cpu, int nr)
{
	sys_enter(cpu, nr);
	sys_exit(cpu);
}

/* ---- The trace that came out ------------------------------------------ */

static struct gt_event *evs;
static size_t nevs;
static struct gt_trace T;
static bool T_open;
static struct gt_umodel_stats ST;
/* The go 1.23 twin's statistics, and what gotrace check read of it. */
static struct gt_umodel_stats ST2;
static struct gt_go123_info INFO2;

static int collect(void *arg, const struct gt_event *e)
{
	(void)arg;
	if (nevs < MAX_EVENTS)
		evs[nevs++] = *e;
	return 0;
}

/* Write @buf as DIR/@name@suffix, for Go's parsers. */
static void save(const char *suffix, const u8 *buf, size_t len)
{
	char path[512];
	FILE *f;

	if (!trace_dir)
		return;
	snprintf(path, sizeof(path), "%s/%s%s", trace_dir, S.name, suffix);
	f = fopen(path, "w");
	if (f) {
		fwrite(buf, 1, len, f);
		fclose(f);
	}
}

/* The go 1.23 twin: ended, checked by gotrace's generational reader. */
static void finish_go123(void)
{
	struct gt_trace_error err = { 0 };
	struct gt_umodel_stats st;
	struct gt_go123_info info;
	struct gt_src src;
	bool valid;

	gt_umodel_finish(S.m2, S.ts + 10, sink2, NULL);
	gt_umodel_stats(S.m2, &st);
	ST2 = st;
	gt_umodel_destroy(S.m2);
	S.m2 = NULL;
	save(".go123.trace", S.out2, S.len2);
	memset(&info, 0, sizeof(info));
	gt_src_mem(&src, S.out2, S.len2);
	valid = !gt_go123_check(&src, &info, &err);
	diag("%s (go 1.23): %zu bytes, %llu events (%.2f bytes/event), "
	     "%llu lost, %llu generations", S.name, S.len2,
	     (unsigned long long)st.events,
	     st.events ? (double)S.len2 / st.events : 0.0,
	     (unsigned long long)st.lost, (unsigned long long)info.generations);
	INFO2 = info;
	/* Its first event is no earlier than the first input (ts 1000). */
	ok(valid && info.min_ts >= 1000,
	   "%s (go 1.23): starts at %llu ns, not before the recording",
	   S.name, (unsigned long long)info.min_ts);
	/* No event needs another M's event of its own time (Go may skip it). */
	ok(valid && !info.ties, "%s (go 1.23): %llu events wait for one of their time",
	   S.name, (unsigned long long)info.ties);
	ok(valid && info.generations == st.generations,
	   "%s (go 1.23): gotrace check reads its %llu generations%s%s",
	   S.name, (unsigned long long)st.generations, valid ? "" : ": ",
	   valid ? "" : err.msg);
}

/* End the session, check the trace and decode it; false if invalid. */
static bool sim_finish(void)
{
	struct gt_trace_error err = { 0 };
	bool valid;

	gt_umodel_finish(S.m, S.ts + 10, sink, NULL);
	gt_umodel_stats(S.m, &ST);
	gt_umodel_destroy(S.m);
	S.m = NULL;
	finish_go123();
	arena_used = 0;
	if (trace_dir) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s.trace", trace_dir, S.name);
		f = fopen(path, "w");
		if (f) {
			fwrite(S.out, 1, S.len, f);
			fclose(f);
		}
	}
	if (T_open)
		gt_trace_close(&T);
	T_open = false;
	nevs = 0;
	valid = !gt_trace_open_mem(&T, S.out, S.len, &err);
	if (valid) {
		T_open = true;
		valid = !gt_trace_replay(&T, collect, NULL, &err);
	}
	diag("%s: %zu bytes, %llu events, %llu lost", S.name, S.len,
	     (unsigned long long)ST.events, (unsigned long long)ST.lost);
	ok(valid, "%s: the trace is valid%s%s", S.name, valid ? "" : ": ",
	   valid ? "" : err.msg);
	return valid;
}

/* Events of @type whose goroutine (@g: the running one) or target is @g. */
static unsigned int count_g(unsigned int type, u64 g)
{
	unsigned int n = 0;

	for (size_t i = 0; i < nevs; i++)
		if (evs[i].type == type && evs[i].g == g)
			n++;
	return n;
}

/* Events of @type whose first argument (the target goroutine) is @g. */
static unsigned int count_arg(unsigned int type, u64 g)
{
	unsigned int n = 0;

	for (size_t i = 0; i < nevs; i++)
		if (evs[i].type == type && evs[i].args[0] == g)
			n++;
	return n;
}

static unsigned int count_type(unsigned int type)
{
	unsigned int n = 0;

	for (size_t i = 0; i < nevs; i++)
		n += evs[i].type == type;
	return n;
}

/* The first event of @type of goroutine @g (running, or target), or NULL. */
static const struct gt_event *find(unsigned int type, u64 g, bool target)
{
	for (size_t i = 0; i < nevs; i++)
		if (evs[i].type == type &&
		    (target ? evs[i].args[0] : evs[i].g) == g)
			return &evs[i];
	return NULL;
}

/* Name of function frame @idx of stack @stk ("" if none). */
static const char *frame_name(u64 stk, size_t idx, char *buf, size_t size)
{
	const struct gt_frame *f;
	size_t n;

	buf[0] = '\0';
	f = gt_trace_stack(&T, stk, &n);
	if (f && idx < n)
		gt_trace_string(&T, f[idx].func, buf, size);
	return buf;
}

/* The comm a goroutine was created with, "" if it was not. */
static const char *gname(u64 g)
{
	static char buf[64];
	const struct gt_event *e = find(GOTRACE_EV_GO_CREATE, g, true);

	return e ? frame_name(e->args[1], 0, buf, sizeof(buf)) : "";
}

/* Goroutines created with comm @comm. */
static unsigned int count_named(const char *comm)
{
	char buf[64];
	unsigned int n = 0;

	for (size_t i = 0; i < nevs; i++)
		if (evs[i].type == GOTRACE_EV_GO_CREATE &&
		    !strcmp(frame_name(evs[i].args[1], 0, buf, sizeof(buf)), comm))
			n++;
	return n;
}

/* The syscall frame of @e's stack ("" if none), found by its "sys_" name. */
static bool stack_has(u64 stk, const char *func)
{
	char buf[128];
	size_t n;

	gt_trace_stack(&T, stk, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(frame_name(stk, i, buf, sizeof(buf)), func))
			return true;
	return false;
}

/* ---- Cases ------------------------------------------------------------- */

/*
 * Two CPUs: bash blocks in a futex, cat wakes it from the other CPU; a
 * preemption; a sched_yield.
 */
static void test_switch_block_wakeup(void)
{
	struct task *bash = task_new(100, 100, "bash");
	struct task *cat = task_new(200, 200, "cat");
	struct task *tasks[] = { bash, cat };
	const struct gt_event *e;

	sim_setup("switch_block_wakeup", 2);
	S.cur[0] = bash;
	S.cur[1] = cat;
	sim_start(tasks, 2);
	sys_enter(0, __NR_futex);
	sw(0, &S.idle[0], GT_IN_SLEEP);
	wake(1, bash);
	sw(0, bash, GT_IN_RUNNABLE);
	sys_exit(0);
	sw_fd(1, &S.idle[1], GT_IN_SLEEP, true, 0);	/* preempted */
	sw(1, cat, GT_IN_RUNNABLE);
	sys_enter(1, __NR_sched_yield);
	sw(1, &S.idle[1], GT_IN_RUNNABLE);
	sw(1, cat, GT_IN_RUNNABLE);
	sys_exit(1);
	if (!sim_finish())
		return;
	ok(!strcmp(gname(100), "bash") && !strcmp(gname(200), "cat"),
	   "goroutines 100 bash and 200 cat (%s, %s)", gname(100), gname(200));
	ok(count_g(GOTRACE_EV_GO_BLOCK_SYNC, 100) == 1,
	   "a futex sleep is GoBlockSync");
	ok(count_g(GOTRACE_EV_GO_SYSCALL, 100) == 0,
	   "a futex sleep is no syscall event");
	e = find(GOTRACE_EV_GO_UNBLOCK, 100, true);
	ok(e && e->g == 200 && e->p == 1,
	   "cat unblocks bash on P1 (g %llu, p %llu)",
	   e ? (unsigned long long)e->g : 0ULL,
	   e ? (unsigned long long)e->p : 0ULL);
	ok(count_g(GOTRACE_EV_GO_PREEMPT, 200) >= 1, "a preempted cat: GoPreempt");
	ok(count_g(GOTRACE_EV_GO_SCHED, 200) == 1, "sched_yield: GoSched");
	ok(count_type(GOTRACE_EV_PROC_START) == count_type(GOTRACE_EV_PROC_STOP),
	   "every ProcStart has its ProcStop");
}

/*
 * A long run of four CPUs and eight tasks (futex sleeps and wakeups from
 * other CPUs, preemptions, fast and blocking syscalls, exits and forks),
 * generations of 20 us in the go 1.23 twin: it spans many, each one
 * restating what the previous left, and each no larger than the others
 * (the CPUs' buffers start empty in every generation).  Also the bytes
 * per event of both formats for the same input.
 */
static void test_generations(void)
{
	enum { NT = 8, STEPS = 30000 };
	struct task *t[NT];
	bool asleep[NT] = { 0 }, running[NT] = { 0 };
	struct gt_umodel_stats st2;
	u32 rnd = 12345;
	int tid = 1000;

	struct task *sleeper, *all[NT + 1];

	sim_setup("generations", 4);
	for (int i = 0; i < NT; i++)
		all[i] = t[i] = task_new(tid++, 1000,
					 i & 1 ? "worker" : "server");
	/* Asleep from the start to the end: only the sweeps state it. */
	all[NT] = sleeper = task_new(tid++, 1000, "sleeper");
	for (int c = 0; c < 4; c++) {
		S.cur[c] = t[c];
		running[c] = true;
	}
	sim_start(all, NT + 1);
	gt_umodel_set_generation_ns(S.m2, 20000);
	for (int step = 0; step < STEPS; step++) {
		unsigned int cpu, i, act;
		int me = -1, next = -1;

		rnd = rnd * 1103515245 + 12345;
		cpu = (rnd >> 8) % 4;
		act = (rnd >> 16) % 8;
		for (i = 0; i < NT; i++)
			if (S.cur[cpu] == t[i])
				me = i;
		for (i = 0; i < NT; i++) {
			unsigned int j = (i + (rnd >> 20)) % NT;

			if (!asleep[j] && !running[j]) {
				next = j;
				break;
			}
		}
		if (act == 0 || act == 1) {		/* wake a sleeper */
			for (i = 0; i < NT; i++) {
				if (asleep[i]) {
					wake(cpu, t[i]);
					asleep[i] = false;
					break;
				}
			}
		} else if (me >= 0 && act == 2) {	/* futex sleep */
			sys_enter(cpu, __NR_futex);
			running[me] = false;
			asleep[me] = true;
			sw(cpu, next >= 0 ? t[next] : &S.idle[cpu], GT_IN_SLEEP);
			if (next >= 0)
				running[next] = true;
		} else if (me >= 0 && act == 3) {	/* sleep in pread64 */
			sys_enter(cpu, __NR_pread64);
			running[me] = false;
			asleep[me] = true;
			sw(cpu, next >= 0 ? t[next] : &S.idle[cpu], GT_IN_SLEEP);
			if (next >= 0)
				running[next] = true;
		} else if (me >= 0 && act == 4 && next >= 0) {	/* preempt */
			sw_fd(cpu, t[next], GT_IN_RUNNABLE, true, 0);
			running[me] = false;
			running[next] = true;
		} else if (me >= 0 && act == 5) {
			syscall_quick(cpu, __NR_getpid);
		} else if (me >= 0 && act == 6 && (rnd >> 24) % 16 == 0 &&
			   arena_used < ARRAY_SIZE(arena)) {
			/* exit; a fork of another task takes its place */
			struct task *child = task_new(tid++, 1000, "child");

			fork_task(cpu, child);
			running[me] = false;
			sw(cpu, child, GT_IN_DEAD);
			t[me] = child;
			running[me] = true;
		} else if (me < 0 && next >= 0) {	/* idle CPU picks one */
			sw(cpu, t[next], GT_IN_RUNNABLE);
			running[next] = true;
		} else if (me >= 0) {
			sys_exit(cpu);
		}
	}
	wake(1, sleeper);
	sw_fd(0, sleeper, GT_IN_RUNNABLE, true, 0);	/* preempts CPU 0's */
	gt_umodel_stats(S.m2, &st2);
	if (!sim_finish())
		return;
	ok(count_g(GOTRACE_EV_GO_START, sleeper->in.tid) == 1,
	   "generations: the sleeper runs at the end");
	diag("generations: go 1.11 %zu bytes for %llu events (%.2f bytes/event)",
	     S.len, (unsigned long long)ST.events, (double)S.len / ST.events);
	ok(st2.generations >= 10,
	   "generations: %llu generations of 20 us before the end",
	   (unsigned long long)st2.generations);
	ok(st2.gen_events_max <= 3 * st2.gen_events_avg,
	   "generations: the largest generation's events take %llu bytes, "
	   "the average %llu: the CPU buffers start empty each time",
	   (unsigned long long)st2.gen_events_max,
	   (unsigned long long)st2.gen_events_avg);
	ok(ST.lost == 0 && !ST.halted, "generations: nothing lost");
}

/* A fork: the child is created by the parent and ends at its death. */
static void test_fork_exit(void)
{
	struct task *sh = task_new(300, 300, "sh");
	struct task *child = task_new(301, 301, "sh");
	struct task *tasks[] = { sh };
	const struct gt_event *e;

	sim_setup("fork_exit", 2);
	S.cur[0] = sh;
	sim_start(tasks, 1);
	sys_enter(0, __NR_clone);
	fork_task(0, child);
	sys_exit(0);
	sw(1, child, GT_IN_RUNNABLE);
	syscall_quick(1, __NR_getpid);
	sw(1, &S.idle[1], GT_IN_DEAD);
	if (!sim_finish())
		return;
	e = find(GOTRACE_EV_GO_CREATE, 301, true);
	ok(e && e->g == 300, "the child is created by its parent's goroutine");
	ok(count_g(GOTRACE_EV_GO_END, 301) == 1, "the child's death is GoEnd");
	ok(count_g(GOTRACE_EV_GO_SYSCALL, 301) == 1,
	   "the child's syscall is there");
}

/* exec renames: a new goroutine of the new name; and comm changes. */
static void test_exec_rename(void)
{
	struct task *sh = task_new(400, 400, "sh");
	struct task *tasks[] = { sh };
	unsigned int i;

	sim_setup("exec_rename", 1);
	S.cur[0] = sh;
	sim_start(tasks, 1);
	sys_enter(0, __NR_execve);
	exec_task(0, "ls");
	sys_exit(0);
	syscall_quick(0, __NR_getpid);
	/* prctl(PR_SET_NAME): shows at its exit */
	sys_enter(0, __NR_prctl);
	rename_task(sh, "ls-worker");
	sys_exit(0);
	/* a rename by another task: shows at the next switch */
	rename_task(sh, "renamed");
	sw(0, &S.idle[0], GT_IN_SLEEP);
	if (!sim_finish())
		return;
	ok(!strcmp(gname(400), "sh"), "the first goroutine is sh");
	ok(count_g(GOTRACE_EV_GO_END, 400) == 1, "exec ends it");
	ok(count_named("ls") == 1 && count_named("ls-worker") == 1 &&
	   count_named("renamed") == 1,
	   "exec, prctl and a rename each start a goroutine of the new name");
	for (i = 0; i < nevs; i++)
		if (evs[i].type == GOTRACE_EV_GO_CREATE && evs[i].args[0] != 400 &&
		    (u32)evs[i].args[0] != 400)
			break;
	ok(i == nevs, "the new goroutines keep the tid in their low bits");
}

/*
 * -c make: a shell forks, the child execs make: recorded from the exec,
 * not from its next event; an exec of another name ends it there.  A task
 * that names itself make (prctl) is recorded from that syscall's exit.
 */
/*
 * An exec by a thread other than its process's leader (Linux's
 * de_thread()): the thread takes the leader's tid and start time (the
 * module's probe reads both from the task) and is still the same task.
 * Recorded as a child of the shell (--children), it stays recorded: its
 * syscalls after the exec are in the trace, under the goroutine of its
 * new name, and no other goroutine of that name appears.
 */
static void test_exec_other_thread(void)
{
	struct task *sh = task_new(500, 500, "sh");
	struct task *leader = task_new(1000, 1000, "prog");
	struct task *thread = task_new(1001, 1000, "prog");
	struct task *tasks[] = { sh };
	unsigned int i, n = 0;

	sim_setup("exec_other_thread", 1);
	S.cfg.opts.nr_pids = 1;
	S.cfg.opts.pids[0] = 500;
	S.cfg.opts.flags = GOTRACE_OPT_TGID | GOTRACE_OPT_CHILDREN;
	S.cur[0] = sh;
	sim_start(tasks, 1);
	fork_task(0, leader);
	sw(0, leader, GT_IN_SLEEP);
	fork_task(0, thread);
	sw(0, thread, GT_IN_RUNNABLE);
	/* The thread execs: the leader dies, the thread takes its place. */
	sys_enter(0, __NR_execve);
	sw(0, leader, GT_IN_SLEEP);
	sw(0, thread, GT_IN_DEAD);
	thread->in.tid = leader->in.tid;
	thread->in.start_time = leader->in.start_time;
	{
		struct gt_in_exec in = { .ev = ev(0), .old_tid = 1001 };

		rename_task(thread, "newprog");
		FEED(gt_model_exec, &in);
		drain();
	}
	sys_exit(0);
	for (i = 0; i < 5; i++)
		syscall_quick(0, __NR_getpid);
	sw(0, &S.idle[0], GT_IN_SLEEP);
	if (!sim_finish())
		return;
	for (i = 0; i < nevs; i++)
		if (evs[i].type == GOTRACE_EV_GO_SYSCALL &&
		    !strcmp(gname(evs[i].g), "newprog"))
			n++;
	ok(n >= 5, "exec by a non-leader thread: %u syscalls after it recorded "
	   "(want 5 at least)", n);
	ok(count_named("newprog") == 1,
	   "exec by a non-leader thread: one goroutine of the new name");
}

static void test_filter_comm_exec(void)
{
	struct task *sh = task_new(500, 500, "sh");
	struct task *child = task_new(501, 501, "sh");
	struct task *other = task_new(600, 600, "other");
	struct task *tasks[] = { sh, other };
	const struct gt_event *e;
	u64 exec_ts, exec2_ts, prctl_ts;

	sim_setup("filter_comm_exec", 2);
	strcpy(S.cfg.opts.comm, "make");
	S.cur[0] = sh;
	S.cur[1] = other;
	sim_start(tasks, 2);
	syscall_quick(1, __NR_getpid);
	fork_task(0, child);
	sw(0, child, GT_IN_SLEEP);
	sys_enter(0, __NR_execve);
	exec_task(0, "make");
	exec_ts = S.ts;
	sys_exit(0);
	syscall_quick(0, __NR_openat);
	sys_enter(0, __NR_execve);
	exec_task(0, "cc");		/* stops matching: ends */
	exec2_ts = S.ts;
	sys_exit(0);
	syscall_quick(0, __NR_getpid);
	sw(0, sh, GT_IN_DEAD);
	sys_enter(1, __NR_prctl);
	rename_task(other, "make");
	sys_exit(1);
	prctl_ts = S.ts;
	syscall_quick(1, __NR_getppid);
	if (!sim_finish())
		return;
	ok(count_named("make") == 2, "make is recorded, and so is the task that took its name");
	ok(count_named("sh") == 0 && count_named("other") == 0 &&
	   count_named("cc") == 0, "nothing else is");
	e = find(GOTRACE_EV_GO_CREATE, 501, true);
	ok(e && e->ts <= exec_ts, "make's goroutine starts at its exec (%llu, exec %llu)",
	   e ? (unsigned long long)e->ts : 0ULL, (unsigned long long)exec_ts);
	e = find(GOTRACE_EV_GO_END, 501, false);
	ok(e && e->ts <= exec2_ts && count_type(GOTRACE_EV_GO_END) == 1,
	   "the exec of cc ends it at once");
	ok(count_g(GOTRACE_EV_GO_SYSCALL, 501) == 2,
	   "make's syscalls are there: openat and the execve of cc (%u)",
	   count_g(GOTRACE_EV_GO_SYSCALL, 501));
	e = find(GOTRACE_EV_GO_CREATE, 600, true);
	ok(e && e->ts <= prctl_ts && count_g(GOTRACE_EV_GO_SYSCALL, 600) == 1,
	   "a task naming itself make is recorded from its prctl's exit");
}

/* -p: a pid filter, and the children of a recorded task (--children). */
static void test_filter_pid(void)
{
	struct task *a = task_new(700, 700, "a");
	struct task *a2 = task_new(701, 700, "a");
	struct task *b = task_new(800, 800, "b");
	struct task *kid = task_new(702, 702, "kid");
	struct task *tasks[] = { a, a2, b };

	sim_setup("filter_pid", 2);
	S.cfg.opts.nr_pids = 1;
	S.cfg.opts.pids[0] = 700;
	S.cfg.opts.flags = GOTRACE_OPT_TGID | GOTRACE_OPT_CHILDREN;
	S.cur[0] = a;
	S.cur[1] = b;
	sim_start(tasks, 3);
	fork_task(0, kid);
	sw(1, kid, GT_IN_SLEEP);
	sw(1, a2, GT_IN_DEAD);
	sw(1, b, GT_IN_SLEEP);
	if (!sim_finish())
		return;
	ok(count_named("a") == 2, "both threads of process 700");
	ok(count_named("b") == 0, "not process 800");
	ok(count_named("kid") == 1, "the child of a recorded task (--children)");
}

/* --cgroup: the backend says which tasks are in it. */
static void test_filter_cgroup(void)
{
	struct task *in = task_new(900, 900, "in");
	struct task *out = task_new(901, 901, "out");
	struct task *tasks[] = { in, out };

	sim_setup("filter_cgroup", 1);
	S.cfg.opts.cgroup_id = 42;
	in->in.flags |= GT_IN_IN_CGROUP;
	S.cur[0] = in;
	sim_start(tasks, 2);
	sw(0, out, GT_IN_SLEEP);
	sw(0, in, GT_IN_RUNNABLE);
	if (!sim_finish())
		return;
	ok(count_named("in") == 1 && count_named("out") == 0,
	   "only the task in the cgroup");
}

/* One process, every syscall mode: ALL, BLOCKING, NONE. */
static void run_syscalls(const char *name, unsigned int mode)
{
	struct task *t = task_new(1000, 1000, "sys");
	struct task *w = task_new(1001, 1001, "waker");
	struct task *tasks[] = { t, w };
	/* Where it sleeps: kernel frames above the syscall frame. */
	static const u64 pcs[] = { 0xffffffff81a00000ULL,
				   0xffffffff81b00000ULL };

	sim_setup(name, 2);
	S.cfg.opts.syscalls = mode;
	S.cur[0] = t;
	S.cur[1] = w;
	sim_start(tasks, 2);
	syscall_quick(0, __NR_getpid);
	syscall_quick(0, __NR_getppid);
	sys_enter(0, __NR_openat);		/* sleeps in a syscall */
	sleep_with_stack(t, pcs, 2);
	wake(1, t);
	sw(0, t, GT_IN_RUNNABLE);
	sys_exit(0);
	sim_finish();
}

static void test_syscalls(void)
{
	const struct gt_event *e;

	run_syscalls("syscalls_all", GOTRACE_SYSCALLS_ALL);
	ok(count_g(GOTRACE_EV_GO_SYSCALL, 1000) == 3,
	   "ALL: three GoSysCall (%u)", count_g(GOTRACE_EV_GO_SYSCALL, 1000));
	e = find(GOTRACE_EV_GO_SYSCALL, 1000, false);
	ok(e && stack_has(e->stk, "sys_getpid"), "its stack names sys_getpid");
	ok(count_g(GOTRACE_EV_GO_SYSBLOCK, 1000) == 1 &&
	   count_arg(GOTRACE_EV_GO_SYSEXIT, 1000) == 1,
	   "ALL: the sleeping openat is GoSysBlock, GoSysExit");

	run_syscalls("syscalls_blocking", GOTRACE_SYSCALLS_BLOCKING);
	ok(count_g(GOTRACE_EV_GO_SYSCALL, 1000) == 1,
	   "BLOCKING: only the sleeping syscall (%u)",
	   count_g(GOTRACE_EV_GO_SYSCALL, 1000));
	e = find(GOTRACE_EV_GO_SYSCALL, 1000, false);
	ok(e && stack_has(e->stk, "sys_openat"), "its stack names sys_openat");

	run_syscalls("syscalls_none", GOTRACE_SYSCALLS_NONE);
	ok(count_g(GOTRACE_EV_GO_SYSCALL, 1000) == 0 &&
	   count_g(GOTRACE_EV_GO_BLOCK, 1000) == 1,
	   "NONE: no syscall event, the sleep is a GoBlock");
}

/* Block classification by syscall and, for read and write, by fd kind. */
static void test_classify(void)
{
	static const struct {
		int nr;
		u8 fd;
		unsigned int type;
	} cases[] = {
		{ __NR_read, GT_IN_FD_PIPE, GOTRACE_EV_GO_BLOCK_RECV },
		{ __NR_write, GT_IN_FD_PIPE, GOTRACE_EV_GO_BLOCK_SEND },
		{ __NR_read, GT_IN_FD_SOCKET, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_nanosleep, 0, GOTRACE_EV_GO_SLEEP },
		{ __NR_epoll_wait, 0, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_poll, 0, GOTRACE_EV_GO_BLOCK_SELECT },
		{ __NR_wait4, 0, GOTRACE_EV_GO_BLOCK_RECV },
		{ __NR_futex, 0, GOTRACE_EV_GO_BLOCK_SYNC },
		/* a regular file: a blocking syscall */
		{ __NR_read, GT_IN_FD_OTHER, GOTRACE_EV_GO_SYSBLOCK },
	};
	struct task *t = task_new(1100, 1100, "cls");
	struct task *w = task_new(1101, 1101, "waker");
	struct task *unseen = task_new(1102, 1102, "unseen");
	struct task *tasks[] = { t, w, unseen };
	unsigned int i, n = ARRAY_SIZE(cases), found = 0;

	sim_setup("classify", 2);
	S.cur[0] = t;
	S.cur[1] = w;
	sim_start(tasks, 3);
	for (i = 0; i < n; i++) {
		sys_enter(0, cases[i].nr);
		sw_fd(0, &S.idle[0], GT_IN_SLEEP, false, cases[i].fd);
		wake(1, t);
		sw(0, t, GT_IN_RUNNABLE);
		sys_exit(0);
	}
	/* A task whose syscall entry was never seen blocks plainly. */
	sw(0, unseen, GT_IN_SLEEP);
	sw_fd(0, &S.idle[0], GT_IN_SLEEP, false, GT_IN_FD_PIPE);
	if (!sim_finish())
		return;
	/* The task's blocks, in order. */
	for (size_t k = 0, c = 0; k < nevs && c < n; k++) {
		unsigned int ty = evs[k].type;

		if (evs[k].g != 1100 || ty < GOTRACE_EV_GO_SLEEP ||
		    ty == GOTRACE_EV_GO_UNBLOCK || ty == GOTRACE_EV_GO_SYSCALL ||
		    ty == GOTRACE_EV_GO_SYSEXIT ||
		    (ty > GOTRACE_EV_GO_BLOCK_NET && ty != GOTRACE_EV_GO_SYSBLOCK))
			continue;
		ok(ty == cases[c].type, "case %zu (syscall %d, fd kind %u): event %u",
		   c, cases[c].nr, cases[c].fd, ty);
		found += ty == cases[c].type;
		c++;
	}
	ok(found == n, "every case classified (%u of %u)", found, n);
	ok(count_g(GOTRACE_EV_GO_BLOCK, 1102) == 1,
	   "a task with no syscall seen blocks with a plain GoBlock");
}

/*
 * ttwu_runnable(): woken after it set its sleep state, before it left
 * its CPU: Linux reports waking and wakeup, and no switch.
 */
static void test_wakeup_before_switch(void)
{
	struct task *t = task_new(1200, 1200, "sleeper");
	struct task *w = task_new(1201, 1201, "waker");
	struct task *tasks[] = { t, w };

	sim_setup("wakeup_before_switch", 2);
	S.cur[0] = t;
	S.cur[1] = w;
	sim_start(tasks, 2);
	syscall_quick(0, __NR_getpid);
	sys_enter(0, __NR_futex);
	wake(1, t);			/* t still runs on CPU 0 */
	sys_exit(0);
	sw_fd(0, &S.idle[0], GT_IN_RUNNABLE, true, 0);
	if (!sim_finish())
		return;
	ok(count_arg(GOTRACE_EV_GO_UNBLOCK, 1200) == 0 &&
	   count_g(GOTRACE_EV_GO_BLOCK_SYNC, 1200) == 0,
	   "no block and no unblock");
	ok(count_g(GOTRACE_EV_GO_PREEMPT, 1200) == 1, "then a preemption");
}

/* exec inside the execve syscall, with its GoSysCall still pending. */
static void test_exec_in_syscall(void)
{
	struct task *t = task_new(1300, 1300, "bash");
	struct task *tasks[] = { t };

	sim_setup("exec_in_syscall", 1);
	S.cur[0] = t;
	sim_start(tasks, 1);
	sys_enter(0, __NR_execve);
	exec_task(0, "true");
	sw(0, &S.idle[0], GT_IN_SLEEP);	/* sleeps before execve returns */
	sw(0, t, GT_IN_RUNNABLE);
	sys_exit(0);
	sw(0, &S.idle[0], GT_IN_DEAD);
	if (!sim_finish())
		return;
	ok(count_g(GOTRACE_EV_GO_SYSCALL, 1300) == 1,
	   "bash's execve entry is written before its end");
	ok(count_named("true") == 1, "true is the new goroutine");
}

/* A tid reused by a new task, and a task key reused with another start. */
static void test_reuse(void)
{
	struct task *a = task_new(1400, 1400, "first");
	struct task *b = task_new(1400, 1400, "second");
	struct task *c = task_new(1401, 1401, "keyed");
	struct task *d = task_new(1402, 1402, "rekeyed");
	struct task *tasks[] = { a, c };

	sim_setup("reuse", 1);
	S.cur[0] = a;
	sim_start(tasks, 2);
	sw(0, &S.idle[0], GT_IN_DEAD);	/* a dies */
	sw(0, b, GT_IN_RUNNABLE);		/* new task, same tid */
	/* d takes c's task_struct: c died unseen (before a wakeup of it). */
	d->in.key = c->in.key;
	strcpy(d->comm, "keyed");
	wake(0, d);
	sw(0, d, GT_IN_SLEEP);
	sw(0, &S.idle[0], GT_IN_DEAD);
	if (!sim_finish())
		return;
	ok(!strcmp(gname(1400), "first") && count_named("second") == 1,
	   "a reused tid gets a goroutine of its own");
	ok(count_named("keyed") == 2 && count_arg(GOTRACE_EV_GO_UNBLOCK, 1401) == 0,
	   "a reused key with another start time is another goroutine; the dead one's is left as it was");
}

/*
 * A task dies unseen while the trace has it running on a P, and a new
 * task gets its task_struct (its key) and runs there: the P's goroutine
 * is stale although the keys are equal.  It is preempted, and its entry,
 * unlinked when the new task was first seen, goes back to the free list:
 * 100 such tasks pass through a 64-entry table.
 */
static void test_reuse_running(void)
{
	struct task *t = task_new(1450, 1450, "forker");
	struct task *tasks[] = { t };
	struct task ghost, heir;
	unsigned int i;

	sim_setup("reuse_running", 2);
	S.cfg.max_tasks = 64;
	S.cur[0] = t;
	sim_start(tasks, 1);
	for (i = 0; i < 100; i++) {
		task_init(&ghost, 3000 + i, 3000 + i, "ghost", 0);
		task_init(&heir, 3500 + i, 3500 + i, "heir", 0);
		heir.in.key = ghost.in.key;
		fork_task(0, &ghost);
		sw(0, &ghost, GT_IN_RUNNABLE);	/* ghost runs on CPU 0 */
		wake(1, &heir);			/* ghost died unseen */
		S.cur[0] = &heir;		/* its switches were not seen */
		syscall_quick(0, __NR_getpid);
		sw(0, t, GT_IN_DEAD);		/* heir ends, forker runs */
	}
	if (!sim_finish())
		return;
	ok(!ST.halted, "not halted: the stale goroutine left its P");
	ok(count_named("ghost") == 100 && count_named("heir") == 100,
	   "100 ghosts and 100 heirs through a 64-entry table (%u, %u)",
	   count_named("ghost"), count_named("heir"));
	ok(count_g(GOTRACE_EV_GO_PREEMPT, 3000) == 1,
	   "the ghost is preempted when the heir is seen on its P");
}

/* More living tasks than the table holds: the trace ends, valid. */
static void test_task_table_full(void)
{
	struct task *t = task_new(1500, 1500, "forker");
	struct task *tasks[] = { t };
	struct task *kids[80];

	sim_setup("task_table_full", 1);
	S.cfg.max_tasks = 64;
	S.cur[0] = t;
	sim_start(tasks, 1);
	for (int i = 0; i < 80; i++) {
		kids[i] = task_new(1600 + i, 1600 + i, "kid");
		fork_task(0, kids[i]);
	}
	if (!sim_finish())
		return;
	ok(ST.halted && ST.task_overflows >= 1, "halted, task overflow counted");
	ok(count_named("kid") == 63, "the 63 kids that fit are in (%u)",
	   count_named("kid"));
}

/* Dead tasks give their entries back: many more tasks than entries. */
static void test_task_table_reuse(void)
{
	struct task *t = task_new(1700, 1700, "forker");
	struct task *tasks[] = { t };
	struct task kid;

	sim_setup("task_table_reuse", 2);
	S.cfg.max_tasks = 64;
	S.cur[0] = t;
	sim_start(tasks, 1);
	for (int i = 0; i < 500; i++) {
		task_init(&kid, 2000 + i, 2000 + i, "kid", 0);
		fork_task(0, &kid);
		sw(1, &kid, GT_IN_RUNNABLE);
		sw(1, &S.idle[1], GT_IN_DEAD);
	}
	if (!sim_finish())
		return;
	ok(!ST.halted && count_named("kid") == 500,
	   "500 short-lived tasks through a 64-entry table (%u)",
	   count_named("kid"));
}

/* More distinct stacks than the table holds: counted, still valid. */
static void test_stack_table_full(void)
{
	struct task *t = task_new(1800, 1800, "stacky");
	struct task *w = task_new(1801, 1801, "waker");
	struct task *tasks[] = { t, w };
	u64 pcs[4];

	sim_setup("stack_table_full", 2);
	S.cfg.max_stacks = 64;
	S.cur[0] = t;
	S.cur[1] = w;
	sim_start(tasks, 2);
	for (int i = 0; i < 200; i++) {
		pcs[0] = 0xffffffff81000000ULL + 16 * i;
		pcs[1] = pcs[2] = pcs[3] = 0xffffffff82000000ULL;
		sys_enter(0, __NR_futex);
		sleep_with_stack(t, pcs, 4);
		wake(1, t);
		sw(0, t, GT_IN_RUNNABLE);
		sys_exit(0);
	}
	if (!sim_finish())
		return;
	ok(ST.stack_overflows > 0 && !ST.halted,
	   "stack overflows counted (%llu), recording goes on",
	   (unsigned long long)ST.stack_overflows);
	ok(count_g(GOTRACE_EV_GO_BLOCK_SYNC, 1800) == 200, "every block is there");
}

/*
 * GOTRACE_OPT_NO_WAKE_KSTACKS: the wakeup, whose hook has a kernel
 * stack, carries the waker's comm frame only; the block keeps its
 * kernel frames.
 */
static void test_no_wake_stacks(void)
{
	static const u64 pcs[2] = { 0xffffffff81000000ULL,
				    0xffffffff81000010ULL };
	struct task *bash = task_new(1850, 1850, "bash");
	struct task *cat = task_new(1851, 1851, "cat");
	struct task *tasks[] = { bash, cat };
	struct gt_in_wake in = { .task = &bash->in };
	const struct gt_event *blk, *unb;
	size_t nb = 0, nu = 0;

	sim_setup("no_wake_stacks", 2);
	S.cfg.opts.flags = GOTRACE_OPT_NO_WAKE_KSTACKS;
	S.cur[0] = bash;
	S.cur[1] = cat;
	sim_start(tasks, 2);
	sleep_with_stack(bash, pcs, 2);
	in.ev = ev(1);
	in.ev.pcs = pcs;
	in.ev.nr_pcs = 2;
	FEED(gt_model_waking, &in);
	drain();
	wakeup(1, bash);
	sw(0, bash, GT_IN_RUNNABLE);
	if (!sim_finish())
		return;
	blk = find(GOTRACE_EV_GO_BLOCK, 1850, false);
	unb = find(GOTRACE_EV_GO_UNBLOCK, 1850, true);
	if (blk)
		gt_trace_stack(&T, blk->stk, &nb);
	if (unb)
		gt_trace_stack(&T, unb->stk, &nu);
	ok(blk && nb == 3, "the block keeps its 2 kernel frames and its comm (%zu)",
	   nb);
	ok(unb && unb->g == 1851 && nu == 1 && stack_has(unb->stk, "cat"),
	   "the wakeup: the waker's comm frame only (%zu frames)", nu);
}

/* The pool fills up with nobody reading: halted, valid, losses counted. */
static void test_overflow(void)
{
	struct task *a = task_new(1900, 1900, "a");
	struct task *b = task_new(1901, 1901, "b");
	struct task *tasks[] = { a, b };

	sim_setup("overflow", 2);
	S.cfg.chunks = 4;
	S.drain = false;
	S.cur[0] = a;
	S.cur[1] = b;
	sim_start(tasks, 2);
	for (int i = 0; i < 100000; i++)
		syscall_quick(i & 1, __NR_getpid);
	if (!sim_finish())
		return;
	ok(ST.halted && ST.lost > 0 && ST.chunk_overflows > 0,
	   "halted, %llu events lost", (unsigned long long)ST.lost);
	ok(count_type(GOTRACE_EV_PROC_START) == count_type(GOTRACE_EV_PROC_STOP),
	   "every P is closed");
}

/*
 * The generational format when a CPU's buffer fills with nobody reading:
 * the events that find no room are lost and counted, and the session
 * goes on; once a generation is written out, the next one records again,
 * the model writing ordinary transitions back to what Linux did, and the
 * first goroutine started on a P that lost events carries a user log
 * saying so.  The 1.11 twin halts, as in test_overflow().
 */
static void test_overflow_go123(void)
{
	struct task *a = task_new(1950, 1950, "a");
	struct task *b = task_new(1951, 1951, "b");
	struct task *tasks[] = { a, b };
	uint64_t begins;

	sim_setup("overflow_go123", 2);
	S.cfg.cpu_bytes = 64 * 1024;
	S.drain = false;
	S.cur[0] = a;
	S.cur[1] = b;
	sim_start(tasks, 2);
	/* a blocks and is woken while its CPU's buffer is full. */
	for (int i = 0; i < 40000; i++)
		syscall_quick(i & 1, __NR_getpid);
	sys_enter(0, __NR_nanosleep);
	sw(0, &S.idle[0], GT_IN_SLEEP);
	wake(1, a);
	/* Read again: the generation ends, the next one has room. */
	S.drain = true;
	drain();
	sw(0, a, GT_IN_RUNNABLE);
	sys_exit(0);
	for (int i = 0; i < 100; i++)
		syscall_quick(0, __NR_getppid);
	sim_finish();
	begins = INFO2.by_type[GT_GO123_EV_GO_SYSCALL_BEGIN];
	diag("overflow_go123 (go 1.23): %llu events, %llu lost, %llu syscalls",
	     (unsigned long long)ST2.events, (unsigned long long)ST2.lost,
	     (unsigned long long)begins);
	ok(ST2.lost > 0 && !ST2.halted && ST2.generations >= 2,
	   "overflow_go123 (go 1.23): %llu events lost, the session goes on",
	   (unsigned long long)ST2.lost);
	/*
	 * A generation's tables name only the stacks its events name: the
	 * getppid frame is there only if the syscalls after the loss are.
	 */
	ok(begins >= 100 && memmem(S.out2, S.len2, "getppid", 7),
	   "overflow_go123 (go 1.23): the syscalls after the loss are there");
	ok(INFO2.by_type[GT_GO123_EV_USER_LOG] >= 1,
	   "overflow_go123 (go 1.23): a user log marks where events were lost");
}

/*
 * CPUs offline as the session begins (64 possible, 2 online: the
 * @maxcpus64 guest) get small buffers: sized as the online ones', the
 * BPF backend reserved 1 GiB and could not fork its command in a 1 GiB
 * guest.  One that comes online still records: its small buffer ends
 * generations sooner, and nothing is lost.
 */
static void test_offline_cpus(void)
{
	static bool online[64] = { [0] = true, [1] = true };
	struct task *a = task_new(1960, 1960, "a");
	struct task *tasks[] = { a };
	const uint64_t mib = 1024 * 1024;

	sim_setup("offline_cpus", 64);
	S.cfg.online = online;
	S.cur[0] = a;
	sim_start(tasks, 1);
	/* a moves to CPU 40, which came online, and makes syscalls there. */
	sw(0, &S.idle[0], GT_IN_RUNNABLE);
	sw(40, a, GT_IN_RUNNABLE);
	for (int i = 0; i < 20000; i++)
		syscall_quick(40, __NR_getppid);
	sim_finish();
	diag("offline_cpus (go 1.23): %llu bytes of CPU buffers, %llu generations",
	     (unsigned long long)ST2.cpu_buffer_bytes,
	     (unsigned long long)ST2.generations);
	ok(ST2.cpu_buffer_bytes == 2 * 2 * 4 * mib + 62 * 2 * 64 * 1024,
	   "offline_cpus (go 1.23): 4 MiB per set for the 2 online CPUs, 64 KiB for the 62 others");
	ok(!ST2.lost && !ST2.halted && ST2.generations >= 2 &&
	   INFO2.by_type[GT_GO123_EV_GO_SYSCALL_BEGIN] >= 20000,
	   "offline_cpus (go 1.23): a CPU come online records its %d syscalls, none lost",
	   20000);
}

/* Per-CPU clocks out of step: CPU 1's events are stamped before CPU 0's. */
static void test_clock_skew(void)
{
	struct task *a = task_new(2100, 2100, "a");
	struct task *b = task_new(2101, 2101, "b");
	struct task *tasks[] = { a, b };
	struct gt_in_wake wk;
	struct gt_in_switch in;

	sim_setup("clock_skew", 2);
	S.cur[0] = a;
	S.cur[1] = b;
	sim_start(tasks, 2);
	sys_enter(0, __NR_futex);
	sw(0, &S.idle[0], GT_IN_SLEEP);
	/* b wakes a "before" a slept, by b's clock */
	wk = (struct gt_in_wake){ .ev = ev(1), .task = &a->in };
	wk.ev.ts -= 500;
	FEED(gt_model_waking, &wk);
	FEED(gt_model_wakeup, &wk);
	in = (struct gt_in_switch){ .ev = ev(0), .prev = &S.idle[0].in,
				    .next = &a->in };
	in.ev.ts -= 1000;
	FEED(gt_model_switch, &in);
	S.cur[0] = a;
	sys_exit(0);
	if (!sim_finish())
		return;
	ok(count_arg(GOTRACE_EV_GO_UNBLOCK, 2100) == 1,
	   "the unblock is there, after the block");
}

/* Four Ps, one of them without a single event. */
static void test_idle_p(void)
{
	struct task *a = task_new(2200, 2200, "a");
	struct task *tasks[] = { a };
	struct gt_trace_info *info = &T.info;

	sim_setup("idle_p", 4);
	S.cur[0] = a;
	sim_start(tasks, 1);
	syscall_quick(0, __NR_getpid);
	sw(1, &S.idle[1], GT_IN_RUNNABLE);
	if (!sim_finish())
		return;
	(void)info;
	ok(count_type(GOTRACE_EV_PROC_START) == 2,
	   "only the Ps with events start (%u)", count_type(GOTRACE_EV_PROC_START));
}

/* Events of a CPU the session does not have are dropped. */
static void test_bad_cpu(void)
{
	struct task *a = task_new(2300, 2300, "a");
	struct task *tasks[] = { a };
	struct gt_in_sys_enter in;

	sim_setup("bad_cpu", 1);
	S.cur[0] = a;
	sim_start(tasks, 1);
	in = (struct gt_in_sys_enter){ .ev = ev(0), .nr = __NR_getpid };
	in.ev.cpu = 7;
	FEED(gt_model_sys_enter, &in);
	syscall_quick(0, __NR_getppid);
	if (!sim_finish())
		return;
	ok(count_g(GOTRACE_EV_GO_SYSCALL, 2300) == 1, "only CPU 0's syscall");
}

/*
 * A switch record lost (the BPF backend's ring was full): a still runs
 * on P0 for the model when P1 switches to it.  In user space one thread
 * feeds every P: a is preempted on P0 at P0's last event and starts on
 * P1, the trace goes on, valid, and a's later events are in it.
 */
static void test_lost_switch(void)
{
	struct task *a = task_new(2400, 2400, "a");
	struct task *b = task_new(2401, 2401, "b");
	struct task *tasks[] = { a, b };
	size_t off_p0 = 0, on_p1 = 0;

	sim_setup("lost_switch", 2);
	S.cur[0] = a;
	sim_start(tasks, 2);
	syscall_quick(0, __NR_getppid);		/* a runs on P0 */
	/* CPU 0 switched from a to idle; its record was dropped. */
	S.cur[0] = &S.idle[0];
	sw(1, a, GT_IN_RUNNABLE);
	ok(!gt_umodel_halted(S.m),
	   "lost switch: a running on two Ps does not halt the model");
	syscall_quick(1, __NR_getpid);		/* a, now on P1 */
	sw(0, b, GT_IN_RUNNABLE);		/* P0 runs b */
	syscall_quick(0, __NR_getppid);
	if (!sim_finish())
		return;
	ok(!ST.halted, "lost switch: its statistics do not say halted");
	for (size_t i = 0; i < nevs; i++) {
		if (evs[i].g != 2400)
			continue;
		if (evs[i].type == GOTRACE_EV_GO_PREEMPT && evs[i].p == 0)
			off_p0 = i + 1;
		if (evs[i].type == GOTRACE_EV_GO_START && evs[i].p == 1)
			on_p1 = i + 1;
	}
	ok(off_p0 && on_p1 > off_p0,
	   "a is preempted on P0, then started on P1 (events %zu, %zu)",
	   off_p0, on_p1);
	ok(count_g(GOTRACE_EV_GO_SYSCALL, 2400) == 2 &&
	   count_g(GOTRACE_EV_GO_SYSCALL, 2401) == 1,
	   "the syscalls after the lost switch are in the trace");
}

/*
 * Per-generation tables (go 1.23): a session that names far more
 * distinct stacks, or comms, than a table holds, over many generations.
 * The go 1.23 twin keeps every one (its tables are a generation's, and a
 * generation whose table passes three quarters ends early: no time limit
 * here), while the 1.11 twin, of the same size, overflows.  Every block
 * of the go 1.23 trace names its own kernel frame and comm, whatever
 * generation it is in.
 */
#define TG_PC(i)	(0xffffffff81000000ULL + 16 * (u64)(i))

static bool tg_symbolise(void *arg, u64 pc, char *buf, size_t len)
{
	(void)arg;
	snprintf(buf, len, "kfn_%llx+0x0/0x10", (unsigned long long)pc);
	return true;
}

#define TG_PCS		(1U << 16)

/*
 * Walk every generation of the generational trace @buf with @fn: 0 when
 * the whole trace read, else what gt_go123_next() returned, with @err set.
 */
static int go123_walk_all(const u8 *buf, size_t len, gt_go123_event_fn fn,
			  void *ctx, struct gt_trace_error *err)
{
	struct gt_go123_reader r;
	struct gt_go123_gen g = { 0 };
	struct gt_src src;
	int ret;

	gt_src_mem(&src, buf, len);
	gt_go123_open(&r, &src);
	while ((ret = gt_go123_next(&r, &g, err)) > 0)
		if (gt_go123_walk(&g, fn, ctx, err))
			break;
	gt_go123_gen_free(&g);
	return ret;
}

struct tg_walk {
	unsigned int period;	/* blocks per comm */
	unsigned int blocks;	/* blocks seen, in order */
	unsigned int right;	/* of them naming the expected frames */
	unsigned int creates;	/* GoCreates whose stack names a comm */
	/* Every PC seen, in any generation, and the function it named. */
	struct { u64 pc; char name[32]; } pcs[TG_PCS];
	unsigned int conflicts;	/* PCs that named two functions */
};

/*
 * The frames of @stack name the same function in every generation:
 * Go 1.23's profiles name a PC once for the whole trace.
 */
static void tg_pcs(struct tg_walk *w, const struct gt_go123_gen *g, u64 id)
{
	const struct gt_go123_frame *f;
	const uint64_t *pcs;
	const char *str;
	size_t n, len;
	unsigned int i;

	if (!gt_go123_stack(g, id, &pcs, &n))
		return;
	for (size_t k = 0; k < n; k++) {
		f = gt_go123_frame(g, pcs[k]);
		if (!f || !gt_go123_string(g, f->func, &str, &len) || len > 31)
			continue;
		for (i = pcs[k] / 16 % TG_PCS; w->pcs[i].pc &&
		     w->pcs[i].pc != pcs[k]; i = (i + 1) % TG_PCS)
			;
		if (w->pcs[i].pc) {
			w->conflicts += strlen(w->pcs[i].name) != len ||
					memcmp(w->pcs[i].name, str, len);
			continue;
		}
		w->pcs[i].pc = pcs[k];
		memcpy(w->pcs[i].name, str, len);
	}
}

/* Function name of frame @idx of stack @id of generation @g ("" if none). */
static const char *tg_frame(const struct gt_go123_gen *g, u64 id, size_t idx,
			    bool last, char *buf, size_t size)
{
	const struct gt_go123_frame *f;
	const uint64_t *pcs;
	const char *str;
	size_t n, len;

	buf[0] = '\0';
	if (!gt_go123_stack(g, id, &pcs, &n) || idx >= n)
		return buf;
	f = gt_go123_frame(g, pcs[last ? n - 1 : idx]);
	if (f && gt_go123_string(g, f->func, &str, &len))
		snprintf(buf, size, "%.*s", (int)len, str);
	return buf;
}

static int tg_event(void *ctx, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct tg_walk *w = ctx;
	char top[64], want[64], comm[64], wcomm[64];

	(void)err;
	if (ev->type == GT_GO123_EV_GO_CREATE) {
		tg_pcs(w, g, ev->args[2]);
		tg_frame(g, ev->args[2], 0, false, comm, sizeof(comm));
		w->creates += comm[0] == 'c' || !strcmp(comm, "waker");
		return 0;
	}
	if (ev->type != GT_GO123_EV_GO_BLOCK)
		return 0;
	tg_pcs(w, g, ev->args[2]);
	tg_frame(g, ev->args[2], 0, false, top, sizeof(top));
	if (strncmp(top, "kfn_", 4))
		return 0;
	snprintf(want, sizeof(want), "kfn_%llx",
		 (unsigned long long)TG_PC(w->blocks));
	snprintf(wcomm, sizeof(wcomm), "c%u", w->blocks / w->period);
	tg_frame(g, ev->args[2], 0, true, comm, sizeof(comm));
	w->right += !strcmp(top, want) && !strcmp(comm, wcomm);
	w->blocks++;
	return 0;
}

/* Walk the go 1.23 twin's generations; false if one does not read. */
static bool tg_walk(struct tg_walk *w)
{
	struct gt_trace_error err = { 0 };
	int ret = go123_walk_all(S.out2, S.len2, tg_event, w, &err);

	if (err.msg[0])
		diag("%s: %s", S.name, err.msg);
	return ret == 0 && !err.msg[0];
}

/*
 * @n blocks of a task, each with a stack of its own; the task executes
 * a program of another name every @period blocks.
 */
static void tg_run(const char *name, unsigned int max_stacks, unsigned int n,
		   unsigned int period, unsigned int sleepers)
{
	struct task *t = task_new(1900, 1900, "c0");
	struct task *w = task_new(1901, 1901, "waker");
	struct task *tasks[2 + 100] = { t, w };
	static struct tg_walk walk;
	bool read;
	u64 pcs[4];
	char comm[16];

	memset(&walk, 0, sizeof(walk));
	walk.period = period;
	sim_setup(name, 2);
	S.cfg.max_stacks = max_stacks;
	S.cfg.symbolise = tg_symbolise;
	S.cur[0] = t;
	S.cur[1] = w;
	/* Asleep throughout: every generation's sweep names each. */
	for (unsigned int i = 0; i < sleepers && i < 100; i++) {
		snprintf(comm, sizeof(comm), "sleeper%u", i);
		tasks[2 + i] = task_new(2000 + i, 2000 + i, comm);
	}
	sim_start(tasks, 2 + (sleepers < 100 ? sleepers : 100));
	/* Only the tables end a generation. */
	gt_umodel_set_generation_ns(S.m2, 1000000000000ULL);
	for (unsigned int i = 0; i < n; i++) {
		if (i && i % period == 0) {
			snprintf(comm, sizeof(comm), "c%u", i / period);
			exec_task(0, comm);
		}
		pcs[0] = TG_PC(i);
		pcs[1] = pcs[2] = pcs[3] = 0xffffffff82000000ULL;
		sys_enter(0, __NR_futex);
		sleep_with_stack(t, pcs, 4);
		wake(1, t);
		sw(0, t, GT_IN_RUNNABLE);
		sys_exit(0);
	}
	sim_finish();
	diag("%s: go 1.23: %llu generations, tables held at most %u stacks, "
	     "%u PCs, %u comms; go 1.11: %llu stack overflows", name,
	     (unsigned long long)ST2.generations, ST2.table_stacks_max,
	     ST2.table_pcs_max, ST2.table_comms_max,
	     (unsigned long long)ST.stack_overflows);
	ok(ST2.stack_overflows == 0 && ST2.lost == 0 && !ST2.halted,
	   "%s (go 1.23): no stack lost over %llu generations (%llu overflows)",
	   name, (unsigned long long)ST2.generations,
	   (unsigned long long)ST2.stack_overflows);
	read = tg_walk(&walk);
	ok(read && walk.blocks == n && walk.right == n,
	   "%s (go 1.23): every block (%u of %u) names its own frame and comm "
	   "(%u right)", name, walk.blocks, n, walk.right);
	ok(read && !walk.conflicts,
	   "%s (go 1.23): a PC (comm, hidden kernel) names one function in "
	   "every generation (%u PCs named two)", name, walk.conflicts);
	/* The first goroutine was in the snapshot: stated, not created. */
	ok(read && walk.creates == n / period - 1,
	   "%s (go 1.23): the %u goroutines created are named by their comms",
	   name, walk.creates);
}

/* Many distinct stacks: the stack table ends generations. */
static void test_table_generations_stacks(void)
{
	tg_run("table_gens_stacks", 256, 3000, 25, 0);
	ok(ST.stack_overflows > 0,
	   "table_gens_stacks: the 1.11 format's one table of the same size "
	   "overflows (%llu)", (unsigned long long)ST.stack_overflows);
	ok(ST2.generations >= 3000 / 128 &&
	   ST2.table_stacks_max <= 128,
	   "table_gens_stacks (go 1.23): %llu generations, each table under "
	   "its 128 stacks (%u at most)", (unsigned long long)ST2.generations,
	   ST2.table_stacks_max);
}

/*
 * Many distinct stacks while 60 tasks of distinct comms sleep: each
 * generation's sweep adds their 60 comm stacks to its table, which the
 * kernel stacks must leave room for (half the 128 of a table; a tenth
 * is kept without the last generation's count).
 */
static void test_table_generations_live(void)
{
	tg_run("table_gens_live", 256, 1000, 25, 60);
}

/* Many distinct comms: the comm table ends generations. */
static void test_table_generations_comms(void)
{
	tg_run("table_gens_comms", 65536, 20000, 1, 0);
	ok(count_named("?") > 0,
	   "table_gens_comms: the 1.11 format's one table names %u goroutines "
	   "'?'", count_named("?"));
	ok(ST2.generations >= 3 && ST2.table_comms_max <= 8192,
	   "table_gens_comms (go 1.23): %llu generations, each table under "
	   "its 8192 comms (%u at most)", (unsigned long long)ST2.generations,
	   ST2.table_comms_max);
}

/*
 * Is @type the event a task's sleep is (a block, a sleep or a blocking
 * syscall), as opposed to the events around it?
 */
static bool is_sleep_event(unsigned int type)
{
	return (type >= GOTRACE_EV_GO_SLEEP && type <= GOTRACE_EV_GO_BLOCK_NET &&
		type != GOTRACE_EV_GO_UNBLOCK && type != GOTRACE_EV_GO_SYSCALL) ||
	       type == GOTRACE_EV_GO_SYSBLOCK;
}

/*
 * Every case of the classifier (classify.c), one sleep each of a 64-bit
 * task, in order, then of a 32-bit (compat) one: its numbers are another
 * table's (i386's 202 is getegid32, 0 restart_syscall), so it sleeps in
 * a plain blocking syscall, whatever its number means on x86-64, and its
 * 24 (getuid) preempted is no sched_yield.
 */
static void test_classify_all(void)
{
	static const struct {
		int nr;
		u8 fd;
		bool compat;
		unsigned int type;
	} cases[] = {
		{ __NR_futex, 0, false, GOTRACE_EV_GO_BLOCK_SYNC },
		{ __NR_futex_waitv, 0, false, GOTRACE_EV_GO_BLOCK_SYNC },
		{ __NR_nanosleep, 0, false, GOTRACE_EV_GO_SLEEP },
		{ __NR_clock_nanosleep, 0, false, GOTRACE_EV_GO_SLEEP },
		{ __NR_poll, 0, false, GOTRACE_EV_GO_BLOCK_SELECT },
		{ __NR_ppoll, 0, false, GOTRACE_EV_GO_BLOCK_SELECT },
		{ __NR_select, 0, false, GOTRACE_EV_GO_BLOCK_SELECT },
		{ __NR_pselect6, 0, false, GOTRACE_EV_GO_BLOCK_SELECT },
		{ __NR_epoll_wait, 0, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_epoll_pwait, 0, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_epoll_pwait2, 0, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_accept, 0, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_accept4, 0, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_connect, 0, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_recvfrom, 0, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_recvmsg, 0, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_recvmmsg, 0, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_sendto, 0, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_sendmsg, 0, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_sendmmsg, 0, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_wait4, 0, false, GOTRACE_EV_GO_BLOCK_RECV },
		{ __NR_waitid, 0, false, GOTRACE_EV_GO_BLOCK_RECV },
		{ __NR_read, GT_IN_FD_PIPE, false, GOTRACE_EV_GO_BLOCK_RECV },
		{ __NR_readv, GT_IN_FD_PIPE, false, GOTRACE_EV_GO_BLOCK_RECV },
		{ __NR_pread64, GT_IN_FD_PIPE, false, GOTRACE_EV_GO_BLOCK_RECV },
		{ __NR_preadv, GT_IN_FD_PIPE, false, GOTRACE_EV_GO_BLOCK_RECV },
		{ __NR_preadv2, GT_IN_FD_PIPE, false, GOTRACE_EV_GO_BLOCK_RECV },
		{ __NR_readv, GT_IN_FD_SOCKET, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_preadv2, GT_IN_FD_OTHER, false, GOTRACE_EV_GO_SYSBLOCK },
		{ __NR_write, GT_IN_FD_PIPE, false, GOTRACE_EV_GO_BLOCK_SEND },
		{ __NR_writev, GT_IN_FD_PIPE, false, GOTRACE_EV_GO_BLOCK_SEND },
		{ __NR_pwrite64, GT_IN_FD_PIPE, false, GOTRACE_EV_GO_BLOCK_SEND },
		{ __NR_pwritev, GT_IN_FD_PIPE, false, GOTRACE_EV_GO_BLOCK_SEND },
		{ __NR_pwritev2, GT_IN_FD_PIPE, false, GOTRACE_EV_GO_BLOCK_SEND },
		{ __NR_write, GT_IN_FD_SOCKET, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_pwritev2, GT_IN_FD_SOCKET, false, GOTRACE_EV_GO_BLOCK_NET },
		{ __NR_write, GT_IN_FD_OTHER, false, GOTRACE_EV_GO_SYSBLOCK },
		{ __NR_openat, 0, false, GOTRACE_EV_GO_SYSBLOCK },
		/* 32-bit: i386's getegid32, restart_syscall, ... */
		{ __NR_futex, 0, true, GOTRACE_EV_GO_SYSBLOCK },
		{ __NR_read, GT_IN_FD_PIPE, true, GOTRACE_EV_GO_SYSBLOCK },
		{ __NR_nanosleep, 0, true, GOTRACE_EV_GO_SYSBLOCK },
		{ __NR_epoll_wait, 0, true, GOTRACE_EV_GO_SYSBLOCK },
	};
	struct task *t = task_new(1150, 1150, "clsall");
	struct task *w = task_new(1151, 1151, "waker");
	struct task *tasks[] = { t, w };
	unsigned int i, n = ARRAY_SIZE(cases), c = 0, right = 0, off = 0;
	unsigned int yields[2] = { 0 };
	struct gt_in_sys_enter in;

	sim_setup("classify_all", 2);
	S.cur[0] = t;
	S.cur[1] = w;
	sim_start(tasks, 2);
	for (i = 0; i < n; i++) {
		in = (struct gt_in_sys_enter){ .ev = ev(0), .nr = cases[i].nr,
					       .compat = cases[i].compat };
		FEED(gt_model_sys_enter, &in);
		drain();
		sw_fd(0, &S.idle[0], GT_IN_SLEEP, false, cases[i].fd);
		wake(1, t);
		sw(0, t, GT_IN_RUNNABLE);
		sys_exit(0);
	}
	/* Preempted in sched_yield's number: x86-64's only. */
	for (i = 0; i < 2; i++) {
		in = (struct gt_in_sys_enter){ .ev = ev(0), .nr = __NR_sched_yield,
					       .compat = i };
		FEED(gt_model_sys_enter, &in);
		drain();
		sw(0, &S.idle[0], GT_IN_RUNNABLE);
		sw(0, t, GT_IN_RUNNABLE);
		sys_exit(0);
	}
	if (!sim_finish())
		return;
	for (size_t k = 0; k < nevs; k++) {
		if (evs[k].g != 1150 || !is_sleep_event(evs[k].type))
			continue;
		if (c < n && evs[k].type != cases[c].type)
			diag("case %u (syscall %d%s, fd kind %u): event %u, "
			     "not %u", c, cases[c].nr,
			     cases[c].compat ? ", compat" : "", cases[c].fd,
			     evs[k].type, cases[c].type);
		right += c < n && evs[k].type == cases[c].type;
		c++;
	}
	ok(c == n && right == n,
	   "classify_all: %u of %u sleeps, %u of them the event of their "
	   "syscall, ABI and file", c, n, right);
	/* The task's first two switches off its P after its last sleep. */
	for (size_t k = 0; k < nevs && off < 2; k++) {
		if (evs[k].g != 1150)
			continue;
		if (is_sleep_event(evs[k].type))
			off = 0;
		else if (evs[k].type == GOTRACE_EV_GO_SCHED ||
			 evs[k].type == GOTRACE_EV_GO_PREEMPT)
			yields[off++] = evs[k].type;
	}
	ok(yields[0] == GOTRACE_EV_GO_SCHED &&
	   yields[1] == GOTRACE_EV_GO_PREEMPT,
	   "classify_all: sched_yield's number is a GoSched of a 64-bit task "
	   "(%u), a GoPreempt of a 32-bit one (%u)", yields[0], yields[1]);
}

/* The first event of @type of goroutine @g at or after event @from. */
static const struct gt_event *find_from(size_t from, unsigned int type, u64 g,
					bool target)
{
	for (size_t i = from; i < nevs; i++)
		if (evs[i].type == type &&
		    (target ? evs[i].args[0] : evs[i].g) == g)
			return &evs[i];
	return NULL;
}

/* What run_sys_times() fed: the times of the syscall's steps. */
struct sys_times {
	u64 enter, wake, sleep;	/* its entry, the waking of x, its sleep */
	u64 woken;		/* sched_waking of it, on CPU 1 */
};

/*
 * Task 1500 enters openat on CPU 0, 1 us later (maybe after it wakes
 * task x on its own CPU: @wake_between) sleeps in it; task 1501 wakes it
 * from CPU 1, and it runs on CPU 0 again.
 */
static void run_sys_times(const char *name, unsigned int mode,
			  bool wake_between, struct sys_times *tm)
{
	static const u64 pcs[] = { 0xffffffff81a00000ULL };
	struct task *t = task_new(1500, 1500, "systime");
	struct task *w = task_new(1501, 1501, "waker");
	struct task *x = task_new(1502, 1502, "x");
	struct task *tasks[] = { t, w, x };

	sim_setup(name, 2);
	S.cfg.opts.syscalls = mode;
	S.cur[0] = t;
	S.cur[1] = w;
	sim_start(tasks, 3);
	syscall_quick(0, __NR_getpid);
	sys_enter(0, __NR_openat);
	tm->enter = S.ts;
	S.ts += 1000;
	if (wake_between) {
		wake(0, x);
		tm->wake = S.ts;
		S.ts += 1000;
	}
	sleep_with_stack(t, pcs, 1);
	tm->sleep = S.ts;
	S.ts += 1000;
	waking(1, t);
	tm->woken = S.ts;
	wakeup(1, t);
	sw(0, t, GT_IN_RUNNABLE);
	sys_exit(0);
	sim_finish();
}

/*
 * The GoSysCall of a syscall that sleeps is the syscall's start: its
 * entry's time, whether the entry's own event was still pending (ALL)
 * or none was written (BLOCKING); with ALL, once the entry's event is
 * written (the task woke another task meanwhile), the sleep is another
 * syscall event, of the sleep's time.  The GoSysExit is written where
 * and when the task is woken: on the waker's P, at its sched_waking.
 */
static void test_sys_times(void)
{
	const struct gt_event *sc, *sb, *se;
	struct sys_times tm;
	size_t k;

	run_sys_times("sys_times_all", GOTRACE_SYSCALLS_ALL, false, &tm);
	for (k = 0; k < nevs && !(evs[k].g == 1500 &&
				  evs[k].type == GOTRACE_EV_GO_SYSBLOCK); k++)
		;
	sb = k < nevs ? &evs[k] : NULL;
	sc = sb && k ? &evs[k - 1] : NULL;
	ok(sc && sc->type == GOTRACE_EV_GO_SYSCALL && sc->g == 1500 &&
	   sc->ts == tm.enter && stack_has(sc->stk, "sys_openat"),
	   "ALL: the sleeping openat's GoSysCall is at its entry, %llu "
	   "(%llu), before its GoSysBlock", (unsigned long long)tm.enter,
	   sc ? (unsigned long long)sc->ts : 0ULL);
	se = sb ? find_from(k, GOTRACE_EV_GO_SYSEXIT, 1500, true) : NULL;
	ok(se && se->p == 1 && se->ts == tm.woken,
	   "its GoSysExit is on the waker's P 1 (%llu), at its sched_waking, "
	   "%llu (%llu)", se ? (unsigned long long)se->p : 0ULL,
	   (unsigned long long)tm.woken, se ? (unsigned long long)se->ts : 0ULL);

	run_sys_times("sys_times_blocking", GOTRACE_SYSCALLS_BLOCKING, false,
		      &tm);
	sc = find(GOTRACE_EV_GO_SYSCALL, 1500, false);
	ok(sc && count_g(GOTRACE_EV_GO_SYSCALL, 1500) == 1 &&
	   sc->ts == tm.enter,
	   "BLOCKING: the one GoSysCall is at the openat's entry, %llu (%llu)",
	   (unsigned long long)tm.enter, sc ? (unsigned long long)sc->ts : 0ULL);
	se = find(GOTRACE_EV_GO_SYSEXIT, 1500, true);
	ok(se && se->p == 1 && se->ts == tm.woken,
	   "BLOCKING: its GoSysExit on P 1 (%llu) at %llu (%llu)",
	   se ? (unsigned long long)se->p : 0ULL, (unsigned long long)tm.woken,
	   se ? (unsigned long long)se->ts : 0ULL);

	run_sys_times("sys_times_between", GOTRACE_SYSCALLS_ALL, true, &tm);
	for (k = 0; k < nevs && !(evs[k].g == 1500 &&
				  evs[k].type == GOTRACE_EV_GO_SYSBLOCK); k++)
		;
	sc = k < nevs && k ? &evs[k - 1] : NULL;
	ok(count_g(GOTRACE_EV_GO_SYSCALL, 1500) == 3 && sc &&
	   sc->type == GOTRACE_EV_GO_SYSCALL && sc->ts == tm.sleep,
	   "ALL, the entry written before the sleep: the sleep's GoSysCall "
	   "is at the sleep, %llu (%llu), after the wakeup at %llu",
	   (unsigned long long)tm.sleep, sc ? (unsigned long long)sc->ts : 0ULL,
	   (unsigned long long)tm.wake);
}

/* Order events by P, then by where they are in the file. */
static int by_p_off(const void *a, const void *b)
{
	const struct gt_event *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * CPU 0's clock steps back: each task it switches to is started 5 ns
 * before the preemption just written there (the model stamps both after
 * it), for long enough to fill several 64 KiB chunks.  Within a batch
 * the encoder cannot write a negative delta; a batch's base time is
 * absolute, so the model's clamp is all that keeps it from going before
 * the P's last event, which Go's readers take as that P going back in
 * time.  In file order, each P's events never go back.
 */
static void test_clock_skew_batches(void)
{
	enum { NT = 3, SWITCHES = 60000 };
	struct task *t[NT];
	struct gt_in_switch in;
	size_t back = 0, batches = 0, i;
	u64 p = UINT64_MAX, last = 0;
	struct gt_event *sorted;

	sim_setup("clock_skew_batches", 1);
	for (i = 0; i < NT; i++)
		t[i] = task_new(2150 + i, 2150 + i, "skew");
	sim_start(t, NT);
	for (i = 0; i < SWITCHES; i++) {
		struct task *next = i % 2 ? &S.idle[0] : t[i / 2 % NT];

		in = (struct gt_in_switch){ .ev = ev(0), .prev = &S.cur[0]->in,
					    .next = &next->in, .preempt = true,
					    .prev_state = GT_IN_RUNNABLE };
		if (!(i % 2))
			in.ev.ts -= 15;
		FEED(gt_model_switch, &in);
		S.cur[0] = next;
		drain();
	}
	if (!sim_finish())
		return;
	for (i = 0; i < T.ix.nbatches; i++)
		batches += T.ix.batches[i].p == 0;
	sorted = malloc(nevs * sizeof(*sorted));
	if (!sorted)
		abort();
	memcpy(sorted, evs, nevs * sizeof(*sorted));
	qsort(sorted, nevs, sizeof(*sorted), by_p_off);
	for (i = 0; i < nevs; i++) {
		if (sorted[i].p != p)
			last = 0;
		p = sorted[i].p;
		if (sorted[i].ts < last && !back++)
			diag("P %llu: an event at %llu, after one at %llu",
			     (unsigned long long)p,
			     (unsigned long long)sorted[i].ts,
			     (unsigned long long)last);
		last = sorted[i].ts > last ? sorted[i].ts : last;
	}
	free(sorted);
	ok(batches >= 4 && !back,
	   "clock_skew_batches: over P 0's %zu batches, %zu events go back "
	   "in time", batches, back);
}

/* Comm @i of test_comm_names(): w000 to w999, then x00 + [0-9A-Za-z]... */
static void comm_name(unsigned int i, char *comm, size_t size)
{
	static const char alnum[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz";

	if (i < 1000)
		snprintf(comm, size, "w%03u", i);
	else
		snprintf(comm, size, "x%02u%c", (i - 1000) / 62,
			 alnum[(i - 1000) % 62]);
}

/*
 * Comms that differ in their last byte only: w000 to w999, and 992 in
 * groups of 62 (x00 + 0 to x15 + z), so that the hash set of the
 * footer's strings often probes a string of the same group before the
 * comm's own slot.  Each goroutine is named after its own comm.
 */
static void test_comm_names(void)
{
	enum { N = 1000 + 16 * 62 };
	static struct task many[N];
	static struct task *tasks[N];
	unsigned int i, right = 0;
	char comm[8];

	sim_setup("comm_names", 1);
	for (i = 0; i < N; i++) {
		comm_name(i, comm, sizeof(comm));
		task_init(&many[i], 3000 + i, 3000 + i, comm, 0);
		tasks[i] = &many[i];
	}
	sim_start(tasks, N);
	syscall_quick(0, __NR_getpid);
	if (!sim_finish())
		return;
	for (i = 0; i < N; i++) {
		comm_name(i, comm, sizeof(comm));
		if (strcmp(gname(3000 + i), comm)) {
			if (i - right < 3)
				diag("goroutine %u is named '%s', not '%s'",
				     3000 + i, gname(3000 + i), comm);
			continue;
		}
		right++;
	}
	ok(right == N, "comm_names: %u of %u goroutines named after their comm",
	   right, N);
}

/* What sf_event() counts of the go 1.23 twin's blocks. */
struct sf_walk {
	const char *comm;	/* the task that blocks */
	unsigned int blocks;	/* GoBlock events */
	unsigned int named;	/* of them whose stack ends with @comm */
};

static int sf_event(void *ctx, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct sf_walk *w = ctx;
	char last[64];

	(void)err;
	if (ev->type != GT_GO123_EV_GO_BLOCK)
		return 0;
	w->blocks++;
	tg_frame(g, ev->args[2], 0, true, last, sizeof(last));
	w->named += !strcmp(last, w->comm);
	return 0;
}

/*
 * The stack table full in both formats (the reader does not come, so
 * the go 1.23 twin's generation does not end): every block of the task
 * still has a stack, its comm stack at least, that names it.
 */
static void test_stack_table_full_named(void)
{
	struct task *t = task_new(1860, 1860, "stacky");
	struct task *w = task_new(1861, 1861, "waker");
	struct task *tasks[] = { t, w };
	struct sf_walk walk = { .comm = "stacky" };
	struct gt_trace_error err = { 0 };
	unsigned int blocks = 0, named = 0;
	bool read;
	char buf[64];
	size_t n;
	u64 pcs[4];

	sim_setup("stack_table_full_named", 2);
	S.cfg.max_stacks = 64;
	S.cur[0] = t;
	S.cur[1] = w;
	sim_start(tasks, 2);
	S.drain = false;
	for (int i = 0; i < 200; i++) {
		pcs[0] = 0xffffffff81000000ULL + 16 * i;
		pcs[1] = pcs[2] = pcs[3] = 0xffffffff82000000ULL;
		sys_enter(0, __NR_futex);
		sleep_with_stack(t, pcs, 4);
		wake(1, t);
		sw(0, t, GT_IN_RUNNABLE);
		sys_exit(0);
	}
	S.drain = true;
	drain();
	if (!sim_finish())
		return;
	for (size_t k = 0; k < nevs; k++) {
		if (evs[k].g != 1860 || evs[k].type != GOTRACE_EV_GO_BLOCK_SYNC)
			continue;
		blocks++;
		if (gt_trace_stack(&T, evs[k].stk, &n) && n &&
		    !strcmp(frame_name(evs[k].stk, n - 1, buf, sizeof(buf)),
			    "stacky"))
			named++;
	}
	ok(ST.stack_overflows > 0 && blocks == 200 && named == 200,
	   "stack_table_full_named: %llu stacks lost, %u of the 200 blocks "
	   "there, %u named stacky", (unsigned long long)ST.stack_overflows,
	   blocks, named);
	read = !go123_walk_all(S.out2, S.len2, sf_event, &walk, &err);
	ok(ST2.stack_overflows > 0 && read && walk.blocks == 200 &&
	   walk.named == 200,
	   "stack_table_full_named (go 1.23): %llu stacks lost, %u of the "
	   "200 blocks there, %u named stacky%s%s",
	   (unsigned long long)ST2.stack_overflows, walk.blocks, walk.named,
	   err.msg[0] ? ": " : "", err.msg);
}

/*
 * Kernel waits (go 1.23): a plain block outside any syscall is named by
 * the kernel function it waits in, the innermost frame that is not the
 * scheduler's; one whose name Go's block profile would take (it contains
 * "sync") stays "blocked", and so does one with no kernel frame; a block
 * in a syscall keeps "class: syscall".
 */
#define KW_PC(i)	(0xffffffff83000000ULL + 16 * (u64)(i))

static const char *const kw_names[] = {
	"__schedule", "schedule", "schedule_timeout", "worker_thread",
	"kthread", "synchronize_rcu_expedited", "futex_wait_queue",
};

static bool kw_symbolise(void *arg, u64 pc, char *buf, size_t len)
{
	(void)arg;
	if (pc < KW_PC(0) || pc >= KW_PC(ARRAY_SIZE(kw_names)))
		return false;
	snprintf(buf, len, "%s+0x10/0x80", kw_names[(pc - KW_PC(0)) / 16]);
	return true;
}

struct kw_walk {
	char reasons[8][64];	/* of the GoBlocks, in order */
	unsigned int n;
};

static int kw_event(void *ctx, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct kw_walk *w = ctx;
	const char *str;
	size_t len;

	(void)err;
	if (ev->type != GT_GO123_EV_GO_BLOCK || w->n == ARRAY_SIZE(w->reasons))
		return 0;
	if (!gt_go123_string(g, ev->args[1], &str, &len))
		str = "?", len = 1;
	snprintf(w->reasons[w->n++], sizeof(w->reasons[0]), "%.*s",
		 (int)len, str);
	return 0;
}

/* @t on CPU 0 blocks with kernel frames @idx (indices of kw_names). */
static void kw_block(struct task *t, const unsigned int *idx, unsigned int n)
{
	u64 pcs[8];

	for (unsigned int i = 0; i < n; i++)
		pcs[i] = KW_PC(idx[i]);
	sleep_with_stack(t, pcs, n);
	wake(1, t);
	sw(0, t, GT_IN_RUNNABLE);
}

static void test_kernel_wait_reasons(void)
{
	static const unsigned int worker[] = { 0, 1, 3, 4 };
	static const unsigned int timeout[] = { 0, 1, 2, 3, 4 };
	static const unsigned int rcu[] = { 0, 1, 2, 5, 4 };
	static const unsigned int sched_only[] = { 0, 1 };
	static const unsigned int futex[] = { 0, 1, 6 };
	static const char *const want[] = {
		"blocked: worker_thread", "blocked: worker_thread",
		"blocked", "blocked", "sync: futex",
		"blocked: futex_wait_queue",
	};
	struct task *k = task_new(1950, 1950, "kworker/0:1");
	struct task *u = task_new(1951, 1951, "gt_user");
	struct task *tasks[] = { k, u };
	struct kw_walk walk = { .n = 0 };
	struct gt_trace_error err = { 0 };
	bool right = true;
	int ret;

	sim_setup("kernel_wait_reasons", 2);
	S.cfg.symbolise = kw_symbolise;
	S.cur[0] = k;
	S.cur[1] = u;
	sim_start(tasks, 2);
	kw_block(k, worker, ARRAY_SIZE(worker));
	kw_block(k, timeout, ARRAY_SIZE(timeout));
	kw_block(k, rcu, ARRAY_SIZE(rcu));
	kw_block(k, sched_only, ARRAY_SIZE(sched_only));
	/*
	 * The user task, in a futex and then out of any syscall (as in a
	 * page fault).
	 */
	sw(0, u, GT_IN_RUNNABLE);
	S.cur[1] = &S.idle[1];
	sys_enter(0, __NR_futex);
	kw_block(u, futex, ARRAY_SIZE(futex));
	sys_exit(0);
	kw_block(u, futex, ARRAY_SIZE(futex));
	sim_finish();

	ret = go123_walk_all(S.out2, S.len2, kw_event, &walk, &err);
	ok(ret == 0 && !err.msg[0], "kernel_wait_reasons: the go 1.23 trace "
	   "reads (%s)", err.msg[0] ? err.msg : "no error");
	for (unsigned int i = 0; i < ARRAY_SIZE(want); i++) {
		if (i < walk.n && !strcmp(walk.reasons[i], want[i]))
			continue;
		diag("block %u: reason '%s', want '%s'", i,
		     i < walk.n ? walk.reasons[i] : "(none)", want[i]);
		right = false;
	}
	ok(right && walk.n == ARRAY_SIZE(want),
	   "kernel_wait_reasons: %u blocks name their kernel wait, the plain "
	   "'blocked' where that would reach the sync profile or there is "
	   "none, the syscall inside one", walk.n);
}


/* ---- User stacks (GOTRACE_OPT_USER_STACKS) ----------------------------- */

/*
 * The recorder's half of Documentation/user-stacks.rst, with a fake
 * resolver in the environment's place: the walk's raw PCs go into the
 * stack after a space marker, a stack new to its table hands them over
 * once (not at every event that meets it again), the same raw PCs of
 * two address spaces make two stacks named from two files, and every
 * user frame is written as the contract says, in both formats: resolved
 * (<basename>+0x<offset>, the path, a PC per file and offset),
 * unresolved ("[unknown]", no file: kernel addresses are hidden here, so
 * user ones are too) and truncated (the reason, a PC per reason: gotrace
 * check, as Go's readers, names a PC once); the marker is no frame.
 */
#define US_SPACE_A	0xa11ceULL
#define US_SPACE_B	0xb0bULL
#define US_SPACE_C	0xc0ffeeULL
#define US_KPC(i)	(0xffffffff84000000ULL + 16 * (u64)(i))
#define US_UPC		(1ULL << 56)
#define US_UPC_EXACT	(4ULL << 56)

static const char *const us_files[] = {
	"/usr/bin/usprog", "/usr/lib/libus.so.1",
};

/*
 * Space A maps usprog at 0x400000 from its start, space B libus.so.1
 * there from file offset 0x1000; space C and other addresses: no file.
 */
static bool us_resolve(void *arg, u64 space, u64 pc, u32 *file, u64 *off)
{
	(void)arg;
	if (pc < 0x400000 || pc >= 0x500000)
		return false;
	if (space == US_SPACE_A) {
		*file = 0;
		*off = pc - 0x400000;
		return true;
	}
	if (space == US_SPACE_B) {
		*file = 1;
		*off = pc - 0x400000 + 0x1000;
		return true;
	}
	return false;
}

static const char *us_file(void *arg, u32 file)
{
	(void)arg;
	return file < ARRAY_SIZE(us_files) ? us_files[file] : NULL;
}

/* A session of two CPUs with user stacks, named by us_resolve(). */
static void us_setup(const char *name)
{
	sim_setup(name, 2);
	S.cfg.opts.flags |= GOTRACE_OPT_USER_STACKS;
	S.cfg.symbolise = tg_symbolise;
	S.cfg.uresolve = us_resolve;
	S.cfg.ufile = us_file;
}

/* The first user PC us_block() gives is exact (an interrupted task's). */
static bool us_exact;

/* @t, running on CPU 0, sleeps there with user frames @upcs of @space. */
static void us_block(struct task *t, u64 space, const u64 *upcs,
		     unsigned int nu, unsigned int stop)
{
	static const u64 kpcs[2] = { US_KPC(0), US_KPC(1) };
	struct gt_in_switch in = { .ev = ev(0), .prev = &t->in,
				   .next = &S.idle[0].in,
				   .prev_state = GT_IN_SLEEP };

	in.ev.pcs = kpcs;
	in.ev.nr_pcs = 2;
	in.ev.upcs = upcs;
	in.ev.nr_upcs = nu;
	in.ev.uspace = space;
	in.ev.ustop = stop;
	in.ev.uexact = us_exact;
	FEED(gt_model_switch, &in);
	S.cur[0] = &S.idle[0];
	drain();
	wake(1, t);
	sw(0, t, GT_IN_RUNNABLE);
}

/*
 * A stack as "func@file" per frame, "#pc" after it where the PC is a
 * user frame's (top byte set) or 0, "|" between; the kernel frames
 * ("kfn_...") are left out, the comm frame is its name.
 */
static void us_render(char *out, size_t size, size_t n,
		      const char *(*name)(const void *ctx, size_t i,
					  char *buf, size_t len, u64 *pc,
					  char *file, size_t flen),
		      const void *ctx)
{
	char func[128], file[128];
	size_t used = 0;
	u64 pc;

	out[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++) {
		name(ctx, i, func, sizeof(func), &pc, file, sizeof(file));
		if (!strncmp(func, "kfn_", 4))
			continue;
		if (i == n - 1)
			used += snprintf(out + used, size - used, "%s", func);
		else if (!pc || pc >> 56)
			used += snprintf(out + used, size - used, "%s@%s#%llx|",
					 func, file, (unsigned long long)pc);
		else
			used += snprintf(out + used, size - used, "%s@%s|",
					 func, file);
	}
}

/* The 1.11 trace's stack @stk, frame @i. */
static const char *us_frame1(const void *ctx, size_t i, char *buf,
			     size_t len, u64 *pc, char *file, size_t flen)
{
	const struct gt_frame *f;
	size_t n;

	f = gt_trace_stack(&T, *(const u64 *)ctx, &n);
	buf[0] = file[0] = '\0';
	*pc = 0;
	if (!f || i >= n)
		return buf;
	*pc = f[i].pc;
	gt_trace_string(&T, f[i].func, buf, len);
	if (f[i].file)
		gt_trace_string(&T, f[i].file, file, flen);
	return buf;
}

struct us_go123ctx {
	const struct gt_go123_gen *g;
	const uint64_t *pcs;
};

static void us_go123str(const struct gt_go123_gen *g, u64 id, char *buf,
			size_t len)
{
	const char *str;
	size_t n;

	buf[0] = '\0';
	if (id && gt_go123_string(g, id, &str, &n))
		snprintf(buf, len, "%.*s", (int)n, str);
}

static const char *us_frame2(const void *ctx, size_t i, char *buf,
			     size_t len, u64 *pc, char *file, size_t flen)
{
	const struct us_go123ctx *c = ctx;
	const struct gt_go123_frame *f = gt_go123_frame(c->g, c->pcs[i]);

	*pc = c->pcs[i];
	buf[0] = file[0] = '\0';
	if (f) {
		us_go123str(c->g, f->func, buf, len);
		us_go123str(c->g, f->file, file, flen);
	}
	return buf;
}

#define US_STACKS	8
#define US_LEN		4096

struct us_walk {
	char blocks[US_STACKS][US_LEN];		/* of the GoBlocks, in order */
	unsigned int nb;
	char sys[US_LEN];			/* the first GoSyscallBegin's */
	unsigned int markers;			/* frames with a marker's PC */
};

static int us_event(void *ctx, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct us_walk *w = ctx;
	struct us_go123ctx c = { .g = g };
	char *out;
	size_t n;

	(void)err;
	if (ev->type == GT_GO123_EV_GO_BLOCK && w->nb < US_STACKS)
		out = w->blocks[w->nb++];
	else if (ev->type == GT_GO123_EV_GO_SYSCALL_BEGIN && !w->sys[0])
		out = w->sys;
	else
		return 0;
	if (!gt_go123_stack(g, ev->args[2], &c.pcs, &n))
		return 0;
	for (size_t i = 0; i < n; i++)
		w->markers += c.pcs[i] >> 56 == 0xfa || c.pcs[i] >> 56 == 0xfb;
	us_render(out, US_LEN, n, us_frame2, &c);
	return 0;
}

static void test_user_stacks(void)
{
	static const u64 up[] = { 0x401010, 0x402020, 0x403030 };
	static const u64 ubad[] = { 0x401010, 0x7ffd0000 };
	struct task *a = task_new(2100, 2100, "usa");
	/* Another process of the same name: only the space tells them. */
	struct task *b = task_new(2200, 2200, "usa");
	struct task *c = task_new(2300, 2300, "usc");
	struct task *d = task_new(2400, 2400, "usd");
	struct task *tasks[] = { a, b, c, d };
	char want[US_STACKS][US_LEN], got[US_LEN], *p;
	struct gt_in_sys_enter se;
	struct us_walk w = { .nb = 0 };
	struct gt_trace_error err = { 0 };
	const struct gt_event *blk[US_STACKS];
	unsigned int nblk = 0, right1 = 0, right2 = 0, i;
	u64 deep[40], sysstk = 0;
	size_t n;
	int ret;

	us_setup("user_stacks");
	for (i = 0; i < ARRAY_SIZE(deep); i++)
		deep[i] = 0x401000 + 16 * i;
	S.cur[0] = a;
	sim_start(tasks, 4);
	/* a's quick syscall: [user frames, syscall frame, comm frame]. */
	se = (struct gt_in_sys_enter){ .ev = ev(0), .nr = __NR_getpid };
	se.ev.upcs = up;
	se.ev.nr_upcs = 2;
	se.ev.uspace = US_SPACE_A;
	FEED(gt_model_sys_enter, &se);
	drain();
	sys_exit(0);
	us_block(a, US_SPACE_A, up, 3, GT_USTOP_NONE);
	us_block(a, US_SPACE_A, up, 3, GT_USTOP_NONE);	/* met again */
	sw(0, b, GT_IN_RUNNABLE);
	us_block(b, US_SPACE_B, up, 3, GT_USTOP_NONE);	/* same raw PCs */
	sw(0, c, GT_IN_RUNNABLE);
	us_block(c, US_SPACE_C, ubad, 2, GT_USTOP_BAD_FP);
	sw(0, d, GT_IN_RUNNABLE);
	us_block(d, US_SPACE_A, deep, ARRAY_SIZE(deep), GT_USTOP_NONE);
	sim_finish();

	snprintf(want[0], US_LEN, "usprog+0x1010@/usr/bin/usprog#%llx|"
		 "usprog+0x2020@/usr/bin/usprog#%llx|"
		 "usprog+0x3030@/usr/bin/usprog#%llx|usa",
		 US_UPC | 0x1010, US_UPC | 0x2020, US_UPC | 0x3030);
	memcpy(want[1], want[0], US_LEN);
	snprintf(want[2], US_LEN,
		 "libus.so.1+0x2010@/usr/lib/libus.so.1#%llx|"
		 "libus.so.1+0x3020@/usr/lib/libus.so.1#%llx|"
		 "libus.so.1+0x4030@/usr/lib/libus.so.1#%llx|usa",
		 US_UPC | 1ULL << 32 | 0x2010, US_UPC | 1ULL << 32 | 0x3020,
		 US_UPC | 1ULL << 32 | 0x4030);
	snprintf(want[3], US_LEN, "[unknown]@#%llx|[unknown]@#%llx|"
		 "[user stack truncated: bad frame pointer]@#%llx|usc",
		 2ULL << 56, 2ULL << 56, 3ULL << 56 | GT_USTOP_BAD_FP);
	/* Two kernel frames: room for 32 user frames, then the cut. */
	p = want[4];
	for (i = 0; i < GT_USTACK_MAX; i++)
		p += sprintf(p, "usprog+0x%x@/usr/bin/usprog#%llx|",
			     0x1000 + 16 * i, US_UPC | (0x1000 + 16 * i));
	sprintf(p, "[user stack truncated: depth limit]@#%llx|usd",
		3ULL << 56 | GT_USTOP_DEPTH);

	for (size_t k = 0; k < nevs && nblk < US_STACKS; k++) {
		if (evs[k].type == GOTRACE_EV_GO_BLOCK)
			blk[nblk++] = &evs[k];
		if (evs[k].type == GOTRACE_EV_GO_SYSCALL && !sysstk)
			sysstk = evs[k].stk;
	}
	for (i = 0; i < nblk && i < 5; i++) {
		gt_trace_stack(&T, blk[i]->stk, &n);
		us_render(got, sizeof(got), n, us_frame1, &blk[i]->stk);
		if (!strcmp(got, want[i])) {
			right1++;
			continue;
		}
		diag("1.11 block %u: %s", i, got);
		diag("         want: %s", want[i]);
	}
	ok(nblk == 5 && right1 == 5,
	   "user_stacks (1.11): %u of %u blocks carry their user frames as "
	   "the contract writes them", right1, nblk);
	ok(nblk == 5 && blk[0]->stk == blk[1]->stk &&
	   blk[0]->stk != blk[2]->stk,
	   "user_stacks (1.11): the same user stack met again is the same "
	   "stack; the same raw PCs of another process another one");
	gt_trace_stack(&T, sysstk, &n);
	us_render(got, sizeof(got), n, us_frame1, &sysstk);
	ok(!strncmp(got, want[0], strlen("usprog+0x1010@/usr/bin/usprog#"
					  "100000000001010|usprog+0x2020@/"
					  "usr/bin/usprog#100000000002020|")) &&
	   strstr(got, "|sys_getpid@[syscall]|usa"),
	   "user_stacks (1.11): a syscall's entry: user frames, syscall "
	   "frame, comm frame: %s", got);
	/*
	 * Handed over once per new stack: the syscall's 2, a's 3, b's 3,
	 * c's 2, d's 32; a's second block none.  Walked at every event.
	 */
	ok(ST.ustack_queued == 2 + 3 + 3 + 2 + GT_USTACK_MAX &&
	   ST.ustack_walks == 6 && ST.ustack_syncs >= 1,
	   "user_stacks (1.11): %llu user PCs handed over to be named, of "
	   "6 walks; the footer asked for them first (%llu)",
	   (unsigned long long)ST.ustack_queued,
	   (unsigned long long)ST.ustack_syncs);

	ret = go123_walk_all(S.out2, S.len2, us_event, &w, &err);
	ok(ret == 0 && !err.msg[0], "user_stacks (go 1.23): the trace reads "
	   "(%s)", err.msg[0] ? err.msg : "no error");
	for (i = 0; i < w.nb && i < 5; i++) {
		if (!strcmp(w.blocks[i], want[i])) {
			right2++;
			continue;
		}
		diag("go 1.23 block %u: %s", i, w.blocks[i]);
		diag("            want: %s", want[i]);
	}
	ok(w.nb == 5 && right2 == 5 && !w.markers,
	   "user_stacks (go 1.23): %u of %u blocks carry their user frames as "
	   "the contract writes them, no marker is a frame (%u)", right2,
	   w.nb, w.markers);
	ok(strstr(w.sys, "usprog+0x2020@/usr/bin/usprog#100000000002020|"
		  "sys_getpid@[syscall]|usa") != NULL,
	   "user_stacks (go 1.23): a syscall's entry: %s", w.sys);
	ok(ST2.ustack_syncs >= 1 && ST2.ustack_walks == 6,
	   "user_stacks (go 1.23): each generation's tables asked for the "
	   "names first (%llu)", (unsigned long long)ST2.ustack_syncs);
}


/*
 * Where the reader may see kernel addresses (show_addrs), an unnamed
 * user frame shows its address too, with a PC per address.
 */
static void test_user_stacks_shown(void)
{
	static const u64 ubad[] = { 0x401010, 0x7ffd0000 };
	struct task *c = task_new(2500, 2500, "usc");
	struct us_walk w = { .nb = 0 };
	struct gt_trace_error err = { 0 };
	char want[US_LEN], got[US_LEN];
	u64 stk = 0;
	size_t n;

	us_setup("user_stacks_shown");
	S.cfg.show_addrs = true;
	S.cur[0] = c;
	sim_start(&c, 1);
	us_block(c, US_SPACE_C, ubad, 2, GT_USTOP_FAULT);
	sim_finish();
	snprintf(want, sizeof(want), "[unknown]+0x401010@#%llx|"
		 "[unknown]+0x7ffd0000@#%llx|"
		 "[user stack truncated: fault]@#%llx|usc",
		 2ULL << 56 | 0x401010, 2ULL << 56 | 0x7ffd0000,
		 3ULL << 56 | GT_USTOP_FAULT);
	for (size_t k = 0; k < nevs && !stk; k++)
		if (evs[k].type == GOTRACE_EV_GO_BLOCK)
			stk = evs[k].stk;
	gt_trace_stack(&T, stk, &n);
	us_render(got, sizeof(got), n, us_frame1, &stk);
	ok(!strcmp(got, want), "user_stacks_shown (1.11): %s", got);
	go123_walk_all(S.out2, S.len2, us_event, &w, &err);
	ok(w.nb >= 1 && !strcmp(w.blocks[0], want),
	   "user_stacks_shown (go 1.23): %s", w.nb ? w.blocks[0] : "none");
}

/*
 * A user stack whose first PC is exact (its task stopped by an interrupt
 * or a fault, not a syscall): that frame's PC carries the exact tag, so
 * that a symboliser names it by its own byte, the rest are return
 * addresses; the same PCs as return addresses only are another stack.
 */
static void test_user_stacks_exact(void)
{
	static const u64 up[] = { 0x401010, 0x402020 };
	struct task *a = task_new(2600, 2600, "use");
	struct us_walk w = { .nb = 0 };
	struct gt_trace_error err = { 0 };
	char want[2][US_LEN], got[US_LEN];
	const struct gt_event *blk[2];
	unsigned int nblk = 0, right = 0;
	size_t n;

	us_setup("user_stacks_exact");
	S.cur[0] = a;
	sim_start(&a, 1);
	us_exact = true;
	us_block(a, US_SPACE_A, up, 2, GT_USTOP_NONE);
	us_exact = false;
	us_block(a, US_SPACE_A, up, 2, GT_USTOP_NONE);
	sim_finish();
	for (int i = 0; i < 2; i++)
		snprintf(want[i], US_LEN, "usprog+0x1010@/usr/bin/usprog#%llx|"
			 "usprog+0x2020@/usr/bin/usprog#%llx|use",
			 (i ? US_UPC : US_UPC_EXACT) | 0x1010,
			 US_UPC | 0x2020);
	for (size_t k = 0; k < nevs && nblk < 2; k++)
		if (evs[k].type == GOTRACE_EV_GO_BLOCK)
			blk[nblk++] = &evs[k];
	for (unsigned int i = 0; i < nblk; i++) {
		gt_trace_stack(&T, blk[i]->stk, &n);
		us_render(got, sizeof(got), n, us_frame1, &blk[i]->stk);
		right += !strcmp(got, want[i]);
		diag("1.11 block %u: %s", i, got);
	}
	ok(nblk == 2 && right == 2 && blk[0]->stk != blk[1]->stk,
	   "user_stacks_exact (1.11): the exact PC's frame has its own PC, "
	   "in another stack than the return address's");
	go123_walk_all(S.out2, S.len2, us_event, &w, &err);
	ok(!err.msg[0] && w.nb == 2 && !strcmp(w.blocks[0], want[0]) &&
	   !strcmp(w.blocks[1], want[1]),
	   "user_stacks_exact (go 1.23): %s / %s", w.nb ? w.blocks[0] : "none",
	   w.nb > 1 ? w.blocks[1] : "none");
}

/* ---- Deaths the trace could not write (go 1.23) ------------------------ */

/*
 * A go 1.23 session goes on after a loss, but a task that died has no
 * later event to repair the model with: its final switch gives its entry
 * back whatever could be written, or every later sweep states a dead
 * thread (Runnable, never started again) and the entry is lost to the
 * table until its key is reused.  Each case runs EX_KIDS deaths through
 * a table of EX_KIDS entries, which the CPUs' two tasks and one kid at a
 * time fill: one entry kept by a death is an overflow two deaths later.
 */
#define EX_KIDS		4
#define EX_TID		5000

/* A new generation, where the CPUs' buffers have room again. */
static void ex_drain(void)
{
	S.drain = true;
	drain();
}

/*
 * Syscalls of the task on @cpu, nobody reading, until the go 1.23 twin
 * loses an event there: its buffer is full until the next ex_drain().
 */
static void ex_fill(unsigned int cpu)
{
	struct gt_umodel_stats st;
	u64 lost;

	S.drain = false;
	gt_umodel_stats(S.m2, &st);
	lost = st.lost;
	for (int i = 0; i < 100000 && st.lost == lost; i++) {
		syscall_quick(cpu, __NR_getppid);
		gt_umodel_stats(S.m2, &st);
	}
}

/*
 * Two CPUs running @a and @p, a table of EX_KIDS entries, only tasks
 * named @comm recorded if it is not NULL.
 */
static void ex_start(const char *name, struct task *a, struct task *p,
		     const char *comm)
{
	struct task *tasks[] = { a, p };

	sim_setup(name, 2);
	if (comm)
		strcpy(S.cfg.opts.comm, comm);
	S.cfg.cpu_bytes = 64 * 1024;
	S.cfg.max_tasks = EX_KIDS;
	S.cur[0] = a;
	S.cur[1] = p;
	sim_start(tasks, 2);
}

struct ex_walk {
	u64 event_gen[EX_KIDS];		/* the last generation with its event */
	u64 status_gen[EX_KIDS];	/* the last generation stating it */
	unsigned int destroys;		/* kids' GoDestroy */
};

/* The kid an event is about (its goroutine id is its tid), or -1. */
static int ex_kid(const struct gt_go123_event *ev)
{
	u64 g = ev->m;		/* a task's M is its goroutine id */

	switch (ev->type) {
	case GT_GO123_EV_GO_STATUS:
	case GT_GO123_EV_GO_STATUS_STACK:
	case GT_GO123_EV_GO_CREATE:
	case GT_GO123_EV_GO_START:
	case GT_GO123_EV_GO_UNBLOCK:
		g = ev->args[1];
		break;
	}
	return g >= EX_TID && g < EX_TID + EX_KIDS ? (int)(g - EX_TID) : -1;
}

static int ex_event(void *ctx, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct ex_walk *w = ctx;
	int k = ex_kid(ev);

	(void)err;
	if (k < 0)
		return 0;
	if (ev->type == GT_GO123_EV_GO_STATUS ||
	    ev->type == GT_GO123_EV_GO_STATUS_STACK)
		w->status_gen[k] = g->gen;
	else
		w->event_gen[k] = g->gen;
	w->destroys += ev->type == GT_GO123_EV_GO_DESTROY;
	return 0;
}

/*
 * Generations after the deaths, then the end: no kid is stated in a
 * generation after its last event, @destroys of them end in the go 1.23
 * trace, the table never overflowed, and (but for a filter's end, which
 * loses nothing) the go 1.23 twin lost events.
 */
static void ex_finish(bool lossy, unsigned int destroys)
{
	const char *name = S.name;
	struct gt_trace_error err = { 0 };
	struct ex_walk w = { 0 };
	unsigned int late = 0;
	int ret;

	ex_drain();
	gt_umodel_set_generation_ns(S.m2, 2000);
	for (int i = 0; i < 1000; i++)
		syscall_quick(i & 1, __NR_getpid);
	sim_finish();
	ok(!ST.halted && !ST2.halted && !ST.task_overflows &&
	   !ST2.task_overflows,
	   "%s: %d deaths through a %d-entry table (overflows %llu, %llu)",
	   name, EX_KIDS, EX_KIDS, (unsigned long long)ST.task_overflows,
	   (unsigned long long)ST2.task_overflows);
	ret = go123_walk_all(S.out2, S.len2, ex_event, &w, &err);
	for (unsigned int k = 0; k < EX_KIDS; k++) {
		if (w.status_gen[k] <= w.event_gen[k])
			continue;
		diag("%s: kid %u stated in generation %llu, its last event in %llu",
		     name, EX_TID + k, (unsigned long long)w.status_gen[k],
		     (unsigned long long)w.event_gen[k]);
		late++;
	}
	ok(ret == 0 && !late && w.event_gen[EX_KIDS - 1],
	   "%s (go 1.23): no dead kid stated after its last event (%u are)%s%s",
	   name, late, err.msg[0] ? ": " : "", err.msg);
	ok(w.destroys == destroys, "%s (go 1.23): %u kids end (GoDestroy), "
	   "want %u", name, w.destroys, destroys);
	if (lossy)
		ok(ST2.lost > 0, "%s (go 1.23): events were lost (%llu)", name,
		   (unsigned long long)ST2.lost);
}

/*
 * The kid's start is lost on a full CPU, where it then dies: the model
 * cannot bring it to running (g_ensure_running() fails), and it stays
 * Runnable in the trace.
 */
static void test_exit_not_started(void)
{
	struct task *a = task_new(4990, 4990, "a");
	struct task *p = task_new(4991, 4991, "p");

	ex_start("exit_not_started", a, p, NULL);
	for (int i = 0; i < EX_KIDS; i++) {
		struct task *kid = task_new(EX_TID + i, EX_TID + i, "kid");

		ex_drain();
		ex_fill(0);
		fork_task(1, kid);		/* created on P1, which has room */
		sw(0, kid, GT_IN_RUNNABLE);	/* a's preemption, kid's start lost */
		sw(0, a, GT_IN_DEAD);
	}
	ex_finish(true, 0);
}

/*
 * The kid runs on P1 for the model when it dies on CPU 0: its switch
 * away from CPU 1 was lost, and P1's buffer is full, so that it cannot
 * be taken off there (in the module, never: another CPU's P is not
 * written).  P1's next hook, with room again, ends it.
 */
static void test_exit_other_p(void)
{
	struct task *a = task_new(4992, 4992, "a");
	struct task *p = task_new(4993, 4993, "p");

	ex_start("exit_other_p", a, p, NULL);
	for (int i = 0; i < EX_KIDS; i++) {
		struct task *kid = task_new(EX_TID + i, EX_TID + i, "kid");

		ex_drain();
		fork_task(1, kid);
		sw(1, kid, GT_IN_RUNNABLE);	/* p preempted, kid on P1 */
		ex_fill(1);
		S.cur[1] = p;			/* the switch back to p lost */
		sw(0, kid, GT_IN_RUNNABLE);	/* a preempted, kid on CPU 0 */
		sw(0, a, GT_IN_DEAD);
		ex_drain();
		syscall_quick(1, __NR_getppid);	/* P1 takes the kid off */
	}
	ex_finish(true, EX_KIDS);
}

/*
 * The kid runs on P0 and dies there when P0's buffer is full: its GoEnd
 * is lost, the trace has it running on P0 until P0's next hook, with
 * room again, ends it.
 */
static void test_exit_end_lost(void)
{
	struct task *a = task_new(4994, 4994, "a");
	struct task *p = task_new(4995, 4995, "p");

	ex_start("exit_end_lost", a, p, NULL);
	for (int i = 0; i < EX_KIDS; i++) {
		struct task *kid = task_new(EX_TID + i, EX_TID + i, "kid");

		ex_drain();
		fork_task(1, kid);
		sw(0, kid, GT_IN_RUNNABLE);	/* a preempted, kid on P0 */
		ex_fill(0);
		sw(0, a, GT_IN_DEAD);		/* GoEnd lost */
		ex_drain();
		syscall_quick(0, __NR_getppid);	/* a's: P0 takes the kid off */
	}
	ex_finish(true, EX_KIDS);
}

/*
 * A comm filter: the kid is renamed by another task (a write to
 * /proc/PID/comm) and dies; its final switch decides the filter again,
 * which ends its goroutine: the entry goes back all the same.
 */
static void test_exit_refiltered(void)
{
	struct task *a = task_new(4996, 4996, "sh");
	struct task *p = task_new(4997, 4997, "sh");

	ex_start("exit_refiltered", a, p, "kid");
	for (int i = 0; i < EX_KIDS; i++) {
		struct task *kid = task_new(EX_TID + i, EX_TID + i, "kid");

		fork_task(1, kid);
		sw(0, kid, GT_IN_RUNNABLE);
		syscall_quick(0, __NR_getpid);
		rename_task(kid, "renamed");
		sw(0, a, GT_IN_DEAD);
	}
	ex_finish(false, EX_KIDS);
}

/* ---- Sequence numbers within one byte (go123_writer.c) -------------------- */

struct sq_walk {
	u64 max_p, max_g;	/* the largest P and goroutine numbers */
	unsigned int p_status, g_status, begins;
};

static int sq_event(void *ctx, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct sq_walk *w = ctx;

	(void)g;
	(void)err;
	switch (ev->type) {
	case GT_GO123_EV_GO_SYSCALL_BEGIN:
		w->begins++;
		if (ev->args[1] > w->max_p)
			w->max_p = ev->args[1];
		break;
	case GT_GO123_EV_PROC_START:
		if (ev->args[2] > w->max_p)
			w->max_p = ev->args[2];
		break;
	case GT_GO123_EV_GO_START:
	case GT_GO123_EV_GO_UNBLOCK:
		if (ev->args[2] > w->max_g)
			w->max_g = ev->args[2];
		break;
	case GT_GO123_EV_PROC_STATUS:
		w->p_status++;
		break;
	case GT_GO123_EV_GO_STATUS:
		w->g_status++;
		break;
	}
	return 0;
}

/*
 * A loop of syscalls on one CPU and a ping-pong on the other, in one
 * generation: their P and goroutine numbers are restarted with statuses
 * before they need a second byte, and Go's order still holds (the
 * checker and, in model_go_test.sh, Go's readers take the trace).  In
 * the 1.11 format, the ping-pong's starts and wakeups go without them.
 */
static void test_seq_one_byte(void)
{
	enum { CALLS = 3000, ROUNDS = 600 };
	struct task *a = task_new(1960, 1960, "gt_loop");
	struct task *b = task_new(1961, 1961, "gt_ping");
	struct task *p = task_new(1962, 1962, "gt_pong");
	struct task *tasks[] = { a, b, p };
	struct sq_walk walk = { 0 };
	struct gt_trace_error err = { 0 };
	int ret;

	sim_setup("seq_one_byte", 2);
	S.cur[0] = a;
	S.cur[1] = b;
	sim_start(tasks, 3);
	for (int i = 0; i < ROUNDS; i++) {
		struct task *other = i & 1 ? b : p;

		syscall_quick(0, __NR_getppid);
		/* CPU 1's task wakes @other, then sleeps in read() for it. */
		if (i)
			wake(1, other);
		sys_enter(1, __NR_read);
		sw_fd(1, other, GT_IN_SLEEP, false, GT_IN_FD_PIPE);
		if (i)
			sys_exit(1);
	}
	for (int i = ROUNDS; i < CALLS; i++)
		syscall_quick(0, __NR_getppid);
	sim_finish();

	ret = go123_walk_all(S.out2, S.len2, sq_event, &walk, &err);
	ok(ret == 0 && !err.msg[0], "seq_one_byte: the go 1.23 trace reads "
	   "(%s)", err.msg[0] ? err.msg : "no error");
	ok(walk.begins >= CALLS && ST2.generations <= 2,
	   "seq_one_byte: %u syscalls in %llu generations", walk.begins,
	   (unsigned long long)ST2.generations);
	ok(walk.max_p <= 127 && walk.max_g <= 127,
	   "seq_one_byte: every sequence number takes one byte (largest: "
	   "P %llu, goroutine %llu)", (unsigned long long)walk.max_p,
	   (unsigned long long)walk.max_g);
	ok(walk.p_status >= CALLS / 125 && walk.g_status >= ROUNDS / 125,
	   "seq_one_byte: restarted by %u P and %u goroutine statuses",
	   walk.p_status, walk.g_status);
	/* The 1.11 format: the ping-pong's goroutines never leave CPU 1. */
	ok(T.info.by_type[GOTRACE_EV_GO_START_LOCAL] >= ROUNDS - 4 &&
	   T.info.by_type[GOTRACE_EV_GO_UNBLOCK_LOCAL] >= ROUNDS - 4,
	   "seq_one_byte (go 1.11): %llu GoStartLocal and %llu GoUnblockLocal "
	   "of %u round trips leave the sequence number out",
	   (unsigned long long)T.info.by_type[GOTRACE_EV_GO_START_LOCAL],
	   (unsigned long long)T.info.by_type[GOTRACE_EV_GO_UNBLOCK_LOCAL],
	   ROUNDS);
}

/* ---- systemd units (model/units.c) -------------------------------------- */

struct un_walk {
	u64 m_g[8];		/* M -> goroutine running there (by M index) */
	unsigned int task_begins[3];	/* by unit: a.service, b.scope, other */
	unsigned int begins, ends;
	bool order_ok;		/* every region event on a running goroutine */
	char seq[512];		/* "tid:B name" / "tid:E name" in order */
};

static int un_event(void *ctx, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct un_walk *w = ctx;
	const char *str;
	size_t len, n = strlen(w->seq);
	u64 m = ev->m & 0xffff;

	(void)err;
	switch (ev->type) {
	case GT_GO123_EV_GO_START:
		if (m < ARRAY_SIZE(w->m_g))
			w->m_g[m] = ev->args[1];
		return 0;
	case GT_GO123_EV_GO_STOP:
	case GT_GO123_EV_GO_BLOCK:
	case GT_GO123_EV_GO_DESTROY:
		if (m < ARRAY_SIZE(w->m_g))
			w->m_g[m] = 0;
		return 0;
	case 40:	/* UserTaskBegin: id, parent, name, stack */
		if (!gt_go123_string(g, ev->args[3], &str, &len))
			str = "?", len = 1;
		w->task_begins[len == 9 && !memcmp(str, "a.service", 9) &&
			       ev->args[1] == 1 ? 0 :
			       len == 7 && !memcmp(str, "b.scope", 7) &&
			       ev->args[1] == 2 ? 1 : 2]++;
		return 0;
	case GT_GO123_EV_USER_REGION_BEGIN:
	case GT_GO123_EV_USER_REGION_END:
		break;
	default:
		return 0;
	}
	if (!gt_go123_string(g, ev->args[2], &str, &len))
		str = "?", len = 1;
	/* The goroutine of the region is its M's (gotrace: M = task). */
	if (m >= ARRAY_SIZE(w->m_g) || w->m_g[m] != (ev->m & 0xffff))
		w->order_ok = false;
	if (ev->type == GT_GO123_EV_USER_REGION_BEGIN)
		w->begins++;
	else
		w->ends++;
	snprintf(w->seq + n, sizeof(w->seq) - n, "%s%llu:%c %.*s",
		 n ? ", " : "", (unsigned long long)(ev->m & 0xffff),
		 ev->type == GT_GO123_EV_USER_REGION_BEGIN ? 'B' : 'E',
		 (int)len, str);
	return 0;
}

/* The go 1.23 twin without its generations before @from, as a flight cut. */
struct un_cut {
	u8 *buf;
	size_t len;
	u64 from;
	bool keep;
};

static int un_cut_bytes(void *arg, const uint8_t *p, size_t n)
{
	struct un_cut *c = arg;

	if (c->keep) {
		memcpy(c->buf + c->len, p, n);
		c->len += n;
	}
	return 0;
}

static int un_cut_gen(void *arg, uint64_t gen)
{
	struct un_cut *c = arg;

	c->keep = gen >= c->from;
	return 0;
}

static void un_cut(struct un_cut *c)
{
	static const struct gt_go123_split_ops ops = {
		.bytes = un_cut_bytes, .generation = un_cut_gen,
	};
	struct gt_go123_split sp;

	c->buf = malloc(S.len2);
	if (!c->buf)
		abort();
	c->len = 0;
	c->keep = true;		/* the header */
	gt_go123_split_init(&sp, &ops, c);
	gt_go123_split_feed(&sp, S.out2, S.len2);
	gt_go123_split_end(&sp);
}

/* Transitions written since a test's hook began to count them. */
static unsigned int written, advance_at;

/* The reader's steps of go123_writer.h, to end a generation around a hook. */
void gt_w123_advance(struct gt_model *m);
int gt_w123_gen_write(struct gt_model *m, bool last);
int gt_w123_gen_end(struct gt_model *m, bool last);

/*
 * End the test with its go 1.23 session alone (the 1.11 one is dropped),
 * save that trace and check it.
 */
static bool go123_end_check(struct gt_go123_info *info,
			    struct gt_trace_error *err)
{
	struct gt_src src;

	gt_umodel_destroy(S.m);
	S.m = NULL;
	arena_used = 0;
	gt_umodel_finish(S.m2, S.ts + 10, sink2, NULL);
	gt_umodel_destroy(S.m2);
	S.m2 = NULL;
	save(".go123.trace", S.out2, S.len2);
	gt_src_mem(&src, S.out2, S.len2);
	return !gt_go123_check(&src, info, err);
}

/*
 * Two generations written, a third begun (the reader advanced), and
 * @tasks[2] woken in it before the second is written; @comm, if not
 * NULL, is the session's comm filter.
 */
static int sweep_race_start(const char *name, struct task **tasks,
			    const char *comm)
{
	struct gt_in_wake wk;
	int ret;

	sim_setup(name, 2);
	S.cur[0] = tasks[0];
	S.cur[1] = tasks[1];
	if (comm)
		snprintf(S.cfg.opts.comm, sizeof(S.cfg.opts.comm), "%s", comm);
	sim_start(tasks, 3);
	S.drain = false;
	syscall_quick(0, __NR_getpid);
	ret = gt_w123_gen_end(S.m2, false);
	syscall_quick(0, __NR_getpid);
	gt_w123_advance(S.m2);
	wk = (struct gt_in_wake){ .ev = ev(1), .task = &tasks[2]->in };
	FEED(gt_model_waking, &wk);
	FEED(gt_model_wakeup, &wk);
	return ret;
}

/* The reader's write of the generation before, every CPU caught up. */
static int sweep_race_write(int ret)
{
	struct gt_in_ev e;

	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		e = ev(cpu);
		gt_model_catch_up(S.m2, &e);
	}
	return ret ? ret : gt_w123_gen_write(S.m2, false);
}

/*
 * The whole trace of @gens generations reads, and so does its cut from
 * generation @from (to the end).
 */
static void sweep_race_check_gens(const char *name, int ret,
				  unsigned int gens, unsigned int from)
{
	struct gt_trace_error err = { 0 };
	struct gt_go123_info info = { 0 };
	struct un_cut cut = { .from = from };
	struct gt_src src;
	bool valid;

	valid = go123_end_check(&info, &err);
	ok(!ret && valid && info.generations == gens,
	   "%s (go 1.23): gotrace check reads %llu generations of %u%s%s",
	   name, (unsigned long long)info.generations, gens,
	   valid ? "" : ": ", err.msg);
	/* A flight snapshot, or a rotated file, that starts there. */
	un_cut(&cut);
	gt_src_mem(&src, cut.buf, cut.len);
	memset(&info, 0, sizeof(info));
	memset(&err, 0, sizeof(err));
	valid = !gt_go123_check(&src, &info, &err);
	ok(!ret && valid && info.generations == gens - from + 1,
	   "%s (go 1.23): from generation %u, gotrace check reads %llu "
	   "generations of %u%s%s", name, from,
	   (unsigned long long)info.generations, gens - from + 1,
	   valid ? "" : ": ", err.msg);
	free(cut.buf);
}

/* The whole trace reads, and so does its cut from generation 2. */
static void sweep_race_check(const char *name, int ret)
{
	sweep_race_check_gens(name, ret, 3, 2);
}

/*
 * sweep_moved: in the module a hook may run between the reader's advance
 * to generation G + 1 and its write of G: here task "sleeper", asleep
 * since the snapshot and stated by generation 1's sweep, is woken in
 * generation 3 before generation 2 is written.  Generation 3 states it
 * waiting; generation 2's sweep must state it as generation 2 left it,
 * waiting, not as it is now (runnable), or generation 3 contradicts it;
 * nor leave it out, or a trace cut to start at generation 2 (a flight
 * snapshot) first names it in generation 3, which Go's readers refuse.
 *
 * sweep_renamed: the same, and the woken task renames itself (prctl) in
 * generation 3 before generation 2 is written: generation 3 mentions its
 * goroutine (waiting, then running) before it ends it and creates the
 * one of the new name.  Generation 2's sweep must still state the old
 * goroutine as generation 2 left it: the new goroutine's creation, a
 * second mention of the task in generation 3, once made the sweep state
 * nothing, and a rotated file that starts with generation 2 then named
 * the old goroutine first in generation 3 ("found goroutine status for
 * new goroutine after the first generation", ustack_modes_test.sh on
 * the debug kernel).
 */
static void run_sweep_race(const char *name, int pid, bool rename)
{
	struct task *busy = task_new(pid, pid, "busy");
	struct task *w = task_new(pid + 1, pid + 1, "waker");
	struct task *sleeper = task_new(pid + 2, pid + 2, "sleeper");
	struct task *tasks[] = { busy, w, sleeper };
	int ret = sweep_race_start(name, tasks, NULL);

	if (rename) {
		sw(1, sleeper, GT_IN_RUNNABLE);
		sys_enter(1, __NR_prctl);
		rename_task(sleeper, "renamed");
		sys_exit(1);
		syscall_quick(1, __NR_getpid);
	}
	ret = sweep_race_write(ret);
	if (rename)
		syscall_quick(1, __NR_getpid);
	else
		sw(1, sleeper, GT_IN_RUNNABLE);
	sweep_race_check(name, ret);
}

static void test_sweep_moved(void)
{
	run_sweep_race("sweep_moved", 2500, false);
	run_sweep_race("sweep_renamed", 2510, true);
}

/*
 * sweep_exited (path B): the task woken in generation 3 before generation
 * 2 is written runs there and exits, all before generation 2's sweep,
 * which owes its goroutine a status (generation 2 never mentioned it,
 * generation 3 did).  Its entry freed at the exit, the sweep never
 * stated it: "found goroutine status for new goroutine after the first
 * generation", status Waiting, in every file cut to start at
 * generation 2 (the stress run's refused traces, Runnable or Waiting as
 * the task was when generation 3 first named it).
 *
 * sweep_exited_reused: the same, and a new task takes the dead one's
 * task_struct (its key) before the sweep: the dead entry, still owed,
 * is not the new task's.
 */
static void run_sweep_exited(const char *name, int pid, bool reuse)
{
	struct task *busy = task_new(pid, pid, "busy");
	struct task *w = task_new(pid + 1, pid + 1, "waker");
	struct task *sleeper = task_new(pid + 2, pid + 2, "sleeper");
	struct task *tasks[] = { busy, w, sleeper };
	int ret = sweep_race_start(name, tasks, NULL);

	sw(1, sleeper, GT_IN_RUNNABLE);
	syscall_quick(1, __NR_getpid);
	sw(1, w, GT_IN_DEAD);
	if (reuse) {
		struct task *child = task_new(pid + 3, pid + 3, "child");

		child->in.key = sleeper->in.key;
		fork_task(1, child);
		sw(1, child, GT_IN_RUNNABLE);
		syscall_quick(1, __NR_getpid);
		sw(1, w, GT_IN_SLEEP);
	}
	ret = sweep_race_write(ret);
	sweep_race_check(name, ret);
}

static void test_sweep_exited(void)
{
	run_sweep_exited("sweep_exited", 2520, false);
	run_sweep_exited("sweep_exited_reused", 2530, true);
}

/*
 * sweep_hidden: the task woken in generation 3 before generation 2 is
 * written runs there and executes a program the comm filter leaves out:
 * its goroutine ends and the task is hidden from then on.  Generation 3
 * named the goroutine; generation 2's sweep must state it although the
 * task is hidden now.
 */
static void test_sweep_hidden(void)
{
	struct task *busy = task_new(2540, 2540, "sleeper");
	struct task *w = task_new(2541, 2541, "sleeper");
	struct task *sleeper = task_new(2542, 2542, "sleeper");
	struct task *tasks[] = { busy, w, sleeper };
	int ret = sweep_race_start("sweep_hidden", tasks, "sleeper");

	sw(1, sleeper, GT_IN_RUNNABLE);
	exec_task(1, "other");
	sw(1, w, GT_IN_SLEEP);
	ret = sweep_race_write(ret);
	sweep_race_check("sweep_hidden", ret);
}

/*
 * sweep_syscall_renamed (path C): a task asleep in a syscall through
 * generation 2 is woken in generation 3 before generation 2 is written,
 * and renames itself there (a new goroutine, on its own M).  Generation
 * 2's sweep states the old goroutine in its syscall: on the old
 * goroutine's M, or the new goroutine's M holds a goroutine in a syscall
 * when it starts ("GoStart: expected no goroutine but had one").
 */
static void test_sweep_syscall_renamed(void)
{
	struct task *busy = task_new(2550, 2550, "busy");
	struct task *w = task_new(2551, 2551, "waker");
	struct task *reader = task_new(2552, 2552, "reader");
	struct task *tasks[] = { busy, w, reader };
	int ret;

	sim_setup("sweep_syscall_renamed", 2);
	S.cur[0] = busy;
	S.cur[1] = reader;
	sim_start(tasks, 3);
	S.drain = false;
	sys_enter(1, __NR_read);
	sw(1, w, GT_IN_SLEEP);
	ret = gt_w123_gen_end(S.m2, false);
	syscall_quick(0, __NR_getpid);
	ret = ret ? ret : gt_w123_gen_end(S.m2, false);
	syscall_quick(0, __NR_getpid);
	gt_w123_advance(S.m2);
	wake(1, reader);
	sw(1, reader, GT_IN_RUNNABLE);
	sys_exit(1);
	sys_enter(1, __NR_prctl);
	rename_task(reader, "renamed");
	sys_exit(1);
	sw(1, w, GT_IN_SLEEP);
	ret = sweep_race_write(ret);
	sw(1, reader, GT_IN_SLEEP);
	sweep_race_check_gens("sweep_syscall_renamed", ret, 4, 3);
}

/*
 * create_at_stop (path A): the stop disarms the hooks while a fork hook
 * that passed the armed check still writes, here after its first
 * transition (the parent's pending clone).  The child's creation must
 * still be written: taken for the start-up snapshot, it was not, and the
 * last generation's sweep (generation 2) stated a goroutine no
 * generation had created.
 */
static unsigned int stop_at;

static void disarm_after(struct gt_model *m)
{
	if (m == S.m2 && ++written == stop_at)
		gt_model_disarm(m);
}

static void test_create_at_stop(void)
{
	struct task *a = task_new(2560, 2560, "parent");
	struct task *b = task_new(2561, 2561, "b");
	struct task *child = task_new(2562, 2562, "child");
	struct task *tasks[] = { a, b };
	struct gt_trace_error err = { 0 };
	struct gt_go123_info info = { 0 };
	struct gt_in_fork in;
	bool valid;
	int ret;

	sim_setup("create_at_stop", 2);
	S.drain = false;
	S.cur[0] = a;
	S.cur[1] = b;
	sim_start(tasks, 2);
	syscall_quick(0, __NR_getpid);
	ret = gt_w123_gen_end(S.m2, false);
	sys_enter(0, __NR_clone);
	written = 0;
	stop_at = 1;
	gt_umodel_written_hook = disarm_after;
	in = (struct gt_in_fork){ .ev = ev(0), .child = &child->in };
	gt_model_fork(S.m2, &in);
	gt_umodel_written_hook = NULL;
	valid = go123_end_check(&info, &err);
	ok(!ret && valid && written >= 2 && info.generations == 2,
	   "create_at_stop (go 1.23): disarmed after transition 1 of the "
	   "fork's %u, gotrace check reads %llu generations of 2%s%s",
	   written, (unsigned long long)info.generations, valid ? "" : ": ",
	   err.msg);
}

/*
 * In the module the reader may end the generation while a CPU's hook is
 * still writing: here after each transition in turn of a block in a
 * syscall (its GoSyscallBegin; the block with the P's stop), the test
 * acting as that reader (gt_umodel_written_hook advances; the old
 * generation is written out after the hook).  When the P's stop was a
 * third transition, an end between the last two left the P in its
 * syscall in the old generation while the new one stated it idle
 * ("inconsistent status for proc 0: old Syscall vs. new Idle",
 * exit_loss_go123_test.sh on 6.12 with 8 CPUs).
 */
static void advance_after(struct gt_model *m)
{
	if (m == S.m2 && ++written == advance_at)
		gt_w123_advance(m);
}

static void run_block_advance(const char *name, unsigned int nth)
{
	struct task *a = task_new(2520, 2520, "a");
	struct task *b = task_new(2521, 2521, "b");
	struct task *tasks[] = { a, b };
	struct gt_trace_error err = { 0 };
	struct gt_go123_info info = { 0 };
	bool valid;
	int ret;

	sim_setup(name, 2);
	S.drain = false;
	S.cur[0] = a;
	S.cur[1] = b;
	sim_start(tasks, 2);
	syscall_quick(0, __NR_getpid);
	sys_enter(0, __NR_openat);
	written = 0;
	advance_at = nth;
	gt_umodel_written_hook = advance_after;
	sw(0, &S.idle[0], GT_IN_SLEEP);
	gt_umodel_written_hook = NULL;
	ret = sweep_race_write(0);
	wake(1, a);
	sw(0, a, GT_IN_RUNNABLE);
	sys_exit(0);
	syscall_quick(0, __NR_getppid);
	valid = go123_end_check(&info, &err);
	ok(!ret && valid && written >= nth && info.generations == 2,
	   "%s (go 1.23): the generation ended after transition %u of the "
	   "block's %u, gotrace check reads %llu generations of 2%s%s", name,
	   nth, written, (unsigned long long)info.generations,
	   valid ? "" : ": ", err.msg);
}

static void test_block_advance(void)
{
	static const char *names[] = {
		"block_advance_1", "block_advance_2",
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(names); i++)
		run_block_advance(names[i], i + 1);
}

/*
 * Each task's time is in a user region named after its systemd unit:
 * begun after its first GoStart, ended before its GoDestroy, moved when
 * the task moves to another unit's cgroup; one user task per unit; none
 * for a task in no unit; a name too long for the table counted, not
 * written.  Generations of a few events, so that regions cross them.
 */
static void test_units(void)
{
	static char long_unit[300];
	struct task *a = task_new(1, 1, "gt_a");
	struct task *b = task_new(2, 2, "gt_b");
	struct task *c = task_new(3, 3, "gt_c");
	struct task *d = task_new(4, 1, "gt_a");
	struct task *e = task_new(5, 5, "gt_e");
	struct task *tasks[] = { a, b, c, e };
	struct un_walk w = { .order_ok = true };
	struct gt_trace_error err = { 0 };
	struct gt_stats st = { 0 };
	struct un_walk wc = { .order_ok = true };
	struct gt_go123_info info = { 0 };
	struct un_cut cut = { .from = 2 };
	struct gt_src src;
	const char *want = "1:B a.service, 3:B b.scope, 4:B a.service, "
			   "4:E a.service, 3:E b.scope, 3:B a.service, "
			   "1:E a.service";
	bool units_ok = true;
	int ret;

	sim_setup("units", 2);
	a->in.cgroup = 10, a->in.unit = "a.service";
	b->in.cgroup = 1;			/* the root: no unit */
	c->in.cgroup = 11, c->in.unit = "b.scope";
	d->in.cgroup = 10, d->in.unit = "a.service";
	memset(long_unit, 'x', sizeof(long_unit) - 1);
	memcpy(long_unit + sizeof(long_unit) - 9, ".service", 9);
	e->in.cgroup = 12, e->in.unit = long_unit;
	S.cur[0] = a;
	sim_start(tasks, 4);
	gt_umodel_set_generation_ns(S.m2, 200);
	/* a (running since the snapshot) sleeps; b, then c run. */
	sw(0, b, GT_IN_SLEEP);
	wake(0, a);
	wake(0, c);
	sw(0, c, GT_IN_RUNNABLE);
	sw(0, a, GT_IN_SLEEP);
	/* a forks d, its child, in its unit; d runs and exits. */
	fork_task(0, d);
	sw(0, d, GT_IN_SLEEP);
	sw(0, &S.idle[0], GT_IN_DEAD);
	/* c runs again, with no unit change: no region event. */
	wake(0, c);
	sw(0, c, GT_IN_SLEEP);
	/* e: a name longer than a unit's: counted, no region. */
	wake(0, e);
	sw(0, e, GT_IN_SLEEP);
	/* c is moved to a.service's cgroup: its next start follows. */
	c->in.cgroup = 10, c->in.unit = "a.service";
	wake(0, c);
	sw(0, c, GT_IN_SLEEP);
	wake(0, b);
	sw(0, b, GT_IN_SLEEP);
	/* a exits: its region, begun in the first generation, ends. */
	wake(0, a);
	sw(0, a, GT_IN_SLEEP);
	sw(0, &S.idle[0], GT_IN_DEAD);
	sim_finish();

	ret = go123_walk_all(S.out2, S.len2, un_event, &w, &err);
	ok(ret == 0 && !err.msg[0] && INFO2.generations >= 3,
	   "units: the go 1.23 trace reads, %llu generations (%s)",
	   (unsigned long long)INFO2.generations,
	   err.msg[0] ? err.msg : "no error");
	ok(!strcmp(w.seq, want) && w.order_ok,
	   "units: regions follow each task's unit, on its running "
	   "goroutine: %s", w.seq);
	ok(w.task_begins[0] == 1 && w.task_begins[1] == 1 &&
	   w.task_begins[2] == 0,
	   "units: one user task per unit, named after it (%u, %u, %u other)",
	   w.task_begins[0], w.task_begins[1], w.task_begins[2]);
	ok(ST2.unit_overflows == 1,
	   "units: the name too long is counted (%llu)",
	   (unsigned long long)ST2.unit_overflows);

	gt_src_mem(&src, S.out2, S.len2);
	ret = gt_go123_stats(&src, &st, &err);
	/*
	 * c counts in its last unit: a.service has a, d and c, and no task
	 * is left in b.scope; b and e are in none.
	 */
	units_ok = !ret && st.nunits == 1 &&
		   !strcmp(st.units[0].name, "a.service") &&
		   st.units[0].tasks == 3 && st.units[0].run > 0 &&
		   st.units[0].starts >= 4;
	ok(units_ok, "units: gotrace stat groups the tasks by unit "
	   "(%zu units, the first %s with %llu tasks)", st.nunits,
	   st.nunits ? st.units[0].name : "-",
	   st.nunits ? (unsigned long long)st.units[0].tasks : 0ULL);
	if (!ret)
		gt_stats_free(&st);

	/*
	 * A flight snapshot starts at a later generation: the regions begun
	 * before it end with no begin (Go's readers and gotrace's take them
	 * as begun at the start), and the trace still names their units.
	 */
	un_cut(&cut);
	save(".cut.go123.trace", cut.buf, cut.len);
	gt_src_mem(&src, cut.buf, cut.len);
	ret = gt_go123_check(&src, &info, &err);
	if (!ret)
		ret = go123_walk_all(cut.buf, cut.len, un_event, &wc, &err);
	ok(ret == 0 && info.generations == INFO2.generations - 1 &&
	   strstr(w.seq, wc.seq) && strstr(wc.seq, "1:E a.service") &&
	   !strstr(wc.seq, "1:B"),
	   "units: cut before generation 2, the trace reads, a's region "
	   "ends with no begin: %s (%s)", wc.seq,
	   err.msg[0] ? err.msg : "no error");
	gt_src_mem(&src, cut.buf, cut.len);
	ret = gt_go123_stats(&src, &st, &err);
	ok(!ret && st.nunits == 1 && !strcmp(st.units[0].name, "a.service"),
	   "units: gotrace stat of the cut trace has the unit (%zu units)",
	   st.nunits);
	if (!ret)
		gt_stats_free(&st);
	free(cut.buf);
}

/* ---- CPU samples (Documentation/cpu-samples.rst) ------------------------ */

struct cs_walk {
	unsigned int samples;	/* CPUSample events */
	unsigned int right;	/* of them on P 0, of the goroutine expected,
				 * with its kernel frame, user frames and comm
				 */
	u64 g;			/* the goroutine expected: the first's */
	bool hz;		/* every generation states the rate */
	unsigned int gens;
	u64 last_gen;
};

static int cs_event(void *ctx, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct cs_walk *w = ctx;
	char k[64], u[64], comm[64];

	(void)err;
	if (g->gen != w->last_gen) {
		w->last_gen = g->gen;
		w->gens++;
		w->hz &= gt_go123_cpu_hz(g) == 999;
	}
	if (ev->type != GT_GO123_EV_CPU_SAMPLE)
		return 0;
	w->samples++;
	if (!w->g)
		w->g = ev->args[2];
	tg_frame(g, ev->args[3], 0, false, k, sizeof(k));
	tg_frame(g, ev->args[3], 1, false, u, sizeof(u));
	tg_frame(g, ev->args[3], 0, true, comm, sizeof(comm));
	w->right += ev->args[1] == 0 && ev->args[2] == w->g && ev->m == w->g &&
		    !strcmp(k, "kfn_ffffffff81001000") && !strcmp(comm, "burn") &&
		    u[0];
	return 0;
}

/* Every generation's events and CPU samples, in Go's order, to cs_event(). */
static int cs_walk_all(struct cs_walk *w, struct gt_trace_error *err)
{
	struct gt_go123_reader r;
	struct gt_go123_gen g = { 0 };
	struct gt_src src;
	int ret;

	gt_src_mem(&src, S.out2, S.len2);
	gt_go123_open(&r, &src);
	while ((ret = gt_go123_next(&r, &g, err)) > 0)
		if (gt_go123_walk_samples(&g, cs_event, w, err, NULL))
			break;
	gt_go123_gen_free(&g);
	return ret;
}

/*
 * CPU samples: a sample of a recorded task is written in the go 1.23
 * format (the go 1.11 twin ignores it) with the interrupted kernel code's
 * frame, the task's user frames and its comm frame; one of an idle CPU,
 * or of a task the comm filter leaves out, is counted and not written;
 * samples go on over generations (each states the rate), and a sample
 * the timer missed is counted as lost.
 */
static void test_cpu_samples(void)
{
	enum { N = 3000 };
	static const u64 kpcs[] = { 0xffffffff81001000ULL, 0xffffffff81002000ULL };
	static const u64 upcs[] = { 0x401000, 0x401100, 0x401200 };
	struct task *burn, *other, *all[2];
	struct gt_umodel_stats st;
	struct cs_walk w = { .hz = true };
	struct gt_trace_error err = { 0 };
	unsigned int written = 0, idle = 0, hidden = 0;
	bool walked;

	sim_setup("cpu_samples", 2);
	S.cfg.opts.cpu_hz = 999;
	S.cfg.opts.flags |= GOTRACE_OPT_USER_STACKS;
	strcpy(S.cfg.opts.comm, "burn");
	S.cfg.symbolise = tg_symbolise;
	all[0] = burn = task_new(900, 900, "burn");
	all[1] = other = task_new(901, 901, "other");
	S.cur[0] = burn;
	S.cur[1] = other;
	sim_start(all, 2);
	gt_umodel_set_generation_ns(S.m2, 5000);
	for (unsigned int i = 0; i < N; i++) {
		unsigned int cpu = i & 1;
		struct gt_in_sample in = { .ev = ev(cpu) };

		/* CPU 1: the filtered-out task, then idle. */
		if (i == N / 2)
			sw(1, &S.idle[1], GT_IN_SLEEP);
		in.ev = ev(cpu);
		if (cpu == 0) {
			in.ev.pcs = kpcs;
			in.ev.nr_pcs = 2;
			in.ev.upcs = upcs;
			in.ev.nr_upcs = 3;
			in.ev.uspace = 1;
			written++;
		} else if (S.cur[1] == other) {
			hidden++;
		} else {
			idle++;
		}
		FEED(gt_model_cpu_sample, &in);
		drain();
		/* Generations end at events: burn makes a syscall now and then. */
		if (i % 100 == 99)
			syscall_quick(0, 39);
	}
	/* A timer late by three periods: two samples not taken. */
	{
		struct gt_in_sample late = { .ev = ev(0), .missed = 2 };

		late.ev.pcs = kpcs;
		late.ev.nr_pcs = 2;
		late.ev.upcs = upcs;
		late.ev.nr_upcs = 3;
		late.ev.uspace = 1;

		FEED(gt_model_cpu_sample, &late);
		written++;
	}
	gt_umodel_stats(S.m2, &st);
	ok(st.cpu_samples == written && st.cpu_samples_idle == idle &&
	   st.cpu_samples_hidden == hidden && st.cpu_samples_lost == 2,
	   "cpu samples: %llu written, %llu idle, %llu filtered out, %llu lost "
	   "(want %u, %u, %u, 2)", (unsigned long long)st.cpu_samples,
	   (unsigned long long)st.cpu_samples_idle,
	   (unsigned long long)st.cpu_samples_hidden,
	   (unsigned long long)st.cpu_samples_lost, written, idle, hidden);
	gt_umodel_stats(S.m, &st);
	ok(!st.cpu_samples && !st.cpu_samples_idle && !st.cpu_samples_lost,
	   "cpu samples: the go 1.11 twin takes none");
	sim_finish();
	walked = !cs_walk_all(&w, &err);
	ok(walked && w.samples == written && w.right == written && w.g,
	   "cpu samples (go 1.23): %u of %u written, %u with P 0, burn's "
	   "goroutine %llu and its kernel, user and comm frames%s%s",
	   w.samples, written, w.right, (unsigned long long)w.g,
	   err.msg[0] ? ": " : "", err.msg);
	ok(w.gens > 3 && w.hz,
	   "cpu samples (go 1.23): %u generations, each states 999 Hz", w.gens);
}

/* ---- Deep stacks, colliding comms, reason strings, tids, the pool ----- */

/*
 * The kernel frames a hook keeps (GT_KSTACK_MAX, model/model_state.h) and
 * the frames of a stack record (GT_STACK_MAX_FRAMES, model/go111_encode.h,
 * whose struct gt_frame the readers' headers have too).
 */
#define DS_KSTACK_MAX		32
#define DS_STACK_MAX_FRAMES	50

/* Stacks of the go 1.23 twin's GoBlocks and GoSyscallBegins of one M. */
struct ds_walk {
	u64 m;
	char blocks[4][US_LEN];
	unsigned int nb;
	char sys[4][US_LEN];
	unsigned int ns;
	size_t most;		/* frames of the deepest of them */
};

static int ds_event(void *ctx, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct ds_walk *w = ctx;
	struct us_go123ctx c = { .g = g };
	char *out;
	size_t n;

	(void)err;
	if (ev->m != w->m)
		return 0;
	if (ev->type == GT_GO123_EV_GO_BLOCK && w->nb < ARRAY_SIZE(w->blocks))
		out = w->blocks[w->nb++];
	else if (ev->type == GT_GO123_EV_GO_SYSCALL_BEGIN &&
		 w->ns < ARRAY_SIZE(w->sys))
		out = w->sys[w->ns++];
	else
		return 0;
	if (!gt_go123_stack(g, ev->args[2], &c.pcs, &n))
		return 0;
	if (n > w->most)
		w->most = n;
	us_render(out, US_LEN, n, us_frame2, &c);
	return 0;
}

/* @t, running on CPU 0, sleeps with kernel frames @kpcs and user frames @upcs. */
static void ds_sleep(struct task *t, const u64 *kpcs, unsigned int nk,
		     const u64 *upcs, unsigned int nu)
{
	struct gt_in_switch in = { .ev = ev(0), .prev = &t->in,
				   .next = &S.idle[0].in,
				   .prev_state = GT_IN_SLEEP,
				   .fd_kind = GT_IN_FD_OTHER };

	in.ev.pcs = kpcs;
	in.ev.nr_pcs = nk;
	in.ev.upcs = upcs;
	in.ev.nr_upcs = nu;
	in.ev.uspace = US_SPACE_A;
	FEED(gt_model_switch, &in);
	S.cur[0] = &S.idle[0];
	drain();
	wake(1, t);
	sw(0, t, GT_IN_RUNNABLE);
}

/*
 * The deepest stacks: GT_KSTACK_MAX kernel frames and a user walk of 40,
 * in a block outside any syscall and in a sleep inside read() (a
 * GoSysCall whose syscall frame comes after the user frames).  The walk
 * gets the room the kernel frames leave within GT_STACK_MAX_FRAMES with
 * the truncation frame, the syscall frame and the comm frame still to
 * come: no stack has more frames than a stack record may hold.
 */
static void test_ustack_room(void)
{
	enum { K = DS_KSTACK_MAX, U = 40,
	       ROOM = DS_STACK_MAX_FRAMES - DS_KSTACK_MAX - 3 };
	struct task *t = task_new(2600, 2600, "deep");
	static char want_blk[US_LEN], want_sys[US_LEN], got[US_LEN];
	static struct ds_walk w;
	struct gt_trace_error err = { 0 };
	const struct gt_event *blk = NULL, *sys = NULL;
	u64 kpcs[K], upcs[U];
	size_t n1 = 0, n2 = 0, most = 0;
	char *p = want_blk;
	unsigned int i;

	sim_setup("ustack_room", 2);
	S.cfg.opts.flags |= GOTRACE_OPT_USER_STACKS;
	S.cfg.symbolise = tg_symbolise;
	S.cfg.uresolve = us_resolve;
	S.cfg.ufile = us_file;
	for (i = 0; i < K; i++)
		kpcs[i] = US_KPC(i);
	for (i = 0; i < U; i++)
		upcs[i] = 0x401000 + 16 * i;
	S.cur[0] = t;
	sim_start(&t, 1);
	sys_enter(0, __NR_read);
	ds_sleep(t, kpcs, K, upcs, U);
	sys_exit(0);
	ds_sleep(t, kpcs, K, upcs, U);
	sim_finish();

	for (i = 0; i < ROOM; i++)
		p += sprintf(p, "usprog+0x%x@/usr/bin/usprog#%llx|",
			     0x1000 + 16 * i, US_UPC | (0x1000 + 16 * i));
	sprintf(p, "[user stack truncated: depth limit]@#%llx|",
		3ULL << 56 | GT_USTOP_DEPTH);
	strcpy(want_sys, want_blk);
	strcat(want_sys, "sys_read@[syscall]|deep");
	strcat(want_blk, "deep");

	for (size_t k = 0; k < nevs; k++) {
		if (evs[k].g != 2600)
			continue;
		if (evs[k].type == GOTRACE_EV_GO_SYSCALL)
			sys = &evs[k];
		if (evs[k].type == GOTRACE_EV_GO_BLOCK)
			blk = &evs[k];
	}
	if (sys) {
		gt_trace_stack(&T, sys->stk, &n1);
		us_render(got, sizeof(got), n1, us_frame1, &sys->stk);
	}
	ok(sys && !strcmp(got, want_sys) && n1 == DS_STACK_MAX_FRAMES,
	   "ustack_room (1.11): a sleep in read() with %u kernel and %u user "
	   "frames keeps %u user frames and its syscall frame in %zu frames "
	   "(at most %u)", K, U, ROOM, n1, DS_STACK_MAX_FRAMES);
	if (sys && strcmp(got, want_sys))
		diag("got %s", got);
	if (blk) {
		gt_trace_stack(&T, blk->stk, &n2);
		us_render(got, sizeof(got), n2, us_frame1, &blk->stk);
	}
	ok(blk && !strcmp(got, want_blk) && n2 == DS_STACK_MAX_FRAMES - 1,
	   "ustack_room (1.11): a block with %u kernel and %u user frames keeps "
	   "%u user frames in %zu frames", K, U, ROOM, n2);
	if (blk && strcmp(got, want_blk))
		diag("got %s", got);

	memset(&w, 0, sizeof(w));
	w.m = 2600;
	go123_walk_all(S.out2, S.len2, ds_event, &w, &err);
	for (i = 0; i < w.ns; i++)
		most += !strcmp(w.sys[i], want_sys);
	ok(!err.msg[0] && most == 1 && w.nb == 1 &&
	   !strcmp(w.blocks[0], want_blk) && w.most <= DS_STACK_MAX_FRAMES,
	   "ustack_room (go 1.23): the same frames, %zu at most%s%s", w.most,
	   err.msg[0] ? ": " : "", err.msg);
}

/* Two comms whose hashes meet: the first pair of c0 to c262143. */
static bool comms_meeting(char *a, char *b, size_t size)
{
	enum { N = 1 << 18 };
	u32 *first = calloc(N, sizeof(*first)), *hashes = malloc(N * 4);
	char name[GT_IN_COMM_LEN];
	bool found = false;

	if (!first || !hashes) {
		free(first);
		free(hashes);
		return false;
	}
	/* An open-addressing set of the hashes, by their low 18 bits. */
	for (u32 i = 0; i < N && !found; i++) {
		u32 h, s;

		memset(name, 0, sizeof(name));
		snprintf(name, sizeof(name), "c%u", i);
		h = gt_env_jhash(name, sizeof(name), 1);
		hashes[i] = h;
		for (s = h % N; first[s] && hashes[first[s] - 1] != h;
		     s = (s + 1) % N)
			;
		if (first[s]) {
			snprintf(a, size, "c%u", first[s] - 1);
			snprintf(b, size, "c%u", i);
			found = true;
		}
		first[s] = i + 1;
	}
	free(first);
	free(hashes);
	return found;
}

struct cc_walk {
	const char *comm[2];	/* of tids 2700 and 2701 */
	unsigned int blocks, right;
};

static int cc_event(void *ctx, const struct gt_go123_gen *g,
		    const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct cc_walk *w = ctx;
	char comm[64];

	(void)err;
	if (ev->type != GT_GO123_EV_GO_BLOCK || ev->m < 2700 || ev->m > 2701)
		return 0;
	tg_frame(g, ev->args[2], 0, true, comm, sizeof(comm));
	w->blocks++;
	w->right += !strcmp(comm, w->comm[ev->m - 2700]);
	return 0;
}

/*
 * Two comms of one hash: whichever a generation meets first takes the
 * PC code of that hash, the other the next one (tables.c).  A task
 * caches its comm PC for one generation (task_comm_pc()): in a later
 * one, the cached PC may be the other comm's.  The two tasks block in
 * turns, one first in a generation, the other in the next: every block
 * of the go 1.23 trace names its own task's comm.
 */
static void test_comm_collide(void)
{
	enum { ROUNDS = 8 };
	char a[GT_IN_COMM_LEN], b[GT_IN_COMM_LEN];
	struct task *ta, *tb, *tick, *tasks[3];
	static const u64 kpc[] = { 0xffffffff81000000ULL };
	struct cc_walk w = { .comm = { a, b } };
	struct gt_trace_error err = { 0 };

	if (!comms_meeting(a, b, sizeof(a))) {
		ok(0, "comm_collide: two comms of one hash");
		return;
	}
	sim_setup("comm_collide", 3);
	S.cfg.symbolise = tg_symbolise;
	tasks[0] = ta = task_new(2700, 2700, a);
	tasks[1] = tb = task_new(2701, 2701, b);
	tasks[2] = tick = task_new(2702, 2702, "tick");
	S.cur[2] = tick;
	sim_start(tasks, 3);
	gt_umodel_set_generation_ns(S.m2, 100000);
	for (unsigned int r = 0; r < ROUNDS; r++) {
		struct task *first = r & 1 ? tb : ta;
		struct task *second = r & 1 ? ta : tb;

		/* A new generation: its first event, of another comm. */
		S.ts += 200000;
		syscall_quick(2, __NR_getpid);
		sw(0, first, GT_IN_RUNNABLE);
		sleep_with_stack(first, kpc, 1);
		sw(0, second, GT_IN_RUNNABLE);
		sleep_with_stack(second, kpc, 1);
		wake(2, first);
		wake(2, second);
	}
	sim_finish();
	go123_walk_all(S.out2, S.len2, cc_event, &w, &err);
	diag("comm_collide: %s and %s, %llu generations", a, b,
	     (unsigned long long)ST2.generations);
	ok(!err.msg[0] && w.blocks == 2 * ROUNDS && w.right == w.blocks &&
	   ST2.generations >= ROUNDS,
	   "comm_collide (go 1.23): %u of %u blocks name their own task's comm "
	   "over %llu generations%s%s", w.right, w.blocks,
	   (unsigned long long)ST2.generations, err.msg[0] ? ": " : "",
	   err.msg);
}

/*
 * The go 1.23 reason of a sleep in a syscall: its class and the syscall,
 * "chan send: pwrite64" (a pipe written), "chan receive: read", and the
 * other classes (classify.c).
 */
static void test_go123_reasons(void)
{
	static const struct {
		int nr;
		u8 fd;
		const char *want;
	} cases[] = {
		{ __NR_pwrite64, GT_IN_FD_PIPE, "chan send: pwrite64" },
		{ __NR_write, GT_IN_FD_PIPE, "chan send: write" },
		{ __NR_read, GT_IN_FD_PIPE, "chan receive: read" },
		{ __NR_wait4, GT_IN_FD_UNKNOWN, "chan receive: wait4" },
		{ __NR_futex, GT_IN_FD_UNKNOWN, "sync: futex" },
		{ __NR_nanosleep, GT_IN_FD_UNKNOWN, "sleep: nanosleep" },
		{ __NR_ppoll, GT_IN_FD_UNKNOWN, "select: ppoll" },
		{ __NR_read, GT_IN_FD_SOCKET, "network" },
	};
	struct task *t = task_new(2800, 2800, "reasons");
	struct kw_walk walk = { .n = 0 };
	struct gt_trace_error err = { 0 };
	unsigned int right = 0, i;

	sim_setup("go123_reasons", 2);
	S.cur[0] = t;
	sim_start(&t, 1);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		sys_enter(0, cases[i].nr);
		sw_fd(0, &S.idle[0], GT_IN_SLEEP, false, cases[i].fd);
		wake(1, t);
		sw(0, t, GT_IN_RUNNABLE);
		sys_exit(0);
	}
	sim_finish();
	go123_walk_all(S.out2, S.len2, kw_event, &walk, &err);
	for (i = 0; i < ARRAY_SIZE(cases) && i < walk.n; i++) {
		if (!strcmp(walk.reasons[i], cases[i].want)) {
			right++;
			continue;
		}
		diag("block %u: reason '%s', want '%s'", i, walk.reasons[i],
		     cases[i].want);
	}
	ok(!err.msg[0] && walk.n == ARRAY_SIZE(cases) &&
	   right == ARRAY_SIZE(cases),
	   "go123_reasons (go 1.23): %u of %zu sleeps in syscalls give their "
	   "class and syscall", right, ARRAY_SIZE(cases));
}

/*
 * The largest tid Linux gives (PID_MAX_LIMIT - 1) is its goroutine id;
 * one past it, as a backend could read, gets a generated id: the table
 * of tids seen ends there.
 */
static void test_tid_max(void)
{
	enum { PID_LIMIT = 4 * 1024 * 1024 };
	struct task *p = task_new(2900, 2900, "parent");
	struct task *last = task_new(PID_LIMIT - 1, PID_LIMIT - 1, "last");
	struct task *past = task_new(PID_LIMIT, PID_LIMIT, "past");
	const struct gt_event *e = NULL;

	sim_setup("tid_max", 2);
	S.cur[0] = p;
	sim_start(&p, 1);
	fork_task(0, last);
	fork_task(0, past);
	sim_finish();
	for (size_t k = 0; k < nevs && !e; k++)
		if (evs[k].type == GOTRACE_EV_GO_CREATE &&
		    (u32)evs[k].args[0] == PID_LIMIT)
			e = &evs[k];
	ok(count_arg(GOTRACE_EV_GO_CREATE, PID_LIMIT - 1) == 1 && e &&
	   e->args[0] >> 32,
	   "tid_max: tid %u is goroutine %u, tid %u goroutine %#llx", PID_LIMIT - 1,
	   PID_LIMIT - 1, PID_LIMIT, e ? (unsigned long long)e->args[0] : 0ULL);
}

/*
 * The periodic flush hands a CPU's chunk to the reader only if a spare
 * chunk takes its place, never one of the reserve (a chunk per CPU,
 * for closing its P): with one CPU and two chunks, the smallest pool,
 * a long run of flushes hands nothing over before the chunk is full;
 * with a third chunk every flush does.
 */
static void run_flush(unsigned int chunks, unsigned int *handed)
{
	struct task *t = task_new(3100, 3100, "quiet");
	size_t len;

	*handed = 0;
	sim_setup("flush", 1);
	S.cfg.chunks = chunks;
	S.cur[0] = t;
	sim_start(&t, 1);
	for (unsigned int i = 0; i < 200; i++) {
		len = S.len;
		gt_umodel_flush(S.m);
		syscall_quick(0, __NR_getpid);
		*handed += S.len > len;
	}
	sim_finish();
}

static void test_flush_reserve(void)
{
	unsigned int handed;

	run_flush(2, &handed);
	ok(!handed && !ST.lost && !ST.chunk_overflows,
	   "flush: one CPU, two chunks: 200 flushes hand over %u chunks "
	   "(the other is the reserve), nothing lost", handed);
	run_flush(3, &handed);
	ok(handed == 200 && !ST.lost && !ST.chunk_overflows,
	   "flush: one CPU, three chunks: %u of 200 flushes hand the chunk "
	   "over", handed);
}

/*
 * One CPU filling its chunks again and again, with a reader that keeps
 * up, in the "go 1.11" format: @chunks in the pool.  Returns the syscall
 * events in the trace of @n made.
 */
static unsigned int run_fill(unsigned int chunks, unsigned int n)
{
	struct task *t = task_new(3200, 3200, "filler");

	sim_setup("chunk_fill", 1);
	S.cfg.chunks = chunks;
	S.cur[0] = t;
	sim_start(&t, 1);
	for (unsigned int i = 0; i < n; i++)
		syscall_quick(0, __NR_getpid);
	sim_finish();
	return count_g(GOTRACE_EV_GO_SYSCALL, 3200);
}

/*
 * The smallest pool, two chunks a CPU, keeps one of them for closing the
 * CPU's P: its first full chunk ends a "go 1.11" session by overflow,
 * reader or not, and every event after it is counted lost (not one goes
 * unsaid).  A third chunk lets the CPU write one while the reader reads
 * the other.  The generational writer has buffers of its own: nothing
 * is lost there.
 */
static void test_chunk_fill(void)
{
	unsigned int n = 30000, got;

	got = run_fill(2, n);
	ok(got < n && got + ST.lost == n && ST.chunk_overflows == 1 &&
	   !ST2.lost,
	   "chunk_fill: one CPU, two chunks: %u of %u syscalls written, "
	   "%llu counted lost after the overflow (%llu); go 1.23: %llu lost",
	   got, n, (unsigned long long)ST.lost,
	   (unsigned long long)ST.chunk_overflows,
	   (unsigned long long)ST2.lost);
	got = run_fill(3, n);
	ok(got == n && !ST.lost && !ST.chunk_overflows && !ST2.lost,
	   "chunk_fill: one CPU, three chunks: %u of %u syscalls written in "
	   "%zu bytes, %llu lost", got, n, S.len,
	   (unsigned long long)ST.lost);
}

/* ---- Interrupts and work items (Documentation/interrupts.rst) ---------- */

/* An interrupt's handler begins (@entry) or ends on @cpu. */
static void irq(unsigned int cpu, u8 kind, u32 id, const char *name,
		bool entry)
{
	struct gt_in_irq in = { .ev = ev(cpu), .kind = kind, .id = id,
				.name = name };

	if (entry)
		FEED(gt_model_irq_entry, &in);
	else
		FEED(gt_model_irq_exit, &in);
	drain();
}

/* The kworker on @cpu begins (@start) or ends work function @func. */
static void work(unsigned int cpu, u64 func, bool start)
{
	struct gt_in_work in = { .ev = ev(cpu), .func = func };

	if (start)
		FEED(gt_model_work_start, &in);
	else
		FEED(gt_model_work_end, &in);
	drain();
}

/* The goroutine created (GoCreate) named @name, 0 if none. */
static u64 goid_named(const char *name)
{
	char buf[64];

	for (size_t i = 0; i < nevs; i++)
		if (evs[i].type == GOTRACE_EV_GO_CREATE &&
		    !strcmp(frame_name(evs[i].args[1], 0, buf, sizeof(buf)),
			    name))
			return evs[i].args[0];
	return 0;
}

/* GoStarts of @g, with or without its sequence number. */
static unsigned int count_starts(u64 g)
{
	return count_g(GOTRACE_EV_GO_START, g) +
	       count_g(GOTRACE_EV_GO_START_LOCAL, g);
}

/* Events of the go 1.23 twin, by type. */
struct irq_walk {
	unsigned int n[64];
	unsigned int names;	/* region names read as "[work] kfn_..." */
};

static int irq_event(void *ctx, const struct gt_go123_gen *g,
		     const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct irq_walk *w = ctx;
	char name[64] = "";

	(void)err;
	if (ev->type < ARRAY_SIZE(w->n))
		w->n[ev->type]++;
	if (ev->type == GT_GO123_EV_USER_REGION_BEGIN) {
		us_go123str(g, ev->args[2], name, sizeof(name));
		w->names += !strncmp(name, "[work] kfn_", 11);
	}
	return 0;
}

static bool irq_walk(struct irq_walk *w)
{
	struct gt_trace_error err = { 0 };

	memset(w, 0, sizeof(*w));
	return go123_walk_all(S.out2, S.len2, irq_event, w, &err) >= 0;
}

/*
 * A softirq with a hard IRQ inside it interrupts a task, a timer an idle
 * CPU; the softirq again on the CPU gone idle: each a goroutine of its
 * own, named after it, made once, that the P runs while the task waits.
 */
static void test_irq_nested(void)
{
	struct task *a = task_new(3000, 3000, "a");
	struct task *tasks[] = { a };
	struct irq_walk w;
	u64 ga, gs, gh, gt;

	sim_setup("irq_nested", 2);
	S.cfg.opts.flags |= GOTRACE_OPT_HARDIRQS | GOTRACE_OPT_SOFTIRQS;
	S.cur[0] = a;
	sim_start(tasks, 1);
	irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL, true);
	irq(0, GT_IN_HARDIRQ, 24, "virtio0-input", true);
	irq(0, GT_IN_HARDIRQ, 24, "virtio0-input", false);
	irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL, false);
	irq(1, GT_IN_VECTOR, GT_IN_VEC_LOCAL_TIMER, NULL, true);
	irq(1, GT_IN_VECTOR, GT_IN_VEC_LOCAL_TIMER, NULL, false);
	sw(0, &S.idle[0], GT_IN_SLEEP);
	irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL, true);
	irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL, false);
	if (!sim_finish())
		return;
	ga = a->in.tid;
	gs = goid_named("[softirq] NET_RX");
	gh = goid_named("[irq 24] virtio0-input");
	gt = goid_named("[irq] local timer");
	ok(gs && gh && gt && gs != gh && gs != gt && gh != gt,
	   "each interrupt is a goroutine of its own, named after it");
	ok(count_named("[softirq] NET_RX") == 1,
	   "the softirq's goroutine is made once for its CPU (%u)",
	   count_named("[softirq] NET_RX"));
	ok(count_starts(gs) == 3 && count_g(GOTRACE_EV_GO_BLOCK, gs) == 3,
	   "the softirq runs three times: twice on the task's P, around the hard IRQ, once on the idle P (%u starts, %u blocks)",
	   count_starts(gs), count_g(GOTRACE_EV_GO_BLOCK, gs));
	ok(count_starts(gh) == 1 && count_starts(gt) == 1,
	   "the hard IRQ and the timer run once each");
	ok(count_g(GOTRACE_EV_GO_BLOCK, ga) == 2 && count_starts(ga) == 2,
	   "the task waits during the interrupts and runs again after (%u blocks, %u starts)",
	   count_g(GOTRACE_EV_GO_BLOCK, ga), count_starts(ga));
	ok(!ST.irq_unmatched && !ST.irq_too_deep && !ST.irq_closed &&
	   !ST2.irq_unmatched && !ST2.irq_closed,
	   "every frame matched: nothing counted");
	ok(irq_walk(&w) && w.n[GT_GO123_EV_GO_SWITCH] == 4 &&
	   w.n[GT_GO123_EV_GO_CREATE_BLOCKED] == 3 &&
	   w.n[GT_GO123_EV_GO_UNBLOCK] == 2,
	   "go 1.23: four GoSwitch on the task's P, the idle P's interrupts unblocked and started, three goroutines made blocked (%u, %u, %u)",
	   w.n[GT_GO123_EV_GO_SWITCH], w.n[GT_GO123_EV_GO_UNBLOCK],
	   w.n[GT_GO123_EV_GO_CREATE_BLOCKED]);
}

/*
 * Frames that do not match: an exit with no entry, entries past the
 * depth, a lost exit, and a softirq still open when its task switches
 * (PREEMPT_RT runs softirqs in task context): counted, the trace valid.
 */
/* Five nested: the model keeps four (GT_IRQ_DEPTH). */
static void test_irq_unmatched(void)
{
	struct task *a = task_new(3100, 3100, "a");
	struct task *b = task_new(3101, 3101, "b");
	struct task *tasks[] = { a, b };
	u32 i;

	sim_setup("irq_unmatched", 1);
	S.cfg.opts.flags |= GOTRACE_OPT_HARDIRQS | GOTRACE_OPT_SOFTIRQS;
	S.cur[0] = a;
	sim_start(tasks, 2);
	irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_TIMER, NULL, false);
	for (i = 1; i <= 5; i++)
		irq(0, GT_IN_HARDIRQ, i, "dev", true);
	for (i = 5; i >= 1; i--)
		irq(0, GT_IN_HARDIRQ, i, "dev", false);
	irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL, true);
	irq(0, GT_IN_HARDIRQ, 7, "eth0", true);
	irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL, false);
	irq(0, GT_IN_HARDIRQ, 7, "eth0", false);
	irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_RCU, NULL, true);
	sw(0, b, GT_IN_RUNNABLE);
	irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_RCU, NULL, false);
	syscall_quick(0, __NR_getpid);
	if (!sim_finish())
		return;
	ok(ST.irq_unmatched == 3 && ST2.irq_unmatched == 3,
	   "three exits matched nothing: before the session, after a lost one, after a switch (%llu)",
	   (unsigned long long)ST.irq_unmatched);
	ok(ST.irq_too_deep == 1 && ST2.irq_too_deep == 1,
	   "one entry was past the depth (%llu)",
	   (unsigned long long)ST.irq_too_deep);
	ok(ST.irq_closed == 2 && ST2.irq_closed == 2,
	   "two frames closed without their exit (%llu)",
	   (unsigned long long)ST.irq_closed);
	ok(count_named("[irq 5] dev") == 0 && count_named("[irq 4] dev") == 1,
	   "the entry past the depth is not written");
	ok(count_g(GOTRACE_EV_GO_PREEMPT, a->in.tid) == 1,
	   "the switch closes the softirq first: the task is preempted, not the softirq");
}

/*
 * A session that filters tasks: the interrupts of the recorded task are
 * written, not those of a hidden task nor of an idle CPU.
 */
static void test_irq_filter(void)
{
	struct task *a = task_new(3200, 3200, "a");
	struct task *b = task_new(3201, 3201, "b");
	struct task *tasks[] = { a, b };

	sim_setup("irq_filter", 3);
	S.cfg.opts.flags |= GOTRACE_OPT_HARDIRQS;
	strcpy(S.cfg.opts.comm, "a");
	S.cur[0] = a;
	S.cur[1] = b;
	sim_start(tasks, 2);
	irq(0, GT_IN_VECTOR, GT_IN_VEC_RESCHEDULE, NULL, true);
	irq(1, GT_IN_VECTOR, GT_IN_VEC_CALL_FUNCTION, NULL, true);
	irq(2, GT_IN_VECTOR, GT_IN_VEC_IRQ_WORK, NULL, true);
	irq(2, GT_IN_VECTOR, GT_IN_VEC_IRQ_WORK, NULL, false);
	irq(1, GT_IN_VECTOR, GT_IN_VEC_CALL_FUNCTION, NULL, false);
	irq(0, GT_IN_VECTOR, GT_IN_VEC_RESCHEDULE, NULL, false);
	if (!sim_finish())
		return;
	ok(count_named("[irq] reschedule IPI") == 1,
	   "the recorded task's interrupt is written");
	ok(!count_named("[irq] function call IPI") &&
	   !count_named("[irq] IRQ work"),
	   "neither the hidden task's nor the idle CPU's");
}

/*
 * A kworker's work items are regions named after their functions, one
 * open across a block; an end without a start is ignored.
 */
static void test_work_items(void)
{
	struct task *k = task_new(3300, 3300, "kworker/0:1");
	struct task *tasks[] = { k };
	struct irq_walk w;
	char name[64] = "";
	unsigned int regions = 0;

	sim_setup("work_items", 1);
	S.cfg.opts.flags |= GOTRACE_OPT_WORKQUEUE;
	S.cfg.symbolise = tg_symbolise;
	S.cur[0] = k;
	sim_start(tasks, 1);
	work(0, TG_PC(3), false);
	work(0, TG_PC(1), true);
	sw(0, &S.idle[0], GT_IN_SLEEP);
	wake(0, k);
	sw(0, k, GT_IN_RUNNABLE);
	work(0, TG_PC(1), false);
	work(0, TG_PC(2), true);
	work(0, TG_PC(2), false);
	if (!sim_finish())
		return;
	for (size_t i = 0; i < nevs; i++) {
		if (evs[i].type != GOTRACE_EV_USER_REGION)
			continue;
		if (!regions++)
			gt_trace_string(&T, evs[i].args[2], name, sizeof(name));
	}
	ok(regions == 4, "two work items, a region each, begun and ended (%u)",
	   regions);
	ok(!strcmp(name, "[work] kfn_ffffffff81000010"),
	   "the region is named after the work's function: %s", name);
	ok(irq_walk(&w) && w.n[GT_GO123_EV_USER_REGION_BEGIN] == 2 &&
	   w.n[GT_GO123_EV_USER_REGION_END] == 2 && w.names == 2,
	   "go 1.23: two regions, named after their functions (%u, %u, %u)",
	   w.n[GT_GO123_EV_USER_REGION_BEGIN],
	   w.n[GT_GO123_EV_USER_REGION_END], w.names);
}

/*
 * Every event in a generation of its own: interrupts open while the
 * generations end are stated running, the tasks they interrupted
 * waiting, every interrupt goroutine known to the next generation.
 */
static void test_irq_generations(void)
{
	struct task *a = task_new(3400, 3400, "a");
	struct task *tasks[] = { a };
	int r;

	sim_setup("irq_generations", 2);
	S.cfg.opts.flags |= GOTRACE_OPT_HARDIRQS | GOTRACE_OPT_SOFTIRQS |
			    GOTRACE_OPT_WORKQUEUE;
	S.cfg.symbolise = tg_symbolise;
	S.cur[0] = a;
	sim_start(tasks, 1);
	gt_umodel_set_generation_ns(S.m2, 1);
	for (r = 0; r < 3; r++) {
		work(0, TG_PC(r), true);
		irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_TIMER, NULL, true);
		irq(1, GT_IN_HARDIRQ, 30, "nvme0q1", true);
		irq(0, GT_IN_VECTOR, GT_IN_VEC_LOCAL_TIMER, NULL, true);
		irq(1, GT_IN_HARDIRQ, 30, "nvme0q1", false);
		irq(0, GT_IN_VECTOR, GT_IN_VEC_LOCAL_TIMER, NULL, false);
		irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_TIMER, NULL, false);
		work(0, TG_PC(r), false);
		syscall_quick(0, __NR_getpid);
	}
	if (!sim_finish())
		return;
	ok(ST2.generations > 20,
	   "the go 1.23 twin ended %llu generations, in the interrupts too",
	   (unsigned long long)ST2.generations);
}

/*
 * The cost of an interrupt in the trace: N local timer interrupts of a
 * running task (CPU 0) or of an idle CPU (CPU 1), written with GoSwitch
 * (the model's choice), with GoBlock, GoUnblock and GoStart (the
 * alternative measured: Documentation/interrupts.rst), and not at all.
 */
#define IRQ_BYTES_N	2000

static void irq_bytes_run(const char *name, int cpu, bool no_switch,
			  size_t *len111, size_t *len123)
{
	struct task *a = task_new(3500, 3500, "a");
	struct task *tasks[] = { a };

	sim_setup(name, 2);
	if (cpu >= 0)
		S.cfg.opts.flags |= GOTRACE_OPT_HARDIRQS;
	S.cur[0] = a;
	sim_start(tasks, 1);
	gt_umodel_irq_no_switch(S.m2, no_switch);
	for (unsigned int i = 0; i < IRQ_BYTES_N; i++) {
		irq(cpu < 0 ? 0 : cpu, GT_IN_VECTOR, GT_IN_VEC_LOCAL_TIMER,
		    NULL, true);
		irq(cpu < 0 ? 0 : cpu, GT_IN_VECTOR, GT_IN_VEC_LOCAL_TIMER,
		    NULL, false);
	}
	sim_finish();
	*len111 = S.len;
	*len123 = S.len2;
}

static void test_irq_bytes(void)
{
	size_t none111, none123, sw111[2], sw123[2], blk111[2], blk123[2];
	double n = IRQ_BYTES_N;

	irq_bytes_run("irq_bytes_none", -1, false, &none111, &none123);
	irq_bytes_run("irq_bytes_task_switch", 0, false, &sw111[0], &sw123[0]);
	irq_bytes_run("irq_bytes_task_block", 0, true, &blk111[0], &blk123[0]);
	irq_bytes_run("irq_bytes_idle_switch", 1, false, &sw111[1], &sw123[1]);
	irq_bytes_run("irq_bytes_idle_block", 1, true, &blk111[1], &blk123[1]);
	diag("bytes per interrupt of a task: go 1.23 GoSwitch %.2f, GoBlock+GoUnblock+GoStart %.2f; go 1.11 %.2f",
	     (sw123[0] - none123) / n, (blk123[0] - none123) / n,
	     (sw111[0] - none111) / n);
	diag("bytes per interrupt of an idle CPU: go 1.23 %.2f (%.2f); go 1.11 %.2f",
	     (sw123[1] - none123) / n, (blk123[1] - none123) / n,
	     (sw111[1] - none111) / n);
	ok(sw123[0] > none123 && blk123[0] > sw123[0],
	   "of a task, GoSwitch costs less than GoBlock, GoUnblock and GoStart (%zu < %zu bytes, %zu without interrupts)",
	   sw123[0], blk123[0], none123);
	ok(sw123[1] == blk123[1] && sw111[0] == blk111[0],
	   "of an idle CPU, and in the 1.11 format, the same either way");
}

/* CPU samples of the go 1.23 twin: of which goroutine, named how. */
#define IRQ_SMP_MAX	8

struct irq_smp_walk {
	unsigned int n;
	u64 g[IRQ_SMP_MAX];
	u64 m[IRQ_SMP_MAX];
	char top[IRQ_SMP_MAX][64];
};

static int irq_smp_event(void *ctx, const struct gt_go123_gen *g,
			 const struct gt_go123_event *ev,
			 struct gt_trace_error *err)
{
	struct irq_smp_walk *w = ctx;

	(void)err;
	if (ev->type != GT_GO123_EV_CPU_SAMPLE || w->n >= IRQ_SMP_MAX)
		return 0;
	w->g[w->n] = ev->args[2];
	w->m[w->n] = ev->m;
	tg_frame(g, ev->args[3], 0, true, w->top[w->n], sizeof(w->top[0]));
	w->n++;
	return 0;
}

/* Every generation's samples, in time order; false if one does not read. */
static bool irq_smp_walk_all(struct irq_smp_walk *w, struct gt_trace_error *err)
{
	struct gt_go123_reader r;
	struct gt_go123_gen g = { 0 };
	struct gt_src src;
	int ret;

	gt_src_mem(&src, S.out2, S.len2);
	gt_go123_open(&r, &src);
	while ((ret = gt_go123_next(&r, &g, err)) > 0)
		if (gt_go123_walk_samples(&g, irq_smp_event, w, err, NULL))
			break;
	gt_go123_gen_free(&g);
	return ret >= 0;
}

/*
 * A CPU sample that catches an interrupt is the interrupt's goroutine's,
 * named by it, on the M of the task it interrupted; the task's own
 * samples before and after stay the task's.  The samplers run in the
 * CPU's timer interrupt: a sample inside a hard interrupt is of what
 * that interrupt interrupted (a softirq, or the task).
 */
static void test_irq_samples(void)
{
	static const u64 kpcs[] = { 0xffffffff81001000ULL };
	struct task *a = task_new(3600, 3600, "a");
	struct task *tasks[] = { a };
	struct irq_smp_walk w = { 0 };
	struct gt_trace_error err = { 0 };
	struct gt_in_sample in;
	bool read;

	sim_setup("irq_samples", 1);
	S.cfg.opts.cpu_hz = 999;
	S.cfg.opts.flags |= GOTRACE_OPT_SOFTIRQS | GOTRACE_OPT_HARDIRQS;
	S.cfg.symbolise = tg_symbolise;
	S.cur[0] = a;
	sim_start(tasks, 1);
	/* The task; a softirq; the softirq under the timer; the timer. */
	for (unsigned int i = 0; i < 5; i++) {
		if (i == 1)
			irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL, true);
		if (i == 2 || i == 3)
			irq(0, GT_IN_VECTOR, GT_IN_VEC_LOCAL_TIMER, NULL, true);
		in = (struct gt_in_sample){ .ev = ev(0) };
		in.ev.pcs = kpcs;
		in.ev.nr_pcs = 1;
		FEED(gt_model_cpu_sample, &in);
		drain();
		if (i == 2 || i == 3)
			irq(0, GT_IN_VECTOR, GT_IN_VEC_LOCAL_TIMER, NULL, false);
		if (i == 2)
			irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL, false);
	}
	/* The CPU idle: a sample in a softirq under the timer, one not. */
	sw(0, &S.idle[0], GT_IN_SLEEP);
	for (unsigned int i = 0; i < 2; i++) {
		if (!i) {
			irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL, true);
			irq(0, GT_IN_VECTOR, GT_IN_VEC_LOCAL_TIMER, NULL, true);
		}
		in = (struct gt_in_sample){ .ev = ev(0) };
		in.ev.pcs = kpcs;
		in.ev.nr_pcs = 1;
		FEED(gt_model_cpu_sample, &in);
		drain();
		if (!i) {
			irq(0, GT_IN_VECTOR, GT_IN_VEC_LOCAL_TIMER, NULL, false);
			irq(0, GT_IN_SOFTIRQ, GT_IN_SOFTIRQ_NET_RX, NULL, false);
		}
	}
	if (!sim_finish())
		return;
	read = irq_smp_walk_all(&w, &err);
	ok(read && w.n == 6, "six samples written, not the idle CPU's (%u)",
	   w.n);
	ok(w.g[5] == w.g[1] && !strcmp(w.top[5], "[softirq] NET_RX"),
	   "one in a softirq of the idle CPU is the softirq's (%s)", w.top[5]);
	ok(w.g[0] == 3600 && w.g[4] == 3600 && w.g[1] != 3600 &&
	   w.m[1] == 3600,
	   "the one in the softirq is its goroutine's (G %llu), on the task's M",
	   (unsigned long long)w.g[1]);
	ok(!strcmp(w.top[1], "[softirq] NET_RX") && !strcmp(w.top[0], "a"),
	   "named by the softirq, not the task (%s, %s)", w.top[1], w.top[0]);
	ok(w.g[2] == w.g[1] && !strcmp(w.top[2], "[softirq] NET_RX"),
	   "one the timer took in the softirq is the softirq's (%s)",
	   w.top[2]);
	ok(w.g[3] == 3600 && !strcmp(w.top[3], "a"),
	   "one the timer took in the task is the task's (G %llu, %s)",
	   (unsigned long long)w.g[3], w.top[3]);
}

/*
 * The cases, in order.  "model_test DIR CASE..." runs (and writes) the
 * named ones alone: pprof_test.sh wants a few traces, not all of them.
 */
static const struct {
	const char *name;
	void (*run)(void);
} cases[] = {
	{ "switch_block_wakeup", test_switch_block_wakeup },
	{ "kernel_wait_reasons", test_kernel_wait_reasons },
	{ "user_stacks", test_user_stacks },
	{ "user_stacks_shown", test_user_stacks_shown },
	{ "user_stacks_exact", test_user_stacks_exact },
	{ "chunk_fill", test_chunk_fill },
	{ "seq_one_byte", test_seq_one_byte },
	{ "units", test_units },
	{ "fork_exit", test_fork_exit },
	{ "exec_rename", test_exec_rename },
	{ "exec_other_thread", test_exec_other_thread },
	{ "filter_comm_exec", test_filter_comm_exec },
	{ "filter_pid", test_filter_pid },
	{ "filter_cgroup", test_filter_cgroup },
	{ "syscalls", test_syscalls },
	{ "classify", test_classify },
	{ "classify_all", test_classify_all },
	{ "sys_times", test_sys_times },
	{ "clock_skew_batches", test_clock_skew_batches },
	{ "comm_names", test_comm_names },
	{ "stack_table_full_named", test_stack_table_full_named },
	{ "sweep_moved", test_sweep_moved },
	{ "sweep_exited", test_sweep_exited },
	{ "sweep_hidden", test_sweep_hidden },
	{ "sweep_syscall_renamed", test_sweep_syscall_renamed },
	{ "create_at_stop", test_create_at_stop },
	{ "block_advance", test_block_advance },
	{ "wakeup_before_switch", test_wakeup_before_switch },
	{ "exec_in_syscall", test_exec_in_syscall },
	{ "reuse", test_reuse },
	{ "reuse_running", test_reuse_running },
	{ "task_table_full", test_task_table_full },
	{ "task_table_reuse", test_task_table_reuse },
	{ "stack_table_full", test_stack_table_full },
	{ "no_wake_stacks", test_no_wake_stacks },
	{ "overflow", test_overflow },
	{ "overflow_go123", test_overflow_go123 },
	{ "clock_skew", test_clock_skew },
	{ "idle_p", test_idle_p },
	{ "bad_cpu", test_bad_cpu },
	{ "lost_switch", test_lost_switch },
	{ "exit_not_started", test_exit_not_started },
	{ "exit_other_p", test_exit_other_p },
	{ "exit_end_lost", test_exit_end_lost },
	{ "exit_refiltered", test_exit_refiltered },
	{ "generations", test_generations },
	{ "cpu_samples", test_cpu_samples },
	{ "table_generations_stacks", test_table_generations_stacks },
	{ "table_generations_comms", test_table_generations_comms },
	{ "table_generations_live", test_table_generations_live },
	{ "ustack_room", test_ustack_room },
	{ "comm_collide", test_comm_collide },
	{ "go123_reasons", test_go123_reasons },
	{ "tid_max", test_tid_max },
	{ "flush_reserve", test_flush_reserve },
	{ "irq_nested", test_irq_nested },
	{ "irq_unmatched", test_irq_unmatched },
	{ "irq_filter", test_irq_filter },
	{ "work_items", test_work_items },
	{ "irq_generations", test_irq_generations },
	{ "irq_bytes", test_irq_bytes },
	{ "irq_samples", test_irq_samples },
	{ "offline_cpus", test_offline_cpus },
};

int main(int argc, char **argv)
{
	if (argc > 1)
		trace_dir = argv[1];
	evs = calloc(MAX_EVENTS, sizeof(*evs));
	if (!evs)
		return 1;
	for (int a = 2; a < argc; a++) {
		size_t i = 0;

		while (i < sizeof(cases) / sizeof(cases[0]) &&
		       strcmp(argv[a], cases[i].name))
			i++;
		if (i == sizeof(cases) / sizeof(cases[0])) {
			fprintf(stderr, "model_test: no case %s\n", argv[a]);
			return 2;
		}
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool want = argc <= 2;

		for (int a = 2; a < argc; a++)
			want |= !strcmp(argv[a], cases[i].name);
		if (want)
			cases[i].run();
	}
	if (T_open)
		gt_trace_close(&T);
	free(evs);
	free(S.out);
	return tap_done();
}
