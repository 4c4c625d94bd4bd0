/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go123_split.h - cut a generational trace's byte stream between generations
 *
 * A "go 1.2x trace" is a 16-byte header and then generations, each a run
 * of batches with the same generation number (the frequency, string and
 * stack batches at its end included; in "go 1.26 trace" a bare
 * end-of-generation byte closes it).  Every generation is self-contained,
 * so the header followed by any run of whole generations is a complete
 * trace: that is what rotation writes.  The splitter takes the stream in
 * pieces of any size, as the device or the model hands it out, passes
 * every byte on in order, and says where each new generation begins.
 */
#ifndef GOTRACE_GO123_SPLIT_H
#define GOTRACE_GO123_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_GO123_SPLIT_HDR_LEN	16

/* What the splitter hands on; a non-zero return stops the feed. */
struct gt_go123_split_ops {
	/* Bytes of the stream, in order (the header's too). */
	int (*bytes)(void *arg, const uint8_t *p, size_t n);
	/* A generation begins with the next bytes (@gen: its number). */
	int (*generation)(void *arg, uint64_t gen);
};

struct gt_go123_split {
	const struct gt_go123_split_ops *ops;
	void *arg;
	size_t header_len;		/* header bytes passed on so far */
	uint8_t bh[2 + 4 * 10];		/* a batch header, held until whole */
	size_t bh_len;
	uint64_t data_left;		/* of the current batch's data */
	uint64_t gen;			/* of the last batch */
	bool have_gen;
	bool ended;			/* an end-of-generation byte came last */
	const char *error;		/* not a generational stream: why */
};

void gt_go123_split_init(struct gt_go123_split *s,
			 const struct gt_go123_split_ops *ops, void *arg);

/*
 * Take @n bytes of the stream.  Returns 0, or what an op returned.  A
 * stream that is not generational sets s->error and is passed on whole,
 * with no generation boundary after that point.
 */
int gt_go123_split_feed(struct gt_go123_split *s, const uint8_t *p, size_t n);

/*
 * The stream ended: pass on what is held (a batch header cut short, of a
 * trace that is incomplete anyway).  Returns 0 or what the op returned.
 */
int gt_go123_split_end(struct gt_go123_split *s);

#endif /* GOTRACE_GO123_SPLIT_H */
