// SPDX-License-Identifier: GPL-2.0
/*
 * xcpu.c - wakeups that always come from the other CPU
 *
 *   xcpu N    gt_xping, pinned to CPU 0, and gt_xpong, pinned to CPU 1,
 *             pass a byte over two pipes N times each way
 *
 * Each side checks after every read that it still runs on its own CPU,
 * so every wakeup it received was sent from the other one.  Exits 0 when
 * that held throughout, 1 otherwise, 4 (skip) with fewer than two CPUs.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload_util.h"

/* Pin the caller to @cpu and name it @name. */
static void become(int cpu, const char *name)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	name_self(name);
}

/*
 * One round trip @n times: write to @out then read from @in (@writes_first)
 * or the other way round.  Returns the reads after which the caller was
 * not on @cpu.
 */
static long rounds(int in, int out, long n, int writes_first, int cpu)
{
	long i, away = 0;
	char c = 'x';

	for (i = 0; i < n; i++) {
		if (writes_first && write(out, &c, 1) != 1)
			die("write");
		if (read(in, &c, 1) != 1)
			die("read");
		away += sched_getcpu() != cpu;
		if (!writes_first && write(out, &c, 1) != 1)
			die("write");
	}
	return away;
}

int main(int argc, char **argv)
{
	int to_pong[2], to_ping[2], status;
	long n, away;
	pid_t pid;

	if (argc != 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: xcpu N\n");
		return 2;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("xcpu: fewer than two CPUs online\n");
		return 4;
	}
	if (pipe(to_pong) || pipe(to_ping))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		become(1, "gt_xpong");
		away = rounds(to_pong[0], to_ping[1], n, 0, 1);
		_exit(away ? 1 : 0);
	}
	become(0, "gt_xping");
	away = rounds(to_ping[0], to_pong[1], n, 1, 0);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (away || !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("xcpu: a side ran away from its CPU\n");
		return 1;
	}
	printf("xcpu: %s wakeups crossed CPUs\n", argv[1]);
	return 0;
}
