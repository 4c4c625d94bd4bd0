#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Blocks that are not syscalls stay plain blocks: a thread that sleeps
# in page faults (userfaultfd), having made no syscall since the start,
# and an io_uring worker, which never enters a syscall of its own, must
# not show the stale syscall number of their registers.
. ./lib.sh

# record NAME COMMAND...: record into NAME.trace while COMMAND runs,
# starting it only once the session records.
record() {
	rec_out=$GT_OUT/$1.trace
	shift
	cat $GT_DEV > "$rec_out" &
	rec_reader=$!
	cleanup_on_exit $rec_reader
	wait_state recording
	"$@" || fail "'$*' failed"
	still_recording "during '$*'"
	echo stop > $GT_DEV || fail "echo stop failed"
	wait $rec_reader || fail "cat exited with $?"
	check_header "$rec_out"
}

# The faulting thread exists, spinning, before the session starts.
rm -f /tmp/uffd.ready /tmp/uffd.fifo
mkfifo /tmp/uffd.fifo || fail "mkfifo"
./corner uffd /tmp/uffd.ready /tmp/uffd.fifo 50 &
load=$!
cleanup_on_exit $load
wait_until "[ -e /tmp/uffd.ready ] || ! kill -0 $load 2>/dev/null" 300 ||
	fail "/tmp/uffd.ready did not appear within 30 s"
faults() {
	echo go > /tmp/uffd.fifo && wait $load
}
if [ -e /tmp/uffd.ready ]; then
	record pagefault faults
	# A write fault's error code (6) is lstat's number, a read fault's
	# (4) stat's.  Most of the 50 faults sleep; one whose reply comes
	# from the other CPU before the faulter reaches schedule() does not
	# (49 seen).
	cat > "$GT_OUT/pagefault.expect" <<EOT
gt_faulter block:none >= 25
gt_faulter syscall:sys_lstat+syscall:sys_stat == 0
EOT
else
	wait $load
	rc=$?
	[ $rc -eq 4 ] || fail "corner uffd exited with $rc"
	# The kernel lacks CONFIG_USERFAULTFD (the debug kernel does).
	echo "# page faults: no userfaultfd in this kernel, not tested here"
fi

rm -f /tmp/uring.fifo
mkfifo /tmp/uring.fifo || fail "mkfifo"
uring() {
	./corner uring /tmp/uring.fifo 20 &
	uring_pid=$!
	cleanup_on_exit $uring_pid
	wait $uring_pid
}
record uring uring
cat > "$GT_OUT/uring.expect" <<EOT
iou-wrk-$uring_pid block:none >= 20
iou-wrk-$uring_pid syscall:sys_io_uring_enter+syscall:sys_io_uring_setup == 0
EOT
