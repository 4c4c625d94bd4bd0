// SPDX-License-Identifier: GPL-2.0
/*
 * gen-trace-go111.c - write synthetic Go execution traces ("go 1.11 trace") with
 * the module's encoder (model/go111_encode.c) only, for the checker of record
 *
 *   gen-trace-go111 KIND OUT [EVENTS]
 *
 * EVENTS: go on until the trace has at least that many events (valid
 * kinds; goroutines that ended are then reused under new ids), e.g.
 * "gen-trace-go111 huge big.trace 50000000" for the streaming check of
 * bench/check.sh.  The file is written as it is generated.
 *
 * Valid kinds:
 *   small   3 Ps, a few goroutines, tiny chunks: many batches per P
 *   busy    8 Ps, hundreds of goroutines, 64 KiB chunks as the module
 *   limits  sparse P ids up to 63, goroutine ids with a generation in the
 *           high bits, a 2^53 ns clock with gaps of seconds, stacks of 200
 *           frames of ten-byte values (clamped by the encoder to
 *           GT_STACK_MAX_FRAMES, records just under the 2048-byte limit
 *           of Go 1.23), names longer than GT_STRING_MAX, labels
 *   huge    like busy, about 10 MB (for timing the checker)
 * Invalid kinds (the checker must reject them):
 *   cut           small, the file ends inside its last record
 *   zero-pad      small plus one zero byte (padding is "event type 0")
 *   double-start  a P starts a goroutine while it runs another
 *   sysexit-after-block   a plain block ended by GoSysExit: the parsers
 *           accept it, only the web UIs fail (1.21 "invalid state ...")
 *   unclosed      goroutines still running at the end: the parsers
 *           accept it, the 1.21 web UI crashes while splitting the trace
 *
 *   gen-trace-go111 ustack OUT BINARY OFFSET...
 *
 * ustack: small, whose kernel-like stacks hold user frames as the
 * recorders write them before they are named
 * (Documentation/user-stacks.rst): one "<basename>+0x<OFFSET>" frame of
 * BINARY per OFFSET (innermost first, at most 8) between the kernel
 * frames and the comm frame.  For gotrace symbolize's test.
 *
 * The generator plays a small scheduler, following the rules of
 * Documentation/trace-format.rst and Documentation/mapping.rst: one
 * global clock (so each P's events and each goroutine's chain are in
 * time order), Gomaxprocs first, GoCreate with a
 * one-frame comm stack, GoWaiting for some initial goroutines, ProcStart
 * per P, a per-goroutine seq (+1 at GoWaiting, GoStart*, GoUnblock,
 * GoSysExit), GoUnblock only of waiting goroutines (often from another P),
 * GoSysExit only after GoSysCall, GoSysBlock, ProcStop, ProcStart again
 * before the next GoStart, every running goroutine preempted and every P
 * stopped at the end, then the footer (P 0 batch: EvFrequency, strings,
 * stacks).  Each P writes chunks that start with EvBatch and are flushed to
 * the file when full (the encoder refuses a record that does not fit) or
 * at random, so batches of different Ps interleave in the file as the
 * module's do.  Deterministic (fixed seed).  Exits non-zero if the model
 * failed to produce every event kind it should (valid kinds).
 */
#define _POSIX_C_SOURCE 200809L	/* fileno(), ftruncate() */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "go111_encode.h"

#define MAX_P		64
#define MAX_G		40000
#define NFUNC		40
#define NLABEL		4

enum gstate { G_NONE, G_RUNNABLE, G_RUNNING, G_WAITING, G_SYSWAIT, G_DEAD };

struct g {
	u64 id;
	u64 seq;
	enum gstate state;
	unsigned int comm;
	int blocked_p;		/* P index where it blocked */
	u64 block_ts;		/* time of its GoSysBlock */
};

struct p {
	u64 id;
	struct gt_enc enc;
	u8 *buf;
	int cur;		/* index of the running goroutine, or -1 */
	int started;
	unsigned int batches;
};

/* Configuration of a kind. */
static unsigned int nprocs, initial, steps, ncomms, nk, frames, chunk;
static unsigned int pid_stride = 1;
static int limits, bad_double_start, bad_sysexit, bad_unclosed;
static size_t cut_bytes, pad_bytes;

