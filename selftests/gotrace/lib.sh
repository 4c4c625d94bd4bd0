# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# lib.sh - helpers of the shell tests (sourced).  Exit codes follow
# kselftest: 0 pass, 1 fail, 4 skip.

GT_DEV=/dev/gotrace
GT_OUT=${GT_OUT:-/out}
GT_HEADER_HEX=676f20312e3131207472616365000000

fail() {
	echo "FAIL: $*"
	exit 1
}

# The first 16 bytes of $1 must be the Go trace header.
check_header() {
	[ "$(head -c 16 "$1" | od -An -tx1 | tr -d ' \n')" = \
		"$GT_HEADER_HEX" ] || fail "$1 does not start with the header"
}

# Wait up to $2 tenths of a second for process $1 to end.
wait_gone() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		[ "$i" -ge "$2" ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 0
}
