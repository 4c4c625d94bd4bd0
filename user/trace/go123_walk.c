// SPDX-License-Identifier: GPL-2.0
/*
 * go123_walk.c - decode a generation's events, merging the Ms by time
 *
 * One cursor per M over its batches; a binary heap of cursors keyed by
 * the time of their next event gives the next event of the generation.
 * The heap is Go's reader's frontier, operation for operation (its
 * heapInsert, heapUpdate, heapRemove, and the sort when the head does
 * not fit), so that events of the same time come in Go's order: a
 * profile's times depend on it, as Go moves each event to 1 ns after
 * the one before where it is not later (go123_pprof.c).  CPU samples,
 * which belong to no M, come in from their own sorted list, where Go's
 * reader puts them.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "leb128.h"
#include "go123_walk.h"

struct cursor {
	const struct gt_go123_batch **b;	/* this M's batches, in file order */
	size_t nb, i;			/* i: the batch being read */
	size_t at;			/* next byte in batch i's data */
	uint64_t last;			/* time of the previous event, ns */
	struct gt_go123_event ev;		/* the next event */
};

struct walk {
	const struct gt_go123_gen *g;
	struct gt_trace_error *err;
};

/* @ticks in ns (gt_go123_ticks_ns()); the sums of them saturate too. */
static uint64_t to_ns(const struct walk *w, uint64_t ticks)
{
	return gt_go123_ticks_ns(w->g->freq, ticks);
}

