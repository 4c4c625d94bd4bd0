#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# User stacks in the recording modes other than a plain one (issue 27:
# "the flight recorder, rotation, filters, units and both formats all
# work with user stacks"): each trace below is recorded with user stacks
# (--user-stacks, or the module parameter user_stacks for a session of
# cat), named by gotrace record once each file is complete (in the
# background for a snapshot or a rotated file), or for cat's here with
# gotrace symbolize, which must name some frames, and goes to the host with its ground truth: the stacks of ustack.c's
# blocks list leaf_MODE, middle_MODE, outer_MODE in order, those of
# ustack_go main.readLoop under syscall.Read, in Go 1.23's and 1.27's
# dumps and profiles (selftests/verify-trace.sh), and every Go reader
# parses them (selftests/check-trace.sh).
#
#   ustack-comm      -c gt_us_futex: only the futex program, renamed by
#                    prctl() after it started (the filter decides again)
#   ustack-pid       --children -- COMMAND: the C pipe program and the
#                    Go eventfd program, the command's descendants
#   then, in go1.23 only (generations):
#   ustack-flight    --flight: a snapshot of the window after the C
#                    sleep and the Go pipe programs
#   ustack-rotate-N  --rotate: each file a trace of its own, its frames
#                    named in it; ustack-rotate-joined the files'
#                    generations behind one header, named once joined
#   ustack-units     a session of cat with user_stacks=Y, the C pipe
#                    program in a unit's cgroup: its user region and its
#                    stacks
#
# Each program exits right after its last block: its frames must be
# named all the same, in a snapshot and in a rotated file too.
. ./lib.sh

[ "$GT_BACKEND" = kmod ] || { echo "SKIP: the module's feature"; exit 4; }

param=/sys/module/gotrace/parameters/user_stacks
[ -e $param ] || fail "no user_stacks parameter"
us_was=$(cat $param)
on_exit "echo $us_was > $param"
rounds=3

# sym IN OUT: gotrace symbolize IN into OUT, which must name some of
# its user frames (a trace cat read: unnamed).
sym() {
	./gotrace symbolize "$1" "$2" 2> /tmp/ums-sym.err ||
		fail "gotrace symbolize $1 failed: $(cat /tmp/ums-sym.err)"
	cat /tmp/ums-sym.err
	named=$(sed -n 's/.* \([0-9][0-9]*\) of [0-9]* user frames named.*/\1/p' \
		/tmp/ums-sym.err)
	[ "${named:-0}" -gt 0 ] || fail "symbolize named no user frame of $1"
	./gotrace check -q "$2" || fail "gotrace check refuses $2"
}

# The comm filter: the futex program, named gt_us_futex by prctl() once
# running, and its helper thread, which has the name from its start.
./gotrace record --user-stacks -q -c gt_us_futex -o "$GT_OUT/ustack-comm.trace" \
	-- ./ustack futex $rounds || fail "gotrace record -c gt_us_futex failed"
check_header "$GT_OUT/ustack-comm.trace"
cat > "$GT_OUT/ustack-comm.expect" <<EOT
names gt_us_futex
gt_us_futex block:sync >= $rounds
stack leaf_futex,middle_futex,outer_futex
pprof_stack sync leaf_futex,middle_futex,outer_futex
pprof_stack sched wake_leaf,wake_middle,wake_outer
EOT

# The pid filter: the command and its descendants, a C and a Go program;
# recorded unnamed (--no-symbolize), named by gotrace symbolize.
./gotrace record --user-stacks --no-symbolize -q --children \
	-o /tmp/ums-pid.raw -- \
	sh -c "./ustack pipe $rounds && ./ustack_go evfd $rounds" ||
	fail "gotrace record --children failed"
check_header /tmp/ums-pid.raw
sym /tmp/ums-pid.raw "$GT_OUT/ustack-pid.trace"
cat > "$GT_OUT/ustack-pid.expect" <<EOT
gt_us_pipe block:chan_receive >= $rounds
gt_ug_evfd sysblock:sys_read >= $rounds
stack leaf_pipe,middle_pipe,outer_pipe
pprof_stack sync leaf_pipe,middle_pipe,outer_pipe
stack syscall.Read,main.readLoop,main.main
pprof_stack syscall syscall.Read,main.readLoop,main.main
EOT

[ "$GT_FORMAT" = go1.23 ] || exit 0

# The flight recorder: a window long enough for both programs under
# emulation, a snapshot once they have exited.
dir=/tmp/ums-flight
rm -rf $dir
./gotrace record --user-stacks --flight 30s -o $dir > /tmp/ums-fl.out \
	2> /tmp/ums-fl.err &
rec=$!
cleanup_on_exit $rec
wait_state recording
./ustack sleep $rounds || fail "ustack sleep failed"
./ustack_go pipe $rounds || fail "ustack_go pipe failed"
./gotrace snapshot || fail "gotrace snapshot failed"
wait_until "ls $dir | grep -q -- '-0001-user\.trace\$'" 300 ||
	fail "no snapshot in $dir within 30 s: $(cat /tmp/ums-fl.err)"
