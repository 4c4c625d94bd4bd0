#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A session filtered to one process while another process forks 40 000
# short-lived children: the entries of the tasks the filter leaves out
# go back to the task table when they die, so the session is still
# recording at the end and the filtered process's syscalls are all there.
. ./lib.sh

fifo=/tmp/filter-fork.fifo
out=$GT_OUT/filter-fork.trace
rm -f $fifo
mkfifo $fifo || fail "mkfifo"
./corner gate $fifo 1000 &
gated=$!
cleanup_on_exit $gated
# Recorded under the name it gives itself, not its file's.
wait_comm $gated gt_gated
./gotrace record -q -o "$out" -p $gated &
rec=$!
cleanup_on_exit $rec
wait_state recording
./corner forkstorm 40000 || fail "the fork storm failed"
still_recording "during the fork storm"
[ "$(status_of task_overflows)" = 0 ] || fail "task table overflowed"
echo go > $fifo
wait $gated || fail "the filtered process failed"
still_recording "after the filtered process"
kill -INT $rec
wait $rec || fail "gotrace record exited with $?"
./gotrace check -q "$out" || fail "gotrace check refused $out"
cat > "$GT_OUT/filter-fork.expect" <<EOT
names gt_gated
gt_gated syscall:sys_getppid == 1000
EOT
