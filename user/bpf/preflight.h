/* SPDX-License-Identifier: GPL-2.0 */
/*
 * preflight.h - can this machine run the BPF backend?  One clear
 * line for each reason it cannot, before libbpf says something obscure.
 */
#ifndef GOTRACE_BPF_PREFLIGHT_H
#define GOTRACE_BPF_PREFLIGHT_H

#include <stdbool.h>

/* Where the kernel says what it has; tests point them at files of theirs. */
struct gt_bpf_paths {
	const char *btf;	/* /sys/kernel/btf/vmlinux */
	const char *lockdown;	/* /sys/kernel/security/lockdown */
};

extern const struct gt_bpf_paths gt_bpf_paths;

/* The capabilities that matter, as the caller has them (effective). */
struct gt_bpf_caps {
	bool root;		/* euid 0 */
	bool bpf, perfmon, sys_admin;
};

/* The calling process's. */
void gt_bpf_caps_get(struct gt_bpf_caps *c);

/*
 * 0 when the BPF backend may try to load, else -1 after one "gotrace:"
 * line on stderr: not root, root without CAP_BPF/CAP_PERFMON, no BTF,
 * lockdown=confidentiality.  (Ring buffer support is asked of the kernel
 * when loading.)
 */
int gt_bpf_preflight(const struct gt_bpf_paths *p, const struct gt_bpf_caps *c);

/* Does this /sys/kernel/security/lockdown text select confidentiality? */
bool gt_lockdown_confidential(const char *text);

/*
 * Mark in @set (@n flags, cleared first) the CPUs of a kernel CPU list
 * such as /sys/devices/system/cpu/online: "0-3,8,10-11\n".  Returns how
 * many are set, or -1 for a malformed list; CPUs >= @n are ignored.
 */
int gt_parse_cpu_list(const char *text, bool *set, unsigned int n);

#endif /* GOTRACE_BPF_PREFLIGHT_H */
