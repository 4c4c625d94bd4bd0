// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - the command's helpers (util.h)
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

void gt_usage_hint(const char *cmd)
{
	fprintf(stderr, "%s: see '%s %s -h'\n", GT_NAME, GT_NAME, cmd);
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

void gt_err_input(const char *path, const char *spool_dir, int err)
{
	if (spool_dir)
		gt_err("cannot copy %s into a temporary file in %s (TMPDIR): %s",
		       path, spool_dir, strerror(err));
	else
		gt_err("cannot read %s: %s", path, strerror(err));
}

