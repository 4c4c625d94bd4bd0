/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pprof_enc.h - write a profile as pprof's protocol buffer
 *
 * The message is pprof's "Profile" (profile.proto of the pprof
 * project), of which gotrace writes only what Go's own profiles carry:
 * two sample types and a period type with its period (profile.h says
 * which for each kind), the duration if known, the samples (locations,
 * values), locations (id, address, one line), functions (id, name,
 * system name, file) and the string table.  Samples without a count are
 * left out.
 *
 * The bytes go out through @write as each top-level field is made, so
 * no second copy of the profile is held; gzip is the caller's
 * (pprof.c).  Documentation/gotrace.rst says why there is no protobuf
 * library here.
 */
#ifndef GOTRACE_PPROF_ENC_H
#define GOTRACE_PPROF_ENC_H

#include <stddef.h>

#include "profile.h"

/* Takes @len bytes; 0, or -1 to stop the encoding. */
typedef int (*gt_pprof_write_fn)(void *ctx, const void *buf, size_t len);

/* 0, or -1: out of memory or @write failed. */
int gt_pprof_encode(const struct gt_prof *p, gt_pprof_write_fn write,
		    void *ctx);

#endif /* GOTRACE_PPROF_ENC_H */
