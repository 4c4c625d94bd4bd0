#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Each task's systemd unit in a go1.23 trace: a cgroup named like a unit
# (gt-test.service, as systemd would make it; this guest has no
# systemd) gets a ping-pong workload, moved into it after the recording
# saw it start in the root cgroup, while a sleeper stays outside.  The
# trace goes to the host as units.trace with its ground truth: both
# ping-pong tasks begin a user region named gt-test.service, the sleeper
# none (verify-trace.sh, "region:"); the host serves its pages with both
# Go versions (check-trace.sh --web: /usertasks, /userregions and the
# per-unit profiles).  Here: 'gotrace stat' lists the unit with both
# tasks, in text and JSON, and not the sleeper's time; and a flight
# snapshot taken after the workload's end (the module's flight mode),
# whose window may have dropped
# the regions' begins, still names the unit (the host parses it too, as
# units-flight.trace).
. ./lib.sh

[ "$GT_FORMAT" = go1.23 ] || { echo "units are written in go1.23 only"; exit 4; }
make_unit gt-test.service

# The workload in the unit, a sleeper outside, at the same time.
both() {
	./workload sleep 10 20 &
	b_sleeper=$!
	in_unit ./workload pingpong 200
	wait $b_sleeper || fail "the sleeper failed"
}

record_while "$GT_OUT/units.trace" both
cat > "$GT_OUT/units.expect" <<EOT
gt_ping region:gt-test.service >= 1
gt_pong region:gt-test.service >= 1
gt_sleeper region:gt-test.service == 0
gt_ping block:chan_receive+syscall:sys_read >= 200
EOT

./gotrace stat "$GT_OUT/units.trace" > /tmp/units.stat ||
	fail "gotrace stat failed"
# "  gt-test.service   TASKS RUN ...": both tasks (and the shell that
# became gt_ping), in no other unit.
tasks=$(awk '/^units by run time:/ { on = 1; next } on && /^$/ { on = 0 }
	on && $1 == "gt-test.service" { print $2 }' /tmp/units.stat)
[ -n "$tasks" ] && [ "$tasks" -ge 2 ] ||
	fail "gotrace stat: unit gt-test.service with ${tasks:-no} tasks: $(cat /tmp/units.stat)"
others=$(awk '/^units by run time:/ { on = 1; getline; next } on && /^$/ { on = 0 }
	on { print $1 }' /tmp/units.stat | grep -v '^gt-test\.service$' || true)
[ -z "$others" ] || fail "gotrace stat: units besides gt-test.service: $others"
./gotrace stat -j "$GT_OUT/units.trace" > /tmp/units.json ||
	fail "gotrace stat -j failed"
grep -qE '"unit": "gt-test\.service", "tasks": ([2-9]|[1-9][0-9])' \
	/tmp/units.json ||
	fail "gotrace stat -j: no units_by_run row of gt-test.service"
echo "units.trace: $tasks tasks in gt-test.service"

# The BPF backend names the units too (from the cgroup ids of its switch
# records); it has no flight mode.
[ "$GT_BACKEND" = kmod ] || exit 0

# A flight window of 1 s over 2 s of the workload in the unit: the
# snapshot may start after the regions began, and ends after they ended.
dir=/tmp/units-flight
rm -rf $dir
./gotrace record -q --flight 1s -o $dir 2> /tmp/units-fl.err &
rec=$!
cleanup_on_exit $rec
wait_state recording
in_unit ./workload pingpong 100 20
./gotrace stop || fail "gotrace stop failed"
wait_gone $rec 300 || fail "the recorder did not end within 30 s of stop"
wait $rec || fail "gotrace record --flight exited with $?: $(cat /tmp/units-fl.err)"
f=$(ls $dir/*.trace 2>/dev/null | tail -n 1)
[ -n "$f" ] || fail "no flight snapshot in $dir: $(cat /tmp/units-fl.err)"
cp "$f" "$GT_OUT/units-flight.trace" || fail "cannot copy $f"
./gotrace stat "$f" > /tmp/units-fl.stat || fail "gotrace stat of $f failed"
grep -q '^  gt-test\.service ' /tmp/units-fl.stat ||
	fail "the flight snapshot names no unit: $(cat /tmp/units-fl.stat)"
echo "units-flight.trace: $(wc -c < "$f") bytes"
