// SPDX-License-Identifier: GPL-2.0
/*
 * profile_test.c - the content-keyed profile of gotrace pprof and its
 * protocol buffer encoding, without Go
 *
 * The tables hold each content once and tell different contents apart;
 * the encoding is read back by a small walker of the wire format: every
 * key has a wire type pprof's fields use, the string table begins with
 * "", and the samples are the stacks with a count, with their values.
 * pprof_test.sh reads the same bytes with Go's own parser.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/tap.h"
#include "trace/pprof_enc.h"
#include "trace/profile.h"

struct out {
	uint8_t *b;
	size_t len;
};

/* A writer that fails its second call (a full disk). */
static int fail_second(void *ctx, const void *buf, size_t len)
{
	int *calls = ctx;

	(void)buf;
	(void)len;
	return ++*calls > 1 ? -1 : 0;
}

static int collect(void *ctx, const void *buf, size_t len)
{
	struct out *o = ctx;
	uint8_t *n = realloc(o->b, o->len + len);

	if (!n)
		return -1;
	memcpy(n + o->len, buf, len);
	o->b = n;
	o->len += len;
	return 0;
}

/* A varint at *@p before @end; false if cut. */
static bool varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

struct seen {
	size_t fields[16];	/* top-level fields by number */
	uint64_t varints[16];	/* the last value of each varint field */
	char strings[16][16];	/* the first 16 strings, if short */
	bool bad;
	char first_string[16];
	uint64_t values[2][2];	/* the two samples' values */
	size_t nsamples;
};

/* The packed values of sample message [@p, @end). */
static void sample(struct seen *s, const uint8_t *p, const uint8_t *end)
{
	uint64_t key, len, v;

	while (p < end && varint(&p, end, &key)) {
		if ((key & 7) != 2 || !varint(&p, end, &len) ||
		    len > (size_t)(end - p)) {
			s->bad = true;
			return;
		}
		if (key >> 3 == 2 && s->nsamples < 2) {
			const uint8_t *q = p;

			for (int i = 0; i < 2 && varint(&q, p + len, &v); i++)
				s->values[s->nsamples][i] = v;
		}
		p += len;
	}
	s->nsamples++;
}

static void walk(struct seen *s, const uint8_t *p, const uint8_t *end)
{
	uint64_t key, len, v;

	while (p < end) {
		if (!varint(&p, end, &key) || (key >> 3) >= 16) {
			s->bad = true;
			return;
		}
		s->fields[key >> 3]++;
		if ((key & 7) == 0) {
			if (!varint(&p, end, &v))
				s->bad = true;
			s->varints[key >> 3] = v;
			continue;
		}
		if ((key & 7) != 2 || !varint(&p, end, &len) ||
		    len > (size_t)(end - p)) {
			s->bad = true;
			return;
		}
		if (key >> 3 == 6 && s->fields[6] == 1 && len < 16)
			memcpy(s->first_string, p, len);
		if (key >> 3 == 6 && s->fields[6] <= 16 && len < 16)
			memcpy(s->strings[s->fields[6] - 1], p, len);
		if (key >> 3 == 2)
			sample(s, p, p + len);
		p += len;
	}
}

