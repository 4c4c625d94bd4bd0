// SPDX-License-Identifier: GPL-2.0
/*
 * gen-trace-go123.c - synthetic generational traces written with the
 * module's encoder (model/go123_encode.c), for Go's own readers to judge.
 *
 *   gen-trace-go123 KIND FILE
 *
 * A small scheduler is simulated step by step: three Ms, each with its
 * own P (the third stops its P when it has nothing to run and starts it
 * again later), goroutines created by a main goroutine, started from a
 * shared run queue, blocked with reason strings, unblocked by others,
 * preempted, in short syscalls, destroyed.  Every generation restates the
 * status of every P and live goroutine, as Go's runtime does, so that
 * the sequence numbers start again in each one.
 *
 * KIND: small (go 1.23, 3 generations), busy (go 1.23, 8 generations
 * whose M batches overflow 64 KiB and are split), faint (busy, and one
 * goroutine unblocked by main.faint that waits 1.2 ms for a CPU: a
 * function of the sched profile at about 0.4% of it, which pprof's
 * display drops by default), v126 (go 1.26: sync batch with clock
 * snapshot and end-of-generation bytes), stuck (small with 4
 * generations, and one goroutine unblocked in the first that never runs:
 * what a dead task left runnable on a CPU looks like), units (small,
 * and its goroutines in systemd units as gotrace writes them: a user
 * region named after the unit, begun when a goroutine first runs in it
 * and ended when it next runs after moving to another; main is in
 * a.service from before the trace, its region's begin unseen, and moves
 * to b.scope in the second generation; a third of the goroutines are in
 * no unit; some block for the reason "network"; its Ms are numbered
 * down and two thirds of its steps are taken by all three Ms at the same
 * time, so that the order of equal times matters.  For gotrace pprof).
 *
 *   gen-trace-go123 ustack FILE BINARY OFFSET...
 *
 * ustack: small, whose syscall stack (syscall.read) holds user frames
 * as the recorders write them before they are named
 * (Documentation/user-stacks.rst): a kernel frame, then one
 * "<basename>+0x<OFFSET>" frame of BINARY per OFFSET (innermost first,
 * at most 8), an address in no file, a walk cut short, then the
 * synthetic syscall and task frames.  For gotrace symbolize's test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>

#include "go123_encode.h"

#define NM		3
#define MAX_G		4096
#define STEP		1000	/* ticks (ns) between simulated steps */
#define MBUF		(GT_E123_BATCH_HDR_MAX + GT_E123_BATCH_DATA_MAX)

enum { S_NONE, S_RUNNABLE, S_RUNNING, S_WAITING, S_DEAD };

/* String ids of a generation (the tables are restated in each one). */
enum { STR_CHAN = 1, STR_SELECT, STR_MUTEX, STR_SLEEP, STR_PREEMPT,
       STR_MAIN, STR_WORKER, STR_READ, STR_FILE, STR_FAINT, NR_STR };
static const char *const strs[NR_STR] = {
	[STR_CHAN] = "chan receive", [STR_SELECT] = "select",
	[STR_MUTEX] = "sync.Mutex.Lock", [STR_SLEEP] = "sleep",
	[STR_PREEMPT] = "preempted", [STR_MAIN] = "main.main",
	[STR_WORKER] = "main.worker", [STR_READ] = "syscall.read",
	[STR_FILE] = "/src/main.go", [STR_FAINT] = "main.faint",
};

/*
 * Stack ids: 1 main.main, 2 main.worker (a start PC), 3 worker > read,
 * 4 main.faint.
 */
enum { STK_MAIN = 1, STK_WORKER, STK_READ, STK_FAINT };

/* The faint kind: the step of its unblock, and how long it stays parked. */
#define FAINT_STEP	1000
#define FAINT_WAIT	1200
/* The stuck kind: the step of the first generation that parks one. */
#define STUCK_STEP	200

struct g {
	int state;
	u64 seq;
	int unit;		/* the units kind: U_NONE, U_A or U_B */
	int region;		/* the unit of its open region */
};

