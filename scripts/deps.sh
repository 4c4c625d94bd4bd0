#!/bin/sh
# Install what building, testing and demonstrating gotrace needs on a
# Debian 12 (bookworm) machine, from Debian's archive only.  Idempotent:
# when everything is present it prints nothing and changes nothing.
set -eu

BACKPORTS=/etc/apt/sources.list.d/gotrace-backports.sources

# Host tools.  qemu/busybox/cpio/kmod boot the test VM; libelf-dev, dwarves
# (pahole, for 6.12's BTF), bc, flex, bison, libssl-dev build modules;
# xz-utils/zstd unpack kernel modules; sparse is the C=1 checker; graphviz
# renders the profile pages of `go tool trace`; curl fetches those pages;
# time (GNU time) measures peak memory in bench/check.sh; debootstrap
# makes the trixie chroot that builds the module for Debian's newest
# kernels (built with gcc-14, which bookworm lacks).  clang, llvm,
# libbpf-dev and bpftool build the BPF capture backend (user/bpf/): clang
# compiles the programs, bpftool writes vmlinux.h and the skeleton,
# libbpf loads them; zlib1g-dev's libz.a (with libbpf.a and libelf.a)
# links it into the test VM's static gotrace, and zlib gzips the
# profiles of gotrace pprof (user/pprof.c, in the static command too);
# curl also asks Go's web UI for the profiles pprof_test.sh compares
# with.  libsystemd-dev and pkgconf
# give the command sd_notify for the systemd units; dpkg-dev, debhelper,
# dh-dkms and fakeroot build the Debian packages (make deb), lintian
# checks them, dkms builds their module against a kernel's headers.
# debootstrap also makes the systemd guest's Debian system, and
# e2fsprogs' mkfs.ext4 -d its disk image from a directory (no mount).
# libdw-dev (elfutils' libdw and libdwfl) names user-space frames for
# gotrace symbolize (user/trace/usym.c); its libdw.a, with libelf.a,
# libz.a, liblzma.a (liblzma-dev) and libbz2.a (libbz2-dev), links it
# into the static gotrace.  elfutils' eu-stack is the ground truth of
# user/tests/unwind_test.sh: the stack of a blocked process, unwound
# from the same .eh_frame tables by another unwinder than gotrace's.
# gcc-aarch64-linux-gnu cross-builds the module for Debian's arm64
# kernels (those built with gcc-12; the newest, built with gcc-14, in
# the trixie chroot, which installs its own cross gcc-14:
# selftests/vm/lib.sh), gives the arm64 syscall
# numbers of its headers to user/tests/syscall_arch_test.sh and
# cross-builds the arm64 guests' userland (selftests/vm/
# arm64-userland.sh: their busybox and libraries are Debian's arm64
# packages, unpacked into the store, not installed); qemu-system-arm
# (qemu-system-aarch64) boots them.  Its C library's headers
# (libc6-dev-arm64-cross, with linux-libc-dev-arm64-cross's
# <asm/unistd.h>) are only recommended by it, and recommends are not
# installed here: named, or a fresh machine's host tests fail.
# libclang-rt-dev holds clang's libFuzzer and sanitizer runtimes: the
# trace readers' fuzzers (make -C user fuzz) and the clang builds of
# their fuzz targets in make check.
PKGS="qemu-system-x86 qemu-system-arm busybox-static cpio kmod libelf-dev dwarves bc flex
bison libssl-dev xz-utils zstd sparse graphviz curl perl gcc make
libc6-dev time debootstrap clang llvm libbpf-dev bpftool zlib1g-dev
libsystemd-dev pkgconf dpkg-dev debhelper dh-dkms dkms fakeroot lintian
e2fsprogs libdw-dev elfutils liblzma-dev libbz2-dev gcc-aarch64-linux-gnu
libc6-dev-arm64-cross libclang-rt-dev"
# Go 1.21 and 1.23 are checkers of record; both come from backports
# (Go 1.27 too, but from trixie: go127.sh).
GO_PKGS="golang-1.21-go golang-1.23-go"

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi

missing=
for p in $PKGS $GO_PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || missing="$missing $p"
done
# Go 1.27 reads the generational formats Go 1.23 refuses: not in
# bookworm, so it is unpacked from trixie-backports into the cache.
go127() {
	"$(dirname "$0")/go127.sh"
}

if [ -z "$missing" ]; then
	go127
	exit 0
fi

if [ ! -f "$BACKPORTS" ]; then
	$SUDO tee "$BACKPORTS" >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

echo "deps: installing$missing"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
	--no-install-recommends $missing >/dev/null
go127
