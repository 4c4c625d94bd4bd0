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
