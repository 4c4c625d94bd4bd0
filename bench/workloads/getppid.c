// SPDX-License-Identifier: GPL-2.0
/*
 * getppid MS - call getppid() in a loop for MS milliseconds: the cost of
 * one syscall (sys_enter + sys_exit, nothing else).  The clock is read
 * every 1000 calls (through the vDSO: no syscall).
 */
#include <sys/syscall.h>
#include "common.h"

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
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
	printf("getppid iters=%llu ns=%llu\n", (unsigned long long)iters,
	       (unsigned long long)(end - start));
	return 0;
}
