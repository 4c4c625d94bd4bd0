#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs last: nothing the tests did made the kernel complain.
pattern='BUG:|WARNING:|Oops|Call Trace|general protection|UBSAN|KASAN|refcount_t|list_del corruption|scheduling while atomic|lockdep'
if dmesg | grep -E "$pattern"; then
	echo "FAIL: the kernel complained"
	exit 1
fi
dmesg | grep gotrace
exit 0
