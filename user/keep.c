// SPDX-License-Identifier: GPL-2.0
/*
 * keep.c - the newest files of a recording stay (keep.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keep.h"
#include "util.h"

int gt_keep_add(struct gt_keep *k, char *name)
{
	char **v;

	if (!k->keep) {
		free(name);
		return 0;
	}
	v = realloc(k->files, (k->nr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	k->files = v;
	k->files[k->nr++] = name;
	while (k->nr > k->keep) {
		if (unlink(k->files[0]) && errno != ENOENT)
			gt_warn("cannot remove %s: %s", k->files[0],
				strerror(errno));
		else
			k->removed++;
		free(k->files[0]);
		memmove(k->files, k->files + 1, --k->nr * sizeof(*v));
	}
	return 0;
}

void gt_keep_free(struct gt_keep *k)
{
	while (k->nr)
		free(k->files[--k->nr]);
	free(k->files);
	k->files = NULL;
}
