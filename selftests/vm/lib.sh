# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib.sh - shared pieces of the VM test harness: where things live, how a
# kernel name ("6.1", "6.12", "6.12-rt") becomes Debian packages unpacked
# into the repository's cache, and how the module is built against them.
#
# Sourced, never run.  Everything downloaded goes under $GT_CACHE (the
# git-ignored .cache/ of the repository) and is reused by later runs.

GT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GT_CACHE=${GT_CACHE:-$GT_ROOT/.cache}
GT_VM=$GT_ROOT/selftests/vm

# Builds that take minutes and change rarely (the debug kernel, the
# trixie chroot) and the downloaded kernels go to $GT_STORE: the cache by
# default; CI points it outside its fresh clone (.ci/run) to reuse them.
GT_STORE=${GT_STORE:-$GT_CACHE}

gt_log() { printf '%s\n' "$*" >&2; }
gt_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# gt_make_stdout ARGS...: make, for a caller that captures what it prints.
# These scripts run under `make check`, whose MAKEFLAGS and MAKELEVEL make
# every sub-make print "make[N]: Entering directory ..." on stdout (the
# kernel's own Makefile recurses into O=): the capture would hold those
# lines too.  Run make as if from a shell instead.
gt_make_stdout() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
		make --no-print-directory -s "$@"
}

# Kernel names: the three series of Debian 12 (bookworm), "newest" and
# "newest-rt" (the highest release that trixie, trixie-backports or sid
# offer today, resolved at every run), and "debug" (built here, see
# build-debug-kernel.sh).  Each Debian one with "-arm64" appended names
# Debian's arm64 kernel of the same series (6.12-arm64, newest-rt-arm64),
# cross-built for from here.
GT_KERNEL_NAMES="6.1 6.12 6.12-rt newest newest-rt debug"
GT_KERNEL_NAMES_ARM64="6.1-arm64 6.12-arm64 6.12-rt-arm64 newest-arm64
newest-rt-arm64"
# What make check-arm64 runs: every arm64 kernel, booted by
# qemu-system-aarch64 (gt_qemu_machine).  make check's default list has
# one of them, 6.12-arm64 (below); the others' runs add what 6.1, the
# rt and the newest add on x86-64, for an arm64 guest under TCG that is
# slower than an x86-64 one (Documentation/measurements.rst).
GT_KERNELS_ARM64="newest-arm64 6.12-rt-arm64 newest-rt-arm64 6.1-arm64
6.12-arm64"
# What make check runs: every Debian kernel, the debug kernel, four
# boot configurations (8 vCPUs; more possible CPUs than online ones;
# multi-threaded TCG; a clock that counts instructions), the systemd
# guest (run-systemd.sh) on Debian 12's 6.12 and the newest, and arm64's
# 6.12, the slowest first, since run-kernels.sh boots
# two at a time in this order, and the shortest last, so that neither
# slot idles long at the end (the full run of 2026-11-25 ended with
# @mttcg alone for 4 minutes).  possible_cpus= makes CPUs possible on
# 6.1 only: later kernels size the possible mask from the firmware's
# tables alone, which list 2.
GT_KERNELS_DEFAULT="debug 6.12-arm64 newest newest-rt 6.12@8cpus 6.12-rt
6.12@mttcg 6.1 6.12 6.1@maxcpus64 6.12@icount newest@systemd 6.12@systemd
6.12@isolated"

