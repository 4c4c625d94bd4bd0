/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload_util.h - what the workload programs (workload.c, corner.c,
 * xcpu.c, ustack.c, the host's user/tests/unwind_prog.c) share: dying
 * with the failed call's name, naming the calling thread, reading a
 * numeric argument, short sleeps, and whether a thread is in a given
 * syscall.
 */
#ifndef GT_WORKLOAD_UTIL_H
#define GT_WORKLOAD_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static inline void die(const char *what)
{
	perror(what);
	exit(1);
}

/* The task's comm, which names its goroutine in the trace. */
static inline void name_self(const char *name)
{
	if (prctl(PR_SET_NAME, name, 0, 0, 0))
		die("prctl");
}

/* argv[@i] as a number >= 0, or -1 if absent or not one. */
static inline long arg(char **argv, int i, int argc)
{
	char *end;
	long v;

	if (i >= argc)
		return -1;
	v = strtol(argv[i], &end, 10);
	return *end || v < 0 ? -1 : v;
}

static inline void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/*
 * Is thread @tid of this process in syscall @nr?  1 if so, 0 if not
 * (running, or in another), -1 if it cannot be told (the thread is
 * gone).  /proc's syscall file starts with the number of the syscall
 * the thread is in: "running", or "-1 ...", when in none.
 */
static inline int in_syscall(int tid, long nr)
{
	char path[64], buf[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	buf[0] = 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0] >= '0' && buf[0] <= '9' && strtol(buf, NULL, 10) == nr;
}

#endif /* GT_WORKLOAD_UTIL_H */
