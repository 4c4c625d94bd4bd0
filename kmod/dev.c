// SPDX-License-Identifier: GPL-2.0
/*
 * dev.c - /dev/gotrace: open, read, write, poll, ioctl
 *
 * Opening for reading starts a session; only one reader at a time (a
 * second gets -EBUSY).  Opening for writing only gives a control handle:
 * it never starts a session, and "stop" written to it, or the
 * GOTRACE_IOC_STOP ioctl, stops the reader's session.  Every open needs
 * CAP_PERFMON or CAP_SYS_ADMIN, whatever the node's mode says: the trace
 * shows every task of the machine; and it is refused where the kernel is
 * locked down for confidentiality, as tracefs is.
 *
 * Context: process context, may sleep.
 * Locking:
 *   gt_dev_lock guards changes of gt_dev_session; session locks nest
 *   inside it.  The CPU hotplug callbacks read it under RCU instead: they
 *   run with cpu_hotplug_lock held, which registering probes takes too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpuhotplug.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/nsfs.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <uapi/linux/remoteproc_cdev.h>

#include "gotrace.h"

/*
 * The type of the ioctls is no other's: a stop used to be nsfs's
 * NS_GET_USERNS bit for bit, so an nsfs ioctl on our handle by mistake
 * stopped the session, and strace named every stop after nsfs.
 */
static_assert(_IOC_TYPE(NS_GET_USERNS) != GOTRACE_IOC_MAGIC);
static_assert(_IOC_TYPE(RPROC_GET_SHUTDOWN_ON_RELEASE) != GOTRACE_IOC_MAGIC);

/* Largest structure a caller may say it has: a page, as sched_setattr(). */
#define GT_USIZE_MAX	PAGE_SIZE

/*
 * gt_copy_struct_in() - a structure that grows from the caller
 * @dst:	the module's structure
 * @ksize:	its size
 * @minsize:	the size of its first version
 * @src:	the caller's, which starts with its __u32 size
 *
 * An older caller's smaller structure reads as if its missing fields
 * were zero; a newer caller's larger one is taken if the fields the
 * module does not know are zero.
 *
 * Return: 0, -EINVAL below @minsize, -E2BIG above a page or for unknown
 * non-zero fields, -EFAULT.
 */
static int gt_copy_struct_in(void *dst, size_t ksize, size_t minsize,
			     const void __user *src)
{
	u32 usize;
	int ret;

	if (get_user(usize, (const u32 __user *)src))
		return -EFAULT;
	if (usize < minsize)
		return -EINVAL;
	if (usize > GT_USIZE_MAX)
		return -E2BIG;
	ret = copy_struct_from_user(dst, ksize, src, usize);
	if (ret)
		return ret;
	*(u32 *)dst = ksize;
	return 0;
}

/*
 * gt_struct_usize() - the size the caller gives a structure it reads
 * @src:	the caller's structure, which starts with its __u32 size
 * @minsize:	the size of the structure's first version
 * @usize:	set to the caller's size
 *
 * Return: 0, -EINVAL below @minsize, -E2BIG above a page, -EFAULT.
 */
static int gt_struct_usize(const void __user *src, size_t minsize, u32 *usize)
{
	if (get_user(*usize, (const u32 __user *)src))
		return -EFAULT;
	if (*usize < minsize)
		return -EINVAL;
	return *usize > GT_USIZE_MAX ? -E2BIG : 0;
}

/*
 * gt_copy_struct_out() - a structure that grows to the caller
 * @dst:	the caller's structure
 * @usize:	its size (gt_struct_usize())
 * @src:	the module's, whose first __u32 becomes the bytes written
 * @ksize:	its size
 *
 * Writes what both know; zeroes the caller's fields the module does not
 * have.  Return: 0 or -EFAULT.
 */
static int gt_copy_struct_out(void __user *dst, u32 usize, void *src,
			      size_t ksize)
{
	size_t n = min_t(size_t, usize, ksize);

	*(u32 *)src = n;
	if (copy_to_user(dst, src, n))
		return -EFAULT;
	if (usize > n && clear_user(dst + n, usize - n))
		return -EFAULT;
	return 0;
}

static DEFINE_MUTEX(gt_dev_lock);
static struct gt_session __rcu *gt_dev_session;	/* the reader's, or NULL */
static enum cpuhp_state gt_dev_cpuhp;

