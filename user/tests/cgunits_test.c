// SPDX-License-Identifier: GPL-2.0
/*
 * cgunits_test.c - a cgroup's systemd unit by its id (bpf/cgunits.c), on a
 * tree of plain directories laid out as systemd lays out cgroup v2:
 * the id is the directory's inode number, as readdir() gives it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/cgunits.h"
#include "tap.h"

static char root[PATH_MAX];

/* Make ROOT/@rel; its id (inode number), 0 on failure. */
static uint64_t dir(const char *rel)
{
	char path[PATH_MAX * 2];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (mkdir(path, 0700) || stat(path, &st))
		return 0;
	return st.st_ino;
}

static int same(const char *got, const char *want)
{
	return got && want ? !strcmp(got, want) : got == want;
}

int main(void)
{
	uint64_t sys, svc, inner, user, scope, late;
	struct gt_cgunits *u;
	char cmd[PATH_MAX + 16];

	snprintf(root, sizeof(root), "/tmp/gt-cgunits.XXXXXX");
	if (!ok(mkdtemp(root) != NULL, "a directory for the tree"))
		return tap_done();
	sys = dir("system.slice");
	svc = dir("system.slice/nginx.service");
	inner = dir("system.slice/nginx.service/worker");
	user = dir("user.slice");
	scope = dir("user.slice/session-3.scope");
	diag("a tree in %s", root);
	u = gt_cgunits_new(root);
	ok(u && sys && svc && inner && user && scope, "the tree and its units");
	ok(same(gt_cgunits_of(u, svc), "nginx.service"),
	   "a service's own cgroup: the service");
	ok(same(gt_cgunits_of(u, inner), "nginx.service"),
	   "a cgroup below it (a delegated subtree): the same service");
	ok(same(gt_cgunits_of(u, scope), "session-3.scope"), "a scope");
	ok(same(gt_cgunits_of(u, sys), NULL) && same(gt_cgunits_of(u, user), NULL),
	   "a slice is no unit");
	ok(gt_cgunits_of(u, svc) == gt_cgunits_of(u, inner),
	   "one string per unit");
	late = dir("system.slice/late.service");
	ok(same(gt_cgunits_of(u, late), "late.service"),
	   "a cgroup made after the first walk is found by another");
	ok(same(gt_cgunits_of(u, 1234567890123ULL), NULL),
	   "an id found nowhere has no unit");
	gt_cgunits_free(u);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ok(system(cmd) == 0, "the tree removed");
	return tap_done();
}
