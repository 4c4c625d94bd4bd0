#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# model_check_test.sh - the model checker (model_check.c) over a fixed set
# of seeds, every trace through 'gotrace check' whole and cut at random
# generations; then a sample of those traces through Go's own readers
# (Go 1.23 and 1.27 for the generational format, 1.21 and 1.23 for the
# go 1.11 one: selftests/check-trace.sh), which stay the judges.
#
# MC_SEEDS (FIRST:COUNT, default 1:300) and MC_SECONDS (default 150: a
# slower host runs fewer of the seeds, and says so; never a failure)
# bound it; 'make fuzz-model' runs it for as long as asked.  Then the
# same with interrupts and work items (--interrupts): MC_IRQ_SEEDS
# (default 1:150) within MC_IRQ_SECONDS (default 75), in both formats.
# $MODEL_CHECK is the checker (make check passes build/model_check).

. "$(dirname "$0")/lib.sh"

MODEL_CHECK=${MODEL_CHECK:-./build/model_check}
CHECK_TRACE=$(dirname "$0")/../../selftests/check-trace.sh
MC_SEEDS=${MC_SEEDS:-1:300}
MC_SECONDS=${MC_SECONDS:-150}

mkdir "$T/traces"
mrc=0
"$MODEL_CHECK" --seeds "$MC_SEEDS" --seconds "$MC_SECONDS" \
	--save "$T/traces" --save-every 25 >"$T/out" 2>"$T/err" || mrc=$?
sed 's/^/# /' "$T/out" | grep -v '^# ok ' | tail -60
seeds=$(sed -n 's/.* - \([0-9]*\) seeds, \([0-9]*\) operations.*/\1/p' "$T/out")
check "the model checker ran ${seeds:-no} seeds, every trace valid (seeds $MC_SEEDS)" \
	'[ $mrc -eq 0 ] && [ "${seeds:-0}" -gt 0 ]'

# Interrupts nested, lost, unmatched, on idle CPUs and hidden tasks,
# open at switches and at the generations' ends; work items across
# blocks: every trace valid, whole and cut.
MC_IRQ_SEEDS=${MC_IRQ_SEEDS:-1:150}
MC_IRQ_SECONDS=${MC_IRQ_SECONDS:-75}
mkdir "$T/irq"
for fmt in go123 go111; do
	mrc=0
	"$MODEL_CHECK" --interrupts --format $fmt --seeds "$MC_IRQ_SEEDS" \
		--seconds "$MC_IRQ_SECONDS" --save "$T/irq" \
		--save-every 30 >"$T/out" 2>"$T/err" || mrc=$?
	# Go's readers below read them too.
	for f in "$T"/irq/*.trace; do
		[ -e "$f" ] && mv "$f" "$T/traces/irq-$fmt-$(basename "$f")"
	done
	sed 's/^/# /' "$T/out" | grep -v '^# ok ' | tail -30
	seeds=$(sed -n 's/.* - \([0-9]*\) seeds, \([0-9]*\) operations.*/\1/p' "$T/out")
	check "with interrupts ($fmt): ${seeds:-no} seeds, every trace valid" \
		'[ $mrc -eq 0 ] && [ "${seeds:-0}" -gt 0 ]'
done

# Seeds that once failed, beyond the fixed set: each path the long runs
# found stays found.  2041097: an offline CPU whose goroutine's take-off
# found no room; the generation after did not state its P, and the stop
# ended the goroutine there ("GoStop: expected a proc").
for s in 2041097; do
	mrc=0
	"$MODEL_CHECK" --seed "$s" >"$T/out" 2>"$T/err" || mrc=$?
	check "model checker seed $s (found by a long run) is valid" \
		'[ $mrc -eq 0 ] && grep -q "^ok 1 - seed $s:" "$T/out"'
done
# With interrupts: 5, a generation that ended between the idle M's
# ProcStart for an interrupt's new goroutine and its switch (the P was
# stated idle); 198 and 383, go 1.11 sessions whose stack table was full
# when an interrupt's goroutine was made (it had no name).
for s in 5 198 383; do
	mrc=0
	"$MODEL_CHECK" --interrupts --seed "$s" >"$T/out" 2>"$T/err" || mrc=$?
	check "model checker seed $s with interrupts is valid" \
		'[ $mrc -eq 0 ] && grep -q "^ok 1 - seed $s:" "$T/out"'
done

GO127=${GO127:-${GT_STORE:-$(dirname "$0")/../../.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GO127
if [ ! -x "${GO121:-/usr/lib/go-1.21/bin/go}" ] ||
   [ ! -x "${GO123:-/usr/lib/go-1.23/bin/go}" ] || [ ! -x "$GO127" ]; then
	no_go "the model checker's traces need Go 1.21, 1.23 and 1.27"
else
	nr=0
	for f in "$T"/traces/*.trace; do
		[ -e "$f" ] || continue
		nr=$((nr + 1))
		name=$(basename "$f" .trace)
		if bash "$CHECK_TRACE" "$f" >"$T/out" 2>"$T/err"; then
			ok "$name: Go's readers of its format parse it"
		else
			not_ok "$name: Go's readers of its format parse it"
		fi
	done
	check "the model checker saved traces for Go ($nr)" '[ $nr -gt 0 ]'
fi

done_testing
