/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go123_repair.h - trim a damaged generational trace
 *
 * A recording that was killed, or a disk that filled up, leaves a file
 * whose last generation is cut.  Go 1.27 reads a "go 1.26 trace" up to
 * its last complete generation and then fails; a "go 1.23 trace" cut
 * between batches may even fail in the generation before the cut.  The
 * repair keeps the header and every generation up to the last one that
 * is certainly complete and checks whole (gt_go123_info.good_end).
 */
#ifndef GOTRACE_GO123_REPAIR_H
#define GOTRACE_GO123_REPAIR_H

#include <stdint.h>

#include "input.h"

/*
 * Write the first @len bytes of @src to @fd (the caller's output: a
 * temporary file it renames over the output once complete, so that the
 * output, which may be the input, is never left half-written).  0 or
 * -errno.
 */
int gt_go123_write_prefix(const struct gt_src *src, uint64_t len, int fd);

#endif /* GOTRACE_GO123_REPAIR_H */
