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

gt_log() { printf '%s\n' "$*" >&2; }
gt_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# apt-get download as root drops to _apt, which cannot write everywhere:
# keep the download as the caller.
gt_apt_download() {
	apt-get download -q -o APT::Sandbox::User=root "$@" >/dev/null
}

# Ask the archive again once if a name cannot be resolved or fetched: the
# package lists of a long-lived machine go stale as point releases move.
gt_apt_refreshed=
gt_apt_refresh() {
	[ -n "$gt_apt_refreshed" ] && return 1
	gt_apt_refreshed=1
	gt_log "refreshing the package lists"
	if [ "$(id -u)" -eq 0 ]; then
		apt-get update -qq >/dev/null
	else
		sudo apt-get update -qq >/dev/null
	fi
}

# gt_resolve_release NAME -> the kernel release the archive has today, e.g.
# 6.1 -> 6.1.0-56-amd64, 6.12 -> 6.12.117+deb12-amd64, 6.12-rt ->
# 6.12.117+deb12-rt-amd64.  The meta packages name the current ABI in their
# Depends; the highest release of the wanted series wins.
gt_resolve_release() {
	local name=$1 meta pattern
	case $name in
	6.1)	meta=linux-image-amd64; pattern='linux-image-6\.1\.[0-9-]*-amd64' ;;
	6.12)	meta=linux-image-6.12-amd64
		pattern='linux-image-6\.12\.[0-9]*+deb12-amd64' ;;
	6.12-rt) meta=linux-image-6.12-rt-amd64
		pattern='linux-image-6\.12\.[0-9]*+deb12-rt-amd64' ;;
	*)	gt_die "unknown kernel '$name' (known: 6.1 6.12 6.12-rt)" ;;
	esac
	apt-cache show "$meta" 2>/dev/null | sed -n 's/^Depends: //p' |
		tr ',' '\n' | grep -o "$pattern" | sed 's/^linux-image-//' |
		sort -V | tail -n 1
}

