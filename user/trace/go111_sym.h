/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go111_sym.h - name the user frames of a "go 1.11 trace"
 *
 * Copies the trace, replacing the unsymbolised user frames of its Stack
 * records (Documentation/user-stacks.rst) by the function, file and
 * line the binaries name, the new strings appended at its end.  Every
 * other record is copied as it is: a trace without user frames comes
 * out identical.
 */
#ifndef GOTRACE_GO111_SYM_H
#define GOTRACE_GO111_SYM_H

#include <stdio.h>

#include "go111_check.h"
#include "input.h"
#include "usym_frames.h"

/*
 * Copy the "go 1.11 trace" @src to @out, its user frames named by @u.
 * 0; -1 with @err when the trace does not check (it is then copied
 * unchanged), -2 when writing fails or memory runs out.
 */
int gt_v1_symbolize(const struct gt_src *src, FILE *out, struct gt_usym *u,
		    struct gt_sym_counts *n, struct gt_trace_error *err);

#endif /* GOTRACE_GO111_SYM_H */
