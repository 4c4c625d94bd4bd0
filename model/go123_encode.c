// SPDX-License-Identifier: GPL-2.0
/*
 * go123_encode.c - the generational trace format ("go 1.22 trace" to "go 1.26
 * trace")
 *
 * Record layout (Go's internal/trace readers of Go 1.23 and 1.27): an
 * event is its type byte, the LEB128 delta of its timestamp from the
 * previous event of its batch (from the batch's base time for the first),
 * then a fixed number of LEB128 values that the type defines; no length
 * byte.  Table records (strings, stacks) carry no timestamp.
 *
 * The model writes this format through it (go123_writer.c); the host tests
 * build it too (selftests/host).
 *
 * Context: any; see go123_encode.h.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "go123_encode.h"

bool gt_enc123_header(struct gt_enc123 *e, unsigned int version)
{
	/* "go 1.NN trace" padded with zeros to 16 bytes. */
	static const char head[] = "go 1.";
	static const char tail[] = " trace";
	u8 *q;

	if (version < 10 || version > 99 || e->size_at ||
	    gt_enc123_room(e) < GT_E123_HEADER_BYTES)
		return false;
	q = e->buf + e->len;
	memset(q, 0, GT_E123_HEADER_BYTES);
	memcpy(q, head, sizeof(head) - 1);
	q[5] = (u8)('0' + version / 10);
	q[6] = (u8)('0' + version % 10);
	memcpy(q + 7, tail, sizeof(tail) - 1);
	e->len += GT_E123_HEADER_BYTES;
	return true;
}

/* Write @v in exactly GT_E123_SIZE_BYTES bytes (@v < 2^14). */
static void put_padded(u8 *p, u32 v)
{
	p[0] = (u8)(v | 0x80);
	p[1] = (u8)(v >> 7 & 0x7f);
}

/*
 * Open a batch of generation @gen for M @m with base time @ts.  Its data
 * may not exceed GT_E123_BATCH_DATA_MAX bytes: the room appends see ends
 * there until gt_enc123_batch_end().  Only one batch is open at a time.
 */
bool gt_enc123_batch(struct gt_enc123 *e, u64 gen, u64 m, u64 ts)
{
	u32 need = 1 + gt_leb_len(gen) + gt_leb_len(m) + gt_leb_len(ts) +
		   GT_E123_SIZE_BYTES;
	u8 *q;

	if (e->size_at || gt_enc123_room(e) < need)
		return false;
	q = e->buf + e->len;
	*q++ = GT_E123_EVENT_BATCH;
	q += gt_leb_put(q, gen);
	q += gt_leb_put(q, m);
	q += gt_leb_put(q, ts);
	e->size_at = q - e->buf;
	put_padded(q, 0);
	e->len = e->size_at + GT_E123_SIZE_BYTES;
	if (e->cap - e->len > GT_E123_BATCH_DATA_MAX)
		e->limit = e->len + GT_E123_BATCH_DATA_MAX;
	e->last_ts = ts;
	return true;
}

/* Close the open batch: write its size.  Returns the size of its data. */
u32 gt_enc123_batch_end(struct gt_enc123 *e)
{
	u32 size;

	if (!e->size_at)
		return 0;
	size = e->len - e->size_at - GT_E123_SIZE_BYTES;
	put_padded(e->buf + e->size_at, size);
	e->size_at = 0;
	e->limit = e->cap;
	return size;
}

/*
 * Drop everything written since offset @start (where the caller's open
 * batch began), e.g. a batch that stayed empty.
 */
void gt_enc123_batch_cancel(struct gt_enc123 *e, u32 start)
{
	if (start <= e->len)
		e->len = start;
	e->size_at = 0;
	e->limit = e->cap;
}

/*
 * Append an event stamped @ts to the open batch.  As in go111_encode.c, a
 * timestamp earlier than the batch's last one is written as a zero delta
 * (time never goes backwards in a batch); callers clamp before that.
 */
bool gt_enc123_event(struct gt_enc123 *e, unsigned int type, u64 ts,
		     const u64 *args, unsigned int nargs)
{
	u64 delta = ts > e->last_ts ? ts - e->last_ts : 0;
	u32 need = 1 + gt_leb_len(delta);
	unsigned int i;
	u8 *q;

	if (!e->size_at || nargs > GT_E123_ARGS_MAX)
		return false;
	for (i = 0; i < nargs; i++)
		need += gt_leb_len(args[i]);
	if (gt_enc123_room(e) < need)
		return false;
	q = e->buf + e->len;
	*q++ = (u8)type;
	q += gt_leb_put(q, delta);
	for (i = 0; i < nargs; i++)
		q += gt_leb_put(q, args[i]);
	e->len = q - e->buf;
	if (ts > e->last_ts)
		e->last_ts = ts;
	return true;
}

/*
 * Open a batch of no M of kind @kind (a table, CPU samples), based at
 * @ts, and write its first byte.
 */
static bool kind_batch(struct gt_enc123 *e, u64 gen, u64 ts, u8 kind)
{
	u32 start = e->len;

	if (!gt_enc123_batch(e, gen, GT_E123_NO_M, ts))
		return false;
	if (!gt_enc123_room(e)) {
		gt_enc123_batch_cancel(e, start);
		return false;
	}
	e->buf[e->len++] = kind;
	return true;
}

/* Open a string table batch of generation @gen (end it with batch_end). */
bool gt_enc123_strings(struct gt_enc123 *e, u64 gen)
{
	return kind_batch(e, gen, 0, GT_E123_STRINGS);
}

/*
 * Append string @id (ids are per generation, never 0) to the open string
 * table batch.  Longer strings than the readers take keep their last
 * GT_E123_STRING_MAX bytes, as go111_encode.c does.
 */