static struct p ps[MAX_P];
static struct g gs[MAX_G];
static unsigned int ngs;
static u64 now = 1000;
static unsigned long long rnd = 0x9e3779b97f4a7c15ULL;
static unsigned long counts[GOTRACE_EV_COUNT];
static unsigned long events, cross_p_wakes, real_ts_exits;

/* The file being built. */
static FILE *out;
static size_t out_len;
static u64 next_id = 1000;	/* the next goroutine id */

/* String and stack ids (set up in setup_ids()). */
static u64 str_comm0, str_kernel, str_commfile, str_func0, str_irq, str_label0;
static u64 stk_comm0, stk_irq, stk_kernel0;

static unsigned long min_events;
/* The ustack kind: the binary and the offsets of its user frames. */
#define MAX_UFRAMES	8
static const char *ubin;
static u64 uoffs[MAX_UFRAMES];
static unsigned int nuoffs;

/* The goroutines in each state, for find() in long traces. */
static unsigned int members[G_DEAD + 1][MAX_G], nmembers[G_DEAD + 1];
static unsigned int member_at[MAX_G];
static unsigned char listed[MAX_G];

static void set_state(unsigned int gi, enum gstate st)
{
	if (listed[gi]) {
		enum gstate old = gs[gi].state;
		unsigned int last = members[old][--nmembers[old]];

		members[old][member_at[gi]] = last;
		member_at[last] = member_at[gi];
	}
	member_at[gi] = nmembers[st];
	members[st][nmembers[st]++] = gi;
	listed[gi] = 1;
	gs[gi].state = st;
}

static int find(enum gstate st);

static void die(const char *what)
{
	fprintf(stderr, "gen-trace-go111: %s\n", what);
	exit(1);
}

static unsigned int rand_below(unsigned int n)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 7;
	rnd ^= rnd << 17;
	return (unsigned int)(rnd % n);
}

static u64 tick(void)
{
	now += 1 + rand_below(5000);
	/* Gaps of up to 10 s: deltas of five bytes. */
	if (limits && rand_below(50) == 0)
		now += 1000000000ULL * (1 + rand_below(10));
	return now;
}

static void out_put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, out) != n)
		die("write failed");
	out_len += n;
}

/* Hand P @pi's chunk to the "reader": it goes to the file as is. */
static void flush(unsigned int pi)
{
	if (!ps[pi].enc.len)
		return;
	out_put(ps[pi].buf, ps[pi].enc.len);
	gt_enc_init(&ps[pi].enc, ps[pi].buf, chunk);
}

/* Append one event on P @pi at the next clock tick, as the module does. */
static void emit(unsigned int pi, unsigned int type, const u64 *a, unsigned int n)
{
	struct p *p = &ps[pi];
	u64 ts = tick();

	if (p->enc.len && gt_enc_event(&p->enc, type, ts, a, n))
		goto done;
	/* Empty or full chunk: a new batch starts with this event. */
	flush(pi);
	if (!gt_enc_batch(&p->enc, p->id, ts) ||
	    !gt_enc_event(&p->enc, type, ts, a, n))
		die("an event does not fit an empty chunk");
	p->batches++;
done:
	counts[type]++;
	events++;
	/* The reader sometimes takes a chunk before it is full. */
	if (rand_below(200) == 0)
		flush(pi);
}

static void emit0(unsigned int pi, unsigned int type)
{
	emit(pi, type, NULL, 0);
}

static void emit1(unsigned int pi, unsigned int type, u64 a)
{
	emit(pi, type, &a, 1);
}

/* A kernel-like stack of goroutine @gi: kernel frames, its comm frame last. */
static u64 kstack(unsigned int gi)
{
	return stk_kernel0 + (u64)gs[gi].comm * nk + rand_below(nk);
}

static u64 comm_stack(unsigned int gi)
{
	return stk_comm0 + gs[gi].comm;
}

static int new_goroutine(void)
{
	unsigned int i = ngs;
	int dead;

	if (ngs == MAX_G) {
		/* Long traces: a goroutine that ended comes back as a new one. */
		dead = min_events ? find(G_DEAD) : -1;
		if (dead < 0)
			return -1;
		i = (unsigned int)dead;
	} else {
		ngs++;
	}
	/* Linux tids; in limits, reused tids with their generation on top. */
	gs[i].id = next_id++;
	if (limits)
		gs[i].id |= (u64)(1 + rand_below(100000)) << 32;
	gs[i].comm = rand_below(ncomms);
	set_state(i, G_NONE);
	gs[i].seq = 0;
	gs[i].blocked_p = -1;
	return (int)i;
}

