#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What the gotrace command promises, against the real device: gotrace
# stop; status (--json, an offline CPU); -o - and --buffer-size; the
# summary and exit status after an overflow; output errors; the second
# Ctrl-C; --tid; --unit and its systemctl fallback; the progress line and
# Ctrl-C on a terminal.  Every wait below polls a state, bounded.
. ./lib.sh

CPU1=/sys/devices/system/cpu/cpu1/online
NCPU=$(grep -c ^processor /proc/cpuinfo)

# What the test leaves behind if a check fails half-way: the CPU it took
# offline, the stalled pipe it holds open.
on_exit '[ -w $CPU1 ] && echo 1 > $CPU1 2>/dev/null'
on_exit 'exec 3<&- 2>/dev/null'

# wait_exit PID: wait for gotrace PID, its exit status in $rc; after 30 s
# it is killed and rc=255, so a gotrace that hangs fails the test instead
# of hanging the guest.
wait_exit() {
	we_pid=$1
	wait_until 'st=$(cut -d" " -f3 "/proc/$we_pid/stat" 2>/dev/null);
		[ -z "$st" ] || [ "$st" = Z ]' 300 || kill -9 "$we_pid"
	wait "$we_pid"
	rc=$?
	[ -n "$st" ] && [ "$st" != Z ] && rc=255
	return 0
}

state_is() {
	./gotrace status --json 2>/dev/null | grep -q "\"state\": \"$1\""
}

# json_num NAME: a number of 'gotrace status --json'.
json_num() {
	./gotrace status --json | sed -n "s/^  \"$1\": \([0-9]*\),*$/\1/p"
}

check() {
	./gotrace check -q "$1" || fail "gotrace check refused $1"
	check_header "$1"
}

# tasks FILE: the number of tasks (goroutines) 'gotrace stat' counts.
tasks() {
	./gotrace stat "$1" > "$1.stat" || fail "gotrace stat $1 failed"
	sed -n 's/^  tasks *\([0-9]*\) (goroutines).*/\1/p' "$1.stat"
}

# only_task FILE NAME: FILE holds one task, named NAME.
only_task() {
	n=$(tasks "$1")
	[ "$n" = 1 ] || fail "$1: $n tasks, want 1"
	names=$(sed -n '/^task names by run time:/,/^$/p' "$1.stat" |
		sed '1,2d' | awk 'NF { print $1 }' | tr '\n' ' ')
	[ "$names" = "$2 " ] || fail "$1: tasks named '$names', want only $2"
}

# record_bg ERRFILE ARGS...: gotrace record ARGS in the background, $rec
# its pid, once the module says it is recording.
record_bg() {
	err=$1
	shift
	./gotrace record "$@" 2> "$err" &
	rec=$!
	cleanup_on_exit $rec
	wait_until 'state_is recording' 100 ||
		fail "gotrace record $* never started recording: $(cat "$err")"
}

echo "# gotrace stop, gotrace status --json"
record_bg /tmp/stop.err -o "$GT_OUT/cmd-stop.trace"
./gotrace status --json > /tmp/status.json || fail "status --json failed"
cat /tmp/status.json
grep -q "^  \"nr_cpus\": $NCPU,$" /tmp/status.json ||
	fail "status --json: nr_cpus is not $NCPU"
[ "$(grep -cE '^    \{ "cpu": [0-9]+, "online": true, "running": (true|false), "events": [0-9]+, "lost_events": 0, "chunk_overflows": 0, "cpu_samples": 0, "cpu_samples_idle": 0, "cpu_samples_hidden": 0, "cpu_samples_lost": 0 \},?$' \
	/tmp/status.json)" -eq "$NCPU" ] ||
	fail "status --json: not one online CPU object per CPU"
./gotrace stop || fail "gotrace stop exited with $?"
wait_exit $rec
[ $rc -eq 0 ] || fail "record stopped by gotrace stop exited with $rc"
grep -q "stopped: gotrace stop (module: user), 0 lost" /tmp/stop.err ||
	fail "record's summary after gotrace stop: $(cat /tmp/stop.err)"
check "$GT_OUT/cmd-stop.trace"
wait_until 'state_is idle' 50 || fail "not idle after the recording"
msg=$(./gotrace stop 2>&1) && fail "gotrace stop succeeded with nothing to stop"
echo "$msg" | grep -q "no recording in progress" ||
	fail "gotrace stop with nothing to stop: '$msg'"

