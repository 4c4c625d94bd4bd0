// SPDX-License-Identifier: GPL-2.0
/*
 * options_test.c - the parsers of `gotrace record`'s options: what they
 * accept goes into struct gotrace_options as the module expects it, and
 * everything else is refused.
 */
#include <linux/magic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "options.h"
#include "tap.h"

static bool bit(const struct gotrace_options *o, int nr)
{
	return o->syscall_set[nr / 64] >> (nr % 64) & 1;
}

static void test_pids(void)
{
	struct gotrace_options o;
	char many[1024] = "1";
	int i;

	gt_opts_init(&o);
	ok(!gt_opts_pids(&o, "12,345", false) && o.nr_pids == 2 &&
	   o.pids[0] == 12 && o.pids[1] == 345 && (o.flags & GOTRACE_OPT_TGID),
	   "pids: a list of processes");
	ok(!gt_opts_pids(&o, "7", true) && o.nr_pids == 1 &&
	   !(o.flags & GOTRACE_OPT_TGID), "pids: --tid names threads");
	ok(gt_opts_pids(&o, "", false) && gt_opts_pids(&o, "1,,2", false) &&
	   gt_opts_pids(&o, "0", false) && gt_opts_pids(&o, "-3", false) &&
	   gt_opts_pids(&o, "12x", false) && gt_opts_pids(&o, ",", false),
	   "pids: empty, zero, negative and junk refused");
	ok(!gt_opts_pids(&o, "1,", false) && o.nr_pids == 1 && o.pids[0] == 1,
	   "pids: a trailing comma is accepted");
	for (i = 1; i <= GOTRACE_MAX_PIDS; i++)
		sprintf(many + strlen(many), ",%d", i + 1);
	ok(gt_opts_pids(&o, many, false) == -1, "pids: at most %d",
	   GOTRACE_MAX_PIDS);
}

static void test_comm(void)
{
	struct gotrace_options o;

	gt_opts_init(&o);
	ok(!gt_opts_comm(&o, "nginx") && !strcmp(o.comm, "nginx"),
	   "comm: taken as is");
	ok(gt_opts_comm(&o, "") && gt_opts_comm(&o, "sixteen_chars_xx"),
	   "comm: empty and 16 characters refused");
}

/* mkdir @root/@sub; returns its inode number, 0 on failure. */
static ino_t make_dir(const char *root, const char *sub)
{
	char dir[256];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/%s", root, sub);
	if (mkdir(dir, 0755) || stat(dir, &st))
		return 0;
	return st.st_ino;
}

/*
 * A systemctl that knows one unit, "fromctl.service", in /custom.slice
 * (not under system.slice), and fails for every other one.
 */
static void fake_systemctl(const char *bindir)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/systemctl", bindir);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "#!/bin/sh\n"
		"[ \"$*\" = \"show -p ControlGroup --value fromctl.service\" ] || exit 1\n"
		"echo /custom.slice/fromctl.service\n");
	fclose(f);
	chmod(path, 0755);
}