# The guest tests of the @mttcg boot (run-kernel.sh): those whose load
# makes CPUs meet in the model's cross-CPU paths, in both formats (a
# plain name records go1.23, go111:NAME go1.11: selftests/gotrace/Makefile).
GT_MTTCG_TESTS=sched_test.sh,cross_cpu_test.sh,hotplug_test.sh,syscall_test.sh,\
generations_test.sh,stress_go123_test.sh,go111:sched_test.sh,go111:cross_cpu_test.sh,\
go111:hotplug_test.sh,go111:syscall_test.sh
# The guest tests of the @icount boot: the CPU samples', whose count
# must match the CPU time the workloads used, in both backends.
GT_ICOUNT_TESTS=cpusample_test.sh,bpf:cpusample_test.sh
# The guest tests of the @8cpus boot: those whose load spreads over the
# CPUs (storms, cross-CPU wakeups, hotplug, overflow); the others do the
# same on 8 CPUs as on 2, four times slower under single-threaded TCG.
# In go1.11 only those where the number of CPUs sizes something of that
# format, its chunk pool (overflow, online_cpus): its cross-CPU chunks
# and hotplug are driven with CPUs that really run at once on @mttcg,
# and its sched and syscall tests on 8 CPUs were 36 s of guest time and
# 9 MB of traces to check.  device_test runs once: what it does in
# go1.11 under load, the overload and the chunk pool, it asks for in its
# options whatever the default (17 s saved).
GT_8CPUS_TESTS=device_test,sched_test.sh,syscall_test.sh,cross_cpu_test.sh,\
hotplug_test.sh,overflow_go123_test.sh,exit_loss_go123_test.sh,online_cpus_test.sh,\
generations_test.sh,go111:overflow_test.sh,go111:online_cpus_test.sh,\
dmesg_clean_test.sh
# The guest tests of the @maxcpus64 boot: those where the number of
# possible, online and recorded CPUs matters.  In go1.11 only those
# where it sizes something of that format: the chunk pool and its
# reserve (flush_reserve, online_cpus) and the Ps of CPUs that come and
# go (hotplug); device_test's go1.11 pool and overload are asked for in
# its options, and sched, command and cross_cpu count nothing by CPU
# that differs between the formats (49 s of guest time saved).
GT_MAXCPUS_TESTS=device_test,sched_test.sh,command_test.sh,hotplug_test.sh,\
cross_cpu_test.sh,flush_reserve_test.sh,online_cpus_test.sh,\
go111:hotplug_test.sh,go111:flush_reserve_test.sh,go111:online_cpus_test.sh,\
dmesg_clean_test.sh

# The guest tests of the @isolated boot (CPU 1 isolated): the sampler
# leaves isolated CPUs alone by default (cpu-samples.rst).  Elsewhere
# isolated_test.sh skips.
GT_ISOLATED_TESTS=isolated_test.sh,dmesg_clean_test.sh

# shellcheck source=newer-suites.sh
. "$GT_VM/newer-suites.sh"
# shellcheck source=arm64-suites.sh
. "$GT_VM/arm64-suites.sh"
# shellcheck source=arm64-userland.sh
. "$GT_VM/arm64-userland.sh"

# gt_kernel_arch NAME|RELEASE: the Debian architecture of a kernel
# (amd64 or arm64), from its name (6.12-arm64) or release
# (6.12.117+deb12-arm64).
gt_kernel_arch() {
	case $1 in
	*-arm64) echo arm64 ;;
	*)	echo amd64 ;;
	esac
}

# gt_apt CMD ARGS...: apt-get or apt-cache for kernel NAME's suites:
# the host's own sources, or the private state of newer-suites.sh when
# GT_APT_NEWER is set (gt_kernel_fetch sets it for the newest kernels);
# for an arm64 kernel (GT_KARCH=arm64) the private arm64 state of the
# same suites (arm64-suites.sh).  gt_apt_host is the amd64 twin of the
# same suites, for the build tools that run here.
GT_APT_NEWER=
GT_KARCH=amd64
gt_apt() {
	case $GT_KARCH${GT_APT_NEWER:+-newer} in
	amd64)		"$@" ;;
	amd64-newer)	gt_newer_apt "$@" ;;
	arm64)		gt_arm64_apt "$@" ;;
	arm64-newer)	gt_newer_arm64_apt "$@" ;;
	*)		gt_die "no apt state for $GT_KARCH" ;;
	esac
}

gt_apt_host() {
	if [ -n "$GT_APT_NEWER" ]; then
		gt_newer_apt "$@"
	else
		"$@"
	fi
}

# apt-get download as root drops to _apt, which cannot write everywhere:
# keep the download as the caller.
gt_apt_download() {
	gt_apt apt-get download -q -o APT::Sandbox::User=root "$@" >/dev/null
}

# Ask the archive again once if a name cannot be resolved or fetched: the
# package lists of a long-lived machine go stale as point releases move.
gt_apt_refreshed=
gt_apt_refresh() {
	[ -n "$gt_apt_refreshed" ] && return 1
	gt_apt_refreshed=1
	gt_log "refreshing the package lists"
	if [ "$GT_KARCH" = arm64 ]; then
		gt_arm64_update force
	fi
	if [ -n "$GT_APT_NEWER" ]; then
		gt_newer_update force
	elif [ "$(id -u)" -eq 0 ]; then
		apt-get update -qq >/dev/null
	else
		sudo apt-get update -qq >/dev/null
	fi
}

