#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# output_test.sh - every subcommand that writes a file keeps output.h's
# rules: a device, a FIFO or a symbolic link named as the output is
# never replaced by a renamed file, "-" is standard output (never a file
# named "-"), and an output that is the input is refused where writing
# it would lose the input (a profile over its trace).
#
# Never the machine's own devices: a FIFO, links and (as root) a null
# device made with mknod in the test's directory.  A writer that wrongly
# replaced the FIFO would leave its reader waiting: the readers are
# bounded by timeout(1).  $GEN_TRACE_GO123 writes the traces (make check
# builds it).

. "$(dirname "$0")/lib.sh"

GEN_TRACE_GO123=${GEN_TRACE_GO123:-$(dirname "$0")/../build/gen-trace-go123}
case $GOTRACE in
/*) ;;
*) GOTRACE=$PWD/$GOTRACE ;;
esac

"$GEN_TRACE_GO123" small "$T/good.trace" 2>/dev/null
size=$(wc -c <"$T/good.trace")
# Cut one byte short: --repair keeps its first generations.
head -c $((size - 1)) "$T/good.trace" >"$T/cut.trace"
"$GOTRACE" check --repair -q -o "$T/want.trace" "$T/cut.trace" 2>/dev/null
check "the cut trace repairs into a shorter one" \
	'[ -s "$T/want.trace" ] && [ "$(wc -c <"$T/want.trace")" -lt "$size" ]'

# No temporary file of an output is left in $T.
no_tmp() {
	! ls "$T" | grep -q '\.tmp-'
}

# check --repair into a FIFO: written in place, the FIFO stays.
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" >"$T/from-fifo" &
reader=$!
timeout 20 "$GOTRACE" check --repair -q -o "$T/fifo" "$T/cut.trace" \
	>"$T/out" 2>"$T/err"
rc=$?
# A FIFO replaced by a file leaves its reader waiting: end it.
[ -p "$T/fifo" ] || kill "$reader" 2>/dev/null
wait "$reader"
check "check --repair -o FIFO: the repaired trace goes through the FIFO, which stays one" \
	'[ $rc -eq 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/from-fifo" "$T/want.trace" && no_tmp'

# check --repair through a symbolic link: its target is replaced, the
# link stays.
echo previous >"$T/target.trace"
ln -s target.trace "$T/link.trace"
run check --repair -q -o "$T/link.trace" "$T/cut.trace"
check "check --repair -o LINK: the link stays, its target holds the repaired trace" \
	'[ $rc -eq 0 ] && [ -L "$T/link.trace" ] && [ "$(readlink "$T/link.trace")" = target.trace ] && cmp -s "$T/target.trace" "$T/want.trace" && no_tmp'
ln -s nothing.trace "$T/dangling.trace"
run check --repair -q -o "$T/dangling.trace" "$T/cut.trace"
check "check --repair -o a link to nothing: refused, nothing made" \
	'[ $rc -eq 1 ] && [ -L "$T/dangling.trace" ] && [ ! -e "$T/nothing.trace" ] && has "cannot follow the symbolic link" "$T/err" && no_tmp'

# A device node: as root, a null device of the test's own (on a nodev
# mount it cannot be opened: then refused, but never replaced).
if [ "$(id -u)" -eq 0 ] && mknod "$T/null" c 1 3 2>/dev/null; then
	run check --repair -q -o "$T/null" "$T/cut.trace"
	check "check --repair -o DEVICE: the device node stays (1, 3)" \
		'[ -c "$T/null" ] && [ "$(stat -c %t:%T "$T/null")" = 1:3 ] && no_tmp'
	run pprof sched -o "$T/null" "$T/good.trace"
	check "pprof -o DEVICE: the device node stays (1, 3)" \
		'[ -c "$T/null" ] && [ "$(stat -c %t:%T "$T/null")" = 1:3 ] && no_tmp'
else
	ok "# SKIP device nodes: not root, or mknod refused"
	ok "# SKIP device nodes: not root, or mknod refused"
fi

# "-" is standard output, not a file named "-".
mkdir "$T/cwd"
(cd "$T/cwd" && "$GOTRACE" check --repair -q -o - "$T/cut.trace" \
	>"$T/stdout.trace" 2>"$T/err")
rc=$?
check "check --repair -o -: the repaired trace on standard output, no file named -" \
	'[ $rc -eq 0 ] && [ ! -e "$T/cwd/-" ] && cmp -s "$T/stdout.trace" "$T/want.trace"'
(cd "$T/cwd" && "$GOTRACE" check --repair -q -o - "$T/cut.trace" \
	>&- 2>"$T/err")
rc=$?
check "check --repair -o - with standard output closed: refused, said" \
	'[ $rc -eq 1 ] && [ ! -e "$T/cwd/-" ] && has "standard output is closed" "$T/err"'

# Repairing in place is what --repair is for: -o naming the input too.
cp "$T/cut.trace" "$T/self.trace"
chmod 640 "$T/self.trace"
run check --repair -q -o "$T/self.trace" "$T/self.trace"
check "check --repair -o FILE FILE: repaired in place, its mode kept" \
	'[ $rc -eq 0 ] && cmp -s "$T/self.trace" "$T/want.trace" && [ "$(stat -c %a "$T/self.trace")" = 640 ] && no_tmp'

# A profile over its own trace: refused, under any name.
cp "$T/good.trace" "$T/p.trace"
ln "$T/p.trace" "$T/hard.trace"
ln -s p.trace "$T/soft.trace"
for out in p.trace hard.trace soft.trace; do
	run pprof sched -o "$T/$out" "$T/p.trace"
	check "pprof -o $out of p.trace (the same file): refused, the trace kept" \
		'[ $rc -eq 1 ] && cmp -s "$T/p.trace" "$T/good.trace" && has "is the input" "$T/err" && no_tmp'
done
"$GOTRACE" pprof sched -o "$T/p.trace" - <"$T/p.trace" >"$T/out" 2>"$T/err"
rc=$?
check "pprof -o FILE - <FILE: refused, the trace kept" \
	'[ $rc -eq 1 ] && cmp -s "$T/p.trace" "$T/good.trace" && has "is the input" "$T/err"'
"$GOTRACE" pprof sched -o - "$T/p.trace" >>"$T/p.trace" 2>"$T/err"
rc=$?
check "pprof -o - >>FILE of FILE: refused, the trace kept" \
	'[ $rc -eq 1 ] && cmp -s "$T/p.trace" "$T/good.trace" && has "standard output is the input" "$T/err"'
run pprof sched -o "$T/p.pb.gz" "$T/p.trace"
check "pprof into another file still works" '[ $rc -eq 0 ] && [ -s "$T/p.pb.gz" ]'

# symbolize writes the same trace: in place is allowed (through the
# temporary file), writing into the input while reading it is not.
run symbolize -q "$T/p.trace" "$T/p.trace"
check "symbolize FILE FILE: in place, still a valid trace" \
	'[ $rc -eq 0 ] && "$GOTRACE" check -q "$T/p.trace" && no_tmp'
cp "$T/p.trace" "$T/before.trace"
"$GOTRACE" symbolize -q "$T/p.trace" - >>"$T/p.trace" 2>"$T/err"
rc=$?
check "symbolize FILE - >>FILE: refused, the trace kept" \
	'[ $rc -eq 1 ] && cmp -s "$T/p.trace" "$T/before.trace" && has "standard output is the input" "$T/err"'

# A FIFO nobody reads yet: the writer says it waits, then writes.
timeout 20 "$GOTRACE" pprof sched -o "$T/fifo" "$T/good.trace" \
	>"$T/out" 2>"$T/err" &
writer=$!
i=0
until has "waiting for a reader of the FIFO $T/fifo" "$T/err" ||
	[ $i -ge 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
said=$i
timeout 20 cat "$T/fifo" >"$T/from-fifo"
wait "$writer"
rc=$?
check "pprof -o FIFO without a reader: says it waits for one, then writes" \
	'[ $said -lt 200 ] && [ $rc -eq 0 ] && [ -s "$T/from-fifo" ] && [ -p "$T/fifo" ]'

done_testing
