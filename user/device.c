// SPDX-License-Identifier: GPL-2.0
/*
 * device.c - /dev/gotrace from userspace: open with clear errors, ioctls,
 * names of states and stop reasons
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
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

int gt_ustack_walked(const struct gotrace_status *st, char *buf, size_t len)
{
	return snprintf(buf, len, "%" PRIu64 " walked, truncated: bad frame pointer %"
			PRIu64 ", fault %" PRIu64 ", depth limit %" PRIu64
			", no unwind table %" PRIu64 ", no unwind rule %" PRIu64
			", signal frame %" PRIu64 ", bad unwind step %" PRIu64,
			(uint64_t)st->ustack_walks, (uint64_t)st->ustack_bad_fp,
			(uint64_t)st->ustack_faults, (uint64_t)st->ustack_depth,
			(uint64_t)st->ustack_no_table,
			(uint64_t)st->ustack_no_rule,
			(uint64_t)st->ustack_signal,
			(uint64_t)st->ustack_bad_cfa);
}

int gt_dev_ustack_line(const struct gotrace_status *st, char *buf,
		       size_t len)
{
	int n = gt_ustack_walked(st, buf, len), more;

	if (n < 0 || (size_t)n >= len)
		return n;
	more = snprintf(buf + n, len - (size_t)n, "; unnamed: queue full %"
			PRIu64 ", maps full %" PRIu64 ", mm busy %" PRIu64,
			(uint64_t)st->ustack_queue_full,
			(uint64_t)st->ustack_map_full,
			(uint64_t)st->ustack_mm_busy);
	if (more < 0 || (size_t)(n += more) >= len)
		return n;
	/* Only with the unwind tables (GOTRACE_IOC_UNWIND_MISSES). */
	if (!st->unwind_misses && !st->unwind_misses_lost &&
	    !st->unwind_space_races)
		return n;
	return n + snprintf(buf + n, len - (size_t)n, "; unwind: %" PRIu64
			    " misses (%" PRIu64 " lost), %" PRIu64
			    " space races", (uint64_t)st->unwind_misses,
			    (uint64_t)st->unwind_misses_lost,
			    (uint64_t)st->unwind_space_races);
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

/*
 * The names the status directory shows, from the ABI's lists
 * (linux/gotrace_fields.h): the module and the command name alike.
 */
#define NAME_ENTRY(value, name)	[value] = name,
static const char *const state_names[] = {
#define GOTRACE_STATE_NAME NAME_ENTRY
#include <linux/gotrace_fields.h>
#undef GOTRACE_STATE_NAME
};
static const char *const stop_names[] = {
#define GOTRACE_STOP_NAME NAME_ENTRY
#include <linux/gotrace_fields.h>
#undef GOTRACE_STOP_NAME
};
static const char *const format_names[] = {
#define GOTRACE_FORMAT_NAME NAME_ENTRY
#include <linux/gotrace_fields.h>
#undef GOTRACE_FORMAT_NAME
};

static const char *name_of(const char *const *names, size_t n,
			   unsigned int v)
{
	return v < n && names[v] ? names[v] : NULL;
}

#define NAME_OF(names, v)	name_of(names, sizeof(names) / sizeof(names[0]), v)

const char *gt_state_name(unsigned int state)
{
	const char *name = NAME_OF(state_names, state);

	return name ? name : "unknown";
}

const char *gt_stop_reason_name(unsigned int reason)
{
	const char *name = NAME_OF(stop_names, reason);

	return name ? name : "unknown";
}

const char *gt_format_name(unsigned int format)
{
	return NAME_OF(format_names, format);
}

/*
 * Each list of fields and its struct agree: same names, order and
 * sizes.  Checked here, where the compiler is the command's: the module
 * builds from the same two files.
 */
#define MIRROR_FIELD(show, bits, name)	__u##bits name;
#define MIRROR_CHECK(s, name)						\
	_Static_assert(offsetof(struct s##_mirror, name) ==		\
		       offsetof(struct s, name) &&			\
		       sizeof(((struct s##_mirror *)0)->name) ==		\
		       sizeof(((struct s *)0)->name), #s "." #name);

struct gotrace_status_mirror {
	__u32 size;
	__u32 version;
#define GOTRACE_STATUS_FIELD MIRROR_FIELD
#include <linux/gotrace_fields.h>
#undef GOTRACE_STATUS_FIELD
};
#define STATUS_CHECK(show, bits, name)	MIRROR_CHECK(gotrace_status, name)
#define GOTRACE_STATUS_FIELD STATUS_CHECK
#include <linux/gotrace_fields.h>
#undef GOTRACE_STATUS_FIELD
_Static_assert(sizeof(struct gotrace_status_mirror) ==
	       sizeof(struct gotrace_status),
	       "gotrace_fields.h lists every field of struct gotrace_status");

struct gotrace_cpu_status_mirror {
	__u32 size;
	__u32 cpu;
#define GOTRACE_CPU_STATUS_FIELD MIRROR_FIELD
#include <linux/gotrace_fields.h>
#undef GOTRACE_CPU_STATUS_FIELD
};
#define CPU_STATUS_CHECK(show, bits, name)	MIRROR_CHECK(gotrace_cpu_status, name)
#define GOTRACE_CPU_STATUS_FIELD CPU_STATUS_CHECK
#include <linux/gotrace_fields.h>
#undef GOTRACE_CPU_STATUS_FIELD
_Static_assert(sizeof(struct gotrace_cpu_status_mirror) ==
	       sizeof(struct gotrace_cpu_status),
	       "gotrace_fields.h lists every field of struct gotrace_cpu_status");
