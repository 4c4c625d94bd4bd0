#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-unwind.sh TRACE EXPECT - the user stacks of unwind_prog's blocks
# in TRACE (selftests/gotrace/unwind_test.sh: a guest's recording of
# user/tests/unwind_prog.c, its frames named in the guest), as Go 1.27
# reads them, against EXPECT, one expectation per line:
#
#   whole MODE N   N at least of the main thread's (comm gt_unwind) MODE
#                  blocks (read, futex, sleep) have the whole chain,
#                  from the C library's wrapper through prog_inner_MODE,
#                  lib_middle, prog_outer and main to __libc_start_main
#                  and _start (unwind-chains.sh, the host test's
#                  definition), and none through prog_inner_MODE has
#                  another, but those the walker marks as walked
#                  without tables ("no unwind table": a process newer
#                  than the recorder's last read of the mappings)
#   cut MODE N     N at least MODE blocks, and none reaches main through
#                  lib_middle: walked by frame pointers, which the
#                  workload has none of, so "whole" can fail
#
# Prints every expectation with its verdict and the commonest chains of
# each mode; exits 1 if any fails (or if EXPECT holds none).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
GO127=${GO127:-${GT_STORE:-$here/../.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"
# shellcheck source=unwind-chains.sh
. "$here/unwind-chains.sh"

[ $# -eq 2 ] || { echo "usage: $0 TRACE EXPECT" >&2; exit 2; }
trace=$1
expect=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

blocks "$trace" | awk '$2 == "gt_unwind"' > "$tmp/blocks"

failed=0
checked=0
while read -r kind m n; do
	case $kind in
	''|'#'*) continue ;;
	esac
	checked=$((checked + 1))
	if [ -z "$(wrapper "$m")" ] || ! [ "$n" -ge 1 ] 2>/dev/null; then
		echo "FAIL bad expectation: $kind $m $n"
		failed=$((failed + 1))
		continue
	fi
	awk -v m="$m" '$1 == m { $1 = $2 = ""; sub(/^ +/, ""); print }' \
		"$tmp/blocks" > "$tmp/$m"
	nb=$(wc -l < "$tmp/$m")
	case $kind in
	whole)
		nwhole=0
		nbad=0
		nnone=0
		while read -r got; do
			if chain_whole "$m" "$got"; then
				nwhole=$((nwhole + 1))
			elif untabled "$got"; then
				nnone=$((nnone + 1))
			elif [ -n "$(outer "$got")" ]; then
				nbad=$((nbad + 1))
			fi
		done < "$tmp/$m"
		what="$nwhole of $nb $m blocks whole, $nnone walked without tables, $nbad others through prog_inner_$m"
		[ "$nwhole" -ge "$n" ] && [ "$nbad" -eq 0 ] ;;
	cut)
		nmain=0
		while read -r got; do
			reaches_main "$got" && nmain=$((nmain + 1))
		done < "$tmp/$m"
		what="$nb $m blocks, $nmain reaching main through lib_middle"
		[ "$nb" -ge "$n" ] && [ "$nmain" -eq 0 ] ;;
	*)
		echo "FAIL bad expectation: $kind $m $n"
		failed=$((failed + 1))
		continue ;;
	esac && ok=ok || ok=FAIL
	echo "$ok $kind $m $n ($what)"
	[ "$ok" = ok ] || failed=$((failed + 1))
	# The commonest chains, for a failure's reader.
	sort "$tmp/$m" | uniq -c | sort -rn | head -n 4 | sed 's/^ */    /'
done < "$expect"

[ "$checked" -gt 0 ] || {
	echo "FAIL: $expect holds no expectation"
	failed=1
}
[ "$failed" -eq 0 ]