# gt_resolve_release NAME -> the kernel release the archive has today, e.g.
# 6.1 -> 6.1.0-56-amd64, 6.12 -> 6.12.117+deb12-amd64, 6.12-rt ->
# 6.12.117+deb12-rt-amd64, newest -> 7.3.4+deb13-amd64, 6.12-arm64 ->
# 6.12.117+deb12-arm64.  The meta packages name the current ABI in their
# Depends; the highest release of the wanted series wins (for the newest,
# across every version of the meta package the newer suites hold).  The
# caller sets GT_KARCH and GT_APT_NEWER for NAME (gt_kernel_fetch).
gt_resolve_release() {
	local name=$1 meta pattern a
	a=$(gt_kernel_arch "$name")
	case ${name%-arm64} in
	6.1)	meta=linux-image-$a; pattern="linux-image-6\\.1\\.[0-9-]*-$a" ;;
	6.12)	meta=linux-image-6.12-$a
		pattern="linux-image-6\\.12\\.[0-9]*+deb12-$a" ;;
	6.12-rt) meta=linux-image-6.12-rt-$a
		pattern="linux-image-6\\.12\\.[0-9]*+deb12-rt-$a" ;;
	newest)	meta=linux-image-$a
		pattern="linux-image-[0-9][0-9.]*+deb[0-9]*-$a" ;;
	newest-rt) meta=linux-image-rt-$a
		pattern="linux-image-[0-9][0-9.]*+deb[0-9]*-rt-$a" ;;
	*)	gt_die "unknown kernel '$name' (known: $GT_KERNEL_NAMES $GT_KERNEL_NAMES_ARM64)" ;;
	esac
	gt_apt apt-cache show "$meta" 2>/dev/null | sed -n 's/^Depends: //p' |
		tr ',' '\n' | grep -o "$pattern" | sed 's/^linux-image-//' |
		sort -V | tail -n 1
}

# gt_image_packages REL: the packages that hold the bootable image and
# the modules of REL.  Up to 6.x, linux-image-<rel>; from 7.x Debian
# splits it: linux-image-<rel> is an empty wrapper, the image is in
# linux-binary-unsigned-<rel>, System.map and modules.builtin in
# linux-base-<rel>, the modules in linux-modules-<rel>.
gt_image_packages() {
	local rel=$1
	if gt_apt apt-cache show "linux-binary-unsigned-$rel" >/dev/null 2>&1; then
		echo "linux-binary-unsigned-$rel linux-base-$rel linux-modules-$rel"
	else
		echo "linux-image-$rel"
	fi
}

# gt_kernel_paths DIR: set KROOT, KHDR, KIMAGE, KCC, KARCH and KCROSS for
# the release KREL unpacked in DIR.  KCC is the compiler the kernel was
# built with (its headers' .kernelvariables), as this machine's Debian
# names it (a cross compiler for arm64); KIMAGE is where the package put
# the image (/boot up to 6.x, /usr/lib/modules/<rel>/ from 7.x).  KARCH
# and KCROSS are the ARCH= and CROSS_COMPILE= of a build against KHDR:
# both empty for amd64; arm64 and aarch64-linux-gnu- for arm64.
gt_kernel_paths() {
	local dir=$1 f triplet=x86_64-linux-gnu-
	KARCH=
	KCROSS=
	if [ "$(gt_kernel_arch "$KREL")" = arm64 ]; then
		KARCH=arm64
		KCROSS=aarch64-linux-gnu-
		triplet=$KCROSS
	fi
	KROOT=$dir/root
	KHDR=$KROOT/usr/src/linux-headers-$KREL
	KIMAGE=
	for f in "$KROOT/boot/vmlinuz-$KREL" \
		 "$KROOT/usr/lib/modules/$KREL/vmlinuz.unsigned" \
		 "$KROOT/usr/lib/modules/$KREL/vmlinuz"; do
		[ -f "$f" ] && { KIMAGE=$f; break; }
	done
	KCC=$(sed -n "s/^CC = .*)\\(gcc-[0-9]*\\)\$/$triplet\\1/p" \
		"$KHDR/.kernelvariables" 2>/dev/null)
	KCC=${KCC:-${KCROSS}gcc}
}

