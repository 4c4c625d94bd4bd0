#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# int3-at-patch-site.sh CONSOLE - exit 0 if the guest died of the one
# crash multi-threaded TCG causes by itself, 1 otherwise (a crash to
# report).
#
# While the kernel patches a jump label or a static call (text_poke_bp),
# the first byte of the site is an int3 for a moment; a CPU that hits it
# is sent back to the site by the kernel's int3 handler.  Under
# multi-threaded TCG another vCPU may go on running a stale translation
# in which the int3 is still there after the patch is done: the handler
# no longer knows the address and the kernel dies with "Oops: int3".
# Such an oops says nothing about gotrace.  It is told apart by the
# "Code:" line of the oops, which shows the text as it is when the oops
# is printed and marks the byte at RIP with <..>: the byte just before
# it, where the int3 was, is now the first byte of a patched site (a jmp,
# call or nop: eb, e9, e8, 0f, 66, 90, 2e, 3e), or still the int3 (cc)
# of a patch in progress, but not compiler padding between functions (a
# run of cc).  Seen on 6.12: "eb <5a>" in ttwu_do_activate(), a jump
# label the probes' registration had just switched.
log=$1
grep -q 'Oops: int3' "$log" || exit 1
code=$(grep -m1 -A 40 'Oops: int3' "$log" | sed -n 's/.*Code: //p' | head -n 1)
[ -n "$code" ] || exit 1
echo "$code" | awk '{
	for (i = 1; i <= NF; i++)
		if ($i ~ /^</) { at = i; break }
	if (!at || at < 3) exit 1
	b = $(at - 1)
	if (b == "cc") exit $(at - 2) == "cc"
	exit !(b ~ /^(eb|e9|e8|0f|66|90|2e|3e)$/)
}'