bool gt_enc123_string(struct gt_enc123 *e, u64 id, const char *s, u32 len)
{
	u8 *q;

	if (len > GT_E123_STRING_MAX) {
		s += len - GT_E123_STRING_MAX;
		len = GT_E123_STRING_MAX;
	}
	if (!e->size_at ||
	    gt_enc123_room(e) < 1 + gt_leb_len(id) + gt_leb_len(len) + len)
		return false;
	q = e->buf + e->len;
	*q++ = GT_E123_STRING;
	q += gt_leb_put(q, id);
	q += gt_leb_put(q, len);
	memcpy(q, s, len);
	e->len = q + len - e->buf;
	return true;
}

/*
 * Open a CPU samples batch of generation @gen, based at @ts: the batch
 * of no M whose first byte says it holds samples, as Go's runtime writes
 * the samples its profiler took (end it with batch_end).
 */
bool gt_enc123_cpu_samples(struct gt_enc123 *e, u64 gen, u64 ts)
{
	return kind_batch(e, gen, ts, GT_E123_CPU_SAMPLES);
}

/*
 * Append a CPU sample to the open samples batch: unlike an event's, its
 * time is absolute (Go's readers sort the samples of a generation by it
 * and place them among its events), then the M, P and G it caught and
 * its stack.
 */
bool gt_enc123_cpu_sample(struct gt_enc123 *e, u64 ts, u64 m, u64 p, u64 g,
			  u64 stack)
{
	u8 *q;

	if (!e->size_at ||
	    gt_enc123_room(e) < 1 + gt_leb_len(ts) + gt_leb_len(m) +
			      gt_leb_len(p) + gt_leb_len(g) + gt_leb_len(stack))
		return false;
	q = e->buf + e->len;
	*q++ = GT_E123_CPU_SAMPLE;
	q += gt_leb_put(q, ts);
	q += gt_leb_put(q, m);
	q += gt_leb_put(q, p);
	q += gt_leb_put(q, g);
	q += gt_leb_put(q, stack);
	e->len = q - e->buf;
	return true;
}

/* Open a stack table batch of generation @gen (end it with batch_end). */
bool gt_enc123_stacks(struct gt_enc123 *e, u64 gen)
{
	return kind_batch(e, gen, 0, GT_E123_STACKS);
}

/*
 * Append stack @id, innermost frame first, to the open stack table batch;
 * more than GT_E123_STACK_MAX_FRAMES frames keep the innermost ones.
 */
bool gt_enc123_stack(struct gt_enc123 *e, u64 id, const struct gt_frame *frames,
		     unsigned int n)
{
	u32 need;
	unsigned int i;
	u8 *q;

	if (n > GT_E123_STACK_MAX_FRAMES)
		n = GT_E123_STACK_MAX_FRAMES;
	need = 1 + gt_leb_len(id) + gt_leb_len(n);
	for (i = 0; i < n; i++)
		need += gt_leb_len(frames[i].pc) + gt_leb_len(frames[i].func) +
			gt_leb_len(frames[i].file) + gt_leb_len(frames[i].line);
	if (!e->size_at || gt_enc123_room(e) < need)
		return false;
	q = e->buf + e->len;
	*q++ = GT_E123_STACK;
	q += gt_leb_put(q, id);
	q += gt_leb_put(q, n);
	for (i = 0; i < n; i++) {
		q += gt_leb_put(q, frames[i].pc);
		q += gt_leb_put(q, frames[i].func);
		q += gt_leb_put(q, frames[i].file);
		q += gt_leb_put(q, frames[i].line);
	}
	e->len = q - e->buf;
	return true;
}

/*
 * The whole sync batch of generation @gen: before 1.25 a lone frequency
 * record; from 1.25 the sync byte, the frequency and @clock (required
 * then), whose timestamp is the batch's base time.
 */
bool gt_enc123_sync(struct gt_enc123 *e, unsigned int version, u64 gen,
		    u64 ticks_per_second, const struct gt_e2_clock *clock)
{
	bool snap = version >= GT_E123_GO125;
	u32 start = e->len, need;
	u8 *q;

	if (!ticks_per_second || (snap && !clock))
		return false;
	if (!gt_enc123_batch(e, gen, GT_E123_NO_M, snap ? clock->ts : 0))
		return false;
	need = 1 + gt_leb_len(ticks_per_second);
	if (snap)
		need += 2 + 1 + gt_leb_len(clock->mono) +
			gt_leb_len(clock->sec) + gt_leb_len(clock->nsec);
	if (gt_enc123_room(e) < need) {
		gt_enc123_batch_cancel(e, start);
		return false;
	}
	q = e->buf + e->len;
	if (snap)
		*q++ = GT_E123_SYNC;
	*q++ = GT_E123_FREQUENCY;
	q += gt_leb_put(q, ticks_per_second);
	if (snap) {
		*q++ = GT_E123_CLOCK_SNAPSHOT;
		q += gt_leb_put(q, 0);	/* delta from the base time */
		q += gt_leb_put(q, clock->mono);
		q += gt_leb_put(q, clock->sec);
		q += gt_leb_put(q, clock->nsec);
	}
	e->len = q - e->buf;
	gt_enc123_batch_end(e);
	return true;
}

/* From 1.26 a generation ends with a bare byte; before, nothing to do. */
bool gt_enc123_end_of_generation(struct gt_enc123 *e, unsigned int version)
{
	if (e->size_at)
		return false;
	if (version < GT_E123_GO126)
		return true;
	if (!gt_enc123_room(e))
		return false;
	e->buf[e->len++] = GT_E123_END_OF_GENERATION;
	return true;
}
