// SPDX-License-Identifier: GPL-2.0
/*
 * stress.c - the task churn of stress_go123_test.sh: tasks created, renamed
 * and ended without pause on every CPU while many short recordings start
 * and stop, so that each generation boundary, each start-up snapshot and
 * each stop meets tasks in every stage of their lives.
 *
 *   stress churn S   gt_stress starts one worker per CPU it may run on,
 *                    pinned there, each of which, until S seconds have
 *                    passed or gt_stress gets SIGTERM or SIGINT, renames
 *                    itself (gt_st_even, gt_st_odd) every round and keeps
 *                    up to four children alive at once, made in turn as:
 *                    one that exits at once; one that sleeps up to 2 ms in
 *                    nanosleep, renames itself gt_st_woken and exits; one
 *                    that executes this program again ("stress exited"),
 *                    which renames itself and exits; one that starts a
 *                    thread that renames itself and exits; and a thread
 *                    of its own that sleeps, renames itself and exits.
 *                    Prints how many of each were made
 *   stress burst N MS  gt_burst forks N children that stay runnable,
 *                    yielding, for MS ms, renaming themselves halfway,
 *                    then exit; it waits for them.  Started just before a
 *                    recording, it leaves tasks that are runnable and have
 *                    not run yet when the session takes its snapshot
 *   stress exited    renames itself gt_st_execd and exits (the program the
 *                    churn's children execute)
 *
 * Both run at nice 5: they take every CPU the recorder and the test
 * leave, not theirs (at nice 0, on a loaded host, a recording of -d 0.3
 * lasted 2 s, and one of --rotate 300ms -d 0.4 wrote 50 files: the
 * recorder, starved, read each generation late and stopped late).
 *
 * Exits 0 when the workload ran as described.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload_util.h"

/* Children of a worker alive at once: runnable siblings at any instant. */
#define CHURN_INFLIGHT	4

/* Set by gt_stress's signal handler, read by every worker. */
static volatile sig_atomic_t *stop_flag;

/* What one worker made. */
struct churn_count {
	long forks;
	long threads;
	long execs;
	long renames;
};

/* Below the recorder and the test (see above). */
static void below_the_test(void)
{
	errno = 0;
	if (nice(5) == -1 && errno)
		die("nice");
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_stop(int sig)
{
	(void)sig;
	*stop_flag = 1;
}

/* Up to 2 ms asleep in nanosleep, by @seed. */
static void nap(unsigned int seed)
{
	struct timespec t = { 0, (long)(seed % 2000) * 1000L };

	nanosleep(&t, NULL);
}

static void *renaming_thread(void *arg)
{
	nap((unsigned int)(long)arg);
	name_self("gt_st_thread");
	return NULL;
}

/* A thread that sleeps, renames itself and exits, joined. */
static int thread_round(unsigned int seed)
{
	pthread_t tid;

	if (pthread_create(&tid, NULL, renaming_thread,
			   (void *)(long)seed))
		return 0;
	pthread_join(tid, NULL);
	return 1;
}

/* The life of a churn child of kind @kind. */
static void child(unsigned int kind, unsigned int seed)
{
	switch (kind) {
	case 0:
		break;
	case 1:
		nap(seed);
		name_self("gt_st_woken");
		break;
	case 2:
		execl("/proc/self/exe", "stress", "exited", (char *)NULL);
		die("execl");
		break;
	default:
		name_self("gt_st_parent");
		thread_round(seed);
		break;
	}
	_exit(0);
}

/* Reap what has ended; with @block, wait for one at least. */
static int reap(int block)
{
	int n = 0, status;

	while (waitpid(-1, &status, block && !n ? 0 : WNOHANG) > 0)
		n++;
	return n;
}

static struct churn_count worker(int cpu, double end)
{
	struct churn_count c = { 0, 0, 0, 0 };
	unsigned int round = 0, alive = 0;
	cpu_set_t set;
	pid_t pid;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	while (!*stop_flag && mono_s() < end) {
		unsigned int seed = round * 2654435761U + (unsigned int)cpu;

		name_self(round & 1 ? "gt_st_odd" : "gt_st_even");
		c.renames++;
		if (alive >= CHURN_INFLIGHT)
			alive -= reap(1);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			name_self("gt_st_child");
			child(round % 4, seed);
		}
		alive++;
		c.forks++;
		c.execs += round % 4 == 2;
		c.threads += thread_round(seed) + (round % 4 == 3);
		alive -= reap(0);
		round++;
	}
	while (wait(NULL) > 0)
		;
	return c;
}

static int churn(long secs)
{
	struct churn_count total = { 0, 0, 0, 0 };
	double end = mono_s() + secs;
	struct sigaction sa;
	int fds[2], cpu, workers = 0, bad = 0;
	cpu_set_t set;

	stop_flag = mmap(NULL, sizeof(*stop_flag), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stop_flag == MAP_FAILED)
		die("mmap");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	/* The reads of the workers' counts go on after the signal. */
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
		die("sigaction");
	if (sched_getaffinity(0, sizeof(set), &set))
		die("sched_getaffinity");
	if (pipe(fds))
		die("pipe");
	name_self("gt_stress");
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		pid_t pid;

		if (!CPU_ISSET(cpu, &set))
			continue;
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			struct churn_count mine;

			/* Killed with gt_stress, whatever the signal. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(fds[0]);
			mine = worker(cpu, end);
			if (write(fds[1], &mine, sizeof(mine)) != sizeof(mine))
				_exit(1);
			_exit(0);
		}
		workers++;
	}
	close(fds[1]);
	for (cpu = 0; cpu < workers; cpu++) {
		struct churn_count one;

		if (read(fds[0], &one, sizeof(one)) != sizeof(one)) {
			bad = 1;
			continue;
		}
		total.forks += one.forks;
		total.threads += one.threads;
		total.execs += one.execs;
		total.renames += one.renames;
	}
	while (wait(NULL) > 0)
		;
	printf("stress churn: %ld forks, %ld threads, %ld execs, %ld renames on %d CPUs\n",
	       total.forks, total.threads, total.execs, total.renames, workers);
	return bad || !total.forks;
}

/* Runnable for @ms, yielding, renamed halfway. */
static void burst_child(long ms)
{
	double half = mono_s() + ms / 2000.0, end = half + ms / 2000.0;

	name_self("gt_burst_child");
	while (mono_s() < half)
		sched_yield();
	name_self("gt_burst_late");
	while (mono_s() < end)
		sched_yield();
	_exit(0);
}

static int burst(long n, long ms)
{
	int status, bad = 0;
	long i;

	name_self("gt_burst");
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0)
			burst_child(ms);
	}
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	return bad;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	long a = arg(argv, 2, argc), b = arg(argv, 3, argc);

	if (!strcmp(cmd, "churn") && a > 0) {
		below_the_test();
		return churn(a);
	}
	if (!strcmp(cmd, "burst") && a > 0 && b >= 0) {
		below_the_test();
		return burst(a, b);
	}
	if (!strcmp(cmd, "exited")) {
		name_self("gt_st_execd");
		return 0;
	}
	fprintf(stderr, "usage: stress churn S | burst N MS | exited\n");
	return 2;
}
