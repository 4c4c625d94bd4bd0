// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - messages, checked I/O and number parsing shared by the commands
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static void gt_vmsg(const char *prefix, const char *fmt, va_list ap)
{
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

void gt_usage_hint(const char *cmd)
{
	fprintf(stderr, "%s: see '%s %s -h'\n", GT_NAME, GT_NAME, cmd);
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

bool gt_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		uint64_t mul, div;
	} units[] = {
		{ "", 1, 1 }, { "s", 1, 1 }, { "ms", 1, 1000 },
		{ "m", 60, 1 }, { "h", 3600, 1 },
	};
	/* A year: more is surely a typo, and it cannot overflow below. */
	const uint64_t max_ns = 366ULL * 24 * 3600 * 1000000000ULL;
	uint64_t whole = 0, frac = 0, scale = 1000000000ULL, v;
	const char *p = s;

	if (!*p || *p == '.')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > max_ns / 1000000000ULL)
			return false;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return false;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
		}
	}
	v = whole * 1000000000ULL + frac;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].suffix))
			continue;
		if (v > max_ns / units[i].mul)
			return false;
		*ns = v * units[i].mul / units[i].div;
		return *ns != 0;
	}
	return false;
}

const char *gt_fmt_bytes(uint64_t n, char *buf, size_t size)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int i = -1;

	if (n < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)n);
		return buf;
	}
	while (v >= 1024 && i < 3) {
		v /= 1024;
		i++;
	}
	snprintf(buf, size, "%.1f %s", v, unit[i]);
	return buf;
}

uint64_t gt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
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

int gt_parse_cpu_list(const char *text, bool *set, unsigned int n)
{
	const char *s = text;
	int count = 0;

	memset(set, 0, n * sizeof(*set));
	while (*s && *s != '\n') {
		unsigned long lo, hi;
		char *end;

		if (*s < '0' || *s > '9')
			return -1;
		lo = strtoul(s, &end, 10);
		hi = lo;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -1;
			hi = strtoul(s, &end, 10);
		}
		if (hi < lo)
			return -1;
		for (unsigned long c = lo; c <= hi && c < n; c++)
			if (!set[c]) {
				set[c] = true;
				count++;
			}
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return count;
}

void gt_err_input(const char *path, const char *spool_dir, int err)
{
	if (spool_dir)
		gt_err("cannot copy %s into a temporary file in %s (TMPDIR): %s",
		       path, spool_dir, strerror(err));
	else
		gt_err("cannot read %s: %s", path, strerror(err));
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
