// SPDX-License-Identifier: GPL-2.0
/*
 * tracedec_test.c - unit tests of the state replay (trace/go111_decode.c)
 * and of the figures of 'gotrace stat' (trace/stats.c)
 *
 * A valid two-P trace with known answers, the same with its batches in
 * another file order, then one broken trace per rule: each must fail at
 * the offset of the offending event with the expected message.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "tracebuild.h"
#include "trace/go111_decode.h"
#include "trace/stats_json.h"
#include "trace/stats.h"

#define U TB_U
#define NARGS TB_NARGS

/* Event of @type at absolute time @ts, then its other values. */
#define AT(t, type, ts, ...) \
	(delta = U(ts) - (t)->last, (t)->last = U(ts), \
	 tb_ev(t, type, 1 + NARGS(__VA_ARGS__), delta, __VA_ARGS__))
#define AT0(t, type, ts) \
	(delta = U(ts) - (t)->last, (t)->last = U(ts), tb_ev(t, type, 1, delta))

static uint64_t delta;




/* Stack @id with @n frames of (func, file) string ids. */
static void stack(struct tb *t, uint64_t id, int n, ...)
{
	struct tb v = { .n = 0 };
	va_list ap;

	tb_leb(&v, id);
	tb_leb(&v, U(n));
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		uint64_t func = va_arg(ap, uint64_t), file = va_arg(ap, uint64_t);

		tb_leb(&v, 0x1000 * func + file);	/* pc */
		tb_leb(&v, func);
		tb_leb(&v, file);
		tb_leb(&v, 0);
	}
	va_end(ap);
	tb_byte(t, 0xc3);
	tb_leb(t, v.n);
	tb_put(t, v.b, v.n);
}

/*
 * Strings 1 "bash", 2 "[comm]", 3 "cat", 4 "sys_read", 5 "[syscall]",
 * 6 "__schedule", 7 "kernel".  Stacks: 1 bash, 4 cat, 2 sys_read+bash,
 * 3 __schedule+sys_read+bash.
 */
static void footer_at(struct tb *t, uint64_t ts, uint64_t freq)
{
	tb_batch(t, 0, ts);
	tb_ev(t, GOTRACE_EV_FREQUENCY, 1, freq);
	tb_str(t, 1, "bash");
	tb_str(t, 2, "[comm]");
	tb_str(t, 3, "cat");
	tb_str(t, 4, "sys_read");
	tb_str(t, 5, "[syscall]");
	tb_str(t, 6, "__schedule");
	tb_str(t, 7, "kernel");
	stack(t, 1, 1, U(1), U(2));
	stack(t, 4, 1, U(3), U(2));
	stack(t, 2, 2, U(4), U(5), U(1), U(2));
	stack(t, 3, 3, U(6), U(7), U(4), U(5), U(1), U(2));
}

static void footer(struct tb *t)
{
	footer_at(t, 100000, U(1000000000));
}

