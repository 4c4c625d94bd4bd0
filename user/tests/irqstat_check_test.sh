#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# irqstat_check_test.sh - 'gotrace stat' on the model checker's traces
# with interrupts (model_check.c --interrupts: nested, lost, unmatched,
# on idle CPUs, inside syscalls whose CPU runs others), in both formats:
# every trace's stat --json is one JSON object whose "interrupts" rows
# hold for every CPU: task + hard IRQ + softirq + idle time = the trace's
# duration, shares summing to 100%; the softirq kinds' times sum to the
# CPU's softirq time; and no per-CPU row counts more time than the CPU
# has.  IRQSTAT_SEEDS (FIRST:COUNT, default 1:40) bounds it.
# $MODEL_CHECK is the checker (make check's build/model_check).

. "$(dirname "$0")/lib.sh"

MODEL_CHECK=${MODEL_CHECK:-./build/model_check}
IRQSTAT_SEEDS=${IRQSTAT_SEEDS:-1:40}

# cpu_rows JSON: "p wall task hard soft idle task% hard% soft% idle%" per
# CPU row (the keys hold no digit).
cpu_rows() {
	grep '^      { "p": [0-9]*, "wall_ns": ' "$1" | tr -c '0-9.\n' ' '
}

for fmt in go111 go123; do
	mkdir "$T/$fmt"
	mrc=0
	"$MODEL_CHECK" --seeds "$IRQSTAT_SEEDS" --interrupts --format "$fmt" \
		--save "$T/$fmt" >"$T/out" 2>"$T/err" || mrc=$?
	check "$fmt: the model checker wrote its traces with interrupts" \
		'[ $mrc -eq 0 ] && [ -n "$(ls "$T/$fmt")" ]'
	traces=0 with=0 bad=0
	for f in "$T/$fmt"/*; do
		traces=$((traces + 1))
		if ! "$GOTRACE" stat -j -n 0 "$f" >"$T/j" 2>"$T/err"; then
			echo "# $f: stat failed: $(cat "$T/err")"
			bad=$((bad + 1))
			continue
		fi
		grep -q '^  "interrupts": {$' "$T/j" || continue
		with=$((with + 1))
		# Per CPU: the kinds sum to the duration, the shares to 100.
		cpu_rows "$T/j" >"$T/rows"
		[ -s "$T/rows" ] || { echo "# $f: no CPU rows"; bad=$((bad + 1)); }
		if ! awk '{ if ($3 + $4 + $5 + $6 != $2) exit 1
			    s = $7 + $8 + $9 + $10
			    if (s < 99.99 || s > 100.01) exit 1 }' "$T/rows"; then
			echo "# $f: a CPU's kinds do not sum to its duration:"
			sed 's/^/#   p wall task hard soft idle %: /' "$T/rows"
			bad=$((bad + 1))
		fi
		# Per CPU: its softirq kinds sum to its softirq time.
		sed -n 's/^ *{ "p": \([0-9]*\), "name": "[^"]*", "ns": \([0-9]*\),.*/\1 \2/p' \
			"$T/j" >"$T/soft"
		if ! awk 'FILENAME == ARGV[1] { soft[$1] += $2; next }
			  { if (soft[$1] + 0 != $5) exit 1 }' "$T/soft" "$T/rows"; then
			echo "# $f: softirq kinds do not sum to the softirq time"
			bad=$((bad + 1))
		fi
	done
	echo "# $fmt: $traces traces, $with with interrupts"
	check "$fmt: stat's CPU times sum to the duration on every trace with interrupts ($with of $traces)" \
		'[ $bad -eq 0 ] && [ $with -gt 0 ]'
done

echo "1..$n"
[ $failed -eq 0 ]
