#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Naming user frames never waits for another process's mmap_lock
# (kmod/ustack.c, Documentation/user-stacks.rst).  mmlock holds its own
# as a fault on a stuck FUSE file does, with a writer queued behind it,
# and blocks every 5 ms in its main thread meanwhile; gotrace record
# --user-stacks records it with 100 ms generations for 2 s.  The
# recording must end by itself, having written its generations and
# counted the stacks it could not name ("mm busy"), and the trace must
# be valid.  A naming that waited for the lock would hold the lock the
# generation writer needs: no generation after gt_mmlock's first stack,
# and a recording that never ends while the lock is held.
. ./lib.sh

[ "$GT_BACKEND" = kmod ] || { echo "SKIP: the module's naming only"; exit 4; }
gen_param=/sys/module/gotrace/parameters/generation_ms
old_gen=$(cat $gen_param)
echo 100 > $gen_param || fail "cannot set generation_ms"
on_exit "echo $old_gen > $gen_param"

./mmlock /tmp/gt_fuse 300 > /tmp/mmlock.out 2> /tmp/mmlock.err &
mmlock=$!
cleanup_on_exit $mmlock
wait_until "grep -q '^held' /tmp/mmlock.out || ! kill -0 $mmlock 2>/dev/null" \
	300 || fail "mmlock did not hold its lock within 30 s"
if ! grep -q '^held' /tmp/mmlock.out; then
	wait $mmlock
	[ $? = 4 ] && { echo "SKIP: no FUSE: $(cat /tmp/mmlock.err)"; exit 4; }
	fail "mmlock failed: $(cat /tmp/mmlock.err)"
fi

./gotrace record --user-stacks -p $mmlock -d 2 -o "$GT_OUT/mmlock.trace" \
	2> /tmp/rec.err &
rec=$!
cleanup_on_exit $rec

# SIGTERM ends mmlock; bounded, so that a stop that never comes (a
# signal frame that waits for the held lock: mmlock.c) fails, not hangs.
stop_mmlock() {
	kill $mmlock
	wait_gone $mmlock 300 ||
		fail "mmlock did not end within 30 s of SIGTERM"
	wait $mmlock
}

# The bound ends a hang (a 2 s recording, far longer on a loaded host).
if ! wait_gone $rec 600; then
	# Released first (the status would wait for the stuck reader too):
	# the session can then end, and the cleanup stops it.
	stop_mmlock
	fail "the recording did not end while gt_mmlock's mmap_lock was" \
		"held (it did once released: $(status_of generations)" \
		"generations)"
fi
wait $rec || fail "gotrace record failed: $(cat /tmp/rec.err)"
cat /tmp/rec.err
stop_mmlock || fail "mmlock failed: $(cat /tmp/mmlock.err)"
grep -q '^released' /tmp/mmlock.out || fail "mmlock did not release its lock"

gens=$(sed -n 's/.* in \([0-9]*\) generations.*/\1/p' /tmp/rec.err)
[ "${gens:-0}" -ge 3 ] || fail "only ${gens:-no} generations in 2 s of 100 ms"
grep -q "mm busy [1-9]" /tmp/rec.err ||
	fail "no stack counted as left unnamed for a busy mmap_lock"
./gotrace check -q "$GT_OUT/mmlock.trace" || fail "gotrace check refused the trace"
echo "ok: $gens generations while gt_mmlock's mmap_lock was held"
