#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-irq.sh TRACE TRUTH - check the interrupts of TRACE, recorded with
# --interrupts all around irqload (selftests/gotrace/irq_test.sh), against
# the ground truth irqload wrote in TRUTH: the CLOCK_MONOTONIC times of
# its window (T0 read T1 ... T2 read T3, the reads of /proc/softirqs and
# /proc/interrupts between them), both reads, its spinner and its work.
# TRACE is read by Go 1.27 (`go tool trace -d=parsed`, which reads every
# version of the generational format; its times are the trace's, which
# are CLOCK_MONOTONIC's nanoseconds), as Documentation/interrupts.rst
# shows interrupts: a goroutine per interrupt and CPU, named by its
# frame ("[softirq] NET_RX", "[irq 24] virtio0-input", "[irq] local
# timer"), that the CPU's P runs while the task it interrupted waits;
# a work item, a region "[work] FUNC" on its kworker.
#
# An interrupt's entry is its goroutine starting on a P, unless it
# resumes there after one nested in it ended (the P's stack of
# interrupts: the goroutine is on it, and the one that just stopped is
# above it).  The P is the CPU.
#
#   softirqs  per CPU and kind, the entries of the window equal
#             /proc/softirqs' difference, and per CPU and virtio IRQ
#             (its row names one handler) /proc/interrupts', give or
#             take one at each edge: Linux counts an interrupt just
#             before its tracepoint, and one counted before the first
#             read may enter after T1, one counted before the second
#             read enter after T3 (a vCPU may stop between the two under
#             emulation); one of a kind at a time on a CPU.  So
#             entries(T1..T2) - 1 <= difference <= entries(T0..T3) + 1;
#             and the window had softirqs.
#   work      each online CPU (TRUTH's "online" line) has WRITES regions "[work] refresh_vm_stats"
#             in T1..T2 (each write to stat_refresh runs it on every CPU
#             and returns once all have run), none in T0..T3 beyond them
#   spin      the spinner's running time over its spin, plus the time of
#             the interrupts that interrupted it, is its CPU time as the
#             kernel counts it (without CONFIG_IRQ_TIME_ACCOUNTING, as
#             Debian builds, a task is charged the interrupts it takes),
#             within 5%; and they took some of its time
#
# A go 1.11 trace: Go's readers count its times from its first event,
# which gotrace stat --json gives on the trace's clock (start_ns): the
# times are put back on CLOCK_MONOTONIC by adding it.
#
# Prints each comparison; exits 1 if any fails.  GO127 overrides Go 1.27,
# GOTRACE the gotrace command (user/gotrace).
set -eu