/* The units kind: the units, their strings and their user tasks. */
enum { U_NONE, U_A, U_B, NR_UNITS };
enum { STR_UNIT_A = NR_STR, STR_UNIT_B, STR_NET, NR_STR_UNITS };
static const char *const unit_strs[] = {
	[STR_UNIT_A - NR_STR] = "a.service", [STR_UNIT_B - NR_STR] = "b.scope",
	[STR_NET - NR_STR] = "network",
};
static const u64 unit_str[NR_UNITS] = { 0, STR_UNIT_A, STR_UNIT_B };
static bool units, unit_task_begun[NR_UNITS];

struct m {
	u64 id;
	u64 p;
	bool has_p;
	u64 pseq;
	int g;			/* running goroutine, 0 if none */
	struct gt_enc123 e;
	u8 *buf;
};

static struct g gs[MAX_G];
static int ng = 1;		/* goroutine ids 1..ng-1 exist */
static int runq[MAX_G], rq_head, rq_len;
static struct m ms[NM];
static unsigned int version;
static u64 gen, now = 1000000;
static u64 rng = 0x9e3779b97f4a7c15ULL;
static FILE *out;
static unsigned long nevents, nbatches;
/*
 * The faint kind's goroutine, runnable but kept off the run queue; once
 * it runs, it blocks (with a stack: Go 1.23 ends its wait for a CPU at
 * the goroutine's next transition that carries one).
 */
static int parked, faint_g;
static unsigned int park_left;
/* The ustack kind: the binary and the offsets of its user frames. */
#define MAX_UFRAMES	8
static const char *ubin;
static u64 uoffs[MAX_UFRAMES];
static unsigned int nuoffs;

static void die(const char *what)
{
	fprintf(stderr, "gen-trace-go123: %s\n", what);
	exit(1);
}

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng % n);
}

static void put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, out) != n)
		die("write failed");
}

static void flush_m(struct m *m)
{
	if (gt_enc123_batch_end(&m->e)) {
		put(m->e.buf, m->e.len);
		nbatches++;
	}
	gt_enc123_init(&m->e, m->buf, MBUF);
}

/* One event of M @m; a full batch is written out and a new one opened. */
static void ev(struct m *m, unsigned int type, const u64 *a, unsigned int n)
{
	if (!gt_enc123_event(&m->e, type, now, a, n)) {
		u64 base = m->e.last_ts;

		flush_m(m);
		if (!gt_enc123_batch(&m->e, gen, m->id, base) ||
		    !gt_enc123_event(&m->e, type, now, a, n))
			die("an event does not fit an empty batch");
	}
	nevents++;
}

#define EV(m, type, ...) do {						\
	const u64 a_[] = { 0, ##__VA_ARGS__ };				\
	ev(m, type, a_ + 1, sizeof(a_) / sizeof(a_[0]) - 1);		\
} while (0)

static void enqueue(int g)
{
	runq[(rq_head + rq_len++) % MAX_G] = g;
	gs[g].state = S_RUNNABLE;
}

static int dequeue(void)
{
	int g;

	if (!rq_len)
		return 0;
	g = runq[rq_head];
	rq_head = (rq_head + 1) % MAX_G;
	rq_len--;
	return g;
}

/* Open the generation: batches, then the statuses Go's runtime restates. */
static void gen_begin(void)
{
	gen++;
	for (int i = 0; i < NM; i++) {
		struct m *m = &ms[i];

		gt_enc123_init(&m->e, m->buf, MBUF);
		if (!gt_enc123_batch(&m->e, gen, m->id, now))
			die("batch header");
		m->pseq = 0;
		if (m->has_p)
			EV(m, GT_E123_PROC_STATUS, m->p, GT_E123_P_RUNNING);
		else
			EV(&ms[0], GT_E123_PROC_STATUS, m->p, GT_E123_P_IDLE);
		if (m->g)
			EV(m, GT_E123_GO_STATUS, m->g, m->id, GT_E123_G_RUNNING);
	}
	for (int g = 1; g < ng; g++) {
		gs[g].seq = 0;
		if (gs[g].state == S_RUNNABLE)
			EV(&ms[0], GT_E123_GO_STATUS, g, GT_E123_NO_M,
			   GT_E123_G_RUNNABLE);
		else if (gs[g].state == S_WAITING)
			EV(&ms[0], GT_E123_GO_STATUS, g, GT_E123_NO_M,
			   GT_E123_G_WAITING);
	}
}

/*
 * The ustack kind's syscall stack: a kernel frame, the user frames, then
 * the frames a recorder adds after them; its strings from id NR_STR on.
 */
