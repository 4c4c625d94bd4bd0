#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# syscall_arch_test.sh - the syscall tables of x86-64 and arm64, made by
# kmod/gen_syscall_names.sh, hold each architecture's own numbers, and a
# syscall of one name blocks with the same class on both
#
# build/syscall_class prints, for every native syscall of the host, its
# number and the block event the model gives a task asleep in it (on a
# pipe, a socket, anything else); build/syscall_class_arm64 the same
# with arm64's numbers, from the arm64 cross compiler's headers.  Where
# an arm64 kernel's headers are in $GT_STORE (selftests/vm/lib.sh,
# gt_kernel_fetch 6.12-arm64), the module's tables are made from them
# as its build makes them, compat (aarch32) names included.
# Skips what needs the cross compiler where it is missing.

. "$(dirname "$0")/lib.sh"

HERE=$(dirname "$0")
CLASS=${CLASS:-./build/syscall_class}
CLASS_ARM64=${CLASS_ARM64:-./build/syscall_class_arm64}
GEN=$HERE/../../kmod/gen_syscall_names.sh
GT_STORE=${GT_STORE:-$HERE/../../.cache}

"$CLASS" > "$T/host"
# number NAME FILE: the number of syscall NAME in a class listing.
number() {
	awk -v n="$1" '$1 == n { print $2 }' "$2"
}

if [ "$(sed -n 's/^# //p' "$T/host")" = x86-64 ]; then
	check "x86-64: poll is 7, ppoll 271, sched_yield 24, futex 202" \
		'[ "$(number poll "$T/host") $(number ppoll "$T/host") $(number sched_yield "$T/host") $(number futex "$T/host")" = "7 271 24 202" ]'
fi

if [ ! -x "$CLASS_ARM64" ]; then
	ok "# SKIP arm64: no $CLASS_ARM64 (no aarch64-linux-gnu-gcc: make deps)"
	done_testing
	exit
fi
"$CLASS_ARM64" > "$T/arm64"
check "arm64: the table is arm64's" \
	'[ "$(sed -n "s/^# //p" "$T/arm64")" = arm64 ]'
for want in ppoll:73 openat:56 sched_yield:124 futex:98 clock_nanosleep:115 \
	    epoll_pwait:22 pselect6:72 nanosleep:101 read:63 write:64; do
	check "arm64: ${want%%:*} is ${want#*:}" \
		'[ "$(number "${want%%:*}" "$T/arm64")" = "${want#*:}" ]'
done
for none in open poll select epoll_wait fork pipe; do
	check "arm64: no $none" '[ -z "$(number "$none" "$T/arm64")" ]'
done

# The same name, the same classes (pipe, socket, other).
awk 'NR == FNR { if ($1 != "#") c[$1] = $3 " " $4 " " $5; next }
     $1 in c { n++; if (c[$1] != $3 " " $4 " " $5) print $1, c[$1], "|", $3, $4, $5 }
     END { print n > "/dev/stderr" }' "$T/host" "$T/arm64" \
	> "$T/out" 2> "$T/count"
check "arm64: the $(cat "$T/count") syscalls of both tables block alike" \
	'[ ! -s "$T/out" ] && [ "$(cat "$T/count")" -gt 200 ]'
# The p-forms arm64 has in place of poll and select block as they do.
if [ -n "$(number poll "$T/host")" ]; then
	check "arm64: ppoll and pselect6 block as the host's poll and select" \
		'[ "$(awk "\$1 == \"ppoll\" || \$1 == \"pselect6\" { print \$3 }" "$T/arm64" | sort -u)" = "$(awk "\$1 == \"poll\" || \$1 == \"select\" { print \$3 }" "$T/host" | sort -u)" ]'
fi
# Blocking syscalls are not plain blocks on arm64.
plain=$(awk '$1 == "getpid" { print $3 }' "$T/arm64")
for s in futex ppoll pselect6 epoll_pwait clock_nanosleep nanosleep \
	 accept4 recvfrom wait4; do
	check "arm64: $s is no plain block" \
		'[ "$(awk -v s="$s" "\$1 == s { print \$3 }" "$T/arm64")" != "$plain" ]'
done

# The module's tables, from each arm64 kernel's headers as Kbuild makes
# them (its LINUXINCLUDE, with its configuration): 6.1's generic table
# of macros, the generated ones from 6.11.
# table ARRAY: the entries of ARRAY in the module's tables.
table() {
	awk -v t="$1" '$0 ~ (" " t "\\[") { on = 1; next }
		on && /^};/ { on = 0 } on' "$T/names.h"
}
found=
for hdr in "$GT_STORE"/kernels/*-arm64/root/usr/src/linux-headers-*-arm64; do
	[ -f "$hdr/Makefile" ] || continue
	found=1
	k=$(basename "$hdr")
	k=${k#linux-headers-}
	common=$(sed -n 's|^include \(.*\)/Makefile$|\1|p' "$hdr/Makefile")
	a=arch/arm64/include
	sh "$GEN" -k aarch64-linux-gnu-gcc -E -nostdinc \
		-I"$common/$a" -I"$hdr/$a/generated" -I"$common/include" \
		-I"$hdr/include" -I"$common/$a/uapi" -I"$hdr/$a/generated/uapi" \
		-I"$common/include/uapi" -I"$hdr/include/generated/uapi" \
		-include "$common/include/linux/kconfig.h" -D__KERNEL__ \
		> "$T/names.h" 2> "$T/err"
	check "$k: the module's tables are arm64's" \
		'grep -q "^#define GT_SYSCALL_ARCH \"arm64\"" "$T/names.h"'
	table gt_syscalls64 > "$T/native"
	table gt_syscalls32 > "$T/compat"
	table gt_syscalls32_native > "$T/map"
	check "$k: native ppoll 73, futex 98, no open" \
		'grep -q "\[73\] = \"ppoll\"," "$T/native" &&
		 grep -q "\[98\] = \"futex\"," "$T/native" &&
		 ! grep -q "\"open\"" "$T/native"'
	check "$k: compat (aarch32) fork 2, open 5, read 3" \
		'grep -q "\[2\] = \"fork\"," "$T/compat" &&
		 grep -q "\[5\] = \"open\"," "$T/compat" &&
		 grep -q "\[3\] = \"read\"," "$T/compat"'
	# 1 + the native number: read is 63.
	check "$k: compat read counts as native read (63)" \
		'grep -q "\[3\] = 64," "$T/map"'
done
[ -n "$found" ] ||
	ok "# SKIP arm64 kernel headers: none in $GT_STORE/kernels"

done_testing
