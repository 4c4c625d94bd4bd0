#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-kernels.sh KERNEL[@BOOT]... - run-kernel.sh on each kernel and sum
# up; exits non-zero if anything failed on any kernel.  Without arguments,
# $GT_KERNELS_DEFAULT: every kernel and boot configuration of make check.
#
# Up to GT_VM_JOBS kernels (default: 2 on a host with 2 or more CPUs, else
# 1) run at once, in the order given; the default list puts the slowest
# first.  A guest under single-threaded TCG keeps one host CPU busy, and
# the runs take turns for their preparation (run-kernel.sh), so two of
# them take about half the time of one after the other.  Each run's
# output is printed in one piece when it ends, then every failed test
# again at the bottom, so that the end of a long log says what failed.
#
# GT_VM_GATE=FILE: one kernel at a time until FILE exists, then
# GT_VM_JOBS.  make check (scripts/check.sh) runs the host tests, which
# keep one CPU busy, beside the first boot, and opens the gate when they
# end.  GT_RUN_KERNEL replaces run-kernel.sh (the harness's own tests).
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# shellcheck disable=SC2086
[ $# -gt 0 ] || set -- $GT_KERNELS_DEFAULT
jobs=${GT_VM_JOBS:-$(($(nproc) >= 2 ? 2 : 1))}
gate=${GT_VM_GATE:-}
run_kernel=${GT_RUN_KERNEL:-$GT_VM/run-kernel.sh}
logs=$GT_CACHE/vm/logs
rm -rf "$logs"
mkdir -p "$logs"

# run_one K: run-kernel.sh K into $logs/K.log; its wall time in K.seconds.
run_one() {
	local k=$1 start=$SECONDS
	rm -f "$GT_CACHE/vm/$k/counts"
	"$run_kernel" "$k" > "$logs/$k.log" 2>&1
	echo $? > "$logs/$k.rc"
	echo $((SECONDS - start)) > "$logs/$k.seconds"
}

# report K: print K's log once it has ended.
report() {
	local k=$1
	cat "$logs/$k.log"
	echo "[$k] took $(cat "$logs/$k.seconds") s, ended at $SECONDS s"
}

# update_slots: $slots, how many kernels may run now.  While the gate is
# shut, a watcher that ends when it opens is one more child for wait -n,
# so that the loop below wakes then, not at the next kernel's end.
watcher=
update_slots() {
	slots=$jobs
	[ -n "$gate" ] && [ ! -e "$gate" ] || return 0
	slots=1
	if [ -z "$watcher" ]; then
		while [ ! -e "$gate" ]; do sleep 2; done &
		watcher=$!
	fi
}

declare -A pid_of
pending=("$@")
running=0
while [ ${#pending[@]} -gt 0 ] || [ "$running" -gt 0 ]; do
	update_slots
	if [ ${#pending[@]} -gt 0 ] && [ "$running" -lt "$slots" ]; then
		k=${pending[0]}
		pending=("${pending[@]:1}")
		echo "[$k] started at $SECONDS s ($((running + 1)) of $jobs running)"
		run_one "$k" &
		pid_of[$k]=$!
		running=$((running + 1))
		continue
	fi
	wait -n
	for k in "${!pid_of[@]}"; do
		kill -0 "${pid_of[$k]}" 2>/dev/null && continue
		wait "${pid_of[$k]}"
		unset "pid_of[$k]"
		running=$((running - 1))
		report "$k"
	done
done
# All ran before the gate opened: the watcher is the last child.
[ -z "$watcher" ] || kill "$watcher" 2>/dev/null

passed=0
failed=0
bad=
echo
echo "kernel              passed failed seconds"
for k in "$@"; do
	if [ -f "$GT_CACHE/vm/$k/counts" ]; then
		read -r p f < "$GT_CACHE/vm/$k/counts"
	else
		p=0 f=1
	fi
	[ "$(cat "$logs/$k.rc")" = 0 ] && [ "$f" -eq 0 ] || bad="$bad $k"
	printf '%-19s %6d %6d %7d\n' "$k" "$p" "$f" "$(cat "$logs/$k.seconds")"
	passed=$((passed + p))
	failed=$((failed + f))
done
echo "all kernels took $SECONDS s ($jobs at a time)"

# failures KERNEL < LOG: its failed tests and why they failed.  A guest
# test says why in its "FAIL:" line or its harness's "Expected" line; a
# host check of a trace in the comments that follow its "not ok", less
# the lines of what passed (verify-trace.sh's "ok" lines), at most 15:
# CI keeps only the end of a log, and it must name the line that failed.
failures() {
	awk -v k="$1" '
	/^\[[^]]*\] not ok - / { print; host = 1; n = 0; next }
	host && /^\[[^]]*\] #   / {
		line = $0
		sub(/^\[[^]]*\] #   /, "", line)
		if (line !~ /^ok / && n++ < 15)
			print
		next
	}
	{ host = 0 }
	/^error:/ { print "[" k "] " $0; next }
	/^\[[^]]*\] not ok/ || /^\[[^]]*\] the guest / ||
	/^\[[^]]*\] # (# )?FAIL: / || /^\[[^]]*\] # # .*Expected / { print }
	'
}
if [ -n "$bad" ]; then
	echo "failed on:$bad"
	for k in $bad; do
		failures "$k" < "$logs/$k.log"
		# A test that hung: what its tasks were blocked in.
		sed -n '/still running after [0-9]* s; blocked tasks:/,/ not ok /p' \
			"$logs/$k.log" | head -n 60
		# A guest that hung or crashed: the end of its console.
		grep -h '^\[[^]]*\] console: ' "$logs/$k.log" | tail -n 25
	done
fi
echo "$passed passed, $failed failed"
[ -z "$bad" ] && [ "$failed" -eq 0 ]
