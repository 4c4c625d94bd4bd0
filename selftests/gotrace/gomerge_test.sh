#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A Go program's own trace merged with gotrace's (Documentation/
# go-merge.rst), both backends (bpf:gomerge_test.sh).  gomerge_app spins
# on CPU 0, its goroutine locked to its thread, while fifo_hog takes
# CPU 0 at SCHED_FIFO for 200 ms and, 500 ms later, 300 ms; another of
# its goroutines reads the VM's disk (/dev/vda, which the harness
# attaches on the boots that run this test) with O_DIRECT, each read
# asleep in the kernel until the disk answers.
#
#   --go URL      gomerge_app built by Go 1.23 serves net/http/pprof on a
#                 Unix socket (the guest has no network, not even
#                 loopback; the host's test takes TCP); the spin starts
#                 once the fetch of its trace has begun
#   --go-trace    gomerge_app127 (Go 1.27: "go 1.26 trace", clock
#                 snapshots) writes its own trace as record's COMMAND,
#                 recorded with CPU samples and user stacks, which the
#                 merge adds; gotrace merge of the same two files gives
#                 the same bytes
#
# The host checks each merged trace (selftests/check-merge.sh, NAME.merge
# written here): the spinning goroutine's two "runnable" regions last
# the hog's runs +-5% and name it, the reader's syscalls sleep in the
# kernel's block I/O with a kernel stack, the spin has CPU samples in
# main.spinKnown (--go-trace), and the program's own events are all there, nothing else added but the kernel's; Go 1.23 (for the
# go 1.23 trace) and Go 1.27 read both and serve their pages
# (check-trace.sh --web).
. ./lib.sh

if [ "$GT_BACKEND" = kmod ]; then
	backend=
else
	backend="--backend bpf $GT_BPF_OPTS"
fi
disk=/dev/vda
[ -b $disk ] ||
	fail "no disk $disk to read with O_DIRECT (the harness attaches one where it runs this test)"

# hog APPOUT HOGOUT: once APPOUT says the spin began, fifo_hog on CPU 0.
hog() {
	wait_until "grep -q '^spin tid=' $1" 600 ||
		fail "the spin never began: $(cat "$1")"
	./fifo_hog 0 300 200 500 300 > "$2" || fail "fifo_hog failed: $(cat "$2")"
}

# expect NAME APPOUT HOGOUT PROGRAM RECOUT: the ground truth of
# NAME.trace in $GT_OUT/NAME.merge (check-merge.sh): each hog run, +-5%,
# as the spin's runnable regions; the reader's syscalls asleep in block
# I/O; every event of the program's trace PROGRAM (in $GT_OUT).  Where
# the BPF backend's summary (RECOUT) says the kernel never reported a
# switch away from the hog or the spin (its program did not run: seen
# on the newest kernel under emulation, with CPU samples), the recording
# itself does not know when the spin waited: the runnable regions are
# not held to the hog's runs then, and the test says so.
expect() {
	spin=$(sed -n 's/^spin tid=\([0-9]*\) .*/\1/p' "$2")
	rd=$(sed -n 's/^read tid=\([0-9]*\) .*/\1/p' "$2")
	if [ -z "$spin" ] || [ -z "$rd" ]; then
		fail "$1: no spin or read: $(cat "$2")"
	fi
	[ "$(grep -c '^hog tid=' "$3")" = 2 ] || fail "$1: fifo_hog: $(cat "$3")"
	unsure=
	grep -q "kernel reported no switch away from .*\(fifo_hog\|gomerge_app\)" "$5" &&
		unsure=1
	[ -z "$unsure" ] ||
		echo "# $1: the recording says it missed switches of the hog or the spin: its runnable regions are not checked"
	{
		[ -n "$unsure" ] ||
		sed -n 's/^hog tid=[0-9]* start=\([0-9]*\) end=\([0-9]*\)$/\1 \2/p' "$3" |
			while read -r s e; do
				ms=$(((e - s) / 1000000))
				echo "runnable $spin $((ms * 95 / 100)) $((ms * 105 / 100)) fifo_hog"
			done
		echo "syscall $rd sys_(p)?read(64)? (io_schedule|submit_bio_wait|blkdev_direct)"
		echo "program $4"
	} > "$GT_OUT/$1.merge"
}

