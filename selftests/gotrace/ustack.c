// SPDX-License-Identifier: GPL-2.0
/*
 * ustack.c - blocks with known user stacks, for ustack_test.sh
 *
 *   ustack pipe|futex|sleep|evfd [ROUNDS]
 *
 * The main thread calls outer_MODE() -> middle_MODE() -> leaf_MODE(),
 * each noinline, and leaf_MODE() makes the blocking syscall itself with
 * an inline "syscall" instruction: the frame pointer walk of the module
 * then goes leaf, middle, outer whatever libc was built with (Debian's
 * is built without frame pointers).  Built with -O1
 * -fno-omit-frame-pointer (Makefile).  A helper thread ends each block
 * 20 ms after it began, from wake_outer() -> wake_middle() ->
 * wake_leaf(), with its own syscall as well.  It waits until the main
 * thread is in the round's blocking syscall (/proc's syscall file) before
 * it counts the 20 ms: a slow guest (TCG on a loaded host) must not see
 * a wakeup come before its block, and a read that finds its data
 * already there never blocks:
 *
 *   pipe	a read of an empty pipe (a "chan receive" block, Go's sync
 *		profile), comm gt_us_pipe
 *   futex	a FUTEX_WAIT ("sync", the sync profile), gt_us_futex
 *   sleep	a 20 ms nanosleep ("sleep", seen in the scheduling profile
 *		once woken), gt_us_sleep; no helper.  A sleep preempted
 *		before it blocks, on a guest whose vCPU then waits more than
 *		the 20 ms for the host, finds its timer expired when it runs
 *		again and never blocks: a preemption, not a block, is then
 *		all the trace can show (ustack.expect counts both)
 *   evfd	a read of an eventfd (a syscall that blocks: Go's syscall
 *		profile), after a 1 ms sleep (evfd_round()), gt_us_evfd
 *
 * The process exits right after its last block: its frames must be
 * named all the same (the module pins its mm until it has).
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload_util.h"

/* A syscall made right here, not through libc. */
static inline long raw_syscall4(long nr, long a, long b, long c, long d)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile ("syscall"
			  : "=a" (ret)
			  : "0" (nr), "D" (a), "S" (b), "d" (c), "r" (r10)
			  : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile ("svc #0"
			  : "+r" (x0)
			  : "r" (x8), "r" (x1), "r" (x2), "r" (x3)
			  : "memory");
	return x0;
#else
#error "raw_syscall4: no syscall instruction for this architecture"
#endif
}

static int fds[2];
static volatile uint32_t word;
static int rounds = 3;
/* The main thread's id, and the blocking calls it has begun. */
static pid_t main_tid;
static int started;

#define NOINLINE __attribute__((noinline, noclone))
/* Keeps a call from becoming a jump (no frame of its own then). */
#define NO_TAIL() __asm__ volatile ("" ::: "memory")

static NOINLINE long leaf_pipe(void)
{
	char c;

	return raw_syscall4(SYS_read, fds[0], (long)&c, 1, 0);
}

static NOINLINE long middle_pipe(void)
{
	long r = leaf_pipe();

	NO_TAIL();
	return r;
}

static NOINLINE long outer_pipe(void)
{
	long r = middle_pipe();

	NO_TAIL();
	return r;
}

/*
 * Every leaf keeps something on its stack: GCC 12 at -O1 gives a
 * function that needs no stack no frame, -fno-omit-frame-pointer and
 * -mno-omit-leaf-frame-pointer notwithstanding, and a walk by frame
 * pointers then skips its caller (Documentation/user-stacks.rst,
 * "What the stacks show").  That gap is the compiler's, not the
 * walk's; this program is the walk's ground truth.
 */
static NOINLINE long leaf_futex(uint32_t val)
{
	volatile uint32_t v = val;

	return raw_syscall4(SYS_futex, (long)&word, FUTEX_WAIT_PRIVATE, v, 0);
}

static NOINLINE long middle_futex(uint32_t val)
{
	long r = leaf_futex(val);

	NO_TAIL();
	return r;
}

static NOINLINE long outer_futex(uint32_t val)
{
	long r = middle_futex(val);

	NO_TAIL();
	return r;
}

static NOINLINE long leaf_sleep(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	return raw_syscall4(SYS_nanosleep, (long)&ts, 0, 0, 0);
}

static NOINLINE long middle_sleep(void)
{
	long r = leaf_sleep();

	NO_TAIL();
	return r;
}