/* GoCreate on P @pi, by whatever runs there (or nobody). */
static void g_create(unsigned int pi, unsigned int gi, u64 creator)
{
	u64 a[3] = { gs[gi].id, comm_stack(gi), creator };

	emit(pi, GOTRACE_EV_GO_CREATE, a, 3);
	set_state((unsigned int)gi, G_RUNNABLE);
	gs[gi].seq = 0;
}

static void p_start(unsigned int pi)
{
	emit1(pi, GOTRACE_EV_PROC_START, ps[pi].id);	/* thread id = CPU */
	ps[pi].started = 1;
}

static void g_start(unsigned int pi, unsigned int gi)
{
	u64 a[3] = { gs[gi].id, ++gs[gi].seq, 0 };

	if (!ps[pi].started)
		p_start(pi);
	if (rand_below(8) == 0) {
		a[2] = str_label0 + rand_below(NLABEL);
		emit(pi, GOTRACE_EV_GO_START_LABEL, a, 3);
	} else {
		emit(pi, GOTRACE_EV_GO_START, a, 2);
	}
	set_state((unsigned int)gi, G_RUNNING);
	ps[pi].cur = (int)gi;
}

/* Wake @gi on P @pi: GoUnblock after a block, GoSysExit after a syscall. */
static void g_wake(unsigned int pi, unsigned int gi)
{
	u64 a[3] = { gs[gi].id, ++gs[gi].seq, 0 };

	if (gs[gi].blocked_p >= 0 && gs[gi].blocked_p != (int)pi)
		cross_p_wakes++;
	if (gs[gi].state == G_SYSWAIT) {
		/* Sometimes the real exit time, between block and now. */
		if (rand_below(3) == 0) {
			a[2] = gs[gi].block_ts + (now - gs[gi].block_ts) / 2;
			if (a[2] <= gs[gi].block_ts)
				a[2] = 0;
			else
				real_ts_exits++;
		}
		emit(pi, GOTRACE_EV_GO_SYSEXIT, a, 3);
	} else {
		/* The waker's stack, an interrupt's, or none. */
		if (ps[pi].cur >= 0)
			a[2] = kstack((unsigned int)ps[pi].cur);
		else
			a[2] = rand_below(2) ? stk_irq : 0;
		emit(pi, GOTRACE_EV_GO_UNBLOCK, a, 3);
	}
	set_state((unsigned int)gi, G_RUNNABLE);
}

static int find(enum gstate st)
{
	unsigned int i, start;

	/* Long traces: a random member, in constant time. */
	if (min_events)
		return nmembers[st] ? (int)members[st][rand_below(nmembers[st])] : -1;
	if (!ngs)
		return -1;
	start = rand_below(ngs);
	for (i = 0; i < ngs; i++)
		if (gs[(start + i) % ngs].state == st)
			return (int)((start + i) % ngs);
	return -1;
}

