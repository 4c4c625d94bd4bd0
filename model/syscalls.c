// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls.c - syscall names, filters and the frames that show them
 *
 * The names come from the headers of the kernel the module is built for
 * (gen_syscall_names.sh), so they match its numbering exactly, for its
 * native tasks and its compat (32-bit: ia32 on x86-64, aarch32 on arm64)
 * tasks alike.  A syscall appears in a trace as a frame with a synthetic
 * PC in its own range, symbolised "sys_<name>" (or "compat_sys_<name>")
 * with the number as the line, in file "[syscall]".  Without a compat
 * table (the command's model on arm64: no uapi header has one), a compat
 * syscall is "compat_sys_<number>".
 *
 * Context: any; nothing here sleeps or takes a lock.
 */
#include "model_state.h"
#include "syscall_names.h"

#define GT_SYS_PC_BASE		0x30000000ULL
#define GT_SYS_PC_COMPAT	0x00010000ULL	/* offset of the compat range */
#define GT_SYS_PC_STEP		16
/* Numbers out of range (-1 for a skipped syscall, say) share one frame. */
#define GT_SYS_NR_OTHER		(GOTRACE_SYSCALL_MAX - 1)

static unsigned int sys_index(long nr)
{
	return nr >= 0 && nr < GT_SYS_NR_OTHER ? nr : GT_SYS_NR_OTHER;
}

/* The synthetic PC of the frame naming syscall @nr of its ABI. */
u64 gt_syscall_pc(long nr, bool compat)
{
	return GT_SYS_PC_BASE + (compat ? GT_SYS_PC_COMPAT : 0) +
	       (u64)sys_index(nr) * GT_SYS_PC_STEP;
}

/**
 * gt_syscall_frame_name() - name a syscall PC
 * @pc:		a PC from gt_syscall_pc(), or anything else
 * @buf:	where the name goes
 * @len:	its size
 * @nr:		set to the syscall number
 *
 * Return: true if @pc is a syscall PC (and @buf holds its name).
 */
bool gt_syscall_frame_name(u64 pc, char *buf, size_t len, unsigned int *nr)
{
	bool compat = false;
	const char *name = NULL;
	u64 off;

	if (pc < GT_SYS_PC_BASE ||
	    pc >= GT_SYS_PC_BASE + 2 * GT_SYS_PC_COMPAT)
		return false;
	off = pc - GT_SYS_PC_BASE;
	if (off >= GT_SYS_PC_COMPAT) {
		compat = true;
		off -= GT_SYS_PC_COMPAT;
	}
	if (off % GT_SYS_PC_STEP || off / GT_SYS_PC_STEP >= GOTRACE_SYSCALL_MAX)
		return false;
	*nr = off / GT_SYS_PC_STEP;
	if (!compat && *nr < GT_NR_SYSCALLS64)
		name = gt_syscalls64[*nr];
	else if (compat && *nr < GT_NR_SYSCALLS32)
		name = gt_syscalls32[*nr];
	if (*nr == GT_SYS_NR_OTHER)
		snprintf(buf, len, "%ssyscall_unknown", compat ? "compat_" : "");
	else if (name)
		snprintf(buf, len, "%ssys_%s", compat ? "compat_" : "", name);
	else
		snprintf(buf, len, "%ssys_%u", compat ? "compat_" : "", *nr);
	return true;
}

/**
 * gt_syscall_selected() - does the session's syscall set take @nr?
 * @o:		the session's options
 * @nr:		syscall number of the task's ABI
 * @compat:	the task's ABI is the compat one; the set is of native
 *		numbers, and a compat syscall counts as the native one of the
 *		same name
 */
bool gt_syscall_selected(const struct gotrace_options *o, long nr, bool compat)
{
	bool in;

	if (o->syscall_set_mode == GOTRACE_SET_OFF)
		return true;
	if (compat)
		nr = nr >= 0 && nr < GT_NR_SYSCALLS32 ?
			(long)gt_syscalls32_native[nr] - 1 : -1;
	in = nr >= 0 && nr < GOTRACE_SYSCALL_MAX &&
	     (o->syscall_set[nr / 64] >> (nr % 64) & 1);
	return o->syscall_set_mode == GOTRACE_SET_INCLUDE ? in : !in;
}
