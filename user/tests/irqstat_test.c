// SPDX-License-Identifier: GPL-2.0
/*
 * irqstat_test.c - unit tests of 'gotrace stat''s interrupt figures
 * (trace/stats_irq.c, through trace/stats.c and trace/go123_stat.c)
 *
 * The same machine in both formats, built event by event, with known
 * answers.  Trace time 1000..1710 ns (710 ns), two CPUs:
 *
 *   P 0: bash (g 1) runs 1020..1100; NET_RX softirq 1100..1150; IRQ 24
 *        nested in it 1150..1170; NET_RX resumes 1170..1200; bash
 *        1200..1300; IRQ 24 again 1300..1310; bash 1310..1400, ends;
 *        idle; NET_RX on the idle CPU 1500..1540.
 *        task 270, hard IRQ 30 (2 entries, longest 20), softirq 120
 *        (2 entries, longest 80: the first one's own time, 50 + 30),
 *        idle 290.
 *   P 1: kworker (g 4) runs 1600..1650, local timer vector 1650..1655,
 *        kworker 1655..1710; its region "[work] vmstat_update" spans
 *        1610..1700 (90).  task 105, hard IRQ 5, idle 600.
 *
 * go 1.11 writes an interrupt's entry as GoBlock, GoUnblock, GoStart on
 * the same P; go 1.23 as a GoSwitch.  A trace without interrupts must
 * give no interrupt figure, and its JSON no "interrupts" key.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "tracebuild.h"
#include "trace/go111_decode.h"
#include "trace/go123.h"
#include "trace/go123_check.h"
#include "trace/go123_stat.h"
#include "trace/stats_json.h"
#include "trace/stats.h"

#define U TB_U
#define NARGS TB_NARGS

/* go 1.11: event of @type at absolute time @ts, then its other values. */
#define AT(t, type, ts, ...) \
	(delta = U(ts) - (t)->last, (t)->last = U(ts), \
	 tb_ev(t, type, 1 + NARGS(__VA_ARGS__), delta, __VA_ARGS__))
#define AT0(t, type, ts) \
	(delta = U(ts) - (t)->last, (t)->last = U(ts), tb_ev(t, type, 1, delta))

static uint64_t delta;
static struct gt_trace_error err;

static const char *const names[] = {
	NULL, "bash", "[comm]", "[softirq] NET_RX", "[irq 24] virtio0-input",
	"[irq] local timer", "kworker/1:0", "[work] vmstat_update",
};
enum { S_BASH = 1, S_COMM, S_NETRX, S_IRQ24, S_TIMER, S_KWORKER, S_WORK,
       NSTR };

/* Stack n (1..5) of one frame: function string n's, file "[comm]". */
static uint64_t stk_func(uint64_t stk)
{
	static const uint64_t f[] = { 0, S_BASH, S_NETRX, S_IRQ24, S_TIMER,
				      S_KWORKER };

	return f[stk];
}

/* ---- go 1.11 ---- */

static void stack111(struct tb *t, uint64_t id)
{
	struct tb v = { .n = 0 };

	tb_leb(&v, id);
	tb_leb(&v, 1);
	tb_leb(&v, 0x1000 * id);
	tb_leb(&v, stk_func(id));
	tb_leb(&v, S_COMM);
	tb_leb(&v, 0);
	tb_byte(t, 0xc3);
	tb_leb(t, v.n);
	tb_put(t, v.b, v.n);
}

/* Per-goroutine sequence numbers of go 1.11 (GoStart, GoUnblock). */
static uint64_t seq[8];

/* On P's batch at @ts: the running @from waits, interrupt @to runs. */
static void switch111(struct tb *t, uint64_t ts, uint64_t to)
{
	AT(t, GOTRACE_EV_GO_BLOCK, ts, U(0));
	AT(t, GOTRACE_EV_GO_UNBLOCK, ts, to, ++seq[to], U(0));
	AT(t, GOTRACE_EV_GO_START, ts, to, ++seq[to]);
}