# gt_kernel_fetch NAME: make sure the image, headers and modules of the
# current release of NAME are unpacked in the cache.  Sets KREL (release),
# KROOT (unpacked root), KHDR (headers dir for M= builds), KIMAGE (the
# image to boot) and KCC (the compiler of the kernel).
gt_kernel_fetch() {
	local name=$1 dir tmp pkgs p hdr_makefile common checker deps kbuild
	if [ "$name" = debug ]; then
		GT_KARCH=amd64
		gt_debug_kernel_fetch
		return
	fi
	GT_APT_NEWER=
	GT_KARCH=$(gt_kernel_arch "$name")
	case ${name%-arm64} in
	newest|newest-rt) GT_APT_NEWER=1; gt_newer_update ;;
	esac
	[ "$GT_KARCH" = amd64 ] || gt_arm64_update
	KREL=$(gt_resolve_release "$name")
	if [ -z "$KREL" ] && gt_apt_refresh; then
		KREL=$(gt_resolve_release "$name")
	fi
	[ -n "$KREL" ] || gt_die "no current Debian package for kernel $name"
	dir=$GT_STORE/kernels/$KREL
	if [ -f "$dir/.ready" ]; then
		gt_kernel_paths "$dir"
		return 0
	fi

	gt_log "fetching kernel $KREL"
	rm -rf "$dir"
	tmp=$dir.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp/debs" "$tmp/root"
	# The headers package names its -common tree and kbuild tools.
	pkgs="$(gt_image_packages "$KREL") linux-headers-$KREL"
	deps=$(gt_apt apt-cache depends "linux-headers-$KREL" |
		sed -n 's/^ *Depends: \(linux-\(headers-.*-common\(-rt\)\?\|kbuild-.*\)\)$/\1/p' |
		tr '\n' ' ')
	# The kbuild tools (fixdep, modpost...) run here: an arm64 kernel's
	# come from the amd64 package of the same series (its name holds
	# the series: linux-kbuild-6.1, linux-kbuild-6.12.117+deb12).  Its
	# version may differ by a rebuild (6.1.192-3 for headers 6.1.192-2).
	kbuild=
	if [ "$GT_KARCH" != amd64 ]; then
		for p in $deps; do
			case $p in
			linux-kbuild-*)	kbuild=$p ;;
			*)		pkgs="$pkgs $p" ;;
			esac
		done
		[ -n "$kbuild" ] || gt_die "linux-headers-$KREL needs no linux-kbuild"
	else
		pkgs="$pkgs $deps"
	fi
	# shellcheck disable=SC2086
	( cd "$tmp/debs" && gt_apt_download $pkgs ) ||
		{ gt_apt_refresh && ( cd "$tmp/debs" && gt_apt_download $pkgs ); } ||
		gt_die "cannot download $pkgs"
	if [ -n "$kbuild" ]; then
		( cd "$tmp/debs" && gt_apt_host apt-get download -q \
			-o APT::Sandbox::User=root "$kbuild" >/dev/null ) ||
			gt_die "cannot download the amd64 $kbuild"
	fi
	for p in "$tmp"/debs/*.deb; do
		dpkg -x "$p" "$tmp/root"
	done
	# The headers Makefile names the -common tree by absolute path (and
	# from 7.x its own tree too, in KBUILD_OUTPUT=): point every
	# /usr/src/ of it into the cache.
	hdr_makefile=$tmp/root/usr/src/linux-headers-$KREL/Makefile
	common=$(sed -n 's|^include /usr/src/\(.*\)/Makefile$|\1|p' "$hdr_makefile")
	[ -n "$common" ] || gt_die "unexpected $hdr_makefile"
	sed -i "s|/usr/src/|$dir/root/usr/src/|g" "$hdr_makefile"
	# From 6.16 the kernel's Makefile asks its checker-valid.sh whether sparse
	# works, and the headers package lacks that script: C=1 would check
	# nothing.  Ours answers the same question: does the checker run?
	checker=$tmp/root/usr/src/$common/scripts/checker-valid.sh
	if grep -q checker-valid.sh "$tmp/root/usr/src/$common/Makefile" &&
	   [ ! -e "$checker" ]; then
		printf '%s\n' '#!/bin/sh' \
			'"$@" -E -x c /dev/null >/dev/null 2>&1 && echo 1' \
			> "$checker"
		chmod +x "$checker"
	fi
	# 7.x installs modules under /usr/lib only; depmod and modprobe -d
	# look in <root>/lib.
	if [ ! -e "$tmp/root/lib" ] && [ -d "$tmp/root/usr/lib/modules" ]; then
		ln -s usr/lib "$tmp/root/lib"
	fi
	# The package ships no modules.dep; modprobe needs it to order loads.
	depmod -b "$tmp/root" "$KREL"
	rm -rf "$tmp/debs"
	mv "$tmp" "$dir"
	touch "$dir/.ready"
	gt_kernel_paths "$dir"
	[ -n "$KIMAGE" ] || gt_die "no kernel image in $pkgs"
}

# gt_debug_kernel_fetch: the debug kernel, built once per configuration
# (build-debug-kernel.sh).  Its build tree serves as KHDR.
gt_debug_kernel_fetch() {
	local dir
	GT_APT_NEWER=
	dir=$(gt_debug_kernel_dir)
	mkdir -p "$(dirname "$dir")"
	# One build at a time: another run (CI, a second worktree) waits for
	# it and then uses it.
	(
		flock 9
		[ -f "$dir/.ready" ] || "$GT_VM/build-debug-kernel.sh" "$dir"
	) 9> "$dir.lock" || gt_die "cannot build the debug kernel"
	KREL=$(cat "$dir/release")
	KROOT=$dir/root
	KHDR=$dir/obj
	KIMAGE=$KROOT/boot/vmlinuz-$KREL
	KCC=gcc
	KARCH=
	KCROSS=
}

# gt_linux_source: kselftest headers and checkpatch from Debian's
# linux-source package, unpacked once per version of the package into
# $GT_STORE/linux-source/ (kept across CI's clean clones: fetching and
# unpacking it took every run a download of 140 MB and the CPU to
# decompress all of it, before the host checks could end).
gt_linux_source() {
	local dst tmp pkg ver tarball
	pkg=$(apt-cache depends linux-source 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-source-6\.1\)$/\1/p')
	pkg=${pkg:-linux-source-6.1}
	ver=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	dst=$GT_STORE/linux-source/$pkg-${ver:-unknown}
	LSRC=$dst
	[ -f "$dst/.ready" ] && return 0
	gt_log "fetching $pkg $ver (checkpatch, kselftest headers)"
	mkdir -p "$GT_STORE/linux-source"
	tmp=$(mktemp -d "$GT_STORE/linux-source/.new.XXXXXX")
	( cd "$tmp" && gt_apt_download "$pkg" ) ||
		{ gt_apt_refresh && ( cd "$tmp" && gt_apt_download "$pkg" ); } ||
		gt_die "cannot download $pkg"
	dpkg -x "$tmp"/*.deb "$tmp/x"
	tarball=$(find "$tmp/x" -name 'linux-source-*.tar.xz' | head -n 1)
	[ -n "$tarball" ] || gt_die "no source tarball in $pkg"
	mkdir -p "$tmp/src"
	tar -xJf "$tarball" -C "$tmp/src" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' \
		'*/tools/testing/selftests/kselftest.h' \
		'*/tools/testing/selftests/kselftest_harness.h'
	touch "$tmp/src/.ready"
	# Another run may have filled the cache meanwhile.
	if [ ! -f "$dst/.ready" ]; then
		rm -rf "$dst"
		mv "$tmp/src" "$dst"
	fi
	rm -rf "$tmp"
}

