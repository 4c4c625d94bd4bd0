#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs last: nothing the tests did made the kernel complain.
pattern='BUG:|WARNING:|Oops|Call Trace|general protection|UBSAN|KASAN'
pattern="$pattern|refcount_t|list_del corruption|scheduling while atomic"
# lockdep's reports (not "RCU lockdep checking is enabled", a boot line of
# every kernel that has lockdep).
pattern="$pattern|DEBUG_LOCKS_WARN_ON|possible recursive locking"
pattern="$pattern|possible circular locking|inconsistent lock state"
pattern="$pattern|suspicious RCU usage"
if dmesg | grep -E "$pattern"; then
	echo "FAIL: the kernel complained"
	exit 1
fi
dmesg | grep gotrace
exit 0
