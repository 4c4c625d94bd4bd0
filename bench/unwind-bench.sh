#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# unwind-bench.sh - what one walk of a user stack costs the BPF programs,
# by frame pointers and by unwind tables (Documentation/unwind.rst), on
# this machine's real CPU (make bench-unwind).  Prints figures, never a
# verdict.  Needs root and BPF with BTF.
#
# Each run is `gotrace record --backend bpf --user-stacks --unwind=M`
# of one workload (--children: its tasks only) with
# GOTRACE_BPF_WALK_COST=1, which has the programs time every walk (two
# clock reads around it) and count the frames they found.  Workloads:
#   getppid   bench/workloads/getppid.c, static, frame pointers in its
#             own code: one getppid() per iteration, every entry's stack
#             walked (--syscalls all); the caches stay warm
#   pingpong  two threads waking each other through pipes: walks at
#             every block and wakeup, after a context switch
#   unwind    user/build/unwind_prog (user/tests/unwind_test.sh): built
#             without frame pointers, with a library of its own; blocks
#             in read(), a futex and nanosleep() through the C library
#   ustack    user/build/ustack (selftests/gotrace/ustack.c), static,
#             frame pointers in its own code: blocks in a pipe read
# Figures per workload and mode (the median of the rounds' averages):
#   walks      walks in the run
#   frames     frames a walk found, on average
#   ns/walk    the walk's time, on average
#   ns/frame   ns/walk over frames
#   whole%     walks that reached the outermost frame (no truncation)
#
# Environment: BENCH_ROUNDS (3), BENCH_MS (getppid and pingpong's run,
# 1000), BENCH_OUT (.cache/bench/unwind).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${BENCH_ROUNDS:-3}
MS=${BENCH_MS:-1000}
OUT=${BENCH_OUT:-$ROOT/.cache/bench/unwind}
GOTRACE=$ROOT/user/gotrace
PROGS=$OUT/progs

die() {
	echo "bench-unwind: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root (BPF)"
[ -r /sys/kernel/btf/vmlinux ] || die "this kernel has no BTF"
mkdir -p "$OUT"
make -s -C "$ROOT/user" gotrace build/unwind_prog build/ustack
"$GOTRACE" bpf-dump -h >/dev/null 2>&1 ||
	die "gotrace was built without the BPF backend (make deps)"
make -s -C "$ROOT/bench" O="$PROGS" "$PROGS/getppid" "$PROGS/pingpong"

# workload W: its command line, and the options it is recorded with.
workload() {
	case $1 in
	getppid)	echo "--syscalls all -- $PROGS/getppid $MS 1" ;;
	pingpong)	echo "-- $PROGS/pingpong $MS 1 0" ;;
	unwind)		echo "-- $ROOT/user/build/unwind_prog 20" ;;
	ustack)		echo "-- $ROOT/user/build/ustack pipe 200" ;;
	esac
}

# run W M: "WALKS NS FRAMES TRUNCATED" of one recording.
run() {
	# shellcheck disable=SC2046
	GOTRACE_BPF_WALK_COST=1 "$GOTRACE" record --backend bpf \
		-o "$OUT/run.trace" --user-stacks --unwind="$2" --children \
		$(workload "$1") > "$OUT/run.out" 2>&1 ||
		die "$1 --unwind=$2: $(tail -n 3 "$OUT/run.out")"
	rm -f "$OUT/run.trace"
	# "user stack walks: NS ns each on average, F frames, W walks"
	# "user stacks: W walked, truncated: bad frame pointer A, ...;"
	awk '/user stack walks:/ {
		ns = $5; fr = $10; w = $12
	}
	/user stacks: [0-9]* walked, truncated:/ {
		s = $0; sub(/.*truncated: /, "", s); sub(/;.*/, "", s)
		n = split(s, f, /[^0-9]+/)
		for (i = 1; i <= n; i++) t += f[i]
	}
	END { printf "%d %d %s %d\n", w, ns, fr, t }' "$OUT/run.out"
}

res=$OUT/results.txt
: > "$res"
echo "# $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$res"
for r in $(seq "$ROUNDS"); do
	for w in getppid pingpong unwind ustack; do
		for m in fp eh-frame; do
			echo "run round=$r workload=$w mode=$m $(run "$w" "$m")" >> "$res"
		done
	done
done

printf '%-9s %-9s %8s %7s %8s %9s %7s\n' workload mode walks frames \
	ns/walk ns/frame whole%
awk '$1 == "run" {
	split($3, w, "="); split($4, m, "=")
	k = w[2] " " m[2]
	n[k]++
	ns[k, n[k]] = $6
	walks[k] += $5; frames[k] += $5 * $7; trunc[k] += $8
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
}
function median(k,   i, j, t, c, v) {
	c = n[k]
	for (i = 1; i <= c; i++) v[i] = ns[k, i]
	for (i = 1; i <= c; i++)
		for (j = i + 1; j <= c; j++)
			if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
}
END {
	for (i = 1; i <= nk; i++) {
		k = order[i]
		split(k, p, " ")
		f = walks[k] ? frames[k] / walks[k] : 0
		printf "%-9s %-9s %8d %7.1f %8d %9.0f %7.1f\n", p[1], p[2],
			walks[k] / n[k], f, median(k), f ? median(k) / f : 0,
			walks[k] ? 100 * (walks[k] - trunc[k]) / walks[k] : 0
	}
}' "$res" | tee "$OUT/table.txt"
echo "raw results: $res"
