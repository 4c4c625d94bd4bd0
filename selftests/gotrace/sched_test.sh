#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Workloads with a known history, each recorded on its own.  The traces go
# to $GT_OUT with an .expect file next to them: the ground truth the host
# checks with verify-trace.sh, since the Go parsers run there.  Here we
# only check that each workload ran and each recording ended cleanly.
. ./lib.sh

# record NAME COMMAND...: record while COMMAND runs.
record() {
	name=$1
	shift
	record_while "$GT_OUT/$name.trace" "$@"
}

# Tolerances: a pipe read finds its byte already there when the peer ran
# on the other CPU first: then it is a syscall event, not a block, so
# reads are counted as blocks plus read syscalls (a read preempted before
# it blocked counts twice); waker attribution needs some blocks, but a
# task woken between setting its sleep state and switching out does not
# block at all (Linux switches it out runnable: a preemption in the
# trace), which for gt_pong happened to all 200 reads of a run on 6.1
# with two vCPUs, so its wakeups count with its preemptions; a 20 ms
# sleep ends before it begins only if the task was kept off its CPU that
# long just before (allow one); every child is certain; of the 80 mutex
# acquisitions by 4 threads, each made while another holds the lock
# asleep, at least a quarter must wait.  A pipe write sleeps now and then
# (the debug kernel, once in a run: on the pipe's lock): its block (chan
# send) is then the syscall, so writes are counted as both.  The BPF
# backend loses what the kernel does not run its programs for: on Linux
# 7.x a task preempted inside the sys_enter or sys_exit program
# (tracepoint programs run preemptible there) makes the kernel skip that
# program for every other task's syscalls on that CPU, counted only in
# the program's recursion_misses, which the summary counts as lost
# (bpf_misses).  A read or write whose entry was skipped is a plain block
# if it sleeps, and no syscall event if it does not: each count may fall
# short by that many, and plain blocks are no more than that.  The sched
# profile puts a wait for a CPU on the stack of the event that made the
# goroutine runnable: the waker's (GoUnblock), or the goroutine's own
# (preempted).  gt_pong is in it by the wakeups of gt_ping it made, which
# the expectations demand; gt_ping only by the wakeups of a gt_pong that
# had blocked, or by its own preemptions, which none demands: a run whose
# reads of gt_pong all end as preemptions (above) may have none of them
# (in 11 runs on 6.1, gt_ping's 38 to 285 ms were 18 to 141 ms of such
# wakeups, 2 to 106 ms of preemptions, 1 to 57 ms of wakeups of others).
record pingpong ./workload pingpong 200
misses=$(bpf_misses)
n=$((200 - misses))
reads="block:chan_receive+syscall:sys_read"
writes="block:chan_send+syscall:sys_write"
bpf_plain=
if [ "$GT_BACKEND" = bpf ]; then
	reads="block:chan_receive+block:none+syscall:sys_read"
	writes="block:chan_send+block:none+syscall:sys_write"
	bpf_plain="gt_ping block:none <= $misses
gt_pong block:none <= $misses"
fi
cat > "$GT_OUT/pingpong.expect" <<EOT
gt_ping $reads >= $n
gt_pong $reads >= $n
$bpf_plain
gt_ping $writes >= $n
gt_ping syscall:sys_write <= 200
gt_ping unblocked_by:gt_pong >= 20
gt_pong unblocked_by:gt_ping+preempt >= 20
gt_ping create == 1
gt_pong create == 1
gt_pong end == 1
pprof sched gt_pong
pprof sync gt_ping
EOT

record forks ./workload forks 25
cat > "$GT_OUT/forks.expect" <<EOT
gt_child create == 25
gt_child end == 25
gt_forker block:chan_receive >= 1
EOT

# Each of the 10 sleeps blocks, or, if its vCPU waited more than 20 ms
# for the host on its way to sleep, is a syscall that did not block
# (syscall_test.sh's sigwait): never both, nor a syscall that blocked.
record sleep ./workload sleep 10 20
cat > "$GT_OUT/sleep.expect" <<EOT
gt_sleeper block:sleep+syscall:sys_clock_nanosleep >= 10
gt_sleeper block:sleep <= 11
gt_sleeper block:sleep >= 7
gt_sleeper sysblock:sys_clock_nanosleep == 0
gt_sleeper end == 1
nopprof sync gt_sleeper
nopprof net gt_sleeper
nopprof syscall gt_sleeper
EOT

record mutex ./workload mutex 4 20
cat > "$GT_OUT/mutex.expect" <<EOT
gt_mutex block:sync >= 20
gt_mutex end >= 4
pprof sync gt_mutex
pprof sched gt_mutex
EOT

record exec ./workload exec
cat > "$GT_OUT/exec.expect" <<EOT
gt_renamed create == 1
gt_renamed end == 1
gt_execer end == 1
gt_renamed block:sleep >= 1
EOT

# The stress run: short processes and threads on every CPU, counted by
# the workload.  gt_churn goroutines: the workload once renamed, one
# process per CPU, every child until it renames itself, every thread.
churn_counted() {
	./workload churn 3 > /tmp/churn.out
}
record churn churn_counted
cat /tmp/churn.out
read -r _ forks _ threads _ _ procs _ < /tmp/churn.out
forks=${forks%,}
[ "${forks:-0}" -gt 0 ] && [ "${threads:-0}" -gt 0 ] ||
	fail "churn made no process or no thread: $(cat /tmp/churn.out)"
all=$((1 + procs + forks + threads))
cat > "$GT_OUT/churn.expect" <<EOT
gt_churn_child create == $forks
gt_churn_child end == $forks
gt_churn create == $all
gt_churn end == $all
EOT
exit 0
