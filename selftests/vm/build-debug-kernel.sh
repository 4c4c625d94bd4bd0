#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-debug-kernel.sh DIR - build the debug kernel of `make check-debug`
# into DIR (DIR/obj: the build tree modules are built against; DIR/root:
# boot/vmlinuz-<release> and lib/modules/<release>), then touch DIR/.ready.
#
# The kernel is Debian's linux-source-6.12, configured by
# `make allnoconfig KCONFIG_ALLCONFIG=debug-kernel.config` and built with
# the host's gcc-12 (the compiler of Debian 12's own 6.12 packages).  The
# caller (lib.sh) names DIR after a hash of that config, the source
# package's version and the compiler, so a change of any of them builds
# anew and an unchanged one is reused.  The build runs at nice 10 with
# GT_DEBUG_JOBS (2) jobs; it takes minutes, see Documentation/measurements.rst.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -eq 1 ] || gt_die "usage: $0 DIR"
dir=$1
config=$GT_VM/debug-kernel.config
jobs=${GT_DEBUG_JOBS:-2}
start=$SECONDS

# The build tree refers to its source by absolute path: build in place,
# and mark the result ready only at the end.
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/src" "$dir/obj" "$dir/root/boot"
gt_log "debug kernel: fetching linux-source-6.12"
( cd "$dir/debs" && gt_apt_download linux-source-6.12 ) ||
	{ gt_apt_refresh && ( cd "$dir/debs" && gt_apt_download linux-source-6.12 ); } ||
	gt_die "cannot download linux-source-6.12"
dpkg-deb --fsys-tarfile "$dir"/debs/linux-source-6.12_*.deb |
	tar -xO --wildcards '*/linux-source-6.12.tar.xz' |
	nice -n 10 tar -xJ -C "$dir/src" --strip-components=1
rm -rf "$dir/debs"

kmake() {
	nice -n 10 make -s -C "$dir/src" O="$dir/obj" "$@"
}

gt_log "debug kernel: configuring"
kmake KCONFIG_ALLCONFIG="$config" allnoconfig >/dev/null
# Every option asked for must have survived Kconfig's dependencies.
lost=
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) grep -qxF "$line" "$dir/obj/.config" || lost="$lost $line" ;;
	esac
done < "$config"
[ -z "$lost" ] || gt_die "debug kernel: Kconfig dropped:$lost"

gt_log "debug kernel: building with $jobs jobs (takes minutes)"
if ! kmake -j"$jobs" bzImage modules > "$dir/build.log" 2>&1; then
	tail -n 40 "$dir/build.log" >&2
	gt_die "debug kernel build failed (log: $dir/build.log)"
fi
rel=$(gt_make_stdout -C "$dir/src" O="$dir/obj" kernelrelease)
case $rel in
*[!A-Za-z0-9._+-]* | "") gt_die "debug kernel: bad release '$rel'" ;;
esac
cp "$dir/obj/arch/x86/boot/bzImage" "$dir/root/boot/vmlinuz-$rel"
# modules.builtin and modules.dep, which gt_initramfs_base asks modprobe.
kmake INSTALL_MOD_PATH="$dir/root" modules_install >/dev/null
echo "$rel" > "$dir/release"
echo "$((SECONDS - start))" > "$dir/build-seconds"
touch "$dir/.ready"
gt_log "debug kernel $rel built in $((SECONDS - start)) s"
