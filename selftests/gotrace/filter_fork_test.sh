#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A session filtered to one process while another process forks 4000
# short-lived children, four times the task table's 1024 entries: the
# entries of the tasks the filter leaves out go back to the task table
# when they die, so the session is still recording at the end and the
# filtered process's syscalls are all there.  (The default table, sized
# from the tasks alive, needed 40 000 forks: 259 s of the debug kernel's
# run for what a small table shows in a tenth of the forks.)
. ./lib.sh

max_tasks=/sys/module/gotrace/parameters/max_tasks
on_exit "echo 0 > $max_tasks"
echo 1024 > $max_tasks || fail "cannot set max_tasks"

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
./corner forkstorm 4000 || fail "the fork storm failed"
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
