// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_merge_test.c - the BPF backend's merge of per-CPU records
 */
#include <stdint.h>
#include <string.h>

#include "bpf/record.h"
#include "bpf/merge.h"
#include "tap.h"

struct seen {
	uint64_t ts[64];
	unsigned int cpu[64];
	unsigned int n;
};

static void collect(const void *rec, size_t len, void *arg)
{
	const struct gtb_hdr *h = rec;
	struct seen *s = arg;

	(void)len;
	if (s->n < 64) {
		s->ts[s->n] = h->ts;
		s->cpu[s->n++] = h->cpu;
	}
}

static void push(struct gt_merge *m, unsigned int cpu, uint64_t ts)
{
	struct gtb_hdr h = { .ts = ts, .cpu = cpu, .size = sizeof(h) };

	gt_merge_push(m, &h, sizeof(h));
}

static int ordered(const struct seen *s, const uint64_t *want,
		   unsigned int n)
{
	if (s->n != n)
		return 0;
	for (unsigned int i = 0; i < n; i++)
		if (s->ts[i] != want[i])
			return 0;
	return 1;
}

int main(void)
{
	struct gt_merge *m = gt_merge_new(3);
	struct gt_merge_stats st;
	struct gtb_hdr big = { .cpu = 3 };
	struct seen s = { 0 };
	static const uint64_t first[] = { 5, 10, 20, 30 };
	static const uint64_t all[] = { 5, 10, 20, 30, 40, 45, 50, 60 };
	static const uint64_t ties[] = { 7, 7, 7 };

	ok(m != NULL, "a merge of 3 CPUs");
	diag("CPU 0 out of order, CPUs 1 and 2 in order");
	/* CPU 0 out of order within itself (an interrupt's record first). */
	push(m, 0, 20);
	push(m, 0, 10);
	push(m, 0, 50);
	push(m, 1, 5);
	push(m, 1, 45);
	push(m, 2, 30);
	push(m, 2, 40);
	push(m, 2, 60);
	ok(gt_merge_push(m, &big, sizeof(big)) == -1,
	   "a record of a CPU out of range is refused");
	ok(gt_merge_push(m, &big, 4) == -1, "a record shorter than its header is refused");
	gt_merge_emit(m, 30, collect, &s);
	ok(ordered(&s, first, 4), "up to the limit, in time order across and within CPUs");
	gt_merge_stats(m, &st);
	ok(st.queued == 4 && st.emitted == 4, "the rest waits (%llu queued)",
	   (unsigned long long)st.queued);
	gt_merge_emit(m, UINT64_MAX, collect, &s);
	ok(ordered(&s, all, 8), "then everything, in order");
	push(m, 1, 35);
	gt_merge_emit(m, UINT64_MAX, collect, &s);
	gt_merge_stats(m, &st);
	ok(st.late == 1 && s.n == 9,
	   "a record older than one handed on is still handed on, and counted late");
	gt_merge_free(m);

	m = gt_merge_new(3);
	memset(&s, 0, sizeof(s));
	push(m, 2, 7);
	push(m, 0, 7);
	push(m, 1, 7);
	gt_merge_emit(m, 7, collect, &s);
	ok(ordered(&s, ties, 3) && s.cpu[0] == 0 && s.cpu[1] == 1 && s.cpu[2] == 2,
	   "equal times: lower CPU first");
	/* Many records: the queues grow and reuse what was handed on. */
	memset(&s, 0, sizeof(s));
	for (uint64_t t = 1; t <= 5000; t++)
		push(m, t % 3, 100 + t);
	gt_merge_emit(m, 100 + 2500, collect, &s);
	gt_merge_stats(m, &st);
	ok(st.queued == 2500, "5000 records, half handed on");
	for (uint64_t t = 5001; t <= 6000; t++)
		push(m, t % 3, 100 + t);
	gt_merge_emit(m, UINT64_MAX, collect, &s);
	gt_merge_stats(m, &st);
	ok(st.queued == 0 && st.late == 0 && st.emitted == 6003,
	   "all 6000 handed on in order (%llu late)",
	   (unsigned long long)st.late);
	gt_merge_free(m);
	return tap_done();
}