# gt_kernel_fetch NAME: make sure the image, headers and modules of the
# current release of NAME are unpacked in the cache.  Sets KREL (release),
# KROOT (unpacked root), KHDR (headers dir for M= builds), KIMAGE (vmlinuz).
gt_kernel_fetch() {
	local name=$1 dir tmp pkgs p hdr_makefile common
	KREL=$(gt_resolve_release "$name")
	if [ -z "$KREL" ] && gt_apt_refresh; then
		KREL=$(gt_resolve_release "$name")
	fi
	[ -n "$KREL" ] || gt_die "no current Debian package for kernel $name"
	dir=$GT_CACHE/kernels/$KREL
	KROOT=$dir/root
	KHDR=$KROOT/usr/src/linux-headers-$KREL
	KIMAGE=$KROOT/boot/vmlinuz-$KREL
	[ -f "$dir/.ready" ] && return 0

	gt_log "fetching kernel $KREL"
	rm -rf "$dir"
	tmp=$dir.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp/debs" "$tmp/root"
	# The headers package names its -common tree and kbuild tools.
	pkgs="linux-image-$KREL linux-headers-$KREL"
	pkgs="$pkgs $(apt-cache depends "linux-headers-$KREL" |
		sed -n 's/^ *Depends: \(linux-\(headers-.*-common\(-rt\)\?\|kbuild-.*\)\)$/\1/p' |
		tr '\n' ' ')"
	( cd "$tmp/debs" && gt_apt_download $pkgs ) ||
		{ gt_apt_refresh && ( cd "$tmp/debs" && gt_apt_download $pkgs ); } ||
		gt_die "cannot download $pkgs"
	for p in "$tmp"/debs/*.deb; do
		dpkg -x "$p" "$tmp/root"
	done
	# The headers Makefile includes its -common tree by absolute path.
	hdr_makefile=$tmp/root/usr/src/linux-headers-$KREL/Makefile
	common=$(sed -n 's|^include /usr/src/\(.*\)/Makefile$|\1|p' "$hdr_makefile")
	[ -n "$common" ] || gt_die "unexpected $hdr_makefile"
	sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" "$hdr_makefile"
	# The package ships no modules.dep; modprobe needs it to order loads.
	depmod -b "$tmp/root" "$KREL"
	rm -rf "$tmp/debs"
	mv "$tmp" "$dir"
	touch "$dir/.ready"
}

# gt_linux_source: kselftest headers and checkpatch from Debian's
# linux-source package, unpacked once into $GT_CACHE/linux-source.
gt_linux_source() {
	local dst=$GT_CACHE/linux-source tmp pkg tarball
	LSRC=$dst
	[ -f "$dst/.ready" ] && return 0
	gt_log "fetching linux-source (checkpatch, kselftest headers)"
	mkdir -p "$GT_CACHE"
	tmp=$(mktemp -d "$GT_CACHE/linux-source.XXXXXX")
	pkg=$(apt-cache depends linux-source 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-source-6\.1\)$/\1/p')
	pkg=${pkg:-linux-source-6.1}
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

# gt_build_module NAME: build kmod/gotrace.ko for kernel NAME out of tree,
# from a copy of the sources in its own build dir, with W=1 and sparse;
# any compiler or sparse warning fails.  Sets KMOD to the built module.
gt_build_module() {
	local name=$1 bdir log check=
	gt_kernel_fetch "$name"
	bdir=$GT_CACHE/build/$KREL
	rm -rf "$bdir"
	mkdir -p "$bdir"
	cp -r "$GT_ROOT/Kbuild" "$GT_ROOT/kmod" "$GT_ROOT/include" "$bdir/"
	command -v sparse >/dev/null && check=C=1
	log=$bdir/build.log
	if ! make -s -C "$KHDR" M="$bdir" W=1 $check modules >"$log" 2>&1; then
		cat "$log" >&2
		gt_die "module build failed for $KREL"
	fi
	if grep -E 'warning:|error:' "$log" >&2; then
		gt_die "module build for $KREL is not warning-free"
	fi
	KMOD=$bdir/kmod/gotrace.ko
	[ -f "$KMOD" ] || gt_die "no $KMOD"
}

# gt_initramfs_base ROOT INIT: a busybox root in ROOT with INIT as /init
# and the bus drivers the kernel of gt_kernel_fetch has as modules (6.1
# builds virtio_pci and virtio_console as modules, 6.12 in), listed in
# load order in /lib/modules/load-order.
gt_initramfs_base() {
	local root=$1 ko base
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,out,lib/modules}
	cp /bin/busybox "$root/bin/busybox"
	cp "$2" "$root/init"
	: > "$root/lib/modules/load-order"
	modprobe -d "$KROOT" -S "$KREL" --show-depends -a virtio_pci \
		virtio_console | sed -n 's/^insmod \([^ ]*\).*/\1/p' |
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
# One host thread runs all vCPUs by default (thread=single): multi-
# threaded TCG lets a vCPU run kernel text another vCPU is patching with
# int3, and a stock kernel dies with "Oops: int3" when tracepoints are
# switched on or off under load, with or without gotrace (toggling
# raw_syscalls through tracefs while processes churn is enough).
gt_qemu() {
	local timeout=$1 accel=$2 cpus=$3 mem=$4 work=$5 append=$6
	local log=$work/console.log tar=$work/out.tar

	: > "$tar"
	set +e
	timeout --foreground "$timeout" qemu-system-x86_64 \
		-accel "$accel" -smp "$cpus" -m "$mem" \
		-display none -monitor none -no-reboot \
		-serial "file:$log" \
		-kernel "$KIMAGE" -initrd "$work/initramfs.gz" \
		-append "console=ttyS0 panic=-1 oops=panic loglevel=4 $append" \
		-device virtio-serial-pci \
		-chardev "file,id=gtout,path=$tar" \
		-device virtserialport,chardev=gtout,name=gtout \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null
	GT_QEMU_RC=$?
	set -e
	tr -d '\r' < "$log" > "$log.txt"
	mkdir -p "$work/out"
	tar -xf "$tar" -C "$work/out" 2>/dev/null || true
}
