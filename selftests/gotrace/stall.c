// SPDX-License-Identifier: GPL-2.0
/*
 * stall.c - one scheduling stall of one task, of a known length
 *
 *   stall CPU MS    gt_victim, pinned to CPU, reads a pipe that
 *                   gt_waker, pinned to another CPU, writes a byte to
 *                   every 2 ms for about 1.5 s; half a second in, gt_hog,
 *                   pinned to CPU, runs SCHED_FIFO for MS milliseconds
 *                   once, so gt_victim, woken meanwhile from the other
 *                   CPU, waits that long to run.  (A timer would not do:
 *                   on PREEMPT_RT a sleeper's timer expires in a thread
 *                   that the hog holds off too, so the victim would stay
 *                   blocked, not runnable.)
 *
 * Prints "victim TID" once gt_victim runs, and "stalled MS ms" with the
 * longest time gt_victim found between the returns of two reads.
 * Exits 0, 1 on failure, 4 (skip) when SCHED_FIFO is refused or CPU is
 * not online.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload_util.h"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(4);
	}
}

/* gt_victim: reads @fd to its end; the longest gap between two reads. */
static void victim(int fd)
{
	long long prev, gap = 0;
	char c;

	name_self("gt_victim");
	printf("victim %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	prev = now_ns();
	while (read(fd, &c, 1) == 1) {
		long long t = now_ns();

		if (t - prev > gap)
			gap = t - prev;
		prev = t;
	}
	printf("stalled %lld ms\n", gap / 1000000);
	exit(0);
}

/* gt_waker: a byte to @fd every 2 ms for @ms, then end of file. */
static void waker(int fd, long ms)
{
	struct timespec d = { 0, 2000000 };
	long long end = now_ns() + ms * 1000000LL;
	char c = 'x';

	name_self("gt_waker");
	while (now_ns() < end) {
		if (write(fd, &c, 1) != 1)
			die("write");
		nanosleep(&d, NULL);
	}
	exit(0);
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 50 };
	struct timespec half = { 0, 500000000 };
	long cpu = arg(argv, 1, argc), ms = arg(argv, 2, argc);
	long long end;
	int status, p[2];
	pid_t pid, wpid;

	if (argc != 3 || cpu < 0 || ms <= 0) {
		fprintf(stderr, "usage: stall CPU MS\n");
		return 1;
	}
	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		pin(cpu ? 0 : 1);
		close(p[0]);
		waker(p[1], 1500);
	}
	wpid = pid;
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		pin((int)cpu);
		close(p[1]);
		victim(p[0]);
	}
	close(p[0]);
	close(p[1]);
	pin((int)cpu);
	name_self("gt_hog");
	nanosleep(&half, NULL);
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("sched_setscheduler");
		kill(pid, SIGKILL);
		kill(wpid, SIGKILL);
		waitpid(pid, NULL, 0);
		waitpid(wpid, NULL, 0);
		return 4;
	}
	for (end = now_ns() + ms * 1000000LL; now_ns() < end;)
		;
	sp.sched_priority = 0;
	if (sched_setscheduler(0, SCHED_OTHER, &sp))
		die("sched_setscheduler");
	if (waitpid(wpid, &status, 0) != wpid)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
