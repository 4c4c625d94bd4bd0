// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_sink.c - the unwind tables into the BPF programs' maps
 * (unwind_sink.h)
 *
 * Rows go in
 * batches (one bpf() call per few thousand rows, not one per row: a C
 * library's table has tens of thousands).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "loader.h"
#include "record.h"
#include "unwind_sink.h"

/* Rows per bpf() call. */
#define BATCH	4096
/* The kernel's own "not supported" (ENOTSUPP), which bpf() may return. */
#define KERNEL_ENOTSUPP	524

static struct gt_bpf_unwind_fds fds_of(void *arg)
{
	return *(struct gt_bpf_unwind_fds *)arg;
}

static int put_rows(void *arg, uint32_t first,
		    const struct gotrace_unwind_row *rows, uint32_t n)
{
	struct gt_bpf_unwind_fds f = fds_of(arg);
	uint32_t keys[BATCH];
	int err = 0;

	if ((uint64_t)first + n > f.max_rows)
		return -ENOSPC;
	for (uint32_t at = 0; at < n && !err; at += BATCH) {
		__u32 count = n - at < BATCH ? n - at : BATCH;

		for (uint32_t i = 0; i < count; i++)
			keys[i] = first + at + i;
		err = bpf_map_update_batch(f.rows, keys, (void *)&rows[at],
					   &count, NULL);
		/* Kernels without batches for arrays: one at a time. */
		if (err == -EINVAL || err == -KERNEL_ENOTSUPP || err == -EOPNOTSUPP) {
			err = 0;
			for (uint32_t i = 0; i < count && !err; i++)
				err = bpf_map_update_elem(f.rows, &keys[i],
							  &rows[at + i],
							  BPF_ANY);
		}
	}
	return err;
}

static int put_table(void *arg, uint32_t slot,
		     const struct gotrace_unwind_table *t)
{
	struct gt_bpf_unwind_fds f = fds_of(arg);

	return bpf_map_update_elem(f.tables, &slot, t, BPF_ANY);
}

/* The BPF programs key a space by its mm alone: @tgid is not needed. */
static int put_space(void *arg, uint64_t space, int tgid,
		     const struct gotrace_unwind_map *maps, uint32_t n)
{
	struct gt_bpf_unwind_fds f = fds_of(arg);
	struct gtb_unwind_space v;

	(void)tgid;
	if (!n) {
		bpf_map_delete_elem(f.spaces, &space);
		return 0;
	}
	if (n > GOTRACE_UNWIND_MAPS_MAX)
		n = GOTRACE_UNWIND_MAPS_MAX;
	memset(&v, 0, sizeof(v));
	v.nr = n;
	memcpy(v.maps, maps, n * sizeof(*maps));
	return bpf_map_update_elem(f.spaces, &space, &v, BPF_ANY);
}

void gt_bpf_unwind_sink(struct gt_bpf *b, struct gt_bpf_unwind_fds *fds,
			struct gt_unwind_params *p,
			struct gt_unwind_sink *sink)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	gt_bpf_unwind_maps(b, &fds->rows, &fds->tables, &fds->spaces);
	fds->max_rows = bpf_obj_get_info_by_fd(fds->rows, &info, &len) ? 0 :
			info.max_entries;
	memset(p, 0, sizeof(*p));
	p->max_rows = fds->max_rows;
	p->max_tables = GTB_UNWIND_TABLES;
	sink->rows = put_rows;
	sink->table = put_table;
	sink->space = put_space;
	sink->arg = fds;
}
