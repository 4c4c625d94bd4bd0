// SPDX-License-Identifier: GPL-2.0
/*
 * go_merge_write.c - what gotrace merge adds, encoded (go_merge_int.h)
 *
 * The generational format's records (Documentation/trace-format.rst):
 * an event is its type byte, the LEB128 delta of its time from the event
 * before it in its batch, then its values; a batch is a header (batch
 * byte, generation, M, base time, data size) and its data, at most 64
 * KiB.  The threads' events are written anew with the added ones among
 * them; the strings and stacks the added events name go into table
 * batches of their own, with ids after the generation's largest; every
 * other batch of the program's trace is copied byte for byte.
 */
#include <stdlib.h>
#include <string.h>

#include "go_merge_int.h"
#include "trace/base.h"
#include "trace/go123.h"

/* The id of added string @str in this generation's table. */
uint64_t gtm_string_id(struct merge *mg, const char *str)
{
	size_t n = strlen(str);
	uint64_t h = u64map_str_key(str, n), *v;
	bool added;

	v = u64map_get(&mg->stridx, h);
	if (v && !strcmp(mg->strs[*v].s, str))
		return mg->strs[*v].id;
	if (gt_grow((void **)&mg->strs, &mg->strcap, mg->nstrs + 1,
		    sizeof(*mg->strs)))
		return 0;
	mg->strs[mg->nstrs].s = strdup(str);
	if (!mg->strs[mg->nstrs].s)
		return 0;
	mg->strs[mg->nstrs].id = mg->next_string++;
	if (!v && !u64map_put(&mg->stridx, h, mg->nstrs, &added))
		return 0;
	return mg->strs[mg->nstrs++].id;
}

/*
 * The id of the stack of @nframes frames at @first of kv.frames (a
 * span's, a sample's) in this generation's table.
 */
uint64_t gtm_stack_id(struct merge *mg, uint32_t first, uint32_t nframes,
			 bool *oom)
{
	const struct gt_kview *kv = &mg->kv;
	uint64_t *v;
	bool added;
	size_t n = nframes < STACK_MAX ? nframes : STACK_MAX;

	*oom = false;
	if (!n)
		return 0;
	v = u64map_get(&mg->stackidx, first);
	if (v)
		return *v;
	if (gt_grow((void **)&mg->stacks, &mg->stkcap, mg->nstacks + 1,
		    sizeof(*mg->stacks)) ||
	    gt_grow((void **)&mg->frames, &mg->fcap, mg->nframes + n,
		    sizeof(*mg->frames)))
		goto oom;
	for (size_t i = 0; i < n; i++) {
		const struct gt_kv_frame *f = &kv->frames[first + i];
		const char *func = gt_kview_str(kv, f->func);
		const char *file = gt_kview_str(kv, f->file);
		struct frame *o = &mg->frames[mg->nframes + i];

		o->pc = f->pc;
		o->func = gtm_string_id(mg, *func ? func : "?");
		o->file = gtm_string_id(mg, *file ? file : "?");
		o->line = f->line;
		if (!o->func || !o->file)
			goto oom;
	}
	mg->stacks[mg->nstacks] = (struct newstack){ mg->next_stack++,
						     mg->nframes, n };
	mg->nframes += n;
	if (!u64map_put(&mg->stackidx, first, mg->stacks[mg->nstacks].id,
			&added))
		goto oom;
	return mg->stacks[mg->nstacks++].id;
oom:
	*oom = true;
	return 0;
}

int gtm_put_byte(struct bytes *b, uint8_t v)
{
	if (gt_grow((void **)&b->p, &b->cap, b->len + 1, 1))
		return -1;
	b->p[b->len++] = v;
	return 0;
}

int gtm_put_leb(struct bytes *b, uint64_t v)
{
	do {
		if (gtm_put_byte(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0))))
			return -1;
		v >>= 7;
	} while (v);
	return 0;
}

