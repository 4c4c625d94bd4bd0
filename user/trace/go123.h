/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go123.h - the event types of Go's generational trace format
 *
 * Headers "go 1.22 trace" to "go 1.26 trace" (Documentation/
 * trace-format.rst, "The generational format").  Every event of an event
 * batch is a type byte, a timestamp delta and a fixed number of values;
 * the table says how many, and which of them name a stack or a string of
 * the generation's tables (0 means none in both).
 */
#ifndef GOTRACE_GO123_H
#define GOTRACE_GO123_H

#include <stdbool.h>
#include <stdint.h>

/* The versions of the format (the N of "go 1.N trace"). */
enum { GT_GO123_GO122 = 22, GT_GO123_GO123 = 23, GT_GO123_GO125 = 25,
       GT_GO123_GO126 = 26 };

enum gt_go123_type {
	GT_GO123_EV_BATCH = 1,		/* gen m time size, then the data */
	GT_GO123_EV_STACKS = 2,		/* first byte of a stack table batch */
	GT_GO123_EV_STACK = 3,
	GT_GO123_EV_STRINGS = 4,		/* first byte of a string table batch */
	GT_GO123_EV_STRING = 5,
	GT_GO123_EV_CPU_SAMPLES = 6,	/* first byte of a CPU samples batch */
	GT_GO123_EV_CPU_SAMPLE = 7,
	GT_GO123_EV_FREQUENCY = 8,
	GT_GO123_EV_PROC_START = 10,
	GT_GO123_EV_PROC_STOP = 11,
	GT_GO123_EV_PROC_STEAL = 12,
	GT_GO123_EV_PROC_STATUS = 13,
	GT_GO123_EV_GO_CREATE = 14,
	GT_GO123_EV_GO_CREATE_SYSCALL = 15,
	GT_GO123_EV_GO_START = 16,
	GT_GO123_EV_GO_DESTROY = 17,
	GT_GO123_EV_GO_DESTROY_SYSCALL = 18,
	GT_GO123_EV_GO_STOP = 19,
	GT_GO123_EV_GO_BLOCK = 20,
	GT_GO123_EV_GO_UNBLOCK = 21,
	GT_GO123_EV_GO_SYSCALL_BEGIN = 22,
	GT_GO123_EV_GO_SYSCALL_END = 23,
	GT_GO123_EV_GO_SYSCALL_END_BLOCKED = 24,
	GT_GO123_EV_GO_STATUS = 25,
	GT_GO123_EV_USER_REGION_BEGIN = 42,
	GT_GO123_EV_USER_REGION_END = 43,
	GT_GO123_EV_USER_LOG = 44,
	GT_GO123_EV_GO_SWITCH = 45,
	GT_GO123_EV_GO_SWITCH_DESTROY = 46,
	GT_GO123_EV_GO_CREATE_BLOCKED = 47,
	GT_GO123_EV_GO_STATUS_STACK = 48,
	GT_GO123_EV_EXPERIMENTAL_BATCH = 49, /* exp gen m time size, data */
	GT_GO123_EV_SYNC = 50,		/* first byte of a sync batch (1.25+) */
	GT_GO123_EV_CLOCK_SNAPSHOT = 51,
	GT_GO123_EV_END_OF_GENERATION = 52, /* a bare byte between batches */
	GT_GO123_NR_TYPES = 53,
};

/* Goroutine statuses of GoStatus and GoStatusStack. */
enum { GT_GO123_G_RUNNABLE = 1, GT_GO123_G_RUNNING = 2, GT_GO123_G_SYSCALL = 3,
       GT_GO123_G_WAITING = 4 };

/*
 * The sampling rate, where a recorder says it: a string of each
 * generation's table, "gotrace: CPU samples at N Hz" (Go's runtime
 * writes none; its rate is runtime/pprof's 100 Hz).
 */
#define GT_GO123_CPU_HZ_PREFIX	"gotrace: CPU samples at "
#define GT_GO123_CPU_HZ_SUFFIX	" Hz"
#define GT_GO123_GO_CPU_HZ		100

/* Values after the type byte, the timestamp delta included. */
#define GT_GO123_ARGS_MAX	5

struct gt_go123_spec {
	const char *name;
	uint8_t nargs;		/* 0: no timed event of this name */
	uint8_t since;		/* first format version with it */
	uint8_t stack_args;	/* bit i: value i is a stack id */
	uint8_t string_args;	/* bit i: value i is a string id */
};

/* The spec of @type, or NULL when no timed event has that type. */
const struct gt_go123_spec *gt_go123_spec(unsigned int type);
/* "GoStart"...; "type N" for unknown ones (in a static buffer). */
const char *gt_go123_type_name(unsigned int type);

#endif /* GOTRACE_GO123_H */