/* The session, for callers holding gt_dev_lock. */
static struct gt_session *gt_dev_get(void)
{
	return rcu_dereference_protected(gt_dev_session,
					 lockdep_is_held(&gt_dev_lock));
}

/* Longest write accepted: "stop" and a newline, with room to spare. */
#define GT_CMD_MAX	16

static int gt_dev_open(struct inode *inode, struct file *file)
{
	struct gt_session *s;
	int ret;

	/* CAP_PERFMON first: capable() logs the denials it sees. */
	if (!perfmon_capable())
		return -EPERM;
	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;
	/* misc_open() left the miscdevice here; ours is the session. */
	file->private_data = NULL;
	ret = stream_open(inode, file);
	if (ret || !(file->f_mode & FMODE_READ))
		return ret;

	mutex_lock(&gt_dev_lock);
	if (gt_dev_get()) {
		ret = -EBUSY;
	} else {
		ret = gt_session_create(&s);
		if (!ret) {
			rcu_assign_pointer(gt_dev_session, s);
			file->private_data = s;
		}
	}
	mutex_unlock(&gt_dev_lock);
	return ret;
}

/*
 * The reader's close ends its session, finished or not, and frees it
 * before returning: once close() returns, no probe of it is attached.
 */
static int gt_dev_release(struct inode *inode, struct file *file)
{
	struct gt_session *s = file->private_data;

	if (!s)
		return 0;
	mutex_lock(&gt_dev_lock);
	RCU_INIT_POINTER(gt_dev_session, NULL);
	synchronize_rcu();	/* hotplug callbacks are done with it */
	gt_session_destroy(s);
	mutex_unlock(&gt_dev_lock);
	return 0;
}

static ssize_t gt_dev_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	struct gt_session *s = file->private_data;

	if (!s)
		return -EBADF;
	return gt_session_read(s, buf, count, file->f_flags & O_NONBLOCK);
}

static __poll_t gt_dev_poll(struct file *file, poll_table *wait)
{
	struct gt_session *s = file->private_data;

	if (!s)
		return EPOLLOUT | EPOLLWRNORM;
	return gt_session_poll(s, file, wait);
}

/* Stop the reader's session; -ENOENT if there is none. */
static int gt_dev_stop(void)
{
	int ret = 0;

	struct gt_session *s;

	mutex_lock(&gt_dev_lock);
	s = gt_dev_get();
	if (s)
		gt_session_stop(s, GOTRACE_STOP_USER);
	else
		ret = -ENOENT;
	mutex_unlock(&gt_dev_lock);
	return ret;
}

static int gt_dev_snapshot(void);

/* The commands: "stop" or "snapshot", optionally followed by a newline. */
static ssize_t gt_dev_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *ppos)
{
	char cmd[GT_CMD_MAX];
	int ret;

	if (!count || count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, buf, count))
		return -EFAULT;
	cmd[count] = '\0';
	if (sysfs_streq(cmd, "stop"))
		ret = gt_dev_stop();
	else if (sysfs_streq(cmd, "snapshot"))
		ret = gt_dev_snapshot();
	else
		return -EINVAL;
	return ret ? ret : count;
}

/* The status now, as GOTRACE_IOC_GET_STATUS gives it (but @size). */
static void gt_dev_status_now(struct gotrace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->version = GOTRACE_ABI_VERSION;
	st->state = GOTRACE_STATE_IDLE;
	st->nr_cpus = gt_session_online_ps();
	mutex_lock(&gt_dev_lock);
	if (gt_dev_get())
		gt_session_status(gt_dev_get(), st);
	mutex_unlock(&gt_dev_lock);
}

static long gt_dev_get_status(void __user *arg)
{
	struct gotrace_status st;
	u32 usize;
	int ret;

	ret = gt_struct_usize(arg, GOTRACE_STATUS_SIZE_VER0, &usize);
	if (ret)
		return ret;
	gt_dev_status_now(&st);
	return gt_copy_struct_out(arg, usize, &st, sizeof(st));
}

