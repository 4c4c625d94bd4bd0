#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The generational format when the buffers run out: the session goes on.
# Buffers far too small (chunks=4: 64 KiB per CPU and generation) and no
# reader while a getppid storm runs, so a CPU's buffer fills and events
# are lost; then the reader reads again, which ends that generation,
# and what follows is recorded whole (no more event is lost):
# gt_getppid's 200 calls are all in the trace (the host checks that
# ground truth, and the trace with Go 1.23 and 1.27).  Here: the
# session was still recording after the storm, it counted lost events,
# the trace marks them with a user log, and the kernel log says so at
# the stop.
. ./lib.sh

use_format go1.23
param=/sys/module/gotrace/parameters/chunks
on_exit "echo 0 > $param"
echo 4 > $param || fail "cannot set chunks"
out=$GT_OUT/overflow_go123.trace
dmesg -c > /dev/null
exec 3< $GT_DEV
# The header; this first read starts the session.
dd bs=16 count=1 <&3 > "$out" 2>/dev/null || fail "cannot read the header"
# A storm of 1 s fills a buffer unless the guest is slow (the debug
# kernel on a loaded host made 27000 calls, too few): another second,
# up to five in all, until an event was lost.
for i in 1 2 3 4 5; do
	./workload storm 1 || fail "the storm failed"
	./gotrace status --json > /tmp/ov-go123-status.json ||
		fail "gotrace status failed"
	grep -q '"lost_events": [1-9]' /tmp/ov-go123-status.json && break
done
echo 0 > $param
grep -q '^  "state": "recording",$' /tmp/ov-go123-status.json || {
	cat /tmp/ov-go123-status.json
	fail "the session did not go on recording after its buffers filled"
}
grep -q '"lost_events": [1-9]' /tmp/ov-go123-status.json || {
	cat /tmp/ov-go123-status.json
	fail "the storm filled no buffer: no event lost (the test shows nothing)"
}
# The reader's first read ends the full generation: the next one has
# room, and loses nothing more.
read_rest "$out"
lost=$(status_of lost_events)
./workload getppid 200 || fail "workload getppid failed"
settle
[ "$(status_of lost_events)" = "$lost" ] ||
	fail "events lost after the full generation was read: $lost, then $(status_of lost_events)"
echo stop > $GT_DEV || fail "echo stop failed"
wait_gone $reader 300 || fail "cat did not end within 30 s of stop"
wait $reader || fail "cat exited with $?"
check_header "$out"
echo "overflow_go123.trace: $(wc -c < "$out") bytes"
grep -E '"(lost_events|generations)"' /tmp/ov-go123-status.json
./gotrace stat "$out" > /tmp/ov-go123-stat.txt 2>&1 ||
	fail "gotrace stat refuses the trace: $(head -n 3 /tmp/ov-go123-stat.txt)"
grep -q 'UserLog' /tmp/ov-go123-stat.txt || {
	cat /tmp/ov-go123-stat.txt
	fail "no user log marks the lost events"
}
dmesg | grep 'events not recorded, the buffers being full' ||
	fail "no report of the lost events in the kernel log"
cat > "$GT_OUT/overflow_go123.expect" <<EOT
gt_getppid create == 1
gt_getppid syscall:sys_getppid == 200
gt_getppid end == 1
EOT
