// SPDX-License-Identifier: GPL-2.0
/*
 * eh_prog.c - the program whose unwind tables eh_table_test.c checks
 * against readelf, built four ways by the Makefile: -O2 without frame
 * pointers, -O0 with them (CFA = rbp + 16), with IBT's PLT (endbr64
 * first), and with only .debug_frame for its own functions, compressed.
 *
 * A little of what compilers do to frames: a call through the PLT, a
 * callback from the C library, a variable-length array (the CFA from
 * the frame pointer even at -O2), a recursion, a large frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_length(const void *a, const void *b)
{
	size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);

	return (x > y) - (x < y);
}

__attribute__((noinline)) static long sum_vla(int n)
{
	volatile long v[n > 0 ? n : 1];
	long s = 0;

	for (int i = 0; i < n; i++)
		v[i] = i * 3;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

__attribute__((noinline)) static long depth(int n)
{
	char pad[4096];

	snprintf(pad, sizeof(pad), "%d", n);
	return n <= 0 ? (long)strlen(pad) : depth(n - 1) + pad[0];
}

int main(int argc, char **argv)
{
	qsort(argv, (size_t)argc, sizeof(*argv), by_length);
	printf("%s %ld %ld\n", argv[argc - 1], sum_vla(argc * 5),
	       depth(argc));
	return 0;
}