static void test_cgroup(void)
{
	char root[] = "/tmp/gt_cgroup_XXXXXX", bin[] = "/tmp/gt_bin_XXXXXX";
	char dir[256], path[1024], cmd[600];
	struct gotrace_options o;
	struct gt_cgroupfs fs, v2;
	struct statfs sfs;
	ino_t web, ctl;

	if (!mkdtemp(root) || !mkdtemp(bin) || statfs(root, &sfs)) {
		ok(0, "cgroup: temporary root");
		return;
	}
	/* The temporary root stands for cgroup2: its own f_type. */
	fs = (struct gt_cgroupfs){ .root = root, .magic = (long)sfs.f_type };
	v2 = (struct gt_cgroupfs){ .root = root, .magic = CGROUP2_SUPER_MAGIC };
	make_dir(root, "system.slice");
	web = make_dir(root, "system.slice/web.service");
	make_dir(root, "custom.slice");
	ctl = make_dir(root, "custom.slice/fromctl.service");
	snprintf(dir, sizeof(dir), "%s/system.slice/web.service", root);
	gt_opts_init(&o);
	ok(!gt_opts_cgroup(&o, "system.slice/web.service", &fs) &&
	   o.cgroup_id == web, "cgroup: relative path, id is the inode");
	o.cgroup_id = 0;
	ok(!gt_opts_cgroup(&o, dir, &fs) && o.cgroup_id == web,
	   "cgroup: absolute path");
	o.cgroup_id = 0;
	ok(gt_opts_cgroup(&o, "system.slice/web.service", &v2) &&
	   !o.cgroup_id, "cgroup: a directory not on cgroup v2 refused");
	ok(!gt_opts_unit(&o, "web", &fs) && o.cgroup_id == web,
	   "unit: NAME is NAME.service under system.slice");
	ok(!gt_opts_unit(&o, "web.service", &fs), "unit: NAME.service");
	ok(gt_opts_cgroup(&o, "nope", &fs) && gt_opts_unit(&o, "a/b", &fs) &&
	   gt_opts_unit(&o, "db", &fs), "cgroup/unit: missing ones refused");

	/* systemctl's ControlGroup where system.slice has no such unit. */
	fake_systemctl(bin);
	snprintf(path, sizeof(path), "%s:%s", bin, getenv("PATH") ?: "");
	setenv("PATH", path, 1);
	o.cgroup_id = 0;
	ok(!gt_opts_unit(&o, "fromctl", &fs) && o.cgroup_id == ctl,
	   "unit: systemctl's ControlGroup when system.slice has none");
	ok(gt_opts_unit(&o, "other", &fs),
	   "unit: refused when systemctl fails too");
	snprintf(path, sizeof(path), "%s", getenv("PATH") + strlen(bin) + 1);
	setenv("PATH", path, 1);

	if (!statfs(gt_cgroupfs.root, &sfs) &&
	    (long)sfs.f_type == gt_cgroupfs.magic) {
		gt_opts_init(&o);
		ok(!gt_opts_cgroup(&o, "/", &gt_cgroupfs) && o.cgroup_id,
		   "cgroup: the real cgroup2 root is accepted");
	} else {
		diag("cgroup: %s is not cgroup2 here: real root not tried",
		     gt_cgroupfs.root);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", root, bin);
	if (system(cmd))
		diag("cannot remove %s and %s", root, bin);
}

static void test_syscalls(void)
{
	struct gotrace_options o;

	gt_opts_init(&o);
	ok(!gt_opts_syscalls(&o, "blocking") &&
	   o.syscalls == GOTRACE_SYSCALLS_BLOCKING &&
	   !gt_opts_syscalls(&o, "none") && o.syscalls == GOTRACE_SYSCALLS_NONE &&
	   !gt_opts_syscalls(&o, "all") && o.syscalls == GOTRACE_SYSCALLS_ALL,
	   "syscalls: all, blocking, none");
	ok(gt_opts_syscalls(&o, "some") == -1, "syscalls: other modes refused");
	ok(gt_syscall_nr("read") == 0 && gt_syscall_nr("sys_write") == 1 &&
	   gt_syscall_nr("getppid") == 110 && gt_syscall_nr("nope") == -1,
	   "syscall numbers by name, with or without sys_");
	ok(!gt_opts_syscall_filter(&o, "read,sys_write") &&
	   o.syscall_set_mode == GOTRACE_SET_INCLUDE && bit(&o, 0) &&
	   bit(&o, 1) && !bit(&o, 110), "syscall filter: names to keep");
	ok(!gt_opts_syscall_filter(&o, "!getppid") &&
	   o.syscall_set_mode == GOTRACE_SET_EXCLUDE && bit(&o, 110) &&
	   !bit(&o, 0), "syscall filter: !names to leave out");
	ok(gt_opts_syscall_filter(&o, "read,!write") &&
	   gt_opts_syscall_filter(&o, "nosuchcall") &&
	   gt_opts_syscall_filter(&o, ","), "syscall filter: mixed, unknown, empty refused");
}

static void test_buffer_size(void)
{
	struct gotrace_options o;

	gt_opts_init(&o);
	ok(!gt_opts_buffer_size(&o, "64M") && o.chunks == 1024,
	   "buffer size: 64M is 1024 chunks");
	ok(!gt_opts_buffer_size(&o, "100K") && o.chunks == 2,
	   "buffer size: rounded up to 64 KiB");
	ok(!gt_opts_buffer_size(&o, "1G") && o.chunks == 16384,
	   "buffer size: 1G is the most");
	ok(gt_opts_buffer_size(&o, "2G") && gt_opts_buffer_size(&o, "0") &&
	   gt_opts_buffer_size(&o, "12Q") && gt_opts_buffer_size(&o, "M"),
	   "buffer size: too big, zero and junk refused");
}

static void test_interrupts(void)
{
	const unsigned int all = GOTRACE_OPT_HARDIRQS | GOTRACE_OPT_SOFTIRQS |
			GOTRACE_OPT_WORKQUEUE;
	struct gotrace_options o;

	gt_opts_init(&o);
	o.flags = GOTRACE_OPT_TGID;
	ok(!gt_opts_interrupts(&o, "softirq,workqueue") &&
	   o.flags == (GOTRACE_OPT_TGID | GOTRACE_OPT_SOFTIRQS |
		       GOTRACE_OPT_WORKQUEUE),
	   "interrupts: the kinds named, other flags kept");
	ok(!gt_opts_interrupts(&o, "hardirq") &&
	   o.flags == (GOTRACE_OPT_TGID | GOTRACE_OPT_HARDIRQS),
	   "interrupts: a second list replaces the first");
	ok(!gt_opts_interrupts(&o, "all") && (o.flags & all) == all,
	   "interrupts: all");
	ok(!gt_opts_interrupts(&o, "none") && o.flags == GOTRACE_OPT_TGID,
	   "interrupts: none");
	ok(gt_opts_interrupts(&o, "hardirq,irq") &&
	   gt_opts_interrupts(&o, "") && gt_opts_interrupts(&o, "softirq,") &&
	   o.flags == GOTRACE_OPT_TGID,
	   "interrupts: unknown and empty kinds refused, nothing changed");
}

static void test_cpu_hz(void)
{
	struct gotrace_options o;

	gt_opts_init(&o);
	ok(!gt_opts_cpu_hz(&o, NULL) && o.cpu_hz == GT_CPU_HZ_DEFAULT,
	   "cpu hz: --cpu-hz alone is 99 Hz");
	ok(!gt_opts_cpu_hz(&o, "999") && o.cpu_hz == 999,
	   "cpu hz: 999 is the most");
	ok(!gt_opts_cpu_hz(&o, "1") && o.cpu_hz == 1, "cpu hz: 1 is the least");
	ok(gt_opts_cpu_hz(&o, "1000") && gt_opts_cpu_hz(&o, "0") &&
	   gt_opts_cpu_hz(&o, "-5") && gt_opts_cpu_hz(&o, "99x") &&
	   gt_opts_cpu_hz(&o, "") && o.cpu_hz == 1,
	   "cpu hz: too high, zero, negative and junk refused, the rate kept");
}

/* Write @val (and a newline, as sysfs does) to @dir/@name. */
static void put_param(const char *dir, const char *name, const char *val)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", val);
		fclose(f);
	}
}