# gt_kbuild DIR LOG [ARGS...]: make the out-of-tree modules of DIR
# (M=DIR) against KHDR of gt_kernel_fetch, with ARGS, its output in LOG;
# status 0 if make succeeded.  Cross-built for an arm64 kernel
# (gt_kernel_paths); a kernel built with a compiler the host lacks
# (gcc-14 for the newest, or its arm64 twin) is built for in the trixie
# chroot.  GT_KBUILD_WHERE says where: "host" or "trixie chroot (CC)".
# gt_build_module and bench/run.sh build this way.
gt_kbuild() {
	local dir=$1 log=$2 cross=()
	shift 2
	[ -z "$KARCH" ] || cross=(ARCH="$KARCH" CROSS_COMPILE="$KCROSS")
	if command -v "$KCC" >/dev/null; then
		GT_KBUILD_WHERE=host
		make -s -C "$KHDR" M="$dir" "${cross[@]}" "$@" modules \
			>"$log" 2>&1
	else
		GT_KBUILD_WHERE="trixie chroot ($KCC)"
		gt_chroot_compiler "$KCC"
		gt_chroot_run "$(dirname "$KROOT")" "$dir" -- \
			make -s -C "$KHDR" M="$dir" "${cross[@]}" "$@" modules \
			>"$log" 2>&1
	fi
}

