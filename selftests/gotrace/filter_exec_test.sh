#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# -c NAME follows a program named NAME that a shell forks and then
# executes after the recording started, the usual way a program starts;
# once it executes another program, its goroutine ends and nothing of
# the new program is recorded.
. ./lib.sh

out=$GT_OUT/filter-exec.trace
ln -sf "$(pwd)/corner" /tmp/gt_late || fail "ln"
if [ "$GT_BACKEND" = bpf ]; then
	# The filter runs in the BPF programs: decided again at the exec.
	GT_BPF_OPTS="-c gt_late"
	record_while "$out" sh -c 'exec /tmp/gt_late getppid 100 /bin/true'
	# Lost: only what the kernel's skips of the programs cost (Linux
	# 7.x, lib.sh's bpf_misses), each at most one getppid.
	misses=$(bpf_misses)
	grep -q " $misses lost, backend bpf" /tmp/rw.err ||
		fail "events lost besides $misses program skips"
else
	./gotrace record -q -o "$out" -c gt_late &
	rec=$!
	cleanup_on_exit $rec
	wait_state recording
	sh -c 'exec /tmp/gt_late getppid 100 /bin/true' ||
		fail "gt_late failed"
	still_recording "after gt_late"
	kill -INT $rec
	wait $rec || fail "gotrace record exited with $?"
fi
misses=${misses:-0}
./gotrace check -q "$out" || fail "gotrace check refused $out"
cat > "$GT_OUT/filter-exec.expect" <<EOT
names gt_late
gt_late create == 1
gt_late syscall:sys_getppid >= $((100 - misses))
gt_late syscall:sys_getppid <= 100
gt_late end == 1
EOT
