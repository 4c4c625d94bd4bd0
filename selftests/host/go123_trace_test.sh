#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# go123_trace_test.sh OUTDIR GOTRACE - the generational format on real traces.
#
# Go 1.23 and Go 1.27 each build go123trace/ and record a workload with it:
# "go 1.23 trace" and "go 1.26 trace" files of three generations.  go123trace
# then cuts them (at a generation boundary, between and inside the
# batches of the last generation, inside a batch of the second one) and
# corrupts one event type byte.  Then:
#   * the checker of record (../check-trace.sh: parsers, profiles, the
#     web UIs once) accepts the recordings and the generation-boundary
#     cuts, and rejects every other cut and the corrupted files;
#   * 'gotrace check' gives the same verdict on every file, and its reason
#     names the generation;
#   * 'gotrace stat' finds the workload's goroutines, their channel and
#     mutex waits and their syscalls;
#   * 'gotrace check --repair' trims every cut file to a file that Go and
#     'gotrace check' accept and that is a prefix of the recording, and
#     leaves a file it cannot repair unchanged.
#   * with GOTRACE_PLAIN (a build without sanitizers), check and stat
#     read a file of 1001 generations (40 to 70 MB) in 32 MiB of address
#     space.
# What each Go version says about each damaged file is printed as TAP
# comments.  GO123 and GO127 name the go binaries.  TAP on stdout.
set -u