# gt_build_module NAME: build kmod/gotrace.ko for kernel NAME out of
# tree, from a copy of the sources in its build dir, with W=1 and
# sparse; any compiler or sparse warning fails.  A kernel built with a
# compiler the host lacks (gcc-14 for the newest) is built for in the
# trixie chroot, with that chroot's sparse.  Sets KMOD to the built
# module.  The boots of one kernel (6.12, 6.12@8cpus, 6.12@mttcg...)
# share its build: it is kept, keyed by the module's sources and the
# kernel's release and build tree (the debug kernel's tree is named after
# its config), and made again only when they change (a build with
# sparse is a minute of CPU; run-kernel.sh holds its preparation lock
# from here until it has copied KMOD).
gt_build_module() {
	local name=$1 bdir log check=C=1 where=host key
	gt_kernel_fetch "$name"
	bdir=$GT_CACHE/build/$name
	key=$( (echo "$KREL $KHDR"
		cd "$GT_ROOT" && find Kbuild kmod model include -type f \
			\( -name '*.[ch]' -o -name Kbuild -o -name '*.sh' \) \
			! -name '*.mod.c' ! -name syscall_names.h | LC_ALL=C sort |
			xargs sha256sum) | sha256sum | cut -c1-16)
	KMOD=$bdir/kmod/gotrace.ko
	if [ -f "$KMOD" ] && [ "$(cat "$bdir/.key" 2>/dev/null)" = "$key" ]; then
		gt_log "gotrace.ko for $KREL: built already ($bdir)"
		return 0
	fi
	rm -rf "$bdir"
	mkdir -p "$bdir"
	cp -r "$GT_ROOT/Kbuild" "$GT_ROOT/kmod" "$GT_ROOT/model" "$GT_ROOT/include" \
		"$bdir/"
	log=$bdir/build.log
	# KASAN's redzones grow stack frames: the 2048-byte warning of
	# Debian's kernels (checked there) becomes 3072 on the debug kernel.
	local kcflags=''
	[ "$name" = debug ] && kcflags=-Wframe-larger-than=3072
	# Sparse where the compiler runs: the host's, or the chroot's.
	if command -v "$KCC" >/dev/null; then
		command -v sparse >/dev/null || check=
	fi
	if ! gt_kbuild "$bdir" "$log" W=1 $check ${kcflags:+KCFLAGS="$kcflags"}
	then
		cat "$log" >&2
		gt_die "module build failed for $KREL"
	fi
	where=$GT_KBUILD_WHERE
	# Kbuild turns C=1 off with a message if sparse does not run.
	if grep -E 'warning:|error:|not available or not up to date' "$log" >&2
	then
		gt_die "module build for $KREL is not warning-free"
	fi
	[ -f "$KMOD" ] || gt_die "no $KMOD"
	echo "$key" > "$bdir/.key"
	[ "$where" = host ] || gt_log "built gotrace.ko for $KREL in the $where"
}

# gt_initramfs_base ROOT INIT: a busybox root in ROOT with INIT as /init,
# what every init sources as /lib/guest-lib.sh,
# and the bus drivers the kernel of gt_kernel_fetch has as modules (6.1
# builds virtio_pci and virtio_console as modules, 6.12 in), and FUSE
# where it is a module (mmlock_test.sh; a kernel without it skips that
# test), listed in load order in /lib/modules/load-order.  The busybox is the host's
# (busybox-static), or GT_GUEST_BUSYBOX's for another architecture's
# guest (arm64-userland.sh).
gt_initramfs_base() {
	local root=$1 ko base
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,out,lib/modules}
	cp "${GT_GUEST_BUSYBOX:-/bin/busybox}" "$root/bin/busybox"
	cp "$2" "$root/init"
	cp "$GT_VM/guest-lib.sh" "$root/lib/guest-lib.sh"
	: > "$root/lib/modules/load-order"
	{
		modprobe -d "$KROOT" -S "$KREL" --show-depends -a virtio_pci \
			virtio_console
		modprobe -d "$KROOT" -S "$KREL" --show-depends fuse \
			2> /dev/null || true
		modprobe -d "$KROOT" -S "$KREL" --show-depends virtio_blk \
			2> /dev/null || true
	} | sed -n 's/^insmod \([^ ]*\).*/\1/p' |
		awk '!seen[$0]++' |
	while read -r ko; do
		base=$(basename "$ko")
		case $ko in
		*.xz)	xz -dc "$ko" > "$root/lib/modules/${base%.xz}"
			base=${base%.xz} ;;
		*.zst)	zstd -qdc "$ko" > "$root/lib/modules/${base%.zst}"
			base=${base%.zst} ;;
		*)	cp "$ko" "$root/lib/modules/$base" ;;
		esac
		echo "$base" >> "$root/lib/modules/load-order"
	done
}

