/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flight.h - 'gotrace record --flight': the snapshots of a flight-mode
 * session, each written as a file of its own
 *
 * The module keeps the last window of generations; each snapshot (asked
 * for by 'gotrace snapshot', SIGUSR1 to the recorder, or a trigger) is a
 * complete trace that read() returns, followed by a read of 0.  Each one
 * is written under a temporary name and renamed, once complete, to a
 * name that says when it was taken and why:
 * DIR/flight-20261125T143005.123Z-0001-latency.trace.
 */
#ifndef GOTRACE_FLIGHT_H
#define GOTRACE_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <linux/gotrace.h>

#include "keep.h"

struct gt_flight {
	const char *dir;
	int fd;				/* the snapshot being written, or -1 */
	char *tmp;			/* its temporary name */
	uint64_t file_bytes;		/* of the open file */
	uint64_t files;			/* snapshots complete */
	uint64_t bytes;			/* in all of them */
	uint64_t last_seq;		/* of the last one complete */
	int err;			/* errno of the first failure */
	struct gt_keep kept;		/* --keep: the newest snapshots */
};

/* Create @dir if needed.  0, or -1 after saying why. */
int gt_flight_open(struct gt_flight *f, const char *dir);

/* @len bytes of the snapshot being read.  0 or -errno. */
int gt_flight_write(struct gt_flight *f, const void *buf, size_t len);

/*
 * The snapshot @info ended (taken at wall-clock time @wall): its file
 * gets its final name, returned in @name (the caller frees it); with
 * @f->kept.keep, the oldest of this session's files beyond the newest
 * @f->kept.keep are removed.  0, or -errno (the file keeps its temporary
 * name).
 */
int gt_flight_commit(struct gt_flight *f, const struct gotrace_snapshot *info,
		     const struct timespec *wall, char **name);

/* The recording ended: a snapshot cut short keeps its temporary name. */
void gt_flight_close(struct gt_flight *f);

/* "latency", "offcpu", "user", "stop": the reason in a file name. */
const char *gt_flight_reason(const struct gotrace_snapshot *info);

/* The file name of snapshot @info taken at @wall, under @dir. */
char *gt_flight_name(const char *dir, const struct gotrace_snapshot *info,
		     const struct timespec *wall);

/*
 * Why it was taken, for the summary line: "trigger sched-latency: tid
 * 812 (victim) runnable 152.311 ms before it ran", "asked for (gotrace
 * snapshot, SIGUSR1)", "the recording stopped".
 */
void gt_flight_describe(const struct gotrace_snapshot *info, char *buf,
			size_t len);

/* "256M", "1G", "512K" or bytes.  False for anything else or zero. */
bool gt_flight_parse_size(const char *s, uint64_t *bytes);

/*
 * "sched-latency:50ms" (or "latency:50ms"), "off-cpu:1s" (or
 * "offcpu:1s"): @t's type and threshold; "syscall:kill": the type and
 * the syscall's number, native to the architecture the command is
 * built for.  False for anything else.
 */
bool gt_flight_parse_trigger(const char *s, struct gotrace_trigger *t);

#endif /* GOTRACE_FLIGHT_H */
