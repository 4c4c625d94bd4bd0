// SPDX-License-Identifier: GPL-2.0
/*
 * go123_long.c - write a valid "go 1.23 trace" of as many generations as asked
 *
 *   go123_long GENERATIONS OUT
 *
 * For tests that need a long trace (go123_stream_test.sh): every generation
 * is the same work, so its size does not depend on how many there are
 * (about 50 KiB): a sweep batch (no M) states 4 idle Ps and 64 runnable
 * goroutines, then each P's M starts its P and runs its 16 goroutines in
 * turn, 100 rounds (GoStart, GoStop), and stops it; every state is back
 * where it started, so the next generation's statuses agree.  Then the
 * frequency, a string table and a stack table, as Go's runtime orders
 * them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/go123.h"

#define NPROCS	4
#define NGS	64
#define ROUNDS	100
#define NOM	UINT64_MAX

static uint8_t buf[1 << 16];
static size_t len;

static void put_to(uint8_t *b, size_t *n, uint64_t v)
{
	do {
		b[(*n)++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void put(uint64_t v)
{
	put_to(buf, &len, v);
}

/* Write what buf holds as one batch of @m in generation @gen. */
static void flush(FILE *f, uint64_t gen, uint64_t m, uint64_t time)
{
	uint8_t hdr[64] = { GT_GO123_EV_BATCH };
	size_t n = 1;

	put_to(hdr, &n, gen);
	put_to(hdr, &n, m);
	put_to(hdr, &n, time);
	put_to(hdr, &n, len);
	if (fwrite(hdr, 1, n, f) != n || fwrite(buf, 1, len, f) != len) {
		perror("go123_long");
		exit(1);
	}
	len = 0;
}

static void ev(uint8_t type, int n, const uint64_t *a)
{
	buf[len++] = type;
	for (int i = 0; i < n; i++)
		put(a[i]);
}

int main(int argc, char **argv)
{
	uint64_t gens, t = 1000;
	FILE *f;

	if (argc != 3 || !(gens = strtoull(argv[1], NULL, 10))) {
		fprintf(stderr, "usage: go123_long GENERATIONS OUT\n");
		return 2;
	}
	f = fopen(argv[2], "wb");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	fwrite("go 1.23 trace\0\0\0", 1, 16, f);
	for (uint64_t gen = 1; gen <= gens; gen++) {
		for (uint64_t p = 0; p < NPROCS; p++)
			ev(GT_GO123_EV_PROC_STATUS, 3, (uint64_t[]){ 0, p, 2 });
		for (uint64_t g = 1; g <= NGS; g++)
			ev(GT_GO123_EV_GO_STATUS, 4, (uint64_t[]){ 0, g, NOM, 1 });
		flush(f, gen, NOM, t);
		for (uint64_t p = 0; p < NPROCS; p++) {
			uint64_t m = 100 + p;

			ev(GT_GO123_EV_PROC_START, 3, (uint64_t[]){ 1, p, 1 });
			for (uint64_t r = 1; r <= ROUNDS; r++) {
				for (uint64_t k = 0; k < NGS / NPROCS; k++) {
					uint64_t g = 1 + p * (NGS / NPROCS) + k;

					ev(GT_GO123_EV_GO_START, 3, (uint64_t[]){ 1, g, r });
					ev(GT_GO123_EV_GO_STOP, 3, (uint64_t[]){ 1, 0, 0 });
				}
				if (len > 30000)	/* batches stay under 64 KiB */
					flush(f, gen, m, t + 1);
			}
			ev(GT_GO123_EV_PROC_STOP, 1, (uint64_t[]){ 1 });
			flush(f, gen, m, t + 1);
		}
		t += 100000;
		ev(GT_GO123_EV_FREQUENCY, 1, (uint64_t[]){ 1000000000 });
		flush(f, gen, NOM, t);
		buf[len++] = GT_GO123_EV_STRINGS;
		buf[len++] = GT_GO123_EV_STRING;
		put(1);
		put(6);
		memcpy(buf + len, "go123_long", 6);
		len += 6;
		flush(f, gen, NOM, t);
		buf[len++] = GT_GO123_EV_STACKS;
		buf[len++] = GT_GO123_EV_STACK;
		put(1);
		put(1);
		put(0x1000);
		put(1);
		put(1);
		put(0);
		flush(f, gen, NOM, t);
	}
	if (fclose(f)) {
		perror(argv[2]);
		return 1;
	}
	return 0;
}
