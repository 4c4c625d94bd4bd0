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

/*
 * @rank orders the symbols at one address (see rank()): the lowest is
 * the name a lookup gives, as the kernel's own lookup (kallsyms_lookup(),
 * sprint_symbol(): the module's names) gives the first of its table,
 * which the kernel's kallsyms tool sorts that way.  @seq, the line of
 * /proc/kallsyms, breaks the remaining ties as the kernel's table does.
 */
struct ksym {
	uint64_t addr;
	uint32_t rank;
	uint32_t seq;
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

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * A name the linker script gives a section's bounds, not a function:
 * __start_SECTION, __stop_SECTION, __end_X, __X_start, __X_end (the
 * kernel's kallsyms tool's test; __sched_text_start is io_schedule's
 * address on Debian's 6.1), and the text's own bounds (_text, _stext,
 * _etext, _sinittext, _einittext), also as the __pi_ aliases of the
 * kernel's position-independent startup code.
 */
static bool is_marker(const char *name)
{
	static const char *const bounds[] = {
		"_text", "_stext", "_etext", "_sinittext", "_einittext",
	};
	size_t len;

	if (gt_has_prefix(name, "__pi_"))
		name += 5;
	for (size_t i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++)
		if (!strcmp(name, bounds[i]))
			return true;
	len = strlen(name);
	if (len < 8 || !gt_has_prefix(name, "__"))
		return false;
	return gt_has_prefix(name, "__start_") ||
	       gt_has_prefix(name, "__stop_") ||
	       gt_has_prefix(name, "__end_") ||
	       gt_has_suffix(name, len, "_start") ||
	       gt_has_suffix(name, len, "_end");
}

/*
 * Which of the symbols at one address names it, the lowest first: a
 * function before a section's or the text's bound, a global before a
 * weak one, fewer leading underscores before more (io_schedule before
 * __io_schedule): the order of the kernel's kallsyms tool, whose first
 * symbol the kernel names an address by.
 */
static uint32_t rank(char type, const char *name)
{
	uint32_t r = (uint32_t)strspn(name, "_");

	if (r > 255)
		r = 255;
	if (type == 'w' || type == 'W')
		r |= 1U << 8;
	if (is_marker(name))
		r |= 1U << 9;
	return r;
}

static int add(struct gt_ksyms *k, uint64_t addr, char type, const char *name)
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
	k->v[k->n].rank = rank(type, name);
	k->v[k->n].seq = (uint32_t)k->n;
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
		if (add(k, addr, type, name)) {
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
	/* The first of the symbols at that address: the best ranked. */
	lo--;
	while (lo && k->v[lo - 1].addr == k->v[lo].addr)
		lo--;
	*off = addr - k->v[lo].addr;
	return k->v[lo].name;
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
