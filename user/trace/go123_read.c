// SPDX-License-Identifier: GPL-2.0
/*
 * go123_read.c - batches and generations of a generational trace
 *
 * Reads a generation the way Go's reader does (internal/trace in Go 1.23
 * and 1.27), so that the same files fail, for the same first reason:
 * batch headers, the 64 KiB batch limit, generation numbers, the string
 * and stack tables (ids unique, frames naming defined strings), the sync
 * batch (frequency, and from 1.25 a clock snapshot), the CPU samples
 * batches and, from 1.26, the end-of-generation byte.  Events are
 * decoded later (go123_walk.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leb128.h"
#include "go123.h"
#include "go123_read.h"

#define MAX_BATCH_SIZE	65536
#define MAX_STRING	1024
#define MAX_FRAMES	128
#define BATCH_HDR_MAX	GT_GO123_BATCH_HDR_MAX

int gt_go123_header(const uint8_t *hdr, size_t len)
{
	static const int versions[] = { GT_GO123_GO122, GT_GO123_GO123,
					GT_GO123_GO125, GT_GO123_GO126 };
	char want[16];

	if (len < 16)
		return 0;
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		memset(want, 0, sizeof(want));
		snprintf(want, sizeof(want), "go 1.%d trace", versions[i]);
		if (!memcmp(hdr, want, 16))
			return versions[i];
	}
	return 0;
}

int64_t gt_go123_batch_len(const uint8_t *p, size_t n)
{
	size_t at;
	uint64_t v = 0;

	if (!n)
		return 0;
	if (p[0] == GT_GO123_EV_END_OF_GENERATION)
		return 1;
	if (p[0] != GT_GO123_EV_BATCH && p[0] != GT_GO123_EV_EXPERIMENTAL_BATCH)
		return -1;
	at = p[0] == GT_GO123_EV_EXPERIMENTAL_BATCH ? 2 : 1;
	/* gen, M, time, size: the last one read is the size. */
	for (int i = 0; i < 4; i++) {
		int k = at < n ? gt_leb_get(p + at, n - at, &v) :
			GT_LEB_TRUNCATED;

		if (k == GT_LEB_TRUNCATED)
			return 0;
		if (k < 0)
			return -1;
		at += (size_t)k;
	}
	return v > MAX_BATCH_SIZE ? -1 : (int64_t)(at + v);
}

void gt_go123_open(struct gt_go123_reader *r, const struct gt_src *src)
{
	char hdr[16] = "";

	*r = (struct gt_go123_reader){ .src = src, .pos = 16 };
	if (!gt_src_read(src, 0, hdr, sizeof(hdr)))
		r->version = gt_go123_header((const uint8_t *)hdr, sizeof(hdr));
}

__attribute__((format(printf, 4, 5)))
static int fail(struct gt_trace_error *err, uint64_t off, uint64_t gen,
		const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	err->off = (size_t)off;
	if (gen)
		n = snprintf(err->msg, sizeof(err->msg), "generation %llu: ",
			     (unsigned long long)gen);
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t nc = *cap ? *cap : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	n = realloc(*p, nc * size);
	if (!n)
		return -1;
	*p = n;
	*cap = nc;
	return 0;
}

static void gen_reset(struct gt_go123_gen *g)
{
	u64map_free(&g->strings);
	u64map_free(&g->stacks);
	u64map_free(&g->frames);
	g->gen = g->freq = g->nbatches_all = g->min_ts = 0;
	g->snapshot = g->complete = false;
	memset(g->snap, 0, sizeof(g->snap));
	g->len = g->nbatches = g->slen = g->npcs = g->nfr = 0;
	g->nsamples = 0;
}

void gt_go123_gen_free(struct gt_go123_gen *g)
{
	gen_reset(g);
	free(g->data);
	free(g->batches);
	free(g->sdata);
	free(g->pcs);
	free(g->fr);
	free(g->samples);
	memset(g, 0, sizeof(*g));
}