static void drop_param(const char *dir, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

static void test_module_defaults(void)
{
	char dir[] = "/tmp/gt_params_XXXXXX";
	struct gotrace_options o;

	if (!mkdtemp(dir)) {
		ok(0, "module defaults: temporary directory");
		return;
	}
	gt_opts_init(&o);
	gt_opts_module_defaults(&o, dir);
	ok(o.syscalls == GOTRACE_SYSCALLS_ALL && !o.flags &&
	   o.format == GOTRACE_FORMAT_DEFAULT,
	   "module defaults: no parameters, the options' own defaults");
	put_param(dir, "syscalls", "none");
	put_param(dir, "kstacks", "N");
	gt_opts_init(&o);
	gt_opts_module_defaults(&o, dir);
	ok(o.syscalls == GOTRACE_SYSCALLS_NONE &&
	   o.flags == GOTRACE_OPT_NO_KSTACKS,
	   "module defaults: syscalls=none kstacks=N");
	put_param(dir, "syscalls", "blocking");
	put_param(dir, "kstacks", "Y");
	gt_opts_init(&o);
	gt_opts_module_defaults(&o, dir);
	ok(o.syscalls == GOTRACE_SYSCALLS_BLOCKING && !o.flags,
	   "module defaults: syscalls=blocking kstacks=Y");
	ok(!gt_opts_syscalls(&o, "all") && o.syscalls == GOTRACE_SYSCALLS_ALL,
	   "module defaults: an option given still wins");
	put_param(dir, "wake_kstacks", "N");
	gt_opts_init(&o);
	gt_opts_module_defaults(&o, dir);
	ok(o.flags == GOTRACE_OPT_NO_WAKE_KSTACKS,
	   "module defaults: wake_kstacks=N");
	drop_param(dir, "wake_kstacks");
	put_param(dir, "format", "go1.11");
	gt_opts_init(&o);
	gt_opts_module_defaults(&o, dir);
	ok(o.format == GOTRACE_FORMAT_GO111, "module defaults: format=go1.11");
	put_param(dir, "format", "go1.23");
	gt_opts_init(&o);
	gt_opts_module_defaults(&o, dir);
	ok(o.format == GOTRACE_FORMAT_GO123, "module defaults: format=go1.23");
	put_param(dir, "cpu_hz", "999");
	gt_opts_init(&o);
	gt_opts_module_defaults(&o, dir);
	ok(o.cpu_hz == 999, "module defaults: cpu_hz=999");
	put_param(dir, "cpu_hz", "0");
	gt_opts_init(&o);
	gt_opts_module_defaults(&o, dir);
	ok(!o.cpu_hz, "module defaults: cpu_hz=0, no samples");
	put_param(dir, "sample_isolated", "Y");
	gt_opts_init(&o);
	gt_opts_module_defaults(&o, dir);
	ok(o.flags == GOTRACE_OPT_CPU_ISOLATED,
	   "module defaults: sample_isolated=Y, the isolated CPUs sampled");
	put_param(dir, "sample_isolated", "N");
	gt_opts_init(&o);
	gt_opts_module_defaults(&o, dir);
	ok(!o.flags, "module defaults: sample_isolated=N");
	drop_param(dir, "sample_isolated");
	drop_param(dir, "cpu_hz");
	drop_param(dir, "syscalls");
	drop_param(dir, "kstacks");
	drop_param(dir, "format");
	rmdir(dir);
}

int main(void)
{
	test_pids();
	test_comm();
	test_cgroup();
	test_syscalls();
	test_buffer_size();
	test_interrupts();
	test_cpu_hz();
	test_module_defaults();
	diag("options parsed into struct gotrace_options (%zu bytes)",
	     sizeof(struct gotrace_options));
	return tap_done();
}
