#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# host-bench.sh - the BPF capture backend on this machine's real CPU,
# against no tracing and against ftrace (make bench-host).  Prints
# figures, never a verdict.  Needs root, BPF with BTF, and tracefs.
#
# Configurations, for each workload:
#   none    no tracing
#   bpf     gotrace bpf-dump -s (the BPF backend's programs, rings and
#           merging reader, no trace), comm filter on the workload: other
#           tasks' events cost the programs' filter check
#   bpfu    the same with --user-stacks: the programs walk the user stack
#           of the running task (Documentation/user-stacks.rst)
#   record  gotrace record --backend bpf with the same filter: the above,
#           plus the model and the trace file (in $BENCH_OUT)
#   recordu the same with --user-stacks --unwind=fp: plus the maps the
#           reader reads and the user frames the model writes
#   recorde the same with --unwind=eh-frame: the walks by the binaries'
#           unwind tables (Documentation/unwind.rst), which go on
#           through code without frame pointers (the C library's)
#   bpfi    bpf with --interrupts all: the programs of hard IRQs, the
#           vectors, softirqs and work items too (Documentation/
#           bpf-backend.rst); the comm filter writes only the
#           interrupts of the workload's tasks, every other costs the
#           programs' filter check
#   bpfh, bpfs, bpfw  the same with --interrupts hardirq, softirq,
#           workqueue: each kind's share of that cost
#   recordi record with --interrupts all: plus the model's goroutines of
#           the interrupts
#   ftrace  the same tracepoints through a tracefs instance, one cat of
#           trace_pipe_raw per CPU into files, set_event_pid (with
#           event-fork) on the workload
# Both tracers get 4 MiB of buffer per CPU.  Workloads (bench/workloads):
#   getppid   syscall storm: one getppid() per iteration
#   pingpong  context-switch storm: one round trip per iteration (two
#             blocking reads, two wakeups, two switches), pinned to CPU 0
#   hackbench 1 group of 10 senders and 10 receivers on socket pairs
# Then a ramp: BPF capture of more and more getppid processes until
# records are dropped: the highest event rate without drops.
#
# Figures per workload and configuration (median of the rounds):
#   ns/iter     the workload's cost of one iteration
#   ev/iter     events recorded per iteration
#   ns/event    (ns/iter - none's ns/iter) per event recorded or dropped:
#               what one event costs the workload
#   B/event     bytes per event (bpf: record bytes; record: trace file
#               bytes per trace event; ftrace: page headers and committed
#               data of trace_pipe_raw)
#   drops       events lost (bpf: full rings; ftrace: overrun + dropped)
#   ustack%     bpfu, recordu: events (bpfu: records) carrying a user stack
#   trunc%      bpfu, recordu, recorde: user stacks whose walk stopped
#               early (any reason the summary gives but none)
#   +irq ns     bpfi, bpfh, bpfs, bpfw, recordi: ns/iter over the same
#               configuration without interrupts (bpf, record): what the
#               interrupts' programs add to an iteration
#   vs-no-u     bpfu, recordu, recorde: the added cost (ns/iter over
#               none's) with user stacks, as a multiple of the same
#               without them (bpf, record); recorde's against
#               recordu's is the tables' cost against frame pointers'
#               (bench/unwind-bench.sh: the cost of one walk)
#
# Environment: BENCH_MS (one run, 1000), BENCH_ROUNDS (3),
# BENCH_WORKLOADS ("getppid pingpong hackbench"), BENCH_CONFIGS ("none
# bpf bpfu record recordu recorde ftrace"; the interrupts' bpfi bpfh bpfs
# bpfw recordi on demand),
# BENCH_RAMP (getppid processes, "1 2 4 8 16"), BENCH_OUT (results
# directory, .cache/bench/host).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MS=${BENCH_MS:-1000}
ROUNDS=${BENCH_ROUNDS:-3}
RAMP=${BENCH_RAMP-1 2 4 8 16}
WORKLOADS=${BENCH_WORKLOADS:-getppid pingpong hackbench}
CONFIGS=${BENCH_CONFIGS:-none bpf bpfu record recordu recorde ftrace}
OUT=${BENCH_OUT:-$ROOT/.cache/bench/host}
GOTRACE=$ROOT/user/gotrace
PROGS=$OUT/progs
TRACEFS=/sys/kernel/tracing
INST=$TRACEFS/instances/gotrace-bench
EVENTS="sched/sched_switch sched/sched_waking sched/sched_wakeup
	sched/sched_wakeup_new sched/sched_process_fork
	sched/sched_process_exec sched/sched_process_exit raw_syscalls"
