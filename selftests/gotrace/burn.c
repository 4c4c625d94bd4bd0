// SPDX-License-Identifier: GPL-2.0
/*
 * burn - the ground truth of the CPU-sample tests: spins for SECONDS on
 * one CPU, in burn_a for three quarters of its time and in burn_b for the
 * rest, then prints the iterations it ran in each, the CPU time it used
 * (what its CPU samples should add up to) and the CPU time it spent in
 * each function and in all, in ns.
 *
 * The two loops do the same work per iteration, and burn_a runs three
 * times as many iterations per round as burn_b: their shares of the CPU
 * time are 75% and 25% by construction, whatever the CPU's speed.  A
 * round lasts some milliseconds, much less than the test's duration,
 * and reads the monotonic clock once and the thread's twice: under
 * emulation without a usable TSC each read is a syscall, whose kernel
 * time is neither function's.
 *
 * Both shares are also measured, by the thread's CPU clock around each
 * call: samples fall where the task's time goes, and that time is not
 * always three to one.  Under QEMU's -icount with one host thread for
 * all vCPUs, the guest clock counts the instructions of every vCPU, so
 * a busy second CPU stretches whatever runs on this one, and interrupt
 * work on this CPU adds to the function it interrupts (Debian's kernels
 * charge it to the task).  The thread's clock, not the monotonic one:
 * time the task waits preempted takes none of its samples.  The tests
 * hold the samples to the measured shares, and the measured ones loosely
 * to the constructed 75/25.
 * The same instructions: a clock that counts instructions (QEMU's
 * -icount) sees the same time per iteration in both.  Their assembly
 * differs by a comment, and noipa keeps the compiler from folding them
 * into one function; frame pointers let the user stack walk reach main.
 *
 * usage: burn SECONDS [CPU]   (default CPU: the one it starts on)
 *
 *        burn entry SECONDS
 *
 * spins for SECONDS, named gt_spin_entry, in spin_at_entry(), whose
 * first instruction is a jump to itself: every sample of the spin stops
 * it at its function's first byte.  Such a PC is exact, not a return
 * address: named by the byte before it, it would be before_spin(), the
 * one-instruction function right before it.  Written in assembly, so
 * that no compiler puts a prologue, padding or alignment between the
 * two.  The spin ends when SIGALRM's handler moves the interrupted PC
 * past the jump, to the return after it.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>

/* Iterations of burn_b per round; burn_a runs three times as many. */
#define ROUND	1000000ULL

static volatile uint64_t sink;

__attribute__((noinline, noipa)) void burn_a(uint64_t n)
{
	uint64_t v = sink;

	for (uint64_t i = 0; i < n; i++) {
		v = v * 31 + i;
		__asm__ volatile("# burn_a" : "+r"(v));
	}
	sink = v;
}

__attribute__((noinline, noipa)) void burn_b(uint64_t n)
{
	uint64_t v = sink;

	for (uint64_t i = 0; i < n; i++) {
		v = v * 31 + i;
		__asm__ volatile("# burn_b" : "+r"(v));
	}
	sink = v;
}

/* Spin until a signal's handler ends it; before_spin() returns at once. */
void before_spin(void);
void spin_at_entry(void);

#if defined(__x86_64__)
__asm__(".text\n"
	".globl before_spin\n"
	".type before_spin, @function\n"
	"before_spin:\n"
	"	ret\n"
	".size before_spin, . - before_spin\n"
	".globl spin_at_entry\n"
	".type spin_at_entry, @function\n"
	"spin_at_entry:\n"
	"	jmp spin_at_entry\n"
	"	ret\n"
	".size spin_at_entry, . - spin_at_entry\n");
