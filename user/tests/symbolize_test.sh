#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# symbolize_test.sh - gotrace symbolize names the user frames of a trace,
# and Go's readers see the names
#
# build/usym_prog (tests/usym_prog.c) prints the stack it had in leaf,
# innermost first, as file offsets of itself; gen-trace-go123's ustack kind
# writes a "go 1.23 trace" whose syscall stack holds those frames as the
# recorders write them unnamed (Documentation/user-stacks.rst), between a
# kernel frame, an address in no file, a truncated walk and gotrace's
# synthetic frames.  After gotrace symbolize, Go 1.27's parsed dump must
# name leaf, middle and outer in that order at the lines addr2line gives
# (the byte before each return address), its syscall profile too, and
# every other frame must be as it was; Go 1.23 and 1.27 and gotrace check
# must accept the output.  A trace without user frames comes out
# identical; a binary that is gone or stripped leaves its frames unnamed.
# The same for a "go 1.11 trace" of gen-trace-go111's ustack kind (its
# kernel-like stacks hold the frames), which Go 1.21 and 1.23 must accept.
# Fails where Go 1.21, 1.23 or 1.27 is missing (skips with
# GT_ALLOW_NO_GO=1).
#
# $GEN and $GEN1 are the generators, $PROG the program, $GO123_MUTATE adds
# CPU samples (make check builds them).

. "$(dirname "$0")/lib.sh"

