# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# newer-suites.sh - Debian suites newer than the host's bookworm, for the
# "newest" kernels: a private apt state that sees trixie, trixie-backports
# and sid without touching the host's sources, and a trixie chroot with
# the compiler those kernels were built with (bookworm has gcc-12 only),
# and trixie's QEMU for the @mttcg boot.
#
# Sourced by lib.sh, never run.  Both live in $GT_STORE.

GT_NEWER_SUITES=${GT_NEWER_SUITES:-trixie trixie-backports sid}
GT_DEBIAN_MIRROR=${GT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
GT_NEWER_APT=$GT_STORE/apt-newer
GT_CHROOT=$GT_STORE/chroot/trixie

# gt_state_apt DIR ARCH CMD ARGS...: apt-get or apt-cache on the private
# apt state in DIR, for Debian architecture ARCH.  The archive's Release
# files of older suites are past their Valid-Until date; their
# signatures are still checked against the host's keyring.
gt_state_apt() {
	local d=$1 arch=$2 cmd=$3
	shift 3
	"$cmd" -q -o Dir::State="$d/state" -o Dir::State::status="$d/state/status" \
		-o Dir::Etc::SourceList="$d/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::Cache="$d/cache" -o APT::Architecture="$arch" \
		-o APT::Architectures::="$arch" \
		-o Acquire::Check-Valid-Until=false \
		-o APT::Sandbox::User=root "$@"
}

# gt_state_update DIR ARCH SOURCES [force]: fetch the package lists of
# the private state in DIR (SOURCES: its sources.list lines, one a line)
# if they are missing, older than 12 hours, or if asked to.
gt_state_update() {
	local d=$1 arch=$2 sources=$3 force=${4:-}
	mkdir -p "$d/state/lists/partial" "$d/cache/archives/partial"
	# No package is installed in this state: an empty dpkg status of its
	# own (apt refuses to parse /dev/null when it is not the device).
	[ -f "$d/state/status" ] || : > "$d/state/status"
	printf '%s\n' "$sources" > "$d/sources.list.new"
	if ! cmp -s "$d/sources.list.new" "$d/sources.list"; then
		mv "$d/sources.list.new" "$d/sources.list"
		rm -f "$d/updated"
	fi
	rm -f "$d/sources.list.new"
	if [ -z "$force" ] && [ -f "$d/updated" ] &&
	   [ -z "$(find "$d/updated" -mmin +720)" ]; then
		return 0
	fi
	gt_log "reading the $arch package lists of $(awk '{ printf " %s", $3 }' \
		"$d/sources.list")"
	gt_state_apt "$d" "$arch" apt-get update -qq >/dev/null ||
		gt_die "cannot read the $arch package lists ($d/sources.list)"
	touch "$d/updated"
}

gt_newer_sources() {
	local s
	for s in $GT_NEWER_SUITES; do
		echo "deb $GT_DEBIAN_MIRROR $s main"
	done
}

# gt_newer_apt CMD ARGS...: apt-get or apt-cache on the newer suites'
# state (amd64).
gt_newer_apt() {
	gt_state_apt "$GT_NEWER_APT" amd64 "$@"
}

# gt_newer_update [force]: the newer suites' amd64 lists, fresh.
gt_newer_update() {
	gt_state_update "$GT_NEWER_APT" amd64 "$(gt_newer_sources)" "$@"
}

# gt_chroot_sparse: the newest sparse of the newer suites in the chroot's
# /usr/local/bin.  Headers from 6.16 on use __typeof_unqual__, which
# trixie's sparse 0.6.4 rejects; sid's 0.6.5 reads it.  Only the sparse
# binary is used (it needs libc alone), so it is unpacked, not installed.
gt_chroot_sparse() {
	local root=$1 tmp
	[ -x "$root/usr/local/bin/sparse" ] && return 0
	gt_newer_update
	tmp=$(mktemp -d)
	( cd "$tmp" && gt_newer_apt apt-get download sparse >/dev/null ) ||
		gt_die "cannot download sparse from $GT_NEWER_SUITES"
	rm -rf "$root/opt/sparse"
	dpkg -x "$tmp"/sparse_*.deb "$root/opt/sparse"
	rm -rf "$tmp"
	ln -sf /opt/sparse/usr/bin/sparse "$root/usr/local/bin/sparse"
}

# gt_chroot_ready: a minimal trixie made with debootstrap, with what
# building a module needs (pahole for BTF, sparse for C=1).  Its apt, for
# compilers installed later (gt_chroot_compiler), skips Valid-Until too.
gt_chroot_ready() {
	local tmp=$GT_CHROOT.tmp
	if [ -f "$GT_CHROOT/.ready" ]; then
		gt_chroot_sparse "$GT_CHROOT"
		return 0
	fi
	command -v debootstrap >/dev/null ||
		gt_die "debootstrap is missing: run make deps"
	gt_log "making a trixie chroot in $GT_CHROOT (minutes, once)"
	rm -rf "$tmp"
	mkdir -p "$(dirname "$GT_CHROOT")"
	if ! debootstrap --variant=minbase \
		--include=gcc-14,make,libc6-dev,libelf-dev,bc,flex,bison,libssl-dev,dwarves,kmod,xz-utils,zstd \
		trixie "$tmp" "$GT_DEBIAN_MIRROR" > "$tmp.log" 2>&1; then
		tail -n 20 "$tmp.log" >&2
		gt_die "debootstrap trixie failed (log: $tmp.log)"
	fi
	gt_chroot_sparse "$tmp"
	echo 'Acquire::Check-Valid-Until "false";' \
		> "$tmp/etc/apt/apt.conf.d/90gotrace-valid-until"
	rm -rf "$GT_CHROOT" "$tmp.log"
	mv "$tmp" "$GT_CHROOT"
	touch "$GT_CHROOT/.ready"
}

# gt_chroot_in ROOT DIR... -- CMD ARGS...: run CMD in the Debian system
# at ROOT, with /dev, /proc, /sys, a /run of its own and each DIR
# bind-mounted at its own path, in a private mount namespace that
# disappears with the command (no mount outlives a failed build), with
# an environment of its own (apt asks no questions).
gt_chroot_in() {
	local root=$1 binds=()
	shift
	while [ "$1" != -- ]; do
		binds+=("$(readlink -f "$1")" "$1")
		shift
	done
	shift
	# shellcheck disable=SC2016
	unshare -m --propagation private /bin/sh -c '
		set -e
		root=$1
		shift
		mount --bind /dev "$root/dev"
		mount -t proc proc "$root/proc"
		mount -t sysfs sysfs "$root/sys"
		mount -t tmpfs tmpfs "$root/run"
		while [ "$1" != -- ]; do
			mkdir -p "$root$2"
			mount --bind "$1" "$root$2"
			shift 2
		done
		shift
		exec chroot "$root" /usr/bin/env -i \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' gt-chroot "$root" "${binds[@]}" -- "$@"
}

# gt_chroot_run DIR... -- CMD ARGS...: CMD in the trixie chroot, each DIR
# bind-mounted at its own path.
gt_chroot_run() {
	gt_chroot_in "$GT_CHROOT" "$@"
}

# gt_chroot_compiler CC: make sure the chroot has CC (e.g.
# x86_64-linux-gnu-gcc-14), installing its gcc-N package if not, or for
# a cross compiler (aarch64-linux-gnu-gcc-14) gcc-N-<triplet>.
gt_chroot_compiler() {
	local cc=$1 pkg
	pkg=${cc##*-linux-gnu-}
	case $cc in
	x86_64-linux-gnu-*) ;;
	*-linux-gnu-*)	pkg=$pkg-${cc%-gcc-*} ;;
	esac
	gt_chroot_ready
	[ -x "$GT_CHROOT/usr/bin/$cc" ] && return 0
	gt_log "installing $pkg in the trixie chroot"
	gt_chroot_run -- /bin/sh -c "apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $pkg" >/dev/null ||
		gt_die "cannot install $pkg in the chroot"
	[ -x "$GT_CHROOT/usr/bin/$cc" ] || gt_die "no $cc in the chroot"
}

# gt_chroot_qemu: make sure the chroot has trixie's qemu-system-x86
# (QEMU 10), installed once and kept with the chroot.  The @mttcg boot
# runs it (gt_qemu with GT_QEMU_FROM=trixie): bookworm's QEMU 7.2 loses
# the race between a vCPU and another one patching kernel text with
# int3 several times as often (Documentation/measurements.rst).
gt_chroot_qemu() {
	gt_chroot_ready
	[ -x "$GT_CHROOT/usr/bin/qemu-system-x86_64" ] && return 0
	gt_log "installing qemu-system-x86 in the trixie chroot"
	gt_chroot_run -- /bin/sh -c "apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends qemu-system-x86 && apt-get clean" \
		>/dev/null ||
		gt_die "cannot install qemu-system-x86 in the chroot"
	[ -x "$GT_CHROOT/usr/bin/qemu-system-x86_64" ] ||
		gt_die "no qemu-system-x86_64 in the chroot"
}
