#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# verify_trace_test.sh GEN_TRACE - the ground-truth checker and the checker
# of record must be able to fail.  Each case runs ../verify-trace.sh (or
# ../check-trace.sh) on a synthetic trace from GEN_TRACE where the answer
# is known: expectations that hold pass, and each way a check used to
# pass on nothing now fails: a task absent from the trace under "== 0",
# "<=" and nopprof, tasks a filter should have left out, a profile the
# tool cannot build, a dump format the checker does not understand, an
# empty or malformed expectation file, a function left out of pprof's
# display for its small share of the profile.  With GEN_TRACE_GO123 (and Go 1.27),
# the same on a generational trace, which Go 1.21 cannot read: its
# profiles must come from Go 1.23 and 1.27, and the expectations that
# read Go 1.21's dump must fail.
# TAP on stdout; exits 1 if any case went the wrong way.
#
# A Go tool that breaks on demand is a wrapper around the real one (GO121,
# GO123): "garbage" prints a dump in a format nobody knows, "nopprof"
# fails every -pprof run.

set -u
here=$(cd "$(dirname "$0")" && pwd)
verify=$here/../verify-trace.sh
check=$here/../check-trace.sh
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 GEN_TRACE [GEN_TRACE_GO123]" >&2
	exit 2
fi
gen=$1
gen_go123=${2:-}
GO121=${GO121:-/usr/lib/go-1.21/bin/go}
GO123=${GO123:-/usr/lib/go-1.23/bin/go}
GO127=${GO127:-${GT_STORE:-$here/../../.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GO121 GO123 GO127

T=$(mktemp -d "${TMPDIR:-/tmp}/verify-trace-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0
failed=0

# broken_go MODE REAL: the path of a go that breaks the MODE way, in
# `go tool trace` and in the trace tool of its GOTOOLDIR, which
# check-trace.sh runs directly (verify-trace.sh goes through go).
# garbage: -d prints an event the checkers do not know; nopprof: -pprof
# fails; noisy: a stray line on stderr; benign: Go's "Parsing trace..."
# there, after its log prefix.
broken_go() {
	bd=$(mktemp -d "$T/go.XXXXXX")
	mkdir "$bd/tool"
	cat > "$bd/tool/trace" <<EOF
#!/bin/sh
case "\$*" in
"-d=1 "*|"-d "*)
	[ $1 = garbage ] && { echo "Event 1 at 0 ns on thread 7"; exit 0; } ;;
"-pprof="*)
	[ $1 = nopprof ] && { echo "failed to generate profile" >&2; exit 1; } ;;
esac
[ $1 = noisy ] && echo "2026/11/28 03:00:00 something went odd" >&2
[ $1 = benign ] && echo "2026/11/28 03:00:00 Parsing trace..." >&2
exec "\$("$2" env GOTOOLDIR)/trace" "\$@"
EOF
	cat > "$bd/go" <<EOF
#!/bin/sh
case "\$*" in
"env GOTOOLDIR") echo "$bd/tool"; exit 0 ;;
"tool trace "*) shift 2; exec "$bd/tool/trace" "\$@" ;;
esac
exec "$2" "\$@"
EOF
	chmod +x "$bd/go" "$bd/tool/trace"
	echo "$bd/go"
}

# expect_verdict WANT NAME EXPECTATIONS [ENV...]: verify-trace.sh on the
# small trace ($trace) with EXPECTATIONS (one per line) must exit WANT
# (0 or 1), and on a failure print why.
trace=$T/small.trace
expect_verdict() {
	want=$1 name=$2
	printf '%s\n' "$3" > "$T/expect"
	shift 3
	env "$@" "$verify" "$trace" "$T/expect" > "$T/out" 2>&1
	rc=$?
	n=$((n + 1))
	if [ "$rc" -eq "$want" ]; then
		echo "ok $n - $name: $(grep -m 1 -E '^FAIL' "$T/out" || echo "exit $rc")"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name: exit $rc, want $want"
		sed 's/^/#   /' "$T/out"
	fi
}

"$gen" small "$T/small.trace" > /dev/null || { echo "Bail out! gen-trace-go111 failed"; exit 1; }

expect_verdict 0 "expectations that hold pass" \
	"task0 create >= 1
task1 start+preempt >= 1
task4 block:sync <= 1000000
names task0,task1,task2,task3,task4
pprof sched task0
nopprof net task4"
expect_verdict 1 "a missing task fails '== 0'" "gt_absent syscall:sys_getppid == 0"
expect_verdict 1 "a missing task fails '<='" "gt_absent block:sleep <= 11"
expect_verdict 1 "a missing task fails nopprof" "nopprof syscall gt_absent"
expect_verdict 1 "a count that is off fails" "task0 create == 1000"
expect_verdict 1 "names fails on tasks a filter should have left out" \
	"names task0,task1"
expect_verdict 1 "an unknown metric fails" "task0 bogus == 0"
expect_verdict 1 "an unknown OP fails" "task0 create != 0"
expect_verdict 1 "a VALUE that is no number fails" "task0 create >= many"
expect_verdict 1 "an expectation file with none fails" "# nothing"
expect_verdict 1 "a dump format it cannot read fails" "task0 create >= 0" \
	GO123="$(broken_go garbage "$GO123")"
expect_verdict 1 "pprof fails when Go cannot build the profile" \
	"pprof sched task0" GO121="$(broken_go nopprof "$GO121")"
