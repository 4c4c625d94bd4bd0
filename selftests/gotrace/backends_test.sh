#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# One workload recorded by both backends at once: the module's session
# (cat reads the device) encloses a BPF session (gotrace record
# --backend bpf), which encloses the workload.  Both feed the same model
# from the same tracepoints, so for the workload's own goroutines (gt_*,
# born and ended inside both sessions) the two traces must agree, as
# gotrace stat --json counts them per task, summed per name:
#
#   goroutines               exactly: every one is inside both sessions
#   gt_getppid's syscalls    exactly: none of them ever blocks (the BPF
#                            trace may lack as many as the kernel
#                            skipped its programs: bpf_misses)
#   blocks, unblocks, starts within 5% + 2: the module hands the model
#                            each CPU's events as they happen, the BPF
#                            reader merges them by timestamp, so a wakeup
#                            and a block on two CPUs at nearly the same
#                            time may reach the model in either order
#   the other syscalls       within 5% + 2 too: a sleep inside a syscall
#                            is a syscall of its own when another event
#                            of its P came between the entry and the
#                            sleep, and the two backends may order an
#                            interrupt's wakeup and the syscall probe it
#                            interrupted differently (on 7.x, once, the
#                            BPF trace had 31 gt_forker syscalls to the
#                            module's 32; between runs the count itself
#                            varies from 31 to 34 with the timing)
#
# Neither session may lose an event, but for those skips of the BPF
# programs on Linux 7.x (lib.sh's bpf_misses), which the BPF session must
# count as lost.  Skips where the BPF backend cannot run (lib.sh's
# bpf_skip_reason).
. ./lib.sh

why=$(bpf_skip_reason)
if [ -n "$why" ]; then
	echo "SKIP: $why"
	exit 4
fi

kout=$GT_OUT/both-kmod.trace
bout=$GT_OUT/both-bpf.trace

workload() {
	./workload pingpong 200 && ./workload forks 10 &&
		./workload getppid 500 && ./workload sleep 5 20 &&
		./workload sock 50
}

cat $GT_DEV > "$kout" &
kreader=$!
cleanup_on_exit $kreader
wait_state recording
GT_BACKEND=bpf
record_while_bpf "$bout" workload
misses=$(bpf_misses)
GT_BACKEND=kmod
settle
still_recording "after the BPF session"
echo stop > $GT_DEV || fail "echo stop failed"
wait_gone $kreader 300 || fail "cat did not end within 30 s of stop"
wait $kreader || fail "cat exited with $?"
check_header "$kout"
grep -q " $misses lost, backend bpf" /tmp/rw.err ||
	fail "the BPF session lost events besides its $misses program skips"

# per_name FILE: "name goroutines syscalls blocks unblocks starts" for
# every gt_* name of FILE's tasks.
per_name() {
	./gotrace stat -j -n 0 "$1" > /tmp/both.json ||
		fail "gotrace stat refused $1"
	awk '
	function num(key,   v) {
		v = $0
		if (!sub(".*\"" key "\": ", "", v))
			return -1
		sub("[,} ].*", "", v)
		return v + 0
	}
	/"tasks_by_run"/ { in_list = 1; next }
	in_list && /^  \]/ { in_list = 0 }
	in_list && /"name": "gt_/ {
		name = $0
		sub(".*\"name\": \"", "", name)
		sub("\".*", "", name)
		g[name]++
		sc[name] += num("syscalls")
		bl[name] += num("blocks")
		ub[name] += num("unblocks")
		st[name] += num("starts")
	}
	END { for (n in g) print n, g[n], sc[n], bl[n], ub[n], st[n] }
	' /tmp/both.json | sort
}

per_name "$kout" > /tmp/both.kmod
per_name "$bout" > /tmp/both.bpf
[ "$(wc -l < /tmp/both.kmod)" -ge 8 ] ||
	fail "the module's trace lacks the workload's goroutines: $(cat /tmp/both.kmod)"
echo "# name: goroutines syscalls blocks unblocks starts, module | BPF"
awk -v misses="$misses" '
function near(a, b, what,   d) {
	d = a > b ? a - b : b - a
	if (d > 2 + (a > b ? a : b) * 5 / 100) {
		print "FAIL: " n " " what ": module " a ", BPF " b \
			" (more than 5% + 2 apart)"
		bad = 1
	}
}
FNR == NR { km[$1] = $0; next }
{ bp[$1] = $0 }
END {
	for (n in bp)
		if (!(n in km))
			km[n] = n " 0 0 0 0 0"
	for (n in km) {
		split(km[n], x, " ")
		if (!(n in bp))
			bp[n] = n " 0 0 0 0 0"
		split(bp[n], y, " ")
		print n ": " x[2], x[3], x[4], x[5], x[6] " | " \
			y[2], y[3], y[4], y[5], y[6]
		if (x[2] != y[2]) {
			print "FAIL: " n " goroutines: module " x[2] ", BPF " y[2]
			bad = 1
			continue
		}
		if (n == "gt_getppid" &&
		    (y[3] > x[3] || y[3] < x[3] - misses)) {
			print "FAIL: " n " syscalls: module " x[3] ", BPF " \
				y[3] " (" misses " program skips)"
			bad = 1
		}
		near(x[3], y[3], "syscalls")
		near(x[4], y[4], "blocks")
		near(x[5], y[5], "unblocks")
		near(x[6], y[6], "starts")
	}
	exit bad
}
' /tmp/both.kmod /tmp/both.bpf || fail "the two backends' traces differ"
echo "both backends agree on the workload's $(wc -l < /tmp/both.kmod) names"
