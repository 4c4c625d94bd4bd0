/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go123_sym.h - name the user frames of a generational trace
 *
 * Copies a trace, generation by generation, replacing the unsymbolised
 * user frames of its stack tables (Documentation/user-stacks.rst) by
 * the function, file and line the binaries name.  Every other byte is
 * copied as it is: a stack batch without such a frame too, so a trace
 * without user frames comes out identical.
 */
#ifndef GOTRACE_GO123_SYM_H
#define GOTRACE_GO123_SYM_H

#include <stdint.h>
#include <stdio.h>

#include "go111_check.h"
#include "input.h"
#include "usym_frames.h"

/*
 * Copy the generational trace @src to @out, its user frames named by
 * @u.  0; -1 with @err when the trace cannot be read from some
 * generation on (what follows the last whole generation is then copied
 * unchanged, so nothing is lost), -2 when writing fails or memory runs
 * out (@err says which).
 */
int gt_go123_symbolize(const struct gt_src *src, FILE *out, struct gt_usym *u,
		       struct gt_sym_counts *n, struct gt_trace_error *err);

#endif /* GOTRACE_GO123_SYM_H */
