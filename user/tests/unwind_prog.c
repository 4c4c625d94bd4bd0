// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_prog.c - blocks through the C library with known user stacks
 * and no frame pointers, for unwind_test.sh
 *
 *   unwind_prog [ROUNDS [CLOCK_MS]]
 *                          block ROUNDS times (default 3) in each of:
 *                          a read() of an empty pipe, a
 *                          pthread_mutex_lock() of a mutex another
 *                          thread holds (a futex wait in the C library)
 *                          and a 20 ms nanosleep(), in that order; then
 *                          read CLOCK_MONOTONIC with clock_gettime() in
 *                          a loop for CLOCK_MS (default 0), for CPU
 *                          samples that stop it in the vDSO; then exit
 *   unwind_prog -hold [read|futex|sleep]
 *                          block for ever in that one (read by default:
 *                          nobody writes; the helper locks the mutex
 *                          and keeps it; a sleep of a day), through the
 *                          same functions, for eu-stack -p; "ready" on
 *                          the standard output just before
 *
 * Every block is made by the C library, called from
 *
 *   main -> prog_outer -> lib_middle -> prog_inner_MODE -> libc
 *
 * and the clock is read by the vDSO (the kernel's code in the process,
 * which has no file), through the C library's clock_gettime(), from
 * prog_inner_clock in the same chain.
 *
 * where lib_middle() is in libgtunwind.so (unwind_lib.c), found through
 * the program's rpath ($ORIGIN).  Both are built with -O2
 * -fomit-frame-pointer (Makefile), the C library (Debian's) without
 * frame pointers too: a walk by frame pointers cannot get through, a
 * walk by the .eh_frame tables must find every frame.  Each function of
 * the chain is noinline and noipa (no clone under another name), keeps
 * locals on its stack and stores to a volatile after its call, which so
 * stays a call (no tail call: every frame is there).
 *
 * The main thread (comm gt_unwind) makes the blocks; a helper
 * (gt_unwind_wake) ends each read and mutex block 20 ms after it began:
 * it waits until the main thread is in the round's blocking syscall
 * (/proc's syscall file; a read that found its byte already there would
 * not block), then writes the byte or unlocks the mutex, and locks it
 * again for the next round only once the main thread has had it (else
 * it could take it back first).  Before its first block the program
 * sleeps SETTLE_MS (200 ms), outside the chain, before the helper
 * starts: time for a recorder to see the new process and read its
 * mappings.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../selftests/gotrace/workload_util.h"

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noipa))
#endif

#define SETTLE_MS	200

/* The blocks, then the spin (not a block: no -hold clock). */
enum { M_READ, M_FUTEX, M_SLEEP, M_CLOCK, M_MODES };

/* libgtunwind.so */
long lib_middle(long (*inner)(long), long arg);

/* Stores after each call: keep it from becoming a jump. */
static volatile long sink;
static int fds[2];
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static int rounds = 3;
static long clock_ms;
static pid_t main_tid;
/*
 * The main thread's blocking calls begun and done, per mode; the rounds
 * the helper has locked the mutex for.
 */
static int started[M_MODES], done[M_MODES];
static int locked;
static struct timespec sleep_ts = { 0, 20 * 1000 * 1000 };

NOINLINE long prog_inner_read(long arg)
{
	volatile char buf[48];
	long n;

	buf[0] = (char)arg;
	n = read(fds[0], (char *)buf + 1, 1);
	sink = n + buf[0] + buf[1];
	return n;
}

NOINLINE long prog_inner_futex(long arg)
{
	volatile long v[6];
	long r;

	v[0] = arg;
	r = pthread_mutex_lock(&mtx);
	sink = r + v[0];
	pthread_mutex_unlock(&mtx);
	return r;
}

NOINLINE long prog_inner_sleep(long arg)
{
	struct timespec ts = sleep_ts;
	volatile long v[4];
	long r;

	v[0] = arg;
	r = nanosleep(&ts, NULL);
	sink = r + v[0];
	return r;
}

/*
 * clock_gettime() in a loop for clock_ms: the vDSO's time, mostly.  The
 * clock's values are static: on the stack, the compiler kept a pointer
 * to them in rbp (mov %rsp,%rbp), which the test takes for a frame.
 */