expect_verdict 1 "nopprof fails when Go cannot build the profile" \
	"nopprof net task4" GO121="$(broken_go nopprof "$GO121")"
# task4 waits 7.7 us in the sync profile, 0.29% of it: under the share
# pprof's display leaves out by default, and still there.
expect_verdict 1 "nopprof fails on a function under 0.5% of the profile" \
	"nopprof sync task4"

# A generational trace: Go 1.23 and 1.27 build its profiles, Go 1.21
# cannot read it.
if [ -n "$gen_go123" ] && [ -x "$GO127" ]; then
	trace=$T/go123-small.trace
	"$gen_go123" small "$trace" > /dev/null 2> "$T/gen.err" ||
		{ echo "Bail out! gen-trace-go123 failed: $(cat "$T/gen.err")"; exit 1; }
	expect_verdict 0 "go 1.23 trace: expectations that hold pass" \
		"main.main create >= 1
pprof sched main.worker
nopprof net main.worker"
	expect_verdict 1 "go 1.23 trace: a count that is off fails" \
		"main.main create == 100000"
	expect_verdict 1 "go 1.23 trace: pprof fails when Go 1.27 cannot build the profile" \
		"pprof sched main.worker" GO127="$(broken_go nopprof "$GO127")"
	# nopprof of a generational trace reads Go 1.27's profile alone
	# (verify-trace.sh says why Go 1.23 is not asked).
	expect_verdict 1 "go 1.23 trace: nopprof fails when Go 1.27 cannot build the profile" \
		"nopprof net main.worker" GO127="$(broken_go nopprof "$GO127")"
	expect_verdict 0 "go 1.23 trace: Go 1.23 is not asked for nopprof" \
		"nopprof net main.worker" GO123="$(broken_go nopprof "$GO123")"
	expect_verdict 1 "go 1.23 trace: nopprof fails on a function 1 ms or more in the profile" \
		"nopprof sched main.worker"
	expect_verdict 0 "go 1.23 trace: Go 1.21 is not asked for profiles" \
		"pprof sched main.worker
nopprof net main.worker" GO121=/bin/false
	expect_verdict 1 "go 1.23 trace: gomaxprocs (Go 1.21's dump) fails" "gomaxprocs 3"
	# A function whose share of the profile is under the 0.5% pprof's
	# display leaves out by default: 1.25 ms of 320 ms (Go 1.27) on a
	# trace whose other goroutines wait far longer, as a workload's
	# task does in a whole machine's trace.
	trace=$T/go123-faint.trace
	"$gen_go123" faint "$trace" > /dev/null 2> "$T/gen.err" ||
		{ echo "Bail out! gen-trace-go123 faint failed: $(cat "$T/gen.err")"; exit 1; }
	expect_verdict 0 "go 1.23 trace: pprof finds a function under 0.5% of the profile" \
		"pprof sched main.faint"
	expect_verdict 1 "go 1.23 trace: nopprof fails on 1 ms or more under 0.5% of the profile" \
		"nopprof sched main.faint"
	trace=$T/go123-stuck.trace
	"$gen_go123" stuck "$trace" > /dev/null 2> "$T/gen.err" ||
		{ echo "Bail out! gen-trace-go123 stuck failed: $(cat "$T/gen.err")"; exit 1; }
	expect_verdict 1 "go 1.23 trace: stuck 0 fails on a goroutine runnable for whole generations" \
		"stuck 0"
	expect_verdict 0 "go 1.23 trace: stuck 1 names it" "stuck 1"
	trace=$T/go123-small.trace
	"$gen_go123" small "$trace" > /dev/null 2> "$T/gen.err" ||
		{ echo "Bail out! gen-trace-go123 small failed: $(cat "$T/gen.err")"; exit 1; }
	expect_verdict 0 "go 1.23 trace: stuck 0 passes where every runnable goroutine runs" \
		"stuck 0"
	trace=$T/small.trace
elif [ -n "$gen_go123" ] && [ "${GT_ALLOW_NO_GO:-0}" != 1 ]; then
	# make deps installs Go 1.27: its absence fails, unless asked.
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - the generational trace's cases need $GO127: 'make deps' installs it (GT_ALLOW_NO_GO=1 skips instead)"
else
	echo "# SKIP the generational trace's cases: no GEN_TRACE_GO123 or no $GO127"
fi

# The checker of record: a profile that cannot be built fails --pprof,
# and so does a line on a tool's stderr that is not one of its progress
# messages; those pass.
# check_verdict WANT NAME MODE: check-trace.sh --pprof on the small trace
# with Go 1.23 broken the MODE way must exit WANT (0 or 1).
check_verdict() {
	n=$((n + 1))
	GO123="$(broken_go "$3" "$GO123")" "$check" --pprof "$T/small.trace" \
		> "$T/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$1" ]; then
		echo "ok $n - $2: $(grep -m 1 -E '^(FAIL|ok)' "$T/out")"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2: exit $rc, want $1"
		sed 's/^/#   /' "$T/out"
	fi
}
check_verdict 1 "check-trace.sh --pprof fails when -pprof fails" nopprof
check_verdict 1 "check-trace.sh fails on a stray stderr line" noisy
check_verdict 0 "check-trace.sh passes Go's progress messages" benign

echo "1..$n"
[ "$failed" -eq 0 ]