/* P 0 of the valid trace. */
static void valid_p0(struct tb *t)
{
	tb_batch(t, 0, 1000);
	AT(t, GOTRACE_EV_GOMAXPROCS, 1000, U(2), U(0));
	AT(t, GOTRACE_EV_GO_CREATE, 1000, U(1), U(1), U(0));
	AT(t, GOTRACE_EV_GO_CREATE, 1000, U(2), U(4), U(0));
	AT(t, GOTRACE_EV_PROC_START, 1010, U(0));
	AT(t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT(t, GOTRACE_EV_GO_SYSCALL, 1100, U(2));
	AT(t, GOTRACE_EV_GO_SYSCALL, 1120, U(3));
	AT0(t, GOTRACE_EV_GO_SYSBLOCK, 1120);
	AT0(t, GOTRACE_EV_PROC_STOP, 1120);
	AT(t, GOTRACE_EV_PROC_START, 1130, U(0));
	AT(t, GOTRACE_EV_GO_START, 1150, U(2), U(1));
	AT(t, GOTRACE_EV_GO_BLOCK, 1400, U(0));
	AT0(t, GOTRACE_EV_PROC_STOP, 1400);
}

/* P 1: g 1 leaves its syscall, wakes g 2, both end. */
static void valid_p1(struct tb *t)
{
	tb_batch(t, 1, 1000);
	AT(t, GOTRACE_EV_PROC_START, 1500, U(1));
	AT(t, GOTRACE_EV_GO_SYSEXIT, 1600, U(1), U(2), U(0));
	AT(t, GOTRACE_EV_GO_START, 1610, U(1), U(3));
	AT(t, GOTRACE_EV_GO_UNBLOCK, 1700, U(2), U(2), U(0));
	AT0(t, GOTRACE_EV_GO_END, 1800);
	AT(t, GOTRACE_EV_GO_START, 1850, U(2), U(3));
	AT0(t, GOTRACE_EV_GO_END, 2000);
	AT0(t, GOTRACE_EV_PROC_STOP, 2000);
}

static struct gt_trace tr;
static struct gt_trace_error err;

static int load(const struct tb *t)
{
	return gt_trace_verify(t->b, t->n, &err);
}

/* What the replay hands on: how many events, the first and the last. */
struct seen {
	uint64_t n;
	struct gt_event first, last;
};

static int see(void *arg, const struct gt_event *e)
{
	struct seen *s = arg;

	if (!s->n++)
		s->first = *e;
	s->last = *e;
	return 0;
}

static void expect_ok(const struct tb *t, const char *name)
{
	int ret = load(t);

	ok(ret == 0, "%s: passes", name);
	if (ret)
		diag("offset 0x%zx: %s", err.off, err.msg);
}

static void expect_fail(const struct tb *t, size_t off, const char *what,
			const char *name)
{
	int ret = load(t);

	ok(ret == -1 && err.off == off && strstr(err.msg, what),
	   "%s: fails at 0x%zx with \"%s\"", name, off, what);
	if (ret != -1 || err.off != off || !strstr(err.msg, what))
		diag("got %d, offset 0x%zx: %s", ret, err.off, err.msg);
}

static const struct gt_stat_task *task(const struct gt_stats *s, uint64_t g)
{
	for (size_t i = 0; i < s->ntasks; i++)
		if (s->tasks[i].g == g)
			return &s->tasks[i];
	return NULL;
}

/* stat --json of the valid trace: the same figures, one key a line. */
static void json_figures(struct gt_stats *s)
{
	static const char *const want[] = {
		"\n  \"duration_ns\": 1000,\n", "\n  \"start_ns\": 1000,\n",
		"\n  \"ps\": 2,\n",
		"\n  \"tasks\": 2,\n", "\n  \"events\": 21,\n",
		"\n    \"ended\": 2,\n", "\n    \"GoStart\": 4,\n",
		"{ \"g\": 1, \"name\": \"bash\", \"run_ns\": 290, \"starts\": 2, \"latency_ns\": 30, \"max_latency_ns\": 20,",
		"{ \"name\": \"sys_read\", \"count\": 2, \"blocks\": 1, \"blocked_ns\": 480 }",
		/* cat's block and wakeup; bash's syscall block is not one. */
		"\"blocked_ns\": 480, \"blocks\": 0, \"unblocks\": 0, ",
		"\"blocked_ns\": 300, \"blocks\": 1, \"unblocks\": 1, ",
	};
	static const char head[] = "{\n  \"file\": \"t\\\"1\",\n";
	char *buf = NULL;
	size_t len = 0, missing = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		ok(0, "open_memstream");
		return;
	}
	gt_stat_json(f, "t\"1", 4096, s, 0);
	fclose(f);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(buf, want[i])) {
			diag("missing: %s", want[i]);
			missing++;
		}
	ok(!missing && !strncmp(buf, head, strlen(head)) && len > 4 &&
	   !strcmp(buf + len - 4, "]\n}\n"),
	   "stat --json: the figures, one key a line, the file name escaped");
	free(buf);
}

