// SPDX-License-Identifier: GPL-2.0
/*
 * go123_mutate.c - derive broken generational traces from a valid one
 *
 *   go123_mutate list                 the mutations, one a line
 *   go123_mutate MUTATION[,...] IN OUT  write IN with the MUTATIONs applied
 *                                 in turn to OUT
 *   go123_mutate cuts IN              offsets worth cutting IN at: inside the
 *                                 first and last batch of every generation
 *                                 and exactly at every generation's end
 *
 * Each mutation is a bug a writer of the format could have
 * (go123_verdict_test.sh says which and what Go makes of it).  The trace
 * is decoded into generations, batches and events, changed, and encoded
 * again; a mutation that finds nothing to change exits 3 (the test then
 * skips that case).
 * Mutations act on generation 2 (the first whose statuses must agree
 * with an earlier generation) unless they say otherwise.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/leb128.h"
#include "trace/go123.h"

#define NONE	UINT64_MAX

struct ev {
	uint8_t type;
	uint64_t a[GT_GO123_ARGS_MAX];
	uint8_t n;
	bool drop;
	uint64_t p;		/* the P of its M then (syscall-end-p-running) */
	uint64_t ts;		/* its time in ticks (the same) */
};

struct batch {
	uint64_t gen, m, time;
	uint8_t *data;		/* raw data (tables, sync) */
	size_t size;
	bool events;		/* an event batch: evs, not data */
	struct ev *evs;
	size_t nev;
	bool drop;
	size_t end;		/* file offset of its end */
	size_t start;
};

static uint8_t *in;
static size_t inlen;
static struct batch *bs;
static size_t nb, bcap;
static char hdr[16];

static void die(const char *m)
{
	fprintf(stderr, "go123_mutate: %s\n", m);
	exit(2);
}

static uint64_t get(size_t *at, size_t end)
{
	uint64_t v;
	int k = gt_leb_get(in + *at, end - *at, &v);

	if (k <= 0)
		die("bad value");
	*at += (size_t)k;
	return v;
}

/* A value of the data of table batch @b, at *@at. */
static uint64_t get_in(const struct batch *b, size_t *at, size_t end)
{
	uint64_t v;
	int k = gt_leb_get(b->data + *at, end - *at, &v);

	if (k <= 0)
		die("bad value");
	*at += (size_t)k;
	return v;
}

static void parse(void)
{
	size_t at = 16;

	memcpy(hdr, in, 16);
	if (memcmp(in, "go 1.22 trace", 14) && memcmp(in, "go 1.23 trace", 14))
		die("not a go 1.22 or go 1.23 trace");
	while (at < inlen) {
		struct batch b = { .start = at };
		size_t p, end;

		if (in[at++] != GT_GO123_EV_BATCH)
			die("not a batch");
		b.gen = get(&at, inlen);
		b.m = get(&at, inlen);
		b.time = get(&at, inlen);
		b.size = get(&at, inlen);
		b.data = in + at;
		end = at + b.size;
		b.end = end;
		p = at;
		at = end;
		if (b.size && in[p] != GT_GO123_EV_STACKS && in[p] != GT_GO123_EV_STRINGS &&
		    in[p] != GT_GO123_EV_FREQUENCY && in[p] != GT_GO123_EV_CPU_SAMPLES) {
			b.events = true;
			b.evs = calloc(b.size, sizeof(*b.evs));	/* >= 1 byte each */
			if (!b.evs)
				die("out of memory");
			while (p < end) {
				struct ev *e = &b.evs[b.nev++];
				const struct gt_go123_spec *s = gt_go123_spec(in[p]);

				if (!s)
					die("unknown event");
				e->type = in[p++];
				e->n = s->nargs;
				for (int i = 0; i < s->nargs; i++)
					e->a[i] = get(&p, end);
			}
		}
		if (nb == bcap) {
			bcap = bcap ? 2 * bcap : 256;
			bs = realloc(bs, bcap * sizeof(*bs));
			if (!bs)
				die("out of memory");
		}
		bs[nb++] = b;
	}
}

