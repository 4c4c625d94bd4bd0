/* SPDX-License-Identifier: GPL-2.0 */
/*
 * backend.h - which capture backend records: the module (/dev/gotrace)
 * or the BPF programs (bpf/loader.h)
 */
#ifndef GOTRACE_BACKEND_H
#define GOTRACE_BACKEND_H

#include <stdbool.h>

enum gt_backend {
	GT_BACKEND_AUTO,	/* the module if it can be had, else BPF */
	GT_BACKEND_KMOD,
	GT_BACKEND_BPF,
};

/* "auto", "kmod" or "bpf"; -1 after saying what is wrong. */
int gt_backend_parse(const char *s, enum gt_backend *b);
const char *gt_backend_name(enum gt_backend b);

/*
 * The backend @want means on this machine: AUTO is the module when
 * @dev_path exists or @modprobe (a command line; NULL: none) succeeds
 * and creates it, else BPF.  KMOD and BPF stay what they are.
 */
enum gt_backend gt_backend_choose(enum gt_backend want, const char *dev_path,
				  const char *modprobe);

/* Was this gotrace built with the BPF backend? */
bool gt_backend_have_bpf(void);

#endif /* GOTRACE_BACKEND_H */
