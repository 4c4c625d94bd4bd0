#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# On a machine with more possible than online CPUs (the VM booted with
# GT_VM_CPUS="2,maxcpus=64"), the trace has one P per online CPU and the
# session's chunk pool is sized by the online CPUs, not the possible.
. ./lib.sh

possible=$(($(sed 's/.*[-,]//' /sys/devices/system/cpu/possible) + 1))
online=$(grep -c '^processor' /proc/cpuinfo)
# The harness's maxcpus64 boot says how many it made possible.
[ -z "${GT_WANT_POSSIBLE:-}" ] || [ "$possible" = "$GT_WANT_POSSIBLE" ] ||
	fail "$possible possible CPUs, the boot asked for $GT_WANT_POSSIBLE"
[ "$possible" -gt "$online" ] ||
	{ echo "$possible possible CPUs, all online: nothing to test"; exit 4; }
[ "$(cat /sys/module/gotrace/parameters/chunks)" = 0 ] ||
	fail "the chunks parameter is not the default"
out=$GT_OUT/online-cpus.trace
cat $GT_DEV > "$out" &
reader=$!
cleanup_on_exit $reader
wait_state recording
want=$((8 * online))
[ $want -ge 32 ] || want=32
# A generational session takes that memory as two buffers per CPU, and
# its chunk pool keeps only its minimum, two per online CPU.
[ "$GT_FORMAT" = go1.11 ] || want=$((2 * online))
chunks=$(status_of chunks_total)
[ "$chunks" = $want ] ||
	fail "$chunks chunks for $online online of $possible possible CPUs, want $want"
./workload pingpong 100 || fail "pingpong failed"
echo stop > $GT_DEV || fail "echo stop failed"
wait $reader || fail "cat exited with $?"
check_header "$out"
# The generational format has no Gomaxprocs event: its Ps are counted.
procs="gomaxprocs $online"
[ "$GT_FORMAT" = go1.11 ] || procs=
cat > "$GT_OUT/online-cpus.expect" <<EOT
$procs
ps $online
gt_ping create == 1
EOT
echo "$online of $possible CPUs online: $chunks chunks"
