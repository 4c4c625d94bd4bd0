/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile.h - a profile keyed by the content of its stacks
 *
 * The values of a pprof profile (Documentation/gotrace.rst, "gotrace
 * pprof"): for each stack, a count and a time.  A generational trace
 * numbers its stacks, frames and strings anew in every generation, so a
 * stack is taken in by its frames' content (pc, function, file, line)
 * and the profile keeps its own numbering, which outlives the
 * generation it came from: strings, functions (name, file), locations
 * (pc, function, line) and stacks (their locations, innermost first),
 * each held once.  The profile's memory is that of its distinct stacks
 * and frames, whatever the length of the trace.
 */
#ifndef GOTRACE_PROFILE_H
#define GOTRACE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

/* Go's readers cut a profile's stacks here (and key them by it). */
#define GT_PROF_MAX_DEPTH	128

/* A content-keyed table: hash -> first index, then a chain by next[]. */
struct gt_prof_index {
	struct u64map head;	/* hash -> index + 1 of the newest */
	uint32_t *next;		/* index -> index + 1 of the next, or 0 */
	size_t cap;
};

struct gt_prof_func {
	uint32_t name, file;	/* string indexes */
};

struct gt_prof_loc {
	uint64_t pc;
	uint32_t func;		/* index into funcs */
	int64_t line;
};

struct gt_prof_stack {
	size_t first;		/* its locations: locs_of[first...] */
	uint32_t depth;
	uint64_t count;		/* samples */
	uint64_t ns;		/* their time */
};

/*
 * What a profile's two values are: the time profiles of Go's trace tool
 * (contentions/count, delay/nanoseconds; period type trace/count,
 * period 1), or a CPU profile as Go's runtime/pprof writes one
 * (samples/count, cpu/nanoseconds; period type cpu/nanoseconds, the
 * period the nanoseconds of a sample).
 */
enum gt_prof_kind { GT_PROF_TIME, GT_PROF_CPU };

struct gt_prof {
	enum gt_prof_kind kind;
	uint64_t period;	/* pprof's period: 1, or ns per CPU sample */
	uint64_t duration_ns;	/* pprof's duration_nanos; 0: not said */

	/* Strings: string i is bytes [str_off[i], str_off[i + 1]) of sbuf. */
	char *sbuf;
	size_t slen, scap;
	size_t *str_off;
	size_t nstr, str_cap;
	struct gt_prof_index str_ix;

	struct gt_prof_func *funcs;
	size_t nfuncs, fcap;
	struct gt_prof_index func_ix;

	struct gt_prof_loc *locs;
	size_t nlocs, lcap;
	struct gt_prof_index loc_ix;

	uint32_t *locs_of;	/* the stacks' location indexes */
	size_t nlocs_of, lo_cap;
	struct gt_prof_stack *stacks;
	size_t nstacks, stcap;
	struct gt_prof_index stack_ix;
};

/*
 * An empty profile of @kind: 0, or -1 out of memory.  String 0 is "",
 * and the names of the kind's value types are there.
 */
int gt_prof_init(struct gt_prof *p, enum gt_prof_kind kind);
void gt_prof_free(struct gt_prof *p);

/* The index of string @s (@len bytes), added if new; -1 out of memory. */
int64_t gt_prof_string(struct gt_prof *p, const char *s, size_t len);
/* The index of string @s if the profile holds it, else -1. */
int64_t gt_prof_find_string(const struct gt_prof *p, const char *s,
			    size_t len);
/* The index of the function (@name, @file), added if new; -1: OOM. */
int64_t gt_prof_func(struct gt_prof *p, uint32_t name, uint32_t file);
/* The index of the location (@pc, @func, @line), added if new; -1: OOM. */
int64_t gt_prof_loc(struct gt_prof *p, uint64_t pc, uint32_t func,
		    int64_t line);
/*
 * The index of the stack of locations @locs (@depth of them, innermost
 * first, cut at GT_PROF_MAX_DEPTH), added with no samples if new; -1:
 * OOM.  The empty stack is one too (an event without a stack).
 */
int64_t gt_prof_stack(struct gt_prof *p, const uint32_t *locs,
		      size_t depth);

/* String @i and its length. */
static inline const char *gt_prof_str(const struct gt_prof *p, uint32_t i,
				      size_t *len)
{
	*len = p->str_off[i + 1] - p->str_off[i];
	return p->sbuf + p->str_off[i];
}

#endif /* GOTRACE_PROFILE_H */
