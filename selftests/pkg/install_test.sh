#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# install_test.sh - 'make install' into a scratch prefix: what it installs,
# one version everywhere, the units through systemd-analyze verify and
# security (no worse than MEDIUM), and gotrace-keep-boots' retention.
#
# Run by 'make check-host' from the top of the sources.  The systemd
# checks are skipped where systemd-analyze is missing.

set -u
. "$(dirname "$0")/lib.sh"

P=$T/usr
V=$(cat "$TOP/VERSION")
UNITS="gotrace-module.service gotrace-boot.service gotrace-boot-done.service gotrace@.service gotrace.service"

make -s -C "$TOP" install PREFIX="$P" DKMSDIR="$T/src" >"$T/log" 2>&1
rc=$?
check "make install PREFIX=... DKMSDIR=... succeeds" '[ $rc -eq 0 ]'

(cd "$T" && find . -type f | sort) >"$T/files"
expect() {
	grep -qx "./$1" "$T/files"
}
check "the command, its man page and gotrace-keep-boots" 'expect usr/bin/gotrace && expect usr/share/man/man1/gotrace.1 && [ -x "$P/libexec/gotrace/gotrace-keep-boots" ]'
units_there() {
	for u in $UNITS; do
		expect "usr/lib/systemd/system/$u" || return 1
	done
}
check "the units, with no @...@ left" 'units_there && ! grep -q "@[A-Z]*@" "$P"/lib/systemd/system/*.service'
check "the units run the installed command" 'grep -qx "ExecStart=$P/bin/gotrace record .*" "$P/lib/systemd/system/gotrace-boot.service"'
check "the DKMS source: dkms.conf, Kbuild, kmod/, the uapi header" 'expect src/gotrace-$V/dkms.conf && expect src/gotrace-$V/Kbuild && expect src/gotrace-$V/kmod/Kbuild && expect src/gotrace-$V/kmod/main.c && expect src/gotrace-$V/kmod/gen_syscall_names.sh && expect src/gotrace-$V/include/uapi/linux/gotrace.h'
# The sources kmod/Kbuild builds gotrace.ko from: the module's, and the
# portable model's (model/, with its environments).
srcs=$(cd "$TOP" && ls kmod/*.c kmod/*.h model/*.c model/*.h model/env/*.h |
	grep -v -e '\.mod\.c$' -e '^kmod/syscall_names\.h$')
srcs_there() {
	[ -n "$srcs" ] || return 1
	for f in $srcs; do
		expect "src/gotrace-$V/$f" || return 1
	done
}
check "every source of the module (kmod/, model/) is in the DKMS tree" srcs_there

# One version: VERSION, --version, dkms.conf, debian/changelog.
check "gotrace --version says VERSION ($V)" '"$P/bin/gotrace" --version | grep -q "^gotrace $V "'
check "dkms.conf: PACKAGE_VERSION is VERSION, AUTOINSTALL" 'grep -qx "PACKAGE_VERSION=\"$V\"" "$T/src/gotrace-$V/dkms.conf" && grep -qx "AUTOINSTALL=\"yes\"" "$T/src/gotrace-$V/dkms.conf"'
check "debian/changelog's version is VERSION" '[ "$(sed -n "1s/^gotrace (\([^)]*\)).*/\1/p" "$TOP/debian/changelog")" = "$V" ]'

# The unit type follows what the command speaks.
if "$P/bin/gotrace" --version | grep -q sd_notify; then
	type=notify
else
	type=exec
fi
check "recording units are Type=$type (sd_notify or not)" 'grep -qx "Type=$type" "$P/lib/systemd/system/gotrace-boot.service" && grep -qx "Type=$type" "$P/lib/systemd/system/gotrace@.service" && grep -qx "Type=$type" "$P/lib/systemd/system/gotrace.service"'

if command -v systemd-analyze >/dev/null; then
	(cd "$P/lib/systemd/system" &&
		MANPATH=$P/share/man systemd-analyze verify \
			gotrace-module.service gotrace-boot.service \
			gotrace-boot-done.service gotrace@test.service \
			gotrace.service) \
		>"$T/log" 2>&1
	rc=$?
	check "systemd-analyze verify: no error and nothing to say" '[ $rc -eq 0 ] && [ ! -s "$T/log" ]'
	for u in $UNITS; do
		(cd "$P/lib/systemd/system" &&
			systemd-analyze security --offline=true "./$u") \
			>"$T/log" 2>&1
		line=$(grep "Overall exposure level" "$T/log")
		echo "# $line"
		check "systemd-analyze security $u: no worse than MEDIUM" 'echo "$line" | grep -Eq " (PERFECT|SAFE|OK|MEDIUM) "'
	done
else
	skip "systemd-analyze is missing"
fi

# gotrace-keep-boots DIR 3: the newest 2 boots stay, the rest goes.
KB=$P/libexec/gotrace/gotrace-keep-boots
mkdir "$T/logs"
for i in 1 2 3 4; do
	touch -d "2026-01-0$i" "$T/logs/boot-a$i.trace"
done
touch "$T/logs/boot-a1.trace.old" "$T/logs/boot-a4.trace.old" \
	"$T/logs/boot-b.trace.tmp-12" "$T/logs/web.trace"
"$KB" "$T/logs" 3 >"$T/log" 2>&1
check "keep-boots 3: the 2 newest boots (and their .old) and other traces stay" '[ "$(ls "$T/logs" | tr "\n" " ")" = "boot-a3.trace boot-a4.trace boot-a4.trace.old web.trace " ]'
"$KB" "$T/logs" x >"$T/log" 2>&1
rc=$?
check "keep-boots with a bad N: exit 2, a message" '[ $rc -eq 2 ] && grep -q "must be a number" "$T/log"'

echo "1..$n"
[ "$failed" -eq 0 ]
