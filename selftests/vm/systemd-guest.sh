# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# systemd-guest.sh - the second kind of VM guest: a Debian system made
# with debootstrap, booted with systemd as PID 1 from its own disk, with
# gotrace installed from its Debian packages (make deb) the way a user
# installs them.  run-systemd.sh builds and boots it; sd-guest-test is
# what it runs inside.
#
# Sourced by run-systemd.sh after lib.sh, never run.  Three layers:
#   1. the base: debootstrap --variant=minbase of the guest's suite with
#      systemd, udev, dbus, dkms and initramfs-tools, made once per
#      package list in $GT_STORE/systemd-guest/<suite>-<key>/base;
#   2. the kernel: the base plus the image package of the kernel under
#      test (downloaded like gt_kernel_fetch's) installed with apt,
#      which makes the kernel's own initramfs, and what its headers
#      need; the headers packages themselves are kept beside it, not
#      installed; once per kernel release, beside the base;
#   3. the run: a copy of layer 2 in which apt installs the gotrace
#      packages, then the kernel's headers packages (DKMS builds the
#      module when the headers arrive, as on a kernel upgrade), the test
#      unit, and an ext4 image of it made with mkfs.ext4 -d (no loop
#      mount, no root needed for the image itself).

# The guest's packages beyond minbase: systemd as init, udev and dbus as
# on any Debian system, dkms and what it builds with, initramfs-tools
# for the kernel package's initramfs, procps (ps, pkill for the load).
GT_SD_PACKAGES="systemd,systemd-sysv,udev,dbus,dkms,initramfs-tools,\
linux-base,zstd,xz-utils,kmod,gcc,make,libc6-dev,libelf-dev,pahole,procps"

# gt_sd_suite REL: the Debian suite a kernel release belongs to (its
# headers need the compiler of that suite: gcc-12 for +deb12, gcc-14
# for +deb13).
gt_sd_suite() {
	case $1 in
	*+deb13*) echo trixie ;;
	*+deb14*) echo forky ;;
	*) echo bookworm ;;
	esac
}

# gt_sd_base_dir SUITE: where the base of SUITE is, keyed by what makes
# it (the suite, the package list, this file's base recipe version).
gt_sd_base_dir() {
	local key
	key=$(printf '%s\n' "$1" "$GT_SD_PACKAGES" "$GT_DEBIAN_MIRROR" base-v1 |
		sha256sum | cut -c1-12)
	echo "$GT_STORE/systemd-guest/$1-$key"
}

# gt_sd_chroot ROOT CMD...: run CMD in the guest's system at ROOT
# (gt_chroot_in).
gt_sd_chroot() {
	local root=$1
	shift
	gt_chroot_in "$root" -- "$@"
}

# gt_sd_base SUITE: make the base of SUITE if it is not there.  Sets
# SD_BASE.
gt_sd_base() {
	local suite=$1 dir tmp
	dir=$(gt_sd_base_dir "$suite")
	SD_BASE=$dir/base
	mkdir -p "$dir"
	(
		flock 9
		[ -f "$SD_BASE/.ready" ] && exit 0
		command -v debootstrap >/dev/null ||
			gt_die "debootstrap is missing: run make deps"
		gt_log "making the $suite systemd guest in $SD_BASE (minutes, once)"
		tmp=$SD_BASE.tmp
		rm -rf "$tmp"
		if ! debootstrap --variant=minbase --include="$GT_SD_PACKAGES" \
			"$suite" "$tmp" "$GT_DEBIAN_MIRROR" > "$dir/debootstrap.log" 2>&1
		then
			tail -n 20 "$dir/debootstrap.log" >&2
			gt_die "debootstrap $suite failed (log: $dir/debootstrap.log)"
		fi
		gt_sd_configure "$tmp" "$suite"
		rm -rf "$SD_BASE"
		mv "$tmp" "$SD_BASE"
		touch "$SD_BASE/.ready"
	) 9> "$dir/.lock" || exit 1
}

