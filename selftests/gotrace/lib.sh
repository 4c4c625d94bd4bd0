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

# record_while OUT COMMAND...: record into OUT while COMMAND runs, the
# documented way: cat reads the device, and once COMMAND has ended
# another process writes "stop"; cat then gets the rest and end of file.
record_while() {
	rw_out=$1
	shift
	cat $GT_DEV > "$rw_out" &
	rw_reader=$!
	sleep 0.2
	"$@" || fail "'$*' failed"
	sleep 0.1
	echo stop > $GT_DEV || fail "echo stop failed"
	wait_gone $rw_reader 300 || fail "cat did not end within 30 s of stop"
	wait $rw_reader || fail "cat exited with $?"
	check_header "$rw_out"
	echo "$(basename "$rw_out"): $(wc -c < "$rw_out") bytes"
}