static long gt_dev_get_cpu_status(void __user *arg)
{
	struct gotrace_cpu_status st;
	u32 usize, cpu;
	int ret;

	ret = gt_struct_usize(arg, GOTRACE_CPU_STATUS_SIZE_VER0, &usize);
	if (ret)
		return ret;
	if (get_user(cpu, (u32 __user *)arg + 1))
		return -EFAULT;
	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	/* The CPU indexes per-CPU data: no speculation past the check. */
	cpu = array_index_nospec(cpu, nr_cpu_ids);
	if (!cpu_possible(cpu))
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	st.cpu = cpu;
	st.online = cpu_online(cpu);
	mutex_lock(&gt_dev_lock);
	if (gt_dev_get())
		gt_session_cpu_status(gt_dev_get(), &st);
	mutex_unlock(&gt_dev_lock);
	return gt_copy_struct_out(arg, usize, &st, sizeof(st));
}

/*
 * The format a session with options @o will write: flight mode writes
 * go1.23, and 0 is the module's parameter (session_start_locked()).
 */
static u32 gt_options_format(const struct gotrace_options *o)
{
	if (o->format)
		return o->format;
	if (o->flight_ms || o->flight_bytes)
		return GOTRACE_FORMAT_GO123;
	return READ_ONCE(gt_param_format);
}

/*
 * The unwind tables walk user stacks: only with them, and within the
 * limits of their memory (gotrace_unwind.h).
 */
static int gt_options_unwind_check(const struct gotrace_options *o)
{
	if (!(o->flags & GOTRACE_OPT_UNWIND_TABLES))
		return o->unwind_rows || o->unwind_spaces ? -EINVAL : 0;
	if (!(o->flags & GOTRACE_OPT_USER_STACKS) ||
	    (o->unwind_rows &&
	     (o->unwind_rows < GOTRACE_UNWIND_ROWS_MIN ||
	      o->unwind_rows > GOTRACE_UNWIND_ROWS_MAX)) ||
	    (o->unwind_spaces &&
	     (o->unwind_spaces < GOTRACE_UNWIND_SPACES_MIN ||
	      o->unwind_spaces > GOTRACE_UNWIND_SPACES_MAX)))
		return -EINVAL;
	return 0;
}

static int gt_options_check(const struct gotrace_options *o)
{
	unsigned int i;

	if (o->flags & ~(GOTRACE_OPT_TGID | GOTRACE_OPT_CHILDREN |
			 GOTRACE_OPT_NO_KSTACKS |
			 GOTRACE_OPT_NO_WAKE_KSTACKS |
			 GOTRACE_OPT_NO_UNITS | GOTRACE_OPT_USER_STACKS |
			 GOTRACE_OPT_CPU_ISOLATED |
			 GOTRACE_OPT_UNWIND_TABLES | GOTRACE_OPT_HARDIRQS |
			 GOTRACE_OPT_SOFTIRQS | GOTRACE_OPT_WORKQUEUE) ||
	    o->chunks > GT_CHUNKS_MAX || o->syscalls > GOTRACE_SYSCALLS_NONE ||
	    o->syscall_set_mode > GOTRACE_SET_EXCLUDE ||
	    o->nr_pids > GOTRACE_MAX_PIDS ||
	    !memchr(o->comm, '\0', sizeof(o->comm)) ||
	    o->format > GOTRACE_FORMAT_GO123 ||
	    (o->generation_ms &&
	     (o->generation_ms < GT_GENERATION_MS_MIN ||
	      o->generation_ms > GT_GENERATION_MS_MAX)) ||
	    o->cpu_hz > GOTRACE_CPU_HZ_MAX ||
	    (o->cpu_hz && gt_options_format(o) == GOTRACE_FORMAT_GO111) ||
	    o->flight_ms > GOTRACE_FLIGHT_MS_MAX ||
	    (o->flight_bytes &&
	     (o->flight_bytes < GOTRACE_FLIGHT_BYTES_MIN ||
	      o->flight_bytes > GOTRACE_FLIGHT_BYTES_MAX)) ||
	    ((o->flight_ms || o->flight_bytes) &&
	     o->format == GOTRACE_FORMAT_GO111))
		return -EINVAL;
	for (i = 0; i < o->nr_pids; i++)
		if (o->pids[i] <= 0)
			return -EINVAL;
	return gt_options_unwind_check(o);
}

/*
 * gt_pid_to_init_ns() - a pid of the caller's pid namespace as the probes
 * see it: task->pid and task->tgid are the initial namespace's numbers,
 * read in atomic context, where no namespace can be looked at.
 *
 * Return: that number, 0 where the caller's namespace has no such pid.
 */
static pid_t gt_pid_to_init_ns(pid_t nr)
{
	pid_t init_nr;

	rcu_read_lock();
	init_nr = pid_nr(find_vpid(nr));
	rcu_read_unlock();
	return init_nr;
}

