// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_class.c - the block class the model gives each native syscall
 * of the architecture it was built for
 *
 * One line per syscall of syscall_table.h: its name, its number, and the
 * block class (enum gt_block_class) of a task sleeping in it when the
 * file it reads or writes is a pipe, a socket and anything else.  Built
 * for the host and, with a stand-in <asm/unistd.h> and table of arm64's
 * numbers (gen_syscall_names.sh -d and -t of the cross compiler), for
 * arm64: tests/syscall_arch_test.sh compares the two by name.
 */
#include <stdio.h>
#include <string.h>

#include "../../model/model_state.h"
#include "syscall_table.h"

static unsigned int class_of(int nr, unsigned int fd_kind)
{
	struct gt_in_switch in;
	struct gt_task t;

	memset(&t, 0, sizeof(t));
	memset(&in, 0, sizeof(in));
	t.sys_nr = nr;
	in.fd_kind = fd_kind;
	return gt_block_reason(&t, &in);
}

int main(void)
{
	size_t i;

	printf("# %s\n", GT_SYSCALL_ARCH);
	for (i = 0; i < sizeof(gt_syscall_table) / sizeof(gt_syscall_table[0]);
	     i++) {
		int nr = gt_syscall_table[i].nr;

		printf("%s %d %u %u %u\n", gt_syscall_table[i].name, nr,
		       class_of(nr, GT_IN_FD_PIPE),
		       class_of(nr, GT_IN_FD_SOCKET),
		       class_of(nr, GT_IN_FD_OTHER));
	}
	return 0;
}