/* One step of the goroutine running on P @pi. */
static void step_running(unsigned int pi)
{
	static const unsigned int blocks[] = {
		GOTRACE_EV_GO_BLOCK, GOTRACE_EV_GO_BLOCK_SYNC,
		GOTRACE_EV_GO_SLEEP, GOTRACE_EV_GO_BLOCK_RECV,
		GOTRACE_EV_GO_BLOCK_SEND, GOTRACE_EV_GO_BLOCK_NET,
		GOTRACE_EV_GO_BLOCK_SELECT, GOTRACE_EV_GO_BLOCK_COND,
	};
	unsigned int gi = (unsigned int)ps[pi].cur;
	int ng;

	switch (rand_below(12)) {
	case 0:
	case 1:
		emit1(pi, GOTRACE_EV_GO_PREEMPT, kstack(gi));
		set_state((unsigned int)gi, G_RUNNABLE);
		break;
	case 2:
		emit1(pi, GOTRACE_EV_GO_SCHED, kstack(gi));
		set_state((unsigned int)gi, G_RUNNABLE);
		break;
	case 3:
		emit1(pi, GOTRACE_EV_GO_SYSCALL, kstack(gi));
		return;			/* a syscall that did not block */
	case 4:
	case 5:
		/* Blocks: GoSysCall right before GoSysBlock, the P handed off. */
		emit1(pi, GOTRACE_EV_GO_SYSCALL, kstack(gi));
		emit0(pi, GOTRACE_EV_GO_SYSBLOCK);
		gs[gi].block_ts = now;
		emit0(pi, GOTRACE_EV_PROC_STOP);
		ps[pi].started = 0;
		set_state((unsigned int)gi, G_SYSWAIT);
		gs[gi].blocked_p = (int)pi;
		break;
	case 6:
		ng = new_goroutine();
		if (ng >= 0)
			g_create(pi, (unsigned int)ng, kstack(gi));
		return;
	case 7:
		if (rand_below(2))
			return;		/* keep the population up */
		emit0(pi, GOTRACE_EV_GO_END);
		set_state((unsigned int)gi, G_DEAD);
		break;
	default:
		emit1(pi, blocks[rand_below(sizeof(blocks) / sizeof(blocks[0]))],
		      kstack(gi));
		set_state((unsigned int)gi, G_WAITING);
		gs[gi].blocked_p = (int)pi;
		break;
	}
	ps[pi].cur = -1;
}

static void step(void)
{
	unsigned int pi = rand_below(nprocs);
	int gi;

	if (rand_below(4) == 0) {
		gi = find(rand_below(3) ? G_WAITING : G_SYSWAIT);
		if (gi >= 0) {
			g_wake(pi, (unsigned int)gi);
			return;
		}
	}
	if (ps[pi].cur >= 0) {
		step_running(pi);
		return;
	}
	gi = find(G_RUNNABLE);
	if (gi >= 0) {
		g_start(pi, (unsigned int)gi);
	} else if (ps[pi].started && rand_below(4) == 0) {
		emit0(pi, GOTRACE_EV_PROC_STOP);	/* idle */
		ps[pi].started = 0;
	}
}

static void setup_ids(void)
{
	/* In limits, string ids of ten LEB128 bytes, stack ids of five. */
	u64 sbase = limits ? 1ULL << 63 : 1;
	u64 kbase = limits ? 0xf0000000ULL : 1;

	str_comm0 = sbase;
	str_kernel = str_comm0 + ncomms;
	str_commfile = str_kernel + 1;
	str_irq = str_commfile + 1;
	str_label0 = str_irq + 1;
	str_func0 = str_label0 + NLABEL;
	stk_comm0 = kbase;
	stk_irq = stk_comm0 + ncomms;
	stk_kernel0 = stk_irq + 1;
}

/* A footer record that did not fit: flush, and a new P 0 batch. */
static void footer_put(struct gt_enc *e, u8 *buf, u32 cap, int ok_first,
		       int (*retry)(struct gt_enc *, const void *), const void *arg)
{
	if (ok_first)
		return;
	out_put(buf, e->len);
	gt_enc_init(e, buf, cap);
	if (!gt_enc_batch(e, 0, now + 1) || !retry(e, arg))
		die("a footer record does not fit an empty chunk");
}

struct str_arg { u64 id; const char *s; u32 len; };
struct stk_arg { u64 id; const struct gt_frame *f; unsigned int n; };

static int put_str(struct gt_enc *e, const void *p)
{
	const struct str_arg *a = p;

	return gt_enc_string(e, a->id, a->s, a->len);
}

static unsigned int max_stack_values;	/* value bytes of the largest */

static int put_stk(struct gt_enc *e, const void *p)
{
	const struct stk_arg *a = p;
	u32 before = e->len, size, vlen;

	if (!gt_enc_stack(e, a->id, a->f, a->n))
		return 0;
	size = e->len - before - 1;	/* length prefix and values */
	vlen = size - (size >= 130 ? 2 : 1);
	if (vlen > GT_STACK_MAX_VALUE_BYTES)
		die("a stack record over GT_STACK_MAX_VALUE_BYTES");
	if (vlen > max_stack_values)
		max_stack_values = vlen;
	return 1;
}