static void ustack(struct gt_enc123 *e, const struct gt_frame *f_read)
{
	enum { S_KERN = NR_STR, S_BIN, S_UNKNOWN, S_TRUNC, S_UFUNC };
	const char *base = strrchr(ubin, '/') ? strrchr(ubin, '/') + 1 : ubin;
	struct gt_frame f[MAX_UFRAMES + 5];
	unsigned int n = 0;
	char name[256];

	f[n++] = (struct gt_frame){ 0xffffffff81a00010ULL, S_KERN, 0, 0 };
	for (unsigned int i = 0; i < nuoffs; i++)
		f[n++] = (struct gt_frame){ 0x555555554000ULL + uoffs[i],
					    S_UFUNC + i, S_BIN, 0 };
	f[n++] = (struct gt_frame){ 0x7ffd1000, S_UNKNOWN, 0, 0 };
	f[n++] = (struct gt_frame){ 0, S_TRUNC, 0, 0 };
	f[n++] = f_read[0];
	f[n++] = f_read[1];
	if (!gt_enc123_strings(e, gen) ||
	    !gt_enc123_string(e, S_KERN, "entry_SYSCALL_64", 16) ||
	    !gt_enc123_string(e, S_BIN, ubin, strlen(ubin)) ||
	    !gt_enc123_string(e, S_UNKNOWN, "[unknown]+0x7ffd1000", 20) ||
	    !gt_enc123_string(e, S_TRUNC, "[user stack truncated: depth limit]",
			    35))
		die("ustack strings");
	for (unsigned int i = 0; i < nuoffs; i++) {
		snprintf(name, sizeof(name), "%s+0x%llx", base,
			 (unsigned long long)uoffs[i]);
		if (!gt_enc123_string(e, S_UFUNC + i, name, strlen(name)))
			die("ustack strings");
	}
	gt_enc123_batch_end(e);
	if (!gt_enc123_stacks(e, gen) || !gt_enc123_stack(e, STK_READ, f, n))
		die("ustack stack");
	gt_enc123_batch_end(e);
}

static void tables(void)
{
	static u8 buf[MBUF];
	const struct gt_frame f_main = { 0x401000, STR_MAIN, STR_FILE, 10 };
	const struct gt_frame f_worker = { 0x402000, STR_WORKER, STR_FILE, 20 };
	const struct gt_frame f_read[2] = {
		{ 0x403000, STR_READ, STR_FILE, 30 }, f_worker,
	};
	const struct gt_frame f_faint = { 0x404000, STR_FAINT, STR_FILE, 40 };
	struct gt_enc123 e;

	gt_enc123_init(&e, buf, sizeof(buf));
	if (!gt_enc123_strings(&e, gen))
		die("string batch");
	for (int i = 1; i < NR_STR; i++)
		if (!gt_enc123_string(&e, i, strs[i], strlen(strs[i])))
			die("string");
	for (int i = NR_STR; units && i < NR_STR_UNITS; i++)
		if (!gt_enc123_string(&e, i, unit_strs[i - NR_STR],
				    strlen(unit_strs[i - NR_STR])))
			die("string");
	gt_enc123_batch_end(&e);
	if (!gt_enc123_stacks(&e, gen) ||
	    !gt_enc123_stack(&e, STK_MAIN, &f_main, 1) ||
	    !gt_enc123_stack(&e, STK_WORKER, &f_worker, 1) ||
	    (!ubin && !gt_enc123_stack(&e, STK_READ, f_read, 2)) ||
	    !gt_enc123_stack(&e, STK_FAINT, &f_faint, 1))
		die("stacks");
	gt_enc123_batch_end(&e);
	if (ubin)
		ustack(&e, f_read);
	put(e.buf, e.len);
	nbatches += ubin ? 4 : 2;
}

static void gen_end(void)
{
	struct gt_e2_clock clock = {
		.ts = now, .mono = now, .sec = 1700000000 + now / 1000000000,
		.nsec = now % 1000000000,
	};
	static u8 buf[64];
	struct gt_enc123 e;

	for (int i = 0; i < NM; i++)
		flush_m(&ms[i]);
	tables();
	gt_enc123_init(&e, buf, sizeof(buf));
	if (!gt_enc123_sync(&e, version, gen, 1000000000, &clock) ||
	    !gt_enc123_end_of_generation(&e, version))
		die("sync batch");
	put(e.buf, e.len);
	nbatches++;
}

