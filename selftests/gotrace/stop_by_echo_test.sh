#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The documented way to record: cat reads, another shell writes "stop",
# cat gets the rest of the trace and end of file.
. ./lib.sh

out=$GT_OUT/cat-stop.trace
cat $GT_DEV > "$out" &
pid=$!
sleep 1
echo stop > $GT_DEV || fail "echo stop failed"
wait_gone $pid 300 || fail "cat did not end within 30 s of stop"
wait $pid || fail "cat exited with $?"
check_header "$out"
echo "recorded $(wc -c < "$out") bytes"
