#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The gotrace command against the real device: by duration, while a
# command runs, stopped by Ctrl-C, and with the module's filters.  Each
# trace must pass `gotrace check` here and both Go parsers on the host,
# with the ground truth next to it.
. ./lib.sh

check() {
	./gotrace check -q "$1" || fail "gotrace check refused $1"
	check_header "$1"
}

# only_task FILE NAME: 'gotrace stat' lists one task in FILE, named NAME.
only_task() {
	./gotrace stat "$1" > "$1.stat" || fail "gotrace stat $1 failed"
	names=$(awk '/^task names by run time:/ { on = 1; getline; next }
		on && NF == 0 { exit }
		on { print $1 }' "$1.stat" | tr '\n' ' ')
	[ "$names" = "$2 " ] ||
		fail "gotrace stat $1: tasks '$names', want only $2"
	grep -q "^  tasks       1 (goroutines)" "$1.stat" ||
		fail "gotrace stat $1: not one task: $(grep tasks "$1.stat")"
}

start=$(date +%s)
./gotrace record -q -o "$GT_OUT/record-d.trace" -d 2s ||
	fail "record -d 2s exited with $?"
took=$(($(date +%s) - start))
[ "$took" -ge 2 ] && [ "$took" -le 10 ] ||
	fail "record -d 2s took $took s"
check "$GT_OUT/record-d.trace"

./gotrace record -q -o "$GT_OUT/record-cmd.trace" -- ./workload pingpong 100 ||
	fail "record -- workload exited with $?"
check "$GT_OUT/record-cmd.trace"
# gt_pong's exit_group is in; its GoEnd may not be: the recording stops
# once COMMAND has reaped it, which can come before its final switch.
cat > "$GT_OUT/record-cmd.expect" <<EOT
gt_ping block:chan_receive+syscall:sys_read >= 100
gt_ping block:chan_send+syscall:sys_write >= 100
gt_ping syscall:sys_write <= 100
gt_pong syscall:sys_exit_group == 1
EOT

# The command's exit status is gotrace's.
./gotrace record -q -o "$GT_OUT/record-false.trace" -- false
[ $? -eq 1 ] || fail "record -- false did not exit 1"
check "$GT_OUT/record-false.trace"

./gotrace record -q -o "$GT_OUT/record-int.trace" &
rec=$!
cleanup_on_exit $rec
wait_state recording
kill -INT $rec
wait $rec || fail "record stopped by SIGINT exited with $?"
check "$GT_OUT/record-int.trace"

# Filters: one process, by pid and by name.
./workload sleep 400 20 &
sleeper=$!
cleanup_on_exit $sleeper
wait_comm $sleeper gt_sleeper
./gotrace record -q -o "$GT_OUT/record-pid.trace" -p $sleeper -d 0.5 ||
	fail "record -p exited with $?"
check "$GT_OUT/record-pid.trace"
only_task "$GT_OUT/record-pid.trace" gt_sleeper
cat > "$GT_OUT/record-pid.expect" <<EOT
names gt_sleeper
gt_sleeper block:sleep >= 10
EOT
./gotrace record -q -o "$GT_OUT/record-comm.trace" -c gt_sleeper -d 0.5 ||
	fail "record -c exited with $?"
check "$GT_OUT/record-comm.trace"
only_task "$GT_OUT/record-comm.trace" gt_sleeper
cat > "$GT_OUT/record-comm.expect" <<EOT
names gt_sleeper
gt_sleeper block:sleep >= 10
EOT

# By cgroup (v2), a path relative to /sys/fs/cgroup.
grep -q "^[^ ]* /sys/fs/cgroup cgroup2 " /proc/mounts ||
	mount -t cgroup2 none /sys/fs/cgroup || fail "cannot mount cgroup2"
mkdir -p /sys/fs/cgroup/gt_record || fail "cannot create a cgroup"
echo $sleeper > /sys/fs/cgroup/gt_record/cgroup.procs ||
	fail "cannot move the sleeper into the cgroup"
./gotrace record -q -o "$GT_OUT/record-cgroup.trace" --cgroup gt_record \
	-d 500ms || fail "record --cgroup exited with $?"
check "$GT_OUT/record-cgroup.trace"
only_task "$GT_OUT/record-cgroup.trace" gt_sleeper
cat > "$GT_OUT/record-cgroup.expect" <<EOT
names gt_sleeper
gt_sleeper block:sleep >= 10
EOT
kill $sleeper
wait $sleeper 2>/dev/null
rmdir /sys/fs/cgroup/gt_record

./gotrace record -q -o "$GT_OUT/record-nosys.trace" --syscalls none \
	-- ./workload getppid 100 || fail "record --syscalls none failed"
check "$GT_OUT/record-nosys.trace"
echo "gt_getppid syscall:sys_getppid == 0" > "$GT_OUT/record-nosys.expect"

./gotrace record -q -o "$GT_OUT/record-filter.trace" \
	--syscall-filter getppid -- ./workload getppid 100 ||
	fail "record --syscall-filter failed"
check "$GT_OUT/record-filter.trace"
cat > "$GT_OUT/record-filter.expect" <<EOT
gt_getppid syscall:sys_getppid == 100
gt_getppid syscall:sys_exit_group == 0
EOT

# Without kernel stacks: by the option, then by the module's parameter,
# which the command keeps when it sends options for a filter.
./gotrace record -q -o "$GT_OUT/record-nostacks.trace" --no-stacks \
	-- ./workload pingpong 100 || fail "record --no-stacks failed"
check "$GT_OUT/record-nostacks.trace"
cat > "$GT_OUT/record-nostacks.expect" <<EOT
kernel_pcs none
gt_ping block:chan_receive+syscall:sys_read >= 100
gt_ping block:chan_send+syscall:sys_write >= 100
gt_ping syscall:sys_write <= 100
EOT
KSTACKS=/sys/module/gotrace/parameters/kstacks
echo N > $KSTACKS || fail "cannot set kstacks=N"
./gotrace record -q -o "$GT_OUT/record-kstacks-param.trace" --children \
	-- ./workload pingpong 50
status=$?
echo Y > $KSTACKS
[ $status -eq 0 ] || fail "record with kstacks=N failed"
check "$GT_OUT/record-kstacks-param.trace"
# --children with COMMAND alone: COMMAND (forked by gotrace, until it
# execs) and its descendants, nothing else of the machine.
cat > "$GT_OUT/record-kstacks-param.expect" <<EOT
kernel_pcs none
names gotrace,workload,gt_ping,gt_pong
gt_ping block:chan_send+syscall:sys_write >= 50
gt_ping syscall:sys_write <= 50
gt_pong create == 1
EOT

# Errors are one clear line and a non-zero exit.
./gotrace record -q -o /dev/null -p 0 2>/dev/null && fail "-p 0 accepted"
./gotrace record -q -o /dev/null --syscalls some 2>/dev/null &&
	fail "--syscalls some accepted"
# Until it is stopped: a duration could end it before the status is read
# on a slow guest (2 s did on the debug kernel under load).
./gotrace record -q -o "$GT_OUT/busy.tmp" &
first=$!
cleanup_on_exit $first
wait_state recording
msg=$(./gotrace record -q -o /dev/null -d 1 2>&1) &&
	fail "a second recording started"
echo "$msg" | grep -q "another reader" || fail "second recording: '$msg'"
# gotrace status, from a control handle while the first one records:
# the session, then one line per CPU (header, CPUs 0 and 1): no event
# lost, no overflow, no CPU sample (none asked for) and none lost.
./gotrace status > "$GT_OUT/status.txt" || fail "gotrace status failed"
cat "$GT_OUT/status.txt"
grep -q "^state: *recording" "$GT_OUT/status.txt" ||
	fail "gotrace status: not recording"
grep -q "^lost events: *0" "$GT_OUT/status.txt" ||
	fail "gotrace status: lost events"
[ "$(grep -c -E '^ +[0-9]+ +yes +(started|stopped) +[0-9]+ +0 +0 +0 +0$' \
	"$GT_OUT/status.txt")" -eq "$(grep -c ^processor /proc/cpuinfo)" ] ||
	fail "gotrace status: not one line per online CPU"
kill -INT $first
wait $first || fail "the first recording exited with $?"
./gotrace status | grep -q "^state: *idle" || fail "gotrace status: not idle"
rm -f "$GT_OUT/busy.tmp"
exit 0
