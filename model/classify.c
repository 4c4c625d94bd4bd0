// SPDX-License-Identifier: GPL-2.0
/*
 * classify.c - what a task sleeping in a syscall waits for
 *
 * Syscalls are named by the native numbers of the architecture built
 * for, from its <asm/unistd.h>: the kernel's for the module, the C
 * library's for the command's model.  Not every architecture has every
 * syscall (arm64 has no poll, select or epoll_wait, only their p-forms):
 * those cases are built where the architecture defines the number, so
 * one syscall name has one class on every architecture
 * (Documentation/mapping.rst, "Blocking reasons").  Only the syscall the
 * hooks saw the task enter classifies a block: a task whose entry was
 * not seen blocks plainly (its saved registers cannot tell).
 *
 * Context: the switch hook of the task going to sleep, interrupts off.
 */
#include "model_state.h"

#include <asm/unistd.h>

/* What a read or write that sleeps waits for: a pipe, a socket, other. */
static enum gt_block_class block_on_fd(const struct gt_in_switch *in, bool write)
{
	switch (gt_env_fd_kind(in)) {
	case GT_IN_FD_PIPE:
		return write ? GT_BLOCK_SEND : GT_BLOCK_RECV;
	case GT_IN_FD_SOCKET:
		return GT_BLOCK_NET;
	default:
		return GT_BLOCK_OTHER;
	}
}

/* Is @t in sched_yield()?  Its switch is then a GoSched, not a preemption. */
bool gt_is_sched_yield(const struct gt_task *t)
{
	return t->sys_nr == __NR_sched_yield && !t->sys_compat;
}

/*
 * The class of the block of a task that sleeps in syscall @t->sys_nr
 * (native numbers), chosen so that go tool trace's profiles mean something:
 * futexes are sync, socket and epoll waits network, poll/select select,
 * pipes and wait4 channel operations, sleeps are sleeps.  Anything else
 * is a plain block.  The file a read or write waits on is asked of the
 * environment only here (the module reads the task's saved registers),
 * not at every syscall entry.
 */
enum gt_block_class gt_block_reason(const struct gt_task *t,
				    const struct gt_in_switch *in)
{
	if (t->sys_nr < 0 || t->sys_compat)
		return GT_BLOCK_OTHER;
	switch (t->sys_nr) {
	case __NR_futex:
	case __NR_futex_waitv:
		return GT_BLOCK_SYNC;
	case __NR_nanosleep:
	case __NR_clock_nanosleep:
		return GT_BLOCK_SLEEP;
#ifdef __NR_poll
	case __NR_poll:
#endif
	case __NR_ppoll:
#ifdef __NR_select
	case __NR_select:
#endif
	case __NR_pselect6:
		return GT_BLOCK_SELECT;
#ifdef __NR_epoll_wait
	case __NR_epoll_wait:
#endif
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
		return GT_BLOCK_NET;
	case __NR_wait4:
	case __NR_waitid:
		return GT_BLOCK_RECV;
	case __NR_read:
	case __NR_readv:
	case __NR_pread64:
	case __NR_preadv:
	case __NR_preadv2:
		return block_on_fd(in, false);
	case __NR_write:
	case __NR_writev:
	case __NR_pwrite64:
	case __NR_pwritev:
	case __NR_pwritev2:
		return block_on_fd(in, true);
	default:
		return GT_BLOCK_OTHER;
	}
}