if [ -w $CPU1 ]; then
	echo "# gotrace status with CPU 1 offline"
	record_bg /tmp/offline.err -q -o "$GT_OUT/cmd-offline.trace"
	echo 0 > $CPU1 || fail "cannot take CPU 1 offline"
	./gotrace status > /tmp/offline.txt || fail "status failed: CPU 1 offline"
	./gotrace status --json > /tmp/offline.json ||
		fail "status --json failed: CPU 1 offline"
	echo 1 > $CPU1 || fail "cannot bring CPU 1 back"
	./gotrace stop || fail "gotrace stop exited with $?"
	wait_exit $rec
	[ $rc -eq 0 ] || fail "record exited with $rc"
	cat /tmp/offline.txt
	grep -Eq '^ +1 +no +stopped ' /tmp/offline.txt ||
		fail "status: CPU 1 not shown offline with its P stopped"
	grep -Eq '^ +0 +yes ' /tmp/offline.txt || fail "status: CPU 0 not online"
	grep -q '"cpu": 1, "online": false, "running": false' /tmp/offline.json ||
		fail "status --json: CPU 1 not offline"
	check "$GT_OUT/cmd-offline.trace"
fi

echo "# -o - through a pipe"
./gotrace record -q -o - -d 1 | cat > "$GT_OUT/cmd-stdout.trace" ||
	fail "record -o - | cat failed"
check "$GT_OUT/cmd-stdout.trace"

echo "# --buffer-size 3M: 48 chunks of 64 KiB"
# A generational session takes them as two buffers per CPU: its chunk
# pool keeps only its minimum, two per online CPU (the overflow below
# shows the buffers' size).
want=48
[ "$GT_FORMAT" = go1.11 ] || want=$((2 * $(grep -c ^processor /proc/cpuinfo)))
record_bg /tmp/bufsize.err -q --buffer-size 3M -o /dev/null
total=$(json_num chunks_total)
./gotrace stop || fail "gotrace stop exited with $?"
wait_exit $rec
[ $rc -eq 0 ] || fail "record --buffer-size 3M exited with $rc"
[ "$total" = $want ] || fail "--buffer-size 3M: $total chunks, want $want"

echo "# out of buffers: the summary says so, the status stays 0"
# The recorder writes into a pipe nobody reads for two seconds of storm:
# it blocks in write(), the device is not read, and the smallest pool
# fills (a reader that keeps up would let the session go on).  The storm
# starts once the session has started (on 8 vCPUs it would otherwise
# starve the recorder until it is over); the session may also fill from
# its periodic flushes alone and end before the check sees it recording
# (newest-rt): either way it must end by overflow.
# In the generational format the session goes on past the lost events
# (only their count and a mark in the trace say so): there the
# recording ends by its duration, a few seconds after the storm.
# The storm goes on, a second at a time, until events are lost: on the
# debug kernel under a loaded host, two seconds of it once fit in the
# pipe and the pool (52 314 events, none lost).
dur=30
stopped="out of buffer space (module: overflow)"
if [ "$GT_FORMAT" != go1.11 ]; then
	dur=$((5 * ${GT_TIME_SCALE:-1}))
	stopped="duration elapsed (module: user)"
fi
rm -f /tmp/overflow.rc
storm_until_lost() {
	./workload storm 2 || return 1
	sul_i=1
	while [ "$(status_of lost_events)" = 0 ] && [ ! -e /tmp/overflow.rc ] &&
	      [ "$sul_i" -lt $((3 * ${GT_TIME_SCALE:-1})) ]; do
		./workload storm 1 || return 1
		sul_i=$((sul_i + 1))
	done
}
# The smallest pool the module takes: two 64 KiB buffers a CPU (gotrace
# refuses less rather than have the module raise it unsaid).
{ ./gotrace record --buffer-size $((2 * 64 * NCPU))K -d $dur -o - \
	2> /tmp/overflow.err
  echo $? > /tmp/overflow.rc; } |
	{ wait_until '! state_is idle && ! state_is ready ||
		[ -e /tmp/overflow.rc ]' 100 &&
		storm_until_lost &&
		cat > "$GT_OUT/cmd-overflow.trace"; } ||
	fail "the storm under a stalled recorder failed"
rc=$(cat /tmp/overflow.rc)
cat /tmp/overflow.err
[ $rc -eq 0 ] || fail "record after an overflow exited with $rc, want 0"
grep -q "stopped: $stopped, [1-9][0-9]* lost" \
	/tmp/overflow.err || fail "no overflow in the summary"
