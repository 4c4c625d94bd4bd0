/* SPDX-License-Identifier: GPL-2.0 */
/*
 * base.h - the helpers at the bottom of user/: messages, whole writes,
 * growing arrays, interned names, printable bytes, the clock
 *
 * The trace library (trace/) needs some of them and the BPF backend
 * (bpf/) others; both include this header, never the command's util.h,
 * which adds what only the command uses.  It includes nothing of
 * gotrace's.
 *
 * Messages follow the kernel's tools: "gotrace: <what>: <why>" on stderr,
 * one line per failure.
 */
#ifndef GOTRACE_BASE_H
#define GOTRACE_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_NAME "gotrace"

__attribute__((format(printf, 1, 2)))
void gt_err(const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
void gt_warn(const char *fmt, ...);
/*
 * Call @fn (NULL: none) before each message of gt_err() and gt_warn():
 * the recorder erases its progress line there, whoever says what.
 */
void gt_msg_hook(void (*fn)(void));

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
 * @n bytes at @p for a message: printable ASCII as is, the rest (and "
 * and \\) as \xNN.  Returns @buf (4 * @n + 1 bytes suffice).
 */
const char *gt_fmt_printable(const uint8_t *p, size_t n, char *buf,
			     size_t size);

/* CLOCK_MONOTONIC in ns. */
uint64_t gt_now_ns(void);

/* Whether @s begins with @p; whether @s, of @len bytes, ends with @p. */
bool gt_has_prefix(const char *s, const char *p);
bool gt_has_suffix(const char *s, size_t len, const char *p);

#endif /* GOTRACE_BASE_H */