/*
 * gt_pid_from_init_ns() - a pid of the probes as the caller sees it
 *
 * Return: its number in the caller's pid namespace, 0 where that cannot
 * see it; in the initial namespace the number as it is, even if its
 * task has exited since.
 */
pid_t gt_pid_from_init_ns(pid_t nr)
{
	pid_t vnr;

	if (!nr || task_active_pid_ns(current) == &init_pid_ns)
		return nr;
	rcu_read_lock();
	vnr = pid_vnr(find_pid_ns(nr, &init_pid_ns));
	rcu_read_unlock();
	return vnr;
}

/* The pid filter in the probes' numbers; -ESRCH for an unknown pid. */
static int gt_options_pids_to_init_ns(struct gotrace_options *o)
{
	unsigned int i;

	for (i = 0; i < o->nr_pids; i++) {
		o->pids[i] = gt_pid_to_init_ns(o->pids[i]);
		if (!o->pids[i])
			return -ESRCH;
	}
	return 0;
}

/* Options go to the reader's own session, before it starts. */
static long gt_dev_set_options(struct file *file, void __user *arg)
{
	struct gt_session *s = file->private_data;
	struct gotrace_options *o;
	long ret;

	if (!s)
		return -EBADF;
	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	ret = gt_copy_struct_in(o, sizeof(*o), GOTRACE_OPTIONS_SIZE_VER0, arg);
	if (!ret)
		ret = gt_options_check(o);
	if (!ret)
		ret = gt_options_pids_to_init_ns(o);
	if (!ret)
		ret = gt_session_set_options(s, o);
	kfree(o);
	return ret;
}

static int gt_trigger_check(const struct gotrace_trigger *t)
{
	if (t->type > GOTRACE_TRIGGER_SYSCALL ||
	    (t->type == GOTRACE_TRIGGER_SYSCALL &&
	     (t->syscall < 0 || t->syscall >= GOTRACE_SYSCALL_MAX)) ||
	    (t->type != GOTRACE_TRIGGER_SYSCALL && t->syscall) ||
	    t->reserved32 ||
	    (t->type == GOTRACE_TRIGGER_OFFCPU && !t->pid && !t->comm[0]) ||
	    t->flags & ~GOTRACE_TRIG_TGID || t->pid < 0 ||
	    (t->flags & GOTRACE_TRIG_TGID && !t->pid) ||
	    !memchr(t->comm, '\0', sizeof(t->comm)) ||
	    t->post_ms > GOTRACE_TRIGGER_DELAY_MS_MAX ||
	    t->holdoff_ms > GOTRACE_TRIGGER_DELAY_MS_MAX ||
	    ((t->type == GOTRACE_TRIGGER_SCHED_LATENCY ||
	      t->type == GOTRACE_TRIGGER_OFFCPU) &&
	     t->threshold_ns < GOTRACE_TRIGGER_MIN_NS))
		return -EINVAL;
	return 0;
}

/* The trigger goes to the reader's own session, before it starts. */
static long gt_dev_set_trigger(struct file *file, void __user *arg)
{
	struct gt_session *s = file->private_data;
	struct gotrace_trigger t;
	long ret;

	if (!s)
		return -EBADF;
	ret = gt_copy_struct_in(&t, sizeof(t), GOTRACE_TRIGGER_SIZE_VER0, arg);
	if (!ret)
		ret = gt_trigger_check(&t);
	if (!ret && t.pid) {
		t.pid = gt_pid_to_init_ns(t.pid);
		if (!t.pid)
			ret = -ESRCH;
	}
	if (!ret)
		ret = gt_session_set_trigger(s, &t);
	return ret;
}

/*
 * The unwind tables go to the reader's own session (unwind.c).  Their
 * structures have no @size: the command must be the module's size.
 */
static long gt_dev_unwind(struct file *file, unsigned int cmd,
			  void __user *arg)
{
	struct gt_session *s = file->private_data;

	if (!s)
		return -EBADF;
	return gt_session_unwind_ioctl(s, cmd, arg);
}

/* Ask the reader's flight-mode session for a snapshot. */
static int gt_dev_snapshot(void)
{
	struct gt_session *s;
	int ret;

	mutex_lock(&gt_dev_lock);
	s = gt_dev_get();
	ret = s ? gt_session_snapshot(s) : -ENOENT;
	mutex_unlock(&gt_dev_lock);
	return ret;
}

