#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The snapshot at the start leaves out tasks that have exited
# (kmod/probes.c, Documentation/mapping.rst): gt_zombie exits and stays
# unreaped (its parent, a sleep, never waits) while a recording starts
# and runs.  It never runs again: no goroutine of it may be in the
# trace, where it would wait forever, stated in every generation.  Its
# name appears nowhere (its comm frame would name its goroutine).
. ./lib.sh

ln -sf /bin/busybox /tmp/gt_zombie
rm -f /tmp/zombie.pid
# busybox, called gt_zombie, knows no such applet: it exits at once.
# It starts only once its parent is sleep, which never waits: a shell
# may reap a child that exits before the shell has become sleep.
sh -c '(while [ "$(cat /proc/$$/comm)" != sleep ]; do sleep 0.1; done
	exec /tmp/gt_zombie 2> /dev/null) & echo $! > /tmp/zombie.pid
	exec sleep 300' &
parent=$!
cleanup_on_exit $parent
wait_until '[ -s /tmp/zombie.pid ]' 300 || fail "no gt_zombie started"
zpid=$(cat /tmp/zombie.pid)
wait_until "[ \"\$(sed 's/^.*) //' /proc/$zpid/stat | cut -c1)\" = Z ]" 300 ||
	fail "gt_zombie ($zpid) is not a zombie"
[ "$(cat "/proc/$zpid/comm")" = gt_zombie ] || fail "the zombie is not gt_zombie"

./gotrace record -d 1 -o "$GT_OUT/zombie.trace" 2> /tmp/rec.err ||
	fail "gotrace record failed: $(cat /tmp/rec.err)"
cat /tmp/rec.err
[ "$(sed 's/^.*) //' "/proc/$zpid/stat" | cut -c1)" = Z ] ||
	fail "gt_zombie was reaped during the recording"
./gotrace check -q "$GT_OUT/zombie.trace" || fail "gotrace check refused the trace"
! trace_has "$GT_OUT/zombie.trace" gt_zombie ||
	fail "the unreaped gt_zombie is a goroutine of the trace"
echo "ok: the zombie $zpid is not in the trace"