int main(void)
{
	struct gt_prof p;
	struct out o = { 0 };
	struct seen s = { 0 };
	int64_t fn, file, f, l1, l2, l1b, l3, st, st2, st3, empty, deep, cut;
	uint32_t locs[2], many[GT_PROF_MAX_DEPTH + 72];
	size_t big_stacks = 0;
	int enc, calls = 0;

	ok(!gt_prof_init(&p, GT_PROF_TIME), "an empty profile");
	fn = gt_prof_string(&p, "main.work", 9);
	file = gt_prof_string(&p, "[comm]", 6);
	ok(fn > 0 && gt_prof_string(&p, "main.work", 9) == fn,
	   "a string is held once");
	ok(gt_prof_string(&p, "", 0) == 0, "string 0 is \"\"");
	f = gt_prof_func(&p, (uint32_t)fn, (uint32_t)file);
	ok(f >= 0 && gt_prof_func(&p, (uint32_t)fn, (uint32_t)file) == f,
	   "a function is held once");
	l1 = gt_prof_loc(&p, 0x1000, (uint32_t)f, 7);
	l1b = gt_prof_loc(&p, 0x1000, (uint32_t)f, 7);
	l2 = gt_prof_loc(&p, 0x2000, (uint32_t)f, 7);
	ok(l1 >= 0 && l1 == l1b && l2 != l1,
	   "locations: same content once, another pc another location");
	l3 = gt_prof_loc(&p, 0x1000, (uint32_t)f, 8);
	ok(l3 >= 0 && l3 != l1,
	   "the same pc on another line is another location (a generation's "
	   "pcs are not keys alone)");
	locs[0] = (uint32_t)l1;
	locs[1] = (uint32_t)l2;
	st = gt_prof_stack(&p, locs, 2);
	st2 = gt_prof_stack(&p, locs, 2);
	st3 = gt_prof_stack(&p, locs, 1);
	empty = gt_prof_stack(&p, NULL, 0);
	ok(st >= 0 && st == st2 && st3 != st && empty >= 0 && empty != st3,
	   "stacks by their locations: a prefix and the empty stack differ");
	for (size_t i = 0; i < sizeof(many) / sizeof(many[0]); i++)
		many[i] = (uint32_t)(i % 2 ? l1 : l2);
	deep = gt_prof_stack(&p, many, sizeof(many) / sizeof(many[0]));
	cut = gt_prof_stack(&p, many, GT_PROF_MAX_DEPTH);
	ok(deep >= 0 && deep == cut && p.stacks[deep].depth == GT_PROF_MAX_DEPTH,
	   "a stack is cut at %d frames, as Go's profiles cut it",
	   GT_PROF_MAX_DEPTH);
	p.stacks[st].count = 3;
	p.stacks[st].ns = 300000;
	p.stacks[empty].count = 1;
	p.stacks[empty].ns = 5;
	enc = gt_pprof_encode(&p, collect, &o);
	ok(!enc && o.len > 0, "encodes (%zu bytes)", o.len);
	walk(&s, o.b, o.b + o.len);
	diag("fields 1..12: %zu %zu %zu %zu %zu %zu", s.fields[1], s.fields[2],
	     s.fields[4], s.fields[5], s.fields[6], s.fields[12]);
	ok(!s.bad, "every field is a varint or a length within the message");
	ok(s.fields[1] == 2 && s.fields[11] == 1 && s.fields[12] == 1,
	   "two sample types, a period type and a period");
	ok(s.fields[2] == 2 && s.nsamples == 2,
	   "a sample for each stack with a count (2 of %zu)", p.nstacks);
	ok(s.values[0][0] == 3 && s.values[0][1] == 300000 &&
	   s.values[1][0] == 1 && s.values[1][1] == 5,
	   "the samples' count and time");
	ok(s.fields[4] == 3 && s.fields[5] == 1, "3 locations, 1 function");
	ok(s.fields[6] == p.nstr && !s.first_string[0],
	   "the string table, \"\" first (%zu strings)", p.nstr);
	ok(gt_pprof_encode(&p, fail_second, &calls) == -1 && calls == 2,
	   "a writer's failure stops the encoding and is returned");
	free(o.b);
	gt_prof_free(&p);

	/* Enough stacks for several 64 KiB flushes: none lost at a seam. */
	memset(&o, 0, sizeof(o));
	memset(&s, 0, sizeof(s));
	ok(!gt_prof_init(&p, GT_PROF_TIME), "a second profile");
	f = gt_prof_func(&p, (uint32_t)gt_prof_string(&p, "f", 1), 0);
	for (uint64_t i = 0; i < 20000; i++) {
		uint32_t loc = (uint32_t)gt_prof_loc(&p, 0x400000 + i,
						     (uint32_t)f, 1);
		int64_t k = gt_prof_stack(&p, &loc, 1);

		if (k < 0)
			break;
		p.stacks[k].count = 1;
		big_stacks++;
	}
	enc = gt_pprof_encode(&p, collect, &o);
	walk(&s, o.b, o.b + o.len);
	ok(!enc && !s.bad && big_stacks == 20000 && s.nsamples == 20000 &&
	   s.fields[4] == 20000 && o.len > 4 * 65536,
	   "20000 samples and locations through several flushes (%zu bytes)",
	   o.len);
	free(o.b);
	gt_prof_free(&p);

	/* A CPU profile: runtime/pprof's value types, period and duration. */
	memset(&o, 0, sizeof(o));
	memset(&s, 0, sizeof(s));
	ok(!gt_prof_init(&p, GT_PROF_CPU), "a CPU profile");
	f = gt_prof_func(&p, (uint32_t)gt_prof_string(&p, "main.burnA", 10), 0);
	l1 = gt_prof_loc(&p, 0x401000, (uint32_t)f, 3);
	locs[0] = (uint32_t)l1;
	st = gt_prof_stack(&p, locs, 1);
	p.stacks[st].count = 7;
	p.stacks[st].ns = 7 * 1001001;
	p.period = 1001001;
	p.duration_ns = 3000000000;
	enc = gt_pprof_encode(&p, collect, &o);
	walk(&s, o.b, o.b + o.len);
	ok(!enc && !s.bad && s.nsamples == 1 && s.values[0][0] == 7 &&
	   s.values[0][1] == 7007007, "its sample: 7 samples, 7 periods of ns");
	ok(s.fields[1] == 2 && s.fields[11] == 1 &&
	   s.varints[12] == 1001001 && s.varints[10] == 3000000000,
	   "two sample types, a period type, the period and the duration");
	ok(!strcmp(s.strings[1], "samples") && !strcmp(s.strings[2], "count") &&
	   !strcmp(s.strings[3], "cpu") &&
	   !strcmp(s.strings[4], "nanoseconds"),
	   "its names: samples count, cpu nanoseconds (runtime/pprof's)");
	free(o.b);
	gt_prof_free(&p);
	return tap_done();
}