static long gt_dev_get_snapshot(void __user *arg)
{
	struct gotrace_snapshot info;
	u32 usize;
	int ret;

	ret = gt_struct_usize(arg, GOTRACE_SNAPSHOT_SIZE_VER0, &usize);
	if (ret)
		return ret;
	memset(&info, 0, sizeof(info));
	mutex_lock(&gt_dev_lock);
	if (gt_dev_get())
		gt_session_snapshot_info(gt_dev_get(), &info);
	mutex_unlock(&gt_dev_lock);
	info.tid = gt_pid_from_init_ns(info.tid);
	info.tgid = gt_pid_from_init_ns(info.tgid);
	return gt_copy_struct_out(arg, usize, &info, sizeof(info));
}

/*
 * A command without its size field: the caller's structure may be of
 * another version than the module's, and says its size itself.
 */
#define GT_IOC_KEY(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

static long gt_dev_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	switch (GT_IOC_KEY(cmd)) {
	case GT_IOC_KEY(GOTRACE_IOC_STOP):
		return gt_dev_stop();
	case GT_IOC_KEY(GOTRACE_IOC_GET_STATUS):
		return gt_dev_get_status((void __user *)arg);
	case GT_IOC_KEY(GOTRACE_IOC_SET_OPTIONS):
		return gt_dev_set_options(file, (void __user *)arg);
	case GT_IOC_KEY(GOTRACE_IOC_GET_CPU_STATUS):
		return gt_dev_get_cpu_status((void __user *)arg);
	case GT_IOC_KEY(GOTRACE_IOC_SNAPSHOT):
		return gt_dev_snapshot();
	case GT_IOC_KEY(GOTRACE_IOC_GET_SNAPSHOT):
		return gt_dev_get_snapshot((void __user *)arg);
	case GT_IOC_KEY(GOTRACE_IOC_SET_TRIGGER):
		return gt_dev_set_trigger(file, (void __user *)arg);
	case GT_IOC_KEY(GOTRACE_IOC_UNWIND_ROWS):
	case GT_IOC_KEY(GOTRACE_IOC_UNWIND_TABLE):
	case GT_IOC_KEY(GOTRACE_IOC_UNWIND_SPACE):
	case GT_IOC_KEY(GOTRACE_IOC_UNWIND_SPACE_ID):
	case GT_IOC_KEY(GOTRACE_IOC_UNWIND_MISSES):
		return gt_dev_unwind(file, cmd, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations gt_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= gt_dev_open,
	.release	= gt_dev_release,
	.read		= gt_dev_read,
	.write		= gt_dev_write,
	.poll		= gt_dev_poll,
	.unlocked_ioctl	= gt_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

/*
 * /sys/class/misc/gotrace/status/: what GOTRACE_IOC_GET_STATUS tells,
 * one value per file, so that another shell can watch a recording
 * without opening the device.  What each CPU did is
 * GOTRACE_IOC_GET_CPU_STATUS's: as many lines as CPUs do not fit in a
 * page.
 */
/*
 * The status directory: a file per field of struct gotrace_status, made
 * from the ABI's list (linux/gotrace_fields.h), which every program
 * shows the status from.  A named field shows its value's name, from
 * the ABI's lists of names too.
 */
struct gt_value_name {
	u32 value;
	const char *name;
};

#define GT_VALUE_NAME(_value, _name)	{ .value = _value, .name = _name },
static const struct gt_value_name gt_state_names[] = {
#define GOTRACE_STATE_NAME GT_VALUE_NAME
#include "../include/uapi/linux/gotrace_fields.h"
#undef GOTRACE_STATE_NAME
	{ }
};

static const struct gt_value_name gt_stop_names[] = {
#define GOTRACE_STOP_NAME GT_VALUE_NAME
#include "../include/uapi/linux/gotrace_fields.h"
#undef GOTRACE_STOP_NAME
	{ }
};

static const struct gt_value_name gt_format_names[] = {
#define GOTRACE_FORMAT_NAME GT_VALUE_NAME
#include "../include/uapi/linux/gotrace_fields.h"
#undef GOTRACE_FORMAT_NAME
	{ }
};

struct gt_status_attr {
	struct device_attribute attr;
	size_t offset;		/* of its field in struct gotrace_status */
	const struct gt_value_name *names;	/* a named field's, or NULL */
};

static const struct gt_status_attr *to_gt_status_attr(struct device_attribute *a)
{
	return container_of(a, struct gt_status_attr, attr);
}

static ssize_t gt_status_u64_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct gotrace_status st;
	u64 v;

	gt_dev_status_now(&st);
	memcpy(&v, (u8 *)&st + to_gt_status_attr(attr)->offset, sizeof(v));
	return sysfs_emit(buf, "%llu\n", v);
}

static ssize_t gt_status_u32_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct gotrace_status st;
	u32 v;

	gt_dev_status_now(&st);
	memcpy(&v, (u8 *)&st + to_gt_status_attr(attr)->offset, sizeof(v));
	return sysfs_emit(buf, "%u\n", v);
}

