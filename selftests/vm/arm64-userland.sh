# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# arm64-userland.sh - what an arm64 guest runs besides its kernel, made
# on this x86-64 machine: busybox, the guest tests' programs and a static
# gotrace, cross-built with gcc-aarch64-linux-gnu (the C ones) and
# GOARCH=arm64 (the Go ones).
#
# Sourced by lib.sh, never run.  The arm64 libraries the static gotrace
# links (libbpf, libelf, libdw, zlib, liblzma, libbz2) and busybox come
# from Debian's arm64 packages of the host's suites, downloaded with the
# private arm64 apt state (arm64-suites.sh) and unpacked into a sysroot in
# $GT_STORE: the host's dpkg never gets a foreign architecture.

GT_ARM64_CROSS=aarch64-linux-gnu-
# busybox-static: the guest's shell and tools.  The -dev packages: the
# .a and headers of every library the static gotrace links (user/Makefile,
# static: -ldw -lelf -lz -llzma -lbz2, and -lbpf with the BPF backend).
# libc6: the C library of the guest's one dynamic program, unwind_prog
# (lib.sh, gt_initramfs_libc): Debian's arm64 build, whose .eh_frame the
# unwinding by tables is for (the cross compiler's libc6-arm64-cross is
# another build); it has no .a, so the static links never see it.
GT_ARM64_SYSROOT_PKGS="busybox-static libbpf-dev libelf-dev libdw-dev
zlib1g-dev liblzma-dev libbz2-dev libc6"