/* Unblock a waiting goroutine (from the first one at a random id). */
static bool unblock_one(struct m *m)
{
	int from = 1 + rnd(ng - 1);

	for (int k = 0; k < ng - 1; k++) {
		int w = 1 + (from - 1 + k) % (ng - 1);

		if (gs[w].state == S_WAITING) {
			EV(m, GT_E123_GO_UNBLOCK, w, ++gs[w].seq, STK_WORKER);
			enqueue(w);
			return true;
		}
	}
	return false;
}

/*
 * The faint kind: M @m unblocks a waiting goroutine with main.faint's
 * stack, and it stays runnable, off the run queue, for FAINT_WAIT steps.
 */
static void park_one(struct m *m)
{
	for (int w = 2; w < ng; w++) {
		if (gs[w].state == S_WAITING) {
			EV(m, GT_E123_GO_UNBLOCK, w, ++gs[w].seq, STK_FAINT);
			gs[w].state = S_RUNNABLE;
			parked = w;
			faint_g = w;
			park_left = FAINT_WAIT;
			return;
		}
	}
	die("no waiting goroutine to unblock as main.faint");
}

/*
 * The units kind: goroutine @g starts running on @m; as gotrace's
 * recorders do, its region follows its unit from then on (the user task
 * of a unit is begun with the unit's first region).
 */
static void unit_regions(struct m *m, int g)
{
	struct g *G = &gs[g];

	if (!units || G->region == G->unit)
		return;
	if (G->region != U_NONE)
		EV(m, GT_E123_USER_REGION_END, G->region,
		   unit_str[G->region], 0);
	if (G->unit != U_NONE) {
		if (!unit_task_begun[G->unit]) {
			EV(m, GT_E123_USER_TASK_BEGIN, G->unit, 0,
			   unit_str[G->unit], 0);
			unit_task_begun[G->unit] = true;
		}
		EV(m, GT_E123_USER_REGION_BEGIN, G->unit, unit_str[G->unit],
		   0);
	}
	G->region = G->unit;
}

static void step_m(struct m *m)
{
	static const u64 reasons[] = { STR_CHAN, STR_SELECT, STR_MUTEX,
				       STR_SLEEP };
	int g = m->g;

	if (!m->has_p) {
		if (!rq_len)
			return;
		m->has_p = true;
		EV(m, GT_E123_PROC_START, m->p, ++m->pseq);
	}
	if (!g) {
		g = dequeue();
		if (!g && unblock_one(m))
			return;
		if (!g) {
			if (m == &ms[NM - 1]) {	/* the third M lets its P go */
				EV(m, GT_E123_PROC_STOP);
				m->has_p = false;
			}
			return;
		}
		EV(m, GT_E123_GO_START, g, ++gs[g].seq);
		gs[g].state = S_RUNNING;
		m->g = g;
		unit_regions(m, g);
		return;
	}
	if (g == faint_g && !parked) {
		faint_g = 0;
		EV(m, GT_E123_GO_BLOCK, STR_CHAN, STK_WORKER);
		gs[g].state = S_WAITING;
		m->g = 0;
		return;
	}
	switch (g == 1 ? 0 : rnd(8)) {
	case 0:		/* create (main does little else) */
		if (ng < MAX_G && rq_len < 8) {
			EV(m, GT_E123_GO_CREATE, ng, STK_MAIN, STK_WORKER);
			gs[ng].seq = 0;
			/* In its creator's unit, or another. */
			if (units)
				gs[ng].unit = rnd(2) ? gs[g].unit :
					      (int)rnd(NR_UNITS);
			enqueue(ng++);
			break;
		}
		/* fall through */
	case 1:		/* unblock someone */
		if (unblock_one(m))
			break;
		/* fall through */
	case 2:		/* block */
		EV(m, GT_E123_GO_BLOCK, units && !rnd(5) ? STR_NET :
		   reasons[rnd(4)], STK_WORKER);
		gs[g].state = S_WAITING;
		m->g = 0;
		break;
	case 3:		/* a short syscall */
		EV(m, GT_E123_GO_SYSCALL_BEGIN, ++m->pseq, STK_READ);
		now += STEP / 4;
		EV(m, GT_E123_GO_SYSCALL_END);
		break;
	case 4:		/* preempted */
		EV(m, GT_E123_GO_STOP, STR_PREEMPT, STK_WORKER);
		enqueue(g);
		m->g = 0;
		break;
	case 5:		/* ends, unless it is main */
		if (g != 1) {
			EV(m, GT_E123_GO_DESTROY);
			gs[g].state = S_DEAD;
			m->g = 0;
		}
		break;
	default:	/* runs on, or moves to another unit */
		if (units && !rnd(8))
			gs[g].unit = (gs[g].unit + 1) % NR_UNITS;
		break;
	}
}