GO127=${GO127:-${GT_STORE:-$(cd "$(dirname "$0")/.." && pwd)/.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"

[ $# -eq 2 ] || { echo "usage: $0 TRACE TRUTH" >&2; exit 2; }
trace=$1
truth=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

shift_ns=0
if head -c 16 "$trace" | grep -q '^go 1\.11 trace'; then
	gotrace=${GOTRACE:-$(cd "$(dirname "$0")/.." && pwd)/user/gotrace}
	shift_ns=$("$gotrace" stat --json "$trace" 2> "$tmp/err" |
		awk -F '[:,] *' '$1 ~ /"start_ns"$/ { print $2; exit }')
	case $shift_ns in
	'' | *[!0-9]*) cat "$tmp/err"
		echo "FAIL: gotrace stat gives no start_ns of the go 1.11 trace $trace"
		exit 1 ;;
	esac
	echo "ok go 1.11: Go counts its times from its first event, at $shift_ns ns on the trace's clock"
fi

"$GO127" tool trace -d=parsed "$trace" > "$tmp/parsed" 2> "$tmp/err" || {
	cat "$tmp/err"
	echo "FAIL: go 1.27 cannot read $trace"
	exit 1
}

# field WORD N: field N of TRUTH's line starting with WORD.
field() {
	awk -v w="$1" -v n="$2" '$1 == w { print $n; exit }' "$truth"
}
t0=$(field window 2) t1=$(field window 3) t2=$(field window 4)
t3=$(field window 5)
spin_tid=$(field spin 2) spin_cpu=$(field spin 3)
s0=$(field spin 4) s1=$(field spin 5) spin_cpu_ns=$(field spin 6)
works=$(field work 3)
for v in "$t0" "$t1" "$t2" "$t3" "$spin_tid" "$spin_cpu" "$s0" "$s1" \
	"$spin_cpu_ns" "$works"; do
	case $v in
	'' | *[!0-9]*) echo "FAIL: $truth lacks its window, spin or work line"
		exit 1 ;;
	esac
done

# The differences of the two reads: "softirq CPU NAME N" and
# "hardirq CPU IRQ NAME N", the latter for each virtio IRQ whose row
# names one handler (a shared line runs each of its handlers).
awk '
/^@/ { sec = substr($1, 2); next }
sec ~ /^(softirqs|interrupts)[01]$/ && $1 ~ /^CPU[0-9]+$/ {
	ncol[sec] = 0
	for (i = 1; i <= NF; i++)
		col[sec, ++ncol[sec]] = substr($i, 4)
	next
}
sec ~ /^softirqs[01]$/ && $1 ~ /:$/ {
	k = substr($1, 1, length($1) - 1)
	for (i = 1; i <= ncol[sec]; i++)
		v[sec, col[sec, i], k] = $(i + 1)
	kinds[k] = 1
	next
}
sec ~ /^interrupts[01]$/ && $1 ~ /^[0-9]+:$/ && /virtio/ {
	irq = substr($1, 1, length($1) - 1)
	name = $NF
	if ($0 ~ /, /)
		next
	for (i = 1; i <= ncol[sec]; i++)
		v[sec, col[sec, i], "irq" irq] = $(i + 1)
	irqs[irq] = name
}
END {
	for (i = 1; i <= ncol["softirqs1"]; i++) {
		c = col["softirqs1", i]
		for (k in kinds)
			print "softirq", c, k, v["softirqs1", c, k] - v["softirqs0", c, k]
		for (q in irqs)
			print "hardirq", c, q, irqs[q], v["interrupts1", c, "irq" q] - v["interrupts0", c, "irq" q]
	}
}' "$truth" | sort > "$tmp/truth"

# The trace: "entry P NAME TIME" per interrupt entry, "region P TYPE
# TIME" per work region, and the spinner's sums.
awk -v spin="$spin_tid" -v sp="$spin_cpu" -v s0="$s0" -v s1="$s1" \
	-v shift="$shift_ns" '
function isirq(g) { return name[g] ~ /^\[(irq|softirq)[] ]/ }
# The spinner: a goroutine is its task id, or that id plus a count above
# 32 bits where the id was seen before (model/tasks.c).
function isspin(g) { return g % 4294967296 == spin }
# Time of [a, b] within the spin.
function inspin(a, b) {
	if (a < s0) a = s0
	if (b > s1) b = s1
	return b > a ? b - a : 0
}
# The goroutine @g stops running on its P at @t.
function stop(g, t,   p) {
	if (!(g in onp))
		return
	p = onp[g]
	delete onp[g]
	if (run[p] != g)
		return
	if (p == sp) {
		if (isspin(g))
			spin_run += inspin(since[p], t)
		else if (isirq(g)) {
			irq_all += inspin(since[p], t)
			if (isspin(base[p]))
				irq_spin += inspin(since[p], t)
		}
	}
	run[p] = ""
	last[p] = g
}
# The goroutine @g starts running on P @p at @t.
function start(g, p, t,   i, at) {
	if (run[p] != "")
		stop(run[p], t)
	run[p] = g
	onp[g] = p
	since[p] = t
	if (!isirq(g)) {
		base[p] = g
		depth[p] = 0
		return
	}
	at = 0
	for (i = 1; i <= depth[p]; i++)
		if (stk[p, i] == g)
			at = i
	# A resume: the one that just stopped was above it on the stack.
	if (at && at < depth[p] && last[p] != g) {
		for (i = at + 1; i <= depth[p]; i++)
			if (stk[p, i] == last[p]) {
				depth[p] = at
				return
			}
	}
	if (at)
		depth[p] = at - 1
	stk[p, ++depth[p]] = g
	# (mawk prints a number above 2^31 as "%.6g": 10 us steps here.)
	print "entry", p, name[g], sprintf("%.0f", t)
}
# The event read last, once its stacks are read (they name goroutines).
function flush(   g, p) {
	if (ev == "")
		return
	if (ev == "proc") {
		# A P that stops has no interrupt left.
		if (to != "Running" && (evp in run) && run[evp] != "")
			stop(run[evp], evt)
		if (to != "Running") {
			depth[evp] = 0
			base[evp] = ""
		}
	} else if (ev == "go") {
		g = evg
		if (!(g in name) && tname != "")
			name[g] = tname
		# No change of state (Running->Running: Go says a goroutine is
		# still running, a generation goes on): no start, no stop.
		if (from == to) {
			ev = ""
			return
		}
		if (from == "Running" && to != "Running" && to != "Syscall")
			stop(g, evt)
		else if (from == "Syscall" && to != "Running")
			stop(g, evt)
		else if (to == "Running" && evp >= 0)
			start(g, evp, evt)
	}
	ev = ""
}
/^M=/ {
	flush()
	p = $2; sub(/^P=/, "", p)
	t = $0; sub(/.* Time=/, "", t); sub(/ .*/, "", t)
	if (shift)
		t = sprintf("%.0f", t + shift)
	if ($4 == "StateTransition") {
		tr = $0; sub(/ Reason=.*/, "", tr); sub(/.* /, "", tr)
		from = tr; sub(/->.*/, "", from)
		to = tr; sub(/.*->/, "", to)
		evt = t + 0
		evp = p + 0
		if ($0 ~ / GoID=/) {
			ev = "go"
			evg = $0; sub(/.* GoID=/, "", evg); sub(/ .*/, "", evg)
		} else if ($0 ~ / ProcID=/) {
			ev = "proc"
			evp = $0; sub(/.* ProcID=/, "", evp); sub(/ .*/, "", evp)
		}
		tname = ""
		instack = 0
	} else if ($4 == "RegionBegin" && $0 ~ /Type="\[work\] /) {
		ty = $0; sub(/.*Type="/, "", ty); sub(/".*/, "", ty)
		print "region", p, ty, t
	}
	next
}
/^TransitionStack=/ { instack = 1; next }
/^Stack=/ { instack = 0; next }
# A frame of the transition stack: the outermost names the goroutine.
instack && /^\t[^\t]/ {
	f = $0; sub(/^\t/, "", f); sub(/ @ 0x[0-9a-f]*$/, "", f)
	tname = f
}
END {
	flush()
	print "spin", spin_run + 0, irq_spin + 0, irq_all + 0
}' "$tmp/parsed" > "$tmp/events"

online=$(awk '$1 == "online" { $1 = ""; print; exit }' "$truth")
[ -n "$online" ] || { echo "FAIL: $truth lacks its online CPUs"; exit 1; }
read -r _ spin_run irq_spin irq_all <<EOF
$(grep '^spin ' "$tmp/events")
EOF

# Compare; one line each, "ok" or "FAIL".
awk -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v works="$works" \
	-v online="$online" -v cpu_ns="$spin_cpu_ns" -v run="$spin_run" \
	-v irq_spin="$irq_spin" -v irq_all="$irq_all" -v sp="$spin_cpu" '
FNR == NR {
	if ($1 == "softirq")
		want[$2, "[softirq] " $3] = $4
	else if ($1 == "hardirq")
		want[$2, "[irq " $3 "] " $4] = $5
	next
}
$1 == "entry" {
	nm = $3
	for (i = 4; i < NF; i++)
		nm = nm " " $i
	t = $NF
	if (t >= t1 && t <= t2)
		lo[$2, nm]++
	if (t >= t0 && t <= t3)
		hi[$2, nm]++
	seen[nm] = 1
	next
}
$1 == "region" {
	ty = $3
	if (ty != "[work]" || $4 != "refresh_vm_stats")
		next
	t = $NF
	if (t >= t1 && t <= t2)
		wlo[$2]++
	if (t >= t0 && t <= t3)
		whi[$2]++
}
# The counts sorted by CPU and name, then the rest in order.
function verdict(ok, what, sorted) {
	if (sorted)
		printf "%s %s\n", ok ? "ok" : "FAIL:", what | "sort -k3,3n -k4"
	else
		printf "%s %s\n", ok ? "ok" : "FAIL:", what
	if (!ok)
		bad = 1
}
END {
	for (k in want) {
		split(k, kk, SUBSEP)
		d = want[k]; l = lo[k] + 0; h = hi[k] + 0
		verdict(l - 1 <= d && d <= h + 1,
			sprintf("cpu %s %s: /proc says %d, the trace %d in the window (%d with its reads)",
				kk[1], kk[2], d, l, h), 1)
		if (kk[2] ~ /^\[softirq\]/) {
			sum[kk[2]] += d
			all += d
		}
	}
	close("sort -k3,3n -k4")
	# PREEMPT_RT from 6.10 receives loopback'"'"'s datagrams in a
	# thread per CPU (backlog_napi), not in NET_RX: any kind will do.
	verdict(all > 0, sprintf("softirqs in the window: %d, NET_RX %d", all, sum["[softirq] NET_RX"]))
	n = split(online, cpus, " ")
	for (i = 1; i <= n; i++) {
		c = cpus[i]
		verdict(wlo[c] + 0 == works && whi[c] + 0 == works,
			sprintf("cpu %d: %d refresh_vm_stats work regions in the window (%d with its reads), %d written",
				c, wlo[c], whi[c], works))
	}
	verdict(irq_spin > 0, sprintf("cpu %d: interrupts took %.3f ms of the spinner (%.3f ms of interrupts there in all)",
		sp, irq_spin / 1e6, irq_all / 1e6))
	verdict(run + irq_spin >= cpu_ns * 0.95 && run + irq_spin <= cpu_ns * 1.05,
		sprintf("spinner: %.3f ms running + %.3f ms interrupted = %.3f ms, its CPU time %.3f ms (within 5%%)",
			run / 1e6, irq_spin / 1e6, (run + irq_spin) / 1e6, cpu_ns / 1e6))
	exit bad
}' "$tmp/truth" "$tmp/events"
