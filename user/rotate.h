/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rotate.h - 'gotrace record --rotate': a generational trace written as
 * a sequence of files, each a complete trace
 *
 * The stream is cut only where a generation begins (trace/go123_split.h), and a
 * file ends at the first such point after it has lasted the period or
 * reached the size: so each file is the trace header and whole
 * generations, and the files together hold every byte of the stream
 * once.  Each file is written as NAME.tmp and renamed to NAME when
 * complete, so a reader never opens half a file; a file a crash cut
 * short keeps its .tmp name (gotrace check --repair trims it).  With
 * @keep, only the newest @keep files this session wrote are kept.
 */
#ifndef GOTRACE_ROTATE_H
#define GOTRACE_ROTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keep.h"
#include "trace/go123_split.h"

/**
 * struct gt_rotate_cfg - how to rotate
 * @dir:	the directory of the files (created if missing)
 * @period_ns:	a file ends at the first generation after this long
 *		(0: no time limit)
 * @max_bytes:	or once it holds this many bytes (0: no size limit)
 * @keep:	the newest files kept (0: all)
 * @committed:	called with each file's name once it is complete, or NULL
 * @arg:	@committed's first argument
 */
struct gt_rotate_cfg {
	const char *dir;
	uint64_t period_ns;
	uint64_t max_bytes;
	unsigned int keep;
	void (*committed)(void *arg, const char *path);
	void *arg;
};

struct gt_rotate {
	struct gt_rotate_cfg cfg;
	struct gt_go123_split split;
	uint8_t header[GT_GO123_SPLIT_HDR_LEN];
	size_t header_len;
	int fd;				/* the open file, or -1 */
	char *name;			/* its final name */
	char *tmp;			/* its name while written */
	uint64_t file_bytes;		/* of the open file */
	uint64_t file_start_ns;		/* when it was opened */
	uint64_t seq;			/* files opened so far */
	uint64_t committed;		/* files complete */
	uint64_t bytes;			/* of the stream */
	struct gt_keep kept;		/* cfg.keep: the newest complete files */
	int err;			/* errno of the first failure */
	char *err_file;			/* the file it happened to, or NULL */
};

/* Create the directory if needed.  0, or -1 after saying why. */
int gt_rotate_open(struct gt_rotate *r, const struct gt_rotate_cfg *cfg);

/* A gt_umodel_write_fn: @len bytes of the stream.  0 or -errno. */
int gt_rotate_write(void *arg, const void *buf, size_t len);

/*
 * The stream ended: complete the last file (@complete: the stream is a
 * whole trace) or leave it under its temporary name.  0, or -errno.
 */
int gt_rotate_close(struct gt_rotate *r, bool complete);

/*
 * Where the first failure happened, for its message: the file being
 * written (its temporary name), else the directory.
 */
const char *gt_rotate_where(const struct gt_rotate *r);

void gt_rotate_free(struct gt_rotate *r);

/* Whether @s names a rotation: "2s", "1m" (a time) or "512M" (a size). */
int gt_rotate_parse(const char *s, struct gt_rotate_cfg *cfg);

#endif /* GOTRACE_ROTATE_H */
