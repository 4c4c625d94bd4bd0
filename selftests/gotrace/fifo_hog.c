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
 * start, then spins reading CLOCK_MONOTONIC until RUN_MS have passed.
 * With DELAY2_MS and RUN2_MS, a second run starts DELAY2_MS after the end
 * of the first and lasts RUN2_MS.  Once the runs are over, back to
 * SCHED_OTHER, it prints a line for each,
 *
 *	hog tid=TID start=MONO_NS end=MONO_NS
 *
 * in CLOCK_MONOTONIC ns, the clock of both traces.  The sleeps are absolute
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

/* A run: when it spun, by its own clock. */
struct run {
	int64_t start, end;
};

/* Spins from @at (or as soon after it as the sleep ends) for @run_ms. */
static struct run run_hog(int64_t at, long run_ms)
{
	struct run r;
	int64_t end;

	sleep_until(at);
	r.start = mono_ns();
	end = r.start + run_ms * NSEC_PER_MSEC;
	do
		r.end = mono_ns();
	while (r.end < end);
	return r;
}

/*
 * The runs' lines, once they are over and the hog is SCHED_OTHER again:
 * a write between the runs took the CPU for 11 ms more (a guest under
 * emulation), which the kernel rightly counted as the hog's and the
 * test as another task's.
 */
static void say(const struct run *r, int n)
{
	struct sched_param none = { 0 };

	if (sched_setscheduler(0, SCHED_OTHER, &none))
		die("sched_setscheduler");
	for (int i = 0; i < n; i++)
		printf("hog tid=%d start=%lld end=%lld\n", (int)gettid(),
		       (long long)r[i].start, (long long)r[i].end);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long cpu = arg(argv, 1, argc), delay = arg(argv, 2, argc);
	long run = arg(argv, 3, argc), delay2 = arg(argv, 4, argc);
	long run2 = arg(argv, 5, argc);
	struct sched_param sp = { .sched_priority = HOG_PRIO };
	int64_t t0 = mono_ns();
	struct run r[2];
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
	r[0] = run_hog(t0 + delay * NSEC_PER_MSEC, run);
	if (argc == 6)
		r[1] = run_hog(r[0].end + delay2 * NSEC_PER_MSEC, run2);
	say(r, argc == 6 ? 2 : 1);
	return 0;
}
