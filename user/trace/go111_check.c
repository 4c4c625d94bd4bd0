// SPDX-License-Identifier: GPL-2.0
/*
 * go111_check.c - strict structural check of a "go 1.11 trace" file
 *
 * One pass over the file through a cursor (input.c), decoding records
 * as Go 1.21's readTrace does
 * (internal/trace/parser.go) and checking each as parseEvents does, then
 * the references that may point forward (stacks, strings, goroutines) at
 * the end.  Stricter than Go where Go 1.23's reader or the web UI would
 * fail later (records before the first batch, EvBatch count bits, length
 * prefixes over 2048 bytes, a GoCreate without a new stack).
 *
 * Record layout (Documentation/trace-format.rst): first byte = type (low 6 bits)
 * | (number of values - 1) << 6; with 4 or more values the count bits are
 * 3 and a LEB128 byte length of the values precedes them.  EvString is
 * id, length, raw bytes whatever the count bits say.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go111_check.h"
#include "base.h"

#define HEADER		"go 1.11 trace\0\0\0"
#define HEADER_LEN	16


/* Limits of the readers (Documentation/trace-format.rst). */
#define MAX_EVENT_BYTES	2048		/* 1.23: length-prefixed values */
#define MAX_VALUES	MAX_EVENT_BYTES	/* a value takes at least a byte */
#define MAX_FRAMES	1000		/* 1.21: EvStack frames */
#define MAX_STRING	1000000		/* both: string length */
#define FAKE_P		1000000		/* first P id the readers reserve */

struct checker {
	struct gt_cur cur;
	uint64_t len;
	size_t off;		/* start of the record being decoded */
	unsigned int type;
	struct gt_trace_info *info;
	struct gt_trace_index *ix;
	struct gt_trace_error *err;

	bool in_batch;
	uint64_t p;		/* P of the current batch */
	uint64_t ts;		/* time of its last event */
	bool have_ts;

	struct u64map ps;		/* P -> time of its last event */
	struct u64map strings;		/* id -> offset of definition */
	struct u64map pcs;		/* pc -> hash of (func, file, line) */
	struct u64map gs;		/* g -> offset of its GoCreate */
	struct u64map stack_refs;	/* id -> offset of first use */
	struct u64map new_stack_refs;	/* GoCreate new stack -> offset */
	struct u64map string_refs;	/* id -> offset of first use */
	struct u64map g_refs;		/* g -> offset of first use */

