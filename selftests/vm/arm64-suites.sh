# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# arm64-suites.sh - Debian's arm64 packages, for the arm64 kernels: two
# private apt states (newer-suites.sh's gt_state_apt) that see the arm64
# packages of the host's suites (bookworm, its updates, security and
# backports) and of the newer ones, without adding a foreign
# architecture to the host's dpkg.  Kernel packages are only downloaded
# and unpacked (gt_kernel_fetch), never installed.
#
# Sourced by lib.sh, never run.  Both states live in $GT_STORE.

GT_ARM64_APT=$GT_STORE/apt-arm64
GT_NEWER_ARM64_APT=$GT_STORE/apt-newer-arm64
GT_DEBIAN_SECURITY_MIRROR=${GT_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

gt_arm64_sources() {
	local s
	for s in bookworm bookworm-updates bookworm-backports; do
		echo "deb $GT_DEBIAN_MIRROR $s main"
	done
	echo "deb $GT_DEBIAN_SECURITY_MIRROR bookworm-security main"
}

# gt_arm64_apt CMD ARGS...: apt on the arm64 lists of bookworm's suites.
gt_arm64_apt() {
	gt_state_apt "$GT_ARM64_APT" arm64 "$@"
}

# gt_newer_arm64_apt CMD ARGS...: apt on the arm64 lists of the newer
# suites (GT_NEWER_SUITES).
gt_newer_arm64_apt() {
	gt_state_apt "$GT_NEWER_ARM64_APT" arm64 "$@"
}

# gt_arm64_update [force]: the arm64 lists of the suites GT_APT_NEWER
# selects, fresh (older than 12 hours, missing, or asked to).
gt_arm64_update() {
	if [ -n "$GT_APT_NEWER" ]; then
		gt_state_update "$GT_NEWER_ARM64_APT" arm64 \
			"$(gt_newer_sources)" "$@"
	else
		gt_state_update "$GT_ARM64_APT" arm64 "$(gt_arm64_sources)" "$@"
	fi
}
