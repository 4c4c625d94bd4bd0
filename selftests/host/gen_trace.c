// SPDX-License-Identifier: GPL-2.0
/*
 * gen_trace.c - write synthetic Go execution traces with the module's
 * encoder only, for the checker of record to judge on the host
 *
 *   gen_trace KIND OUT     KIND: small, busy, limits, or double-start
 *                          (an invalid trace: a P starts a goroutine
 *                          while it runs another; the checker must say no)
 *
 * A tiny scheduler model drives it the way the module's model does:
 * several Ps, goroutines created, started, preempted, blocked for every
 * reason the module uses, unblocked from other Ps, in and out of blocking
 * syscalls, ended; at the end every running goroutine is preempted and
 * every P stopped, then the footer: strings, stacks, frequency.
 * Deterministic (fixed seed), so a failure reproduces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"

#define MAX_P		8
#define MAX_G		512
#define PBUF		(4 << 20)

enum gstate { G_NONE, G_RUNNABLE, G_RUNNING, G_WAITING, G_SYSWAIT, G_DEAD };

struct g {
	u64 id;
	u64 seq;
	enum gstate state;
	unsigned int comm;	/* index of its name */
};

struct p {
	struct gt_enc enc;
	u8 *buf;
	int cur;		/* index of the running goroutine, or -1 */
	int started;
};

static struct p ps[MAX_P];
static struct g gs[MAX_G];
static unsigned int nprocs, ngs, ncomms;
static u64 now = 1000;
static unsigned long long rnd = 0x9e3779b97f4a7c15ULL;

/* Stack ids: 1..ncomms name the goroutines; kernel-like stacks after. */
static unsigned int nstacks_kernel, frames_per_stack;
static int long_names, double_start;

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
	return now;
}

static void die(const char *what)
{
	fprintf(stderr, "gen_trace: %s\n", what);
	exit(1);
}

static void ev(unsigned int pi, unsigned int type, const u64 *a, unsigned int n)
{
	if (!gt_enc_event(&ps[pi].enc, type, tick(), a, n))
		die("P buffer full");
}

static void ev1(unsigned int pi, unsigned int type, u64 a)
{
	ev(pi, type, &a, 1);
}

/* A kernel-like stack for goroutine @gi: one of the shared ones. */
static u64 kstack(unsigned int gi)
{
	(void)gi;
	return ncomms + 1 + rand_below(nstacks_kernel);
}

static void g_create(unsigned int pi, unsigned int gi, u64 creator)
{
	u64 a[3] = { gs[gi].id, gs[gi].comm + 1, creator };

	ev(pi, GOTRACE_EV_GO_CREATE, a, 3);
	gs[gi].state = G_RUNNABLE;
	gs[gi].seq = 0;
}

static void g_start(unsigned int pi, unsigned int gi)
{
	u64 a[2] = { gs[gi].id, ++gs[gi].seq };

	if (!ps[pi].started) {
		ev1(pi, GOTRACE_EV_PROC_START, pi);
		ps[pi].started = 1;
	}
	ev(pi, GOTRACE_EV_GO_START, a, 2);
	gs[gi].state = G_RUNNING;
	ps[pi].cur = (int)gi;
}

static void g_wake(unsigned int pi, unsigned int gi)
{
	u64 a[3] = { gs[gi].id, ++gs[gi].seq, 0 };

	if (gs[gi].state == G_SYSWAIT) {
		ev(pi, GOTRACE_EV_GO_SYSEXIT, a, 3);
	} else {
		a[2] = kstack(gi);
		ev(pi, GOTRACE_EV_GO_UNBLOCK, a, 3);
	}
	gs[gi].state = G_RUNNABLE;
}

static int find(enum gstate st)
{
	unsigned int i, start = rand_below(ngs);

	for (i = 0; i < ngs; i++)
		if (gs[(start + i) % ngs].state == st)
			return (int)((start + i) % ngs);
	return -1;
}

static int new_goroutine(void)
{
	if (ngs == MAX_G)
		return -1;
	gs[ngs].id = 1000 + ngs;
	gs[ngs].comm = rand_below(ncomms);
	gs[ngs].state = G_NONE;
	return (int)ngs++;
}