int gtm_put_raw(struct bytes *b, const void *p, size_t n)
{
	if (gt_grow((void **)&b->p, &b->cap, b->len + n, 1))
		return -1;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

/* A batch of generation mg->gen: its header, then @data, into @out. */
int gtm_put_batch(struct merge *mg, struct bytes *out, uint64_t m,
		     uint64_t time, const struct bytes *data)
{
	return gtm_put_byte(out, GT_GO123_EV_BATCH) || gtm_put_leb(out, mg->gen) ||
	       gtm_put_leb(out, m) || gtm_put_leb(out, time) ||
	       gtm_put_leb(out, data->len) || gtm_put_raw(out, data->p, data->len);
}

/* Close the open event batch of M @m into mbuf. */
int gtm_close_batch(struct merge *mg, uint64_t m)
{
	if (!mg->open)
		return 0;
	mg->open = false;
	if (gtm_put_batch(mg, &mg->mbuf, m, mg->base, &mg->data))
		return -1;
	mg->data.len = 0;
	return 0;
}

/*
 * One event of M @m into its batches anew: type, the delta from the
 * event before (time never goes back in a batch), @nv values.
 */
int gtm_put_event(struct merge *mg, uint64_t m, unsigned int type,
		     uint64_t t, const uint64_t *v, unsigned int nv)
{
	if (mg->open && mg->data.len > BATCH_DATA_MAX && gtm_close_batch(mg, m))
		return -1;
	if (!mg->open) {
		mg->open = true;
		mg->base = mg->last = t;
	}
	if (t < mg->last)
		t = mg->last;
	if (gtm_put_byte(&mg->data, (uint8_t)type) || gtm_put_leb(&mg->data, t - mg->last))
		return -1;
	mg->last = t;
	for (unsigned int i = 0; i < nv; i++)
		if (gtm_put_leb(&mg->data, v[i]))
			return -1;
	return 0;
}

/* The largest string and stack ids of @g: new ones come after. */
void gtm_next_ids(struct merge *mg, const struct gt_go123_gen *g)
{
	uint64_t k, v;
	size_t i;

	mg->next_string = mg->next_stack = 1;
	for (i = 0; u64map_next(&g->strings, &i, &k, &v);)
		if (k >= mg->next_string)
			mg->next_string = k + 1;
	for (i = 0; u64map_next(&g->stacks, &i, &k, &v);)
		if (k >= mg->next_stack)
			mg->next_stack = k + 1;
}

void gtm_reset_tables(struct merge *mg)
{
	for (size_t i = 0; i < mg->nstrs; i++)
		free(mg->strs[i].s);
	mg->nstrs = mg->nstacks = mg->nframes = 0;
	u64map_free(&mg->stridx);
	u64map_free(&mg->stackidx);
	mg->mbuf.len = 0;
}

int gtm_write_bytes(struct merge *mg, const void *p, size_t n)
{
	return n && fwrite(p, 1, n, mg->out) != n ? -1 : 0;
}

/* A table batch (@kind: strings or stacks) of @data, when it is due. */
static int table_batch(struct merge *mg, struct bytes *data, uint8_t kind,
		       bool last)
{
	int ret;

	if (data->len == 1 || (!last && data->len < BATCH_DATA_MAX))
		return 0;
	ret = gtm_put_batch(mg, &mg->mbuf, NO_M, 0, data);
	data->len = 0;
	return ret || gtm_put_byte(data, kind);
}

/*
 * The added strings and stacks, in table batches of their own, into
 * mbuf before the event batches.
 */
int gtm_write_tables(struct merge *mg)
{
	struct bytes d = { 0 };
	size_t i;
	int ret = -1;

	if (gtm_put_byte(&d, GT_GO123_EV_STRINGS))
		goto out;
	for (i = 0; i < mg->nstrs; i++) {
		size_t n = strlen(mg->strs[i].s);

		if (gtm_put_byte(&d, GT_GO123_EV_STRING) ||
		    gtm_put_leb(&d, mg->strs[i].id) || gtm_put_leb(&d, n) ||
		    gtm_put_raw(&d, mg->strs[i].s, n) ||
		    table_batch(mg, &d, GT_GO123_EV_STRINGS, i + 1 == mg->nstrs))
			goto out;
	}
	d.len = 0;
	if (gtm_put_byte(&d, GT_GO123_EV_STACKS))
		goto out;
	for (i = 0; i < mg->nstacks; i++) {
		const struct newstack *s = &mg->stacks[i];

		if (gtm_put_byte(&d, GT_GO123_EV_STACK) || gtm_put_leb(&d, s->id) ||
		    gtm_put_leb(&d, s->n))
			goto out;
		for (size_t k = 0; k < s->n; k++) {
			const struct frame *f = &mg->frames[s->frames + k];

			if (gtm_put_leb(&d, f->pc) || gtm_put_leb(&d, f->func) ||
			    gtm_put_leb(&d, f->file) || gtm_put_leb(&d, f->line))
				goto out;
		}
		if (table_batch(mg, &d, GT_GO123_EV_STACKS, i + 1 == mg->nstacks))
			goto out;
	}
	ret = 0;
out:
	free(d.p);
	return ret;
}

/*
 * Copy generation @g's batches unchanged, but for the event batches of
 * the threads written anew (@skip: M -> 1), and its end-of-generation
 * byte, which the caller writes last.
 */
int gtm_copy_batches(struct merge *mg, const struct gt_go123_gen *g,
			const struct u64map *skip, bool *eog)
{
	struct u64map at = { 0 };
	uint8_t hdr[GT_GO123_BATCH_HDR_MAX];
	uint64_t pos = g->off;
	bool added;
	int ret = -1;

	*eog = false;
	for (size_t i = 0; i < g->nbatches; i++)
		if (u64map_get(skip, g->batches[i].m) &&
		    !u64map_put(&at, g->batches[i].off, 1, &added))
			goto out;
	while (pos < g->end) {
		size_t n = g->end - pos < sizeof(hdr) ? (size_t)(g->end - pos) :
			   sizeof(hdr);
		int64_t len;

		if (gt_src_read(mg->prog, pos, hdr, n))
			goto out;
		len = gt_go123_batch_len(hdr, n);
		if (len <= 0 || (uint64_t)len > g->end - pos)
			goto out;
		if (hdr[0] == GT_GO123_EV_END_OF_GENERATION)
			*eog = true;
		else if (!u64map_get(&at, pos) &&
			 gt_src_copy(mg->prog, pos, pos + (uint64_t)len, mg->out))
			goto out;
		pos += (uint64_t)len;
	}
	ret = 0;
out:
	u64map_free(&at);
	return ret;
}
