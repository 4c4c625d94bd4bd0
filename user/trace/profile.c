// SPDX-License-Identifier: GPL-2.0
/*
 * profile.c - the tables of a content-keyed profile
 *
 * Each table finds an entry by a 64-bit FNV-1a hash of its content and
 * then compares the content: entries of equal hash are chained, newest
 * first, so a collision costs a comparison and never merges two keys.
 */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "profile.h"

#define FNV_START	0xcbf29ce484222325ULL

static uint64_t fnv(uint64_t h, const void *buf, size_t len)
{
	const uint8_t *b = buf;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* The first index of hash @h's chain, or -1. */
static int64_t ix_first(const struct gt_prof_index *ix, uint64_t h)
{
	const uint64_t *v = u64map_get(&ix->head, h);

	return v ? (int64_t)*v - 1 : -1;
}

static int64_t ix_next(const struct gt_prof_index *ix, int64_t i)
{
	return (int64_t)ix->next[i] - 1;
}

/* Chain new entry @i under hash @h; 0, or -1 out of memory. */
static int ix_add(struct gt_prof_index *ix, uint64_t h, size_t i)
{
	uint64_t *v;
	bool added;

	if (gt_grow((void **)&ix->next, &ix->cap, i + 1, sizeof(*ix->next)))
		return -1;
	v = u64map_put(&ix->head, h, 0, &added);
	if (!v)
		return -1;
	ix->next[i] = (uint32_t)*v;
	*v = i + 1;
	return 0;
}

static void ix_free(struct gt_prof_index *ix)
{
	u64map_free(&ix->head);
	free(ix->next);
}

int gt_prof_init(struct gt_prof *p, enum gt_prof_kind kind)
{
	/* "" first, as pprof's string table requires; then the value types. */
	static const char *const names[][6] = {
		[GT_PROF_TIME] = { "", "contentions", "count", "delay",
				   "nanoseconds", "trace" },
		[GT_PROF_CPU] = { "", "samples", "count", "cpu",
				  "nanoseconds" },
	};

	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->period = 1;
	for (size_t i = 0; i < 6 && (!i || names[kind][i]); i++)
		if (gt_prof_string(p, names[kind][i],
				   strlen(names[kind][i])) < 0)
			return -1;
	return 0;
}

void gt_prof_free(struct gt_prof *p)
{
	free(p->sbuf);
	free(p->str_off);
	free(p->funcs);
	free(p->locs);
	free(p->locs_of);
	free(p->stacks);
	ix_free(&p->str_ix);
	ix_free(&p->func_ix);
	ix_free(&p->loc_ix);
	ix_free(&p->stack_ix);
	memset(p, 0, sizeof(*p));
}

int64_t gt_prof_find_string(const struct gt_prof *p, const char *s,
			    size_t len)
{
	uint64_t h = fnv(FNV_START, s, len);
	size_t n;

	for (int64_t i = ix_first(&p->str_ix, h); i >= 0;
	     i = ix_next(&p->str_ix, i)) {
		const char *t = gt_prof_str(p, (uint32_t)i, &n);

		if (n == len && !memcmp(t, s, len))
			return i;
	}
	return -1;
}

int64_t gt_prof_string(struct gt_prof *p, const char *s, size_t len)
{
	int64_t i = gt_prof_find_string(p, s, len);
	uint64_t h = fnv(FNV_START, s, len);

	if (i >= 0)
		return i;
	/* str_off holds one more offset than strings: the end of the last. */
	if (gt_grow((void **)&p->str_off, &p->str_cap, p->nstr + 2,
		    sizeof(*p->str_off)) ||
	    gt_grow((void **)&p->sbuf, &p->scap, p->slen + len + 1, 1) ||
	    ix_add(&p->str_ix, h, p->nstr))
		return -1;
	if (len)
		memcpy(p->sbuf + p->slen, s, len);
	p->str_off[p->nstr] = p->slen;
	p->slen += len;
	p->str_off[p->nstr + 1] = p->slen;
	return (int64_t)p->nstr++;
}

int64_t gt_prof_func(struct gt_prof *p, uint32_t name, uint32_t file)
{
	struct gt_prof_func f = { .name = name, .file = file };
	uint64_t h = fnv(FNV_START, &f, sizeof(f));

	for (int64_t i = ix_first(&p->func_ix, h); i >= 0;
	     i = ix_next(&p->func_ix, i))
		if (p->funcs[i].name == name && p->funcs[i].file == file)
			return i;
	if (gt_grow((void **)&p->funcs, &p->fcap, p->nfuncs + 1,
		    sizeof(*p->funcs)) ||
	    ix_add(&p->func_ix, h, p->nfuncs))
		return -1;
	p->funcs[p->nfuncs] = f;
	return (int64_t)p->nfuncs++;
}

int64_t gt_prof_loc(struct gt_prof *p, uint64_t pc, uint32_t func,
		    int64_t line)
{
	uint64_t h = fnv(FNV_START, &pc, sizeof(pc));

	h = fnv(h, &func, sizeof(func));
	h = fnv(h, &line, sizeof(line));
	for (int64_t i = ix_first(&p->loc_ix, h); i >= 0;
	     i = ix_next(&p->loc_ix, i))
		if (p->locs[i].pc == pc && p->locs[i].func == func &&
		    p->locs[i].line == line)
			return i;
	if (gt_grow((void **)&p->locs, &p->lcap, p->nlocs + 1,
		    sizeof(*p->locs)) ||
	    ix_add(&p->loc_ix, h, p->nlocs))
		return -1;
	p->locs[p->nlocs] = (struct gt_prof_loc){ .pc = pc, .func = func,
						  .line = line };
	return (int64_t)p->nlocs++;
}

int64_t gt_prof_stack(struct gt_prof *p, const uint32_t *locs, size_t depth)
{
	uint64_t h;

	if (depth > GT_PROF_MAX_DEPTH)
		depth = GT_PROF_MAX_DEPTH;
	h = fnv(FNV_START, locs, depth * sizeof(*locs));
	for (int64_t i = ix_first(&p->stack_ix, h); i >= 0;
	     i = ix_next(&p->stack_ix, i)) {
		const struct gt_prof_stack *s = &p->stacks[i];

		if (s->depth == depth &&
		    (!depth || !memcmp(p->locs_of + s->first, locs,
				       depth * sizeof(*locs))))
			return i;
	}
	if (gt_grow((void **)&p->locs_of, &p->lo_cap, p->nlocs_of + depth + 1,
		    sizeof(*p->locs_of)) ||
	    gt_grow((void **)&p->stacks, &p->stcap, p->nstacks + 1,
		    sizeof(*p->stacks)) ||
	    ix_add(&p->stack_ix, h, p->nstacks))
		return -1;
	if (depth)
		memcpy(p->locs_of + p->nlocs_of, locs, depth * sizeof(*locs));
	p->stacks[p->nstacks] = (struct gt_prof_stack){
		.first = p->nlocs_of, .depth = (uint32_t)depth };
	p->nlocs_of += depth;
	return (int64_t)p->nstacks++;
}
