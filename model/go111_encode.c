// SPDX-License-Identifier: GPL-2.0
/*
 * go111_encode.c - the Go execution trace wire format ("go 1.11 trace")
 *
 * Record layout (Go's runtime/trace.go, and the readers in Go 1.21 and
 * 1.23): the first byte holds the event type in its low 6 bits and, in
 * its top 2 bits, the number of values minus one; with four values or
 * more the top bits are 3 and a LEB128 byte length of the values follows.
 * All numbers are unsigned LEB128.  EvBatch, EvFrequency, EvString and
 * EvStack have fixed first bytes of their own.
 *
 * Context: any; see go111_encode.h.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "go111_encode.h"

/* First bytes of the records that do not follow the type|count rule. */
#define ENC_BATCH_BYTE		(GOTRACE_EV_BATCH | 1 << 6)	/* 0x41 */
#define ENC_FREQUENCY_BYTE	GOTRACE_EV_FREQUENCY		/* 0x02 */
#define ENC_STRING_BYTE		(GOTRACE_EV_STRING | 0 << 6)	/* 0x25 */
#define ENC_STACK_BYTE		(GOTRACE_EV_STACK | 3 << 6)	/* 0xc3 */

unsigned int gt_leb_put(u8 *p, u64 v)
{
	unsigned int n = 0;

	while (v >= 0x80) {
		p[n++] = (u8)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (u8)v;
	return n;
}

bool gt_enc_raw(struct gt_enc *e, const void *p, u32 n)
{
	if (gt_enc_room(e) < n)
		return false;
	memcpy(e->buf + e->len, p, n);
	e->len += n;
	return true;
}

bool gt_enc_batch(struct gt_enc *e, u64 p, u64 ts)
{
	u8 *q;

	if (gt_enc_room(e) < 1 + gt_leb_len(p) + gt_leb_len(ts))
		return false;
	q = e->buf + e->len;
	*q++ = ENC_BATCH_BYTE;
	q += gt_leb_put(q, p);
	q += gt_leb_put(q, ts);
	e->len = q - e->buf;
	e->last_ts = ts;
	return true;
}

/*
 * Append an ordinary event stamped @ts.  A timestamp earlier than the
 * batch's last one is written as a zero delta: the readers add deltas as
 * signed numbers and a wrapped one would move time backwards, which both
 * reject.  Callers clamp before they get here (model.c), so this is only
 * a guard.
 */
bool gt_enc_event(struct gt_enc *e, unsigned int type, u64 ts,
		  const u64 *args, unsigned int nargs)
{
	u64 delta = ts > e->last_ts ? ts - e->last_ts : 0;
	unsigned int vlen = gt_leb_len(delta);
	unsigned int i, need;
	u8 *q;

	for (i = 0; i < nargs; i++)
		vlen += gt_leb_len(args[i]);
	need = 1 + vlen + (nargs >= 3 ? gt_leb_len(vlen) : 0);
	if (gt_enc_room(e) < need)
		return false;

	q = e->buf + e->len;
	if (nargs < 3) {
		*q++ = (u8)(type | nargs << 6);
	} else {
		*q++ = (u8)(type | 3 << 6);
		q += gt_leb_put(q, vlen);
	}
	q += gt_leb_put(q, delta);
	for (i = 0; i < nargs; i++)
		q += gt_leb_put(q, args[i]);
	e->len = q - e->buf;
	if (ts > e->last_ts)
		e->last_ts = ts;
	return true;
}

bool gt_enc_frequency(struct gt_enc *e, u64 ticks_per_second)
{
	u8 *q;

	if (gt_enc_room(e) < 1 + gt_leb_len(ticks_per_second))
		return false;
	q = e->buf + e->len;
	*q++ = ENC_FREQUENCY_BYTE;
	q += gt_leb_put(q, ticks_per_second);
	e->len = q - e->buf;
	return true;
}

/*
 * Strings must be 1..1e6 bytes long; names longer than GT_STRING_MAX keep
 * their last GT_STRING_MAX bytes, as Go's runtime does for file names.
 */
bool gt_enc_string(struct gt_enc *e, u64 id, const char *s, u32 len)
{
	u8 *q;

	if (len > GT_STRING_MAX) {
		s += len - GT_STRING_MAX;
		len = GT_STRING_MAX;
	}
	if (!len) {
		s = "?";
		len = 1;
	}
	if (gt_enc_room(e) < gt_enc_string_size(id, len))
		return false;
	q = e->buf + e->len;
	*q++ = ENC_STRING_BYTE;
	q += gt_leb_put(q, id);
	q += gt_leb_put(q, len);
	memcpy(q, s, len);
	e->len = q + len - e->buf;
	return true;
}

/*
 * EvStack: id, frame count, then pc, function, file and line per frame,
 * innermost frame first.  Frames beyond GT_STACK_MAX_FRAMES are dropped
 * from the outer end... except the last one, which names the task (the
 * comm frame every stack of a task ends with), so it is kept.
 */
bool gt_enc_stack(struct gt_enc *e, u64 id, const struct gt_frame *frames,
		  unsigned int n)
{
	unsigned int vlen, i, keep = n;
	const struct gt_frame *f;
	u8 *q;

	if (keep > GT_STACK_MAX_FRAMES)
		keep = GT_STACK_MAX_FRAMES;

	vlen = gt_leb_len(id) + gt_leb_len(keep);
	for (i = 0; i < keep; i++) {
		f = i == keep - 1 ? &frames[n - 1] : &frames[i];
		vlen += gt_leb_len(f->pc) + gt_leb_len(f->func) +
			gt_leb_len(f->file) + gt_leb_len(f->line);
	}
	if (gt_enc_room(e) < 1 + gt_leb_len(vlen) + vlen)
		return false;

	q = e->buf + e->len;
	*q++ = ENC_STACK_BYTE;
	q += gt_leb_put(q, vlen);
	q += gt_leb_put(q, id);
	q += gt_leb_put(q, keep);
	for (i = 0; i < keep; i++) {
		f = i == keep - 1 ? &frames[n - 1] : &frames[i];
		q += gt_leb_put(q, f->pc);
		q += gt_leb_put(q, f->func);
		q += gt_leb_put(q, f->file);
		q += gt_leb_put(q, f->line);
	}
	e->len = q - e->buf;
	return true;
}