#define SPIN_JUMP_LEN	2
#define uc_pc(uc)	((uc)->uc_mcontext.gregs[REG_RIP])
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl before_spin\n"
	".type before_spin, %function\n"
	"before_spin:\n"
	"	ret\n"
	".size before_spin, . - before_spin\n"
	".globl spin_at_entry\n"
	".type spin_at_entry, %function\n"
	"spin_at_entry:\n"
	"	b spin_at_entry\n"
	"	ret\n"
	".size spin_at_entry, . - spin_at_entry\n");
#define SPIN_JUMP_LEN	4
#define uc_pc(uc)	((uc)->uc_mcontext.pc)
#else
#error "burn.c: spin_at_entry() for x86-64 and arm64 only"
#endif

/*
 * SIGALRM, every 10 ms from SECONDS on: where it stopped the spin, the
 * spin returns.  (Anywhere else, as before the spin began, the next one
 * tries again.)
 */
static void entry_alarm(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	if ((uintptr_t)uc_pc(uc) == (uintptr_t)spin_at_entry)
		uc_pc(uc) += SPIN_JUMP_LEN;
}

/* burn entry SECONDS: see the top of the file. */
static int spin_entry(const char *seconds)
{
	double s = atof(seconds);
	struct itimerval it = {
		.it_value.tv_sec = (time_t)s,
		.it_value.tv_usec = (suseconds_t)((s - (double)(time_t)s) * 1e6),
		.it_interval.tv_usec = 10000,
	};
	struct sigaction sa = {
		.sa_sigaction = entry_alarm,
		.sa_flags = SA_SIGINFO,
	};

	if (s <= 0) {
		fprintf(stderr, "usage: burn entry SECONDS\n");
		return 2;
	}
	prctl(PR_SET_NAME, "gt_spin_entry");
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL)) {
		perror("burn: sigaction, setitimer");
		return 1;
	}
	before_spin();
	spin_at_entry();
	return 0;
}

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The idle and iowait time of every CPU so far, in USER_HZ ticks (the
 * first line of /proc/stat), 0 if unreadable: a test compares the
 * samples of idle CPUs with the idle time of the burn's own window, not
 * with that of the tracer's start and end.
 */
static unsigned long long idle_ticks(void)
{
	unsigned long long v[5] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return 0;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4]) != 5)
		v[3] = v[4] = 0;
	fclose(f);
	return v[3] + v[4];
}

int main(int argc, char **argv)
{
	double in_a = 0, in_b = 0, t0, t1, t2;
	unsigned long long idle0;
	uint64_t rounds = 0;
	double end;

	if (argc > 2 && !strcmp(argv[1], "entry"))
		return spin_entry(argv[2]);
	if (argc < 2 || atof(argv[1]) <= 0) {
		fprintf(stderr, "usage: burn SECONDS [CPU]\n");
		return 2;
	}
	if (argc > 2) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[2]), &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("burn: sched_setaffinity");
			return 1;
		}
	}
	idle0 = idle_ticks();
	end = now(CLOCK_MONOTONIC) + atof(argv[1]);
	t0 = now(CLOCK_THREAD_CPUTIME_ID);
	do {
		burn_a(3 * ROUND);
		t1 = now(CLOCK_THREAD_CPUTIME_ID);
		burn_b(ROUND);
		t2 = now(CLOCK_THREAD_CPUTIME_ID);
		in_a += t1 - t0;
		in_b += t2 - t1;
		t0 = t2;
		rounds++;
	} while (now(CLOCK_MONOTONIC) < end);
	t0 = now(CLOCK_THREAD_CPUTIME_ID);
	printf("burn_a %llu burn_b %llu cpu_ns %.0f in_a_ns %.0f in_b_ns %.0f all_ns %.0f idle_ticks %llu\n",
	       (unsigned long long)(3 * ROUND * rounds),
	       (unsigned long long)(ROUND * rounds),
	       now(CLOCK_PROCESS_CPUTIME_ID) * 1e9, in_a * 1e9, in_b * 1e9,
	       t0 * 1e9, idle_ticks() - idle0);
	return 0;
}