NCPU=$(nproc)
RING=4M

die() {
	echo "bench-host: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root (BPF and tracefs)"
[ -r /sys/kernel/btf/vmlinux ] || die "this kernel has no BTF"
mkdir -p "$OUT"
make -s -C "$ROOT/user" gotrace
"$GOTRACE" bpf-dump -h >/dev/null 2>&1 ||
	die "gotrace was built without the BPF backend (make deps)"
make -s -C "$ROOT/bench" O="$PROGS" "$PROGS/getppid" "$PROGS/pingpong" \
	"$PROGS/hackbench" "$PROGS/ftpages"

mounted=
if [ ! -d "$TRACEFS/events" ]; then
	mount -t tracefs nodev "$TRACEFS" || die "cannot mount tracefs"
	mounted=1
fi
cleanup() {
	[ -d "$INST" ] && rmdir "$INST" 2>/dev/null
	[ -n "$mounted" ] && umount "$TRACEFS" 2>/dev/null
	return 0
}
trap cleanup EXIT
[ -d "$INST" ] || mkdir "$INST"
echo $((4 * 1024)) > "$INST/buffer_size_kb"
echo 1 > "$INST/options/event-fork"

# workload W [PROCS]: the command line of workload W.
workload() {
	case $1 in
	getppid)	echo "$PROGS/getppid $MS ${2:-1}" ;;
	pingpong)	echo "$PROGS/pingpong $MS 1 0" ;;
	hackbench)	echo "$PROGS/hackbench $MS 1 10" ;;
	esac
}

# iters_ns FILE: "ITERS NS" from a workload's output line.
iters_ns() {
	sed -n 's/.* iters=\([0-9]*\) ns=\([0-9]*\).*/\1 \2/p' "$1" | tail -n 1
}

run_none() {
	# shellcheck disable=SC2091,SC2046
	$(workload "$1") > "$OUT/run.out"
	echo "$(iters_ns "$OUT/run.out") 0 0 0 0 0"
}

# Each run prints "ITERS NS EVENTS BYTES DROPS USTACKS TRUNCATED".
run_bpf() {
	local ustacks utrunc
	# shellcheck disable=SC2046,SC2086
	"$GOTRACE" bpf-dump -s --ring-size $RING -c "$1" ${UFLAG:-} -- \
		$(workload "$1" "${2:-}") > /dev/null 2> "$OUT/run.out"
	summary=$(grep '^bpf-dump: records=' "$OUT/run.out")
	rec=$(echo "$summary" | sed 's/.*records=\([0-9]*\).*/\1/')
	bytes=$(echo "$summary" | sed 's/.*bytes=\([0-9]*\).*/\1/')
	drops=$(echo "$summary" | sed 's/.*drops=\([0-9]*\).*/\1/')
	ustacks=$(echo "$summary" | sed -n 's/.*ustacks=\([0-9]*\).*/\1/p')
	utrunc=$(echo "$summary" | sed -n 's/.*utrunc=\([0-9]*\).*/\1/p')
	echo "$(iters_ns "$OUT/run.out") $rec $bytes $drops ${ustacks:-0} ${utrunc:-0}"
}

run_bpfu() {
	UFLAG=--user-stacks run_bpf "$@"
}

run_bpfi() {
	UFLAG="--interrupts all" run_bpf "$@"
}

run_bpfh() {
	UFLAG="--interrupts hardirq" run_bpf "$@"
}

run_bpfs() {
	UFLAG="--interrupts softirq" run_bpf "$@"
}

run_bpfw() {
	UFLAG="--interrupts workqueue" run_bpf "$@"
}

