// SPDX-License-Identifier: GPL-2.0
/*
 * usym_prog.c - the binary whose frames the user-stack tests name
 * (usym_test.c, symbolize_test.sh)
 *
 * main -> outer -> middle -> leaf, none inlined.  Run, it prints the
 * stack it had in leaf as the recorders would see it: innermost first,
 * each PC as a file offset of the binary (through /proc/self/maps), one
 * "NAME 0xOFFSET" per line: a PC in leaf (the return from its call of
 * mark()), then the return addresses into middle and outer, as a
 * frame-pointer walk finds them.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void *pcs[3];

__attribute__((noinline)) void mark(void)
{
	pcs[0] = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) int leaf(int x)
{
	mark();
	pcs[1] = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

__attribute__((noinline)) int middle(int x)
{
	int r = leaf(x) * 3;

	pcs[2] = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
	return r;
}

__attribute__((noinline)) int outer(int x)
{
	int r = middle(x) + 7;

	__asm__ volatile("" ::: "memory");
	return r;
}

/* The file offset of @pc from the mapping that holds it, or 0. */
static uint64_t file_off(const void *pc)
{
	uintptr_t a = (uintptr_t)pc;
	unsigned long long lo, hi, off;
	char line[512];
	uint64_t r = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &off) == 3 &&
		    a >= lo && a < hi) {
			r = a - lo + off;
			break;
		}
	fclose(f);
	return r;
}

int main(void)
{
	static const char *const names[3] = { "leaf", "middle", "outer" };

	if (outer(1) != 13)
		return 1;
	for (int i = 0; i < 3; i++)
		printf("%s 0x%llx\n", names[i],
		       (unsigned long long)file_off(pcs[i]));
	return 0;
}
