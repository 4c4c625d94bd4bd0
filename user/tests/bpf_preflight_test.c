// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_preflight_test.c - the reasons the BPF backend refuses to start
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bpf/preflight.h"
#include "tap.h"
#include "util.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	char dir[] = "/tmp/gt-preflight.XXXXXX", btf[64], lock[64];
	struct gt_bpf_caps root = { .root = true, .bpf = true, .perfmon = true };
	struct gt_bpf_caps admin = { .root = true, .sys_admin = true };
	struct gt_bpf_caps bare_root = { .root = true };
	struct gt_bpf_caps user = { 0 };
	struct gt_bpf_caps bpf_only = { .bpf = true };
	struct gt_bpf_caps delegated = { .bpf = true, .perfmon = true };
	struct gt_bpf_paths p = { btf, lock };

	if (!mkdtemp(dir))
		return 1;
	diag("fake sysfs files in %s", dir);
	snprintf(btf, sizeof(btf), "%s/vmlinux", dir);
	snprintf(lock, sizeof(lock), "%s/lockdown", dir);
	write_file(btf, "");

	ok(gt_lockdown_confidential("none integrity [confidentiality]\n"),
	   "lockdown: confidentiality selected");
	ok(!gt_lockdown_confidential("none [integrity] confidentiality\n"),
	   "lockdown: integrity is not confidentiality");
	ok(!gt_lockdown_confidential("[none] integrity confidentiality\n"),
	   "lockdown: none");

	ok(gt_bpf_preflight(&p, &root) == 0, "root with BTF, no lockdown file: go");
	ok(gt_bpf_preflight(&p, &admin) == 0, "CAP_SYS_ADMIN alone: go (before 5.8)");
	ok(gt_bpf_preflight(&p, &delegated) == 0,
	   "not root but CAP_BPF and CAP_PERFMON: go");
	ok(gt_bpf_preflight(&p, &user) == -1, "an unprivileged user: refused");
	ok(gt_bpf_preflight(&p, &bpf_only) == -1, "CAP_BPF without CAP_PERFMON: refused");
	ok(gt_bpf_preflight(&p, &bare_root) == -1, "root without the capabilities: refused");
	write_file(lock, "none [integrity] confidentiality\n");
	ok(gt_bpf_preflight(&p, &root) == 0, "lockdown=integrity: go");
	write_file(lock, "none integrity [confidentiality]\n");
	ok(gt_bpf_preflight(&p, &root) == -1, "lockdown=confidentiality: refused");
	unlink(lock);
	unlink(btf);
	ok(gt_bpf_preflight(&p, &root) == -1, "no BTF: refused");
	rmdir(dir);

	/* The online CPUs, which alone get a full BPF ring. */
	bool cpus[8];

	ok(gt_parse_cpu_list("0-1\n", cpus, 8) == 2 && cpus[0] && cpus[1] &&
	   !cpus[2], "cpu list: 0-1");
	ok(gt_parse_cpu_list("0,2-3,6\n", cpus, 8) == 4 && cpus[0] && !cpus[1] &&
	   cpus[2] && cpus[3] && !cpus[4] && !cpus[5] && cpus[6] && !cpus[7],
	   "cpu list: 0,2-3,6 (holes stay offline)");
	ok(gt_parse_cpu_list("4-127", cpus, 8) == 4 && !cpus[3] && cpus[7],
	   "cpu list: CPUs beyond the possible ones ignored");
	ok(gt_parse_cpu_list("3-1", cpus, 8) == -1, "cpu list: 3-1 malformed");
	ok(gt_parse_cpu_list("0-x", cpus, 8) == -1, "cpu list: 0-x malformed");
	ok(gt_parse_cpu_list("", cpus, 8) == 0, "cpu list: empty");
	return tap_done();
}