/* A batch as read from the file, before it is sorted by kind. */
struct raw_batch {
	uint64_t off, end;
	uint64_t gen, m, time, size;
	bool eog;		/* the bare end-of-generation byte */
	bool experimental;
};

/*
 * The batch at r->pos.  0, 1 at the end of the file, or -1 with Go's
 * reason in @err (no generation prefix: the caller knows which).
 */
static int read_batch(struct gt_go123_reader *r, struct raw_batch *b,
		      struct gt_trace_error *err)
{
	static const char *const what[] = { "gen", "M ID", "timestamp", "size" };
	uint8_t hdr[BATCH_HDR_MAX];
	uint64_t v[4], left = r->src->len - r->pos;
	size_t n = left < sizeof(hdr) ? (size_t)left : sizeof(hdr), at;

	memset(b, 0, sizeof(*b));
	b->off = r->pos;
	if (!n)
		return 1;
	if (gt_src_read(r->src, r->pos, hdr, n))
		return fail(err, r->pos, 0, "cannot read the file");
	if (hdr[0] == GT_GO123_EV_END_OF_GENERATION) {
		b->eog = true;
		b->end = r->pos + 1;
		return 0;
	}
	if (hdr[0] != GT_GO123_EV_BATCH && hdr[0] != GT_GO123_EV_EXPERIMENTAL_BATCH)
		return fail(err, r->pos, 0, "expected batch event, got event %u",
			    hdr[0]);
	b->experimental = hdr[0] == GT_GO123_EV_EXPERIMENTAL_BATCH;
	at = b->experimental ? 2 : 1;
	if (at > n)
		return fail(err, r->pos, 0, "the file ends in a batch header");
	for (int i = 0; i < 4; i++) {
		int k = gt_leb_get(hdr + at, n - at, &v[i]);

		if (k <= 0)
			return fail(err, r->pos, 0, "error reading batch %s: %s",
				    what[i], k == GT_LEB_TRUNCATED ?
				    "the file ends in it" : "value too large");
		at += (size_t)k;
		if (!i)
			b->gen = v[0];	/* for the messages that follow */
	}
	b->m = v[1];
	b->time = v[2];
	b->size = v[3];
	if (b->size > MAX_BATCH_SIZE)
		return fail(err, r->pos, 0, "invalid batch size %llu, maximum is %d",
			    (unsigned long long)b->size, MAX_BATCH_SIZE);
	if (b->size > left - at)
		return fail(err, r->pos, 0,
			    "failed to read full batch: read %llu but wanted %llu",
			    (unsigned long long)(left - at),
			    (unsigned long long)b->size);
	b->end = r->pos + at + b->size;
	return 0;
}

/* Value @i of a table record at *@p; false if the data ends first. */
static bool val(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int k = gt_leb_get(*p, (size_t)(end - *p), v);

	if (k <= 0)
		return false;
	*p += k;
	return true;
}

static int add_strings(struct gt_go123_gen *g, const uint8_t *p,
		       const uint8_t *end, uint64_t off,
		       struct gt_trace_error *err)
{
	for (p++; p < end;) {
		uint64_t id, len, *slot;
		bool added;

		if (*p++ != GT_GO123_EV_STRING)
			return fail(err, off, g->gen, "expected string event, got %u",
				    p[-1]);
		if (!val(&p, end, &id) || !val(&p, end, &len))
			return fail(err, off, g->gen, "string table batch ends in a record");
		if (len > MAX_STRING)
			return fail(err, off, g->gen, "invalid string size %llu, maximum is %d",
				    (unsigned long long)len, MAX_STRING);
		if (len > (uint64_t)(end - p))
			return fail(err, off, g->gen,
				    "failed to read full string: read %zu but wanted %llu",
				    (size_t)(end - p), (unsigned long long)len);
		if (grow((void **)&g->sdata, &g->scap, g->slen + len + 1, 1))
			return fail(err, off, g->gen, "out of memory");
		slot = u64map_put(&g->strings, id, g->slen | len << 40, &added);
		if (!slot)
			return fail(err, off, g->gen, "out of memory");
		/* Go's table holds id 0, the empty string, from the start. */
		if (!added || !id)
			return fail(err, off, g->gen, "multiple strings with the same ID: id=%llu",
				    (unsigned long long)id);
		memcpy(g->sdata + g->slen, p, len);
		g->sdata[g->slen + len] = 0;
		g->slen += len + 1;
		p += len;
	}
	return 0;
}

