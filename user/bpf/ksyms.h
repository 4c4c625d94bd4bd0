/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms.h - kernel symbols for the BPF backend's stacks, from
 * /proc/kallsyms
 *
 * The kernel shows real addresses in /proc/kallsyms only to a reader it
 * would show %pK pointers to (kptr_restrict, CAP_SYSLOG): the rule the
 * module applies to its own reader.  When it shows zeros, the stacks
 * cannot be named and their addresses must not reach the trace.
 */
#ifndef GOTRACE_KSYMS_H
#define GOTRACE_KSYMS_H

#include <stdbool.h>
#include <stdint.h>

struct gt_ksyms;

/* Read @path (NULL: /proc/kallsyms); NULL after saying why. */
struct gt_ksyms *gt_ksyms_load(const char *path);
void gt_ksyms_free(struct gt_ksyms *k);
/* Did the kernel show this reader the addresses? */
bool gt_ksyms_visible(const struct gt_ksyms *k);
/* The function holding @addr and the offset in it, or NULL. */
const char *gt_ksyms_find(const struct gt_ksyms *k, uint64_t addr,
			  uint64_t *off);

/*
 * How many of the @n innermost frames of @pcs are the tracepoint's
 * iterator (__traceiter_*), which says nothing about where the kernel
 * was: 0 or 1.  0 when the symbols are hidden.
 */
unsigned int gt_ksyms_tracing_frames(const struct gt_ksyms *k,
				     const uint64_t *pcs, unsigned int n);

#endif /* GOTRACE_KSYMS_H */
