/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload_util.h - what the guest workload programs (workload.c,
 * corner.c, xcpu.c) share: dying with the failed call's name, naming
 * the calling thread, and reading a numeric argument.
 */
#ifndef GT_WORKLOAD_UTIL_H
#define GT_WORKLOAD_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

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

#endif /* GT_WORKLOAD_UTIL_H */