static int add_stacks(struct gt_go123_gen *g, const uint8_t *p,
		      const uint8_t *end, uint64_t off,
		      struct gt_trace_error *err)
{
	for (p++; p < end;) {
		uint64_t id, n, *slot;
		size_t first = g->npcs;
		bool added;

		if (*p++ != GT_GO123_EV_STACK)
			return fail(err, off, g->gen, "expected stack event, got %u",
				    p[-1]);
		if (!val(&p, end, &id) || !val(&p, end, &n))
			return fail(err, off, g->gen, "stack table batch ends in a record");
		if (n > MAX_FRAMES)
			return fail(err, off, g->gen, "invalid stack size %llu, maximum is %d",
				    (unsigned long long)n, MAX_FRAMES);
		if (grow((void **)&g->pcs, &g->pcap, g->npcs + n, sizeof(*g->pcs)))
			return fail(err, off, g->gen, "out of memory");
		for (uint64_t i = 0; i < n; i++) {
			struct gt_go123_frame f;

			if (!val(&p, end, &f.pc) || !val(&p, end, &f.func) ||
			    !val(&p, end, &f.file) || !val(&p, end, &f.line))
				return fail(err, off, g->gen,
					    "reading frame %llu of stack %llu: the batch ends",
					    (unsigned long long)i + 1,
					    (unsigned long long)id);
			g->pcs[g->npcs++] = f.pc;
			if (u64map_get(&g->frames, f.pc))
				continue;
			if (grow((void **)&g->fr, &g->frcap, g->nfr + 1, sizeof(f)) ||
			    !u64map_put(&g->frames, f.pc, g->nfr, &added))
				return fail(err, off, g->gen, "out of memory");
			g->fr[g->nfr++] = f;
		}
		slot = u64map_put(&g->stacks, id, first | n << 32, &added);
		if (!slot)
			return fail(err, off, g->gen, "out of memory");
		/* And id 0, the empty stack. */
		if (!added || !id)
			return fail(err, off, g->gen, "multiple stacks with the same ID: id=%llu",
				    (unsigned long long)id);
	}
	return 0;
}

/* The sync batch: a Frequency (< 1.25), or Sync, Frequency, ClockSnapshot. */
static int set_sync(struct gt_go123_reader *r, struct gt_go123_gen *g,
		    const uint8_t *p, const uint8_t *end, uint64_t off,
		    uint64_t base, struct gt_trace_error *err)
{
	if (r->version >= GT_GO123_GO125)
		p++;
	while (p < end) {
		uint8_t t = *p++;
		uint64_t v;

		if (t == GT_GO123_EV_FREQUENCY) {
			if (g->freq)
				return fail(err, off, g->gen, "found multiple frequency events");
			if (!val(&p, end, &v))
				return fail(err, off, g->gen, "sync batch ends in its frequency");
			if (!v)
				return fail(err, off, g->gen, "frequency 0");
			g->freq = v;
		} else if (t == GT_GO123_EV_CLOCK_SNAPSHOT &&
			   r->version >= GT_GO123_GO125) {
			if (g->snapshot)
				return fail(err, off, g->gen,
					    "found multiple clock snapshot events");
			g->snapshot = true;
			for (int i = 0; i < 4; i++) {
				if (!val(&p, end, &v))
					return fail(err, off, g->gen,
						    "sync batch ends in its clock snapshot");
				g->snap[i] = v;
			}
			/* Its time is a delta from the batch's. */
			g->snap[0] += base;
		} else {
			return fail(err, off, g->gen,
				    "expected frequency or clock snapshot event, got %u", t);
		}
	}
	return 0;
}

