// SPDX-License-Identifier: GPL-2.0
/*
 * mutate.c - one damaged copy of a trace, chosen by a seed
 *
 *   mutate SEED IN OUT
 *
 * For the differential run (differential.sh): the same seed always gives
 * the same copy.  The header is kept (a file that is no trace is no
 * question); the rest is cut, or one to four of these: a bit flipped, a
 * byte set, a byte made a small number (event types and counts are
 * small), bytes deleted, inserted or repeated, two bytes swapped.  Prints
 * what it did.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR 16

static uint64_t rng;

/* splitmix64: every seed, even 0, a good stream. */
static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static size_t below(size_t n)
{
	return n ? (size_t)(next() % n) : 0;
}

int main(int argc, char **argv)
{
	uint8_t *b;
	size_t len, cap;
	FILE *f;
	int ops;

	if (argc != 4) {
		fprintf(stderr, "usage: mutate SEED IN OUT\n");
		return 2;
	}
	rng = strtoull(argv[1], NULL, 0);
	f = fopen(argv[2], "rb");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	cap = len * 2 + 64;
	b = malloc(cap);
	if (!b || fread(b, 1, len, f) != len) {
		fprintf(stderr, "%s: cannot read\n", argv[2]);
		return 2;
	}
	fclose(f);
	if (len <= HDR) {
		fprintf(stderr, "%s: no more than a header\n", argv[2]);
		return 2;
	}

	if (next() % 4 == 0) {
		len = HDR + below(len - HDR);
		printf("cut at %zu\n", len);
		ops = 0;
	} else {
		ops = 1 + (int)below(4);
	}
	for (int i = 0; i < ops && len > HDR; i++) {
		size_t at = HDR + below(len - HDR), n;

		switch (next() % 7) {
		case 0:
			b[at] ^= (uint8_t)(1u << below(8));
			printf("bit flipped at %zu\n", at);
			break;
		case 1:
			b[at] = (uint8_t)next();
			printf("byte set at %zu\n", at);
			break;
		case 2:
			b[at] = (uint8_t)below(64);
			printf("small byte %u at %zu\n", b[at], at);
			break;
		case 3:
			n = 1 + below(8);
			if (n > len - at)
				n = len - at;
			memmove(b + at, b + at + n, len - at - n);
			len -= n;
			printf("%zu bytes deleted at %zu\n", n, at);
			break;
		case 4:
			n = 1 + below(4);
			if (len + n > cap)
				break;
			memmove(b + at + n, b + at, len - at);
			for (size_t k = 0; k < n; k++)
				b[at + k] = (uint8_t)next();
			len += n;
			printf("%zu bytes inserted at %zu\n", n, at);
			break;
		case 5:
			n = 1 + below(32);
			if (n > len - at)
				n = len - at;
			if (len + n > cap)
				break;
			memmove(b + at + n, b + at, len - at);
			len += n;
			printf("%zu bytes repeated at %zu\n", n, at);
			break;
		default: {
			size_t to = HDR + below(len - HDR);
			uint8_t t = b[at];

			b[at] = b[to];
			b[to] = t;
			printf("bytes %zu and %zu swapped\n", at, to);
			break;
		}
		}
	}
	f = fopen(argv[3], "wb");
	if (!f || fwrite(b, 1, len, f) != len || fclose(f)) {
		perror(argv[3]);
		return 2;
	}
	free(b);
	return 0;
}
