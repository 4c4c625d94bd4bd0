/* SPDX-License-Identifier: GPL-2.0 */
/*
 * device.h - /dev/gotrace from userspace: open with clear errors, ioctls,
 * names of states and stop reasons
 */
#ifndef GOTRACE_DEVICE_H
#define GOTRACE_DEVICE_H

#include <stddef.h>

#include <linux/gotrace.h>

/*
 * Open @path (NULL: GOTRACE_DEVICE_PATH) with @flags (O_RDONLY starts a
 * session, O_WRONLY is a control handle).  On failure prints one line
 * that says what to do about it and returns -errno.
 */
int gt_dev_open(const char *path, int flags);

/* The one-line hint for an errno of open(); NULL if none applies. */
const char *gt_dev_open_hint(int err, int flags);

/*
 * GOTRACE_IOC_STOP / GOTRACE_IOC_GET_STATUS / GOTRACE_IOC_GET_CPU_STATUS
 * (of @cpu): 0 or -errno.
 */
int gt_dev_stop(int fd);
/* GOTRACE_IOC_SNAPSHOT / GOTRACE_IOC_GET_SNAPSHOT: 0 or -errno. */
int gt_dev_snapshot(int fd);
int gt_dev_snapshot_info(int fd, struct gotrace_snapshot *info);
int gt_dev_status(int fd, struct gotrace_status *st);
int gt_dev_cpu_status(int fd, unsigned int cpu, struct gotrace_cpu_status *cs);

/*
 * The user stacks' counters of @st as the summaries and gotrace status
 * show them after "user stacks: ", snprintf()'s return: the walks and
 * why they ended early, "W walked, truncated: ...", alike for both
 * backends; with the module's "; unnamed: ..." after them, and its
 * unwind tables' misses where there were any.
 */
int gt_ustack_walked(const struct gotrace_status *st, char *buf, size_t len);
int gt_dev_ustack_line(const struct gotrace_status *st, char *buf,
		       size_t len);

/*
 * strerror() of an ioctl's errno, but for ENOTTY, which says that the
 * module speaks another ABI version than this command.
 */
const char *gt_dev_strerror(int err);

#define GT_STR_(x)	#x
#define GT_STR(x)	GT_STR_(x)

/*
 * The names of the ABI's lists (GOTRACE_STATE_NAMES...), as the status
 * directory shows them: "idle", "recording" ...; "none", "user" ...;
 * "unknown" for values the ABI does not name.
 */
const char *gt_state_name(unsigned int state);
const char *gt_stop_reason_name(unsigned int reason);
/* "go1.11", "go1.23"; NULL for 0 (not started) or a value not named. */
const char *gt_format_name(unsigned int format);

#endif /* GOTRACE_DEVICE_H */
