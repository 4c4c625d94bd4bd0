/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - messages, checked I/O and number parsing shared by the commands
 *
 * Messages follow the kernel's tools: "gotrace: <what>: <why>" on stderr,
 * one line per failure.
 */
#ifndef GOTRACE_UTIL_H
#define GOTRACE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Exit codes of every command. */
enum {
	GT_EXIT_OK	= 0,
	GT_EXIT_FAIL	= 1,	/* the command ran and failed */
	GT_EXIT_USAGE	= 2,	/* bad command line */
};

#define GT_NAME "gotrace"

__attribute__((format(printf, 1, 2)))
void gt_err(const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
void gt_warn(const char *fmt, ...);
/*
 * After getopt's own message about an unknown option or a missing
 * argument: where to look, in one line instead of the whole usage.
 */
void gt_usage_hint(const char *cmd);

/* Write all @len bytes; retries on EINTR and short writes.  0 or -errno. */
int gt_write_all(int fd, const void *buf, size_t len);

/*
 * Make the array *@arr of *@cap elements of @size bytes hold at least
 * @need, doubling it, the new elements zeroed; 0, or -1 out of memory.
 */
int gt_grow(void **arr, size_t *cap, size_t need, size_t size);

/*
 * Strings held once each (malloc'd copies), named by their index in the
 * order they came: a trace's or a machine's systemd units, tens or
 * hundreds of them, which a scan finds.
 */
struct gt_names {
	char **v;
	size_t n, cap;
};

/*
 * The index in @names of the first @len bytes of @s (no NUL among
 * them), added if new; -1 out of memory.
 */
long gt_names_index(struct gt_names *names, const char *s, size_t len);
void gt_names_free(struct gt_names *names);

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

/*
 * @n bytes at @p for a message: printable ASCII as is, the rest (and "
 * and \\) as \xNN.  Returns @buf (4 * @n + 1 bytes suffice).
 */
const char *gt_fmt_printable(const uint8_t *p, size_t n, char *buf,
			     size_t size);

/* "1.2 MiB" style size for messages; returns @buf. */
const char *gt_fmt_bytes(uint64_t n, char *buf, size_t size);

/*
 * Mark in @set (@n flags, cleared first) the CPUs of a kernel CPU list
 * such as /sys/devices/system/cpu/online: "0-3,8,10-11\n".  Returns how
 * many are set, or -1 for a malformed list; CPUs >= @n are ignored.
 */
int gt_parse_cpu_list(const char *text, bool *set, unsigned int n);

/* CLOCK_MONOTONIC in ns. */
uint64_t gt_now_ns(void);

#endif /* GOTRACE_UTIL_H */
