#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Isolated CPUs (Documentation/cpu-samples.rst, "Isolated CPUs"): on a
# guest booted with a CPU isolated (run-kernel.sh's 6.12@isolated:
# isolcpus=nohz,domain,1 nohz_full=1; skipped where no CPU is), --cpu-hz
# samples only the housekeeping CPUs: while a busy loop runs on the
# isolated CPU its timer never fires (its four sample counts stay 0),
# and a housekeeping CPU's does; with --sample-isolated it fires there
# too.  Then the interrupts a generation's end costs the isolated CPU
# (Documentation/performance.rst, "Interrupts at a generation's end"),
# printed, not checked: its CAL interrupts during a flight session of
# 10 ms generations while it idles, runs a busy loop, and switches
# between two tasks.
. ./lib.sh

[ "$GT_BACKEND" = kmod ] || { echo "SKIP: the module's sampler only"; exit 4; }
# The first CPU listed as isolated or nohz_full (a list of single CPUs
# and ranges: the start of each).
cpu=$(cat /sys/devices/system/cpu/isolated /sys/devices/system/cpu/nohz_full \
	2> /dev/null | tr ',' '\n' | sed -n 's/^\([0-9][0-9]*\).*/\1/p' | head -n 1)
if [ -z "$cpu" ]; then
	echo "SKIP: no isolated CPU (boot with isolcpus= or nohz_full=)"
	exit 4
fi
house=0
[ "$cpu" = 0 ] && house=1
echo "# CPU $cpu isolated, CPU $house housekeeping"

taskset -c "$cpu" sh -c 'while :; do :; done' &
loop=$!
cleanup_on_exit $loop

# ticks FILE CPU: the samples CPU's timer took (written, idle, filtered
# out or lost) in gotrace status --json's FILE.
ticks() {
	sed -n "s/.*\"cpu\": $2,.*\"cpu_samples\": \([0-9]*\), \"cpu_samples_idle\": \([0-9]*\), \"cpu_samples_hidden\": \([0-9]*\), \"cpu_samples_lost\": \([0-9]*\) }.*/\1 \2 \3 \4/p" "$1" |
		{ read -r w i h l && echo $((w + i + h + l)); }
}

# sample NAME [OPTIONS...]: record 1 s at 199 Hz with OPTIONS; the
# status at its end in /tmp/NAME.json.
sample() {
	name=$1
	shift
	./gotrace record --cpu-hz=199 "$@" -o "$GT_OUT/isolated-$name.trace" \
		-- sh -c "sleep 1; ./gotrace status --json > /tmp/$name.json" \
		2> /tmp/rec.err ||
		fail "gotrace record --cpu-hz $* failed: $(cat /tmp/rec.err)"
	./gotrace check -q "$GT_OUT/isolated-$name.trace" ||
		fail "gotrace check refused the trace recorded with $*"
}

sample default
iso=$(ticks /tmp/default.json "$cpu")
hk=$(ticks /tmp/default.json "$house")
echo "# default: CPU $cpu took ${iso:-no} samples, CPU $house ${hk:-no}"
[ "${hk:-0}" -gt 0 ] || fail "the housekeeping CPU $house was not sampled"
[ "$iso" = 0 ] || fail "the isolated CPU $cpu was sampled ($iso samples)"

sample all --sample-isolated
iso=$(ticks /tmp/all.json "$cpu")
echo "# --sample-isolated: CPU $cpu took ${iso:-no} samples"
[ "${iso:-0}" -gt 0 ] ||
	fail "--sample-isolated: the isolated CPU $cpu was not sampled"

# cal: the isolated CPU's function-call interrupts so far.
cal() {
	awk -v f=$((cpu + 2)) '$1 == "CAL:" { print $f }' /proc/interrupts
}
# ipis WHAT: CAL interrupts of the isolated CPU and generations during
# 3 s of a flight session of 10 ms generations (--flight 100ms).
ipis() {
	./gotrace record -q --flight 100ms -o /tmp/flight 2> /tmp/fl.err &
	fl=$!
	wait_until '[ "$(status_of generations)" -ge 2 ]' 300 ||
		fail "the flight session wrote no generation"
	c0=$(cal)
	g0=$(status_of generations)
	sleep 3
	c1=$(cal)
	g1=$(status_of generations)
	kill -INT $fl
	wait $fl || fail "the flight session failed: $(cat /tmp/fl.err)"
	echo "# CPU $cpu $1: $((c1 - c0)) CAL interrupts in $((g1 - g0)) generations"
}
mkdir -p /tmp/flight
ipis "running a busy loop"
kill $loop
wait $loop 2> /dev/null
ipis "idle"
taskset -c "$cpu" sh -c 'while :; do usleep 200; done' &
loop=$!
cleanup_on_exit $loop
ipis "sleeping 200 us at a time"
