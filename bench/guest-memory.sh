#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-memory.sh OUT - the memory curve of a long "go 1.23 trace" session
# inside the VM (busybox sh, gotrace.ko loaded; bench/guest-init runs it
# when the kernel command line says BENCH_GUEST=memory).  Prints raw
# numbers only, one record a line, to OUT and the console;
# bench/memory.awk on the host makes the table.
#
# The module's format parameter is set to go1.23, a session is read to
# /dev/null (gtctl rec: 128 KiB reads, nothing kept: a file in tmpfs would
# fill the guest's memory), and bench/workloads/churn creates and ends
# tasks on every CPU for BENCH_MEM_S seconds.  Every BENCH_MEM_STEP
# seconds, one "mem" record: the pages of the vmalloc areas whose caller
# is in the module (/proc/vmallocinfo, "[gotrace]"), Slab, VmallocUsed,
# MemFree and Percpu of /proc/meminfo, and the session's counters of
# /sys/class/misc/gotrace/status; then an "areas" record: those pages
# by the module's function that allocated them.  One record before the
# session, one after its stop and close.
#
# Knobs (kernel command line, so environment): BENCH_MEM_S (300),
# BENCH_MEM_STEP (10), BENCH_MEM_GEN_MS (the generation_ms parameter;
# empty: the module's default), BENCH_MEM_PROCS (churning processes;
# empty: one per CPU).

OUT=${1:-/tmp/results.txt}
S=${BENCH_MEM_S:-300}
STEP=${BENCH_MEM_STEP:-10}
P=/sys/module/gotrace/parameters
STATUS=/sys/class/misc/gotrace/status
NCPU=$(grep -c ^processor /proc/cpuinfo)

: > "$OUT"
emit() {
	echo "$*" >> "$OUT"
	echo "$*"
}

uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

# sample PHASE T: one "mem" record.  A vmalloc area's pages= is what it
# holds (its size in vmallocinfo also counts the guard page).
sample() {
	vm=$(awk '/\[gotrace\]/ {
			n++
			for (i = 1; i <= NF; i++)
				if ($i ~ /^pages=/)
					p += substr($i, 7)
		}
		END { printf "mod_vmalloc=%d mod_areas=%d", p * 4, n }' \
		/proc/vmallocinfo)
	mi=$(awk '
		/^MemFree:/ { f = $2 }
		/^Slab:/ { s = $2 }
		/^VmallocUsed:/ { v = $2 }
		/^Percpu:/ { p = $2 }
		END { printf "memfree=%d slab=%d vmalloc_used=%d percpu=%d",
			f, s, v, p }' /proc/meminfo)
	st=
	for k in state events lost_events bytes_read chunk_overflows \
		task_overflows stack_overflows format generations; do
		st="$st $k=$(cat "$STATUS/$k")"
	done
	emit "mem phase=$1 t=$2 $vm $mi$st"
	# Which of the module's functions hold them (KiB by caller).
	emit "areas t=$2$(awk '/\[gotrace\]/ {
			c = $3
			sub(/\+.*/, "", c)
			for (i = 1; i <= NF; i++)
				if ($i ~ /^pages=/)
					k[c] += substr($i, 7) * 4
		}
		END { for (c in k) printf " %s=%d", c, k[c] }' \
		/proc/vmallocinfo)"
}

[ -w $P/format ] || { echo "# no format parameter: not a go1.23 module"; exit 1; }
echo go1.23 > $P/format || exit 1
[ -n "${BENCH_MEM_GEN_MS:-}" ] && { echo "$BENCH_MEM_GEN_MS" > $P/generation_ms || exit 1; }

emit "info release=$(uname -r) cpus=$NCPU seconds=$S step=$STEP" \
	"format=$(cat $P/format) generation_ms=$(cat $P/generation_ms)" \
	"chunks=$(cat $P/chunks) max_tasks=$(cat $P/max_tasks)" \
	"max_stacks=$(cat $P/max_stacks)" \
	"possible=$(cat /sys/devices/system/cpu/possible)"

sample before 0

./gtctl rec /dev/null > /tmp/gotrace.status &
reader=$!
sleep 1
# shellcheck disable=SC2086
./churn $((S * 1000)) ${BENCH_MEM_PROCS:-} > /tmp/churn.out &
load=$!
t0=$(uptime_s)
i=0
while [ $((i * STEP)) -le "$S" ]; do
	# Sleep until t0 + i * STEP: the samples do not drift.
	d=$(awk -v t0="$t0" -v t=$((i * STEP)) \
		'{ d = t0 + t - $1; if (d < 0) d = 0; printf "%.2f", d }' \
		/proc/uptime)
	sleep "$d"
	sample run $((i * STEP))
	i=$((i + 1))
done
wait $load
emit "load $(cat /tmp/churn.out)"
echo stop > /dev/gotrace 2>/dev/null
wait $reader
emit "final $(cat /tmp/gotrace.status)"
sleep 1
sample after "$(awk -v t0="$t0" '{ printf "%d", $1 - t0 }' /proc/uptime)"
echo go1.23 > $P/format
exit 0