int main(int argc, char **argv)
{
	unsigned int ngen, steps;
	bool faint = false, stuck = false;
	u8 hdr[GT_E123_HEADER_BYTES];
	struct gt_enc123 e;

	if (argc > 4 && !strcmp(argv[1], "ustack") &&
	    argc - 4 <= MAX_UFRAMES) {
		version = GT_E123_GO123, ngen = 3, steps = 300;
		ubin = argv[3];
		for (int i = 4; i < argc; i++)
			uoffs[nuoffs++] = strtoull(argv[i], NULL, 0);
	} else if (argc != 3) {
		die("usage: gen-trace-go123 small|busy|faint|v126|stuck|units FILE, "
		    "or ustack FILE BINARY OFFSET...");
	} else if (!strcmp(argv[1], "small")) {
		version = GT_E123_GO123, ngen = 3, steps = 300;
	} else if (!strcmp(argv[1], "busy")) {
		version = GT_E123_GO123, ngen = 8, steps = 40000;
	} else if (!strcmp(argv[1], "faint")) {
		version = GT_E123_GO123, ngen = 8, steps = 40000, faint = true;
	} else if (!strcmp(argv[1], "stuck")) {
		version = GT_E123_GO123, ngen = 4, steps = 300, stuck = true;
	} else if (!strcmp(argv[1], "v126")) {
		version = GT_E123_GO126, ngen = 3, steps = 300;
	} else if (!strcmp(argv[1], "units")) {
		version = GT_E123_GO123, ngen = 3, steps = 300, units = true;
	} else {
		die("unknown kind");
	}
	out = fopen(argv[2], "wb");
	if (!out)
		die("cannot create the file");
	gt_enc123_init(&e, hdr, sizeof(hdr));
	if (!gt_enc123_header(&e, version))
		die("header");
	put(hdr, sizeof(hdr));

	for (int i = 0; i < NM; i++) {
		/*
		 * The units kind numbers its Ms down, so that the file's order
		 * of Ms is not their numbers' (Go's reader takes equal times
		 * in the order it met the Ms).
		 */
		ms[i] = (struct m){ .id = units ? 103 - i : 101 + i, .p = i,
				    .has_p = true };
		ms[i].buf = malloc(MBUF);
		if (!ms[i].buf)
			die("out of memory");
	}
	/* main runs on the first M from the start. */
	gs[ng].state = S_RUNNING;
	gs[ng].unit = gs[ng].region = units ? U_A : U_NONE;
	ms[0].g = ng++;

	for (unsigned int k = 0; k < ngen; k++) {
		gen_begin();
		for (unsigned int s = 0; s < steps; s++) {
			now += STEP;
			if (units && k == 1 && s == 0)
				gs[1].unit = U_B;	/* main moves */
			if (faint && k == 1 && s == FAINT_STEP) {
				park_one(&ms[s % NM]);
			} else if (stuck && k == 0 && s == STUCK_STEP) {
				park_one(&ms[s % NM]);
				park_left = UINT_MAX;	/* never runs */
			} else if (parked && !--park_left) {
				enqueue(parked);
				parked = 0;
			}
			step_m(&ms[s % NM]);
			/*
			 * The units kind: the other Ms step at the same time,
			 * so that Go's reader orders events of equal times
			 * (and ones that must wait for another M's).
			 */
			if (units && rnd(3)) {
				step_m(&ms[(s + 1) % NM]);
				step_m(&ms[(s + 2) % NM]);
			}
		}
		now += STEP;
		gen_end();
	}
	for (int i = 0; i < NM; i++)
		free(ms[i].buf);
	if (fclose(out))
		die("write failed");
	fprintf(stderr, "gen-trace-go123 %s: %u generations, %lu batches, %lu events, %d goroutines\n",
		argv[1], ngen, nbatches, nevents, ng - 1);
	return 0;
}