here=$(cd "$(dirname "$0")" && pwd)
check=$here/../check-trace.sh
[ $# -eq 2 ] || { echo "usage: $0 OUTDIR GOTRACE" >&2; exit 2; }
O=$1
GOTRACE=$2
GO123=${GO123:-/usr/lib/go-1.23/bin/go}
GO127=${GO127:-${GT_STORE:-$here/../../.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GO123 GO127 GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"
mkdir -p "$O"

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $*"; }

# The tools and the recordings: without them nothing below means anything.
for v in 1.23 1.27; do
	go=$GO123
	[ "$v" = 1.27 ] && go=$GO127
	if ! "$go" build -o "$O/go123trace-$v" "$here/go123trace/main.go" 2> "$O/build-$v.log"; then
		cat "$O/build-$v.log" >&2
		echo "Bail out! go $v cannot build go123trace"
		exit 1
	fi
	"$O/go123trace-$v" record "$O/rec-$v.trace" || {
		echo "Bail out! go123trace of go $v cannot record"
		exit 1
	}
done

# Each recording's header is the one its Go writes.
for want in "1.23 go 1.23 trace" "1.27 go 1.26 trace"; do
	v=${want%% *} hdr=${want#* }
	got=$(head -c 16 "$O/rec-$v.trace" | tr -d '\0')
	if [ "$got" = "$hdr" ]; then
		ok "Go $v records \"$hdr\""
	else
		not_ok "Go $v records \"$got\", not \"$hdr\""
	fi
done

valid=
broken=
for v in 1.23 1.27; do
	valid="$valid rec-$v"
	"$O/go123trace-$v" cut gen-boundary "$O/rec-$v.trace" "$O/gen-boundary-$v.trace"
	valid="$valid gen-boundary-$v"
	for m in mid-gen mid-batch middle-gen corrupt; do
		"$O/go123trace-$v" cut $m "$O/rec-$v.trace" "$O/$m-$v.trace"
		broken="$broken $m-$v"
	done
done

# The recordings: parsers and profiles of every Go that reads them, and
# once the web UIs.
if "$check" --pprof "$O/rec-1.27.trace" "$O/gen-boundary-1.23.trace" \
	"$O/gen-boundary-1.27.trace" > "$O/check.log" 2>&1 &&
   "$check" --web --pprof "$O/rec-1.23.trace" >> "$O/check.log" 2>&1; then
	ok "the checker of record accepts the recordings and the generation-boundary cuts"
	sed 's/^/# /' "$O/check.log"
else
	not_ok "the checker of record refused a recording"
	sed 's/^/# /' "$O/check.log"
fi

# Every damaged file: Go rejects it, and so does gotrace check.
for t in $broken; do
	f=$O/$t.trace
	if "$check" "$f" > "$O/$t.log" 2>&1; then
		not_ok "the checker of record accepted $t.trace"
		continue
	fi
	ok "the checker of record rejects $t.trace"
	for v in 1.23 1.27; do
		go=$GO123 d=-d=1
		[ "$v" = 1.27 ] && go=$GO127 d=-d=parsed
		"$go" tool trace "$d" "$f" > /dev/null 2> "$O/$t.go$v"
		echo "#   go $v (exit $?): $(grep -v '^$' "$O/$t.go$v" | head -n 1)"
	done
	if "$GOTRACE" check "$f" > /dev/null 2> "$O/$t.gt"; then
		not_ok "gotrace check accepted $t.trace, which Go rejects"
	elif [ "$(wc -l < "$O/$t.gt")" -eq 1 ] &&
	     grep -q 'generation [0-9]' "$O/$t.gt"; then
		ok "gotrace check rejects $t.trace: $(sed 's/^gotrace: //' "$O/$t.gt")"
	else
		not_ok "gotrace check's reason for $t.trace is not one line naming the generation"
		sed 's/^/# /' "$O/$t.gt"
	fi
done
for t in $valid; do
	if "$GOTRACE" check -q "$O/$t.trace" 2> "$O/$t.gt"; then
		ok "gotrace check accepts $t.trace, as Go does"
	else
		not_ok "gotrace check refused $t.trace: $(cat "$O/$t.gt")"
	fi
done

# gotrace stat: the workload's goroutines and what they did.
# json_num KEY FILE: the first number after "KEY": on its line.
for v in 1.23 1.27; do
	j=$O/rec-$v.json
	if ! "$GOTRACE" stat --json -n 0 "$O/rec-$v.trace" > "$j" 2> "$O/stat.err"; then
		not_ok "gotrace stat of rec-$v.trace: $(cat "$O/stat.err")"
		continue
	fi
	gens=$("$GOTRACE" check "$O/rec-$v.trace" | sed -n 's/^  generations *//p')
	# The channel receiver and sender, the mutex user, the pipe reader.
	want_ok=1
	for g in main.workload.func1 main.workload.func2 main.workload.func3 \
		 main.workload.func4 main.main; do
		starts=$(grep -m1 "\"name\": \"$g\"" "$j" |
			sed -n 's/.*"starts": \([0-9]*\).*/\1/p')
		[ "${starts:-0}" -ge 10 ] || { want_ok=; echo "# $g: ${starts:-no} starts"; }
	done
	reads=$(grep -m1 '"name": "syscall.read"' "$j" | sed -n 's/.*"count": \([0-9]*\).*/\1/p')
	blocks=$(sed -n 's/^ *"GoBlock": \([0-9]*\).*/\1/p' "$j")
	[ "${reads:-0}" -ge 10 ] || { want_ok=; echo "# syscall.read: ${reads:-no} calls"; }
	[ "${blocks:-0}" -ge 100 ] || { want_ok=; echo "# GoBlock: ${blocks:-no} events"; }
	[ "${gens:-0}" -ge 3 ] || { want_ok=; echo "# ${gens:-no} generations"; }
	if [ -n "$want_ok" ]; then
		ok "gotrace stat of rec-$v.trace: $gens generations, the 5 workload goroutines started 10+ times, $reads syscall.read, $blocks GoBlock"
	else
		not_ok "gotrace stat of rec-$v.trace misses the workload"
	fi
done

# --repair: every cut file becomes a prefix that Go reads.
for v in 1.23 1.27; do
	for m in mid-gen mid-batch middle-gen; do
		f=$O/repaired-$m-$v.trace
		cp "$O/$m-$v.trace" "$f"
		if ! "$GOTRACE" check --repair "$f" > "$O/repair.out" 2>&1; then
			not_ok "gotrace check --repair of $m-$v.trace: $(tail -n 1 "$O/repair.out")"
			continue
		fi
		size=$(stat -c %s "$f")
		if ! cmp -s -n "$size" "$f" "$O/rec-$v.trace"; then
			not_ok "the repaired $m-$v.trace is not a prefix of the recording"
		elif ! "$check" "$f" > "$O/repaired.log" 2>&1; then
			not_ok "Go rejects the repaired $m-$v.trace"
			sed 's/^/# /' "$O/repaired.log"
		elif ! "$GOTRACE" check -q "$f"; then
			not_ok "gotrace check rejects the repaired $m-$v.trace"
		else
			ok "--repair of $m-$v.trace keeps $size bytes, read by $(sed -n 's/.*(\(.*\))$/\1/p' "$O/repaired.log")"
		fi
	done
	# Into another file: the input stays as it was.
	cp "$O/mid-gen-$v.trace" "$O/input.trace"
	if "$GOTRACE" check --repair -o "$O/out.trace" "$O/input.trace" > /dev/null 2>&1 &&
	   cmp -s "$O/input.trace" "$O/mid-gen-$v.trace" &&
	   cmp -s "$O/out.trace" "$O/repaired-mid-gen-$v.trace"; then
		ok "--repair -o of mid-gen-$v.trace writes OUT and leaves the input alone"
	else
		not_ok "--repair -o of mid-gen-$v.trace"
	fi
	# Nothing to keep (the first generation is corrupted): no change.
	cp "$O/corrupt-$v.trace" "$O/input.trace"
	if "$GOTRACE" check --repair "$O/input.trace" > /dev/null 2> "$O/repair.err"; then
		not_ok "--repair of corrupt-$v.trace succeeded without a complete generation"
	elif cmp -s "$O/input.trace" "$O/corrupt-$v.trace" &&
	     ! ls "$O"/input.trace.repair.* > /dev/null 2>&1; then
		ok "--repair of corrupt-$v.trace fails and leaves it unchanged: $(tail -n 1 "$O/repair.err" | sed 's/^gotrace: //')"
	else
		not_ok "--repair of corrupt-$v.trace changed it or left a temporary file"
	fi
done

# Memory bounded by a generation: a valid file of 1000 generations,
# larger than 32 MiB, in 32 MiB of address space (ASan cannot run there:
# the plain build, if given).  user/tests/go123_long.c writes it: gotrace
# check replays the states as Go does, so the file must be valid (go123trace
# repeat's copies of one generation are not).
GO123_LONG=$(dirname "$0")/../../user/build/go123_long
if [ -n "${GOTRACE_PLAIN:-}" ]; then
	"$GO123_LONG" 1000 "$O/big.trace"
	size=$(stat -c %s "$O/big.trace")
	if (ulimit -v 32768 && "$GOTRACE_PLAIN" check -q "$O/big.trace" &&
	    "$GOTRACE_PLAIN" stat "$O/big.trace" > /dev/null); then
		ok "gotrace check and stat of $size bytes in 1000 generations in 32 MiB of address space"
	else
		not_ok "gotrace check or stat of $size bytes in 1000 generations does not fit 32 MiB"
	fi
	rm -f "$O/big.trace"
fi

echo "1..$n"
exit $failed
