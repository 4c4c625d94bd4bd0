// SPDX-License-Identifier: GPL-2.0
/*
 * base.c - the helpers at the bottom of user/ (base.h)
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base.h"

static void (*before_msg)(void);

void gt_msg_hook(void (*fn)(void))
{
	before_msg = fn;
}

static void gt_vmsg(const char *prefix, const char *fmt, va_list ap)
{
	if (before_msg)
		before_msg();
	fprintf(stderr, "%s: %s", GT_NAME, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void gt_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gt_vmsg("", fmt, ap);
	va_end(ap);
}

void gt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gt_vmsg("warning: ", fmt, ap);
	va_end(ap);
}

int gt_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

uint64_t gt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

bool gt_has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

bool gt_has_suffix(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && !memcmp(s + len - n, p, n);
}

int gt_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t nc = *cap ? *cap * 2 : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	n = realloc(*arr, nc * size);
	if (!n)
		return -1;
	memset((char *)n + *cap * size, 0, (nc - *cap) * size);
	*arr = n;
	*cap = nc;
	return 0;
}

long gt_names_index(struct gt_names *names, const char *s, size_t len)
{
	char *copy;

	for (size_t i = 0; i < names->n; i++)
		if (!strncmp(names->v[i], s, len) && !names->v[i][len])
			return (long)i;
	if (names->n >= LONG_MAX ||
	    gt_grow((void **)&names->v, &names->cap, names->n + 1,
		    sizeof(*names->v)))
		return -1;
	copy = strndup(s, len);
	if (!copy)
		return -1;
	names->v[names->n] = copy;
	return (long)names->n++;
}

void gt_names_free(struct gt_names *names)
{
	for (size_t i = 0; i < names->n; i++)
		free(names->v[i]);
	free(names->v);
	memset(names, 0, sizeof(*names));
}

const char *gt_fmt_printable(const uint8_t *p, size_t n, char *buf,
			     size_t size)
{
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && at + 5 <= size; i++)
		at += (size_t)snprintf(buf + at, size - at,
				       p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' &&
				       p[i] != '\\' ? "%c" : "\\x%02x", p[i]);
	return buf;
}
