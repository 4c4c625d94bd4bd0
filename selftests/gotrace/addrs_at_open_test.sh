#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Whether a trace carries real kernel addresses is decided from the
# opener's credentials when it opens the device: a kptr_restrict raised
# between the open and the first read changes nothing.
. ./lib.sh

knob=/proc/sys/kernel/kptr_restrict
old=$(cat $knob)
on_exit 'echo $old > $knob'
echo 1 > $knob || fail "cannot set kptr_restrict"
out=$GT_OUT/addrs-at-open.trace
# Opened here, with CAP_SYSLOG and kptr_restrict 1; read from later.
exec 3< $GT_DEV || fail "cannot open $GT_DEV"
echo 2 > $knob || fail "cannot raise kptr_restrict"
cat <&3 > "$out" &
reader=$!
cleanup_on_exit $reader
exec 3<&-
wait_state recording
./workload sleep 5 10 || fail "the sleeper failed"
echo stop > $GT_DEV || fail "echo stop failed"
wait $reader || fail "cat exited with $?"
check_header "$out"
echo "kernel_pcs shown" > "$GT_OUT/addrs-at-open.expect"