NOINLINE long prog_inner_clock(long arg)
{
	static struct timespec now, end;
	volatile long v[4];
	long n = 0;

	v[0] = arg;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += clock_ms / 1000;
	end.tv_nsec += clock_ms % 1000 * 1000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	do {
		clock_gettime(CLOCK_MONOTONIC, &now);
		n++;
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	sink = n + v[0];
	return n;
}

NOINLINE long prog_outer(int mode)
{
	static long (*const inner[M_MODES])(long) = {
		prog_inner_read, prog_inner_futex, prog_inner_sleep,
		prog_inner_clock,
	};
	volatile long v[8];
	long r;

	v[0] = mode;
	r = lib_middle(inner[mode], v[0]);
	sink = r + v[0];
	return r;
}

/*
 * Wait until the main thread has begun its blocking call @i of @mode and
 * is in syscall @nr.  At most 10 s, then go on: the test then finds a
 * block missing.
 */
static void wait_blocked(int mode, int i, long nr)
{
	for (int tries = 0; tries < 10000; tries++, pause_ms(1))
		if (__atomic_load_n(&started[mode], __ATOMIC_SEQ_CST) > i &&
		    in_syscall((int)main_tid, nr))
			return;
}

static void *helper(void *arg)
{
	int i;

	prctl(PR_SET_NAME, "gt_unwind_wake");
	if (arg) {
		/* -hold futex: take the mutex and keep it. */
		pthread_mutex_lock(&mtx);
		__atomic_store_n(&locked, 1, __ATOMIC_SEQ_CST);
		for (;;)
			pause();
	}
	for (i = 0; i < rounds; i++) {
		wait_blocked(M_READ, i, SYS_read);
		pause_ms(20);
		if (write(fds[1], "x", 1) != 1)
			exit(1);
	}
	for (i = 0; i < rounds; i++) {
		/* The main thread has had the mutex of the round before. */
		while (__atomic_load_n(&done[M_FUTEX], __ATOMIC_SEQ_CST) < i)
			pause_ms(1);
		pthread_mutex_lock(&mtx);
		__atomic_store_n(&locked, i + 1, __ATOMIC_SEQ_CST);
		wait_blocked(M_FUTEX, i, SYS_futex);
		pause_ms(20);
		pthread_mutex_unlock(&mtx);
	}
	return NULL;
}

/* -hold MODE: block in MODE until killed. */
static int hold(const char *what)
{
	static const char *const names[M_CLOCK] = { "read", "futex", "sleep" };
	pthread_t th;
	int mode;

	for (mode = 0; mode < M_CLOCK && strcmp(what, names[mode]); mode++)
		;
	if (mode == M_CLOCK) {
		fprintf(stderr, "unwind_prog: -hold read|futex|sleep\n");
		return 2;
	}
	if (mode == M_FUTEX) {
		if (pthread_create(&th, NULL, helper, &mode))
			return 1;
		while (!__atomic_load_n(&locked, __ATOMIC_SEQ_CST))
			sched_yield();
	}
	sleep_ts.tv_sec = 86400;
	if (write(1, "ready\n", 6) != 6)
		return 1;
	prog_outer(mode);
	return 1;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int i;

	prctl(PR_SET_NAME, "gt_unwind");
	main_tid = (pid_t)syscall(SYS_gettid);
	if (pipe(fds))
		return 1;
	if (argc > 1 && !strcmp(argv[1], "-hold"))
		return hold(argc > 2 ? argv[2] : "read");
	if (argc > 1)
		rounds = atoi(argv[1]);
	if (argc > 2)
		clock_ms = atol(argv[2]);
	if (argc > 3 || rounds < 1 || clock_ms < 0) {
		fprintf(stderr, "usage: unwind_prog [ROUNDS [CLOCK_MS]] | "
			"-hold [MODE]\n");
		return 2;
	}
	pause_ms(SETTLE_MS);
	if (pthread_create(&th, NULL, helper, NULL))
		return 1;
	for (i = 0; i < rounds; i++) {
		__atomic_add_fetch(&started[M_READ], 1, __ATOMIC_SEQ_CST);
		prog_outer(M_READ);
	}
	for (i = 0; i < rounds; i++) {
		while (__atomic_load_n(&locked, __ATOMIC_SEQ_CST) <= i)
			sched_yield();
		__atomic_add_fetch(&started[M_FUTEX], 1, __ATOMIC_SEQ_CST);
		prog_outer(M_FUTEX);
		__atomic_add_fetch(&done[M_FUTEX], 1, __ATOMIC_SEQ_CST);
	}
	for (i = 0; i < rounds; i++)
		prog_outer(M_SLEEP);
	if (clock_ms)
		prog_outer(M_CLOCK);
	pthread_join(th, NULL);
	return 0;
}
