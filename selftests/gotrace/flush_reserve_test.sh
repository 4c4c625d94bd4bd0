#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The smallest pool (two chunks per CPU, one of them reserved for the
# end) and a flush every 20 ms: a periodic flush that finds no spare
# chunk keeps writing into the CPU's current one, which still has room,
# instead of ending the session.
. ./lib.sh

params=/sys/module/gotrace/parameters
restore() {
	echo 0 > $params/chunks
	echo 500 > $params/flush_ms
}
on_exit restore
ncpu=$(grep -c '^processor' /proc/cpuinfo)
echo $((2 * ncpu)) > $params/chunks || fail "cannot set chunks"
echo 20 > $params/flush_ms || fail "cannot set flush_ms"
out=$GT_OUT/flush-reserve.trace
cat $GT_DEV > "$out" &
reader=$!
cleanup_on_exit $reader
wait_state recording
./workload sleep 50 10 || fail "the sleeper failed"
still_recording "with room left in its chunks"
echo stop > $GT_DEV || fail "echo stop failed"
wait $reader || fail "cat exited with $?"
check_header "$out"
cat > "$GT_OUT/flush-reserve.expect" <<EOT
gt_sleeper block:sleep >= 45
EOT