static void test_valid(void)
{
	const struct gt_stat_task *g1, *g2;
	struct seen seen = { 0 };
	struct gt_stats s;
	struct tb t;
	int ret;

	tb_header(&t);
	valid_p0(&t);
	valid_p1(&t);
	footer(&t);
	expect_ok(&t, "valid two-P trace");

	/* The waking P's batch first in the file: seqs decide. */
	tb_header(&t);
	valid_p1(&t);
	valid_p0(&t);
	footer(&t);
	expect_ok(&t, "same trace, P 1's batch first in the file");

	ret = gt_trace_open_mem(&tr, t.b, t.n, &err);
	ok(ret == 0, "opened");
	if (ret)
		return;
	ret = gt_trace_replay(&tr, see, &seen, &err);
	ok(ret == 0 && tr.nev == 21 && seen.n == 21,
	   "21 timed events decoded and handed on");
	ok(seen.first.type == GOTRACE_EV_GOMAXPROCS &&
	   seen.last.type == GOTRACE_EV_PROC_STOP && seen.last.p == 1,
	   "merged by time, P 1's ProcStop last");
	ok(gt_stats_compute(&tr, &s, 0, &err) == 0, "stats computed");
	g1 = task(&s, 1);
	g2 = task(&s, 2);
	ok(s.end - s.start == 1000 && s.ps == 2, "duration 1000 ns, 2 Ps");
	ok(g1 && !strcmp(g1->name, "bash") && g2 && !strcmp(g2->name, "cat"),
	   "task names from the creation stacks");
	ok(g1 && g1->run == 290 && g1->starts == 2 && g1->latency == 30 &&
	   g1->max_latency == 20, "g 1: run 290, 2 starts, latency 30 (max 20)");
	ok(g2 && g2->run == 400 && g2->starts == 2 && g2->latency == 300,
	   "g 2: run 400, 2 starts, latency 300");
	ok(s.nsyscalls == 1 && !strcmp(s.syscalls[0].name, "sys_read") &&
	   s.syscalls[0].count == 2 && s.syscalls[0].blocks == 1 &&
	   s.syscalls[0].blocked == 480,
	   "sys_read: 2 calls, 1 blocked for 480 ns (named by its [syscall] frame)");
	ok(s.at_end[GT_STAT_G_DEAD] == 2 && s.ps_running_at_end == 0,
	   "at the end: both ended, no P started");
	ok(s.nnames == 2 && s.by_type[GOTRACE_EV_GO_START] == 4,
	   "2 names, 4 GoStart");
	json_figures(&s);
	gt_stats_free(&s);
	gt_trace_close(&tr);
}

/* Header, Gomaxprocs, g 1 and g 2 created, P 0 started (if @start). */
static void base(struct tb *t, bool start)
{
	tb_header(t);
	tb_batch(t, 0, 1000);
	AT(t, GOTRACE_EV_GOMAXPROCS, 1000, U(2), U(0));
	AT(t, GOTRACE_EV_GO_CREATE, 1000, U(1), U(1), U(0));
	AT(t, GOTRACE_EV_GO_CREATE, 1000, U(2), U(4), U(0));
	if (start)
		AT(t, GOTRACE_EV_PROC_START, 1010, U(0));
}

/*
 * A slow clock: 48 ticks a second, g 1 running for 10^12 of them (Go and
 * gotrace check accept such a file).  Its nanoseconds pass 2^64: stat
 * --json must say them exactly, not cast a float out of a u64's range
 * (which gave 0 for the duration).
 */
static void test_slow_clock(void)
{
	static const char *const want[] = {
		"\n  \"duration_ns\": 20833333333750000000,\n",
		"{ \"g\": 1, \"name\": \"bash\", \"run_ns\": 20833333333333333333, ",
	};
	struct gt_stats s;
	struct tb t;
	char *buf = NULL;
	size_t len = 0, missing = 0;
	FILE *f;

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT0(&t, GOTRACE_EV_GO_END, 1000000001020ULL);
	AT0(&t, GOTRACE_EV_PROC_STOP, 1000000001020ULL);
	footer_at(&t, 2000000000000ULL, 48);
	expect_ok(&t, "48 Hz trace of 10^12 ticks");
	if (gt_trace_open_mem(&tr, t.b, t.n, &err) ||
	    gt_stats_compute(&tr, &s, 0, &err)) {
		ok(0, "48 Hz trace: stats computed");
		diag("offset 0x%zx: %s", err.off, err.msg);
		gt_trace_close(&tr);
		return;
	}
	f = open_memstream(&buf, &len);
	if (!f) {
		ok(0, "open_memstream");
		gt_stats_free(&s);
		gt_trace_close(&tr);
		return;
	}
	gt_stat_json(f, "t", t.n, &s, 0);
	fclose(f);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(buf, want[i])) {
			diag("missing: %s", want[i]);
			missing++;
		}
	ok(!missing, "stat --json of a 48 Hz trace past 2^64 ns: exact nanoseconds");
	free(buf);
	gt_stats_free(&s);
	gt_trace_close(&tr);
}

