/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_sink.h - the unwind tables into the BPF programs' maps
 *
 * The sink of user/unwind/unwind.h for the BPF backend: rows, table
 * slots and address spaces written into gotrace.bpf.c's unw_rows,
 * unw_tables and unw_spaces, from the tables' worker thread.
 */
#ifndef GOTRACE_BPF_UNWIND_SINK_H
#define GOTRACE_BPF_UNWIND_SINK_H

#include "../unwind/unwind.h"

struct gt_bpf;

/* The sink's argument: the maps' descriptors; lives as long as @b. */
struct gt_bpf_unwind_fds {
	int rows, tables, spaces;
	uint32_t max_rows;
};

/*
 * The limits of @b's maps into @p, and the sink that fills them through
 * @fds.
 */
void gt_bpf_unwind_sink(struct gt_bpf *b, struct gt_bpf_unwind_fds *fds,
			struct gt_unwind_params *p,
			struct gt_unwind_sink *sink);

#endif /* GOTRACE_BPF_UNWIND_SINK_H */
