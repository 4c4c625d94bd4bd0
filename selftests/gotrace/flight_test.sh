#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gotrace record --flight with the module: a 3 s window (a tenth of the
# issue's 60 s run, so that the test stays short under emulation) over a
# workload of about 6 s in three phases: forks (gt_forker, gt_child) that
# end first, a ping-pong of at least 6 s (gt_ping, gt_pong), then 100
# getppid calls (gt_getppid) just before 'gotrace snapshot'.  Here: the
# snapshot is a file named by its time and reason, complete (no .tmp
# left), a trace gotrace check accepts; it starts at least the window
# and at most the window and a generation (plus slack) before it was
# taken, as the summary line says, so the forks that ended before are
# not in it while the getppid calls are; SIGUSR1 to the recorder gives a
# second snapshot and 'gotrace stop' a last one, of reason stop; the
# session lost nothing.  The first snapshot goes to the host as
# flight-1.trace, read by Go 1.23 and 1.27 against its ground truth (the
# getppid task and its 100 calls, exactly).
. ./lib.sh

[ "$GT_BACKEND" = kmod ] || { echo "the module's flight mode"; exit 4; }
use_format go1.23
dir=/tmp/flight
rm -rf $dir

./gotrace record --flight 3s -o $dir > /tmp/fl.out 2> /tmp/fl.err &
rec=$!
cleanup_on_exit $rec
wait_state recording

./workload forks 2 || fail "workload forks failed"
# The window's memory while the ping-pong runs, every 0.2 s (status),
# read with shell builtins only: the sampling is part of the load the
# window holds, the same from the start (the first samples, taken from
# its fork on, saw it grow into a window of quiet).
./workload pingpong 300 20 &
pp=$!
cleanup_on_exit $pp
: > /tmp/fl-mem.txt
read -r pp_start _ < /proc/uptime
while kill -0 $pp 2>/dev/null; do
	read -r up _ < /proc/uptime
	g=$(status_of flight_generations)
	b=$(status_of flight_bytes)
	echo "$up $g $b" >> /tmp/fl-mem.txt
	sleep 0.2
done
wait $pp || fail "workload pingpong failed"
./workload getppid 100 || fail "workload getppid failed"
./gotrace snapshot || fail "gotrace snapshot failed"
wait_until "ls $dir | grep -q -- '-0001-user\.trace\$'" 300 ||
	fail "no snapshot 1 in $dir within 30 s: $(ls -a $dir | tr '\n' ' '); $(cat /tmp/fl.err)"
f=$dir/$(ls $dir | grep -- '-0001-user\.trace$')
# The summary line of the snapshot: when the window starts.
wait_until "grep -q '^gotrace: snapshot 1,' /tmp/fl.err" 100 ||
	fail "no summary line for snapshot 1: $(cat /tmp/fl.err)"
grep '^gotrace: snapshot 1,' /tmp/fl.err
check_header "$f"
./gotrace check -q "$f" || fail "gotrace check refuses $f"
./gotrace stat -n 0 "$f" > /tmp/fl-stat.txt || fail "gotrace stat failed"
grep -q '^  gt_getppid ' /tmp/fl-stat.txt ||
	fail "the workload's last actions (gt_getppid) are not in the snapshot"
grep -q '^  gt_ping ' /tmp/fl-stat.txt ||
	fail "the ping-pong of the window is not in the snapshot"
if grep -q '^  gt_forker ' /tmp/fl-stat.txt; then
	fail "the forks that ended 5 s before the snapshot are in its 3 s window"
fi
before=$(sed -n 's/^gotrace: snapshot 1,.* from \([0-9.]*\) s before the snapshot.*/\1/p' \
	/tmp/fl.err)
[ -n "$before" ] || fail "the summary does not say where the window starts"
awk -v b="$before" -v s="${GT_TIME_SCALE:-1}" \
	'BEGIN { exit !(b >= 2.9 && b <= 3 + 2 * s) }' ||
	fail "the snapshot starts $before s before it was taken, not 3 s (the window) to 3 s and a generation (slack: 2 s)"
gens=$(sed -n 's/^gotrace: snapshot 1,.*, \([0-9]*\) generations,.*/\1/p' /tmp/fl.err)
# The full window (3 s: 10 generations of 300 ms and one more), from
# 3.5 s into the ping-pong, holds at most 14 generations (fewer when the
# host stalls the guest and ticks come late: longer generations), and
# its memory does not grow: the last sample's bytes per generation at
# most 1.5 times the first's.  Per generation, since a stalled guest's
# first samples hold fewer, longer generations (6.12-rt under a loaded
# host, its TSC just found unstable: 8 generations, 261576 bytes, then
# 10, 394120 bytes); the count itself is bounded above.
awk -v s="$pp_start" '$1 >= s + 3.5 { print $2, $3 }' /tmp/fl-mem.txt \
	> /tmp/fl-full.txt
tr '\n' ' ' < /tmp/fl-full.txt
echo
awk '$1 < 1 || $1 > 14 { bad = 1 } END { exit bad || NR < 3 }' \
	/tmp/fl-full.txt ||
	fail "the full 3 s window did not hold 1 to 14 generations throughout ($(wc -l < /tmp/fl-full.txt) samples)"
awk 'NR == 1 { first = $2 / $1 } { last = $2 / $1 } END {
		printf "window memory: %d samples, first %d bytes per generation, last %d\n", NR, first, last
		exit !(first > 0 && last <= 1.5 * first)
	}' /tmp/fl-full.txt || fail "the window's memory per generation grows"
[ "$(status_of flight_generations)" -ge 1 ] ||
	fail "the status directory does not show the window"

echo "snapshot 1: $(wc -c < "$f") bytes, $gens generations, from $before s before"
cp "$f" "$GT_OUT/flight-1.trace" || fail "cannot copy $f"
cat > "$GT_OUT/flight-1.expect" <<EOT
gt_getppid create == 1
gt_getppid end == 1
gt_getppid syscall:sys_getppid == 100
EOT

# SIGUSR1: a second snapshot, the session still recording.
kill -USR1 $rec || fail "cannot signal the recorder"
wait_until "ls $dir | grep -q -- '-0002-user\.trace\$'" 300 ||
	fail "no snapshot 2 after SIGUSR1: $(cat /tmp/fl.err)"
still_recording "after two snapshots"
./gotrace check -q "$dir"/*-0002-user.trace || fail "gotrace check refuses snapshot 2"

# The stop: the last window, then the recorder ends.
./gotrace stop || fail "gotrace stop failed"
wait_gone $rec 300 || fail "the recorder did not end within 30 s of stop"
wait $rec || fail "the recorder exited with $?: $(cat /tmp/fl.err)"
cat /tmp/fl.err
ls -la $dir
ls $dir | grep -q -- '-0003-stop\.trace$' || fail "no snapshot of the stop"
./gotrace check -q "$dir"/*-0003-stop.trace || fail "gotrace check refuses the last snapshot"
[ "$(ls -a $dir | grep -c 'tmp')" = 0 ] || fail "a temporary file is left in $dir"
[ "$(ls $dir | wc -l)" = 3 ] || fail "$(ls $dir | wc -l) files in $dir, not 3"
grep -q '^gotrace: 3 snapshots, .* written to /tmp/flight' /tmp/fl.err ||
	fail "the summary does not count 3 snapshots"
grep -q ', 0 lost, ' /tmp/fl.err || fail "the session lost events"
exit 0