# gt_initramfs_libc ROOT PROGRAM: in ROOT, the C library PROGRAM (a
# dynamic program for the kernel of gt_kernel_fetch: unwind_test.sh's
# unwind_prog) runs with: Debian's libc.so.6 and dynamic loader of that
# architecture, in /lib/TRIPLET, where Debian has them and the loader
# looks, and the loader again where PROGRAM's PT_INTERP names it.
# x86-64's are the host's own files, the ones its unwind_test.sh walks
# and names, built without frame pointers as Debian builds; arm64's are
# Debian's arm64 libc6, unpacked in the arm64 sysroot (arm64-userland.sh),
# whose functions keep frame records (gcc's default there).
gt_initramfs_libc() {
	local root=$1 prog=$2 from= triplet=x86_64-linux-gnu interp dir f
	if [ "$(gt_kernel_arch "$KREL")" = arm64 ]; then
		from=$GT_ARM64_SYSROOT
		triplet=aarch64-linux-gnu
	fi
	interp=$(readelf -lW "$prog" |
		sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	[ -n "$interp" ] || gt_die "$prog names no dynamic loader"
	# Debian 12's libc6 is in /lib/TRIPLET, later ones' in /usr/lib.
	dir=$from/lib/$triplet
	[ -e "$dir/libc.so.6" ] || dir=$from/usr/lib/$triplet
	mkdir -p "$root/lib/$triplet" "$root$(dirname "$interp")"
	for f in libc.so.6 "$(basename "$interp")"; do
		cp -L "$dir/$f" "$root/lib/$triplet/" ||
			gt_die "cannot copy $dir/$f into the initramfs"
	done
	f=/lib/$triplet/$(basename "$interp")
	[ "$interp" = "$f" ] || ln -sf "$f" "$root$interp"
}

# gt_initramfs_pack ROOT OUT: ROOT as a gzipped cpio archive in OUT.
gt_initramfs_pack() {
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) > "$2"
}

# gt_qemu TIMEOUT ACCEL CPUS MEM WORK APPEND: boot the kernel of
# gt_kernel_fetch with WORK/initramfs.gz under a host-side timeout; the
# console goes to WORK/console.log (and, without its \r, console.log.txt),
# what the guest sends to its "gtout" virtio-serial port to WORK/out.tar,
# unpacked into WORK/out.  Sets GT_QEMU_RC to QEMU's exit status: the
# guest's verdict N written to the isa-debug-exit port is (N << 1) | 1,
# 124 a timeout.
# no_timer_check: on a loaded host, emulation can be too slow for the
# kernel's boot-time check that the IO-APIC timer ticks, which then
# panics ("IO-APIC + timer doesn't work!"; seen on 7.3 under load).
# Warnings reach the console too (loglevel=5) for kernel-reports.sh.
# One host thread runs all vCPUs by default (thread=single): multi-
# threaded TCG lets a vCPU run kernel text another vCPU is patching with
# int3, and a stock kernel dies with "Oops: int3" when tracepoints are
# switched on or off under load, with or without gotrace (toggling
# raw_syscalls through tracefs while processes churn is enough).
# An arm64 kernel boots on QEMU's virt machine (gt_qemu_machine), which
# has no isa-debug-exit port: the guest's verdict comes in its files
# (out/verdict) and GT_QEMU_RC is made from it as the port would have.
# GT_QEMU_FROM=trixie runs the trixie chroot's QEMU (gt_chroot_qemu
# installs it) instead of the host's: in the chroot, with the host's
# /dev (TCG needs no more of it) and WORK and the kernel image's
# directory bind-mounted at their own paths, so that every path of the
# command line, the console and the guest's port mean the same there.
gt_qemu() {
	local timeout=$1 accel=$2 cpus=$3 mem=$4 work=$5 append=$6
	local log=$work/console.log tar=$work/out.tar v in=() in_disk=()

	: > "$tar"
	gt_qemu_machine "$(gt_kernel_arch "$KREL")"
	case ${GT_QEMU_FROM:-host} in
	host)	;;
	trixie)	in=(gt_chroot_run "$work" "$(dirname "$KIMAGE")" --) ;;
	*)	gt_die "GT_QEMU_FROM is host or trixie, not '$GT_QEMU_FROM'" ;;
	esac
	set +e
	# GT_QEMU_EXTRA: more options, split at spaces (bench/run.sh's
	# -icount).  GT_QEMU_DISK: a raw image the guest sees as a virtio
	# disk, /dev/vda (gomerge_test.sh).
	[ -z "${GT_QEMU_DISK:-}" ] ||
		in_disk=(-drive "file=$GT_QEMU_DISK,if=virtio,format=raw")
	# shellcheck disable=SC2086
	"${in[@]}" timeout --foreground "$timeout" "${GT_QEMU_MACHINE[@]}" \
		-accel "$accel" ${GT_QEMU_EXTRA:-} -smp "$cpus" -m "$mem" \
		"${in_disk[@]}" \
		-display none -monitor none -no-reboot \
		-serial "file:$log" \
		-kernel "$KIMAGE" -initrd "$work/initramfs.gz" \
		-append "$GT_QEMU_APPEND panic=-1 oops=panic loglevel=5 $append" \
		-device virtio-serial-pci \
		-chardev "file,id=gtout,path=$tar" \
		-device virtserialport,chardev=gtout,name=gtout \
		"${GT_QEMU_EXIT[@]}" </dev/null
	GT_QEMU_RC=$?
	set -e
	tr -d '\r' < "$log" > "$log.txt"
	mkdir -p "$work/out"
	tar -xf "$tar" -C "$work/out" 2>/dev/null || true
	if [ ${#GT_QEMU_EXIT[@]} -eq 0 ] && [ "$GT_QEMU_RC" -eq 0 ]; then
		v=$(cat "$work/out/verdict" 2>/dev/null)
		case $v in
		[0-9]|[0-9][0-9]) GT_QEMU_RC=$(((v << 1) | 1)) ;;
		esac
	fi
}

