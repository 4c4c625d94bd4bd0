/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go123_encode.h - the writer of Go's generational trace format ("go 1.22
 * trace" to "go 1.26 trace")
 *
 * Like go111_encode.h for "go 1.11 trace": pure functions that append to a
 * caller-owned buffer, no allocation, no locking, built into the module
 * and into the host tests.  Every append writes its whole record or
 * nothing and returns false.
 *
 * A trace is the 16-byte header, then generations.  A generation is a set
 * of batches that all carry its number: one event batch per M and run of
 * that M (several if one overflows), the string and stack tables of the
 * generation (ids are per generation), one sync batch (the frequency, and
 * from 1.25 a clock snapshot) and, from 1.26, a closing end-of-generation
 * byte.  Every batch starts with a header (batch byte, generation, M,
 * base timestamp, data size); the size is written as a three-byte padded
 * LEB128 value, filled in when the batch is closed, so that a batch can
 * be written in one pass (Go's runtime pads the same way, and its reader
 * accepts any LEB128 encoding).  See Documentation/trace-format.rst.
 *
 * Context: any; the caller serialises access to one struct gt_enc123.
 */
#ifndef _GT_GO123_ENCODE_H
#define _GT_GO123_ENCODE_H

#include "go111_encode.h"

/* Event and batch kinds the writer uses (the first byte of a record). */
enum gt_e2_type {
	GT_E123_EVENT_BATCH = 1,
	GT_E123_STACKS = 2,
	GT_E123_STACK = 3,
	GT_E123_STRINGS = 4,
	GT_E123_STRING = 5,
	GT_E123_CPU_SAMPLES = 6,		/* first byte of a CPU samples batch */
	GT_E123_CPU_SAMPLE = 7,		/* time, M, P, G, stack */
	GT_E123_FREQUENCY = 8,
	GT_E123_PROC_START = 10,		/* P, P seq */
	GT_E123_PROC_STOP = 11,		/* - */
	GT_E123_PROC_STEAL = 12,		/* P, P seq, M */
	GT_E123_PROC_STATUS = 13,		/* P, status */
	GT_E123_GO_CREATE = 14,		/* G, stack, start stack */
	GT_E123_GO_START = 16,		/* G, G seq */
	GT_E123_GO_DESTROY = 17,		/* - */
	GT_E123_GO_STOP = 19,		/* reason string, stack */
	GT_E123_GO_BLOCK = 20,		/* reason string, stack */
	GT_E123_GO_UNBLOCK = 21,		/* G, G seq, stack */
	GT_E123_GO_SYSCALL_BEGIN = 22,	/* P seq, stack */
	GT_E123_GO_SYSCALL_END = 23,	/* - */
	GT_E123_GO_SYSCALL_END_BLOCKED = 24, /* - */
	GT_E123_GO_STATUS = 25,		/* G, M, status */
	GT_E123_USER_TASK_BEGIN = 40,	/* task, parent task, name, stack */
	GT_E123_USER_REGION_BEGIN = 42,	/* task, name string, stack */
	GT_E123_USER_REGION_END = 43,	/* task, name string, stack */
	GT_E123_USER_LOG = 44,		/* task, key string, value, stack */
	GT_E123_GO_SWITCH = 45,		/* G, G seq (1.23): the running G
					 * waits, G runs
					 */
	GT_E123_GO_CREATE_BLOCKED = 47,	/* G, stack, start stack (1.23) */
	GT_E123_GO_STATUS_STACK = 48,	/* G, M, status, stack (1.23) */
	GT_E123_SYNC = 50,
	GT_E123_CLOCK_SNAPSHOT = 51,
	GT_E123_END_OF_GENERATION = 52,
};

/* Versions of the format: the N of "go 1.N trace". */
enum {
	GT_E123_GO122 = 22,
	GT_E123_GO123 = 23,
	GT_E123_GO125 = 25,
	GT_E123_GO126 = 26,
};

/* Statuses of ProcStatus and GoStatus. */
enum { GT_E123_P_RUNNING = 1, GT_E123_P_IDLE = 2, GT_E123_P_SYSCALL = 3 };
enum {
	GT_E123_G_RUNNABLE = 1,
	GT_E123_G_RUNNING = 2,
	GT_E123_G_SYSCALL = 3,
	GT_E123_G_WAITING = 4,
};

/* The M of batches no thread wrote (tables, sync): Go's "no thread". */
#define GT_E123_NO_M		(~0ULL)
/*
 * The most data of one batch: Go's readers refuse more than 64 KiB, and
 * a size field of two padded LEB128 bytes holds up to 2^14 - 1.  Three
 * would allow 64 KiB, one byte more in the header of every batch, and
 * with a batch at each context switch (an M is a task) that byte is 2%
 * of a ping-pong's trace; a long batch is cut every 16 KiB instead.
 */