/*
 * A CPU samples batch: each sample is the CPUSample byte and five values
 * (time, M, P, G, stack), as Go's addCPUSamples() reads them.  Their
 * times wait for the frequency, their stacks for the stack table
 * (gen_validate()).
 */
static int add_samples(struct gt_go123_gen *g, const uint8_t *p,
		       const uint8_t *end, uint64_t off,
		       struct gt_trace_error *err)
{
	static const char *const what[] = { "time", "M", "P", "G", "stack" };

	for (p++; p < end;) {
		uint64_t v[5];

		if (*p++ != GT_GO123_EV_CPU_SAMPLE)
			return fail(err, off, g->gen, "expected CPU sample event, got %u",
				    p[-1]);
		for (int i = 0; i < 5; i++) {
			int k = gt_leb_get(p, (size_t)(end - p), &v[i]);

			if (k <= 0)
				return fail(err, off, g->gen,
					    "CPU sample %zu of its batch: its %s %s",
					    g->nsamples + 1, what[i],
					    k == GT_LEB_TRUNCATED ?
					    "is cut off by the batch's end" :
					    "overflows 64 bits");
			p += k;
		}
		if (grow((void **)&g->samples, &g->smcap, g->nsamples + 1,
			 sizeof(*g->samples)))
			return fail(err, off, g->gen, "out of memory");
		g->samples[g->nsamples++] = (struct gt_go123_sample){
			.ts = v[0], .m = v[1], .p = v[2], .g = v[3],
			.stack = v[4], .off = off,
		};
	}
	return 0;
}

/*
 * Sort the samples by time, equal times in file order (a merge sort:
 * Go's writer gives them nearly in order, and a broken file must not
 * cost more than n log n).  0, or -1 out of memory.
 */
static int sort_samples(struct gt_go123_gen *g)
{
	struct gt_go123_sample *a = g->samples, *b, *t;
	size_t n = g->nsamples;

	b = malloc(n * sizeof(*b));
	if (!b)
		return -1;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				b[k++] = a[j].ts < a[i].ts ? a[j++] : a[i++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		t = a;
		a = b;
		b = t;
	}
	if (a != g->samples) {
		memcpy(g->samples, a, n * sizeof(*a));
		b = a;
	}
	free(b);
	return 0;
}

/*
 * The samples' times in ns, by time, as Go's fixUpCPUSamples() makes
 * them; and their stacks, which Go's reader does not check but its
 * tools look up (and panic on, 'go tool trace -d' of Go 1.23 and 1.27):
 * a stack id not in the table is an error here.
 */
static int fix_samples(struct gt_go123_gen *g, struct gt_trace_error *err)
{
	const uint64_t *pcs;
	size_t n;

	for (size_t i = 0; i < g->nsamples; i++) {
		struct gt_go123_sample *s = &g->samples[i];

		if (!gt_go123_stack(g, s->stack, &pcs, &n))
			return fail(err, s->off, g->gen,
				    "found invalid stack ID %llu for a CPU sample (M %lld, G %llu)",
				    (unsigned long long)s->stack,
				    (long long)s->m, (unsigned long long)s->g);
		s->ts = gt_go123_ticks_ns(g->freq, s->ts);
	}
	if (g->nsamples > 1 && sort_samples(g))
		return fail(err, g->off, g->gen, "out of memory");
	return 0;
}