static uint64_t add_ns(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

__attribute__((format(printf, 4, 5)))
static int bad(struct walk *w, const struct gt_go123_batch *b, size_t at,
	       const char *fmt, ...);

/* The next event of @c into c->ev.  1, 0 at the end, -1 on an error. */
static int next_event(struct walk *w, struct cursor *c)
{
	const struct gt_go123_gen *g = w->g;
	const struct gt_go123_spec *spec;
	const struct gt_go123_batch *b;
	const uint8_t *p, *end;

	while (c->i < c->nb && c->at == c->b[c->i]->size) {
		c->i++;
		c->at = 0;
	}
	if (c->i == c->nb)
		return 0;
	b = c->b[c->i];
	if (!c->at)
		c->last = to_ns(w, b->time);
	p = g->data + b->data + c->at;
	end = g->data + b->data + b->size;
	c->ev.type = *p;
	c->ev.m = b->m;
	c->ev.off = b->off;
	spec = gt_go123_spec(*p);
	if (!spec)
		return bad(w, b, c->at, "found event without a timestamp: type=%u",
			   *p);
	p++;
	for (unsigned int i = 0; i < spec->nargs; i++) {
		int k = gt_leb_get(p, (size_t)(end - p), &c->ev.args[i]);

		if (k <= 0)
			return bad(w, b, c->at, "%s: found invalid uvarint",
				   spec->name);
		p += k;
	}
	for (unsigned int i = 1; i < spec->nargs; i++) {
		const uint64_t *pcs;
		const char *str;
		size_t n;

		if ((spec->stack_args & (1u << i)) &&
		    !gt_go123_stack(g, c->ev.args[i], &pcs, &n))
			return bad(w, b, c->at, "found invalid stack ID %llu for event %s",
				   (unsigned long long)c->ev.args[i], spec->name);
		if ((spec->string_args & (1u << i)) &&
		    !gt_go123_string(g, c->ev.args[i], &str, &n))
			return bad(w, b, c->at, "found invalid string ID %llu for event %s",
				   (unsigned long long)c->ev.args[i], spec->name);
	}
	c->at = (size_t)(p - (g->data + b->data));
	c->ev.ts = add_ns(c->last, to_ns(w, c->ev.args[0]));
	c->last = c->ev.ts;
	return 1;
}

static int bad(struct walk *w, const struct gt_go123_batch *b, size_t at,
	       const char *fmt, ...)
{
	va_list ap;
	int n;

	w->err->off = (size_t)b->off;
	n = snprintf(w->err->msg, sizeof(w->err->msg),
		     "generation %llu: batch of M %lld, byte %zu: ",
		     (unsigned long long)w->g->gen, (long long)b->m, at);
	va_start(ap, fmt);
	vsnprintf(w->err->msg + n, sizeof(w->err->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool earlier(const struct cursor *a, const struct cursor *b)
{
	return a->ev.ts < b->ev.ts;
}

static void sift_down(struct cursor **h, size_t n, size_t i)
{
	for (;;) {
		size_t m = i, l = 2 * i + 1, r = l + 1;
		struct cursor *t;

		if (l < n && earlier(h[l], h[m]))
			m = l;
		if (r < n && earlier(h[r], h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Batches by M, in file order within an M (the index breaks ties). */
static int by_m(const void *x, const void *y)
{
	const struct gt_go123_batch *a = *(const struct gt_go123_batch *const *)x;
	const struct gt_go123_batch *b = *(const struct gt_go123_batch *const *)y;

	if (a->m != b->m)
		return a->m < b->m ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Where entry @i ends up. */
static size_t sift_up(struct cursor **h, size_t i)
{
	while (i && earlier(h[i], h[(i - 1) / 2])) {
		struct cursor *t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return i;
}

/* Entry @i's time changed (Go's heapUpdate): up if it moves, else down. */
static void update(struct cursor **h, size_t n, size_t i)
{
	if (sift_up(h, i) == i)
		sift_down(h, n, i);
}

/*
 * Entry @i has no more events (Go's heapRemove): carried to the root
 * whatever the times, swapped with the last, dropped, the root sifted.
 */
static void remove_at(struct cursor **h, size_t *n, size_t i)
{
	for (; i; i = (i - 1) / 2) {
		struct cursor *t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
	}
	h[0] = h[--*n];
	sift_down(h, *n, 0);
}

/* qsort()'s order of cursors by the time of their next event. */
static int by_time(const void *x, const void *y)
{
	const struct cursor *a = *(struct cursor *const *)x;
	const struct cursor *b = *(struct cursor *const *)y;

	return earlier(a, b) ? -1 : earlier(b, a);
}

/*
 * The head does not fit: Go sorts the whole frontier by time
 * (slices.SortFunc) and tries the entries from the second on.  Up to 12
 * entries Go sorts by insertion, stably, and so does this: equal times
 * keep Go's order.  Above 12 Go's pattern-defeating quicksort may order
 * equal times otherwise, and a generation of a busy machine has
 * thousands of Ms (one per task), so this sorts in O(n log n) too,
 * without emulating Go's order of equal times.  A sorted array is a
 * heap, so the frontier stays one.
 */
static void sort_by_time(struct cursor **h, size_t n)
{
	if (n > 12) {
		qsort(h, n, sizeof(*h), by_time);
		return;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j && earlier(h[j], h[j - 1]); j--) {
			struct cursor *t = h[j];

			h[j] = h[j - 1];
			h[j - 1] = t;
		}
}

/* Cursors by the file position of their M's first batch (Go's batchMs). */
static int by_first_batch(const void *x, const void *y)
{
	const struct cursor *a = x, *b = y;

	return a->b[0] < b->b[0] ? -1 : a->b[0] > b->b[0];
}

/* No M's next event fits: Go's "failed to advance". */
static int stuck(struct walk *w, struct cursor **heap, size_t n)
{
	const struct cursor *c = heap[0];

	w->err->off = (size_t)c->ev.off;
	snprintf(w->err->msg, sizeof(w->err->msg),
		 "generation %llu: broken trace: failed to advance: no event of the %zu Ms fits, the first is %s of M %lld at %llu ns",
		 (unsigned long long)w->g->gen, n, gt_go123_type_name(c->ev.type),
		 (long long)c->ev.m, (unsigned long long)c->ev.ts);
	return -1;
}

/* Sample @s of the generation as an event to @fn: 0, or -1 to stop. */
static int give_sample(const struct gt_go123_gen *g,
		       const struct gt_go123_sample *s, gt_go123_event_fn fn,
		       void *ctx, struct gt_trace_error *err)
{
	struct gt_go123_event ev = {
		.type = GT_GO123_EV_CPU_SAMPLE, .m = s->m, .ts = s->ts,
		.args = { 0, s->p, s->g, s->stack }, .off = s->off,
	};

	return fn(ctx, g, &ev, err) < 0 ? -1 : 0;
}

/*
 * The walk.  With @samples, the generation's CPU samples come in between
 * the events as Go's reader gives them: the next sample before the
 * next try of the frontier when it is earlier than the frontier's head,
 * or when no event is left.
 */
static int walk(const struct gt_go123_gen *g, gt_go123_event_fn fn, void *ctx,
		struct gt_trace_error *err, uint64_t *ties, bool samples)
{
	struct walk w = { .g = g, .err = err };
	const struct gt_go123_batch **order;
	struct cursor *cs, **heap;
	size_t ncs = 0, n = 0, si = 0, ns = samples && fn ? g->nsamples : 0;
	int ret = 0;

	if (!g->nbatches) {
		for (; si < ns; si++)
			if (give_sample(g, &g->samples[si], fn, ctx, err))
				return -1;
		return 0;
	}
	order = malloc(g->nbatches * sizeof(*order));
	cs = calloc(g->nbatches, sizeof(*cs));
	heap = malloc(g->nbatches * sizeof(*heap));
	if (!order || !cs || !heap) {
		err->off = (size_t)g->off;
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		ret = -1;
		goto out;
	}
	for (size_t i = 0; i < g->nbatches; i++)
		order[i] = &g->batches[i];
	qsort(order, g->nbatches, sizeof(*order), by_m);
	for (size_t i = 0; i < g->nbatches; i++) {
		if (i && order[i]->m == order[i - 1]->m) {
			cs[ncs - 1].nb++;
			continue;
		}
		cs[ncs++] = (struct cursor){ .b = &order[i], .nb = 1 };
	}
	/* Go inserts the Ms' cursors one by one, in the order it met them. */
	qsort(cs, ncs, sizeof(*cs), by_first_batch);
	for (size_t i = 0; i < ncs; i++) {
		ret = next_event(&w, &cs[i]);
		if (ret < 0)
			goto out;
		if (ret) {
			heap[n++] = &cs[i];
			sift_up(heap, n - 1);
		}
	}
	ret = 0;
	while (n || si < ns) {
		size_t i = 0;
		int r;

		if (si < ns && (!n || g->samples[si].ts < heap[0]->ev.ts)) {
			ret = give_sample(g, &g->samples[si++], fn, ctx, err);
			if (ret)
				break;
			continue;
		}
		r = fn ? fn(ctx, g, &heap[0]->ev, err) : 0;

		if (r > 0) {
			uint64_t head = heap[0]->ev.ts;

			sort_by_time(heap, n);
			for (i = 1; i < n && r > 0; i++)
				r = fn(ctx, g, &heap[i]->ev, err);
			i--;
			if (r > 0)
				r = stuck(&w, heap, n);
			else if (!r && ties && heap[i]->ev.ts == head)
				(*ties)++;	/* it needed an event of its time */
		}
		if (r < 0) {
			ret = -1;
			break;
		}
		/* The event applied is entry i's. */
		ret = next_event(&w, heap[i]);
		if (ret < 0)
			break;
		if (ret)
			update(heap, n, i);
		else
			remove_at(heap, &n, i);
		ret = 0;
	}
out:
	free(order);
	free(cs);
	free(heap);
	return ret ? -1 : 0;
}

int gt_go123_walk(const struct gt_go123_gen *g, gt_go123_event_fn fn, void *ctx,
		  struct gt_trace_error *err)
{
	return walk(g, fn, ctx, err, NULL, false);
}

int gt_go123_walk_ties(const struct gt_go123_gen *g, gt_go123_event_fn fn,
		       void *ctx, struct gt_trace_error *err,
		       uint64_t *ties)
{
	return walk(g, fn, ctx, err, ties, false);
}

int gt_go123_walk_samples(const struct gt_go123_gen *g, gt_go123_event_fn fn,
			  void *ctx, struct gt_trace_error *err, uint64_t *ties)
{
	return walk(g, fn, ctx, err, ties, true);
}