wait_until "grep -q '^gotrace: snapshot 1,' /tmp/ums-fl.err" 100 ||
	fail "no summary line for the snapshot: $(cat /tmp/ums-fl.err)"
./gotrace stop || fail "gotrace stop failed"
wait_gone $rec 300 || fail "the recorder did not end within 30 s of stop"
wait $rec || fail "the recorder exited with $?: $(cat /tmp/ums-fl.err)"
f=$dir/$(ls $dir | grep -- '-0001-user\.trace$')
check_header "$f"
! grep -q "user frames not all named\|unnamed user frames" /tmp/ums-fl.err ||
	fail "the snapshot's frames were not named: $(cat /tmp/ums-fl.err)"
cp "$f" "$GT_OUT/ustack-flight.trace"
# Each 20 ms sleep blocks, unless its vCPU waited longer than that for
# the host on its way to sleep: then its timer had expired and it is a
# syscall that did not block (ustack.c).
cat > "$GT_OUT/ustack-flight.expect" <<EOT
gt_us_sleep block:sleep+syscall:sys_nanosleep >= $rounds
gt_us_sleep sysblock:sys_nanosleep == 0
gt_ug_pipe block:chan_receive >= $rounds
stack leaf_sleep,middle_sleep,outer_sleep
stack syscall.Read,main.readLoop,main.main
pprof_stack sync syscall.Read,main.readLoop,main.main
EOT

# Rotation: short generations and files, a program per file or so.  A
# file is a trace of its own: its frames are named from its own tables,
# each by a gotrace symbolize the recorder started once it was complete,
# all done when the recorder exits.
dir=/tmp/ums-rotate
rm -rf $dir
gen_param=/sys/module/gotrace/parameters/generation_ms
gen_was=$(cat $gen_param)
on_exit "echo $gen_was > $gen_param"
echo 200 > $gen_param || fail "cannot set generation_ms=200"
./gotrace record --user-stacks --rotate 1s -o $dir -- sh -c \
	"./ustack evfd $rounds && sleep 1.5 && ./ustack futex $rounds &&
	 sleep 1.5 && ./ustack_go pipe $rounds" \
	> /tmp/ums-rot.out 2> /tmp/ums-rot.err ||
	fail "gotrace record --rotate failed: $(cat /tmp/ums-rot.err)"
cat /tmp/ums-rot.err
! grep -q "user frames not all named\|unnamed user frames" /tmp/ums-rot.err ||
	fail "rotated files not named: $(cat /tmp/ums-rot.err)"
n=$(ls $dir | wc -l)
[ "$n" -ge 2 ] || fail "$n files for 3 s rotated every 1 s, not 2 or more"
k=0
joined=/tmp/ums-rotate-joined.raw
for f in $(ls $dir | sort); do
	k=$((k + 1))
	check_header "$dir/$f"
	if [ $k -eq 1 ]; then
		cp "$dir/$f" $joined
	else
		tail -c +17 "$dir/$f" >> $joined
	fi
	./gotrace check -q "$dir/$f" || fail "gotrace check refuses file $k of $n"
	cp "$dir/$f" "$GT_OUT/ustack-rotate-$k.trace"
done
./gotrace check -q $joined || fail "gotrace check refuses the joined files"
cp $joined "$GT_OUT/ustack-rotate-joined.trace"
cat > "$GT_OUT/ustack-rotate-joined.expect" <<EOT
gt_us_evfd sysblock:sys_read >= $rounds
gt_us_futex block:sync >= $rounds
gt_ug_pipe block:chan_receive >= $rounds
stack leaf_evfd,middle_evfd,outer_evfd
stack leaf_futex,middle_futex,outer_futex
stack syscall.Read,main.readLoop,main.main
pprof_stack syscall leaf_evfd,middle_evfd,outer_evfd
pprof_stack sync leaf_futex,middle_futex,outer_futex
EOT
echo "$gen_was" > $gen_param

# Units, in a session of cat that takes its user stacks from the
# module parameter: the pipe program run in a unit's cgroup (as
# in_unit(), lib.sh, which says why the shell is moved before its exec).
make_unit gt-ustack.service
echo Y > $param || fail "cannot set user_stacks=Y"
record_while /tmp/ums-units.raw in_unit ./ustack pipe $rounds
echo "$us_was" > $param
sym /tmp/ums-units.raw "$GT_OUT/ustack-units.trace"
cat > "$GT_OUT/ustack-units.expect" <<EOT
gt_us_pipe region:gt-ustack.service >= 1
gt_us_pipe block:chan_receive >= $rounds
stack leaf_pipe,middle_pipe,outer_pipe
pprof_stack sync leaf_pipe,middle_pipe,outer_pipe
pprof_stack sched wake_leaf,wake_middle,wake_outer
EOT
exit 0
