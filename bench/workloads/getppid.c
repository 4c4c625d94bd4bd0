// SPDX-License-Identifier: GPL-2.0
/*
 * getppid MS [PROCS] - call getppid() in a loop for MS milliseconds: the
 * cost of one syscall (sys_enter + sys_exit, nothing else).  The clock is
 * read every 1000 calls (through the vDSO: no syscall).  With PROCS > 1,
 * that many processes loop at once (the benchmark's ramp: the highest
 * event rate a CPU can produce); iterations are their total.
 */
#include <sys/syscall.h>
#include "common.h"

static uint64_t loop(long ms, uint64_t *elapsed)
{
	uint64_t start, end, deadline, iters = 0;
	int i;

	start = now_ns();
	deadline = start + ms * 1000000ULL;
	do {
		for (i = 0; i < 1000; i++)
			syscall(SYS_getppid);
		iters += 1000;
		end = now_ns();
	} while (end < deadline);
	*elapsed = end - start;
	return iters;
}

/* One process's share of a run of several. */
static uint64_t body(long ms)
{
	uint64_t elapsed;

	return loop(ms, &elapsed);
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	int procs = argc > 2 ? atoi(argv[2]) : 1;
	uint64_t elapsed, iters;

	if (procs <= 1) {
		iters = loop(ms, &elapsed);
		printf("getppid iters=%llu ns=%llu\n",
		       (unsigned long long)iters,
		       (unsigned long long)elapsed);
		return 0;
	}
	run_procs("getppid", procs, ms, body);
	return 0;
}
