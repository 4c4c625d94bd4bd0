/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats_json.h - 'gotrace stat --json': the figures as one JSON object
 */
#ifndef GOTRACE_STATS_JSON_H
#define GOTRACE_STATS_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stats.h"

/*
 * Print @s (of the @bytes-byte file @path) to @f; top lists keep @want
 * rows (0 = all).  Sorts the tables of @s.
 */
void gt_stat_json(FILE *f, const char *path, uint64_t bytes,
		  struct gt_stats *s, size_t want);

#endif /* GOTRACE_STATS_JSON_H */
