#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh - run the kernel's checkpatch.pl --strict on the module's
# sources and the uapi header; prints every finding and exits 1 if there
# is any (errors, warnings and checks alike).
#
# checkpatch.pl comes from Debian's linux-source-6.1 package, unpacked once
# into the git-ignored .cache/linux-source/ of the repository (the same
# tree the VM harness takes the kselftest headers from, see lib.sh) and
# reused by later runs.
#
# No check is excluded: checkpatch.pl -f on whole files does not raise the
# patch-only ones (FILE_PATH_CHANGES, commit message checks), and every
# file carries an SPDX line.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LSRC=$ROOT/.cache/linux-source
PKG=linux-source-6.1

die() { printf 'checkpatch.sh: %s\n' "$*" >&2; exit 1; }

# apt-get download as root drops to _apt, which cannot write everywhere:
# keep the download as the caller.
apt_download() {
	apt-get download -q -o APT::Sandbox::User=root "$@" >/dev/null
}

fetch_linux_source() {
	local tmp tarball

	[ -f "$LSRC/.ready" ] && return 0
	echo "checkpatch.sh: fetching $PKG (checkpatch, kselftest headers)" >&2
	mkdir -p "$ROOT/.cache"
	tmp=$(mktemp -d "$ROOT/.cache/linux-source.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	if ! (cd "$tmp" && apt_download "$PKG"); then
		# The package lists of a long-lived machine go stale as point
		# releases move: ask the archive again once.
		if [ "$(id -u)" -eq 0 ]; then
			apt-get update -qq >/dev/null
		else
			sudo apt-get update -qq >/dev/null
		fi
		(cd "$tmp" && apt_download "$PKG") || die "cannot download $PKG"
	fi
	dpkg -x "$tmp"/*.deb "$tmp/x"
	tarball=$(find "$tmp/x" -name 'linux-source-*.tar.xz' | head -n 1)
	[ -n "$tarball" ] || die "no source tarball in $PKG"
	mkdir -p "$tmp/src"
	tar -xJf "$tarball" -C "$tmp/src" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' \
		'*/tools/testing/selftests/kselftest.h' \
		'*/tools/testing/selftests/kselftest_harness.h'
	touch "$tmp/src/.ready"
	# Another run (or the VM harness) may have filled the cache meanwhile.
	if [ ! -f "$LSRC/.ready" ]; then
		rm -rf "$LSRC"
		mv "$tmp/src" "$LSRC"
	fi
	rm -rf "$tmp"
	trap - EXIT
}

fetch_linux_source
[ -f "$LSRC/scripts/checkpatch.pl" ] || die "no $LSRC/scripts/checkpatch.pl"

cd "$ROOT"
failed=0
for f in kmod/*.c kmod/*.h include/uapi/linux/gotrace.h; do
	perl "$LSRC/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types -f "$f" || failed=1
done
if [ "$failed" -ne 0 ]; then
	echo "checkpatch: findings above" >&2
	exit 1
fi
echo "checkpatch: clean"