/* One step of the running goroutine of P @pi. */
static void step_running(unsigned int pi)
{
	static const unsigned int blocks[] = {
		GOTRACE_EV_GO_BLOCK, GOTRACE_EV_GO_BLOCK_SYNC,
		GOTRACE_EV_GO_SLEEP, GOTRACE_EV_GO_BLOCK_RECV,
		GOTRACE_EV_GO_BLOCK_SEND, GOTRACE_EV_GO_BLOCK_NET,
		GOTRACE_EV_GO_BLOCK_SELECT,
	};
	unsigned int gi = (unsigned int)ps[pi].cur;
	int ng;

	switch (rand_below(10)) {
	case 0:
	case 1:
		ev1(pi, GOTRACE_EV_GO_PREEMPT, kstack(gi));
		gs[gi].state = G_RUNNABLE;
		break;
	case 2:
		ev1(pi, GOTRACE_EV_GO_SCHED, kstack(gi));
		gs[gi].state = G_RUNNABLE;
		break;
	case 3:
		ev1(pi, GOTRACE_EV_GO_SYSCALL, kstack(gi));
		return;			/* a syscall that did not block */
	case 4:
		ev1(pi, GOTRACE_EV_GO_SYSCALL, kstack(gi));
		/* The P is handed off: ProcStop must follow at once. */
		ev(pi, GOTRACE_EV_GO_SYSBLOCK, NULL, 0);
		ev(pi, GOTRACE_EV_PROC_STOP, NULL, 0);
		ps[pi].started = 0;
		gs[gi].state = G_SYSWAIT;
		break;
	case 5:
		ng = new_goroutine();
		if (ng >= 0)
			g_create(pi, (unsigned int)ng, kstack(gi));
		return;
	case 6:
		ev(pi, GOTRACE_EV_GO_END, NULL, 0);
		gs[gi].state = G_DEAD;
		break;
	default:
		ev1(pi, blocks[rand_below(sizeof(blocks) / sizeof(blocks[0]))],
		    kstack(gi));
		gs[gi].state = G_WAITING;
		break;
	}
	ps[pi].cur = -1;
}