static void footer_string(struct gt_enc *e, u8 *buf, u64 id, const char *s)
{
	struct str_arg a = { id, s, (u32)strlen(s) };

	footer_put(e, buf, chunk, put_str(e, &a), put_str, &a);
}

static void footer_stack(struct gt_enc *e, u8 *buf, u64 id,
			 const struct gt_frame *f, unsigned int n)
{
	struct stk_arg a = { id, f, n };

	footer_put(e, buf, chunk, put_stk(e, &a), put_stk, &a);
}

static struct gt_frame comm_frame(unsigned int comm)
{
	struct gt_frame f = {
		.pc = (limits ? 0xfffffffff0000000ULL : 0x10000000) + 16 * (comm + 1),
		.func = str_comm0 + comm,
		.file = str_commfile,
		.line = 0,
	};

	return f;
}

/* Footer: a P 0 batch (more if it fills), frequency, strings, stacks. */
static void footer(void)
{
	static const char *labels[NLABEL] = {
		"exec", "comm [1234]", "kworker/u16:3 [77]",
		"a label of some length that names the slice",
	};
	static char name[3 * GT_STRING_MAX];
	static struct gt_frame fr[256];
	u8 *buf = malloc(chunk);
	struct gt_enc e;
	unsigned int i, j;

	if (!buf)
		die("out of memory");
	gt_enc_init(&e, buf, chunk);
	if (!gt_enc_batch(&e, 0, now + 1) ||
	    !gt_enc_frequency(&e, GOTRACE_FREQUENCY))
		die("footer");
	for (i = 0; i < ncomms; i++) {
		/* Comms are at most 15 bytes (TASK_COMM_LEN - 1). */
		snprintf(name, sizeof(name), limits ? "gen-task-%06u" : "task%u", i);
		footer_string(&e, buf, str_comm0 + i, name);
	}
	footer_string(&e, buf, str_kernel, "[kernel]");
	footer_string(&e, buf, str_commfile, "[comm]");
	footer_string(&e, buf, str_irq, "hrtimer_wakeup");
	for (i = 0; i < NLABEL; i++)
		footer_string(&e, buf, str_label0 + i, labels[i]);
	for (i = 0; i < NFUNC; i++) {
		if (limits && i % 2 == 0) {
			/* Longer than GT_STRING_MAX: the encoder keeps the
			 * tail, which still tells the functions apart.
			 */
			size_t len = GT_STRING_MAX + (i % 4 ? 0 : 1000);

			memset(name, 'a' + i % 26, len);
			snprintf(name + len - 12, 12, "_fn_%07u", i);
		} else if (limits) {
			/* Exactly GT_STRING_MAX bytes. */
			memset(name, 'b', GT_STRING_MAX);
			snprintf(name + GT_STRING_MAX - 12, 12, "_fn_%07u", i);
		} else {
			snprintf(name, sizeof(name), "kernel_function_%u", i);
		}
		footer_string(&e, buf, str_func0 + i, name);
	}
	/* Comm stacks (GoCreate's new stacks): one frame. */
	for (i = 0; i < ncomms; i++) {
		fr[0] = comm_frame(i);
		footer_stack(&e, buf, stk_comm0 + i, fr, 1);
	}
	/* The interrupt's waker stack. */
	fr[0].pc = 0xffffffff81000000ULL;
	fr[0].func = str_irq;
	fr[0].file = str_kernel;
	fr[0].line = 0;
	footer_stack(&e, buf, stk_irq, fr, 1);
	/* Kernel-like stacks, nk per comm, the comm frame outermost. */
	for (i = 0; i < ncomms * nk; i++) {
		unsigned int comm = i / nk;

		for (j = 0; j + 1 < frames; j++) {
			unsigned int fn = (i * 7 + j) % NFUNC;

			/* A pc always names the same function and line. */
			fr[j].pc = 0xffffffff81000000ULL + 16 * (fn + 1);
			fr[j].func = str_func0 + fn;
			fr[j].file = str_kernel;
			fr[j].line = limits ? (1ULL << 63) + fn : fn * 3;
		}
		for (unsigned int k = 0; ubin && k < nuoffs; k++, j++)
			fr[j] = (struct gt_frame){ 0x555555554000ULL + uoffs[k],
						   str_func0 + NFUNC + 1 + k,
						   str_func0 + NFUNC, 0 };
		fr[j] = comm_frame(comm);
		footer_stack(&e, buf, stk_kernel0 + i, fr, j + 1);
	}
	/* The ustack kind's strings, after the last of the others. */
	if (ubin) {
		const char *base = strrchr(ubin, '/');

		footer_string(&e, buf, str_func0 + NFUNC, ubin);
		for (i = 0; i < nuoffs; i++) {
			snprintf(name, sizeof(name), "%s+0x%llx",
				 base ? base + 1 : ubin,
				 (unsigned long long)uoffs[i]);
			footer_string(&e, buf, str_func0 + NFUNC + 1 + i, name);
		}
	}
	out_put(buf, e.len);
	free(buf);
}