# gt_sd_configure ROOT SUITE: what a Debian installer would have set up:
# the archive's suites for apt, the root file system in fstab, a host
# name; and what a test guest wants: no login prompt on the serial
# console (the tests' output goes there), no package cache.
gt_sd_configure() {
	local root=$1 suite=$2 s
	{
		echo "deb $GT_DEBIAN_MIRROR $suite main"
		echo "deb $GT_DEBIAN_MIRROR $suite-updates main"
		echo "deb http://deb.debian.org/debian-security $suite-security main"
	} > "$root/etc/apt/sources.list"
	# As for the newer suites' apt state (newer-suites.sh): this
	# archive's Release files of some suites are past their Valid-Until.
	echo 'Acquire::Check-Valid-Until "false";' \
		> "$root/etc/apt/apt.conf.d/90gotrace-valid-until"
	echo '/dev/vda / ext4 errors=remount-ro 0 1' > "$root/etc/fstab"
	echo gotrace-guest > "$root/etc/hostname"
	printf '127.0.0.1 localhost\n127.0.1.1 gotrace-guest\n' > "$root/etc/hosts"
	# An empty machine id: systemd makes one at first boot, which gives
	# each boot its own boot id and the guest no identity of the base's.
	: > "$root/etc/machine-id"
	for s in serial-getty@ttyS0.service getty@tty1.service \
		 apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
		 fstrim.timer; do
		ln -sf /dev/null "$root/etc/systemd/system/$s"
	done
	# Debian's initramfs with the drivers a virtio disk needs, not every
	# storage driver (MODULES=most): a third of the size, made faster.
	sed -i 's/^MODULES=.*/MODULES=list/' \
		"$root/etc/initramfs-tools/initramfs.conf"
	printf '%s\n' virtio_pci virtio_blk ext4 > \
		"$root/etc/initramfs-tools/modules"
	rm -f "$root"/var/cache/apt/archives/*.deb
}

# gt_sd_kernel_debs REL DIR: download the packages of kernel REL that a
# user installs (image and headers, with the headers' -common and kbuild
# packages) into DIR, from the suites gt_kernel_fetch took the kernel
# from (GT_APT_NEWER as it left it).
gt_sd_kernel_debs() {
	local rel=$1 dir=$2 pkgs
	pkgs="$(gt_image_packages "$rel") linux-headers-$rel"
	pkgs="$pkgs $(gt_apt apt-cache depends "linux-headers-$rel" |
		sed -n 's/^ *Depends: \(linux-\(headers-.*-common\(-rt\)\?\|kbuild-.*\)\)$/\1/p' |
		tr '\n' ' ')"
	mkdir -p "$dir"
	# 7.x: linux-image-<rel> is the wrapper a user installs, and it
	# depends on the signed image, linux-binary-<rel> (the harness
	# boots the unsigned one, the same kernel).
	case $pkgs in
	*linux-binary-unsigned-*)
		pkgs="${pkgs//linux-binary-unsigned-/linux-binary-} linux-image-$rel" ;;
	esac
	# shellcheck disable=SC2086
	( cd "$dir" && gt_apt_download $pkgs ) ||
		{ gt_apt_refresh && ( cd "$dir" && gt_apt_download $pkgs ); } ||
		gt_die "cannot download $pkgs"
}

# gt_sd_kernel REL: the base of REL's suite with kernel REL installed
# from its packages.  Sets SD_KROOT, and SD_KHEADERS to the directory of
# its headers packages: installed with everything they need, then
# removed again, so that a run can add them with nothing to download.
gt_sd_kernel() {
	local rel=$1 suite dir tmp target hdrs
	suite=$(gt_sd_suite "$rel")
	gt_sd_base "$suite"
	dir=$(gt_sd_base_dir "$suite")
	SD_KROOT=$dir/kernel-$rel
	SD_KHEADERS=$SD_KROOT.headers
	(
		flock 9
		[ -f "$SD_KROOT/.ready" ] && exit 0
		gt_log "installing kernel $rel in the $suite systemd guest"
		tmp=$SD_KROOT.tmp
		rm -rf "$tmp"
		cp -a "$SD_BASE" "$tmp"
		rm -f "$tmp/.ready"
		gt_sd_kernel_debs "$rel" "$tmp/tmp/kernel"
		# A kernel from backports (the newest: trixie-backports) needs
		# backports' linux-base too: as a user does, add the suite and
		# install with -t.
		target=
		if dpkg-deb -f "$tmp/tmp/kernel/linux-headers-$rel"_*.deb Version |
		   grep -q '~bpo'; then
			echo "deb $GT_DEBIAN_MIRROR $suite-backports main" \
				> "$tmp/etc/apt/sources.list.d/backports.list"
			target="-t $suite-backports"
		fi
		# apt resolves what the packages need from the suite (the
		# compiler, pahole, the initramfs tools): as a user's apt does.
		if ! gt_sd_chroot "$tmp" /bin/sh -c "apt-get update -qq &&
			apt-get install -y -q --no-install-recommends $target /tmp/kernel/*.deb" \
			> "$dir/$rel.log" 2>&1; then
			tail -n 30 "$dir/$rel.log" >&2
			gt_die "cannot install kernel $rel in the guest (log: $dir/$rel.log)"
		fi
		# The headers go again (their dependencies stay): each run adds
		# them after gotrace-dkms, and DKMS must build then.
		rm -rf "$tmp.headers"
		mkdir -p "$tmp.headers"
		mv "$tmp"/tmp/kernel/linux-headers-*.deb \
		   "$tmp"/tmp/kernel/linux-kbuild-*.deb "$tmp.headers/"
		hdrs=$(for f in "$tmp.headers"/*.deb; do dpkg-deb -f "$f" Package; done)
		# shellcheck disable=SC2086
		gt_sd_chroot "$tmp" dpkg --purge $hdrs >> "$dir/$rel.log" 2>&1 ||
			gt_die "cannot remove $rel's headers in the guest (log: $dir/$rel.log)"
		rm -rf "$tmp/tmp/kernel" "$tmp"/var/cache/apt/archives/*.deb
		[ -f "$tmp/boot/initrd.img-$rel" ] ||
			gt_die "no initramfs for $rel in the guest"
		rm -rf "$SD_KROOT" "$SD_KHEADERS"
		mv "$tmp.headers" "$SD_KHEADERS"
		mv "$tmp" "$SD_KROOT"
		touch "$SD_KROOT/.ready"
	) 9> "$SD_KROOT.lock" || exit 1
}