static void step(void)
{
	unsigned int pi = rand_below(nprocs);
	int gi;

	if (rand_below(3) == 0) {
		gi = find(rand_below(2) ? G_WAITING : G_SYSWAIT);
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
	if (gi >= 0)
		g_start(pi, (unsigned int)gi);
}

static void put(FILE *f, const void *p, size_t n)
{
	if (fwrite(p, 1, n, f) != n)
		die("write failed");
}

/* Strings: 1..ncomms the names, then "[kernel]", then function names. */
static void footer(FILE *f)
{
	static u8 buf[PBUF];
	static char name[GT_STRING_MAX + 64];
	static struct gt_frame fr[300];
	struct gt_enc e;
	unsigned int i, j, kfile = ncomms + 1, func0 = ncomms + 2;
	unsigned int nfunc = 40;

	gt_enc_init(&e, buf, sizeof(buf));
	if (!gt_enc_batch(&e, 0, now + 1) || !gt_enc_frequency(&e, GOTRACE_FREQUENCY))
		die("footer");
	for (i = 0; i < ncomms; i++) {
		snprintf(name, sizeof(name), "gen_task_%u", i);
		gt_enc_string(&e, i + 1, name, (u32)strlen(name));
	}
	gt_enc_string(&e, kfile, "[kernel]", 8);
	for (i = 0; i < nfunc; i++) {
		if (long_names) {
			memset(name, 'f', sizeof(name) - 1);
			name[sizeof(name) - 1] = '\0';
			name[0] = (char)('a' + i % 26);
			snprintf(name + sizeof(name) - 8, 8, "_%u", i);
		} else {
			snprintf(name, sizeof(name), "kernel_function_%u", i);
		}
		if (!gt_enc_string(&e, func0 + i, name, (u32)strlen(name)))
			die("footer full");
	}
	/* Comm stacks: one frame each. */
	for (i = 0; i < ncomms; i++) {
		fr[0].pc = 0x10000000 + 16 * (i + 1);
		fr[0].func = i + 1;
		fr[0].file = kfile;
		fr[0].line = 0;
		gt_enc_stack(&e, i + 1, fr, 1);
	}
	/* Kernel-like stacks ending with a comm frame. */
	for (i = 0; i < nstacks_kernel; i++) {
		unsigned int comm = i % ncomms;

		for (j = 0; j + 1 < frames_per_stack; j++) {
			unsigned int fn = (i * 7 + j) % nfunc;

			fr[j].pc = 0x20000000 + 16 * (fn + 1);
			fr[j].func = func0 + fn;
			fr[j].file = kfile;
			fr[j].line = fn * 3;
		}
		fr[j].pc = 0x10000000 + 16 * (comm + 1);
		fr[j].func = comm + 1;
		fr[j].file = kfile;
		fr[j].line = 0;
		if (!gt_enc_stack(&e, ncomms + 1 + i, fr, frames_per_stack))
			die("footer full");
	}
	put(f, buf, e.len);
}

int main(int argc, char **argv)
{
	unsigned int i, steps, initial;
	FILE *f;

	if (argc != 3)
		die("usage: gen_trace small|busy|limits OUT");
	if (!strcmp(argv[1], "small")) {
		nprocs = 2, initial = 6, steps = 300, ncomms = 4;
		nstacks_kernel = 8, frames_per_stack = 4;
	} else if (!strcmp(argv[1], "busy")) {
		nprocs = 8, initial = 200, steps = 40000, ncomms = 30;
		nstacks_kernel = 120, frames_per_stack = 12;
	} else if (!strcmp(argv[1], "limits")) {
		nprocs = 3, initial = 20, steps = 2000, ncomms = 10;
		nstacks_kernel = 20, frames_per_stack = 200, long_names = 1;
	} else if (!strcmp(argv[1], "double-start")) {
		nprocs = 2, initial = 6, steps = 300, ncomms = 4;
		nstacks_kernel = 8, frames_per_stack = 4, double_start = 1;
	} else {
		die("unknown kind");
	}

	for (i = 0; i < nprocs; i++) {
		ps[i].buf = malloc(PBUF);
		if (!ps[i].buf)
			die("out of memory");
		gt_enc_init(&ps[i].enc, ps[i].buf, PBUF);
		ps[i].cur = -1;
	}
	/* P 0 starts first: Gomaxprocs, then every goroutine existing. */
	gt_enc_batch(&ps[0].enc, 0, now);
	{
		u64 a[2] = { nprocs, 0 };

		ev(0, GOTRACE_EV_GOMAXPROCS, a, 2);
	}
	for (i = 0; i < initial; i++) {
		int gi = new_goroutine();

		g_create(0, (unsigned int)gi, 0);
		if (i % 2) {
			ev1(0, GOTRACE_EV_GO_WAITING, gs[gi].id);
			gs[gi].seq = 1;
			gs[gi].state = G_WAITING;
		}
	}
	for (i = 1; i < nprocs; i++)
		gt_enc_batch(&ps[i].enc, i, tick());

	if (double_start) {
		g_start(0, 0);
		g_start(0, 2);
	}
	for (i = 0; i < steps; i++)
		step();

	/* Close: preempt what runs, stop every started P. */
	for (i = 0; i < nprocs; i++) {
		if (ps[i].cur >= 0) {
			ev1(i, GOTRACE_EV_GO_PREEMPT, gs[ps[i].cur].comm + 1);
			ps[i].cur = -1;
		}
		if (ps[i].started)
			ev(i, GOTRACE_EV_PROC_STOP, NULL, 0);
	}

	f = fopen(argv[2], "wb");
	if (!f)
		die("cannot create the output");
	put(f, GOTRACE_HEADER, GOTRACE_HEADER_LEN);
	for (i = 0; i < nprocs; i++)
		put(f, ps[i].buf, ps[i].enc.len);
	footer(f);
	if (fclose(f))
		die("write failed");
	for (i = 0; i < nprocs; i++)
		free(ps[i].buf);
	return 0;
}
