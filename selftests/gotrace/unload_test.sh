#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The module cannot be unloaded under a reader, loses nothing for trying,
# and unloads cleanly once the reader is done.
. ./lib.sh

out=$GT_OUT/unload.trace
cat $GT_DEV > "$out" &
pid=$!
cleanup_on_exit $pid
wait_state recording
rmmod gotrace 2>/dev/null && fail "rmmod succeeded under a reader"
[ -c $GT_DEV ] || fail "$GT_DEV vanished"
echo stop > $GT_DEV || fail "echo stop failed"
wait_gone $pid 300 || fail "cat did not end within 30 s of stop"
wait $pid || fail "cat exited with $?"
check_header "$out"
rmmod gotrace || fail "rmmod failed after the reader closed"
[ -e $GT_DEV ] && fail "$GT_DEV is still there after rmmod"
[ -d /sys/module/gotrace ] && fail "module still loaded"
exit 0
