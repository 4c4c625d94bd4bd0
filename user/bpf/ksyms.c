// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms.c - /proc/kallsyms, sorted for lookups (ksyms.h)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"
#include "../trace/base.h"

struct ksym {
	uint64_t addr;
	char *name;
};

struct gt_ksyms {
	struct ksym *v;
	size_t n, cap;
	bool visible;
};

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add(struct gt_ksyms *k, uint64_t addr, const char *name)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 4096;
		struct ksym *v = realloc(k->v, cap * sizeof(*v));

		if (!v)
			return -1;
		k->v = v;
		k->cap = cap;
	}
	k->v[k->n].name = strdup(name);
	if (!k->v[k->n].name)
		return -1;
	k->v[k->n++].addr = addr;
	return 0;
}

struct gt_ksyms *gt_ksyms_load(const char *path)
{
	struct gt_ksyms *k = calloc(1, sizeof(*k));
	char line[512], name[256], type;
	unsigned long long addr;
	FILE *f;

	if (!path)
		path = "/proc/kallsyms";
	if (!k)
		return NULL;
	f = fopen(path, "re");
	if (!f) {
		gt_err("%s: %s", path, strerror(errno));
		free(k);
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (addr)
			k->visible = true;
		/* Code only: stacks hold return addresses. */
		if (!strchr("tTwW", type))
			continue;
		if (add(k, addr, name)) {
			gt_err("out of memory reading %s", path);
			fclose(f);
			gt_ksyms_free(k);
			return NULL;
		}
	}
	fclose(f);
	if (k->visible)
		qsort(k->v, k->n, sizeof(*k->v), by_addr);
	return k;
}

void gt_ksyms_free(struct gt_ksyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	free(k);
}

bool gt_ksyms_visible(const struct gt_ksyms *k)
{
	return k->visible;
}

const char *gt_ksyms_find(const struct gt_ksyms *k, uint64_t addr,
			  uint64_t *off)
{
	size_t lo = 0, hi = k->n;

	if (!k->visible)
		return NULL;
	/* The last symbol at or below @addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*off = addr - k->v[lo - 1].addr;
	return k->v[lo - 1].name;
}

unsigned int gt_ksyms_tracing_frames(const struct gt_ksyms *k,
				     const uint64_t *pcs, unsigned int n)
{
	const char *sym;
	uint64_t off;

	if (!n)
		return 0;
	sym = gt_ksyms_find(k, pcs[0], &off);
	return sym && !strncmp(sym, "__traceiter_", 12);
}