grep -q "warning: \*\*\* [1-9][0-9]* EVENTS LOST \*\*\*" /tmp/overflow.err ||
	fail "no lost-events warning"
[ "$GT_FORMAT" = go1.11 ] ||
	grep -q "the trace goes on past them" /tmp/overflow.err ||
	fail "no word that the generational trace goes on"
check "$GT_OUT/cmd-overflow.trace"

echo "# output errors: a full device, a full file system"
./gotrace record -o /dev/full -d 1 2> /tmp/full.err
rc=$?
cat /tmp/full.err
[ $rc -eq 1 ] || fail "record -o /dev/full exited with $rc, want 1"
grep -q "writing /dev/full: No space left on device" /tmp/full.err ||
	fail "record -o /dev/full: no ENOSPC message"
grep -q "stopped: output error" /tmp/full.err ||
	fail "record -o /dev/full: not stopped by the output error"
wait_until 'state_is idle' 50 || fail "not idle after an output error"
# Two pages: the previous trace takes one, the new one gets 4 KiB, far
# less than three seconds of churn produce.
mkdir -p /tmp/small
mount -t tmpfs -o size=8k tmpfs /tmp/small || fail "cannot mount a tmpfs"
echo previous > /tmp/small/t.trace
./workload churn 2 &
load=$!
cleanup_on_exit $load
./gotrace record -q -o /tmp/small/t.trace -d 3 2> /tmp/small.err
rc=$?
wait $load
cat /tmp/small.err
[ $rc -eq 1 ] || fail "record into a full tmpfs exited with $rc, want 1"
[ "$(cat /tmp/small/t.trace)" = previous ] ||
	fail "a failed recording changed the existing trace"
ls /tmp/small/t.trace.tmp-* > /dev/null ||
	fail "the incomplete trace was not kept"
grep -q "the incomplete trace stays in /tmp/small/t.trace.tmp-" \
	/tmp/small.err || fail "no word of where the incomplete trace is"
umount /tmp/small

echo "# the second Ctrl-C aborts, even while the output is stuck"
mkfifo /tmp/stall
exec 3<> /tmp/stall
./workload churn 8 &
load=$!
cleanup_on_exit $load
./gotrace record -o - > /tmp/stall 2> /tmp/stall.err &
rec=$!
cleanup_on_exit $rec
# In write(2): the pipe is full, nothing reads it.  (wait_until's
# condition reads nr_write.)
# shellcheck disable=SC2034
nr_write=$(sysnr write)
wait_until '[ "$(cut -d" " -f1 /proc/$rec/syscall)" = $nr_write ]' 300 ||
	fail "record never blocked on the stalled pipe"
kill -INT $rec
wait_until 'grep -q "stopping, reading the end" /tmp/stall.err' 100 ||
	fail "no word of the first SIGINT"
kill -INT $rec
wait_exit $rec
exec 3<&-
kill $load
wait $load
cat /tmp/stall.err
[ $rc -eq 130 ] || fail "second SIGINT: exit $rc, want 130"
grep -q "aborted: the trace on stdout is incomplete" /tmp/stall.err ||
	fail "second SIGINT: no word of the abort"
wait_until 'state_is idle' 50 || fail "the aborted session is still there"

echo "# two stop signals at once: aborted, the existing trace untouched"
echo previous > /tmp/ab.trace
record_bg /tmp/ab.err -o /tmp/ab.trace
wait_until '[ -s /tmp/ab.trace.tmp-$rec ]' 100 || fail "nothing written"
kill -STOP $rec
kill -HUP $rec
kill -INT $rec
kill -CONT $rec
wait_exit $rec
cat /tmp/ab.err
[ $rc -eq 129 ] || [ $rc -eq 130 ] ||
	fail "two stop signals: exit $rc, want 128 + a signal"
[ "$(cat /tmp/ab.trace)" = previous ] || fail "an abort changed the trace"
[ -e "/tmp/ab.trace.tmp-$rec" ] || fail "the aborted trace was not kept"
wait_until 'state_is idle' 50 || fail "the aborted session is still there"
rm -f /tmp/ab.trace*

echo "# --tid: one thread of a process"
./workload mutex 3 3000 &
mx=$!
cleanup_on_exit $mx
wait_until '[ "$(ls /proc/$mx/task | wc -l)" -eq 4 ]' 100 ||
	fail "workload mutex did not start its threads"
tid=$(ls /proc/$mx/task | grep -vx "$mx" | head -n 1)
./gotrace record -q -p "$tid" --tid -d 500ms -o "$GT_OUT/cmd-tid.trace" ||
	fail "record -p TID --tid exited with $?"
