/* SPDX-License-Identifier: GPL-2.0 */
/*
 * input.h - read a trace file in bounded memory
 *
 * trace/ is the library of gotrace check and stat: it reads and checks
 * trace files of both formats, go 1.11 (go111_*) and the generational
 * go 1.23 (go123_*), from a source of this header, with the shared
 * decoding (leb128.h, u64map.c, stats.c) and the helpers of base.h.
 * It includes nothing of the command (user/) or of the backend (bpf/).
 *
 * A source is a trace in memory (the unit tests) or an open file, read
 * with pread() at any offset, so that the checker can walk the file once
 * and the merge can follow every P's batches with one small window each,
 * never holding the file.  A pipe on stdin is first copied to an unlinked
 * temporary file (if its header is a trace's).
 *
 * A cursor reads the bytes [pos, end) of a source through a window of
 * GT_CUR_WINDOW bytes (or directly from memory).
 */
#ifndef GOTRACE_INPUT_H
#define GOTRACE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "leb128.h"

struct gt_src {
	const uint8_t *mem;	/* the trace, if in memory */
	int fd;			/* else read from this file */
	bool own_fd;
	uint64_t base;		/* offset of the trace in the file */
	uint64_t len;
	const char *spool_dir;	/* where a pipe failed to be copied */
};

/* A source over @len bytes at @buf (which must outlive it). */
void gt_src_mem(struct gt_src *s, const uint8_t *buf, size_t len);
/*
 * Open @path ("-" = stdin).  0 or -errno.  A pipe or device is copied to
 * a temporary file, but no further than its first 16 bytes if they are
 * no trace's header.
 */
int gt_src_open(struct gt_src *s, const char *path);
void gt_src_close(struct gt_src *s);
/* Copy @n bytes at offset @off into @out.  0, or -1 if they are not there. */
int gt_src_read(const struct gt_src *s, uint64_t off, void *out, size_t n);
/* Bytes [@from, @to) of @s to @out unchanged.  0, or -1. */
int gt_src_copy(const struct gt_src *s, uint64_t from, uint64_t to, FILE *out);

#define GT_CUR_WINDOW	(64 << 10)

struct gt_cur {
	const struct gt_src *src;
	uint64_t pos;		/* next byte to read */
	uint64_t end;		/* reading stops here */
	const uint8_t *win;	/* holds the file's bytes [wpos, wpos + wlen) */
	uint64_t wpos;
	size_t wlen;
	uint8_t *buf;		/* the window of a file source */
	bool ioerr;		/* a read failed (not just the end) */
};

/* 0, or -1 when out of memory. */
int gt_cur_init(struct gt_cur *c, const struct gt_src *s);
void gt_cur_free(struct gt_cur *c);
/* Read [pos, end) from now on. */
void gt_cur_seek(struct gt_cur *c, uint64_t pos, uint64_t end);
/* Make up to @n bytes from pos readable at gt_cur_ptr(); returns how many. */
size_t gt_cur_fill(struct gt_cur *c, size_t n);

static inline const uint8_t *gt_cur_ptr(const struct gt_cur *c)
{
	return c->win + (c->pos - c->wpos);
}

/* Bytes readable at gt_cur_ptr() without a refill. */
static inline size_t gt_cur_avail(const struct gt_cur *c)
{
	uint64_t lim = c->wpos + c->wlen;

	if (lim > c->end)
		lim = c->end;
	return c->pos >= c->wpos && c->pos < lim ? (size_t)(lim - c->pos) : 0;
}

/* One byte into *@b; false at the end. */
static inline bool gt_cur_byte(struct gt_cur *c, uint8_t *b)
{
	if (!gt_cur_avail(c) && !gt_cur_fill(c, 1))
		return false;
	*b = *gt_cur_ptr(c);
	c->pos++;
	return true;
}

/* One LEB128 value: what gt_leb_get() returns. */
static inline int gt_cur_leb(struct gt_cur *c, uint64_t *v)
{
	size_t n = gt_cur_avail(c);
	int r;

	if (n < GT_LEB_BYTES_MAX)
		n = gt_cur_fill(c, GT_LEB_BYTES_MAX);
	r = gt_leb_get(gt_cur_ptr(c), n, v);
	if (r > 0)
		c->pos += (unsigned int)r;
	return r;
}

/* Skip @n bytes; false if fewer are left before the end. */
static inline bool gt_cur_skip(struct gt_cur *c, uint64_t n)
{
	if (n > c->end - c->pos)
		return false;
	c->pos += n;
	return true;
}

#endif /* GOTRACE_INPUT_H */
