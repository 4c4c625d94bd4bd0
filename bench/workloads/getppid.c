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

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	int procs = argc > 2 ? atoi(argv[2]) : 1;
	uint64_t start, end, elapsed, iters = 0;
	struct shared *sh;
	int gate[2], i;

	if (procs <= 1) {
		iters = loop(ms, &elapsed);
		printf("getppid iters=%llu ns=%llu\n",
		       (unsigned long long)iters,
		       (unsigned long long)elapsed);
		return 0;
	}
	sh = shared_alloc(procs);
	if (pipe(gate))
		die("pipe");
	for (i = 0; i < procs; i++) {
		if (fork())
			continue;
		gate_wait(gate);
		sh->count[i] = loop(ms, &elapsed);
		_exit(0);
	}
	close(gate[0]);
	start = now_ns();
	close(gate[1]);
	wait_all();
	end = now_ns();
	for (i = 0; i < procs; i++)
		iters += sh->count[i];
	printf("getppid iters=%llu ns=%llu\n", (unsigned long long)iters,
	       (unsigned long long)(end - start));
	return 0;
}