static void configure(const char *kind)
{
	const char *base = kind;

	if (!strcmp(kind, "cut") || !strcmp(kind, "zero-pad") ||
	    !strcmp(kind, "double-start") || !strcmp(kind, "unclosed") ||
	    !strcmp(kind, "sysexit-after-block"))
		base = "small";
	if (!strcmp(base, "small")) {
		nprocs = 3, initial = 8, steps = 600, ncomms = 5, nk = 2;
		frames = 4, chunk = 160;
	} else if (!strcmp(base, "busy")) {
		nprocs = 8, initial = 300, steps = 100000, ncomms = 30, nk = 4;
		frames = 12, chunk = 64 << 10;
	} else if (!strcmp(base, "huge")) {
		nprocs = 16, initial = 2000, steps = 1200000, ncomms = 60, nk = 4;
		frames = 12, chunk = 64 << 10;
	} else if (!strcmp(base, "limits")) {
		nprocs = 3, initial = 20, steps = 3000, ncomms = 10, nk = 2;
		frames = 200, chunk = 4096, pid_stride = 31, limits = 1;
	} else {
		die("unknown kind (small, busy, limits, huge; cut, zero-pad, "
		    "double-start, sysexit-after-block, unclosed)");
	}
	cut_bytes = !strcmp(kind, "cut") ? 3 : 0;
	pad_bytes = !strcmp(kind, "zero-pad") ? 1 : 0;
	bad_double_start = !strcmp(kind, "double-start");
	bad_sysexit = !strcmp(kind, "sysexit-after-block");
	bad_unclosed = !strcmp(kind, "unclosed");
}

/* Every kind of event the module writes must be in a valid trace. */
static void check_coverage(const char *kind)
{
	static const unsigned int need[] = {
		GOTRACE_EV_GOMAXPROCS, GOTRACE_EV_PROC_START,
		GOTRACE_EV_PROC_STOP, GOTRACE_EV_GO_CREATE,
		GOTRACE_EV_GO_START, GOTRACE_EV_GO_END, GOTRACE_EV_GO_SCHED,
		GOTRACE_EV_GO_PREEMPT, GOTRACE_EV_GO_SLEEP,
		GOTRACE_EV_GO_BLOCK, GOTRACE_EV_GO_UNBLOCK,
		GOTRACE_EV_GO_BLOCK_RECV, GOTRACE_EV_GO_BLOCK_SYNC,
		GOTRACE_EV_GO_BLOCK_NET, GOTRACE_EV_GO_SYSCALL,
		GOTRACE_EV_GO_SYSEXIT, GOTRACE_EV_GO_SYSBLOCK,
		GOTRACE_EV_GO_WAITING, GOTRACE_EV_GO_START_LABEL,
	};
	unsigned int i;

	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!counts[need[i]]) {
			fprintf(stderr, "gen-trace-go111 %s: no event of type %u\n",
				kind, need[i]);
			exit(1);
		}
	for (i = 0; i < nprocs; i++)
		if (ps[i].batches < 2) {
			fprintf(stderr, "gen-trace-go111 %s: P %llu has %u batch\n", kind,
				(unsigned long long)ps[i].id, ps[i].batches);
			exit(1);
		}
	if (!cross_p_wakes || !real_ts_exits)
		die("no wakeup from another P, or no GoSysExit with a real time");
}

