#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Syscalls with a known history, each recorded on its own; the ground
# truth goes out next to each trace, for the host to check (see
# sched_test.sh).
. ./lib.sh

param=/sys/module/gotrace/parameters/syscalls

record() {
	name=$1
	shift
	record_while "$GT_OUT/$name.trace" "$@"
}

# Exactly K getppid calls: the workload's own start-up and exit make none
# (the BPF backend may lack as many as the kernel skipped its programs:
# lib.sh's bpf_misses).
record getppid ./workload getppid 1000
misses=$(bpf_misses)
cat > "$GT_OUT/getppid.expect" <<EOT
gt_getppid syscall:sys_getppid >= $((1000 - misses))
gt_getppid syscall:sys_getppid <= 1000
gt_getppid sysblock:sys_getppid == 0
EOT

# Two such processes sharing one CPU, each preempted by the other now
# and then: the module has every call.  On Linux 7.x, whose tracepoint
# programs run preemptible, one preempted inside the BPF sys_enter or
# sys_exit program makes the kernel skip that program for the other's
# calls until it runs again; its twin then records them (gotrace.bpf.c).
# A hit both skip is counted as lost (bpf_misses) and costs at most one
# syscall event, and only that many may be missing.
getppid_shared() {
	taskset -c 0 ./workload getppid 20000 &
	gs=$!
	taskset -c 0 ./workload getppid 20000 || return 1
	wait $gs
}
record getppid-shared getppid_shared
misses=$(bpf_misses)
cat > "$GT_OUT/getppid-shared.expect" <<EOT
gt_getppid syscall:sys_getppid >= $((40000 - misses))
gt_getppid syscall:sys_getppid <= 40000
EOT

# The waits in rt_sigtimedwait of 10 signals: on PREEMPT_RT a wait was
# seen to end early and be made again (glibc's sigwait() retries
# rt_sigtimedwait on EINTR): newest-rt's traces had 11 calls of it, each
# a block, for the 10 signals.
waits=10
uname -v | grep -q PREEMPT_RT && waits=20

# Only blocking syscalls: getppid and kill never block, so none of them
# is left; the waits in rt_sigtimedwait stay (the first may find its
# signal pending, as below).
getppid_then_sigwait() {
	./workload getppid 1000 && ./workload sigwait 10
}
set_syscalls blocking
record getppid-blocking getppid_then_sigwait
set_syscalls all
cat > "$GT_OUT/getppid-blocking.expect" <<EOT
gt_getppid syscall:sys_getppid == 0
gt_signaller syscall:sys_kill == 0
gt_sigwait sysblock:sys_rt_sigtimedwait >= 9
gt_sigwait sysblock:sys_rt_sigtimedwait <= $waits
EOT
if [ "$GT_BACKEND" = kmod ] && echo bogus > $param 2>/dev/null; then
	fail "syscalls=bogus accepted"
fi

# A wait no block event classifies: rt_sigtimedwait, woken by a signal
# from another process 20 ms later, 10 times; the first wait may find
# the signal already pending.  Its 5 ms sleeps are sleeps, shown only as
# such, never as a syscall that blocked.  How many of them block is up
# to the host: a task kept off the CPU for longer than that between its
# entry into nanosleep and its sleep (its vCPU waiting for a host CPU)
# finds its timer expired and never blocks, and that sleep is a syscall
# that did not.  Each of the 10 is one or the other, and most block.
# (With 1 ms sleeps, 6.12@mttcg's 4 vCPUs, beside another guest on 2
# host CPUs, had one of 10 that did not, where at most two were
# allowed.)  On PREEMPT_RT, as above, up to twice the waits.
record sigwait ./workload sigwait 10
cat > "$GT_OUT/sigwait.expect" <<EOT
gt_sigwait sysblock:sys_rt_sigtimedwait >= 9
gt_sigwait sysblock:sys_rt_sigtimedwait <= $waits
gt_sigwait block:sleep+syscall:sys_clock_nanosleep >= 10
gt_sigwait sysblock:sys_clock_nanosleep == 0
gt_sigwait block:sleep >= 5
pprof syscall sys_rt_sigtimedwait
pprof syscall gt_sigwait
nopprof sync gt_sigwait
EOT

# Socket waits are network waits, not syscalls: gt_sock_a is not in the
# syscall profile (of a generational trace, where Go counts every
# syscall, the fast ones with a few ns: under 1 ms), and none of its
# reads and writes is a syscall that blocked.
record sock ./workload sock 100
cat > "$GT_OUT/sock.expect" <<EOT
gt_sock_a block:network+syscall:sys_read >= 100
gt_sock_b block:network+syscall:sys_read >= 100
gt_sock_a block:network >= 10
gt_sock_a sysblock:sys_read+sysblock:sys_write == 0
pprof net gt_sock_a
pprof net gt_sock_b
nopprof syscall gt_sock_a
EOT

# The storm measures how the module's session ends when it overflows.
[ "$GT_BACKEND" = bpf ] && exit 0

# The storm: getppid on every CPU.  It may outrun the buffers: then the
# session ends by itself, cleanly, and says so in the kernel log.  In the
# generational format it ends a generation whenever a CPU's buffer is
# half full (on 6.12, 33 generations in 3 s, 17 MB): one second of it
# meets that as often as needed, and spares the host 20 s of checking.
# In go1.11 too: 3 s made a 5.7 MB trace on 6.12, without overflow,
# whose checks took 60 s of CPU on the host (overflow_test.sh is that
# format's overflow, made sure of with a small pool).
storm_s=1
out=$GT_OUT/storm.trace
dmesg -c > /dev/null
cat $GT_DEV > "$out" &
reader=$!
cleanup_on_exit $reader
wait_state recording
./workload storm $storm_s || fail "the storm failed"
if echo stop > $GT_DEV 2>/dev/null; then
	echo "no overflow" > "$GT_OUT/storm.result"
else
	dmesg | grep 'out of buffer space' ||
		fail "the session ended early without an overflow report"
	echo "ended by overflow" > "$GT_OUT/storm.result"
fi
wait_gone $reader 300 || fail "the reader did not end"
wait $reader || fail "cat exited with $?"
check_header "$out"
dmesg | grep gotrace
echo "storm.trace: $(wc -c < "$out") bytes"
exit 0