/* File the batch @b of @g by the kind its first data byte says. */
static int add_batch(struct gt_go123_reader *r, struct gt_go123_gen *g,
		     const struct raw_batch *b, struct gt_trace_error *err)
{
	size_t size = (size_t)b->size;
	const uint8_t *p, *end;
	int ret = 0;

	if (grow((void **)&g->data, &g->cap, g->len + size + 1, 1))
		return fail(err, b->off, g->gen, "out of memory");
	if (gt_src_read(r->src, b->end - size, g->data + g->len, size))
		return fail(err, b->off, g->gen, "cannot read the file");
	g->nbatches_all++;
	if (!g->min_ts || b->time < g->min_ts)
		g->min_ts = b->time;
	if (b->experimental)
		return 0;
	p = g->data + g->len;
	end = p + size;
	if (size && p[0] == GT_GO123_EV_STRINGS)
		ret = add_strings(g, p, end, b->off, err);
	else if (size && p[0] == GT_GO123_EV_STACKS)
		ret = add_stacks(g, p, end, b->off, err);
	else if (size && p[0] == GT_GO123_EV_CPU_SAMPLES)
		ret = add_samples(g, p, end, b->off, err);
	else if (size && ((p[0] == GT_GO123_EV_FREQUENCY &&
			   r->version < GT_GO123_GO125) ||
			  (p[0] == GT_GO123_EV_SYNC &&
			   r->version >= GT_GO123_GO125)))
		ret = set_sync(r, g, p, end, b->off, b->time, err);
	else {
		/* An event batch: keep its data for the walk. */
		if (grow((void **)&g->batches, &g->bcap, g->nbatches + 1,
			 sizeof(*g->batches)))
			return fail(err, b->off, g->gen, "out of memory");
		g->batches[g->nbatches++] = (struct gt_go123_batch){
			.off = b->off, .m = b->m, .time = b->time,
			.data = g->len, .size = size,
		};
		g->len += size;
	}
	return ret;
}

/* What Go checks once a generation's batches are all read. */
static int gen_validate(struct gt_go123_reader *r, struct gt_go123_gen *g,
			struct gt_trace_error *err)
{
	uint64_t id, v;
	size_t i = 0;

	if (!g->freq)
		return fail(err, g->off, g->gen, "no frequency event found");
	if (r->version >= GT_GO123_GO125 && !g->snapshot)
		return fail(err, g->off, g->gen, "no clock snapshot event found");
	while (u64map_next(&g->stacks, &i, &id, &v)) {
		for (uint64_t k = 0; k < v >> 32; k++) {
			uint64_t pc = g->pcs[(v & 0xffffffff) + k];
			const struct gt_go123_frame *f = gt_go123_frame(g, pc);

			if (f->func && !u64map_get(&g->strings, f->func))
				return fail(err, g->off, g->gen,
					    "found invalid func string ID %llu for stack %llu",
					    (unsigned long long)f->func,
					    (unsigned long long)id);
			if (f->file && !u64map_get(&g->strings, f->file))
				return fail(err, g->off, g->gen,
					    "found invalid file string ID %llu for stack %llu",
					    (unsigned long long)f->file,
					    (unsigned long long)id);
		}
	}
	return fix_samples(g, err);
}

int gt_go123_next(struct gt_go123_reader *r, struct gt_go123_gen *g,
		  struct gt_trace_error *err)
{
	struct gt_trace_error why;
	struct raw_batch b;
	bool any = false;
	int ret;

