// SPDX-License-Identifier: GPL-2.0
/*
 * pprof_enc.c - the protocol buffer encoding of a profile
 *
 * Protocol buffers' wire format, as much as pprof needs: a field is a
 * key (field number << 3 | wire type) and a value; wire type 0 is a
 * varint (LEB128, two's complement for negative int64), 2 a length and
 * that many bytes (strings, nested messages, packed repeated varints).
 * A nested message is encoded into a scratch buffer first to learn its
 * length; the largest is one sample, so the scratch stays small.
 */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "pprof_enc.h"

/* Field numbers of profile.proto. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	LOCATION_ID = 1, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

struct buf {
	uint8_t *b;
	size_t len, cap;
	bool oom;
};

static void put(struct buf *b, const void *p, size_t n)
{
	/* An empty field ("" or no frames) may come with no buffer at all. */
	if (!n)
		return;
	if (b->oom || gt_grow((void **)&b->b, &b->cap, b->len + n, 1)) {
		b->oom = true;
		return;
	}
	memcpy(b->b + b->len, p, n);
	b->len += n;
}

static void varint(struct buf *b, uint64_t v)
{
	uint8_t out[10];
	size_t n = 0;

	do {
		out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put(b, out, n);
}

static void key(struct buf *b, unsigned int field, unsigned int wire)
{
	varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field; proto3 leaves zero values out. */
static void field_u64(struct buf *b, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	key(b, field, WIRE_VARINT);
	varint(b, v);
}

static void field_bytes(struct buf *b, unsigned int field, const void *p,
			size_t n)
{
	key(b, field, WIRE_LEN);
	varint(b, n);
	put(b, p, n);
}

/* Scratch @sub as field @field of @b, then empty it. */
static void field_msg(struct buf *b, unsigned int field, struct buf *sub)
{
	if (sub->oom)
		b->oom = true;
	field_bytes(b, field, sub->b, sub->len);
	sub->len = 0;
}

/* Hand @b's bytes to the writer and empty it. */
static int flush(struct buf *b, gt_pprof_write_fn write, void *ctx)
{
	int ret = b->oom ? -1 : b->len ? write(ctx, b->b, b->len) : 0;

	b->len = 0;
	return ret;
}

/* A ValueType of two strings the profile holds (gt_prof_string()). */
static int value_type(struct buf *b, struct buf *sub, unsigned int field,
		      const struct gt_prof *p, const char *type,
		      const char *unit)
{
	int64_t t = gt_prof_find_string(p, type, strlen(type));
	int64_t u = gt_prof_find_string(p, unit, strlen(unit));

	if (t < 0 || u < 0)
		return -1;
	field_u64(sub, VALUE_TYPE_TYPE, (uint64_t)t);
	field_u64(sub, VALUE_TYPE_UNIT, (uint64_t)u);
	field_msg(b, field, sub);
	return 0;
}

static void sample(struct buf *b, struct buf *sub, struct buf *packed,
		   const struct gt_prof *p, const struct gt_prof_stack *s)
{
	/* Location ids are indexes + 1: pprof's 0 means none. */
	for (uint32_t i = 0; i < s->depth; i++)
		varint(packed, (uint64_t)p->locs_of[s->first + i] + 1);
	if (packed->len)
		field_msg(sub, SAMPLE_LOCATION_ID, packed);
	varint(packed, s->count);
	varint(packed, s->ns);
	field_msg(sub, SAMPLE_VALUE, packed);
	field_msg(b, PROFILE_SAMPLE, sub);
}

static void location(struct buf *b, struct buf *sub, struct buf *line,
		     const struct gt_prof_loc *l, size_t i)
{
	field_u64(sub, LOCATION_ID, i + 1);
	field_u64(sub, LOCATION_ADDRESS, l->pc);
	field_u64(line, LINE_FUNCTION_ID, (uint64_t)l->func + 1);
	field_u64(line, LINE_LINE, (uint64_t)l->line);
	field_msg(sub, LOCATION_LINE, line);
	field_msg(b, PROFILE_LOCATION, sub);
}

static void function(struct buf *b, struct buf *sub,
		     const struct gt_prof_func *f, size_t i)
{
	field_u64(sub, FUNCTION_ID, i + 1);
	field_u64(sub, FUNCTION_NAME, f->name);
	field_u64(sub, FUNCTION_SYSTEM_NAME, f->name);
	field_u64(sub, FUNCTION_FILENAME, f->file);
	field_msg(b, PROFILE_FUNCTION, sub);
}

int gt_pprof_encode(const struct gt_prof *p, gt_pprof_write_fn write,
		    void *ctx)
{
	/* The value types of each kind (profile.h): two, then the period's. */
	static const char *const types[][3][2] = {
		[GT_PROF_TIME] = { { "contentions", "count" },
				   { "delay", "nanoseconds" },
				   { "trace", "count" } },
		[GT_PROF_CPU] = { { "samples", "count" },
				  { "cpu", "nanoseconds" },
				  { "cpu", "nanoseconds" } },
	};
	const char *const (*t)[2] = types[p->kind];
	struct buf b = { 0 }, sub = { 0 }, inner = { 0 };
	int ret = -1;

	if (value_type(&b, &sub, PROFILE_SAMPLE_TYPE, p, t[0][0], t[0][1]) ||
	    value_type(&b, &sub, PROFILE_SAMPLE_TYPE, p, t[1][0], t[1][1]) ||
	    value_type(&b, &sub, PROFILE_PERIOD_TYPE, p, t[2][0], t[2][1]))
		goto out;
	field_u64(&b, PROFILE_DURATION_NANOS, p->duration_ns);
	field_u64(&b, PROFILE_PERIOD, p->period);
	if (flush(&b, write, ctx))
		goto out;
	for (size_t i = 0; i < p->nstacks; i++) {
		if (!p->stacks[i].count)
			continue;
		sample(&b, &sub, &inner, p, &p->stacks[i]);
		if (b.len >= 65536 && flush(&b, write, ctx))
			goto out;
	}
	for (size_t i = 0; i < p->nlocs; i++) {
		location(&b, &sub, &inner, &p->locs[i], i);
		if (b.len >= 65536 && flush(&b, write, ctx))
			goto out;
	}
	for (size_t i = 0; i < p->nfuncs; i++) {
		function(&b, &sub, &p->funcs[i], i);
		if (b.len >= 65536 && flush(&b, write, ctx))
			goto out;
	}
	/* Every string, "" first as pprof requires. */
	for (size_t i = 0; i < p->nstr; i++) {
		size_t n;
		const char *s = gt_prof_str(p, (uint32_t)i, &n);

		field_bytes(&b, PROFILE_STRING_TABLE, s, n);
		if (b.len >= 65536 && flush(&b, write, ctx))
			goto out;
	}
	ret = flush(&b, write, ctx);
out:
	free(b.b);
	free(sub.b);
	free(inner.b);
	return ret;
}