run_record() {
	local drops size walks trunc
	# shellcheck disable=SC2046,SC2086
	"$GOTRACE" record --backend bpf -o "$OUT/record.trace" \
		--buffer-size $((4 * NCPU))M -c "$1" ${UFLAG:-} -- \
		$(workload "$1") > "$OUT/run.out" 2>&1
	drops=$(sed -n 's/.* \([0-9]*\) lost, backend bpf$/\1/p' "$OUT/run.out")
	# "user stacks: N walked, truncated: bad frame pointer A, fault B,
	# depth limit C; ..."
	walks=$(sed -n 's/.*user stacks: \([0-9]*\) walked.*/\1/p' "$OUT/run.out")
	trunc=$(sed -n 's/.*user stacks: [0-9]* walked, truncated: \([^;]*\);.*/\1/p' \
		"$OUT/run.out" | tr -cs '0-9' '+' | sed 's/^+//; s/+$//')
	# Events and bytes of the trace: what the model wrote.
	"$GOTRACE" stat -j "$OUT/record.trace" > "$OUT/stat.json"
	size=$(wc -c < "$OUT/record.trace")
	rm -f "$OUT/record.trace" "$OUT/record.trace.old"
	echo "$(iters_ns "$OUT/run.out")" \
		"$(sed -n 's/^ *"events": \([0-9]*\),*$/\1/p' "$OUT/stat.json" | head -n 1)" \
		"$size" "${drops:-0}" "${walks:-0}" "$((${trunc:-0}))"
}

run_recordu() {
	UFLAG="--user-stacks --unwind=fp" run_record "$@"
}

run_recorde() {
	UFLAG="--user-stacks --unwind=eh-frame" run_record "$@"
}

run_recordi() {
	UFLAG="--interrupts all" run_record "$@"
}

ftrace_events() {
	for e in $EVENTS; do
		echo "$1" > "$INST/events/$e/enable"
	done
}

