/* SPDX-License-Identifier: GPL-2.0 */
/*
 * keep.h - --keep N: only the newest N files a recording wrote stay
 * (rotated traces, flight snapshots); files it did not write are left
 * alone.
 */
#ifndef GOTRACE_KEEP_H
#define GOTRACE_KEEP_H

#include <stdint.h>

struct gt_keep {
	unsigned int keep;	/* the newest files kept (0: all) */
	char **files;		/* the complete files, oldest first */
	unsigned int nr;
	uint64_t removed;	/* files removed for @keep */
};

/*
 * File @name (allocated; the keep takes it) is complete: with @k->keep,
 * remember it and remove the oldest beyond the newest @k->keep.  0, or
 * -ENOMEM (then @name is still the caller's).
 */
int gt_keep_add(struct gt_keep *k, char *name);
void gt_keep_free(struct gt_keep *k);

#endif /* GOTRACE_KEEP_H */
