#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# CPU 1 goes offline and comes back during a recording: its P stops and
# starts again, the trace stays valid, the work on it is not lost.  Then
# a CPU that was offline when the session started comes online: the
# session grows a P for it (and keeps a chunk for closing it).  In the
# go1.23 format the module samples the CPUs meanwhile (its cpu_hz
# parameter, 999 Hz): a CPU's timer stops when it goes and starts when
# it comes, which lockdep and KASAN watch on the debug kernel.
. ./lib.sh

sampled=
hz_param=/sys/module/gotrace/parameters/cpu_hz
if [ "$GT_BACKEND" = kmod ] && [ "$GT_FORMAT" != go1.11 ]; then
	echo 999 > $hz_param || fail "cannot set cpu_hz"
	on_exit "echo 0 > $hz_param"
	sampled=yes
fi
# sampled TRACE: it holds CPU samples, at 999 Hz, if they were on.
sampled() {
	[ -z "$sampled" ] || grep -qF "gotrace: CPU samples at 999 Hz" "$1" ||
		fail "$(basename "$1"): no CPU samples"
}

cpu1=/sys/devices/system/cpu/cpu1/online
[ -w $cpu1 ] || { echo "no CPU 1 to take offline"; exit 4; }

# The ping-pong lasts 2 s at least (a 20 ms pause before each of its
# 100 rounds): CPU 1 goes and comes back while it runs, which is checked.
hotplug() {
	./workload pingpong 100 20 &
	load=$!
	cleanup_on_exit $load
	wait_comm $load gt_ping
	echo 0 > $cpu1 || return 1
	[ "$(cpu_state 1)" = "false false" ] || {
		cpu_json
		return 1
	}
	# Away for a while (not a wait for anything): the work goes on on
	# the other CPUs meanwhile.
	sleep 0.3
	echo 1 > $cpu1 || return 1
	kill -0 $load 2>/dev/null ||
		fail "the ping-pong ended before CPU 1 came back: it proves nothing"
	wait $load
}

record_while "$GT_OUT/hotplug.trace" hotplug
sampled "$GT_OUT/hotplug.trace"
cat > "$GT_OUT/hotplug.expect" <<EOT
gt_ping create == 1
gt_pong create == 1
gt_ping block:chan_receive+syscall:sys_read >= 100
gt_ping block:chan_send+syscall:sys_write == 100
EOT

# The highest CPU offline before the start: the session has one P less;
# it comes online while the session records and runs half of a
# ping-pong.  Gomaxprocs grows by one.
last=$(sed 's/.*[-,]//' /sys/devices/system/cpu/online)
cpun=/sys/devices/system/cpu/cpu$last/online
[ -w "$cpun" ] || fail "cannot take CPU $last offline"
on_exit "echo 1 > $cpun"
echo 0 > "$cpun" || fail "cannot take CPU $last offline"
new_cpu() {
	# The write returns once the CPU is up, the module's callback run.
	echo 1 > "$cpun" || return 1
	taskset -c "$last" ./workload pingpong 50
}
record_while "$GT_OUT/hotplug-new.trace" new_cpu
sampled "$GT_OUT/hotplug-new.trace"
# Gomaxprocs grows from $last to $last + 1; the generational format has
# no Gomaxprocs event, there the P of CPU $last starts too.
grow="gomaxprocs $last,$((last + 1))"
[ "$GT_FORMAT" = go1.11 ] || grow="ps $((last + 1))"
cat > "$GT_OUT/hotplug-new.expect" <<EOT
$grow
gt_ping create == 1
gt_ping block:chan_receive+syscall:sys_read >= 50
EOT
