// SPDX-License-Identifier: GPL-2.0
/*
 * fifo_hog - takes one CPU from everything that is not real-time, at
 * known times: the ground truth of a merged Go and kernel trace, where a
 * goroutine the Go trace has running all along (gomerge_app.go's spin,
 * pinned to the same CPU) is, by the kernel's account, preempted for
 * exactly these runs.
 *
 * Pins itself to CPU, becomes SCHED_FIFO priority 50 (above every
 * SCHED_OTHER task; the priority of threaded interrupt handlers, which
 * then wait on that CPU for a run's end), sleeps until DELAY_MS after its
 * start, then spins reading CLOCK_MONOTONIC until RUN_MS have passed and
 * prints
 *
 *	hog tid=TID start=MONO_NS end=MONO_NS
 *
 * in CLOCK_MONOTONIC ns, the clock of both traces.  With DELAY2_MS and
 * RUN2_MS, a second run starts DELAY2_MS after the end of the first and
 * lasts RUN2_MS, on its own line.  The sleeps are absolute
 * (TIMER_ABSTIME), so that a late wakeup does not push what comes after.
 * A run may last up to the RT throttling's budget (sched_rt_runtime_us,
 * 950 ms of every second by default): longer, the kernel takes the CPU
 * from it for the rest of the period.  The comm stays fifo_hog.
 *
 * usage: fifo_hog CPU DELAY_MS RUN_MS [DELAY2_MS RUN2_MS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload_util.h"

#define HOG_PRIO 50
#define NSEC_PER_MSEC 1000000LL
#define NSEC_PER_SEC 1000000000LL

static int64_t mono_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die("clock_gettime");
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = {
		.tv_sec = t / NSEC_PER_SEC,
		.tv_nsec = t % NSEC_PER_SEC,
	};
	int err;

	/* Returns the error, not -1 and errno; EINTR: go on to the same end. */
	while ((err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				      NULL)) == EINTR)
		;
	if (err) {
		errno = err;
		die("clock_nanosleep");
	}
}

/*
 * Spins from @at (or as soon after it as the sleep ends) for @run_ms,
 * prints the run's line and returns its end.
 */
static int64_t run_hog(int64_t at, long run_ms)
{
	int64_t start, end, now;

	sleep_until(at);
	start = mono_ns();
	end = start + run_ms * NSEC_PER_MSEC;
	do
		now = mono_ns();
	while (now < end);
	/* Flushed now: stdout is a pipe or a file under a test. */
	printf("hog tid=%d start=%lld end=%lld\n", (int)gettid(),
	       (long long)start, (long long)now);
	fflush(stdout);
	return now;
}

int main(int argc, char **argv)
{
	long cpu = arg(argv, 1, argc), delay = arg(argv, 2, argc);
	long run = arg(argv, 3, argc), delay2 = arg(argv, 4, argc);
	long run2 = arg(argv, 5, argc);
	struct sched_param sp = { .sched_priority = HOG_PRIO };
	int64_t t0 = mono_ns(), end;
	cpu_set_t set;

	if ((argc != 4 && argc != 6) || cpu < 0 || delay < 0 || run < 0 ||
	    (argc == 6 && (delay2 < 0 || run2 < 0)) || cpu >= CPU_SETSIZE) {
		fprintf(stderr,
			"usage: fifo_hog CPU DELAY_MS RUN_MS [DELAY2_MS RUN2_MS]\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "fifo_hog: cannot pin to CPU %ld: %s\n", cpu,
			strerror(errno));
		return 1;
	}
	/*
	 * EPERM: neither root nor CAP_SYS_NICE (or RLIMIT_RTPRIO below
	 * 50), or, with RT group scheduling, a cgroup without RT runtime.
	 */
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr,
			"fifo_hog: cannot become SCHED_FIFO priority %d: %s (needs root or CAP_SYS_NICE)\n",
			HOG_PRIO, strerror(errno));
		return 1;
	}
	end = run_hog(t0 + delay * NSEC_PER_MSEC, run);
	if (argc == 6)
		run_hog(end + delay2 * NSEC_PER_MSEC, run2);
	return 0;
}
