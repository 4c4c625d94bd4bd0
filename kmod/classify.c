// SPDX-License-Identifier: GPL-2.0
/*
 * classify.c - which Go block event a sleeping task's syscall becomes
 *
 * x86-64 syscall numbers, chosen so that go tool trace's profiles mean
 * something (Documentation/mapping.rst, "Blocking reasons").  Only the
 * syscall the probes saw the task enter classifies a block: a task whose
 * entry was not seen blocks plainly (its saved registers cannot tell).
 *
 * Context: the sched_switch probe of the task going to sleep (current),
 * interrupts off.
 */
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "gotrace.h"

/* The file behind @fd of the current task, or NULL; RCU read lock held. */
static struct file *fd_file_rcu(unsigned long fd)
{
	struct files_struct *files = current->files;

	if (!files || fd > INT_MAX)
		return NULL;
	return files_lookup_fd_raw(files, fd);
}

/* What a read or write that sleeps waits for: a pipe, a socket, other. */
static unsigned int block_on_fd(unsigned long fd, bool write)
{
	unsigned int type = GOTRACE_EV_GO_BLOCK;
	struct file *f;
	umode_t mode;

	rcu_read_lock();
	f = fd_file_rcu(fd);
	if (f) {
		mode = file_inode(f)->i_mode;
		if (S_ISFIFO(mode))
			type = write ? GOTRACE_EV_GO_BLOCK_SEND : GOTRACE_EV_GO_BLOCK_RECV;
		else if (S_ISSOCK(mode))
			type = GOTRACE_EV_GO_BLOCK_NET;
	}
	rcu_read_unlock();
	return type;
}

/*
 * The first argument of the syscall of current, of either ABI.
 * syscall_get_arguments() always writes all six arguments.
 */
static unsigned long syscall_arg0(struct pt_regs *regs)
{
	unsigned long args[6];

	syscall_get_arguments(current, regs, args);
	return args[0];
}

/*
 * The block event for a task that sleeps in syscall @nr (x86-64 numbers),
 * chosen so that go tool trace's profiles mean something: futexes are
 * sync, socket and epoll waits network, poll/select select, pipes and
 * wait4 channel operations, sleeps are sleeps.  Anything else is a plain
 * GoBlock.  A task asleep in a syscall still has its arguments in its
 * saved user registers: they are read here, not at every syscall entry.
 *
 * Context: switch_out() of current.
 */
unsigned int gt_block_reason(const struct gt_task *t)
{
	struct pt_regs *regs;

	if (t->sys_nr < 0 || t->sys_compat)
		return GOTRACE_EV_GO_BLOCK;
	regs = task_pt_regs(current);
	switch (t->sys_nr) {
	case __NR_futex:
	case __NR_futex_waitv:
		return GOTRACE_EV_GO_BLOCK_SYNC;
	case __NR_nanosleep:
	case __NR_clock_nanosleep:
		return GOTRACE_EV_GO_SLEEP;
	case __NR_poll:
	case __NR_ppoll:
	case __NR_select:
	case __NR_pselect6:
		return GOTRACE_EV_GO_BLOCK_SELECT;
	case __NR_epoll_wait:
	case __NR_epoll_pwait:
	case __NR_epoll_pwait2:
	case __NR_accept:
	case __NR_accept4:
	case __NR_connect:
	case __NR_recvfrom:
	case __NR_recvmsg:
	case __NR_recvmmsg:
	case __NR_sendto:
	case __NR_sendmsg:
	case __NR_sendmmsg:
		return GOTRACE_EV_GO_BLOCK_NET;
	case __NR_wait4:
	case __NR_waitid:
		return GOTRACE_EV_GO_BLOCK_RECV;
	case __NR_read:
	case __NR_readv:
	case __NR_pread64:
	case __NR_preadv:
	case __NR_preadv2:
		return block_on_fd(syscall_arg0(regs), false);
	case __NR_write:
	case __NR_writev:
	case __NR_pwrite64:
	case __NR_pwritev:
	case __NR_pwritev2:
		return block_on_fd(syscall_arg0(regs), true);
	default:
		return GOTRACE_EV_GO_BLOCK;
	}
}
