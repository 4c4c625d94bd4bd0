#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernel-reports.sh LOG... - print every report of the kernel's own
# checkers found in the guest's console and dmesg, with the lines after
# each; exit 1 if there is one, 0 if none.  A missing LOG is skipped (a
# guest that died sends no dmesg; its failure is counted elsewhere).
#
# The reports: lockdep ("WARNING: possible circular locking dependency",
# "inconsistent lock state", "suspicious RCU usage"...), KASAN, KCSAN and
# UBSAN ("BUG: KASAN: ...", "BUG: KCSAN: ...", "UBSAN: ..."),
# DEBUG_ATOMIC_SLEEP ("BUG: sleeping function called from invalid
# context"), DEBUG_PREEMPT ("BUG: using smp_processor_id() in
# preemptible"), DEBUG_OBJECTS ("ODEBUG:"), DEBUG_LIST ("list_add
# corruption"), and any WARN(), BUG() or oops.  Only the debug kernel
# has most of these checkers; on Debian's kernels the scan catches WARN,
# BUG and oops.
pattern='BUG: |WARNING: |UBSAN: |KASAN: |KCSAN: |ODEBUG: |Oops|general protection fault|kernel BUG at|list_(add|del) corruption|refcount_t: |INFO: (possible|inconsistent|suspicious|task .* blocked)|scheduling while atomic|sleeping function called from invalid context|stack-protector|Kernel panic'

found=0
for f in "$@"; do
	[ -f "$f" ] || continue
	if grep -Eq "$pattern" "$f"; then
		found=1
		echo "in $f:"
		grep -E -A 12 "$pattern" "$f" | head -n 80
	fi
done
exit "$found"