# --go URL, Go 1.23.
rm -f /tmp/gm.start /tmp/gm.ready
./gomerge_app -unix /tmp/gm.sock -ready /tmp/gm.ready -start-when /tmp/gm.start \
	-spin 2s -read $disk -linger 60s > /tmp/gm123.app 2>&1 &
app=$!
cleanup_on_exit $app
wait_until '[ -e /tmp/gm.ready ]' 300 || fail "gomerge_app never listened: $(cat /tmp/gm123.app)"
# shellcheck disable=SC2086 # $backend: options, split
./gotrace record $backend --go unix:/tmp/gm.sock -d 5 -o "$GT_OUT/gomerge123.trace" \
	> /tmp/gm123.rec 2>&1 &
rec=$!
cleanup_on_exit $rec
# The spin once both tracers run: the program's trace has begun.
wait_until "[ \$(stat -c %s $GT_OUT/gomerge123.trace.go 2>/dev/null || echo 0) -ge 16 ]" 600 ||
	fail "the program's trace never began: $(cat /tmp/gm123.rec)"
touch /tmp/gm.start
hog /tmp/gm123.app /tmp/gm123.hog
wait $rec || fail "record --go failed: $(cat /tmp/gm123.rec)"
# Serving until the fetch is over: stopped now.
kill $app
wait $app
cat /tmp/gm123.rec /tmp/gm123.app /tmp/gm123.hog
grep -q "^merged: go 1.23 trace, " /tmp/gm123.rec || fail "no merge report"
grep -q "stopped: the fetch of the program's trace ended" /tmp/gm123.rec ||
	fail "the recording did not end with the fetch"
check_header "$GT_OUT/gomerge123.trace"
./gotrace check -q "$GT_OUT/gomerge123.trace.kernel" ||
	fail "gotrace check refused the recording"
# Both inputs too go to the host's checks of every trace.
mv "$GT_OUT/gomerge123.trace.go" "$GT_OUT/gomerge123-prog.trace"
mv "$GT_OUT/gomerge123.trace.kernel" "$GT_OUT/gomerge123-kernel.trace"
expect gomerge123 /tmp/gm123.app /tmp/gm123.hog gomerge123-prog.trace /tmp/gm123.rec

# --go-trace FILE -- COMMAND, Go 1.27; then gotrace merge of its files.
# shellcheck disable=SC2086
./gotrace record $backend --cpu-hz=199 --user-stacks --go-trace /tmp/gm127.go \
	-o "$GT_OUT/gomerge127.trace" -- \
	./gomerge_app127 -trace /tmp/gm127.go -spin-after 500ms -spin 2s -read $disk \
	> /tmp/gm127.app 2> /tmp/gm127.rec &
rec=$!
cleanup_on_exit $rec
hog /tmp/gm127.app /tmp/gm127.hog
wait $rec || fail "record --go-trace failed: $(cat /tmp/gm127.rec)"
cat /tmp/gm127.rec /tmp/gm127.app /tmp/gm127.hog
grep -q "^merged: go 1.26 trace, " /tmp/gm127.rec || fail "no merge report"
grep -q "clock: the program's clock snapshot is -\?[0-9]* ns from CLOCK_MONOTONIC" \
	/tmp/gm127.rec || fail "no clock snapshot in a Go 1.27 trace"
[ "$(head -c 13 "$GT_OUT/gomerge127.trace")" = "go 1.26 trace" ] ||
	fail "the merged trace is not in the program's format"
./gotrace merge -q -o /tmp/gm127.offline /tmp/gm127.go "$GT_OUT/gomerge127.trace.kernel" ||
	fail "gotrace merge failed"
cmp "$GT_OUT/gomerge127.trace" /tmp/gm127.offline ||
	fail "gotrace merge of the same files wrote other bytes than record --go-trace"
cp /tmp/gm127.go "$GT_OUT/gomerge127-prog.trace"
mv "$GT_OUT/gomerge127.trace.kernel" "$GT_OUT/gomerge127-kernel.trace"
expect gomerge127 /tmp/gm127.app /tmp/gm127.hog gomerge127-prog.trace /tmp/gm127.rec
# The recording's CPU samples of the spin, 1.5 s of it at 199 Hz: some.
echo "samples $spin main.spinKnown 100" >> "$GT_OUT/gomerge127.merge"
exit 0
