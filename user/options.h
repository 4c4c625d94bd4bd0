/* SPDX-License-Identifier: GPL-2.0 */
/*
 * options.h - what `gotrace record` asks the module to record: the
 * command-line forms of struct gotrace_options (include/uapi).
 *
 * Each parser fills its part of @o and returns 0, or -1 after saying on
 * stderr what is wrong with the argument.
 */
#ifndef GOTRACE_OPTIONS_H
#define GOTRACE_OPTIONS_H

#include <linux/gotrace.h>

/*
 * Where cgroups are: the root of the hierarchy, where relative --cgroup
 * paths start, and the statfs() f_type a cgroup directory must have
 * (CGROUP2_SUPER_MAGIC: the module filters on cgroup v2 ids only).
 * Tests point both elsewhere.
 */
struct gt_cgroupfs {
	const char *root;
	long magic;
};

/* /sys/fs/cgroup, cgroup v2. */
extern const struct gt_cgroupfs gt_cgroupfs;

/* Root of the module's parameters in sysfs. */
#define GT_PARAM_DIR	"/sys/module/gotrace/parameters"

void gt_opts_init(struct gotrace_options *o);
/*
 * Start from the module's defaults, its "syscalls", "kstacks",
 * "wake_kstacks" and "format" parameters under @dir, so that options sent for a filter do
 * not undo how the module was loaded, and the BPF backend records as
 * the module would.  Parameters that cannot be read (an older module,
 * none loaded) keep the options' own defaults (format: the BPF backend
 * writes go1.23, the module its own default).
 */
void gt_opts_module_defaults(struct gotrace_options *o, const char *dir);
/* "1234,5678": processes (threads with @tids). */
int gt_opts_pids(struct gotrace_options *o, const char *list, bool tids);
int gt_opts_comm(struct gotrace_options *o, const char *comm);
/*
 * A cgroup v2 directory, absolute or under @fs->root: its inode number
 * is the cgroup's id.  A directory on another file system (cgroup v1,
 * a typo under /tmp) is refused.
 */
int gt_opts_cgroup(struct gotrace_options *o, const char *path,
		   const struct gt_cgroupfs *fs);
/*
 * "name" or "name.service": system.slice/name.service under @root, else
 * where 'systemctl show -p ControlGroup --value' puts it (if systemctl
 * exists).
 */
int gt_opts_unit(struct gotrace_options *o, const char *unit,
		 const struct gt_cgroupfs *fs);
/* "all", "blocking" or "none". */
int gt_opts_syscalls(struct gotrace_options *o, const char *mode);
/* "read,write" (only these) or "!getppid,!read" (all but these). */
int gt_opts_syscall_filter(struct gotrace_options *o, const char *list);
/* "64M", "512K", "1G", or bytes: rounded up to 64 KiB chunks. */
int gt_opts_buffer_size(struct gotrace_options *o, const char *size);
/*
 * --interrupts: "hardirq,softirq,workqueue" (any of them), "all" or
 * "none", replacing @o's interrupt kinds (Documentation/interrupts.rst).
 */
int gt_opts_interrupts(struct gotrace_options *o, const char *list);

/* --cpu-hz without a rate: perf's default, off the timer tick's beat. */
#define GT_CPU_HZ_DEFAULT	99
/* --cpu-hz[=N]: @arg NULL for the default.  0, or -1 with a message. */
int gt_opts_cpu_hz(struct gotrace_options *o, const char *arg);
/*
 * The number of syscall @name ("read" or "sys_read"), native to the
 * architecture the command is built for (its syscall_table.h), or -1.
 */
int gt_syscall_nr(const char *name);
/* The name of native syscall @nr on this machine, or NULL. */
const char *gt_syscall_name(unsigned int nr);

#endif /* GOTRACE_OPTIONS_H */