	if (r->pending) {
		*err = r->pending_err;
		return -1;
	}
	gen_reset(g);
	g->off = r->pos;
	for (;;) {
		ret = read_batch(r, &b, &why);
		if (ret < 0 && r->version < GT_GO123_GO126 && any) {
			/* Go checks what it has, then reports the error. */
			r->pending = true;
			/*
			 * A cut inside the first batch of the next generation,
			 * after its number: this one ended before it.
			 */
			g->complete = b.gen == g->gen + 1;
			fail(&r->pending_err, why.off, g->gen, "%s", why.msg);
			break;
		}
		if (ret < 0)
			return fail(err, why.off, any ? g->gen : b.gen, "%s",
				    why.msg);
		if (ret > 0) {	/* the end of the file */
			/* A header alone: Go finds no frequency. */
			if (!any && !r->generations)
				return fail(err, r->pos, 0,
					    "the file ends after its header: no generation, no frequency event found");
			if (!any)
				return 0;
			if (r->version >= GT_GO123_GO126)
				return fail(err, r->pos, g->gen,
					    "incomplete generation found; trace likely truncated");
			break;
		}
		if (b.eog) {
			if (r->version < GT_GO123_GO126)
				return fail(err, b.off, g->gen,
					    "end-of-generation byte in a go 1.%d trace",
					    r->version);
			r->pos = b.end;
			any = true;
			g->complete = true;
			break;
		}
		if (!b.gen)
			return fail(err, b.off, 0, "invalid generation number 0");
		if (!any) {
			g->gen = b.gen;
			if (r->version < GT_GO123_GO126 && r->prev_gen &&
			    b.gen != r->prev_gen + 1)
				return fail(err, b.off, 0, "generations out of order");
		} else if (b.gen != g->gen) {
			if (r->version < GT_GO123_GO126 && b.gen == g->gen + 1) {
				/* The next generation starts here. */
				g->complete = true;
				break;
			}
			if (r->version < GT_GO123_GO126)
				return fail(err, b.off, g->gen, "generations out of order");
			return fail(err, b.off, g->gen,
				    "missing end-of-generation event, or generations are interleaved");
		}
		any = true;
		if (add_batch(r, g, &b, err))
			return -1;
		r->pos = b.end;
	}
	g->end = r->pos;
	if (gen_validate(r, g, err))
		return -1;
	r->prev_gen = g->gen;
	r->generations++;
	return 1;
}

bool gt_go123_string(const struct gt_go123_gen *g, uint64_t id, const char **s,
		     size_t *len)
{
	const uint64_t *v;

	if (!id) {
		*s = "";
		*len = 0;
		return true;
	}
	v = u64map_get(&g->strings, id);
	if (!v)
		return false;
	*s = g->sdata + (*v & ((1ULL << 40) - 1));
	*len = (size_t)(*v >> 40);
	return true;
}

bool gt_go123_stack(const struct gt_go123_gen *g, uint64_t id,
		    const uint64_t **pcs, size_t *n)
{
	const uint64_t *v;

	if (!id) {
		*pcs = NULL;
		*n = 0;
		return true;
	}
	v = u64map_get(&g->stacks, id);
	if (!v)
		return false;
	*pcs = g->pcs + (*v & 0xffffffff);
	*n = (size_t)(*v >> 32);
	return true;
}

const struct gt_go123_frame *gt_go123_frame(const struct gt_go123_gen *g,
					    uint64_t pc)
{
	const uint64_t *i = u64map_get(&g->frames, pc);

	return i ? &g->fr[*i] : NULL;
}

uint64_t gt_go123_cpu_hz(const struct gt_go123_gen *g)
{
	static const char pre[] = GT_GO123_CPU_HZ_PREFIX;
	static const char suf[] = GT_GO123_CPU_HZ_SUFFIX;
	size_t i = 0, n, np = sizeof(pre) - 1, ns = sizeof(suf) - 1;
	uint64_t id, v, hz;

	while (u64map_next(&g->strings, &i, &id, &v)) {
		const char *s = g->sdata + (v & ((1ULL << 40) - 1)), *d;

		n = (size_t)(v >> 40);
		/* One to nine digits: a rate up to 999999999 Hz. */
		if (n <= np + ns || n > np + 9 + ns || memcmp(s, pre, np) ||
		    memcmp(s + n - ns, suf, ns))
			continue;
		hz = 0;
		for (d = s + np; d < s + n - ns && *d >= '0' && *d <= '9'; d++)
			hz = hz * 10 + (uint64_t)(*d - '0');
		if (d == s + n - ns && hz)
			return hz;
	}
	return 0;
}