/* The machine of the header comment; @irqs false: no interrupt at all. */
static void build111(struct tb *t, bool irqs)
{
	memset(seq, 0, sizeof(seq));
	tb_header(t);
	tb_batch(t, 0, 1000);
	AT(t, GOTRACE_EV_GOMAXPROCS, 1000, U(2), U(0));
	AT(t, GOTRACE_EV_GO_CREATE, 1000, U(1), U(1), U(0));
	AT(t, GOTRACE_EV_GO_CREATE, 1000, U(4), U(5), U(0));
	AT(t, GOTRACE_EV_PROC_START, 1010, U(0));
	AT(t, GOTRACE_EV_GO_START, 1020, U(1), ++seq[1]);
	if (irqs) {
		/* Created where first needed: runnable, then started. */
		AT(t, GOTRACE_EV_GO_BLOCK, 1100, U(0));
		AT(t, GOTRACE_EV_GO_CREATE, 1100, U(2), U(2), U(0));
		AT(t, GOTRACE_EV_GO_START, 1100, U(2), ++seq[2]);
		AT(t, GOTRACE_EV_GO_BLOCK, 1150, U(0));
		AT(t, GOTRACE_EV_GO_CREATE, 1150, U(3), U(3), U(0));
		AT(t, GOTRACE_EV_GO_START, 1150, U(3), ++seq[3]);
		switch111(t, 1170, 2);
		switch111(t, 1200, 1);
		switch111(t, 1300, 3);
		switch111(t, 1310, 1);
	}
	AT0(t, GOTRACE_EV_GO_END, 1400);
	AT0(t, GOTRACE_EV_PROC_STOP, 1400);
	if (irqs) {
		AT(t, GOTRACE_EV_PROC_START, 1500, U(0));
		AT(t, GOTRACE_EV_GO_UNBLOCK, 1500, U(2), ++seq[2], U(0));
		AT(t, GOTRACE_EV_GO_START, 1500, U(2), ++seq[2]);
		AT(t, GOTRACE_EV_GO_BLOCK, 1540, U(0));
		AT0(t, GOTRACE_EV_PROC_STOP, 1540);
	}

	tb_batch(t, 1, 1000);
	AT(t, GOTRACE_EV_PROC_START, 1600, U(1));
	AT(t, GOTRACE_EV_GO_START, 1600, U(4), ++seq[4]);
	if (irqs) {
		AT(t, GOTRACE_EV_USER_REGION, 1610, U(0), U(0), U(S_WORK),
		   U(0));
		AT(t, GOTRACE_EV_GO_BLOCK, 1650, U(0));
		AT(t, GOTRACE_EV_GO_CREATE, 1650, U(5), U(4), U(0));
		AT(t, GOTRACE_EV_GO_START, 1650, U(5), ++seq[5]);
		switch111(t, 1655, 4);
		AT(t, GOTRACE_EV_USER_REGION, 1700, U(0), U(1), U(S_WORK),
		   U(0));
	}
	AT0(t, GOTRACE_EV_GO_END, 1710);
	AT0(t, GOTRACE_EV_PROC_STOP, 1710);

	tb_batch(t, 0, 100000);
	tb_ev(t, GOTRACE_EV_FREQUENCY, 1, U(1000000000));
	for (uint64_t i = 1; i < NSTR; i++)
		tb_str(t, i, names[i]);
	for (uint64_t i = 1; i <= 5; i++)
		stack111(t, i);
}

/* ---- go 1.23 ---- */

#define NOM	UINT64_MAX

struct b123 {
	uint8_t out[16384];
	size_t n;
	uint8_t buf[4096];
	size_t len;
};

