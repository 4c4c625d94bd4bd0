/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgunits.h - the systemd unit of a cgroup v2, by its id
 *
 * The BPF backend's switch records carry the id of the next task's
 * cgroup (its kernfs id, the directory's inode number); the model names
 * the task's unit from it as the module does from the cgroup itself:
 * the nearest cgroup, from the task's own upwards, whose name ends in
 * ".service" or ".scope".
 */
#ifndef GOTRACE_CGUNITS_H
#define GOTRACE_CGUNITS_H

#include <stdint.h>

struct gt_cgunits;

/*
 * The units below cgroup v2's mount @root (NULL: where /proc/self/mounts
 * says; none if nowhere); NULL when out of memory.
 */
struct gt_cgunits *gt_cgunits_new(const char *root);
void gt_cgunits_free(struct gt_cgunits *u);
/*
 * The unit of cgroup @id, or NULL: none, or a cgroup no longer there
 * when first asked for.  The string lives as long as @u.
 */
const char *gt_cgunits_of(struct gt_cgunits *u, uint64_t id);

#endif /* GOTRACE_CGUNITS_H */