static void test_broken(void)
{
	struct tb t;
	size_t o;

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	o = t.n;
	AT(&t, GOTRACE_EV_GO_START, 1030, U(2), U(1));
	footer(&t);
	expect_fail(&t, o, "p 0 is already running g 1 while start g 2",
		    "two goroutines started on one P");

	base(&t, false);
	o = t.n;
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	footer(&t);
	expect_fail(&t, o, "not started (no ProcStart)", "GoStart before ProcStart");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT(&t, GOTRACE_EV_GO_BLOCK, 1030, U(0));
	o = t.n;
	AT(&t, GOTRACE_EV_GO_START, 1040, U(1), U(2));
	footer(&t);
	expect_fail(&t, o, "no consistent ordering", "start of a blocked goroutine");

	base(&t, true);
	o = t.n;
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(5));
	footer(&t);
	expect_fail(&t, o, "needs it runnable with seq 5, it is runnable with seq 1",
		    "wrong sequence number");

	base(&t, true);
	o = t.n;
	AT(&t, GOTRACE_EV_GO_CREATE, 1020, U(1), U(1), U(0));
	footer(&t);
	expect_fail(&t, o, "created twice", "goroutine created twice");

	/* Go 1.21 pairs sweeps per P and mark assists per goroutine. */
	base(&t, true);
	AT(&t, GOTRACE_EV_GC_SWEEP_START, 1020, U(0));
	AT(&t, GOTRACE_EV_GC_SWEEP_DONE, 1030, U(1), U(1));
	AT(&t, GOTRACE_EV_GO_START, 1040, U(1), U(1));
	AT(&t, GOTRACE_EV_GC_MARK_ASSIST_START, 1050, U(0));
	AT0(&t, GOTRACE_EV_GC_MARK_ASSIST_DONE, 1060);
	AT0(&t, GOTRACE_EV_GC_MARK_ASSIST_DONE, 1070);
	AT(&t, GOTRACE_EV_GC_MARK_ASSIST_START, 1080, U(0));
	AT0(&t, GOTRACE_EV_GO_END, 1090);
	footer(&t);
	expect_ok(&t, "sweep and mark assists paired (an unpaired end is fine)");

	base(&t, true);
	AT(&t, GOTRACE_EV_GC_SWEEP_START, 1020, U(0));
	AT(&t, GOTRACE_EV_GC_SWEEP_DONE, 1030, U(1), U(1));
	o = t.n;
	AT(&t, GOTRACE_EV_GC_SWEEP_DONE, 1040, U(1), U(1));
	footer(&t);
	expect_fail(&t, o, "bogus sweeping end", "GCSweepDone without a start");

	base(&t, true);
	AT(&t, GOTRACE_EV_GC_SWEEP_START, 1020, U(0));
	o = t.n;
	AT(&t, GOTRACE_EV_GC_SWEEP_START, 1030, U(0));
	footer(&t);
	expect_fail(&t, o, "previous sweeping is not ended before a new one",
		    "two GCSweepStart on one P");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT(&t, GOTRACE_EV_GC_MARK_ASSIST_START, 1030, U(0));
	o = t.n;
	AT(&t, GOTRACE_EV_GC_MARK_ASSIST_START, 1040, U(0));
	footer(&t);
	expect_fail(&t, o, "previous mark assist is not ended before a new one",
		    "two GCMarkAssistStart of one goroutine");

	/*
	 * User regions: an end must match the goroutine's innermost start
	 * (task and name); an end alone began before the trace; GoEnd
	 * forgets the open ones.  A task id lives once at a time.
	 */
	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT(&t, GOTRACE_EV_USER_REGION, 1030, U(0), U(1), U(3), U(0));
	AT(&t, GOTRACE_EV_USER_REGION, 1030, U(0), U(1), U(1), U(0));
	AT(&t, GOTRACE_EV_USER_REGION, 1030, U(5), U(0), U(1), U(0));
	AT(&t, GOTRACE_EV_USER_REGION, 1030, U(0), U(0), U(3), U(0));
	AT(&t, GOTRACE_EV_USER_REGION, 1040, U(0), U(1), U(3), U(0));
	AT(&t, GOTRACE_EV_USER_REGION, 1040, U(5), U(1), U(1), U(0));
	AT(&t, GOTRACE_EV_USER_REGION, 1040, U(0), U(0), U(3), U(0));
	AT(&t, GOTRACE_EV_USER_TASK_CREATE, 1050, U(9), U(0), U(1), U(0));
	AT(&t, GOTRACE_EV_USER_TASK_END, 1050, U(9), U(0));
	AT(&t, GOTRACE_EV_USER_TASK_CREATE, 1050, U(9), U(0), U(1), U(0));
	AT0(&t, GOTRACE_EV_GO_END, 1060);
	AT(&t, GOTRACE_EV_GO_START, 1070, U(2), U(1));
	AT(&t, GOTRACE_EV_USER_REGION, 1080, U(0), U(1), U(3), U(0));
	AT0(&t, GOTRACE_EV_GO_END, 1090);
	footer(&t);
	expect_ok(&t, "user regions nested and ended, a task id used again after its end");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT(&t, GOTRACE_EV_USER_REGION, 1030, U(0), U(0), U(3), U(0));
	o = t.n;
	AT(&t, GOTRACE_EV_USER_REGION, 1040, U(0), U(1), U(1), U(0));
	footer(&t);
	expect_fail(&t, o, "misuse of region in goroutine 1",
		    "a region ended under another name");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT(&t, GOTRACE_EV_USER_REGION, 1030, U(5), U(0), U(3), U(0));
	o = t.n;
	AT(&t, GOTRACE_EV_USER_REGION, 1040, U(6), U(1), U(3), U(0));
	footer(&t);
	expect_fail(&t, o, "misuse of region in goroutine 1",
		    "a region ended in another task");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT(&t, GOTRACE_EV_USER_TASK_CREATE, 1030, U(9), U(0), U(1), U(0));
	o = t.n;
	AT(&t, GOTRACE_EV_USER_TASK_CREATE, 1040, U(9), U(0), U(3), U(0));
	footer(&t);
	expect_fail(&t, o, "task id conflicts (id 9)", "a task id created twice");

	/* Go 1.21 drops it, Go 1.23 refuses the file: unexpected event type 36. */
	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	o = t.n;
	AT0(&t, GOTRACE_EV_FUTILE_WAKEUP, 1030);
	footer(&t);
	expect_fail(&t, o, "FutileWakeup: Go 1.23's reader refuses", "FutileWakeup");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT(&t, GOTRACE_EV_GO_SYSCALL, 1030, U(2));
	o = t.n;
	AT0(&t, GOTRACE_EV_GO_SYSBLOCK, 1040);
	AT(&t, GOTRACE_EV_GO_START, 1050, U(2), U(1));
	footer(&t);
	expect_fail(&t, o, "is not followed by ProcStop",
		    "GoSysBlock, then no ProcStop");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	o = t.n;
	AT0(&t, GOTRACE_EV_GO_SYSBLOCK, 1040);
	footer(&t);
	/* The footer's batch is P 0's: nothing follows on it. */
	expect_fail(&t, o, "the trace ends first", "trace ends after GoSysBlock");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT(&t, GOTRACE_EV_GO_BLOCK, 1030, U(0));
	o = t.n;
	AT(&t, GOTRACE_EV_GO_SYSEXIT, 1040, U(1), U(2), U(0));
	footer(&t);
	expect_fail(&t, o, "exits a syscall but it blocked with GoBlock",
		    "GoSysExit after a plain GoBlock");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT0(&t, GOTRACE_EV_GO_SYSBLOCK, 1030);
	AT0(&t, GOTRACE_EV_PROC_STOP, 1030);
	AT(&t, GOTRACE_EV_PROC_START, 1040, U(0));
	AT(&t, GOTRACE_EV_GO_START, 1050, U(2), U(1));
	o = t.n;
	AT(&t, GOTRACE_EV_GO_UNBLOCK, 1060, U(1), U(2), U(0));
	footer(&t);
	expect_fail(&t, o, "blocked in a syscall", "GoUnblock of a goroutine in a syscall");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	o = t.n;
	AT0(&t, GOTRACE_EV_PROC_STOP, 1030);
	footer(&t);
	expect_fail(&t, o, "p 0 is running a goroutine 1 during stop",
		    "ProcStop while a goroutine runs");

	base(&t, true);
	o = t.n;
	AT(&t, GOTRACE_EV_PROC_START, 1020, U(0));
	footer(&t);
	expect_fail(&t, o, "p 0 is running before start", "ProcStart twice");

	base(&t, false);
	o = t.n;
	AT0(&t, GOTRACE_EV_PROC_STOP, 1020);
	footer(&t);
	expect_fail(&t, o, "p 0 is not running before stop", "ProcStop of a stopped P");

	base(&t, true);
	o = t.n;
	AT0(&t, GOTRACE_EV_GO_END, 1020);
	footer(&t);
	expect_fail(&t, o, "g 0 did GoEnd", "GoEnd with nothing running");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT(&t, GOTRACE_EV_GO_SYSCALL, 1030, U(2));
	AT0(&t, GOTRACE_EV_GO_END, 1040);
	footer(&t);
	expect_ok(&t, "control: syscall then end is fine");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT0(&t, GOTRACE_EV_GO_END, 1030);
	o = t.n;
	AT(&t, GOTRACE_EV_GO_SYSCALL, 1040, U(2));
	footer(&t);
	expect_fail(&t, o, "g 0 did GoSysCall", "GoSysCall with nothing running");

	/* g 1 blocks on P 0 at 2000, P 1 wakes it at 1500 (seq right). */
	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT(&t, GOTRACE_EV_GO_BLOCK, 2000, U(0));
	tb_batch(&t, 1, 1000);
	AT(&t, GOTRACE_EV_PROC_START, 1400, U(1));
	AT(&t, GOTRACE_EV_GO_START, 1450, U(2), U(1));
	o = t.n;
	AT(&t, GOTRACE_EV_GO_UNBLOCK, 1500, U(1), U(2), U(0));
	AT0(&t, GOTRACE_EV_GO_END, 1600);
	AT0(&t, GOTRACE_EV_PROC_STOP, 1600);
	footer(&t);
	expect_fail(&t, o, "time stamps out of order", "wakeup before the block");

	/* GoWaiting at the start, then a GoSysExit with a real time. */
	base(&t, true);
	AT(&t, GOTRACE_EV_GO_WAITING, 1020, U(1));
	o = t.n;
	AT(&t, GOTRACE_EV_GO_SYSEXIT, 1040, U(1), U(2), U(1030));
	footer(&t);
	expect_fail(&t, o, "stray syscall exit", "GoSysExit time without GoSysBlock");

	/* A real exit time after the goroutine's next start (Go sorts). */
	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT0(&t, GOTRACE_EV_GO_SYSBLOCK, 1030);
	AT0(&t, GOTRACE_EV_PROC_STOP, 1030);
	AT(&t, GOTRACE_EV_PROC_START, 1040, U(0));
	AT(&t, GOTRACE_EV_GO_SYSEXIT, 1045, U(1), U(2), U(1070));
	o = t.n;
	AT(&t, GOTRACE_EV_GO_START, 1050, U(1), U(3));
	AT0(&t, GOTRACE_EV_GO_END, 1060);
	AT0(&t, GOTRACE_EV_PROC_STOP, 1060);
	footer(&t);
	expect_fail(&t, o, "g 1 is not runnable before start (it is waiting)",
		    "GoSysExit real time after the next GoStart");

	/* The same exit at 1035, or at 1050 (a tie), is fine. */
	for (uint64_t real = 1035; real <= 1050; real += 15) {
		base(&t, true);
		AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
		AT0(&t, GOTRACE_EV_GO_SYSBLOCK, 1030);
		AT0(&t, GOTRACE_EV_PROC_STOP, 1030);
		AT(&t, GOTRACE_EV_PROC_START, 1040, U(0));
		AT(&t, GOTRACE_EV_GO_SYSEXIT, 1045, U(1), U(2), real);
		AT(&t, GOTRACE_EV_GO_START, 1050, U(1), U(3));
		AT0(&t, GOTRACE_EV_GO_END, 1060);
		AT0(&t, GOTRACE_EV_PROC_STOP, 1060);
		footer(&t);
		expect_ok(&t, real == 1035 ? "GoSysExit real time before its place" :
			  "GoSysExit real time equal to the next GoStart");
	}

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_WAITING, 1020, U(1));
	AT(&t, GOTRACE_EV_GO_SYSEXIT, 1040, U(1), U(2), U(0));
	AT(&t, GOTRACE_EV_GO_START, 1050, U(1), U(3));
	AT0(&t, GOTRACE_EV_GO_END, 1060);
	footer(&t);
	expect_ok(&t, "GoWaiting ended by GoSysExit (no real time)");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	AT(&t, GOTRACE_EV_GO_PREEMPT, 1030, U(0));
	o = t.n;
	AT(&t, GOTRACE_EV_GO_START, 1040, U(2), U(1));
	footer(&t);
	expect_fail(&t, o, "g 2 is still running at the end of the trace",
		    "a goroutine never ended by the end of the trace");

	base(&t, true);
	AT(&t, GOTRACE_EV_GO_START, 1020, U(1), U(1));
	o = t.n;
	AT0(&t, GOTRACE_EV_GO_SLEEP, 1030);	/* stack value missing */
	footer(&t);
	expect_fail(&t, o, "GoSleep has wrong number of values",
		    "structural errors still reported first");
}

