#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A task that exits while its CPU's buffer is full must leave the model
# all the same (go1.23, where a loss does not end the session).  Its
# last switch cannot write its GoEnd, and the model may also have lost
# the switch that put it on its CPU; an entry left on a P would become a
# goroutine that every later generation states Runnable and that never
# runs again, and its slot in the task table would stay taken.
#
# The smallest pool (chunks=4: 64 KiB per CPU and generation) and a
# reader that reads 4 KiB at a time, while a getppid storm on every CPU
# fills the buffers and a fork storm makes thousands of tasks exit; a task table of 1024 entries
# for a guest of about a hundred tasks.  Then the reader, and quiet
# generations of 200 ms with a short workload.  Here: events were lost,
# the session kept recording and the task table never overflowed.  The
# host (verify-trace.sh) checks that no goroutine was runnable through
# the last two whole generations without running ("stuck 0"), and the
# workload's ground truth after the loss.  What it does not check: a
# task whose start and end were both lost stays a goroutine that Go
# shows runnable to the end of the trace (created, never started, never
# ended: nothing was written to end it).  On 6.12, 36 of the storm's
# goroutines were left so before the model gave back the entry of a task
# whose last switch could not be written (6dfb747), 5 after it.
. ./lib.sh

use_format go1.23
chunks=/sys/module/gotrace/parameters/chunks
max_tasks=/sys/module/gotrace/parameters/max_tasks
gen_param=/sys/module/gotrace/parameters/generation_ms
on_exit "echo 0 > $chunks"
on_exit "echo 0 > $max_tasks"
on_exit "echo $(cat $gen_param) > $gen_param"
echo 4 > $chunks || fail "cannot set chunks"
echo 1024 > $max_tasks || fail "cannot set max_tasks"
echo 200 > $gen_param || fail "cannot set generation_ms"

out=$GT_OUT/exit_loss_go123.trace
exec 3< $GT_DEV
# The header; this first read starts the session.
dd bs=16 count=1 <&3 > "$out" 2>/dev/null || fail "cannot read the header"
./workload storm 1 > /tmp/exit-storm.log &
storm=$!
cleanup_on_exit $storm
./corner forkstorm 3000 &
forks=$!
cleanup_on_exit $forks
# No reader until a buffer is full (on the debug kernel the storm is
# slow: a reader from the start let it lose only 77 events).  Then a slow
# reader: each read ends a full generation, and the storm fills the next
# within milliseconds, so that the buffers fill again and again while
# tasks start and exit, not once before all of them.
wait_until '[ "$(status_of lost_events)" -gt 0 ] || ! kill -0 $storm' 100
while kill -0 $forks 2>/dev/null; do
	dd bs=4096 count=1 <&3 >> "$out" 2>/dev/null
done
wait $forks || fail "the fork storm failed"
wait $storm || fail "the storm failed"
echo 0 > $chunks
echo 0 > $max_tasks
[ "$(status_of lost_events)" -gt 0 ] || {
	status_all
	fail "no event lost: the buffers never filled, the test shows nothing"
}
in_state recording || {
	status_all
	fail "the session did not go on recording after its buffers filled"
}

# The reader's first read ends the full generation; then four quiet
# ones, the two the host looks at among them.
read_rest "$out"
./workload getppid 50 || fail "workload getppid failed"
first=$(status_of generations)
wait_until "[ \"\$(status_of generations)\" -ge $((first + 4)) ]" 300 ||
	fail "fewer than 4 generations in 30 s after the first"
[ "$(status_of task_overflows)" = 0 ] || {
	status_all
	fail "the task table overflowed: exited tasks kept their entries"
}
in_state recording || {
	status_all
	fail "the session stopped"
}
echo "lost_events $(status_of lost_events), generations $(status_of generations), task_overflows 0"
echo stop > $GT_DEV || fail "echo stop failed"
wait_gone $reader 300 || fail "cat did not end within 30 s of stop"
wait $reader || fail "cat exited with $?"
check_header "$out"
echo "exit_loss_go123.trace: $(wc -c < "$out") bytes"
cat > "$GT_OUT/exit_loss_go123.expect" <<EOT
gt_getppid create == 1
gt_getppid syscall:sys_getppid == 50
gt_getppid end == 1
stuck 0
EOT
