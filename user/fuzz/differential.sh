#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# differential.sh [-n CASES] [-s SEED] [-k DIR] CORPUS... - gotrace
# check against Go's readers on damaged copies of the fuzz corpus
#
# Each case is a copy of a corpus file cut or mutated by fuzz/mutate.c
# (the seed decides which file and how: SEED, SEED+1, ... replay the
# same cases), read by `gotrace check` and by Go's readers of its format:
# a "go 1.11 trace" by Go 1.21 and Go 1.23 (`trace -d`), a generational
# one by Go 1.23 and, where scripts/go127.sh unpacked it, Go 1.27.  Go
# is the judge: a file a Go refuses (an error, a panic) must be refused
# by gotrace check; a case where gotrace check accepts what a Go refuses
# fails the run and its file is kept in DIR (default: a temporary
# directory) with Go's message.  gotrace check refusing a file every Go
# accepts is allowed (it also checks what Go's web interfaces need:
# Documentation/trace-format.rst) and counted.
#
# GOTRACE, MUTATE: the binaries; GO121, GO123, GO127: go binaries (their
# trace tool is run directly, without the go command's start-up).
set -eu

GOTRACE=${GOTRACE:-./gotrace}
MUTATE=${MUTATE:-./build/mutate}
GO121=${GO121:-/usr/lib/go-1.21/bin/go}
GO123=${GO123:-/usr/lib/go-1.23/bin/go}
GO127=${GO127:-${GT_STORE:-$(cd "$(dirname "$0")/../.." && pwd)/.cache}/go-1.27/usr/lib/go-1.27/bin/go}
CASES=100
SEED=1
KEEP=

while getopts n:s:k: o; do
	case $o in
	n) CASES=$OPTARG ;;
	s) SEED=$OPTARG ;;
	k) KEEP=$OPTARG ;;
	*) echo "usage: differential.sh [-n CASES] [-s SEED] [-k DIR] CORPUS..." >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "differential.sh: no corpus" >&2; exit 2; }

# The trace tool of a go binary, or nothing.
tool() {
	[ -x "$1" ] || return 0
	d=$(dirname "$1")/../pkg/tool/$(GOTOOLCHAIN=local "$1" env GOOS)_$(GOTOOLCHAIN=local "$1" env GOARCH)/trace
	[ -x "$d" ] && echo "$d"
}
T121=$(tool "$GO121")
T123=$(tool "$GO123")
T127=$(tool "$GO127")
if [ -z "$T121" ] || [ -z "$T123" ]; then
	echo "not ok 1 - the differential run needs Go 1.21 and 1.23 ('make deps')"
	exit 1
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
KEEP=${KEEP:-$T/keep}
mkdir -p "$KEEP"
find "$@" -type f | sort > "$T/files"
nfiles=$(wc -l < "$T/files")

# verdict TOOL ARGS... FILE: "accept" or "reject: first line of the error"
verdict() {
	if timeout 60 "$@" > "$T/out" 2>&1 &&
	   ! grep -q '^panic' "$T/out"; then
		echo accept
	else
		echo "reject: $(grep -v -e 'Parsing trace' -e '^$' "$T/out" | head -n 1 | cut -c1-160)"
	fi
}

n=0 bad=0 stricter=0 rejected=0
s=$SEED
while [ $n -lt "$CASES" ]; do
	f=$(sed -n "$((s % nfiles + 1))p" "$T/files")
	what=$("$MUTATE" "$s" "$f" "$T/case" | tr '\n' ';')
	n=$((n + 1))
	if "$GOTRACE" check -q "$T/case" > /dev/null 2> "$T/gt"; then
		gt=accept
	else
		gt=reject
		rejected=$((rejected + 1))
	fi
	if head -c 16 "$T/case" | grep -q '^go 1\.11 trace'; then
		set -- "go1.21:$(verdict "$T121" -d "$T/case")" \
			"go1.23:$(verdict "$T123" -d=1 "$T/case")"
	else
		set -- "go1.23:$(verdict "$T123" -d=1 "$T/case")"
		[ -z "$T127" ] ||
			set -- "$@" "go1.27:$(verdict "$T127" -d=parsed "$T/case")"
	fi
	go_rejects=
	for v; do
		case $v in *:reject*) go_rejects="$go_rejects $v" ;; esac
	done
	if [ "$gt" = accept ] && [ -n "$go_rejects" ]; then
		bad=$((bad + 1))
		cp "$T/case" "$KEEP/seed-$s.trace"
		echo "not ok $n - seed $s: $(basename "$f") ($what) accepted by gotrace check, refused by$go_rejects (kept in $KEEP/seed-$s.trace)"
	elif [ "$gt" = reject ] && [ -z "$go_rejects" ]; then
		stricter=$((stricter + 1))
		echo "ok $n - seed $s: $(basename "$f"): # only gotrace check refuses it: $(sed 's/^gotrace: //' "$T/gt" | head -n 1 | cut -c1-160)"
	else
		echo "ok $n - seed $s: $(basename "$f"): both $gt"
	fi
	s=$((s + 1))
done
echo "# $n cases from seed $SEED: $rejected refused by gotrace check, $stricter of them accepted by every Go; $bad accepted by gotrace check but refused by a Go"
echo "1..$n"
[ $bad -eq 0 ]