# gt_arm64_sysroot: unpack the arm64 packages above into
# $GT_STORE/arm64/sysroot unless the versions there are those the archive
# has today; sets GT_ARM64_SYSROOT.
gt_arm64_sysroot() {
	local dir=$GT_STORE/arm64/sysroot tmp want p
	# The bookworm suites' arm64 state, whatever kernel is booted
	# (gt_arm64_update reads it).
	# shellcheck disable=SC2034
	local GT_APT_NEWER=
	GT_ARM64_SYSROOT=$dir
	gt_arm64_update
	# shellcheck disable=SC2086
	want=$(gt_arm64_apt apt-cache policy $GT_ARM64_SYSROOT_PKGS 2>/dev/null |
		awk '/^[^ ]/ { p = $1 } $1 == "Candidate:" { print p, $2 }')
	[ -n "$want" ] || gt_die "no arm64 package lists (arm64-suites.sh)"
	if [ -f "$dir/.ready" ] && [ "$(cat "$dir/.ready")" = "$want" ]; then
		return 0
	fi
	gt_log "unpacking the arm64 sysroot ($GT_ARM64_SYSROOT_PKGS)"
	mkdir -p "$GT_STORE/arm64"
	tmp=$(mktemp -d "$GT_STORE/arm64/.sysroot.XXXXXX")
	mkdir -p "$tmp/debs" "$tmp/root"
	# shellcheck disable=SC2086
	( cd "$tmp/debs" && gt_arm64_apt apt-get download -q \
		$GT_ARM64_SYSROOT_PKGS >/dev/null ) ||
		{ gt_arm64_update force && ( cd "$tmp/debs" &&
		  gt_arm64_apt apt-get download -q $GT_ARM64_SYSROOT_PKGS \
		  >/dev/null ); } ||
		gt_die "cannot download the arm64 $GT_ARM64_SYSROOT_PKGS"
	for p in "$tmp"/debs/*.deb; do
		dpkg -x "$p" "$tmp/root"
	done
	echo "$want" > "$tmp/root/.ready"
	# Another run may have made it meanwhile: the same packages.
	rm -rf "$dir"
	mv "$tmp/root" "$dir"
	rm -rf "$tmp"
}

# gt_vmlinux_btf IMAGE OUT: the kernel's BTF (what the running kernel
# shows in /sys/kernel/btf/vmlinux), cut out of the boot image IMAGE into
# OUT, for the arm64 BPF object's vmlinux.h (bpftool reads raw BTF).
# Debian's arm64 image is an uncompressed Image (an EFI executable, no
# ELF sections to ask; a gzipped one is unpacked first) and its
# System.map is a stub up to 6.x, so the blob is found by its header:
# magic 0xeb9f, version 1, flags 0 and a 24-byte header, whose section
# offsets and lengths give its size.  Exactly one such header must be
# there (6.1, 6.12 and 7.3 arm64 images: one each).
gt_vmlinux_btf() {
	local image=$1 out=$2 offs off
	# A gzipped Image (Image.gz, which QEMU unpacks itself): the blob is
	# looked for in the unpacked one.
	if [ "$(od -An -tx1 -N2 "$image" | tr -d ' ')" = 1f8b ]; then
		gzip -dc "$image" > "$out.image"
		image=$out.image
	fi
	offs=$(LC_ALL=C grep -obUaP '\x9f\xeb\x01\x00\x18\x00\x00\x00' \
		"$image" | cut -d: -f1)
	[ "$(echo "$offs" | grep -c .)" = 1 ] ||
		gt_die "not one BTF header in $image: ${offs:-none}"
	off=$offs
	# type_off, type_len, str_off, str_len: the strings end the blob.
	# shellcheck disable=SC2046
	set -- $(od -An -tu4 -j $((off + 8)) -N 16 "$image")
	[ $# -eq 4 ] || gt_die "cannot read the BTF header in $image"
	dd if="$image" of="$out.tmp" iflag=skip_bytes,count_bytes bs=1M \
		skip="$off" count=$((24 + $3 + $4)) status=none
	rm -f "$out.image"
	bpftool btf dump file "$out.tmp" format c > /dev/null ||
		gt_die "bpftool cannot read the BTF cut out of $image"
	mv "$out.tmp" "$out"
}

# gt_arm64_userland OUT: the arm64 guest's programs in OUT, for the
# kernel of gt_kernel_fetch, as selftests/gotrace/Makefile builds them
# for the x86-64 guest (the list,
# the shell tests, the C and Go programs, a static gotrace); the guest's
# busybox is the sysroot's ($GT_ARM64_SYSROOT/bin/busybox).  Built from a copy of the sources in
# $GT_CACHE/vm/arm64/src: the generated files of user/ (the syscall
# table, vmlinux.h, the BPF skeleton) are the host's in the tree.  The
# copy keeps the files' times, so make builds again only what changed.
gt_arm64_userland() {
	local out=$1 src=$GT_CACHE/vm/arm64/src
	gt_arm64_user_copy "$src" "$out"
	mkdir -p "$src/selftests"
	cp -a "$GT_ROOT/selftests/gotrace" "$src/selftests/"
	rm -rf "$src/selftests/gotrace/build"
	nice make -s -C "$src/selftests/gotrace" O="$out" \
		"${GT_ARM64_MAKE[@]}" GOARCH=arm64 \
		KSFT_DIR="$LSRC/tools/testing/selftests" >&2 ||
		gt_die "cannot cross-build the arm64 guest's programs"
}

# gt_arm64_user_copy SRC OUT: what both cross builds of user/ start
# from, after checking for the cross compiler and making the sysroot: a
# fresh copy in SRC of user/ and what it includes, without the
# generated files of user/ (the syscall table, vmlinux.h, the BPF
# skeleton), which are the host's: the cross build makes its own; OUT
# made; GT_ARM64_MAKE set (gt_arm64_make_vars).
gt_arm64_user_copy() {
	local src=$1 out=$2
	command -v "${GT_ARM64_CROSS}gcc" >/dev/null ||
		gt_die "no ${GT_ARM64_CROSS}gcc: run make deps"
	gt_arm64_sysroot
	rm -rf "$src"
	mkdir -p "$src" "$out"
	cp -a "$GT_ROOT/VERSION" "$GT_ROOT/include" "$GT_ROOT/kmod" \
		"$GT_ROOT/model" "$GT_ROOT/user" "$src/"
	rm -rf "$src/user/build" "$src/user/gen" "$src/user/gotrace" \
		"$src/user/syscall_table.h"
	gt_arm64_make_vars
}

# gt_arm64_make_vars: GT_ARM64_MAKE, the make variables of a cross build
# of user/ for the kernel of gt_kernel_fetch (after gt_arm64_sysroot): the
# compiler, the sysroot and, with the BPF backend, its object compiled
# against the BTF of that arm64 kernel (CO-RE: it loads on the others),
# kept beside that kernel in the store.  The libraries' presence is
# known here, not found by the compiler (STATIC_BPF).
gt_arm64_make_vars() {
	local btf
	btf=$(dirname "$KROOT")/vmlinux.btf
	[ -s "$btf" ] || gt_vmlinux_btf "$KIMAGE" "$btf"
	GT_ARM64_MAKE=(CC="${GT_ARM64_CROSS}gcc" SYSROOT="$GT_ARM64_SYSROOT"
		BPF=1 STATIC_BPF=1 VMLINUX_BTF="$btf" SYSTEMD=0)
}

# gt_arm64_gotrace SRC OUT: a static arm64 gotrace with the BPF backend,
# OUT/gotrace, for the kernel of gt_kernel_fetch, built from a copy of
# user/ (and what it includes) in SRC, as gt_arm64_userland builds the
# guest tests' (bench/run.sh).
gt_arm64_gotrace() {
	local src=$1 out=$2
	gt_arm64_user_copy "$src" "$out"
	nice make -s -C "$src/user" static O="$out" "${GT_ARM64_MAKE[@]}" >&2 ||
		gt_die "cannot cross-build the arm64 gotrace"
}
