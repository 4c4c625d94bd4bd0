// SPDX-License-Identifier: GPL-2.0
/*
 * model_check.c - a randomised model checker of the module's model
 *
 * The tests of model_test.c replay interleavings someone thought of; the
 * invalid traces users meet come from the ones nobody did.  This program
 * simulates a Linux machine (CPUs that switch, wake, fork, exec, rename,
 * exit, enter and leave syscalls, take CPU samples, move between systemd
 * units, go offline and come back) and the module's reader around the
 * model that the module runs (model/model.c and the files it uses, built
 * for user space), in an order chosen by a seeded random generator:
 *
 *   - the reader ends a generation at any point: between two hooks, or
 *     inside one, between two of its transitions (gt_umodel_written_hook),
 *     as the module's reader does from another CPU;
 *   - the other CPUs move to the new generation at their next event or
 *     at the reader's IPI, which comes at any time after the advance and
 *     before the old generation is written;
 *   - hooks of every CPU run while the reader sweeps the old generation,
 *     between two buckets of the task table (gt_umodel_sweep_hook);
 *   - the session stops at any point, also from inside a hook, which then
 *     finishes its transitions disarmed (as a probe that passed the armed
 *     check before the stop does);
 *   - small buffers and tables, so that events are lost and counted;
 *     filters that hide and show tasks again; CPUs that go offline, and
 *     CPUs that come online after the start.
 *
 * Every trace it writes must be accepted by 'gotrace check' (whose
 * generational reader follows Go's, user/trace/go123_*.c), whole and cut
 * at any generation, as a flight snapshot or a rotated file begins.  On a
 * failure it prints the seed, the shortest run of that seed that still
 * fails, and that run's last operations; any seed replays exactly:
 *
 *	model_check --seed S [--ops N] [--verbose]
 *
 * Usage (TAP on stdout):
 *	model_check [--seeds FIRST:COUNT] [--seconds S] [--ops N]
 *		    [--save DIR] [--save-every K] [--format go111|go123]
 *		    [--digest] [--interrupts]
 *
 * --interrupts records interrupts and work items too
 * (Documentation/interrupts.rst): hard IRQs, vectors and softirqs nest
 * on every CPU, busy or idle, of recorded or hidden tasks; some exits
 * are lost, some come with no entry, some entries are lost; a task may
 * switch with a softirq open (PREEMPT_RT); kworkers run work items
 * across their blocks, some of whose ends are lost.  Without it every
 * seed draws and writes what it always did.
 *
 * --seconds stops starting new seeds after S seconds; --save writes the
 * trace of every K-th seed to DIR (for Go's own readers).  --format runs
 * every seed in one format (by default 1 in 8 is go 1.11); --digest
 * prints a fingerprint of each trace's bytes, which the byte-identity
 * corpus (tests/identity_test.sh) compares.  The closing line counts the
 * seeds and the operations that ran.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "model_check.h"
#include "sink.h"
#include "bpf/model/gtmodel.h"
#include "../../model/model_state.h"

#define MC_MAX_CPUS	4
#define MC_MAX_TASKS	64
#define MC_MAX_GENS	4096
#define MC_LOG		48
#define MC_LINE		160

/* ---- Randomness --------------------------------------------------------- */

static u64 rng;

