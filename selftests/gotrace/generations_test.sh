#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The generational format over many generations: format=go1.23 and
# generation_ms=100, and a workload of about 3 s whose ground truth spans
# the generation boundaries: a ping-pong whose two tasks live through
# every generation (each created once, 150 writes exactly), and, until it
# ends, rounds of a ping-pong pinned across CPUs 0 and 1 (xcpu: every
# wakeup comes from the other CPU), two forks and 100 getppid calls,
# whose tasks come and go in every generation (counted: their creations,
# ends and getppid calls are exact).  Here: the session lost no event
# (gotrace status, through the status ioctl) up to its stop, the trace
# has at least 10 generations (gotrace check, which also replays it),
# and it spans no more time than the recording took.  The host checks
# the trace with Go 1.23 and 1.27, and the ground truth with
# verify-trace.sh.
. ./lib.sh

gen_param=/sys/module/gotrace/parameters/generation_ms

[ "$(nproc)" -ge 2 ] || { echo "needs two CPUs"; exit 4; }
use_format go1.23
[ -e $gen_param ] || fail "the module has no generation_ms parameter"
on_exit "echo $(cat $gen_param) > $gen_param"
echo 100 > $gen_param || fail "cannot set generation_ms=100"
[ "$(cat $gen_param)" = 100 ] ||
	fail "generation_ms reads back '$(cat $gen_param)', not 100"

# since_boot: seconds since boot, in hundredths.
since_boot() {
	cut -d ' ' -f 1 /proc/uptime
}

out=$GT_OUT/generations.trace
rec_open=$(since_boot)
cat $GT_DEV > "$out" &
reader=$!
cleanup_on_exit $reader
wait_state recording

# At least 150 times 20 ms.
./workload pingpong 150 20 &
pp=$!
cleanup_on_exit $pp
rounds=0
limit=$(($(date +%s) + 60 * ${GT_TIME_SCALE:-1}))
while kill -0 $pp 2>/dev/null; do
	[ "$(date +%s)" -le "$limit" ] ||
		fail "the ping-pong still runs after $((60 * ${GT_TIME_SCALE:-1})) s"
	./xcpu 10 > /tmp/xcpu.out 2>&1 ||
		fail "xcpu failed: $(cat /tmp/xcpu.out)"
	./workload forks 2 || fail "workload forks failed"
	./workload getppid 100 || fail "workload getppid failed"
	rounds=$((rounds + 1))
done
wait $pp || fail "the ping-pong failed"
settle

# Nothing lost up to the stop, as the status ioctl says.
./gotrace status --json > /tmp/gen-status.json ||
	fail "gotrace status failed"
if ! grep -q '^  "state": "recording",$' /tmp/gen-status.json ||
   ! grep -q '^  "lost_events": 0,$' /tmp/gen-status.json ||
   grep -q '"lost_events": [1-9]' /tmp/gen-status.json; then
	cat /tmp/gen-status.json
	fail "the session stopped or lost events before its stop"
fi
echo stop > $GT_DEV || fail "echo stop failed"
wait_gone $reader 300 || fail "cat did not end within 30 s of stop"
wait $reader || fail "cat exited with $?"
rec_eof=$(since_boot)
check_header "$out"
echo "generations.trace: $(wc -c < "$out") bytes, $rounds rounds"

# gt_ping may find a sleep over before it begins if kept off its CPU for
# 20 ms just before (sched_test.sh): most of its 150 sleeps are blocks.
# A round's forker is a gt_forker goroutine, and so is each of its two
# children until it renames itself gt_child.
cat > "${out%.trace}.expect" <<EOT
gt_ping create == 1
gt_pong create == 1
gt_ping end == 1
gt_pong end == 1
gt_ping block:chan_send+syscall:sys_write >= 150
gt_ping syscall:sys_write <= 150
gt_ping block:chan_receive+syscall:sys_read >= 150
gt_pong block:chan_receive+syscall:sys_read >= 150
gt_ping block:sleep >= 120
gt_ping block:sleep <= 150
gt_xping create == $rounds
gt_xpong create == $rounds
gt_xping end == $rounds
gt_xpong end == $rounds
gt_xping block:chan_receive+syscall:sys_read >= $((10 * rounds))
gt_xpong block:chan_receive+syscall:sys_read >= $((10 * rounds))
gt_forker create == $((3 * rounds))
gt_forker end == $((3 * rounds))
gt_child create == $((2 * rounds))
gt_child end == $((2 * rounds))
gt_getppid create == $rounds
gt_getppid end == $rounds
gt_getppid syscall:sys_getppid == $((100 * rounds))
pprof sched gt_ping
EOT

# The generations, as gotrace check counts them while it checks the
# trace.
./gotrace check "$out" > /tmp/gen-check.txt 2>&1 || {
	cat /tmp/gen-check.txt
	fail "gotrace check refuses the trace"
}
grep -E '^  (duration|generations|events) ' /tmp/gen-check.txt
# No event needs another M's event of its own time: Go's readers may
# take a later one first there, and squash the times in between.
if grep '^  ties ' /tmp/gen-check.txt; then
	fail "events of $out tie with the events they need"
fi
gens=$(awk '$1 == "generations" { print $2 }' /tmp/gen-check.txt)
[ "${gens:-0}" -ge 10 ] ||
	fail "${gens:-no} generations in $out, not 10 or more"
# Its events lie within the recording: the trace's duration (its last
# timestamp minus its first) is at most the time from the open to the
# end of file, plus a second.  A batch stamped near 0 (the boot) would
# stretch it to the guest's uptime.
awk -v open="$rec_open" -v eof="$rec_eof" '$1 == "duration" {
		found = 1
		if ($2 > eof - open + 1) {
			printf "the trace spans %s s, the recording took %.2f s\n",
				$2, eof - open
			exit 1
		}
	}
	END { if (!found) { print "gotrace check gave no duration"; exit 1 } }' \
	/tmp/gen-check.txt || fail "$out spans more than its recording"

exit 0
