// SPDX-License-Identifier: GPL-2.0
/*
 * go111_sym.c - a "go 1.11 trace" with its user frames named
 *
 * The file is checked whole first (go111_check.c): its strings are one
 * table for the whole file, and its stacks are anywhere (gotrace writes
 * them in the footer).  Then its records are copied in one pass; a Stack
 * record holding a frame that can be named is written again with the
 * frame's new function and file strings, and those strings, under ids
 * above the file's largest, are appended after the last record: the
 * readers resolve a stack's strings once the whole file is read.  A
 * Stack record whose values would pass the 2048 bytes Go 1.23 reads is
 * left as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "go111_sym.h"
#include "leb128.h"

#define MAX_EVENT_BYTES	2048	/* Go 1.23: length-prefixed values */

/* The strings of the index; the last two returned stay valid. */
struct strings {
	const struct gt_src *src;
	const struct gt_trace_index *ix;
	char *buf[2];
	size_t cap[2];
	int next;
};

static bool get_string(void *ctx, uint64_t id, const char **s, size_t *len)
{
	struct strings *t = ctx;
	const uint64_t *v;
	size_t n;
	char **b = &t->buf[t->next];

	if (!id) {
		*s = "";
		*len = 0;
		return true;
	}
	v = u64map_get(&t->ix->strings, id);
	if (!v)
		return false;
	n = (size_t)(*v >> 40);
	if (n + 1 > t->cap[t->next]) {
		char *nb = realloc(*b, n + 1);

		if (!nb)
			return false;
		*b = nb;
		t->cap[t->next] = n + 1;
	}
	if (gt_src_read(t->src, *v & ((1ULL << 40) - 1), *b, n))
		return false;
	(*b)[n] = 0;
	*s = *b;
	*len = n;
	t->next ^= 1;
	return true;
}

/*
 * The values @body (@len bytes) of a Stack record with its frames named
 * into @out.  1: some frame was named; 0: none; -1: out of memory or
 * values that do not decode.
 */
static int rewrite_stack(struct gt_namer *nm, const uint8_t *body, size_t len,
			 struct gt_buf *out)
{
	const uint8_t *p = body, *end = body + len;
	bool after_async = false;
	uint64_t id, n, v[4];
	bool changed = false, oom = false;
	int k;

	for (int i = 0; i < 2; i++) {
		k = gt_leb_get(p, (size_t)(end - p), i ? &n : &id);
		if (k <= 0)
			return -1;
		p += k;
	}
	if (gt_buf_leb(out, id) || gt_buf_leb(out, n))
		return -1;
	for (uint64_t f = 0; f < n; f++) {
		for (int i = 0; i < 4; i++) {
			k = gt_leb_get(p, (size_t)(end - p), &v[i]);
			if (k <= 0)
				return -1;
			p += k;
		}
		if (gt_namer_stack_frame(nm, v, &after_async, &oom))
			changed = true;
		if (oom)
			return -1;
		for (int i = 0; i < 4; i++)
			if (gt_buf_leb(out, v[i]))
				return -1;
	}
	return changed;
}

/* Skip @n LEB128 values; false if the file ends in them. */
static bool skip_vals(struct gt_cur *c, unsigned int n)
{
	uint64_t v;

	while (n--)
		if (gt_cur_leb(c, &v) <= 0)
			return false;
	return true;
}

/*
 * Copy the records, Stack records named; the file checked, so every
 * record decodes.  0, or -1 out of memory or when writing fails.
 */
static int copy_records(const struct gt_src *src, FILE *out,
			struct gt_namer *nm)
{
	struct gt_buf body = { 0 }, rec = { 0 };
	struct gt_cur c;
	uint64_t from = 0, len, at;
	int ret = -1;

	if (gt_cur_init(&c, src))
		return -1;
	gt_cur_seek(&c, 16, src->len);
	while (c.pos < src->len) {
		uint64_t off = c.pos;
		unsigned int type, bits;
		uint8_t first;
		int named;

		if (!gt_cur_byte(&c, &first))
			goto out;
		type = first & 0x3f;
		bits = first >> 6;
		if (type == GOTRACE_EV_STRING) {
			if (gt_cur_leb(&c, &at) <= 0 || gt_cur_leb(&c, &len) <= 0 ||
			    !gt_cur_skip(&c, len))
				goto out;
			continue;
		}
		if (bits < 3) {
			if (!skip_vals(&c, bits + 1))
				goto out;
		} else {
			if (gt_cur_leb(&c, &len) <= 0 || len > MAX_EVENT_BYTES)
				goto out;
			if (type == GOTRACE_EV_STACK) {
				if (gt_cur_fill(&c, (size_t)len) < len)
					goto out;
				body.len = rec.len = 0;
				named = rewrite_stack(nm, gt_cur_ptr(&c),
						      (size_t)len, &body);
				if (named < 0)
					goto out;
				if (named && body.len <= MAX_EVENT_BYTES) {
					if (gt_buf_put(&rec, &first, 1) ||
					    gt_buf_leb(&rec, body.len) ||
					    gt_buf_put(&rec, body.p, body.len) ||
					    gt_src_copy(src, from, off, out) ||
					    fwrite(rec.p, 1, rec.len, out) !=
					    rec.len)
						goto out;
					from = c.pos + len;
				}
			}
			if (!gt_cur_skip(&c, len))
				goto out;
		}
		/* The logged value follows the values, outside the length. */
		if (type == GOTRACE_EV_USER_LOG &&
		    (gt_cur_leb(&c, &len) <= 0 || !gt_cur_skip(&c, len)))
			goto out;
	}
	if (gt_src_copy(src, from, src->len, out) || (nm->pending.len &&
	    fwrite(nm->pending.p, 1, nm->pending.len, out) != nm->pending.len))
		goto out;
	ret = 0;
out:
	gt_cur_free(&c);
	free(body.p);
	free(rec.p);
	return ret;
}

int gt_v1_symbolize(const struct gt_src *src, FILE *out, struct gt_usym *u,
		    struct gt_sym_counts *n, struct gt_trace_error *err)
{
	struct gt_trace_index ix = { 0 };
	struct gt_trace_info info;
	struct strings t = { .src = src, .ix = &ix };
	struct gt_namer nm = { .u = u, .n = n, .string = get_string,
			       .ctx = &t, .string_byte = GOTRACE_EV_STRING,
			       .next_id = 1 };
	uint64_t id, v;
	size_t i = 0;
	int ret;

	memset(n, 0, sizeof(*n));
	if (gt_trace_scan(src, &info, &ix, err)) {
		gt_trace_index_free(&ix);
		return gt_src_copy(src, 0, src->len, out) ? -2 : -1;
	}
	while (u64map_next(&ix.strings, &i, &id, &v))
		if (id >= nm.next_id)
			nm.next_id = id + 1;
	ret = copy_records(src, out, &nm) ? -2 : 0;
	if (ret) {
		err->off = 0;
		snprintf(err->msg, sizeof(err->msg),
			 "out of memory, or cannot write the output");
	} else {
		n->generations = 1;
	}
	gt_namer_free(&nm);
	gt_trace_index_free(&ix);
	free(t.buf[0]);
	free(t.buf[1]);
	return ret;
}