/* splitmix64: the whole run follows from the seed. */
static u64 rnd64(void)
{
	u64 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [0, n). */
static unsigned int rnd(unsigned int n)
{
	return n ? (unsigned int)(rnd64() % n) : 0;
}

/* True one time in @n. */
static bool one_in(unsigned int n)
{
	return rnd(n) == 0;
}

/* ---- The simulated machine ----------------------------------------------- */

/* What Linux says of a task (not what the trace says: that is the model's). */
enum lstate {
	L_FREE,		/* no task: a slot to fork into */
	L_NEW,		/* forked, not woken yet (TASK_NEW) */
	L_RUNNABLE,
	L_RUNNING,
	L_SLEEPING,
};

struct ltask {
	struct gt_in_task in;
	char comm[GT_IN_COMM_LEN];
	enum lstate st;
	int cpu;		/* L_RUNNING: where */
	int sys_nr;		/* in this syscall, or -1 */
	u64 work;		/* a kworker's work item being run, or 0 */
};

/* An interrupt a CPU is in, as Linux has it (--interrupts). */
struct lirq {
	u8 kind;
	u32 id;
	const char *name;
};

#define MC_IRQ_DEPTH	6

enum reader_state {
	R_IDLE,		/* between generations */
	R_ADVANCED,	/* advanced; the IPIs not all done */
	R_WRITING,	/* writing the old generation out (its sweep) */
};

struct mc_config {
	unsigned int ncpu;
	unsigned int nr_ps;
	unsigned int format;
	unsigned int cpu_bytes;
	unsigned int max_tasks;
	unsigned int max_stacks;
	unsigned int in_hook_advance;	/* one in N transitions ends the gen */
	unsigned int max_ops;
	struct gotrace_options opts;
};

static struct mc {
	struct mc_config cfg;
	struct gt_model *m;
	struct ltask t[MC_MAX_TASKS];
	struct ltask idle[MC_MAX_CPUS];
	int cur[MC_MAX_CPUS];		/* the task Linux runs, -1: idle */
	bool online[MC_MAX_CPUS];
	bool booted[MC_MAX_CPUS];	/* a CPU >= nr_ps came online */
	u64 cpu_ts[MC_MAX_CPUS];
	u64 now;
	u64 next_key, next_start;
	s32 next_tid;
	u64 free_keys[MC_MAX_TASKS];	/* task_struct addresses to reuse */
	unsigned int nr_free_keys;
	enum reader_state reader;
	bool recording;			/* armed, and the reader reads */
	bool stop_due, disarmed;
	unsigned int in_sweep;
	unsigned long ops;
	/* The trace, and where each generation starts in it. */
	u8 *out;
	size_t len, cap;
	size_t gen_off[MC_MAX_GENS];
	unsigned int gens;
	bool verbose, logging;
	unsigned int sweep_skip;	/* buckets until hooks run in a sweep */
	char log[MC_LOG][MC_LINE];
	unsigned long nlog;
	u64 pcs[8];
	struct lirq irq[MC_MAX_CPUS][MC_IRQ_DEPTH];
	unsigned int nirq[MC_MAX_CPUS];
} S;

/* --interrupts: the sessions record interrupts and work items. */
static bool interrupts;

static const char *const comms[] = { "w0", "w1", "w2", "sh", "gt_churn" };
static const char *const units[] = { NULL, "a.service", "b.service",
				     "session-1.scope" };
/* Syscalls a task may be in: reads and sleeps block, getpid does not. */
static const int syscalls[] = { 0, 1, 7, 24, 35, 39, 56, 61, 202, 230 };

__attribute__((format(printf, 1, 2)))
static void logop(const char *fmt, ...)
{
	char *line = S.log[S.nlog++ % MC_LOG];
	va_list ap;
	int n;

	/* Only the replay of a failure keeps them: printing costs. */
	if (!S.logging)
		return;
	n = snprintf(line, MC_LINE, "%6lu ", S.ops);
	va_start(ap, fmt);
	vsnprintf(line + n, MC_LINE - n, fmt, ap);
	va_end(ap);
	if (S.verbose)
		printf("# %s\n", line);
}

static int sink(void *arg, const void *buf, size_t len)
{
	(void)arg;
	return test_sink_put(&S.out, &S.len, &S.cap, buf, len);
}

static struct ltask *cur_task(unsigned int cpu)
{
	return S.cur[cpu] < 0 ? &S.idle[cpu] : &S.t[S.cur[cpu]];
}

/* The next event of @cpu: its clock never goes back, others' may skew. */
static struct gt_in_ev ev(unsigned int cpu)
{
	struct gt_in_ev e = { .cpu = cpu, .cur = &cur_task(cpu)->in };
	u64 ts;

	S.now += 1 + rnd(3000);
	ts = S.now + rnd(400);
	S.cpu_ts[cpu] = max(S.cpu_ts[cpu] + 1, ts);
	e.ts = S.cpu_ts[cpu];
	if (!one_in(3)) {
		e.pcs = &S.pcs[rnd(4)];
		e.nr_pcs = rnd(5);
	}
	if (S.cfg.opts.flags & GOTRACE_OPT_USER_STACKS && !one_in(4)) {
		e.upcs = &S.pcs[rnd(3)];
		e.nr_upcs = 1 + rnd(5);
		e.uspace = (u64)cur_task(cpu)->in.tgid;
		/*
		 * Exact or a return address: taken from the clock, not the
		 * random stream, so that every seed replays as before.
		 */
		e.uexact = S.now & 1;
	}
	return e;
}

static void set_comm(struct ltask *t, const char *comm)
{
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

/* A new task in a free slot (NULL if none): @parent's child, or at start. */
static struct ltask *task_add(const struct ltask *parent, bool thread)
{
	struct ltask *t = NULL;

	for (unsigned int i = 0, o = rnd(MC_MAX_TASKS); i < MC_MAX_TASKS; i++) {
		t = &S.t[(i + o) % MC_MAX_TASKS];
		if (t->st == L_FREE)
			break;
		t = NULL;
	}
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	/* A freed task_struct is often reused at once. */
	if (S.nr_free_keys && one_in(2))
		t->in.key = S.free_keys[--S.nr_free_keys];
	else
		t->in.key = S.next_key += 0x1000;
	t->in.start_time = ++S.next_start;
	/* The largest tid, and tids that come back (pid_max wrapped). */
	if (one_in(200))
		t->in.tid = 4 * 1024 * 1024 - 1;
	else if (one_in(20))
		t->in.tid = 100 + rnd(S.next_tid - 100);
	else
		t->in.tid = S.next_tid++;
	t->in.tgid = parent && thread ? parent->in.tgid : t->in.tid;
	t->in.flags = parent ? parent->in.flags & GT_IN_KTHREAD :
		      (one_in(5) ? GT_IN_KTHREAD : 0);
	set_comm(t, parent ? parent->comm : comms[rnd(ARRAY_SIZE(comms))]);
	t->in.comm = t->comm;
	t->in.unit = parent ? parent->in.unit : units[rnd(ARRAY_SIZE(units))];
	t->sys_nr = -1;
	t->cpu = -1;
	return t;
}

static int task_index(const struct ltask *t)
{
	return (int)(t - S.t);
}

/* A random task in state @st, or NULL. */
static struct ltask *pick(enum lstate st)
{
	for (unsigned int i = 0, o = rnd(MC_MAX_TASKS); i < MC_MAX_TASKS; i++) {
		struct ltask *t = &S.t[(i + o) % MC_MAX_TASKS];

		if (t->st == st)
			return t;
	}
	return NULL;
}

/* A random CPU that is online, or -1. */
static int pick_cpu(void)
{
	for (unsigned int i = 0, o = rnd(S.cfg.ncpu); i < S.cfg.ncpu; i++) {
		unsigned int c = (i + o) % S.cfg.ncpu;

		if (S.online[c])
			return (int)c;
	}
	return -1;
}

/* ---- Linux's events, each one or more hooks ------------------------------ */

static void op_switch(unsigned int c)
{
	struct ltask *prev = cur_task(c), *next = pick(L_RUNNABLE);
	struct gt_in_switch in = { .ev = ev(c), .prev = &prev->in };
	static const char *const how[] = { "runnable", "sleeps", "dies" };

	if (S.cur[c] < 0 && !next)
		return;
	if (S.cur[c] >= 0 && one_in(4))
		next = NULL;
	/*
	 * Interrupts do not switch, but PREEMPT_RT's softirqs run in task
	 * context: a switch with some open, whose exits come later, or a
	 * switch after exits lost.  Drawn only with --interrupts.
	 */
	if (interrupts && S.nirq[c] && one_in(2))
		S.nirq[c] = 0;
	in.next = next ? &next->in : &S.idle[c].in;
	in.fd_kind = rnd(4);
	if (S.cur[c] >= 0) {
		unsigned int r = rnd(10);

		if (r < 4) {
			in.prev_state = GT_IN_RUNNABLE;
			in.preempt = !one_in(3);
			prev->st = L_RUNNABLE;
		} else if (r < 9 || !S.t[S.cur[c]].in.tid) {
			in.prev_state = GT_IN_SLEEP;
			prev->st = L_SLEEPING;
		} else {
			in.prev_state = GT_IN_DEAD;
			prev->st = L_FREE;
			if (S.nr_free_keys < MC_MAX_TASKS)
				S.free_keys[S.nr_free_keys++] = prev->in.key;
		}
		prev->cpu = -1;
		logop("cpu%u switch: %d (%s) %s -> %d", c, prev->in.tid,
		      prev->comm, how[in.prev_state == GT_IN_RUNNABLE ? 0 :
				      in.prev_state == GT_IN_SLEEP ? 1 : 2],
		      next ? next->in.tid : 0);
	} else {
		logop("cpu%u switch: idle -> %d", c, next->in.tid);
	}
	S.cur[c] = next ? task_index(next) : -1;
	if (next) {
		next->st = L_RUNNING;
		next->cpu = (int)c;
	}
	gt_model_switch(S.m, &in);
}

static void op_wake(unsigned int c)
{
	struct ltask *t = pick(L_SLEEPING);
	struct gt_in_wake in = { .task = t ? &t->in : NULL };
	int c2;

	if (!t)
		return;
	t->st = L_RUNNABLE;
	switch (rnd(4)) {
	case 0:
		/* The BPF backend may lose a sched_waking: a wakeup alone. */
		logop("cpu%u wakeup %d", c, t->in.tid);
		in.ev = ev(c);
		gt_model_wakeup(S.m, &in);
		return;
	case 1:
		/* Woken from one CPU, queued to another that completes it. */
		c2 = pick_cpu();
		logop("cpu%u waking %d, wakeup on cpu%d", c, t->in.tid, c2);
		in.ev = ev(c);
		gt_model_waking(S.m, &in);
		in.ev = ev((unsigned int)c2);
		gt_model_wakeup(S.m, &in);
		return;
	default:
		logop("cpu%u wake %d", c, t->in.tid);
		in.ev = ev(c);
		gt_model_waking(S.m, &in);
		in.ev = ev(c);
		gt_model_wakeup(S.m, &in);
	}
}

/* A waking of a task still on its CPU (ttwu_runnable): it never sleeps. */
static void op_waking_running(unsigned int c)
{
	struct ltask *t = pick(L_RUNNING);
	struct gt_in_wake in = { .task = t ? &t->in : NULL };

	if (!t)
		return;
	logop("cpu%u waking %d, which still runs on cpu%d", c, t->in.tid,
	      t->cpu);
	in.ev = ev(c);
	gt_model_waking(S.m, &in);
}

static void op_fork(unsigned int c)
{
	struct ltask *parent = cur_task(c), *child;
	struct gt_in_fork in;

	if (S.cur[c] < 0)
		return;
	child = task_add(parent, one_in(2));
	if (!child)
		return;
	child->st = L_NEW;
	logop("cpu%u %d forks %d", c, parent->in.tid, child->in.tid);
	in = (struct gt_in_fork){ .ev = ev(c), .child = &child->in };
	gt_model_fork(S.m, &in);
}

static void op_wakeup_new(unsigned int c)
{
	struct ltask *t = pick(L_NEW);
	struct gt_in_wake in = { .task = t ? &t->in : NULL };

	if (!t)
		return;
	t->st = L_RUNNABLE;
	logop("cpu%u wakeup_new %d", c, t->in.tid);
	in.ev = ev(c);
	gt_model_wakeup(S.m, &in);
}

static void sys_enter(unsigned int c, int nr)
{
	struct gt_in_sys_enter in = { .ev = ev(c), .nr = nr };

	S.t[S.cur[c]].sys_nr = nr;
	gt_model_sys_enter(S.m, &in);
}

static void op_sys_enter(unsigned int c)
{
	struct ltask *t = cur_task(c);

	if (S.cur[c] < 0 || t->in.flags & GT_IN_KTHREAD || t->sys_nr >= 0)
		return;
	logop("cpu%u %d enters a syscall", c, t->in.tid);
	sys_enter(c, syscalls[rnd(ARRAY_SIZE(syscalls))]);
}

static void op_sys_exit(unsigned int c)
{
	struct ltask *t = cur_task(c);
	struct gt_in_sys_exit in;

	if (S.cur[c] < 0 || t->sys_nr < 0)
		return;
	logop("cpu%u %d leaves syscall %d", c, t->in.tid, t->sys_nr);
	t->sys_nr = -1;
	in = (struct gt_in_sys_exit){ .ev = ev(c) };
	gt_model_sys_exit(S.m, &in);
}

/* execve: the comm changes, inside the syscall. */
static void op_exec(unsigned int c)
{
	struct ltask *t = cur_task(c);
	struct gt_in_exec in;

	if (S.cur[c] < 0 || t->in.flags & GT_IN_KTHREAD)
		return;
	if (t->sys_nr < 0)
		sys_enter(c, 59);
	set_comm(t, comms[rnd(ARRAY_SIZE(comms))]);
	logop("cpu%u %d execs %s", c, t->in.tid, t->comm);
	in = (struct gt_in_exec){ .ev = ev(c), .old_tid = t->in.tid };
	gt_model_exec(S.m, &in);
}

/*
 * A new comm with no hook of its own: prctl(PR_SET_NAME) by the task, in
 * the syscall, or a write to /proc/PID/comm by another, of any task.
 */
static void op_rename(unsigned int c)
{
	struct ltask *t = cur_task(c);

	if (one_in(2)) {
		if (S.cur[c] < 0 || t->in.flags & GT_IN_KTHREAD)
			return;
		if (t->sys_nr < 0)
			sys_enter(c, 157);
	} else {
		t = pick(one_in(2) ? L_SLEEPING : L_RUNNABLE);
		if (!t || t->in.flags & GT_IN_KTHREAD)
			return;
	}
	set_comm(t, comms[rnd(ARRAY_SIZE(comms))]);
	logop("%d is renamed %s", t->in.tid, t->comm);
}

/* A task moves to another cgroup, of another unit. */
static void op_unit(void)
{
	struct ltask *t = pick((enum lstate)(L_NEW + rnd(4)));

	if (t) {
		t->in.unit = units[rnd(ARRAY_SIZE(units))];
		logop("%d moves to unit %s", t->in.tid,
		      t->in.unit ? t->in.unit : "(none)");
	}
}

static void op_sample(unsigned int c)
{
	struct gt_in_sample in = { .ev = ev(c), .missed = one_in(8) };

	logop("cpu%u sample of %d", c, cur_task(c)->in.tid);
	gt_model_cpu_sample(S.m, &in);
}

/* An interrupt's entry or exit (the hook), on CPU @c. */
static void irq_hook(unsigned int c, const struct lirq *q, bool entry)
{
	struct gt_in_irq in = { .ev = ev(c), .kind = q->kind, .id = q->id,
				.name = q->name };

	logop("cpu%u irq %s %u/%u", c, entry ? "entry" : "exit", q->kind,
	      q->id);
	if (entry)
		gt_model_irq_entry(S.m, &in);
	else
		gt_model_irq_exit(S.m, &in);
}

/* An interrupt that may come now: a hard IRQ, a vector, a softirq. */
static void irq_draw(struct lirq *q)
{
	static const struct { u32 id; const char *name; } hard[] = {
		{ 24, "virtio0-input" }, { 25, "virtio0-output" },
		{ 30, "nvme0q1" }, { 16, "ehci_hcd:usb1" }, { 16, "i915" },
	};
	unsigned int i;

	q->kind = (u8)rnd(GT_IN_IRQ_KINDS);
	q->name = NULL;
	switch (q->kind) {
	case GT_IN_HARDIRQ:
		i = rnd(ARRAY_SIZE(hard));
		q->id = hard[i].id;
		q->name = hard[i].name;
		break;
	case GT_IN_VECTOR:
		q->id = rnd(GT_IN_VEC_NR);
		break;
	default:
		q->id = rnd(GT_IN_SOFTIRQ_NR);
		break;
	}
}

/*
 * Interrupts on CPU @c, busy or idle: most entries and exits nest; some
 * exits are lost (a deeper one comes, or none at all), some come with no
 * entry (it came before the session), some entries are lost.
 */
static void op_irq(unsigned int c)
{
	unsigned int n = S.nirq[c], r = rnd(100);
	struct lirq q;

	if (n && r < 45) {
		irq_hook(c, &S.irq[c][--S.nirq[c]], false);
	} else if (n > 1 && r < 50) {
		/* The exits above it were lost. */
		S.nirq[c] = rnd(n);
		irq_hook(c, &S.irq[c][S.nirq[c]], false);
	} else if (n && r < 53) {
		/* Its exit is lost: never comes. */
		S.nirq[c]--;
		logop("cpu%u irq exit lost", c);
	} else if (r < 57) {
		irq_draw(&q);
		irq_hook(c, &q, false);
	} else if (n < MC_IRQ_DEPTH) {
		irq_draw(&S.irq[c][n]);
		S.nirq[c]++;
		/* A lost entry: its exit will match nothing. */
		if (one_in(25))
			logop("cpu%u irq entry lost", c);
		else
			irq_hook(c, &S.irq[c][n], true);
	}
}

/* A work item of the kworker running on @c begins or ends. */
static void op_work(unsigned int c)
{
	struct ltask *t = cur_task(c);
	struct gt_in_work in;

	if (S.cur[c] < 0 || !(t->in.flags & GT_IN_KTHREAD) || S.nirq[c])
		return;
	if (!t->work && one_in(8)) {
		in = (struct gt_in_work){ .ev = ev(c), .func = 0xffffffff81300000ULL };
		logop("cpu%u %d work end with no start", c, t->in.tid);
		gt_model_work_end(S.m, &in);
		return;
	}
	if (t->work && one_in(10)) {
		/* Its end is lost. */
		t->work = 0;
		return;
	}
	in = (struct gt_in_work){ .ev = ev(c),
				  .func = t->work ? t->work :
					  0xffffffff81200000ULL + rnd(6) * 0x40 };
	logop("cpu%u %d work %s %llx", c, t->in.tid,
	      t->work ? "end" : "start", (unsigned long long)in.func);
	if (t->work) {
		t->work = 0;
		gt_model_work_end(S.m, &in);
	} else {
		t->work = in.func;
		gt_model_work_start(S.m, &in);
	}
}

/* CPU hotplug: an idle CPU goes offline, or one comes (back) online. */
static void op_hotplug(unsigned int c)
{
	struct gt_in_ev e;

	if (S.online[c]) {
		unsigned int n = 0;

		for (unsigned int i = 0; i < S.cfg.ncpu; i++)
			n += S.online[i];
		if (S.cur[c] >= 0 || n < 2)
			return;
		logop("cpu%u goes offline", c);
		e = ev(c);
		gt_model_cpu_offline(S.m, &e);
		S.online[c] = false;
		return;
	}
	/* A CPU that was never online: its idle task runs before the callback. */
	S.online[c] = true;
	if (!S.booted[c]) {
		S.booted[c] = true;
		logop("cpu%u comes online for the first time", c);
		op_switch(c);
	} else {
		logop("cpu%u comes back online", c);
	}
	e = ev(c);
	gt_model_cpu_online(S.m, &e);
}

/* One event of Linux on a random CPU; none while it would need the reader. */
static void linux_op(void)
{
	int cpu = pick_cpu();
	unsigned int c, r = rnd(100);

	if (cpu < 0)
		return;
	c = (unsigned int)cpu;
	S.ops++;
	if (r < 30)
		op_switch(c);
	else if (r < 44)
		op_wake(c);
	else if (r < 47)
		op_waking_running(c);
	else if (r < 53)
		op_fork(c);
	else if (r < 59)
		op_wakeup_new(c);
	else if (r < 70)
		op_sys_enter(c);
	else if (r < 81)
		op_sys_exit(c);
	else if (r < 84)
		op_exec(c);
	else if (r < 87)
		op_rename(c);
	else if (r < 89)
		op_unit();
	else if (r < 96 && S.cfg.opts.cpu_hz)
		op_sample(c);
	else if (r < 96)
		op_switch(c);
	else if (S.reader != R_ADVANCED && one_in(4))
		/* Hotplug waits for the reader's IPIs (cpus_read_lock()). */
		op_hotplug(rnd(S.cfg.ncpu));
	/* As many interrupts and work items again, in between. */
	if (interrupts && S.online[c]) {
		if (one_in(2))
			op_irq(c);
		else if (one_in(3))
			op_work(c);
	}
}

/* ---- The reader ---------------------------------------------------------- */

static void reader_advance(const char *where)
{
	gt_w123_advance(S.m);
	S.reader = R_ADVANCED;
	logop("reader: generation %llu begins (%s)",
	      (unsigned long long)S.m->w123.gen, where);
}

static bool caught_up(unsigned int c)
{
	return S.m->w123.cpus[c].gen == S.m->w123.gen;
}

/* The reader's IPI to CPU @c, or its catch-up on behalf of an offline one. */
static void reader_ipi(unsigned int c)
{
	struct gt_in_ev e;

	logop("reader: IPI to cpu%u", c);
	if (!S.online[c]) {
		gt_w123_cpu_catch_up(S.m, gt_env_cpu_ptr(S.m->cpus, c));
		return;
	}
	e = ev(c);
	gt_model_catch_up(S.m, &e);
}

static void append_generation(void)
{
	if (S.gens < MC_MAX_GENS)
		S.gen_off[S.gens] = S.len;
	S.gens++;
	sink(NULL, S.m->w123.out, S.m->w123.out_len);
	S.m->w123.out_len = 0;
}

static int reader_write(bool last)
{
	int ret;

	S.reader = R_WRITING;
	logop("reader: writes generation %llu%s",
	      (unsigned long long)(last ? S.m->w123.gen : S.m->w123.gen - 1),
	      last ? " (the last)" : "");
	ret = gt_w123_gen_write(S.m, last);
	S.reader = R_IDLE;
	if (!ret)
		append_generation();
	return ret;
}

/* One step of the reader's work, when it has some. */
static int reader_op(void)
{
	if (S.reader == R_IDLE) {
		if (READ_ONCE(S.m->w123.due) ? !one_in(4) : one_in(6))
			reader_advance("between hooks");
		return 0;
	}
	for (unsigned int i = 0, o = rnd(S.cfg.ncpu); i < S.cfg.ncpu; i++) {
		unsigned int c = (i + o) % S.cfg.ncpu;

		if (!caught_up(c)) {
			reader_ipi(c);
			return 0;
		}
	}
	return reader_write(false);
}

/*
 * Inside a hook, after one of its transitions: the reader, on another CPU,
 * may end the generation now; the stop may disarm the hooks now.  Not
 * while the reader itself is busy (it holds the session's lock).
 */
static void on_written(struct gt_model *m)
{
	if (m != S.m || !S.recording || S.in_sweep || S.reader != R_IDLE ||
	    S.disarmed)
		return;
	if (S.stop_due) {
		logop("stop: the hooks are disarmed inside a hook");
		gt_model_disarm(m);
		S.disarmed = true;
	} else if (one_in(S.cfg.in_hook_advance)) {
		reader_advance("inside a hook");
	}
}

/*
 * Between two buckets of the sweep: the other CPUs' hooks go on, some 16
 * times in a sweep of any size (none once the hooks are detached).
 */
static void on_sweep_step(struct gt_model *m)
{
	unsigned int nb = 1U << m->bucket_bits;

	if (m != S.m || S.in_sweep || S.disarmed || S.sweep_skip--)
		return;
	S.sweep_skip = rnd(max(nb / 8, 1U));
	S.in_sweep++;
	for (unsigned int i = rnd(4); i; i--)
		linux_op();
	S.in_sweep--;
}

/* ---- One run ------------------------------------------------------------- */

/* --format: every seed in that format (-1: drawn, 1 in 8 go 1.11). */
static int forced_format = -1;

static void config_draw(struct mc_config *cfg, unsigned long ops)
{
	static const unsigned int bytes[] = { 4096, 16384, 65536, 1 << 20 };
	static const u32 flags[] = { GOTRACE_OPT_NO_KSTACKS,
				     GOTRACE_OPT_NO_WAKE_KSTACKS,
				     GOTRACE_OPT_NO_UNITS,
				     GOTRACE_OPT_USER_STACKS };

	memset(cfg, 0, sizeof(*cfg));
	cfg->ncpu = 1 + rnd(MC_MAX_CPUS);
	cfg->nr_ps = one_in(3) ? 1 + rnd(cfg->ncpu) : cfg->ncpu;
	cfg->format = one_in(8) ? GOTRACE_FORMAT_GO111 : GOTRACE_FORMAT_GO123;
	if (forced_format >= 0)
		cfg->format = (unsigned int)forced_format;
	cfg->cpu_bytes = bytes[rnd(ARRAY_SIZE(bytes))];
	/* The module's default table, one that fills up, or one between. */
	cfg->max_tasks = one_in(10) ? 24 + rnd(40) : one_in(8) ? 0 :
			 256 + rnd(1024);
	cfg->max_stacks = one_in(5) ? GT_STACKS_MIN : 0;
	cfg->in_hook_advance = 5 + rnd(200);
	/* Drawn in any case: a replay of fewer operations runs the same. */
	cfg->max_ops = 500 + rnd(20000);
	if (ops)
		cfg->max_ops = ops;
	cfg->opts.size = sizeof(cfg->opts);
	cfg->opts.syscalls = one_in(4) ? 1 + rnd(2) : GOTRACE_SYSCALLS_ALL;
	cfg->opts.cpu_hz = cfg->format == GOTRACE_FORMAT_GO123 && one_in(3) ? 99 : 0;
	for (unsigned int i = 0; i < ARRAY_SIZE(flags); i++)
		if (one_in(4))
			cfg->opts.flags |= flags[i];
	if (one_in(5))
		strcpy(cfg->opts.comm, "w1");
	if (one_in(8)) {
		cfg->opts.nr_pids = 1;
		cfg->opts.pids[0] = 1000 + rnd(4);
		cfg->opts.flags |= GOTRACE_OPT_CHILDREN;
	}
	/* Drawn last: the seeds without it draw what they always did. */
	if (interrupts) {
		static const u32 kinds[] = { GOTRACE_OPT_HARDIRQS,
					     GOTRACE_OPT_SOFTIRQS,
					     GOTRACE_OPT_WORKQUEUE };

		for (unsigned int i = 0; i < ARRAY_SIZE(kinds); i++)
			if (!one_in(4))
				cfg->opts.flags |= kinds[i];
	}
}

static void config_print(const struct mc_config *cfg)
{
	printf("#   %u CPUs (%u Ps at the start), %s, %u-byte buffers, "
	       "%u tasks, %u stacks, syscalls %u, cpu_hz %u, flags 0x%x%s%s\n",
	       cfg->ncpu, cfg->nr_ps,
	       cfg->format == GOTRACE_FORMAT_GO123 ? "go 1.23" : "go 1.11",
	       cfg->cpu_bytes, cfg->max_tasks, cfg->max_stacks,
	       cfg->opts.syscalls, cfg->opts.cpu_hz, cfg->opts.flags,
	       cfg->opts.comm[0] ? ", comm filter " : "",
	       cfg->opts.comm[0] ? cfg->opts.comm : "");
}

/* The machine at the start, and the model's snapshot of it. */
static int start(void)
{
	struct gt_umodel_config ucfg = { 0 };
	unsigned int n = 4 + rnd(24);
	struct gt_in_ev e;

	for (unsigned int i = 0; i < ARRAY_SIZE(S.pcs); i++)
		S.pcs[i] = 0xffffffff81000000ULL + rnd(64) * 0x40;
	S.next_key = 0xffff888000000000ULL;
	S.next_tid = 1000;
	for (unsigned int c = 0; c < MC_MAX_CPUS; c++) {
		S.cur[c] = -1;
		S.idle[c].in.flags = GT_IN_IDLE | GT_IN_KTHREAD;
		S.idle[c].in.key = 0xffffffff82000000ULL + c * 0x1000;
		set_comm(&S.idle[c], "swapper");
		S.idle[c].in.comm = S.idle[c].comm;
		S.online[c] = c < S.cfg.nr_ps;
		S.booted[c] = S.online[c];
	}
	for (unsigned int i = 0; i < n; i++) {
		struct ltask *t = task_add(NULL, false);

		t->st = (enum lstate)(L_NEW + rnd(4));
		if (t->st == L_RUNNING) {
			int c = pick_cpu();

			if (c < 0 || S.cur[c] >= 0) {
				t->st = L_RUNNABLE;
			} else {
				S.cur[c] = task_index(t);
				t->cpu = c;
			}
		}
		if (t->st == L_SLEEPING && !(t->in.flags & GT_IN_KTHREAD) &&
		    one_in(2))
			t->sys_nr = syscalls[rnd(ARRAY_SIZE(syscalls))];
	}

	ucfg.opts = S.cfg.opts;
	ucfg.nr_cpus = S.cfg.ncpu;
	ucfg.max_tasks = S.cfg.max_tasks;
	ucfg.max_stacks = S.cfg.max_stacks;
	ucfg.format = S.cfg.format;
	S.m = gt_umodel_create(&ucfg);
	if (!S.m)
		return -ENOMEM;
	S.m->nr_ps = S.cfg.nr_ps;
	if (S.cfg.format == GOTRACE_FORMAT_GO123) {
		/* Smaller buffers than user space's least, to lose events. */
		gt_w123_free(S.m);
		if (gt_w123_init(S.m, S.cfg.cpu_bytes, S.cfg.cpu_bytes))
			return -ENOMEM;
		sink(NULL, "go 1.23 trace\0\0\0", GOTRACE_HEADER_LEN);
	}

	e = ev((unsigned int)pick_cpu());
	gt_model_snapshot_begin(S.m, &e);
	/*
	 * The walk over the tasks: Linux goes on meanwhile, unseen by the
	 * hooks (not armed yet), and a task forked during the walk may be
	 * missed by it.
	 */
	for (unsigned int i = 0; i < MC_MAX_TASKS; i++) {
		struct ltask *t = &S.t[i];
		struct gt_in_snap_task snap = { .task = &t->in };

		if (t->st == L_FREE || (t->st == L_NEW && one_in(2)))
			continue;
		snap.sleeping = t->st == L_NEW || t->st == L_SLEEPING;
		gt_model_snapshot_task(S.m, &snap);
		if (one_in(4))
			linux_op();
	}
	for (unsigned int i = rnd(4); i; i--)
		linux_op();
	logop("the hooks are armed");
	S.recording = !gt_model_snapshot_end(S.m);
	return 0;
}

/* The stop, from any point: the reader's write ends first. */
static int stop(void)
{
	int ret = 0;

	while (S.reader != R_IDLE && !ret)
		ret = reader_op();
	S.stop_due = true;
	/* Most often the disarm comes inside a hook, mid-transition. */
	for (unsigned int i = 0; i < 20 && !S.disarmed && !one_in(8); i++)
		linux_op();
	if (!S.disarmed) {
		logop("stop: the hooks are disarmed");
		gt_model_disarm(S.m);
		S.disarmed = true;
	}
	if (S.cfg.format == GOTRACE_FORMAT_GO111)
		return gt_umodel_finish(S.m, S.now + 1000, sink, NULL);
	gt_model_close(S.m, S.now + 1000);
	return ret ? ret : reader_write(true);
}

/* Is the trace, from generation @from on, what 'gotrace check' accepts? */
static bool check_from(unsigned int from, char *why, size_t len)
{
	u8 *buf = S.out;
	size_t n = S.len;
	u64 gens = 0;
	char msg[400];
	bool valid;

	if (from) {
		n = GOTRACE_HEADER_LEN + S.len - S.gen_off[from];
		buf = malloc(n);
		if (!buf)
			abort();
		memcpy(buf, S.out, GOTRACE_HEADER_LEN);
		memcpy(buf + GOTRACE_HEADER_LEN, S.out + S.gen_off[from],
		       n - GOTRACE_HEADER_LEN);
	}
	valid = mc_verify(buf, n, true, &gens, msg, sizeof(msg));
	if (valid && gens != S.gens - from) {
		snprintf(msg, sizeof(msg), "%llu generations read",
			 (unsigned long long)gens);
		valid = false;
	}
	if (!valid)
		snprintf(why, len, "%s at generation %u of %u: %s",
			 from ? "the file cut" : "the trace", from + 1, S.gens,
			 msg);
	if (from)
		free(buf);
	return valid;
}

/*
 * FNV-1a over the trace: a fingerprint of its bytes for the byte-identity
 * corpus (tests/identity_test.sh), which only has to see a change.
 */
static u64 trace_digest(const u8 *buf, size_t len)
{
	u64 h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ buf[i]) * 0x100000001b3ULL;
	return h;
}

/*
 * Run seed @seed for @ops operations (0: as many as the seed says), and
 * check what it wrote.  Returns true if valid; @why says what failed.
 */
static bool logging;
static bool digests;	/* --digest: a line per seed with its trace's */

static bool run(u64 seed, unsigned long ops, const char *save, char *why,
		size_t len)
{
	bool valid = true;
	int ret;

	free(S.out);
	memset(&S, 0, sizeof(S));
	S.verbose = getenv("MC_VERBOSE") != NULL;
	S.logging = S.verbose || logging;
	rng = seed;
	config_draw(&S.cfg, ops);
	gt_umodel_written_hook = on_written;
	gt_umodel_sweep_hook = on_sweep_step;
	ret = start();
	while (!ret && S.ops < S.cfg.max_ops) {
		if (S.cfg.format == GOTRACE_FORMAT_GO123 && one_in(12))
			ret = reader_op();
		else if (S.cfg.format == GOTRACE_FORMAT_GO111 && one_in(50))
			ret = gt_umodel_drain(S.m, sink, NULL);
		else
			linux_op();
	}
	if (!ret)
		ret = stop();
	gt_umodel_written_hook = NULL;
	gt_umodel_sweep_hook = NULL;
	if (ret) {
		snprintf(why, len, "the model failed to write: %d", ret);
		valid = false;
	} else if (S.cfg.format == GOTRACE_FORMAT_GO111) {
		char msg[400];
		u64 gens;

		valid = mc_verify(S.out, S.len, false, &gens, msg, sizeof(msg));
		if (!valid)
			snprintf(why, len, "the go 1.11 trace: %s", msg);
	} else {
		valid = check_from(0, why, len);
		/* A flight snapshot or a rotated file starts at any generation. */
		for (unsigned int i = 0; valid && i < 3 && S.gens > 1 &&
		     S.gens <= MC_MAX_GENS; i++)
			valid = check_from(1 + rnd(S.gens - 1), why, len);
	}
	if (save) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/seed-%llu.trace", save,
			 (unsigned long long)seed);
		f = fopen(path, "w");
		if (f) {
			fwrite(S.out, 1, S.len, f);
			fclose(f);
		}
	}
	if (digests)
		printf("# digest seed %llu %s %lu ops %zu bytes %016llx\n",
		       (unsigned long long)seed,
		       S.cfg.format == GOTRACE_FORMAT_GO123 ? "go123" : "go111",
		       S.ops, S.len, (unsigned long long)trace_digest(S.out, S.len));
	gt_umodel_destroy(S.m);
	S.m = NULL;
	return valid;
}

