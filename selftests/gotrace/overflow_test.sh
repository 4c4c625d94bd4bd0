#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A pool far too small for a busy machine: the session must end by itself
# with a valid trace, and say so in the kernel log with what it lost.
. ./lib.sh

param=/sys/module/gotrace/parameters/chunks
echo 4 > $param || fail "cannot set chunks"
out=$GT_OUT/overflow.trace
dmesg -c > /dev/null
cat $GT_DEV > "$out" &
reader=$!
./workload churn 2 &
load=$!
cleanup_on_exit $reader $load
wait_gone $reader 300
gone=$?
wait $load
echo 0 > $param
[ $gone -eq 0 ] || { kill $reader; fail "the session did not end on overflow"; }
wait $reader || fail "cat exited with $?"
check_header "$out"
dmesg | grep 'out of buffer space' ||
	fail "no overflow report in the kernel log"
echo "recorded $(wc -c < "$out") bytes"
