// SPDX-License-Identifier: GPL-2.0
/*
 * input.c - trace sources (memory, file, stdin) and windowed cursors
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "go123_read.h"

void gt_src_mem(struct gt_src *s, const uint8_t *buf, size_t len)
{
	*s = (struct gt_src){ .mem = buf, .fd = -1, .len = len };
}

/*
 * Every Go trace starts "go 1.": anything else is refused by the header
 * checks whatever follows, so it need not be kept (/dev/zero would fill
 * the disk).
 */
static bool looks_like_trace(int fd)
{
	static const char go[] = "go 1.";
	char h[sizeof(go) - 1];

	return pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	       !memcmp(h, go, sizeof(h));
}

/* Write all of @buf to @fd: 0 or -errno. */
static int spool_write(int fd, const uint8_t *buf, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, buf + off, n - off);

		if (w < 0 && errno != EINTR)
			return -errno;
		if (w > 0)
			off += (size_t)w;
	}
	return 0;
}

/*
 * Follow the batches of a generational trace spooled into @fd up to
 * @len bytes, from *@next, the offset of the next batch.  False at the
 * first bytes that start no batch: what follows is no trace, and the
 * readers stop there.
 */
static bool spool_batches(int fd, uint64_t len, uint64_t *next)
{
	uint8_t h[GT_GO123_BATCH_HDR_MAX];

	while (*next < len) {
		size_t k = len - *next < sizeof(h) ? (size_t)(len - *next) :
			   sizeof(h);
		int64_t n;

		if (pread(fd, h, k, (off_t)*next) != (ssize_t)k)
			return true;	/* the readers will say */
		n = gt_go123_batch_len(h, k);
		if (n < 0)
			return false;
		if (!n)
			return true;	/* the header goes on in the next read */
		*next += (uint64_t)n;
	}
	return true;
}

/*
 * A pipe cannot be read at an offset: keep it in an unlinked file in
 * $TMPDIR (or /tmp), but only past its first bytes if they are a trace
 * header's, and, in a generational trace, only up to the first bytes
 * that start no batch (a header followed by gigabytes of junk is not
 * copied whole).  On an error, s->spool_dir names the directory.
 */
static int spool(struct gt_src *s, int in)
{
	const char *dir = getenv("TMPDIR");
	static uint8_t buf[1 << 16];
	bool header_seen = false, gens = false;
	uint64_t next_batch = 16;
	int fd, ret = 0;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR, 0600);
	if (fd < 0) {
		s->spool_dir = dir;
		return -errno;
	}
	for (;;) {
		/* The header alone first, then in large reads. */
		size_t want = s->len < 16 ? 16 - (size_t)s->len : sizeof(buf);
		ssize_t n = read(in, buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (!n)
			break;
		ret = spool_write(fd, buf, (size_t)n);
		if (ret) {
			s->spool_dir = dir;
			break;
		}
		s->len += (uint64_t)n;
		if (!header_seen && s->len >= 16) {
			uint8_t hdr[16];

			header_seen = true;
			if (!looks_like_trace(fd))
				break;
			gens = pread(fd, hdr, sizeof(hdr), 0) == sizeof(hdr) &&
			       gt_go123_header(hdr, sizeof(hdr));
		}
		if (gens && !spool_batches(fd, s->len, &next_batch))
			break;
	}
	if (ret) {
		close(fd);
		return ret;
	}
	s->fd = fd;
	s->own_fd = true;
	return 0;
}

int gt_src_open(struct gt_src *s, const char *path)
{
	struct stat st;
	int fd;

	*s = (struct gt_src){ .fd = -1 };
	if (!strcmp(path, "-")) {
		off_t at = lseek(0, 0, SEEK_CUR);

		if (fstat(0, &st))
			return -errno;
		if (!S_ISREG(st.st_mode) || at < 0 || at > st.st_size)
			return spool(s, 0);
		s->fd = 0;
		s->base = (uint64_t)at;
		s->len = (uint64_t)(st.st_size - at);
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		int ret = spool(s, fd);

		close(fd);
		return ret;
	}
	s->fd = fd;
	s->own_fd = true;
	s->len = (uint64_t)st.st_size;
	return 0;
}

void gt_src_close(struct gt_src *s)
{
	if (s->own_fd)
		close(s->fd);
	*s = (struct gt_src){ .fd = -1 };
}

int gt_src_read(const struct gt_src *s, uint64_t off, void *out, size_t n)
{
	uint8_t *p = out;

	if (off > s->len || n > s->len - off)
		return -1;
	if (s->mem) {
		memcpy(out, s->mem + off, n);
		return 0;
	}
	while (n) {
		ssize_t r = pread(s->fd, p, n, (off_t)(s->base + off));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		off += (uint64_t)r;
		n -= (size_t)r;
	}
	return 0;
}

int gt_cur_init(struct gt_cur *c, const struct gt_src *s)
{
	*c = (struct gt_cur){ .src = s };
	if (s->mem) {
		c->win = s->mem;
		c->wlen = s->len;
		return 0;
	}
	c->buf = malloc(GT_CUR_WINDOW);
	c->win = c->buf;
	return c->buf ? 0 : -1;
}

void gt_cur_free(struct gt_cur *c)
{
	free(c->buf);
	c->buf = NULL;
}

void gt_cur_seek(struct gt_cur *c, uint64_t pos, uint64_t end)
{
	c->pos = pos;
	c->end = end < c->src->len ? end : c->src->len;
}

size_t gt_cur_fill(struct gt_cur *c, size_t n)
{
	size_t have = gt_cur_avail(c), want;

	if (have >= n || c->src->mem)
		return have;
	/* Keep what is left of the window, read the rest after it. */
	if (have)
		memmove(c->buf, gt_cur_ptr(c), have);
	c->wpos = c->pos;
	c->wlen = have;
	want = GT_CUR_WINDOW - have;
	if (want > c->end - c->pos - have)
		want = (size_t)(c->end - c->pos - have);
	if (want && gt_src_read(c->src, c->pos + have, c->buf + have, want)) {
		c->ioerr = true;
		return have;
	}
	c->wlen += want;
	return gt_cur_avail(c);
}

int gt_src_copy(const struct gt_src *s, uint64_t from, uint64_t to, FILE *out)
{
	static uint8_t chunk[1 << 16];

	while (from < to) {
		size_t n = to - from < sizeof(chunk) ? (size_t)(to - from) :
			sizeof(chunk);

		if (gt_src_read(s, from, chunk, n) ||
		    fwrite(chunk, 1, n, out) != n)
			return -1;
		from += n;
	}
	return 0;
}
