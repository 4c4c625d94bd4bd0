#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# merge_check_test.sh - the merge's checker (tests/merge_check.c) on real
# Go programs' traces: build/gomerge_app and gomerge_app127 (a spin, an
# O_DIRECT reader, the pprof server idle) and selftests/host/go123trace's
# workload (channels, a mutex, a pipe, sleeps, file syscalls, GC, three
# generations), each written by Go 1.23 ("go 1.23 trace") and by Go 1.27
# ("go 1.26 trace": clock snapshots, end-of-generation bytes).  Each is
# merged with MERGE_SEEDS (default 100) random kernel views of its
# threads; every result must be a trace gotrace check's replay of Go's
# reader takes, with the program's events and the added ones, no other.
# The first seed's results are then read by Go 1.23 (for its format)
# and Go 1.27 themselves (selftests/check-trace.sh).  Fails where Go 1.23
# or 1.27 is missing (skips with GT_ALLOW_NO_GO=1).

. "$(dirname "$0")/lib.sh"

go_env
SEEDS=${MERGE_SEEDS:-100}

if [ ! -x "$GO123" ] || [ ! -x "$GO127" ]; then
	no_go "Go 1.23 ($GO123) or Go 1.27 ($GO127)"
	done_testing
	exit
fi

traces=
for v in 123 127; do
	app=$B/gomerge_app
	go=$GO123
	name=1.23
	if [ $v = 127 ]; then
		app=$B/gomerge_app127
		go=$GO127
		name=1.27
	fi
	"$app" -trace "$T/app$v.trace" -spin 300ms -read "$app" > "$T/out" 2>&1
	check "gomerge_app (Go $name) writes its trace" '[ $? = 0 ] && [ -s "$T/app$v.trace" ]'
	"$go" build -o "$T/go123trace-$v" "$ROOT/selftests/host/go123trace/main.go" \
		> "$T/out" 2>&1 && "$T/go123trace-$v" record "$T/work$v.trace" > "$T/out" 2>&1
	check "go123trace (Go $name) records its workload" '[ $? = 0 ] && [ -s "$T/work$v.trace" ]'
	traces="$traces $T/app$v.trace $T/work$v.trace"
done

mkdir "$T/keep"
# shellcheck disable=SC2086 # $traces: the files, split
"$B/merge_check" -n "$SEEDS" -k "$T/keep" $traces > "$T/out" 2> "$T/err"
check "merge_check: $SEEDS random kernel views of each of 4 traces, every merge valid" \
	'[ $? = 0 ] && has " 0 failed: [1-9][0-9]* regions and [1-9][0-9]* CPU samples added" "$T/out"'
sed 's/^/# /' "$T/out"
bash "$ROOT/selftests/check-trace.sh" "$T"/keep/*.trace > "$T/out" 2>&1
check "Go 1.23 and 1.27 read the first seed's merged traces" '[ $? = 0 ]'
sed 's/^/# /' "$T/out"
done_testing
