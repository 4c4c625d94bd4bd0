// SPDX-License-Identifier: GPL-2.0
/*
 * churn MS [PROCS] - tasks created and ended without pause for MS
 * milliseconds: PROCS processes (default: one per online CPU) each loop on
 * fork() of a child that sleeps 100 us and exits (waited for), then a
 * thread that does the same (joined).  The children take one of 32
 * command names in turn.  One iteration is one task created and ended
 * (a fork, wakeup_new, a blocking sleep, a wakeup, an exit, the parent's
 * wait): the load of bench/guest-memory.sh, under which a session sees a
 * steady stream of new and dead tasks for minutes.
 */
#include "common.h"
#include <pthread.h>
#include <sys/prctl.h>

static void *task_body(void *arg)
{
	(void)arg;
	usleep(100);
	return NULL;
}

static uint64_t loop(uint64_t deadline)
{
	uint64_t n = 0;
	char name[16];
	pthread_t tid;
	pid_t pid;
	int st;

	while (now_ns() < deadline) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			snprintf(name, sizeof(name), "churn-%02u",
				 (unsigned int)(n % 32));
			prctl(PR_SET_NAME, name);
			task_body(NULL);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) == pid)
			n++;
		if (!pthread_create(&tid, NULL, task_body, NULL)) {
			pthread_join(tid, NULL);
			n++;
		}
	}
	return n;
}

/* One process's share: loop() for @ms from now. */
static uint64_t body(long ms)
{
	return loop(now_ns() + ms * 1000000ULL);
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	int procs = argc > 2 ? atoi(argv[2]) : 0;

	if (procs <= 0)
		procs = sysconf(_SC_NPROCESSORS_ONLN);
	run_procs("churn", procs, ms, body);
	return 0;
}
