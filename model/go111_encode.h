/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go111_encode.h - the Go execution trace wire format ("go 1.11 trace")
 *
 * Pure functions that append records to a caller-owned byte buffer: no
 * allocation, no locking, no kernel headers beyond types, so the same
 * file builds into the module and into the host unit tests.
 *
 * A struct gt_enc is one batch being written: it starts with EvBatch(P,
 * base) and every event after it carries its timestamp as a delta from the
 * previous event of the same batch.  Every append either writes the whole
 * record or nothing and returns false, so a full buffer never holds a cut
 * record (the readers reject a file that ends inside one).
 *
 * Context: any; the caller serialises access to one struct gt_enc.
 */
#ifndef _GT_GO111_ENCODE_H
#define _GT_GO111_ENCODE_H

#include "model_types.h"

#include "go_trace.h"

/* An unsigned LEB128 value takes at most 10 bytes (64 bits / 7). */
#define GT_LEB_MAX		10

/* The most values an event we write has: GoCreate, GoUnblock, GoSysExit,
 * GoStartLabel have a delta and three arguments.
 */
#define GT_EV_MAX_VALUES	4

/* Worst case size of one event: type byte, length byte, values. */
#define GT_EV_MAX_BYTES		(2 + GT_EV_MAX_VALUES * GT_LEB_MAX)

/* Size of an EvBatch record at most: type byte, P, base timestamp. */
#define GT_BATCH_MAX_BYTES	(1 + 2 * GT_LEB_MAX)

/*
 * Go 1.23 reads a length-prefixed record into a 2048-byte buffer, and the
 * length of an EvStack record is one LEB128 byte pair at most: keep every
 * stack record's values within this many bytes.
 */
#define GT_STACK_MAX_VALUE_BYTES 2048

/* Frames one stack may hold so that GT_STACK_MAX_VALUE_BYTES is never
 * exceeded: id and count take 20 bytes, a frame at most 4 x 10.
 */
#define GT_STACK_MAX_FRAMES	((GT_STACK_MAX_VALUE_BYTES - 2 * GT_LEB_MAX) / \
				 (4 * GT_LEB_MAX))

/* The readers refuse strings longer than 1e6 bytes; Go cuts names at 1024. */
#define GT_STRING_MAX		1024

struct gt_frame {
	u64 pc;
	u64 func;	/* string id of the function name */
	u64 file;	/* string id of the file name */
	u64 line;
};

struct gt_enc {
	u8 *buf;
	u32 cap;
	u32 len;
	u64 last_ts;	/* timestamp of the last event of the batch */
};

/* Bytes an unsigned LEB128 encoding of @v takes. */
static inline unsigned int gt_leb_len(u64 v)
{
	unsigned int n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

unsigned int gt_leb_put(u8 *p, u64 v);

static inline void gt_enc_init(struct gt_enc *e, void *buf, u32 cap)
{
	e->buf = buf;
	e->cap = cap;
	e->len = 0;
	e->last_ts = 0;
}

static inline u32 gt_enc_room(const struct gt_enc *e)
{
	return e->cap - e->len;
}

bool gt_enc_raw(struct gt_enc *e, const void *p, u32 n);
bool gt_enc_batch(struct gt_enc *e, u64 p, u64 ts);
bool gt_enc_event(struct gt_enc *e, unsigned int type, u64 ts,
		  const u64 *args, unsigned int nargs);
bool gt_enc_frequency(struct gt_enc *e, u64 ticks_per_second);
bool gt_enc_string(struct gt_enc *e, u64 id, const char *s, u32 len);
bool gt_enc_stack(struct gt_enc *e, u64 id, const struct gt_frame *frames,
		  unsigned int n);

/* Bytes gt_enc_string() needs for a string of @len bytes. */
static inline u32 gt_enc_string_size(u64 id, u32 len)
{
	return 1 + gt_leb_len(id) + gt_leb_len(len) + len;
}

/* Shorthands for events with no, one, two and three arguments. */
static inline bool gt_enc_ev0(struct gt_enc *e, unsigned int type, u64 ts)
{
	return gt_enc_event(e, type, ts, NULL, 0);
}

static inline bool gt_enc_ev1(struct gt_enc *e, unsigned int type, u64 ts,
			      u64 a)
{
	return gt_enc_event(e, type, ts, &a, 1);
}

static inline bool gt_enc_ev2(struct gt_enc *e, unsigned int type, u64 ts,
			      u64 a, u64 b)
{
	u64 v[2] = { a, b };

	return gt_enc_event(e, type, ts, v, 2);
}

static inline bool gt_enc_ev3(struct gt_enc *e, unsigned int type, u64 ts,
			      u64 a, u64 b, u64 c)
{
	u64 v[3] = { a, b, c };

	return gt_enc_event(e, type, ts, v, 3);
}

#endif /* _GT_GO111_ENCODE_H */
