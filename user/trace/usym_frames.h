/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usym_frames.h - the frames of one string table named, for both formats
 *
 * A trace names a frame's function and file by string ids; a frame named
 * anew needs new strings.  A namer holds what one string table (a
 * generation of the generational format, the whole of a "go 1.11 trace")
 * gains: its new strings, each once, under ids above the table's
 * largest, as string records of the format, ready to be written; and,
 * per function string met, what it was named, so each is looked up once.
 */
#ifndef GOTRACE_USYM_FRAMES_H
#define GOTRACE_USYM_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "u64map.h"
#include "usym.h"

/* Bytes that grow. */
struct gt_buf {
	uint8_t *p;
	size_t len, cap;
};

/* 0, or -1 out of memory. */
int gt_buf_put(struct gt_buf *b, const void *p, size_t n);
int gt_buf_leb(struct gt_buf *b, uint64_t v);

/* What a run did. */
struct gt_sym_counts {
	uint64_t generations;	/* string tables read (1 for go 1.11) */
	uint64_t frames;	/* distinct unsymbolised user frames met */
	uint64_t named;		/* of them, named */
	uint64_t strings;	/* strings added */
};

/* A frame as named: new string ids, its line. */
struct gt_named {
	uint64_t file_of;	/* the file string id it was met with */
	uint64_t func, file, line;
	bool exact;		/* and whether its PC was exact */
	bool named;
	bool async_preempt;	/* it is Go's runtime.asyncPreempt */
};

struct gt_namer {
	struct gt_usym *u;
	struct gt_sym_counts *n;
	/*
	 * The bytes of string @id of the table, NUL after them; false if
	 * none.  The last two it returned stay valid.
	 */
	bool (*string)(void *ctx, uint64_t id, const char **s, size_t *len);
	void *ctx;
	uint8_t string_byte;	/* the first byte of a string record */
	uint64_t next_id;	/* the next string id to add */
	struct u64map by_hash;	/* a new string's hash -> index in strs */
	struct { size_t off, len; uint64_t id; } *strs;
	size_t nstrs, scap;
	struct gt_buf sdata;	/* their bytes */
	struct u64map by_func;	/* func string id -> index in memo */
	struct gt_named *memo;
	size_t nmemo, mcap;
	struct gt_buf pending;	/* string records not written yet */
};

void gt_namer_free(struct gt_namer *nm);

/*
 * The frame of PC @pc, function @func and file @file (string ids) named,
 * with new string ids; NULL when it is no unsymbolised user frame or
 * cannot be named.  The PC's tag says whether it is exact
 * (GOTRACE_UPC_FILE_EXACT) or a return address; @exact makes it exact
 * whatever its tag (gt_namer_stack_frame()).  *@oom is set when memory ran out.
 * Valid until the next call.
 */
const struct gt_named *gt_namer_frame(struct gt_namer *nm, uint64_t pc,
				      bool exact, uint64_t func, uint64_t file,
				      bool *oom);

/*
 * Name frame @v of a stack (its PC, func and file string ids, line) in
 * place, the frames before it named by this call; *@after_async starts
 * false for each stack.  Go's asynchronous preemption makes a goroutine
 * call runtime.asyncPreempt as if from the instruction it stopped: the
 * frame under that one is that instruction, exact, not a return address,
 * whatever the walk thought, and its PC takes the exact tag.  True if
 * the frame was named; *@oom is set when memory ran out.
 */
bool gt_namer_stack_frame(struct gt_namer *nm, uint64_t v[4],
			  bool *after_async, bool *oom);

#endif /* GOTRACE_USYM_FRAMES_H */
