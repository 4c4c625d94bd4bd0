// SPDX-License-Identifier: GPL-2.0
/*
 * rotate.c - a generational trace written as a sequence of complete
 * files (rotate.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rotate.h"
#include "util.h"

int gt_rotate_parse(const char *s, struct gt_rotate_cfg *cfg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!errno && end != s && v && (!strcmp(end, "K") ||
					!strcmp(end, "M") || !strcmp(end, "G"))) {
		unsigned int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : 30;

		if (v > (UINT64_MAX >> shift))
			return -1;
		cfg->max_bytes = (uint64_t)v << shift;
		return 0;
	}
	if (gt_parse_duration(s, &cfg->period_ns) && cfg->period_ns)
		return 0;
	return -1;
}

/* The file's name: the time it starts at and its number in the session. */
static int name_file(struct gt_rotate *r)
{
	char when[32];
	struct tm tm;
	time_t now = time(NULL);

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
	free(r->name);
	free(r->tmp);
	r->tmp = NULL;
	if (asprintf(&r->name, "%s/gotrace-%s-%04llu.trace", r->cfg.dir, when,
		     (unsigned long long)r->seq) < 0) {
		r->name = NULL;
		return -ENOMEM;
	}
	if (asprintf(&r->tmp, "%s.tmp", r->name) < 0) {
		r->tmp = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int fail(struct gt_rotate *r, int err)
{
	if (!r->err) {
		r->err = err;
		/* A full disk is said of the file, not of its directory. */
		if (r->tmp)
			r->err_file = strdup(r->tmp);
	}
	return -err;
}

static int file_open(struct gt_rotate *r)
{
	int ret;

	r->seq++;
	ret = name_file(r);
	if (ret)
		return fail(r, -ret);
	/* Root's only, as every trace (output.c). */
	r->fd = open(r->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (r->fd < 0)
		return fail(r, errno);
	r->file_bytes = 0;
	r->file_start_ns = gt_now_ns();
	ret = gt_write_all(r->fd, r->header, sizeof(r->header));
	if (ret)
		return fail(r, -ret);
	r->file_bytes = sizeof(r->header);
	return 0;
}

/* The open file is complete: rename it to its final name. */
static int file_commit(struct gt_rotate *r)
{
	int fd = r->fd;

	r->fd = -1;
	if (fsync(fd) || close(fd))
		return fail(r, errno);
	if (rename(r->tmp, r->name))
		return fail(r, errno);
	r->committed++;
	if (r->cfg.committed)
		r->cfg.committed(r->cfg.arg, r->name);
	if (gt_keep_add(&r->kept, r->name))
		return fail(r, ENOMEM);
	r->name = NULL;
	return 0;
}

static int on_bytes(void *arg, const uint8_t *p, size_t n)
{
	struct gt_rotate *r = arg;
	int ret;

	if (r->header_len < sizeof(r->header)) {
		/* The split hands the header over alone, first. */
		memcpy(r->header + r->header_len, p, n);
		r->header_len += n;
		return 0;
	}
	if (r->fd < 0)
		return fail(r, EINVAL);	/* bytes before any generation */
	ret = gt_write_all(r->fd, p, n);
	if (ret)
		return fail(r, -ret);
	r->file_bytes += n;
	return 0;
}

static int on_generation(void *arg, uint64_t gen)
{
	struct gt_rotate *r = arg;
	bool due;
	int ret;

	(void)gen;
	if (r->fd >= 0) {
		due = (r->cfg.max_bytes && r->file_bytes >= r->cfg.max_bytes) ||
		      (r->cfg.period_ns &&
		       gt_now_ns() - r->file_start_ns >= r->cfg.period_ns);
		if (!due)
			return 0;
		ret = file_commit(r);
		if (ret)
			return ret;
	}
	return file_open(r);
}

static const struct gt_go123_split_ops rotate_ops = {
	.bytes = on_bytes,
	.generation = on_generation,
};

int gt_rotate_open(struct gt_rotate *r, const struct gt_rotate_cfg *cfg)
{
	struct stat st;

	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	r->kept.keep = cfg->keep;
	r->fd = -1;
	if (mkdir(cfg->dir, 0700) && errno != EEXIST) {
		gt_err("cannot create %s: %s", cfg->dir, strerror(errno));
		return -1;
	}
	if (stat(cfg->dir, &st) || !S_ISDIR(st.st_mode)) {
		gt_err("%s: not a directory (--rotate writes its files into one)",
		       cfg->dir);
		return -1;
	}
	if (access(cfg->dir, W_OK | X_OK)) {
		gt_err("cannot write into %s: %s", cfg->dir, strerror(errno));
		return -1;
	}
	gt_go123_split_init(&r->split, &rotate_ops, r);
	return 0;
}

int gt_rotate_write(void *arg, const void *buf, size_t len)
{
	struct gt_rotate *r = arg;
	int ret;

	if (r->err)
		return -r->err;
	ret = gt_go123_split_feed(&r->split, buf, len);
	if (!ret && r->split.error)
		ret = fail(r, EPROTO);
	if (ret)
		return ret;
	r->bytes += len;
	return 0;
}

int gt_rotate_close(struct gt_rotate *r, bool complete)
{
	int ret = 0, fd = r->fd;

	gt_go123_split_end(&r->split);
	if (fd < 0)
		return r->err ? -r->err : 0;
	if (complete && !r->err)
		return file_commit(r);
	r->fd = -1;
	close(fd);
	return r->err ? -r->err : ret;
}

const char *gt_rotate_where(const struct gt_rotate *r)
{
	return r->err_file ? r->err_file : r->cfg.dir;
}

void gt_rotate_free(struct gt_rotate *r)
{
	free(r->err_file);
	if (r->fd >= 0)
		close(r->fd);
	gt_keep_free(&r->kept);
	free(r->name);
	free(r->tmp);
}
