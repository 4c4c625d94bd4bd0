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
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/rcupdate.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "gotrace.h"

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

static long gt_dev_get_status(void __user *arg)
{
	struct gotrace_status st;

	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.version = GOTRACE_ABI_VERSION;
	st.state = GOTRACE_STATE_IDLE;
	st.nr_cpus = gt_session_online_ps();
	mutex_lock(&gt_dev_lock);
	if (gt_dev_get())
		gt_session_status(gt_dev_get(), &st);
	mutex_unlock(&gt_dev_lock);
	if (copy_to_user(arg, &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

static long gt_dev_get_cpu_status(void __user *arg)
{
	struct gotrace_cpu_status st;
	u32 size, cpu;

	if (get_user(size, (u32 __user *)arg) ||
	    get_user(cpu, (u32 __user *)arg + 1))
		return -EFAULT;
	if (size != sizeof(st) || cpu >= nr_cpu_ids)
		return -EINVAL;
	/* The CPU indexes per-CPU data: no speculation past the check. */
	cpu = array_index_nospec(cpu, nr_cpu_ids);
	if (!cpu_possible(cpu))
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.cpu = cpu;
	st.online = cpu_online(cpu);
	mutex_lock(&gt_dev_lock);
	if (gt_dev_get())
		gt_session_cpu_status(gt_dev_get(), &st);
	mutex_unlock(&gt_dev_lock);
	if (copy_to_user(arg, &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

/* Most chunks a session may ask for: 1 GiB of buffers. */
#define GT_MAX_CHUNKS	16384

static int gt_options_check(const struct gotrace_options *o)
{
	unsigned int i;

	if (o->size != sizeof(*o) ||
	    o->flags & ~(GOTRACE_OPT_TGID | GOTRACE_OPT_CHILDREN |
			 GOTRACE_OPT_NO_KSTACKS |
			 GOTRACE_OPT_NO_WAKE_KSTACKS |
			 GOTRACE_OPT_NO_UNITS) ||
	    o->chunks > GT_MAX_CHUNKS || o->syscalls > GOTRACE_SYSCALLS_NONE ||
	    o->syscall_set_mode > GOTRACE_SET_EXCLUDE ||
	    o->nr_pids > GOTRACE_MAX_PIDS ||
	    !memchr(o->comm, '\0', sizeof(o->comm)) ||
	    o->format > GOTRACE_FORMAT_GO123 ||
	    (o->generation_ms &&
	     (o->generation_ms < GT_GENERATION_MS_MIN ||
	      o->generation_ms > GT_GENERATION_MS_MAX)) ||
	    o->reserved32 || o->flight_ms > GOTRACE_FLIGHT_MS_MAX ||
	    (o->flight_bytes &&
	     (o->flight_bytes < GOTRACE_FLIGHT_BYTES_MIN ||
	      o->flight_bytes > GOTRACE_FLIGHT_BYTES_MAX)) ||
	    ((o->flight_ms || o->flight_bytes) &&
	     o->format == GOTRACE_FORMAT_GO111))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(o->reserved); i++)
		if (o->reserved[i])
			return -EINVAL;
	for (i = 0; i < o->nr_pids; i++)
		if (o->pids[i] <= 0)
			return -EINVAL;
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
	o = memdup_user(arg, sizeof(*o));
	if (IS_ERR(o))
		return PTR_ERR(o);
	ret = gt_options_check(o);
	if (!ret)
		ret = gt_session_set_options(s, o);
	kfree(o);
	return ret;
}

static int gt_trigger_check(const struct gotrace_trigger *t)
{
	unsigned int i;

	if (t->size != sizeof(*t) ||
	    t->type > GOTRACE_TRIGGER_SYSCALL ||
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
	for (i = 0; i < ARRAY_SIZE(t->reserved); i++)
		if (t->reserved[i])
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
	if (copy_from_user(&t, arg, sizeof(t)))
		return -EFAULT;
	ret = gt_trigger_check(&t);
	if (!ret)
		ret = gt_session_set_trigger(s, &t);
	return ret;
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
	u32 size;

	if (get_user(size, (u32 __user *)arg))
		return -EFAULT;
	if (size != sizeof(info))
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	mutex_lock(&gt_dev_lock);
	if (gt_dev_get())
		gt_session_snapshot_info(gt_dev_get(), &info);
	mutex_unlock(&gt_dev_lock);
	info.size = sizeof(info);
	if (copy_to_user(arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long gt_dev_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	switch (cmd) {
	case GOTRACE_IOC_STOP:
		return gt_dev_stop();
	case GOTRACE_IOC_GET_STATUS:
		return gt_dev_get_status((void __user *)arg);
	case GOTRACE_IOC_SET_OPTIONS:
		return gt_dev_set_options(file, (void __user *)arg);
	case GOTRACE_IOC_GET_CPU_STATUS:
		return gt_dev_get_cpu_status((void __user *)arg);
	case GOTRACE_IOC_SNAPSHOT:
		return gt_dev_snapshot();
	case GOTRACE_IOC_GET_SNAPSHOT:
		return gt_dev_get_snapshot((void __user *)arg);
	case GOTRACE_IOC_SET_TRIGGER:
		return gt_dev_set_trigger(file, (void __user *)arg);
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

static const char *const gt_state_names[] = {
	[GOTRACE_STATE_IDLE]		= "idle",
	[GOTRACE_STATE_RECORDING]	= "recording",
	[GOTRACE_STATE_STOPPED]		= "stopped",
	[GOTRACE_STATE_DONE]		= "done",
	[GOTRACE_STATE_READY]		= "ready",
};

static const char *const gt_stop_names[] = {
	[GOTRACE_STOP_NONE]	= "none",
	[GOTRACE_STOP_USER]	= "user",
	[GOTRACE_STOP_DURATION]	= "duration",
	[GOTRACE_STOP_OVERFLOW]	= "overflow",
	[GOTRACE_STOP_ABORT]	= "abort",
};

/*
 * /sys/class/misc/gotrace/status: what GOTRACE_IOC_GET_STATUS and
 * GOTRACE_IOC_GET_CPU_STATUS tell, as "key value" lines, so that another
 * shell can watch a recording without opening the device.
 */
static ssize_t status_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct gotrace_cpu_status cs;
	struct gotrace_status st;
	struct gt_session *s;
	unsigned int cpu;
	int len;

	memset(&st, 0, sizeof(st));
	mutex_lock(&gt_dev_lock);
	s = gt_dev_get();
	if (s)
		gt_session_status(s, &st);
	len = sysfs_emit(buf,
			 "state %s\nstop_reason %s\nreader_pid %u\nstart_ns %llu\nevents %llu\nlost_events %llu\nbytes_produced %llu\nbytes_read %llu\nchunks_total %llu\nchunks_in_use %llu\nchunk_overflows %llu\ntask_overflows %llu\nstack_overflows %llu\nformat %s\ngenerations %llu\nflight_bytes %llu\nflight_generations %llu\nunit_overflows %llu\n",
			 gt_state_names[s ? st.state : GOTRACE_STATE_IDLE],
			 gt_stop_names[st.stop_reason], st.reader_pid,
			 st.start_ns, st.events, st.lost_events,
			 st.bytes_produced, st.bytes_read, st.chunks_total,
			 st.chunks_in_use, st.chunk_overflows,
			 st.task_overflows, st.stack_overflows,
			 st.format == GOTRACE_FORMAT_GO123 ? "go1.23" :
			 st.format ? "go1.11" : "-", st.generations,
			 st.flight_bytes, st.flight_generations,
			 st.unit_overflows);
	for_each_possible_cpu(cpu) {
		memset(&cs, 0, sizeof(cs));
		cs.cpu = cpu;
		if (s)
			gt_session_cpu_status(s, &cs);
		len += sysfs_emit_at(buf, len,
				     "cpu%u online %d running %u events %llu lost_events %llu chunk_overflows %llu\n",
				     cpu, cpu_online(cpu), cs.running,
				     cs.events, cs.lost_events,
				     cs.chunk_overflows);
	}
	mutex_unlock(&gt_dev_lock);
	return len;
}
static DEVICE_ATTR_ADMIN_RO(status);

static struct attribute *gt_dev_attrs[] = {
	&dev_attr_status.attr,
	NULL,
};
ATTRIBUTE_GROUPS(gt_dev);

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
	int ret;

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