static NOINLINE long outer_sleep(void)
{
	long r = middle_sleep();

	NO_TAIL();
	return r;
}

static NOINLINE long leaf_evfd(void)
{
	uint64_t v;

	return raw_syscall4(SYS_read, fds[0], (long)&v, sizeof(v), 0);
}

static NOINLINE long middle_evfd(void)
{
	long r = leaf_evfd();

	NO_TAIL();
	return r;
}

static NOINLINE long outer_evfd(void)
{
	long r = middle_evfd();

	NO_TAIL();
	return r;
}

/*
 * The helper's wakeup, through wake_outer() -> wake_middle() ->
 * wake_leaf(), its own syscall too: Go's scheduling profile groups a
 * goroutine's wait for a P by the stack that made it runnable, the
 * waker's.
 */
static NOINLINE long wake_leaf(const char *mode, uint32_t i)
{
	static const uint64_t one = 1;

	if (!strcmp(mode, "pipe"))
		return raw_syscall4(SYS_write, fds[1], (long)"x", 1, 0);
	if (!strcmp(mode, "evfd"))
		return raw_syscall4(SYS_write, fds[0], (long)&one,
				    sizeof(one), 0);
	__atomic_store_n(&word, i + 1, __ATOMIC_SEQ_CST);
	return raw_syscall4(SYS_futex, (long)&word, FUTEX_WAKE_PRIVATE, 1, 0);
}

static NOINLINE long wake_middle(const char *mode, uint32_t i)
{
	long r = wake_leaf(mode, i);

	NO_TAIL();
	return r;
}

static NOINLINE long wake_outer(const char *mode, uint32_t i)
{
	long r = wake_middle(mode, i);

	NO_TAIL();
	return r;
}

/*
 * Wait until the main thread has begun its blocking call of round @i
 * and is in syscall @nr.  At most 10 s, then go on: the test's
 * expectations then say what was missed.
 */
static void wait_blocked(int i, long nr)
{
	for (int tries = 0; tries < 10000; tries++, pause_ms(1))
		if (__atomic_load_n(&started, __ATOMIC_SEQ_CST) > i &&
		    in_syscall((int)main_tid, nr))
			return;
}

/* Ends each of the main thread's blocks 20 ms after it began. */
static void *helper(void *arg)
{
	const char *mode = arg;
	int i;

	for (i = 0; i < rounds; i++) {
		wait_blocked(i, strcmp(mode, "futex") ? SYS_read : SYS_futex);
		pause_ms(20);
		if (wake_outer(mode, i) < 0)
			exit(1);
	}
	return NULL;
}

/*
 * A round of evfd: a 1 ms sleep, then the read.  Go's syscall profile
 * takes a goroutine from its first syscall with a stack to its next
 * transition with a stack that is not another syscall: without the
 * sleep's block between them, the read would count under the stack of
 * whatever syscall the thread made before it (its prctl()).
 */
static void evfd_round(void)
{
	pause_ms(1);
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	outer_evfd();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char comm[16];
	pthread_t th;
	int i;

	if (argc > 2)
		rounds = atoi(argv[2]);
	if (strcmp(mode, "pipe") && strcmp(mode, "futex") &&
	    strcmp(mode, "sleep") && strcmp(mode, "evfd")) {
		fprintf(stderr, "usage: ustack pipe|futex|sleep|evfd [ROUNDS]\n");
		return 2;
	}
	snprintf(comm, sizeof(comm), "gt_us_%s", mode);
	prctl(PR_SET_NAME, comm);
	main_tid = (pid_t)syscall(SYS_gettid);
	if (!strcmp(mode, "pipe") && pipe(fds))
		return 1;
	if (!strcmp(mode, "evfd")) {
		fds[0] = eventfd(0, 0);
		if (fds[0] < 0)
			return 1;
	}
	if (strcmp(mode, "sleep") &&
	    pthread_create(&th, NULL, helper, (void *)mode))
		return 1;
	for (i = 0; i < rounds; i++) {
		if (!strcmp(mode, "pipe")) {
			__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
			outer_pipe();
		} else if (!strcmp(mode, "evfd")) {
			evfd_round();
		} else if (!strcmp(mode, "sleep")) {
			outer_sleep();
		} else {
			__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(&word, __ATOMIC_SEQ_CST) ==
			       (uint32_t)i)
				outer_futex(i);
		}
	}
	/* Exit at once: no join, no flush; the helper is done or ends. */
	_exit(0);
}
