// SPDX-License-Identifier: GPL-2.0
/*
 * go123_sym.c - a generational trace with its user frames named
 *
 * Each generation is read and checked whole (go123_read.c), then its
 * bytes are copied batch by batch.  A stack batch holding unsymbolised
 * user frames is written again, its frames named, in as many batches as
 * the 64 KiB limit asks; the strings it adds follow it in a string batch
 * of the same generation, under ids above the generation's largest (ids
 * are per generation, so every generation adds its own).  Go's readers
 * take a generation whole, so where in it the new batches stand does not
 * matter.  Frames already named, kernel frames, gotrace's synthetic
 * frames and the user frames that cannot be named keep their values.
 */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "go123.h"
#include "go123_read.h"
#include "go123_sym.h"
#include "leb128.h"
#include "usym_frames.h"

#define MAX_BATCH_DATA	65536	/* Go's readers refuse more */

/* String @id of the generation @ctx. */
static bool gen_string(void *ctx, uint64_t id, const char **s, size_t *len)
{
	return gt_go123_string(ctx, id, s, len);
}

/* The header of a batch: its number, M, base time and data size. */
struct hdr {
	uint64_t gen, m, time, size;
};

static int put_batch(struct gt_buf *out, const struct hdr *h,
		     const uint8_t *data, size_t size)
{
	return gt_buf_put(out, "\x01", 1) || gt_buf_leb(out, h->gen) ||
	       gt_buf_leb(out, h->m) || gt_buf_leb(out, h->time) ||
	       gt_buf_leb(out, size) || gt_buf_put(out, data, size) ? -1 : 0;
}

/*
 * The stack batch @data (@size bytes, checked by the reader) with its
 * frames named, onto @out as one or more batches with header @h, then
 * the strings they add.  *@changed: some frame was named (else @out is
 * left for the caller to drop).  0, or -1 out of memory.
 */
static int rewrite_stacks(struct gt_namer *s, const struct hdr *h,
			  const uint8_t *data, size_t size, struct gt_buf *out,
			  bool *changed)
{
	const uint8_t *p = data + 1, *end = data + size;
	struct gt_buf batch = { 0 }, rec = { 0 };
	int ret = -1;
	bool oom = false;

	*changed = false;
	if (gt_buf_put(&batch, "\x02", 1))
		goto out;
	while (p < end) {
		uint64_t id, n, v[4];
		int k;

		rec.len = 0;
		p++;	/* the Stack byte */
		for (int i = 0; i < 2; i++) {
			k = gt_leb_get(p, (size_t)(end - p), i ? &n : &id);
			if (k <= 0)
				goto out;
			p += k;
		}
		if (gt_buf_put(&rec, "\x03", 1) || gt_buf_leb(&rec, id) ||
		    gt_buf_leb(&rec, n))
			goto out;
		bool after_async = false;

		for (uint64_t f = 0; f < n; f++) {
			for (int i = 0; i < 4; i++) {
				k = gt_leb_get(p, (size_t)(end - p), &v[i]);
				if (k <= 0)
					goto out;
				p += k;
			}
			if (gt_namer_stack_frame(s, v, &after_async, &oom))
				*changed = true;
			if (oom)
				goto out;
			for (int i = 0; i < 4; i++)
				if (gt_buf_leb(&rec, v[i]))
					goto out;
		}
		/* A batch full: written, and the table goes on in another. */
		if (batch.len + rec.len > MAX_BATCH_DATA) {
			if (put_batch(out, h, batch.p, batch.len))
				goto out;
			batch.len = 1;
		}
		if (gt_buf_put(&batch, rec.p, rec.len))
			goto out;
	}
	if (put_batch(out, h, batch.p, batch.len))
		goto out;
	ret = 0;
out:
	free(batch.p);
	free(rec.p);
	return ret;
}

/* The pending strings as string batches with header @h. */
static int flush_strings(struct gt_namer *s, const struct hdr *h,
			 struct gt_buf *out)
{
	const uint8_t *p, *end;
	struct gt_buf batch = { 0 };
	int ret = -1;

	/* No frame named: no string, and no buffer (NULL + 0 is undefined). */
	if (!s->pending.len)
		return 0;
	p = s->pending.p;
	end = p + s->pending.len;
	if (gt_buf_put(&batch, "\x04", 1))
		goto out;
	while (p < end) {
		/* One record: the byte, the id, the length, the bytes. */
		const uint8_t *r = p + 1;
		uint64_t v = 0;

		for (int i = 0; i < 2; i++) {
			int k = gt_leb_get(r, (size_t)(end - r), &v);

			if (k <= 0)
				goto out;
			r += k;
		}
		r += v;
		if (batch.len + (size_t)(r - p) > MAX_BATCH_DATA) {
			if (put_batch(out, h, batch.p, batch.len))
				goto out;
			batch.len = 1;
		}
		if (gt_buf_put(&batch, p, (size_t)(r - p)))
			goto out;
		p = r;
	}
	if (batch.len > 1 && put_batch(out, h, batch.p, batch.len))
		goto out;
	s->pending.len = 0;
	ret = 0;
out:
	free(batch.p);
	return ret;
}

