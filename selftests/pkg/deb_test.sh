#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# deb_test.sh DIR: the packages make deb left in DIR, unpacked with
# dpkg -x into a scratch root: what each holds, the installed command
# runs and says VERSION with sd_notify, the units are Type=notify and
# name /usr/bin/gotrace, dkms.conf is VERSION's and the dkms package
# depends on dkms.  Run by 'make deb' after the build.

set -u
. "$(dirname "$0")/lib.sh"
DIR=$1
V=$(cat "$TOP/VERSION")

CMD=$DIR/gotrace_${V}_amd64.deb
DKMS=$DIR/gotrace-dkms_${V}_all.deb
check "both packages of version $V are there" '[ -f "$CMD" ] && [ -f "$DKMS" ]'
dpkg -x "$CMD" "$T/cmd" && dpkg -x "$DKMS" "$T/dkms"
(cd "$T/cmd" && find . ! -type d | sort) >"$T/cmd.files"
(cd "$T/dkms" && find . ! -type d | sort) >"$T/dkms.files"

has() {
	grep -qx "./$2" "$T/$1.files"
}
check "gotrace: command, man page, keep-boots, five units (the flight recorder's too)" 'has cmd usr/bin/gotrace && has cmd usr/share/man/man1/gotrace.1.gz && has cmd usr/libexec/gotrace/gotrace-keep-boots && has cmd lib/systemd/system/gotrace.service && [ "$(grep -c "^./lib/systemd/system/gotrace.*\.service\$" "$T/cmd.files")" -eq 5 ]'
check "gotrace: no module source" '! grep -q "^./usr/src" "$T/cmd.files"'
check "gotrace-dkms: only /usr/src/gotrace-$V, its docs and lintian overrides" '! grep -v -e "^./usr/src/gotrace-$V/" -e "^./usr/share/doc/gotrace-dkms/" -e "^./usr/share/lintian/overrides/gotrace-dkms\$" "$T/dkms.files" | grep -q .'
check "gotrace-dkms: dkms.conf of version $V, Kbuild, kmod/main.c" 'grep -qx "PACKAGE_VERSION=\"$V\"" "$T/dkms/usr/src/gotrace-$V/dkms.conf" && has dkms usr/src/gotrace-$V/Kbuild && has dkms usr/src/gotrace-$V/kmod/main.c'
check "gotrace-dkms depends on dkms" 'dpkg-deb -f "$DKMS" Depends | grep -q "^dkms"'
check "gotrace-dkms runs dkms at configure" 'dpkg-deb -e "$DKMS" "$T/dkms.ctl" && grep -q dkms "$T/dkms.ctl/postinst"'
"$T/cmd/usr/bin/gotrace" --version >"$T/version" 2>&1
check "the packaged command says $V and sd_notify" 'grep -q "^gotrace $V (device ABI version [0-9]*, sd_notify)\$" "$T/version"'
check "the units are Type=notify and run /usr/bin/gotrace" 'grep -qx "Type=notify" "$T/cmd/lib/systemd/system/gotrace-boot.service" && grep -q "^ExecStart=/usr/bin/gotrace record" "$T/cmd/lib/systemd/system/gotrace@.service"'

echo "1..$n"
[ "$failed" -eq 0 ]