#define GT_E123_BATCH_DATA_MAX	16383
#define GT_E123_SIZE_BYTES	2
/* Batch byte, generation, M, time, size. */
#define GT_E123_BATCH_HDR_MAX	(1 + 3 * GT_LEB_MAX + GT_E123_SIZE_BYTES)
/* Values after the type byte of the longest event: delta and 4 args (UserLog). */
#define GT_E123_ARGS_MAX		4
#define GT_E123_EV_MAX_BYTES	(1 + (1 + GT_E123_ARGS_MAX) * GT_LEB_MAX)
/* A CPU sample: its type byte, then time, M, P, G and stack. */
#define GT_E123_SAMPLE_MAX_BYTES	(1 + 5 * GT_LEB_MAX)
/* Go 1.22+ readers refuse longer strings and deeper stacks. */
#define GT_E123_STRING_MAX	1024
#define GT_E123_STACK_MAX_FRAMES	128
#define GT_E123_HEADER_BYTES	16

/**
 * struct gt_enc123 - one buffer of generational trace being written
 * @buf:	the caller's buffer
 * @cap:	its size
 * @len:	bytes written
 * @limit:	end of the open batch's data room (its 64 KiB cap), or @cap
 * @size_at:	offset of the open batch's size field, 0 if none is open
 * @last_ts:	timestamp of the open batch's last event (deltas are from it)
 */
struct gt_enc123 {
	u8 *buf;
	u32 cap;
	u32 len;
	u32 limit;
	u32 size_at;
	u64 last_ts;
};

struct gt_e2_clock {
	u64 ts;		/* trace clock, in the batch's ticks */
	u64 mono;	/* monotonic clock, ns */
	u64 sec;	/* wall clock */
	u64 nsec;
};

static inline void gt_enc123_init(struct gt_enc123 *e, void *buf, u32 cap)
{
	e->buf = buf;
	e->cap = cap;
	e->len = 0;
	e->limit = cap;
	e->size_at = 0;
	e->last_ts = 0;
}

static inline u32 gt_enc123_room(const struct gt_enc123 *e)
{
	return e->limit - e->len;
}

bool gt_enc123_header(struct gt_enc123 *e, unsigned int version);
bool gt_enc123_batch(struct gt_enc123 *e, u64 gen, u64 m, u64 ts);
u32 gt_enc123_batch_end(struct gt_enc123 *e);
void gt_enc123_batch_cancel(struct gt_enc123 *e, u32 start);
bool gt_enc123_event(struct gt_enc123 *e, unsigned int type, u64 ts,
		     const u64 *args, unsigned int nargs);
bool gt_enc123_strings(struct gt_enc123 *e, u64 gen);
bool gt_enc123_string(struct gt_enc123 *e, u64 id, const char *s, u32 len);
bool gt_enc123_stacks(struct gt_enc123 *e, u64 gen);
bool gt_enc123_stack(struct gt_enc123 *e, u64 id, const struct gt_frame *frames,
		     unsigned int n);
bool gt_enc123_cpu_samples(struct gt_enc123 *e, u64 gen, u64 ts);
bool gt_enc123_cpu_sample(struct gt_enc123 *e, u64 ts, u64 m, u64 p, u64 g,
			  u64 stack);
bool gt_enc123_sync(struct gt_enc123 *e, unsigned int version, u64 gen,
		    u64 ticks_per_second, const struct gt_e2_clock *clock);
bool gt_enc123_end_of_generation(struct gt_enc123 *e, unsigned int version);

/* Shorthands for the scheduling events. */
static inline bool gt_enc123_ev0(struct gt_enc123 *e, unsigned int type, u64 ts)
{
	return gt_enc123_event(e, type, ts, NULL, 0);
}

static inline bool gt_enc123_ev1(struct gt_enc123 *e, unsigned int type, u64 ts,
				 u64 a)
{
	return gt_enc123_event(e, type, ts, &a, 1);
}

static inline bool gt_enc123_ev2(struct gt_enc123 *e, unsigned int type, u64 ts,
				 u64 a, u64 b)
{
	u64 v[2] = { a, b };

	return gt_enc123_event(e, type, ts, v, 2);
}

static inline bool gt_enc123_ev3(struct gt_enc123 *e, unsigned int type, u64 ts,
				 u64 a, u64 b, u64 c)
{
	u64 v[3] = { a, b, c };

	return gt_enc123_event(e, type, ts, v, 3);
}

#endif /* _GT_GO123_ENCODE_H */
