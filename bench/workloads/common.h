/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - shared bits of the benchmark workloads: a monotonic clock in
 * ns, a shared page for counters and the stop flag, a start gate, and the
 * one output line every workload prints:
 *
 *   <name> iters=<N> ns=<elapsed>
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Shared between the processes of a workload. */
struct shared {
	volatile int stop;
	volatile uint64_t count[];
};

static inline struct shared *shared_alloc(int n)
{
	struct shared *s = mmap(NULL, sizeof(*s) + n * sizeof(uint64_t),
				PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (s == MAP_FAILED)
		die("mmap");
	return s;
}

/*
 * The start gate: children block reading gate[0] until the parent closes
 * gate[1], so that the clock starts when every process exists.
 */
static inline void gate_wait(int gate[2])
{
	char c;

	close(gate[1]);
	if (read(gate[0], &c, 1) < 0)
		die("gate");
	close(gate[0]);
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline void wait_all(void)
{
	int st;

	while (wait(&st) > 0 || errno == EINTR)
		if (WIFEXITED(st) && WEXITSTATUS(st))
			exit(1);
}

/*
 * @procs processes run @body(@ms) together (they wait at the gate until
 * all exist); prints "NAME iters=N ns=M": the iterations they counted,
 * and the time from the gate's opening to the last one's end.
 */
static inline void run_procs(const char *name, int procs, long ms,
			     uint64_t (*body)(long ms))
{
	struct shared *sh = shared_alloc(procs);
	uint64_t start, end, iters = 0;
	int gate[2], i;

	if (pipe(gate))
		die("pipe");
	for (i = 0; i < procs; i++) {
		if (fork())
			continue;
		gate_wait(gate);
		sh->count[i] = body(ms);
		_exit(0);
	}
	close(gate[0]);
	start = now_ns();
	close(gate[1]);
	wait_all();
	end = now_ns();
	for (i = 0; i < procs; i++)
		iters += sh->count[i];
	printf("%s iters=%llu ns=%llu\n", name, (unsigned long long)iters,
	       (unsigned long long)(end - start));
}

static inline void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

#endif
