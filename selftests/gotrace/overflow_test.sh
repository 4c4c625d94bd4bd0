#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A pool far too small for a busy machine: the session must end by itself
# with a valid trace, and say so in the kernel log with what it lost.
# Nothing is read while the storm runs, so no chunk comes back to the
# pool: it must fill (a reader that keeps up would let it go on).
. ./lib.sh

param=/sys/module/gotrace/parameters/chunks
echo 4 > $param || fail "cannot set chunks"
out=$GT_OUT/overflow.trace
dmesg -c > /dev/null
exec 3< $GT_DEV
# The header; this first read starts the session.
dd bs=16 count=1 <&3 > "$out" 2>/dev/null || fail "cannot read the header"
./workload storm 1 || fail "the storm failed"
echo 0 > $param
cat <&3 >> "$out" &
reader=$!
exec 3<&-
wait_gone $reader 300 || { kill $reader; fail "the session did not end on overflow"; }
wait $reader || fail "cat exited with $?"
check_header "$out"
dmesg | grep 'out of buffer space' ||
	fail "no overflow report in the kernel log"
echo "recorded $(wc -c < "$out") bytes"
