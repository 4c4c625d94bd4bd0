/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go_merge_int.h - the parts of gotrace merge (go_merge.h) and what they
 * share: go_merge.c walks the program's trace and decides where the
 * kernel's intervals go, go_merge_write.c encodes the batches and tables
 * it adds, go_merge_text.c says what an interval was.
 */
#ifndef GOTRACE_GO_MERGE_INT_H
#define GOTRACE_GO_MERGE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "go_merge.h"
#include "trace/go123_order.h"
#include "trace/go123_read.h"
#include "trace/kview.h"
#include "trace/u64map.h"

#define NONE		UINT64_MAX
/* Go's readers take batches of up to 64 KiB of data. */
#define BATCH_DATA_MAX	(60 << 10)
/* The M of the batches no thread wrote (tables): Go's "no thread". */
#define NO_M		UINT64_MAX
/*
 * A thread that waited this long for a CPU while Go had no goroutine on
 * it gets a log once it has one (shorter waits: Go's own wakeups of its
 * parked threads, many and short).
 */
#define OWED_MIN_NS	100000
/* Go's readers refuse deeper stacks. */
#define STACK_MAX	128

/* Bytes being built: a batch's data, a generation's added batches. */
struct bytes {
	uint8_t *p;
	size_t len, cap;
};

struct frame {
	uint64_t pc, func, file, line;	/* func, file: string ids */
};

enum mark_what { MARK_END, MARK_BEGIN, MARK_CPU };

struct mark {
	uint64_t t;			/* program ticks */
	enum mark_what what;
	size_t span;			/* BEGIN: index in kv.spans */
	int64_t cpu;			/* CPU */
};

/* An index range of one thread's entries in an array of the view. */
struct range {
	size_t first, end;
};

/* What Go's reader gives an M: user events need both. */
struct gctx {
	uint64_t g, p;			/* NONE: none */
	uint64_t t;			/* of the event that set them, ticks */
};

/* A program thread, across generations. */
struct mstate {
	uint64_t m;
	struct range span;		/* its spans in kv.spans, */
	struct range run;		/* runs in kv.runs, */
	struct range smp;		/* CPU samples in kv.samples */
	struct gctx at;			/* Go's goroutine and P on it */
	bool open;			/* a region began and has not ended */
	enum gt_kv_kind open_kind;
	size_t owed;			/* a wait to say once it can, + 1 */
	bool pend;			/* an END mark waits for a later gen */
	uint64_t pend_t;
	int64_t cpu;			/* of its last CPU log */
	/* This generation: its goroutine and P after each of its events, */
	struct gctx *after;
	size_t n, cap;
	struct gctx at0;		/* before the first */
	/* and the times (ticks) another M took its P (ProcSteal). */
	uint64_t *steals;
	size_t nsteals, stcap;
	struct mark *marks;
	size_t nmarks, mcap;
};

struct newstr {
	uint64_t id;
	char *s;
};

struct newstack {
	uint64_t id;
	size_t frames, n;		/* in merge.frames */
};

struct merge {
	const struct gt_merge_opts *o;
	struct gt_merge_stats *st;
	FILE *out;
	const struct gt_src *prog;
	struct gt_kview kv;
	struct gt_go123_order order;
	uint64_t freq;
	int64_t delta;			/* program ns - kernel ns */
	uint64_t *gen_start;		/* ticks of each generation's first batch */
	size_t ngens, gcap;
	uint64_t last_tick;		/* of the program's last event */
	struct u64map midx;		/* M -> index into ms */
	struct mstate *ms;
	size_t nms, mscap;
	/* This generation's added strings and stacks. */
	uint64_t next_string, next_stack;
	struct u64map stridx;		/* FNV-1a -> id */
	struct newstr *strs;
	size_t nstrs, strcap;
	struct u64map stackidx;		/* first frame in kv.frames -> id */
	struct newstack *stacks;
	size_t nstacks, stkcap;
	struct frame *frames;
	size_t nframes, fcap;
	/* The open batch of the thread being written anew. */
	struct bytes data;
	bool open;
	uint64_t base, last;
	/* Its batches, written after the added tables. */
	struct bytes mbuf;
	uint64_t gen;
	/* The program's syscalls: (M, begin, end) ns; those begun. */
	uint64_t *pairs;
	size_t npairs, pcap;
	struct u64map open_sys;		/* M -> begin ns + 1 */
};

/* go_merge_write.c: the added events, strings, stacks, batches. */
int gtm_put_byte(struct bytes *b, uint8_t v);
int gtm_put_leb(struct bytes *b, uint64_t v);
int gtm_put_raw(struct bytes *b, const void *p, size_t n);
/* A batch of generation mg->gen: its header, then @data, into @out. */
int gtm_put_batch(struct merge *mg, struct bytes *out, uint64_t m,
		  uint64_t time, const struct bytes *data);
/* Close the open event batch of M @m into mbuf. */
int gtm_close_batch(struct merge *mg, uint64_t m);
/* One event of M @m into its batches anew: @nv values after the delta. */
int gtm_put_event(struct merge *mg, uint64_t m, unsigned int type,
		  uint64_t t, const uint64_t *v, unsigned int nv);
/* The id of added string @str in this generation's table; 0: no memory. */
uint64_t gtm_string_id(struct merge *mg, const char *str);
/* The id of the stack of kv.frames[@first...] in it (0: none). */
uint64_t gtm_stack_id(struct merge *mg, uint32_t first, uint32_t nframes,
		      bool *oom);
/* New ids of generation @g start after its largest ones. */
void gtm_next_ids(struct merge *mg, const struct gt_go123_gen *g);
/* Forget the added strings, stacks and batches of a generation. */
void gtm_reset_tables(struct merge *mg);
int gtm_write_bytes(struct merge *mg, const void *p, size_t n);
/* The added strings and stacks, as table batches, into mbuf. */
int gtm_write_tables(struct merge *mg);
/* @g's batches unchanged, but for those of the Ms in @skip. */
int gtm_copy_batches(struct merge *mg, const struct gt_go123_gen *g,
		     const struct u64map *skip, bool *eog);

/* go_merge_text.c: the regions' names and the logs' text. */
const char *gtm_region_name(enum gt_kv_kind kind);
/*
 * The log at the start of span @sp's region, into @buf; @after: the log,
 * once the thread has a goroutine again, of a wait in which it had none.
 */
void gtm_describe(const struct merge *mg, const struct gt_kv_span *sp,
		  bool after, char *buf, size_t n);

#endif /* GOTRACE_GO_MERGE_INT_H */
