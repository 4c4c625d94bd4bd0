// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c - per-CPU queues and a heap over their heads (merge.h)
 */
#include <linux/types.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "merge.h"

struct mrec {
	uint64_t ts;
	size_t len;
	unsigned char data[];
};

/* One CPU's records, oldest first, from @head to @n. */
struct queue {
	struct mrec **v;
	size_t head, n, cap;
};

struct gt_merge {
	unsigned int nr_cpus;
	struct queue *q;
	unsigned int *heap;	/* CPUs whose head is due, by head time */
	uint64_t last_ts;	/* of the last record handed on */
	struct gt_merge_stats st;
};

struct gt_merge *gt_merge_new(unsigned int nr_cpus)
{
	struct gt_merge *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->nr_cpus = nr_cpus;
	m->q = calloc(nr_cpus, sizeof(*m->q));
	m->heap = calloc(nr_cpus, sizeof(*m->heap));
	if (!m->q || !m->heap) {
		gt_merge_free(m);
		return NULL;
	}
	return m;
}

void gt_merge_free(struct gt_merge *m)
{
	if (!m)
		return;
	for (unsigned int c = 0; m->q && c < m->nr_cpus; c++) {
		for (size_t i = m->q[c].head; i < m->q[c].n; i++)
			free(m->q[c].v[i]);
		free(m->q[c].v);
	}
	free(m->q);
	free(m->heap);
	free(m);
}

static int queue_grow(struct queue *q)
{
	struct mrec **v;
	size_t cap;

	/* Reuse the room of records already handed on first. */
	if (q->head) {
		memmove(q->v, q->v + q->head, (q->n - q->head) * sizeof(*q->v));
		q->n -= q->head;
		q->head = 0;
		if (q->n < q->cap)
			return 0;
	}
	cap = q->cap ? 2 * q->cap : 256;
	v = realloc(q->v, cap * sizeof(*v));
	if (!v)
		return -1;
	q->v = v;
	q->cap = cap;
	return 0;
}

int gt_merge_push(struct gt_merge *m, const void *rec, size_t len)
{
	const struct gtb_hdr *h = rec;
	struct queue *q;
	struct mrec *r;
	size_t i;

	if (len < sizeof(*h) || h->cpu >= m->nr_cpus)
		return -1;
	q = &m->q[h->cpu];
	if (q->n == q->cap && queue_grow(q))
		return -1;
	r = malloc(sizeof(*r) + len);
	if (!r)
		return -1;
	r->ts = h->ts;
	r->len = len;
	memcpy(r->data, rec, len);
	/* Sorted insertion from the tail: out-of-order records are recent. */
	for (i = q->n; i > q->head && q->v[i - 1]->ts > r->ts; i--)
		q->v[i] = q->v[i - 1];
	q->v[i] = r;
	q->n++;
	m->st.queued++;
	return 0;
}

static uint64_t head_ts(const struct gt_merge *m, unsigned int cpu)
{
	return m->q[cpu].v[m->q[cpu].head]->ts;
}

static bool before(const struct gt_merge *m, unsigned int a, unsigned int b)
{
	uint64_t ta = head_ts(m, a), tb = head_ts(m, b);

	return ta < tb || (ta == tb && a < b);
}

static void sift_down(struct gt_merge *m, unsigned int n, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, min = i, t;

		if (l < n && before(m, m->heap[l], m->heap[min]))
			min = l;
		if (r < n && before(m, m->heap[r], m->heap[min]))
			min = r;
		if (min == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[min];
		m->heap[min] = t;
		i = min;
	}
}

void gt_merge_emit(struct gt_merge *m, uint64_t limit, gt_merge_fn fn,
		   void *arg)
{
	unsigned int n = 0;

	for (unsigned int c = 0; c < m->nr_cpus; c++)
		if (m->q[c].head < m->q[c].n && head_ts(m, c) <= limit)
			m->heap[n++] = c;
	for (unsigned int i = n / 2; i-- > 0;)
		sift_down(m, n, i);
	while (n) {
		unsigned int c = m->heap[0];
		struct queue *q = &m->q[c];
		struct mrec *r = q->v[q->head++];

		if (r->ts < m->last_ts)
			m->st.late++;
		else
			m->last_ts = r->ts;
		fn(r->data, r->len, arg);
		free(r);
		m->st.queued--;
		m->st.emitted++;
		if (q->head == q->n) {
			q->head = q->n = 0;
			m->heap[0] = m->heap[--n];
		} else if (head_ts(m, c) > limit) {
			m->heap[0] = m->heap[--n];
		}
		sift_down(m, n, 0);
	}
}

void gt_merge_stats(const struct gt_merge *m, struct gt_merge_stats *s)
{
	*s = m->st;
}