/* The shortest run of @seed that still fails, and its last operations. */
static void replay_report(u64 seed, unsigned long ops)
{
	unsigned long lo = 1, hi = ops;
	bool valid, digested = digests;
	char why[512];

	digests = false;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (run(seed, mid, NULL, why, sizeof(why)))
			lo = mid + 1;
		else
			hi = mid;
	}
	logging = true;
	valid = run(seed, hi, NULL, why, sizeof(why));
	logging = false;
	digests = digested;
	if (valid)
		return;
	printf("# the shortest failing run: %lu operations: %s\n", hi, why);
	config_print(&S.cfg);
	printf("# its last operations:\n");
	for (unsigned long i = S.nlog > MC_LOG ? S.nlog - MC_LOG : 0;
	     i < S.nlog; i++)
		printf("#   %s\n", S.log[i % MC_LOG]);
	printf("# replay: MC_VERBOSE=1 model_check --seed %llu --ops %lu\n",
	       (unsigned long long)seed, hi);
}

static double seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	u64 first = 1, count = 200, ops_total = 0, failed = 0, seeds = 0;
	const char *save = NULL;
	unsigned long ops = 0, save_every = 1;
	double seconds = 0, t0 = seconds_now();
	bool one = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--seed") && v) {
			first = strtoull(v, NULL, 0);
			count = 1;
			one = true;
		} else if (!strcmp(a, "--seeds") && v) {
			char *colon;

			first = strtoull(v, &colon, 0);
			count = *colon == ':' ? strtoull(colon + 1, NULL, 0) : 1;
		} else if (!strcmp(a, "--ops") && v) {
			ops = strtoul(v, NULL, 0);
		} else if (!strcmp(a, "--seconds") && v) {
			seconds = strtod(v, NULL);
		} else if (!strcmp(a, "--save") && v) {
			save = v;
		} else if (!strcmp(a, "--save-every") && v) {
			save_every = strtoul(v, NULL, 0);
		} else if (!strcmp(a, "--format") && v) {
			if (!strcmp(v, "go111"))
				forced_format = GOTRACE_FORMAT_GO111;
			else if (!strcmp(v, "go123"))
				forced_format = GOTRACE_FORMAT_GO123;
			else
				goto usage;
		} else if (!strcmp(a, "--digest")) {
			digests = true;
			continue;
		} else if (!strcmp(a, "--interrupts")) {
			interrupts = true;
			continue;
		} else if (!strcmp(a, "--verbose")) {
			setenv("MC_VERBOSE", "1", 1);
			continue;
		} else {
usage:
			fprintf(stderr, "usage: %s [--seed S | --seeds FIRST:COUNT] [--ops N] [--seconds S] [--save DIR [--save-every K]] [--format go111|go123] [--digest] [--interrupts] [--verbose]\n",
				argv[0]);
			return 2;
		}
		i++;
	}
	for (u64 s = first; s < first + count; s++) {
		char why[512];
		bool valid;

		if (seconds && seconds_now() - t0 > seconds) {
			diag("stopped after %llu of %llu seeds: --seconds %g",
			     (unsigned long long)seeds,
			     (unsigned long long)count, seconds);
			break;
		}
		valid = run(s, ops, save && (seeds % save_every) == 0 ? save :
			    NULL, why, sizeof(why));
		seeds++;
		ops_total += S.ops;
		if (!valid) {
			failed++;
			ok(0, "seed %llu: %s", (unsigned long long)s, why);
			replay_report(s, S.ops);
		} else if (one) {
			ok(1, "seed %llu: %lu operations, %u generations, valid",
			   (unsigned long long)s, S.ops, S.gens);
		}
	}
	ok(!failed, "%llu seeds, %llu operations, every trace valid whole and cut (%llu failed)",
	   (unsigned long long)seeds, (unsigned long long)ops_total,
	   (unsigned long long)failed);
	diag("%.1f s, %.0f operations/s", seconds_now() - t0,
	     ops_total / (seconds_now() - t0 + 1e-9));
	return tap_done();
}
