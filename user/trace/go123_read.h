/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go123_read.h - read a generational trace one generation at a time
 *
 * A generation is a run of batches with the same generation number (and,
 * from "go 1.26 trace" on, a bare end-of-generation byte after them).
 * gt_go123_next() reads the next one whole: the data of its event batches
 * into memory, its string and stack tables, its CPU samples, its
 * frequency and clock snapshot, and checks them as Go's reader does
 * before it looks at any event (and, beyond Go, that every sample's
 * stack is in the table).  Memory is that of one generation: the next call reuses it.
 *
 * Where Go goes on after an error, this reader does too, in the same
 * order: with headers before 1.26 a batch that cannot be read ends the
 * generation, which is still checked and returned; the error comes with
 * the next call.
 */
#ifndef GOTRACE_GO123_READ_H
#define GOTRACE_GO123_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "go111_check.h"
#include "input.h"
#include "u64map.h"

/* An event batch: its M, base time and data (in gen->data). */
struct gt_go123_batch {
	uint64_t off;		/* file offset of its batch byte */
	uint64_t m;
	uint64_t time;
	size_t data;		/* offset of its data in gen->data */
	size_t size;
};

/*
 * A CPU sample of a CPU samples batch: the thread (M), P and goroutine
 * it hit and its stack.  Its time is absolute, not a delta.
 */
struct gt_go123_sample {
	uint64_t ts;		/* nanoseconds, as the events' */
	uint64_t m;
	uint64_t p;		/* UINT64_MAX: none (Go, near a syscall) */
	uint64_t g;		/* 0: none */
	uint64_t stack;		/* in the generation's table (checked) */
	uint64_t off;		/* file offset of its batch */
};

struct gt_go123_frame {
	uint64_t pc, func, file, line;	/* func and file: string ids */
};

struct gt_go123_gen {
	uint64_t gen;		/* its number */
	uint64_t off, end;	/* its bytes in the file */
	uint64_t freq;		/* ticks per second */
	bool snapshot;		/* a clock snapshot (1.25+) */
	/*
	 * Its values: trace time (ticks), CLOCK_MONOTONIC, wall clock
	 * seconds and nanoseconds, read together by the runtime.
	 */
	uint64_t snap[4];
	/*
	 * Its end is certain: an end-of-generation byte (1.26) or the
	 * first batch of the next generation came after it.  Else the file
	 * ended, or could not be read, after its last batch.
	 */
	bool complete;
	uint64_t nbatches_all;	/* batches of every kind */
	/*
	 * Go's minTs: the base time of its batches of every kind in file
	 * order, each taken if smaller or if the one kept is 0 (so a batch
	 * of time 0, such as a table batch, counts only when it is the
	 * last).  Go's reader times the Sync event that opens the
	 * generation by it (go123_pprof.c replays that).
	 */
	uint64_t min_ts;
	uint8_t *data;		/* data of the event batches */
	size_t len, cap;
	struct gt_go123_batch *batches;	/* event batches, in file order */
	size_t nbatches, bcap;
	struct u64map strings;	/* id -> offset in sdata | length << 40 */
	char *sdata;
	size_t slen, scap;
	struct u64map stacks;	/* id -> first index in pcs | frames << 32 */
	uint64_t *pcs;
	size_t npcs, pcap;
	struct u64map frames;	/* pc -> index in fr: the first frame wins */
	struct gt_go123_frame *fr;
	size_t nfr, frcap;
	/* CPU samples of every samples batch, by time (stable). */
	struct gt_go123_sample *samples;
	size_t nsamples, smcap;
};

struct gt_go123_reader {
	const struct gt_src *src;
	int version;		/* 22, 23, 25 or 26 */
	uint64_t pos;		/* next byte to read */
	uint64_t prev_gen;	/* number of the last generation, or 0 */
	uint64_t generations;	/* returned so far */
	bool pending;		/* an error waits for the next call */
	struct gt_trace_error pending_err;
};

/*
 * @ticks of a clock of @freq ticks a second in nanoseconds, as Go's
 * reader converts them (1 / (freq / 1e9) ns a tick, rounded as Go
 * rounds it).  A small frequency (1 Hz: 1e9 ns a tick) can take a time
 * past 2^64 ns, which no integer holds: such times saturate, so that
 * they still compare and no conversion is undefined.
 */
static inline uint64_t gt_go123_ticks_ns(uint64_t freq, uint64_t ticks)
{
	double ns = freq ? 1.0 / ((double)freq / 1e9) * (double)ticks : 0;

	return ns < 0x1p64 ? (uint64_t)ns : UINT64_MAX;
}

/* The N of a generational header "go 1.N trace" in @hdr, else 0. */
int gt_go123_header(const uint8_t *hdr, size_t len);

/* The longest batch header: batch byte, experiment byte, four values. */
#define GT_GO123_BATCH_HDR_MAX	(2 + 4 * GT_LEB_BYTES_MAX)

/*
 * The length of the batch (header and data) whose header is at @p, of
 * which @n bytes are there: 1 for an end-of-generation byte, 0 if @n
 * bytes are too few to tell, -1 if no batch starts there (a byte that
 * starts none, an undecodable value, a size above Go's 64 KiB).
 */
int64_t gt_go123_batch_len(const uint8_t *p, size_t n);

/* Start reading @src (whose header gt_go123_header() accepted). */
void gt_go123_open(struct gt_go123_reader *r, const struct gt_src *src);
/*
 * The next generation into @g (reset first).  1: one was read, 0: the
 * trace ended cleanly, -1: @err says why not.
 */
int gt_go123_next(struct gt_go123_reader *r, struct gt_go123_gen *g,
		  struct gt_trace_error *err);
void gt_go123_gen_free(struct gt_go123_gen *g);

/* The bytes and length of string @id of @g; false if it is not defined. */
bool gt_go123_string(const struct gt_go123_gen *g, uint64_t id, const char **s,
		     size_t *len);
/* Frames of stack @id (innermost first); false if it is not defined. */
bool gt_go123_stack(const struct gt_go123_gen *g, uint64_t id,
		    const uint64_t **pcs, size_t *n);
const struct gt_go123_frame *gt_go123_frame(const struct gt_go123_gen *g,
				       uint64_t pc);

/*
 * The CPU sampling rate @g's string table states (GT_GO123_CPU_HZ_PREFIX),
 * or 0 if it states none.
 */
uint64_t gt_go123_cpu_hz(const struct gt_go123_gen *g);

#endif /* GOTRACE_GO123_READ_H */