int main(int argc, char **argv)
{
	unsigned int i, batches = 0;

	if (argc > 3 && !strcmp(argv[1], "ustack") &&
	    argc - 4 <= MAX_UFRAMES) {
		ubin = argv[3];
		for (int k = 4; k < argc; k++)
			uoffs[nuoffs++] = strtoull(argv[k], NULL, 0);
		configure("small");
	} else if (argc != 3 && argc != 4) {
		die("usage: gen-trace-go111 KIND OUT [EVENTS], or ustack OUT BINARY "
		    "OFFSET...");
	} else {
		configure(argv[1]);
	}
	if (argc == 4 && !ubin) {
		char *end;

		min_events = strtoul(argv[3], &end, 10);
		if (!*argv[3] || *end)
			die("EVENTS: a number");
	}
	out = fopen(argv[2], "wb");
	if (!out)
		die("cannot create the output");
	setup_ids();
	if (limits)
		now = 1ULL << 53;	/* 104 days of uptime in ns */

	for (i = 0; i < nprocs; i++) {
		ps[i].id = (u64)i * pid_stride;
		ps[i].buf = malloc(chunk);
		if (!ps[i].buf)
			die("out of memory");
		gt_enc_init(&ps[i].enc, ps[i].buf, chunk);
		ps[i].cur = -1;
	}
	out_put(GOTRACE_HEADER, GOTRACE_HEADER_LEN);

	/* Start: Gomaxprocs first, then the goroutines that exist. */
	{
		u64 a[2] = { ps[nprocs - 1].id + 1, 0 };

		emit(0, GOTRACE_EV_GOMAXPROCS, a, 2);
	}
	for (i = 0; i < initial; i++) {
		int gi = new_goroutine();

		g_create(0, (unsigned int)gi, 0);
		if (i % 2) {
			emit1(0, GOTRACE_EV_GO_WAITING, gs[gi].id);
			gs[gi].seq = 1;
			set_state((unsigned int)gi, G_WAITING);
		}
	}
	/* Each P starts, running one of them if it can. */
	for (i = 0; i < nprocs; i++) {
		p_start(i);
		if (i < initial / 2)
			g_start(i, 2 * i);
	}
	if (bad_double_start)
		g_start(1, (unsigned int)find(G_RUNNABLE));
	if (bad_sysexit) {
		/* A plain block ended as if it were a blocking syscall. */
		unsigned int gi = (unsigned int)ps[0].cur;
		u64 a[3] = { gs[gi].id, 0, 0 };

		emit1(0, GOTRACE_EV_GO_BLOCK, kstack(gi));
		ps[0].cur = -1;
		a[1] = ++gs[gi].seq;
		emit(1 % nprocs, GOTRACE_EV_GO_SYSEXIT, a, 3);
		set_state((unsigned int)gi, G_RUNNABLE);
	}

	for (i = 0; i < steps || events < min_events; i++)
		step();

	/* Stop: preempt what runs, stop every started P. */
	for (i = 0; i < nprocs; i++) {
		if (ps[i].cur < 0 && bad_unclosed) {
			int gi = find(G_RUNNABLE);

			if (gi >= 0)
				g_start(i, (unsigned int)gi);
		}
		if (ps[i].cur >= 0 && !bad_unclosed) {
			emit1(i, GOTRACE_EV_GO_PREEMPT, kstack((unsigned int)ps[i].cur));
			ps[i].cur = -1;
		}
		if (ps[i].started && ps[i].cur < 0)
			emit0(i, GOTRACE_EV_PROC_STOP);
	}
	for (i = nprocs; i-- > 0;) {
		flush(i);
		batches += ps[i].batches;
		free(ps[i].buf);
	}
	if (!cut_bytes && !pad_bytes && !bad_double_start && !bad_sysexit &&
	    !bad_unclosed)
		check_coverage(argv[1]);
	footer();

	while (pad_bytes--)
		out_put("", 1);
	if (fflush(out))
		die("write failed");
	if (cut_bytes) {
		out_len -= cut_bytes;	/* the last stack record is longer */
		if (ftruncate(fileno(out), (off_t)out_len))
			die("cannot cut the output");
	}
	if (fclose(out))
		die("write failed");
	printf("# gen-trace-go111 %s: %u Ps, %u goroutines, %lu events (%lu wakeups "
	       "from another P), %u batches, largest stack record %u value bytes, "
	       "%zu bytes\n", argv[1], nprocs, ngs, events, cross_p_wakes,
	       batches, max_stack_values, out_len);
	return 0;
}