GEN=${GEN:-./build/gen-trace-go123}
GEN1=${GEN1:-./build/gen-trace-go111}
PROG=$(realpath "${PROG:-./build/usym_prog}")
GO123_MUTATE=${GO123_MUTATE:-./build/go123_mutate}
CHECK_TRACE=$(dirname "$0")/../../selftests/check-trace.sh
GO121=${GO121:-/usr/lib/go-1.21/bin/go}
GO123=${GO123:-/usr/lib/go-1.23/bin/go}
GO127=${GO127:-${GT_STORE:-$(dirname "$0")/../../.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GO121 GO123 GO127 GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"

# The frames, innermost first: "NAME 0xOFFSET" lines.
"$PROG" >"$T/frames"
check "usym_prog prints its three frames" '[ $(wc -l <"$T/frames") -eq 3 ]'
offs=$(awk '{ print $2 }' "$T/frames")

# vaddr OFFSET: the ELF address of file offset OFFSET of $PROG (PT_LOAD).
vaddr() {
	readelf -lW "$PROG" | awk '$1 == "LOAD" { print $2, $3, $5 }' |
	while read -r o v n; do
		if [ $(($1)) -ge $((o)) ] && [ $(($1)) -lt $((o + n)) ]; then
			printf '0x%x\n' $(($1 - o + v))
			break
		fi
	done
}

# The frames as Go 1.27 should show them: "name file:line", one a line.
: >"$T/want"
while read -r name off; do
	a=$(printf '0x%x' $(($(vaddr "$off") - 1)))
	echo "$name $(addr2line -e "$PROG" "$a" | cut -d' ' -f1)" >>"$T/want"
done <"$T/frames"
check "addr2line names the three lines" \
	'[ $(grep -c ":[1-9][0-9]*$" "$T/want") -eq 3 ]'

# shellcheck disable=SC2086
"$GEN" ustack "$T/u.trace" "$PROG" $offs 2>/dev/null
run check -q "$T/u.trace"
check "the unnamed trace checks" '[ $rc -eq 0 ]'

run symbolize "$T/u.trace" "$T/s.trace"
check "symbolize names 3 frames in each of 3 generations" \
	'[ $rc -eq 0 ] && has "3 generations, 9 of 9 user frames named" "$T/err"'
run check -q "$T/s.trace"
check "gotrace check accepts the symbolised trace" '[ $rc -eq 0 ]'

run symbolize -q "$T/u.trace" -
check "symbolize to stdout writes the same bytes, -q prints nothing" \
	'[ $rc -eq 0 ] && cmp -s "$T/out" "$T/s.trace" && [ ! -s "$T/err" ]'
cp "$T/u.trace" "$T/inplace.trace"
run symbolize -q "$T/inplace.trace" "$T/inplace.trace"
check "symbolize IN IN rewrites it in place" \
	'[ $rc -eq 0 ] && cmp -s "$T/inplace.trace" "$T/s.trace"'
# An OUT that is no regular file is written, never replaced: a rename
# over root's /dev/null made it a regular file for the whole machine.
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" >"$T/fifo.out" &
run symbolize -q "$T/u.trace" "$T/fifo"
wait
check "a FIFO as OUT is written through and stays a FIFO" \
	'[ $rc -eq 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/fifo.out" "$T/s.trace"'
if mknod -m 666 "$T/null" c 1 3 2>/dev/null; then
	run symbolize -q "$T/u.trace" "$T/null"
	check "a copy of /dev/null as OUT stays the null device" \
		'[ $rc -eq 0 ] && [ -c "$T/null" ]'
else
	ok "# SKIP a copy of /dev/null as OUT stays the null device (mknod needs root)"
fi
run symbolize -q "$T/u.trace" "$T"
check "a directory as OUT: exit 1, named" \
	'[ $rc -eq 1 ] && has "is a directory" "$T/err"'

# A trace with no user frames, and one that is no generational trace.
"$GEN" small "$T/small.trace" 2>/dev/null
run symbolize "$T/small.trace" "$T/small.out"
check "a trace without user frames comes out identical" \
	'[ $rc -eq 0 ] && cmp -s "$T/small.trace" "$T/small.out" &&
	 has "0 of 0 user frames" "$T/err"'
run symbolize "$T/small.trace" "$T/nowhere/small.out"
check "an OUT that cannot be created: exit 1, with the reason" \
	'[ $rc -eq 1 ] && has "cannot create .*small.out.tmp-[0-9]*, where the trace is written until it replaces" "$T/err"'
# Cut in its second generation: the first named, the rest as it was.
head -c 3000 "$T/u.trace" >"$T/cut.trace"
run symbolize "$T/cut.trace" "$T/cut.out"
at=$(sed -n 's/.*: offset \([0-9]*\) .*/\1/p' "$T/err" | head -n 1)
tail -c +$((${at:-0} + 1)) "$T/cut.trace" >"$T/cut.rest"
tail -c $((3000 - ${at:-0})) "$T/cut.out" >"$T/cut.outrest"
check "a trace cut in generation 2: exit 1, 1 generation named, the rest copied" \
	'[ $rc -eq 1 ] && has "generation 2: no frequency event found" "$T/err" &&
	 has "1 generations, 3 of 3 user frames named" "$T/err" &&
	 cmp -s "$T/cut.rest" "$T/cut.outrest"'
head -c 1000 "$T/u.trace" >"$T/cut1.trace"
run symbolize "$T/cut1.trace" "$T/cut1.out"
check "a trace cut in generation 1: exit 1, copied unchanged" \
	'[ $rc -eq 1 ] && cmp -s "$T/cut1.trace" "$T/cut1.out"'
run symbolize "$T/u.trace"
check "symbolize without OUT: usage error" '[ $rc -eq 2 ]'

# Binaries that cannot name their frames leave them as they are.
# shellcheck disable=SC2086
"$GEN" ustack "$T/gone.trace" /nonexistent/usym_prog $offs 2>/dev/null
run symbolize "$T/gone.trace" "$T/gone.out"
check "a missing binary: 0 of 9 named, the trace unchanged" \
	'[ $rc -eq 0 ] && has "0 of 9 user frames named" "$T/err" &&
	 cmp -s "$T/gone.trace" "$T/gone.out"'
cp "$PROG.stripped" "$T/usym_prog"
# shellcheck disable=SC2086
"$GEN" ustack "$T/strip.trace" "$T/usym_prog" $offs 2>/dev/null
run symbolize "$T/strip.trace" "$T/strip.out"
check "a stripped binary: 0 of 9 named, the trace unchanged" \
	'[ $rc -eq 0 ] && has "0 of 9 user frames named" "$T/err" &&
	 cmp -s "$T/strip.trace" "$T/strip.out"'

# The go 1.11 format: one string table for the file, strings appended.
# shellcheck disable=SC2086
"$GEN1" ustack "$T/v1u.trace" "$PROG" $offs 2>/dev/null
run symbolize "$T/v1u.trace" "$T/v1s.trace"
check "go 1.11: symbolize names the 3 frames" \
	'[ $rc -eq 0 ] && has "1 generations, 3 of 3 user frames named" "$T/err"'
run check -q "$T/v1s.trace"
check "go 1.11: gotrace check accepts the symbolised trace" '[ $rc -eq 0 ]'
"$GEN1" small "$T/v1small.trace" 2>/dev/null
run symbolize "$T/v1small.trace" "$T/v1small.out"
check "go 1.11: a trace without user frames comes out identical" \
	'[ $rc -eq 0 ] && cmp -s "$T/v1small.trace" "$T/v1small.out"'
head -c 3000 "$T/v1u.trace" >"$T/v1cut.trace"
run symbolize "$T/v1cut.trace" "$T/v1cut.out"
check "go 1.11: a cut trace: exit 1, copied unchanged" \
	'[ $rc -eq 1 ] && has "copied unchanged" "$T/err" &&
	 cmp -s "$T/v1cut.trace" "$T/v1cut.out"'

if [ ! -x "$GO121" ] || [ ! -x "$GO123" ] || [ ! -x "$GO127" ]; then
	no_go "Go's readers need Go 1.21 ($GO121), 1.23 ($GO123) and 1.27 ($GO127)"
	done_testing
	exit
fi

check "Go 1.23 and 1.27 accept it, with every profile" \
	'"$CHECK_TRACE" --pprof "$T/s.trace" >"$T/out" 2>"$T/err"'

# frames TRACE: the frames of Go 1.27's dump of TRACE, "name file:line"
# one a line, in order.
frames() {
	"$GO127" tool trace -d=parsed "$1" 2>/dev/null | awk '
	/^\t[^\t].* @ 0x/ { sub(/^\t/, ""); sub(/ @ 0x.*/, ""); name = $0; next }
	/^\t\t/ && name != "" { sub(/^\t\t/, ""); print name " " $0; name = "" }
'
}
frames "$T/s.trace" >"$T/dump"
awk '$1 == "leaf" { getline m; getline o; print; print m; print o; exit }' \
	"$T/dump" >"$T/got"
check "Go 1.27 names leaf, middle, outer in order, at addr2line's lines" \
	'cmp -s "$T/want" "$T/got" || { sed "s/^/# want /" "$T/want";
	 sed "s/^/# got  /" "$T/got"; false; }'
check "the frames before and after them are as they were" \
	'grep -B1 -A4 "^leaf " "$T/dump" | head -6 |
	 tr "\n" "|" | grep -q "^entry_SYSCALL_64 :0|leaf .*|middle .*|outer .*|\[unknown\]+0x7ffd1000 :0|\[user stack truncated: depth limit\] :0|$"'
check "no user frame is left unnamed" '! grep -q "usym_prog+0x" "$T/dump"'

# CPU samples share the stack table: a sample of every stack (go123_mutate
# samples-of-stacks), and the samples' stacks must come out named too.
# sampled TRACE: the frames of the samples of Go 1.27's dump of TRACE.
sampled() {
	"$GO127" tool trace -d=parsed "$1" 2>/dev/null | awk '
	/ StackSample / { s = 1; next }
	s && /^Stack=/ { next }
	s && /^\t[^\t].* @ 0x/ { sub(/^\t/, ""); sub(/ @ 0x.*/, ""); name = $0; next }
	s && /^\t\t/ { sub(/^\t\t/, ""); print name " " $0; next }
	{ s = 0 }
'
}
"$GO123_MUTATE" samples-of-stacks "$T/u.trace" "$T/us.trace"
run symbolize "$T/us.trace" "$T/uss.trace"
sampled "$T/us.trace" >"$T/sdump0"
sampled "$T/uss.trace" >"$T/sdump"
awk '$1 == "leaf" { getline m; getline o; print; print m; print o; exit }' \
	"$T/sdump" >"$T/got"
check "CPU samples of every stack: symbolize names leaf, middle, outer in their stacks too" \
	'[ $rc -eq 0 ] && grep -q "usym_prog+0x" "$T/sdump0" && cmp -s "$T/want" "$T/got" && ! grep -q "usym_prog+0x" "$T/sdump"'
run check "$T/uss.trace"
check "gotrace check accepts it, with its samples" \
	'[ $rc -eq 0 ] && has "^  CPU samples [1-9]" "$T/out"'

"$GO127" tool trace -pprof=syscall "$T/s.trace" >"$T/sys.pprof" 2>/dev/null
"$GO127" tool pprof -traces "$T/sys.pprof" 2>/dev/null >"$T/traces"
check "Go 1.27's syscall profile names leaf, middle, outer" \
	'grep -A3 "entry_SYSCALL_64" "$T/traces" | awk "{ print \$NF }" |
	 tr "\n" " " | grep -q "entry_SYSCALL_64 leaf middle outer"'

# Go's asynchronous preemption: a goroutine stopped at main.readLoop's
# first byte calls runtime.asyncPreempt as if from there.  The frame
# under asyncPreempt is that instruction, no return address: it names
# main.readLoop, not the function before it.  (Go binary: Go 1.23.)
# fileoff SYMBOL: the file offset of SYMBOL of $GOPROG (PT_LOAD).
GOPROG=$(realpath "${GOPROG:-./build/usym_go}" 2>/dev/null)
fileoff() {
	a=$(nm "$GOPROG" | awk -v s="$1" '$3 == s { print "0x" $1; exit }')
	readelf -lW "$GOPROG" | awk '$1 == "LOAD" { print $2, $3, $5 }' |
	while read -r o v n; do
		if [ $((a)) -ge $((v)) ] && [ $((a)) -lt $((v + n)) ]; then
			printf '0x%x\n' $((a - v + o))
			break
		fi
	done
}
if [ -x "$GOPROG" ]; then
	ap=$(fileoff runtime.asyncPreempt.abi0)
	rl=$(fileoff main.readLoop)
	"$GEN" ustack "$T/ap.trace" "$GOPROG" $((ap + 16)) "$rl" 2>/dev/null
	run symbolize "$T/ap.trace" "$T/aps.trace"
	frames "$T/aps.trace" >"$T/apdump"
	check "under runtime.asyncPreempt, main.readLoop's first byte is main.readLoop" \
		'[ $rc -eq 0 ] && grep -A1 "^runtime.asyncPreempt" "$T/apdump" |
		 tail -n 1 | grep -q "^main.readLoop "'
else
	ok "# SKIP no $GOPROG (Go 1.23 missing)"
fi

check "go 1.11: Go 1.21 and 1.23 accept it, with every profile" \
	'"$CHECK_TRACE" --pprof "$T/v1s.trace" >"$T/out" 2>"$T/err"'
frames "$T/v1s.trace" >"$T/dump1"
awk '$1 == "leaf" { getline m; getline o; print; print m; print o; exit }' \
	"$T/dump1" >"$T/got1"
check "go 1.11: Go 1.27 names leaf, middle, outer in order, at addr2line's lines" \
	'cmp -s "$T/want" "$T/got1"'
check "go 1.11: no user frame is left unnamed" \
	'! grep -q "usym_prog+0x" "$T/dump1"'

done_testing