/* A named field: its value's name; "-" for one without (no format yet). */
static ssize_t gt_status_named_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	const struct gt_value_name *n = to_gt_status_attr(attr)->names;
	struct gotrace_status st;
	u32 v;

	gt_dev_status_now(&st);
	memcpy(&v, (u8 *)&st + to_gt_status_attr(attr)->offset, sizeof(v));
	while (n->name && n->value != v)
		n++;
	return sysfs_emit(buf, "%s\n", n->name ? n->name : "-");
}

/* A file of the status directory showing the field of its name. */
#define GT_STATUS_ATTR(_name, _show, _names)				\
	{								\
		.attr = {						\
			.attr = { .name = #_name, .mode = 0400 },	\
			.show = _show,					\
		},							\
		.offset = offsetof(struct gotrace_status, _name),	\
		.names = _names,					\
	},
#define GT_FIELD_NUM(bits, name)					\
	GT_STATUS_ATTR(name, gt_status_u##bits##_show, NULL)
#define GT_FIELD_START(bits, name)	GT_FIELD_NUM(bits, name)
#define GT_FIELD_STATE(bits, name)					\
	GT_STATUS_ATTR(name, gt_status_named_show, gt_state_names)
#define GT_FIELD_STOP(bits, name)					\
	GT_STATUS_ATTR(name, gt_status_named_show, gt_stop_names)
#define GT_FIELD_FORMAT(bits, name)					\
	GT_STATUS_ATTR(name, gt_status_named_show, gt_format_names)
#define GT_FIELD_PAD(bits, name)
#define GT_FIELD(show, bits, name)	GT_FIELD_##show(bits, name)

static struct gt_status_attr gt_status_fields[] = {
#define GOTRACE_STATUS_FIELD GT_FIELD
#include "../include/uapi/linux/gotrace_fields.h"
#undef GOTRACE_STATUS_FIELD
};

/* Filled from gt_status_fields when the module loads. */
static struct attribute *gt_status_attrs[ARRAY_SIZE(gt_status_fields) + 1];

static const struct attribute_group gt_status_group = {
	.name	= "status",
	.attrs	= gt_status_attrs,
};

static const struct attribute_group *gt_dev_groups[] = {
	&gt_status_group,
	NULL,
};

static struct miscdevice gt_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= GOTRACE_DEVICE_NAME,
	.fops	= &gt_dev_fops,
	.mode	= 0600,
	.groups	= gt_dev_groups,
};

/* CPU hotplug: the session's P of a CPU stops when it goes and restarts. */
static int gt_dev_cpu_online(unsigned int cpu)
{
	struct gt_session *s;

	rcu_read_lock();
	s = rcu_dereference(gt_dev_session);
	if (s)
		gt_session_cpu_online(s);
	rcu_read_unlock();
	return 0;
}

static int gt_dev_cpu_offline(unsigned int cpu)
{
	struct gt_session *s;

	rcu_read_lock();
	s = rcu_dereference(gt_dev_session);
	if (s)
		gt_session_cpu_offline(s);
	rcu_read_unlock();
	return 0;
}

int gt_dev_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(gt_status_fields); i++)
		gt_status_attrs[i] = &gt_status_fields[i].attr.attr;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "gotrace:online",
					gt_dev_cpu_online, gt_dev_cpu_offline);
	if (ret < 0)
		return ret;
	gt_dev_cpuhp = ret;
	ret = misc_register(&gt_miscdev);
	if (ret)
		cpuhp_remove_state_nocalls(gt_dev_cpuhp);
	return ret;
}

void gt_dev_exit(void)
{
	misc_deregister(&gt_miscdev);
	cpuhp_remove_state_nocalls(gt_dev_cpuhp);
}