/*
 * 400 goroutines that each run once and end, on one P: with top lists
 * of 10 rows, the ended ones are kept only while they may be in one
 * (stats.c), so the rows held follow the live goroutines and not the
 * file, and every figure is that of keeping them all.
 */
static void test_stats_ended(void)
{
	enum { N = 400, KEEP = 10 };
	struct gt_stats all, top;
	uint64_t ts = 1000, held;
	bool same = true;
	struct tb t;
	int ret;

	tb_header(&t);
	tb_batch(&t, 0, 1000);
	AT(&t, GOTRACE_EV_GOMAXPROCS, 1000, U(1), U(0));
	AT(&t, GOTRACE_EV_PROC_START, 1000, U(0));
	for (uint64_t g = 1; g <= N; g++) {
		AT(&t, GOTRACE_EV_GO_CREATE, ts, U(g), U(g % 2 ? 1 : 4), U(0));
		ts += 1 + g * 104729 % 50;		/* its latency */
		AT(&t, GOTRACE_EV_GO_START, ts, U(g), U(1));
		ts += 1 + g * 7919 % 100;		/* its run */
		AT0(&t, GOTRACE_EV_GO_END, ts);
	}
	AT0(&t, GOTRACE_EV_PROC_STOP, ts);
	footer(&t);
	ret = gt_trace_open_mem(&tr, t.b, t.n, &err);
	ok(ret == 0, "%u goroutines ending: opened", N);
	if (ret) {
		diag("offset 0x%zx: %s", err.off, err.msg);
		return;
	}
	ret = gt_stats_compute(&tr, &all, 0, &err);
	ok(ret == 0 && gt_stats_compute(&tr, &top, KEEP, &err) == 0,
	   "stats computed, all rows kept and a top of %u", KEEP);
	if (ret)
		return;
	held = top.ntasks;
	ok(all.ntasks >= N && held < 3 * KEEP + 64 + 2 &&
	   held + top.tasks_dropped == all.ntasks + all.tasks_dropped,
	   "%zu rows for all, %llu for a top of %u, %llu ended ones counted "
	   "only", all.ntasks, (unsigned long long)held, KEEP,
	   (unsigned long long)top.tasks_dropped);
	ok(!memcmp(all.at_end, top.at_end, sizeof(all.at_end)) &&
	   all.at_end[GT_STAT_G_DEAD] == N,
	   "the same states at the end: %llu ended",
	   (unsigned long long)top.at_end[GT_STAT_G_DEAD]);
	same = all.nnames == top.nnames && all.nnames == 2;
	for (size_t i = 0; same && i < all.nnames; i++)
		same = !strcmp(all.names[i].name, top.names[i].name) &&
		       all.names[i].tasks == top.names[i].tasks &&
		       all.names[i].run == top.names[i].run &&
		       all.names[i].latency == top.names[i].latency &&
		       all.names[i].starts == top.names[i].starts;
	ok(same, "the same figures per name (bash, cat)");
	qsort(all.tasks, all.ntasks, sizeof(*all.tasks), gt_stat_task_by_run);
	qsort(top.tasks, top.ntasks, sizeof(*top.tasks), gt_stat_task_by_run);
	same = true;
	for (size_t i = 0; i < KEEP; i++)
		same &= all.tasks[i].g == top.tasks[i].g &&
			all.tasks[i].run == top.tasks[i].run;
	qsort(all.tasks, all.ntasks, sizeof(*all.tasks),
	      gt_stat_task_by_latency);
	qsort(top.tasks, top.ntasks, sizeof(*top.tasks),
	      gt_stat_task_by_latency);
	for (size_t i = 0; i < KEEP; i++)
		same &= all.tasks[i].g == top.tasks[i].g &&
			all.tasks[i].latency == top.tasks[i].latency;
	ok(same, "the same %u first rows by run time and by latency", KEEP);
	gt_stats_free(&all);
	gt_stats_free(&top);
	gt_trace_close(&tr);
}

int main(void)
{
	test_valid();
	test_broken();
	test_stats_ended();
	test_slow_clock();
	return tap_done();
}