static void put_to(uint8_t *b, size_t *n, uint64_t v)
{
	do {
		b[(*n)++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

/* Event @type with @n values (the first is the time delta). */
static void ev123(struct b123 *b, uint8_t type, int n, ...)
{
	va_list ap;

	b->buf[b->len++] = type;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		put_to(b->buf, &b->len, va_arg(ap, uint64_t));
	va_end(ap);
}

#define EV(b, type, ...) ev123(b, type, NARGS(__VA_ARGS__), __VA_ARGS__)

/* What buf holds, as one batch of M @m starting at @time. */
static void flush123(struct b123 *b, uint64_t m, uint64_t time)
{
	b->out[b->n++] = GT_GO123_EV_BATCH;
	put_to(b->out, &b->n, 1);
	put_to(b->out, &b->n, m);
	put_to(b->out, &b->n, time);
	put_to(b->out, &b->n, b->len);
	memcpy(b->out + b->n, b->buf, b->len);
	b->n += b->len;
	b->len = 0;
}

static void tables123(struct b123 *b)
{
	EV(b, GT_GO123_EV_FREQUENCY, U(1000000000));
	flush123(b, NOM, 100000);
	b->buf[b->len++] = GT_GO123_EV_STRINGS;
	for (uint64_t i = 1; i < NSTR; i++) {
		b->buf[b->len++] = GT_GO123_EV_STRING;
		put_to(b->buf, &b->len, i);
		put_to(b->buf, &b->len, strlen(names[i]));
		memcpy(b->buf + b->len, names[i], strlen(names[i]));
		b->len += strlen(names[i]);
	}
	flush123(b, NOM, 100000);
	b->buf[b->len++] = GT_GO123_EV_STACKS;
	for (uint64_t i = 1; i <= 5; i++) {
		b->buf[b->len++] = GT_GO123_EV_STACK;
		put_to(b->buf, &b->len, i);
		put_to(b->buf, &b->len, 1);
		put_to(b->buf, &b->len, 0x1000 * i);
		put_to(b->buf, &b->len, stk_func(i));
		put_to(b->buf, &b->len, S_COMM);
		put_to(b->buf, &b->len, 0);
	}
	flush123(b, NOM, 100000);
}

/* The delta from the batch's last time *@t to @ts, which becomes it. */
static uint64_t delta_to(uint64_t *t, uint64_t ts)
{
	uint64_t d = ts - *t;

	*t = ts;
	return d;
}

/* The same machine in go 1.23: interrupts come and go by GoSwitch. */
static void build123(struct b123 *b, bool irqs)
{
	uint64_t t = 1000;

#define D(ts) delta_to(&t, U(ts))
	b->n = b->len = 0;
	memcpy(b->out, "go 1.23 trace\0\0\0", 16);
	b->n = 16;
	EV(b, GT_GO123_EV_PROC_STATUS, U(0), U(0), U(2));
	EV(b, GT_GO123_EV_PROC_STATUS, U(0), U(1), U(2));
	flush123(b, NOM, 1000);

	t = 1000;
	EV(b, GT_GO123_EV_PROC_START, D(1010), U(0), U(1));
	EV(b, GT_GO123_EV_GO_CREATE, D(1010), U(1), U(1), U(0));
	if (irqs) {
		EV(b, GT_GO123_EV_GO_CREATE_BLOCKED, D(1010), U(2), U(2), U(0));
		EV(b, GT_GO123_EV_GO_CREATE_BLOCKED, D(1010), U(3), U(3), U(0));
	}
	EV(b, GT_GO123_EV_GO_START, D(1020), U(1), U(1));
	if (irqs) {
		EV(b, GT_GO123_EV_GO_SWITCH, D(1100), U(2), U(1));
		EV(b, GT_GO123_EV_GO_SWITCH, D(1150), U(3), U(1));
		EV(b, GT_GO123_EV_GO_SWITCH, D(1170), U(2), U(2));
		EV(b, GT_GO123_EV_GO_SWITCH, D(1200), U(1), U(2));
		EV(b, GT_GO123_EV_GO_SWITCH, D(1300), U(3), U(2));
		EV(b, GT_GO123_EV_GO_SWITCH, D(1310), U(1), U(3));
	}
	EV(b, GT_GO123_EV_GO_DESTROY, D(1400));
	EV(b, GT_GO123_EV_PROC_STOP, D(1400));
	if (irqs) {
		EV(b, GT_GO123_EV_PROC_START, D(1500), U(0), U(2));
		EV(b, GT_GO123_EV_GO_UNBLOCK, D(1500), U(2), U(3), U(0));
		EV(b, GT_GO123_EV_GO_START, D(1500), U(2), U(4));
		EV(b, GT_GO123_EV_GO_BLOCK, D(1540), U(0), U(0));
		EV(b, GT_GO123_EV_PROC_STOP, D(1540));
	}
	flush123(b, 100, 1000);

	t = 1000;
	EV(b, GT_GO123_EV_PROC_START, D(1600), U(1), U(1));
	EV(b, GT_GO123_EV_GO_CREATE, D(1600), U(4), U(5), U(0));
	if (irqs)
		EV(b, GT_GO123_EV_GO_CREATE_BLOCKED, D(1600), U(5), U(4), U(0));
	EV(b, GT_GO123_EV_GO_START, D(1600), U(4), U(1));
	if (irqs) {
		EV(b, GT_GO123_EV_USER_REGION_BEGIN, D(1610), U(0), U(S_WORK),
		   U(0));
		EV(b, GT_GO123_EV_GO_SWITCH, D(1650), U(5), U(1));
		EV(b, GT_GO123_EV_GO_SWITCH, D(1655), U(4), U(2));
		EV(b, GT_GO123_EV_USER_REGION_END, D(1700), U(0), U(S_WORK),
		   U(0));
	}
	EV(b, GT_GO123_EV_GO_DESTROY, D(1710));
	EV(b, GT_GO123_EV_PROC_STOP, D(1710));
	flush123(b, 101, 1000);
#undef D
	tables123(b);
}

/*
 * IRQSTAT_SAVE=DIR keeps each built trace as DIR/irqstat-NAME.trace, to
 * run 'gotrace stat' or Go's viewer on it.
 */
static void save(const char *name, const void *b, size_t n)
{
	const char *dir = getenv("IRQSTAT_SAVE");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/irqstat-%s.trace", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n)
		diag("cannot write %s", path);
	if (f)
		fclose(f);
}

/* ---- the figures ---- */

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

static bool is(const struct gt_stat_irq *r, int kind, int64_t irq,
	       uint64_t count, uint64_t time, uint64_t max)
{
	if (!r)
		return false;
	if (r->kind != kind || r->irq != irq || r->count != count ||
	    r->time != time || r->max != max)
		diag("%s: kind %d irq %lld count %llu time %llu max %llu",
		     r->name, r->kind, (long long)r->irq,
		     (unsigned long long)r->count, (unsigned long long)r->time,
		     (unsigned long long)r->max);
	return r->kind == kind && r->irq == irq && r->count == count &&
	       r->time == time && r->max == max;
}

/* CPU @p: task, hard, soft and idle time, and shares summing to 100. */
static void cpu_is(const struct gt_stats *s, const char *fmt, uint64_t p,
		   uint64_t task, uint64_t hard, uint64_t soft, uint64_t idle)
{
	const struct gt_stat_cpu *c = gt_irq_cpu_row(&s->irqs, p);
	struct gt_irq_share h = { 0 };
	double sum;

	if (c)
		gt_irq_share(c, s->end - s->start, &h);
	sum = gt_irq_pct(h.task, h.den) + gt_irq_pct(h.hard, h.den) +
	      gt_irq_pct(h.soft, h.den) + gt_irq_pct(h.idle, h.den);
	if (c && (h.task != task || h.hard != hard || h.soft != soft ||
		  h.idle != idle))
		diag("P %llu: task %llu hard %llu soft %llu idle %llu",
		     (unsigned long long)p, (unsigned long long)h.task,
		     (unsigned long long)h.hard, (unsigned long long)h.soft,
		     (unsigned long long)h.idle);
	ok(c && h.task == task && h.hard == hard && h.soft == soft &&
	   h.idle == idle && h.den == 710 && sum > 100.0 - 1e-9 && sum < 100.0 + 1e-9,
	   "%s: P %llu: task %llu, hard IRQ %llu, softirq %llu, idle %llu ns"
	   " of 710; shares sum to 100%%", fmt, (unsigned long long)p,
	   (unsigned long long)task, (unsigned long long)hard,
	   (unsigned long long)soft, (unsigned long long)idle);
}

static void figures(const struct gt_stats *s, const char *fmt)
{
	const struct gt_stat_task *bash = NULL;

	for (size_t i = 0; i < s->ntasks; i++)
		if (s->tasks[i].g == 1)
			bash = &s->tasks[i];
	ok(s->end - s->start == 710 && s->irqs.ncpus == 2,
	   "%s: 710 ns, 2 CPUs", fmt);
	cpu_is(s, fmt, 0, 270, 30, 120, 290);
	cpu_is(s, fmt, 1, 105, 5, 0, 600);
	ok(bash && bash->run == 270,
	   "%s: bash's run time leaves out the interrupts (270 ns)", fmt);
	ok(is(row(s, 0, "NET_RX"), GT_IRQ_SOFT, -1, 2, 120, 80),
	   "%s: P 0 NET_RX: 2 entries (a resume is none), 120 ns, longest 80",
	   fmt);
	ok(is(row(s, 0, "virtio0-input"), GT_IRQ_HARD, 24, 2, 30, 20),
	   "%s: P 0 IRQ 24 virtio0-input: 2 entries, 30 ns, longest 20", fmt);
	ok(is(row(s, 1, "local timer"), GT_IRQ_VECTOR, -1, 1, 5, 5) &&
	   !row(s, 1, "NET_RX") && !row(s, 0, "local timer") &&
	   s->irqs.nrows == 3,
	   "%s: P 1 local timer vector once (5 ns); 3 rows in all", fmt);
	ok(is(src(s, "vmstat_update"), GT_IRQ_WORK, -1, 1, 90, 90),
	   "%s: work vmstat_update: once, 90 ns", fmt);
	ok(s->irqs.nsrcs == 4 && s->irqs.srcs[0].kind == GT_IRQ_SOFT &&
	   s->irqs.srcs[1].kind == GT_IRQ_WORK,
	   "%s: sources by time: NET_RX (120) first, then the work (90)", fmt);
	ok(s->nunits == 0, "%s: a [work] region is no systemd unit", fmt);
}

/* The JSON of @s holds every line of @want, and "interrupts" iff @irqs. */
static void json_has(struct gt_stats *s, const char *fmt, bool irqs,
		     const char *const *want, size_t n)
{
	const char *end = irqs ? "\n  }\n}\n" : "\n  ]\n}\n";
	char *buf = NULL;
	size_t len = 0, missing = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		ok(0, "open_memstream");
		return;
	}
	gt_stat_json(f, "t", 100, s, 0);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (!strstr(buf, want[i])) {
			diag("missing: %s", want[i]);
			missing++;
		}
	ok(!missing && !strstr(buf, "\"interrupts\"") == !irqs &&
	   len > strlen(end) && !strcmp(buf + len - strlen(end), end),
	   "%s: stat --json: %s", fmt, irqs ?
	   "the interrupts object, a row a line" : "no interrupts key");
	free(buf);
}

static const char *const json_want[] = {
	"  ],\n  \"interrupts\": {\n    \"cpus\": [\n",
	"      { \"p\": 0, \"wall_ns\": 710, \"task_ns\": 270, \"hardirq_ns\": 30, \"softirq_ns\": 120, \"idle_ns\": 290, \"task_pct\": 38.028, \"hardirq_pct\": 4.225, \"softirq_pct\": 16.901, \"idle_pct\": 40.845 },\n",
	"      { \"p\": 1, \"wall_ns\": 710, \"task_ns\": 105, \"hardirq_ns\": 5, \"softirq_ns\": 0, \"idle_ns\": 600, \"task_pct\": 14.789, \"hardirq_pct\": 0.704, \"softirq_pct\": 0.000, \"idle_pct\": 84.507 }\n",
	"    \"softirq_pct\": [\n      { \"p\": 0, \"name\": \"NET_RX\", \"ns\": 120, \"pct\": 16.901 }\n    ],\n",
	"      { \"p\": 0, \"kind\": \"hardirq\", \"irq\": 24, \"name\": \"virtio0-input\", \"count\": 2, \"total_ns\": 30, \"max_ns\": 20 },\n"
	"      { \"p\": 0, \"kind\": \"softirq\", \"irq\": -1, \"name\": \"NET_RX\", \"count\": 2, \"total_ns\": 120, \"max_ns\": 80 },\n"
	"      { \"p\": 1, \"kind\": \"vector\", \"irq\": -1, \"name\": \"local timer\", \"count\": 1, \"total_ns\": 5, \"max_ns\": 5 }\n",
	"    \"top_hardirqs\": [\n      { \"kind\": \"hardirq\", \"irq\": 24, \"name\": \"virtio0-input\", \"count\": 2, \"total_ns\": 30, \"max_ns\": 20 },\n"
	"      { \"kind\": \"vector\", \"irq\": -1, \"name\": \"local timer\", \"count\": 1, \"total_ns\": 5, \"max_ns\": 5 }\n    ],\n",
	"    \"top_softirqs\": [\n      { \"kind\": \"softirq\", \"irq\": -1, \"name\": \"NET_RX\", \"count\": 2, \"total_ns\": 120, \"max_ns\": 80 }\n    ],\n",
	"    \"top_work\": [\n      { \"kind\": \"work\", \"irq\": -1, \"name\": \"vmstat_update\", \"count\": 1, \"total_ns\": 90, \"max_ns\": 90 }\n    ]\n  }\n}\n",
};

static void test111(bool irqs)
{
	struct gt_trace tr;
	struct gt_stats s;
	struct tb t;

	build111(&t, irqs);
	save(irqs ? "go111" : "go111-none", t.b, t.n);
	if (!ok(gt_trace_verify(t.b, t.n, &err) == 0,
		"go 1.11 trace %s interrupts passes the checker",
		irqs ? "with" : "without"))
		diag("offset %zu: %s", err.off, err.msg);
	if (gt_trace_open_mem(&tr, t.b, t.n, &err) ||
	    gt_stats_compute(&tr, &s, 0, &err)) {
		ok(0, "go 1.11: stats computed (%s)", err.msg);
		return;
	}
	if (irqs) {
		figures(&s, "go 1.11");
		json_has(&s, "go 1.11", true, json_want,
			 sizeof(json_want) / sizeof(json_want[0]));
	} else {
		ok(!gt_irq_any(&s.irqs),
		   "go 1.11 without interrupts: no interrupt figure");
		json_has(&s, "go 1.11", false, NULL, 0);
	}
	gt_stats_free(&s);
	gt_trace_close(&tr);
}

static void test123(bool irqs)
{
	static struct b123 b;
	struct gt_go123_info info = { 0 };
	struct gt_stats s;
	struct gt_src src;

	build123(&b, irqs);
	save(irqs ? "go123" : "go123-none", b.out, b.n);
	gt_src_mem(&src, b.out, b.n);
	if (!ok(gt_go123_check(&src, &info, &err) == 0,
		"go 1.23 trace %s interrupts passes the checker",
		irqs ? "with" : "without"))
		diag("offset %zu: %s", err.off, err.msg);
	gt_src_mem(&src, b.out, b.n);
	if (gt_go123_stats(&src, &s, &err)) {
		ok(0, "go 1.23: stats computed (%s)", err.msg);
		return;
	}
	if (irqs) {
		figures(&s, "go 1.23");
		json_has(&s, "go 1.23", true, json_want,
			 sizeof(json_want) / sizeof(json_want[0]));
	} else {
		ok(!gt_irq_any(&s.irqs),
		   "go 1.23 without interrupts: no interrupt figure");
		json_has(&s, "go 1.23", false, NULL, 0);
	}
	gt_stats_free(&s);
}

/* The names: what is an interrupt and what is a task named like one. */
static void test_classify(void)
{
	static const struct {
		const char *name;
		int kind;
		int64_t irq;
		const char *rest;
	} c[] = {
		{ "[irq 24] virtio0-input", GT_IRQ_HARD, 24, "virtio0-input" },
		{ "[irq 0] timer", GT_IRQ_HARD, 0, "timer" },
		{ "[irq] reschedule IPI", GT_IRQ_VECTOR, -1, "reschedule IPI" },
		{ "[softirq] HRTIMER", GT_IRQ_SOFT, -1, "HRTIMER" },
		{ "[irq x] y", GT_IRQ_TASK, -1, NULL },
		{ "[irq 24]", GT_IRQ_TASK, -1, NULL },
		{ "[irq] ", GT_IRQ_TASK, -1, NULL },
		{ "[softirq]", GT_IRQ_TASK, -1, NULL },
		{ "irq/24-virtio0", GT_IRQ_TASK, -1, NULL },
		{ "ksoftirqd/0", GT_IRQ_TASK, -1, NULL },
	};
	size_t bad = 0;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char rest[GT_IRQ_NAME] = "";
		int64_t irq;
		int kind = gt_irq_classify(c[i].name, &irq, rest);

		if (kind != c[i].kind || irq != c[i].irq ||
		    (c[i].rest && strcmp(rest, c[i].rest))) {
			diag("'%s': kind %d irq %lld '%s'", c[i].name, kind,
			     (long long)irq, rest);
			bad++;
		}
	}
	ok(!bad, "interrupt goroutines known by name; threads named like"
	   " them (irq/24-..., ksoftirqd) are tasks");
}

/*
 * Entries and resumes, fed to stats_irq.c directly: a resume after a
 * nested interrupt is no entry; a task that runs, or a P that stops,
 * ends the nesting (exits lost, or frames the model closed).  The
 * model nests 4 deep at most; stats_irq.c follows GT_IRQ_DEPTH + 1.
 */
static void test_nesting(void)
{
	struct gt_stat_irqs q = { 0 };
	struct gt_irq_g g[GT_IRQ_DEPTH + 1];
	char name[GT_IRQ_DEPTH + 1][32];
	const struct gt_stat_irq *r;
	uint64_t entries = 0, bad = 0, ts = 100;
	size_t n = GT_IRQ_DEPTH;

	for (size_t i = 0; i <= n; i++) {
		g[i] = GT_IRQ_G_INIT;
		snprintf(name[i], sizeof(name[i]), "[irq %zu] dev%zu", i, i);
	}
	gt_irq_cpu(&q, 3);
	/* i interrupts i - 1 (all of them nested), then they unwind. */
	for (size_t i = 0; i <= n; i++) {
		gt_irq_start(&q, &g[i], name[i], 3, ts++);
		gt_irq_stop(&q, &g[i], 1);
	}
	for (size_t i = n; i-- > 0;) {
		gt_irq_start(&q, &g[i], name[i], 3, ts++);
		gt_irq_stop(&q, &g[i], 1);
	}
	for (size_t i = 0; i < q.nrows; i++) {
		entries += q.rows[i].count;
		bad += q.rows[i].count != 1;
	}
	ok(entries == n + 1 && !bad,
	   "%zu nested interrupts: an entry each, their resumes none "
	   "(%llu entries)", n + 1, (unsigned long long)entries);

	/* IRQ 0 interrupted by IRQ 1; the P stops before IRQ 0 resumes. */
	gt_irq_start(&q, &g[0], name[0], 3, ts++);
	gt_irq_stop(&q, &g[0], 1);
	gt_irq_start(&q, &g[1], name[1], 3, ts++);
	gt_irq_stop(&q, &g[1], 1);
	gt_irq_proc(&q, 3, ts);
	gt_irq_proc(&q, 3, ts);
	gt_irq_start(&q, &g[0], name[0], 3, ts);
	gt_irq_stop(&q, &g[0], 4);
	gt_irq_sort(&q);
	r = NULL;
	for (size_t i = 0; i < q.nrows; i++)
		if (q.rows[i].irq == 0)
			r = &q.rows[i];
	ok(r && r->count == 3 && r->max == 4,
	   "after the P stopped, the interrupted one starts anew: an entry");
	gt_irq_free(&q);
}

/*
 * A goroutine in a syscall keeps its run open (Go's reader counts it
 * running) while its CPU runs others: the CPU is charged its time until
 * another goroutine starts there, or the P is taken or stops, not twice.
 */
static void test_cut(void)
{
	struct gt_stat_irqs q = { 0 };
	struct gt_irq_g t = GT_IRQ_G_INIT, u = GT_IRQ_G_INIT,
			v = GT_IRQ_G_INIT, h = GT_IRQ_G_INIT;
	const struct gt_stat_cpu *c;

	/* t from 100, in a syscall; u runs 110..115; t "stops" at 130. */
	gt_irq_start(&q, &t, "bash", 0, 100);
	gt_irq_start(&q, &u, "cat", 0, 110);
	gt_irq_stop(&q, &u, 5);
	gt_irq_stop(&q, &t, 30);
	/* v from 200, its P taken at 220 (ProcSteal), v ends at 250. */
	gt_irq_start(&q, &v, "sleepy", 0, 200);
	gt_irq_proc(&q, 0, 220);
	gt_irq_stop(&q, &v, 50);
	/* An IRQ handler's run, then the task it interrupted: no cut. */
	gt_irq_start(&q, &h, "[irq 9] acpi", 0, 300);
	gt_irq_stop(&q, &h, 7);
	c = gt_irq_cpu_row(&q, 0);
	ok(c && c->busy[GT_IRQ_TASK] == 10 + 5 + 20 &&
	   c->busy[GT_IRQ_HARD] == 7 && q.srcs[0].time == 7,
	   "a run the CPU gave to another goroutine ends there (task %llu ns,"
	   " IRQ %llu)", c ? (unsigned long long)c->busy[GT_IRQ_TASK] : 0ULL,
	   c ? (unsigned long long)c->busy[GT_IRQ_HARD] : 0ULL);
	gt_irq_free(&q);
}

int main(void)
{
	test_classify();
	test_nesting();
	test_cut();
	test111(true);
	test111(false);
	test123(true);
	test123(false);
	return tap_done();
}
