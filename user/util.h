/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - the command's helpers: exit codes, usage hints, durations,
 * sizes and input errors for messages, and (trace/base.h) those it
 * shares with the library and the backend
 */
#ifndef GOTRACE_UTIL_H
#define GOTRACE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/base.h"

/* Exit codes of every command. */
enum {
	GT_EXIT_OK	= 0,
	GT_EXIT_FAIL	= 1,	/* the command ran and failed */
	GT_EXIT_USAGE	= 2,	/* bad command line */
};

/*
 * After getopt's own message about an unknown option or a missing
 * argument: where to look, in one line instead of the whole usage.
 */
void gt_usage_hint(const char *cmd);

/*
 * Parse a duration into nanoseconds: a non-negative decimal number
 * ("10", "0.5") of seconds, or followed by a unit: ms, s, m or h
 * ("500ms", "2s", "1.5m").  Returns false for anything else, for zero
 * and for more than a year.
 */
bool gt_parse_duration(const char *s, uint64_t *ns);

/*
 * Say why the trace @path cannot be read: @err (errno), while copying it
 * into a temporary file in @spool_dir if that is not NULL.
 */
void gt_err_input(const char *path, const char *spool_dir, int err);

/* "1.2 MiB" style size for messages; returns @buf. */
const char *gt_fmt_bytes(uint64_t n, char *buf, size_t size);

#endif /* GOTRACE_UTIL_H */
