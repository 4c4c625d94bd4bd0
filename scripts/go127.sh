#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# go127.sh [--print] - Go 1.27, the checker of record for the generational
# ("go 1.2x trace") formats, unpacked from Debian's trixie-backports.
#
# Debian 12 has no Go 1.27, and the host's apt sources stay untouched: the
# packages golang-1.27-go and golang-1.27-src are downloaded with the
# private apt state of selftests/vm/newer-suites.sh and unpacked with
# dpkg -x into $GT_STORE/go-1.27 (the repository's .cache/ unless
# GT_STORE is set).  Go's toolchain is statically linked, so it runs on
# bookworm as it is; `go tool trace` needs the -src package (the tool is
# built from source on first use when the package ships no binary).
#
# Debian's package ships no binary of `go tool trace` and `go tool pprof`:
# the go command would build each on demand, and even once built, find
# it again in its build cache on every call, which costs 0.4 s of a call
# that then runs for 0.08 s on a small trace (the VM tests make about ten
# such calls per trace, on some 170 traces per kernel).  Both are built
# once into the toolchain's own tool directory, where `go tool NAME`
# runs them directly, as it runs the prebuilt ones of Go 1.21 and 1.23.
#
# Idempotent: once unpacked and working it prints nothing.  --print
# prints the path of the go binary (for GO127=$(scripts/go127.sh --print)).
set -eu

# shellcheck source=../selftests/vm/lib.sh
. "$(dirname "$0")/../selftests/vm/lib.sh"

GO127_DIR=$GT_STORE/go-1.27
GO127=$GO127_DIR/usr/lib/go-1.27/bin/go

go127_works() {
	[ -x "$GO127" ] &&
		GOTOOLCHAIN=local "$GO127" env GOVERSION 2>/dev/null | grep -q '^go1\.27'
}

if ! go127_works; then
	gt_log "go127: fetching golang-1.27-go and golang-1.27-src from trixie-backports"
	gt_newer_update
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/go127.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	if ! (cd "$tmp" && gt_newer_apt apt-get download -o APT::Sandbox::User=root \
		golang-1.27-go golang-1.27-src >/dev/null); then
		gt_newer_update force
		(cd "$tmp" && gt_newer_apt apt-get download -o APT::Sandbox::User=root \
			golang-1.27-go golang-1.27-src >/dev/null) ||
			gt_die "cannot download golang-1.27-go from $GT_NEWER_SUITES"
	fi
	rm -rf "$GO127_DIR.tmp"
	for deb in "$tmp"/golang-1.27-*.deb; do
		dpkg -x "$deb" "$GO127_DIR.tmp"
	done
	rm -rf "$GO127_DIR"
	mv "$GO127_DIR.tmp" "$GO127_DIR"
	go127_works || gt_die "go127: $GO127 does not run"
fi
tooldir=$(GOTOOLCHAIN=local "$GO127" env GOTOOLDIR)
for tool in trace pprof; do
	[ -x "$tooldir/$tool" ] && continue
	gt_log "go127: building go tool $tool into $tooldir"
	GOTOOLCHAIN=local GOCACHE=${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache} \
		"$GO127" build -o "$tooldir/$tool.tmp" "cmd/$tool" ||
		gt_die "go127: cannot build cmd/$tool"
	mv "$tooldir/$tool.tmp" "$tooldir/$tool"
done
if [ "${1:-}" = --print ]; then
	echo "$GO127"
fi