/* v in LEB128 at b (GT_LEB_BYTES_MAX bytes of room); its length. */
static size_t leb(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	do {
		b[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static void put(FILE *f, uint64_t v)
{
	uint8_t b[GT_LEB_BYTES_MAX];

	fwrite(b, 1, leb(b, v), f);
}

static size_t leblen(uint64_t v)
{
	size_t n = 1;

	while (v > 0x7f) {
		v >>= 7;
		n++;
	}
	return n;
}

static void emit(const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		die("cannot write");
	fwrite(hdr, 1, 16, f);
	for (size_t i = 0; i < nb; i++) {
		struct batch *b = &bs[i];
		size_t size = 0;

		if (b->drop)
			continue;
		if (b->events) {
			for (size_t k = 0; k < b->nev; k++) {
				if (b->evs[k].drop)
					continue;
				size++;
				for (int j = 0; j < b->evs[k].n; j++)
					size += leblen(b->evs[k].a[j]);
			}
		} else {
			size = b->size;
		}
		fputc(GT_GO123_EV_BATCH, f);
		put(f, b->gen);
		put(f, b->m);
		put(f, b->time);
		put(f, size);
		if (!b->events) {
			fwrite(b->data, 1, b->size, f);
			continue;
		}
		for (size_t k = 0; k < b->nev; k++) {
			if (b->evs[k].drop)
				continue;
			fputc(b->evs[k].type, f);
			for (int j = 0; j < b->evs[k].n; j++)
				put(f, b->evs[k].a[j]);
		}
	}
	if (fclose(f))
		die("cannot write");
}

/* The first event of generation @gen of one of the types (0-ended). */
static struct ev *find(uint64_t gen, bool sweep, const uint8_t *types,
		       struct batch **in_batch)
{
	for (size_t i = 0; i < nb; i++) {
		if (bs[i].gen != gen || !bs[i].events || (bs[i].m == NONE) != sweep)
			continue;
		for (size_t k = 0; k < bs[i].nev; k++)
			for (const uint8_t *t = types; *t; t++)
				if (bs[i].evs[k].type == *t) {
					if (in_batch)
						*in_batch = &bs[i];
					return &bs[i].evs[k];
				}
	}
	return NULL;
}

static const uint8_t go_status[] = { GT_GO123_EV_GO_STATUS,
				     GT_GO123_EV_GO_STATUS_STACK, 0 };

/* Each returns true if it changed something. */
static bool m_drop_gostatus(void)
{
	struct ev *e = find(2, false, go_status, NULL);

	return e && (e->drop = true);
}

static bool m_status_contradicts(void)
{
	struct ev *e = find(2, false, go_status, NULL);

	if (!e)
		e = find(2, true, go_status, NULL);
	if (!e)
		return false;
	e->a[3] = e->a[3] == GT_GO123_G_WAITING ? GT_GO123_G_RUNNABLE :
						  GT_GO123_G_WAITING;
	return true;
}

static bool m_no_sweep(void)
{
	bool any = false;

	for (size_t i = 0; i < nb; i++)
		if (bs[i].events && bs[i].m == NONE && bs[i].gen >= 2)
			for (size_t k = 0; k < bs[i].nev; k++)
				if (bs[i].evs[k].type == GT_GO123_EV_GO_STATUS ||
				    bs[i].evs[k].type == GT_GO123_EV_GO_STATUS_STACK)
					any = bs[i].drop = true;
	return any;
}

static bool m_drop_procstatus(void)
{
	static const uint8_t t[] = { GT_GO123_EV_PROC_STATUS, 0 };
	struct ev *e = find(2, false, t, NULL);

	return e && (e->drop = true);
}

static bool m_seq_skip(void)
{
	static const uint8_t t[] = { GT_GO123_EV_GO_START, GT_GO123_EV_GO_UNBLOCK, 0 };
	struct ev *e = find(2, false, t, NULL);

	return e && ++e->a[2];
}

/* Sequence numbers of generation 2 go on from generation 1's. */
static bool m_seq_not_restarted(void)
{
	bool any = false;

	for (size_t i = 0; i < nb; i++)
		for (size_t k = 0; bs[i].gen == 2 && bs[i].events && k < bs[i].nev; k++) {
			struct ev *e = &bs[i].evs[k];

			if (e->type == GT_GO123_EV_GO_START || e->type == GT_GO123_EV_GO_UNBLOCK ||
			    e->type == GT_GO123_EV_PROC_START) {
				e->a[2] += 100;
				any = true;
			} else if (e->type == GT_GO123_EV_GO_SYSCALL_BEGIN) {
				e->a[1] += 100;
				any = true;
			}
		}
	return any;
}

static bool m_p_seq_skip(void)
{
	static const uint8_t t[] = { GT_GO123_EV_PROC_START, 0 };
	struct ev *e = find(2, false, t, NULL);

	return e && ++e->a[2];
}

static bool m_m_batch_order(void)
{
	for (size_t i = 0; i < nb; i++)
		for (size_t j = i + 1; j < nb && bs[j].gen == bs[i].gen; j++)
			if (bs[i].events && bs[j].events && bs[i].m == bs[j].m &&
			    bs[i].m != NONE && bs[i].gen >= 2) {
				struct batch t = bs[i];

				bs[i] = bs[j];
				bs[j] = t;
				return true;
			}
	return false;
}

static bool m_bad_stack_id(void)
{
	for (size_t i = 0; i < nb; i++)
		for (size_t k = 0; bs[i].gen == 2 && bs[i].events && k < bs[i].nev; k++) {
			const struct gt_go123_spec *s = gt_go123_spec(bs[i].evs[k].type);

			for (int j = 1; j < s->nargs; j++)
				if ((s->stack_args & (1u << j)) && bs[i].evs[k].a[j]) {
					bs[i].evs[k].a[j] = 999999;
					return true;
				}
		}
	return false;
}

static bool m_bad_string_id(void)
{
	for (size_t i = 0; i < nb; i++)
		for (size_t k = 0; bs[i].gen == 2 && bs[i].events && k < bs[i].nev; k++) {
			const struct gt_go123_spec *s = gt_go123_spec(bs[i].evs[k].type);

			for (int j = 1; j < s->nargs; j++)
				if ((s->string_args & (1u << j)) && bs[i].evs[k].a[j]) {
					bs[i].evs[k].a[j] = 999999;
					return true;
				}
		}
	return false;
}

static bool table_batch(const struct batch *b, uint8_t kind)
{
	return !b->events && b->size && b->data[0] == kind;
}

/* The length of the table record at @p of @b (a string or a stack). */
static size_t record_len(const struct batch *b, size_t p)
{
	size_t end = b->size, at = p + 1;
	uint64_t n;

	get_in(b, &at, end);			/* its id */
	n = get_in(b, &at, end);		/* its length, or frames */
	if (b->data[p] == GT_GO123_EV_STRING)
		return at - p + n;
	for (uint64_t i = 0; i < 4 * n; i++)	/* pc, func, file, line */
		get_in(b, &at, end);
	return at - p;
}

/*
 * Generation 2's first table batch of @kind with its first record twice:
 * two strings (or stacks) of one id, which Go's readers refuse.
 */
static bool dup_record(uint8_t kind)
{
	for (size_t i = 0; i < nb; i++) {
		struct batch *b = &bs[i];
		size_t len;
		uint8_t *data;

		if (b->gen != 2 || !table_batch(b, kind) || b->size < 2)
			continue;
		len = record_len(b, 1);
		data = malloc(b->size + len);
		if (!data)
			die("out of memory");
		memcpy(data, b->data, 1 + len);
		memcpy(data + 1 + len, b->data + 1, b->size - 1);
		b->data = data;
		b->size += len;
		return true;
	}
	return false;
}

static bool m_dup_string_id(void)
{
	return dup_record(GT_GO123_EV_STRINGS);
}

static bool m_dup_stack_id(void)
{
	return dup_record(GT_GO123_EV_STACKS);
}

/*
 * Generation 2's first stack record, rewritten: @frames frames (its
 * first frame repeated after its own), and its first frame's file
 * string id @file unless it is NONE.
 */
static bool rewrite_first_stack(uint64_t frames, uint64_t file)
{
	for (size_t i = 0; i < nb; i++) {
		struct batch *b = &bs[i];
		uint64_t id, n, v[4];
		size_t at = 2, len, out;
		uint8_t *data;

		if (b->gen != 2 || !table_batch(b, GT_GO123_EV_STACKS) || b->size < 2)
			continue;
		len = record_len(b, 1);
		id = get_in(b, &at, b->size);
		n = get_in(b, &at, b->size);
		if (!n)
			return false;
		if (frames < n)
			frames = n;
		data = malloc(b->size + frames * 4 * GT_LEB_BYTES_MAX + 32);
		if (!data)
			die("out of memory");
		data[0] = GT_GO123_EV_STACKS;
		data[1] = GT_GO123_EV_STACK;
		out = 2 + leb(data + 2, id);
		out += leb(data + out, frames);
		for (uint64_t k = 0; k < frames; k++) {
			size_t from = k < n ? at : 2 + leblen(id) + leblen(n);

			for (int j = 0; j < 4; j++)
				v[j] = get_in(b, &from, b->size);
			if (k < n)
				at = from;
			if (!k && file != NONE)
				v[2] = file;
			for (int j = 0; j < 4; j++)
				out += leb(data + out, v[j]);
		}
		memcpy(data + out, b->data + 1 + len, b->size - 1 - len);
		b->data = data;
		b->size = out + b->size - 1 - len;
		return true;
	}
	return false;
}

/*
 * Generation 2's first table batch of @kind with a copy of its first
 * record under id 0 before it: Go's tables hold id 0 (the empty string,
 * the empty stack) from the start, and refuse a second one.
 */
static bool id0_record(uint8_t kind)
{
	for (size_t i = 0; i < nb; i++) {
		struct batch *b = &bs[i];
		size_t len, idlen;
		uint64_t id;
		uint8_t *data;
		int k;

		if (b->gen != 2 || !table_batch(b, kind) || b->size < 2)
			continue;
		len = record_len(b, 1);
		k = gt_leb_get(b->data + 2, len - 1, &id);
		if (k <= 0)
			die("bad table record");
		idlen = (size_t)k;
		data = malloc(b->size + len);
		if (!data)
			die("out of memory");
		/* The kind byte, the record's byte, id 0, the rest of it. */
		memcpy(data, b->data, 2);
		data[2] = 0;
		memcpy(data + 3, b->data + 2 + idlen, len - 1 - idlen);
		memcpy(data + 3 + len - 1 - idlen, b->data + 1, b->size - 1);
		b->data = data;
		b->size += 1 + len - idlen;
		return true;
	}
	return false;
}

/*
 * Every frame of generation 1's stacks without its function (string id
 * 0, the empty string), as Go's runtime writes the one frame of PC 0 of
 * some stacks: valid, and Go's summary names no goroutine from them, so
 * a goroutine seen in generation 1 is named by a later generation's
 * stack.  pprof_test.sh compares gotrace's --comm with Go's pages.
 */
static bool m_gen1_frames_unnamed(void)
{
	bool any = false;

	for (size_t i = 0; i < nb; i++) {
		struct batch *b = &bs[i];
		size_t at = 1, out = 1;
		uint8_t *data;

		if (b->gen != 1 || !table_batch(b, GT_GO123_EV_STACKS))
			continue;
		data = malloc(b->size);	/* ids 0 are never longer */
		if (!data)
			die("out of memory");
		data[0] = b->data[0];
		while (at < b->size) {
			uint64_t id, n, v[4];

			data[out++] = b->data[at++];	/* EvStack */
			id = get_in(b, &at, b->size);
			n = get_in(b, &at, b->size);
			out += leb(data + out, id);
			out += leb(data + out, n);
			for (uint64_t k = 0; k < n; k++) {
				for (int j = 0; j < 4; j++)
					v[j] = get_in(b, &at, b->size);
				any |= v[1] != 0;
				v[1] = 0;
				for (int j = 0; j < 4; j++)
					out += leb(data + out, v[j]);
			}
		}
		b->data = data;
		b->size = out;
	}
	return any;
}

/* A stack of 128 frames, Go's most (MaxFramesPerStack): valid. */
static bool m_stack_128_frames(void)
{
	return rewrite_first_stack(128, NONE);
}

/* A stack of 129 frames, one more than Go reads. */
static bool m_stack_129_frames(void)
{
	return rewrite_first_stack(129, NONE);
}

/* A frame naming its file by a string id the generation lacks. */
static bool m_bad_file_string(void)
{
	return rewrite_first_stack(0, 999999);
}

static bool m_string_id_0(void)
{
	return id0_record(GT_GO123_EV_STRINGS);
}

static bool m_stack_id_0(void)
{
	return id0_record(GT_GO123_EV_STACKS);
}

static bool m_no_frequency(void)
{
	for (size_t i = 0; i < nb; i++)
		if (bs[i].gen == 2 && table_batch(&bs[i], GT_GO123_EV_FREQUENCY))
			return bs[i].drop = true;
	return false;
}

/*
 * Every generation's frequency 1 Hz, its times those of a clock since a
 * boot 1e12 ticks ago: a tick is a second, and the times in ns pass
 * 2^64 (the fuzzer's finding: an undefined conversion to an integer).
 */
static bool m_freq_1hz(void)
{
	static uint8_t one_hz[] = { GT_GO123_EV_FREQUENCY, 1 };
	bool any = false;

	for (size_t i = 0; i < nb; i++) {
		if (table_batch(&bs[i], GT_GO123_EV_FREQUENCY)) {
			bs[i].data = one_hz;
			bs[i].size = sizeof(one_hz);
			any = true;
		}
		bs[i].time += 1000000000000ULL;
	}
	return any;
}

/* Generation 2's stack and string batches from another generation. */
static bool m_tables_of_gen1(void)
{
	bool any = false;

	for (size_t i = 0; i < nb; i++)
		if (bs[i].gen == 2 && (table_batch(&bs[i], GT_GO123_EV_STACKS) ||
				       table_batch(&bs[i], GT_GO123_EV_STRINGS)))
			any = bs[i].drop = true;
	return any;
}

/* Every generation's frequency and tables before its events. */
static bool m_tables_first(void)
{
	struct batch *out = malloc(nb * sizeof(*out));
	size_t n = 0;

	for (size_t i = 0; i < nb;) {
		size_t j = i;

		while (j < nb && bs[j].gen == bs[i].gen)
			j++;
		for (size_t k = i; k < j; k++)
			if (!bs[k].events)
				out[n++] = bs[k];
		for (size_t k = i; k < j; k++)
			if (bs[k].events)
				out[n++] = bs[k];
		i = j;
	}
	memcpy(bs, out, nb * sizeof(*bs));
	free(out);
	return true;
}

/* A delta computed as "now - last" with now < last: a huge value. */
static bool m_time_backwards(void)
{
	for (size_t i = 0; i < nb; i++)
		if (bs[i].gen == 2 && bs[i].events && bs[i].m != NONE && bs[i].nev > 2) {
			bs[i].evs[1].a[0] = (uint64_t)-1000;
			return true;
		}
	return false;
}

static bool m_gen_gap(void)
{
	bool any = false;

	for (size_t i = 0; i < nb; i++)
		if (bs[i].gen >= 3) {
			bs[i].gen++;
			any = true;
		}
	return any;
}

/* A flight-recorder style cut that dropped a middle generation. */
static bool m_drop_gen2(void)
{
	bool any = false, later = false;

	for (size_t i = 0; i < nb; i++) {
		if (bs[i].gen == 2)
			any = bs[i].drop = true;
		later |= bs[i].gen > 2;
	}
	return any && later;
}

/* The oldest generation dropped: valid, the next one is initial. */
static bool m_drop_gen1(void)
{
	bool any = false, later = false;

	for (size_t i = 0; i < nb; i++) {
		if (bs[i].gen == 1)
			any = bs[i].drop = true;
		later |= bs[i].gen > 1;
	}
	return any && later;
}

/*
 * The CPU samples (a trace Go's runtime wrote with its CPU profile on):
 * the first samples batch with two samples at least, and where its
 * sample @k begins (the CPUSample byte), with the end of each value.
 */
static struct batch *samples_batch(void)
{
	for (size_t i = 0; i < nb; i++)
		if (table_batch(&bs[i], GT_GO123_EV_CPU_SAMPLES) &&
		    bs[i].size > 1 + 2 * 6)
			return &bs[i];
	return NULL;
}

/* Offset of sample @k of @b; @ends: where each of its values ends. */
static size_t sample_at(const struct batch *b, size_t k, size_t ends[5])
{
	size_t at = 1, start = 1;

	for (size_t i = 0; i <= k; i++) {
		start = at++;
		for (int v = 0; v < 5; v++) {
			get_in(b, &at, b->size);
			ends[v] = at;
		}
	}
	return start;
}

/* @b's data with bytes [@from, @to) replaced by @n bytes at @p. */
static void splice(struct batch *b, size_t from, size_t to,
		   const uint8_t *p, size_t n)
{
	uint8_t *d = malloc(b->size - (to - from) + n);

	if (!d)
		die("out of memory");
	memcpy(d, b->data, from);
	memcpy(d + from, p, n);
	memcpy(d + from + n, b->data + to, b->size - to);
	b->data = d;
	b->size = b->size - (to - from) + n;
}

/* The second sample's CPUSample byte another type: Go refuses it. */
static bool m_sample_bad_byte(void)
{
	struct batch *b = samples_batch();
	size_t ends[5];

	if (!b)
		return false;
	splice(b, sample_at(b, 1, ends), sample_at(b, 1, ends) + 1,
	       (const uint8_t[]){ GT_GO123_EV_FREQUENCY }, 1);
	return true;
}

/* The batch ends inside its last sample's stack id. */
static bool m_sample_cut(void)
{
	struct batch *b = samples_batch();

	if (!b)
		return false;
	b->size--;
	return true;
}

/* The first sample's M an 11-byte value: past 64 bits. */
static bool m_sample_overflow(void)
{
	static const uint8_t big[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0x01 };
	struct batch *b = samples_batch();
	size_t ends[5];

	if (!b)
		return false;
	sample_at(b, 0, ends);
	splice(b, ends[0], ends[1], big, sizeof(big));
	return true;
}

/*
 * The first sample's stack an id its generation's table lacks: Go's
 * readers take it, and their tools panic looking it up.
 */
static bool m_sample_bad_stack(void)
{
	struct batch *b = samples_batch();
	uint8_t id[GT_LEB_BYTES_MAX];
	size_t ends[5];

	if (!b)
		return false;
	sample_at(b, 0, ends);
	splice(b, ends[3], ends[4], id, leb(id, 999999999));
	return true;
}

/* The first sample with no P (Go's runtime near a syscall) and no G. */
static bool m_sample_no_p_no_g(void)
{
	static const uint8_t none[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0x01, 0x00 };
	struct batch *b = samples_batch();
	size_t ends[5];

	if (!b)
		return false;
	sample_at(b, 0, ends);
	splice(b, ends[1], ends[3], none, sizeof(none));
	return true;
}

/* A samples batch holding no sample (its kind byte only): valid. */
static bool m_samples_empty(void)
{
	struct batch *b = samples_batch();

	if (!b)
		return false;
	b->size = 1;
	return true;
}

/* A CPU sample inside an event batch, where no timed event has type 7. */
static bool m_sample_in_events(void)
{
	for (size_t i = 0; i < nb; i++) {
		struct batch *b = &bs[i];

		if (b->gen == 2 && b->events && b->m != NONE && b->nev > 2) {
			b->evs[1].type = GT_GO123_EV_CPU_SAMPLE;
			return true;
		}
	}
	return false;
}

/* The id of the first stack of generation @gen's table, or 0. */
static uint64_t first_stack(uint64_t gen)
{
	for (size_t i = 0; i < nb; i++) {
		size_t at = 2;

		if (bs[i].gen == gen && table_batch(&bs[i], GT_GO123_EV_STACKS) &&
		    bs[i].size > 2)
			return get_in(&bs[i], &at, bs[i].size);
	}
	return 0;
}

static void put_mem(uint8_t **p, uint64_t v)
{
	do {
		*(*p)++ = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

/*
 * A CPU sample one tick after every GoStart, of the goroutine started,
 * on its M, under the first stack of the generation, and one a tick
 * before every goroutine status of the first generation (a sample of a
 * goroutine the trace has not named yet): a samples batch at the end of
 * each generation.  The samples of a trace whose goroutines move
 * between units (gen-trace-go123's units), for pprof cpu --unit.
 */
static bool m_samples_at_starts(void)
{
	struct batch *out = malloc(2 * nb * sizeof(*out));
	size_t n = 0;
	bool any = false;

	if (!out)
		die("out of memory");
	for (size_t i = 0; i < nb;) {
		size_t j = i, cap = 1;
		uint64_t stk = first_stack(bs[i].gen);
		uint8_t *d, *p;

		while (j < nb && bs[j].gen == bs[i].gen)
			j++;
		for (size_t k = i; k < j; k++)
			if (bs[k].events)
				cap += bs[k].nev * 6 * GT_LEB_BYTES_MAX;
		d = p = malloc(cap);
		if (!d)
			die("out of memory");
		*p++ = GT_GO123_EV_CPU_SAMPLES;
		for (size_t k = i; k < j; k++) {
			uint64_t t = bs[k].time;

			out[n++] = bs[k];
			if (!bs[k].events || bs[k].m == NONE)
				continue;
			for (size_t e = 0; e < bs[k].nev; e++) {
				uint8_t ty = bs[k].evs[e].type;
				uint64_t at = t += bs[k].evs[e].a[0];

				if (ty == GT_GO123_EV_GO_START)
					at++;
				else if ((ty == GT_GO123_EV_GO_STATUS ||
					  ty == GT_GO123_EV_GO_STATUS_STACK) &&
					 !i && at)
					at--;
				else
					continue;
				if (!stk)
					continue;
				*p++ = GT_GO123_EV_CPU_SAMPLE;
				put_mem(&p, at);
				put_mem(&p, bs[k].m);
				put_mem(&p, 0);
				put_mem(&p, bs[k].evs[e].a[1]);
				put_mem(&p, stk);
			}
		}
		if (p - d > 1) {
			out[n++] = (struct batch){ .gen = bs[i].gen, .m = 0,
				.time = bs[i].time, .data = d,
				.size = (size_t)(p - d) };
			any = true;
		}
		i = j;
	}
	free(bs);
	bs = out;
	nb = n;
	return any;
}

/*
 * A CPU sample of every stack of each generation's table (no G, M 0, at
 * the generation's first batch time), in a samples batch at the end of
 * the generation: the samples of a trace whose stacks hold user frames,
 * for gotrace symbolize.
 */
static bool m_samples_of_stacks(void)
{
	struct batch *out = malloc(2 * nb * sizeof(*out));
	size_t n = 0;
	bool any = false;

	if (!out)
		die("out of memory");
	for (size_t i = 0; i < nb;) {
		size_t j = i, cap = 1;
		uint8_t *d, *p;

		while (j < nb && bs[j].gen == bs[i].gen)
			j++;
		for (size_t k = i; k < j; k++)
			if (table_batch(&bs[k], GT_GO123_EV_STACKS))
				cap += bs[k].size * 6;
		d = p = malloc(cap);
		if (!d)
			die("out of memory");
		*p++ = GT_GO123_EV_CPU_SAMPLES;
		for (size_t k = i; k < j; k++) {
			size_t at = 1;

			out[n++] = bs[k];
			if (!table_batch(&bs[k], GT_GO123_EV_STACKS))
				continue;
			while (at < bs[k].size) {
				size_t len = record_len(&bs[k], at), v = at + 1;

				*p++ = GT_GO123_EV_CPU_SAMPLE;
				put_mem(&p, bs[i].time);
				put_mem(&p, 0);
				put_mem(&p, 0);
				put_mem(&p, 0);
				put_mem(&p, get_in(&bs[k], &v, bs[k].size));
				at += len;
			}
		}
		if (p - d > 1) {
			out[n++] = (struct batch){ .gen = bs[i].gen, .m = 0,
				.time = bs[i].time, .data = d,
				.size = (size_t)(p - d) };
			any = true;
		}
		i = j;
	}
	free(bs);
	bs = out;
	nb = n;
	return any;
}

/*
 * Each generation's string table states a CPU sampling rate of 999 Hz,
 * as a recorder may (trace/go123.h): a string under an id no writer
 * uses this soon.
 */
static bool m_cpu_hz_999(void)
{
	static const char str[] = GT_GO123_CPU_HZ_PREFIX "999" GT_GO123_CPU_HZ_SUFFIX;
	uint64_t last = 0;
	bool any = false;

	for (size_t i = 0; i < nb; i++) {
		struct batch *b = &bs[i];
		uint8_t rec[2 + 2 * GT_LEB_BYTES_MAX + sizeof(str)], *p = rec;

		if (!table_batch(b, GT_GO123_EV_STRINGS) || b->gen == last)
			continue;
		last = b->gen;
		*p++ = GT_GO123_EV_STRING;
		put_mem(&p, 999999);
		put_mem(&p, sizeof(str) - 1);
		memcpy(p, str, sizeof(str) - 1);
		p += sizeof(str) - 1;
		splice(b, b->size, b->size, rec, (size_t)(p - rec));
		any = true;
	}
	return any;
}

/*
 * The P each event of generation 2 finds its M holding (NONE: none),
 * into ev.p: ProcStatus Running or Syscall and ProcStart give the M a
 * P, ProcStop takes it; an M's batches go on from its last one.  Its
 * time into ev.ts.
 */
static void track_ps(void)
{
	enum { MS = 256 };
	uint64_t ms[MS], ps[MS];
	size_t nm = 0;

	for (size_t i = 0; i < nb; i++) {
		struct batch *b = &bs[i];
		size_t j = 0;
		uint64_t p;

		if (b->gen != 2 || !b->events || b->m == NONE)
			continue;
		while (j < nm && ms[j] != b->m)
			j++;
		if (j == nm) {
			if (nm == MS)
				die("too many Ms");
			ms[nm] = b->m;
			ps[nm++] = NONE;
		}
		p = ps[j];
		for (size_t k = 0; k < b->nev; k++) {
			struct ev *e = &b->evs[k];

			e->ts = (k ? b->evs[k - 1].ts : b->time) + e->a[0];
			e->p = p;
			if (e->type == GT_GO123_EV_PROC_STATUS &&
			    (e->a[2] == 1 || e->a[2] == 3))	/* Running, Syscall */
				p = e->a[1];
			else if (e->type == GT_GO123_EV_PROC_START)
				p = e->a[1];
			else if (e->type == GT_GO123_EV_PROC_STOP)
				p = NONE;
		}
		ps[j] = p;
	}
}

/*
 * Does an event of generation 2 after @from and before P @p's next
 * ProcStatus (which restarts its numbers) carry a number of @p?
 */
static bool p_numbered_after(uint64_t p, uint64_t from)
{
	uint64_t until = UINT64_MAX;

	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; bs[i].gen == 2 && bs[i].events && j < bs[i].nev; j++) {
			const struct ev *e = &bs[i].evs[j];

			if (e->type == GT_GO123_EV_PROC_STATUS && e->a[1] == p &&
			    e->ts > from && e->ts < until)
				until = e->ts;
		}
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; bs[i].gen == 2 && bs[i].events && j < bs[i].nev; j++) {
			const struct ev *e = &bs[i].evs[j];

			if (e->ts <= from || e->ts > until)
				continue;
			if (((e->type == GT_GO123_EV_PROC_START ||
			      e->type == GT_GO123_EV_PROC_STEAL) && e->a[1] == p) ||
			    (e->type == GT_GO123_EV_GO_SYSCALL_BEGIN && e->p == p))
				return true;
		}
	return false;
}

/*
 * A goroutine started in generation 2 on a P that its M started in the
 * same batch, the P's last numbered event there, makes a syscall: its P
 * stops and starts again on its M before the syscall's end (GoStart,
 * then GoSyscallBegin, ProcStop, ProcStart, GoSyscallEnd, each P event
 * with its next number).  The goroutine is still in its syscall, but
 * the P is Running, not Syscall: Go refuses the GoSyscallEnd.
 */
static bool m_syscall_end_p_running(void)
{
	track_ps();
	for (size_t i = 0; i < nb; i++) {
		struct batch *b = &bs[i];
		uint64_t p = NONE, seq = 0;

		for (size_t k = 0; b->gen == 2 && b->events && k < b->nev; k++) {
			struct ev *e = &b->evs[k];

			if (e->type == GT_GO123_EV_PROC_START) {
				p = e->a[1];
				seq = e->a[2];
			} else if (e->type == GT_GO123_EV_PROC_STOP) {
				p = NONE;
			}
			if (e->type != GT_GO123_EV_GO_START || p == NONE ||
			    p_numbered_after(p, e->ts))
				continue;
			b->evs = realloc(b->evs, (b->nev + 4) * sizeof(*b->evs));
			if (!b->evs)
				die("out of memory");
			memmove(&b->evs[k + 5], &b->evs[k + 1],
				(b->nev - k - 1) * sizeof(*b->evs));
			b->evs[k + 1] = (struct ev){
				.type = GT_GO123_EV_GO_SYSCALL_BEGIN, .n = 3,
				.a = { 1, seq + 1, 0 } };
			b->evs[k + 2] = (struct ev){ .type = GT_GO123_EV_PROC_STOP,
						     .n = 1, .a = { 1 } };
			b->evs[k + 3] = (struct ev){ .type = GT_GO123_EV_PROC_START,
						     .n = 3,
						     .a = { 1, p, seq + 2 } };
			b->evs[k + 4] = (struct ev){
				.type = GT_GO123_EV_GO_SYSCALL_END, .n = 1,
				.a = { 1 } };
			b->nev += 4;
			return true;
		}
	}
	return false;
}

/* The valid trace itself, re-encoded: the control case. */
static bool m_unchanged(void)
{
	return true;
}

/* Generations 1 to 4 only: a valid, smaller trace (a cut at a boundary). */
static bool m_first4(void)
{
	bool any = false;

	for (size_t i = 0; i < nb; i++)
		if (bs[i].gen > 4)
			any = bs[i].drop = true;
	return any;
}

static const struct {
	const char *name;
	bool (*fn)(void);
} muts[] = {
	{ "unchanged", m_unchanged },
	{ "first4", m_first4 },
	{ "drop-gostatus", m_drop_gostatus },
	{ "status-contradicts", m_status_contradicts },
	{ "no-sweep", m_no_sweep },
	{ "drop-procstatus", m_drop_procstatus },
	{ "seq-skip", m_seq_skip },
	{ "seq-not-restarted", m_seq_not_restarted },
	{ "p-seq-skip", m_p_seq_skip },
	{ "m-batch-order", m_m_batch_order },
	{ "bad-stack-id", m_bad_stack_id },
	{ "bad-string-id", m_bad_string_id },
	{ "dup-string-id", m_dup_string_id },
	{ "dup-stack-id", m_dup_stack_id },
	{ "stack-128-frames", m_stack_128_frames },
	{ "stack-129-frames", m_stack_129_frames },
	{ "bad-file-string", m_bad_file_string },
	{ "syscall-end-p-running", m_syscall_end_p_running },
	{ "string-id-0", m_string_id_0 },
	{ "stack-id-0", m_stack_id_0 },
	{ "tables-of-gen1", m_tables_of_gen1 },
	{ "no-frequency", m_no_frequency },
	{ "freq-1hz", m_freq_1hz },
	{ "tables-first", m_tables_first },
	{ "time-backwards", m_time_backwards },
	{ "gen-gap", m_gen_gap },
	{ "drop-gen2", m_drop_gen2 },
	{ "drop-gen1", m_drop_gen1 },
	{ "sample-bad-byte", m_sample_bad_byte },
	{ "sample-cut", m_sample_cut },
	{ "sample-overflow", m_sample_overflow },
	{ "sample-bad-stack", m_sample_bad_stack },
	{ "sample-no-p-no-g", m_sample_no_p_no_g },
	{ "samples-empty", m_samples_empty },
	{ "sample-in-events", m_sample_in_events },
	{ "samples-at-starts", m_samples_at_starts },
	{ "samples-of-stacks", m_samples_of_stacks },
	{ "gen1-frames-unnamed", m_gen1_frames_unnamed },
	{ "cpu-hz-999", m_cpu_hz_999 },
};

static void load(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n = 0;	/* clang cannot see that die() does not return */

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 16 ||
	    fseek(f, 0, SEEK_SET))
		die("cannot read the input");
	inlen = (size_t)n;
	in = malloc(inlen);
	if (fread(in, 1, inlen, f) != inlen)
		die("cannot read the input");
	fclose(f);
	parse();
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (size_t i = 0; i < sizeof(muts) / sizeof(muts[0]); i++)
			puts(muts[i].name);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "cuts")) {
		load(argv[2]);
		for (size_t i = 0; i < nb; i++) {
			bool first = !i || bs[i - 1].gen != bs[i].gen;
			bool last = i + 1 == nb || bs[i + 1].gen != bs[i].gen;

			if (first || last)	/* inside the batch */
				printf("%zu inside-batch gen=%llu\n",
				       (bs[i].start + bs[i].end) / 2,
				       (unsigned long long)bs[i].gen);
			if (first && i)		/* between batches */
				printf("%zu after-first-batch gen=%llu\n", bs[i].end,
				       (unsigned long long)bs[i].gen);
			if (last)
				printf("%zu gen-end gen=%llu\n", bs[i].end,
				       (unsigned long long)bs[i].gen);
		}
		return 0;
	}
	if (argc != 4)
		die("usage: go123_mutate list | cuts IN | MUTATION IN OUT");
	/* MUTATION may be several, comma-separated, applied in turn. */
	load(argv[2]);
	for (char *name = strtok(argv[1], ","); name; name = strtok(NULL, ",")) {
		size_t i = 0;

		while (i < sizeof(muts) / sizeof(muts[0]) && strcmp(name, muts[i].name))
			i++;
		if (i == sizeof(muts) / sizeof(muts[0]))
			die("unknown mutation");
		if (!muts[i].fn())
			return 3;
	}
	emit(argv[3]);
	return 0;
}
