// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong MS [PAIRS [CPU]] - PAIRS pairs of processes pass one byte back
 * and forth over two pipes for MS milliseconds.  One iteration is a round
 * trip: two blocking reads, two wakeups, two context switches.  With
 * CPU >= 0 (default 0) every process is pinned to that CPU, so that a
 * round trip is exactly switch + wakeup on one CPU; CPU -1 lets the
 * scheduler place them.
 */
#include "common.h"

static void ping(struct shared *sh, int idx, int to, int from)
{
	char c = 0;
	uint64_t n = 0;

	while (!sh->stop) {
		if (write(to, &c, 1) != 1)
			die("ping write");
		if (read(from, &c, 1) != 1)
			die("ping read");
		n++;
	}
	sh->count[idx] = n;
	close(to);	/* pong reads end of file */
}

static void pong(int from, int to)
{
	char c;

	while (read(from, &c, 1) == 1)
		if (write(to, &c, 1) != 1)
			die("pong write");
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	int pairs = argc > 2 ? atoi(argv[2]) : 1;
	int cpu = argc > 3 ? atoi(argv[3]) : 0;
	struct shared *sh = shared_alloc(pairs);
	uint64_t start, end, iters = 0;
	int gate[2], i;

	if (pipe(gate))
		die("pipe");
	for (i = 0; i < pairs; i++) {
		int a[2], b[2];

		if (pipe(a) || pipe(b))
			die("pipe");
		if (!fork()) {
			if (cpu >= 0)
				pin_cpu(cpu);
			close(a[0]);
			close(b[1]);
			gate_wait(gate);
			ping(sh, i, a[1], b[0]);
			_exit(0);
		}
		if (!fork()) {
			if (cpu >= 0)
				pin_cpu(cpu);
			close(a[1]);
			close(b[0]);
			gate_wait(gate);
			pong(a[0], b[1]);
			_exit(0);
		}
		close(a[0]);
		close(a[1]);
		close(b[0]);
		close(b[1]);
	}
	close(gate[0]);
	start = now_ns();
	close(gate[1]);
	sleep_ms(ms);
	sh->stop = 1;
	wait_all();
	end = now_ns();
	for (i = 0; i < pairs; i++)
		iters += sh->count[i];
	printf("pingpong iters=%llu ns=%llu\n", (unsigned long long)iters,
	       (unsigned long long)(end - start));
	return 0;
}