/* The header at @p (@n bytes); its length, or 0 if it does not decode. */
static size_t get_hdr(const uint8_t *p, size_t n, bool *exp, struct hdr *h)
{
	uint64_t *v[4] = { &h->gen, &h->m, &h->time, &h->size };
	size_t at;

	*exp = p[0] == GT_GO123_EV_EXPERIMENTAL_BATCH;
	at = *exp ? 2 : 1;
	for (int i = 0; i < 4; i++) {
		int k = at < n ? gt_leb_get(p + at, n - at, v[i]) : 0;

		if (k <= 0)
			return 0;
		at += (size_t)k;
	}
	return at + h->size <= n ? at : 0;
}

/* Generation @g's bytes @raw onto @out, its stack batches rewritten. */
static int write_gen(struct gt_namer *s, const uint8_t *raw, size_t len,
		     struct gt_buf *out)
{
	size_t at = 0;

	while (at < len) {
		const uint8_t *b = raw + at;
		size_t hl, whole, mark = out->len;
		struct hdr h;
		bool exp, changed = false;

		if (b[0] == GT_GO123_EV_END_OF_GENERATION) {
			if (gt_buf_put(out, b, 1))
				return -1;
			at++;
			continue;
		}
		hl = get_hdr(b, len - at, &exp, &h);
		if (!hl)
			return -1;	/* the reader took it: cannot happen */
		whole = hl + (size_t)h.size;
		if (!exp && h.size && b[hl] == GT_GO123_EV_STACKS) {
			if (rewrite_stacks(s, &h, b + hl, (size_t)h.size, out,
					   &changed) ||
			    flush_strings(s, &h, out))
				return -1;
		}
		if (!changed) {
			out->len = mark;
			if (gt_buf_put(out, b, whole))
				return -1;
		}
		at += whole;
	}
	return 0;
}

static int copy_out(FILE *out, const void *p, size_t n)
{
	return !n || fwrite(p, 1, n, out) == n ? 0 : -1;
}

int gt_go123_symbolize(const struct gt_src *src, FILE *out, struct gt_usym *u,
		       struct gt_sym_counts *n, struct gt_trace_error *err)
{
	struct gt_go123_reader r;
	struct gt_go123_gen g = { 0 };
	struct gt_buf raw = { 0 }, o = { 0 };
	uint64_t pos = 16;
	int ret = -2, k;

	memset(n, 0, sizeof(*n));
	gt_go123_open(&r, src);
	if (gt_src_copy(src, 0, pos, out))
		goto write_failed;
	while ((k = gt_go123_next(&r, &g, err)) > 0) {
		struct gt_namer s = { .u = u, .n = n, .string = gen_string,
				      .ctx = &g, .string_byte = GT_GO123_EV_STRING,
				      .next_id = 1 };
		size_t i = 0, len = (size_t)(g.end - g.off);
		uint64_t id, v;
		int w;

		while (u64map_next(&g.strings, &i, &id, &v))
			if (id >= s.next_id)
				s.next_id = id + 1;
		raw.len = o.len = 0;
		if (gt_grow((void **)&raw.p, &raw.cap, len, 1)) {
			snprintf(err->msg, sizeof(err->msg), "out of memory");
			goto out;
		}
		if (gt_src_read(src, g.off, raw.p, len)) {
			snprintf(err->msg, sizeof(err->msg), "cannot read the trace");
			goto out;
		}
		w = write_gen(&s, raw.p, len, &o);
		gt_namer_free(&s);
		if (w) {
			err->off = (size_t)g.off;
			snprintf(err->msg, sizeof(err->msg),
				 "generation %llu: out of memory",
				 (unsigned long long)g.gen);
			goto out;
		}
		if (copy_out(out, o.p, o.len))
			goto write_failed;
		n->generations++;
		pos = g.end;
	}
	/* The rest (nothing, or what could not be read) as it was. */
	if (gt_src_copy(src, pos, src->len, out))
		goto write_failed;
	ret = k < 0 ? -1 : 0;
	goto out;
write_failed:
	err->off = (size_t)pos;
	snprintf(err->msg, sizeof(err->msg), "cannot write the output");
out:
	free(raw.p);
	free(o.p);
	gt_go123_gen_free(&g);
	return ret;
}
