#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# go123_verdict_test.sh - 'gotrace check' gives Go's verdict on generational
# traces, and 'gotrace check --repair' makes every truncated one readable
#
# The valid trace is the first four generations of model_test's
# "generations" case (a go 1.23 trace: tasks asleep throughout, syscalls,
# wakeups, sweeps).  From it, go123_mutate derives the traces a writer bug
# would give (tests/go123_mutate.c says what each mutation does) and cuts it
# at every generation's end, inside the first and last batch of every
# generation, between its first batches, and at a few other offsets.  For
# each, Go 1.23 (`go tool trace -d=1`) and Go 1.27 (`-d=parsed`) give
# accept (exit 0) or reject; where they agree, gotrace check must say the
# same.  Where they differ, the case is listed (none known today:
# Documentation/trace-format.rst, "What gotrace check checks").  Each cut
# that a checker rejects is then repaired, and the repaired file must be
# accepted by gotrace check and both Gos.
#
# Fails where Go 1.23 or 1.27 is missing (skips with GT_ALLOW_NO_GO=1).
# $MODEL_TEST and $GO123_MUTATE are the binaries (make check passes them).

. "$(dirname "$0")/lib.sh"

MODEL_TEST=${MODEL_TEST:-./build/model_test}
GO123_MUTATE=${GO123_MUTATE:-./build/go123_mutate}
GO123=${GO123:-/usr/lib/go-1.23/bin/go}
GO127=${GO127:-${GT_STORE:-$(dirname "$0")/../../.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"

if [ ! -x "$GO123" ] || [ ! -x "$GO127" ]; then
	no_go "Go's verdicts need Go 1.23 ($GO123) and Go 1.27 ($GO127)"
	done_testing
	exit
fi

mkdir "$T/model"
"$MODEL_TEST" "$T/model" >/dev/null 2>&1
"$GO123_MUTATE" first4 "$T/model/generations.go123.trace" "$T/base.trace"
check "the valid trace: 4 generations of model_test's generations case" \
	'[ -s "$T/base.trace" ]'

# verdict FILE: "accept" or "reject" from each checker, in $gt $g123 $g127
verdict() {
	"$GOTRACE" check -q "$1" >/dev/null 2>"$T/gt.err" && gt=accept || gt=reject
	"$GO123" tool trace -d=1 "$1" >"$T/go123.out" 2>&1 && g123=accept || g123=reject
	"$GO127" tool trace -d=parsed "$1" >"$T/go127.out" 2>&1 && g127=accept || g127=reject
	# A panic is never an answer.
	if grep -q '^panic' "$T/go123.out" "$T/go127.out"; then
		g123=panic
	fi
}

# agree NAME: gotrace check's verdict is Go's
agree() {
	if [ "$g123" != "$g127" ]; then
		ok "$1: # Go 1.23 says $g123, Go 1.27 says $g127; gotrace check says $gt"
		return
	fi
	if [ "$gt" = "$g123" ]; then
		ok "$1: Go 1.23, Go 1.27 and gotrace check $gt it"
	else
		not_ok "$1: Go 1.23 and 1.27 $g123 it, gotrace check says $gt"
		sed 's/^/# gotrace: /' "$T/gt.err"
		grep -m1 -i 'error\|broken\|found\|failed' "$T/go123.out" |
			sed 's/^/# go 1.23: /'
	fi
}

for m in $("$GO123_MUTATE" list); do
	# The CPU sample mutations but one need samples: below.
	case $m in first4|sample-bad-*|sample-cut|sample-overflow|sample-no-*|samples-*)
		continue ;;
	esac
	rc=0
	"$GO123_MUTATE" "$m" "$T/base.trace" "$T/m.trace" 2>"$T/err" || rc=$?
	if [ $rc -eq 3 ]; then
		ok "$m: # SKIP nothing to mutate in this trace"
		continue
	fi
	verdict "$T/m.trace"
	agree "$m"
done

# CPU samples: a trace Go 1.23's runtime wrote with its CPU profile on
# (tests/cpuburn_go.go, 1 s), and what go123_mutate's sample-* mutations make
# of its first CPU samples batch.  Two are broken in ways Go's readers
# miss, and gotrace check rejects them: a sample whose stack id is not
# in the table (both readers take it; both dumps panic looking it up)
# and a batch that ends inside a sample (Go's reader takes the end of
# the data for the end of the trace: both dumps show nothing at all).
if cpuburn "$GO123" "$T/burn" 1.5 >"$T/out" 2>"$T/err"; then
	ok "cpuburn (Go 1.23) writes a go 1.23 trace with CPU samples"
	for m in unchanged sample-bad-byte sample-overflow sample-no-p-no-g \
		 samples-empty sample-in-events; do
		"$GO123_MUTATE" "$m" "$T/burn/burn.trace" "$T/m.trace"
		verdict "$T/m.trace"
		agree "$m (CPU samples)"
	done
	"$GO123_MUTATE" sample-bad-stack "$T/burn/burn.trace" "$T/m.trace"
	verdict "$T/m.trace"
	check "sample-bad-stack: gotrace check rejects it, naming the stack; the dumps of Go 1.23 and 1.27 panic on it" \
		'[ $gt = reject ] && has "found invalid stack ID 999999999 for a CPU sample" "$T/gt.err" && grep -q "^panic: expected id 999999999" "$T/go123.out" && grep -q "^panic: expected id 999999999" "$T/go127.out"'
	"$GO123_MUTATE" sample-cut "$T/burn/burn.trace" "$T/m.trace"
	verdict "$T/m.trace"
	check "sample-cut: gotrace check rejects it; Go 1.27 sees no sample at all (the trace ends there for it)" \
		'[ $gt = reject ] && has "its stack is cut off by the batch.s end" "$T/gt.err" && ! grep -q StackSample "$T/go127.out"'
	# Cut inside generation 2: the repair keeps generation 1, samples
	# and all.
	off=$("$GO123_MUTATE" cuts "$T/burn/burn.trace" | awk '$2 == "inside-batch" && $3 == "gen=2" { print $1; exit }')
	if [ -n "$off" ]; then
		head -c "$off" "$T/burn/burn.trace" >"$T/cut.trace"
		"$GOTRACE" check --repair -o "$T/fixed.trace" "$T/cut.trace" >"$T/out" 2>"$T/err"
		verdict "$T/fixed.trace"
		kept=$(grep -c StackSample "$T/go127.out")
		check "CPU samples cut inside generation 2 at $off: repaired, all three accept it, its $kept samples checked" \
			'[ "$gt$g123$g127" = acceptacceptaccept ] && [ "$kept" -gt 0 ] && "$GOTRACE" check "$T/fixed.trace" | grep -q "^  CPU samples $kept$"'
	else
		ok "# SKIP the trace of cpuburn has one generation: no cut to repair"
	fi
else
	not_ok "cpuburn (Go 1.23) writes a go 1.23 trace with CPU samples"
	sed 's/^/# /' "$T/burn/build.log" 2>/dev/null | head -5
fi

# gotrace stat says the frequency the trace says (its times are in ns).
# At 1 Hz, times in ns pass 2^64: a verdict, no undefined conversion.
"$GO123_MUTATE" freq-1hz "$T/base.trace" "$T/m.trace"
"$GOTRACE" check "$T/m.trace" >"$T/out" 2>"$T/err"
check "check of a 1 Hz trace: its times in ns saturate, none is converted out of range" \
	'! has "runtime error" "$T/err"'
"$GOTRACE" stat "$T/m.trace" >"$T/out" 2>"$T/err"
check "stat of a 1 Hz trace: frequency 1 Hz" 'has "(frequency 1 Hz)" "$T/out"'
"$GOTRACE" stat -j "$T/m.trace" >"$T/out" 2>"$T/err"
check "stat -j of a 1 Hz trace: frequency 1" 'has "^  \"frequency\": 1,$" "$T/out"'

# The sweep (statuses of the tasks a generation did not name) matters
# once the trace starts late: in the whole 22-generation trace, dropping
# the first generation (a flight-recorder cut) leaves a task asleep
# throughout first named by a status in generation 22.
for m in no-sweep drop-gen1 no-sweep,drop-gen1; do
	"$GO123_MUTATE" "$m" "$T/model/generations.go123.trace" "$T/m.trace"
	verdict "$T/m.trace"
	agree "$m (22 generations)"
done

# Truncation, and repair.
size=$(wc -c <"$T/base.trace")
# A file cut inside a generation: the error says what --repair keeps.
head -c 20000 "$T/base.trace" >"$T/cut.trace"
"$GOTRACE" check "$T/cut.trace" >"$T/out" 2>"$T/err"
check "check of a cut file: names --repair and the complete generations it keeps" \
	'has "if it was cut short (a recorder killed, a full disk), .gotrace check --repair. keeps its [1-9][0-9]* complete generations" "$T/err"'

cuts=$("$GO123_MUTATE" cuts "$T/base.trace" | sed 's/ /:/g')
for c in $cuts 16:header-only 17:in-the-first-batch-header 20:in-the-first-batch-header \
	 5000:mid-generation 20000:mid-generation 35000:mid-generation \
	 $((size - 1)):one-byte-short; do
	off=${c%%:*}
	what=$(echo "${c#*:}" | tr ':' ' ')
	[ "$off" -lt "$size" ] || continue
	head -c "$off" "$T/base.trace" >"$T/cut.trace"
	verdict "$T/cut.trace"
	agree "cut at $off ($what)"
	[ "$gt$g123$g127" = acceptacceptaccept ] && continue
	rc=0
	"$GOTRACE" check --repair -o "$T/fixed.trace" "$T/cut.trace" \
		>"$T/out" 2>"$T/err" || rc=$?
	if [ $rc -ne 0 ]; then
		# Nothing complete to keep: only right for a cut in generation 1.
		check "cut at $off ($what): not repaired, generation 1 is incomplete" \
			'[ "$off" -lt "$("$GO123_MUTATE" cuts "$T/base.trace" | awk "/gen-end gen=1/ { print \$1 }")" ]'
		continue
	fi
	verdict "$T/fixed.trace"
	check "cut at $off ($what): repaired to $(wc -c <"$T/fixed.trace") bytes, accepted by gotrace check, Go 1.23 and 1.27 ($gt $g123 $g127)" \
		'[ "$gt$g123$g127" = acceptacceptaccept ]'
	check "cut at $off ($what): the repair keeps every complete generation" \
		'"$GO123_MUTATE" cuts "$T/base.trace" | awk -v off="$off" -v got="$(wc -c <"$T/fixed.trace")" \
			"/gen-end/ && \$1 <= off { want = \$1 } END { exit !(want == got) }"'
done

done_testing
