// SPDX-License-Identifier: GPL-2.0
/*
 * backend.c - choosing the capture backend (backend.h)
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "util.h"

static const char *const names[] = {
	[GT_BACKEND_AUTO] = "auto",
	[GT_BACKEND_KMOD] = "kmod",
	[GT_BACKEND_BPF] = "bpf",
};

int gt_backend_parse(const char *s, enum gt_backend *b)
{
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*b = i;
			return 0;
		}
	}
	gt_err("invalid backend '%s': want kmod, bpf or auto", s);
	return -1;
}

const char *gt_backend_name(enum gt_backend b)
{
	return b < sizeof(names) / sizeof(names[0]) ? names[b] : "unknown";
}

enum gt_backend gt_backend_choose(enum gt_backend want, const char *dev_path,
				  const char *modprobe)
{
	int st;

	if (want != GT_BACKEND_AUTO)
		return want;
	if (!access(dev_path, F_OK))
		return GT_BACKEND_KMOD;
	/* The module may be installed but not loaded: ask for it once. */
	if (modprobe) {
		st = system(modprobe);
		if (st != -1 && WIFEXITED(st) && !WEXITSTATUS(st) &&
		    !access(dev_path, F_OK))
			return GT_BACKEND_KMOD;
	}
	return GT_BACKEND_BPF;
}

bool gt_backend_have_bpf(void)
{
#ifdef GT_HAVE_BPF
	return true;
#else
	return false;
#endif
}
