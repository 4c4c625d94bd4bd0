#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# SIGKILL of 'gotrace record --rotate' while it writes: only complete
# files carry the .trace name.  The recorder rotates every second over a
# workload that keeps running (a ping-pong and getppid rounds) and is
# killed once it has completed two files.  Here: every file named
# .trace is a whole trace (gotrace check), at most one file keeps its
# .tmp name and nothing else is in the directory; the module ends the
# killed reader's session (the device is idle again).  The test says
# whether 'gotrace check --repair' could keep whole generations of the
# file cut short (it may hold none).
. ./lib.sh

[ "$GT_BACKEND" = kmod ] || { echo "the module's rotation"; exit 4; }
use_format go1.23
dir=/tmp/rotate-kill
rm -rf $dir
gen_param=/sys/module/gotrace/parameters/generation_ms
on_exit "echo $(cat $gen_param) > $gen_param"
echo 200 > $gen_param || fail "cannot set generation_ms=200"

./workload pingpong 300 10 &
pp=$!
cleanup_on_exit $pp
./gotrace record --backend kmod --format go1.23 --rotate 1s -o $dir \
	> /tmp/rk.out 2> /tmp/rk.err &
rec=$!
cleanup_on_exit $rec
wait_state recording
wait_until "[ \$(ls $dir | grep -c '\.trace\$') -ge 2 ]" 300 ||
	fail "fewer than 2 files after 30 s: $(ls $dir | tr '\n' ' ')"
./workload getppid 100 || fail "workload getppid failed"
kill -KILL $rec
wait $rec 2>/dev/null
wait_state idle
wait $pp || fail "the ping-pong failed"
ls -la $dir
complete=0
for f in $(ls $dir | grep '\.trace$'); do
	./gotrace check -q "$dir/$f" || fail "$f is named complete but is not"
	complete=$((complete + 1))
done
tmps=$(ls $dir | grep -c '\.tmp$')
[ "$tmps" -le 1 ] || fail "$tmps files keep a .tmp name, not one at most"
[ $((complete + tmps)) = "$(ls $dir | wc -l)" ] ||
	fail "files other than .trace and .tmp in $dir"
repaired=
if [ "$tmps" = 1 ]; then
	# Cut anywhere: what it holds of whole generations can be kept.
	t=$dir/$(ls $dir | grep '\.tmp$')
	if ./gotrace check --repair -o /tmp/rk-repaired.trace "$t" \
		> /tmp/rk-repair.txt 2>&1; then
		[ ! -e /tmp/rk-repaired.trace ] ||
			./gotrace check -q /tmp/rk-repaired.trace ||
			fail "the repaired file is not a trace"
		repaired=", repaired"
	else
		repaired=", no whole generation in it: $(tail -n 1 /tmp/rk-repair.txt)"
	fi
fi
echo "$complete complete files, $tmps cut short$repaired"
exit 0