# gt_qemu_machine ARCH: the QEMU command for a Debian kernel of ARCH
# (amd64, arm64) in GT_QEMU_MACHINE, the kernel command line's words
# for that machine (its console) in GT_QEMU_APPEND, the options of its exit port in GT_QEMU_EXIT (none on
# arm64).  arm64: the virt machine (PCI, so the guest's virtio devices
# are x86-64's), and -cpu max, the newest architecture QEMU emulates,
# with pointer authentication (Debian's arm64 kernels sign their return
# addresses with it) computed by QEMU's cheaper implementation-defined
# algorithm: with the architected one (QARMA) a boot to /init took 5.9 s
# of guest time, with this one 2.6 s, cortex-a72 (no pointer
# authentication) 2.0 s.
gt_qemu_machine() {
	case $1 in
	arm64)
		GT_QEMU_MACHINE=(qemu-system-aarch64 -M virt
			-cpu "max,pauth-impdef=on")
		GT_QEMU_APPEND=console=ttyAMA0
		GT_QEMU_EXIT=() ;;
	*)
		GT_QEMU_MACHINE=(qemu-system-x86_64)
		GT_QEMU_APPEND="console=ttyS0 no_timer_check"
		GT_QEMU_EXIT=(-device "isa-debug-exit,iobase=0xf4,iosize=0x04") ;;
	esac
}

# gt_debug_kernel_dir: where the debug kernel of the current config,
# source package version and compiler is (or will be) built.
gt_debug_kernel_dir() {
	local ver key
	ver=$(apt-cache policy linux-source-6.12 2>/dev/null |
		sed -n 's/^ *Candidate: //p')
	[ -n "$ver" ] && [ "$ver" != "(none)" ] ||
		gt_die "no linux-source-6.12 in the archive (bookworm-backports)"
	key=$( { cat "$GT_VM/debug-kernel.config"; echo "$ver"; gcc --version |
		head -n 1; } | sha256sum | cut -c1-16)
	echo "$GT_STORE/debug-kernel/6.12-$key"
}

# gt_kernel_reports NAME CONSOLE DMESG OUT: one TAP line for what the
# kernel's checkers (lockdep, KASAN, UBSAN, sleeping in atomic context,
# WARN, oops...) reported in a run's console log and dmesg, the reports
# (kept in OUT) as its comments; status 0 if there were none.
gt_kernel_reports() {
	if "$GT_VM/kernel-reports.sh" "$2" "$3" > "$4"; then
		echo "[$1] ok - the kernel reported no bug, warning or sanitizer finding"
		return 0
	fi
	echo "[$1] not ok - the kernel reported problems"
	sed "s/^/[$1] #   /" "$4"
	return 1
}