./gotrace record -q -p "$mx" -d 500ms -o "$GT_OUT/cmd-threads.trace" ||
	fail "record -p PID exited with $?"
kill $mx
wait $mx
check "$GT_OUT/cmd-tid.trace"
check "$GT_OUT/cmd-threads.trace"
only_task "$GT_OUT/cmd-tid.trace" gt_mutex
n=$(tasks "$GT_OUT/cmd-threads.trace")
[ "$n" -ge 3 ] || fail "record -p PID: $n tasks, want its 3 threads at least"

echo "# --unit: system.slice, then where systemctl says"
grep -q "^[^ ]* /sys/fs/cgroup cgroup2 " /proc/mounts ||
	mount -t cgroup2 none /sys/fs/cgroup || fail "cannot mount cgroup2"
./workload sleep 400 20 &
sl=$!
cleanup_on_exit $sl
direct=/sys/fs/cgroup/system.slice/gt_direct.service
mkdir -p $direct || fail "cannot create $direct"
echo $sl > $direct/cgroup.procs || fail "cannot move the sleeper"
./gotrace record -q --unit gt_direct -d 500ms -o "$GT_OUT/cmd-unit.trace" ||
	fail "record --unit gt_direct exited with $?"
check "$GT_OUT/cmd-unit.trace"
only_task "$GT_OUT/cmd-unit.trace" gt_sleeper
elsewhere=/sys/fs/cgroup/gt_app.slice/gt_fake.service
mkdir -p $elsewhere /tmp/fakebin || fail "cannot create $elsewhere"
echo $sl > $elsewhere/cgroup.procs || fail "cannot move the sleeper"
cat > /tmp/fakebin/systemctl <<'EOF'
#!/bin/sh
[ "$*" = "show -p ControlGroup --value gt_fake.service" ] || exit 1
echo /gt_app.slice/gt_fake.service
EOF
chmod +x /tmp/fakebin/systemctl
PATH=/tmp/fakebin:$PATH ./gotrace record -q --unit gt_fake -d 500ms \
	-o "$GT_OUT/cmd-unit-systemctl.trace" ||
	fail "record --unit gt_fake (systemctl) exited with $?"
check "$GT_OUT/cmd-unit-systemctl.trace"
only_task "$GT_OUT/cmd-unit-systemctl.trace" gt_sleeper
PATH=/tmp/fakebin:$PATH ./gotrace record -q --unit gt_nowhere -d 500ms \
	-o /dev/null 2> /dev/null && fail "record --unit of no cgroup accepted"
kill $sl
wait $sl
rmdir $direct $elsewhere /sys/fs/cgroup/gt_app.slice

echo "# on a terminal: the progress line, Ctrl-C, -o - refused"
# Pseudo-terminals need devpts, which the initramfs does not mount.
[ -c /dev/pts/ptmx ] || { mkdir -p /dev/pts &&
	mount -t devpts -o ptmxmode=0666 devpts /dev/pts; } ||
	fail "cannot mount devpts"
[ -c /dev/ptmx ] || ln -sf pts/ptmx /dev/ptmx
# Bounded: were the trigger never seen, the pty's end would hang up
# gotrace (SIGHUP), which stops it.
timeout 120 ./pty_run -c "overflows" /tmp/pty.out ./gotrace record \
	-o "$GT_OUT/cmd-pty.trace" -- \
	sh -c 'trap "exit 5" INT; while :; do sleep 0.1; done'
rc=$?
cat /tmp/pty.out
[ $rc -eq 5 ] || fail "Ctrl-C on the terminal: exit $rc, want COMMAND's 5"
tr '\r\033' 'RE' < /tmp/pty.out |
	grep -q "RE\[Kgotrace: recording [0-9]* s: [0-9.]* [KMG]*i*B written, [0-9]* events ([0-9]*/s), 0 lost, 0 overflows" ||
	fail "no progress line on the terminal"
grep -q "stopped: interrupted" /tmp/pty.out ||
	fail "Ctrl-C on the terminal: not stopped by the signal"
check "$GT_OUT/cmd-pty.trace"
timeout 60 ./pty_run /tmp/pty.out ./gotrace record -o - -d 1
rc=$?
[ $rc -eq 1 ] || fail "record -o - on a terminal: exit $rc, want 1"
grep -q "refusing to write a binary trace to a terminal" /tmp/pty.out ||
	fail "record -o - on a terminal: $(cat /tmp/pty.out)"
exit 0
