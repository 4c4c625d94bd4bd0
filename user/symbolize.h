/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbolize.h - name the user frames of a trace file (gotrace symbolize)
 */
#ifndef GOTRACE_SYMBOLIZE_H
#define GOTRACE_SYMBOLIZE_H

#include <stdbool.h>

/*
 * Copy the trace @in (a file, or "-" for stdin) to @out with its user
 * frames named; @out may be @in, and is replaced only once whole.
 * Unless @quiet, says how many frames were named.  Returns GT_EXIT_OK or
 * GT_EXIT_FAIL (after saying why).
 */
int gt_symbolize_path(const char *in, const char *out, bool quiet);

#endif /* GOTRACE_SYMBOLIZE_H */
