// SPDX-License-Identifier: GPL-2.0
/*
 * min_trace.c - write the 76-byte minimal trace (min_trace.h) to standard
 * output, for the shell tests (lib.sh's write_trace)
 */
#include <stdio.h>

#include "min_trace.h"

int main(void)
{
	if (fwrite(gt_min_trace, 1, sizeof(gt_min_trace), stdout) !=
	    sizeof(gt_min_trace) || fflush(stdout))
		return 1;
	return 0;
}
