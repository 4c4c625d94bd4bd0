// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - gotrace: the machine's scheduler as a Go execution trace
 *
 * Loads the module: checks that every tracepoint it needs exists and
 * registers /dev/gotrace.  Nothing is attached until a reader opens the
 * device.  Documentation/ has the theory (gotrace.rst: the device contract;
 * mapping.rst: the Linux -> Go mapping).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "gotrace.h"

unsigned int gt_param_duration_ms;
module_param_named(duration_ms, gt_param_duration_ms, uint, 0644);
MODULE_PARM_DESC(duration_ms,
		 "Stop a session after this many ms (0: until stopped)");

unsigned int gt_param_chunks;

/* Beyond, the pool and a go1.23 CPU's share of it would not be allocated. */
static int gt_chunks_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, GT_CHUNKS_MAX);
}

static const struct kernel_param_ops gt_chunks_ops = {
	.set = gt_chunks_set,
	.get = param_get_uint,
};

module_param_cb(chunks, &gt_chunks_ops, &gt_param_chunks, 0644);
MODULE_PARM_DESC(chunks,
		 "64 KiB chunks per session (0: 8 per online CPU, at least 32; at most 16384)");

unsigned int gt_param_max_tasks;

/* Beyond, the task table would pass what kvcalloc() allocates. */
static int gt_max_tasks_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, GT_TASKS_MAX);
}

static const struct kernel_param_ops gt_max_tasks_ops = {
	.set = gt_max_tasks_set,
	.get = param_get_uint,
};

module_param_cb(max_tasks, &gt_max_tasks_ops, &gt_param_max_tasks, 0644);
MODULE_PARM_DESC(max_tasks,
		 "Tasks a session can follow (0: twice the tasks at start, at least 16384; at most 4194304)");

unsigned int gt_param_max_stacks = 65536;

static int gt_max_stacks_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, GT_STACKS_MIN, GT_STACKS_MAX);
}

static const struct kernel_param_ops gt_max_stacks_ops = {
	.set = gt_max_stacks_set,
	.get = param_get_uint,
};

module_param_cb(max_stacks, &gt_max_stacks_ops, &gt_param_max_stacks, 0644);
MODULE_PARM_DESC(max_stacks,
		 "Distinct stacks a session can record (64 to 4194304)");

unsigned int gt_param_flush_ms = 500;
module_param_named(flush_ms, gt_param_flush_ms, uint, 0644);
MODULE_PARM_DESC(flush_ms,
		 "Hand partly filled chunks to the reader after this many ms");

bool gt_param_kstacks = true;
module_param_named(kstacks, gt_param_kstacks, bool, 0644);
MODULE_PARM_DESC(kstacks,
		 "Record kernel stacks unless a session's options say otherwise");

bool gt_param_wake_kstacks = true;
module_param_named(wake_kstacks, gt_param_wake_kstacks, bool, 0644);
MODULE_PARM_DESC(wake_kstacks,
		 "Record wakeups' kernel stacks (with kstacks) unless a session's options say otherwise");

/*
 * Off by default: measured, the walk at every syscall entry, block and
 * wakeup costs up to twice the added cost of a syscall-heavy load, and
 * on a stock Debian system most walks stop after the first frame
 * (Documentation/user-stacks.rst, "What user stacks cost, and the
 * default").
 */
bool gt_param_user_stacks;
module_param_named(user_stacks, gt_param_user_stacks, bool, 0644);
MODULE_PARM_DESC(user_stacks,
		 "Record user stacks (frame pointers) unless a session's options say otherwise");

unsigned int gt_param_syscalls = GOTRACE_SYSCALLS_ALL;

/* Indexed by GOTRACE_SYSCALLS_*. */
static const char * const gt_syscall_modes[] = { "all", "blocking", "none" };

static int gt_syscalls_set(const char *val, const struct kernel_param *kp)
{
	int mode = sysfs_match_string(gt_syscall_modes, val);

	if (mode < 0)
		return -EINVAL;
	WRITE_ONCE(gt_param_syscalls, mode);
	return 0;
}

static int gt_syscalls_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  gt_syscall_modes[READ_ONCE(gt_param_syscalls)]);
}

static const struct kernel_param_ops gt_syscalls_ops = {
	.set = gt_syscalls_set,
	.get = gt_syscalls_get,
};

module_param_cb(syscalls, &gt_syscalls_ops, NULL, 0644);
MODULE_PARM_DESC(syscalls,
		 "Syscalls a session records unless told otherwise: all, blocking or none");

unsigned int gt_param_format = GOTRACE_FORMAT_GO123;

/* Indexed by GOTRACE_FORMAT_* (the default is never stored). */
static const char * const gt_formats[] = { "", "go1.11", "go1.23" };

static int gt_format_set(const char *val, const struct kernel_param *kp)
{
	int format = sysfs_match_string(gt_formats, val);

	if (format <= GOTRACE_FORMAT_DEFAULT)
		return -EINVAL;
	WRITE_ONCE(gt_param_format, format);
	return 0;
}

static int gt_format_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", gt_formats[READ_ONCE(gt_param_format)]);
}

static const struct kernel_param_ops gt_format_ops = {
	.set = gt_format_set,
	.get = gt_format_get,
};

module_param_cb(format, &gt_format_ops, NULL, 0644);
MODULE_PARM_DESC(format,
		 "Trace format of a session unless its options say otherwise: go1.23 (the default) or go1.11");

unsigned int gt_param_generation_ms = 1000;

static int gt_generation_ms_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, GT_GENERATION_MS_MIN,
				     GT_GENERATION_MS_MAX);
}

static const struct kernel_param_ops gt_generation_ms_ops = {
	.set = gt_generation_ms_set,
	.get = param_get_uint,
};

module_param_cb(generation_ms, &gt_generation_ms_ops, &gt_param_generation_ms,
		0644);
MODULE_PARM_DESC(generation_ms,
		 "go1.23 format: longest generation, in ms (10 to 60000; sooner when a CPU's buffer is half full or the tables 3/4 full)");

bool gt_param_sample_isolated;
module_param_named(sample_isolated, gt_param_sample_isolated, bool, 0644);
MODULE_PARM_DESC(sample_isolated,
		 "CPU samples on the isolated CPUs too (isolcpus=, nohz_full=) unless a session's options say otherwise (default: N, housekeeping CPUs only)");

unsigned int gt_param_cpu_hz;

static int gt_cpu_hz_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, GOTRACE_CPU_HZ_MAX);
}

static const struct kernel_param_ops gt_cpu_hz_ops = {
	.set = gt_cpu_hz_set,
	.get = param_get_uint,
};

module_param_cb(cpu_hz, &gt_cpu_hz_ops, &gt_param_cpu_hz, 0644);
MODULE_PARM_DESC(cpu_hz,
		 "go1.23 format: CPU samples a second on every CPU unless a session's options say otherwise (0: none, the default; at most 999)");

static int __init gt_init(void)
{
	int ret;

	ret = gt_probes_check();
	if (ret)
		return ret;
	ret = gt_dev_init();
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", GOTRACE_DEVICE_NAME,
		       ret);
		return ret;
	}
	return 0;
}

static void __exit gt_exit(void)
{
	gt_dev_exit();
}

module_init(gt_init);
module_exit(gt_exit);

MODULE_DESCRIPTION("Record the scheduler as a Go execution trace");
MODULE_AUTHOR("gotrace developers");
MODULE_LICENSE("GPL");