	uint64_t vals[MAX_VALUES];
	size_t nvals;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct checker *c, size_t off, const char *fmt, ...)
{
	va_list ap;

	c->err->off = off;
	va_start(ap, fmt);
	vsnprintf(c->err->msg, sizeof(c->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static int fail_nomem(struct checker *c)
{
	return fail(c, c->off, "out of memory");
}

static const char *type_name(unsigned int type)
{
	const char *name = gt_trace_type_name(type);

	return name ? name : "?";
}

static int truncated(struct checker *c)
{
	return fail(c, c->off,
		    "truncated %s record: the file ends at 0x%" PRIx64 " inside it",
		    type_name(c->type), c->len);
}

static int read_val(struct checker *c, uint64_t *v)
{
	uint64_t start = c->cur.pos;

	switch (gt_cur_leb(&c->cur, v)) {
	case GT_LEB_TRUNCATED:
		return truncated(c);
	case GT_LEB_TOO_BIG:
		return fail(c, c->off,
			    "bad LEB128 value at 0x%" PRIx64 ": more than 64 bits",
			    start);
	case GT_LEB_TOO_LONG:
		return fail(c, c->off,
			    "bad LEB128 value at 0x%" PRIx64 ": longer than %d bytes",
			    start, GT_LEB_BYTES_MAX);
	default:
		return 0;
	}
}

/* Raw bytes of a string; returns their offset in *@at. */
static int read_bytes(struct checker *c, uint64_t n, uint64_t *at)
{
	*at = c->cur.pos;
	return gt_cur_skip(&c->cur, n) ? 0 : truncated(c);
}

/* Remember the first offset using @id in @refs. */
static int add_ref(struct checker *c, struct u64map *refs, uint64_t id)
{
	bool added;

	return u64map_put(refs, id, c->off, &added) ? 0 : fail_nomem(c);
}

static int check_string(struct checker *c)
{
	uint64_t id, n, at, *old;
	bool added;

	if (read_val(c, &id) || read_val(c, &n))
		return -1;
	if (id == 0)
		return fail(c, c->off, "String has invalid id 0");
	if (n == 0)
		return fail(c, c->off, "String %" PRIu64 " has length 0", id);
	if (n > MAX_STRING)
		return fail(c, c->off,
			    "String %" PRIu64 " is too long (%" PRIu64 " bytes)",
			    id, n);
	if (read_bytes(c, n, &at))
		return -1;
	old = u64map_put(&c->strings, id, c->off, &added);
	if (!old)
		return fail_nomem(c);
	if (!added)
		return fail(c, c->off,
			    "String %" PRIu64 " defined twice (first at 0x%" PRIx64 ")",
			    id, *old);
	if (!u64map_put(&c->ix->strings, id, at | n << 40, &added))
		return fail_nomem(c);
	c->info->strings++;
	return 0;
}

/* The values of a non-string record, into c->vals. */
static int read_values(struct checker *c, unsigned int count_bits)
{
	uint64_t evlen, start;

	c->nvals = 0;
	if (count_bits < 3) {
		for (unsigned int i = 0; i <= count_bits; i++)
			if (read_val(c, &c->vals[c->nvals++]))
				return -1;
		return 0;
	}
	if (read_val(c, &evlen))
		return -1;
	if (evlen > MAX_EVENT_BYTES)
		return fail(c, c->off,
			    "%s has %" PRIu64 " bytes of values, limit is %d",
			    type_name(c->type), evlen, MAX_EVENT_BYTES);
	start = c->cur.pos;
	while (c->cur.pos - start < evlen) {
		if (read_val(c, &c->vals[c->nvals++]))
			return -1;
	}
	if (c->cur.pos - start != evlen)
		return fail(c, c->off,
			    "%s has wrong length: want %" PRIu64 ", got %" PRIu64,
			    type_name(c->type), evlen, c->cur.pos - start);
	return 0;
}

/* Append the @n frames of the stack in c->vals to the index. */
static int keep_frames(struct checker *c, uint64_t n)
{
	struct gt_trace_index *ix = c->ix;

	if (ix->nframes + n > ix->fcap) {
		size_t cap = ix->fcap ? ix->fcap : 256;
		struct gt_frame *f;

		while (cap < ix->nframes + n)
			cap *= 2;
		f = realloc(ix->frames, cap * sizeof(*f));
		if (!f)
			return fail_nomem(c);
		ix->frames = f;
		ix->fcap = cap;
	}
	for (uint64_t i = 0; i < n; i++) {
		const uint64_t *v = &c->vals[2 + 4 * i];

		ix->frames[ix->nframes++] = (struct gt_frame){
			.pc = v[0], .func = v[1], .file = v[2], .line = v[3],
		};
	}
	return 0;
}

static int check_stack(struct checker *c)
{
	uint64_t id, n, *old;
	bool added;

	if (c->nvals < 2)
		return fail(c, c->off, "Stack has %zu values, want at least 2",
			    c->nvals);
	id = c->vals[0];
	n = c->vals[1];
	if (n > MAX_FRAMES)
		return fail(c, c->off, "Stack %" PRIu64 " has %" PRIu64
			    " frames, limit is %d", id, n, MAX_FRAMES);
	if (c->nvals != 2 + 4 * n)
		return fail(c, c->off, "Stack %" PRIu64 " has wrong number of values: want %" PRIu64 ", got %zu",
			    id, 2 + 4 * n, c->nvals);
	if (id > UINT32_MAX)
		return fail(c, c->off, "Stack id %" PRIu64 " does not fit 32 bits",
			    id);
	if (id == 0 || n == 0)
		return 0;	/* the readers ignore it: an absent stack */
	old = u64map_put(&c->ix->stacks, id, c->ix->nframes | n << 32, &added);
	if (!old)
		return fail_nomem(c);
	if (!added)
		return fail(c, c->off, "Stack %" PRIu64 " defined twice", id);
	c->info->stacks++;
	if (keep_frames(c, n))
		return -1;

	for (uint64_t i = 0; i < n; i++) {
		const uint64_t *f = &c->vals[2 + 4 * i];
		uint64_t h = f[1] * 0x9e3779b97f4a7c15ULL ^
			     f[2] * 0xc2b2ae3d27d4eb4fULL ^ f[3];

		if ((f[1] && add_ref(c, &c->string_refs, f[1])) ||
		    (f[2] && add_ref(c, &c->string_refs, f[2])))
			return -1;
		old = u64map_put(&c->pcs, f[0], h, &added);
		if (!old)
			return fail_nomem(c);
		if (*old != h)
			return fail(c, c->off, "Stack %" PRIu64 ": PC 0x%" PRIx64
				    " has another function/file/line than in an earlier stack",
				    id, f[0]);
	}
	return 0;
}

static int add_batch(struct checker *c, uint64_t p)
{
	struct gt_trace_index *ix = c->ix;

	if (ix->nbatches == ix->bcap) {
		size_t cap = ix->bcap ? ix->bcap * 2 : 64;
		struct gt_batch_ref *b = realloc(ix->batches, cap * sizeof(*b));

		if (!b)
			return fail_nomem(c);
		ix->batches = b;
		ix->bcap = cap;
	}
	ix->batches[ix->nbatches++] = (struct gt_batch_ref){ p, c->off };
	return 0;
}

static int check_batch(struct checker *c, uint8_t first)
{
	uint64_t p = c->vals[0], base = c->vals[1], *last;
	bool added;

	if (first != 0x41)
		return fail(c, c->off, "Batch must be written 0x41, not 0x%02x",
			    first);
	if (p >= FAKE_P && p != UINT64_MAX)
		return fail(c, c->off, "Batch has P %" PRIu64
			    ", P ids from %d on are reserved", p, FAKE_P);
	/* Save the time the previous batch's P reached. */
	if (c->in_batch)
		*u64map_get(&c->ps, c->p) = c->ts;
	last = u64map_put(&c->ps, p, base, &added);
	if (!last)
		return fail_nomem(c);
	if (!added && base < *last)
		return fail(c, c->off, "Batch of P %" PRId64 " starts at %" PRIu64
			    ", before that P's last event at %" PRIu64,
			    (int64_t)p, base, *last);
	if (add_batch(c, p))
		return -1;
	c->in_batch = true;
	c->p = p;
	c->ts = base;
	c->info->batches++;
	return 0;
}

static int check_goroutine(struct checker *c, uint64_t g)
{
	if (!g)
		return fail(c, c->off, "%s of goroutine 0", type_name(c->type));
	return add_ref(c, &c->g_refs, g);
}

static bool has_stack(unsigned int type)
{
	unsigned int nvals;
	bool ts, stk;

	return gt_trace_type_layout(type, &nvals, &ts, &stk) && stk;
}

/* An event with a timestamp delta. */
static int check_event(struct checker *c)
{
	const uint64_t *v = c->vals;
	uint64_t *old;
	bool added;

	if (v[0] > INT64_MAX || c->ts + v[0] < c->ts)
		return fail(c, c->off, "%s: time goes backwards (delta %" PRId64 ")",
			    type_name(c->type), (int64_t)v[0]);
	c->ts += v[0];
	if (!c->have_ts || c->ts < c->info->min_ts)
		c->info->min_ts = c->ts;
	if (!c->have_ts || c->ts > c->info->max_ts)
		c->info->max_ts = c->ts;
	c->have_ts = true;
	c->info->events++;

	if (has_stack(c->type) && v[c->nvals - 1] &&
	    add_ref(c, &c->stack_refs, v[c->nvals - 1]))
		return -1;

	switch (c->type) {
	case GOTRACE_EV_GO_CREATE:
		if (!v[1])
			return fail(c, c->off, "GoCreate of goroutine 0");
		old = u64map_put(&c->gs, v[1], c->off, &added);
		if (!old)
			return fail_nomem(c);
		if (!added)
			return fail(c, c->off, "goroutine %" PRIu64
				    " created twice (first at 0x%" PRIx64 ")",
				    v[1], *old);
		if (!v[2])
			return fail(c, c->off, "GoCreate of goroutine %" PRIu64
				    " has no new stack", v[1]);
		return add_ref(c, &c->new_stack_refs, v[2]);
	case GOTRACE_EV_GO_START_LABEL:
		if (v[3] && add_ref(c, &c->string_refs, v[3]))
			return -1;
		/* fall through */
	case GOTRACE_EV_GO_START:
	case GOTRACE_EV_GO_UNBLOCK:
	case GOTRACE_EV_GO_SYSEXIT:
	case GOTRACE_EV_GO_WAITING:
	case GOTRACE_EV_GO_INSYSCALL:
	case GOTRACE_EV_GO_START_LOCAL:
	case GOTRACE_EV_GO_UNBLOCK_LOCAL:
	case GOTRACE_EV_GO_SYSEXIT_LOCAL:
		return check_goroutine(c, v[1]);
	case GOTRACE_EV_USER_TASK_CREATE:
	case GOTRACE_EV_USER_REGION:
		return v[3] ? add_ref(c, &c->string_refs, v[3]) : 0;
	case GOTRACE_EV_USER_LOG:
		return v[2] ? add_ref(c, &c->string_refs, v[2]) : 0;
	default:
		return 0;
	}
}

static int check_record(struct checker *c)
{
	unsigned int want;
	uint64_t n, at;
	bool ts, stk, added;
	uint8_t first;

	if (!gt_cur_byte(&c->cur, &first))
		return truncated(c);
	c->type = first & 0x3f;
	if (c->type == 0 || c->type >= GT_TRACE_NR_TYPES)
		return fail(c, c->off, "unknown event type %u (byte 0x%02x)",
			    c->type, first);
	if (!c->in_batch && c->type != GOTRACE_EV_BATCH)
		return fail(c, c->off, "%s before the first Batch",
			    type_name(c->type));
	if (c->type == GOTRACE_EV_STRING) {
		if (check_string(c))
			return -1;
		c->info->by_type[c->type]++;
		return 0;
	}
	if (read_values(c, first >> 6))
		return -1;
	if (c->type == GOTRACE_EV_USER_LOG) {
		/* The logged value follows the values, outside the length. */
		if (read_val(c, &n))
			return -1;
		if (n > MAX_STRING)
			return fail(c, c->off, "UserLog value is too long (%" PRIu64 " bytes)", n);
		if (read_bytes(c, n, &at))
			return -1;
	}
	gt_trace_type_layout(c->type, &want, &ts, &stk);
	if (c->type != GOTRACE_EV_STACK && c->nvals != want)
		return fail(c, c->off,
			    "%s has wrong number of values: want %u, got %zu",
			    type_name(c->type), want, c->nvals);
	c->info->by_type[c->type]++;

	switch (c->type) {
	case GOTRACE_EV_BATCH:
		return check_batch(c, first);
	case GOTRACE_EV_FREQUENCY:
		if (c->vals[0] == 0)
			return fail(c, c->off, "Frequency is 0");
		if (c->info->frequency)
			return fail(c, c->off, "second Frequency record");
		c->info->frequency = c->vals[0];
		return 0;
	case GOTRACE_EV_STACK:
		return check_stack(c);
	case GOTRACE_EV_FUTILE_WAKEUP:
		/* Go 1.21 drops it; Go 1.23's conversion refuses the file. */
		return fail(c, c->off,
			    "FutileWakeup: Go 1.23's reader refuses this event (unexpected event type %u)",
			    c->type);
	case GOTRACE_EV_TIMER_GOROUTINE:
		if (!u64map_put(&c->ix->timer_gs, c->vals[0], 1, &added))
			return fail_nomem(c);
		return check_goroutine(c, c->vals[0]);
	default:
		return check_event(c);
	}
}

/* The smallest offset in @refs whose id is missing from @defs. */
static bool first_missing(const struct u64map *refs, const struct u64map *defs,
			  uint64_t *id, uint64_t *off)
{
	uint64_t k, v;
	bool found = false;
	size_t i = 0;

	while (u64map_next(refs, &i, &k, &v)) {
		if (u64map_get(defs, k) || (found && v >= *off))
			continue;
		*id = k;
		*off = v;
		found = true;
	}
	return found;
}

/* What can only be checked once every record was seen. */
static int check_end(struct checker *c)
{
	uint64_t id, off;

	if (!c->info->frequency)
		return fail(c, c->len,
			    "no Frequency record: the recording did not finish (it writes the Frequency, strings and stacks last: the recorder was killed, or the file cut short)");
	if (!c->info->events)
		return fail(c, c->len, "no events: the trace is empty");
	if (first_missing(&c->new_stack_refs, &c->ix->stacks, &id, &off))
		return fail(c, off, "GoCreate: new stack %" PRIu64
			    " is never defined (or has no frames)", id);
	if (first_missing(&c->stack_refs, &c->ix->stacks, &id, &off))
		return fail(c, off, "stack %" PRIu64 " is never defined", id);
	if (first_missing(&c->string_refs, &c->strings, &id, &off))
		return fail(c, off, "string %" PRIu64 " is never defined", id);
	if (first_missing(&c->g_refs, &c->gs, &id, &off))
		return fail(c, off, "goroutine %" PRIu64
			    " is used but never created (no GoCreate)", id);
	return 0;
}

/* The 16-byte header. */
static int check_header(struct checker *c)
{
	uint8_t h[HEADER_LEN];

	if (c->len < HEADER_LEN)
		return fail(c, 0, "%" PRIu64 " bytes, shorter than the 16-byte header",
			    c->len);
	if (gt_src_read(c->cur.src, 0, h, HEADER_LEN))
		return fail(c, 0, "read error");
	if (memcmp(h, HEADER, HEADER_LEN)) {
		char got[4 * HEADER_LEN + 1];

		return fail(c, 0,
			    "bad header: read \"%s\"; gotrace reads \"go 1.11 trace\" and the generational \"go 1.22 trace\" to \"go 1.26 trace\"",
			    gt_fmt_printable(h, HEADER_LEN, got, sizeof(got)));
	}
	return 0;
}

int gt_trace_scan(const struct gt_src *src, struct gt_trace_info *info,
		  struct gt_trace_index *ix, struct gt_trace_error *err)
{
	struct checker *c;
	int ret = -1;

	memset(info, 0, sizeof(*info));
	memset(ix, 0, sizeof(*ix));
	memset(err, 0, sizeof(*err));
	info->bytes = src->len;

	/* vals[] is 16 KiB: keep it off the stack. */
	c = calloc(1, sizeof(*c));
	if (!c || gt_cur_init(&c->cur, src)) {
		free(c);
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -1;
	}
	c->len = src->len;
	c->info = info;
	c->ix = ix;
	c->err = err;
	if (check_header(c))
		goto out;
	gt_cur_seek(&c->cur, HEADER_LEN, c->len);
	while (c->cur.pos < c->len) {
		c->off = c->cur.pos;
		if (check_record(c))
			goto out;
	}
	if (c->in_batch)
		*u64map_get(&c->ps, c->p) = c->ts;
	if (check_end(c))
		goto out;
	ret = 0;
out:
	if (ret && c->cur.ioerr)
		fail(c, c->off, "read error at 0x%zx", c->off);
	info->ps = c->ps.len;
	info->goroutines = c->gs.len;
	gt_cur_free(&c->cur);
	u64map_free(&c->ps);
	u64map_free(&c->strings);
	u64map_free(&c->pcs);
	u64map_free(&c->gs);
	u64map_free(&c->stack_refs);
	u64map_free(&c->new_stack_refs);
	u64map_free(&c->string_refs);
	u64map_free(&c->g_refs);
	free(c);
	return ret;
}

void gt_trace_index_free(struct gt_trace_index *ix)
{
	free(ix->batches);
	free(ix->frames);
	u64map_free(&ix->strings);
	u64map_free(&ix->stacks);
	u64map_free(&ix->timer_gs);
	memset(ix, 0, sizeof(*ix));
}

int gt_trace_check(const uint8_t *buf, size_t len, struct gt_trace_info *info,
		   struct gt_trace_error *err)
{
	struct gt_trace_index ix;
	struct gt_src src;
	int ret;

	gt_src_mem(&src, buf, len);
	ret = gt_trace_scan(&src, info, &ix, err);
	gt_trace_index_free(&ix);
	return ret;
}
