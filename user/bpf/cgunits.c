// SPDX-License-Identifier: GPL-2.0
/*
 * cgunits.c - the systemd unit of a cgroup v2, by its id (cgunits.h)
 *
 * An id not seen yet makes one walk of the whole cgroup tree, which
 * notes the unit of every directory by its inode number (readdir()'s
 * d_ino: cgroup v2's kernfs gives the cgroup's id), so that a new
 * cgroup costs one walk and a known one a lookup.  An id the walk did
 * not find (its cgroup was removed before the reader met it) is noted
 * as having no unit, and not looked for again: the model asks only when
 * a task's cgroup changes.
 */
#include <dirent.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgunits.h"
#include "../trace/u64map.h"
#include "../trace/base.h"

/* Deepest directory looked at below the root (systemd nests a few). */
#define WALK_DEPTH	32

/* struct gt_cgunits.ids: the id's cgroup is in no unit. */
#define NO_UNIT		UINT64_MAX

struct gt_cgunits {
	char root[PATH_MAX];
	struct u64map ids;	/* cgroup id -> index in @names, or NO_UNIT */
	struct gt_names names;	/* each unit once */
};

static void note(struct gt_cgunits *u, uint64_t id, const char *unit);

/*
 * Where cgroup v2 is mounted: /sys/fs/cgroup on a unified system,
 * /sys/fs/cgroup/unified on a hybrid one; "" if nowhere.
 */
static void cgroup2_mount(char *root, size_t size)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;

	root[0] = '\0';
	while (f && (m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2") &&
		    strlen(m->mnt_dir) < size) {
			strcpy(root, m->mnt_dir);
			break;
		}
	if (f)
		endmntent(f);
}

struct gt_cgunits *gt_cgunits_new(const char *root)
{
	struct gt_cgunits *u = calloc(1, sizeof(*u));
	struct stat st;

	if (!u || (root && strlen(root) >= sizeof(u->root))) {
		free(u);
		return NULL;
	}
	if (root)
		strcpy(u->root, root);
	else
		cgroup2_mount(u->root, sizeof(u->root));
	/* The root cgroup is in no unit (and would make a walk each time). */
	if (u->root[0] && !stat(u->root, &st))
		note(u, st.st_ino, NULL);
	return u;
}

void gt_cgunits_free(struct gt_cgunits *u)
{
	if (!u)
		return;
	gt_names_free(&u->names);
	u64map_free(&u->ids);
	free(u);
}

/* A unit's name: @suffix after at least one character. */
static bool unit_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s);

	return n > strlen(suffix) && gt_has_suffix(s, n, suffix);
}

/* The index of unit @name in @u->names, added if new; NO_UNIT: no memory. */
static uint64_t unit_index(struct gt_cgunits *u, const char *name)
{
	long i = gt_names_index(&u->names, name, strlen(name));

	return i < 0 ? NO_UNIT : (uint64_t)i;
}

/* Note @id's unit (@unit, or none), replacing what was noted. */
static void note(struct gt_cgunits *u, uint64_t id, const char *unit)
{
	uint64_t v = unit ? unit_index(u, unit) : NO_UNIT, *slot;
	bool added;

	slot = u64map_put(&u->ids, id, v, &added);
	if (slot)
		*slot = v;
}

/*
 * The subdirectories of @path (@len bytes of the buffer, PATH_MAX),
 * whose unit is @unit (NULL: none) unless their own name is one.
 */
static void walk(struct gt_cgunits *u, char *path, size_t len,
		 const char *unit, int depth)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *own = unit;
		size_t n = strlen(e->d_name);

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") ||
		    !strcmp(e->d_name, ".."))
			continue;
		if (unit_suffix(e->d_name, ".service") ||
		    unit_suffix(e->d_name, ".scope"))
			own = e->d_name;
		note(u, e->d_ino, own);
		if (depth >= WALK_DEPTH || len + 1 + n >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, n + 1);
		/* A unit's name may go when the walk moves on: a copy. */
		if (own && own != unit) {
			char name[NAME_MAX + 1];

			memcpy(name, own, n + 1);
			walk(u, path, len + 1 + n, name, depth + 1);
		} else {
			walk(u, path, len + 1 + n, own, depth + 1);
		}
		path[len] = '\0';
	}
	closedir(d);
}

const char *gt_cgunits_of(struct gt_cgunits *u, uint64_t id)
{
	char path[PATH_MAX];
	uint64_t *v = u64map_get(&u->ids, id);

	if (!v && u->root[0]) {
		strcpy(path, u->root);
		walk(u, path, strlen(path), NULL, 0);
		v = u64map_get(&u->ids, id);
		if (!v) {
			note(u, id, NULL);
			return NULL;
		}
	}
	return !v || *v == NO_UNIT ? NULL : u->names.v[*v];
}