run_ftrace() {
	local pids="" i=0 cmd
	echo 0 > "$INST/tracing_on"
	echo > "$INST/trace"
	echo > "$INST/set_event_pid"
	echo 1 > "$INST/tracing_on"
	while [ $i -lt "$NCPU" ]; do
		cat "$INST/per_cpu/cpu$i/trace_pipe_raw" > "$OUT/ftrace.$i" &
		pids="$pids $!"
		i=$((i + 1))
	done
	cmd=$(workload "$1")
	# The workload's pid goes into set_event_pid (event-fork adds its
	# children) before any event is enabled: without a pid the instance
	# records every task.  The workload waits on a FIFO until then.
	rm -f "$OUT/go"
	mkfifo "$OUT/go"
	# shellcheck disable=SC2016
	sh -c 'echo $$ > "$0/set_event_pid"; read -r x < "$1"; exec $2' \
		"$INST" "$OUT/go" "$cmd" > "$OUT/run.out" &
	local wpid=$!
	until grep -qx "$wpid" "$INST/set_event_pid"; do
		sleep 0.01
	done
	ftrace_events 1
	echo go > "$OUT/go"
	wait $wpid
	rm -f "$OUT/go"
	ftrace_events 0
	echo 0 > "$INST/tracing_on"
	# The readers drain what is left: until the files stop growing.
	local last=-1 size
	while :; do
		size=$(cat "$OUT"/ftrace.* | wc -c)
		[ "$size" -eq "$last" ] && break
		last=$size
		sleep 0.2
	done
	# shellcheck disable=SC2086
	kill $pids 2>/dev/null || true
	# shellcheck disable=SC2086
	wait $pids 2>/dev/null || true
	local pages drops
	pages=$("$PROGS/ftpages" "$OUT"/ftrace.*)
	cat "$INST"/per_cpu/cpu*/stats > "$OUT/ftstats.txt"
	drops=$(awk '/^overrun:/ { d += $2 } /^dropped events:/ { d += $3 }
		END { print d + 0 }' "$OUT/ftstats.txt")
	[ -n "${BENCH_KEEP:-}" ] || rm -f "$OUT"/ftrace.*
	echo "$(iters_ns "$OUT/run.out")" \
		"$(echo "$pages" | sed 's/.*events=\([0-9]*\).*/\1/')" \
		"$(echo "$pages" | sed 's/.*payload=\([0-9]*\).*/\1/')" "$drops" 0 0
}

res=$OUT/results.txt
: > "$res"
echo "# $(uname -r), $NCPU CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$res"
for r in $(seq "$ROUNDS"); do
	for w in $WORKLOADS; do
		for c in $CONFIGS; do
			line=$("run_$c" "$w")
			echo "run round=$r workload=$w config=$c $line" >> "$res"
		done
	done
done

echo
printf '%-9s %-7s %9s %8s %9s %8s %8s %7s %7s %8s %7s\n' workload config \
	ns/iter ev/iter ns/event B/event drops ustack% trunc% vs-no-u "+irq ns"
awk '$1 == "run" {
	split($3, w, "="); split($4, c, "=")
	k = w[2] " " c[2]
	n[k]++
	ni[k, n[k]] = $6 / $5		# ns per iteration
	ev[k] += $7; it[k] += $5; by[k] += $8; dr[k] += $9
	us[k] += $10; tr[k] += $11
	keys[k] = 1
}
function median(k,   i, j, t, m) {
	m = n[k]
	for (i = 1; i <= m; i++) v[i] = ni[k, i]
	for (i = 1; i <= m; i++)
		for (j = i + 1; j <= m; j++)
			if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
END {
	nw = split("getppid pingpong hackbench", ws, " ")
	nc = split("none bpf bpfu bpfi bpfh bpfs bpfw record recordu recorde recordi ftrace", cs, " ")
	for (i = 1; i <= nw; i++) {
		base = median(ws[i] " none")
		for (j = 1; j <= nc; j++) {
			k = ws[i] " " cs[j]
			if (!(k in keys)) continue
			m = median(k)
			e = it[k] ? ev[k] / it[k] : 0
			# Dropped events cost their probe too.
			a = it[k] ? (ev[k] + dr[k]) / it[k] : 0
			# With user stacks: the added cost over the same
			# configuration without them (bpfu/bpf, recordu/record).
			x = "-"
			if (cs[j] ~ /[ue]$/) {
				k0 = ws[i] " " substr(cs[j], 1, length(cs[j]) - 1)
				if ((k0 in keys) && median(k0) > base)
					x = sprintf("%.2f", (m - base) / (median(k0) - base))
			}
			# With interrupts: ns/iter over the same without.
			y = "-"
			if (cs[j] ~ /^bpf[ihsw]$|^recordi$/) {
				k0 = ws[i] " " (cs[j] ~ /^bpf/ ? "bpf" : "record")
				if (k0 in keys)
					y = sprintf("%.1f", m - median(k0))
			}
			printf "%-9s %-7s %9.1f %8.2f %9s %8s %8d %7s %7s %8s %7s\n",
				ws[i], cs[j], m,
				e, a ? sprintf("%.1f", (m - base) / a) : "-",
				ev[k] ? sprintf("%.1f", by[k] / ev[k]) : "-", dr[k],
				ev[k] && us[k] ? sprintf("%.1f", 100 * us[k] / ev[k]) : "-",
				us[k] ? sprintf("%.1f", 100 * tr[k] / us[k]) : "-", x, y
		}
	}
}' "$res" | tee "$OUT/table.txt"

# The interrupts' programs' own cost per run: the kernel's statistics of
# BPF programs (kernel.bpf_stats_enabled, two clock reads a run, on for
# this recording only) over 2 s of the whole machine.
case " $CONFIGS " in
*" bpfi "*|*" bpfh "*|*" bpfs "*|*" bpfw "*|*" recordi "*)
	stats_was=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	"$GOTRACE" record --backend bpf --interrupts all -d 2 \
		-o "$OUT/irq.trace" > "$OUT/irq.out" 2>&1 || true
	sysctl -qw kernel.bpf_stats_enabled="$stats_was"
	rm -f "$OUT/irq.trace" "$OUT/irq.trace.old"
	echo
	echo "the interrupts' programs (ns a run x runs, 2 s of the whole machine):"
	sed -n 's/.*BPF programs.* run times ([^)]*): //p' "$OUT/irq.out" |
		tr ',' '\n' | sed 's/^ *//' |
		grep -E '^gt_(irq|softirq|local_timer|reschedule|call_function|irq_work|work|ipi|x86|thermal|error|spurious)' |
		sed 's/^/  /' | tee -a "$res"
	;;
esac

echo
echo "ramp: BPF capture of getppid processes ($MS ms each), until drops"
printf '%6s %12s %10s\n' procs events/s drops
best=0
for p in $RAMP; do
	line=$(run_bpf getppid "$p")
	set -- $line
	rate=$(awk -v e="$3" -v ns="$2" 'BEGIN { printf "%d", ns ? e * 1e9 / ns : 0 }')
	printf '%6s %12s %10s\n' "$p" "$rate" "$5"
	echo "ramp procs=$p $line" >> "$res"
	if [ "$5" -eq 0 ]; then
		[ "$rate" -gt "$best" ] && best=$rate
	else
		break
	fi
done
echo "highest rate without drops: $best events/s (rings of $RING per CPU)"
echo "raw results: $res"
