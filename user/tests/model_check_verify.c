// SPDX-License-Identifier: GPL-2.0
/*
 * model_check_verify.c - 'gotrace check' for the model checker
 *
 * Apart from model_check.c, which sees the model's own headers: the
 * module's encoder and the trace readers both name a struct gt_frame.
 */
#include <stdio.h>

#include "trace/go111_decode.h"
#include "trace/go123_check.h"
#include "tests/model_check.h"

bool mc_verify(const uint8_t *buf, size_t len, bool generational,
	       uint64_t *generations, char *why, size_t size)
{
	struct gt_trace_error err = { 0 };
	struct gt_go123_info info = { 0 };
	struct gt_src src;

	if (!generational) {
		if (!gt_trace_verify(buf, len, &err))
			return true;
		snprintf(why, size, "%s", err.msg);
		return false;
	}
	gt_src_mem(&src, buf, len);
	if (!gt_go123_check(&src, &info, &err)) {
		*generations = info.generations;
		return true;
	}
	snprintf(why, size, "%s", err.msg[0] ? err.msg : "not read");
	return false;
}
