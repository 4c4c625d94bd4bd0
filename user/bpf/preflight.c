// SPDX-License-Identifier: GPL-2.0
/*
 * preflight.c - the reasons the BPF backend cannot run, said plainly
 * (preflight.h)
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preflight.h"
#include "../trace/base.h"

/* Older uapi headers lack the two capabilities split out of SYS_ADMIN. */
#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

const struct gt_bpf_paths gt_bpf_paths = {
	.btf = "/sys/kernel/btf/vmlinux",
	.lockdown = "/sys/kernel/security/lockdown",
};

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1U << (cap % 32));
}

void gt_bpf_caps_get(struct gt_bpf_caps *c)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = { 0 };

	c->root = geteuid() == 0;
	if (syscall(SYS_capget, &h, d)) {
		c->bpf = c->perfmon = c->sys_admin = false;
		return;
	}
	c->bpf = has_cap(d, CAP_BPF);
	c->perfmon = has_cap(d, CAP_PERFMON);
	c->sys_admin = has_cap(d, CAP_SYS_ADMIN);
}

/* "none integrity [confidentiality]": the bracketed one is in force. */
bool gt_lockdown_confidential(const char *text)
{
	return strstr(text, "[confidentiality]") != NULL;
}

int gt_bpf_preflight(const struct gt_bpf_paths *p, const struct gt_bpf_caps *c)
{
	char buf[128];
	size_t n;
	FILE *f;

	/* CAP_SYS_ADMIN covers both on kernels older than 5.8. */
	if (!(c->bpf && c->perfmon) && !c->sys_admin) {
		if (!c->root)
			gt_err("the BPF backend needs root (or CAP_BPF and CAP_PERFMON): run gotrace as root");
		else
			gt_err("root without CAP_BPF and CAP_PERFMON (dropped by a container or capability bounding set?): the BPF backend cannot load");
		return -1;
	}
	if (access(p->btf, R_OK)) {
		gt_err("this kernel has no BTF (%s: %s; CONFIG_DEBUG_INFO_BTF): the BPF backend cannot run, use the module",
		       p->btf, strerror(errno));
		return -1;
	}
	f = fopen(p->lockdown, "re");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		if (gt_lockdown_confidential(buf)) {
			gt_err("the kernel is locked down (lockdown=confidentiality, %s): BPF may not read kernel memory, the BPF backend cannot run",
			       p->lockdown);
			return -1;
		}
	}
	return 0;
}

int gt_parse_cpu_list(const char *text, bool *set, unsigned int n)
{
	const char *s = text;
	int count = 0;

	memset(set, 0, n * sizeof(*set));
	while (*s && *s != '\n') {
		unsigned long lo, hi;
		char *end;

		if (*s < '0' || *s > '9')
			return -1;
		lo = strtoul(s, &end, 10);
		hi = lo;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -1;
			hi = strtoul(s, &end, 10);
		}
		if (hi < lo)
			return -1;
		for (unsigned long c = lo; c <= hi && c < n; c++)
			if (!set[c]) {
				set[c] = true;
				count++;
			}
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return count;
}
