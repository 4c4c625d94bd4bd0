// SPDX-License-Identifier: GPL-2.0
/*
 * device.c - /dev/gotrace from userspace: open with clear errors, ioctls,
 * names of states and stop reasons
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "device.h"
#include "util.h"

const char *gt_dev_open_hint(int err, int flags)
{
	switch (err) {
	case EBUSY:
		return "another reader is recording (see 'gotrace status')";
	case EPERM:
	case EACCES:
		return "needs root (CAP_SYS_ADMIN or CAP_PERFMON)";
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return (flags & O_ACCMODE) == O_RDONLY ?
			"gotrace.ko is not loaded (modprobe gotrace)" :
			"gotrace.ko is not loaded";
	default:
		return NULL;
	}
}

int gt_dev_open(const char *path, int flags)
{
	const char *hint;
	int fd, err;

	if (!path)
		path = GOTRACE_DEVICE_PATH;
	do {
		fd = open(path, flags | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd >= 0)
		return fd;
	err = errno;
	hint = gt_dev_open_hint(err, flags);
	if (hint)
		gt_err("%s: %s: %s", path, strerror(err), hint);
	else
		gt_err("cannot open %s: %s", path, strerror(err));
	return -err;
}

int gt_dev_stop(int fd)
{
	return ioctl(fd, GOTRACE_IOC_STOP) ? -errno : 0;
}

int gt_dev_snapshot(int fd)
{
	return ioctl(fd, GOTRACE_IOC_SNAPSHOT) ? -errno : 0;
}

int gt_dev_snapshot_info(int fd, struct gotrace_snapshot *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, GOTRACE_IOC_GET_SNAPSHOT, info) ? -errno : 0;
}

int gt_dev_status(int fd, struct gotrace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(fd, GOTRACE_IOC_GET_STATUS, st) ? -errno : 0;
}

int gt_dev_cpu_status(int fd, unsigned int cpu, struct gotrace_cpu_status *cs)
{
	memset(cs, 0, sizeof(*cs));
	cs->size = sizeof(*cs);
	cs->cpu = cpu;
	return ioctl(fd, GOTRACE_IOC_GET_CPU_STATUS, cs) ? -errno : 0;
}

const char *gt_dev_strerror(int err)
{
	/*
	 * Every ioctl of /dev/gotrace knows its type: a module that does
	 * not know any is of another ABI version (version 1 used another
	 * type), or the path is no gotrace device at all.
	 */
	if (err == ENOTTY)
		return "the module does not know this command's ioctls: load the gotrace.ko of this gotrace's version (ABI version "
		       GT_STR(GOTRACE_ABI_VERSION) ")";
	return strerror(err);
}

const char *gt_state_name(unsigned int state)
{
	switch (state) {
	case GOTRACE_STATE_IDLE:	return "idle";
	case GOTRACE_STATE_RECORDING:	return "recording";
	case GOTRACE_STATE_STOPPED:	return "stopped";
	case GOTRACE_STATE_DONE:	return "done";
	case GOTRACE_STATE_READY:	return "ready (starts at the first read)";
	default:			return "unknown";
	}
}

const char *gt_stop_reason_name(unsigned int reason)
{
	switch (reason) {
	case GOTRACE_STOP_NONE:		return "none";
	case GOTRACE_STOP_USER:		return "user";
	case GOTRACE_STOP_DURATION:	return "duration";
	case GOTRACE_STOP_OVERFLOW:	return "overflow";
	case GOTRACE_STOP_ABORT:	return "abort";
	default:			return "unknown";
	}
}
